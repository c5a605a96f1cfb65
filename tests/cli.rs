//! The command line as documented: `--version`, `--help` with examples on
//! every subcommand, exit statuses (clap's usage errors too), shell
//! completions that complete, `--fail-on-diff`.

use std::path::Path;
use std::process::{Command, Output};

fn psychic(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_psychic")).args(args).output().unwrap()
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

#[test]
fn version_prints_the_crate_version() {
    let o = psychic(&["--version"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), format!("psychic {}", env!("CARGO_PKG_VERSION")));
}

#[test]
fn every_subcommand_has_help_with_examples() {
    let cli = psychic::cli::command();
    let names: Vec<String> =
        cli.get_subcommands().map(|c| c.get_name().to_string()).filter(|n| n != "help").collect();
    assert!(names.len() >= 6, "{names:?}");
    for name in std::iter::once(None).chain(names.iter().map(Some)) {
        let args: Vec<&str> = name.map(String::as_str).into_iter().chain(["--help"]).collect();
        let o = psychic(&args);
        assert_eq!(o.status.code(), Some(0), "{args:?}");
        let help = String::from_utf8_lossy(&o.stdout);
        assert!(help.contains("Examples:\n  psychic "), "{args:?} has no examples:\n{help}");
    }
    let top = String::from_utf8_lossy(&psychic(&["--help"]).stdout).into_owned();
    assert!(top.contains("Exit status: 0 on success; 1 when"), "{top}");
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["diff-patches"][..],
        &["no-such-command"],
        &["unify", "--no-such-flag", "a.c"],
        &["completions", "tcsh"],
    ] {
        let o = psychic(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o));
        assert!(String::from_utf8_lossy(&o.stderr).starts_with("error: "), "{args:?}: {}", text(&o));
    }
    // An input error: the same status, psychic's own message.
    let o = psychic(&["unify", "/no/such/orig.c", "/no/such/fix.c"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr).starts_with("psychic: error: /no/such/orig.c"),
        "{}",
        text(&o)
    );
}

/// bash completes subcommands and flags from the generated script.
#[test]
fn bash_completion_completes() {
    let script = psychic(&["completions", "bash"]);
    assert!(script.status.success());
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("psychic.bash");
    std::fs::write(&file, &script.stdout).unwrap();
    let complete = |line: &str| {
        let words: Vec<&str> = line.split(' ').collect();
        let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
        let cmd = format!(
            "source {}; COMP_WORDS=({}); COMP_CWORD={}; COMP_LINE='{line}'; COMP_POINT=${{#COMP_LINE}}; \
             _psychic psychic {} {}; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
            file.display(),
            quoted.join(" "),
            words.len() - 1,
            quoted[words.len() - 1],
            words[words.len() - 2],
        );
        let o = Command::new("bash").args(["-c", &cmd]).output().unwrap();
        assert!(o.status.success(), "{}", text(&o));
        String::from_utf8_lossy(&o.stdout).lines().map(String::from).collect::<Vec<_>>()
    };
    assert_eq!(complete("psychic diff-p"), ["diff-patches"]);
    assert!(complete("psychic ").iter().any(|w| w == "completions"));
    assert_eq!(complete("psychic diff-patches --diagn"), ["--diagnostics"]);
    assert_eq!(complete("psychic completions f"), ["fish"]);
}

#[test]
fn zsh_and_fish_completions_name_every_subcommand() {
    let cli = psychic::cli::command();
    let subs: Vec<&str> = cli.get_subcommands().map(|c| c.get_name()).collect();
    assert!(subs.contains(&"run") && subs.contains(&"diff-patches"), "{subs:?}");
    for shell in ["zsh", "fish"] {
        let o = psychic(&["completions", shell]);
        assert!(o.status.success());
        let script = String::from_utf8_lossy(&o.stdout);
        for sub in &subs {
            assert!(script.contains(sub), "{shell}: {sub}");
        }
        assert!(script.contains("fail-on-diff") && script.contains("sarif"), "{shell}");
    }
}

/// With --fail-on-diff, revisions that all behave alike still exit 0 (the
/// demo's differing revisions exit 1: tests/editor.rs).
#[test]
fn fail_on_diff_is_0_when_all_revisions_behave_alike() {
    let dir = tempfile::tempdir().unwrap();
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/demo");
    let files: Vec<String> =
        ["fix1.c", "fix2.c", "fix4.c"].iter().map(|f| demo.join(f).display().to_string()).collect();
    let out = dir.path().join("out").display().to_string();
    let mut args = vec!["diff-patches", "--quiet", "--fail-on-diff", "-o", &out];
    args.extend(files.iter().map(String::as_str));
    let o = psychic(&args);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
}
