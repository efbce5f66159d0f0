//! [`BddEngine`] over `biodivine-lib-bdd`: every BDD owns its node vector.
//!
//! An engine with a deadline ([`BiodivineEngine::with_budget`]) stops its operations inside:
//! biodivine calls back the operation's function (or its quantifier trigger) once per step,
//! and every [`CHECK_EVERY`] calls the callback reads the clock and, once the deadline has
//! passed, unwinds out of the operation with [`DeadlinePassed`] (without the panic hook, so
//! nothing is printed), caught around the operation and turned into [`BddError::Budget`].
//! The operation's own state (its task stack, cache and partial result) is local to it and is
//! dropped by the unwind; its inputs are only read. This needs `panic = "unwind"` (the
//! default; the workspace never sets `abort`).

use std::cell::Cell;
use std::collections::HashMap;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::time::{Duration, Instant};

use biodivine_lib_bdd::{op_function, Bdd, BddNode, BddPointer, BddVariable, BddVariableSet};
use num_bigint::BigUint;

use crate::{
    check_rename_pairs, Backend, BddEngine, BddError, BddNodes, BddResult, BinaryOp, EngineConfig,
    EngineStats, Var, VarSet,
};

/// The biodivine engine: variables `0..num_vars` (at most 65 535). Creating it is free;
/// it holds no shared state, so handles are plain values and memory is freed when they drop.
#[derive(Clone, Debug)]
pub struct BiodivineEngine {
    vars: BddVariableSet,
    num_vars: u32,
    budget: OpBudget,
}

/// The budget of every operation of an engine made by [`BiodivineEngine::with_budget`].
#[derive(Clone, Copy, Debug, Default)]
struct OpBudget {
    /// No operation starts after this instant, and binary operations and quantifications stop
    /// inside once it passes.
    deadline: Option<Instant>,
    /// No binary operation builds a result of more nodes (it gives up while building).
    max_nodes: Option<usize>,
    /// No binary operation or quantification runs longer than this (it stops inside).
    max_op_time: Option<Duration>,
}

/// How many callbacks of an operation pass between two readings of the clock (a reading costs
/// tens of nanoseconds, a callback a few).
const CHECK_EVERY: u32 = 1 << 14;

/// The payload of the unwind that ends an operation past its deadline.
struct DeadlinePassed;

/// Counts an operation's callbacks and ends the operation (see the module documentation)
/// once its deadline has passed.
struct Ticker {
    deadline: Option<Instant>,
    calls: Cell<u32>,
}

impl Ticker {
    /// One callback: every [`CHECK_EVERY`] calls, unwinds if the deadline has passed.
    #[inline]
    fn tick(&self) {
        if let Some(d) = self.deadline {
            let n = self.calls.get().wrapping_add(1);
            self.calls.set(n);
            if n.is_multiple_of(CHECK_EVERY) && Instant::now() >= d {
                std::panic::resume_unwind(Box::new(DeadlinePassed));
            }
        }
    }
}

/// A biodivine BDD handle (an owned node vector). `==` compares functions.
#[derive(Clone)]
pub struct BiodivineBdd(Bdd);

impl fmt::Debug for BiodivineBdd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.as_bool() {
            Some(b) => write!(f, "BiodivineBdd({b})"),
            None => write!(f, "BiodivineBdd({} nodes)", self.0.size()),
        }
    }
}

impl PartialEq for BiodivineBdd {
    /// Reduced ordered BDDs of the same function are isomorphic; biodivine usually also lays
    /// them out identically, which the fast path checks first.
    fn eq(&self, other: &Self) -> bool {
        let (a, b) = (&self.0, &other.0);
        if a.size() != b.size() || a.num_vars() != b.num_vars() {
            return false;
        }
        if a == b {
            return true;
        }
        // Structural isomorphism from the roots (label-preserving map a -> b).
        let mut map = vec![u32::MAX; a.size()];
        map[0] = 0;
        if map.len() > 1 {
            map[1] = 1;
        }
        let mut stack = vec![(a.root_pointer(), b.root_pointer())];
        while let Some((pa, pb)) = stack.pop() {
            let ia = pa.to_index();
            if map[ia] != u32::MAX {
                if map[ia] as usize != pb.to_index() {
                    return false;
                }
                continue;
            }
            if pb.is_terminal() || a.var_of(pa) != b.var_of(pb) {
                return false;
            }
            map[ia] = pb.to_index() as u32;
            stack.push((a.low_link_of(pa), b.low_link_of(pb)));
            stack.push((a.high_link_of(pa), b.high_link_of(pb)));
        }
        true
    }
}

