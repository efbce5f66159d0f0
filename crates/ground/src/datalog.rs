//! Bottom-up evaluation of function-term Datalog: semi-naive fixpoints with indexed joins.
//!
//! Relations store tuples of interned ground terms. Rules are compiled into patterns whose
//! variables are numbered per rule. A join enumerates bindings literal by literal; each literal
//! looks its candidates up through an index on one bound *path* (an argument position, possibly
//! inside a function term: `(true (cell ?x 2 ?p))` can be looked up by the `2` at path `[0, 1]`).

use crate::terms::{TermId, TermNode, TermStore};
use std::collections::HashMap;
use std::time::Instant;
use symgame_gdl::{Span, Sym, Term};

/// A term pattern with per-rule variable numbers.
#[derive(Clone, Debug)]
pub(crate) enum Pattern {
    Var(u32),
    Ground(TermId),
    Func(Sym, Vec<Pattern>),
}

pub(crate) const UNBOUND: u32 = u32::MAX;

impl Pattern {
    pub fn compile(t: &Term, vars: &mut HashMap<Sym, u32>, store: &mut TermStore) -> Pattern {
        match t {
            Term::Var(v, _) => {
                let n = vars.len() as u32;
                Pattern::Var(*vars.entry(*v).or_insert(n))
            }
            Term::Const(c, _) => Pattern::Ground(store.intern(TermNode::Const(*c))),
            Term::Func(f, args, _) => {
                let ps: Vec<Pattern> = args.iter().map(|a| Pattern::compile(a, vars, store)).collect();
                if ps.iter().all(|p| matches!(p, Pattern::Ground(_))) {
                    let ids = ps
                        .iter()
                        .map(|p| match p {
                            Pattern::Ground(t) => *t,
                            _ => unreachable!("checked ground"),
                        })
                        .collect();
                    Pattern::Ground(store.intern(TermNode::Func(*f, ids)))
                } else {
                    Pattern::Func(*f, ps)
                }
            }
        }
    }

    fn vars(&self, out: &mut Vec<u32>) {
        match self {
            Pattern::Var(v) => out.push(*v),
            Pattern::Ground(_) => {}
            Pattern::Func(_, ps) => ps.iter().for_each(|p| p.vars(out)),
        }
    }

    /// Paths (argument index sequences, starting at the atom's argument) to the leaves of the
    /// pattern, with the leaf.
    fn leaves<'a>(&'a self, path: &mut Vec<u8>, out: &mut Vec<(Vec<u8>, &'a Pattern)>) {
        match self {
            Pattern::Func(_, ps) => {
                for (i, p) in ps.iter().enumerate() {
                    path.push(i as u8);
                    p.leaves(path, out);
                    path.pop();
                }
            }
            leaf => out.push((path.clone(), leaf)),
        }
    }
}

/// Matches `p` against `t`, binding variables in `env` (recorded in `trail` for undoing).
pub(crate) fn unify(p: &Pattern, t: TermId, env: &mut [u32], trail: &mut Vec<u32>, store: &TermStore) -> bool {
    match p {
        Pattern::Ground(g) => *g == t,
        Pattern::Var(v) => {
            let cur = env[*v as usize];
            if cur == UNBOUND {
                env[*v as usize] = t.0;
                trail.push(*v);
                true
            } else {
                cur == t.0
            }
        }
        Pattern::Func(f, ps) => match store.node(t) {
            TermNode::Func(g, args) if g == f && args.len() == ps.len() => {
                ps.iter().zip(args.iter()).all(|(p, &a)| unify(p, a, env, trail, store))
            }
            _ => false,
        },
    }
}

/// Instantiates a pattern whose variables are all bound.
pub(crate) fn instantiate(p: &Pattern, env: &[u32], store: &mut TermStore) -> TermId {
    match p {
        Pattern::Ground(g) => *g,
        Pattern::Var(v) => TermId(env[*v as usize]),
        Pattern::Func(f, ps) => {
            let args: Box<[TermId]> = ps.iter().map(|p| instantiate(p, env, store)).collect();
            store.intern(TermNode::Func(*f, args))
        }
    }
}

/// A relation: a set of tuples with lazily built indexes on paths.
#[derive(Default)]
pub(crate) struct Relation {
    pub arity: usize,
    tuples: Vec<TermId>,
    count: u32,
    set: HashMap<Box<[TermId]>, u32>,
    /// path -> key term -> ascending tuple indexes
    indexes: HashMap<Vec<u8>, HashMap<TermId, Vec<u32>>>,
    /// tuples below `old_end` are old, `old_end..delta_end` are the delta of this round
    pub old_end: u32,
    pub delta_end: u32,
}

