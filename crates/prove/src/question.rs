//! Boolean questions: can the attacker force a terminal state with some property?

use crate::model::GameModel;

/// "Can `attacker()` force the game into a terminal state where `holds` is true?"
///
/// States where the attacker chooses are OR nodes, states where the other role chooses are AND
/// nodes. Play that never ends (a repeated state) counts as a failure for the attacker.
pub trait Question<M: GameModel> {
    /// The role trying to force the property.
    fn attacker(&self) -> usize;

    /// Whether the terminal state `terminal` counts as a success for the attacker.
    fn holds(&self, model: &M, terminal: &M::State) -> bool;
}

/// Can `role` force a terminal state with `goal(role) >= value`?
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AtLeast {
    /// The attacker.
    pub role: usize,
    /// The goal value to reach or exceed.
    pub value: u8,
}

impl<M: GameModel> Question<M> for AtLeast {
    fn attacker(&self) -> usize {
        self.role
    }

    fn holds(&self, model: &M, terminal: &M::State) -> bool {
        model.goal(terminal, self.role) >= self.value
    }
}

/// Can `role` force a terminal state where its goal exceeds every other role's goal?
///
/// In a one-role game this asks for a goal above 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Beats {
    /// The attacker.
    pub role: usize,
}

impl<M: GameModel> Question<M> for Beats {
    fn attacker(&self) -> usize {
        self.role
    }

    fn holds(&self, model: &M, terminal: &M::State) -> bool {
        let own = model.goal(terminal, self.role);
        let best_other = (0..model.num_roles())
            .filter(|&r| r != self.role)
            .map(|r| model.goal(terminal, r))
            .max()
            .unwrap_or(0);
        own > best_other
    }
}

/// A question given by a closure over terminal states.
#[derive(Clone, Copy, Debug)]
pub struct Predicate<F> {
    /// The attacker.
    pub role: usize,
    /// Whether a terminal state is a success for the attacker.
    pub test: F,
}

impl<M: GameModel, F: Fn(&M, &M::State) -> bool> Question<M> for Predicate<F> {
    fn attacker(&self) -> usize {
        self.role
    }

    fn holds(&self, model: &M, terminal: &M::State) -> bool {
        (self.test)(model, terminal)
    }
}
