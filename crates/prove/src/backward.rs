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
use std::hash::Hash;

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
    Induction::new(model, Rule::Security).run(root)
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
    Induction::new(model, Rule::MaxN).run(root)
}

/// How a non-terminal state's rewards follow from its successors'.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Rule {
    /// Each role's pure security level.
    Security,
    /// The choice of the role in control by [`preference`] (turn-taking games only).
    MaxN,
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

struct Induction<'m, M: GameModel> {
    model: &'m M,
    rule: Rule,
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
}

impl<'m, M: GameModel> Induction<'m, M> {
    fn new(model: &'m M, rule: Rule) -> Self {
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
        if self.rule == Rule::MaxN {
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
    fn combine(&mut self, frame: &Frame) {
        let roles = self.roles;
        let at = frame.id * roles;
        match self.rule {
            Rule::Security => {
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
            Rule::MaxN => {
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
    }

    /// Values every state reachable from `root`.
    fn run(mut self, root: &M::State) -> Result<StateValues<M::State>, Unsupported> {
        let root = self.intern(root.clone());
        let mut stack: Vec<Frame> = Vec::new();
        if let Some(frame) = self.expand(root)? {
            self.marks[root] = Mark::OnPath(0);
            stack.push(frame);
        }
        while let Some(top) = stack.last_mut() {
            if let Some(&child) = top.children.get(top.next) {
                top.next += 1;
                match self.marks[child] {
                    Mark::Done => {}
                    Mark::OnPath(position) => {
                        return Err(Unsupported::Cycle {
                            length: stack.len() - position,
                        });
                    }
                    Mark::New => {
                        if let Some(frame) = self.expand(child)? {
                            self.marks[child] = Mark::OnPath(stack.len());
                            stack.push(frame);
                        }
                    }
                }
            } else if let Some(frame) = stack.pop() {
                self.combine(&frame);
                self.marks[frame.id] = Mark::Done;
            }
        }
        Ok(StateValues {
            roles: self.roles,
            index: self.index,
            values: self.values,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::{maxn_values, security_levels, StateValues};
    use crate::games::{GridWalk, Nim, TicTacToe};
    use crate::{alphabeta, solve_value, Algo, Config, Evaluation, GameModel, Unsupported};

    /// A game given as a table: each state (an index) is a leaf with its rewards or an inner
    /// state with a number of moves per role and the successor of each joint move, listed with
    /// the last role's move changing fastest.
    struct Table {
        roles: usize,
        nodes: Vec<Node>,
    }

    enum Node {
        Leaf(Vec<u8>),
        Inner {
            counts: Vec<usize>,
            children: Vec<usize>,
        },
    }

    impl GameModel for Table {
        type State = usize;
        type Move = usize;

        fn num_roles(&self) -> usize {
            self.roles
        }

        fn initial_state(&self) -> usize {
            0
        }

        fn is_terminal(&self, state: &usize) -> bool {
            matches!(self.nodes[*state], Node::Leaf(_))
        }

        fn goal(&self, state: &usize, role: usize) -> u8 {
            match &self.nodes[*state] {
                Node::Leaf(rewards) => rewards[role],
                Node::Inner { .. } => 0,
            }
        }

        fn legal_moves(&self, state: &usize, role: usize, out: &mut Vec<usize>) {
            if let Node::Inner { counts, .. } = &self.nodes[*state] {
                out.extend(0..counts[role]);
            }
        }

        fn next_state(&self, state: &usize, joint: &[usize]) -> usize {
            match &self.nodes[*state] {
                Node::Inner { counts, children } => {
                    let at = joint
                        .iter()
                        .zip(counts)
                        .fold(0, |at, (&mv, &count)| at * count + mv);
                    children[at]
                }
                Node::Leaf(_) => *state,
            }
        }
    }

    fn leaf(rewards: &[u8]) -> Node {
        Node::Leaf(rewards.to_vec())
    }

    fn inner(counts: &[usize], children: &[usize]) -> Node {
        Node::Inner {
            counts: counts.to_vec(),
            children: children.to_vec(),
        }
    }

    /// A one-shot simultaneous game: both roles pick one of `n` moves; `payoff(a, b)`.
    fn matrix(n: usize, payoff: impl Fn(usize, usize) -> [u8; 2]) -> Table {
        let mut nodes = vec![inner(&[n, n], &(1..=n * n).collect::<Vec<_>>())];
        for a in 0..n {
            for b in 0..n {
                nodes.push(leaf(&payoff(a, b)));
            }
        }
        Table { roles: 2, nodes }
    }

    fn root_of<S: Eq + std::hash::Hash>(values: &StateValues<S>, root: &S) -> Vec<u8> {
        values.get(root).expect("the root is valued").to_vec()
    }

    #[test]
    fn nim_security_levels_follow_the_nim_sum_in_every_state() {
        for heaps in [[1, 2, 3], [3, 4, 5], [2, 2, 5]] {
            let nim = Nim::new(&heaps);
            let root = nim.initial_state();
            let levels = security_levels(&nim, &root).unwrap();
            let first_wins = heaps.iter().fold(0, |x, h| x ^ h) != 0;
            let want = if first_wins { [100, 0] } else { [0, 100] };
            assert_eq!(root_of(&levels, &root), want, "{heaps:?}");
            for (state, rewards) in levels.iter() {
                let mover = usize::from(state.mover);
                let nonzero = state.heaps.iter().fold(0, |x, h| x ^ h) != 0;
                let terminal = nim.is_terminal(state);
                assert_eq!(
                    rewards[mover] == 100,
                    nonzero && !terminal,
                    "{heaps:?} {state:?}"
                );
                assert_eq!(u32::from(rewards[0]) + u32::from(rewards[1]), 100);
            }
            let outcomes = maxn_values(&nim, &root).unwrap();
            assert_eq!(root_of(&outcomes, &root), want, "{heaps:?}");
            assert_eq!(outcomes.len(), levels.len());
        }
        // Heaps 1, 2, 3: 40 reachable states (gdl/nim_1_2_3.expect).
        let nim = Nim::new(&[1, 2, 3]);
        assert_eq!(
            security_levels(&nim, &nim.initial_state()).unwrap().len(),
            40
        );
    }

    #[test]
    fn tictactoe_is_a_draw_in_5478_states() {
        let root = TicTacToe.initial_state();
        let levels = security_levels(&TicTacToe, &root).unwrap();
        assert_eq!(levels.len(), 5478);
        assert_eq!(levels.num_roles(), 2);
        assert_eq!(root_of(&levels, &root), [50, 50]);
        let outcomes = maxn_values(&TicTacToe, &root).unwrap();
        assert_eq!(root_of(&outcomes, &root), [50, 50]);
    }

    /// Two roles: the security level is the value alpha-beta forces, and max^n follows the
    /// two-role preference (own minus other), as alpha-beta's difference does.
    #[test]
    fn two_roles_agree_with_alpha_beta() {
        for size in [3, 4, 6, 7] {
            let game = GridWalk { size };
            let root = game.initial_state();
            let levels = security_levels(&game, &root).unwrap();
            let config = Config::default();
            for role in 0..2 {
                let forced = solve_value(&game, &root, role, Algo::AlphaBeta, &config).unwrap();
                assert_eq!(
                    forced.outcome,
                    crate::ValueOutcome::Exact(levels.get(&root).unwrap()[role]),
                    "size {size} role {role}"
                );
            }
            let outcome = root_of(&maxn_values(&game, &root).unwrap(), &root);
            let Evaluation::Values(goals) = alphabeta(&game, &root, &config).unwrap().evaluation
            else {
                panic!("alpha-beta stopped");
            };
            let difference = |g: &[u8]| i32::from(g[0]) - i32::from(g[1]);
            assert_eq!(difference(&outcome), difference(&goals), "size {size}");
        }
    }

    #[test]
    fn pure_security_in_matching_pennies_and_rock_paper_scissors_is_zero() {
        let pennies = matrix(2, |a, b| if a == b { [100, 0] } else { [0, 100] });
        assert_eq!(root_of(&security_levels(&pennies, &0).unwrap(), &0), [0, 0]);
        // Rock 0, paper 1, scissors 2: b beats a when b == a + 1 (mod 3).
        let rps = matrix(3, |a, b| match (3 + b - a) % 3 {
            0 => [50, 50],
            1 => [0, 100],
            _ => [100, 0],
        });
        let levels = security_levels(&rps, &0).unwrap();
        assert_eq!(root_of(&levels, &0), [0, 0]);
        assert_eq!(levels.len(), 10);
        for game in [&pennies, &rps] {
            let err = maxn_values(game, &0).unwrap_err();
            assert!(matches!(err, Unsupported::Simultaneous { .. }), "{err}");
            assert!(err.to_string().contains("roles 0 and 1"), "{err}");
        }
    }

    #[test]
    fn a_dominant_move_secures_its_worst_case() {
        // Prisoner's dilemma (0 cooperates, 1 defects): defecting guarantees 20.
        let dilemma = matrix(2, |a, b| match (a, b) {
            (0, 0) => [60, 60],
            (0, 1) => [0, 100],
            (1, 0) => [100, 0],
            _ => [20, 20],
        });
        assert_eq!(
            root_of(&security_levels(&dilemma, &0).unwrap(), &0),
            [20, 20]
        );
        // Asymmetric: role 0 has a safe move worth 30; role 1's moves are worth at least 40
        // and 10 whatever role 0 plays.
        let safe = matrix(2, |a, b| match (a, b) {
            (0, 0) => [30, 40],
            (0, 1) => [30, 10],
            (1, 0) => [100, 70],
            _ => [0, 90],
        });
        assert_eq!(root_of(&security_levels(&safe, &0).unwrap(), &0), [30, 40]);
    }

    /// Three roles moving at once, with different move counts: role r gets 30 for each step of
    /// its own move and 40 when the next role copies it (which that role may refuse).
    #[test]
    fn three_simultaneous_roles_combine_every_joint_move() {
        let counts = [3, 2, 2];
        let mut nodes = vec![inner(&counts, &(1..=12).collect::<Vec<_>>())];
        for a in 0..3 {
            for b in 0..2 {
                for c in 0..2 {
                    let m = [a, b, c];
                    let reward =
                        |r: usize| (30 * m[r] + if m[(r + 1) % 3] == m[r] { 40 } else { 0 }) as u8;
                    nodes.push(leaf(&[reward(0), reward(1), reward(2)]));
                }
            }
        }
        let game = Table { roles: 3, nodes };
        // Role 0: move 2 gives 60 (role 1 cannot copy it); roles 1 and 2: move 1 gives 30.
        assert_eq!(
            root_of(&security_levels(&game, &0).unwrap(), &0),
            [60, 30, 30]
        );
        let err = maxn_values(&game, &0).unwrap_err();
        assert!(err.to_string().contains("roles 0, 1 and 2"), "{err}");
        assert!(err.to_string().contains("(3, 2 and 2)"), "{err}");
    }

    /// Role 0 chooses between a sure 40 and handing the choice to role 1, whose max^n choice
    /// gives role 0 70 but who could give it 0: max^n 70/30/0, security levels 40/30/0.
    #[test]
    fn maxn_and_security_differ_with_three_roles() {
        let game = Table {
            roles: 3,
            nodes: vec![
                inner(&[2, 1, 1], &[1, 2]),
                leaf(&[40, 30, 30]),
                inner(&[1, 2, 1], &[3, 4]),
                leaf(&[70, 30, 0]),
                leaf(&[0, 20, 80]),
            ],
        };
        let outcomes = maxn_values(&game, &0).unwrap();
        assert_eq!(root_of(&outcomes, &0), [70, 30, 0]);
        assert_eq!(root_of(&outcomes, &2), [70, 30, 0]);
        let levels = security_levels(&game, &0).unwrap();
        assert_eq!(root_of(&levels, &0), [40, 30, 0]);
        assert_eq!(root_of(&levels, &2), [0, 30, 0]);
        assert_eq!(levels.len(), 5);
    }

    /// Max^n ties: role 1 gets 50 either way and picks the outcome worse for the others
    /// together (the second move); a forced state passes its single successor's outcome up.
    #[test]
    fn maxn_breaks_ties_against_the_others_and_passes_forced_moves() {
        let game = Table {
            roles: 3,
            nodes: vec![
                inner(&[1, 1, 1], &[1]),
                inner(&[1, 2, 1], &[2, 3]),
                leaf(&[100, 50, 0]),
                leaf(&[0, 50, 50]),
            ],
        };
        let outcomes = maxn_values(&game, &0).unwrap();
        assert_eq!(root_of(&outcomes, &0), [0, 50, 50]);
        assert_eq!(
            root_of(&security_levels(&game, &0).unwrap(), &0),
            [0, 50, 0]
        );
    }

    #[test]
    fn cycles_are_errors_but_transpositions_are_not() {
        // 0 -> 1 -> 2 -> 0, with an exit to a leaf at 1.
        let cyclic = Table {
            roles: 2,
            nodes: vec![
                inner(&[1, 1], &[1]),
                inner(&[2, 1], &[2, 3]),
                inner(&[1, 1], &[0]),
                leaf(&[100, 0]),
            ],
        };
        for result in [security_levels(&cyclic, &0), maxn_values(&cyclic, &0)] {
            let err = result.unwrap_err();
            assert_eq!(err, Unsupported::Cycle { length: 3 });
            assert!(err.to_string().contains("after 3 moves"), "{err}");
        }
        let self_loop = Table {
            roles: 1,
            nodes: vec![inner(&[2], &[0, 1]), leaf(&[10])],
        };
        assert_eq!(
            security_levels(&self_loop, &0).unwrap_err(),
            Unsupported::Cycle { length: 1 }
        );
        // A diamond: state 3 is reached twice, never on the same path.
        let diamond = Table {
            roles: 1,
            nodes: vec![
                inner(&[2], &[1, 2]),
                inner(&[1], &[3]),
                inner(&[2], &[3, 4]),
                inner(&[1], &[4]),
                leaf(&[60]),
            ],
        };
        assert_eq!(root_of(&security_levels(&diamond, &0).unwrap(), &0), [60]);
        assert_eq!(root_of(&maxn_values(&diamond, &0).unwrap(), &0), [60]);
    }

    #[test]
    fn a_role_without_moves_is_an_error() {
        let game = Table {
            roles: 2,
            nodes: vec![inner(&[2, 0], &[]), leaf(&[0, 0])],
        };
        for result in [security_levels(&game, &0), maxn_values(&game, &0)] {
            assert_eq!(result.unwrap_err(), Unsupported::NoLegalMoves { role: 1 });
        }
    }

    /// A chain far deeper than the call stack could take by recursion.
    #[test]
    fn a_game_200000_plies_deep_needs_no_recursion() {
        struct Countdown;
        impl GameModel for Countdown {
            type State = u32;
            type Move = ();
            fn num_roles(&self) -> usize {
                2
            }
            fn initial_state(&self) -> u32 {
                200_000
            }
            fn is_terminal(&self, state: &u32) -> bool {
                *state == 0
            }
            fn goal(&self, _state: &u32, role: usize) -> u8 {
                [25, 75][role]
            }
            fn legal_moves(&self, _state: &u32, _role: usize, out: &mut Vec<()>) {
                out.push(());
            }
            fn next_state(&self, state: &u32, _joint: &[()]) -> u32 {
                state - 1
            }
        }
        let levels = security_levels(&Countdown, &200_000).unwrap();
        assert_eq!(levels.len(), 200_001);
        assert_eq!(root_of(&levels, &200_000), [25, 75]);
        let outcomes = maxn_values(&Countdown, &200_000).unwrap();
        assert_eq!(root_of(&outcomes, &200_000), [25, 75]);
        assert_eq!(outcomes.get(&200_001), None);
    }
}
