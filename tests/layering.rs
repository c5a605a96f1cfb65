//! ARCHITECTURE.md is the map, and these tests keep it true; no clang needed.
//!
//! `layers_hold`: the fenced block under `## Layers` lists the top-level
//! modules of `src/`, one layer a line, the top first. A module may use only
//! modules on lower lines: never one of its own line, never one above. Every
//! `src/**/*.rs` file is read as code (comments, doc comments, strings and
//! `#[cfg(test)]` items left out; a file only a `#[cfg(test)] mod` brings in
//! is skipped whole), and every `crate::X` path in it, `use crate::{X, Y}`
//! groups included, is an edge from the file's top-level module to `X`. It
//! fails naming the file, line and import of each edge that goes sideways or
//! up, each module of `src/` the table lacks and each one it names that
//! `src/` lacks. Since every edge goes down, no two modules form a cycle.
//!
//! `names_exist`: every backticked name of ARCHITECTURE.md outside fenced
//! blocks that claims to be ours is. A path under `src/`, `tests/`,
//! `benches/`, `fixtures/`, `runtime/`, `editors/`, `grammars/` or `specs/`
//! exists on disk. A Rust name is checked only when it looks like one: a path
//! with `::` (`exec::Executor`, `HaltObserver::on_domain`,
//! `Termination::Error`), a CamelCase word (`ExprPool`), or a word with `()`
//! (`judge()`). Prose in backticks (flags like `--max-time`, files like
//! `report.json`, C names like `klee_make_symbolic`, environment variables
//! like `KTEST_FILE`) has none of those shapes and is not checked. A
//! lower-case segment before the last names a module (a file or folder of
//! `src/`); the last segment, and any CamelCase one, is defined in `src/`
//! (or, for the test helpers the map names, in `tests/` or `benches/`): a
//! `struct`, `enum`, `trait`, `type`, `fn`, `const`, `static` or `mod` of
//! that name, or, after a CamelCase segment, an enum variant or a field. `EXTERNAL` lists the few names of other
//! projects (KLEE, LibAFL, Z3, std) the map may name.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use regex::Regex;

/// Names the map uses that are not psychic's: KLEE's, LibAFL's, Z3's, std's.
const EXTERNAL: &[&str] = &[
    // KLEE's classes and the paper's names for what psychic does after them.
    "DiffTest",
    "ApplyMetaBranch",
    "KleeHandler",
    "DiscretePDF",
    // LibAFL's.
    "StdFuzzer",
    "QueueScheduler",
    "MaxMapFeedback",
    // Z3's sort of truth values.
    "Bool",
    // std's.
    "Rc",
    "Rc::make_mut",
];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn architecture() -> String {
    std::fs::read_to_string(root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md")
}

/// The layers, top first, with the line of ARCHITECTURE.md each stands on.
fn layers(doc: &str) -> Vec<(usize, Vec<String>)> {
    let mut lines = doc.lines().enumerate().skip_while(|(_, l)| l.trim() != "## Layers");
    assert!(lines.next().is_some(), "ARCHITECTURE.md has no `## Layers` section");
    let mut lines = lines.take_while(|(_, l)| !l.starts_with("## "));
    lines.by_ref().find(|(_, l)| l.starts_with("```")).expect("`## Layers` has no fenced block");
    let table: Vec<_> = lines
        .take_while(|(_, l)| !l.starts_with("```"))
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(n, l)| (n + 1, l.split_whitespace().map(str::to_string).collect()))
        .collect();
    assert!(!table.is_empty(), "the `## Layers` block is empty");
    table
}

/// Every `.rs` file below `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The top-level modules of `src/`: its folders and its `.rs` files but the
/// crate roots.
fn src_modules() -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for e in std::fs::read_dir(root().join("src")).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_stem().unwrap().to_string_lossy().to_string();
        if p.is_dir() || (p.extension().is_some_and(|x| x == "rs") && name != "lib" && name != "main") {
            out.insert(name);
        }
    }
    out
}

