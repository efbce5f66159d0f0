//! Backward induction over the whole reachable graph, for any number of roles and simultaneous
//! moves: [`security_levels`] (what each role can guarantee in pure strategies) and
//! [`maxn_values`] (the outcome of turn-taking play where each role follows [`preference`]).
//!
//! Both visit every state reachable from the root once, depth first with an explicit stack (a
//! game hundreds of plies deep does not overflow the call stack), and value a state once all
//! its successors are valued. GDL games terminate, so the reachable graph is acyclic; a state
//! met again on the current path is reported as [`Unsupported::Cycle`] instead of being valued.
//! The result, [`StateValues`], holds one reward per role for every reachable state.

use std::collections::HashMap;
use std::fmt;
use std::hash::Hash;

use symgame_limits::{Guard, Limits, StopReason};

use crate::matrix::{solve_matrix_game, MatrixError};
use crate::model::{GameModel, Unsupported};
use crate::preference::preference;

/// One reward per role for every state reachable from a root: the result of
/// [`security_levels`] and [`maxn_values`].
#[derive(Clone, Debug)]
pub struct StateValues<S> {
    roles: usize,
    index: HashMap<S, usize>,
    /// `roles` rewards per state, at `roles * index[state]`.
    values: Vec<u8>,
}

impl<S: Eq + Hash> StateValues<S> {
    /// The rewards of `state` (one per role, in role order), or `None` when `state` was not
    /// reached from the root.
    pub fn get(&self, state: &S) -> Option<&[u8]> {
        let &i = self.index.get(state)?;
        self.values.get(i * self.roles..(i + 1) * self.roles)
    }

    /// The number of reachable states (terminal ones included).
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// Whether no state was valued (never: the root always is).
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// The number of roles, the length of every reward vector.
    pub fn num_roles(&self) -> usize {
        self.roles
    }

    /// Every reachable state with its rewards, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (&S, &[u8])> + '_ {
        self.index.iter().map(move |(state, &i)| {
            let rewards = self
                .values
                .get(i * self.roles..(i + 1) * self.roles)
                .unwrap_or(&[]);
            (state, rewards)
        })
    }
}

/// The security level of every role in every state reachable from `root`: the largest reward
/// the role can guarantee with a pure strategy, choosing each move without seeing the moves the
/// other roles make at the same step (it does see every earlier move).
///
/// At a terminal state it is the role's goal; elsewhere, for role `r`,
/// `max over r's legal moves m of min over every joint move j with j[r] = m of level_r(next(j))`,
/// the other roles' moves ranging over all their combinations. For two roles in alternating
/// control this is minimax; for one role, the best reachable goal. In a simultaneous step a
/// role gets no credit for mixing its moves (matching pennies: 0 for both).
///
/// Errors: a non-terminal state where a role has no legal move
/// ([`Unsupported::NoLegalMoves`]), a cycle ([`Unsupported::Cycle`]).
///
/// ```
/// use symgame_prove::games::Nim;
/// use symgame_prove::{security_levels, GameModel};
///
/// let nim = Nim::new(&[1, 2, 3]);
/// let levels = security_levels(&nim, &nim.initial_state()).unwrap();
/// assert_eq!(levels.get(&nim.initial_state()), Some(&[0, 100][..])); // nim-sum 0
/// assert_eq!(levels.len(), 40);
/// ```
pub fn security_levels<M: GameModel>(
    model: &M,
    root: &M::State,
) -> Result<StateValues<M::State>, Unsupported> {
    unlimited(Induction::new(model, InductionRule::Security), root)
}

/// The outcome of every state reachable from `root` in a turn-taking game with any number of
/// roles, by backward induction with the [`preference`] rule: at each state the only role with
/// more than one legal move picks, among the outcomes of its successors (in its move order),
/// the one [`preference`] puts first (max^n for three roles or more, ties to the earlier move).
/// A state where no role has a choice takes the outcome of its single successor.
///
/// Errors: a state where several roles have more than one legal move
/// ([`Unsupported::Simultaneous`], naming the roles), a non-terminal state where a role has no
/// legal move ([`Unsupported::NoLegalMoves`]), a cycle ([`Unsupported::Cycle`]).
///
/// ```
/// use symgame_prove::games::TicTacToe;
/// use symgame_prove::{maxn_values, GameModel};
///
/// let game = TicTacToe;
/// let outcomes = maxn_values(&game, &game.initial_state()).unwrap();
/// assert_eq!(outcomes.get(&game.initial_state()), Some(&[50, 50][..]));
/// assert_eq!(outcomes.len(), 5478);
/// ```
pub fn maxn_values<M: GameModel>(
    model: &M,
    root: &M::State,
) -> Result<StateValues<M::State>, Unsupported> {
    unlimited(Induction::new(model, InductionRule::MaxN), root)
}

