//! [`RepetitionResult`]: one repetition and its attempts, decided by the last.

use serde::{Deserialize, Serialize};

use super::{AttemptResult, Status};

/// One repetition: its attempts, the last of which decides it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RepetitionResult {
    /// 1-based repetition number.
    pub repetition: u32,
    /// The verdict of its final attempt.
    pub status: Status,
    /// Whether it counts as passing.
    pub passed: bool,
    /// Every attempt, in order.
    pub attempts: Vec<AttemptResult>,
}

impl RepetitionResult {
    /// The repetition decided by its last attempt (`attempts` must not be empty).
    pub fn of(repetition: u32, attempts: Vec<AttemptResult>) -> Self {
        let last = attempts
            .last()
            .expect("a repetition has at least one attempt");
        RepetitionResult {
            repetition,
            status: last.status,
            passed: last.passed,
            attempts,
        }
    }

    /// The attempt that decided the repetition.
    pub fn final_attempt(&self) -> Option<&AttemptResult> {
        self.attempts.last()
    }
}
