//! The `next` cone, evaluated incrementally per joint move.
//!
//! A gate of the `next` cone is move-dependent if it reads a move signal, directly or through
//! other gates (a whole cyclic block is if one of its gates reads a move-dependent signal); the
//! symbolic compiler (`symgame-symbolic`, `Compiler::set_joint_move`) classifies the same way.
//! Per loaded state, [`NextPlan::load_base`] evaluates the move-independent gates once, then the
//! move-dependent ones with every move signal false (the base), and the base next state. A joint
//! move then re-evaluates only the move-dependent gates reachable from the move signals it sets
//! (a list precomputed per move signal, whole cyclic blocks re-iterated from false), recomputes
//! only the next fluents whose `next` literal is one of those gates or a move signal it sets,
//! and restores the gates it touched to their base values. Every other gate reads only false
//! move signals, so its base value is its value under the joint move.

use crate::program::Program;
use crate::State;
use symgame_ground::{GroundGame, Lit};

/// The most entries (gates and fluents, over all move signals) the per-move lists may hold:
/// 2^25 entries of 4 bytes, 128 MB. A game whose lists would be larger falls back to evaluating
/// the whole move-dependent part of the `next` cone per joint move (still from the base of the
/// move-independent gates, evaluated once per state).
pub(crate) const LIST_BUDGET: usize = 1 << 25;

/// The per-state values the joint moves of a state start from.
#[derive(Clone, Debug)]
pub(crate) struct Base {
    /// Per instruction of [`NextPlan::dep`]: its value with every move signal false.
    dep_vals: Vec<u8>,
    /// The next state with every move signal false.
    next: State,
}

/// Per move (an index from the first move signal), as slices of two flat arrays.
#[derive(Debug)]
struct MoveLists {
    /// `items[item_start[m]..item_start[m + 1]]`: the move-dependent gates move `m` reaches, in
    /// evaluation order, as items: `j << 1` for the acyclic instruction `j` of
    /// [`NextPlan::dep`], `j << 1 | 1` for the cyclic run whose first instruction is `j`.
    item_start: Vec<usize>,
    items: Vec<u32>,
    /// `fluents[fluent_start[m]..fluent_start[m + 1]]`: the fluents whose `next` literal reads
    /// a gate move `m` reaches, or the move's signal itself.
    fluent_start: Vec<usize>,
    fluents: Vec<u32>,
}

impl MoveLists {
    fn items(&self, m: usize) -> &[u32] {
        &self.items[self.item_start[m]..self.item_start[m + 1]]
    }

    fn fluents(&self, m: usize) -> &[u32] {
        &self.fluents[self.fluent_start[m]..self.fluent_start[m + 1]]
    }
}

/// The compiled `next` cone, split into its move-independent and move-dependent parts.
#[derive(Debug)]
pub(crate) struct NextPlan {
    /// The move-independent gates of the `next` cone that are not in the terminal or legal
    /// cones (those must have been evaluated before [`Self::load_base`]).
    indep: Program,
    /// The move-dependent gates of the `next` cone.
    dep: Program,
    /// Per instruction of `dep`: the end of its cyclic run (unused for an acyclic one).
    run_end: Vec<u32>,
    /// Per fluent: the code of its `next` literal.
    next: Vec<u32>,
    /// The fluents whose `next` literal reads a move-dependent gate or a move signal.
    dep_fluents: Vec<u32>,
    /// The first move signal.
    first_move: u32,
    /// `None` when over the budget: each joint move evaluates the whole of `dep`.
    lists: Option<MoveLists>,
}

/// Per gate: whether it depends on a move signal (see the module documentation).
fn move_dependent(game: &GroundGame) -> Vec<bool> {
    let c = &game.circuit;
    let nf = game.fluents.len() as u32;
    let ni = c.num_inputs;
    let is_move = |s: u32| s > nf && s < ni;
    let mut dep = vec![false; c.gates.len()];
    for b in &c.blocks {
        let range = b.start as usize..b.end as usize;
        let reads_dep = |dep: &[bool], l: &Lit| {
            let s = l.signal();
            is_move(s) || (s >= ni && dep[(s - ni) as usize])
        };
        if b.cyclic {
            let d = range
                .clone()
                .any(|g| c.gates[g].inputs().iter().any(|l| reads_dep(&dep, l)));
            for g in range {
                dep[g] = d;
            }
        } else {
            for g in range {
                dep[g] = c.gates[g].inputs().iter().any(|l| reads_dep(&dep, l));
            }
        }
    }
    dep
}

