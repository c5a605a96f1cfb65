//! psychic in the developer's hands, through the binary: gcc-style
//! diagnostics land on the changed code in each revision's own file; the VS Code
//! task in `editors/vscode/tasks.json` runs as VS Code would run it and its
//! problem matchers (read from the file) find clickable locations in every
//! revision's file; the vim compiler file fills the quickfix list; SARIF
//! validates against the 2.1.0 schema; the HTML report renders in headless
//! Chromium; the progress line shows only on a terminal.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use psychic::report::Report;
use psychic::unify::MetaProgram;
use serde_json::Value;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_psychic")
}

/// A copy of the demo (grade.c and fix1.c .. fix6.c) in a fresh directory.
fn demo_folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for e in std::fs::read_dir(root().join("fixtures/demo")).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, dir.path().join(p.file_name().unwrap())).unwrap();
    }
    dir
}

fn lines_of(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(String::from)
        .collect()
}

/// The demo plus revision 7 as a diff (`score >= 90` becomes `score > 90`), run
/// once for all tests here with gcc diagnostics, SARIF and --fail-on-diff.
struct Demo {
    dir: tempfile::TempDir,
    out: Output,
    report: Report,
    map: MetaProgram,
}

fn demo() -> &'static Demo {
    static DEMO: OnceLock<Demo> = OnceLock::new();
    DEMO.get_or_init(|| {
        let dir = demo_folder();
        let grade = std::fs::read_to_string(dir.path().join("grade.c")).unwrap();
        let patched = grade.replace("if (score >= 90)", "if (score > 90)");
        let diff = similar::TextDiff::from_lines(&grade, &patched)
            .unified_diff()
            .header("grade.c", "grade.c")
            .to_string();
        std::fs::write(dir.path().join("fix7.diff"), diff).unwrap();
        let mut args: Vec<String> = [
            "diff-patches",
            "-o",
            "out",
            "--diagnostics",
            "gcc",
            "--sarif",
            "demo.sarif",
            "--fail-on-diff",
            "grade.c",
        ]
        .map(String::from)
        .into();
        args.extend((1..=6).map(|k| format!("fix{k}.c")));
        args.extend(["--diff".into(), "fix7.diff".into()]);
        let out = Command::new(bin()).args(&args).current_dir(dir.path()).output().unwrap();
        let report =
            serde_json::from_str(&std::fs::read_to_string(dir.path().join("out/report.json")).unwrap())
                .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
        let map =
            serde_json::from_str(&std::fs::read_to_string(dir.path().join("out/meta.map.json")).unwrap())
                .unwrap();
        Demo { dir, out, report, map }
    })
}

/// `FILE:LINE:COL: KIND: MESSAGE` lines.
#[derive(Debug, Clone)]
struct Diag {
    file: String,
    line: usize,
    col: usize,
    kind: String,
    message: String,
}

fn parse_gcc(text: &str) -> Vec<Diag> {
    let re = regex::Regex::new(r"^(.+?):(\d+):(\d+): (warning|note): (.*)$").unwrap();
    text.lines()
        .filter_map(|l| re.captures(l))
        .map(|c| Diag {
            file: c[1].to_string(),
            line: c[2].parse().unwrap(),
            col: c[3].parse().unwrap(),
            kind: c[4].to_string(),
            message: c[5].to_string(),
        })
        .collect()
}

