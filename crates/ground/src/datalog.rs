//! Bottom-up evaluation of function-term Datalog: semi-naive fixpoints with indexed joins.
//!
//! Relations store tuples of interned ground terms. Rules are compiled into patterns whose
//! variables are numbered per rule. A join enumerates bindings literal by literal; each literal
//! looks its candidates up through an index on one bound *path* (an argument position, possibly
//! inside a function term: `(true (cell ?x 2 ?p))` can be looked up by the `2` at path `[0, 1]`).
//! Evaluation stops at a deadline or when the ground atoms and rules found exceed a budget
//! ([`Limits`]).

use crate::pattern::{instantiate, lookup_instance, same_term, unify, Pattern, UNBOUND};
use crate::rule::CRule;
use crate::terms::{ChainHeads, FxHashMap, TermId, TermNode, TermStore};
use std::time::{Duration, Instant};
use symgame_gdl::{Error, ErrorKind, Source, Span, Sym};

/// A path step meaning "the functor of the term here".
const FUNCTOR: u8 = u8::MAX;

/// The index key standing for functor `f` (disjoint from real term ids, which stay far below
/// 2^31).
fn functor_key(f: Sym) -> TermId {
    TermId(0x8000_0000 | f.0)
}

/// A leaf of a pattern, for index lookups.
#[derive(Clone, Copy, Debug)]
enum Leaf {
    /// A fixed key (a ground subterm or a functor).
    Key(TermId),
    /// A variable: usable as a key once bound.
    Var(u32),
}

impl Leaf {
    /// Whether the leaf is known when the variables marked in `bound` are.
    fn is_known(&self, bound: &[bool]) -> bool {
        match self {
            Leaf::Key(_) => true,
            Leaf::Var(v) => bound[*v as usize],
        }
    }
}

/// Paths (argument index sequences, starting at the atom's argument) to the leaves of the
/// arguments `args` of a literal, with the leaf; a function term also gives its functor, at its
/// path followed by [`FUNCTOR`].
fn literal_leaves(args: &[Pattern]) -> Vec<(Vec<u8>, Leaf)> {
    fn walk(p: &Pattern, path: &mut Vec<u8>, out: &mut Vec<(Vec<u8>, Leaf)>) {
        match p {
            Pattern::Func(f, ps) => {
                let mut fp = path.clone();
                fp.push(FUNCTOR);
                out.push((fp, Leaf::Key(functor_key(*f))));
                for (i, q) in ps.iter().enumerate() {
                    path.push(i as u8);
                    walk(q, path, out);
                    path.pop();
                }
            }
            Pattern::Var(v) => out.push((path.clone(), Leaf::Var(*v))),
            Pattern::Ground(g) => out.push((path.clone(), Leaf::Key(*g))),
        }
    }
    let mut out = Vec::new();
    for (k, p) in args.iter().enumerate() {
        walk(p, &mut vec![k as u8], &mut out);
    }
    out
}

/// A composite index on some paths: key hash -> the last tuple with that key hash; `chain[i]`
/// is the previous tuple with the same key hash (or `u32::MAX`). No allocation per key: a
/// chain may mix keys whose hashes collide, which the caller's unification filters out.
#[derive(Default)]
struct Index {
    paths: Vec<Vec<u8>>,
    heads: ChainHeads,
    /// One entry per tuple (`u32::MAX` also for tuples without a key at these paths).
    chain: Vec<u32>,
}

impl Index {
    fn add(&mut self, i: u32, t: &[TermId], store: &TermStore) {
        debug_assert_eq!(self.chain.len(), i as usize);
        let prev = match key_hash(t, &self.paths, store) {
            Some(h) => self.heads.insert(h, i).unwrap_or(u32::MAX),
            None => u32::MAX,
        };
        self.chain.push(prev);
    }
}

/// The hash of a sequence of index keys; none if a key is missing.
fn hash_keys(keys: impl Iterator<Item = Option<TermId>>) -> Option<u64> {
    use std::hash::Hasher;
    let mut h = crate::terms::FxHasher::default();
    for k in keys {
        h.write_u32(k?.0);
    }
    Some(h.finish())
}

