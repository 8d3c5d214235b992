//! Seeded simulation of skill experiments: how many sessions the adaptive mode (an always-valid
//! confidence sequence checked after every session, `stats::RateSequence`) needs to settle a
//! question, against the fixed number of sessions that settles it as reliably, and the error
//! rates of both. Two questions: does a runner's pass rate meet a gate, and does a skill help
//! or hurt (the sign of its lift, from interleaved pairs of sessions).
//!
//! For each true rate: `SIMS` seeded runs of the adaptive mode, stopped when decided or at the
//! budget `CAP`; the fixed design's decision (the Wilson interval against the gate, Newcombe's
//! interval of the lift against 0, at the same 95%) is computed exactly from the binomial
//! distribution, and its N is the smallest that decides correctly at least as often as the
//! adaptive mode surely does (the lower 95% bound of its simulated rate). A fixed design has to choose N before it knows the rate, so the saving is
//! counted against the largest of those N over the grid ("fixed N for the grid").
//!
//! `cargo bench -p skillgym-harness --bench experiments` (any profile; about a minute in debug).

use skillgym_harness::stats::{
    Discordant, GateDecision, Proportion, RateSequence, Seeded, Verdict, newcombe,
};

/// Simulated experiments per true rate.
const SIMS: u32 = 2000;
/// The adaptive mode's budget: sessions (pairs for a lift) per experiment.
const CAP: u32 = 400;
/// Confidence of every decision.
const CONFIDENCE: f64 = 0.95;
/// The gate of the first table.
const GATE: f64 = 0.7;

fn main() {
    if std::env::args().any(|arg| arg == "--list") {
        return;
    }
    println!(
        "Gate: does the pass rate meet {GATE}? (95%, budget {CAP} sessions, {SIMS} runs each)\n"
    );
    gate_table();
    println!(
        "\nLift: does the skill help or hurt? (95%, interleaved pairs, budget {CAP} pairs, {SIMS} runs each)\n"
    );
    lift_table();
}

/// What the adaptive mode did over the simulated runs at one true rate.
struct Adaptive {
    mean_sessions: f64,
    correct: f64,
    wrong: f64,
    /// The lower 95% Wilson bound of `correct`: how reliable the adaptive mode surely is (2,000
    /// runs cannot tell 99.9% from 100%), the reliability the fixed design must reach.
    surely_correct: f64,
}

impl Adaptive {
    fn of(sessions: u64, correct: u32, wrong: u32) -> Adaptive {
        Adaptive {
            mean_sessions: sessions as f64 / f64::from(SIMS),
            correct: f64::from(correct) / f64::from(SIMS),
            wrong: f64::from(wrong) / f64::from(SIMS),
            surely_correct: Proportion {
                successes: correct,
                trials: SIMS,
            }
            .wilson(0.95)
            .low,
        }
    }
}

fn gate_table() {
    let grid: [f64; 6] = [0.3, 0.5, 0.6, 0.8, 0.9, 0.97];
    let sequence = RateSequence::new(CONFIDENCE);
    let rows: Vec<(f64, Adaptive, u32)> = grid
        .iter()
        .map(|&rate| {
            let truth = if rate >= GATE {
                GateDecision::Meets
            } else {
                GateDecision::Misses
            };
            let mut rng = Seeded::new(rate.to_bits());
            let (mut sessions, mut correct, mut wrong) = (0u64, 0u32, 0u32);
            for _ in 0..SIMS {
                let mut passes = 0;
                let mut n = 0;
                let decision = loop {
                    n += 1;
                    passes += u32::from(rng.bernoulli(rate));
                    let decision = sequence.gate(
                        Proportion {
                            successes: passes,
                            trials: n,
                        },
                        GATE,
                    );
                    if decision != GateDecision::Undecided || n == CAP {
                        break decision;
                    }
                };
                sessions += u64::from(n);
                correct += u32::from(decision == truth);
                wrong += u32::from(decision != truth && decision != GateDecision::Undecided);
            }
            let adaptive = Adaptive::of(sessions, correct, wrong);
            let fixed = smallest_n(
                |n| fixed_gate_correct(rate, n, truth),
                adaptive.surely_correct,
            );
            (rate, adaptive, fixed)
        })
        .collect();
    print_rows(
        "true rate",
        rows.iter().map(|(rate, a, n)| (format!("{rate}"), a, *n)),
    );
}

fn lift_table() {
    let grid: [(f64, f64); 6] = [
        (0.5, 0.8),
        (0.3, 0.7),
        (0.6, 0.9),
        (0.2, 0.5),
        (0.8, 0.5),
        (0.5, 0.5),
    ];
    let sequence = RateSequence::new(CONFIDENCE);
    let mut rows = Vec::new();
    for (base, treat) in grid {
        let truth = if treat > base {
            Verdict::Helps
        } else if treat < base {
            Verdict::Hurts
        } else {
            Verdict::NoDetectableEffect
        };
        let mut rng = Seeded::new(base.to_bits() ^ treat.to_bits().rotate_left(17));
        let (mut sessions, mut correct, mut wrong) = (0u64, 0u32, 0u32);
        for _ in 0..SIMS {
            let mut pairs = Discordant::default();
            let mut n = 0;
            let verdict = loop {
                n += 1;
                match (rng.bernoulli(treat), rng.bernoulli(base)) {
                    (true, false) => pairs.treatment_only += 1,
                    (false, true) => pairs.baseline_only += 1,
                    _ => {}
                }
                let verdict = sequence.lift_sign(pairs);
                if verdict != Verdict::NoDetectableEffect || n == CAP {
                    break verdict;
                }
            };
            // Two sessions per pair.
            sessions += 2 * u64::from(n);
            correct += u32::from(verdict == truth);
            wrong += u32::from(verdict != truth && verdict != Verdict::NoDetectableEffect);
        }
        let adaptive = Adaptive::of(sessions, correct, wrong);
        // Equal rates: any decision is wrong, and no N makes a fixed design decide "no
        // effect" more often than its 95%: the row shows error rates only.
        let fixed = if truth == Verdict::NoDetectableEffect {
            0
        } else {
            2 * smallest_n(
                |n| fixed_lift_correct(base, treat, n, truth),
                adaptive.surely_correct,
            )
        };
        rows.push((format!("{base} -> {treat}"), adaptive, fixed));
    }
    print_rows(
        "true rates (without -> with)",
        rows.iter().map(|(l, a, n)| (l.clone(), a, *n)),
    );
}

