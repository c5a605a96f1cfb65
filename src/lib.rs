//! psychic: tells candidate patches of a C program apart.
//!
//! The stages, in the order data flows through them (see ARCHITECTURE.md):
//! `unify` → `compile` (with `runtime`) → `ir` → `exec` (with `expr`, `solver`)
//! → `diff` (with `replay`) → `cluster` → `report`. `cli` drives them;
//! `run` writes `psychic run`'s tests from what `exec` halts; `posix` is the
//! symbolic environment's conventions (command-line words, ktest objects, replay).

pub mod cli;
pub mod cluster;
pub mod compile;
pub mod diff;
pub mod exec;
pub mod expr;
pub mod fuzz;
pub mod ir;
pub mod ktest;
pub mod posix;
pub mod replay;
pub mod report;
pub mod run;
pub mod runtime;
pub mod solver;
pub mod unify;
