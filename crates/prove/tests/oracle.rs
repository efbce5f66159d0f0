//! Brute-force minimax over a `GameModel`, sharing no code with the crate's searches, and
//! test-only games.

use std::collections::{HashMap, HashSet, VecDeque};
use std::hash::Hash;
use symgame_prove::GameModel;

/// The role with more than one legal move (None when every role has one), and the successors.
pub fn successors<M: GameModel>(model: &M, state: &M::State) -> (Option<usize>, Vec<M::State>) {
    let moves: Vec<Vec<M::Move>> = (0..model.num_roles())
        .map(|role| {
            let mut out = Vec::new();
            model.legal_moves(state, role, &mut out);
            out
        })
        .collect();
    let choosers: Vec<usize> = (0..moves.len()).filter(|&r| moves[r].len() > 1).collect();
    assert!(choosers.len() <= 1, "oracle: simultaneous moves");
    let mover = choosers.first().copied();
    let chooser = mover.unwrap_or(0);
    let next = moves[chooser]
        .iter()
        .map(|mv| {
            let joint: Vec<M::Move> = (0..moves.len())
                .map(|r| {
                    if r == chooser {
                        mv.clone()
                    } else {
                        moves[r][0].clone()
                    }
                })
                .collect();
            model.next_state(state, &joint)
        })
        .collect();
    (mover, next)
}

/// Every state reachable from the initial state (terminal ones included).
pub fn reachable<M: GameModel>(model: &M) -> Vec<M::State> {
    let root = model.initial_state();
    let mut seen: HashSet<M::State> = HashSet::from([root.clone()]);
    let mut queue = VecDeque::from([root.clone()]);
    let mut order = vec![root];
    while let Some(state) = queue.pop_front() {
        if model.is_terminal(&state) {
            continue;
        }
        for next in successors(model, &state).1 {
            if seen.insert(next.clone()) {
                order.push(next.clone());
                queue.push_back(next);
            }
        }
    }
    order
}

/// Memoised minimax over an acyclic game: `leaf` at terminal states, max where `maximiser`
/// (or nobody) chooses, min where another role chooses.
pub struct Minimax<M: GameModel, F> {
    model: M,
    maximiser: usize,
    leaf: F,
    memo: HashMap<M::State, i32>,
}

impl<M: GameModel, F: Fn(&M, &M::State) -> i32> Minimax<M, F>
where
    M::State: Hash + Eq,
{
    pub fn new(model: M, maximiser: usize, leaf: F) -> Self {
        Minimax {
            model,
            maximiser,
            leaf,
            memo: HashMap::new(),
        }
    }

    pub fn value(&mut self, state: &M::State) -> i32 {
        if self.model.is_terminal(state) {
            return (self.leaf)(&self.model, state);
        }
        if let Some(&v) = self.memo.get(state) {
            return v;
        }
        let (mover, next) = successors(&self.model, state);
        let values = next.iter().map(|s| self.value(s)).collect::<Vec<_>>();
        let v = match mover {
            Some(role) if role != self.maximiser => *values.iter().min().unwrap(),
            _ => *values.iter().max().unwrap(),
        };
        self.memo.insert(state.clone(), v);
        v
    }
}

/// The largest goal `role` can force from each state (the opponent minimising it).
pub fn forced_goal<M: GameModel + Clone>(
    model: &M,
    role: usize,
) -> Minimax<M, impl Fn(&M, &M::State) -> i32> {
    Minimax::new(model.clone(), role, move |m: &M, s: &M::State| {
        i32::from(m.goal(s, role))
    })
}

/// Goal of role 0 minus goal of role 1 under optimal play (role 0 maximises, role 1 minimises).
pub fn goal_difference<M: GameModel + Clone>(
    model: &M,
) -> Minimax<M, impl Fn(&M, &M::State) -> i32> {
    Minimax::new(model.clone(), 0, |m: &M, s: &M::State| {
        i32::from(m.goal(s, 0)) - i32::from(m.goal(s, 1))
    })
}

/// A game on a directed graph: a token moves along edges; `mover[v]` chooses at vertex `v`;
/// vertices without edges are terminal with goals `goals[v]`. The graph may have cycles.
#[derive(Clone, Debug)]
pub struct GraphGame {
    pub edges: Vec<Vec<u8>>,
    pub mover: Vec<usize>,
    pub goals: Vec<[u8; 2]>,
    pub roles: usize,
}

impl GameModel for GraphGame {
    type State = u8;
    type Move = u8;

    fn num_roles(&self) -> usize {
        self.roles
    }

    fn initial_state(&self) -> u8 {
        0
    }

    fn is_terminal(&self, v: &u8) -> bool {
        self.edges[usize::from(*v)].is_empty()
    }

    fn goal(&self, v: &u8, role: usize) -> u8 {
        self.goals[usize::from(*v)][role]
    }

    fn legal_moves(&self, v: &u8, role: usize, out: &mut Vec<u8>) {
        if role == self.mover[usize::from(*v)] {
            out.extend(&self.edges[usize::from(*v)]);
        } else {
            out.push(u8::MAX);
        }
    }

    fn next_state(&self, v: &u8, joint: &[u8]) -> u8 {
        joint[self.mover[usize::from(*v)]]
    }
}

/// Matching pennies after an optional forced prefix of `delay` steps: both roles choose at once.
#[derive(Clone, Debug)]
pub struct Pennies {
    pub delay: u8,
}

impl GameModel for Pennies {
    type State = (u8, u8);
    type Move = u8;

    fn num_roles(&self) -> usize {
        2
    }

    fn initial_state(&self) -> (u8, u8) {
        (0, 0)
    }

    fn is_terminal(&self, s: &(u8, u8)) -> bool {
        s.0 > self.delay
    }

    fn goal(&self, s: &(u8, u8), role: usize) -> u8 {
        if (s.1 == 0) == (role == 0) {
            100
        } else {
            0
        }
    }

    fn legal_moves(&self, s: &(u8, u8), _role: usize, out: &mut Vec<u8>) {
        if s.0 < self.delay {
            out.push(0);
        } else {
            out.extend([0, 1]);
        }
    }

    fn next_state(&self, s: &(u8, u8), joint: &[u8]) -> (u8, u8) {
        (s.0 + 1, joint[0] ^ joint[1])
    }
}

/// A three-role game (only its role count matters).
#[derive(Clone, Debug)]
pub struct ThreeRoles;

impl GameModel for ThreeRoles {
    type State = u8;
    type Move = u8;

    fn num_roles(&self) -> usize {
        3
    }

    fn initial_state(&self) -> u8 {
        0
    }

    fn is_terminal(&self, s: &u8) -> bool {
        *s > 0
    }

    fn goal(&self, _s: &u8, _role: usize) -> u8 {
        50
    }

    fn legal_moves(&self, _s: &u8, _role: usize, out: &mut Vec<u8>) {
        out.push(0);
    }

    fn next_state(&self, s: &u8, _joint: &[u8]) -> u8 {
        s + 1
    }
}
