//! The statistics of a solution: [`SolveStats`] with its [`GameKind`] and per-layer
//! [`SolveLayerStats`] ([`MoverCounts`] for two roles). A leaf that the solvers and the solution
//! files both import (the manifest carries the statistics).

use num_bigint::BigUint;
use serde::{Deserialize, Serialize};
use symgame_limits::StopReason;

use crate::decimal;

/// Which retrograde algorithm a game needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GameKind {
    /// One role: the best reward it can reach, and the distance to it.
    SinglePlayer,
    /// Two roles whose rewards sum to the same constant in every reachable terminal state.
    ZeroSum,
    /// Two roles, any rewards.
    GeneralSum,
    /// Three or more roles, turn-taking: the max^n outcome (the role in control picks the
    /// successor outcome first in its [`preference`](crate::preference)).
    MaxN,
    /// Any number of roles, simultaneous moves allowed: an outcome lists every role's security
    /// level, the largest reward the role can guarantee in pure strategies, choosing its move
    /// without seeing the other roles' moves of the same step, whatever they play. Not a reward
    /// vector of one play: each role is assumed to face the worst the others can do to it.
    SecurityLevels,
    /// Two roles, constant sum, simultaneous moves: the value in mixed strategies, each
    /// simultaneous step a matrix game solved by LP. An outcome lists the roles' pure security
    /// levels (bounds on the mixed value), and [`SolveStats::mixed`] role 0's mixed value.
    MixedValues,
}

impl std::fmt::Display for GameKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            GameKind::SinglePlayer => "single-player",
            GameKind::ZeroSum => "two-player constant-sum",
            GameKind::GeneralSum => "two-player general-sum",
            GameKind::MaxN => "turn-taking with three or more roles (max^n)",
            GameKind::SecurityLevels => "security levels (pure strategies)",
            GameKind::MixedValues => {
                "two-player constant-sum with simultaneous moves (mixed values)"
            }
        })
    }
}

/// Won, drawn and lost non-terminal states, seen from the role to move (two-player games).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoverCounts {
    /// The role to move gets more than the other role (decimal string).
    #[serde(with = "decimal")]
    pub won: BigUint,
    /// Both get the same (decimal string).
    #[serde(with = "decimal")]
    pub drawn: BigUint,
    /// The role to move gets less (decimal string).
    #[serde(with = "decimal")]
    pub lost: BigUint,
}

impl MoverCounts {
    /// Adds `n` states whose outcome is `outcome`, where role `p` moves.
    pub(crate) fn add(&mut self, outcome: &[u8], p: usize, n: BigUint) {
        match outcome[p].cmp(&outcome[1 - p]) {
            std::cmp::Ordering::Greater => self.won += n,
            std::cmp::Ordering::Equal => self.drawn += n,
            std::cmp::Ordering::Less => self.lost += n,
        }
    }
}

/// The solution statistics of one BFS layer.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SolveLayerStats {
    /// BFS depth.
    pub depth: usize,
    /// States of the layer (decimal string).
    #[serde(with = "decimal")]
    pub states: BigUint,
    /// Terminal states of the layer (decimal string).
    #[serde(with = "decimal")]
    pub terminal: BigUint,
    /// States per outcome, indexed like [`SolveStats::outcomes`] (decimal strings).
    #[serde(with = "decimal::list")]
    pub per_outcome: Vec<BigUint>,
    /// Two-player games: non-terminal states won / drawn / lost for the role to move.
    pub mover: Option<MoverCounts>,
    /// BDD nodes of the layer's value classes (sum over the classes).
    pub nodes: usize,
    /// Seconds since the start of solving when the layer was done, over all the sittings of
    /// a resumed solve ([`Resumed::earlier_seconds`]).
    pub seconds: f64,
    /// When the layer was solved in slices by separate jobs: how ([`SlicedStats`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sliced: Option<SlicedStats>,
}

/// How a layer solved in slices went: the jobs' seconds (set-up excluded) and the merge.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SlicedStats {
    /// Slices of the layer.
    pub slices: u32,
    /// Per slice, the seconds its job spent reading the next layer's solution and its own
    /// part of the layer.
    pub read_seconds: Vec<f64>,
    /// Per slice, the seconds its job spent solving it.
    pub solve_seconds: Vec<f64>,
    /// Per slice, the seconds its job spent writing its files.
    pub write_seconds: Vec<f64>,
    /// Per slice, its job's largest BDD in nodes.
    pub peak_nodes: Vec<usize>,
    /// Seconds spent merging the slices' files into the layer's (by the job of the layer
    /// above that merged it, or by the solve).
    pub merge_seconds: f64,
    /// How a forward layer was split among the jobs (`reach`; `None`: by states, as every
    /// layer of `solve`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub split: Option<crate::solve::slicing::SliceSplit>,
}

