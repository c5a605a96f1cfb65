//! The command line: one subcommand per stage a user may want alone, and the
//! end-to-end `diff-patches`. Errors print as `psychic: error: ...` and exit 2,
//! as clap's own usage errors do.
//!
//! Exit statuses: 2 for every error (clap's usage errors too); 1 only for
//! `diff-patches --fail-on-diff` with differences; 3 only for `diff-patches
//! --fail-on-incomplete` with a partial answer. `cli` parses, validates and
//! prints; it holds no policy (ARCHITECTURE.md, Boundaries).

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod batch;
mod completions;
mod diff_patches;
mod exec_args;
pub mod progress;
mod run;
mod tools;
mod unify;

/// Exit status for usage and input errors.
pub const EXIT_ERROR: u8 = 2;

#[derive(Parser)]
#[command(
    name = "psychic",
    version,
    about = "Tell candidate patches of a C program apart by differential symbolic execution",
    long_about = "psychic merges an original C program and its candidate patches into one meta \
program, explores it symbolically, and finds inputs on which the revisions behave differently. \
It groups the revisions into clusters of identical behaviour and builds a small decision tree of \
tests that tells the clusters apart.",
    after_help = "Examples:
  psychic diff-patches orig.c fix1.c fix2.c fix3.c     # the whole pipeline
  psychic unify orig.c fix1.c fix2.c -o meta.c        # the meta program only
  psychic batch sets.jsonl --shard 3/8                # many patch sets, a share of them
  psychic help diff-patches                           # every command has --help with examples

Exit status: 0 on success; 1 when `diff-patches --fail-on-diff` finds revisions that behave
differently; 2 on a usage or input error (the message says which, with file:line:col where there
is one)."
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    Run(run::RunArgs),
    DiffPatches(diff_patches::DiffPatchesArgs),
    Compile(tools::CompileArgs),
    Replay(tools::ReplayArgs),
    Show(tools::ShowArgs),
    Unify(unify::UnifyArgs),
    Batch(batch::BatchArgs),
    Completions(completions::CompletionsArgs),
}

/// The plan `psychic diff-patches WORDS...` runs, for tests and benches that
/// call the pipeline (`session::run`) with the command's words. Relative
/// paths are the process's.
pub fn diff_patches_plan(words: &[&str]) -> anyhow::Result<crate::session::Plan> {
    let cli = Cli::try_parse_from(["psychic", "diff-patches"].iter().chain(words))?;
    match cli.command {
        Command::DiffPatches(a) => diff_patches::plan(&a, std::time::Instant::now()),
        _ => unreachable!("parsed as diff-patches"),
    }
}

/// The command-line interface, for completions and tests.
pub fn command() -> clap::Command {
    <Cli as clap::CommandFactory>::command()
}

pub fn main() -> ExitCode {
    // Engine bugs end one path (exec catches them); this says what happened
    // in one line instead of a backtrace, wherever a panic comes from.
    std::panic::set_hook(Box::new(|info| eprintln!("psychic: internal error (please report it): {info}")));
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run(a) => run::run(a),
        Command::DiffPatches(a) => diff_patches::diff_patches(a),
        Command::Compile(a) => tools::compile(a),
        Command::Replay(a) => tools::replay(a),
        Command::Show(a) => tools::show(a),
        Command::Unify(a) => unify::unify(a),
        Command::Batch(a) => batch::batch(a),
        Command::Completions(a) => completions::completions(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("psychic: error: {e:#}");
            ExitCode::from(EXIT_ERROR)
        }
    }
}
