//! Command lines as the build ran them: what a compiler call compiles or
//! links, what an archiver call puts into which archive, and a unit's or a
//! link's flags made to stand on their own (paths absolute, the build's
//! bookkeeping dropped), so that psychic can rerun them from anywhere.

use std::path::{Component, Path, PathBuf};

/// Options of gcc and clang whose operand is the next word (when not joined).
const TAKES_ARG: &[&str] = &[
    "-o",
    "-I",
    "-D",
    "-U",
    "-include",
    "-imacros",
    "-iquote",
    "-isystem",
    "-idirafter",
    "-iprefix",
    "-iwithprefix",
    "-iwithprefixbefore",
    "-isysroot",
    "-MF",
    "-MT",
    "-MQ",
    "-x",
    "-L",
    "-l",
    "-Xlinker",
    "-Xassembler",
    "-Xpreprocessor",
    "-Xclang",
    "-u",
    "-T",
    "-z",
    "-aux-info",
    "-arch",
    "-target",
    "--param",
    "-B",
];

/// Options whose operand may be joined to them (`-Iinclude`, `-lm`).
const JOINS: &[&str] = &["-I", "-D", "-U", "-L", "-l", "-o", "-MF", "-MT", "-MQ", "-x", "-B", "-u"];

/// Options that take a path, which a unit's flags make absolute.
const PATH_OPTIONS: &[&str] = &["-I", "-iquote", "-isystem", "-idirafter", "-include", "-imacros", "-L"];

/// Dependency-file options: the build's bookkeeping, not the unit's meaning.
const DEP_FLAGS: &[&str] = &["-MD", "-MMD", "-MP", "-MG"];
const DEP_OPTIONS: &[&str] = &["-MF", "-MT", "-MQ"];

/// What a compiler driver was asked to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Job {
    /// `-c`: each C source to its object (absolute paths).
    Compile(Vec<(PathBuf, PathBuf)>),
    /// A link making `output` (absolute); `sources` are C files it compiles
    /// itself on the way.
    Link { output: PathBuf, sources: Vec<PathBuf> },
    /// Preprocessing, assembly output, a version query: nothing psychic uses.
    Other,
}

/// One word of a command line: an option with its operand, or an operand.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Word<'a> {
    /// `-I x` (two words) or `-Ix` (joined): the option and its operand.
    Option {
        name: &'a str,
        arg: Option<&'a str>,
        joined: bool,
    },
    Operand(&'a str),
}

/// The words of `args` (without the program), options paired with operands.
fn words(args: &[String]) -> Vec<Word<'_>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        i += 1;
        if !a.starts_with('-') || a == "-" {
            out.push(Word::Operand(a));
            continue;
        }
        if TAKES_ARG.contains(&a) {
            out.push(Word::Option { name: a, arg: args.get(i).map(String::as_str), joined: false });
            i += 1;
            continue;
        }
        // A joined operand: `-Iinclude`, `-DX=1`, `-lm`, `-MFfile`, `-ofile`.
        // `-include` and the other long ones were matched whole above; a
        // long option misread as joined (`-undef`) is written back as it was.
        match JOINS.iter().find(|p| a.len() > p.len() && a.starts_with(**p)) {
            Some(p) => out.push(Word::Option { name: p, arg: Some(&a[p.len()..]), joined: true }),
            None => out.push(Word::Option { name: a, arg: None, joined: false }),
        }
    }
    out
}

fn absolute(dir: &Path, p: &str) -> PathBuf {
    normalize(&dir.join(p))
}

/// `p` with `.` and `..` resolved by name (the tree is canonical, so no
/// symbolic link makes this differ from the file system's answer).
pub(crate) fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

fn is_c_source(p: &str) -> bool {
    p.ends_with(".c") || p.ends_with(".i")
}