impl Eq for BiodivineBdd {}

impl Hash for BiodivineBdd {
    fn hash<H: Hasher>(&self, state: &mut H) {
        // Consistent with `eq`: isomorphic BDDs have the same size and root variable.
        self.0.size().hash(state);
        self.0.var_of(self.0.root_pointer()).to_index().hash(state);
    }
}

/// Which quantifier [`BiodivineEngine::quantify`] applies.
#[derive(Clone, Copy)]
enum Quantifier {
    Exists,
    ForAll,
}

impl BiodivineEngine {
    /// This engine with a budget on every operation: none starts after `deadline`, binary
    /// operations and quantifications stop inside once it passes (see the module
    /// documentation), and a binary operation (`and`, `or`, ...) whose result would pass
    /// `max_nodes` nodes gives up while building it. Both fail with [`BddError::Budget`], so a caller can give up
    /// soundly instead of waiting on one huge operation.
    pub fn with_budget(mut self, deadline: Option<Instant>, max_nodes: Option<usize>) -> Self {
        self.budget = OpBudget {
            deadline,
            max_nodes,
            ..self.budget
        };
        self
    }

    /// This engine with no binary operation or quantification running longer than `limit`:
    /// past it, the operation stops inside (as at the deadline of [`Self::with_budget`]) and
    /// fails with [`BddError::Budget`]. For a caller that gives up soundly, where one long
    /// operation rarely ends in a result it can use (the mutex proof: an operation that had
    /// not returned after a second ran to the proof's deadline, 12 s of a 60-s search).
    pub fn with_operation_time(mut self, limit: Option<Duration>) -> Self {
        self.budget.max_op_time = limit;
        self
    }

    /// Fails once the deadline of the budget has passed.
    fn check_deadline(&self) -> BddResult<()> {
        match self.budget.deadline {
            Some(d) if Instant::now() >= d => Err(BddError::Budget("deadline passed".into())),
            _ => Ok(()),
        }
    }

