//! The state-only cones (terminal, legal; the gates of `next` that read no move, and those that
//! read moves at their base, every move false) evaluated by change propagation from the state
//! evaluated before.
//!
//! States evaluated one after the other mostly differ in a few fluents: the successors of one
//! state, the states of a layer sorted by their bits, a playout's consecutive states. A full
//! evaluation pays for every gate of the cones per state (chess_200's legal cone has 74,715
//! gates, quarto's terminal cone 276,326), while the gates whose value changes are a few
//! hundred. [`DeltaNet::load`] keeps, per gate, its number of true literals, and propagates the
//! fluents that changed: a signal that changes adjusts the count of each gate reading it, and a
//! gate whose count reached or left its threshold is re-decided from its count (an AND is true
//! when every literal is, an OR when one is), in circuit order, so a gate is decided after all
//! its inputs. A cyclic run one of whose gates is reached is re-iterated from false to its
//! least fixpoint, as a full evaluation does. When many fluents change, or when change propagation is
//! estimated (from the reader entries it visited per changed fluent so far) to cost more than
//! a full evaluation, the cones are evaluated in full, with the counts recomputed only where
//! the next states are expected to take change propagation again (and now and then, to
//! measure it again); the values are the same either way.

use crate::csr::{read, Csr};
use crate::dirty::Dirty;
use crate::program::Program;
use crate::State;

/// [`DeltaNet::threshold`] of a gate in a cyclic run (re-iterated when reached).
const CYCLIC: u32 = u32::MAX;

/// The state-only cones as a program with its readers (see the module documentation).
#[derive(Debug)]
pub(crate) struct DeltaNet {
    prog: Program,
    /// Per instruction: `(first, end)` of its cyclic run, or `(0, 0)`.
    cyclic: Vec<(u32, u32)>,
    /// Per signal: the instructions reading it, `j << 1 | negated` (one entry a literal).
    readers: Csr,
    /// Per instruction: the count of true literals at which its value changes (its number of
    /// literals for an AND, 0 for an OR: it is true from 1), or [`CYCLIC`] in a cyclic run.
    threshold: Vec<u32>,
    num_fluents: usize,
    /// Past this many changed fluents, a state is evaluated in full.
    max_changes: usize,
    /// The literals of the cones: what a full evaluation reads.
    wires: f64,
}

/// The per-clone state of a [`DeltaNet`]: the counts of the state evaluated last.
#[derive(Clone, Debug)]
pub(crate) struct DeltaWork {
    /// Per acyclic instruction: its true literals (valid when `loaded`).
    counts: Vec<u32>,
    /// The instructions whose count changed (or whose cyclic run was reached) and that are
    /// not decided yet.
    dirty: Dirty,
    /// The values of a cyclic run's gates before it is re-iterated.
    old: Vec<u8>,
    /// The state the values of the cones are those of.
    loaded: Option<State>,
    /// Whether `counts` are those of `loaded` (a full evaluation skips them where change
    /// propagation does not pay).
    counted: bool,
    /// The next load tries change propagation whatever the estimate (to measure it again).
    probe: bool,
    /// Reader entries visited by the current change propagation.
    visits: u64,
    /// Estimated reader entries visited per changed fluent (a moving average).
    per_change: f64,
    /// Estimated fluents changed per load (a moving average).
    changes: f64,
    /// Loads so far.
    loads: u64,
}

impl DeltaNet {
    /// The net of `prog`, a program over `num_signals` signals whose first `num_fluents + 1`
    /// are the constant and the fluents.
    pub(crate) fn new(prog: Program, num_signals: usize, num_fluents: usize) -> DeltaNet {
        let mut cyclic = vec![(0, 0); prog.instrs.len()];
        for &(a, b, cyc) in &prog.runs {
            if cyc {
                cyclic[a as usize..b as usize].fill((a, b));
            }
        }
        let mut pairs = Vec::new();
        for (j, i) in prog.instrs.iter().enumerate() {
            for &l in prog.inputs(i) {
                if l >> 1 != 0 {
                    pairs.push((l >> 1, (j as u32) << 1 | (l & 1)));
                }
            }
        }
        let prog_wires = pairs.len();
        let threshold = prog
            .instrs
            .iter()
            .zip(&cyclic)
            .map(|(i, c)| match (c.1 != 0, prog.is_and(i)) {
                (true, _) => CYCLIC,
                (false, true) => prog.inputs(i).len() as u32,
                (false, false) => 0,
            })
            .collect();
        DeltaNet {
            threshold,
            prog,
            cyclic,
            readers: Csr::new(num_signals, pairs),
            num_fluents,
            max_changes: (num_fluents / 8).max(8),
            wires: prog_wires as f64,
        }
    }

    /// Fresh work space for this net (nothing loaded).
    pub(crate) fn empty_work(&self) -> DeltaWork {
        let n = self.prog.instrs.len();
        DeltaWork {
            counts: vec![0; n],
            dirty: Dirty::new(n),
            old: Vec::new(),
            loaded: None,
            counted: false,
            probe: false,
            visits: 0,
            per_change: 0.0,
            changes: 0.0,
            loads: 0,
        }
    }

