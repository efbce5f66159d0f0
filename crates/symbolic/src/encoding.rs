//! The Boolean encoding of states: one current and one next variable per fluent, interleaved.

use std::cmp::Ordering;

use serde::{Deserialize, Serialize};
use symgame_bdd::{Var, VarSet};
use symgame_ground::{GroundGame, GroundTerm};

/// How fluents are placed in the variable order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Order {
    /// The fluents' order in the ground game (their index order).
    Given,
    /// Fluents sorted by their ground term, comparing argument by argument, numbers
    /// numerically and before names (`(cell 2 10 x)` after `(cell 2 9 x)`). Fluents of the same
    /// relation with equal leading arguments end up next to each other, e.g. Connect Four cells
    /// column by column, each cell's colours together. Deterministic.
    #[default]
    Heuristic,
}

/// The variable layout of a ground game's states.
///
/// Invariants: fluent `f` at position `p = position(f)` has its current variable `x_f` at
/// `2p` and its next variable `x_f'` at `2p + 1` (interleaved), so renaming next to current
/// variables (or back) keeps the relative order and is cheap. A state set is a BDD over the
/// current variables only.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Encoding {
    order: Order,
    /// Position -> fluent.
    fluents: Vec<usize>,
    /// Fluent -> position.
    position: Vec<usize>,
    current: VarSet,
    next: VarSet,
}

/// One token of a flattened ground term.
fn flatten<'a>(t: &'a GroundTerm, out: &mut Vec<&'a str>) {
    match t {
        GroundTerm::Const(c) => out.push(c),
        GroundTerm::Func(f, args) => {
            out.push(f);
            for a in args {
                flatten(a, out);
            }
        }
    }
}

/// Numbers compare numerically and come before names; names compare as strings.
fn cmp_token(a: &str, b: &str) -> Ordering {
    match (a.parse::<i64>(), b.parse::<i64>()) {
        (Ok(x), Ok(y)) => x.cmp(&y).then_with(|| a.cmp(b)),
        (Ok(_), Err(_)) => Ordering::Less,
        (Err(_), Ok(_)) => Ordering::Greater,
        (Err(_), Err(_)) => a.cmp(b),
    }
}

fn cmp_terms(a: &GroundTerm, b: &GroundTerm) -> Ordering {
    let (mut ta, mut tb) = (Vec::new(), Vec::new());
    flatten(a, &mut ta);
    flatten(b, &mut tb);
    for (x, y) in ta.iter().zip(&tb) {
        let c = cmp_token(x, y);
        if c != Ordering::Equal {
            return c;
        }
    }
    ta.len().cmp(&tb.len()).then_with(|| a.cmp(b))
}

impl Encoding {
    /// The encoding of `game`'s fluents in the given order.
    pub fn new(game: &GroundGame, order: Order) -> Encoding {
        let n = game.fluents.len();
        let mut fluents: Vec<usize> = (0..n).collect();
        if order == Order::Heuristic {
            fluents.sort_by(|&a, &b| {
                cmp_terms(&game.fluents[a], &game.fluents[b]).then_with(|| a.cmp(&b))
            });
        }
        let mut position = vec![0; n];
        for (p, &f) in fluents.iter().enumerate() {
            position[f] = p;
        }
        let current = (0..n as Var).map(|p| 2 * p).collect();
        let next = (0..n as Var).map(|p| 2 * p + 1).collect();
        Encoding {
            order,
            fluents,
            position,
            current,
            next,
        }
    }

    /// The order this encoding was built with.
    pub fn order(&self) -> Order {
        self.order
    }

    /// Number of fluents.
    pub fn num_fluents(&self) -> usize {
        self.fluents.len()
    }

    /// Number of BDD variables (two per fluent).
    pub fn num_vars(&self) -> u32 {
        2 * self.fluents.len() as u32
    }

    /// The position of fluent `f` in the variable order.
    pub fn position(&self, f: usize) -> usize {
        self.position[f]
    }

    /// The fluent at position `p`.
    pub fn fluent_at(&self, p: usize) -> usize {
        self.fluents[p]
    }

    /// The current-state variable `x_f` (`2 * position(f)`).
    pub fn current_var(&self, f: usize) -> Var {
        2 * self.position[f] as Var
    }

    /// The next-state variable `x_f'` (`2 * position(f) + 1`).
    pub fn next_var(&self, f: usize) -> Var {
        2 * self.position[f] as Var + 1
    }

    /// The fluent of variable `v` and whether `v` is its next-state copy.
    pub fn fluent_of_var(&self, v: Var) -> (usize, bool) {
        (self.fluents[(v / 2) as usize], v % 2 == 1)
    }

    /// The groups of fluents that are encoded together, as fluent indexes. Every fluent is in
    /// exactly one group; a search that abstracts states (pattern databases) keeps or drops
    /// whole groups. With one variable pair per fluent, every group is a single fluent.
    pub fn groups(&self) -> Vec<Vec<usize>> {
        self.fluents.iter().map(|&f| vec![f]).collect()
    }

    /// The current-state and next-state variables that encode the given fluents (all the
    /// variables of their groups), each set sorted.
    pub fn vars_of(&self, fluents: &[usize]) -> (VarSet, VarSet) {
        (
            fluents.iter().map(|&f| self.current_var(f)).collect(),
            fluents.iter().map(|&f| self.next_var(f)).collect(),
        )
    }

    /// All current-state variables (the even ones).
    pub fn current_vars(&self) -> &VarSet {
        &self.current
    }

    /// The state whose true fluents are `fluents` as an assignment of all `num_vars()`
    /// variables (next-state variables false): the form ranked databases look states up in.
    pub fn assignment(&self, fluents: impl IntoIterator<Item = usize>) -> Vec<bool> {
        let mut a = vec![false; self.num_vars() as usize];
        for f in fluents {
            a[self.current_var(f) as usize] = true;
        }
        a
    }

    /// The true fluents (ascending) of the state an assignment of the current-state
    /// variables encodes; the inverse of [`Self::assignment`]. Panics if `assignment` is
    /// shorter than `num_vars()`.
    pub fn fluents_of(&self, assignment: &[bool]) -> Vec<usize> {
        (0..self.num_fluents())
            .filter(|&f| assignment[self.current_var(f) as usize])
            .collect()
    }

    /// All next-state variables (the odd ones).
    pub fn next_vars(&self) -> &VarSet {
        &self.next
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numeric_tokens_compare_numerically() {
        let t = |s: &str| GroundTerm::parse(s).unwrap();
        assert_eq!(
            cmp_terms(&t("(cell 2 9 x)"), &t("(cell 2 10 x)")),
            Ordering::Less
        );
        assert_eq!(
            cmp_terms(&t("(cell 1 1 x)"), &t("(cell 1 a x)")),
            Ordering::Less
        );
        assert_eq!(
            cmp_terms(&t("(cell 1 1 o)"), &t("(cell 1 1 x)")),
            Ordering::Less
        );
        assert_eq!(
            cmp_terms(&t("(cell 1 1)"), &t("(cell 1 1 x)")),
            Ordering::Less
        );
    }
}
