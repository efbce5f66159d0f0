//! The `next` cone, evaluated incrementally per joint move.
//!
//! A gate of the `next` cone is move-dependent if it reads a move signal, directly or through
//! other gates (a whole cyclic block is if one of its gates reads a move-dependent signal); the
//! symbolic compiler (`symgame-symbolic`, `Compiler::set_joint_move`) classifies the same way.
//!
//! The base of a state is the value of every gate with every move signal false. A
//! move-dependent gate whose base value does not depend on the state (a conjunction with a
//! move) is a constant; the others ([`NextPlan::base_gates`]) are evaluated per state with the
//! move-independent gates ([`NextPlan::indep_gates`]) and the state-only cones, by change
//! propagation from the state loaded before ([`crate::delta::DeltaNet`]).
//! [`NextPlan::load_base`] then records the base next state; the true literals of a
//! move-dependent gate at the base are counted when a joint move first reaches it.
//!
//! A joint move then propagates changes from the move signals it sets, as in a propositional
//! network: a signal that changes adjusts the true-literal count of each gate reading it, and a
//! gate whose count reached or left its threshold is re-decided from its count (an AND is true
//! when every literal is, an OR when one is), in circuit order, so a gate is decided after all
//! its inputs. A cyclic block one of whose gates is reached is re-iterated from false to its
//! least fixpoint. Only the next fluents whose `next` literal reads a changed signal are
//! recomputed from the base next state; then the counts of the readers of the changed signals
//! and the changed values are restored to the base. Every gate no change reaches has its base
//! value under the joint move.
//!
//! The cost of a joint move is the fan-out of the signals it changes, not the size of the gates
//! it reaches: in games whose frame rules read every move (`(does ?p (move ?x1 ?y1 ?x2 ?y2))`
//! with the cell distinct from both ends), every move reaches a disjunction over all moves per
//! cell, which a re-evaluation would scan. The tables are linear in the circuit's wires (the
//! readers of each signal), so no memory bound or fallback is needed, unlike lists of the gates
//! reachable from each move (quadratic in the worst case).

mod guard;
mod specialize;

use crate::csr::{read, Csr};
use crate::dirty::Dirty;
use crate::program::Program;
use crate::State;
use guard::reader_index;
use specialize::Specialized;
pub(crate) use specialize::BUDGET;
use symgame_ground::GroundGame;

/// A move-dependent gate as a count of true literals: its literals whose value with every move
/// false depends on the state (`lits[start..start + n]`), the number of its other literals
/// (constants, moves, gates constant at the base such as a move's conjunction with a fluent)
/// true when every move is false (`offset`), and its number of literals (`len`).
#[derive(Clone, Copy, Debug)]
struct Counted {
    start: u32,
    n: u32,
    offset: u32,
    len: u32,
    and: bool,
    /// Whether the gate is in a cyclic run (kept here rather than read from
    /// [`NextPlan::cyclic`]: change propagation checks it for every reader it visits).
    cyclic: bool,
    /// Its guard: a fluent (its signal) without which no joint move changes the gate (an AND
    /// reading it, an OR reading its negation), or 0 (signal 0 is constant true).
    guard: u32,
}

impl Counted {
    #[inline]
    fn value(&self, count: u32) -> u8 {
        if self.and {
            (count == self.len) as u8
        } else {
            (count > 0) as u8
        }
    }
}

/// The per-state values the joint moves of a state start from (the values of the gates at the
/// base are in the reasoner's values, kept there by its [`crate::delta::DeltaNet`]).
#[derive(Clone, Debug)]
pub(crate) struct Base {
    /// Per acyclic instruction of [`NextPlan::dep`]: its counts, in one record so that a
    /// reader visited costs one cache line (kalaha_2009's sowing moves visit thousands).
    gates: Vec<GateCount>,
    /// The state's stamp (one more per loaded state).
    stamp: u32,
    /// The next state with every move signal false.
    next: State,
    /// The fluents true in the state (their signals, ascending): the guards whose readers
    /// change propagation visits ([`NextPlan::live_readers`]).
    live: Vec<u32>,
}

