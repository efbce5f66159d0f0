//! Shared by the game tests and the benchmark: a database of a real game whose value per state
//! is the goal vector GDL defines in that state (not the solved value: the retrograde solver
//! lives elsewhere; the goal relation is a real, total function of the state on the games used
//! here, which the explicit reasoner computes independently).

use std::path::Path;

use symgame_bdd::BddEngine;
use symgame_db::{Outcome, Schema, WriteSummary, Writer};
use symgame_symbolic::SymbolicGame;

/// The distinct goal vectors of the states in `domain`, with their state sets.
pub fn goal_classes<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    domain: &E::Bdd,
) -> Vec<(Outcome, E::Bdd)> {
    let e = g.engine();
    let mut combos: Vec<(Vec<u8>, E::Bdd)> = vec![(Vec::new(), domain.clone())];
    for (role, goals) in g.goals().unwrap().iter().enumerate() {
        let mut values: Vec<u8> = goals.iter().map(|(v, _)| *v).collect();
        values.sort_unstable();
        values.dedup();
        let mut next = Vec::new();
        for (rewards, set) in &combos {
            for &v in &values {
                let s = e.and(set, &g.goal_value_states(role, v).unwrap()).unwrap();
                if !e.is_false(&s) {
                    let mut r = rewards.clone();
                    r.push(v);
                    next.push((r, s));
                }
            }
        }
        combos = next;
    }
    combos
        .into_iter()
        .map(|(rewards, s)| (Outcome::new(rewards), s))
        .collect()
}

/// Write a database of `layers` (BFS layers) with the goal vector of each state as its value.
pub fn write_goal_database<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    layers: &[E::Bdd],
    path: &Path,
    fingerprint: [u8; 32],
) -> symgame_db::Result<WriteSummary> {
    let e = g.engine();
    let reached = layers
        .iter()
        .fold(e.constant(false), |acc, l| e.or(&acc, l).unwrap());
    let classes = goal_classes(g, &reached);
    let schema = Schema {
        fingerprint,
        metadata: format!(
            "{{\"roles\":{:?},\"values\":\"goal vector of the state\"}}",
            g.role_names()
        )
        .into_bytes(),
        num_vars: e.num_vars(),
        counted: g.encoding().current_vars().clone(),
        outcomes: classes.iter().map(|(o, _)| o.clone()).collect(),
    };
    let tables: Vec<_> = classes.iter().map(|(_, s)| e.export(s)).collect();
    let tagged: Vec<(u32, &symgame_bdd::BddNodes)> = tables
        .iter()
        .enumerate()
        .map(|(i, t)| (i as u32, t))
        .collect();
    let mut w = Writer::create(path, &schema)?;
    for (k, layer) in layers.iter().enumerate() {
        w.add_layer_by_class(k as u32, &e.export(layer), &tagged)?;
    }
    w.finish()
}
