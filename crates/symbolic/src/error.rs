//! [`SymbolicError`]: why building a symbolic game, or a search on it, failed. A leaf.

use std::fmt;

use symgame_bdd::BddError;
use symgame_limits::StopReason;

/// Errors when building a symbolic game or running a search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SymbolicError {
    /// A BDD operation failed (node table full).
    Bdd(BddError),
    /// More joint moves can be legal together than [`SymbolicOptions::max_joint_moves`](crate::SymbolicOptions::max_joint_moves).
    TooManyJointMoves {
        /// The limit that was exceeded.
        limit: usize,
    },
    /// A role with that name does not exist.
    UnknownRole(String),
    /// A search stopped before it finished.
    Stopped(StopReason),
    /// The initial state breaks a fluent group of the encoding (two fluents of one group
    /// true, or none of an exactly-one group), so the groups are not invariants of the game.
    InitBreaksGroup,
}

impl fmt::Display for SymbolicError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SymbolicError::Bdd(e) => write!(f, "{e}"),
            SymbolicError::TooManyJointMoves { limit } => write!(
                f,
                "more than {limit} joint moves can be legal together; the per-joint-move \
                 transition partition is too large for this game"
            ),
            SymbolicError::UnknownRole(r) => write!(f, "unknown role {r:?}"),
            SymbolicError::Stopped(why) => write!(f, "search stopped: {why}"),
            SymbolicError::InitBreaksGroup => write!(
                f,
                "the initial state breaks a fluent group of the encoding (the groups are not \
                 invariants of this game)"
            ),
        }
    }
}

impl std::error::Error for SymbolicError {}

crate::from_variants!(SymbolicError { Bdd(BddError) });

/// `impl From<Source> for Enum` for each listed variant `Variant(Source)` of `Enum`, wrapping the
/// value in the variant (so that `?` converts it): `from_variants!(Enum { A(X), B(Y) })`.
///
/// For the error enums of symgame's own crates (this one and those wrapping its errors, such as
/// symgame-verify); not part of the documented API.
#[doc(hidden)]
#[macro_export]
macro_rules! from_variants {
    ($enum:ident { $($variant:ident($source:ty)),+ $(,)? }) => {
        $(
            impl From<$source> for $enum {
                fn from(e: $source) -> Self {
                    $enum::$variant(e)
                }
            }
        )+
    };
}