/// The counts of one acyclic gate of [`NextPlan::dep`].
#[derive(Clone, Copy, Debug, Default)]
struct GateCount {
    /// The state's stamp where `base` is valid.
    stamp: u32,
    /// Its true literals with every move false (computed when a joint move first reaches the
    /// gate).
    base: u32,
    /// Its true literals under the current joint move (`base` where the move did not reach
    /// it).
    now: u32,
}

/// Scratch space of one joint move.
#[derive(Clone, Debug)]
pub(crate) struct Work {
    /// The instructions of [`NextPlan::dep`] whose count crossed its threshold (or whose
    /// cyclic run was reached) and that are not decided.
    dirty: Dirty,
    /// The instructions whose value changed (to restore, and to update the next fluents).
    changed: Vec<u32>,
    /// The values of a cyclic run's gates before it is re-iterated, or of a specialization's
    /// residual gates before it is applied (to restore).
    pub(crate) old: Vec<u8>,
    /// Reader entries visited by the current change propagation.
    visits: u64,
    /// Per specialized move: what its change propagation cost (see [`Choice`]).
    choices: Vec<Choice>,
    /// Whether every joint move with a specialized move takes the specialization (tests).
    pub(crate) always_specialized: bool,
}

/// Per move with a specialization: which way its joint moves are taken. A specialization's
/// residual program costs the same in every state, the gates the move reaches whatever
/// changes; change propagation costs the reader entries the changes visit. Where a move reaches
/// much of the circuit but changes little (wargame02's steps reach the 37,500 conjunctions of
/// the terrorists' squares with the soldier's intended one; the two that change are read by a
/// few hundred), propagation is the cheaper; where the residual folds to a few gates, the
/// specialization (skirmish: 13 times faster). So the first joint moves of each move, and one
/// in [`REPROBE`] after (one in [`REPROBE_FAR`] where propagation cost more than [`FAR`] times
/// the specialization), are taken by propagation and measured.
#[derive(Clone, Copy, Debug, Default)]
struct Choice {
    /// Reader entries visited per propagation (a moving average).
    visits: f32,
    /// Joint moves taken with this move so far.
    uses: u32,
}

/// How many joint moves of a move are taken by change propagation before the two ways are
/// compared.
const PROBES: u32 = 2;

/// Every this many joint moves of a specialized move, one is taken by change propagation to
/// measure it again.
const REPROBE: u32 = 64;

/// The same where propagation was measured at more than [`FAR`] times the specialization's
/// cost (breakthroughSmall: one joint move in 64 by propagation, ten times slower there, cost
/// its search 15%).
const REPROBE_FAR: u32 = 4096;

/// See [`REPROBE_FAR`].
const FAR: f32 = 4.0;

/// The cost of a reader entry visited by change propagation (count update, mark, decision,
/// restore) in literals read by a residual program.
const VISIT_COST: f32 = 4.0;

