//! The `next` cone specialized per move: partially evaluated with that move's signal true and
//! every other move signal false.
//!
//! A joint move in which only one move has an effect (the others are read by no gate of the
//! `next` cone and are no fluent's `next` literal, like a waiting role's `noop`) is, for the
//! `next` cone, that move alone. Specialized to it, a gate that reads move signals folds: in
//! frame rules such as `(<= (next (cell ?x ?y ?s)) (true (cell ?x ?y ?s)) (does ?p (move ?x1
//! ?y1 ?x2 ?y2)) (distinctCell ...))`, the disjunction over the moves becomes true or false and
//! each `next` literal becomes a constant or the fluent itself. So the next state is the base
//! next state with three masks applied (which fluents the move affects, which of them copy the
//! state, which become true), then the few fluents left over read their folded literal, after a
//! small residual program (the gates that did not fold) writes the gates' values in place.
//! Where the residual program stays large, change propagation can be the cheaper way: the plan
//! measures both per move and takes the cheaper (`Choice` in the parent module).
//!
//! The tables are bounded: past [`BUDGET`] entries in all, or [`BUILD_SECONDS`] of building
//! where all of them would take longer than [`FULL_BUILD_SECONDS`] (amazons has 173,962
//! moves, each with a cone to fold), the remaining moves are not
//! specialized, and their joint moves take the general path (change propagation). The results
//! are the same either way; only the speed differs.

use super::{read, Base, NextPlan, Work};
use crate::State;

/// The most entries (residual literals and instructions, mask words, left-over fluents) the
/// specializations may hold over all moves: 2^24 entries of 4 to 8 bytes (at most ~128 MB).
pub(crate) const BUDGET: usize = 1 << 24;

/// The longest the specializations may take to build, in seconds, unless all of them are
/// predicted to take at most [`FULL_BUILD_SECONDS`].
pub(crate) const BUILD_SECONDS: f64 = 0.5;

/// Where building every move's specialization is predicted (from the moves built so far) to
/// take at most this long, all are built. A cut at [`BUILD_SECONDS`] alone fell inside
/// skirmish's 3,586 moves (about 0.85 s in all): on a slightly slower run a third of them were
/// left to the general path, 13 times slower, and its third layer took 3.2 s instead of 0.24 s.
pub(crate) const FULL_BUILD_SECONDS: f64 = 2.0;

/// Whether the build of the specializations, `done` of `moves` after starting at `started`,
/// stops here (see [`BUILD_SECONDS`] and [`FULL_BUILD_SECONDS`]).
fn out_of_time(started: std::time::Instant, done: usize, moves: usize) -> bool {
    // `done <= moves`, so the prediction is never below the time taken.
    let t = started.elapsed().as_secs_f64();
    t > BUILD_SECONDS && t / done.max(1) as f64 * moves as f64 > FULL_BUILD_SECONDS
}

/// A residual gate: writes signal `out` (a gate of [`NextPlan::dep`]) from
/// `lits[start..start + len]`.
#[derive(Clone, Copy, Debug)]
struct Residual {
    out: u32,
    start: u32,
    len: u32,
    and: bool,
}

/// One move's specialization: its residual program, its left-over fluents, its masks.
#[derive(Clone, Copy, Debug)]
struct Spec {
    instrs: (u32, u32),
    left: (u32, u32),
    /// Offset in `masks` of three masks of `words` words: affected, copied, made true.
    masks: u32,
    /// The cost of applying it, in literals read (and words and fluents written).
    cost: f32,
}

/// The specializations of the moves that have one (see the module documentation).
#[derive(Debug, Default)]
pub(super) struct Specialized {
    /// Per move: its index in `specs`, or `u32::MAX`.
    of_move: Vec<u32>,
    specs: Vec<Spec>,
    instrs: Vec<Residual>,
    lits: Vec<u32>,
    /// (fluent, literal code): the fluents that read their folded literal.
    left: Vec<(u32, u32)>,
    masks: Vec<u64>,
    words: usize,
}

/// A signal's value under the move: a constant, or a literal code of the circuit.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Form {
    Const(bool),
    Lit(u32),
}

impl Form {
    fn negate(self, neg: bool) -> Form {
        match self {
            Form::Const(b) => Form::Const(b != neg),
            Form::Lit(l) => Form::Lit(l ^ neg as u32),
        }
    }
}

