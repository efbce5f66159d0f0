//! [`BddEngine`] over `oxidd`: a shared, multi-threaded node table with a fixed capacity.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::hash::BuildHasherDefault;
use std::sync::{Arc, Mutex};

use num_bigint::BigUint;
use oxidd::bdd::{BDDFunction, BDDManagerRef};
use oxidd::util::{AllocResult, FxHasher, OptBool, SatCountCache};
use oxidd::{
    BooleanFunction, BooleanFunctionQuant, BooleanOperator, Function, FunctionSubst, HasLevel,
    HasWorkers, InnerNode, Manager, ManagerRef, Node, NodeID, Subst, WorkerPool,
};
use oxidd_core::util::EdgeVecDropGuard;
use oxidd_core::LevelView;

use crate::{
    check_rename_pairs, Backend, BddEngine, BddError, BddNodes, BddResult, BinaryOp, EngineConfig,
    EngineStats, StopCheck, StopReason, Var, VarSet,
};

type FxBuild = BuildHasherDefault<FxHasher>;

/// Substitutions keyed by their (sorted, non-identity) rename pairs.
type SubstCache = HashMap<Vec<(Var, Var)>, Arc<Subst<BDDFunction>>, FxBuild>;

/// Cached quantification cubes / substitutions are dropped when a cache grows past this.
const SMALL_CACHE_LIMIT: usize = 256;

/// How many times [`OxiddEngine::retry`] collects garbage and tries an operation again when the
/// node table is full (waiting 8 and 64 ms before the second and third).
const GC_RETRIES: u32 = 3;

/// The oxidd engine: one manager (unique table, apply cache, worker threads, a garbage
/// collection thread) with variables `0..num_vars` at levels `0..num_vars`.
pub struct OxiddEngine {
    manager: BDDManagerRef,
    num_vars: u32,
    node_capacity: usize,
    f: BDDFunction,
    t: BDDFunction,
    pos: Vec<BDDFunction>,
    neg: Vec<BDDFunction>,
    /// Quantification cubes (conjunctions of positive literals) per variable set.
    cubes: Mutex<HashMap<VarSet, BDDFunction, FxBuild>>,
    /// Substitutions per rename mapping: reusing one keeps its apply-cache id, so later
    /// renames hit results cached by earlier ones.
    substs: Mutex<SubstCache>,
    /// The stop check installed ([`BddEngine::set_stop_check`]); the manager asks it as a
    /// `bool` (the patched `oxidd-manager-index`, `vendor/oxidd-manager-index/PATCHED.md`),
    /// this one tells why a failed operation stopped.
    stop: Mutex<Option<StopCheck>>,
}

impl fmt::Debug for OxiddEngine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OxiddEngine")
            .field("num_vars", &self.num_vars)
            .field("node_capacity", &self.node_capacity)
            .finish_non_exhaustive()
    }
}

/// An oxidd BDD handle (a reference-counted edge into the engine's node table). `==`
/// compares functions (canonical edges).
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct OxiddBdd(BDDFunction);

impl fmt::Debug for OxiddBdd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.valid() {
            write!(f, "OxiddBdd(true)")
        } else if !self.0.satisfiable() {
            write!(f, "OxiddBdd(false)")
        } else {
            write!(f, "OxiddBdd({} nodes)", self.0.node_count())
        }
    }
}

impl OxiddEngine {
    /// Runs `job` on this engine from inside its worker pool (see [`Backend::run`]).
    pub(crate) fn run_job<R: Send, J: crate::EngineJob<R> + Send>(self, job: J) -> R {
        let manager = self.manager.clone();
        let workers = manager.workers();
        if workers.current_num_threads() > 1 {
            workers.install(move || job.run(self))
        } else {
            job.run(self)
        }
    }

    fn oom(&self) -> BddError {
        BddError::OutOfMemory {
            backend: Backend::Oxidd,
            node_capacity: self.node_capacity,
        }
    }

    /// Why the installed stop check stops the run, if it does.
    fn stopped(&self) -> Option<StopReason> {
        let check = self.stop.lock().unwrap_or_else(|e| e.into_inner()).clone();
        check.and_then(|c| c())
    }