/// The compiled `next` cone, split into its move-independent and move-dependent parts.
#[derive(Debug)]
pub(crate) struct NextPlan {
    /// The move-dependent gates of the `next` cone (cyclic runs are evaluated from it).
    dep: Program,
    /// Per instruction of `dep`: the gate as a count (meaningless for cyclic runs' gates).
    counted: Vec<Counted>,
    /// The literals of `counted`.
    lits: Vec<u32>,
    /// Per instruction of `dep`: `(first, end)` of its cyclic run, or `(0, 0)`.
    cyclic: Vec<(u32, u32)>,
    /// Per signal: the readers among the instructions of `dep`, `j << 1 | negated` (one entry
    /// per literal of a gate, after merging duplicate literals), those without a guard first,
    /// then by guard (see [`Counted::guard`]).
    readers: Csr,
    /// Per signal whose readers are indexed by guard ([`guard::INDEXED_READERS`]): the number of its
    /// readers without a guard, then per guard its fluent's signal and the end of its readers
    /// (ascending by guard); empty for the others.
    groups: Csr,
    /// Whether some signal's readers are indexed by guard (then each state's true fluents are
    /// listed in [`Base::live`]).
    any_indexed: bool,
    /// A bit per signal: whether its readers are indexed by guard (a bit rather than
    /// `groups`' bounds, read for every signal a joint move changes: a cache line holds 512).
    indexed: Vec<u64>,
    /// Per signal: the fluents whose `next` literal reads it (move signals and signals of
    /// `dep` only).
    fluents_of: Csr,
    /// Per fluent: the code of its `next` literal.
    next: Vec<u32>,
    /// The first move signal, and one past the last.
    first_move: u32,
    end_move: u32,
    /// Per signal: the instruction of `dep` that writes it, or `u32::MAX`.
    dep_of: Vec<u32>,
    /// Per instruction of `dep`: its value with every move false when that value does not
    /// depend on the state (e.g. a disjunction of moves), else `None`: those gates are
    /// evaluated per state with the state-only cones ([`Self::base_gates`]).
    base_const: Vec<Option<bool>>,
    /// Per move (from the first move signal): whether some gate of `dep` reads it or it is
    /// some fluent's `next` literal.
    effect: Vec<bool>,
    /// The specializations to single moves.
    spec: Specialized,
}

/// Per instruction of `dep`: its value with every move signal (in `moves`) false if that does
/// not depend on the state (a cyclic run's gates are taken to depend on it).
fn base_constants(dep: &Program, dep_of: &[u32], moves: std::ops::Range<u32>) -> Vec<Option<bool>> {
    let mut base_const = vec![None; dep.instrs.len()];
    for &(a, b, cyclic) in &dep.runs {
        if cyclic {
            continue;
        }
        for j in a as usize..b as usize {
            let i = &dep.instrs[j];
            let and = dep.is_and(i);
            let (mut decided, mut unknown) = (false, false);
            for &l in dep.inputs(i) {
                let (s, neg) = (l >> 1, l & 1 == 1);
                let v = if s == 0 {
                    Some(!neg)
                } else if moves.contains(&s) {
                    Some(neg)
                } else {
                    match dep_of[s as usize] {
                        u32::MAX => None,
                        k => base_const[k as usize].map(|b: bool| b != neg),
                    }
                };
                match v {
                    Some(x) if x != and => decided = true,
                    Some(_) => {}
                    None => unknown = true,
                }
            }
            base_const[j] = match (decided, unknown) {
                (true, _) => Some(!and),
                (false, false) => Some(and),
                (false, true) => None,
            };
        }
    }
    base_const
}

