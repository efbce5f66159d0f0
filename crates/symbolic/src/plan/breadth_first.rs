//! The plans with the fewest moves: breadth-first search ([`Algorithm::Bfs`]) and bidirectional
//! breadth-first search ([`Algorithm::Bidir`]), optimal for unit costs only.

use std::time::Instant;

use symgame_bdd::BddEngine;
use symgame_limits::Limits;

use crate::game::SymbolicGame;
use crate::interrupt::Interrupt;
use crate::path::{shortest_path_within, step_between};
use crate::plan::outcome::{Direction, Plan, PlanLayer, PlanOutcome, PlanStats};
use crate::plan::problem::{remaining, Algorithm, Costs, PlanError};
use crate::reach::{reach, reach_until, LayerStats};

/// [`Algorithm::Bfs`]: [`reach_until`] the goal, then back through the layers.
pub(crate) fn plan_bfs<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    costs: &Costs,
    goal: &E::Bdd,
    limits: &Limits,
    mut progress: impl FnMut(&PlanStats),
) -> Result<PlanOutcome, PlanError> {
    let e = g.engine();
    let mut stats = PlanStats::new(Algorithm::Bfs);
    let r = reach_until(g, goal, limits, true, |rs| {
        if let Some(l) = rs.layers.last() {
            stats.peak_nodes = stats.peak_nodes.max(l.nodes + rs.reached_nodes);
        }
        stats.expanded_layers = rs.layers.len().saturating_sub(1);
        progress(&stats);
    });
    stats.layers = r
        .stats
        .layers
        .iter()
        .enumerate()
        .map(|(k, l)| PlanLayer {
            direction: Direction::Forward,
            g: k as u64,
            h: None,
            states: l.states.clone(),
            nodes: l.nodes,
            seconds: l.seconds,
        })
        .collect();
    stats.stopped = r.stats.stopped;
    if stats.stopped.is_some() {
        return Ok(PlanOutcome { plan: None, stats });
    }
    let Some(last) = r.layers.last() else {
        return Ok(PlanOutcome { plan: None, stats });
    };
    let hit = e.and(last, goal)?;
    let Some(end) = g.pick_state(&hit) else {
        return Ok(PlanOutcome { plan: None, stats });
    };
    // Back through the layers (a failed state cube is an error; a stop inside a step is not).
    let mut states = vec![end];
    let mut moves = Vec::new();
    for k in (0..r.layers.len() - 1).rev() {
        let s = g.state(states.last().expect("non-empty"))?;
        let (jm, prev) = match step_between(g, g.partitions(), &s, &r.layers[k], false) {
            Ok(x) => x,
            Err(Interrupt::Stop(why)) => {
                stats.stopped = Some(why);
                return Ok(PlanOutcome { plan: None, stats });
            }
        };
        moves.push(jm);
        states.push(prev);
    }
    moves.reverse();
    states.reverse();
    Ok(PlanOutcome {
        plan: Some(Plan::new(moves, states, costs)),
        stats,
    })
}

/// [`Algorithm::Bidir`]: [`shortest_path_within`] the reachable states when the relation is
/// kept as conjunct lists.
pub(crate) fn plan_bidir<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    costs: &Costs,
    goal: &E::Bdd,
    limits: &Limits,
) -> Result<PlanOutcome, PlanError> {
    let mut stats = PlanStats::new(Algorithm::Bidir);
    let started = Instant::now();
    // Without a domain, a backward step over a conjunct list ranges over all assignments of
    // the fluents, mostly unreachable ones, and blows up (the 8-puzzle's first step does not
    // finish in minutes).
    let domain = if g.partitions().iter().any(|p| !p.conjuncts.is_empty()) {
        let r = reach(g, limits, false, |_| {});
        stats.expanded_layers = r.stats.layers.len();
        stats.peak_nodes =
            r.stats.layers.iter().map(|l| l.nodes).max().unwrap_or(0) + r.stats.reached_nodes;
        stats.domain_states = Some(r.stats.states.clone());
        if let Some(why) = r.stats.stopped {
            stats.stopped = Some(why);
            return Ok(PlanOutcome { plan: None, stats });
        }
        Some(r.reached)
    } else {
        None
    };
    let limits = remaining(limits, started);
    let goal = match &domain {
        Some(d) => g.engine().and(goal, d)?,
        None => goal.clone(),
    };
    match shortest_path_within(g, &goal, domain.as_ref(), &limits) {
        Err(why) => stats.stopped = Some(why),
        Ok(None) => {}
        Ok(Some(path)) => {
            let layer = |d: Direction, k: usize, l: &LayerStats| PlanLayer {
                direction: d,
                g: k as u64,
                h: None,
                states: l.states.clone(),
                nodes: l.nodes,
                seconds: l.seconds,
            };
            stats.layers = path
                .forward
                .iter()
                .enumerate()
                .map(|(k, l)| layer(Direction::Forward, k, l))
                .chain(
                    path.backward
                        .iter()
                        .enumerate()
                        .map(|(k, l)| layer(Direction::Backward, k, l)),
                )
                .collect();
            stats.expanded_layers += path.forward.len() + path.backward.len() - 2;
            stats.peak_nodes = stats.peak_nodes.max(path.peak_nodes);
            return Ok(PlanOutcome {
                plan: Some(Plan::new(path.moves, path.states, costs)),
                stats,
            });
        }
    }
    Ok(PlanOutcome { plan: None, stats })
}