/// What a compiler call with `args` (without the program), run in `dir`, does.
pub(crate) fn job(args: &[String], dir: &Path) -> Job {
    let ws = words(args);
    let has =
        |flag: &str| ws.iter().any(|w| matches!(w, Word::Option { name, arg: None, .. } if *name == flag));
    let only_deps = has("-M") || has("-MM");
    if has("-E") || has("-S") || has("-fsyntax-only") || only_deps {
        return Job::Other;
    }
    let output = ws.iter().find_map(|w| match w {
        Word::Option { name: "-o", arg: Some(a), .. } => Some(*a),
        _ => None,
    });
    let sources: Vec<&str> = ws
        .iter()
        .filter_map(|w| match w {
            Word::Operand(o) if is_c_source(o) => Some(*o),
            _ => None,
        })
        .collect();
    if has("-c") {
        let objects = sources
            .iter()
            .map(|s| {
                let obj = match (output, sources.len()) {
                    (Some(o), 1) => o.to_string(),
                    _ => {
                        let stem = Path::new(s).file_stem().unwrap_or_default().to_string_lossy();
                        format!("{stem}.o")
                    }
                };
                (absolute(dir, s), absolute(dir, &obj))
            })
            .collect();
        return Job::Compile(objects);
    }
    let operands = ws.iter().filter(|w| matches!(w, Word::Operand(_))).count();
    if operands == 0 {
        return Job::Other; // `gcc --version`, `gcc -print-prog-name=ld`
    }
    Job::Link {
        output: absolute(dir, output.unwrap_or("a.out")),
        sources: sources.iter().map(|s| absolute(dir, s)).collect(),
    }
}

fn push_option(out: &mut Vec<String>, name: &str, arg: Option<&str>, joined: bool) {
    match (arg, joined) {
        (Some(a), true) => out.push(format!("{name}{a}")),
        (Some(a), false) => {
            out.push(name.to_string());
            out.push(a.to_string());
        }
        (None, _) => out.push(name.to_string()),
    }
}

/// A path option's operand made absolute: relative `-I` and friends name
/// directories from where the compile ran, which psychic's builds do not
/// share. A relative `-include` is looked up in the working directory first,
/// so it becomes absolute only when it is there.
fn absolute_operand(name: &str, arg: &str, dir: &Path) -> String {
    if Path::new(arg).is_absolute() || arg.is_empty() {
        return arg.to_string();
    }
    let abs = absolute(dir, arg);
    if (name == "-include" || name == "-imacros") && !abs.exists() {
        return arg.to_string();
    }
    abs.display().to_string()
}

/// A compile's own flags (`args` without the program), run in `dir`: the
/// compiler, `-c`, `-o` and its operand, the sources and the dependency-file
/// options left out, and relative paths made absolute.
pub(crate) fn unit_flags(args: &[String], dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for w in words(args) {
        match w {
            Word::Operand(o) if is_c_source(o) => {}
            Word::Operand(o) => out.push(o.to_string()),
            Word::Option { name: "-c" | "-o", .. } => {}
            Word::Option { name, arg: None, .. } if DEP_FLAGS.contains(&name) => {}
            Word::Option { name, .. } if DEP_OPTIONS.contains(&name) => {}
            Word::Option { name, .. } if name.starts_with("-Wp,-MD,") || name.starts_with("-Wp,-MMD,") => {}
            Word::Option { name, arg: Some(a), joined } if PATH_OPTIONS.contains(&name) => {
                push_option(&mut out, name, Some(&absolute_operand(name, a, dir)), joined)
            }
            Word::Option { name, arg, joined } => push_option(&mut out, name, arg, joined),
        }
    }
    out
}

