//! `compile`, `replay` and `show`: the native side of the runtime, usable alone.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use clap::Args;

use crate::compile::{NativeOptions, Toolchain};
use crate::ktest::KTest;
use crate::replay;

/// Compile a C program (or meta program) to LLVM bitcode or a native replay binary.
#[derive(Args)]
#[command(after_help = "Examples:
  psychic compile meta.c -o meta.bc          # bitcode for `psychic run`
  psychic compile --native meta.c -o meta    # native binary for `psychic replay`
  psychic compile prog.c -o prog.bc -- -DNDEBUG -Iinclude")]
pub struct CompileArgs {
    /// The C source file.
    source: PathBuf,
    /// Output path (default: SOURCE with .bc, or without extension for --native).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Build a native executable linked with the replay runtime instead of bitcode.
    #[arg(long)]
    native: bool,
    /// With --native: build with AddressSanitizer.
    #[arg(long, requires = "native")]
    asan: bool,
    /// Extra flags for clang, after `--`.
    #[arg(last = true)]
    clang_flags: Vec<String>,
}

pub fn compile(a: CompileArgs) -> Result<ExitCode> {
    let tc = Toolchain::discover()?.with_flags(&a.clang_flags);
    let out = a.output.unwrap_or_else(|| {
        if a.native { a.source.with_extension("") } else { a.source.with_extension("bc") }
    });
    if out == a.source {
        bail!("{}: output would overwrite the source; name it with -o", a.source.display());
    }
    if a.native {
        tc.native(&a.source, &out, &NativeOptions { sanitize: a.asan, ..Default::default() })?;
    } else {
        tc.bitcode(&a.source, &out)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Run one revision of a program natively on one test and print its outcome.
#[derive(Args)]
#[command(after_help = "The program is a native binary from `psychic compile --native`, or a C file,
which is compiled first. Its exit status becomes psychic's own. The test's command line,
stdin and files (KLEE's argNN, stdin, A-data objects) are fed to the program; files are
written into a scratch directory that is its working directory.

Examples:
  psychic replay meta psychic-last/test000001.ktest --revision 2
  psychic replay prog.c test000003.ktest")]
pub struct ReplayArgs {
    /// A native binary, or a C source file to compile first.
    program: PathBuf,
    /// The .ktest file whose objects feed klee_make_symbolic.
    ktest: PathBuf,
    /// The revision that __klee_meta returns (PSYCHIC_REVISION).
    #[arg(short, long, default_value_t = 0)]
    revision: usize,
    /// Kill the run after this many seconds.
    #[arg(long, default_value_t = 10.0)]
    timeout: f64,
}

pub fn replay(a: ReplayArgs) -> Result<ExitCode> {
    let kt = KTest::read(&a.ktest)?;
    let tmp;
    let binary: PathBuf = if a.program.extension().is_some_and(|e| e == "c") {
        let tc = Toolchain::discover()?;
        tmp = tempfile::tempdir().context("creating a temporary directory")?;
        let bin = tmp.path().join("replay");
        tc.native(&a.program, &bin, &NativeOptions::default())?;
        bin
    } else {
        if !a.program.exists() {
            bail!("{}: no such file", a.program.display());
        }
        a.program.clone()
    };
    let mut req = replay::Request::new(&binary, Some(&a.ktest), a.revision);
    req.timeout = Duration::from_secs_f64(a.timeout);
    req.env = crate::posix::replay_env(&kt);
    let outcome = replay::run(&req).with_context(|| format!("{}: cannot run", binary.display()))?;
    use std::io::Write;
    let mut so = std::io::stdout();
    so.write_all(&outcome.stdout)?;
    std::io::stderr().write_all(&outcome.stderr)?;
    eprintln!("psychic: revision {}: {}", a.revision, outcome.status_text());
    Ok(ExitCode::from(outcome.exit_status.unwrap_or(1).clamp(0, 255) as u8))
}

/// Print a .ktest file, as KLEE's ktest-tool does.
#[derive(Args)]
#[command(
    after_help = "Examples:\n  psychic show psychic-last/test000001.ktest\n  psychic show out/tests/*.ktest"
)]
pub struct ShowArgs {
    /// The .ktest files.
    #[arg(required = true)]
    ktests: Vec<PathBuf>,
}

pub fn show(a: ShowArgs) -> Result<ExitCode> {
    for path in &a.ktests {
        print!("{}", KTest::read(path)?.render(path));
    }
    Ok(ExitCode::SUCCESS)
}