    /// Makes `vals` hold `s`'s fluents and the values of the cones in `s`: by change
    /// propagation from the state loaded before, or in full.
    pub(crate) fn load(&self, vals: &mut [u8], s: &State, w: &mut DeltaWork) {
        let changed = match &w.loaded {
            Some(old) if old == s => return,
            Some(old) => {
                let d: u32 = old
                    .0
                    .iter()
                    .zip(s.0.iter())
                    .map(|(a, b)| (a ^ b).count_ones())
                    .sum();
                d as usize
            }
            None => usize::MAX,
        };
        w.loads += 1;
        if changed != usize::MAX {
            w.changes = 0.9 * w.changes + 0.1 * changed as f64;
        }
        // Change propagation visits about `per_change` reader entries a changed fluent, each
        // a few times the cost of a literal read by a full evaluation (which, with the counts,
        // reads every literal twice).
        let cheap = |changes: f64| changes * w.per_change <= self.wires / 2.0;
        let delta = w.counted
            && changed <= self.max_changes
            && (std::mem::take(&mut w.probe) || cheap(changed as f64));
        if !delta {
            // Counted when the next states are expected to take change propagation, and now
            // and then to measure it again.
            let count = (w.changes <= self.max_changes as f64 && cheap(w.changes))
                || w.loads.is_multiple_of(16);
            self.full(vals, s, w, count);
            w.probe = count;
        } else {
            let old = w.loaded.take().expect("a loaded state");
            for (k, (&a, &b)) in old.0.iter().zip(s.0.iter()).enumerate() {
                let mut diff = a ^ b;
                while diff != 0 {
                    let f = k * 64 + diff.trailing_zeros() as usize;
                    diff &= diff - 1;
                    let v = (b >> (f % 64) & 1) as u8;
                    let sig = 1 + f as u32;
                    vals[sig as usize] = v;
                    self.propagate(sig, v, (0, 0), w);
                }
            }
            self.settle(vals, w);
            let visits = std::mem::take(&mut w.visits) as f64 / changed.max(1) as f64;
            w.per_change = 0.8 * w.per_change + 0.2 * visits;
            w.loaded = Some(old);
        }
        match &mut w.loaded {
            Some(l) => l.0.copy_from_slice(&s.0),
            None => w.loaded = Some(s.clone()),
        }
    }

    /// Loads `s` and evaluates the cones in full, recomputing every count if `count`.
    fn full(&self, vals: &mut [u8], s: &State, w: &mut DeltaWork, count: bool) {
        load_fluents(vals, s, self.num_fluents);
        self.prog.run(vals);
        w.counted = count;
        if !count {
            return;
        }
        for (j, i) in self.prog.instrs.iter().enumerate() {
            if self.cyclic[j].1 == 0 {
                let lits = self.prog.inputs(i);
                w.counts[j] = lits.iter().filter(|&&l| read(vals, l)).count() as u32;
            }
        }
    }

    /// Signal `s` now has value `v` (it had the other one): adjusts the counts of its readers
    /// and marks them, except those of the cyclic run `skip`.
    #[inline]
    fn propagate(&self, s: u32, v: u8, skip: (u32, u32), w: &mut DeltaWork) {
        let readers = self.readers.get(s);
        w.visits += readers.len() as u64;
        for &r in readers {
            let j = r >> 1;
            if skip.0 <= j && j < skip.1 {
                continue;
            }
            let j = j as usize;
            let at = self.threshold[j];
            if at == CYCLIC {
                w.dirty.mark(j);
                continue;
            }
            // the literal is true now iff `v ^ negated`
            let old = w.counts[j];
            let new = if (v ^ (r & 1) as u8) != 0 {
                old + 1
            } else {
                old - 1
            };
            w.counts[j] = new;
            // the value can change only if the count reaches or leaves the threshold
            if old == at || new == at {
                w.dirty.mark(j);
            }
        }
    }

    /// Decides the marked gates in circuit order, propagating the changes.
    fn settle(&self, vals: &mut [u8], w: &mut DeltaWork) {
        while let Some(j) = w.dirty.take() {
            let (a, b) = self.cyclic[j];
            let i = &self.prog.instrs[j];
            if b == 0 {
                let len = self.prog.inputs(i).len() as u32;
                let c = w.counts[j];
                let v = if self.prog.is_and(i) { c == len } else { c > 0 } as u8;
                if v != vals[i.out as usize] {
                    vals[i.out as usize] = v;
                    self.propagate(i.out, v, (0, 0), w);
                }
                continue;
            }
            // a cyclic run: re-iterate it from false
            let run = &self.prog.instrs[a as usize..b as usize];
            w.old.clear();
            w.old.extend(run.iter().map(|i| vals[i.out as usize]));
            for k in a as usize..b as usize {
                w.dirty.unmark(k);
            }
            self.prog.fixpoint((a, b), vals);
            // (at least one pass over the run's literals: counted as visits)
            w.visits += run
                .iter()
                .map(|i| self.prog.inputs(i).len() as u64)
                .sum::<u64>();
            for (k, i) in run.iter().enumerate() {
                let v = vals[i.out as usize];
                if v != w.old[k] {
                    self.propagate(i.out, v, (a, b), w);
                }
            }
        }
    }
}

#[cfg(test)]
impl DeltaNet {
    /// The number of cyclic runs in the cones.
    pub(crate) fn num_cyclic_runs(&self) -> usize {
        self.prog.runs.iter().filter(|r| r.2).count()
    }
}

/// Writes the constant and the fluents of `s` into `vals`.
pub(crate) fn load_fluents(vals: &mut [u8], s: &State, nf: usize) {
    vals[0] = 1;
    for (w, &bits) in s.0.iter().enumerate() {
        let lo = w * 64;
        let hi = (lo + 64).min(nf);
        for (k, v) in vals[1 + lo..1 + hi].iter_mut().enumerate() {
            *v = (bits >> k & 1) as u8;
        }
    }
}