/// A compressed map from signals to values: `vals[start[s]..start[s + 1]]` for signal `s`.
struct Csr {
    start: Vec<usize>,
    vals: Vec<u32>,
}

impl Csr {
    /// From (signal, value) pairs; duplicates are dropped.
    fn new(num_signals: usize, mut pairs: Vec<(u32, u32)>) -> Csr {
        pairs.sort_unstable();
        pairs.dedup();
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

    fn get(&self, s: u32) -> &[u32] {
        &self.vals[self.start[s as usize]..self.start[s as usize + 1]]
    }
}

impl NextPlan {
    /// The plan of `game`'s `next` cone; the per-move lists hold at most `budget` entries.
    pub(crate) fn new(game: &GroundGame, budget: usize) -> NextPlan {
        let c = &game.circuit;
        let dep = move_dependent(game);
        let next_cone = c.cone(&game.next);
        let mut state_roots: Vec<Lit> = game.legal.iter().flatten().copied().collect();
        state_roots.push(game.terminal);
        let state_cone = c.cone(&state_roots);
        let indep = Program::compile_gates(c, |g| next_cone[g] && !dep[g] && !state_cone[g]);
        let dep_prog = Program::compile_gates(c, |g| next_cone[g] && dep[g]);
        let mut run_end = vec![0; dep_prog.instrs.len()];
        for &(a, b, cyclic) in &dep_prog.runs {
            if cyclic {
                run_end[a as usize..b as usize].fill(b);
            }
        }
        let nf = game.fluents.len() as u32;
        let ni = c.num_inputs;
        let first_move = nf + 1;
        let is_dep_signal =
            |s: u32| (s >= first_move && s < ni) || (s >= ni && dep[(s - ni) as usize]);
        let next: Vec<u32> = game.next.iter().map(|l| l.code()).collect();
        let dep_fluents = (0..nf)
            .filter(|&f| is_dep_signal(next[f as usize] >> 1))
            .collect();
        let mut plan = NextPlan {
            indep,
            dep: dep_prog,
            run_end,
            next,
            dep_fluents,
            first_move,
            lists: None,
        };
        plan.lists = plan.build_lists(c.num_signals(), game.num_moves(), budget);
        plan
    }

    /// The instructions of `dep` an item stands for.
    fn item_range(&self, item: u32) -> std::ops::Range<usize> {
        let j = (item >> 1) as usize;
        if item & 1 == 0 {
            j..j + 1
        } else {
            j..self.run_end[j] as usize
        }
    }

    /// The per-move lists, or `None` if they would hold more than `budget` entries.
    fn build_lists(
        &self,
        num_signals: usize,
        num_moves: usize,
        budget: usize,
    ) -> Option<MoveLists> {
        let mut first_of = vec![0u32; self.dep.instrs.len()];
        for &(a, b, cyclic) in &self.dep.runs {
            for (j, f) in first_of
                .iter_mut()
                .enumerate()
                .take(b as usize)
                .skip(a as usize)
            {
                *f = if cyclic { a << 1 | 1 } else { (j as u32) << 1 };
            }
        }
        let mut pairs = Vec::new();
        for (j, i) in self.dep.instrs.iter().enumerate() {
            pairs.extend(self.dep.inputs(i).iter().map(|&l| (l >> 1, first_of[j])));
        }
        let readers = Csr::new(num_signals, pairs);
        let fluent_pairs = self
            .dep_fluents
            .iter()
            .map(|&f| (self.next[f as usize] >> 1, f))
            .collect();
        let fluents_of = Csr::new(num_signals, fluent_pairs);
        let mut lists = MoveLists {
            item_start: vec![0],
            items: Vec::new(),
            fluent_start: vec![0],
            fluents: Vec::new(),
        };
        let mut mark = vec![u32::MAX; self.dep.instrs.len()];
        let mut stack = Vec::new();
        for m in 0..num_moves {
            let sig = self.first_move + m as u32;
            let first_item = lists.items.len();
            lists.fluents.extend_from_slice(fluents_of.get(sig));
            stack.extend_from_slice(readers.get(sig));
            while let Some(item) = stack.pop() {
                let j = (item >> 1) as usize;
                if mark[j] == m as u32 {
                    continue;
                }
                mark[j] = m as u32;
                lists.items.push(item);
                for k in self.item_range(item) {
                    let out = self.dep.instrs[k].out;
                    stack.extend_from_slice(readers.get(out));
                    lists.fluents.extend_from_slice(fluents_of.get(out));
                }
                if lists.items.len() + lists.fluents.len() > budget {
                    return None;
                }
            }
            lists.items[first_item..].sort_unstable();
            lists.item_start.push(lists.items.len());
            lists.fluent_start.push(lists.fluents.len());
        }
        Some(lists)
    }