impl Specialized {
    /// Specializes `plan` to each of its `num_moves` moves, within `budget` entries.
    pub(super) fn build(
        plan: &NextPlan,
        num_fluents: usize,
        num_moves: usize,
        budget: usize,
    ) -> Specialized {
        let words = num_fluents.div_ceil(64);
        let mut sp = Specialized {
            of_move: vec![u32::MAX; num_moves],
            words,
            ..Specialized::default()
        };
        let mut b = Builder {
            plan,
            form: vec![None; plan.dep.instrs.len()],
            mark: vec![u32::MAX; plan.dep.instrs.len()],
            reached: Vec::new(),
            stack: Vec::new(),
        };
        let started = std::time::Instant::now();
        for m in 0..num_moves {
            let size = sp.lits.len() + sp.instrs.len() + sp.masks.len() + sp.left.len();
            if size + 3 * words > budget || (m % 64 == 0 && out_of_time(started, m, num_moves)) {
                break;
            }
            if let Some(spec) = b.specialize(&mut sp, plan.first_move + m as u32) {
                sp.of_move[m] = sp.specs.len() as u32;
                sp.specs.push(spec);
            }
        }
        sp
    }

    /// Whether move `m` (from the first move signal) has a specialization.
    #[inline]
    pub(super) fn has(&self, m: u32) -> bool {
        self.of_move[m as usize] != u32::MAX
    }

    /// The cost of applying move `m`'s specialization, in literals read (and words and
    /// fluents written).
    pub(super) fn cost(&self, m: u32) -> f32 {
        self.specs[self.of_move[m as usize] as usize].cost
    }

    /// The number of moves with a specialization.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.specs.len()
    }

    /// Writes into `out` the next state of `s` (loaded in `vals`, at its base) under move `m`
    /// alone; leaves `vals` at the base.
    pub(super) fn apply(
        &self,
        m: u32,
        s: &State,
        vals: &mut [u8],
        base: &Base,
        work: &mut Work,
        out: &mut State,
    ) {
        let spec = &self.specs[self.of_move[m as usize] as usize];
        let instrs = &self.instrs[spec.instrs.0 as usize..spec.instrs.1 as usize];
        work.old.clear();
        work.old.extend(instrs.iter().map(|i| vals[i.out as usize]));
        for i in instrs {
            let lits = &self.lits[i.start as usize..(i.start + i.len) as usize];
            let v = if i.and {
                lits.iter().all(|&l| read(vals, l))
            } else {
                lits.iter().any(|&l| read(vals, l))
            };
            vals[i.out as usize] = v as u8;
        }
        let w = self.words;
        let masks = &self.masks[spec.masks as usize..spec.masks as usize + 3 * w];
        let (affected, rest) = masks.split_at(w);
        let (copied, ones) = rest.split_at(w);
        for k in 0..w {
            out.0[k] = (base.next.0[k] & !affected[k]) | (s.0[k] & copied[k]) | ones[k];
        }
        for &(f, l) in &self.left[spec.left.0 as usize..spec.left.1 as usize] {
            if read(vals, l) {
                out.insert(f as usize);
            } else {
                out.remove(f as usize);
            }
        }
        for (i, &v) in instrs.iter().zip(&work.old) {
            vals[i.out as usize] = v;
        }
    }
}

/// Scratch space of the specialization of one move after the other.
struct Builder<'a> {
    plan: &'a NextPlan,
    /// Per instruction of [`NextPlan::dep`]: its form under the current move, once reached.
    form: Vec<Option<Form>>,
    /// Per instruction of [`NextPlan::dep`]: the last move signal that reached it.
    mark: Vec<u32>,
    reached: Vec<u32>,
    stack: Vec<u32>,
}