impl Relation {
    pub fn new(arity: usize) -> Relation {
        Relation {
            arity,
            ..Default::default()
        }
    }

    pub fn len(&self) -> u32 {
        self.count
    }

    pub fn tuple(&self, i: u32) -> &[TermId] {
        let a = self.arity;
        &self.tuples[i as usize * a..(i as usize + 1) * a]
    }

    pub fn find(&self, t: &[TermId]) -> Option<u32> {
        self.set.get(t).copied()
    }

    /// Inserts a tuple; returns its index and whether it is new.
    pub fn insert(&mut self, t: &[TermId], store: &TermStore) -> (u32, bool) {
        if let Some(&i) = self.set.get(t) {
            return (i, false);
        }
        let i = self.count;
        self.count += 1;
        self.tuples.extend_from_slice(t);
        self.set.insert(t.into(), i);
        for (path, index) in self.indexes.iter_mut() {
            if let Some(k) = key_at(t, path, store) {
                index.entry(k).or_default().push(i);
            }
        }
        (i, true)
    }

    fn ensure_index(&mut self, path: &[u8], store: &TermStore) {
        if self.indexes.contains_key(path) {
            return;
        }
        let mut index: HashMap<TermId, Vec<u32>> = HashMap::new();
        for i in 0..self.count {
            if let Some(k) = key_at(self.tuple(i), path, store) {
                index.entry(k).or_default().push(i);
            }
        }
        self.indexes.insert(path.to_vec(), index);
    }

    fn bucket(&self, path: &[u8], key: TermId) -> &[u32] {
        self.indexes
            .get(path)
            .and_then(|ix| ix.get(&key))
            .map_or(&[], |v| v.as_slice())
    }
}

fn key_at(t: &[TermId], path: &[u8], store: &TermStore) -> Option<TermId> {
    let (&first, rest) = path.split_first()?;
    store.at_path(*t.get(first as usize)?, rest)
}

/// Which tuples of a relation a literal ranges over in a semi-naive round.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Range {
    Old,
    Delta,
    All,
}

/// A compiled rule.
#[derive(Clone, Debug)]
pub(crate) struct CRule {
    pub head_pred: Sym,
    pub head: Vec<Pattern>,
    pub pos: Vec<(Sym, Vec<Pattern>)>,
    pub neg: Vec<(Sym, Vec<Pattern>)>,
    pub distinct: Vec<(Pattern, Pattern)>,
    pub equal: Vec<(Pattern, Pattern)>,
    pub nvars: usize,
    pub span: Span,
    /// index of the source rule (for ground rule origins), or None for bridge rules
    pub origin: Option<usize>,
}

impl CRule {
    fn vars_of(ps: &[Pattern]) -> Vec<u32> {
        let mut v = Vec::new();
        ps.iter().for_each(|p| p.vars(&mut v));
        v
    }
}

/// One step of a join plan.
#[derive(Clone, Debug)]
enum Step {
    /// Enumerate the tuples of positive literal `lit` in `range`; `keys` are the paths whose
    /// values are known when the step runs (candidates for the index lookup).
    Scan {
        lit: usize,
        range: Range,
        keys: Vec<(Vec<u8>, Pattern)>,
    },
    Distinct(usize),
    Equal(usize),
    Neg(usize),
}