    /// `op` (one biodivine operation whose callbacks call [`Ticker::tick`]), stopped inside
    /// with [`BddError::Budget`] once the deadline of the budget passes; not started after it.
    fn interruptible<R>(&self, op: impl FnOnce(&Ticker) -> R) -> BddResult<R> {
        self.check_deadline()?;
        let own = self
            .budget
            .max_op_time
            .and_then(|t| Instant::now().checked_add(t));
        let deadline = match (self.budget.deadline, own) {
            (Some(d), Some(o)) => Some(d.min(o)),
            (d, o) => d.or(o),
        };
        let ticker = Ticker {
            deadline,
            calls: Cell::new(0),
        };
        if ticker.deadline.is_none() {
            return Ok(op(&ticker));
        }
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| op(&ticker))) {
            Ok(r) => Ok(r),
            Err(payload) if payload.is::<DeadlinePassed>() => {
                // The operation's own time ended it unless the engine's deadline has passed.
                Err(BddError::Budget(match self.budget.max_op_time {
                    Some(t) if self.check_deadline().is_ok() => {
                        format!("an operation ran past {:.1} s", t.as_secs_f64())
                    }
                    _ => "deadline passed inside an operation".into(),
                }))
            }
            Err(payload) => std::panic::resume_unwind(payload),
        }
    }

    /// `exists vars. f` or `forall vars. f`.
    fn quantify(
        &self,
        f: &BiodivineBdd,
        vars: &VarSet,
        quantifier: Quantifier,
    ) -> BddResult<BiodivineBdd> {
        self.check_deadline()?;
        if vars.is_empty() || f.0.as_bool().is_some() {
            return Ok(f.clone());
        }
        let mask = self.mask(vars);
        let bound = |v: BddVariable| mask[v.to_index()];
        self.interruptible(|t| {
            // `f & f` with the variables quantified, as biodivine's own `exists_trigger`.
            let and = |a, b| {
                t.tick();
                op_function::and(a, b)
            };
            BiodivineBdd(match quantifier {
                Quantifier::Exists => Bdd::binary_op_with_exists_trigger(&f.0, &f.0, bound, and),
                Quantifier::ForAll => Bdd::binary_op_with_for_all_trigger(&f.0, &f.0, bound, and),
            })
        })
    }

    /// `op(f, g)` within the budget.
    fn binary(
        &self,
        f: &BiodivineBdd,
        g: &BiodivineBdd,
        op: fn(Option<bool>, Option<bool>) -> Option<bool>,
    ) -> BddResult<BiodivineBdd> {
        let built = self.interruptible(|t| {
            let op = |a, b| {
                t.tick();
                op(a, b)
            };
            match self.budget.max_nodes {
                None => Some(Bdd::binary_op(&f.0, &g.0, op)),
                Some(max) => Bdd::binary_op_with_limit(max, &f.0, &g.0, op),
            }
        })?;
        built.map(BiodivineBdd).ok_or_else(|| {
            let max = self.budget.max_nodes.unwrap_or_default();
            BddError::Budget(format!("a result of more than {max} nodes"))
        })
    }

    fn bvar(&self, var: Var) -> BddVariable {
        assert!(
            var < self.num_vars,
            "variable {var} out of range (num_vars {})",
            self.num_vars
        );
        BddVariable::from_index(var as usize)
    }

    /// Membership table of `vars` indexed by variable.
    fn mask(&self, vars: &VarSet) -> Vec<bool> {
        if let Some(max) = vars.max_var() {
            assert!(
                max < self.num_vars,
                "variable {max} out of range (num_vars {})",
                self.num_vars
            );
        }
        vars.to_mask(self.num_vars as usize)
    }

    /// Largest variable in `f`, if any.
    fn max_var(f: &Bdd) -> Option<usize> {
        f.pointers().skip(2).map(|p| f.var_of(p).to_index()).max()
    }

    /// Substitute `map[var]` for every variable by Shannon expansion, bottom-up. Correct for
    /// any mapping (and any acyclic table), but costs one `ite` per node.
    fn build_by_ite(
        &self,
        table: impl Iterator<Item = (Var, u32, u32)>,
        root: u32,
        map: impl Fn(Var) -> Var,
    ) -> Bdd {
        let mut done: Vec<Bdd> = vec![self.vars.mk_false(), self.vars.mk_true()];
        for (var, low, high) in table {
            let lit = self.vars.mk_var(self.bvar(map(var)));
            let r = Bdd::if_then_else(&lit, &done[high as usize], &done[low as usize]);
            done.push(r);
        }
        done.swap_remove(root as usize)
    }

    /// Build a canonical biodivine BDD from an ordered table (every node's variable is
    /// smaller than its inner children's): reduce, then keep only the nodes reachable from
    /// the root, in the depth-first post-order biodivine itself produces.
    fn build_ordered(&self, table: &[(Var, u32, u32)], root: u32) -> Bdd {
        // 1. Reduce: canonical id per table reference (0, 1 terminals; k >= 2 -> red[k - 2]).
        let mut canon: Vec<u32> = Vec::with_capacity(table.len() + 2);
        canon.push(0);
        canon.push(1);
        let mut red: Vec<(Var, u32, u32)> = Vec::with_capacity(table.len());
        let mut unique: HashMap<(Var, u32, u32), u32> = HashMap::with_capacity(table.len());
        for &(var, low, high) in table {
            let (l, h) = (canon[low as usize], canon[high as usize]);
            let id = if l == h {
                l
            } else {
                *unique.entry((var, l, h)).or_insert_with(|| {
                    red.push((var, l, h));
                    red.len() as u32 + 1
                })
            };
            canon.push(id);
        }
        let root = canon[root as usize];
        match root {
            0 => return self.vars.mk_false(),
            1 => return self.vars.mk_true(),
            _ => {}
        }
        // 2. Compact in post-order (high child first, as biodivine's apply does).
        let n = self.vars.num_vars();
        let mut out = vec![BddNode::mk_zero(n), BddNode::mk_one(n)];
        let mut new_id = vec![u32::MAX; red.len() + 2];
        new_id[0] = 0;
        new_id[1] = 1;
        let mut stack = vec![root];
        while let Some(&top) = stack.last() {
            if new_id[top as usize] != u32::MAX {
                stack.pop();
                continue;
            }
            let (var, low, high) = red[top as usize - 2];
            let (nl, nh) = (new_id[low as usize], new_id[high as usize]);
            if nl != u32::MAX && nh != u32::MAX {
                out.push(BddNode::mk_node(
                    BddVariable::from_index(var as usize),
                    BddPointer::from_index(nl as usize),
                    BddPointer::from_index(nh as usize),
                ));
                new_id[top as usize] = out.len() as u32 - 1;
                stack.pop();
            } else {
                if nl == u32::MAX {
                    stack.push(low);
                }
                if nh == u32::MAX {
                    stack.push(high);
                }
            }
        }
        Bdd::from_nodes(&out).expect("internal error: built an invalid biodivine BDD")
    }
}

