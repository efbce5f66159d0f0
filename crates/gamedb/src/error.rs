//! Errors of this crate: one [`Error`] type with an [`ErrorKind`] to match on.

use std::fmt;

/// What went wrong. Matching code should have a wildcard arm: kinds may be added.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The database file could not be read, or it is not a valid database (the reader's own
    /// kind says which check failed: foreign, truncated, checksum, ...).
    Database(symgame_db::ErrorKind),
    /// The database was made for another game or variable order than the one given.
    FingerprintMismatch,
    /// The database's metadata is not the JSON this crate writes.
    Metadata,
    /// A solution directory cannot be used: unreadable, incomplete, or made for another game.
    Solution,
    /// The solver failed (not a resource limit: those are results, see
    /// [`crate::Exported::stopped`]).
    Solve,
    /// A BDD engine could not be created or ran out of nodes outside the solver's limits.
    Bdd,
    /// The time limit ended while the game was being compiled, before any solving (nothing
    /// was written).
    SetupStopped,
    /// Creating or removing a working directory failed.
    Io,
    /// A fluent that the game does not have.
    UnknownFluent,
    /// A move that cannot be played (unknown, illegal, or after the end of the game).
    IllegalMove,
    /// The state is not in the database (not reachable, or left unsolved).
    NotInDatabase,
    /// A rank beyond the states of the database or of the layer.
    RankOutOfRange,
    /// A layer number the database does not have.
    NoSuchLayer,
}

/// An error of this crate: an [`ErrorKind`] and a message stating the fact (with the file,
/// when there is one).
#[derive(Debug)]
pub struct Error {
    kind: ErrorKind,
    message: String,
}

impl Error {
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            kind,
            message: message.into(),
        }
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

impl From<symgame_db::Error> for Error {
    fn from(e: symgame_db::Error) -> Self {
        Error::new(ErrorKind::Database(e.kind().clone()), e.to_string())
    }
}

impl From<symgame_symbolic::FileError> for Error {
    fn from(e: symgame_symbolic::FileError) -> Self {
        Error::new(ErrorKind::Solution, e.to_string())
    }
}

impl From<symgame_bdd::BddError> for Error {
    fn from(e: symgame_bdd::BddError) -> Self {
        Error::new(ErrorKind::Bdd, e.to_string())
    }
}

/// Result of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
