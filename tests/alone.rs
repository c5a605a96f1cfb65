//! The corpora whose sets psychic must get exact within a time budget:
//! each set takes the machine alone (`handwritten::one_at_a_time`), as its
//! engine and fuzzer need a core each, so they share a binary with no test
//! that would run beside them. A set's truth is computed once per process
//! (`common::once_per_process`). Run one file's tests with
//! `cargo test --release --test alone -- hard_truth::`.

mod common;

mod enumerate;
mod float_truth;
mod hard_truth;
