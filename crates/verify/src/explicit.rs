//! The explicit side: every chosen state and role asked of every explicit algorithm, and the
//! answers compared with the symbolic values.

use crate::compare::{compare, Verdict};
use crate::enumerate::fluent_names;
use crate::symbolic::SymbolicSide;
use crate::{AlgoTally, Disagreement, Error, Progress, VerifyOptions};
use std::time::Instant;
use symgame_explicit::{Reasoner, State};
use symgame_ground::GroundGame;
use symgame_limits::{Guard, Limits, StopReason};
use symgame_prove::{solve_value, Config};

/// The answers of the explicit side.
pub(crate) struct Checked {
    /// States whose every role was asked of every algorithm.
    pub states: u64,
    /// Per algorithm.
    pub tallies: Vec<AlgoTally>,
    /// Every disagreement.
    pub disagreements: Vec<Disagreement>,
    /// Why the check ended early.
    pub stopped: Option<StopReason>,
}

/// Asks the explicit solvers about every state the symbolic side chose, until `guard` stops.
pub(crate) fn check(
    game: &GroundGame,
    reasoner: &Reasoner,
    side: &SymbolicSide,
    opts: &VerifyOptions,
    guard: &Guard<'_>,
    mut progress: impl FnMut(&Progress),
) -> Result<Checked, Error> {
    let mut out = Checked {
        states: 0,
        tallies: opts.algos.iter().map(|&a| AlgoTally::new(a)).collect(),
        disagreements: Vec::new(),
        stopped: None,
    };
    'states: for (fluents, want) in &side.expected {
        let mut state = State::empty(game.fluents.len());
        for &f in fluents {
            state.insert(f);
        }
        for (k, &algo) in opts.algos.iter().enumerate() {
            for (role, &expect) in want.iter().enumerate() {
                if let Err(why) = guard.check() {
                    out.stopped = Some(why);
                    break 'states;
                }
                let cfg = Config {
                    limits: Limits {
                        max_nodes: Some(opts.search_nodes),
                        // The time left, so that one long search cannot outlast the limit.
                        time_limit: guard.time_left(),
                        cancel: opts.limits.cancel.clone(),
                        ..Limits::default()
                    },
                    // Many small searches: a small table each.
                    tt_capacity: 1 << 16,
                    ..Config::default()
                };
                let t0 = Instant::now();
                let v = solve_value(reasoner, &state, role, algo, &cfg)?;
                let tally = &mut out.tallies[k];
                tally.seconds += t0.elapsed().as_secs_f64();
                tally.nodes_expanded += v.stats.nodes_expanded;
                match compare(expect, &v.outcome) {
                    Verdict::Agreed => tally.agreed += 1,
                    Verdict::Undecided => tally.undecided += 1,
                    Verdict::Disagreed {
                        explicit,
                        undecided,
                    } => {
                        tally.undecided += u64::from(undecided);
                        tally.disagreed += 1;
                        out.disagreements.push(Disagreement {
                            state: fluent_names(game, fluents),
                            role: game.roles[role].name.to_string(),
                            algo,
                            symbolic: expect,
                            explicit,
                        });
                    }
                }
            }
        }
        out.states += 1;
        progress(&Progress {
            states_checked: out.states,
            states_to_check: side.expected.len() as u64,
            disagreements: out.disagreements.len() as u64,
        });
    }
    Ok(out)
}
