//! Explicit-state game proving: proof-number search, PN², df-pn and alpha-beta over an abstract
//! [`GameModel`], the independent second opinion on the symbolic solver's values.
//!
//! A [`GameModel`] gives states, legal moves, successors and goals with GDL semantics (every role
//! moves every step; the role not in control plays a noop). The searches support games with one
//! or two roles and alternating control; a state where two roles have a choice is
//! [`Unsupported::Simultaneous`]. Backward induction over the whole reachable graph takes any
//! number of roles: [`security_levels`] (what each role can guarantee in pure strategies, also
//! with simultaneous moves) and [`maxn_values`] (turn-taking play where each role follows the
//! [`preference`] rule, the one the symbolic solver uses too), both as [`StateValues`].
//!
//! A [`Question`] asks whether a role can force a terminal state with some property:
//! [`AtLeast`] (`goal >= v`), [`Beats`] (`goal > other goal`) or any [`Predicate`]. It is
//! answered by proof-number search, PN², [`dfpn`] or alpha-beta through [`prove`] with an [`Algo`], under
//! the [`Limits`] and tuning of a [`Config`], giving a [`SearchResult`]: an [`Outcome`] (proved,
//! disproved, or stopped with a [`StopReason`]) and [`Stats`]. [`solve_value`] finds the best
//! goal a role can force by a sequence of boolean searches; [`alphabeta`] computes the goals
//! reached under optimal play directly. [`games`] holds small Rust-coded games.
//!
//! Games with cycles terminate: a state repeated on the current path counts as endless play,
//! a failure for the attacker (goal 0 for everyone in alpha-beta). Such values depend on the
//! path, so answers are exact for acyclic games (GDL games normally are) and approximate for
//! cyclic ones. Backward induction has no such fallback: it reports a cycle as
//! [`Unsupported::Cycle`].
//!
//! Architecture invariant: this crate never depends on BDD code; it only sees the GameModel
//! trait.
//!
//! ```
//! use symgame_prove::games::Nim;
//! use symgame_prove::{prove, solve_value, Algo, AtLeast, Config, GameModel, Outcome, ValueOutcome};
//!
//! let nim = Nim::new(&[1, 2, 3]);
//! let root = nim.initial_state();
//! let wins = AtLeast { role: 0, value: 100 };
//! let result = prove(&nim, &root, &wins, Algo::DfPn, &Config::default()).unwrap();
//! assert_eq!(result.outcome, Outcome::Disproved); // 1 ^ 2 ^ 3 == 0: the first player loses
//! let value = solve_value(&nim, &root, 1, Algo::Pn, &Config::default()).unwrap();
//! assert_eq!(value.outcome, ValueOutcome::Exact(100));
//! ```

mod alphabeta;
mod backward;
mod dfpn;
pub mod games;
mod induce;
mod matrix;
mod model;
mod nash;
mod pn;
mod preference;
mod question;
mod search;
mod table;
mod value;

pub use alphabeta::{alphabeta, AlphaBetaResult, Evaluation};
pub use backward::{
    maxn_values, security_levels, Induction, InductionError, InductionRule, StateValues,
};
pub use dfpn::dfpn;
pub use matrix::{round_value, solve_matrix_game, MatrixError, MixedSolution, VALUE_SCALE};
pub use model::{GameModel, Unsupported};
pub use nash::one_shot_equilibria;
pub use preference::preference;
pub use question::{AtLeast, Beats, Predicate, Question};
pub use search::{
    Algo, Config, Init, Limits, Outcome, ParseAlgoError, Pn2Limit, SearchResult, Stats, StopReason,
};
pub use value::{prove, solve_value, ValueOutcome, ValueResult};
