//! The knobs of the symbolic set-up: [`SymbolicOptions`] and the two choices it holds about the
//! state layout, the variable [`Order`] and the [`EncodingKind`]. A leaf: plain data, imported by
//! the encoding, the compiler and the searches alike.

use serde::{Deserialize, Serialize};
use symgame_limits::StopReason;

use crate::profile::SetupLog;

/// How fluents are placed in the variable order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Order {
    /// The fluents' order in the ground game (their index order); groups by their first fluent.
    Given,
    /// Fluents sorted by their ground term, comparing argument by argument, numbers
    /// numerically and before names (`(cell 2 10 x)` after `(cell 2 9 x)`). Fluents of the same
    /// relation with equal leading arguments end up next to each other, e.g. Connect Four cells
    /// column by column, each cell's colours together. In games of two or more roles, the
    /// groups that the legal condition of every move reads (whose turn it is, like
    /// `(control ?r)`) come first: they split every state set at the root, and a relation
    /// whose mover is not to move is discarded at the first variable. Deterministic.
    #[default]
    Heuristic,
    /// Groups that occur together in rules placed close: starting from [`Order::Heuristic`],
    /// the FORCE heuristic (Aloul, Markov and Sakallah, 2003) moves each group to the mean
    /// centre of the rules it occurs in (the supports of `next`, `legal`, `terminal` and `goal`
    /// conditions) while the total span of the rules shrinks; turn groups first as in
    /// [`Order::Heuristic`]. Deterministic.
    Rules,
    /// [`Order::Heuristic`], [`Order::Rules`] or [`Order::Given`], whichever lays out the
    /// reachable states already known ([`SymbolicOptions::known_states`], the explicit prefix
    /// of a search) in the smallest BDD; another order than the heuristic one must be at most
    /// a third of its size to be chosen (rules only where building the FORCE order stays within
    /// its budget). Without known states, [`Order::Heuristic`]. Resolved before the encoding
    /// is built ([`Encoding::with_options`](crate::Encoding::with_options)); an encoding asked
    /// for this order directly gets [`Order::Heuristic`].
    Auto,
}

/// Which fluents share a binary number.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EncodingKind {
    /// One bit per fluent.
    Plain,
    /// Proven mutex groups as binary numbers (see [`crate::mutex`]); other fluents one bit
    /// each.
    #[default]
    Compact,
}

/// Whether a layer of a game compiled within each layer may be expanded state by state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ExplicitLayerMode {
    /// Where the measured rates predict it cheaper, within a budget; and, whatever the
    /// prediction, where compiling the game within the layer fails (out of nodes, too many
    /// joint moves).
    #[default]
    Measured,
    /// Never: every layer after the explicit prefix is compiled.
    Never,
    /// Always (tests): every layer after the explicit prefix is expanded state by state.
    Always,
    /// Only where compiling the game within the layer fails (out of nodes, too many joint
    /// moves): no race by measured rates.
    Fallback,
}