/// The join plan of a rule when literal `delta` (if any) ranges over the delta.
fn plan(rule: &CRule, delta: Option<usize>, rels: &HashMap<Sym, Relation>, check_neg: &dyn Fn(Sym) -> bool) -> Vec<Step> {
    let mut bound = vec![false; rule.nvars];
    let mut steps = Vec::new();
    let mut done = vec![false; rule.pos.len()];
    let mut dist_done = vec![false; rule.distinct.len()];
    let mut eq_done = vec![false; rule.equal.len()];
    let mut neg_done = vec![false; rule.neg.len()];
    let all_bound = |ps: &[Pattern], bound: &[bool]| CRule::vars_of(ps).iter().all(|&v| bound[v as usize]);
    let add_scan = |i: usize, bound: &mut Vec<bool>, steps: &mut Vec<Step>| {
        let range = match delta {
            Some(d) if i == d => Range::Delta,
            Some(d) if i < d => Range::Old,
            _ => Range::All,
        };
        let mut leaves = Vec::new();
        for (k, p) in rule.pos[i].1.iter().enumerate() {
            p.leaves(&mut vec![k as u8], &mut leaves);
        }
        let keys = leaves
            .into_iter()
            .filter(|(_, p)| match p {
                Pattern::Ground(_) => true,
                Pattern::Var(v) => bound[*v as usize],
                Pattern::Func(..) => false,
            })
            .map(|(path, p)| (path, p.clone()))
            .collect();
        steps.push(Step::Scan { lit: i, range, keys });
        for v in CRule::vars_of(&rule.pos[i].1) {
            bound[v as usize] = true;
        }
    };
    if let Some(d) = delta {
        done[d] = true;
        add_scan(d, &mut bound, &mut steps);
    }
    loop {
        // constraints as soon as they can run
        loop {
            let mut progress = false;
            for (j, (a, b)) in rule.equal.iter().enumerate() {
                if !eq_done[j]
                    && (all_bound(std::slice::from_ref(a), &bound) || all_bound(std::slice::from_ref(b), &bound))
                {
                    eq_done[j] = true;
                    steps.push(Step::Equal(j));
                    for v in CRule::vars_of(&[a.clone(), b.clone()]) {
                        bound[v as usize] = true;
                    }
                    progress = true;
                }
            }
            if !progress {
                break;
            }
        }
        for (j, (a, b)) in rule.distinct.iter().enumerate() {
            if !dist_done[j] && all_bound(&[a.clone(), b.clone()], &bound) {
                dist_done[j] = true;
                steps.push(Step::Distinct(j));
            }
        }
        for (j, (p, args)) in rule.neg.iter().enumerate() {
            if !neg_done[j] && check_neg(*p) && all_bound(args, &bound) {
                neg_done[j] = true;
                steps.push(Step::Neg(j));
            }
        }
        // next literal: most bound leaves, then the smallest relation
        let mut best: Option<(usize, (usize, u32))> = None;
        for i in 0..rule.pos.len() {
            if done[i] {
                continue;
            }
            let vars = CRule::vars_of(&rule.pos[i].1);
            let unbound = vars.iter().filter(|&&v| !bound[v as usize]).count();
            let size = rels.get(&rule.pos[i].0).map_or(0, |r| r.len());
            let score = (unbound, size);
            if best.is_none_or(|(_, s)| score < s) {
                best = Some((i, score));
            }
        }
        match best {
            Some((i, _)) => {
                done[i] = true;
                add_scan(i, &mut bound, &mut steps);
            }
            None => break,
        }
    }
    steps
}

/// Receives every binding a rule's join produces.
pub(crate) trait Sink {
    /// Called with the rule and a complete binding; returns false to abort the evaluation.
    fn emit(&mut self, rule: usize, env: &[u32], store: &mut TermStore, rels: &mut HashMap<Sym, Relation>) -> bool;
}

/// Why an evaluation stopped early.
#[derive(Debug)]
pub(crate) enum Abort {
    Deadline,
    Limit,
}

pub(crate) struct Evaluator<'a> {
    pub store: &'a mut TermStore,
    pub rels: &'a mut HashMap<Sym, Relation>,
    pub deadline: Option<Instant>,
    pub steps: u64,
}