/// `text` with comments, string and char literals blanked out (newlines kept,
/// so byte offsets and line numbers stay).
fn code_only(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            let end = b[i..].iter().position(|&c| c == b'\n').map_or(b.len(), |n| i + n);
            blank(&mut out, i, end);
            i = end;
        } else if b[i..].starts_with(b"/*") {
            let (mut depth, mut j) = (1, i + 2);
            while j < b.len() && depth > 0 {
                if b[j..].starts_with(b"/*") {
                    depth += 1;
                    j += 2;
                } else if b[j..].starts_with(b"*/") {
                    depth -= 1;
                    j += 2;
                } else {
                    j += 1;
                }
            }
            blank(&mut out, i, j);
            i = j;
        } else if (b[i] == b'r' || b[i..].starts_with(b"br"))
            && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_'))
            && {
                let s = if b[i] == b'b' { i + 2 } else { i + 1 };
                let hashes = b[s..].iter().take_while(|&&c| c == b'#').count();
                b.get(s + hashes) == Some(&b'"')
            }
        {
            // A raw string: r"...", r#"..."#, br"...".
            let s = if b[i] == b'b' { i + 2 } else { i + 1 };
            let hashes = b[s..].iter().take_while(|&&c| c == b'#').count();
            let close: Vec<u8> = std::iter::once(b'"').chain(std::iter::repeat_n(b'#', hashes)).collect();
            let body = s + hashes + 1;
            let end = b[body..]
                .windows(close.len())
                .position(|w| w == close)
                .map_or(b.len(), |n| body + n + close.len());
            blank(&mut out, i, end);
            i = end;
        } else if b[i] == b'"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            let end = (j + 1).min(b.len());
            blank(&mut out, i, end);
            i = end;
        } else if b[i] == b'\'' {
            // A char literal ('x', '\n', '\u{..}', 'é'), or a lifetime ('a).
            let end = if b.get(i + 1) == Some(&b'\\') {
                b[i + 2..].iter().position(|&c| c == b'\'').map(|n| i + 2 + n + 1)
            } else {
                let ch = text[i + 1..].chars().next().map_or(1, char::len_utf8);
                (b.get(i + 1 + ch) == Some(&b'\'')).then_some(i + 1 + ch + 1)
            };
            match end {
                Some(end) => {
                    blank(&mut out, i, end);
                    i = end;
                }
                None => i += 1,
            }
        } else {
            i += 1;
        }
    }
    String::from_utf8(out).expect("blanking keeps UTF-8 outside literals")
}

