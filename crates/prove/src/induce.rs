//! [`Algo::Backward`](crate::Algo::Backward): boolean questions and game values answered by
//! backward induction over every state reachable from the root ([`Induction`]). Unlike the
//! searches it takes any number of roles and simultaneous moves, and it always expands the
//! whole graph below the root: exact, and as costly as the reachable set.

use std::time::Instant;

use crate::backward::{Induction, InductionError, InductionRule};
use crate::model::{GameModel, Unsupported};
use crate::question::Question;
use crate::search::{Config, Outcome, SearchResult, Stats};
use symgame_limits::{Guard, Limits, StopReason};

/// The limits of `config` with its node limit read as a limit on the states held.
fn state_limits(config: &Config) -> Limits {
    Limits {
        max_states: config.limits.max_nodes.or(config.limits.max_states),
        ..config.limits.clone()
    }
}

/// `model` with the attacker's goal replaced by 1 where the question holds and 0 elsewhere:
/// the attacker's security level is 1 exactly when it can force the property.
struct Indicator<'a, M, Q> {
    model: &'a M,
    question: &'a Q,
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

/// Whether the attacker of `question` can force it from `root`, in pure strategies (in a
/// simultaneous step it chooses without seeing the others' moves).
pub(crate) fn prove_backward<M: GameModel, Q: Question<M>>(
    model: &M,
    root: &M::State,
    question: &Q,
    config: &Config,
) -> Result<SearchResult, Unsupported> {
    let started = Instant::now();
    let attacker = question.attacker();
    let indicator = Indicator { model, question };
    let limits = state_limits(config);
    let mut induction = Induction::new(&indicator, InductionRule::Security);
    let outcome = match induction.value(root, &Guard::new(&limits)) {
        Ok(v) if v[attacker] == 1 => Outcome::Proved,
        Ok(_) => Outcome::Disproved,
        Err(InductionError::Stopped(why)) => Outcome::Stopped(why),
        Err(InductionError::Unsupported(u)) => return Err(u),
        Err(InductionError::Matrix(e)) => unreachable!("only the mixed rule solves LPs: {e}"),
    };
    Ok(SearchResult {
        outcome,
        stats: stats(induction.valued(), started),
    })
}

/// The security level of `role` from `root` (what the role can force), or why the induction
/// stopped, with its cost.
pub(crate) fn value_backward<M: GameModel>(
    model: &M,
    root: &M::State,
    role: usize,
    config: &Config,
) -> Result<(Result<u8, StopReason>, Stats), Unsupported> {
    let started = Instant::now();
    let limits = state_limits(config);
    let mut induction = Induction::new(model, InductionRule::Security);
    let value = match induction.value(root, &Guard::new(&limits)) {
        Ok(v) => Ok(v[role]),
        Err(InductionError::Stopped(reason)) => Err(reason),
        Err(InductionError::Unsupported(u)) => return Err(u),
        Err(InductionError::Matrix(e)) => unreachable!("only the mixed rule solves LPs: {e}"),
    };
    Ok((value, stats(induction.valued(), started)))
}

fn stats(valued: usize, started: Instant) -> Stats {
    Stats {
        nodes_expanded: valued as u64,
        nodes_in_memory: valued as u64,
        time: started.elapsed(),
        ..Stats::default()
    }
}
