//! `psychic run`: symbolic execution of one program, as `klee` does it.
//!
//! Compile a `.c` input (`--cflag`), link the libc model (`--libc model`, the
//! default; `Toolchain::libc_model_cached`), load, check the entry point, and
//! only then create the output directory, so that bad input leaves nothing
//! behind; explore with the `run::TestWriter` observer. The status is 0 whatever
//! the program did. The first Ctrl-C ends the exploration as a limit does (the
//! remaining paths get `.early` tests), a second one exits at once (status 130).
//! The program's words after `--` are recorded in every ktest's `args`
//! (`run::Options::ktest_args`), as KLEE does.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Instant, SystemTime};

use anyhow::{Context, Result, bail};
use clap::{Args, ValueEnum};

use super::exec_args::{self, EnvArgs, ExecArgs};
use crate::compile::Toolchain;
use crate::exec::{ExecConfig, Executor, SearchKind};
use crate::ir::Module;
use crate::libs::{LibcUse, Libs};
use crate::posix;
use crate::run::{self, TestWriter};

/// Explore every path of a program symbolically and write a test for each, as KLEE does.
#[derive(Args)]
#[command(after_help = "The program is LLVM 19 bitcode (clang-19 -c -emit-llvm -g), or a C file, compiled
first. Inputs are what it marks with klee_make_symbolic, klee_int or klee_range
(#include <klee/klee.h>), or a symbolic environment (KLEE's POSIX options, after
`--`): --sym-arg N, --sym-args MIN MAX N, --sym-stdin N, --sym-files K N, mixed with
concrete words. The C library comes from psychic's model (--libc model): strings,
ctype, strto*, qsort, rand, stdio (printf family, getchar, fgets, getline, scanf,
fopen of the symbolic files A, B, ...) and read/open.

The output directory (default: psychic-out-N, with psychic-last linking to it) holds:
  testNNNNNN.ktest         the inputs of each path (KLEE ktest v3; `psychic show` prints it)
  testNNNNNN.KIND.err      the error of an error path: ptr, free, readonly, div,
                           overshift, assert, abort, exec, external, unhandled, solver,
                           model (the libc model cannot go on: an unsupported scanf
                           conversion), or the suffix given to klee_report_error
  testNNNNNN.early         why a path was ended early (a limit, Ctrl-C)
  testNNNNNN.stdout/.stderr  what the path printed, under the test's inputs
  tests.csv                one row per test: how it ended, exit status, error, location
  run.stats                statistics once a second (CSV), info, messages.txt, warnings.txt
A run with a single path also prints the program's output. The exit status is 0 for a
finished run, even if the program had errors; 2 for bad input.

Examples:
  psychic run get_sign.bc
  psychic run prog.c --search dfs --max-time 60 --output-dir out
  psychic run prog.bc --max-instructions 1000000 -- ARG1 ARG2
  psychic run cut.c -- -d , --sym-arg 3 --sym-stdin 8   # KLEE's POSIX options
  psychic run median.c --sym-stdin 12                   # scanf reads symbolic stdin
  psychic run meta.bc --check-overshift --external-calls all
  psychic replay prog.c psychic-last/test000001.ktest")]