/// A link's flags (`args` without the program), run in `dir`, without `-o`,
/// the objects inside `tree` (the units') and the archives inside `tree` (the
/// project's own, whose members are units): what links the units into a
/// program, such as `-lm`, `-pthread`, `-Wl,...`. `-L` becomes absolute.
pub(crate) fn link_flags(args: &[String], dir: &Path, tree: &Path) -> Vec<String> {
    let ws = words(args);
    let lib_dirs: Vec<PathBuf> = ws
        .iter()
        .filter_map(|w| match w {
            Word::Option { name: "-L", arg: Some(a), .. } => Some(absolute(dir, a)),
            _ => None,
        })
        .collect();
    // `-lNAME` names a project archive when the first directory that has a
    // libNAME (shared first, as ld looks) is inside the tree and has the archive.
    let own_library = |name: &str| {
        lib_dirs
            .iter()
            .find(|d| d.join(format!("lib{name}.so")).exists() || d.join(format!("lib{name}.a")).exists())
            .is_some_and(|d| d.starts_with(tree) && !d.join(format!("lib{name}.so")).exists())
    };
    let mut out = Vec::new();
    for w in ws {
        match w {
            Word::Option { name: "-o", .. } => {}
            Word::Operand(o) => {
                let abs = absolute(dir, o);
                let own = abs.starts_with(tree) && (o.ends_with(".o") || o.ends_with(".a"));
                if !own {
                    out.push(if Path::new(o).is_absolute() || !abs.exists() {
                        o.to_string()
                    } else {
                        abs.display().to_string()
                    });
                }
            }
            Word::Option { name: "-l", arg: Some(a), .. } if own_library(a) => {}
            Word::Option { name: "-L", arg: Some(a), joined } => {
                push_option(&mut out, "-L", Some(&absolute(dir, a).display().to_string()), joined)
            }
            Word::Option { name, arg, joined } => push_option(&mut out, name, arg, joined),
        }
    }
    out
}

/// The archives inside `tree` that a link (`args`, run in `dir`) names as
/// operands, absolute, each once, in order.
pub(crate) fn link_archives(args: &[String], dir: &Path, tree: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for w in words(args) {
        if let Word::Operand(o) = w {
            let abs = absolute(dir, o);
            if o.ends_with(".a") && abs.starts_with(tree) && !out.contains(&abs) {
                out.push(abs);
            }
        }
    }
    out
}

/// The link's arguments with its output sent to `output` and the linker
/// asked to name every object and archive member it loads (GNU ld prints
/// archive members only when `--trace` is given twice).
pub(crate) fn traced_link(args: &[String], output: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for w in words(args) {
        match w {
            Word::Option { name: "-o", .. } => {}
            Word::Option { name, arg, joined } => push_option(&mut out, name, arg, joined),
            Word::Operand(o) => out.push(o.to_string()),
        }
    }
    out.push("-o".to_string());
    out.push(output.display().to_string());
    out.push("-Wl,--trace,--trace".to_string());
    out
}

/// What an archiver call (`ar rcs lib.a a.o b.o`, args without the program)
/// run in `dir` adds to which archive: the archive and the members' objects
/// (absolute), or `None` when it adds nothing (`ar t`, `ar x`, `ranlib`).
pub(crate) fn archive(args: &[String], dir: &Path) -> Option<(PathBuf, Vec<PathBuf>)> {
    let mut rest = args.iter().map(String::as_str).peekable();
    // GNU ar's long options come first: `--plugin P`, `--target=T`, `-X32_64`.
    while let Some(a) = rest.peek() {
        if *a == "--plugin" {
            rest.next();
            rest.next();
        } else if a.starts_with("--") || a.starts_with("-X") {
            rest.next();
        } else {
            break;
        }
    }
    let op = rest.next()?.trim_start_matches('-');
    if !op.contains(['r', 'q']) {
        return None;
    }
    // `a`, `b` and `i` take the member to insert at before the archive.
    if op.contains(['a', 'b', 'i']) {
        rest.next();
    }
    let archive = absolute(dir, rest.next()?);
    Some((archive, rest.map(|m| absolute(dir, m)).collect()))
}

