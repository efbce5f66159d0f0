//! One narrow BDD interface over two engines.
//!
//! The rest of the solver (symbolic search, retrograde solving, perfect hashing) is written
//! once against the [`BddEngine`] trait and runs on either engine:
//!
//! * [`BiodivineEngine`] (handle [`BiodivineBdd`]) over `biodivine-lib-bdd`: every BDD owns
//!   its node vector, single-threaded, no global state, never runs out of a node table;
//! * [`OxiddEngine`] (handle [`OxiddBdd`]) over `oxidd`: shared unique table and apply cache,
//!   multi-threaded, fixed node capacity (see [`EngineConfig`]).
//!
//! Further types: [`VarSet`] (sorted set of variables for quantification), [`EngineConfig`],
//! [`Backend`] (runtime choice of the engine, with [`Backend::run`] and the [`EngineJob`]
//! trait to write generic code once), [`BddNodes`] (a portable, serde-serialisable node table
//! to write BDDs to files and read them back into either engine), [`BddError`] and
//! [`EngineStats`].
//!
//! Architecture invariant: this is the only crate that knows biodivine-lib-bdd or oxidd; it knows nothing about games.
//!
//! # Conventions
//!
//! * Variables are `u32` indexes `0..num_vars`, fixed when the engine is created. Variable `i`
//!   is at level `i`: the order is the index order and it never changes (no reordering). The
//!   caller decides the interleaving, e.g. current `x_i` at `2i` and next `x_i'` at `2i + 1`.
//! * A variable index `>= num_vars` is a programming error and panics.
//! * Handles (`E::Bdd`) compare by function: `f == g` iff they denote the same Boolean
//!   function (both engines keep BDDs reduced and ordered, hence canonical).
//!
//! # Error handling
//!
//! Every operation that builds a BDD returns [`BddResult`]. The only error such an operation
//! can produce is [`BddError::OutOfMemory`]: the oxidd node table (whose capacity is fixed at
//! creation, [`EngineConfig::node_capacity`]) is full even after a garbage collection. The
//! biodivine engine never returns it (it allocates per BDD and aborts like any Rust program if
//! the process runs out of memory). Queries (`is_false`, `sat_count`, `eval`, ...) cannot fail.
//! With a stop check installed ([`BddEngine::set_stop_check`], oxidd only), an operation that
//! outlasts a run's limits fails with [`BddError::Stopped`] from inside.

mod biodivine_engine;
mod oxidd_engine;

use std::fmt;
use std::str::FromStr;

use num_bigint::BigUint;
use serde::{Deserialize, Serialize};

pub use biodivine_engine::{BiodivineBdd, BiodivineEngine};
pub use oxidd_engine::{OxiddBdd, OxiddEngine};
/// A run's limits asked from inside long operations ([`BddEngine::set_stop_check`]), and why
/// one stopped.
pub use symgame_limits::{StopCheck, StopReason};

/// A BDD variable: an index `0..num_vars`, which is also its level.
pub type Var = u32;

/// Result of an operation that builds a BDD.
pub type BddResult<T> = Result<T, BddError>;

/// Errors of this crate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BddError {
    /// The engine's node table is full even after a garbage collection (oxidd only).
    OutOfMemory {
        /// The engine that ran out of nodes.
        backend: Backend,
        /// Its node capacity ([`EngineConfig::node_capacity`]).
        node_capacity: usize,
    },
    /// The engine cannot have that many variables.
    TooManyVariables {
        /// The engine asked for.
        backend: Backend,
        /// Number of variables asked for.
        requested: u32,
        /// Largest number of variables the engine supports.
        max: u32,
    },
    /// A [`BddNodes`] table is malformed (bad reference, variable out of range, ...).
    InvalidNodes(String),
    /// An operation went past the budget its engine was given (biodivine's
    /// `BiodivineEngine::with_budget`): the deadline, or the size of its result.
    Budget(String),
    /// An operation was stopped from inside by the engine's stop check
    /// ([`BddEngine::set_stop_check`]), for this reason; its partial results are dropped.
    Stopped(StopReason),
}