pub struct RunArgs {
    /// The program: LLVM bitcode, or a C file to compile first.
    program: PathBuf,
    /// The program's command line after argv[0], after `--`: concrete words
    /// and KLEE's --sym-arg N, --sym-args MIN MAX N, --sym-stdin N,
    /// --sym-files K N.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, value_name = "PROGRAM ARGS")]
    args: Vec<String>,
    /// Where tests go (default: psychic-out-N, with psychic-last linking to it).
    #[arg(long, value_name = "DIR")]
    output_dir: Option<PathBuf>,
    /// The function to start in: `main`, or another that takes no parameters,
    /// or (argc, argv).
    #[arg(long, value_name = "NAME", default_value = "main")]
    entry_point: String,
    /// The number of revisions of a meta program (`psychic unify`), instead of
    /// its `__psychic_revisions`.
    #[arg(long, value_name = "N")]
    revisions: Option<u32>,
    /// The C library: psychic's model, linked in as bitcode with musl beneath
    /// it where the model lacks a function, or none (every libc call but the
    /// engine's own is then an external call).
    #[arg(long, value_enum, default_value_t = Libc::Model)]
    libc: Libc,
    /// A flag for clang when the program is a C file (repeatable):
    /// --cflag=-DNDEBUG --cflag=-Iinclude.
    #[arg(long = "cflag", value_name = "FLAG", allow_hyphen_values = true)]
    cflags: Vec<String>,
    #[command(flatten)]
    exec: ExecArgs,
    #[command(flatten)]
    env: EnvArgs,
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
enum Libc {
    Model,
    None,
}

pub fn run(a: RunArgs) -> Result<ExitCode> {
    let started = SystemTime::now();
    let clock = Instant::now();
    if !a.program.is_file() {
        bail!("{}: no such file", a.program.display());
    }
    let command = a.env.words(&a.args)?;
    let entry = command.entry(&a.entry_point).map_err(|e| anyhow::anyhow!("{e}"))?;
    if entry == posix::POSIX_ENTRY && a.libc == Libc::None {
        bail!("the symbolic environment is part of the libc model: drop --libc none");
    }
    let (module, libc) = load(&a)?;
    if entry == posix::POSIX_ENTRY && module.entry("main").is_err() {
        bail!("{}: no function `main` to start the symbolic environment in", a.program.display());
    }

    let program = std::iter::once(a.program.display().to_string());
    let argv: Vec<String> = program.chain(command.words().iter().cloned()).collect();
    let interrupt = exec_args::interrupt_on_ctrl_c();
    let mut cfg = ExecConfig {
        entry,
        argv: argv.clone(),
        revisions: a.revisions,
        keep_paths: false,
        interrupt: Some(interrupt),
        ..ExecConfig::default()
    };
    a.exec.apply(&mut cfg, SearchKind::Default)?;
    // Declared first, so that it outlives the executor that borrows it.
    let mut writer: TestWriter;
    let mut ex = Executor::new(&module, cfg).map_err(|e| match e {
        crate::exec::ExecError::Load(crate::ir::LoadError::NoEntry { name }) => anyhow::anyhow!(
            "{}: no function `{name}` to start in; name one with --entry-point",
            a.program.display()
        ),
        e => anyhow::Error::new(e).context(a.program.display().to_string()),
    })?;

    let out = crate::report::outdir::create(a.output_dir.as_deref())?;
    let opts = run::Options { dir: out.path.clone(), ktest_args: argv, progress: run::stderr_is_terminal() };
    writer = match TestWriter::new(opts) {
        Ok(w) => w,
        Err(e) => {
            let dir = out.path.display().to_string();
            out.discard();
            return Err(e).with_context(|| format!("{dir}: cannot write"));
        }
    };
    writer.console.message(&format!("output directory is \"{}\"", run::display_dir(&out.path)));
    writer.console.message(&format!("libc: {libc}"));
    for w in &module.warnings {
        writer.console.message(&format!("WARNING: {w}"));
    }
    let summary = {
        ex.set_observer(Box::new(&mut writer));
        ex.run()
    };
    drop(ex);
    let command_line = shell_words(std::env::args());
    writer
        .finish(&summary, &command_line, started, clock.elapsed())
        .with_context(|| format!("{}: cannot write", out.path.display()))?;
    Ok(ExitCode::SUCCESS)
}

/// The program as the engine runs it: compiled if it is C, linked with the
/// libc model (and musl beneath it, `crate::libs`) unless `--libc none`;
/// with which libraries served it.
fn load(a: &RunArgs) -> Result<(Module, LibcUse)> {
    let is_c = a.program.extension().is_some_and(|e| e == "c");
    let scratch = tempfile::Builder::new()
        .prefix("psychic-run-")
        .tempdir()
        .context("creating a temporary directory")?;
    let tc = if is_c || a.libc == Libc::Model {
        Some(
            Toolchain::discover()
                .context(
                    "clang is needed for C input and the libc model (--libc none runs bitcode without it)",
                )?
                .with_flags(&a.cflags),
        )
    } else {
        None
    };
    let bitcode = match (&tc, is_c) {
        (Some(tc), true) => {
            let bc = scratch.path().join("program.bc");
            tc.bitcode(&a.program, &bc)?;
            bc
        }
        _ => a.program.clone(),
    };
    let libs = match (&tc, a.libc) {
        (Some(tc), Libc::Model) => Libs::prepare(tc, scratch.path())?,
        _ => Libs::none(),
    };
    Ok(libs.load(&bitcode, &[])?)
}

/// The command line as a shell would take it back.
fn shell_words(args: impl Iterator<Item = String>) -> String {
    let quote = |a: String| {
        if !a.is_empty() && a.bytes().all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(&b)) {
            a
        } else {
            format!("'{}'", a.replace('\'', r"'\''"))
        }
    };
    args.map(quote).collect::<Vec<_>>().join(" ")
}
