//! The statistics behind a pass rate and a skill's lift: how sure a number is, and when enough
//! sessions have run to say.
//!
//! | module | holds | used for |
//! |---|---|---|
//! | `proportion` | [`Proportion`], [`Interval`]: the Wilson interval, unbiased pass@k and pass^k | a pass rate with its interval and n |
//! | `lift` | [`Lift`] ([`newcombe`]'s interval of a difference, Fisher's exact test, normalized gain, [`Verdict`]), [`samples_needed`] | does a variant with the skill pass more often than without it |
//! | `sequential` | [`RateSequence`], [`GateDecision`], [`Discordant`]: an always-valid confidence sequence | stopping as soon as a gate or a lift's sign is settled |
//! | `seeded` | [`Seeded`] | reproducible simulations and stand-in agents |
//! | `special` | log-gamma, log-beta, the normal quantile | the above |
//!
//! Every estimate is exact or closed-form: no resampling, the same numbers on every machine.

mod lift;
mod proportion;
mod seeded;
mod sequential;
mod special;

pub use lift::{Lift, Verdict, fisher_two_sided, newcombe, samples_needed};
pub(crate) use proportion::Z_95;
pub use proportion::{Interval, Proportion};
pub use seeded::Seeded;
pub use sequential::{Discordant, GateDecision, RateSequence};

#[cfg(test)]
pub(crate) mod tests {
    use super::Proportion;

    /// `successes` out of `trials`, for the tests.
    pub(crate) fn p(successes: u32, trials: u32) -> Proportion {
        Proportion::new(successes, trials).unwrap()
    }
}
