//! Explicit enumeration over the explicit reasoner, independent of the BDD crates: the graph
//! of the reachable states and the minimax that cross-checks the symbolic solver.

use std::collections::HashMap;

use symgame_explicit::{MoveId, Reasoner, State};
use symgame_symbolic::preference;

/// The reachable states of a game, found by breadth-first search from the initial state
/// (terminal states are reached but not expanded), with their successors.
#[derive(Clone, Debug)]
pub struct ExplicitGraph {
    /// Every reachable state, in breadth-first order (the initial state first).
    pub states: Vec<State>,
    /// The position of each state in `states`.
    pub index: HashMap<State, usize>,
    /// For each state, the index of the successor of each joint move (one entry per joint
    /// move, so a successor reached by two joint moves appears twice); empty when terminal.
    pub succ: Vec<Vec<usize>>,
    /// For each state, its joint moves, in the order of `succ`.
    pub joints: Vec<Vec<Vec<MoveId>>>,
    /// Whether each state is terminal.
    pub terminal: Vec<bool>,
    /// The breadth-first depth of each state (the least number of moves that reach it).
    pub depth: Vec<u32>,
}

impl ExplicitGraph {
    /// Enumerates every reachable state of `r`'s game.
    pub fn new(r: &Reasoner) -> ExplicitGraph {
        let mut g = ExplicitGraph {
            states: vec![r.initial_state()],
            index: HashMap::from([(r.initial_state(), 0)]),
            succ: Vec::new(),
            joints: Vec::new(),
            terminal: Vec::new(),
            depth: vec![0],
        };
        let mut k = 0;
        while k < g.states.len() {
            let s = g.states[k].clone();
            let term = r.is_terminal(&s);
            let joints = if term { Vec::new() } else { r.joint_moves(&s) };
            let mut out = Vec::with_capacity(joints.len());
            for j in &joints {
                let t = r.next_state(&s, j);
                let n = g.states.len();
                let i = *g.index.entry(t.clone()).or_insert(n);
                if i == n {
                    g.states.push(t);
                    g.depth.push(g.depth[k] + 1);
                }
                out.push(i);
            }
            g.terminal.push(term);
            g.succ.push(out);
            g.joints.push(joints);
            k += 1;
        }
        g
    }

    /// The number of reachable states.
    pub fn len(&self) -> usize {
        self.states.len()
    }

    /// Whether there are no states (never: the initial state is reachable).
    pub fn is_empty(&self) -> bool {
        self.states.is_empty()
    }

    /// Every reachable state with its breadth-first depth.
    pub fn depths(&self) -> HashMap<State, u32> {
        self.states
            .iter()
            .cloned()
            .zip(self.depth.iter().copied())
            .collect()
    }
}

/// Explicit minimax with the solver's preference rule ([`symgame_symbolic::preference`]: the
/// role with a choice picks the best outcome for it among its successors); in single-player
/// games also the distance to the best reward. Memoised over every state it visits.
pub struct Minimax<'r> {
    r: &'r Reasoner,
    memo: HashMap<State, (Vec<u8>, u32)>,
}

impl<'r> Minimax<'r> {
    /// A minimax over `r`'s game, with nothing computed yet.
    pub fn new(r: &'r Reasoner) -> Minimax<'r> {
        Minimax {
            r,
            memo: HashMap::new(),
        }
    }

    /// The outcome (one reward per role) of `s` under optimal play, and the number of moves to
    /// it along optimal play (the fewest among the best successors).
    pub fn value(&mut self, s: &State) -> (Vec<u8>, u32) {
        if let Some(v) = self.memo.get(s) {
            return v.clone();
        }
        let n = self.r.num_roles();
        let v = if self.r.is_terminal(s) {
            ((0..n).map(|p| self.r.goal(s, p).unwrap_or(0)).collect(), 0)
        } else {
            let mover = (0..n)
                .find(|&p| self.r.legal_moves(s, p).len() > 1)
                .unwrap_or(0);
            let succ: Vec<(Vec<u8>, u32)> = self
                .r
                .joint_moves(s)
                .iter()
                .map(|j| {
                    let t = self.r.next_state(s, j);
                    self.value(&t)
                })
                .collect();
            let outcomes: Vec<Vec<u8>> = succ.iter().map(|x| x.0.clone()).collect();
            let best = outcomes[preference(&outcomes, mover)[0]].clone();
            let dist = succ.iter().filter(|x| x.0 == best).map(|x| x.1).min();
            (best, dist.expect("a non-terminal state has a move") + 1)
        };
        self.memo.insert(s.clone(), v.clone());
        v
    }

    /// Every state valued so far with its (outcome, distance): after `value` of the initial
    /// state, every reachable state.
    pub fn values(&self) -> &HashMap<State, (Vec<u8>, u32)> {
        &self.memo
    }
}
