//! The explicit reachable set, state by state: the states checked in [`crate::Mode::All`].

use std::collections::{HashSet, VecDeque};
use symgame_explicit::{Reasoner, State};
use symgame_ground::GroundGame;

/// Every reachable state (its true fluents), by explicit breadth-first search; terminal
/// states are not expanded.
pub(crate) fn reachable_states(r: &Reasoner) -> Vec<Vec<usize>> {
    let mut seen: HashSet<State> = HashSet::new();
    let mut queue = VecDeque::new();
    let init = r.initial_state();
    seen.insert(init.clone());
    queue.push_back(init);
    let mut out = Vec::new();
    while let Some(s) = queue.pop_front() {
        out.push(s.fluents().collect());
        if r.is_terminal(&s) {
            continue;
        }
        for j in r.joint_moves(&s) {
            let t = r.next_state(&s, &j);
            if seen.insert(t.clone()) {
                queue.push_back(t);
            }
        }
    }
    out
}

/// The fluents as GDL terms.
pub(crate) fn fluent_names(game: &GroundGame, fluents: &[usize]) -> Vec<String> {
    fluents
        .iter()
        .map(|&f| game.fluents[f].to_string())
        .collect()
}
