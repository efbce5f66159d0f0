//! Two leaves of the evaluators: [`Csr`], a compressed map from signals to lists, and [`read`],
//! a literal's value in a byte per signal.

/// A compressed map from signals to values: `vals[start[s]..start[s + 1]]` for signal `s`.
#[derive(Clone, Debug)]
pub(crate) struct Csr {
    start: Vec<u32>,
    vals: Vec<u32>,
}

impl Csr {
    /// From (signal, value) pairs, in the order of the values for each signal.
    pub(crate) fn new(num_signals: usize, mut pairs: Vec<(u32, u32)>) -> Csr {
        pairs.sort_unstable();
        Csr::from_sorted(num_signals, pairs)
    }

    /// From (signal, value) pairs sorted by signal, each signal's values in the order given.
    pub(crate) fn from_sorted(num_signals: usize, pairs: Vec<(u32, u32)>) -> Csr {
        debug_assert!(pairs.windows(2).all(|w| w[0].0 <= w[1].0));
        let mut start = vec![0; num_signals + 1];
        for &(s, _) in &pairs {
            start[s as usize + 1] += 1;
        }
        for s in 0..num_signals {
            start[s + 1] += start[s];
        }
        Csr {
            start,
            vals: pairs.into_iter().map(|p| p.1).collect(),
        }
    }

    #[inline]
    pub(crate) fn get(&self, s: u32) -> &[u32] {
        &self.vals[self.start[s as usize] as usize..self.start[s as usize + 1] as usize]
    }
}

/// The value of literal code `code` (signal `code >> 1`, negated if `code & 1`).
#[inline]
pub(crate) fn read(vals: &[u8], code: u32) -> bool {
    vals[(code >> 1) as usize] ^ (code & 1) as u8 != 0
}
