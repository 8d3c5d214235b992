//! Graders of declarative cases (agentv's `assertions:`): a score in 0..=1, a verdict and
//! evidence per grader, and the case's score from them.

pub(crate) mod spec;