    /// The error of an operation that could not create a node: stopped from inside by the
    /// stop check, or the node table full.
    fn alloc_failed(&self) -> BddError {
        self.stopped().map_or_else(|| self.oom(), BddError::Stopped)
    }

    /// Run `op`; if the node table is full, collect garbage and try again. An operation
    /// stopped by the stop check fails at once with [`BddError::Stopped`].
    ///
    /// oxidd also collects on a thread of its own once the table is 95 % full, and a collection
    /// asked for while that one runs returns at once, collecting nothing: so after a failed try
    /// the collection is asked for again after a short wait, up to [`GC_RETRIES`] times. With
    /// one try, a solve of queens08lg in 2^22 nodes failed once with "out of nodes" on a busy
    /// machine (its largest layer then 175,341 nodes), where six runs on a quieter one passed
    /// (largest layer 221,530 nodes): most likely this race.
    fn retry<T>(&self, op: impl Fn() -> AllocResult<T>) -> BddResult<T> {
        if let Ok(x) = op() {
            return Ok(x);
        }
        for attempt in 0..GC_RETRIES {
            if let Some(why) = self.stopped() {
                return Err(BddError::Stopped(why));
            }
            if attempt > 0 {
                std::thread::sleep(std::time::Duration::from_millis(1 << (3 * attempt)));
            }
            self.gc();
            if let Ok(x) = op() {
                return Ok(x);
            }
        }
        Err(self.alloc_failed())
    }

    fn wrap(&self, op: impl Fn() -> AllocResult<BDDFunction>) -> BddResult<OxiddBdd> {
        self.retry(op).map(OxiddBdd)
    }

    /// Imports an ordered node table (each node's variable above its children's) by inserting
    /// its nodes into the levels' unique tables; `None` if the table is not ordered, an error
    /// if the node table is full.
    fn import_ordered(&self, nodes: &BddNodes) -> Option<AllocResult<BDDFunction>> {
        self.f.with_manager_shared(|manager, f_edge| {
            let t_edge = self.t.as_edge(manager);
            let mut done =
                EdgeVecDropGuard::new(manager, Vec::with_capacity(nodes.nodes.len() + 2));
            // The level of each entry of `done` (terminals below every level).
            let mut levels: Vec<u32> = Vec::with_capacity(nodes.nodes.len() + 2);
            done.push(manager.clone_edge(f_edge));
            done.push(manager.clone_edge(t_edge));
            levels.extend([u32::MAX, u32::MAX]);
            for &(var, low, high) in &nodes.nodes {
                let (low, high) = (low as usize, high as usize);
                if var >= levels[low] || var >= levels[high] {
                    return None;
                }
                let hi = manager.clone_edge(done[high].borrowed());
                let lo = manager.clone_edge(done[low].borrowed());
                let edge = if hi == lo {
                    manager.drop_edge(lo);
                    hi
                } else {
                    let node = oxidd_core::InnerNode::new(var, [hi, lo]);
                    match manager.level(var).get_or_insert(node) {
                        Ok(e) => e,
                        Err(e) => return Some(Err(e)),
                    }
                };
                levels.push(if edge == done[high] {
                    levels[high]
                } else {
                    var
                });
                done.push(edge);
            }
            let mut all = done.into_vec();
            let root = all.swap_remove(nodes.root as usize);
            for e in all {
                manager.drop_edge(e);
            }
            Some(Ok(BDDFunction::from_edge(manager, root)))
        })
    }

    fn check_var(&self, var: Var) -> usize {
        assert!(
            var < self.num_vars,
            "variable {var} out of range (num_vars {})",
            self.num_vars
        );
        var as usize
    }

    /// The conjunction of the positive literals of `vars` (cached).
    fn var_cube(&self, vars: &VarSet) -> BddResult<BDDFunction> {
        if let Some(c) = self.cubes.lock().expect("cube cache poisoned").get(vars) {
            return Ok(c.clone());
        }
        let mut acc = self.t.clone();
        for v in vars.as_slice().iter().rev() {
            let p = &self.pos[self.check_var(*v)];
            acc = self.retry(|| p.and(&acc))?;
        }
        let mut cache = self.cubes.lock().expect("cube cache poisoned");
        if cache.len() >= SMALL_CACHE_LIMIT {
            cache.clear();
        }
        cache.insert(vars.clone(), acc.clone());
        Ok(acc)
    }

