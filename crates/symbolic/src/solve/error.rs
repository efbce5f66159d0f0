//! Why solving failed ([`SolveError`]), and [`SolveOrStop`], an error or a limit inside the
//! solvers.

use symgame_bdd::BddError;
use symgame_limits::StopReason;

use crate::error::SymbolicError;
use crate::interrupt::Interrupt;
use crate::solve::files::FileError;

/// Errors of [`solve`](fn@crate::solve) (resource limits are not errors: see [`SolveStats::stopped`](crate::SolveStats::stopped)).
#[derive(Debug)]
#[non_exhaustive]
pub enum SolveError {
    /// Building or searching the symbolic game failed.
    Symbolic(SymbolicError),
    /// Two roles have a choice in a state of a layer solved by the layered solver, which takes
    /// turn-taking games only (the whole-set solver takes simultaneous moves).
    Simultaneous {
        /// One such state (its true fluents).
        state: Vec<usize>,
    },
    /// A reachable non-terminal state without a legal joint move.
    NoLegalMove {
        /// One such state (its true fluents).
        state: Vec<usize>,
    },
    /// Reading or writing solution or layer files failed.
    Io(FileError),
    /// A simultaneous stage game could not be solved (its LP failed, or its legal joint moves
    /// are not all pairs of the roles' legal moves): a fault of the solver, not of the game.
    StageGame(String),
    /// The encoding's fluent groups were assumed ([`Encoding::assumed`](crate::Encoding::assumed))
    /// and a reachable state breaks one: nothing was solved; solve again with proven groups,
    /// or with the groups assumed anew with `witness` and its successors among the known
    /// states ([`states_at_break`](crate::states_at_break)).
    AssumedGroupBroken {
        /// A reachable state where a legal joint move breaks the group, as its true fluents,
        /// if the search knows one ([`SymbolicGame::break_witness`](crate::SymbolicGame::break_witness)).
        witness: Option<Vec<usize>>,
    },
    /// The job of a slice of a layer ([`Slicing`](crate::Slicing)) failed.
    Slice {
        /// The layer.
        depth: usize,
        /// What the job said.
        message: String,
    },
}

impl std::fmt::Display for SolveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SolveError::Symbolic(e) => write!(f, "{e}"),
            SolveError::StageGame(why) => {
                write!(f, "a simultaneous stage game could not be solved: {why}")
            }
            SolveError::Simultaneous { .. } => write!(
                f,
                "simultaneous moves: two roles have a choice in a reachable state; the layered \
                 solver supports turn-taking games only (the whole-set solver takes any game)"
            ),
            SolveError::NoLegalMove { .. } => write!(
                f,
                "a reachable non-terminal state has no legal joint move (some role has no legal \
                 move); the game is not well formed"
            ),
            SolveError::Io(e) => write!(f, "{e}"),
            SolveError::Slice { depth, message } => {
                write!(f, "the job of a slice of layer {depth} failed: {message}")
            }
            SolveError::AssumedGroupBroken { .. } => write!(
                f,
                "a reachable state breaks a fluent group the encoding assumed; solve again with \
                 proven groups only"
            ),
        }
    }
}

impl std::error::Error for SolveError {}

crate::from_variants!(SolveError {
    Symbolic(SymbolicError),
    Io(FileError),
});

/// An error or a stop, inside the solvers.
pub(crate) enum SolveOrStop {
    Error(SolveError),
    Stop(StopReason),
}

impl From<Interrupt> for SolveOrStop {
    fn from(i: Interrupt) -> Self {
        match i {
            Interrupt::Stop(r) => SolveOrStop::Stop(r),
        }
    }
}

crate::from_variants!(SolveOrStop { Stop(StopReason) });

impl From<BddError> for SolveOrStop {
    /// As for [`Interrupt`]: an operation stopped from inside stops for its reason.
    fn from(err: BddError) -> Self {
        match err {
            BddError::Stopped(why) => SolveOrStop::Stop(why),
            _ => SolveOrStop::Stop(StopReason::OutOfMemory),
        }
    }
}

impl From<FileError> for SolveOrStop {
    fn from(e: FileError) -> Self {
        SolveOrStop::Error(SolveError::Io(e))
    }
}
