//! Symbolic (BDD-based) state-space search over ground games.
//!
//! Main types:
//!
//! * [`Encoding`] (with [`Order`], [`EncodingKind`] and [`FluentGroup`]): the variable layout
//!   of states, plain or compact with mutex groups proven by [`mutex`];
//! * [`SymbolicGame`]: a [`symgame_ground::GroundGame`] compiled to BDDs on any
//!   [`symgame_bdd::BddEngine`] — initial state, terminal, legal and goal predicates, and the
//!   transition relation partitioned per joint move ([`Partition`]), with
//!   [`SymbolicGame::image`], [`SymbolicGame::pre_image`] and
//!   [`SymbolicGame::strong_pre_image`];
//! * [`reach`] (symbolic BFS with exact per-layer counts, [`ReachStats`], [`LayerStats`],
//!   [`Limits`], [`StopReason`]; [`reach_until`] stops at a goal set) and
//!   [`shortest_path`] (bidirectional BFS, [`Path`]);
//! * [`plan`] (optimal plans by BFS, bidirectional BFS, Dijkstra with action costs
//!   ([`Costs`]) or BDDA* ([`Algorithm`]) with symbolic pattern databases
//!   ([`PatternDatabase`], [`Heuristic`], automatic [`select_pattern`]); [`PlanOutcome`]);
//! * runtime entries that pick the engine by [`symgame_bdd::Backend`]: [`Setup::run`] with
//!   [`ReachJob`] or [`SolveJob`], [`shortest_path_with_backend`] and [`plan_with_backend`].
//!
//! # Encoding invariants
//!
//! * Fluents are partitioned into groups, each a binary number of bits (a group of one fluent
//!   is one bit; a proven mutex group of `n` fluents has `ceil(log2(n + 1))` bits, or
//!   `ceil(log2(n))` when exactly one is always true). Bit `b` has its current variable at `2b`
//!   and its next variable at `2b + 1` (interleaved), so renaming next to current (and back)
//!   keeps the variable order and is cheap. Outside the encoding, code goes through
//!   [`SymbolicGame::state`], [`SymbolicGame::pick_state`], [`SymbolicGame::count`],
//!   [`Encoding::current_vars`], [`Encoding::groups`] and [`Encoding::vars_of`].
//! * A state set is a BDD over current variables only; counts are taken over the current
//!   variables ([`SymbolicGame::count`]).
//! * The circuit is compiled over current variables: cyclic blocks are iterated on BDDs from
//!   false to their least fixpoint, gate BDDs are memoised (move-independent gates once, moves
//!   substituted as constants for each joint move).
//! * A partition for joint move `j` is `legal_j(x) AND AND_{b touched} (x_b' <-> next_b|j(x))`;
//!   bits whose next function is the identity under `j` are not mentioned (frame by
//!   omission), so the image quantifies and renames only the touched variables. A relation
//!   too large to build (e.g. the 8-puzzle, where every cell may change and the relation over
//!   all, mostly unreachable, assignments is huge) is kept as a list of conjuncts.
//! * Terminal states have no successors: the image removes them from its argument and the
//!   pre-image from its result, one part of the `terminal` disjunction at a time (the whole
//!   terminal BDD of Connect Four is exponential; it is only built on request).
//!
//! Architecture invariant: depends on symgame-ground and symgame-bdd only; never on the
//! explicit crates (except as a dev-dependency for cross-check tests).

mod backend;
mod bfs;
mod checkpoint;
mod codes;
mod compile;
mod decimal;
mod disjunction;
mod encoding;
mod error;
mod next_bits;

mod formula;
mod game;
mod graph;
mod image_pieces;
mod interrupt;
mod joint_moves;
mod layer_explicit;
mod layerwise;
mod move_vars;
pub mod mutex;
mod options;
mod order;
mod partition;
mod path;
mod plan;
mod prefix;
mod profile;
mod reach;
mod reach_kept;
mod reach_slices;
mod reach_stats;
mod retry;
mod solve;
#[cfg(test)]
mod test_support;

pub use backend::{GameJob, LayerJob, Setup};
pub use checkpoint::{ReachManifest, ReachStore, REACH_MANIFEST};
pub use compile::JointMove;
pub use encoding::{Encoding, FluentGroup};
pub use error::SymbolicError;
pub use formula::Formula;
pub use game::{goal_states, GoalBdd, SymbolicGame};
pub use graph::EXPLICIT_GRAPH_NOTE;
pub use options::{
    EncodingKind, ExplicitLayerMode, GraphBudget, Order, SymbolicOptions, PREFER_GRAPH_COMPILE,
};
pub use partition::Partition;
pub use path::{shortest_path, shortest_path_with_backend, shortest_path_within, Path};
pub use plan::heuristic::{build_heuristic, Heuristic};
pub use plan::outcome::{
    Direction, HeuristicStats, PatternStats, Plan, PlanLayer, PlanOutcome, PlanStats,
};
pub use plan::pdb::{pattern_database, PatternDatabase};
pub use plan::problem::{Algorithm, Costs, PatternChoice, PlanError, PlanOptions, AUTO_MAX_NODES};
pub use plan::select::{pattern_order, select_pattern, Selection};
pub use plan::spec::parse_pattern;
pub use plan::{plan, plan_with_backend};
pub use prefix::{states_at_break, ExplicitPrefix, ExplicitRun};
pub use profile::{Phase, SetupLog};
pub use reach::{
    reach, reach_count, reach_until, KeptReachJob, LayerStats, Reach, ReachJob, ReachStats,
    TERMINAL_WITHIN,
};
pub use reach_slices::{expand_path, reach_slice, ReachSliceJob, ReachSliceRecord};
pub use retry::{GroupRetry, KnownStates, Retry, MAX_REASSUMED};
pub use solve::error::SolveError;
pub use solve::files::{
    fingerprint, layer_file_name, read_manifest, read_stored, solution_encoding, write_atomic,
    write_manifest_file, write_stored, FileError, Manifest, StoredClass, StoredLayer,
    FORMAT_VERSION, MAGIC, MANIFEST, MANIFEST_VERSION,
};
pub use solve::options::{LayeredMode, SolveOptions, ValueRule};
pub use solve::slices::{solve_slice, SliceJob, SliceRecord};
pub use solve::slicing::{
    SliceFailure, SlicePass, SliceRunner, SliceSplit, SliceTask, Slicing, MAX_SLICE_BITS,
};
pub use solve::solution::{read_solution, Solution};
pub use solve::spill::{resumable_encoding, FORWARD_MANIFEST};
pub use solve::stats::{
    GameKind, MoverCounts, NashStats, Resumed, SlicedStats, SolveLayerStats, SolveStats,
};
pub use solve::value::{preference, Solved, SolvedLayer, ValueClass};
pub use solve::whole::security_values;
pub use solve::{solve, solve_with, SolveJob};
pub use symgame_limits::{Limits, StopReason};
