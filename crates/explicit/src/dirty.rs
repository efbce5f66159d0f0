//! [`Dirty`]: the instructions marked for re-deciding, taken back in circuit order.

/// A set of instruction indexes as one bit each, taken smallest first: a change propagates to
/// later instructions only (outside cyclic runs), so marks made while taking them back are
/// taken in the same sweep.
#[derive(Clone, Debug)]
pub(crate) struct Dirty {
    words: Vec<u64>,
    /// The first and last words that may have a bit set.
    lo: usize,
    hi: usize,
}

impl Dirty {
    /// An empty set over `n` instructions.
    pub(crate) fn new(n: usize) -> Dirty {
        Dirty {
            words: vec![0; n.div_ceil(64)],
            lo: usize::MAX,
            hi: 0,
        }
    }

    /// Marks `j`; whether it was not marked.
    #[inline]
    pub(crate) fn mark(&mut self, j: usize) -> bool {
        let (word, bit) = (j / 64, 1u64 << (j % 64));
        let new = self.words[word] & bit == 0;
        self.words[word] |= bit;
        self.lo = self.lo.min(word);
        self.hi = self.hi.max(word);
        new
    }

    /// Unmarks `j`.
    #[inline]
    pub(crate) fn unmark(&mut self, j: usize) {
        self.words[j / 64] &= !(1u64 << (j % 64));
    }

    /// Takes the smallest marked index; `None` (and the set is empty) when none is left.
    #[inline]
    pub(crate) fn take(&mut self) -> Option<usize> {
        while self.lo <= self.hi && self.lo < self.words.len() {
            let bits = self.words[self.lo];
            if bits == 0 {
                self.lo += 1;
                continue;
            }
            self.words[self.lo] &= bits - 1;
            return Some(self.lo * 64 + bits.trailing_zeros() as usize);
        }
        self.lo = usize::MAX;
        self.hi = 0;
        None
    }
}
