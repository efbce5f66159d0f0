//! [`Algo::Backward`](crate::Algo::Backward): game values (and through them boolean questions,
//! see [`prove`](crate::prove)) by backward induction over every state reachable from the root
//! ([`Induction`]). Unlike the searches it takes any number of roles and simultaneous moves,
//! and it always expands the whole graph below the root: exact, and as costly as the reachable
//! set.

use std::time::Instant;

use crate::backward::{Induction, InductionError, InductionRule};
use crate::model::{GameModel, Unsupported};
use crate::search::{Config, Stats};
use symgame_limits::{Guard, Limits, StopReason};

/// The limits of `config` with its node limit read as a limit on the states held.
fn state_limits(config: &Config) -> Limits {
    Limits {
        max_states: config.limits.max_nodes.or(config.limits.max_states),
        ..config.limits.clone()
    }
}

/// The security level of `role` from `root` (what the role can force), or why the induction
/// stopped, with its cost.
pub(crate) fn value_backward<M: GameModel>(
    model: &M,
    root: &M::State,
    role: usize,
    config: &Config,
) -> Result<(Result<u8, StopReason>, Stats), Unsupported> {
    let started = Instant::now();
    let limits = state_limits(config);
    let mut induction = Induction::new(model, InductionRule::Security);
    let value = match induction.value(root, &Guard::new(&limits)) {
        Ok(v) => Ok(v[role]),
        Err(InductionError::Stopped(reason)) => Err(reason),
        Err(InductionError::Unsupported(u)) => return Err(u),
        Err(InductionError::Matrix(e)) => unreachable!("only the mixed rule solves LPs: {e}"),
    };
    Ok((value, stats(induction.valued(), started)))
}

fn stats(valued: usize, started: Instant) -> Stats {
    Stats {
        nodes_expanded: valued as u64,
        nodes_in_memory: valued as u64,
        time: started.elapsed(),
        ..Stats::default()
    }
}
