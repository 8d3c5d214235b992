//! [`Seeded`]: a small deterministic random generator (SplitMix64) for simulations and for
//! stand-in agents that pass with a chosen probability, reproducible from a seed.

/// SplitMix64: one `u64` of state, every output from the seed alone.
#[derive(Debug, Clone)]
pub struct Seeded {
    state: u64,
}

impl Seeded {
    /// A generator starting from `seed`.
    pub fn new(seed: u64) -> Seeded {
        Seeded { state: seed }
    }

    /// A generator for the parts of a name (e.g. case, variant and sample), the same for the
    /// same parts (FNV-1a over them, a `0xff` byte between parts).
    pub fn for_parts(parts: &[&str]) -> Seeded {
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        for part in parts {
            for byte in part.bytes().chain([0xff]) {
                hash ^= u64::from(byte);
                hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
            }
        }
        Seeded::new(hash)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A uniform number in `[0, 1)` (53 random bits).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// `true` with probability `p`.
    pub fn bernoulli(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// Passes out of `n` sessions that each pass with probability `p`.
    pub fn binomial(&mut self, n: u32, p: f64) -> u32 {
        (0..n).map(|_| u32::from(self.bernoulli(p))).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_draws_and_rates_come_out_right() {
        let mut a = Seeded::new(1);
        let mut b = Seeded::new(1);
        assert_eq!(a.next_u64(), b.next_u64());
        let mut parts = Seeded::for_parts(&["case", "with", "3"]);
        let mut again = Seeded::for_parts(&["case", "with", "3"]);
        assert_eq!(parts.next_u64(), again.next_u64());
        assert_ne!(
            Seeded::for_parts(&["ab", "c"]).next_u64(),
            Seeded::for_parts(&["a", "bc"]).next_u64()
        );
        let passes = Seeded::new(5).binomial(100_000, 0.3);
        assert!((29_500..30_500).contains(&passes), "{passes}");
    }
}
