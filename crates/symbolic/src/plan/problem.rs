//! What to plan: the [`Algorithm`], action [`Costs`], the heuristic's [`PatternChoice`],
//! [`PlanOptions`] and [`PlanError`]; the partitions grouped by cost ([`cost_classes`]) that the
//! cost-optimal searches and the pattern databases step with.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use symgame_bdd::{BddEngine, BddError};
use symgame_ground::GroundGame;
use symgame_limits::Limits;

use crate::compile::JointMove;
use crate::error::SymbolicError;
use crate::game::SymbolicGame;
use crate::partition::Partition;

/// A planning algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Algorithm {
    /// Breadth-first search ([`reach_until`](crate::reach_until)): fewest moves.
    Bfs,
    /// Bidirectional breadth-first search ([`shortest_path_within`](crate::shortest_path_within)): fewest moves.
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

    /// The lower-case name, as [`Display`](fmt::Display) writes it (and the CLI's `--algo`
    /// takes it).
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
    /// One pattern chosen by [`select_pattern`](crate::select_pattern) within this many BDD nodes per abstract set.
    Auto {
        /// Node budget of every abstract set (reachable set, distance layer).
        max_nodes: usize,
    },
    /// These patterns (each a list of group indexes into [`Encoding::groups`](crate::Encoding::groups)), combined by
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

/// What to plan: the goal (a role and its reward), then how to search for it (the algorithm and
/// its heuristic).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanOptions {
    /// The role whose reward defines the goal; `None` for a single-player game (the only
    /// role). With a role chosen in a game of several roles, the plan picks every role's move.
    pub role: Option<usize>,
    /// Goal: terminal states where the role's goal value is exactly this.
    pub goal: u8,
    /// The algorithm.
    pub algorithm: Algorithm,
    /// The heuristic of [`Algorithm::Astar`].
    pub patterns: PatternChoice,
}

impl Default for PlanOptions {
    fn default() -> Self {
        PlanOptions {
            role: None,
            goal: 100,
            algorithm: Algorithm::Astar,
            patterns: PatternChoice::default(),
        }
    }
}

/// Errors of planning (limits are not errors: see [`PlanStats::stopped`](crate::PlanStats::stopped)).
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

crate::from_variants!(PlanError { Symbolic(SymbolicError) });

impl From<BddError> for PlanError {
    fn from(e: BddError) -> Self {
        PlanError::Symbolic(SymbolicError::Bdd(e))
    }
}

/// Partitions grouped by the cost of their joint moves, ascending.
pub(crate) type CostClasses<E> = Vec<(u64, Vec<Partition<E>>)>;

/// The partitions grouped by the cost of their joint moves, ascending: the clusters whose joint
/// moves all cost the same, else the cluster's per-joint-move partitions.
pub(crate) fn cost_classes<E: BddEngine>(g: &SymbolicGame<'_, E>, costs: &Costs) -> CostClasses<E> {
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

/// `limits` with the time limit reduced by the time elapsed since `started` (or since the
/// limits' own start, if earlier), counting from now.
pub(crate) fn remaining(limits: &Limits, started: Instant) -> Limits {
    let from = limits.time_from.map_or(started, |t| t.min(started));
    Limits {
        time_limit: limits.time_limit.map(|t| t.saturating_sub(from.elapsed())),
        time_from: Some(Instant::now()),
        ..limits.clone()
    }
}