#[test]
fn diagnostics_point_at_the_changed_code_of_each_revision() {
    let d = demo();
    let stderr = String::from_utf8_lossy(&d.out.stderr);
    assert_eq!(d.out.status.code(), Some(1), "--fail-on-diff with differences: {stderr}");
    // Ground truth, from running each revision on its own: revision 7 differs
    // from the original at 90 only, so it is a cluster of its own.
    assert_eq!(d.report.clusters, vec![vec![0], vec![1, 2, 4, 5, 6], vec![3], vec![7]]);
    let diags = parse_gcc(&stderr);
    let warnings: Vec<&Diag> = diags.iter().filter(|x| x.kind == "warning").collect();
    let expected: usize = d.report.tests.iter().map(|t| t.outcomes.len() - 1).sum();
    assert_eq!(warnings.len(), expected, "one warning per test and differing outcome class:\n{stderr}");
    assert!(stderr.lines().filter(|l| l.contains(": warning: ")).all(|l| l.ends_with(" [psychic]")));

    let original = lines_of(&d.dir.path().join("grade.c"));
    // As the diagnostics name them: relative to where psychic ran.
    let files = d.report.files(Path::new("out"));
    for t in &d.report.tests {
        let input =
            format!("on input {}", t.inputs.iter().map(|i| i.display()).collect::<Vec<_>>().join(" "));
        for o in &t.outcomes[1..] {
            let w = warnings
                .iter()
                .find(|w| w.message.contains(&input) && w.message.contains(&list(&o.revisions)))
                .unwrap_or_else(|| panic!("no warning for {input}, revisions {:?}:\n{stderr}", o.revisions));
            assert!(w.message.contains(&format!("from {}", list(&t.outcomes[0].revisions))), "{}", w.message);
            // In the file of the group's first revision, on code the original
            // does not have.
            let g = o.revisions[0];
            assert_eq!(Path::new(&w.file), Path::new(&files[g]));
            let text = &lines_of(&d.dir.path().join(&w.file))[w.line - 1];
            assert!(!original.contains(text), "{}:{} is not changed code: {text:?}", w.file, w.line);
            // The column starts the code (a statement or a condition).
            let code = &text[w.col - 1..];
            assert!(
                code.starts_with("if (") || code.starts_with("score"),
                "{}:{}:{}: {text:?}",
                w.file,
                w.line,
                w.col
            );
        }
    }
    // Revision 7 exists only as a diff: its locations are in its patched text,
    // kept in the output directory.
    let seven =
        warnings.iter().find(|w| w.message.starts_with("revision 7 ")).expect("a warning for revision 7");
    assert_eq!(seven.file, "out/revisions/7/grade.c");
    assert_eq!(lines_of(&d.dir.path().join(&seven.file))[seven.line - 1].trim(), "if (score > 90)");
    // Every location names a real line and column; notes reach every
    // revision's file.
    let mut named = BTreeSet::new();
    for x in &diags {
        let lines = lines_of(&d.dir.path().join(&x.file));
        assert!(x.line <= lines.len() && x.col <= lines[x.line - 1].len() + 1, "{x:?}");
        named.insert(x.file.clone());
    }
    assert_eq!(named, files.iter().cloned().collect::<BTreeSet<_>>());
}

/// As diagnostics name revisions (runs of three or more as ranges).
fn list(revs: &[usize]) -> String {
    psychic::cluster::names::listed(revs)
}

#[test]
fn sarif_validates_against_the_2_1_0_schema() {
    let d = demo();
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("fixtures/sarif/sarif-schema-2.1.0.json")).unwrap(),
    )
    .unwrap();
    let log: Value =
        serde_json::from_str(&std::fs::read_to_string(d.dir.path().join("demo.sarif")).unwrap()).unwrap();
    let mut schemas = boon::Schemas::new();
    let mut compiler = boon::Compiler::new();
    let url = schema["$id"].as_str().unwrap().to_string();
    compiler.add_resource(&url, schema).expect("the schema is a resource");
    let sarif = compiler.compile(&url, &mut schemas).expect("the schema compiles");
    if let Err(e) = schemas.validate(&log, sarif) {
        panic!("{e:#}");
    }
    // The schema cannot fail a log for missing results: check the contents.
    assert_eq!(log["version"], "2.1.0");
    let run = &log["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "psychic");
    let results = run["results"].as_array().unwrap();
    let expected: usize = d.report.tests.iter().map(|t| t.outcomes.len() - 1).sum();
    assert_eq!(results.len(), expected);
    let base = run["originalUriBaseIds"]["%SRCROOT%"]["uri"].as_str().unwrap();
    assert!(base.starts_with("file:///") && base.ends_with('/'));
    for r in results {
        assert_eq!(r["level"], "warning");
        for l in std::iter::once(&r["locations"][0]).chain(r["relatedLocations"].as_array().unwrap()) {
            let uri = l["physicalLocation"]["artifactLocation"]["uri"].as_str().unwrap();
            let path = d.dir.path().join(uri);
            let line = l["physicalLocation"]["region"]["startLine"].as_u64().unwrap() as usize;
            assert!(line <= lines_of(&path).len(), "{uri}:{line}");
        }
    }
    assert!(results.iter().any(
        |r| r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "out/revisions/7/grade.c"
    ));
    // A schema check that can fail: a broken log is refused.
    let mut broken = log.clone();
    broken["runs"][0]["results"][0]["level"] = "severe".into();
    assert!(schemas.validate(&broken, sarif).is_err());
}