/// Runs `induction` from `root` to the end; without limits it can only fail as unsupported.
fn unlimited<M: GameModel>(
    mut induction: Induction<'_, M>,
    root: &M::State,
) -> Result<StateValues<M::State>, Unsupported> {
    match induction.value(root, &Guard::new(&Limits::default())) {
        Ok(_) => Ok(induction.into_values()),
        Err(InductionError::Unsupported(u)) => Err(u),
        Err(InductionError::Stopped(why)) => unreachable!("no limit was set, yet {why}"),
        Err(InductionError::Matrix(e)) => unreachable!("only the mixed rule solves LPs: {e}"),
    }
}

/// Why [`Induction::value`] gave no value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InductionError {
    /// The game is outside the rule (a cycle, a state without moves, simultaneous moves under
    /// max^n).
    Unsupported(Unsupported),
    /// A limit of the guard stopped the search; what was valued before is kept.
    Stopped(StopReason),
    /// The LP of a simultaneous step failed ([`InductionRule::Mixed`]).
    Matrix(MatrixError),
}

impl fmt::Display for InductionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InductionError::Unsupported(u) => u.fmt(f),
            InductionError::Stopped(why) => write!(f, "backward induction stopped: {why}"),
            InductionError::Matrix(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for InductionError {}

impl From<Unsupported> for InductionError {
    fn from(u: Unsupported) -> Self {
        InductionError::Unsupported(u)
    }
}

/// How a non-terminal state's rewards follow from its successors'.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InductionRule {
    /// Each role's pure security level.
    Security,
    /// The choice of the role in control by [`preference`] (turn-taking games only).
    MaxN,
    /// Two roles: the security levels as [`InductionRule::Security`], and beside them the
    /// value of role 0 in mixed strategies ([`Induction::mixed`]), each simultaneous step a
    /// matrix game solved by [`solve_matrix_game`] (role 0 maximises its reward, role 1
    /// minimises it: the constant-sum reading).
    Mixed,
}

/// Where a state stands in the depth-first search.
#[derive(Clone, Copy)]
enum Mark {
    /// Seen as a successor, not yet expanded.
    New,
    /// Expanded and on the current path, at this position of the stack.
    OnPath(usize),
    /// Valued.
    Done,
}

/// An expanded non-terminal state on the stack.
struct Frame {
    /// The state's id.
    id: usize,
    /// The number of legal moves of each role.
    counts: Vec<usize>,
    /// The successor of each joint move, in [`advance`] order.
    children: Vec<usize>,
    /// The next child to visit.
    next: usize,
}

/// Steps `digits` (one move index per role) to the next joint move, the last role changing
/// fastest; false after the last joint move (the digits are back to zero).
fn advance(digits: &mut [usize], counts: &[usize]) -> bool {
    for (digit, &count) in digits.iter_mut().zip(counts).rev() {
        *digit += 1;
        if *digit < count {
            return true;
        }
        *digit = 0;
    }
    false
}

/// `items` joined as "a", "a and b" or "a, b and c".
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// Backward induction that keeps what it valued between calls: ask [`Induction::value`] for
/// many roots (a sample of states) and each state is expanded once in all, within the limits
/// of each call's guard. [`security_levels`] and [`maxn_values`] are one call from one root.
///
/// ```
/// use symgame_limits::{Guard, Limits};
/// use symgame_prove::games::Nim;
/// use symgame_prove::{GameModel, Induction, InductionRule};
///
/// let nim = Nim::new(&[1, 2, 3]);
/// let mut induction = Induction::new(&nim, InductionRule::Security);
/// let limits = Limits::default();
/// let levels = induction.value(&nim.initial_state(), &Guard::new(&limits)).unwrap();
/// assert_eq!(levels, &[0, 100][..]);
/// assert_eq!(induction.valued(), 40);
/// ```
pub struct Induction<'m, M: GameModel> {
    model: &'m M,
    rule: InductionRule,
    roles: usize,
    /// Every state seen, by id.
    states: Vec<M::State>,
    index: HashMap<M::State, usize>,
    marks: Vec<Mark>,
    /// `roles` rewards per id.
    values: Vec<u8>,
    /// The legal moves of each role in the state being expanded.
    moves: Vec<Vec<M::Move>>,
    /// Per-role, per-move minima while a security level is computed.
    minima: Vec<Vec<u8>>,
    /// Under [`InductionRule::Mixed`]: role 0's mixed value per id.
    mixed: Vec<f64>,
}

