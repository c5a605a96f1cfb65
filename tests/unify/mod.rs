//! Tests of `psychic unify`: revision fidelity (seed examples, feature fixtures
//! and generated patch sets), includes, diffs, sharing, the meta program
//! contract and bad input. Ground truth comes from compiling and running every
//! revision.

mod contract;
mod diffs;
mod errors;
mod fidelity;
mod includes;
mod project;
mod sharing;