impl NextPlan {
    /// The plan of `game`'s `next` cone, its specializations to single moves within `budget`
    /// entries (see [`specialize::BUDGET`]).
    pub(crate) fn new(game: &GroundGame, budget: usize) -> NextPlan {
        let c = &game.circuit;
        let dep = game.move_dependent_gates();
        let next_cone = c.cone(&game.next);
        let dep = Program::compile_gates(c, |g| next_cone[g] && dep[g]);
        let first_move = game.fluents.len() as u32 + 1;
        let end_move = c.num_inputs;
        let mut cyclic = vec![(0, 0); dep.instrs.len()];
        for &(a, b, cyc) in &dep.runs {
            if cyc {
                cyclic[a as usize..b as usize].fill((a, b));
            }
        }
        let num_signals = c.num_signals();
        let mut dep_of = vec![u32::MAX; num_signals];
        for (j, i) in dep.instrs.iter().enumerate() {
            dep_of[i.out as usize] = j as u32;
        }
        let base_const = base_constants(&dep, &dep_of, first_move..end_move);
        let mut counted = Vec::with_capacity(dep.instrs.len());
        let mut lits = Vec::new();
        let mut pairs = Vec::new();
        let mut own: Vec<u32> = Vec::new();
        for (j, i) in dep.instrs.iter().enumerate() {
            own.clear();
            own.extend_from_slice(dep.inputs(i));
            own.sort_unstable();
            own.dedup();
            let start = lits.len() as u32;
            let mut offset = 0;
            for &l in &own {
                let s = l >> 1;
                let constant = match dep_of[s as usize] {
                    u32::MAX => None,
                    k => base_const[k as usize],
                };
                if s == 0 || (first_move..end_move).contains(&s) {
                    // constant true (code 0), or a move literal true when negated
                    offset += (l == 0 || (s != 0 && l & 1 == 1)) as u32;
                } else if let Some(v) = constant {
                    // a gate whose base value does not depend on the state (a conjunction
                    // with a move): counted once here, not per state in `base_count`
                    offset += (v != (l & 1 == 1)) as u32;
                } else {
                    lits.push(l);
                }
                if s >= first_move {
                    pairs.push((s, (j as u32) << 1 | (l & 1)));
                }
            }
            let and = dep.is_and(i);
            // A fluent false in a state keeps an AND that reads it false, and one true keeps
            // an OR that reads its negation true, under every joint move.
            let guard = own
                .iter()
                .find(|&&l| {
                    let s = l >> 1;
                    (1..first_move).contains(&s) && (l & 1 == 1) != and
                })
                .filter(|_| cyclic[j].1 == 0)
                .map_or(0, |&l| l >> 1);
            counted.push(Counted {
                start,
                n: lits.len() as u32 - start,
                offset,
                len: own.len() as u32,
                and,
                cyclic: cyclic[j].1 != 0,
                guard,
            });
        }
        let next: Vec<u32> = game.next.iter().map(|l| l.code()).collect();
        let fluent_pairs = next
            .iter()
            .enumerate()
            .map(|(f, &l)| (l >> 1, f as u32))
            .filter(|&(s, _)| (first_move..end_move).contains(&s) || dep_of[s as usize] != u32::MAX)
            .collect();
        let (readers, groups, indexed) = reader_index(num_signals, pairs, &counted);
        // Only a gate some indexed signal may skip needs its guard checked on every other way
        // to it (so that it is never counted from a base that misses a change); the others
        // drop theirs, and their visits skip the check.
        let mut kept = vec![false; counted.len()];
        for s in 0..num_signals as u32 {
            if indexed[s as usize / 64] >> (s % 64) & 1 != 0 {
                for &r in readers.get(s) {
                    kept[(r >> 1) as usize] = true;
                }
            }
        }
        for (c, kept) in counted.iter_mut().zip(kept) {
            if !kept {
                c.guard = 0;
            }
        }
        let fluents_of = Csr::new(num_signals, fluent_pairs);
        let effect = (first_move..end_move)
            .map(|s| !readers.get(s).is_empty() || !fluents_of.get(s).is_empty())
            .collect();
        let mut plan = NextPlan {
            counted,
            lits,
            cyclic,
            readers,
            any_indexed: indexed.iter().any(|&w| w != 0),
            indexed,
            groups,
            fluents_of,
            dep,
            next,
            first_move,
            end_move,
            dep_of,
            base_const,
            effect,
            spec: Specialized::default(),
        };
        plan.spec = Specialized::build(&plan, game.fluents.len(), game.num_moves(), budget);
        plan
    }

    /// The instruction of `dep` that writes signal `s`, if any.
    fn dep_of_signal(&self, s: u32) -> Option<usize> {
        match self.dep_of[s as usize] {
            u32::MAX => None,
            j => Some(j as usize),
        }
    }