impl Builder<'_> {
    /// The form of literal `l` under the move of signal `m`.
    fn lit_form(&self, m: u32, l: u32, dep_of: impl Fn(u32) -> Option<usize>) -> Form {
        let s = l >> 1;
        let neg = l & 1 == 1;
        let p = self.plan;
        if s == 0 {
            return Form::Const(!neg);
        }
        if s >= p.first_move && s < p.end_move {
            return Form::Const((s == m) != neg);
        }
        match dep_of(s) {
            // reached: its form; not reached: its base value, maybe a constant
            Some(j) => match (self.form[j], p.base_const[j]) {
                (Some(f), _) => f.negate(neg),
                (None, Some(b)) => Form::Const(b != neg),
                (None, None) => Form::Lit(l),
            },
            None => Form::Lit(l),
        }
    }

    /// The specialization to the move of signal `m`, added to `sp`; `None` if the move reaches
    /// a cyclic run (which this does not fold).
    fn specialize(&mut self, sp: &mut Specialized, m: u32) -> Option<Spec> {
        let p = self.plan;
        for &j in &self.reached {
            self.form[j as usize] = None;
        }
        self.reached.clear();
        // the gates the move reaches
        self.stack.extend(p.readers.get(m).iter().map(|r| r >> 1));
        while let Some(j) = self.stack.pop() {
            if self.mark[j as usize] == m {
                continue;
            }
            self.mark[j as usize] = m;
            if p.cyclic[j as usize].1 != 0 {
                self.stack.clear();
                return None;
            }
            self.reached.push(j);
            let out = p.dep.instrs[j as usize].out;
            self.stack.extend(p.readers.get(out).iter().map(|r| r >> 1));
        }
        self.reached.sort_unstable();
        // the forms, in circuit order
        let dep_index = |s: u32| p.dep_of_signal(s);
        let instr_start = sp.instrs.len() as u32;
        let mut own = Vec::new();
        for k in 0..self.reached.len() {
            let j = self.reached[k] as usize;
            let i = &p.dep.instrs[j];
            let and = p.dep.is_and(i);
            own.clear();
            let mut form = None;
            for &l in p.dep.inputs(i) {
                match self.lit_form(m, l, dep_index) {
                    // a literal that decides the gate: false in an AND, true in an OR
                    Form::Const(b) if b != and => form = Some(Form::Const(b)),
                    Form::Const(_) => {}
                    Form::Lit(c) => own.push(c),
                }
            }
            own.sort_unstable();
            own.dedup();
            if form.is_none() && own.windows(2).any(|w| w[0] ^ 1 == w[1]) {
                form = Some(Form::Const(!and)); // l and !l
            }
            let form = form.unwrap_or_else(|| match own.as_slice() {
                [] => Form::Const(and),
                [l] => Form::Lit(*l),
                _ => {
                    let start = sp.lits.len() as u32;
                    sp.lits.extend_from_slice(&own);
                    sp.instrs.push(Residual {
                        out: i.out,
                        start,
                        len: own.len() as u32,
                        and,
                    });
                    Form::Lit(i.out << 1)
                }
            });
            self.form[j] = Some(form);
        }
        // the affected fluents
        let w = sp.words;
        let masks = sp.masks.len();
        sp.masks.resize(masks + 3 * w, 0);
        let left_start = sp.left.len() as u32;
        let fluents = p.fluents_of.get(m).iter().chain(
            self.reached
                .iter()
                .flat_map(|&j| p.fluents_of.get(p.dep.instrs[j as usize].out)),
        );
        for &f in fluents {
            let (word, bit) = (masks + f as usize / 64, 1u64 << (f % 64));
            sp.masks[word] |= bit;
            match self.lit_form(m, p.next[f as usize], dep_index) {
                Form::Const(b) => sp.masks[word + 2 * w] |= (b as u64) << (f % 64),
                Form::Lit(l) if l == (1 + f) << 1 => sp.masks[word + w] |= bit,
                Form::Lit(l) => sp.left.push((f, l)),
            }
        }
        // drop the residual gates no left-over fluent reads (in reverse, a gate read only by
        // dropped ones is dropped too)
        self.prune(sp, instr_start, left_start);
        let residual = &sp.instrs[instr_start as usize..];
        let lits: usize = residual.iter().map(|i| i.len as usize + 1).sum();
        let left = sp.left.len() - left_start as usize;
        Some(Spec {
            instrs: (instr_start, sp.instrs.len() as u32),
            left: (left_start, sp.left.len() as u32),
            masks: masks as u32,
            cost: (lits + left + 3 * w) as f32,
        })
    }

    /// Drops the residual instructions from `instr_start` that the left-over fluents from
    /// `left_start` do not read, directly or not.
    fn prune(&self, sp: &mut Specialized, instr_start: u32, left_start: u32) {
        let mut live: std::collections::HashSet<u32> = sp.left[left_start as usize..]
            .iter()
            .map(|&(_, l)| l >> 1)
            .collect();
        let mut keep = vec![false; sp.instrs.len() - instr_start as usize];
        for (k, i) in sp.instrs[instr_start as usize..].iter().enumerate().rev() {
            if live.contains(&i.out) {
                keep[k] = true;
                let lits = &sp.lits[i.start as usize..(i.start + i.len) as usize];
                live.extend(lits.iter().map(|l| l >> 1));
            }
        }
        let mut k = 0;
        let kept: Vec<Residual> = sp.instrs[instr_start as usize..]
            .iter()
            .filter(|_| {
                k += 1;
                keep[k - 1]
            })
            .copied()
            .collect();
        sp.instrs.truncate(instr_start as usize);
        sp.instrs.extend(kept);
    }
}
