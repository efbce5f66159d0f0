//! What a planning run returns: the [`Plan`], the statistics of its layers or buckets
//! ([`PlanStats`], [`PlanLayer`]) and of its heuristic ([`HeuristicStats`], [`PatternStats`]).

use num_bigint::BigUint;
use serde::{Deserialize, Serialize};
use symgame_limits::StopReason;

use crate::compile::JointMove;
use crate::decimal;
use crate::plan::problem::{Algorithm, Costs};

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
    /// The pattern: group indexes into [`Encoding::groups`](crate::Encoding::groups).
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

/// Statistics of a planning run: the algorithm and its heuristic, then the search.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlanStats {
    /// The algorithm.
    pub algorithm: Algorithm,
    /// The heuristic (A* only), built before the search.
    pub heuristic: Option<HeuristicStats>,
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
    /// Bidirectional search on a game whose relation is kept as conjunct lists: the backward
    /// layers are restricted to the reachable states, found by a full BFS first (included in
    /// the time, peak and expanded layers); this is their number (decimal string).
    #[serde(with = "decimal::optional")]
    pub domain_states: Option<BigUint>,
    /// `Some` when a limit stopped the search before it finished.
    pub stopped: Option<StopReason>,
}

impl PlanStats {
    /// Statistics of a run of `algorithm` before it starts.
    pub(crate) fn new(algorithm: Algorithm) -> Self {
        PlanStats {
            algorithm,
            heuristic: None,
            layers: Vec::new(),
            expanded_layers: 0,
            peak_nodes: 0,
            seconds: 0.0,
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
    /// The plan of the joint moves `moves` through `states`, with their costs.
    pub(crate) fn new(moves: Vec<JointMove>, states: Vec<Vec<usize>>, costs: &Costs) -> Plan {
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
