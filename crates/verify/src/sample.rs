//! A seeded uniform sample of ranks: reproducible, so a reported disagreement can be found
//! again with the same seed.

use num_bigint::BigUint;

/// SplitMix64: a small seeded generator; the sample only needs to be reproducible.
pub(crate) struct SplitMix(u64);

impl SplitMix {
    /// A generator from `seed`.
    pub(crate) fn new(seed: u64) -> Self {
        SplitMix(seed)
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0), by rejection over the bits of `n`.
    pub(crate) fn below(&mut self, n: &BigUint) -> BigUint {
        let bits = n.bits();
        loop {
            let words = bits.div_ceil(64) as usize;
            let mut digits: Vec<u64> = (0..words).map(|_| self.next()).collect();
            let extra = words as u64 * 64 - bits;
            if let Some(top) = digits.last_mut() {
                *top >>= extra;
            }
            let x = BigUint::from_slice(
                &digits
                    .iter()
                    .flat_map(|d| [*d as u32, (*d >> 32) as u32])
                    .collect::<Vec<_>>(),
            );
            if &x < n {
                return x;
            }
        }
    }
}

/// `count` ranks drawn uniformly, with replacement, from `0..n` (n > 0) with `seed`.
pub(crate) fn ranks(n: &BigUint, count: usize, seed: u64) -> Vec<BigUint> {
    let mut rng = SplitMix::new(seed);
    (0..count).map(|_| rng.below(n)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_draws_the_same_ranks() {
        let n = BigUint::from(161_029u32);
        assert_eq!(ranks(&n, 50, 7), ranks(&n, 50, 7));
        assert_ne!(ranks(&n, 50, 7), ranks(&n, 50, 8));
    }

    #[test]
    fn ranks_stay_below_n_even_beyond_64_bits() {
        for n in [
            BigUint::from(1u32),
            BigUint::from(3u32),
            BigUint::from(u64::MAX),
            BigUint::from(u64::MAX) * 5u32 + 1u32,
        ] {
            assert!(ranks(&n, 200, 1).iter().all(|r| r < &n), "{n}");
        }
        assert!(ranks(&BigUint::from(1u32), 10, 3)
            .iter()
            .all(|r| *r == BigUint::default()));
    }

    #[test]
    fn every_rank_of_a_small_range_is_drawn_about_equally_often() {
        let n = BigUint::from(10u32);
        let mut counts = [0u32; 10];
        for r in ranks(&n, 10_000, 1) {
            counts[usize::try_from(r.to_u32_digits().first().copied().unwrap_or(0)).unwrap()] += 1;
        }
        // Expected 1,000 each; 4 standard deviations are about 120.
        assert!(
            counts.iter().all(|&c| (880..=1120).contains(&c)),
            "{counts:?}"
        );
    }
}
