//! psychic: tells candidate patches of a C program apart.
//!
//! The stages, in the order data flows through them (see ARCHITECTURE.md):
//! `project` (with `--project`: the build captured, the touched files) →
//! `unify` → `compile` (with `runtime`) → `ir` → `exec` (with `expr`,
//! `solver`) beside `fuzz` → `diff` (with `replay`) → `cluster` → `report`.
//! `session` runs them as one pipeline (one plan in, one result out) and
//! `cli` parses command lines into plans and prints results; `run` writes
//! `psychic run`'s tests from what `exec` halts; `posix` is the symbolic
//! environment's conventions (command-line words, ktest objects, replay);
//! `outcome` is what counts as behaviour and `budget` the time limit, which
//! every stage shares. `batch` runs a manifest of diff-patches command lines,
//! each as a child process.

pub mod batch;
pub mod budget;
pub mod cli;
pub mod cluster;
pub mod compile;
pub mod diff;
pub mod exec;
pub mod expr;
pub mod fuzz;
pub mod ir;
pub mod ktest;
pub mod libs;
pub mod outcome;
pub mod posix;
pub mod project;
pub mod replay;
pub mod report;
pub mod run;
pub mod runtime;
pub mod session;
pub mod solver;
pub mod unify;