    /// An empty base for this plan over `num_fluents` fluents, with the gates constant at the
    /// base set there and in `vals` (no evaluation writes them but to restore them).
    pub(crate) fn empty_base(&self, num_fluents: usize, vals: &mut [u8]) -> Base {
        let base = Base {
            gates: vec![GateCount::default(); self.dep.instrs.len()],
            stamp: 1,
            next: State::empty(num_fluents),
            live: Vec::new(),
        };
        for (j, c) in self.base_const.iter().enumerate() {
            if let Some(v) = c {
                vals[self.dep.instrs[j].out as usize] = *v as u8;
            }
        }
        base
    }

    /// Empty scratch space for this plan's joint moves.
    pub(crate) fn empty_work(&self) -> Work {
        Work {
            dirty: Dirty::new(self.dep.instrs.len()),
            changed: Vec::new(),
            old: Vec::new(),
            visits: 0,
            choices: vec![Choice::default(); self.effect.len()],
            always_specialized: false,
        }
    }

    /// The gates of `game`'s `next` cone that read no move, directly or not: they are evaluated
    /// per state with the state-only cones.
    pub(crate) fn indep_gates(game: &GroundGame) -> Vec<bool> {
        let dep = game.move_dependent_gates();
        let mut gates = game.circuit.cone(&game.next);
        for (g, d) in gates.iter_mut().zip(dep) {
            *g &= !d;
        }
        gates
    }

    /// Per gate of `circuit`: whether it is a move-dependent gate of the `next` cone whose
    /// value with every move signal false depends on the state. These are evaluated per state
    /// with the state-only cones, by change propagation from the state before (a monolithic
    /// evaluation per state cost wargame02 its 43,490 such gates, most of them the conjunctions
    /// of a terrorist's square with the soldier's intended one).
    pub(crate) fn base_gates(&self, circuit: &symgame_ground::Circuit) -> Vec<bool> {
        let mut gates = vec![false; circuit.gates.len()];
        for (j, i) in self.dep.instrs.iter().enumerate() {
            if self.base_const[j].is_none() {
                gates[(i.out - circuit.num_inputs) as usize] = true;
            }
        }
        gates
    }

    /// Records the base of the state loaded in `vals`, whose gates of [`Self::base_gates`]
    /// are evaluated (with every move signal false, as they must be): its next state.
    pub(crate) fn load_base(&self, vals: &[u8], base: &mut Base) {
        base.stamp = base.stamp.wrapping_add(1);
        if base.stamp == 0 {
            base.gates.iter_mut().for_each(|g| g.stamp = 0);
            base.stamp = 1;
        }
        base.next.0.fill(0);
        for (f, &l) in self.next.iter().enumerate() {
            if read(vals, l) {
                base.next.insert(f);
            }
        }
        base.live.clear();
        if self.any_indexed {
            base.live
                .extend((1..self.first_move).filter(|&s| vals[s as usize] != 0));
        }
    }

    /// Writes into `out` the state after the joint move whose moves (indexes from the first
    /// move signal) are `moves` in `s`, whose base is loaded; leaves `vals` and `work` at the
    /// base.
    pub(crate) fn next_into(
        &self,
        s: &State,
        vals: &mut [u8],
        base: &mut Base,
        work: &mut Work,
        moves: &[u32],
        out: &mut State,
    ) {
        let mut effective = moves.iter().filter(|&&m| self.effect[m as usize]);
        match (effective.next(), effective.next()) {
            (None, _) => out.0.copy_from_slice(&base.next.0),
            (Some(&m), None) if self.spec.has(m) => {
                let c = work.choices[m as usize];
                let (prop, spec) = (c.visits * VISIT_COST, self.spec.cost(m));
                let every = if prop > FAR * spec {
                    REPROBE_FAR
                } else {
                    REPROBE
                };
                let probe = c.uses < PROBES || c.uses.is_multiple_of(every);
                work.choices[m as usize].uses = c.uses.wrapping_add(1);
                if work.always_specialized || (!probe && prop >= spec) {
                    self.spec.apply(m, s, vals, base, work, out);
                    return;
                }
                work.visits = 0;
                self.propagate_move(vals, base, work, moves, out);
                let v = work.visits as f32;
                let c = &mut work.choices[m as usize];
                c.visits = if c.uses == 1 {
                    v
                } else {
                    0.75 * c.visits + 0.25 * v
                };
            }
            _ => self.propagate_move(vals, base, work, moves, out),
        }
    }