/// Options for building a [`SymbolicGame`](crate::SymbolicGame).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SymbolicOptions {
    /// Variable order of the fluents (used by [`Encoding::with_options`](crate::Encoding::with_options)).
    pub order: Order,
    /// Plain (one bit per fluent) or compact (proven mutex groups as binary numbers) encoding
    /// (used by [`Encoding::with_options`](crate::Encoding::with_options)).
    pub encoding: EncodingKind,
    /// Give up ([`SymbolicError::TooManyJointMoves`](crate::SymbolicError::TooManyJointMoves)) when the number of joint moves that
    /// can be legal together exceeds this.
    pub max_joint_moves: usize,
    /// Clustering: consecutive per-joint-move relations are merged (with frame axioms for the
    /// bits only one of them touches) while the merged relation has at most this many BDD
    /// nodes. 0 disables clustering (one partition per joint move).
    pub cluster_nodes: usize,
    /// A per-joint-move relation whose conjunction grows beyond this many BDD nodes is kept as
    /// a list of conjuncts instead, and applied conjunct by conjunct to the state set (slower
    /// per image, but avoids relations that are huge over unreachable states).
    pub max_relation_nodes: usize,
    /// The parts of the terminal disjunction, sorted by their deepest variable, are merged
    /// while a merged part has at most this many BDD nodes (0: keep every part alone). Fewer
    /// parts mean fewer passes over a layer when terminal states are cut off.
    pub terminal_cluster_nodes: usize,
    /// Compile the goal conditions (as [`Formula`](crate::Formula)s: see [`SymbolicGame::goal_formulas`](crate::SymbolicGame::goal_formulas)).
    /// Reachability does not need them; with `false` there are none.
    pub goals: bool,
    /// A goal condition's gate is kept as one BDD while it has at most this many nodes, else as
    /// a formula over its inputs ("red has a line" on Connect Four 6×5 is 34 million nodes as
    /// one BDD, 69 small lines as a formula).
    pub formula_leaf_nodes: usize,
    /// When compiling the game once over all states is too costly (a move-independent
    /// condition over [`Self::max_condition_nodes`] nodes, more joint moves than
    /// [`Self::max_joint_moves`], or more than half the set-up time left), compile it within
    /// each layer instead (only breadth-first search can use such a game: it has no
    /// partitions, so no pre-image). Off: such a game fails or stops as before.
    pub layerwise_fallback: bool,
    /// With [`Self::layerwise_fallback`]: give the engine a group of move variables per role
    /// ([`Setup::run`](crate::Setup::run)), so that a layer whose joint moves are many takes
    /// its image with the moves as variables (module `move_vars`) instead of one joint move at
    /// a time. The state sets never read these variables.
    #[serde(default)]
    pub move_vars: bool,
    /// With [`Self::layerwise_fallback`]: compile within each layer from the start, with no
    /// attempt to compile once over all states. For a search with nothing to expand: `reach`
    /// whose explicit prefix expanded the whole game (its layers are only encoded).
    #[serde(default)]
    pub layerwise_only: bool,
    /// With [`Self::layerwise_fallback`]: the largest move-independent condition compiled once
    /// over all states, in BDD nodes.
    pub max_condition_nodes: usize,
    /// Compiled within a layer, a condition's BDD (or a step of one) over this many nodes is
    /// cut to the layer (conjoined with it); smaller ones stay exact, cheap to combine.
    pub layerwise_cut_nodes: usize,
    /// With [`Self::layerwise_fallback`]: whether a layer may be expanded state by state by the
    /// explicit reasoner instead of compiling the game within it.
    #[serde(default)]
    pub explicit_layers: ExplicitLayerMode,
    /// When the mutex proof gives up, assume the candidate groups that random playouts did not
    /// break instead of falling back to the plain encoding ([`Encoding::assumed`](crate::Encoding::assumed)). Only for
    /// searches that check the assumptions as they go: [`reach`](crate::reach) stops where one
    /// breaks, [`solve`](crate::solve) fails with
    /// [`SolveError::AssumedGroupBroken`](crate::SolveError::AssumedGroupBroken) before solving
    /// anything (the caller runs again with proven groups); off by default.
    #[serde(default)]
    pub assume_groups: bool,
    /// With [`Self::assume_groups`]: assume the groups at once, from playouts and
    /// [`Self::known_states`], without the proof (a search set up again after an assumed group
    /// broke, where the proof had given up before: it would only give up again).
    #[serde(default)]
    pub reassume_groups: bool,
    /// The longest the mutex proof of the compact encoding may take (it also
    /// takes at most a fifth of the set-up time left, and 20 s); past it, the proof gives up
    /// soundly. `Some(Duration::ZERO)` skips the proof: with [`Self::assume_groups`] the groups that
    /// playouts do not break are assumed, else the encoding is plain.
    #[serde(skip)]
    pub mutex_seconds: Option<std::time::Duration>,
    /// Reachable states already known (true fluents; `reach` passes its explicit prefix): the
    /// mutex proof drops every candidate group one of them breaks ([`MutexBudget::known_states`](crate::mutex::MutexBudget::known_states)).
    #[serde(skip)]
    pub known_states: Option<std::sync::Arc<Vec<Vec<usize>>>>,
    /// Whether [`Self::known_states`] are every reachable state (the explicit prefix expanded
    /// the whole game): [`Order::Auto`] then trusts their BDD sizes however small.
    #[serde(skip)]
    pub known_states_all: bool,
    /// Building the encoding and compiling the game stop at this instant
    /// ([`SymbolicError::Stopped`](crate::SymbolicError::Stopped) with [`crate::StopReason::TimeLimit`]; the mutex proof gives
    /// up soundly, with fewer groups): a command's time limit covers its set-up too.
    #[serde(skip)]
    pub setup_deadline: Option<std::time::Instant>,
    /// Where the set-up records its phases (seconds, live nodes), also when a limit stops it
    /// inside one; `None` records nothing.
    #[serde(skip)]
    pub setup_log: Option<SetupLog>,
    /// When compiling the game once over all states is too costly (as for
    /// [`Self::layerwise_fallback`]), expand the whole reachable game explicitly within this
    /// budget and build the game from that graph (module `graph`): a game with partitions,
    /// pre-images and so solvable, exact on the reachable states. When the graph is over the
    /// budget, the compilation goes on (within each layer with the layerwise fallback, else
    /// once over all states with the set-up time left). `None`: never.
    #[serde(skip)]
    pub explicit_graph: Option<GraphBudget>,
    /// With [`Self::explicit_graph`]: compiling the game once over all states gets at most
    /// this long (halved by the cap of a compilation with a fallback) before the game is built
    /// from its explicit graph instead. For `solve` where the explicit prefix expanded the
    /// whole game ([`PREFER_GRAPH_COMPILE`]): the graph is then known to be small, and
    /// compiling the rules can cost far more than it (pancakes6: 117 s in the relations before
    /// giving up, for 26,225 states). `None`: the whole set-up's time.
    #[serde(default)]
    pub prefer_graph: Option<std::time::Duration>,
}