/// A shell command line split into words as `sh` would (quotes and
/// backslashes; no expansions), for `compile_commands.json`'s `command`.
pub(crate) fn shell_words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                cur.extend(chars.by_ref().take_while(|&c| c != '\''));
            }
            '"' => {
                in_word = true;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => cur.extend(chars.next()),
                        c => cur.push(c),
                    }
                }
            }
            '\\' => {
                in_word = true;
                cur.extend(chars.next());
            }
            c if c.is_whitespace() => {
                if in_word {
                    out.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        out.push(cur);
    }
    out
}

/// `s` quoted for `sh`.
pub(crate) fn shell_quote(s: &str) -> String {
    if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=:+,@%".contains(c)) {
        return s.to_string();
    }
    format!("'{}'", s.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn a_compile_names_its_object() {
        let d = Path::new("/t/lib");
        assert_eq!(
            job(&v("-I../include -O2 -c eval.c"), d),
            Job::Compile(vec![("/t/lib/eval.c".into(), "/t/lib/eval.o".into())])
        );
        assert_eq!(
            job(&v("-c -o src/main.o src/main.c"), Path::new("/t")),
            Job::Compile(vec![("/t/src/main.c".into(), "/t/src/main.o".into())])
        );
        assert_eq!(job(&v("-E x.c"), d), Job::Other);
        assert_eq!(job(&v("--version"), d), Job::Other);
        assert_eq!(
            job(&v("-o calc main.o -Llib -lcalc -lm"), Path::new("/t")),
            Job::Link { output: "/t/calc".into(), sources: vec![] }
        );
    }

    #[test]
    fn unit_flags_stand_alone() {
        let f = unit_flags(
            &v(
                "-Iinclude -I ../x -DX=1 -MD -MF src/main.d -MT y -O1 -include cfg.h -c -o src/main.o src/main.c -Wall",
            ),
            Path::new("/t/sub"),
        );
        assert_eq!(f, v("-I/t/sub/include -I /t/x -DX=1 -O1 -include cfg.h -Wall"));
    }

    #[test]
    fn link_archives_are_the_projects_own() {
        let t = Path::new("/t");
        let args = v("-g -o p main.o ../lib/libx.a lib/liby.a /usr/lib/libz.a lib/liby.a -lm");
        let a = link_archives(&args, &t.join("src"), t);
        assert_eq!(a, [PathBuf::from("/t/lib/libx.a"), PathBuf::from("/t/src/lib/liby.a")]);
    }

    #[test]
    fn link_flags_keep_only_what_is_not_the_project() {
        let tmp = tempfile::tempdir().unwrap();
        let t = tmp.path();
        std::fs::create_dir(t.join("lib")).unwrap();
        std::fs::write(t.join("lib/libcalc.a"), "").unwrap();
        let f = link_flags(&v("-g -o calc src/main.o lib/libx.a -Llib -lcalc -lm -Wl,-z,now"), t, t);
        assert_eq!(
            f,
            vec![
                "-g".to_string(),
                format!("-L{}", t.join("lib").display()),
                "-lm".into(),
                "-Wl,-z,now".into()
            ]
        );
    }

    #[test]
    fn archives_and_shell_words() {
        assert_eq!(
            archive(&v("rcs libcalc.a lex.o eval.o"), Path::new("/t/lib")),
            Some(("/t/lib/libcalc.a".into(), vec!["/t/lib/lex.o".into(), "/t/lib/eval.o".into()]))
        );
        assert_eq!(
            archive(&v("--plugin /p.so -cr l.a x.o"), Path::new("/t")).unwrap().1,
            vec![PathBuf::from("/t/x.o")]
        );
        assert_eq!(archive(&v("t l.a"), Path::new("/t")), None);
        assert_eq!(shell_words(r#"cc -DX="a b" 'c d' e\ f"#), ["cc", "-DX=a b", "c d", "e f"]);
        assert_eq!(shell_quote("a'b"), r"'a'\''b'");
    }
}