/// `code` with every `#[cfg(test)]` item blanked out, and the files its
/// `#[cfg(test)] mod NAME;` lines bring in.
fn without_tests(code: &str) -> (String, Vec<String>) {
    let attr = Regex::new(r"#\[cfg\(\s*test\s*\)\]").unwrap();
    let outline = Regex::new(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;").unwrap();
    let b = code.as_bytes();
    let mut out = b.to_vec();
    let mut test_mods = Vec::new();
    for m in attr.find_iter(code) {
        let rest = &b[m.end()..];
        let Some(stop) = rest.iter().position(|&c| c == b'{' || c == b';') else { continue };
        let mut end = m.end() + stop + 1;
        if rest[stop] == b'{' {
            let mut depth = 1;
            while end < b.len() && depth > 0 {
                match b[end] {
                    b'{' => depth += 1,
                    b'}' => depth -= 1,
                    _ => {}
                }
                end += 1;
            }
        } else if let Some(c) = outline.captures(&code[m.end()..end]) {
            test_mods.push(c[1].to_string());
        }
        for c in &mut out[m.start()..end] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    }
    (String::from_utf8(out).unwrap(), test_mods)
}

/// The top-level module a file of `src/` belongs to (`None` for the roots).
fn module_of(file: &Path) -> Option<String> {
    let rel = file.strip_prefix(root().join("src")).unwrap();
    let first = rel.components().next()?.as_os_str().to_string_lossy().to_string();
    let name = first.strip_suffix(".rs").unwrap_or(&first).to_string();
    (name != "lib" && name != "main").then_some(name)
}

/// One use of a top-level module by a file: (line, the module, the text).
type Edge = (usize, String, String);

/// The top-level modules `code` names through `crate::`.
fn crate_edges(code: &str, original: &str) -> Vec<Edge> {
    let path = Regex::new(r"\bcrate\s*::\s*(\{|[A-Za-z_]\w*)").unwrap();
    let line_of = |at: usize| code[..at].matches('\n').count() + 1;
    let text_of = |n: usize| original.lines().nth(n - 1).unwrap_or("").trim().to_string();
    let mut out = Vec::new();
    for c in path.captures_iter(code) {
        let m = c.get(1).unwrap();
        if m.as_str() != "{" {
            let n = line_of(m.start());
            out.push((n, m.as_str().to_string(), text_of(n)));
            continue;
        }
        // `crate::{a::B, c, d::{E, F}}`: the first name of each item at depth 0.
        let (mut depth, mut item_start) = (0usize, true);
        for (k, ch) in code[m.start()..].char_indices() {
            match ch {
                '{' => {
                    depth += 1;
                    item_start = depth == 1;
                }
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                ',' if depth == 1 => item_start = true,
                c if item_start && depth == 1 && (c.is_alphabetic() || c == '_') => {
                    let at = m.start() + k;
                    let name: String =
                        code[at..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                    let n = line_of(at);
                    out.push((n, name, text_of(n)));
                    item_start = false;
                }
                c if !c.is_whitespace() => item_start = false,
                _ => {}
            }
        }
    }
    out
}

#[test]
fn layers_hold() {
    let doc = architecture();
    let table = layers(&doc);
    let mut level: BTreeMap<String, usize> = BTreeMap::new();
    let mut problems = Vec::new();
    for (i, (_, mods)) in table.iter().enumerate() {
        for m in mods {
            if level.insert(m.clone(), i).is_some() {
                problems.push(format!("`{m}` stands on two lines of the layers"));
            }
        }
    }
    let present = src_modules();
    for m in present.iter().filter(|m| !level.contains_key(*m)) {
        problems.push(format!("src/ has module `{m}`, which the layers of ARCHITECTURE.md lack"));
    }
    for (m, _) in level.iter().filter(|(m, _)| !present.contains(*m)) {
        problems.push(format!("the layers name `{m}`, which src/ lacks (no src/{m}.rs or src/{m}/)"));
    }

    let files = rust_files(&root().join("src"));
    let mut test_only: BTreeSet<PathBuf> = BTreeSet::new();
    let mut read = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let (code, test_mods) = without_tests(&code_only(&text));
        let dir = if f.file_name().is_some_and(|n| n == "mod.rs" || n == "lib.rs") {
            f.parent().unwrap().to_path_buf()
        } else {
            f.with_extension("")
        };
        for t in test_mods {
            test_only.insert(dir.join(format!("{t}.rs")));
            test_only.insert(dir.join(&t).join("mod.rs"));
        }
        read.push((f.clone(), text, code));
    }
    let mut edges = 0;
    for (f, text, code) in &read {
        let Some(from) = module_of(f) else { continue };
        if test_only.contains(f) {
            continue;
        }
        let rel = f.strip_prefix(root()).unwrap().display();
        for (line, to, import) in crate_edges(code, text) {
            if to == from {
                continue;
            }
            edges += 1;
            match (level.get(&from), level.get(&to)) {
                (Some(&a), Some(&b)) if b > a => {}
                (Some(&a), Some(&b)) => problems.push(format!(
                    "{rel}:{line}: `{from}` (ARCHITECTURE.md:{}) uses `{to}` (ARCHITECTURE.md:{}), {}: {import}",
                    table[a].0,
                    table[b].0,
                    if a == b { "a module of its own layer" } else { "a layer above it" }
                )),
                (_, None) if !present.contains(&to) => {
                    problems.push(format!("{rel}:{line}: `crate::{to}` is no module of src/: {import}"))
                }
                _ => {} // a module missing from the table, reported above
            }
        }
    }
    assert!(edges > 0, "no `crate::` path found in src/: the scan is broken");
    assert!(
        problems.is_empty(),
        "the layering of ARCHITECTURE.md (`## Layers`; a module uses only modules on lower lines) is broken:\n  {}\n",
        problems.join("\n  ")
    );
}

/// What `src/` (and, for the helpers the tests map names, `tests/` and
/// `benches/`) defines: every name after `struct`, `enum`, `trait`, `type`,
/// `fn`, `const`, `static`, `mod` or `union`, every enum variant and field (a
/// line that starts with the name, or `name:` after `{` or `,`), and the files
/// and folders (modules).
struct Defined {
    items: BTreeSet<String>,
    members: BTreeSet<String>,
    modules: BTreeSet<String>,
}

fn defined() -> Defined {
    let item =
        Regex::new(r"\b(?:struct|enum|trait|type|fn|const|static|mod|union)\s+([A-Za-z_]\w*)").unwrap();
    let member = Regex::new(r"(?m)^\s*(?:pub(?:\([^)]*\))?\s+)?([A-Za-z_]\w*)\s*(?:[,({:=]|$)").unwrap();
    let inline_field = Regex::new(r"[{,]\s*([a-z_]\w*)\s*:[^:]").unwrap();
    let mut d = Defined { items: BTreeSet::new(), members: BTreeSet::new(), modules: BTreeSet::new() };
    let files = ["src", "tests", "benches"].iter().flat_map(|dir| rust_files(&root().join(dir)));
    for f in files {
        let code = code_only(&std::fs::read_to_string(&f).unwrap());
        d.items.extend(item.captures_iter(&code).map(|c| c[1].to_string()));
        d.members.extend(member.captures_iter(&code).map(|c| c[1].to_string()));
        d.members.extend(inline_field.captures_iter(&code).map(|c| c[1].to_string()));
        let top = f.strip_prefix(root()).unwrap().components().next().unwrap();
        for c in f.strip_prefix(root().join(top)).unwrap().components() {
            let c = c.as_os_str().to_string_lossy();
            d.modules.insert(c.strip_suffix(".rs").unwrap_or(&c).to_string());
        }
    }
    d
}

fn is_camel(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_uppercase())
        && s.chars().any(|c| c.is_ascii_lowercase())
        && !s.contains('_')
}

