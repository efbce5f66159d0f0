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

/// `model` with the attacker's goal replaced by 1 where `question` holds and 0 elsewhere (and
/// every other role's by 0): the attacker can force the property exactly when it can force the
/// value 1 here, which is how the algorithms that compute values answer questions.
pub(crate) struct Indicator<'a, M, Q> {
    /// The game.
    pub model: &'a M,
    /// The question.
    pub question: &'a Q,
}

impl<M: GameModel, Q: Question<M>> GameModel for Indicator<'_, M, Q> {
    type State = M::State;
    type Move = M::Move;

    fn num_roles(&self) -> usize {
        self.model.num_roles()
    }
    fn initial_state(&self) -> M::State {
        self.model.initial_state()
    }
    fn is_terminal(&self, state: &M::State) -> bool {
        self.model.is_terminal(state)
    }
    fn goal(&self, state: &M::State, role: usize) -> u8 {
        u8::from(role == self.question.attacker() && self.question.holds(self.model, state))
    }
    fn legal_moves(&self, state: &M::State, role: usize, out: &mut Vec<M::Move>) {
        self.model.legal_moves(state, role, out)
    }
    fn next_state(&self, state: &M::State, joint: &[M::Move]) -> M::State {
        self.model.next_state(state, joint)
    }
}
