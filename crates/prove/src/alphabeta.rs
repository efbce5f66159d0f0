//! Alpha-beta (minimax) to the end of the game with a transposition table.
//!
//! One role (the maximiser) maximises a terminal score and the other minimises it; forced
//! states pass their only child's value up. Fail-soft alpha-beta stores exact values and
//! lower/upper bounds in a bounded [`Table`] together with the best child, which is searched
//! first on the next visit. A state repeated on the current path scores as a terminal with goal
//! 0 for every role (play that never ends reaches no goal); its value depends on the path, so
//! results on cyclic games are approximate (graph history interaction).

use crate::model::{check_roles, GameModel, Unsupported};
use crate::search::{Budget, Config, Stats, StopReason};
use crate::table::{Table, TableSearch};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Bound {
    Exact,
    Lower,
    Upper,
}

#[derive(Clone, Copy)]
struct Entry {
    score: i32,
    goals: [u8; 2],
    bound: Bound,
    best: u32,
}

/// A score and the goals of a terminal state that has it.
type Scored = (i32, [u8; 2]);

/// A repeated state: goal 0 for every role, which scores 0 in every mode (difference of goals,
/// own goal, or question holds).
const REPETITION: Scored = (0, [0; 2]);

struct AlphaBeta<'a, M: GameModel, F> {
    core: TableSearch<'a, M, Entry>,
    maximiser: usize,
    leaf: F,
}

/// The goals of every role (at most two) in `state`.
fn goals<M: GameModel>(model: &M, state: &M::State) -> [u8; 2] {
    let mut goals = [0; 2];
    for (role, goal) in goals.iter_mut().enumerate().take(model.num_roles()) {
        *goal = model.goal(state, role);
    }
    goals
}

impl<'a, M: GameModel, F: Fn(&M, &M::State) -> i32> AlphaBeta<'a, M, F> {
    fn search(
        &mut self,
        state: &M::State,
        mut alpha: i32,
        mut beta: i32,
    ) -> Result<Scored, Unsupported> {
        if self.core.model.is_terminal(state) {
            return Ok((
                (self.leaf)(self.core.model, state),
                goals(self.core.model, state),
            ));
        }
        if self.core.path.contains(state) {
            return Ok(REPETITION);
        }
        let mut first = 0;
        if let Some((entry, _)) = self.core.table.get(state) {
            let stored = (entry.score, entry.goals);
            match entry.bound {
                Bound::Exact => return Ok(stored),
                Bound::Lower if entry.score >= beta => return Ok(stored),
                Bound::Upper if entry.score <= alpha => return Ok(stored),
                Bound::Lower => alpha = alpha.max(entry.score),
                Bound::Upper => beta = beta.min(entry.score),
            }
            first = entry.best as usize;
        }
        if let Err(reason) = self
            .core
            .budget
            .check(self.core.table.len() as u64, self.core.table.bytes())
        {
            self.core.stop = Some(reason);
            return Ok((alpha, [0; 2]));
        }
        let work_before = self.core.budget.expanded;
        self.core.budget.expanded += 1;
        let mut successors = Vec::new();
        let control = self.core.expander.successors(state, &mut successors)?;
        let maximising = !control.is_and(self.maximiser);
        if first >= successors.len() {
            first = 0;
        }
        let (window_alpha, window_beta) = (alpha, beta);
        let mut best: Scored = (if maximising { i32::MIN } else { i32::MAX }, [0; 2]);
        let mut best_index = first;
        self.core.path.insert(state.clone());
        for k in 0..successors.len() {
            // The table's best move first, then the others in move order.
            let i = match k {
                0 => first,
                k if k <= first => k - 1,
                k => k,
            };
            let scored = self.search(&successors[i], alpha, beta)?;
            if self.core.stop.is_some() {
                break;
            }
            if maximising {
                if scored.0 > best.0 {
                    (best, best_index) = (scored, i);
                }
                alpha = alpha.max(scored.0);
            } else {
                if scored.0 < best.0 {
                    (best, best_index) = (scored, i);
                }
                beta = beta.min(scored.0);
            }
            if alpha >= beta {
                break;
            }
        }
        self.core.path.remove(state);
        if self.core.stop.is_some() {
            return Ok(best);
        }
        let bound = if best.0 <= window_alpha {
            Bound::Upper
        } else if best.0 >= window_beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        let entry = Entry {
            score: best.0,
            goals: best.1,
            bound,
            best: best_index as u32,
        };
        let work = self.core.budget.expanded - work_before;
        self.core.table.store(state.clone(), work, entry);
        Ok(best)
    }
}

/// Alpha-beta from `root` where `maximiser` maximises `leaf` and the other role minimises it,
/// in the window `[low, high]` of possible scores (which makes the root value exact).
pub(crate) fn minimax<M: GameModel, F: Fn(&M, &M::State) -> i32>(
    model: &M,
    root: &M::State,
    maximiser: usize,
    leaf: F,
    (low, high): (i32, i32),
    config: &Config,
) -> Result<(Result<Scored, StopReason>, Stats), Unsupported> {
    check_roles(model, maximiser)?;
    let Some(capacity) = config.table_capacity(Table::<M::State, Entry>::slot_bytes()) else {
        let budget = Budget::new(&config.limits);
        return Ok((Err(StopReason::MemoryLimit), budget.stats(None)));
    };
    let limits = config.limits_beside_the_table();
    let mut search = AlphaBeta {
        core: TableSearch::new(model, capacity, &limits),
        maximiser,
        leaf,
    };
    let scored = search.search(root, low, high)?;
    let stats = search.core.stats(None);
    Ok(match search.core.stop {
        Some(reason) => (Err(reason), stats),
        None => (Ok(scored), stats),
    })
}

/// The result of [`alphabeta`]: goal values under optimal play, or why the search stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Evaluation {
    /// The goal of each role (indexed by role) at a terminal state reached by optimal play.
    Values(Vec<u8>),
    /// No value: a limit was hit.
    Stopped(StopReason),
}

/// The value of a state and the cost of computing it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AlphaBetaResult {
    /// The values, or why there are none.
    pub evaluation: Evaluation,
    /// The cost (`proof_size` is `None`).
    pub stats: Stats,
}

/// Exact game value by alpha-beta with a transposition table and table-move ordering.
///
/// With one role: the largest goal the player can reach. With two roles: each role maximises
/// its own goal minus the other's (for zero-sum games, its own goal); the result holds both
/// goals of a terminal state reached by optimal play (its difference is exact; among terminals
/// with equal difference, the first found is reported).
pub fn alphabeta<M: GameModel>(
    model: &M,
    root: &M::State,
    config: &Config,
) -> Result<AlphaBetaResult, Unsupported> {
    let roles = model.num_roles();
    let (result, stats) = if roles == 2 {
        let leaf = |m: &M, s: &M::State| i32::from(m.goal(s, 0)) - i32::from(m.goal(s, 1));
        minimax(model, root, 0, leaf, (-100, 100), config)?
    } else {
        let leaf = |m: &M, s: &M::State| i32::from(m.goal(s, 0));
        minimax(model, root, 0, leaf, (0, 100), config)?
    };
    let evaluation = match result {
        Ok((_, goals)) => Evaluation::Values(goals[..roles].to_vec()),
        Err(reason) => Evaluation::Stopped(reason),
    };
    Ok(AlphaBetaResult { evaluation, stats })
}