    /// [`Self::next_into`] by change propagation (see the module documentation).
    fn propagate_move(
        &self,
        vals: &mut [u8],
        base: &mut Base,
        work: &mut Work,
        moves: &[u32],
        out: &mut State,
    ) {
        out.0.copy_from_slice(&base.next.0);
        for &m in moves {
            let s = self.first_move + m;
            if vals[s as usize] == 0 {
                vals[s as usize] = 1;
                self.propagate(s, 1, (0, 0), vals, base, work);
            }
        }
        self.settle(vals, base, work);
        for &m in moves {
            self.update_fluents(vals, self.first_move + m, out);
        }
        for &j in &work.changed {
            self.update_fluents(vals, self.dep.instrs[j as usize].out, out);
        }
        // back to the base: the counts of the readers of what changed, and the values (a gate
        // in `changed` changed once: its base value is the other)
        for &m in moves {
            self.restore_readers(self.first_move + m, vals, base);
        }
        for k in 0..work.changed.len() {
            let out = self.dep.instrs[work.changed[k] as usize].out;
            self.restore_readers(out, vals, base);
            vals[out as usize] ^= 1;
        }
        for &m in moves {
            vals[(self.first_move + m) as usize] = 0;
        }
        work.changed.clear();
    }

    /// Signal `s` now has value `v` (it had the other one): adjusts the counts of its readers
    /// and marks them, except those of the cyclic run `skip`.
    #[inline]
    fn propagate(
        &self,
        s: u32,
        v: u8,
        skip: (u32, u32),
        vals: &[u8],
        base: &mut Base,
        work: &mut Work,
    ) {
        if !self.is_indexed(s) {
            let readers = self.readers.get(s);
            work.visits += readers.len() as u64;
            for &r in readers {
                self.visit(r, (s, v, skip), vals, (&mut base.gates, base.stamp), work);
            }
            return;
        }
        let Base {
            gates, stamp, live, ..
        } = base;
        self.live_readers(s, vals, live, |readers| {
            work.visits += readers.len() as u64;
            for &r in readers {
                self.visit(r, (s, v, skip), vals, (gates, *stamp), work);
            }
        });
    }

    /// [`Self::propagate`]'s step for one reader entry `r` of signal `s`, which now has value
    /// `v`: adjusts the count of the gate and marks it, unless it is in the cyclic run `skip`
    /// or its guard is false.
    #[inline(always)]
    fn visit(
        &self,
        r: u32,
        (s, v, skip): (u32, u8, (u32, u32)),
        vals: &[u8],
        (gates, stamp): (&mut [GateCount], u32),
        work: &mut Work,
    ) {
        let j = r >> 1;
        if skip.0 <= j && j < skip.1 {
            return;
        }
        let j = j as usize;
        let c = &self.counted[j];
        if c.cyclic {
            work.dirty.mark(j);
            return;
        }
        // a gate whose guard is false keeps its base value (and is never counted: every way
        // to it skips it)
        if c.guard != 0 && vals[c.guard as usize] == 0 {
            return;
        }
        let g = &mut gates[j];
        if g.stamp != stamp {
            let n = self.base_count(j, s, vals);
            (g.stamp, g.base, g.now) = (stamp, n, n);
        }
        // the literal is true now iff `v ^ negated`
        let old = g.now;
        let new = if (v ^ (r & 1) as u8) != 0 {
            old.wrapping_add(1)
        } else {
            old.wrapping_sub(1)
        };
        g.now = new;
        // the gate's value can change only if its count reaches or leaves its threshold: every
        // literal true for an AND, none for an OR (most readers of a move are conjunctions with
        // a fluent that stays false)
        let at = if c.and { c.len } else { 0 };
        if old == at || new == at {
            work.dirty.mark(j);
        }
    }