/// The hash of the keys of tuple `t` at `paths`, if it has them all.
fn key_hash(t: &[TermId], paths: &[Vec<u8>], store: &TermStore) -> Option<u64> {
    hash_keys(paths.iter().map(|p| key_at(t, p, store)))
}

/// A relation: a set of tuples with lazily built indexes on paths.
#[derive(Default)]
pub(crate) struct Relation {
    pub arity: usize,
    tuples: Vec<TermId>,
    count: u32,
    /// Tuple hash -> the last tuple with that hash; `chain[i]` is the previous one (or
    /// `u32::MAX`). The tuples themselves stay in the flat `tuples` array: no allocation per tuple.
    heads: ChainHeads,
    chain: Vec<u32>,
    indexes: Vec<Index>,
    /// (path, tuple count when measured, distinct keys at the path then), for join planning
    distinct: Vec<(Vec<u8>, u32, u32)>,
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

    fn hash(t: &[TermId]) -> u64 {
        use std::hash::BuildHasher;
        std::hash::BuildHasherDefault::<crate::terms::FxHasher>::default().hash_one(t)
    }

    fn find_hashed(&self, t: &[TermId], h: u64) -> Option<u32> {
        let mut i = self.heads.get(h)?;
        while i != u32::MAX {
            if self.tuple(i) == t {
                return Some(i);
            }
            i = self.chain[i as usize];
        }
        None
    }

    pub fn find(&self, t: &[TermId]) -> Option<u32> {
        self.find_hashed(t, Self::hash(t))
    }

    /// Inserts a tuple; returns its index and whether it is new.
    pub fn insert(&mut self, t: &[TermId], store: &TermStore) -> (u32, bool) {
        let h = Self::hash(t);
        if let Some(i) = self.find_hashed(t, h) {
            return (i, false);
        }
        let i = self.count;
        self.count += 1;
        self.tuples.extend_from_slice(t);
        let prev = self.heads.insert(h, i).unwrap_or(u32::MAX);
        self.chain.push(prev);
        for index in self.indexes.iter_mut() {
            index.add(i, t, store);
        }
        (i, true)
    }

    /// The bounds of the tuples in `range`.
    fn range(&self, range: Range) -> (u32, u32) {
        match range {
            Range::Old => (0, self.old_end),
            Range::Delta => (self.old_end, self.delta_end),
            Range::All => (0, self.delta_end),
        }
    }

    /// The number of distinct keys at `path` (measured again once the relation has doubled).
    fn distinct_at(&mut self, path: &[u8], store: &TermStore) -> u32 {
        if let Some(&(_, at, n)) = self.distinct.iter().find(|(p, _, _)| p == path) {
            if self.count < at.saturating_mul(2).max(16) {
                return n;
            }
        }
        let mut keys: std::collections::HashSet<
            TermId,
            std::hash::BuildHasherDefault<crate::terms::FxHasher>,
        > = Default::default();
        for i in 0..self.count {
            if let Some(k) = key_at(self.tuple(i), path, store) {
                keys.insert(k);
            }
        }
        let n = keys.len() as u32;
        match self.distinct.iter_mut().find(|(p, _, _)| p == path) {
            Some(e) => *e = (path.to_vec(), self.count, n),
            None => self.distinct.push((path.to_vec(), self.count, n)),
        }
        n
    }

    /// The number of the composite index on `paths`, built if needed.
    fn index_id(&mut self, paths: &[Vec<u8>], store: &TermStore) -> usize {
        if let Some(i) = self.indexes.iter().position(|x| x.paths == paths) {
            return i;
        }
        let mut index = Index {
            paths: paths.to_vec(),
            ..Default::default()
        };
        for i in 0..self.count {
            let a = self.arity;
            index.add(i, &self.tuples[i as usize * a..(i as usize + 1) * a], store);
        }
        self.indexes.push(index);
        self.indexes.len() - 1
    }

