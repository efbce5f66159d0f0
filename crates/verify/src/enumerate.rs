//! The explicit reachable set, state by state: the states checked in [`crate::Mode::All`].

use symgame_explicit::{Reachable, Reasoner};
use symgame_ground::GroundGame;

/// Every reachable state (its true fluents), by explicit breadth-first search; terminal
/// states are not expanded.
pub(crate) fn reachable_states(r: &Reasoner) -> Vec<Vec<usize>> {
    Reachable::new(r).map(|s| s.fluents().collect()).collect()
}

/// The fluents as GDL terms.
pub(crate) fn fluent_names(game: &GroundGame, fluents: &[usize]) -> Vec<String> {
    fluents
        .iter()
        .map(|&f| game.fluents[f].to_string())
        .collect()
}
