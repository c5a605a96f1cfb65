//! The integration tests but the budget-judged corpora (`tests/alone.rs`)
//! and the honesty corpus (`tests/honesty.rs`), as one binary. Each other
//! file under `tests/` is a module of it, `common` their shared support. Why
//! one: every test binary links the whole library and instantiates its
//! generic code (serde for reports and meta programs, the engine) anew; 27
//! binaries spent most of the suite's build on that. Run one file's tests
//! with `cargo test --release --test suite -- unify::`.

mod common;

mod batch;
mod cli;
mod confirm;
mod diff_engine;
mod diff_patches;
mod editor;
mod exec_concrete;
mod exec_csmith;
mod exec_symbolic;
mod float_exact;
mod fuzz;
mod introclass;
mod ir_load;
mod layering;
mod libc_model;
mod merge;
mod posix;
mod printf_glibc;
mod project;
mod project_diff;
mod run_cli;
mod run_fixtures;
mod truth;
mod unify;
mod unmodified_programs;
