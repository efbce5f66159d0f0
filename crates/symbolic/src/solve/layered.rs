//! Layered solving, for games where every move goes from BFS layer `k` to layer `k + 1`: the
//! layers are read back from the spill files from the last to the first, and each layer's
//! classes come from the next layer's by the [`preference`] of the role to move, one pre-image
//! per class of the next layer, with two layers in memory.

use num_bigint::BigUint;
use symgame_bdd::BddEngine;

use crate::solve::context::Context;
use crate::solve::error::{SolveError, SolveOrStop};
use crate::solve::files::{
    layer_file_name, read_manifest, read_stored, write_layer, write_manifest, FileError,
};
use crate::solve::options::SolveOptions;
use crate::solve::spill::Spill;
use crate::solve::stats::{GameKind, MoverCounts, SolveLayerStats, SolveStats};
use crate::solve::value::{
    is_constant_sum, preference, set_initial, store, Outcomes, SolvedLayer, ValueClass,
};

/// Layered solving: from the last layer to the first, each layer's classes from the next
/// layer's by the preference rule; two layers in memory. Returns the classes of every layer
/// (first to last) if [`SolveOptions::keep_classes`].
pub(crate) fn solve_layered<E: BddEngine>(
    opts: &SolveOptions,
    ctx: &mut Context<'_, '_, E>,
    stats: &mut SolveStats,
    progress: &mut impl FnMut(&SolveStats),
    spill: &Spill,
    depths: usize,
) -> Result<Vec<SolvedLayer<E>>, SolveOrStop> {
    let g = ctx.g;
    let e = g.engine();
    let mut outcomes = Outcomes::default();
    let mut next: Vec<ValueClass<E>> = Vec::new();
    let mut kept = Vec::new();
    // A resumable solve goes on below the layers it solved before.
    let mut start = depths;
    if let Some((rows, list, classes)) = resume_point(opts, ctx, depths)? {
        start = rows.last().map_or(depths, |l| l.depth);
        stats.resumed.layers = rows.len();
        stats.layers = rows;
        outcomes.list = list;
        next = classes;
        if start == 0 {
            set_initial(g, stats, &next)?;
        }
    }
    for depth in (0..start).rev() {
        ctx.guard.check()?;
        let (nonterminal, terminal) = spill.read(g, depth)?;
        ctx.set_universe(&nonterminal)?;
        ctx.check_simultaneous(&nonterminal)?;
        let (classes, mover) = solve_layer(ctx, &mut outcomes, &next, &nonterminal, &terminal)?;
        for c in &classes {
            ctx.track(&c.states)?;
        }
        let mut per = vec![BigUint::default(); outcomes.list.len()];
        for c in &classes {
            per[c.outcome] += g.count(&c.states);
        }
        stats.outcomes = outcomes.list.clone();
        // The two parts are disjoint: their counts add up to the layer's, without a union.
        let terminal_count = g.count(&terminal);
        stats.layers.push(SolveLayerStats {
            depth,
            states: g.count(&nonterminal) + &terminal_count,
            terminal: terminal_count,
            per_outcome: per,
            mover,
            nodes: classes.iter().map(|c| e.node_count(&c.states)).sum(),
            seconds: ctx.guard.started.elapsed().as_secs_f64(),
        });
        if depth == 0 {
            set_initial(g, stats, &classes)?;
        }
        if let Some(dir) = &opts.out_dir {
            write_layer(dir, &opts.fingerprint, Some(depth), &store(e, &classes))?;
            if opts.resume {
                // The layer's file first, then the manifest that names it solved.
                stats.outcomes = outcomes.list.clone();
                write_manifest(dir, &opts.fingerprint, g.encoding(), stats, false)?;
            }
        }
        progress(stats);
        if opts.keep_classes {
            kept.push(SolvedLayer {
                depth: Some(depth),
                classes: classes.clone(),
            });
        }
        next = classes;
    }
    stats.kind = if is_constant_sum(&outcomes.list) {
        GameKind::ZeroSum
    } else {
        GameKind::GeneralSum
    };
    stats.layers.reverse();
    stats.per_outcome = vec![BigUint::default(); outcomes.list.len()];
    for l in &stats.layers {
        for (o, n) in l.per_outcome.iter().enumerate() {
            stats.per_outcome[o] += n;
        }
    }
    kept.reverse();
    Ok(kept)
}

/// Where a resumable layered solve goes on ([`SolveOptions::resume`]): the rows of the layers
/// its directory's manifest lists as solved (the deepest first, down from the last layer
/// without a gap), the outcomes, and the classes of the shallowest of them read back. `None`
/// when there is nothing to go on from.
#[allow(clippy::type_complexity)]
fn resume_point<E: BddEngine>(
    opts: &SolveOptions,
    ctx: &Context<'_, '_, E>,
    depths: usize,
) -> Result<Option<(Vec<SolveLayerStats>, Vec<Vec<u8>>, Vec<ValueClass<E>>)>, SolveOrStop> {
    let Some(dir) = opts.out_dir.as_deref().filter(|_| opts.resume) else {
        return Ok(None);
    };
    let Ok(m) = read_manifest(dir) else {
        return Ok(None);
    };
    let rows = m.stats.layers;
    let from_the_last = rows
        .iter()
        .enumerate()
        .all(|(i, l)| l.depth + i + 1 == depths);
    let usable = m.fingerprint == opts.fingerprint && m.stats.layered && !m.complete;
    let Some(shallowest) = rows.last().filter(|_| usable && from_the_last) else {
        return Ok(None);
    };
    let path = dir.join(layer_file_name(Some(shallowest.depth as u32)));
    let stored = read_stored(&path)?;
    if stored.fingerprint != opts.fingerprint || stored.depth != Some(shallowest.depth as u32) {
        let why = "not the solved layer the manifest names; remove the directory to solve again";
        return Err(FileError::format(&path, why).into());
    }
    let e = ctx.g.engine();
    let mut classes = Vec::with_capacity(stored.classes.len());
    for c in &stored.classes {
        classes.push(ValueClass {
            outcome: c.outcome as usize,
            distance: c.distance,
            states: e.import(&c.nodes)?,
        });
    }
    Ok(Some((rows, m.stats.outcomes, classes)))
}

/// The value classes of one layer (its `nonterminal` and `terminal` states) from those of the
/// next layer, `next`: the terminal states by outcome, then each mover's states by its order of
/// preference; with the won/drawn/lost counts for two roles.
fn solve_layer<E: BddEngine>(
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
            let take = if i + 1 == order.len() {
                let dead = ctx.without_legal_move(&pending)?;
                if let Some(state) = g.pick_state(&dead) {
                    return Err(SolveOrStop::Error(SolveError::NoLegalMove { state }));
                }
                pending.clone()
            } else {
                let t = ctx.pre_in(target, &pending)?;
                ctx.track(&t)?;
                t
            };
            if e.is_false(&take) {
                continue;
            }
            pending = e.and_not(&pending, &take)?;
            if let Some(m) = mover_counts.as_mut() {
                m.add(&outcomes.list[o], p, g.count(&take));
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