    /// The conjunction of literals, last value winning for a repeated variable.
    fn literal_cube(&self, literals: &[(Var, bool)]) -> BddResult<BDDFunction> {
        let mut values: Vec<Option<bool>> = vec![None; self.num_vars as usize];
        for &(v, b) in literals {
            values[self.check_var(v)] = Some(b);
        }
        let mut acc = self.t.clone();
        for (v, b) in values.iter().enumerate().rev() {
            if let Some(b) = b {
                let lit = if *b { &self.pos[v] } else { &self.neg[v] };
                acc = self.retry(|| lit.and(&acc))?;
            }
        }
        Ok(acc)
    }

    /// Visit every inner node reachable from `f` once, with its level.
    fn for_each_level(&self, f: &BDDFunction, mut visit: impl FnMut(u32)) {
        f.with_manager_shared(|manager, root| {
            let mut seen: HashSet<NodeID, FxBuild> = HashSet::default();
            let mut stack = vec![root];
            while let Some(e) = stack.pop() {
                if let Node::Inner(node) = manager.get_node(e) {
                    if seen.insert(e.node_id()) {
                        visit(node.level());
                        stack.push(node.child(0));
                        stack.push(node.child(1));
                    }
                }
            }
        })
    }
}

impl BddEngine for OxiddEngine {
    type Bdd = OxiddBdd;

    const BACKEND: Backend = Backend::Oxidd;

    fn new(num_vars: u32, config: &EngineConfig) -> BddResult<Self> {
        // Terminals take two of the 2^32 node ids.
        let node_capacity = config.node_capacity.clamp(64, (1usize << 32) - 2);
        let needed = 2 * num_vars as usize + 16;
        if node_capacity < needed {
            return Err(BddError::OutOfMemory {
                backend: Backend::Oxidd,
                node_capacity,
            });
        }
        let threads = u32::try_from(config.threads).unwrap_or(u32::MAX);
        let manager = oxidd::bdd::new_manager(node_capacity, config.cache_capacity.max(1), threads);
        let built = manager.with_manager_exclusive(|m| -> AllocResult<_> {
            m.add_vars(num_vars);
            let f = BDDFunction::f(m);
            let t = BDDFunction::t(m);
            let pos = (0..num_vars)
                .map(|v| BDDFunction::var(m, v))
                .collect::<AllocResult<Vec<_>>>()?;
            let neg = (0..num_vars)
                .map(|v| BDDFunction::not_var(m, v))
                .collect::<AllocResult<Vec<_>>>()?;
            Ok((f, t, pos, neg))
        });
        let (f, t, pos, neg) = built.map_err(|_| BddError::OutOfMemory {
            backend: Backend::Oxidd,
            node_capacity,
        })?;
        Ok(OxiddEngine {
            manager,
            num_vars,
            node_capacity,
            f,
            t,
            pos,
            neg,
            cubes: Mutex::default(),
            substs: Mutex::default(),
            stop: Mutex::default(),
        })
    }

    fn num_vars(&self) -> u32 {
        self.num_vars
    }

    fn constant(&self, value: bool) -> OxiddBdd {
        let function = if value { &self.t } else { &self.f };
        OxiddBdd(function.clone())
    }

    fn literal(&self, var: Var, value: bool) -> OxiddBdd {
        let literals = if value { &self.pos } else { &self.neg };
        OxiddBdd(literals[self.check_var(var)].clone())
    }

    fn cube(&self, literals: &[(Var, bool)]) -> BddResult<OxiddBdd> {
        // Conflicting literals give false (a conjunction), unlike `restrict`.
        let mut sorted = literals.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        if sorted.windows(2).any(|w| w[0].0 == w[1].0) {
            return Ok(self.constant(false));
        }
        self.literal_cube(&sorted).map(OxiddBdd)
    }

    fn not(&self, f: &OxiddBdd) -> BddResult<OxiddBdd> {
        self.wrap(|| f.0.not())
    }

    fn apply(&self, op: BinaryOp, f: &OxiddBdd, g: &OxiddBdd) -> BddResult<OxiddBdd> {
        let (f, g) = (&f.0, &g.0);
        self.wrap(|| match op {
            BinaryOp::And => f.and(g),
            BinaryOp::Or => f.or(g),
            BinaryOp::Xor => f.xor(g),
            BinaryOp::Iff => f.equiv(g),
            // `a.imp_strict(b)` is `!a & b`.
            BinaryOp::AndNot => g.imp_strict(f),
            BinaryOp::Imp => f.imp(g),
        })
    }