    /// Appends to `out` the tuples in `lo..hi` whose keys at index `id`'s paths hash like
    /// `key`, ascending.
    fn bucket(&self, id: usize, key: &[TermId], lo: u32, hi: u32, out: &mut Vec<u32>) {
        let index = &self.indexes[id];
        let h = hash_keys(key.iter().map(|&k| Some(k))).expect("keys given");
        let Some(head) = index.heads.get(h) else {
            return;
        };
        let start = out.len();
        let mut i = head;
        while i != u32::MAX && i >= lo {
            if i < hi {
                out.push(i);
            }
            i = index.chain[i as usize];
        }
        out[start..].reverse();
    }
}

/// The key of tuple `t` at `path`: a subterm, or a functor for a path ending in [`FUNCTOR`].
fn key_at(t: &[TermId], path: &[u8], store: &TermStore) -> Option<TermId> {
    let (&first, rest) = path.split_first()?;
    let (rest, functor) = match rest.split_last() {
        Some((&FUNCTOR, r)) => (r, true),
        _ => (rest, false),
    };
    let sub = store.at_path(*t.get(first as usize)?, rest)?;
    if !functor {
        return Some(sub);
    }
    match store.node(sub) {
        TermNode::Func(f, _) => Some(functor_key(*f)),
        TermNode::Const(_) => None,
    }
}

/// Which tuples of a relation a literal ranges over in a semi-naive round.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Range {
    Old,
    Delta,
    All,
}

/// One step of a join plan.
#[derive(Clone, Debug)]
enum Step {
    /// Enumerate the tuples of positive literal `lit` in `range`, through the composite index
    /// `index` on the leaves `keys` (those known when the step runs), if any.
    Scan {
        lit: usize,
        range: Range,
        index: Option<usize>,
        keys: Vec<Leaf>,
    },
    /// Look up positive literal `lit`, whose variables are all bound, in `range`.
    Check {
        lit: usize,
        range: Range,
    },
    Distinct(usize),
    Equal(usize),
    Neg(usize),
}

/// The join plan of a rule when literal `delta` (if any) ranges over the delta.
fn plan(
    rule: &CRule,
    delta: Option<usize>,
    rels: &mut FxHashMap<Sym, Relation>,
    store: &TermStore,
    check_neg: &dyn Fn(Sym) -> bool,
) -> Vec<Step> {
    let mut bound = vec![false; rule.nvars];
    let mut steps = Vec::new();
    let mut done = vec![false; rule.pos.len()];
    let mut dist_done = vec![false; rule.distinct.len()];
    let mut eq_done = vec![false; rule.equal.len()];
    let mut neg_done = vec![false; rule.neg.len()];
    let add_scan = |i: usize,
                    bound: &mut Vec<bool>,
                    steps: &mut Vec<Step>,
                    rels: &mut FxHashMap<Sym, Relation>| {
        let range = match delta {
            Some(d) if i == d => Range::Delta,
            Some(d) if i < d => Range::Old,
            _ => Range::All,
        };
        if rule.pos[i].1.iter().all(|p| p.is_bound(bound)) {
            steps.push(Step::Check { lit: i, range });
            return;
        }
        let rel = rels.get_mut(&rule.pos[i].0).expect("relation exists");
        let (paths, keys): (Vec<Vec<u8>>, Vec<Leaf>) = literal_leaves(&rule.pos[i].1)
            .into_iter()
            .filter(|(_, l)| l.is_known(bound))
            .unzip();
        let index = (!paths.is_empty()).then(|| rel.index_id(&paths, store));
        steps.push(Step::Scan {
            lit: i,
            range,
            index,
            keys,
        });
        for v in CRule::vars_of(&rule.pos[i].1) {
            bound[v as usize] = true;
        }
    };
    if let Some(d) = delta {
        done[d] = true;
        add_scan(d, &mut bound, &mut steps, rels);
    }
    loop {
        // constraints as soon as they can run
        rule.bind_equalities(&mut eq_done, &mut bound, |j| steps.push(Step::Equal(j)));
        for (j, (a, b)) in rule.distinct.iter().enumerate() {
            if !dist_done[j] && a.is_bound(&bound) && b.is_bound(&bound) {
                dist_done[j] = true;
                steps.push(Step::Distinct(j));
            }
        }
        for (j, (p, args)) in rule.neg.iter().enumerate() {
            if !neg_done[j] && check_neg(*p) && args.iter().all(|a| a.is_bound(&bound)) {
                neg_done[j] = true;
                steps.push(Step::Neg(j));
            }
        }
        // next literal: a lookup if one is fully bound, else the fewest expected candidates
        // (relation size over the distinct keys at the known leaves), then the fewest unbound
        // variables
        let mut best: Option<(usize, (u64, usize))> = None;
        for (i, _) in done.iter().enumerate().filter(|(_, d)| !**d) {
            let vars = CRule::vars_of(&rule.pos[i].1);
            let unbound = vars.iter().filter(|&&v| !bound[v as usize]).count();
            let expected = if unbound == 0 {
                0
            } else {
                let rel = rels.get_mut(&rule.pos[i].0).expect("relation exists");
                let mut est = rel.len() as f64;
                for (path, leaf) in &literal_leaves(&rule.pos[i].1) {
                    if leaf.is_known(&bound) {
                        est /= rel.distinct_at(path, store).max(1) as f64;
                    }
                }
                1 + est as u64
            };
            let score = (expected, unbound);
            if best.is_none_or(|(_, s)| score < s) {
                best = Some((i, score));
            }
        }
        match best {
            Some((i, _)) => {
                done[i] = true;
                add_scan(i, &mut bound, &mut steps, rels);
            }
            None => break,
        }
    }
    steps
}