impl<'m, M: GameModel> Induction<'m, M> {
    /// An induction with nothing valued yet.
    pub fn new(model: &'m M, rule: InductionRule) -> Self {
        let roles = model.num_roles();
        Induction {
            model,
            rule,
            roles,
            states: Vec::new(),
            index: HashMap::new(),
            marks: Vec::new(),
            values: Vec::new(),
            moves: (0..roles).map(|_| Vec::new()).collect(),
            minima: (0..roles).map(|_| Vec::new()).collect(),
            mixed: Vec::new(),
        }
    }

    /// The id of `state`, new ones added unvalued.
    fn intern(&mut self, state: M::State) -> usize {
        if let Some(&id) = self.index.get(&state) {
            return id;
        }
        let id = self.states.len();
        self.index.insert(state.clone(), id);
        self.states.push(state);
        self.marks.push(Mark::New);
        self.values.resize(self.values.len() + self.roles, 0);
        if self.rule == InductionRule::Mixed {
            self.mixed.push(0.0);
        }
        id
    }

    /// Values the terminal state `id` (`None`), or expands it into a frame.
    fn expand(&mut self, id: usize) -> Result<Option<Frame>, Unsupported> {
        let model = self.model;
        let state = self.states[id].clone();
        if model.is_terminal(&state) {
            for role in 0..self.roles {
                self.values[id * self.roles + role] = model.goal(&state, role);
            }
            if self.rule == InductionRule::Mixed {
                self.mixed[id] = f64::from(model.goal(&state, 0));
            }
            self.marks[id] = Mark::Done;
            return Ok(None);
        }
        for (role, moves) in self.moves.iter_mut().enumerate() {
            moves.clear();
            model.legal_moves(&state, role, moves);
            if moves.is_empty() {
                return Err(Unsupported::NoLegalMoves { role });
            }
        }
        let counts: Vec<usize> = self.moves.iter().map(Vec::len).collect();
        if self.rule == InductionRule::MaxN {
            let choosers: Vec<usize> = (0..self.roles).filter(|&r| counts[r] > 1).collect();
            if choosers.len() > 1 {
                let roles: Vec<String> = choosers.iter().map(|r| r.to_string()).collect();
                let moves: Vec<String> = choosers.iter().map(|&r| counts[r].to_string()).collect();
                return Err(Unsupported::Simultaneous {
                    message: format!(
                        "roles {} have more than one legal move each ({}) in a reachable state; \
                         max^n needs turn-taking",
                        and_list(&roles),
                        and_list(&moves)
                    ),
                });
            }
        }
        let mut digits = vec![0; self.roles];
        let mut joint: Vec<M::Move> = self.moves.iter().map(|m| m[0].clone()).collect();
        let mut children = Vec::new();
        loop {
            let next = model.next_state(&state, &joint);
            children.push(self.intern(next));
            if !advance(&mut digits, &counts) {
                break;
            }
            for (role, slot) in joint.iter_mut().enumerate() {
                *slot = self.moves[role][digits[role]].clone();
            }
        }
        Ok(Some(Frame {
            id,
            counts,
            children,
            next: 0,
        }))
    }

    /// Values the expanded state of `frame`, whose successors are all valued.
    fn combine(&mut self, frame: &Frame) -> Result<(), InductionError> {
        let roles = self.roles;
        let at = frame.id * roles;
        if self.rule == InductionRule::Mixed {
            // The children are listed with role 1's move changing fastest: row-major.
            let columns = frame.counts[1];
            let payoff: Vec<Vec<f64>> = frame
                .children
                .chunks(columns)
                .map(|row| row.iter().map(|&c| self.mixed[c]).collect())
                .collect();
            self.mixed[frame.id] = solve_matrix_game(&payoff)
                .map_err(InductionError::Matrix)?
                .value;
        }
        match self.rule {
            InductionRule::Security | InductionRule::Mixed => {
                for (minima, &count) in self.minima.iter_mut().zip(&frame.counts) {
                    minima.clear();
                    minima.resize(count, u8::MAX);
                }
                let mut digits = vec![0; roles];
                for &child in &frame.children {
                    for (role, minima) in self.minima.iter_mut().enumerate() {
                        let value = self.values[child * roles + role];
                        let slot = &mut minima[digits[role]];
                        *slot = (*slot).min(value);
                    }
                    advance(&mut digits, &frame.counts);
                }
                for (role, minima) in self.minima.iter().enumerate() {
                    self.values[at + role] = minima.iter().copied().max().unwrap_or(0);
                }
            }
            InductionRule::MaxN => {
                let mover = frame.counts.iter().position(|&c| c > 1);
                let outcomes: Vec<Vec<u8>> = frame
                    .children
                    .iter()
                    .map(|&c| self.values[c * roles..(c + 1) * roles].to_vec())
                    .collect();
                let best = match mover {
                    Some(role) => preference(&outcomes, role).first().copied(),
                    None => Some(0),
                };
                if let Some(outcome) = best.and_then(|b| outcomes.get(b)) {
                    self.values[at..at + roles].copy_from_slice(outcome);
                }
            }
        }
        Ok(())
    }

