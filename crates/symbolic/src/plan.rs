//! Optimal plans: symbolic BFS, bidirectional BFS, Dijkstra with action costs, and BDDA* with
//! symbolic pattern databases.
//!
//! A planning problem is the initial state, a goal set (terminal states where the planning role
//! gets a given reward) and the partitioned transition relation of a [`SymbolicGame`], with a
//! cost per joint move ([`Costs`]: the sum of the roles' move costs, 1 per move unless the game
//! has a `cost` relation). In a single-player game a joint move is one move; with several roles
//! the plan chooses every role's move (all roles cooperate).
//!
//! * [`Algorithm::Bfs`] and [`Algorithm::Bidir`] are [`reach_until`] and
//!   [`shortest_path_within`]: plans with the fewest moves (optimal only for unit costs).
//! * [`Algorithm::Dijkstra`]: buckets `open[g]` by path cost; `open[g] AND NOT closed` is
//!   expanded by the image of each cost class, its successors go to `open[g + c]`.
//! * [`Algorithm::Astar`] (BDDA*): buckets `open[g][h]` with the heuristic given as a partition
//!   `H_0, H_1, ...` of the states ([`Heuristic`]), expanded by `f = g + h` ascending, then `g`
//!   ascending; successors are split by `H_h`. States in no `H_h` cannot reach the goal and are
//!   pruned. The heuristic is the maximum of [`PatternDatabase`]s.
//!
//! A pattern database keeps a set of fluent groups ([`Encoding::groups`]) and quantifies the
//! other groups' variables out of the initial state, the goal and every partition's relation;
//! every concrete transition is then an abstract one, so abstract goal distances (a backward
//! Dijkstra in the abstraction, restricted to the abstract states reachable from the abstract
//! initial state) are admissible and consistent. [`select_pattern`] chooses a pattern
//! automatically (see there).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;
use std::str::FromStr;
use std::time::Instant;

use num_bigint::BigUint;
use serde::{Deserialize, Serialize};
use symgame_bdd::{Backend, BddEngine, BddError, BddResult, EngineConfig, EngineJob, Var, VarSet};
use symgame_ground::{GroundGame, GroundTerm};

use crate::compile::JointMove;
use crate::decimal;
use crate::disjunction::or_all;
use crate::encoding::Encoding;
use crate::error::SymbolicError;
use crate::game::{goal_states, SymbolicGame};
use crate::interrupt::Interrupt;
use crate::options::SymbolicOptions;
use crate::partition::Partition;
use crate::path::{shortest_path_within, step_between};
use crate::reach::{reach, reach_until, LayerStats};
use symgame_limits::{Guard, Limits, StopReason};

/// A planning algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Algorithm {
    /// Breadth-first search ([`reach_until`]): fewest moves.
    Bfs,
    /// Bidirectional breadth-first search ([`shortest_path_within`]): fewest moves.
    Bidir,
    /// Symbolic Dijkstra: least total cost.
    Dijkstra,
    /// BDDA* with a pattern-database heuristic: least total cost.
    Astar,
}

impl Algorithm {
    /// All algorithms, in a fixed order.
    pub const ALL: [Algorithm; 4] = [
        Algorithm::Bfs,
        Algorithm::Bidir,
        Algorithm::Dijkstra,
        Algorithm::Astar,
    ];

    /// The lower-case name, as accepted by [`FromStr`].
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Bfs => "bfs",
            Algorithm::Bidir => "bidir",
            Algorithm::Dijkstra => "dijkstra",
            Algorithm::Astar => "astar",
        }
    }

    /// Whether the plans it finds have the least total cost (otherwise the fewest moves).
    pub fn minimises_cost(self) -> bool {
        matches!(self, Algorithm::Dijkstra | Algorithm::Astar)
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Algorithm {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Algorithm::ALL
            .into_iter()
            .find(|a| a.name() == s.to_ascii_lowercase())
            .ok_or_else(|| {
                format!("unknown algorithm {s:?} (expected bfs, bidir, dijkstra or astar)")
            })
    }
}

/// Action costs: `per_role[r][m]` is the cost of move `m` of role `r` (a positive integer).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Costs {
    /// Per role, per move.
    pub per_role: Vec<Vec<u32>>,
}

impl Costs {
    /// The costs of a ground game (its `cost` relation, 1 by default).
    pub fn of(game: &GroundGame) -> Costs {
        Costs {
            per_role: game.roles.iter().map(|r| r.costs.clone()).collect(),
        }
    }

    /// The cost of a joint move: the sum of its moves' costs.
    pub fn joint(&self, jm: &[usize]) -> u64 {
        jm.iter()
            .enumerate()
            .map(|(r, &m)| u64::from(self.per_role[r][m]))
            .sum()
    }

    /// Whether every move costs 1.
    pub fn is_unit(&self) -> bool {
        self.per_role.iter().flatten().all(|&c| c == 1)
    }
}

/// How the A* heuristic is chosen.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PatternChoice {
    /// One pattern chosen by [`select_pattern`] within this many BDD nodes per abstract set.
    Auto {
        /// Node budget of every abstract set (reachable set, distance layer).
        max_nodes: usize,
    },
    /// These patterns (each a list of group indexes into [`Encoding::groups`]), combined by
    /// maximum. An empty list means h = 0 (A* is then Dijkstra).
    Given(Vec<Vec<usize>>),
}

impl Default for PatternChoice {
    fn default() -> Self {
        PatternChoice::Auto {
            max_nodes: AUTO_MAX_NODES,
        }
    }
}

/// Default node budget of the automatic pattern selection.
pub const AUTO_MAX_NODES: usize = 20_000;

/// What to plan.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanOptions {
    /// The algorithm.
    pub algorithm: Algorithm,
    /// The role whose reward defines the goal; `None` for a single-player game (the only
    /// role). With a role chosen in a game of several roles, the plan picks every role's move.
    pub role: Option<usize>,
    /// Goal: terminal states where the role's goal value is exactly this.
    pub goal: u8,
    /// The heuristic of [`Algorithm::Astar`].
    pub patterns: PatternChoice,
}

impl Default for PlanOptions {
    fn default() -> Self {
        PlanOptions {
            algorithm: Algorithm::Astar,
            role: None,
            goal: 100,
            patterns: PatternChoice::default(),
        }
    }
}

