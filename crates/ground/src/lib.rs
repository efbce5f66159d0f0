//! Grounding: from a checked GDL description to a propositional game.
//!
//! [`ground`] turns a [`symgame_gdl::CheckedDescription`] into a [`GroundGame`]: the roles and
//! their moves, the fluents, the initial state, and a [`Circuit`] of And/Or [`Gate`]s whose
//! [`Lit`]erals give `legal`, `next`, `goal` and `terminal` as functions of the fluents (and,
//! for `next`, of the moves). Every fluent and move keeps its [`GroundTerm`] for printing and
//! parsing back.
//!
//! Grounding does not enumerate argument domains: it finds the ground atoms by a relaxed
//! reachability fixpoint (negation ignored, `distinct` honoured, `init`/`next` feeding `true`,
//! `legal` feeding `does`), evaluates state-independent relations completely and folds them
//! away, then simplifies the ground rules. The optional static relation `(cost ?role ?move ?n)`
//! gives action costs for planning ([`Role::costs`], default 1).
//!
//! Architecture invariant: this crate depends only on `symgame-gdl`; it knows nothing about
//! BDDs or search.

mod chain_order;
mod circuit;
mod complete;
mod cost;
mod datalog;
mod decompose;
mod demand;
mod ground;
mod pattern;
mod relax;
mod rule;
mod signals;
mod simplify;
mod terms;

pub use circuit::{Block, Circuit, Gate, Lit};
pub use ground::{ground, GroundGame, GroundOptions, GroundStats, Role};
pub use terms::GroundTerm;

/// Reads, checks and grounds the GDL file at `path`.
pub fn load(
    path: &std::path::Path,
    opts: &GroundOptions,
) -> Result<GroundGame, symgame_gdl::Error> {
    ground(&symgame_gdl::load(path)?, opts)
}