/// A binding a rule's join produced, once its head is in its relation.
pub(crate) struct Binding<'a> {
    pub rule: &'a CRule,
    /// The value of each variable.
    pub env: &'a [u32],
    /// For each positive literal, the index of the tuple it matched.
    pub matched: &'a [u32],
    /// The head's tuple index in its relation.
    pub head: u32,
    /// Whether the head tuple is new.
    pub new: bool,
}

/// Receives every binding a rule's join produces.
pub(crate) trait Sink {
    /// Called for every binding; returns whether it recorded a ground rule (which counts
    /// against the size limit).
    fn emit(&mut self, b: &Binding, store: &mut TermStore) -> bool;
}

/// Why an evaluation stopped early.
#[derive(Debug)]
pub(crate) enum Abort {
    /// The deadline passed, while evaluating the rule at this place if known.
    Deadline(Option<Span>),
    /// The size limit was reached, while evaluating the rule at this place.
    Limit(Option<Span>),
}

/// The limits of a grounding: a deadline, and a budget of ground atoms and ground rules.
pub(crate) struct Limits {
    started: Instant,
    pub deadline: Option<Instant>,
    time_limit: Option<Duration>,
    max_size: usize,
    used: usize,
    /// Where the evaluation is, for a watchdog ([`crate::GroundOptions::at_rule`]).
    pub at_rule: Option<std::sync::Arc<std::sync::atomic::AtomicU64>>,
}

impl Limits {
    pub fn new(started: Instant, time_limit: Option<Duration>, max_size: usize) -> Limits {
        Limits {
            started,
            deadline: time_limit.map(|d| started + d),
            time_limit,
            max_size,
            used: 0,
            at_rule: None,
        }
    }