impl Evaluator<'_> {
    fn tick(&mut self) -> Result<(), Abort> {
        self.steps += 1;
        if self.steps & 0xFFF == 0 {
            if let Some(d) = self.deadline {
                if Instant::now() > d {
                    return Err(Abort::Deadline);
                }
            }
        }
        Ok(())
    }

    /// Semi-naive fixpoint of `rules` (indexes into `all`). Heads go to their relations; every
    /// binding is passed to `sink`. `check_neg(p)` says whether negative literals over `p` are
    /// evaluated (relations complete by now) or ignored (the relaxation).
    pub fn fixpoint(
        &mut self,
        all: &[CRule],
        rules: &[usize],
        check_neg: &dyn Fn(Sym) -> bool,
        sink: &mut dyn Sink,
    ) -> Result<(), Abort> {
        // round 0: everything present counts as delta
        for r in self.rels.values_mut() {
            r.old_end = 0;
            r.delta_end = r.len();
        }
        let mut first = true;
        loop {
            for &ri in rules {
                let rule = &all[ri];
                if rule.pos.is_empty() {
                    if first {
                        let steps = plan(rule, None, self.rels, check_neg);
                        let mut env = vec![UNBOUND; rule.nvars];
                        self.join(all, ri, &steps, 0, &mut env, sink)?;
                    }
                    continue;
                }
                for d in 0..rule.pos.len() {
                    let has_delta = self
                        .rels
                        .get(&rule.pos[d].0)
                        .is_some_and(|r| r.delta_end > r.old_end);
                    if !has_delta {
                        continue;
                    }
                    let steps = plan(rule, Some(d), self.rels, check_neg);
                    let mut env = vec![UNBOUND; rule.nvars];
                    self.join(all, ri, &steps, 0, &mut env, sink)?;
                }
            }
            first = false;
            let mut any = false;
            for r in self.rels.values_mut() {
                r.old_end = r.delta_end;
                r.delta_end = r.len();
                any |= r.delta_end > r.old_end;
            }
            if !any {
                return Ok(());
            }
        }
    }

    fn join(
        &mut self,
        all: &[CRule],
        ri: usize,
        steps: &[Step],
        at: usize,
        env: &mut Vec<u32>,
        sink: &mut dyn Sink,
    ) -> Result<(), Abort> {
        self.tick()?;
        let rule = &all[ri];
        let Some(step) = steps.get(at) else {
            if !sink.emit(ri, env, self.store, self.rels) {
                return Err(Abort::Limit);
            }
            return Ok(());
        };
        match step {
            Step::Distinct(j) => {
                let (a, b) = &rule.distinct[*j];
                let x = instantiate(a, env, self.store);
                let y = instantiate(b, env, self.store);
                if x != y {
                    self.join(all, ri, steps, at + 1, env, sink)?;
                }
            }
            Step::Neg(j) => {
                let (p, args) = &rule.neg[*j];
                let t: Vec<TermId> = args.iter().map(|a| instantiate(a, env, self.store)).collect();
                let present = self.rels.get(p).is_some_and(|r| r.find(&t).is_some());
                if !present {
                    self.join(all, ri, steps, at + 1, env, sink)?;
                }
            }
            Step::Equal(j) => {
                let (a, b) = &rule.equal[*j];
                let a_bound = CRule::vars_of(std::slice::from_ref(a)).iter().all(|&v| env[v as usize] != UNBOUND);
                let (known, other) = if a_bound { (a, b) } else { (b, a) };
                let t = instantiate(known, env, self.store);
                let mut trail = Vec::new();
                if unify(other, t, env, &mut trail, self.store) {
                    self.join(all, ri, steps, at + 1, env, sink)?;
                }
                for v in trail {
                    env[v as usize] = UNBOUND;
                }
            }
            Step::Scan { lit, range, keys } => {
                let (pred, pats) = &rule.pos[*lit];
                let Some(rel) = self.rels.get_mut(pred) else {
                    return Ok(());
                };
                let (lo, hi) = match range {
                    Range::Old => (0, rel.old_end),
                    Range::Delta => (rel.old_end, rel.delta_end),
                    Range::All => (0, rel.delta_end),
                };
                if lo >= hi {
                    return Ok(());
                }
                // choose the most selective bound path
                let mut best: Option<(Vec<u8>, TermId, usize)> = None;
                for (path, p) in keys {
                    let key = match p {
                        Pattern::Ground(g) => *g,
                        Pattern::Var(v) => TermId(env[*v as usize]),
                        Pattern::Func(..) => continue,
                    };
                    rel.ensure_index(path, self.store);
                    let n = rel.bucket(path, key).len();
                    if best.as_ref().is_none_or(|b| n < b.2) {
                        best = Some((path.clone(), key, n));
                    }
                }
                let candidates: Vec<u32> = match &best {
                    Some((path, key, _)) => {
                        let b = rel.bucket(path, *key);
                        let s = b.partition_point(|&i| i < lo);
                        let e = b.partition_point(|&i| i < hi);
                        b[s..e].to_vec()
                    }
                    None => (lo..hi).collect(),
                };
                let mut trail = Vec::new();
                for i in candidates {
                    let tuple: Vec<TermId> = self.rels[pred].tuple(i).to_vec();
                    let ok = pats
                        .iter()
                        .zip(tuple.iter())
                        .all(|(p, &t)| unify(p, t, env, &mut trail, self.store));
                    if ok {
                        self.join(all, ri, steps, at + 1, env, sink)?;
                    }
                    for v in trail.drain(..) {
                        env[v as usize] = UNBOUND;
                    }
                }
            }
        }
        Ok(())
    }
}
