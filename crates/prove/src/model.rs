//! The abstract game model and the classification of who is in control of a state.

use std::fmt;
use std::fmt::Debug;
use std::hash::Hash;

/// A finite game with GDL semantics, seen one state at a time.
///
/// Every role moves at every step (a joint move has one move per role, in role order). In
/// turn-taking games the roles not in control have exactly one legal move, the "noop". Roles are
/// numbered `0..num_roles()`.
pub trait GameModel {
    /// A game state; states are compared and hashed for transpositions.
    type State: Clone + Eq + Hash;
    /// A move of one role.
    type Move: Clone + Debug;

    /// The number of roles.
    fn num_roles(&self) -> usize;

    /// The initial state.
    fn initial_state(&self) -> Self::State;

    /// Whether `state` is terminal.
    fn is_terminal(&self, state: &Self::State) -> bool;

    /// The goal value (0..=100) of `role` in `state`; only read at terminal states.
    fn goal(&self, state: &Self::State, role: usize) -> u8;

    /// Appends the legal moves of `role` in the non-terminal `state` to `out`, which the caller
    /// passes empty.
    fn legal_moves(&self, state: &Self::State, role: usize, out: &mut Vec<Self::Move>);

    /// The state after the joint move `joint` (one legal move per role, in role order).
    fn next_state(&self, state: &Self::State, joint: &[Self::Move]) -> Self::State;

    /// The goal values `role` can receive, in any order. The default (every value 0..=100) is
    /// always correct; a precise list saves boolean searches in [`solve_value`](crate::solve_value).
    fn goal_values(&self, role: usize) -> Vec<u8> {
        let _ = role;
        (0..=100).collect()
    }
}

/// Why a game or a state is outside what this crate can search.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Unsupported {
    /// Several roles have more than one legal move in the same reachable state.
    Simultaneous {
        /// Which roles, and how many moves each has.
        message: String,
    },
    /// The game has a number of roles other than 1 or 2.
    Roles {
        /// The number of roles of the game.
        count: usize,
    },
    /// A role has no legal move in a reachable non-terminal state (the game is not playable).
    NoLegalMoves {
        /// The role without moves.
        role: usize,
    },
    /// A state comes back on a path from the root: the game does not terminate, so backward
    /// induction ([`security_levels`](crate::security_levels),
    /// [`maxn_values`](crate::maxn_values)) has no value to give it.
    Cycle {
        /// The number of moves from the state back to itself.
        length: usize,
    },
    /// A question or search names a role the game does not have.
    UnknownRole {
        /// The role named.
        role: usize,
        /// The number of roles of the game.
        count: usize,
    },
}

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unsupported::Simultaneous { message } => write!(f, "simultaneous moves: {message}"),
            Unsupported::Roles { count } => {
                write!(f, "game has {count} roles: only 1 or 2 roles are supported")
            }
            Unsupported::NoLegalMoves { role } => {
                write!(f, "role {role} has no legal move in a non-terminal state")
            }
            Unsupported::Cycle { length } => write!(
                f,
                "a reachable state comes back after {length} moves: the game has a cycle"
            ),
            Unsupported::UnknownRole { role, count } => {
                write!(f, "role {role} does not exist: the game has {count} roles")
            }
        }
    }
}

impl std::error::Error for Unsupported {}

/// Checks that the game has 1 or 2 roles and that `role` is one of them.
pub(crate) fn check_roles<M: GameModel>(model: &M, role: usize) -> Result<(), Unsupported> {
    let count = model.num_roles();
    if !(1..=2).contains(&count) {
        return Err(Unsupported::Roles { count });
    }
    if role >= count {
        return Err(Unsupported::UnknownRole { role, count });
    }
    Ok(())
}

/// Who decides at a non-terminal state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Control {
    /// Every role has exactly one legal move: a single forced successor.
    Forced,
    /// The only role with more than one legal move.
    Role(usize),
}

impl Control {
    /// Whether the state is an AND node for `attacker` (the opponent chooses).
    pub(crate) fn is_and(self, attacker: usize) -> bool {
        matches!(self, Control::Role(r) if r != attacker)
    }
}

/// Generates successors with reusable move buffers.
pub(crate) struct Expander<'m, M: GameModel> {
    model: &'m M,
    moves: Vec<Vec<M::Move>>,
    joint: Vec<M::Move>,
}

impl<'m, M: GameModel> Expander<'m, M> {
    pub(crate) fn new(model: &'m M) -> Self {
        let roles = model.num_roles();
        Expander {
            model,
            moves: (0..roles).map(|_| Vec::new()).collect(),
            joint: Vec::with_capacity(roles),
        }
    }

    /// Fills the move buffers of the non-terminal `state` and says who is in control.
    fn control(&mut self, state: &M::State) -> Result<Control, Unsupported> {
        let mut mover: Option<(usize, usize)> = None;
        for (role, moves) in self.moves.iter_mut().enumerate() {
            moves.clear();
            self.model.legal_moves(state, role, moves);
            match moves.len() {
                0 => return Err(Unsupported::NoLegalMoves { role }),
                1 => {}
                count => {
                    if let Some((other, other_count)) = mover {
                        return Err(Unsupported::Simultaneous {
                            message: format!(
                                "roles {other} and {role} both have more than one legal move \
                                 ({other_count} and {count}) in a reachable state"
                            ),
                        });
                    }
                    mover = Some((role, count));
                }
            }
        }
        Ok(mover.map_or(Control::Forced, |(role, _)| Control::Role(role)))
    }

    /// Who is in control of the non-terminal `state` and how many moves they have.
    pub(crate) fn mobility(&mut self, state: &M::State) -> Result<(Control, usize), Unsupported> {
        let control = self.control(state)?;
        let count = match control {
            Control::Forced => 1,
            Control::Role(role) => self.moves[role].len(),
        };
        Ok((control, count))
    }

    /// Replaces `out` by the successors of the non-terminal `state`, in move order.
    pub(crate) fn successors(
        &mut self,
        state: &M::State,
        out: &mut Vec<M::State>,
    ) -> Result<Control, Unsupported> {
        let control = self.control(state)?;
        out.clear();
        self.joint.clear();
        self.joint
            .extend(self.moves.iter().map(|moves| moves[0].clone()));
        match control {
            Control::Forced => out.push(self.model.next_state(state, &self.joint)),
            Control::Role(role) => {
                for mv in &self.moves[role] {
                    self.joint[role] = mv.clone();
                    out.push(self.model.next_state(state, &self.joint));
                }
            }
        }
        Ok(control)
    }
}
