//! The differentiator: candidate tests from pairs of halted paths of different
//! revisions, confirmed by native replay.

pub mod confirm;