impl fmt::Display for BddError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BddError::OutOfMemory {
                backend,
                node_capacity,
            } => write!(
                f,
                "{backend} BDD engine ran out of nodes (capacity {node_capacity} nodes, \
                 even after garbage collection); raise the node capacity"
            ),
            BddError::TooManyVariables {
                backend,
                requested,
                max,
            } => write!(
                f,
                "{backend} BDD engine supports at most {max} variables, {requested} requested"
            ),
            BddError::InvalidNodes(msg) => write!(f, "invalid BDD node table: {msg}"),
            BddError::Budget(what) => write!(f, "BDD operation over its budget: {what}"),
            BddError::Stopped(why) => write!(f, "BDD operation stopped inside: {why}"),
        }
    }
}

impl std::error::Error for BddError {}

/// A binary Boolean operation: what [`BddEngine::apply`] computes on two BDDs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    /// `f & g`.
    And,
    /// `f | g`.
    Or,
    /// `f ^ g`.
    Xor,
    /// `f <=> g`.
    Iff,
    /// `f & !g`.
    AndNot,
    /// `f => g`.
    Imp,
}

impl BinaryOp {
    /// Every operation.
    pub const ALL: [BinaryOp; 6] = [
        BinaryOp::And,
        BinaryOp::Or,
        BinaryOp::Xor,
        BinaryOp::Iff,
        BinaryOp::AndNot,
        BinaryOp::Imp,
    ];
}

/// Which BDD engine to use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    /// `biodivine-lib-bdd`: [`BiodivineEngine`].
    Biodivine,
    /// `oxidd`: [`OxiddEngine`].
    Oxidd,
}

impl Backend {
    /// Both backends, in a fixed order.
    pub const ALL: [Backend; 2] = [Backend::Biodivine, Backend::Oxidd];

    /// The lower-case name (`"biodivine"` or `"oxidd"`), as accepted by [`FromStr`].
    pub fn name(self) -> &'static str {
        match self {
            Backend::Biodivine => "biodivine",
            Backend::Oxidd => "oxidd",
        }
    }

    /// Create an engine of this backend with `num_vars` variables and hand it to `job`.
    ///
    /// This is how callers write generic code once ([`EngineJob::run`] is generic over
    /// [`BddEngine`]) and pick the engine at runtime.
    pub fn run<R: Send, J: EngineJob<R> + Send>(
        self,
        num_vars: u32,
        config: &EngineConfig,
        job: J,
    ) -> BddResult<R> {
        match self {
            Backend::Biodivine => Ok(job.run(BiodivineEngine::new(num_vars, config)?)),
            Backend::Oxidd => Ok(OxiddEngine::new(num_vars, config)?.run_job(job)),
        }
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Backend {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "biodivine" => Ok(Backend::Biodivine),
            "oxidd" => Ok(Backend::Oxidd),
            _ => Err(format!(
                "unknown BDD backend {s:?} (expected \"biodivine\" or \"oxidd\")"
            )),
        }
    }
}

/// A computation written once for every engine; see [`Backend::run`] and [`run_with`].
pub trait EngineJob<R> {
    /// Run the job on `engine`.
    fn run<E: BddEngine>(self, engine: E) -> R;
}

/// Create an engine of `backend` and run `job` on it (same as [`Backend::run`]).
pub fn run_with<R: Send, J: EngineJob<R> + Send>(
    backend: Backend,
    num_vars: u32,
    config: &EngineConfig,
    job: J,
) -> BddResult<R> {
    backend.run(num_vars, config, job)
}

/// Engine parameters. Only oxidd uses them; biodivine ignores them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineConfig {
    /// Worker threads for oxidd's parallel apply (0 = one per CPU core).
    pub threads: usize,
    /// Maximum number of inner nodes in the oxidd node table (clamped to 2^32 - 2). The
    /// table is reserved as virtual memory and only touched as it fills (~16 bytes a node
    /// plus the unique table). Garbage collection starts at 95 % of it, and an operation
    /// that still finds it full fails with [`BddError::OutOfMemory`].
    pub node_capacity: usize,
    /// Number of apply-cache entries for oxidd (rounded up to a power of two). This memory
    /// is initialised at creation (tens of bytes an entry). Measured: a 2^20 cache was about
    /// 3x slower than 2^22 on large runs.
    pub cache_capacity: usize,
}