/// `${name}` variables of a task, as VS Code substitutes them.
fn substitute(s: &str, vars: &BTreeMap<&str, String>) -> String {
    let mut out = s.to_string();
    for (k, v) in vars {
        out = out.replace(&format!("${{{k}}}"), v);
    }
    assert!(!out.contains("${"), "unknown variable in {s:?}");
    out
}

fn task<'a>(tasks: &'a Value, label: &str) -> &'a Value {
    tasks["tasks"].as_array().unwrap().iter().find(|t| t["label"].as_str().unwrap().contains(label)).unwrap()
}

/// Runs a task of `editors/vscode/tasks.json` as VS Code does: variables
/// substituted, in its cwd, with `psychic` on PATH. Returns the terminal's
/// text (stdout then stderr) and the exit status.
fn run_task(t: &Value, vars: &BTreeMap<&str, String>) -> (String, Option<i32>) {
    assert_eq!(t["type"], "process");
    let args: Vec<String> =
        t["args"].as_array().unwrap().iter().map(|a| substitute(a.as_str().unwrap(), vars)).collect();
    let cwd = substitute(t["options"]["cwd"].as_str().unwrap(), vars);
    let path = format!(
        "{}:{}",
        Path::new(bin()).parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new(t["command"].as_str().unwrap())
        .args(&args)
        .current_dir(cwd)
        .env("PATH", path)
        .output()
        .unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (text, out.status.code())
}

/// A problem as VS Code's matcher extracts it.
#[derive(Debug)]
struct Problem {
    file: PathBuf,
    line: usize,
    column: usize,
    severity: String,
    message: String,
}

/// Applies every matcher of the task (regular expressions read from
/// tasks.json) to every line, resolving files as `fileLocation` says.
fn problems(t: &Value, text: &str, vars: &BTreeMap<&str, String>) -> Vec<Problem> {
    let mut found = Vec::new();
    for line in text.lines() {
        for m in t["problemMatcher"].as_array().unwrap() {
            let p = &m["pattern"];
            let re = regex::Regex::new(p["regexp"].as_str().unwrap())
                .expect("the pattern is also a valid Rust regex");
            let Some(c) = re.captures(line) else { continue };
            let group = |k: &str| p[k].as_u64().map(|i| c[i as usize].to_string());
            let loc = m["fileLocation"].as_array().unwrap();
            assert_eq!(loc[0], "autoDetect");
            let file = PathBuf::from(group("file").unwrap());
            let file = if file.is_absolute() {
                file
            } else {
                Path::new(&substitute(loc[1].as_str().unwrap(), vars)).join(file)
            };
            // VS Code reads `note` as info; a matcher's own severity is the default.
            let severity = group("severity")
                .or_else(|| m["severity"].as_str().map(String::from))
                .unwrap_or("error".into());
            found.push(Problem {
                file,
                line: group("line").unwrap().parse().unwrap(),
                column: group("column").unwrap().parse().unwrap(),
                severity: if severity == "note" { "info".into() } else { severity },
                message: group("message").unwrap(),
            });
            break;
        }
    }
    found
}

fn tasks() -> Value {
    serde_json::from_str(&std::fs::read_to_string(root().join("editors/vscode/tasks.json")).unwrap()).unwrap()
}

#[test]
fn vscode_diff_task_gives_clickable_locations_in_every_revision_file() {
    let dir = demo_folder();
    let folder = dir.path().canonicalize().unwrap();
    let vars = BTreeMap::from([
        ("file", folder.join("grade.c").display().to_string()),
        ("fileDirname", folder.display().to_string()),
        ("fileBasename", "grade.c".into()),
        ("workspaceFolder", folder.display().to_string()),
    ]);
    let t = &tasks();
    let t = task(t, "diff the patches in this folder");
    let (text, status) = run_task(t, &vars);
    assert_eq!(status, Some(0), "{text}");
    let found = problems(t, &text, &vars);
    let report: Report =
        serde_json::from_str(&std::fs::read_to_string(folder.join("psychic-last/report.json")).unwrap())
            .unwrap();
    assert_eq!(report.revisions.len(), 7, "the open file and the six others in its folder");
    // Every revision's file has a location; each is a real line of it.
    let files: BTreeSet<&Path> = found.iter().map(|p| p.file.as_path()).collect();
    let all: BTreeSet<PathBuf> =
        (0..7).map(|k| folder.join(if k == 0 { "grade.c".into() } else { format!("fix{k}.c") })).collect();
    assert_eq!(files, all.iter().map(PathBuf::as_path).collect(), "{text}");
    for p in &found {
        let lines = lines_of(&p.file);
        assert!(p.line >= 1 && p.line <= lines.len() && p.column <= lines[p.line - 1].len() + 1, "{p:?}");
        assert!(["warning", "info"].contains(&p.severity.as_str()), "{p:?}");
    }
    // The warnings, checked against the fixtures: at score=80 the original
    // alone prints C (its `score > 80`); at score=70 fix3 alone prints F (its
    // `score > 70`).
    let warnings: Vec<&Problem> = found.iter().filter(|p| p.severity == "warning").collect();
    assert_eq!(warnings.len(), 2, "{text}");
    let at = |p: &Problem| lines_of(&p.file)[p.line - 1].trim().to_string();
    let w80 = warnings.iter().find(|p| p.message.contains("on input score=80")).expect("a warning at 80");
    assert_eq!(w80.file, folder.join("fix1.c"));
    assert_eq!(at(w80), "if (score >= 80)");
    assert!(
        w80.message
            .starts_with("revisions 1 to 6 differ from 0 on input score=80: stdout \"B\\n\" vs \"C\\n\"")
    );
    let w70 = warnings.iter().find(|p| p.message.contains("on input score=70")).expect("a warning at 70");
    assert_eq!(w70.file, folder.join("fix3.c"));
    assert_eq!(at(w70), "if (score > 70)");
    assert!(
        w70.message.starts_with("revision 3 differs from 0 to 2, 4 to 6 on input score=70"),
        "{}",
        w70.message
    );
    // The notes of the score=70 warning include the original's condition.
    let note = found
        .iter()
        .find(|p| p.severity == "info" && p.file == folder.join("grade.c") && at(p) == "if (score >= 70)")
        .expect("a note at the original's condition");
    assert!(note.message.starts_with("revision 0 runs this code at site"), "{}", note.message);
}

#[test]
fn vscode_unify_task_prints_the_meta_program_and_matches_errors() {
    let dir = demo_folder();
    let folder = dir.path().canonicalize().unwrap();
    std::fs::write(folder.join("bad.c"), "int main(void) {\n    int x = ;\n    return 0;\n}\n").unwrap();
    let t = &tasks();
    let t = task(t, "unify the open files");
    let mut vars = BTreeMap::from([
        ("file", folder.join("grade.c").display().to_string()),
        ("fileDirname", folder.display().to_string()),
        ("input:psychicRevisions", "fix1.c fix[3].c".to_string()),
    ]);
    let (text, status) = run_task(t, &vars);
    assert_eq!(status, Some(0), "{text}");
    assert!(text.contains("revision 2: fix3.c") && text.contains("__klee_meta(1)"), "{text}");
    assert!(problems(t, &text, &vars).is_empty());

    vars.insert("input:psychicRevisions", "fix1.c bad.c".into());
    let (text, status) = run_task(t, &vars);
    assert_eq!(status, Some(2), "{text}");
    let found = problems(t, &text, &vars);
    assert_eq!(found.len(), 1, "{text}");
    assert_eq!((found[0].file.clone(), found[0].line, found[0].column), (folder.join("bad.c"), 2, 12));
    assert!(found[0].message.starts_with("syntax error"), "{:?}", found[0]);
    assert_eq!(found[0].severity, "error");
}

/// vim's `:compiler psychic` (editors/vim) reads the diagnostics into the
/// quickfix list.
#[test]
fn vim_compiler_fills_the_quickfix_list() {
    let d = demo();
    let diags = parse_gcc(&String::from_utf8_lossy(&d.out.stderr));
    std::fs::write(d.dir.path().join("make.txt"), &d.out.stderr).unwrap();
    let script = format!(
        "set runtimepath+={}\ncompiler psychic\ncgetfile make.txt\n\
         call writefile(map(filter(getqflist(), 'v:val.valid'), {{_, e -> json_encode([bufname(e.bufnr), e.lnum, e.col, e.type, e.text])}}), 'qf.txt')\nqa!\n",
        root().join("editors/vim").display()
    );
    std::fs::write(d.dir.path().join("qf.vim"), script).unwrap();
    let out = Command::new("vim")
        .args(["-Nu", "NONE", "-i", "NONE", "-es", "-S", "qf.vim"])
        .current_dir(d.dir.path())
        .output()
        .expect("vim (bash .ci/deps installs it)");
    let qf = std::fs::read_to_string(d.dir.path().join("qf.txt"))
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    let entries: Vec<(String, usize, usize, String, String)> =
        qf.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(entries.len(), diags.len());
    for (e, x) in entries.iter().zip(&diags) {
        assert_eq!((e.0.as_str(), e.1, e.2), (x.file.as_str(), x.line, x.col));
        assert_eq!(e.3, if x.kind == "warning" { "w" } else { "n" });
        assert!(x.message.starts_with(e.4.trim_end_matches(" [psychic]")), "{e:?} vs {x:?}");
    }
}

#[test]
fn html_report_renders_in_headless_chromium() {
    let d = demo();
    let html_path = d.dir.path().join("out/report.html");
    let html = std::fs::read_to_string(&html_path).unwrap();
    // Self-contained: no script, and nothing to fetch.
    assert!(!html.contains("<script"));
    let refs = regex::Regex::new(r#"(?:src|href)="([^"]*)""#).unwrap();
    for c in refs.captures_iter(&html) {
        assert!(c[1].starts_with('#'), "external reference {}", &c[1]);
    }

    let shots = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let shot = shots.join("report-screenshot.png");
    let _ = std::fs::remove_file(&shot);
    let url = url::Url::from_file_path(html_path.canonicalize().unwrap()).unwrap().to_string();
    let dom = String::from_utf8(chromium(&["--dump-dom", &url]).stdout).unwrap();
    chromium(&[&format!("--screenshot={}", shot.display()), "--window-size=1280,1800", &url]);

    // The tree and the tables, in the DOM Chromium built.
    let count = |needle: &str| dom.matches(needle).count();
    assert_eq!(count("<svg id=\"decision-tree\""), 1, "{dom}");
    let tree_tests = tree_nodes(d.report.decision_tree.as_ref().unwrap());
    assert_eq!(count("<g class=\"tree-node\""), tree_tests);
    assert_eq!(count("<g class=\"tree-leaf\""), d.report.clusters.len());
    assert_eq!(count("<path class=\"tree-edge\""), tree_tests + d.report.clusters.len() - 1);
    assert_eq!(count("<table id=\"clusters\""), 1);
    assert_eq!(count("<tr class=\"cluster\""), d.report.clusters.len());
    assert_eq!(count("<section class=\"test\""), d.report.tests.len());
    assert_eq!(count("<table class=\"outcomes\""), d.report.tests.len());
    assert_eq!(count("<span class=\"line"), d.map.text.lines().count());
    assert_eq!(count("<tr id=\"site-"), d.map.sites.len());
    assert!(dom.contains("<ins>") || dom.contains("<del>"), "outputs are diffed");

    // The screenshot is a real picture: many pixels off the background, in
    // many colours.
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&shot).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!((info.width, info.height), (1280, 1800));
    let channels = info.color_type.samples();
    let pixels: Vec<&[u8]> = buf[..info.buffer_size()].chunks(channels).collect();
    let background = pixels[0];
    let off = pixels.iter().filter(|p| p[..3] != background[..3]).count();
    let colours: BTreeSet<&[u8]> = pixels.iter().map(|p| &p[..3]).collect();
    eprintln!(
        "screenshot {}: {} bytes, {:.1}% of pixels off the background, {} colours",
        shot.display(),
        std::fs::metadata(&shot).unwrap().len(),
        100.0 * off as f64 / pixels.len() as f64,
        colours.len()
    );
    assert!(off * 50 > pixels.len(), "at least 2% of the pixels are drawn");
    assert!(colours.len() > 20, "text, boxes and shading: {} colours", colours.len());
}

fn tree_nodes(t: &psychic::report::TreeNode) -> usize {
    1 + t.branches.iter().filter_map(|b| b.subtree.as_deref()).map(tree_nodes).sum::<usize>()
}

/// Debian's Chromium, headless, on this closed network (no background
/// connections), with a fresh profile.
fn chromium(args: &[&str]) -> Output {
    let profile = tempfile::tempdir().unwrap();
    let out = Command::new("chromium")
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            &format!("--user-data-dir={}", profile.path().display()),
        ])
        .args(args)
        .output()
        .expect("Debian's chromium (bash .ci/deps installs it)");
    assert!(out.status.success(), "chromium failed: {}", String::from_utf8_lossy(&out.stderr));
    out
}

