//! Moves to the end under perfect play, from a table of values.
//!
//! A game database holds each state's rewards under optimal play but, for games of several
//! roles, not how long the game lasts. Here the length is computed over the moves that keep
//! the value (the optimal ones): in a terminal state it is 0; elsewhere the role to move picks
//! the shortest optimal line when its reward is the best of all roles' (it wins, or the game
//! is a draw: end it) and the longest when it is not (it loses: hold out). A single-player
//! database stores this distance already; it is used as stored.
//!
//! A draw (every role the same reward) has no length here: it is never needed (a won
//! position's value-keeping moves never lead to a draw) and would cost a search of every drawn
//! line. The search is a memoised depth-first search over the optimal successors, bounded per call
//! by a number of new states and a deadline: past them (or on a cycle of optimal moves, or in
//! a state where several roles choose at once) the length is unknown, and nothing partial is
//! kept.

use std::collections::{HashMap, HashSet};
use std::time::Instant;

use symgame_explicit::State;
use symgame_gamedb::{GameDatabase, Value};

/// New states one call may expand.
pub const CALL_BUDGET: u64 = 2_000_000;

/// States the memo holds before it is emptied.
const MEMO_CAP: usize = 8_000_000;

/// The memo of lengths found so far.
#[derive(Default)]
pub struct Depths {
    memo: HashMap<State, u32>,
    open: HashSet<State>,
}

/// The bounds of one call.
struct Budget {
    states: u64,
    deadline: Instant,
}

impl Depths {
    /// Moves to the end from `state` (of value `value`) under perfect play, or `None` when
    /// unknown within [`CALL_BUDGET`] new states and `deadline`.
    pub fn depth(
        &mut self,
        db: &GameDatabase,
        state: &State,
        value: &Value,
        deadline: Instant,
    ) -> Option<u32> {
        if self.memo.len() > MEMO_CAP {
            self.memo.clear();
        }
        let mut budget = Budget {
            states: CALL_BUDGET,
            deadline,
        };
        let d = self.visit(db, state, value, &mut budget);
        self.open.clear();
        d
    }

    fn visit(
        &mut self,
        db: &GameDatabase,
        state: &State,
        value: &Value,
        budget: &mut Budget,
    ) -> Option<u32> {
        if let Some(d) = value.distance {
            return Some(d);
        }
        if let Some(&d) = self.memo.get(state) {
            return Some(d);
        }
        // A draw's length says nothing (and its moves lead to draws only): not computed.
        if value.rewards.len() > 1 && value.rewards.iter().all(|&r| r == value.rewards[0]) {
            return None;
        }
        if budget.states == 0 {
            return None;
        }
        budget.states -= 1;
        if budget.states.is_multiple_of(1024) && Instant::now() >= budget.deadline {
            budget.states = 0;
            return None;
        }
        let r = db.reasoner();
        if r.is_terminal(state) {
            self.memo.insert(state.clone(), 0);
            return Some(0);
        }
        let choosers: Vec<usize> = (0..r.num_roles())
            .filter(|&p| r.legal_moves(state, p).len() > 1)
            .collect();
        if choosers.len() > 1 || value.mixed.is_some() || !self.open.insert(state.clone()) {
            return None;
        }
        let short = choosers.first().is_none_or(|&p| prefers_short(value, p));
        let mut best: Option<u32> = None;
        let mut known = true;
        for joint in r.joint_moves(state) {
            let next = r.next_state(state, &joint);
            let Some(w) = db.lookup(&next) else { continue };
            if w.rewards != value.rewards {
                continue;
            }
            match self.visit(db, &next, &w, budget) {
                Some(d) => best = Some(pick(best, d + 1, short)),
                None => {
                    known = false;
                    break;
                }
            }
        }
        self.open.remove(state);
        let d = best.filter(|_| known)?;
        self.memo.insert(state.clone(), d);
        Some(d)
    }
}

/// Whether the role `mover` wants the game of value `value` over soon: its reward is the best
/// of all roles' (a win or a draw).
pub fn prefers_short(value: &Value, mover: usize) -> bool {
    let mine = value.rewards.get(mover).copied().unwrap_or(0);
    value.rewards.iter().all(|&r| r <= mine)
}

fn pick(best: Option<u32>, d: u32, short: bool) -> u32 {
    match best {
        None => d,
        Some(b) if short => b.min(d),
        Some(b) => b.max(d),
    }
}