/// Errors of planning (limits are not errors: see [`PlanStats::stopped`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PlanError {
    /// Building the symbolic game failed.
    Symbolic(SymbolicError),
    /// A pattern specification names nothing, or a group index is out of range.
    BadPattern(String),
    /// The game has several roles and no role was chosen.
    NotSinglePlayer {
        /// The roles' names.
        roles: Vec<String>,
    },
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlanError::Symbolic(e) => write!(f, "{e}"),
            PlanError::BadPattern(m) => write!(f, "bad pattern: {m}"),
            PlanError::NotSinglePlayer { roles } => write!(
                f,
                "the game has {} roles ({}); planning is for single-player games, or choose \
                 the role whose goal counts (all roles then cooperate)",
                roles.len(),
                roles.join(", ")
            ),
        }
    }
}

impl std::error::Error for PlanError {}

impl From<SymbolicError> for PlanError {
    fn from(e: SymbolicError) -> Self {
        PlanError::Symbolic(e)
    }
}

impl From<BddError> for PlanError {
    fn from(e: BddError) -> Self {
        PlanError::Symbolic(SymbolicError::Bdd(e))
    }
}

/// The direction of a layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// From the initial state.
    Forward,
    /// From the goal set (bidirectional search).
    Backward,
}

/// One expanded layer or bucket of a planning search.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlanLayer {
    /// Forward from the initial state or backward from the goal.
    pub direction: Direction,
    /// Cost (depth for BFS) from the initial state, or to the goal for backward layers.
    pub g: u64,
    /// The heuristic value of the bucket (A* only).
    pub h: Option<u64>,
    /// States in the layer (decimal string in JSON).
    #[serde(with = "decimal")]
    pub states: BigUint,
    /// BDD nodes of the layer.
    pub nodes: usize,
    /// Seconds since the start of the search.
    pub seconds: f64,
}

/// Statistics of one pattern database.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PatternStats {
    /// The pattern: group indexes into [`Encoding::groups`].
    pub groups: Vec<usize>,
    /// Number of fluents in those groups.
    pub fluents: usize,
    /// Abstract states reachable from the abstract initial state (decimal string).
    #[serde(with = "decimal")]
    pub abstract_states: BigUint,
    /// Of those, the ones from which the abstract goal is reachable (decimal string).
    #[serde(with = "decimal")]
    pub solvable_states: BigUint,
    /// The largest finite h value.
    pub max_h: u64,
    /// The largest BDD of the construction (reachable set or distance layer), in nodes.
    pub peak_nodes: usize,
    /// Seconds to build it.
    pub seconds: f64,
}

/// Statistics of the heuristic of an A* run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct HeuristicStats {
    /// Whether the pattern was chosen automatically.
    pub automatic: bool,
    /// The pattern databases combined by maximum.
    pub patterns: Vec<PatternStats>,
    /// Patterns tried by the automatic selection: (number of groups, within the budget).
    pub tried: Vec<(usize, bool)>,
    /// h of the initial state (`None`: infinite, the goal is unreachable).
    pub h_init: Option<u64>,
    /// Seconds spent on selection and construction.
    pub seconds: f64,
}

/// Statistics of a planning run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlanStats {
    /// The algorithm.
    pub algorithm: Algorithm,
    /// The expanded layers or buckets, in expansion order (bidirectional search: the forward
    /// layers, then the backward ones).
    pub layers: Vec<PlanLayer>,
    /// Number of image or pre-image steps (layers or buckets expanded).
    pub expanded_layers: usize,
    /// The largest number of BDD nodes held at once by the open lists (frontiers, buckets) and
    /// closed sets; the layers kept for rebuilding the plan are not counted.
    pub peak_nodes: usize,
    /// Seconds of the search (after the heuristic was built).
    pub seconds: f64,
    /// The heuristic (A* only).
    pub heuristic: Option<HeuristicStats>,
    /// Bidirectional search on a game whose relation is kept as conjunct lists: the backward
    /// layers are restricted to the reachable states, found by a full BFS first (included in
    /// the time, peak and expanded layers); this is their number (decimal string).
    #[serde(with = "decimal::optional")]
    pub domain_states: Option<BigUint>,
    /// `Some` when a limit stopped the search before it finished.
    pub stopped: Option<StopReason>,
}

impl PlanStats {
    fn new(algorithm: Algorithm) -> Self {
        PlanStats {
            algorithm,
            layers: Vec::new(),
            expanded_layers: 0,
            peak_nodes: 0,
            seconds: 0.0,
            heuristic: None,
            domain_states: None,
            stopped: None,
        }
    }
}

/// A plan from the initial state to a goal state.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Plan {
    /// The joint moves, one per step (`moves[k][r]` = move index of role `r`).
    pub moves: Vec<JointMove>,
    /// The cost of each step.
    pub step_costs: Vec<u64>,
    /// The total cost.
    pub cost: u64,
    /// The states along the plan (true fluents, ascending), `moves.len() + 1` of them.
    pub states: Vec<Vec<usize>>,
}

impl Plan {
    fn new(moves: Vec<JointMove>, states: Vec<Vec<usize>>, costs: &Costs) -> Plan {
        let step_costs: Vec<u64> = moves.iter().map(|jm| costs.joint(jm)).collect();
        Plan {
            cost: step_costs.iter().sum(),
            moves,
            step_costs,
            states,
        }
    }
}

/// The result of a planning run: the plan (`None` if the goal is unreachable or a limit
/// stopped the search, see `stats.stopped`) and the statistics.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlanOutcome {
    /// The plan.
    pub plan: Option<Plan>,
    /// The statistics.
    pub stats: PlanStats,
}

/// The partitions grouped by the cost of their joint moves, ascending: the clusters whose joint
/// moves all cost the same, else the cluster's per-joint-move partitions.
fn cost_classes<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    costs: &Costs,
) -> Vec<(u64, Vec<Partition<E>>)> {
    let fine: HashMap<&JointMove, &Partition<E>> = g
        .partitions()
        .iter()
        .map(|p| (&p.joint_moves[0], p))
        .collect();
    let mut classes: BTreeMap<u64, Vec<Partition<E>>> = BTreeMap::new();
    for p in g.clusters() {
        let c0 = costs.joint(&p.joint_moves[0]);
        if p.joint_moves.iter().all(|jm| costs.joint(jm) == c0) {
            classes.entry(c0).or_default().push(p.clone());
        } else {
            for jm in &p.joint_moves {
                let part = fine[jm];
                classes
                    .entry(costs.joint(jm))
                    .or_default()
                    .push(part.clone());
            }
        }
    }
    classes.into_iter().collect()
}