impl SymbolicOptions {
    /// Starts set-up phase `name` in the log, if there is one.
    pub(crate) fn phase(&self, name: &'static str) {
        if let Some(log) = &self.setup_log {
            log.start(name);
        }
    }

    /// Ends the current set-up phase in the log, if there is one.
    pub(crate) fn phase_done(&self, nodes: Option<usize>) {
        if let Some(log) = &self.setup_log {
            log.finish(nodes);
        }
    }
    /// Notes what the current set-up phase came to, in the log, if there is one.
    pub(crate) fn phase_note(&self, note: String) {
        if let Some(log) = &self.setup_log {
            log.note(note);
        }
    }

    /// `Err(TimeLimit)` once the set-up deadline has passed.
    pub(crate) fn setup_expired(&self) -> Result<(), StopReason> {
        match self.setup_deadline {
            Some(d) if std::time::Instant::now() >= d => Err(StopReason::TimeLimit),
            _ => Ok(()),
        }
    }
}

impl Default for SymbolicOptions {
    fn default() -> Self {
        SymbolicOptions {
            order: Order::Heuristic,
            encoding: EncodingKind::Compact,
            max_joint_moves: 100_000,
            cluster_nodes: 50_000,
            max_relation_nodes: 200_000,
            terminal_cluster_nodes: 5_000,
            goals: true,
            formula_leaf_nodes: 20_000,
            layerwise_fallback: false,
            move_vars: false,
            layerwise_only: false,
            prefer_graph: None,
            max_condition_nodes: 1_000_000,
            layerwise_cut_nodes: 256,
            explicit_layers: ExplicitLayerMode::Measured,
            assume_groups: false,
            reassume_groups: false,
            mutex_seconds: None,
            known_states: None,
            known_states_all: false,
            setup_deadline: None,
            setup_log: None,
            explicit_graph: None,
        }
    }
}

/// How long `solve` lets a game whose explicit prefix expanded it whole be compiled before it
/// is built from its explicit graph ([`SymbolicOptions::prefer_graph`]). Compiling took under
/// 0.3 s in 66 of the corpus's 73 such games, 5 s in colonelBlotto (whose graph took 1.9 s),
/// and gave up after 117 s in pancakes6 (graph: 14 s then, 1.6 s now).
pub const PREFER_GRAPH_COMPILE: std::time::Duration = std::time::Duration::from_secs(2);

/// How large an explicit graph of the whole game [`SymbolicOptions::explicit_graph`] may
/// build.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GraphBudget {
    /// At most this many states.
    pub max_states: usize,
    /// At most this many edges (a state and a legal joint move).
    pub max_edges: usize,
    /// At most this long (also bounded by the set-up deadline).
    pub max_time: std::time::Duration,
    /// At most this many BDD nodes in all, for the predicates and relations built from the
    /// graph, and at most a third of the engine's node table (counted before they go into
    /// the engine, so an explicit set without structure gives up instead of filling it).
    pub max_nodes: usize,
}

impl Default for GraphBudget {
    fn default() -> Self {
        GraphBudget {
            max_states: 2_000_000,
            max_edges: 40_000_000,
            max_time: std::time::Duration::from_secs(120),
            max_nodes: usize::MAX,
        }
    }
}