/// What is wrong with one backticked span, if it names something of ours.
fn check_name(span: &str, d: &Defined) -> Option<String> {
    const PREFIXES: &[&str] =
        &["src/", "tests/", "benches/", "fixtures/", "runtime/", "editors/", "grammars/", "specs/"];
    if PREFIXES.iter().any(|p| span.starts_with(p)) {
        let path = span.trim_end_matches('/');
        return (!path.contains('*') && !root().join(path).exists())
            .then(|| format!("`{span}`: no such file"));
    }
    let rust = Regex::new(r"^[A-Za-z_]\w*(::[A-Za-z_]\w*)*(\(\))?$").unwrap();
    if !rust.is_match(span) || EXTERNAL.contains(&span) {
        return None;
    }
    let call = span.ends_with("()");
    let path = span.trim_end_matches("()");
    let segments: Vec<&str> = path.split("::").collect();
    if !(call || segments.len() > 1 || is_camel(path)) {
        return None;
    }
    let last = segments.len() - 1;
    let mut missing = Vec::new();
    for (i, s) in segments.iter().enumerate() {
        let ok = if EXTERNAL.contains(s) || *s == "crate" {
            true
        } else if i == last && (is_camel(s) || (i > 0 && is_camel(segments[i - 1]))) {
            // A type, or a variant or field of one.
            d.items.contains(*s) || d.members.contains(*s)
        } else if i == last {
            d.items.contains(*s)
        } else if is_camel(s) && i > 0 && is_camel(segments[i - 1]) {
            // A variant with fields: `Termination::Early::cut`.
            d.items.contains(*s) || d.members.contains(*s)
        } else if is_camel(s) {
            d.items.contains(*s)
        } else {
            d.modules.contains(*s) || d.items.contains(*s)
        };
        if !ok {
            missing.push(*s);
        }
    }
    (!missing.is_empty()).then(|| format!("`{span}`: src/ defines no `{}`", missing.join("`, `")))
}

#[test]
fn names_exist() {
    let doc = architecture();
    let d = defined();
    let span = Regex::new(r"`([^`\n]+)`").unwrap();
    // What is wrong, and the lines of ARCHITECTURE.md that say it.
    let mut problems: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    let mut checked = 0;
    let mut fenced = false;
    for (n, line) in doc.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        for c in span.captures_iter(line) {
            checked += 1;
            if let Some(p) = check_name(&c[1], &d) {
                problems.entry(p).or_default().push(n + 1);
            }
        }
    }
    assert!(checked > 0, "no backticked name in ARCHITECTURE.md: the scan is broken");
    assert!(
        problems.is_empty(),
        "ARCHITECTURE.md names what the tree lacks:\n  {}\n",
        problems
            .iter()
            .map(|(p, lines)| {
                let lines: Vec<String> = lines.iter().map(usize::to_string).collect();
                format!("{p} (ARCHITECTURE.md:{})", lines.join(", "))
            })
            .collect::<Vec<_>>()
            .join("\n  ")
    );
}

#[test]
fn the_scanner_reads_code_only() {
    let src = "// use crate::a;\n/// crate::b\nlet s = \"crate::c\"; let r = r#\"crate::d\"#;\nlet c = '\"'; use crate::{e::F, g};\nfn f<'a>(x: &'a u8) { crate::h::i(); }\n#[cfg(test)]\nmod tests { use crate::j; }\n#[cfg(test)]\nmod more;\n";
    let (code, test_mods) = without_tests(&code_only(src));
    let names: Vec<_> = crate_edges(&code, src).into_iter().map(|(n, m, _)| (n, m)).collect();
    assert_eq!(names, [(4, "e".into()), (4, "g".into()), (5, "h".into())]);
    assert_eq!(test_mods, ["more"]);
}
