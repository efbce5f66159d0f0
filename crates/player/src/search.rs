//! Without a table: each move's value by alpha-beta to the end of the game (`symgame-prove`),
//! within a share of the time left.
//!
//! Alpha-beta answers games of one or two roles taking turns. A search that runs out of time
//! leaves its move unknown; where it cannot search at all (several roles choosing at once, more
//! than two roles), only the moves that end the game have a value.

use std::time::{Duration, Instant};

use symgame_explicit::{Reasoner, State};
use symgame_prove::{alphabeta, Config, Evaluation, Limits};

use crate::position::{Analysis, Assessment, Choice};

/// The rewards of a terminal state.
fn goals(r: &Reasoner, s: &State) -> Vec<u8> {
    (0..r.num_roles())
        .map(|p| r.goal(s, p).unwrap_or(0))
        .collect()
}

/// The value of `state` by alpha-beta within `time`, or `None`.
fn evaluate(r: &Reasoner, state: &State, time: Duration) -> Option<Assessment> {
    if r.is_terminal(state) {
        return Some(Assessment {
            rewards: goals(r, state),
            depth: Some(0),
            mixed: None,
        });
    }
    if r.num_roles() > 2 || time.is_zero() {
        return None;
    }
    let config = Config {
        limits: Limits {
            time_limit: Some(time),
            max_memory_bytes: Some(256 << 20),
            ..Limits::default()
        },
        ..Config::default()
    };
    match alphabeta(r, state, &config).ok()?.evaluation {
        Evaluation::Values(rewards) => Some(Assessment {
            rewards,
            depth: None,
            mixed: None,
        }),
        Evaluation::Stopped(_) => None,
    }
}

/// The analysis of `state` by search until `deadline`; `mover` is the only role with a choice,
/// if there is one.
pub(crate) fn analyse(
    r: &Reasoner,
    state: &State,
    mover: Option<usize>,
    deadline: Instant,
) -> Analysis {
    let terminal = r.is_terminal(state);
    if terminal {
        return Analysis {
            state: state.clone(),
            terminal,
            mover: None,
            value: evaluate(r, state, Duration::ZERO),
            choices: Vec::new(),
            strategies: None,
        };
    }
    let joints = r.joint_moves(state);
    let n = joints.len();
    let mut choices: Vec<Choice> = Vec::with_capacity(n);
    for (i, joint) in joints.into_iter().enumerate() {
        let next = r.next_state(state, &joint);
        let left = deadline.saturating_duration_since(Instant::now());
        let share = left / (n - i) as u32;
        let value = if mover.is_some() || n == 1 {
            evaluate(r, &next, share)
        } else {
            evaluate(r, &next, Duration::ZERO)
        };
        // A move's length counts the move itself.
        let value = value.map(|v| Assessment {
            depth: v.depth.map(|d| d + 1),
            ..v
        });
        choices.push(Choice {
            joint,
            value,
            optimal: false,
        });
    }
    // The position's value: the mover's best move, once every move is known.
    let value = match mover {
        _ if choices.iter().any(|c| c.value.is_none()) => None,
        Some(p) => choices
            .iter()
            .filter_map(|c| c.value.as_ref())
            .max_by_key(|v| v.margin(p))
            .cloned(),
        None if choices.len() == 1 => choices[0].value.clone(),
        None => None,
    };
    if let (Some(v), Some(p)) = (&value, mover) {
        for c in &mut choices {
            c.optimal = c.value.as_ref().is_some_and(|w| w.margin(p) == v.margin(p));
        }
    }
    let value = value.map(|v| Assessment { depth: None, ..v });
    Analysis {
        state: state.clone(),
        terminal,
        mover,
        value,
        choices,
        strategies: None,
    }
}