    /// Restores the counts of the readers of signal `s`, which changed under the joint move,
    /// to their base.
    #[inline]
    fn restore_readers(&self, s: u32, vals: &[u8], base: &mut Base) {
        if !self.is_indexed(s) {
            for &r in self.readers.get(s) {
                let g = &mut base.gates[(r >> 1) as usize];
                g.now = g.base;
            }
            return;
        }
        let Base { gates, live, .. } = base;
        self.live_readers(s, vals, live, |readers| {
            for &r in readers {
                let g = &mut gates[(r >> 1) as usize];
                g.now = g.base;
            }
        });
    }

    /// The true literals of the acyclic instruction `j` of `dep` at the base, when a joint
    /// move first reaches it through signal `s`: `vals` hold the base values of its inputs but
    /// `s`'s, which just changed (every change propagates to each reader, and a cyclic run's
    /// changes are written one by one as they propagate), so `s`'s literal is read negated.
    fn base_count(&self, j: usize, s: u32, vals: &[u8]) -> u32 {
        let c = &self.counted[j];
        let lits = &self.lits[c.start as usize..(c.start + c.n) as usize];
        let true_lits = lits.iter().filter(|&&l| read(vals, l) != (l >> 1 == s));
        c.offset + true_lits.count() as u32
    }

    /// Decides the marked gates in circuit order, propagating the changes.
    fn settle(&self, vals: &mut [u8], base: &mut Base, work: &mut Work) {
        while let Some(j) = work.dirty.take() {
            let (a, b) = self.cyclic[j];
            if b == 0 {
                let out = self.dep.instrs[j].out;
                let v = self.counted[j].value(base.gates[j].now);
                if v != vals[out as usize] {
                    vals[out as usize] = v;
                    work.changed.push(j as u32);
                    self.propagate(out, v, (0, 0), vals, base, work);
                }
                continue;
            }
            // a cyclic run: re-iterate it from false, then write its changes one by one as
            // they propagate (see `base_count`)
            for k in a as usize..b as usize {
                work.dirty.unmark(k);
            }
            let run = &self.dep.instrs[a as usize..b as usize];
            work.old.clear();
            work.old.extend(run.iter().map(|i| vals[i.out as usize]));
            self.dep.fixpoint((a, b), vals);
            let mut new = std::mem::take(&mut work.old);
            for (k, i) in run.iter().enumerate() {
                std::mem::swap(&mut vals[i.out as usize], &mut new[k]);
            }
            for (k, i) in run.iter().enumerate() {
                let v = new[k];
                if v != vals[i.out as usize] {
                    vals[i.out as usize] = v;
                    work.changed.push(a + k as u32);
                    self.propagate(i.out, v, (a, b), vals, base, work);
                }
            }
            work.old = new;
        }
    }

    /// Recomputes in `out` the fluents whose `next` literal reads signal `s`.
    #[inline]
    fn update_fluents(&self, vals: &[u8], s: u32, out: &mut State) {
        for &f in self.fluents_of.get(s) {
            let f = f as usize;
            if read(vals, self.next[f]) {
                out.insert(f);
            } else {
                out.remove(f);
            }
        }
    }

    /// The number of moves with a specialization.
    #[cfg(test)]
    pub(crate) fn num_specialized(&self) -> usize {
        self.spec.len()
    }

    /// The number of signals whose readers are indexed by guard.
    #[cfg(test)]
    pub(crate) fn num_indexed(&self) -> usize {
        (0..self.dep_of.len() as u32)
            .filter(|&s| !self.groups.get(s).is_empty())
            .count()
    }

    /// The number of cyclic runs among the move-dependent gates.
    #[cfg(test)]
    pub(crate) fn num_cyclic_runs(&self) -> usize {
        self.dep.runs.iter().filter(|r| r.2).count()
    }
}