    fn ite(&self, c: &OxiddBdd, t: &OxiddBdd, e: &OxiddBdd) -> BddResult<OxiddBdd> {
        self.wrap(|| c.0.ite(&t.0, &e.0))
    }

    fn exists(&self, f: &OxiddBdd, vars: &VarSet) -> BddResult<OxiddBdd> {
        if vars.is_empty() {
            return Ok(f.clone());
        }
        let cube = self.var_cube(vars)?;
        self.wrap(|| f.0.exists(&cube))
    }

    fn forall(&self, f: &OxiddBdd, vars: &VarSet) -> BddResult<OxiddBdd> {
        if vars.is_empty() {
            return Ok(f.clone());
        }
        let cube = self.var_cube(vars)?;
        self.wrap(|| f.0.forall(&cube))
    }

    fn and_exists(&self, f: &OxiddBdd, g: &OxiddBdd, vars: &VarSet) -> BddResult<OxiddBdd> {
        if vars.is_empty() {
            return self.and(f, g);
        }
        let cube = self.var_cube(vars)?;
        self.wrap(|| f.0.apply_exists(BooleanOperator::And, &g.0, &cube))
    }

    fn rename(&self, f: &OxiddBdd, pairs: &[(Var, Var)]) -> BddResult<OxiddBdd> {
        check_rename_pairs(pairs, self.num_vars);
        let mut key: Vec<(Var, Var)> = pairs.iter().copied().filter(|(a, b)| a != b).collect();
        if key.is_empty() {
            return Ok(f.clone());
        }
        key.sort_unstable();
        let cached = self
            .substs
            .lock()
            .expect("substitution cache poisoned")
            .get(&key)
            .cloned();
        let subst = match cached {
            Some(s) => s,
            None => {
                let vars: Vec<Var> = key.iter().map(|&(from, _)| from).collect();
                let repl: Vec<BDDFunction> = key
                    .iter()
                    .map(|&(_, to)| self.pos[to as usize].clone())
                    .collect();
                let s = Arc::new(Subst::new(vars, repl));
                let mut cache = self.substs.lock().expect("substitution cache poisoned");
                if cache.len() >= SMALL_CACHE_LIMIT {
                    cache.clear();
                }
                cache.insert(key, Arc::clone(&s));
                s
            }
        };
        // oxidd substitutes by Shannon expansion with an `ite` per node; for an
        // order-preserving mapping each `ite` just rebuilds the node one level up or down.
        self.wrap(|| f.0.substitute(&*subst))
    }

    fn restrict(&self, f: &OxiddBdd, assignment: &[(Var, bool)]) -> BddResult<OxiddBdd> {
        if assignment.is_empty() {
            return Ok(f.clone());
        }
        let cube = self.literal_cube(assignment)?;
        self.wrap(|| f.0.restrict(&cube))
    }

    fn is_false(&self, f: &OxiddBdd) -> bool {
        f.0 == self.f
    }

    fn is_true(&self, f: &OxiddBdd) -> bool {
        f.0 == self.t
    }

    fn node_count(&self, f: &OxiddBdd) -> usize {
        f.0.node_count()
    }

