//! [`explore`]: breadth-first enumeration of the reachable states.

use crate::{MoveId, Reasoner, State};
use std::collections::HashSet;
use std::time::Instant;
use symgame_limits::{Guard, Limits, StopReason};

/// One breadth-first layer.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct Layer {
    /// States first reached at this depth.
    pub states: u64,
    /// Of those, the terminal ones.
    pub terminal: u64,
    /// Seconds since the start when the layer was complete.
    pub seconds: f64,
}

/// The result of [`explore`]: complete layers, and why it stopped early if it did.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Exploration {
    /// The complete layers, from the initial state.
    pub layers: Vec<Layer>,
    /// Total states over the complete layers.
    pub states: u64,
    /// Total terminal states over the complete layers.
    pub terminal: u64,
    /// Joint moves applied.
    pub updates: u64,
    /// `Some` when the exploration stopped before the end.
    pub stopped: Option<StopReason>,
}

/// Breadth-first enumeration of the reachable states from the initial state. Terminal states
/// are counted but not expanded. `progress` is called after each layer.
pub fn explore(
    r: &Reasoner,
    limits: &Limits,
    mut progress: impl FnMut(&Exploration),
) -> Exploration {
    let started = Instant::now();
    let mut seen: HashSet<State> = HashSet::new();
    let mut result = Exploration::default();
    let init = r.initial_state();
    seen.insert(init.clone());
    let mut frontier = vec![init];
    let mut legal: Vec<Vec<MoveId>> = vec![Vec::new(); r.num_roles()];
    let mut joint = vec![0; r.num_roles()];
    let guard = Guard::since(limits, started);
    let stop_check =
        |n: u64| -> Option<StopReason> { guard.check_states(n).and_then(|()| guard.check()).err() };
    while !frontier.is_empty() {
        let mut layer = Layer {
            states: frontier.len() as u64,
            ..Layer::default()
        };
        let mut next_frontier = Vec::new();
        for (k, s) in frontier.iter().enumerate() {
            if k % 1024 == 0 {
                if let Some(why) = stop_check(seen.len() as u64) {
                    result.stopped = Some(why);
                    return result;
                }
            }
            if r.is_terminal(s) {
                layer.terminal += 1;
                continue;
            }
            for (role, l) in legal.iter_mut().enumerate() {
                r.legal_moves_into(s, role, l);
            }
            if legal.iter().any(|l| l.is_empty()) {
                continue; // no joint move: a dead end of a faulty description
            }
            // odometer over the joint moves
            let mut idx = vec![0usize; legal.len()];
            loop {
                for (role, &i) in idx.iter().enumerate() {
                    joint[role] = legal[role][i];
                }
                let t = r.next_state(s, &joint);
                result.updates += 1;
                if !seen.contains(&t) {
                    seen.insert(t.clone());
                    next_frontier.push(t);
                }
                let mut pos = 0;
                loop {
                    if pos == idx.len() {
                        break;
                    }
                    idx[pos] += 1;
                    if idx[pos] < legal[pos].len() {
                        break;
                    }
                    idx[pos] = 0;
                    pos += 1;
                }
                if pos == idx.len() {
                    break;
                }
            }
        }
        if let Some(why) = stop_check(seen.len() as u64) {
            result.stopped = Some(why);
            return result;
        }
        layer.seconds = started.elapsed().as_secs_f64();
        result.states += layer.states;
        result.terminal += layer.terminal;
        result.layers.push(layer);
        progress(&result);
        frontier = next_frontier;
    }
    result
}
