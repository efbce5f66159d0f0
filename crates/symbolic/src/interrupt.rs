//! How a search stops inside the crate: [`Interrupt`] (a limit, or the BDD engine out of nodes)
//! and [`union_guarded`], the union of one image (or pre-image) per part of a relation with the
//! limits checked before each part.

use symgame_bdd::{BddEngine, BddError, BddResult};
use symgame_limits::{Guard, StopReason};

use crate::disjunction::or_all;

/// Why a search stopped early, inside the crate (the public results carry the reason).
#[derive(Debug)]
pub(crate) enum Interrupt {
    Stop(StopReason),
}

impl From<BddError> for Interrupt {
    /// An operation stopped from inside by the run's limits stops for their reason; any other
    /// engine error is the engine out of nodes.
    fn from(err: BddError) -> Self {
        match err {
            BddError::Stopped(why) => Interrupt::Stop(why),
            _ => Interrupt::Stop(StopReason::OutOfMemory),
        }
    }
}

crate::from_variants!(Interrupt { Stop(StopReason) });

/// The union over `parts` of `step(part)` (its image or pre-image of some set), checking the
/// limits before each part.
pub(crate) fn union_guarded<E: BddEngine, P>(
    e: &E,
    parts: &[P],
    guard: &Guard,
    mut step: impl FnMut(&P) -> BddResult<E::Bdd>,
) -> Result<E::Bdd, Interrupt> {
    let mut out = Vec::with_capacity(parts.len());
    for p in parts {
        guard.check()?;
        out.push(step(p)?);
    }
    Ok(or_all(e, out)?)
}
