//! What to solve and how: [`SolveOptions`] and the [`LayeredMode`].

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use symgame_limits::Limits;

/// Whether to solve layer by layer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LayeredMode {
    /// Layered when the game is two-player and every move goes from BFS layer `k` to `k + 1`.
    #[default]
    Auto,
    /// Always the whole-set algorithm.
    Never,
}

/// Which values [`solve`](fn@crate::solve) computes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ValueRule {
    /// The game's natural solution: the best reward in single-player games, minimax in
    /// two-player constant-sum games, the preference rule ([`preference`](crate::preference))
    /// in turn-taking games with general rewards (max^n for three or more roles), and the
    /// security levels ([`GameKind::SecurityLevels`](crate::GameKind::SecurityLevels)) in games
    /// with simultaneous moves.
    #[default]
    Auto,
    /// The security levels of every role, for any game.
    Security,
}

/// Options of [`solve`](fn@crate::solve).
#[derive(Clone, Debug, Default)]
pub struct SolveOptions {
    /// Layered or whole-set solving.
    pub layered: LayeredMode,
    /// Which values to compute.
    pub values: ValueRule,
    /// Return the value classes in memory ([`Solved::layers`](crate::Solved::layers)); otherwise they are dropped
    /// once written and counted.
    pub keep_classes: bool,
    /// Write the solution to this directory (format: `docs/formats/solution.md`).
    pub out_dir: Option<PathBuf>,
    /// Where the BFS layers wait during layered solving (default: a fresh directory under the
    /// system's temporary directory, removed at the end).
    pub spill_dir: Option<PathBuf>,
    /// Make [`Self::out_dir`] resumable: the forward layers are kept there (with
    /// `forward.json`) until the solution is complete, the manifest is rewritten after each
    /// solved layer, and a solve found there goes on: without the forward search once it is
    /// complete, and, in layered solving, from the last solved layer. `spill_dir` is then not
    /// used.
    pub resume: bool,
    /// Fingerprint of the ground game and encoding written into solution files (see
    /// [`crate::fingerprint`]).
    pub fingerprint: String,
    /// The time budget of the report of one-shot Nash equilibria, which follows a complete
    /// solution and never stops it (`None`: 60 s; always at most a quarter of the time left).
    pub nash_budget: Option<std::time::Duration>,
    /// Limits; a stop is reported in [`SolveStats::stopped`](crate::SolveStats::stopped), with the finished layers kept.
    pub limits: Limits,
    /// The largest BDD of "a role has two legal moves" built over all states, in nodes
    /// (`None`: 10,000); past it, who moves is built within the reachable states instead,
    /// after the forward search.
    pub choice_nodes: Option<usize>,
    /// The game's ground form, for the steps that may expand states one at a time with the
    /// explicit reasoner (the mixed values of games with many distinct stage games); `None`:
    /// those steps stay symbolic.
    pub ground: Option<std::sync::Arc<symgame_ground::GroundGame>>,
    /// The most signature groups a symbolic round of mixed values may split its ready states
    /// into before the states left are valued one at a time (with [`Self::ground`]; `None`:
    /// 8,192).
    pub stage_groups: Option<usize>,
    /// Split the large layers of a resumable layered solve ([`Self::resume`]) into slices
    /// solved by separate jobs (`None`: every layer in this process).
    pub slicing: Option<crate::solve::slicing::Slicing>,
}

/// The default of [`SolveOptions::choice_nodes`].
pub(crate) const CHOICE_NODES: usize = 10_000;

/// The most signature groups a symbolic round may split the ready states into before the
/// states left are valued one at a time (when the ground game is at hand), unless
/// [`SolveOptions::stage_groups`] says otherwise:
/// doubletictactoe's rounds split into 1,927 groups in 2.1 s, then 63,652 in 19.7 s.
pub(crate) const MAX_GROUPS: usize = 8_192;