impl Default for EngineConfig {
    /// Roomy settings for real runs: automatic threads, 2^24 nodes, 2^22 cache entries.
    fn default() -> Self {
        EngineConfig {
            threads: 0,
            node_capacity: 1 << 24,
            cache_capacity: 1 << 22,
        }
    }
}

impl EngineConfig {
    /// Small settings for unit tests and tiny problems: one thread, 2^20 nodes, 2^14 cache
    /// entries (a few MiB).
    pub fn small() -> Self {
        EngineConfig {
            threads: 1,
            node_capacity: 1 << 20,
            cache_capacity: 1 << 14,
        }
    }
}

/// A set of variables (sorted, without duplicates), used for quantification and counting.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct VarSet {
    vars: Vec<Var>,
}

impl VarSet {
    /// The empty set.
    pub fn new() -> Self {
        VarSet { vars: Vec::new() }
    }

    /// The variables `range.start..range.end`.
    pub fn range(range: std::ops::Range<Var>) -> Self {
        VarSet {
            vars: range.collect(),
        }
    }

    /// The variables as a sorted slice without duplicates.
    pub fn as_slice(&self) -> &[Var] {
        &self.vars
    }

    /// Number of variables.
    pub fn len(&self) -> usize {
        self.vars.len()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.vars.is_empty()
    }

    /// Whether `var` is in the set.
    pub fn contains(&self, var: Var) -> bool {
        self.vars.binary_search(&var).is_ok()
    }

    /// Add `var` (no effect if present).
    pub fn insert(&mut self, var: Var) {
        if let Err(pos) = self.vars.binary_search(&var) {
            self.vars.insert(pos, var);
        }
    }

    /// The largest variable, if any.
    pub fn max_var(&self) -> Option<Var> {
        self.vars.last().copied()
    }

    /// Iterate over the variables in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = Var> + '_ {
        self.vars.iter().copied()
    }

    /// A membership table indexed by variable, of length `len` (all variables of the set
    /// must be `< len`).
    pub fn to_mask(&self, len: usize) -> Vec<bool> {
        let mut mask = vec![false; len];
        for &v in &self.vars {
            mask[v as usize] = true;
        }
        mask
    }
}

impl FromIterator<Var> for VarSet {
    fn from_iter<I: IntoIterator<Item = Var>>(iter: I) -> Self {
        let mut vars: Vec<Var> = iter.into_iter().collect();
        vars.sort_unstable();
        vars.dedup();
        VarSet { vars }
    }
}

impl From<Vec<Var>> for VarSet {
    fn from(vars: Vec<Var>) -> Self {
        vars.into_iter().collect()
    }
}

impl From<&[Var]> for VarSet {
    fn from(vars: &[Var]) -> Self {
        vars.iter().copied().collect()
    }
}

/// A portable BDD: a node table that either engine can export and import.
///
/// References: `0` is the constant false, `1` the constant true, and `k >= 2` is
/// `nodes[k - 2]`. Each node is `(var, low, high)` = "if `var` then `high` else `low`", and
/// may only reference terminals or earlier nodes (children before parents). Exports are
/// reduced and ordered (`var` strictly smaller than the variables of its children); imports
/// accept any acyclic table and reduce it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct BddNodes {
    /// Number of variables of the engine that exported the table.
    pub num_vars: u32,
    /// Inner nodes `(var, low, high)`, children before parents.
    pub nodes: Vec<(Var, u32, u32)>,
    /// Reference to the root.
    pub root: u32,
}

impl BddNodes {
    /// The constant `value` as a node table.
    pub fn constant(num_vars: u32, value: bool) -> Self {
        BddNodes {
            num_vars,
            nodes: Vec::new(),
            root: u32::from(value),
        }
    }