/// The image of the non-terminal state set `s` under `parts`.
fn image_of<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    parts: &[Partition<E>],
    s: &E::Bdd,
    guard: &Guard,
) -> Result<E::Bdd, Interrupt> {
    let mut out = Vec::with_capacity(parts.len());
    for p in parts {
        guard.check()?;
        out.push(p.image(g.engine(), s)?);
    }
    Ok(or_all(g.engine(), out)?)
}

/// Walks back from the single state `last` (reached with cost `cost`) through the sets of
/// expanded (non-terminal) states by cost, one per-joint-move partition at a time.
fn rebuild<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    costs: &Costs,
    expanded: &BTreeMap<u64, E::Bdd>,
    last: Vec<usize>,
    cost: u64,
) -> Result<Plan, Interrupt> {
    let e = g.engine();
    let mut states = vec![last];
    let mut moves = Vec::new();
    let mut at = cost;
    'steps: while at > 0 {
        let s = g.state(states.last().expect("non-empty"))?;
        for p in g.partitions() {
            let c = costs.joint(&p.joint_moves[0]);
            let Some(before) = at.checked_sub(c).and_then(|k| expanded.get(&k)) else {
                continue;
            };
            let pre = e.and(&p.pre_image(e, &s)?, before)?;
            if let Some(t) = g.pick_state(&pre) {
                moves.push(p.joint_moves[0].clone());
                states.push(t);
                at -= c;
                continue 'steps;
            }
        }
        unreachable!("every expanded state of cost > 0 has an expanded predecessor");
    }
    moves.reverse();
    states.reverse();
    Ok(Plan::new(moves, states, costs))
}

/// Plans on the symbolic game `g` from its initial state to `goal` (a state set, usually
/// [`goal_states`]). `heuristic` is used by [`Algorithm::Astar`] (`None`: h = 0). `progress` is
/// called after each expanded layer (not by the bidirectional search).
pub fn plan<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    costs: &Costs,
    goal: &E::Bdd,
    algorithm: Algorithm,
    heuristic: Option<&Heuristic<E>>,
    limits: &Limits,
    progress: impl FnMut(&PlanStats),
) -> Result<PlanOutcome, PlanError> {
    let started = Instant::now();
    let mut out = match algorithm {
        Algorithm::Bfs => plan_bfs(g, costs, goal, limits, progress)?,
        Algorithm::Bidir => plan_bidir(g, costs, goal, limits)?,
        Algorithm::Dijkstra | Algorithm::Astar => {
            let guard = Guard { limits, started };
            let h = if algorithm == Algorithm::Astar {
                heuristic
            } else {
                None
            };
            best_first(g, costs, goal, h, &guard, algorithm, progress)?
        }
    };
    out.stats.seconds = started.elapsed().as_secs_f64();
    Ok(out)
}

fn plan_bfs<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    costs: &Costs,
    goal: &E::Bdd,
    limits: &Limits,
    mut progress: impl FnMut(&PlanStats),
) -> Result<PlanOutcome, PlanError> {
    let e = g.engine();
    let mut stats = PlanStats::new(Algorithm::Bfs);
    let r = reach_until(g, goal, limits, true, |rs| {
        if let Some(l) = rs.layers.last() {
            stats.peak_nodes = stats.peak_nodes.max(l.nodes + rs.reached_nodes);
        }
        stats.expanded_layers = rs.layers.len().saturating_sub(1);
        progress(&stats);
    });
    stats.layers = r
        .stats
        .layers
        .iter()
        .enumerate()
        .map(|(k, l)| PlanLayer {
            direction: Direction::Forward,
            g: k as u64,
            h: None,
            states: l.states.clone(),
            nodes: l.nodes,
            seconds: l.seconds,
        })
        .collect();
    stats.stopped = r.stats.stopped;
    if stats.stopped.is_some() {
        return Ok(PlanOutcome { plan: None, stats });
    }
    let Some(last) = r.layers.last() else {
        return Ok(PlanOutcome { plan: None, stats });
    };
    let hit = e.and(last, goal)?;
    let Some(end) = g.pick_state(&hit) else {
        return Ok(PlanOutcome { plan: None, stats });
    };
    let mut states = vec![end];
    let mut moves = Vec::new();
    for k in (0..r.layers.len() - 1).rev() {
        let s = g.state(states.last().expect("non-empty"))?;
        let (jm, prev) = match step_between(g, g.partitions(), &s, &r.layers[k], false) {
            Ok(x) => x,
            Err(Interrupt::Stop(why)) => {
                stats.stopped = Some(why);
                return Ok(PlanOutcome { plan: None, stats });
            }
        };
        moves.push(jm);
        states.push(prev);
    }
    moves.reverse();
    states.reverse();
    Ok(PlanOutcome {
        plan: Some(Plan::new(moves, states, costs)),
        stats,
    })
}

fn plan_bidir<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    costs: &Costs,
    goal: &E::Bdd,
    limits: &Limits,
) -> Result<PlanOutcome, PlanError> {
    let mut stats = PlanStats::new(Algorithm::Bidir);
    let started = Instant::now();
    // Without a domain, a backward step over a conjunct list ranges over all assignments of
    // the fluents, mostly unreachable ones, and blows up (the 8-puzzle's first step does not
    // finish in minutes).
    let domain = if g.partitions().iter().any(|p| !p.conjuncts.is_empty()) {
        let r = reach(g, limits, false, |_| {});
        stats.expanded_layers = r.stats.layers.len();
        stats.peak_nodes =
            r.stats.layers.iter().map(|l| l.nodes).max().unwrap_or(0) + r.stats.reached_nodes;
        stats.domain_states = Some(r.stats.states.clone());
        if let Some(why) = r.stats.stopped {
            stats.stopped = Some(why);
            return Ok(PlanOutcome { plan: None, stats });
        }
        Some(r.reached)
    } else {
        None
    };
    let limits = remaining(limits, started);
    let goal = match &domain {
        Some(d) => g.engine().and(goal, d)?,
        None => goal.clone(),
    };
    match shortest_path_within(g, &goal, domain.as_ref(), &limits) {
        Err(why) => stats.stopped = Some(why),
        Ok(None) => {}
        Ok(Some(path)) => {
            let layer = |d: Direction, k: usize, l: &LayerStats| PlanLayer {
                direction: d,
                g: k as u64,
                h: None,
                states: l.states.clone(),
                nodes: l.nodes,
                seconds: l.seconds,
            };
            stats.layers = path
                .forward
                .iter()
                .enumerate()
                .map(|(k, l)| layer(Direction::Forward, k, l))
                .chain(
                    path.backward
                        .iter()
                        .enumerate()
                        .map(|(k, l)| layer(Direction::Backward, k, l)),
                )
                .collect();
            stats.expanded_layers += path.forward.len() + path.backward.len() - 2;
            stats.peak_nodes = stats.peak_nodes.max(path.peak_nodes);
            return Ok(PlanOutcome {
                plan: Some(Plan::new(path.moves, path.states, costs)),
                stats,
            });
        }
    }
    Ok(PlanOutcome { plan: None, stats })
}