/// Prints one table: per row the adaptive mode's sessions and error rates, the fixed N that
/// decides as reliably, and the saving against the largest such N over the grid. A row
/// without a fixed N (equal rates: the right answer is "no effect", which a fixed design gives
/// at its level whatever N) shows its error rates and is left out of the mean saving; its
/// sessions are the budget's, where an adaptive run ends when nothing is decided.
fn print_rows<'a>(label: &str, rows: impl Iterator<Item = (String, &'a Adaptive, u32)> + Clone) {
    let grid_n = rows.clone().map(|(_, _, n)| n).max().unwrap_or(0);
    println!(
        "| {label} | adaptive: mean sessions | correct | wrong | fixed N as reliable, this rate | fixed N for the grid | saving against the grid's N |"
    );
    println!("|---|---|---|---|---|---|---|");
    let mut savings = Vec::new();
    for (label, a, n) in rows {
        let (n, saving) = if n == 0 {
            ("-".to_owned(), "-".to_owned())
        } else {
            let saving = 1.0 - a.mean_sessions / f64::from(grid_n);
            savings.push(saving);
            (n.to_string(), format!("{:.0}%", 100.0 * saving))
        };
        println!(
            "| {label} | {:.1} | {:.1}% | {:.2}% | {n} | {grid_n} | {saving} |",
            a.mean_sessions,
            100.0 * a.correct,
            100.0 * a.wrong,
        );
    }
    let mean = savings.iter().sum::<f64>() / savings.len() as f64;
    println!(
        "\nMean saving over the rows with a fixed N: {:.0}%",
        100.0 * mean
    );
}

/// The smallest N (up to 4,000) whose correct-decision rate reaches `target`.
fn smallest_n(correct: impl Fn(u32) -> f64, target: f64) -> u32 {
    // Doubling, then bisection: the rate grows with N but for the lattice's small wiggles.
    let mut high = 1;
    while correct(high) < target {
        high *= 2;
        if high > 4000 {
            return 4000;
        }
    }
    let mut low = high / 2;
    while low + 1 < high {
        let middle = (low + high) / 2;
        if correct(middle) >= target {
            high = middle;
        } else {
            low = middle;
        }
    }
    high
}

/// The binomial distribution of passes out of `n` at `rate`.
fn binomial(n: u32, rate: f64) -> Vec<f64> {
    let mut ln_factorial = vec![0.0f64; n as usize + 1];
    for k in 1..=n as usize {
        ln_factorial[k] = ln_factorial[k - 1] + (k as f64).ln();
    }
    (0..=n)
        .map(|s| {
            let (s, f) = (s as usize, (n - s) as usize);
            let ln = ln_factorial[n as usize] - ln_factorial[s] - ln_factorial[f]
                + if s > 0 { s as f64 * rate.ln() } else { 0.0 }
                + if f > 0 {
                    f as f64 * (1.0 - rate).ln()
                } else {
                    0.0
                };
            ln.exp()
        })
        .collect()
}

/// How often N fixed sessions at `rate` decide the gate correctly (the Wilson interval
/// entirely on the truth's side of the gate).
fn fixed_gate_correct(rate: f64, n: u32, truth: GateDecision) -> f64 {
    binomial(n, rate)
        .iter()
        .enumerate()
        .filter(|(s, _)| {
            let interval = Proportion {
                successes: *s as u32,
                trials: n,
            }
            .wilson(CONFIDENCE);
            match truth {
                GateDecision::Meets => interval.low >= GATE,
                _ => interval.high < GATE,
            }
        })
        .map(|(_, p)| p)
        .sum()
}

/// How often N fixed sessions per variant decide the lift's sign correctly (Newcombe's
/// interval entirely on the truth's side of 0).
fn fixed_lift_correct(base: f64, treat: f64, n: u32, truth: Verdict) -> f64 {
    let (b, t) = (binomial(n, base), binomial(n, treat));
    let mut correct = 0.0;
    for (sb, pb) in b.iter().enumerate() {
        if *pb < 1e-12 {
            continue;
        }
        for (st, pt) in t.iter().enumerate() {
            if *pt < 1e-12 {
                continue;
            }
            let proportion = |s: usize| Proportion {
                successes: s as u32,
                trials: n,
            };
            let Some(interval) = newcombe(proportion(sb), proportion(st), CONFIDENCE) else {
                continue;
            };
            let right = match truth {
                Verdict::Helps => interval.low > 0.0,
                _ => interval.high < 0.0,
            };
            if right {
                correct += pb * pt;
            }
        }
    }
    correct
}