    /// Check that references point to terminals or earlier nodes, the root is in range and
    /// every variable is `< num_vars`.
    pub fn validate(&self, num_vars: u32) -> BddResult<()> {
        let count = self.nodes.len() as u64 + 2;
        for (i, &(var, low, high)) in self.nodes.iter().enumerate() {
            if var >= num_vars {
                return Err(BddError::InvalidNodes(format!(
                    "node {} has variable {var}, but there are only {num_vars} variables",
                    i + 2
                )));
            }
            let limit = i as u64 + 2;
            if u64::from(low) >= limit || u64::from(high) >= limit {
                return Err(BddError::InvalidNodes(format!(
                    "node {} = ({var}, {low}, {high}) references a node that is not before it",
                    i + 2
                )));
            }
        }
        if u64::from(self.root) >= count {
            return Err(BddError::InvalidNodes(format!(
                "root {} out of range ({} nodes with terminals)",
                self.root, count
            )));
        }
        Ok(())
    }
}

/// Number of satisfying assignments of the BDD `nodes` over the variables of `counted` (the
/// sat-count recursion of the ALGORITHMS digest with levels renumbered to `counted`). Panics if
/// a node's variable is not in `counted`.
pub fn count_nodes(nodes: &BddNodes, counted: &VarSet) -> BigUint {
    if counted.len() < 128 {
        BigUint::from(count_nodes_in::<u128>(nodes, counted))
    } else {
        count_nodes_in::<BigUint>(nodes, counted)
    }
}

fn count_nodes_in<N>(nodes: &BddNodes, counted: &VarSet) -> N
where
    N: Clone + From<u8> + std::ops::Add<Output = N> + std::ops::Shl<u32, Output = N>,
{
    let total = counted.len() as u32;
    let width = nodes
        .nodes
        .iter()
        .map(|n| n.0 as usize + 1)
        .max()
        .unwrap_or(0)
        .max(counted.max_var().map_or(0, |v| v as usize + 1));
    let mut rank_of = vec![u32::MAX; width];
    for (i, v) in counted.iter().enumerate() {
        rank_of[v as usize] = i as u32;
    }
    // Rank of a node's variable among the counted ones; terminals rank after all of them.
    let rank = |r: u32| -> u32 {
        if r < 2 {
            return total;
        }
        let v = nodes.nodes[r as usize - 2].0;
        let k = rank_of[v as usize];
        assert!(
            k != u32::MAX,
            "sat_count_over: the BDD depends on variable {v}, which is not counted"
        );
        k
    };
    let mut count: Vec<N> = Vec::with_capacity(nodes.nodes.len() + 2);
    count.push(N::from(0));
    count.push(N::from(1));
    for (i, &(_, low, high)) in nodes.nodes.iter().enumerate() {
        let here = rank(i as u32 + 2);
        let part = |child: u32| count[child as usize].clone() << (rank(child) - here - 1);
        let c = part(low) + part(high);
        count.push(c);
    }
    count[nodes.root as usize].clone() << rank(nodes.root)
}

/// Memory statistics of an engine.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineStats {
    /// Which engine.
    pub backend: Backend,
    /// Number of variables.
    pub num_vars: u32,
    /// Inner nodes currently in the shared node table (oxidd; includes dead nodes not yet
    /// collected). `None` for biodivine, whose BDDs own their nodes.
    pub live_nodes: Option<usize>,
    /// Capacity of the shared node table (oxidd), `None` for biodivine.
    pub node_capacity: Option<usize>,
    /// Number of garbage collections so far (0 for biodivine).
    pub gc_runs: u64,
}

