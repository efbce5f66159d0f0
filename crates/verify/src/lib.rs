//! The cross-check of symgame: a symbolic solution checked state by state by the explicit
//! solvers.
//!
//! [`verify`] takes a ground game and [`VerifyOptions`] and returns a [`Report`]:
//!
//! * the **symbolic side** (a fresh retrograde solve on the BDD engine of
//!   [`VerifyOptions::backend`], or the solution directory of [`VerifyOptions::solution`]
//!   written by `symgame solve --out`) gives every reachable state a value;
//! * the **explicit side** (proof-number search, PN², df-pn, alpha-beta over the explicit
//!   reasoner, which shares no code with the BDD side) computes, for each checked state and
//!   role, the reward the role can force.
//!
//! The value compared is what a role can force: the solved outcome for constant-sum and
//! single-player games, the symbolic security values (`symgame_symbolic::security_values`, the
//! same question as the explicit one) for general-sum games. Small games are checked in every
//! reachable state ([`Mode::All`]: the explicit reachable set, which must also have the
//! symbolic size); big games in a seeded uniform sample of the reachable states ([`Mode::Sample`]:
//! random ranks of a perfect hash of the reachable set, unranked into states).
//!
//! The report counts, per explicit algorithm ([`AlgoTally`]), the answers that agree, those
//! left undecided by the search's node limit, and the [`Disagreement`]s, each with its state,
//! role and both values. Limits ([`VerifyOptions::limits`]: time, Ctrl-C) end the check early
//! with [`Report::stopped`], keeping the counts so far; a limit that stops the symbolic side
//! before any state is checked is [`Error::Stopped`].
//!
//! ```no_run
//! use std::path::Path;
//! use symgame_verify::{verify, VerifyOptions};
//!
//! let game = symgame_ground::load(Path::new("gdl/tictactoe.kif"), &Default::default())?;
//! let report = verify(&game, &VerifyOptions::default(), |_| {})?;
//! assert!(!report.disagrees());
//! println!("{} states checked in {:.1} s", report.states_checked, report.seconds);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Architecture invariant: with `symgame-gamedb`, the only crate that depends on both the
//! symbolic side (`symgame-bdd`, `symgame-symbolic`) and the explicit side
//! (`symgame-explicit`, `symgame-prove`), and the only place where their answers are compared;
//! neither side depends on it, so each stays an independent opinion.

mod compare;
mod enumerate;
mod error;
mod explicit;
mod options;
mod report;
mod sample;
mod symbolic;

pub use compare::{compare, Verdict};
pub use error::Error;
pub use options::{Sampling, VerifyOptions};
pub use report::{AlgoTally, Disagreement, Mode, NashCheck, NashCounts, Progress, Report};

use std::time::Instant;
use symgame_explicit::Reasoner;
use symgame_ground::GroundGame;
use symgame_limits::Guard;

/// Checks the symbolic solution of `game` state by state with the explicit solvers.
///
/// `progress` is called after every checked state. A limit of [`VerifyOptions::limits`] ends
/// the check with [`Report::stopped`] (the counts so far are kept), or with [`Error::Stopped`]
/// when it stops the symbolic side, before any state is checked.
pub fn verify(
    game: &GroundGame,
    opts: &VerifyOptions,
    progress: impl FnMut(&Progress),
) -> Result<Report, Error> {
    let started = Instant::now();
    let guard = Guard::since(&opts.limits, started);
    let reasoner = Reasoner::new(game);
    let side = symbolic::symbolic_side(game, &reasoner, opts, &guard)?;
    let checked = explicit::check(game, &reasoner, &side, opts, &guard, progress)?;
    let nash = match (&side.nash, side.mode, checked.stopped) {
        (Some(n), Mode::All, None) if n.stopped.is_none() && n.failed.is_none() => {
            Some(explicit::check_nash(&reasoner, &side, n))
        }
        _ => None,
    };
    Ok(Report {
        kind: side.kind,
        mode: side.mode,
        reachable_states: side.reachable,
        explicit_states: side.explicit_states,
        states_checked: checked.states,
        algos: checked.tallies,
        disagreements: checked.disagreements,
        symbolic_seconds: side.seconds,
        seconds: started.elapsed().as_secs_f64(),
        stopped: checked.stopped,
        nash,
    })
}