/// Revisions that differ only in whether a byte of 100 counts, or not at
/// all: slow to tell apart completely, so a run shows progress for as long
/// as its budget (which counts from the command's start: compiling takes
/// part of it).
fn slow_patch_set(dir: &Path) -> [String; 3] {
    let src = "#include <klee/klee.h>\n#include <stdio.h>\nint main(void) {\n    unsigned char b[24];\n    \
               klee_make_symbolic(b, sizeof b, \"b\");\n    int n = 0;\n    for (int i = 0; i < 24; i++)\n        \
               if (b[i] > 100) n++;\n    printf(\"%d\\n\", n);\n    return 0;\n}\n";
    std::fs::write(dir.join("a.c"), src).unwrap();
    std::fs::write(dir.join("b.c"), src.replace("b[i] > 100", "b[i] >= 100")).unwrap();
    // An equivalent rewrite of a inside the loop: never told apart, and
    // proved only once every path is explored, so exploration goes on to the
    // budget.
    std::fs::write(dir.join("c.c"), src.replace("b[i] > 100", "b[i] >= 101")).unwrap();
    ["a.c".into(), "c.c".into(), "b.c".into()]
}

/// Runs psychic under a pseudo-terminal (util-linux `script`); the terminal's
/// bytes.
fn on_terminal(dir: &Path, args: &[&str]) -> String {
    // A wide terminal, so that the whole progress line fits.
    let cmd = format!("stty cols 250; {} {}", bin(), args.join(" "));
    let out = Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .current_dir(dir)
        .env("TERM", "xterm-256color")
        .env_remove("NO_COLOR")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn progress_shows_on_a_terminal_only() {
    let dir = tempfile::tempdir().unwrap();
    let [a, c, b] = slow_patch_set(dir.path());
    let shown = on_terminal(dir.path(), &["diff-patches", "-o", "o1", "--max-time", "6", &a, &c, &b]);
    for want in ["compile", "explore", "1 test, 2 clusters", "s left", "paths", "states (", "live)"] {
        assert!(shown.contains(want), "{want:?} missing from the progress line:\n{shown}");
    }
    // On a terminal, diagnostics are on by default, in colour.
    assert!(shown.contains("warning:") && shown.contains("\x1b["), "{shown}");

    let quiet =
        on_terminal(dir.path(), &["diff-patches", "-o", "o2", "--quiet", "--max-time", "0.5", &a, &c, &b]);
    assert!(quiet.trim().is_empty(), "--quiet prints nothing: {quiet:?}");

    let piped = Command::new(bin())
        .args(["diff-patches", "-o", "o3", "--max-time", "0.5", &a, &c, &b])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(piped.status.success());
    // Only the partial answer's warning, which is for every run without --quiet.
    let stderr = String::from_utf8_lossy(&piped.stderr);
    assert!(
        stderr.lines().count() == 1 && stderr.starts_with("psychic: warning: partial answer: "),
        "no progress nor diagnostics without a terminal: {stderr}"
    );
    assert!(String::from_utf8_lossy(&piped.stdout).starts_with("psychic: 3 revisions"));
}
