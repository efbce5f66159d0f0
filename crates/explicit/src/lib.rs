//! The explicit reasoner: a compiled evaluator of a ground game, one state at a time.
//!
//! [`Reasoner`] compiles the [`GroundGame`]'s circuit into flat programs over a byte per signal
//! (`program`): the cones of `legal`, `goal` and `terminal`, which read fluents only, together
//! with the gates of `next` that read no move, evaluated once per state by change propagation
//! from the state evaluated before (`delta`); and the move-dependent gates of `next`,
//! evaluated once per state with every move false and then incrementally per joint move
//! (`incremental`: a specialization of the cone to each single move, and change propagation
//! for the other joint moves). A [`State`] is the set of true fluents as a bit set.
//! [`explore`] enumerates the reachable states breadth first.
//!
//! This crate is the engine of the explicit cross-checks (proof-number search, alpha-beta,
//! replaying plans), so it must stay independent of the symbolic side.
//!
//! Architecture invariant: depends only on `symgame-ground` (and the standard library); never
//! on BDD code.

mod csr;
mod delta;
mod dirty;
mod explore;
mod incremental;
mod program;
mod reasoner;
#[cfg(test)]
mod tests;

pub use explore::{explore, Exploration, Layer, Reachable};
pub use reasoner::{MoveId, Reasoner};
use std::fmt;
use symgame_ground::GroundGame;
pub use symgame_limits::{Limits, StopReason};

/// A game state: the set of true fluents, as a bit set over fluent indexes.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct State(Box<[u64]>);

impl State {
    /// The empty state over `num_fluents` fluents.
    pub fn empty(num_fluents: usize) -> State {
        State(vec![0; num_fluents.div_ceil(64)].into_boxed_slice())
    }

    /// Whether fluent `f` is true.
    pub fn contains(&self, f: usize) -> bool {
        self.0[f / 64] >> (f % 64) & 1 == 1
    }

    /// Makes fluent `f` true.
    pub fn insert(&mut self, f: usize) {
        self.0[f / 64] |= 1 << (f % 64);
    }

    /// Makes fluent `f` false.
    pub fn remove(&mut self, f: usize) {
        self.0[f / 64] &= !(1 << (f % 64));
    }

    /// The true fluents, ascending.
    pub fn fluents(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().enumerate().flat_map(|(w, &bits)| {
            let mut b = bits;
            std::iter::from_fn(move || {
                if b == 0 {
                    return None;
                }
                let t = b.trailing_zeros() as usize;
                b &= b - 1;
                Some(w * 64 + t)
            })
        })
    }

    /// The raw words (bit `f % 64` of word `f / 64` is fluent `f`).
    pub fn words(&self) -> &[u64] {
        &self.0
    }
}

impl fmt::Debug for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.fluents()).finish()
    }
}

/// The explicit reasoner as a [`symgame_prove::GameModel`], so that proof-number search and
/// alpha-beta run on ground GDL games. A missing goal value reads as 0.
impl symgame_prove::GameModel for Reasoner {
    type State = State;
    type Move = MoveId;

    fn num_roles(&self) -> usize {
        Reasoner::num_roles(self)
    }

    fn initial_state(&self) -> State {
        Reasoner::initial_state(self)
    }

    fn is_terminal(&self, s: &State) -> bool {
        Reasoner::is_terminal(self, s)
    }

    fn goal(&self, s: &State, role: usize) -> u8 {
        Reasoner::goal(self, s, role).unwrap_or(0)
    }

    fn legal_moves(&self, s: &State, role: usize, out: &mut Vec<MoveId>) {
        self.legal_moves_into(s, role, out)
    }

    fn next_state(&self, s: &State, joint: &[MoveId]) -> State {
        Reasoner::next_state(self, s, joint)
    }

    fn goal_values(&self, role: usize) -> Vec<u8> {
        let mut v: Vec<u8> = self.c.goals[role].iter().map(|g| g.0).collect();
        if !v.contains(&0) {
            v.push(0);
        }
        v.sort_unstable();
        v.dedup();
        v
    }
}

/// Plays `moves` from `start`: each move is played by the role for which it is legal, the other
/// roles playing their only legal move. Returns the state reached, or a message naming the
/// first move that cannot be played.
pub fn play_moves(
    r: &Reasoner,
    game: &GroundGame,
    start: &State,
    moves: &[symgame_ground::GroundTerm],
) -> Result<State, String> {
    let mut s = start.clone();
    for (i, m) in moves.iter().enumerate() {
        if r.is_terminal(&s) {
            return Err(format!(
                "move {} ({m}) comes after the game has ended",
                i + 1
            ));
        }
        let mut joint = Vec::with_capacity(r.num_roles());
        let mut played = false;
        for role in 0..r.num_roles() {
            let legal = r.legal_moves(&s, role);
            match game.find_move(role, m).filter(|id| legal.contains(id)) {
                Some(id) if !played => {
                    joint.push(id);
                    played = true;
                }
                _ if legal.len() == 1 => joint.push(legal[0]),
                _ => {
                    return Err(format!(
                        "move {} ({m}): role {} has {} legal moves and must choose",
                        i + 1,
                        game.roles[role].name,
                        legal.len()
                    ))
                }
            }
        }
        if !played {
            return Err(format!("move {} ({m}) is not legal for any role", i + 1));
        }
        s = r.next_state(&s, &joint);
    }
    Ok(s)
}

/// Calls `f` with every joint move of `legal` (one move per role), the last role fastest,
/// until it returns false (then returns false); none if a role has no legal move.
pub fn for_each_joint_move(legal: &[Vec<MoveId>], mut f: impl FnMut(&[MoveId]) -> bool) -> bool {
    if legal.iter().any(|l| l.is_empty()) {
        return true;
    }
    let mut idx = vec![0usize; legal.len()];
    let mut joint: Vec<MoveId> = legal.iter().map(|l| l[0]).collect();
    loop {
        if !f(&joint) {
            return false;
        }
        let mut pos = legal.len();
        loop {
            if pos == 0 {
                return true;
            }
            pos -= 1;
            idx[pos] += 1;
            if idx[pos] < legal[pos].len() {
                joint[pos] = legal[pos][idx[pos]];
                break;
            }
            idx[pos] = 0;
            joint[pos] = legal[pos][0];
        }
    }
}