impl BddEngine for BiodivineEngine {
    type Bdd = BiodivineBdd;

    const BACKEND: Backend = Backend::Biodivine;

    fn new(num_vars: u32, _config: &EngineConfig) -> BddResult<Self> {
        let n = u16::try_from(num_vars).map_err(|_| BddError::TooManyVariables {
            backend: Backend::Biodivine,
            requested: num_vars,
            max: u32::from(u16::MAX),
        })?;
        Ok(BiodivineEngine {
            vars: BddVariableSet::new_anonymous(n),
            num_vars,
            budget: OpBudget::default(),
        })
    }

    fn num_vars(&self) -> u32 {
        self.num_vars
    }

    fn constant(&self, value: bool) -> BiodivineBdd {
        BiodivineBdd(if value {
            self.vars.mk_true()
        } else {
            self.vars.mk_false()
        })
    }

    fn literal(&self, var: Var, value: bool) -> BiodivineBdd {
        BiodivineBdd(self.vars.mk_literal(self.bvar(var), value))
    }

    fn not(&self, f: &BiodivineBdd) -> BddResult<BiodivineBdd> {
        Ok(BiodivineBdd(f.0.not()))
    }

    fn apply(&self, op: BinaryOp, f: &BiodivineBdd, g: &BiodivineBdd) -> BddResult<BiodivineBdd> {
        let function: fn(Option<bool>, Option<bool>) -> Option<bool> = match op {
            BinaryOp::And => op_function::and,
            BinaryOp::Or => op_function::or,
            BinaryOp::Xor => op_function::xor,
            BinaryOp::Iff => op_function::iff,
            BinaryOp::AndNot => op_function::and_not,
            BinaryOp::Imp => op_function::imp,
        };
        self.binary(f, g, function)
    }

    fn ite(&self, c: &BiodivineBdd, t: &BiodivineBdd, e: &BiodivineBdd) -> BddResult<BiodivineBdd> {
        self.check_deadline()?;
        Ok(BiodivineBdd(Bdd::if_then_else(&c.0, &t.0, &e.0)))
    }

    fn exists(&self, f: &BiodivineBdd, vars: &VarSet) -> BddResult<BiodivineBdd> {
        self.quantify(f, vars, Quantifier::Exists)
    }

    fn forall(&self, f: &BiodivineBdd, vars: &VarSet) -> BddResult<BiodivineBdd> {
        self.quantify(f, vars, Quantifier::ForAll)
    }

    fn and_exists(
        &self,
        f: &BiodivineBdd,
        g: &BiodivineBdd,
        vars: &VarSet,
    ) -> BddResult<BiodivineBdd> {
        if vars.is_empty() {
            return self.and(f, g);
        }
        let mask = self.mask(vars);
        self.interruptible(|t| {
            let and = |a, b| {
                t.tick();
                op_function::and(a, b)
            };
            BiodivineBdd(Bdd::binary_op_with_exists_trigger(
                &f.0,
                &g.0,
                |v| mask[v.to_index()],
                and,
            ))
        })
    }

    fn rename(&self, f: &BiodivineBdd, pairs: &[(Var, Var)]) -> BddResult<BiodivineBdd> {
        check_rename_pairs(pairs, self.num_vars);
        if f.0.as_bool().is_some() || pairs.iter().all(|&(a, b)| a == b) {
            return Ok(f.clone());
        }
        let mut map: Vec<Var> = (0..self.num_vars).collect();
        for &(from, to) in pairs {
            map[from as usize] = to;
        }
        let support = self.support(f);
        if support.iter().all(|&v| map[v as usize] == v) {
            return Ok(f.clone());
        }
        let order_preserving = support
            .windows(2)
            .all(|w| map[w[0] as usize] < map[w[1] as usize]);
        if order_preserving {
            // Relabel the node vector: same shape, same (post-)order, still reduced.
            let mut nodes = f.0.clone().to_nodes();
            for node in nodes.iter_mut().skip(2) {
                node.var = BddVariable::from_index(map[node.var.to_index()] as usize);
            }
            return Ok(BiodivineBdd(
                Bdd::from_nodes(&nodes).expect("internal error: order-preserving relabel"),
            ));
        }
        let table = f.0.pointers().skip(2).map(|p| {
            (
                f.0.var_of(p).to_index() as Var,
                f.0.low_link_of(p).to_index() as u32,
                f.0.high_link_of(p).to_index() as u32,
            )
        });
        let root = f.0.root_pointer().to_index() as u32;
        Ok(BiodivineBdd(
            self.build_by_ite(table, root, |v| map[v as usize]),
        ))
    }