    /// Records that the rule at `span` is being evaluated (`None`: no rule).
    pub fn at(&self, span: Option<Span>) {
        if let Some(at) = &self.at_rule {
            let v = span.map_or(0, |s| u64::from(s.offset) + 1);
            at.store(v, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// Counts one more ground atom or rule; false once past the budget.
    fn take(&mut self) -> bool {
        self.used += 1;
        self.used <= self.max_size
    }

    /// The time since the grounding started.
    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// Whether the deadline has passed.
    pub fn past_deadline(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() > d)
    }

    /// The error for a grounding of `source` stopped by `abort`.
    pub fn error(&self, abort: Abort, source: &Source) -> Error {
        let (span, msg) = match abort {
            Abort::Deadline(span) => (
                span,
                format!(
                    "grounding stopped: time limit of {:.1} s reached",
                    self.time_limit.unwrap_or_default().as_secs_f64()
                ),
            ),
            Abort::Limit(span) => (
                span,
                format!(
                    "grounding stopped: more than {} ground atoms and rules",
                    self.max_size
                ),
            ),
        };
        match span {
            Some(span) => Error::at(
                ErrorKind::ResourceLimit,
                source,
                span,
                format!("{msg} while grounding this rule"),
            ),
            None => Error::file(ErrorKind::ResourceLimit, source.name(), msg),
        }
    }
}

/// Interned terms and the relations over them: what evaluation has derived so far.
#[derive(Default)]
pub(crate) struct Database {
    pub store: TermStore,
    pub rels: FxHashMap<Sym, Relation>,
}

pub(crate) struct Evaluator<'a> {
    pub store: &'a mut TermStore,
    pub rels: &'a mut FxHashMap<Sym, Relation>,
    pub limits: &'a mut Limits,
    pub steps: u64,
    /// Join steps per rule (by index into the rules), when profiling.
    pub profile: Option<Vec<u64>>,
}

/// Per-join working memory.
struct JoinState {
    env: Vec<u32>,
    matched: Vec<u32>,
    /// candidate buffers, one per plan step
    bufs: Vec<Vec<u32>>,
    trail: Vec<Vec<u32>>,
    key: Vec<TermId>,
    head: Vec<TermId>,
}

impl<'a> Evaluator<'a> {
    pub fn new(db: &'a mut Database, limits: &'a mut Limits) -> Evaluator<'a> {
        Evaluator {
            store: &mut db.store,
            rels: &mut db.rels,
            limits,
            steps: 0,
            profile: None,
        }
    }

    fn tick(&mut self, span: Span) -> Result<(), Abort> {
        self.steps += 1;
        if self.steps & 0xFFF == 0 && self.limits.past_deadline() {
            return Err(Abort::Deadline(Some(span)));
        }
        Ok(())
    }

    /// Inserts the head of `rule` under the binding of `js` into its relation, and passes the
    /// binding to `sink`. (Kept out of the recursive [`Evaluator::join`], whose frames it would
    /// grow.)
    #[inline(never)]
    fn emit(
        &mut self,
        rule: &CRule,
        js: &mut JoinState,
        sink: &mut Option<&mut dyn Sink>,
    ) -> Result<(), Abort> {
        js.head.clear();
        for p in &rule.head {
            let t = instantiate(p, &js.env, self.store);
            js.head.push(t);
        }
        let (head, new) = self
            .rels
            .get_mut(&rule.head_pred)
            .expect("relation exists")
            .insert(&js.head, self.store);
        if new && !self.limits.take() {
            return Err(Abort::Limit(Some(rule.span)));
        }
        if let Some(sink) = sink {
            let b = Binding {
                rule,
                env: &js.env,
                matched: &js.matched,
                head,
                new,
            };
            if sink.emit(&b, self.store) && !self.limits.take() {
                return Err(Abort::Limit(Some(rule.span)));
            }
        }
        Ok(())
    }