/// Symbolic Dijkstra (`heuristic` = `None`) and BDDA*.
fn best_first<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    costs: &Costs,
    goal: &E::Bdd,
    heuristic: Option<&Heuristic<E>>,
    guard: &Guard,
    algorithm: Algorithm,
    mut progress: impl FnMut(&PlanStats),
) -> Result<PlanOutcome, PlanError> {
    let mut stats = PlanStats::new(algorithm);
    match best_first_inner(g, costs, goal, heuristic, guard, &mut stats, &mut progress) {
        Ok(plan) => Ok(PlanOutcome { plan, stats }),
        Err(Interrupt::Stop(why)) => {
            stats.stopped = Some(why);
            Ok(PlanOutcome { plan: None, stats })
        }
    }
}

fn best_first_inner<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    costs: &Costs,
    goal: &E::Bdd,
    heuristic: Option<&Heuristic<E>>,
    guard: &Guard,
    stats: &mut PlanStats,
    progress: &mut impl FnMut(&PlanStats),
) -> Result<Option<Plan>, Interrupt> {
    let e = g.engine();
    let classes = cost_classes(g, costs);
    // Buckets by (f, g); h = f - g. Without a heuristic f = g.
    let mut open: BTreeMap<(u64, u64), E::Bdd> = BTreeMap::new();
    let h0 = match heuristic {
        None => Some(0),
        Some(h) => h.value_of_set(e, g.init())?,
    };
    let Some(h0) = h0 else {
        return Ok(None);
    };
    open.insert((h0, 0), g.init().clone());
    let mut closed = e.constant(false);
    // Expanded non-terminal states by g, for rebuilding the plan.
    let mut expanded: BTreeMap<u64, E::Bdd> = BTreeMap::new();
    while let Some(((f, cost), bucket)) = open.pop_first() {
        guard.check()?;
        let s = e.and_not(&bucket, &closed)?;
        if e.is_false(&s) {
            continue;
        }
        let h = f - cost;
        stats.layers.push(PlanLayer {
            direction: Direction::Forward,
            g: cost,
            h: heuristic.map(|_| h),
            states: g.count(&s),
            nodes: e.node_count(&s),
            seconds: guard.started.elapsed().as_secs_f64(),
        });
        let hit = e.and(&s, goal)?;
        if let Some(end) = g.pick_state(&hit) {
            progress(stats);
            return rebuild(g, costs, &expanded, end, cost).map(Some);
        }
        stats.expanded_layers += 1;
        closed = e.or(&closed, &s)?;
        guard.check_nodes(e.node_count(&closed) as u64)?;
        let live = g.and_not_terminal(&s)?;
        if !e.is_false(&live) {
            let slot = expanded.entry(cost).or_insert_with(|| e.constant(false));
            *slot = e.or(slot, &live)?;
            for (c, parts) in &classes {
                let succ = e.and_not(&image_of(g, parts, &live, guard)?, &closed)?;
                if e.is_false(&succ) {
                    continue;
                }
                let g2 = cost + c;
                let mut put = |h2: u64, set: E::Bdd| -> Result<(), Interrupt> {
                    let key = (g2 + h2, g2);
                    let merged = match open.remove(&key) {
                        Some(old) => e.or(&old, &set)?,
                        None => set,
                    };
                    guard.check_nodes(e.node_count(&merged) as u64)?;
                    open.insert(key, merged);
                    Ok(())
                };
                match heuristic {
                    None => put(0, succ)?,
                    Some(hs) => {
                        for (h2, part) in hs.split(e, &succ)? {
                            put(h2, part)?;
                        }
                    }
                }
            }
        }
        let held = e.node_count(&closed) + open.values().map(|b| e.node_count(b)).sum::<usize>();
        stats.peak_nodes = stats.peak_nodes.max(held + e.node_count(&s));
        progress(stats);
    }
    Ok(None)
}

// ---------------------------------------------------------------------------------------------
// Heuristics: pattern databases.

/// A heuristic given as partitions of the states by h value, one per pattern database, combined
/// by maximum: `h(s) = max_i h_i(s)`, where `h_i(s)` is the h of the set of partition `i` that
/// holds `s`, and infinity (the state cannot reach the goal) if none does. The maximum is taken
/// lazily, by splitting a state set by one partition after the other: building the combined
/// partition `OR_{max(i, j) = h} (A_i AND B_j)` up front is far larger than its parts.
pub struct Heuristic<E: BddEngine> {
    /// Per database: `(h, H_h)` pairs, h ascending, the sets pairwise disjoint.
    pub partitions: Vec<Vec<(u64, E::Bdd)>>,
}

impl<E: BddEngine> Clone for Heuristic<E> {
    fn clone(&self) -> Self {
        Heuristic {
            partitions: self.partitions.clone(),
        }
    }
}

impl<E: BddEngine> Heuristic<E> {
    /// h = 0 everywhere (A* becomes Dijkstra).
    pub fn zero() -> Self {
        Heuristic {
            partitions: Vec::new(),
        }
    }

    /// Adds a pattern database to the maximum.
    pub fn add(&mut self, pdb: &PatternDatabase<E>) {
        self.partitions.push(pdb.levels.clone());
    }

    /// The h value of the states of `s` if they all share one (for a single state, its h);
    /// `None`: infinite.
    pub fn value_of_set(&self, e: &E, s: &E::Bdd) -> BddResult<Option<u64>> {
        let mut h = 0;
        for levels in &self.partitions {
            let mut found = None;
            for (v, set) in levels {
                if !e.is_false(&e.and(s, set)?) {
                    found = Some(*v);
                    break;
                }
            }
            match found {
                Some(v) => h = h.max(v),
                None => return Ok(None),
            }
        }
        Ok(Some(h))
    }

