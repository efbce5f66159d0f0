//! Reading a symbolic solution back state by state, for the tests that cross-check it with an
//! explicit one.

use num_bigint::BigUint;
use symgame_bdd::BddEngine;
use symgame_explicit::State;
use symgame_symbolic::{solve, SolveOptions, SolveStats, Solved, SymbolicGame};

/// `g` solved with the default options, its value classes kept in memory (to read states back
/// with [`for_each_solved`] or [`Solved::value_of`]).
pub fn solved_in_memory<E: BddEngine>(g: &SymbolicGame<'_, E>) -> Solved<E> {
    let opts = SolveOptions {
        keep_classes: true,
        ..SolveOptions::default()
    };
    solve(g, &opts, |_| {}).unwrap()
}

/// Calls `check(state, fluents, outcome, distance)` with the solved value of every state of
/// `states` (its true fluents, the index of its outcome in the solver's statistics and its
/// distance); panics naming the game `name` and the state when `solved` does not hold it.
pub fn for_each_solved<'s, E: BddEngine>(
    name: &str,
    solved: &Solved<E>,
    g: &SymbolicGame<'_, E>,
    states: impl IntoIterator<Item = &'s State>,
    mut check: impl FnMut(&State, &[usize], usize, Option<u32>),
) {
    for s in states {
        let fluents: Vec<usize> = s.fluents().collect();
        let (o, d) = solved
            .value_of(g, &fluents)
            .unwrap()
            .unwrap_or_else(|| panic!("{name}: state {fluents:?} not solved"));
        check(s, &fluents, o, d);
    }
}

/// The number of states of each outcome that some state has, in the solver's outcome order.
pub fn outcome_counts(st: &SolveStats) -> Vec<(Vec<u8>, BigUint)> {
    st.outcomes
        .iter()
        .cloned()
        .zip(st.per_outcome.iter().cloned())
        .filter(|(_, n)| *n > BigUint::default())
        .collect()
}