    /// The rewards of `root` (one per role), valuing every state reachable from it that is
    /// not valued yet. A limit of `guard` (checked every few thousand states, and against
    /// `max_states` for the states held) ends the call with [`InductionError::Stopped`]; the
    /// states valued so far stay valued for later calls.
    pub fn value(&mut self, root: &M::State, guard: &Guard<'_>) -> Result<&[u8], InductionError> {
        if self.rule == InductionRule::Mixed && self.roles != 2 {
            let count = self.roles;
            return Err(Unsupported::Roles { count }.into());
        }
        let root = self.intern(root.clone());
        let mut stack: Vec<Frame> = Vec::new();
        let result = self.descend(root, &mut stack, guard);
        if result.is_err() {
            // The states on the path were expanded but not valued: they start afresh.
            for frame in &stack {
                self.marks[frame.id] = Mark::New;
            }
        }
        result?;
        let at = root * self.roles;
        Ok(&self.values[at..at + self.roles])
    }

    /// The rewards of `state` when it is valued.
    pub fn get(&self, state: &M::State) -> Option<&[u8]> {
        let &id = self.index.get(state)?;
        match self.marks[id] {
            Mark::Done => Some(&self.values[id * self.roles..(id + 1) * self.roles]),
            _ => None,
        }
    }

    /// Role 0's value in mixed strategies in the valued state `state`, under
    /// [`InductionRule::Mixed`].
    pub fn mixed(&self, state: &M::State) -> Option<f64> {
        let &id = self.index.get(state)?;
        match self.marks[id] {
            Mark::Done => self.mixed.get(id).copied(),
            _ => None,
        }
    }

    /// The number of states valued so far.
    pub fn valued(&self) -> usize {
        self.marks
            .iter()
            .filter(|m| matches!(m, Mark::Done))
            .count()
    }

    /// Every valued state with its rewards.
    pub fn into_values(self) -> StateValues<M::State> {
        let roles = self.roles;
        let mut index = HashMap::new();
        let mut values = Vec::new();
        for (id, state) in self.states.into_iter().enumerate() {
            if matches!(self.marks[id], Mark::Done) {
                index.insert(state, values.len() / roles.max(1));
                values.extend_from_slice(&self.values[id * roles..(id + 1) * roles]);
            }
        }
        StateValues {
            roles,
            index,
            values,
        }
    }

    /// The depth-first search from `root`, with its path on `stack`.
    fn descend(
        &mut self,
        root: usize,
        stack: &mut Vec<Frame>,
        guard: &Guard<'_>,
    ) -> Result<(), InductionError> {
        if !matches!(self.marks[root], Mark::New) {
            return Ok(());
        }
        if let Some(frame) = self.expand(root)? {
            self.marks[root] = Mark::OnPath(0);
            stack.push(frame);
        }
        let mut expanded = 0u64;
        while let Some(top) = stack.last_mut() {
            if let Some(&child) = top.children.get(top.next) {
                top.next += 1;
                match self.marks[child] {
                    Mark::Done => {}
                    Mark::OnPath(position) => {
                        return Err(Unsupported::Cycle {
                            length: stack.len() - position,
                        }
                        .into());
                    }
                    Mark::New => {
                        expanded += 1;
                        if expanded.is_multiple_of(4096) {
                            guard.check().map_err(InductionError::Stopped)?;
                            guard
                                .check_states(self.states.len() as u64)
                                .map_err(InductionError::Stopped)?;
                        }
                        if let Some(frame) = self.expand(child)? {
                            self.marks[child] = Mark::OnPath(stack.len());
                            stack.push(frame);
                        }
                    }
                }
            } else if let Some(frame) = stack.pop() {
                if let Err(e) = self.combine(&frame) {
                    stack.push(frame);
                    return Err(e);
                }
                self.marks[frame.id] = Mark::Done;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
