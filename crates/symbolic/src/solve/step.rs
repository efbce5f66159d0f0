//! One step of layered solving: a layer's value classes from the next layer's
//! ([`solve_layer`]), in this process or in a slice job.

use symgame_bdd::BddEngine;

use crate::solve::context::Context;
use crate::solve::error::{SolveError, SolveOrStop};
use crate::solve::stats::MoverCounts;
use crate::solve::value::{preference, Outcomes, ValueClass};

/// The value classes of one layer (its `nonterminal` and `terminal` states) from those of the
/// next layer, `next`: the terminal states by outcome, then each mover's states by its order of
/// preference; with the won/drawn/lost counts for two roles.
pub(crate) fn solve_layer<E: BddEngine>(
    ctx: &mut Context<'_, '_, E>,
    outcomes: &mut Outcomes,
    next: &[ValueClass<E>],
    nonterminal: &E::Bdd,
    terminal: &E::Bdd,
) -> Result<(Vec<ValueClass<E>>, Option<MoverCounts>), SolveOrStop> {
    let g = ctx.g;
    let e = g.engine();
    let mut classes: Vec<ValueClass<E>> = ctx
        .terminal_classes(terminal, outcomes)?
        .into_iter()
        .map(|(o, s)| ValueClass {
            outcome: o,
            distance: None,
            states: s,
        })
        .collect();
    // Each mover takes, in its order of preference, the states with a successor in a
    // class of the next layer: one pre-image per class, inside the states still pending
    // (those with a successor in a class it prefers are already taken). Every successor
    // lies in the next layer, which is fully solved, so the states left for the least
    // preferred class present need no pre-image: all their successors are in it, as long
    // as they have one (every role has a legal move). On Connect Four a layer has one
    // mover, so this is two pre-images a layer instead of one per class.
    // Won/drawn/lost for the role to move, counted as the states are taken (two roles).
    let mut mover_counts = (ctx.movers.len() == 2).then(MoverCounts::default);
    for (p, mover) in ctx.movers.clone().iter().enumerate() {
        let mut pending = e.and(nonterminal, mover)?;
        if e.is_false(&pending) {
            continue;
        }
        let order: Vec<usize> = preference(&outcomes.list, p)
            .into_iter()
            .filter(|o| next.iter().any(|c| c.outcome == *o))
            .collect();
        for (i, &o) in order.iter().enumerate() {
            if e.is_false(&pending) {
                break;
            }
            let target = &next
                .iter()
                .find(|c| c.outcome == o)
                .expect("filtered above")
                .states;
            // The states of a pre-image are counted with its nodes, in one pass.
            let (take, counted) = if i + 1 == order.len() {
                let dead = ctx.without_legal_move(&pending)?;
                if let Some(state) = g.pick_state(&dead) {
                    return Err(SolveOrStop::Error(SolveError::NoLegalMove { state }));
                }
                (pending.clone(), None)
            } else {
                let t = ctx.pre_in_layer(target, &pending)?;
                if mover_counts.is_some() {
                    let (count, nodes) = g.count_and_nodes(&t);
                    ctx.track_nodes(nodes)?;
                    (t, Some(count))
                } else {
                    ctx.track(&t)?;
                    (t, None)
                }
            };
            if e.is_false(&take) {
                continue;
            }
            pending = e.and_not(&pending, &take)?;
            if let Some(m) = mover_counts.as_mut() {
                let count = counted.unwrap_or_else(|| g.count(&take));
                m.add(&outcomes.list[o], p, count);
            }
            match classes.iter_mut().find(|x| x.outcome == o) {
                Some(x) => x.states = e.or(&x.states, &take)?,
                None => classes.push(ValueClass {
                    outcome: o,
                    distance: None,
                    states: take,
                }),
            }
        }
        // Only when the next layer is empty: states without any successor.
        if let Some(state) = g.pick_state(&pending) {
            return Err(SolveOrStop::Error(SolveError::NoLegalMove { state }));
        }
    }
    Ok((classes, mover_counts))
}