/// The named binary operations of [`BddEngine`], each a provided method calling
/// [`BddEngine::apply`] with its [`BinaryOp`].
macro_rules! binary_ops {
    ($($(#[$doc:meta])* $name:ident => $op:ident;)*) => {
        $(
            $(#[$doc])*
            fn $name(&self, f: &Self::Bdd, g: &Self::Bdd) -> BddResult<Self::Bdd> {
                self.apply(BinaryOp::$op, f, g)
            }
        )*
    };
}

/// The narrow BDD interface. See the crate documentation for conventions and error handling.
///
/// All operations take `&self`; an engine can be shared between threads. Handles belong to
/// the engine that made them; mixing handles of two oxidd engines panics.
pub trait BddEngine: Sized + Send + Sync {
    /// A BDD handle. Equality is equality of Boolean functions.
    type Bdd: Clone + PartialEq + Eq + std::hash::Hash + fmt::Debug + Send + Sync;

    /// The backend this engine implements.
    const BACKEND: Backend;

    /// Create an engine with variables `0..num_vars`.
    fn new(num_vars: u32, config: &EngineConfig) -> BddResult<Self>;

    /// Number of variables.
    fn num_vars(&self) -> u32;

    /// The constant function `value`.
    fn constant(&self, value: bool) -> Self::Bdd;

    /// The literal `var` if `value`, else `!var`.
    fn literal(&self, var: Var, value: bool) -> Self::Bdd;

    /// The literal `var`.
    fn var(&self, var: Var) -> Self::Bdd {
        self.literal(var, true)
    }

    /// The negated literal `!var`.
    fn nvar(&self, var: Var) -> Self::Bdd {
        self.literal(var, false)
    }

    /// The conjunction of the given literals (`true` for an empty slice). A variable given
    /// twice with opposite values yields `false`.
    fn cube(&self, literals: &[(Var, bool)]) -> BddResult<Self::Bdd> {
        let mut sorted = literals.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        // Build bottom-up (largest variable first): every conjunction is then O(1).
        let mut acc = self.constant(true);
        for &(v, b) in sorted.iter().rev() {
            acc = self.and(&self.literal(v, b), &acc)?;
        }
        Ok(acc)
    }

    /// `!f`.
    fn not(&self, f: &Self::Bdd) -> BddResult<Self::Bdd>;
    /// `f op g`: the one binary operation an engine implements; the named ones below call it.
    fn apply(&self, op: BinaryOp, f: &Self::Bdd, g: &Self::Bdd) -> BddResult<Self::Bdd>;
    binary_ops! {
        /// `f & g`.
        and => And;
        /// `f | g`.
        or => Or;
        /// `f ^ g`.
        xor => Xor;
        /// `f <=> g`.
        iff => Iff;
        /// `f & !g`.
        and_not => AndNot;
        /// `f => g`.
        imp => Imp;
    }
    /// `if c then t else e`.
    fn ite(&self, c: &Self::Bdd, t: &Self::Bdd, e: &Self::Bdd) -> BddResult<Self::Bdd>;

    /// `exists vars. f`.
    fn exists(&self, f: &Self::Bdd, vars: &VarSet) -> BddResult<Self::Bdd>;
    /// `forall vars. f`.
    fn forall(&self, f: &Self::Bdd, vars: &VarSet) -> BddResult<Self::Bdd>;
    /// The relational product `exists vars. (f & g)`, computed in one fused pass.
    fn and_exists(&self, f: &Self::Bdd, g: &Self::Bdd, vars: &VarSet) -> BddResult<Self::Bdd>;

    /// Simultaneous substitution of variables by variables: the result `r` satisfies
    /// `r(a) = f(a')` where `a'[from] = a[to]` for each pair and `a'[v] = a[v]` otherwise.
    /// The `from` variables must be distinct (panics otherwise).
    ///
    /// Cheap (linear, no apply) when the mapping keeps the relative order of the support of
    /// `f`, e.g. `x_i' -> x_i` for all pairs with the interleaved order; correct but slower
    /// for any other mapping (including swaps).
    fn rename(&self, f: &Self::Bdd, pairs: &[(Var, Var)]) -> BddResult<Self::Bdd>;

    /// Cofactor: fix each `var` to `value` (the result no longer depends on those variables).
    fn restrict(&self, f: &Self::Bdd, assignment: &[(Var, bool)]) -> BddResult<Self::Bdd>;

    /// Whether `f` is the constant false.
    fn is_false(&self, f: &Self::Bdd) -> bool;
    /// Whether `f` is the constant true.
    fn is_true(&self, f: &Self::Bdd) -> bool;

    /// Whether `f => g` is valid (`f` is a subset of `g`).
    fn implies(&self, f: &Self::Bdd, g: &Self::Bdd) -> BddResult<bool> {
        Ok(self.is_false(&self.and_not(f, g)?))
    }

    /// Whether `f AND g` is the constant false, without necessarily building it: an engine
    /// may search the pairs of nodes for one satisfying path and stop at the first (cheap
    /// where they meet, and no node is made either way). Such a search asks `stop` now and
    /// then, and gives `None` once it says yes: proving two large BDDs disjoint can take as
    /// long as building their AND.
    fn disjoint(
        &self,
        f: &Self::Bdd,
        g: &Self::Bdd,
        stop: &dyn Fn() -> bool,
    ) -> BddResult<Option<bool>> {
        let _ = stop;
        Ok(Some(self.is_false(&self.and(f, g)?)))
    }

    /// Number of nodes reachable from the root, terminals included (false: 1, true: 1, a
    /// literal: 3). Equal in both engines for the same function.
    fn node_count(&self, f: &Self::Bdd) -> usize;

    /// Whether `f` has more than `cap` nodes (`node_count(f) > cap`), visiting no more than
    /// about `cap` of them: cheap for a small cap on a large BDD.
    fn node_count_exceeds(&self, f: &Self::Bdd, cap: usize) -> bool {
        self.node_count(f) > cap
    }

    /// Number of satisfying assignments over the variables `0..n_vars` (`n_vars` may exceed
    /// `num_vars`). Panics if `f` depends on a variable `>= n_vars`.
    fn sat_count(&self, f: &Self::Bdd, n_vars: u32) -> BigUint;

    /// Number of satisfying assignments over the variables of `counted`; the others are
    /// ignored. Panics if `f` depends on a variable outside `counted`, or if `counted` has a
    /// variable `>= num_vars`. One pass over the exported node table ([`count_nodes`]), in
    /// 128-bit arithmetic when at most 127 variables are counted.
    fn sat_count_over(&self, f: &Self::Bdd, counted: &VarSet) -> BigUint {
        let n = self.num_vars();
        if let Some(max) = counted.max_var() {
            assert!(
                max < n,
                "sat_count_over: counted variable {max} >= num_vars {n}"
            );
        }
        count_nodes(&self.export(f), counted)
    }

    /// [`BddEngine::sat_count_over`] and [`BddEngine::node_count`] in one pass.
    fn sat_count_and_nodes(&self, f: &Self::Bdd, counted: &VarSet) -> (BigUint, usize) {
        let n = self.num_vars();
        if let Some(max) = counted.max_var() {
            assert!(
                max < n,
                "sat_count_over: counted variable {max} >= num_vars {n}"
            );
        }
        let table = self.export(f);
        let nodes = if table.nodes.is_empty() {
            1
        } else {
            table.nodes.len() + 2
        };
        (count_nodes(&table, counted), nodes)
    }

    /// One satisfying cube: the literals on one path to true, sorted by variable; variables
    /// not listed are free. The path takes the low edge whenever it does not lead to false,
    /// so setting the free variables to false gives the lexicographically smallest satisfying
    /// assignment (variable 0 most significant, false < true). `None` iff `f` is false.
    fn pick_one(&self, f: &Self::Bdd) -> Option<Vec<(Var, bool)>>;

    /// The lexicographically smallest satisfying assignment of all variables (see
    /// [`BddEngine::pick_one`]), indexed by variable. `None` iff `f` is false.
    fn pick_minterm(&self, f: &Self::Bdd) -> Option<Vec<bool>> {
        let cube = self.pick_one(f)?;
        let mut values = vec![false; self.num_vars() as usize];
        for (v, b) in cube {
            values[v as usize] = b;
        }
        Some(values)
    }

    /// Evaluate `f`; `assignment[v]` is the value of variable `v` (variables beyond the slice
    /// are false).
    fn eval(&self, f: &Self::Bdd, assignment: &[bool]) -> bool;

    /// The variables `f` depends on, sorted.
    fn support(&self, f: &Self::Bdd) -> Vec<Var>;

    /// Export `f` as a portable node table (reduced, ordered, children before parents).
    fn export(&self, f: &Self::Bdd) -> BddNodes;

    /// Import a node table (see [`BddNodes`]). Fails with [`BddError::InvalidNodes`] if the
    /// table is malformed or uses a variable `>= num_vars`.
    fn import(&self, nodes: &BddNodes) -> BddResult<Self::Bdd>;

    /// Memory statistics.
    fn stats(&self) -> EngineStats;

    /// Inner nodes in the shared node table (oxidd), `None` for biodivine.
    fn live_nodes(&self) -> Option<usize> {
        self.stats().live_nodes
    }

    /// Collect dead nodes now (oxidd; also happens automatically near capacity). Returns the
    /// number of nodes freed; a no-op returning 0 for biodivine.
    fn gc(&self) -> usize;

    /// Installs `check` (with `None`, removes it) and returns the check it replaces: while it
    /// is installed, an operation asks it from inside, and fails with [`BddError::Stopped`]
    /// once it answers a reason (oxidd: whenever a worker takes a new chunk of node slots, so
    /// at least every 64 Ki nodes created; an operation that creates no node is not stopped).
    /// Engines that cannot stop an operation ignore it (biodivine, whose budgeted engines stop
    /// by their own deadline). Install it around the steps whose operations may be long, and
    /// restore the one before after them ([`StopArmed`]): whatever runs after a stop (counting
    /// and keeping the finished layers) must still be able to build BDDs.
    fn set_stop_check(&self, check: Option<StopCheck>) -> Option<StopCheck> {
        let _ = check;
        None
    }

    /// Whether an installed stop check stops this engine's operations from inside (oxidd):
    /// then an operation started near a limit does not outlast it.
    fn stops_inside(&self) -> bool {
        false
    }
}

/// A stop check installed on an engine until this is dropped, which puts back the check
/// installed before ([`arm_stop`]).
pub struct StopArmed<'a, E: BddEngine> {
    engine: &'a E,
    before: Option<StopCheck>,
}

/// Installs `check` on `e` ([`BddEngine::set_stop_check`]) until the returned value is dropped.
pub fn arm_stop<E: BddEngine>(e: &E, check: StopCheck) -> StopArmed<'_, E> {
    let before = e.set_stop_check(Some(check));
    StopArmed { engine: e, before }
}

impl<E: BddEngine> Drop for StopArmed<'_, E> {
    fn drop(&mut self) {
        self.engine.set_stop_check(self.before.take());
    }
}