    /// Semi-naive fixpoint of `rules` (indexes into `all`). Heads go to their relations; every
    /// binding is passed to `sink`, if any. `check_neg(p)` says whether negative literals over `p` are
    /// evaluated (relations complete by now) or ignored (the relaxation).
    pub fn fixpoint(
        &mut self,
        all: &[CRule],
        rules: &[usize],
        check_neg: &dyn Fn(Sym) -> bool,
        mut sink: Option<&mut dyn Sink>,
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
                self.limits.at(Some(rule.span));
                let deltas: Vec<Option<usize>> = if rule.pos.is_empty() {
                    if first {
                        vec![None]
                    } else {
                        vec![]
                    }
                } else {
                    (0..rule.pos.len())
                        .filter(|&d| {
                            self.rels
                                .get(&rule.pos[d].0)
                                .is_some_and(|r| r.delta_end > r.old_end)
                        })
                        .map(Some)
                        .collect()
                };
                for d in deltas {
                    let steps = plan(rule, d, self.rels, self.store, check_neg);
                    let mut js = JoinState {
                        env: vec![UNBOUND; rule.nvars],
                        matched: vec![u32::MAX; rule.pos.len()],
                        bufs: vec![Vec::new(); steps.len()],
                        trail: vec![Vec::new(); steps.len()],
                        key: Vec::new(),
                        head: Vec::new(),
                    };
                    let before = self.steps;
                    let done = self.join(rule, &steps, 0, &mut js, &mut sink);
                    if let Some(p) = self.profile.as_mut() {
                        p[ri] += self.steps - before;
                    }
                    done?;
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
        rule: &CRule,
        steps: &[Step],
        at: usize,
        js: &mut JoinState,
        sink: &mut Option<&mut dyn Sink>,
    ) -> Result<(), Abort> {
        self.tick(rule.span)?;
        let Some(step) = steps.get(at) else {
            return self.emit(rule, js, sink);
        };
        match step {
            Step::Distinct(j) => {
                let (a, b) = &rule.distinct[*j];
                if !same_term(a, b, &js.env, self.store) {
                    self.join(rule, steps, at + 1, js, sink)?;
                }
            }
            Step::Check { lit, range } => {
                let (pred, pats) = &rule.pos[*lit];
                let Some(rel) = self.rels.get(pred) else {
                    return Ok(());
                };
                let (lo, hi) = rel.range(*range);
                js.key.clear();
                for p in pats {
                    match lookup_instance(p, &js.env, self.store) {
                        Some(t) => js.key.push(t),
                        None => return Ok(()),
                    }
                }
                if let Some(i) = rel.find(&js.key).filter(|&i| lo <= i && i < hi) {
                    js.matched[*lit] = i;
                    self.join(rule, steps, at + 1, js, sink)?;
                }
            }
            Step::Neg(j) => {
                let (p, args) = &rule.neg[*j];
                let t: Option<Vec<TermId>> = args
                    .iter()
                    .map(|a| lookup_instance(a, &js.env, self.store))
                    .collect();
                let present =
                    t.is_some_and(|t| self.rels.get(p).is_some_and(|r| r.find(&t).is_some()));
                if !present {
                    self.join(rule, steps, at + 1, js, sink)?;
                }
            }
            Step::Equal(j) => {
                let (a, b) = &rule.equal[*j];
                let a_bound = CRule::vars_of(std::slice::from_ref(a))
                    .iter()
                    .all(|&v| js.env[v as usize] != UNBOUND);
                let (known, other) = if a_bound { (a, b) } else { (b, a) };
                let t = instantiate(known, &js.env, self.store);
                let mut trail = std::mem::take(&mut js.trail[at]);
                if unify(other, t, &mut js.env, &mut trail, self.store) {
                    self.join(rule, steps, at + 1, js, sink)?;
                }
                for v in trail.drain(..) {
                    js.env[v as usize] = UNBOUND;
                }
                js.trail[at] = trail;
            }
            Step::Scan {
                lit,
                range,
                index,
                keys,
            } => {
                let (pred, pats) = &rule.pos[*lit];
                let Some(rel) = self.rels.get(pred) else {
                    return Ok(());
                };
                let (lo, hi) = rel.range(*range);
                if lo >= hi {
                    return Ok(());
                }
                let mut cands = std::mem::take(&mut js.bufs[at]);
                cands.clear();
                match index {
                    Some(id) => {
                        js.key.clear();
                        js.key.extend(keys.iter().map(|l| match l {
                            Leaf::Key(k) => *k,
                            Leaf::Var(v) => TermId(js.env[*v as usize]),
                        }));
                        rel.bucket(*id, &js.key, lo, hi, &mut cands);
                    }
                    None => cands.extend(lo..hi),
                }
                let mut trail = std::mem::take(&mut js.trail[at]);
                for &i in &cands {
                    let ok = {
                        let tuple = self.rels[pred].tuple(i);
                        let store: &TermStore = self.store;
                        pats.iter()
                            .zip(tuple.iter())
                            .all(|(p, &t)| unify(p, t, &mut js.env, &mut trail, store))
                    };
                    if ok {
                        js.matched[*lit] = i;
                        self.join(rule, steps, at + 1, js, sink)?;
                    }
                    for v in trail.drain(..) {
                        js.env[v as usize] = UNBOUND;
                    }
                }
                js.trail[at] = trail;
                js.bufs[at] = cands;
            }
        }
        Ok(())
    }
}