    // A depth-first search over pairs of nodes for a path to true in both, each pair searched
    // once: it makes no node (no unique-table or cache traffic, as `and` would) and ends at
    // the first satisfying path, so a move legal somewhere in a large layer costs a path,
    // not a pass over the layer.
    fn disjoint(
        &self,
        f: &OxiddBdd,
        g: &OxiddBdd,
        stop: &dyn Fn() -> bool,
    ) -> BddResult<Option<bool>> {
        if f.0 == self.f || g.0 == self.f {
            return Ok(Some(true));
        }
        Ok(f.0.with_manager_shared(|manager, fr| {
            let no = self.f.as_edge(manager).node_id();
            let gr = g.0.as_edge(manager);
            let mut seen: HashSet<(NodeID, NodeID), FxBuild> = HashSet::default();
            let mut stack = vec![(fr, gr)];
            let mut steps = 0u32;
            while let Some((a, b)) = stack.pop() {
                steps = steps.wrapping_add(1);
                if steps.is_multiple_of(4096) && stop() {
                    return None;
                }
                let (ia, ib) = (a.node_id(), b.node_id());
                if ia == no || ib == no {
                    continue;
                }
                // A BDD other than false has a satisfying path, and so has the AND of a
                // function with itself or with true.
                let (Node::Inner(x), Node::Inner(y)) = (manager.get_node(a), manager.get_node(b))
                else {
                    return Some(false);
                };
                if ia == ib {
                    return Some(false);
                }
                if !seen.insert((ia, ib)) {
                    continue;
                }
                let level = x.level().min(y.level());
                let (a0, a1) = if x.level() == level {
                    (x.child(0), x.child(1))
                } else {
                    (a, a)
                };
                let (b0, b1) = if y.level() == level {
                    (y.child(0), y.child(1))
                } else {
                    (b, b)
                };
                stack.push((a1, b1));
                stack.push((a0, b0));
            }
            Some(true)
        }))
    }

    // oxidd's own count marks nodes in a bit set as large as the node table: a bounded walk
    // is what a frequent size check needs.
    fn node_count_exceeds(&self, f: &OxiddBdd, cap: usize) -> bool {
        // Called per step of every gate compiled within a layer (with a cap of a few hundred
        // nodes): the set is kept between calls, so that a call neither allocates nor rehashes
        // it (growing a fresh set to 256 entries cost more than the walk itself).
        // Large caps (the clustering's 50,000 nodes) have a kept set of their own: clearing
        // it costs a pass over its capacity, which small checks must not pay.
        thread_local! {
            static SEEN: std::cell::RefCell<HashSet<NodeID, FxBuild>> =
                std::cell::RefCell::default();
            static SEEN_LARGE: std::cell::RefCell<HashSet<NodeID, FxBuild>> =
                std::cell::RefCell::default();
        }
        const KEPT: usize = 1 << 12;
        const KEPT_LARGE: usize = 1 << 20;
        let kept = if cap < KEPT { &SEEN } else { &SEEN_LARGE };
        kept.with(|kept| {
            let mut fresh = HashSet::default();
            let mut borrowed = kept.try_borrow_mut();
            // Beyond a million nodes the set is not kept (it would hold its memory for good).
            let seen = match borrowed.as_deref_mut() {
                Ok(set) if cap <= KEPT_LARGE => set,
                _ => &mut fresh,
            };
            seen.clear();
            f.0.with_manager_shared(|manager, root| {
                let mut stack = Vec::with_capacity(64);
                stack.push(root);
                while let Some(e) = stack.pop() {
                    if !seen.insert(e.node_id()) {
                        continue;
                    }
                    if seen.len() > cap {
                        return true;
                    }
                    if let Node::Inner(node) = manager.get_node(e) {
                        stack.push(node.child(0));
                        stack.push(node.child(1));
                    }
                }
                false
            })
        })
    }

    fn sat_count(&self, f: &OxiddBdd, n_vars: u32) -> BigUint {
        let mut max: Option<u32> = None;
        self.for_each_level(&f.0, |l| max = max.max(Some(l)));
        if let Some(max) = max {
            assert!(
                max < n_vars,
                "sat_count: the BDD depends on variable {max}, not below n_vars {n_vars}"
            );
        }
        let mut cache: SatCountCache<BigUint, FxBuild> = SatCountCache::default();
        f.0.sat_count(n_vars, &mut cache)
    }

    fn pick_one(&self, f: &OxiddBdd) -> Option<Vec<(Var, bool)>> {
        // Choosing `false` whenever both children are satisfiable follows the low edges.
        let cube = f.0.pick_cube(|_, _, _| false)?;
        Some(
            cube.into_iter()
                .enumerate()
                .filter_map(|(v, b)| match b {
                    OptBool::True => Some((v as Var, true)),
                    OptBool::False => Some((v as Var, false)),
                    OptBool::None => None,
                })
                .collect(),
        )
    }

    fn eval(&self, f: &OxiddBdd, assignment: &[bool]) -> bool {
        let n = (self.num_vars as usize).min(assignment.len());
        f.0.eval(
            assignment[..n]
                .iter()
                .enumerate()
                .map(|(v, &b)| (v as Var, b)),
        )
    }

