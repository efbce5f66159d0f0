//! Errors of a verification; each keeps the library error it comes from, so a caller can
//! classify it the same way as that error anywhere else.

use std::fmt;
use std::path::PathBuf;
use symgame_bdd::BddError;
use symgame_limits::StopReason;
use symgame_prove::Unsupported;
use symgame_symbolic::{SolveError, SymbolicError};

/// Why a verification could not be done. Matching code should have a wildcard arm: variants
/// may be added.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// Compiling the game into BDDs failed, or its set-up deadline passed.
    Symbolic(SymbolicError),
    /// Solving the game failed (a game outside the solver).
    Solve(SolveError),
    /// A BDD engine could not be created, or it ran out of nodes.
    Bdd(BddError),
    /// The solution directory cannot be used: unreadable, incomplete, made for another game or
    /// encoding, or malformed.
    Solution {
        /// The file or directory.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
    /// The explicit solvers cannot search the game.
    Explicit(Unsupported),
    /// The LP of a simultaneous stage game failed on the explicit side.
    Matrix(symgame_prove::MatrixError),
    /// Ranking the reachable states for the sample failed.
    Sample(symgame_db::Error),
    /// A limit stopped the symbolic side before any state was checked.
    Stopped(StopReason),
    /// A state to check has no value in the symbolic solution.
    NoValue {
        /// The state's true fluents, as GDL terms.
        state: Vec<String>,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Symbolic(SymbolicError::Stopped(why)) => write!(f, "{why} while compiling"),
            Error::Symbolic(e) => write!(f, "{e}"),
            Error::Solve(e) => write!(f, "{e}"),
            Error::Bdd(e) => write!(f, "{e}"),
            Error::Solution { path, message } => write!(f, "{}: {message}", path.display()),
            Error::Explicit(e) => write!(f, "{e}"),
            Error::Matrix(e) => write!(f, "{e}"),
            Error::Sample(e) => write!(f, "sampling the reachable states: {e}"),
            Error::Stopped(why) => write!(f, "symbolic solving stopped: {why}"),
            Error::NoValue { state } => {
                write!(f, "state {} has no symbolic value", state.join(" "))
            }
        }
    }
}

impl std::error::Error for Error {}

symgame_symbolic::from_variants!(Error {
    Symbolic(SymbolicError),
    Solve(SolveError),
    Bdd(BddError),
    Explicit(Unsupported),
});

impl From<symgame_symbolic::FileError> for Error {
    fn from(e: symgame_symbolic::FileError) -> Self {
        Error::Solution {
            path: e.path,
            message: e.message,
        }
    }
}
