//! Readers indexed by guard: the guard of a move-dependent gate is a fluent without which no
//! joint move changes it (an AND reading it, an OR reading its negation); a signal with many
//! guarded readers has them sorted by guard, so that change propagation visits only those whose
//! guard is true in the state (see [`NextPlan::live_readers`]).

use super::{Counted, NextPlan};
use crate::csr::Csr;

/// A signal with at least this many readers, at least half of them guarded, has them indexed by
/// guard: change propagation then visits, of its guarded readers, only those whose guard is
/// true in the state. In a frame or counter rule ground over all values of a fluent (a bid
/// read with each score in gt_attrition, a pit's count with each other pit's in kalaha), most
/// conjunctions reading a move read a fluent that is false.
pub(super) const INDEXED_READERS: usize = 16;

/// The readers of each signal from `(signal, reader entry)` pairs, those without a guard first,
/// then by guard (see [`Counted::guard`]), their index by guard (see [`NextPlan::groups`]) and
/// a bit per signal with one (see [`NextPlan::indexed`]).
pub(super) fn reader_index(
    num_signals: usize,
    mut pairs: Vec<(u32, u32)>,
    counted: &[Counted],
) -> (Csr, Csr, Vec<u64>) {
    let guard = |r: u32| counted[(r >> 1) as usize].guard;
    pairs.sort_unstable_by_key(|&(s, r)| (s, guard(r), r));
    let mut groups = Vec::new();
    let mut indexed = vec![0u64; num_signals.div_ceil(64)];
    let mut k = 0;
    while k < pairs.len() {
        let s = pairs[k].0;
        let end = k + pairs[k..].partition_point(|p| p.0 == s);
        let list = &pairs[k..end];
        let head = list.partition_point(|&(_, r)| guard(r) == 0);
        if list.len() >= INDEXED_READERS && 2 * (list.len() - head) >= list.len() {
            groups.push((s, head as u32));
            indexed[s as usize / 64] |= 1 << (s % 64);
            let mut i = head;
            while i < list.len() {
                let g = guard(list[i].1);
                i += list[i..].partition_point(|&(_, r)| guard(r) == g);
                groups.extend([(s, g), (s, i as u32)]);
            }
        }
        k = end;
    }
    (
        Csr::from_sorted(num_signals, pairs),
        Csr::from_sorted(num_signals, groups),
        indexed,
    )
}

/// How [`NextPlan::live_readers`] goes through a signal's `readers` indexed by `guards` guards
/// in a state with `live` true fluents: `None`, all readers (scanning the guards costs a read
/// per guard, looking the true fluents up about log2 of the guards each, both far less than a
/// visit, but here either costs more reads than there are readers); `Some(true)`, the guards
/// scanned; `Some(false)`, the true fluents looked up.
fn way(readers: usize, guards: usize, live: usize) -> Option<bool> {
    let search = live * (usize::BITS - guards.leading_zeros()) as usize;
    (guards.min(search) <= readers).then_some(guards <= search)
}

impl NextPlan {
    /// Whether signal `s`'s readers are indexed by guard.
    #[inline]
    pub(super) fn is_indexed(&self, s: u32) -> bool {
        self.indexed[s as usize / 64] >> (s % 64) & 1 != 0
    }

    /// Calls `f` with the runs of the readers of `s`, an indexed signal, that a joint move may
    /// change in the loaded state (`vals`, whose true fluents are `live`): those without a
    /// guard and those whose guard is true, or all of them where the index does not pay
    /// ([`way`]).
    #[inline]
    pub(super) fn live_readers(
        &self,
        s: u32,
        vals: &[u8],
        live: &[u32],
        mut f: impl FnMut(&[u32]),
    ) {
        let readers = self.readers.get(s);
        let Some((&head, groups)) = self.groups.get(s).split_first() else {
            f(readers);
            return;
        };
        let n = groups.len() / 2;
        let Some(scan) = way(readers.len(), n, live.len()) else {
            // those whose guard is false are skipped by the visit
            f(readers);
            return;
        };
        f(&readers[..head as usize]);
        let run = |k: usize| {
            let start = if k == 0 { head } else { groups[2 * k - 1] };
            &readers[start as usize..groups[2 * k + 1] as usize]
        };
        if scan {
            for k in 0..n {
                if vals[groups[2 * k] as usize] != 0 {
                    f(run(k));
                }
            }
        } else {
            for &g in live {
                let (mut lo, mut hi) = (0, n);
                while lo < hi {
                    let mid = (lo + hi) / 2;
                    if groups[2 * mid] < g {
                        lo = mid + 1;
                    } else {
                        hi = mid;
                    }
                }
                if lo < n && groups[2 * lo] == g {
                    f(run(lo));
                }
            }
        }
    }

    /// For each signal with indexed readers: checks that [`Self::live_readers`] in `vals` gives
    /// exactly the readers without a guard or with a true guard, each once (or all of them,
    /// where the index does not pay); returns the signals where the index was used and the way
    /// (0: the guards looked up, 1: scanned).
    #[cfg(test)]
    pub(crate) fn check_live_readers(&self, vals: &[u8]) -> Vec<(u32, usize)> {
        let live: Vec<u32> = (1..self.first_move)
            .filter(|&s| vals[s as usize] != 0)
            .collect();
        let mut out = Vec::new();
        for s in 0..self.dep_of.len() as u32 {
            let groups = self.groups.get(s);
            if groups.is_empty() {
                continue;
            }
            let mut got = Vec::new();
            self.live_readers(s, vals, &live, |rs| got.extend_from_slice(rs));
            got.sort_unstable();
            let way = way(self.readers.get(s).len(), groups.len() / 2, live.len());
            // where the index would cost more than it saves, every reader
            let all = way.is_none();
            let mut want: Vec<u32> = (self.readers.get(s).iter().copied())
                .filter(|&r| all || vals[self.counted[(r >> 1) as usize].guard as usize] != 0)
                .collect();
            want.sort_unstable();
            assert_eq!(got, want, "signal {s}");
            if let Some(scan) = way {
                out.push((s, usize::from(scan)));
            }
        }
        out
    }
}
