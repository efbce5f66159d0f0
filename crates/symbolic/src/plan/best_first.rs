//! The cost-optimal searches: symbolic Dijkstra ([`Algorithm::Dijkstra`]: buckets by path
//! cost) and BDDA* ([`Algorithm::Astar`]: buckets by `f = g + h`, then `g`, with the states
//! split by the heuristic's h values), and the plan rebuilt backwards through the expanded
//! states.

use std::collections::BTreeMap;

use symgame_bdd::BddEngine;
use symgame_limits::Guard;

use crate::game::SymbolicGame;
use crate::interrupt::{union_guarded, Interrupt};
use crate::plan::heuristic::Heuristic;
use crate::plan::outcome::{Direction, Plan, PlanLayer, PlanOutcome, PlanStats};
use crate::plan::problem::{cost_classes, Algorithm, Costs, PlanError};

/// Symbolic Dijkstra (`heuristic` = `None`) and BDDA*.
pub(crate) fn best_first<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    costs: &Costs,
    goal: &E::Bdd,
    heuristic: Option<&Heuristic<E>>,
    guard: &Guard,
    algorithm: Algorithm,
    mut progress: impl FnMut(&PlanStats),
) -> Result<PlanOutcome, PlanError> {
    let mut stats = PlanStats::new(algorithm);
    match best_first_inner(g, costs, goal, heuristic, guard, &mut stats, &mut progress) {
        Ok(plan) => Ok(PlanOutcome { plan, stats }),
        Err(Interrupt::Stop(why)) => {
            stats.stopped = Some(why);
            Ok(PlanOutcome { plan: None, stats })
        }
    }
}

fn best_first_inner<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    costs: &Costs,
    goal: &E::Bdd,
    heuristic: Option<&Heuristic<E>>,
    guard: &Guard,
    stats: &mut PlanStats,
    progress: &mut impl FnMut(&PlanStats),
) -> Result<Option<Plan>, Interrupt> {
    let e = g.engine();
    let classes = cost_classes(g, costs);
    // Buckets by (f, g); h = f - g. Without a heuristic f = g.
    let mut open: BTreeMap<(u64, u64), E::Bdd> = BTreeMap::new();
    let h0 = match heuristic {
        None => Some(0),
        Some(h) => h.value_of_set(e, g.init())?,
    };
    let Some(h0) = h0 else {
        return Ok(None);
    };
    open.insert((h0, 0), g.init().clone());
    let mut closed = e.constant(false);
    // Expanded non-terminal states by g, for rebuilding the plan.
    let mut expanded: BTreeMap<u64, E::Bdd> = BTreeMap::new();
    while let Some(((f, cost), bucket)) = open.pop_first() {
        guard.check()?;
        let s = e.and_not(&bucket, &closed)?;
        if e.is_false(&s) {
            continue;
        }
        let h = f - cost;
        stats.layers.push(PlanLayer {
            direction: Direction::Forward,
            g: cost,
            h: heuristic.map(|_| h),
            states: g.count(&s),
            nodes: e.node_count(&s),
            seconds: guard.started.elapsed().as_secs_f64(),
        });
        let hit = e.and(&s, goal)?;
        if let Some(end) = g.pick_state(&hit) {
            progress(stats);
            return rebuild(g, costs, &expanded, end, cost).map(Some);
        }
        stats.expanded_layers += 1;
        closed = e.or(&closed, &s)?;
        guard.check_nodes(e.node_count(&closed) as u64)?;
        let live = g.and_not_terminal(&s)?;
        if !e.is_false(&live) {
            let slot = expanded.entry(cost).or_insert_with(|| e.constant(false));
            *slot = e.or(slot, &live)?;
            for (c, parts) in &classes {
                let img = union_guarded(e, parts, guard, |p| p.image(e, &live))?;
                let succ = e.and_not(&img, &closed)?;
                if e.is_false(&succ) {
                    continue;
                }
                let g2 = cost + c;
                let mut put = |h2: u64, set: E::Bdd| -> Result<(), Interrupt> {
                    let key = (g2 + h2, g2);
                    let merged = match open.remove(&key) {
                        Some(old) => e.or(&old, &set)?,
                        None => set,
                    };
                    guard.check_nodes(e.node_count(&merged) as u64)?;
                    open.insert(key, merged);
                    Ok(())
                };
                match heuristic {
                    None => put(0, succ)?,
                    Some(hs) => {
                        for (h2, part) in hs.split(e, &succ)? {
                            put(h2, part)?;
                        }
                    }
                }
            }
        }
        let held = e.node_count(&closed) + open.values().map(|b| e.node_count(b)).sum::<usize>();
        stats.peak_nodes = stats.peak_nodes.max(held + e.node_count(&s));
        progress(stats);
    }
    Ok(None)
}

/// Walks back from the single state `last` (reached with cost `cost`) through the sets of
/// expanded (non-terminal) states by cost, one per-joint-move partition at a time.
fn rebuild<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    costs: &Costs,
    expanded: &BTreeMap<u64, E::Bdd>,
    last: Vec<usize>,
    cost: u64,
) -> Result<Plan, Interrupt> {
    let e = g.engine();
    let mut states = vec![last];
    let mut moves = Vec::new();
    let mut at = cost;
    'steps: while at > 0 {
        let s = g.state(states.last().expect("non-empty"))?;
        for p in g.partitions() {
            let c = costs.joint(&p.joint_moves[0]);
            let Some(before) = at.checked_sub(c).and_then(|k| expanded.get(&k)) else {
                continue;
            };
            let pre = e.and(&p.pre_image(e, &s)?, before)?;
            if let Some(t) = g.pick_state(&pre) {
                moves.push(p.joint_moves[0].clone());
                states.push(t);
                at -= c;
                continue 'steps;
            }
        }
        unreachable!("every expanded state of cost > 0 has an expanded predecessor");
    }
    moves.reverse();
    states.reverse();
    Ok(Plan::new(moves, states, costs))
}