    fn restrict(&self, f: &BiodivineBdd, assignment: &[(Var, bool)]) -> BddResult<BiodivineBdd> {
        if assignment.is_empty() || f.0.as_bool().is_some() {
            return Ok(f.clone());
        }
        let values: Vec<(BddVariable, bool)> =
            assignment.iter().map(|&(v, b)| (self.bvar(v), b)).collect();
        Ok(BiodivineBdd(f.0.restrict(&values)))
    }

    fn is_false(&self, f: &BiodivineBdd) -> bool {
        f.0.is_false()
    }

    fn is_true(&self, f: &BiodivineBdd) -> bool {
        f.0.is_true()
    }

    fn node_count(&self, f: &BiodivineBdd) -> usize {
        // The true BDD stores both terminals but only reaches one.
        if f.0.is_true() {
            1
        } else {
            f.0.size()
        }
    }

    fn sat_count(&self, f: &BiodivineBdd, n_vars: u32) -> BigUint {
        if f.0.is_false() {
            return BigUint::default();
        }
        if let Some(max) = Self::max_var(&f.0) {
            assert!(
                (max as u64) < u64::from(n_vars),
                "sat_count: the BDD depends on variable {max}, not below n_vars {n_vars}"
            );
        }
        let all = f.0.exact_cardinality();
        if n_vars >= self.num_vars {
            all << (n_vars - self.num_vars) as usize
        } else {
            all >> (self.num_vars - n_vars) as usize
        }
    }

    fn pick_one(&self, f: &BiodivineBdd) -> Option<Vec<(Var, bool)>> {
        let bdd = &f.0;
        if bdd.is_false() {
            return None;
        }
        let mut cube = Vec::new();
        let mut node = bdd.root_pointer();
        while !node.is_terminal() {
            let var = bdd.var_of(node).to_index() as Var;
            let low = bdd.low_link_of(node);
            if low.is_zero() {
                cube.push((var, true));
                node = bdd.high_link_of(node);
            } else {
                cube.push((var, false));
                node = low;
            }
        }
        debug_assert!(node.is_one());
        Some(cube)
    }

    fn eval(&self, f: &BiodivineBdd, assignment: &[bool]) -> bool {
        let bdd = &f.0;
        if bdd.is_false() {
            return false;
        }
        let mut node = bdd.root_pointer();
        while !node.is_terminal() {
            let var = bdd.var_of(node).to_index();
            node = if assignment.get(var).copied().unwrap_or(false) {
                bdd.high_link_of(node)
            } else {
                bdd.low_link_of(node)
            };
        }
        node.is_one()
    }

    fn support(&self, f: &BiodivineBdd) -> Vec<Var> {
        let mut seen = vec![false; self.num_vars as usize];
        for p in f.0.pointers().skip(2) {
            seen[f.0.var_of(p).to_index()] = true;
        }
        (0..self.num_vars).filter(|&v| seen[v as usize]).collect()
    }

    fn export(&self, f: &BiodivineBdd) -> BddNodes {
        let bdd = &f.0;
        // Biodivine pointers already follow the portable convention (0, 1, then nodes).
        let nodes = bdd
            .pointers()
            .skip(2)
            .map(|p| {
                (
                    bdd.var_of(p).to_index() as Var,
                    bdd.low_link_of(p).to_index() as u32,
                    bdd.high_link_of(p).to_index() as u32,
                )
            })
            .collect();
        BddNodes {
            num_vars: self.num_vars,
            nodes,
            root: bdd.root_pointer().to_index() as u32,
        }
    }

    fn import(&self, nodes: &BddNodes) -> BddResult<BiodivineBdd> {
        nodes.validate(self.num_vars)?;
        let table = &nodes.nodes;
        let var_of = |r: u32| -> Option<Var> { (r >= 2).then(|| table[r as usize - 2].0) };
        let ordered = table.iter().all(|&(v, l, h)| {
            var_of(l).is_none_or(|lv| v < lv) && var_of(h).is_none_or(|hv| v < hv)
        });
        Ok(BiodivineBdd(if ordered {
            self.build_ordered(table, nodes.root)
        } else {
            self.build_by_ite(table.iter().copied(), nodes.root, |v| v)
        }))
    }

    fn stats(&self) -> EngineStats {
        EngineStats {
            backend: Backend::Biodivine,
            num_vars: self.num_vars,
            live_nodes: None,
            node_capacity: None,
            gc_runs: 0,
        }
    }

    fn gc(&self) -> usize {
        0
    }
}