    /// `s` split by h value, h ascending (empty parts left out; states with infinite h
    /// dropped).
    pub fn split(&self, e: &E, s: &E::Bdd) -> BddResult<Vec<(u64, E::Bdd)>> {
        let mut parts: BTreeMap<u64, E::Bdd> = BTreeMap::new();
        parts.insert(0, s.clone());
        for levels in &self.partitions {
            let mut next: BTreeMap<u64, Vec<E::Bdd>> = BTreeMap::new();
            for (h, part) in parts {
                let mut rest = part;
                for (v, set) in levels {
                    if e.is_false(&rest) {
                        break;
                    }
                    let piece = e.and(&rest, set)?;
                    if !e.is_false(&piece) {
                        rest = e.and_not(&rest, set)?;
                        next.entry(h.max(*v)).or_default().push(piece);
                    }
                }
            }
            parts = BTreeMap::new();
            for (h, pieces) in next {
                parts.insert(h, or_all(e, pieces)?);
            }
        }
        Ok(parts.into_iter().collect())
    }
}

/// One partition of the transition relation in an abstraction: the relation with the dropped
/// groups' variables quantified out (a conjunct list is quantified conjunct by conjunct, an
/// over-approximation that keeps every concrete transition).
struct AbstractPart<E: BddEngine> {
    relation: E::Bdd,
    conjuncts: Vec<(Var, E::Bdd)>,
    quant_cur: VarSet,
    quant_next: VarSet,
    to_cur: Vec<(Var, Var)>,
    to_next: Vec<(Var, Var)>,
}

impl<E: BddEngine> AbstractPart<E> {
    fn image(&self, e: &E, s: &E::Bdd) -> BddResult<E::Bdd> {
        let r = match self.conjuncts.split_last() {
            None => e.and_exists(s, &self.relation, &self.quant_cur)?,
            Some((last, rest)) => {
                let mut acc = e.and(s, &self.relation)?;
                for (_, c) in rest {
                    acc = e.and(&acc, c)?;
                }
                e.and_exists(&acc, &last.1, &self.quant_cur)?
            }
        };
        e.rename(&r, &self.to_cur)
    }

    fn pre_image_within(&self, e: &E, s: &E::Bdd, domain: &E::Bdd) -> BddResult<E::Bdd> {
        let primed = e.rename(s, &self.to_next)?;
        if self.conjuncts.is_empty() {
            let r = e.and_exists(&self.relation, &primed, &self.quant_next)?;
            return e.and(&r, domain);
        }
        let mut acc = e.and(&e.and(&self.relation, domain)?, &primed)?;
        for (v, c) in &self.conjuncts {
            acc = e.and_exists(&acc, c, &VarSet::from(vec![*v]))?;
        }
        // Next variables without a conjunct of their own (none with one variable per fluent).
        e.exists(&acc, &self.quant_next)
    }
}

/// A symbolic pattern database: abstract goal distances in the abstraction that keeps the
/// variables of some fluent groups.
pub struct PatternDatabase<E: BddEngine> {
    /// `(h, states)`: the abstract states at abstract distance h, as sets over the kept
    /// current variables (so also sets of concrete states), h ascending.
    pub levels: Vec<(u64, E::Bdd)>,
    /// Statistics.
    pub stats: PatternStats,
}

/// The fluents of the given groups, sorted.
fn fluents_of_groups(groups: &[Vec<usize>], chosen: &[usize]) -> Vec<usize> {
    let mut fl: Vec<usize> = chosen
        .iter()
        .flat_map(|&i| groups[i].iter().copied())
        .collect();
    fl.sort_unstable();
    fl.dedup();
    fl
}

/// An abstract relation larger than this is kept as a conjunct list (for the forward search).
const ABSTRACT_RELATION_NODES: usize = 100_000;

/// Builds the pattern database of the groups `pattern` (indexes into
/// [`Encoding::groups`]) for the goal set `goal` with action costs `costs`.
///
/// The abstraction quantifies the other groups' variables out of the initial state, the goal
/// and each partition's relation conjoined with "not terminal"; abstract states reachable from
/// the abstract initial state are found by BFS, then abstract goal distances by a backward
/// Dijkstra within them. `limits.max_nodes` bounds every abstract set.
pub fn pattern_database<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    costs: &Costs,
    goal: &E::Bdd,
    pattern: &[usize],
    limits: &Limits,
) -> Result<Result<PatternDatabase<E>, StopReason>, PlanError> {
    let guard = Guard {
        limits,
        started: Instant::now(),
    };
    match build_pdb(g, costs, goal, pattern, &guard) {
        Ok(p) => Ok(Ok(p)),
        Err(Interrupt::Stop(why)) => Ok(Err(why)),
    }
}

