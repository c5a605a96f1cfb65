//! Revision fidelity: the meta program run as revision k behaves exactly as
//! revision k's own file, on the same inputs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use psychic::ktest::{KTest, Object};
use psychic::unify::{self, SiteKind};

use crate::common::mutate::{self, BASES, SHAPE_WARNINGS, Shape};
use crate::common::{build, check_fidelity, par_map, sources, strict_toolchain, write_tests};

/// A fixture directory: `orig.c`, `p1.c`, ... and `inputs.txt`.
pub struct Fixture {
    pub name: String,
    pub files: Vec<(String, String)>,
    pub tests: Vec<KTest>,
}

pub fn fixture(dir: &Path) -> Fixture {
    let mut patches: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.file_name().unwrap().to_str().unwrap().starts_with('p')
                && p.extension().is_some_and(|e| e == "c")
        })
        .collect();
    patches.sort_by_key(|p| p.file_stem().unwrap().to_str().unwrap()[1..].parse::<u32>().unwrap());
    let files = std::iter::once(dir.join("orig.c"))
        .chain(patches)
        .map(|p| (p.file_name().unwrap().to_str().unwrap().to_string(), std::fs::read_to_string(&p).unwrap()))
        .collect();
    let tests = std::fs::read_to_string(dir.join("inputs.txt"))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(parse_test)
        .collect();
    Fixture { name: dir.file_name().unwrap().to_str().unwrap().to_string(), files, tests }
}

/// `name:width=v[,v...] ...` → a ktest.
fn parse_test(line: &str) -> KTest {
    let objects = line
        .split_whitespace()
        .map(|obj| {
            let (name, rest) = obj.split_once(':').unwrap();
            let (width, values) = rest.split_once('=').unwrap();
            let width: usize = width.parse().unwrap();
            let bytes = values
                .split(',')
                .flat_map(|v| v.parse::<i128>().unwrap().to_le_bytes()[..width].to_vec())
                .collect();
            Object { name: name.to_string(), bytes }
        })
        .collect();
    KTest { args: vec!["prog".into()], sym_argvs: 0, sym_argv_len: 0, objects }
}

pub fn fixture_dirs(group: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures").join(group);
    let mut dirs: Vec<PathBuf> =
        std::fs::read_dir(root).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_dir()).collect();
    dirs.sort();
    dirs
}

/// Checks every fixture of `group`, built as the generated sets are (some
/// fixtures have their real-code shapes); returns the sites' kinds seen.
fn check_group(group: &str) -> BTreeMap<SiteKind, usize> {
    let tc = strict_toolchain().with_flags(SHAPE_WARNINGS);
    let fixtures: Vec<Fixture> = fixture_dirs(group).iter().map(|d| fixture(d)).collect();
    assert!(!fixtures.is_empty());
    let results = par_map(&fixtures, |f| {
        let dir = tempfile::tempdir().unwrap();
        let own: Vec<PathBuf> = f
            .files
            .iter()
            .map(|(name, text)| {
                build(&tc, &dir.path().join(name), text).unwrap_or_else(|e| panic!("{}/{name}: {e}", f.name))
            })
            .collect();
        let tests = write_tests(dir.path(), &f.tests);
        let result = check_fidelity(&tc, dir.path(), &sources(&f.files), &own, &tests);
        result.map_err(|e| format!("{}: {e} (kept in {})", f.name, dir.keep().display()))
    });
    let mut kinds = BTreeMap::new();
    for r in results {
        let (meta, runs) = r.unwrap_or_else(|e| panic!("{e}"));
        assert!(runs > 0);
        for s in &meta.sites {
            *kinds.entry(s.kind).or_default() += 1;
        }
    }
    kinds
}

#[test]
fn seed_examples_keep_revision_fidelity() {
    let kinds = check_group("seeds");
    // Shadow and Qi's changes are conditions, initializers and right-hand sides.
    for k in [SiteKind::Condition, SiteKind::Initializer, SiteKind::Rhs] {
        assert!(kinds.contains_key(&k), "no {k:?} site in the seed examples: {kinds:?}");
    }
}

#[test]
fn feature_fixtures_keep_revision_fidelity() {
    let kinds = check_group("unify");
    for k in [
        SiteKind::Statement,
        SiteKind::ReturnValue,
        SiteKind::Condition,
        SiteKind::ForInit,
        SiteKind::ForUpdate,
        SiteKind::Rhs,
        SiteKind::Initializer,
    ] {
        assert!(kinds.contains_key(&k), "no {k:?} site in the feature fixtures: {kinds:?}");
    }
}

/// One generated patch set.
struct Generated {
    name: String,
    base: usize,
    revisions: Vec<String>,
    /// The real-code shapes of each revision.
    shapes: Vec<Vec<Shape>>,
}

