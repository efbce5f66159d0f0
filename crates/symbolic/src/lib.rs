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
//! * runtime entries [`reach_with_backend`], [`shortest_path_with_backend`] and
//!   [`plan_with_backend`] that pick the engine by [`symgame_bdd::Backend`].
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

mod compile;
mod decimal;
mod disjunction;
mod encoding;
mod error;
mod files;
mod formula;
mod game;
pub mod mutex;
mod options;
mod order;
mod partition;
mod plan;
mod search;
mod solve;

pub use compile::JointMove;
pub use encoding::{Encoding, FluentGroup};
pub use error::SymbolicError;
pub use files::{
    fingerprint, layer_file_name, read_manifest, read_stored, write_atomic, write_stored,
    FileError, Manifest, StoredClass, StoredLayer, FORMAT_VERSION, MAGIC, MANIFEST,
};
pub use formula::Formula;
pub use game::{goal_states, GoalBdd, SymbolicGame};
pub use options::{EncodingKind, Order, SymbolicOptions};
pub use partition::Partition;
pub use plan::{
    build_heuristic, parse_pattern, pattern_database, pattern_order, plan, plan_with_backend,
    select_pattern, Algorithm, Costs, Direction, Heuristic, HeuristicStats, PatternChoice,
    PatternDatabase, PatternStats, Plan, PlanError, PlanLayer, PlanOptions, PlanOutcome, PlanStats,
    Selection, AUTO_MAX_NODES,
};
pub use search::{
    reach, reach_count, reach_until, shortest_path, shortest_path_within, LayerStats, Limits, Path,
    Reach, ReachStats, StopReason,
};
pub use solve::{
    preference, security_values, solve, solve_encoded, solve_with_backend, GameKind, LayeredMode,
    MoverCounts, SolveError, SolveLayerStats, SolveOptions, SolveStats, Solved, SolvedLayer,
    ValueClass,
};

use symgame_bdd::{Backend, BddEngine, EngineConfig, EngineJob};
use symgame_ground::GroundGame;

struct ReachJob<'a, F> {
    game: &'a GroundGame,
    encoding: Encoding,
    opts: &'a SymbolicOptions,
    limits: &'a Limits,
    progress: F,
}

impl<F: FnMut(&ReachStats)> EngineJob<Result<ReachStats, SymbolicError>> for ReachJob<'_, F> {
    fn run<E: BddEngine>(self, engine: E) -> Result<ReachStats, SymbolicError> {
        let g = SymbolicGame::new(&engine, self.game, self.encoding, self.opts)?;
        Ok(reach_count(&g, self.limits, self.progress))
    }
}

/// Symbolic BFS ([`reach_count`]) of `game` on the engine `backend`: builds the encoding
/// `opts` asks for ([`Encoding::with_options`]), compiles the game and returns the layer
/// statistics. `progress` is called after each layer.
pub fn reach_with_backend(
    game: &GroundGame,
    backend: Backend,
    config: &EngineConfig,
    opts: &SymbolicOptions,
    limits: &Limits,
    progress: impl FnMut(&ReachStats),
) -> Result<ReachStats, SymbolicError> {
    let encoding = Encoding::with_options(game, opts);
    reach_encoded(game, encoding, backend, config, opts, limits, progress)
}

/// [`reach_with_backend`] with an encoding built by the caller.
pub fn reach_encoded(
    game: &GroundGame,
    encoding: Encoding,
    backend: Backend,
    config: &EngineConfig,
    opts: &SymbolicOptions,
    limits: &Limits,
    progress: impl FnMut(&ReachStats),
) -> Result<ReachStats, SymbolicError> {
    let n = encoding.num_vars();
    backend.run(
        n,
        config,
        ReachJob {
            game,
            encoding,
            opts,
            limits,
            progress,
        },
    )?
}

struct PathJob<'a> {
    game: &'a GroundGame,
    encoding: Encoding,
    opts: &'a SymbolicOptions,
    limits: &'a Limits,
    role: usize,
    value: u8,
}

impl EngineJob<Result<Option<Path>, SymbolicError>> for PathJob<'_> {
    fn run<E: BddEngine>(self, engine: E) -> Result<Option<Path>, SymbolicError> {
        let g = SymbolicGame::new(&engine, self.game, self.encoding, self.opts)?;
        let goal = engine.and(&g.terminal()?, &g.goal_value_states(self.role, self.value)?)?;
        shortest_path(&g, &goal, self.limits).map_err(SymbolicError::Stopped)
    }
}

/// Shortest path ([`shortest_path`]) from the initial state to a terminal state where `role`
/// (by name) gets exactly `value`, on the engine `backend`. `Ok(None)` if there is none.
pub fn shortest_path_with_backend(
    game: &GroundGame,
    backend: Backend,
    config: &EngineConfig,
    opts: &SymbolicOptions,
    limits: &Limits,
    role: &str,
    value: u8,
) -> Result<Option<Path>, SymbolicError> {
    let role_index = game
        .find_role(role)
        .ok_or_else(|| SymbolicError::UnknownRole(role.to_string()))?;
    let encoding = Encoding::with_options(game, opts);
    let n = encoding.num_vars();
    backend.run(
        n,
        config,
        PathJob {
            game,
            encoding,
            opts,
            limits,
            role: role_index,
            value,
        },
    )?
}
