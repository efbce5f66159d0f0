//! Errors of this crate: one [`Error`] type with a [`ErrorKind`] to match on.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// What went wrong. Matching code should have a wildcard arm: kinds may be added.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Reading, writing, syncing or renaming a file failed ([`std::error::Error::source`] has
    /// the I/O error).
    Io,
    /// The file is not a symgame database (its first bytes are not the magic bytes).
    Foreign,
    /// The file ends before the end its header or section table announces.
    Truncated,
    /// A section's bytes do not match its checksum: the file is corrupted.
    ChecksumMismatch {
        /// The section, e.g. `header` or `layer 3`.
        section: String,
    },
    /// The file was written in a format version this reader does not read.
    VersionMismatch {
        /// The version in the file.
        found: u32,
        /// The version this reader reads.
        supported: u32,
    },
    /// The file was made for another ground game or variable order than the caller expects.
    FingerprintMismatch,
    /// A BDD node table is malformed: a reference to a later node, a variable out of range or
    /// not counted, children not below their parent in the variable order.
    MalformedNodes {
        /// The section holding the table, if it came from a file.
        section: Option<String>,
    },
    /// The file's structure is inconsistent although its checksums match (sections missing,
    /// overlapping or out of order, counts that disagree, an outcome dictionary out of range).
    Malformed,
    /// A set's size does not fit the chosen integer width (see [`crate::Count`]).
    TooLarge,
    /// The caller passed inconsistent data to a writer or a query (values out of range, fewer
    /// or more values than states, layers out of order, ...).
    InvalidInput,
}

/// An error of this crate: a [`ErrorKind`], a message stating the fact, and the file if any.
#[derive(Debug)]
pub struct Error {
    kind: ErrorKind,
    message: String,
    path: Option<PathBuf>,
    source: Option<io::Error>,
}

impl Error {
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Error {
            kind,
            message: message.into(),
            path: None,
            source: None,
        }
    }

    pub(crate) fn io(message: impl Into<String>, source: io::Error) -> Self {
        Error {
            kind: ErrorKind::Io,
            message: format!("{}: {source}", message.into()),
            path: None,
            source: Some(source),
        }
    }

    pub(crate) fn malformed(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::Malformed, message)
    }

    pub(crate) fn invalid_input(message: impl Into<String>) -> Self {
        Error::new(ErrorKind::InvalidInput, message)
    }

    /// Attach the file the error is about (kept if one is already set).
    pub(crate) fn at(mut self, path: &Path) -> Self {
        if self.path.is_none() {
            self.path = Some(path.to_path_buf());
        }
        self
    }

    /// Name the section of a node-table error.
    pub(crate) fn in_section(mut self, section: &str) -> Self {
        if let ErrorKind::MalformedNodes { section: s @ None } = &mut self.kind {
            *s = Some(section.to_string());
            self.message = format!("{section}: {}", self.message);
        }
        self
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.kind
    }

    /// The file the error is about, if any.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The message without the file name.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.path {
            Some(p) => write!(f, "{}: {}", p.display(), self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_ref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

/// Result of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