fn build_pdb<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    costs: &Costs,
    goal: &E::Bdd,
    pattern: &[usize],
    guard: &Guard,
) -> Result<PatternDatabase<E>, Interrupt> {
    let e = g.engine();
    let enc: &Encoding = g.encoding();
    let groups = enc.groups();
    let kept = fluents_of_groups(&groups, pattern);
    let kept_set: HashSet<usize> = kept.iter().copied().collect();
    let dropped: Vec<usize> = (0..enc.num_fluents())
        .filter(|f| !kept_set.contains(f))
        .collect();
    let (kept_cur, _) = enc.vars_of(&kept);
    let (drop_cur, drop_next) = enc.vars_of(&dropped);
    let drop_all: VarSet = drop_cur.iter().chain(drop_next.iter()).collect();
    let mut peak = 0usize;
    let mut note = |b: &E::Bdd| -> Result<(), Interrupt> {
        let n = e.node_count(b);
        peak = peak.max(n);
        Ok(guard.check_nodes(n as u64)?)
    };

    let mut classes: Vec<(u64, Vec<AbstractPart<E>>)> = Vec::new();
    for (c, parts) in cost_classes(g, costs) {
        let mut out = Vec::with_capacity(parts.len());
        for p in &parts {
            guard.check()?;
            let touched: Vec<usize> = p
                .touched
                .iter()
                .copied()
                .filter(|f| kept_set.contains(f))
                .collect();
            let (tc, tn) = enc.vars_of(&touched);
            let base = g.and_not_terminal(&p.relation)?;
            let (relation, conjuncts) = if p.conjuncts.is_empty() {
                (e.exists(&base, &drop_all)?, Vec::new())
            } else {
                let mut conj = Vec::new();
                for (v, cj) in &p.conjuncts {
                    if tn.contains(*v) {
                        conj.push((*v, e.exists(cj, &drop_cur)?));
                    }
                }
                let rel = e.exists(&base, &drop_cur)?;
                // Fewer variables than the concrete relation: often small enough to build
                // (bottom-up: the conjuncts come by descending position).
                let mut whole = Some(e.constant(true));
                for (_, c) in &conj {
                    whole = match whole {
                        Some(w) => {
                            let w2 = e.and(c, &w)?;
                            (e.node_count(&w2) <= ABSTRACT_RELATION_NODES).then_some(w2)
                        }
                        None => None,
                    };
                }
                match whole.map(|w| e.and(&rel, &w)).transpose()? {
                    Some(r) if e.node_count(&r) <= ABSTRACT_RELATION_NODES => (r, Vec::new()),
                    _ => (rel, conj),
                }
            };
            if e.is_false(&relation) {
                continue;
            }
            // Assumes the i-th current variable of `vars_of` pairs with its i-th next variable
            // (true of the interleaved layout, where x_f' directly follows x_f).
            out.push(AbstractPart {
                relation,
                conjuncts,
                to_cur: tn.iter().zip(tc.iter()).collect(),
                to_next: tc.iter().zip(tn.iter()).collect(),
                quant_cur: tc,
                quant_next: tn,
            });
        }
        classes.push((c, out));
    }

    // Abstract states reachable from the abstract initial state (unit steps: only the set).
    let init = e.exists(g.init(), &drop_cur)?;
    let mut reached = init.clone();
    let mut frontier = init;
    while !e.is_false(&frontier) {
        let mut imgs = Vec::new();
        for (_, parts) in &classes {
            for p in parts {
                guard.check()?;
                imgs.push(p.image(e, &frontier)?);
            }
        }
        frontier = e.and_not(&or_all(e, imgs)?, &reached)?;
        reached = e.or(&reached, &frontier)?;
        note(&frontier)?;
        note(&reached)?;
    }

    // Backward steps use one relation per part restricted to the reachable abstract states:
    // a conjunct list substituted one variable at a time blows up over unreachable states.
    for (_, parts) in &mut classes {
        for p in parts.iter_mut() {
            guard.check()?;
            let mut rel = e.and(&p.relation, &reached)?;
            for (_, c) in &p.conjuncts {
                rel = e.and(&rel, c)?;
                note(&rel)?;
            }
            p.relation = rel;
            p.conjuncts.clear();
        }
    }
    // Backward Dijkstra from the abstract goal within the reachable abstract states.
    let agoal = e.and(&e.exists(goal, &drop_cur)?, &reached)?;
    let mut open: BTreeMap<u64, E::Bdd> = BTreeMap::new();
    open.insert(0, agoal);
    let mut closed = e.constant(false);
    let mut levels = Vec::new();
    while let Some((h, bucket)) = open.pop_first() {
        guard.check()?;
        let s = e.and_not(&bucket, &closed)?;
        if e.is_false(&s) {
            continue;
        }
        closed = e.or(&closed, &s)?;
        note(&closed)?;
        for (c, parts) in &classes {
            let mut pres = Vec::with_capacity(parts.len());
            for p in parts {
                guard.check()?;
                pres.push(p.pre_image_within(e, &s, &reached)?);
            }
            let new = e.and_not(&or_all(e, pres)?, &closed)?;
            if e.is_false(&new) {
                continue;
            }
            let slot = open.entry(h + c).or_insert_with(|| e.constant(false));
            *slot = e.or(slot, &new)?;
            note(slot)?;
        }
        levels.push((h, s));
    }
    let stats = PatternStats {
        groups: pattern.to_vec(),
        fluents: kept.len(),
        abstract_states: e.sat_count_over(&reached, &kept_cur),
        solvable_states: e.sat_count_over(&closed, &kept_cur),
        max_h: levels.last().map_or(0, |l| l.0),
        peak_nodes: peak,
        seconds: guard.started.elapsed().as_secs_f64(),
    };
    Ok(PatternDatabase { levels, stats })
}

/// The fluents that the cone of literal `l` reads.
fn fluents_read(game: &GroundGame, l: symgame_ground::Lit, out: &mut HashSet<usize>) {
    let c = &game.circuit;
    let nf = game.fluents.len() as u32;
    let mut seen = HashSet::new();
    let mut stack = vec![l.signal()];
    while let Some(s) = stack.pop() {
        if s >= 1 && s <= nf {
            out.insert((s - 1) as usize);
        } else if s >= c.num_inputs && seen.insert(s) {
            let gate = (s - c.num_inputs) as usize;
            stack.extend(c.gates[gate].inputs().iter().map(|x| x.signal()));
        }
    }
}

/// The automatic pattern order: group indexes, most relevant first, and how many of them the
/// goal reads.
///
/// The goal set's groups come first (those holding a variable the goal BDD depends on). Then,
/// greedily, the group that the most fluents of the pattern so far depend on: a fluent depends
/// on the fluents its `next` function reads, and on those any `legal` condition reads. Groups
/// nothing in the pattern depends on (e.g. a step counter that only feeds `terminal`) are never
/// added: keeping them enlarges the abstraction without sharpening the distances much.
pub fn pattern_order<E: BddEngine>(
    game: &GroundGame,
    g: &SymbolicGame<'_, E>,
    goal: &E::Bdd,
) -> (Vec<usize>, usize) {
    let e = g.engine();
    let enc = g.encoding();
    let groups = enc.groups();
    let support: HashSet<Var> = e.support(goal).into_iter().collect();
    let mut in_pattern = vec![false; groups.len()];
    let mut order = Vec::new();
    for (i, grp) in groups.iter().enumerate() {
        let (cur, _) = enc.vars_of(grp);
        if cur.iter().any(|v| support.contains(&v)) {
            in_pattern[i] = true;
            order.push(i);
        }
    }
    let goal_groups = order.len();
    let mut group_of = vec![0usize; enc.num_fluents()];
    for (i, grp) in groups.iter().enumerate() {
        for &f in grp {
            group_of[f] = i;
        }
    }
    let mut legal_reads = HashSet::new();
    for &l in game.legal.iter().flatten() {
        fluents_read(game, l, &mut legal_reads);
    }
    // deps[f]: groups the next value of fluent f depends on.
    let deps: Vec<HashSet<usize>> = (0..enc.num_fluents())
        .map(|f| {
            let mut reads = legal_reads.clone();
            fluents_read(game, game.next[f], &mut reads);
            reads.into_iter().map(|x| group_of[x]).collect()
        })
        .collect();
    loop {
        let mut weight = vec![0usize; groups.len()];
        for &p in &order {
            for &f in &groups[p] {
                for &d in &deps[f] {
                    if !in_pattern[d] {
                        weight[d] += 1;
                    }
                }
            }
        }
        // Most readers first; ties by group index (the variable order).
        let best = (0..groups.len())
            .filter(|&i| weight[i] > 0)
            .max_by_key(|&i| (weight[i], std::cmp::Reverse(i)));
        match best {
            Some(i) => {
                in_pattern[i] = true;
                order.push(i);
            }
            None => break,
        }
    }
    (order, goal_groups)
}