    fn support(&self, f: &OxiddBdd) -> Vec<Var> {
        let mut seen = vec![false; self.num_vars as usize];
        self.for_each_level(&f.0, |l| seen[l as usize] = true);
        (0..self.num_vars).filter(|&v| seen[v as usize]).collect()
    }

    fn export(&self, f: &OxiddBdd) -> BddNodes {
        f.0.with_manager_shared(|manager, root| {
            let mut ids: HashMap<NodeID, u32, FxBuild> = HashMap::default();
            ids.insert(self.f.as_edge(manager).node_id(), 0);
            ids.insert(self.t.as_edge(manager).node_id(), 1);
            let mut nodes: Vec<(Var, u32, u32)> = Vec::new();
            let mut stack = vec![root];
            while let Some(&e) = stack.last() {
                if ids.contains_key(&e.node_id()) {
                    stack.pop();
                    continue;
                }
                let Node::Inner(node) = manager.get_node(e) else {
                    unreachable!("terminals are pre-registered")
                };
                // Child 0 is the "then" (true) edge, child 1 the "else" edge.
                let (high, low) = (node.child(0), node.child(1));
                let h = ids.get(&high.node_id()).copied();
                let l = ids.get(&low.node_id()).copied();
                match (l, h) {
                    (Some(l), Some(h)) => {
                        nodes.push((node.level(), l, h));
                        ids.insert(e.node_id(), nodes.len() as u32 + 1);
                        stack.pop();
                    }
                    _ => {
                        if l.is_none() {
                            stack.push(low);
                        }
                        if h.is_none() {
                            stack.push(high);
                        }
                    }
                }
            }
            BddNodes {
                num_vars: self.num_vars,
                nodes,
                root: ids[&root.node_id()],
            }
        })
    }

    fn import(&self, nodes: &BddNodes) -> BddResult<OxiddBdd> {
        nodes.validate(self.num_vars)?;
        // An ordered table (every export is) goes straight into the unique tables; any other
        // table, or a full node table, through `ite` (which reduces and orders, and collects
        // garbage when the table is full).
        if let Some(Ok(f)) = self.import_ordered(nodes) {
            return Ok(OxiddBdd(f));
        }
        // One tiny operation a node. Run from outside the worker pool, every operation that
        // splits (with more than one thread) hands its work to a worker and waits for it:
        // 18 s for a table of 1.45 M nodes on two threads, against 0.9 s run inside the pool.
        let import = || {
            let mut done: Vec<BDDFunction> = Vec::with_capacity(nodes.nodes.len() + 2);
            done.push(self.f.clone());
            done.push(self.t.clone());
            for &(var, low, high) in &nodes.nodes {
                let (v, l, h) = (
                    &self.pos[var as usize],
                    &done[low as usize],
                    &done[high as usize],
                );
                // Equal to inserting the node when the table is ordered; correct in any case.
                let r = self.retry(|| v.ite(h, l))?;
                done.push(r);
            }
            Ok(OxiddBdd(done.swap_remove(nodes.root as usize)))
        };
        let workers = self.manager.workers();
        if workers.current_num_threads() > 1 {
            workers.install(import)
        } else {
            import()
        }
    }

    fn stats(&self) -> EngineStats {
        let (live, gc_runs) = self
            .manager
            .with_manager_shared(|m| (m.num_inner_nodes(), m.gc_count()));
        EngineStats {
            backend: Backend::Oxidd,
            num_vars: self.num_vars,
            live_nodes: Some(live),
            node_capacity: Some(self.node_capacity),
            gc_runs,
        }
    }

    fn gc(&self) -> usize {
        self.manager.with_manager_shared(|m| m.gc())
    }

    fn stops_inside(&self) -> bool {
        true
    }

    fn set_stop_check(&self, check: Option<StopCheck>) -> Option<StopCheck> {
        let asked = check.clone().map(|c| {
            std::sync::Arc::new(move || c().is_some())
                as std::sync::Arc<dyn Fn() -> bool + Send + Sync>
        });
        self.manager
            .with_manager_shared(|m| m.set_stop_check(asked));
        std::mem::replace(
            &mut *self.stop.lock().unwrap_or_else(|e| e.into_inner()),
            check,
        )
    }
}