    /// An empty base for this plan over `num_fluents` fluents.
    pub(crate) fn empty_base(&self, num_fluents: usize) -> Base {
        Base {
            dep_vals: vec![0; self.dep.instrs.len()],
            next: State::empty(num_fluents),
        }
    }

    /// Evaluates the `next` cone of the state loaded in `vals` with every move signal false
    /// (they must be), the terminal and legal parts already evaluated, and records the base.
    pub(crate) fn load_base(&self, vals: &mut [u8], base: &mut Base) {
        self.indep.run(vals);
        self.dep.run(vals);
        for (v, i) in base.dep_vals.iter_mut().zip(&self.dep.instrs) {
            *v = vals[i.out as usize];
        }
        base.next.0.fill(0);
        for (f, &l) in self.next.iter().enumerate() {
            if read(vals, l) {
                base.next.insert(f);
            }
        }
    }

    /// Writes into `out` the state after the joint move whose moves (indexes from the first
    /// move signal) are `moves`, from the base of the loaded state; leaves `vals` at the base.
    /// `merged` is scratch space.
    pub(crate) fn next_into(
        &self,
        vals: &mut [u8],
        base: &Base,
        moves: &[u32],
        merged: &mut Vec<u32>,
        out: &mut State,
    ) {
        for &m in moves {
            vals[(self.first_move + m) as usize] = 1;
        }
        out.0.copy_from_slice(&base.next.0);
        match &self.lists {
            None => {
                self.dep.run(vals);
                self.update_fluents(vals, &self.dep_fluents, out);
            }
            Some(lists) => {
                let items: &[u32] = match moves {
                    [m] => lists.items(*m as usize),
                    _ => {
                        merged.clear();
                        for &m in moves {
                            merged.extend_from_slice(lists.items(m as usize));
                        }
                        merged.sort_unstable();
                        merged.dedup();
                        merged
                    }
                };
                self.eval_items(items, vals);
                for &m in moves {
                    self.update_fluents(vals, lists.fluents(m as usize), out);
                }
                self.restore_items(items, base, vals);
            }
        }
        for &m in moves {
            vals[(self.first_move + m) as usize] = 0;
        }
    }

    /// Whether the per-move lists were built (within the budget).
    #[cfg(test)]
    pub(crate) fn has_lists(&self) -> bool {
        self.lists.is_some()
    }

    /// The number of cyclic runs among the move-dependent gates.
    #[cfg(test)]
    pub(crate) fn num_cyclic_runs(&self) -> usize {
        self.dep.runs.iter().filter(|r| r.2).count()
    }

    fn update_fluents(&self, vals: &[u8], fluents: &[u32], out: &mut State) {
        for &f in fluents {
            let f = f as usize;
            if read(vals, self.next[f]) {
                out.insert(f);
            } else {
                out.remove(f);
            }
        }
    }

    fn eval_items(&self, items: &[u32], vals: &mut [u8]) {
        for &item in items {
            let j = (item >> 1) as usize;
            if item & 1 == 0 {
                let i = &self.dep.instrs[j];
                vals[i.out as usize] = self.dep.gate(i, vals);
            } else {
                let end = self.run_end[j] as usize;
                self.dep.fixpoint(&self.dep.instrs[j..end], vals);
            }
        }
    }

    fn restore_items(&self, items: &[u32], base: &Base, vals: &mut [u8]) {
        for &item in items {
            for k in self.item_range(item) {
                vals[self.dep.instrs[k].out as usize] = base.dep_vals[k];
            }
        }
    }
}

#[inline]
pub(crate) fn read(vals: &[u8], code: u32) -> bool {
    vals[(code >> 1) as usize] ^ (code & 1) as u8 != 0
}