/// Chooses a pattern automatically: the longest prefix of [`pattern_order`] whose pattern
/// database stays within `max_nodes` BDD nodes per abstract set (found by bisection to within
/// a sixteenth of the order, each try stopped as soon as it exceeds the budget), and builds
/// it.
pub fn select_pattern<E: BddEngine>(
    game: &GroundGame,
    g: &SymbolicGame<'_, E>,
    costs: &Costs,
    goal: &E::Bdd,
    max_nodes: usize,
    limits: &Limits,
) -> Result<Result<Selection<E>, StopReason>, PlanError> {
    let (order, _) = pattern_order(game, g, goal);
    let started = Instant::now();
    let budget = Limits {
        max_nodes: Some(
            limits
                .max_nodes
                .map_or(max_nodes as u64, |m| m.min(max_nodes as u64)),
        ),
        ..limits.clone()
    };
    let mut tried = Vec::new();
    let mut best: Option<PatternDatabase<E>> = None;
    // Invariant: the prefix of length lo fits (lo = 0 trivially), prefixes longer than hi do
    // not. The bisection stops within a sixteenth of the order: each try costs a database.
    let (mut lo, mut hi) = (0usize, order.len());
    let close = (order.len() / 16).max(1);
    while lo < hi && (best.is_none() || hi - lo >= close) {
        // Try the full order first: small games fit entirely.
        let k = if best.is_none() && tried.is_empty() {
            hi
        } else {
            lo + (hi - lo).div_ceil(2)
        };
        match pattern_database(g, costs, goal, &order[..k], &remaining(&budget, started))? {
            Ok(pdb) => {
                tried.push((k, true));
                lo = k;
                best = Some(pdb);
            }
            Err(StopReason::NodeLimit) => {
                tried.push((k, false));
                hi = k - 1;
            }
            Err(why) => return Ok(Err(why)),
        }
    }
    Ok(Ok(Selection {
        database: best,
        tried,
    }))
}

/// `limits` with the time limit reduced by the time elapsed since `started`.
fn remaining(limits: &Limits, started: Instant) -> Limits {
    Limits {
        time_limit: limits
            .time_limit
            .map(|t| t.saturating_sub(started.elapsed())),
        ..limits.clone()
    }
}

/// The result of [`select_pattern`].
pub struct Selection<E: BddEngine> {
    /// The database of the chosen pattern (`None` if not even one group fits the budget).
    pub database: Option<PatternDatabase<E>>,
    /// The tries: (number of groups, within the budget).
    pub tried: Vec<(usize, bool)>,
}

/// Resolves a pattern specification to group indexes. The specification is a sequence of
/// items separated by white space: a bare number is a group index; a bare name selects every
/// fluent of that relation (`on` selects `(on 1 left)`, ...); a term selects the fluents it
/// matches, where `?x` matches any argument and missing trailing arguments match anything
/// (`(cell ?r ?c 0)`: every cell fluent with last argument 0; `(cell 1)`: every cell fluent of
/// row 1). A selected fluent brings its whole group.
pub fn parse_pattern(
    game: &GroundGame,
    enc: &Encoding,
    spec: &str,
) -> Result<Vec<usize>, PlanError> {
    let groups = enc.groups();
    let mut group_of = vec![0usize; enc.num_fluents()];
    for (i, grp) in groups.iter().enumerate() {
        for &f in grp {
            group_of[f] = i;
        }
    }
    let items = parse_items(spec).map_err(PlanError::BadPattern)?;
    if items.is_empty() {
        return Err(PlanError::BadPattern("the pattern is empty".into()));
    }
    let mut chosen = HashSet::new();
    for item in &items {
        if let Item::Atom(a) = item {
            if let Ok(i) = a.parse::<usize>() {
                if i >= groups.len() {
                    return Err(PlanError::BadPattern(format!(
                        "group {i} does not exist (the game has {} groups)",
                        groups.len()
                    )));
                }
                chosen.insert(i);
                continue;
            }
        }
        let mut any = false;
        for (f, t) in game.fluents.iter().enumerate() {
            if item.matches_fluent(t) {
                any = true;
                chosen.insert(group_of[f]);
            }
        }
        if !any {
            return Err(PlanError::BadPattern(format!("{item} matches no fluent")));
        }
    }
    let mut out: Vec<usize> = chosen.into_iter().collect();
    out.sort_unstable();
    Ok(out)
}

/// A pattern item: a name or variable, or a compound term.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Item {
    Atom(String),
    Func(String, Vec<Item>),
}

impl fmt::Display for Item {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Item::Atom(a) => write!(f, "{a}"),
            Item::Func(n, args) => {
                write!(f, "({n}")?;
                for a in args {
                    write!(f, " {a}")?;
                }
                write!(f, ")")
            }
        }
    }
}

impl Item {
    /// As a top-level item: a bare name selects a relation, a term matches by argument prefix.
    fn matches_fluent(&self, t: &GroundTerm) -> bool {
        match (self, t) {
            (Item::Atom(a), GroundTerm::Const(c)) => a == c,
            (Item::Atom(a), GroundTerm::Func(n, _)) => a == n,
            (Item::Func(..), _) => self.matches(t),
        }
    }

    /// As an argument: `?x` matches anything; a term matches a term with the same name and
    /// at least as many arguments, argument by argument.
    fn matches(&self, t: &GroundTerm) -> bool {
        match (self, t) {
            (Item::Atom(a), _) if a.starts_with('?') => true,
            (Item::Atom(a), GroundTerm::Const(c)) => a == c,
            (Item::Func(n, args), GroundTerm::Func(m, targs)) => {
                n == m
                    && args.len() <= targs.len()
                    && args.iter().zip(targs).all(|(x, y)| x.matches(y))
            }
            _ => false,
        }
    }
}