/// Check that all `from` variables of a rename are distinct and in range.
fn check_rename_pairs(pairs: &[(Var, Var)], num_vars: u32) {
    let mut seen = vec![false; num_vars as usize];
    for &(from, to) in pairs {
        assert!(
            from < num_vars && to < num_vars,
            "rename: pair ({from}, {to}) out of range (num_vars {num_vars})"
        );
        assert!(
            !std::mem::replace(&mut seen[from as usize], true),
            "rename: variable {from} is renamed twice"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backend_names_round_trip() {
        for b in Backend::ALL {
            assert_eq!(b.to_string().parse::<Backend>().unwrap(), b);
        }
        assert_eq!("OxIdd".parse::<Backend>().unwrap(), Backend::Oxidd);
        assert!("cudd".parse::<Backend>().is_err());
    }

    #[test]
    fn varset_sorts_and_dedups() {
        let s: VarSet = vec![5, 1, 3, 1].into();
        assert_eq!(s.as_slice(), &[1, 3, 5]);
        assert!(s.contains(3) && !s.contains(2));
        let mut t = VarSet::range(0..3);
        t.insert(7);
        t.insert(1);
        assert_eq!(t.as_slice(), &[0, 1, 2, 7]);
        assert_eq!(t.max_var(), Some(7));
        assert!(t.to_mask(8)[7]);
    }

    #[test]
    fn node_table_validation() {
        let ok = BddNodes {
            num_vars: 2,
            nodes: vec![(1, 0, 1), (0, 0, 2)],
            root: 3,
        };
        assert!(ok.validate(2).is_ok());
        let forward = BddNodes {
            num_vars: 2,
            nodes: vec![(1, 0, 2)],
            root: 2,
        };
        assert!(forward.validate(2).is_err());
        assert!(ok.validate(1).is_err());
        let bad_root = BddNodes {
            num_vars: 2,
            nodes: vec![],
            root: 2,
        };
        assert!(bad_root.validate(2).is_err());
    }
}