/// The result statistics of [`solve`](fn@crate::solve).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SolveStats {
    /// Which algorithm.
    pub kind: GameKind,
    /// Whether the layered algorithm ran.
    pub layered: bool,
    /// The roles' names.
    pub roles: Vec<String>,
    /// The outcomes seen: `outcomes[i][r]` is the reward of role `r` under outcome `i`.
    pub outcomes: Vec<Vec<u8>>,
    /// The outcome of the initial state (`None` if solving stopped before reaching it).
    pub initial: Option<usize>,
    /// Single-player games: moves from the initial state to its best reward.
    pub initial_distance: Option<u32>,
    /// Per BFS layer; in layered solving, the solved layers (from the last one down).
    pub layers: Vec<SolveLayerStats>,
    /// Solved states per outcome over all layers (decimal strings).
    #[serde(with = "decimal::list")]
    pub per_outcome: Vec<BigUint>,
    /// Reachable states (decimal string); while the forward search runs (and after a stop in
    /// it), those of its finished layers.
    #[serde(with = "decimal")]
    pub states: BigUint,
    /// Layers of the forward search finished so far (all of them once it is done): what the
    /// progress of a solve shows until its first layer is solved.
    #[serde(default)]
    pub forward_layers: usize,
    /// Reachable states left without a value (only in games with cycles; decimal string).
    #[serde(with = "decimal")]
    pub unsolved: BigUint,
    /// Seconds of the forward search.
    pub reach_seconds: f64,
    /// How many of the forward search's first layers were expanded state by state (the
    /// explicit prefix, [`solve_with`](crate::solve_with)).
    #[serde(default)]
    pub explicit_layers: usize,
    /// Seconds of the whole run (over all sittings of a resumed solve).
    pub seconds: f64,
    /// The largest BDD (nodes) among layers, reached sets and value classes.
    pub peak_nodes: usize,
    /// `Some` if a limit stopped the run; the finished layers are kept.
    pub stopped: Option<StopReason>,
    /// [`GameKind::MixedValues`]: per outcome (indexed like [`Self::outcomes`]), each role's
    /// value in mixed strategies (role 1's is the constant sum minus role 0's); empty for other
    /// kinds.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mixed: Vec<Vec<f64>>,
    /// [`GameKind::MixedValues`]: the distinct stage games (signatures) solved, one LP each.
    #[serde(default)]
    pub stage_games: u64,
    /// [`GameKind::MixedValues`]: the states valued one at a time, their successors from the
    /// explicit reasoner, once a round's stage games outgrew the symbolic split (needs
    /// [`SolveOptions::ground`](crate::SolveOptions::ground)).
    #[serde(default)]
    pub explicit_states: u64,
    /// Security levels of a game with simultaneous moves that is not two-player constant-sum:
    /// the pure Nash equilibria of its one-shot stage games.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nash: Option<NashStats>,
    /// A resumable solve ([`SolveOptions::resume`](crate::SolveOptions::resume)): whether this
    /// run found the forward search complete in its directory, and how many layers it found
    /// solved there (0 for a solve begun anew).
    #[serde(default)]
    pub resumed: Resumed,
}

/// What a resumable solve found done in its directory.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Resumed {
    /// The forward search was complete: it was read back, not run.
    pub forward: bool,
    /// Layers of the forward search found finished (all of them when `forward`).
    pub forward_layers: usize,
    /// Layers found solved.
    pub layers: usize,
    /// Seconds the earlier sittings took up to the last layer they solved (the seconds of
    /// that layer's row). The seconds of the layers this run solves, and of the whole run,
    /// go on from there, so that they count over all sittings (the work of a layer cut off
    /// by an interruption is not counted: it is done again).
    #[serde(default)]
    pub earlier_seconds: f64,
}

/// The pure Nash equilibria of the one-shot stage games of a game with simultaneous moves.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NashStats {
    /// Reachable non-terminal states whose every successor is terminal (decimal string).
    #[serde(with = "decimal")]
    pub one_shot_states: BigUint,
    /// Of those, the states whose stage game has at least one pure equilibrium (decimal).
    #[serde(with = "decimal")]
    pub with_equilibrium: BigUint,
    /// Distinct stage games examined (one per signature).
    pub stage_games: u64,
    /// When the initial state is itself a one-shot stage game: the rewards of each of its pure
    /// equilibria (empty when it has none).
    pub initial: Option<Vec<Vec<u8>>>,
    /// Why the report stopped before it finished (its own time budget, or a limit of the run):
    /// the counts above are then not filled in. The solution it follows is complete.
    #[serde(default)]
    pub stopped: Option<StopReason>,
    /// Why the report failed (a fault of the solver; the solution it follows is complete).
    #[serde(default)]
    pub failed: Option<String>,
    /// Seconds the report took.
    #[serde(default)]
    pub seconds: f64,
}