fn parse_items(text: &str) -> Result<Vec<Item>, String> {
    let toks: Vec<String> = text
        .replace('(', " ( ")
        .replace(')', " ) ")
        .split_whitespace()
        .map(|s| s.to_ascii_lowercase())
        .collect();
    let mut pos = 0;
    let mut out = Vec::new();
    while pos < toks.len() {
        out.push(parse_item(&toks, &mut pos)?);
    }
    Ok(out)
}

fn parse_item(toks: &[String], pos: &mut usize) -> Result<Item, String> {
    let t = toks.get(*pos).ok_or("unexpected end of the pattern")?;
    *pos += 1;
    match t.as_str() {
        "(" => {
            let name = toks
                .get(*pos)
                .filter(|n| *n != "(" && *n != ")")
                .ok_or("expected a name after `(`")?
                .clone();
            *pos += 1;
            let mut args = Vec::new();
            loop {
                match toks.get(*pos).map(String::as_str) {
                    Some(")") => {
                        *pos += 1;
                        break;
                    }
                    Some(_) => args.push(parse_item(toks, pos)?),
                    None => return Err("unbalanced parenthesis in the pattern".into()),
                }
            }
            Ok(if args.is_empty() {
                Item::Atom(name)
            } else {
                Item::Func(name, args)
            })
        }
        ")" => Err("unexpected `)` in the pattern".into()),
        s => Ok(Item::Atom(s.to_string())),
    }
}

/// Builds the heuristic for `choice`: the automatic pattern, or the given patterns combined by
/// maximum. `Err(reason)` if a limit (other than the automatic selection's own node budget)
/// stopped the construction.
pub fn build_heuristic<E: BddEngine>(
    game: &GroundGame,
    g: &SymbolicGame<'_, E>,
    costs: &Costs,
    goal: &E::Bdd,
    choice: &PatternChoice,
    limits: &Limits,
) -> Result<Result<(Heuristic<E>, HeuristicStats), StopReason>, PlanError> {
    let e = g.engine();
    let started = Instant::now();
    let mut stats = HeuristicStats::default();
    let mut h = Heuristic::zero();
    match choice {
        PatternChoice::Auto { max_nodes } => {
            stats.automatic = true;
            match select_pattern(game, g, costs, goal, *max_nodes, limits)? {
                Err(why) => return Ok(Err(why)),
                Ok(Selection { database, tried }) => {
                    stats.tried = tried;
                    if let Some(pdb) = database {
                        h.add(&pdb);
                        stats.patterns.push(pdb.stats);
                    }
                }
            }
        }
        PatternChoice::Given(patterns) => {
            let n = g.encoding().groups().len();
            for p in patterns {
                if let Some(&bad) = p.iter().find(|&&i| i >= n) {
                    return Err(PlanError::BadPattern(format!(
                        "group {bad} does not exist (the game has {n} groups)"
                    )));
                }
                match pattern_database(g, costs, goal, p, &remaining(limits, started))? {
                    Err(why) => return Ok(Err(why)),
                    Ok(pdb) => {
                        h.add(&pdb);
                        stats.patterns.push(pdb.stats);
                    }
                }
            }
        }
    }
    stats.h_init = h.value_of_set(e, g.init())?;
    stats.seconds = started.elapsed().as_secs_f64();
    Ok(Ok((h, stats)))
}

struct PlanJob<'a, F> {
    game: &'a GroundGame,
    encoding: Encoding,
    opts: &'a SymbolicOptions,
    plan: &'a PlanOptions,
    role: usize,
    limits: &'a Limits,
    progress: F,
}

impl<F: FnMut(&PlanStats)> EngineJob<Result<PlanOutcome, PlanError>> for PlanJob<'_, F> {
    fn run<E: BddEngine>(self, engine: E) -> Result<PlanOutcome, PlanError> {
        let g = SymbolicGame::new(&engine, self.game, self.encoding, self.opts)?;
        let costs = Costs::of(self.game);
        let goal = goal_states(&g, self.role, self.plan.goal)?;
        let started = Instant::now();
        let mut heuristic = None;
        let mut hstats = None;
        if self.plan.algorithm == Algorithm::Astar {
            match build_heuristic(
                self.game,
                &g,
                &costs,
                &goal,
                &self.plan.patterns,
                self.limits,
            )? {
                Ok((h, s)) => {
                    heuristic = Some(h);
                    hstats = Some(s);
                }
                Err(why) => {
                    let mut stats = PlanStats::new(Algorithm::Astar);
                    stats.stopped = Some(why);
                    stats.seconds = started.elapsed().as_secs_f64();
                    return Ok(PlanOutcome { plan: None, stats });
                }
            }
        }
        // The search gets what is left of the time limit.
        let limits = remaining(self.limits, started);
        let mut out = plan(
            &g,
            &costs,
            &goal,
            self.plan.algorithm,
            heuristic.as_ref(),
            &limits,
            self.progress,
        )?;
        out.stats.heuristic = hstats;
        Ok(out)
    }
}

/// Plans on `game` with the engine `backend`: compiles the game, builds the goal set and (for
/// A*) the heuristic, and runs the search. `progress` is called after each expanded layer.
pub fn plan_with_backend(
    game: &GroundGame,
    backend: Backend,
    config: &EngineConfig,
    opts: &SymbolicOptions,
    plan: &PlanOptions,
    limits: &Limits,
    progress: impl FnMut(&PlanStats),
) -> Result<PlanOutcome, PlanError> {
    let role = match plan.role {
        None if game.roles.len() == 1 => 0,
        Some(r) if r < game.roles.len() => r,
        Some(r) => {
            return Err(PlanError::Symbolic(SymbolicError::UnknownRole(format!(
                "#{r} (the game has {} roles)",
                game.roles.len()
            ))))
        }
        None => {
            return Err(PlanError::NotSinglePlayer {
                roles: game.roles.iter().map(|r| r.name.to_string()).collect(),
            })
        }
    };
    let opts = SymbolicOptions {
        goals: true,
        ..opts.clone()
    };
    let encoding = Encoding::with_options(game, &opts);
    let n = encoding.num_vars();
    backend.run(
        n,
        config,
        PlanJob {
            game,
            encoding,
            opts: &opts,
            plan,
            role,
            limits,
            progress,
        },
    )?
}