#[test]
fn generated_patch_sets_keep_revision_fidelity() {
    const WANTED: usize = 100;
    const CANDIDATES: u64 = 120;
    const TESTS_PER_SET: usize = 6;
    let started = Instant::now();
    let tc = strict_toolchain().with_flags(SHAPE_WARNINGS);
    let work = tempfile::tempdir().unwrap();
    let sets: Vec<Generated> = (0..CANDIDATES)
        .map(|seed| {
            let base = (seed as usize) % BASES.len();
            let (revisions, shapes) = mutate::shaped_patch_set(BASES[base].source, seed).into_iter().unzip();
            Generated { name: format!("{}-{seed}", BASES[base].name), base, revisions, shapes }
        })
        .collect();
    // Every distinct revision text is built once; a mutant that does not build
    // warning-free is dropped. The bases are built too, whatever shape the
    // originals of the sets take.
    let mut texts: Vec<(usize, String)> = sets
        .iter()
        .flat_map(|s| s.revisions.iter().map(|t| (s.base, t.clone())))
        .chain(BASES.iter().enumerate().map(|(b, base)| (b, base.source.to_string())))
        .collect();
    texts.sort();
    texts.dedup();
    let built = par_map(&texts, |(base, text)| {
        let i = texts.binary_search(&(*base, text.clone())).unwrap();
        build(&tc, &work.path().join(format!("r{i}.c")), text).ok()
    });
    let bin_of: BTreeMap<(usize, &str), PathBuf> = texts
        .iter()
        .zip(&built)
        .filter_map(|((b, t), bin)| bin.clone().map(|bin| ((*b, t.as_str()), bin)))
        .collect();
    for (b, base) in BASES.iter().enumerate() {
        assert!(bin_of.contains_key(&(b, base.source)), "base {} does not build warning-free", base.name);
    }
    let valid: Vec<(&Generated, Vec<usize>)> = sets
        .iter()
        .map(|s| {
            (
                s,
                (0..s.revisions.len())
                    .filter(|&k| bin_of.contains_key(&(s.base, s.revisions[k].as_str())))
                    .collect::<Vec<_>>(),
            )
        })
        .filter(|(_, keep)| keep.len() >= 2)
        .take(WANTED)
        .collect();
    assert_eq!(valid.len(), WANTED, "too few generated patch sets build; {} of {CANDIDATES}", valid.len());
    let results = par_map(&valid, |(set, keep)| {
        let dir = tempfile::tempdir_in(work.path()).unwrap();
        let files: Vec<(String, String)> =
            keep.iter().enumerate().map(|(k, &r)| (format!("rev{k}.c"), set.revisions[r].clone())).collect();
        let own: Vec<PathBuf> =
            keep.iter().map(|&r| bin_of[&(set.base, set.revisions[r].as_str())].clone()).collect();
        let seed: u64 = set.name.rsplit('-').next().unwrap().parse().unwrap();
        let tests = write_tests(dir.path(), &mutate::inputs(BASES[set.base].inputs, seed, TESTS_PER_SET));
        for (name, text) in &files {
            std::fs::write(dir.path().join(name), unify::encode(text)).unwrap();
        }
        check_fidelity(&tc, dir.path(), &sources(&files), &own, &tests)
            .map_err(|e| format!("{}: {e} (kept in {})", set.name, dir.keep().display()))
    });
    let mut failures = Vec::new();
    let mut kinds: BTreeMap<SiteKind, usize> = BTreeMap::new();
    let mut shapes: BTreeMap<Shape, usize> = BTreeMap::new();
    let (mut runs, mut revisions, mut renamed, mut wide) = (0, 0, 0, 0);
    for (r, (set, keep)) in results.into_iter().zip(&valid) {
        match r {
            Ok((meta, n)) => {
                runs += n;
                revisions += keep.len();
                for s in keep.iter().flat_map(|&k| &set.shapes[k]) {
                    *shapes.entry(*s).or_default() += 1;
                }
                renamed += meta.renamed.len();
                wide += meta.sites.iter().filter(|s| s.variants.len() >= 3).count();
                for s in &meta.sites {
                    *kinds.entry(s.kind).or_default() += 1;
                }
            }
            Err(e) => failures.push(e),
        }
    }
    if !failures.is_empty() {
        let _ = work.keep();
    }
    assert!(failures.is_empty(), "{} of {WANTED} patch sets fail:\n{}", failures.len(), failures.join("\n"));
    eprintln!(
        "generated: {WANTED} patch sets, {revisions} revisions, {runs} runs compared, sites {kinds:?}, \
         {renamed} renamed names, {wide} sites with 3+ variants, shapes {shapes:?}, {:.1}s",
        started.elapsed().as_secs_f64()
    );
    // The generator must reach every kind of site, renaming and N-way sites, or
    // this test proves less than it claims.
    for k in [
        SiteKind::Statement,
        SiteKind::ReturnValue,
        SiteKind::Condition,
        SiteKind::ForUpdate,
        SiteKind::Rhs,
        SiteKind::Initializer,
    ] {
        assert!(kinds.get(&k).is_some_and(|&n| n > 0), "no generated {k:?} site: {kinds:?}");
    }
    assert!(renamed > 0 && wide > 0, "no renamed names ({renamed}) or 3-variant sites ({wide})");
    for s in Shape::ALL {
        assert!(shapes.contains_key(&s), "no generated revision has the shape {s:?}: {shapes:?}");
    }
}
