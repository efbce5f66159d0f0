//! One entry point for boolean questions, and game values by a sequence of boolean searches.

use crate::alphabeta::minimax;
use crate::dfpn::dfpn;
use crate::induce::value_backward;
use crate::model::{check_roles, GameModel, Unsupported};
use crate::pn::proof_number_search;
use crate::question::{AtLeast, Indicator, Question};
use crate::search::{Algo, Config, Outcome, SearchResult, Stats, StopReason};
use serde::{Deserialize, Serialize};

/// Answers a boolean question with the chosen algorithm (alpha-beta searches the scores 0 and
/// 1: fails and holds).
pub fn prove<M: GameModel, Q: Question<M>>(
    model: &M,
    root: &M::State,
    question: &Q,
    algo: Algo,
    config: &Config,
) -> Result<SearchResult, Unsupported> {
    match algo {
        Algo::Pn => proof_number_search(model, root, question, config, false),
        Algo::Pn2 => proof_number_search(model, root, question, config, true),
        Algo::DfPn => dfpn(model, root, question, config),
        Algo::AlphaBeta | Algo::Backward => {
            // The attacker's value where it scores 1 exactly where the question holds.
            let indicator = Indicator { model, question };
            let role = question.attacker();
            let (value, stats) = single_search(algo, &indicator, root, role, 1, config)?;
            let outcome = match value {
                Ok(1) => Outcome::Proved,
                Ok(_) => Outcome::Disproved,
                Err(reason) => Outcome::Stopped(reason),
            };
            Ok(SearchResult { outcome, stats })
        }
    }
}

/// The largest goal `role` can force from `root` by the single search `algo`: backward
/// induction (its security level, in pure strategies: in a simultaneous step it chooses
/// without seeing the other roles' moves), or alpha-beta where the other role minimises it and
/// every goal lies in `0..=top`; or why the search stopped.
fn single_search<M: GameModel>(
    algo: Algo,
    model: &M,
    root: &M::State,
    role: usize,
    top: u8,
    config: &Config,
) -> Result<(Result<u8, StopReason>, Stats), Unsupported> {
    if algo == Algo::Backward {
        return value_backward(model, root, role, config);
    }
    let leaf = |m: &M, s: &M::State| i32::from(m.goal(s, role));
    let (result, stats) = minimax(model, root, role, leaf, (0, i32::from(top)), config)?;
    Ok((result.map(|(score, _)| score as u8), stats))
}

/// The value a role can guarantee, or the bounds known when a search stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ValueOutcome {
    /// The largest goal value the role can force.
    Exact(u8),
    /// A search stopped; the value lies in `lower..=upper` (`lower` is the smallest goal value
    /// when nothing better was proved).
    Stopped {
        /// Why the search stopped.
        reason: StopReason,
        /// The best value proved so far.
        lower: u8,
        /// The worst value not yet disproved.
        upper: u8,
    },
}

/// The result of [`solve_value`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ValueResult {
    /// The value or its bounds.
    pub outcome: ValueOutcome,
    /// How many searches were run.
    pub searches: u32,
    /// The summed cost of the searches (peak memory is the largest single peak). `proof_size`
    /// adds the proof of the value and the disproof of the next higher value.
    pub stats: Stats,
}

/// The largest goal value `v` among [`GameModel::goal_values`] such that `role` can force a
/// terminal state with `goal(role) >= v`, from `root`.
///
/// Proof-number algorithms binary-search the sorted goal values with boolean [`AtLeast`]
/// searches (for {0, 50, 100}: "at least 50?", then "100?" if so); the smallest value is
/// assumed without a search when nothing higher can be forced. Alpha-beta answers in a single
/// search where `role` maximises its goal and the other role minimises it.
pub fn solve_value<M: GameModel>(
    model: &M,
    root: &M::State,
    role: usize,
    algo: Algo,
    config: &Config,
) -> Result<ValueResult, Unsupported> {
    if algo == Algo::Backward {
        if role >= model.num_roles() {
            let count = model.num_roles();
            return Err(Unsupported::UnknownRole { role, count });
        }
    } else {
        check_roles(model, role)?;
    }
    let mut values = model.goal_values(role);
    values.sort_unstable();
    values.dedup();
    if values.is_empty() {
        values = (0..=100).collect();
    }
    let (lowest, highest) = (values[0], values[values.len() - 1]);
    // The single-search algorithms: an exact value, or the goal range after a stop.
    if matches!(algo, Algo::AlphaBeta | Algo::Backward) {
        let (value, stats) = single_search(algo, model, root, role, 100, config)?;
        let outcome = match value {
            Ok(v) => ValueOutcome::Exact(v),
            Err(reason) => ValueOutcome::Stopped {
                reason,
                lower: lowest,
                upper: highest,
            },
        };
        return Ok(ValueResult {
            outcome,
            searches: 1,
            stats,
        });
    }
    let (mut low, mut high) = (0, values.len() - 1);
    let mut stats = Stats::default();
    let mut searches = 0;
    let (mut proof, mut disproof) = (None, None);
    while low < high {
        let middle = (low + high).div_ceil(2);
        let question = AtLeast {
            role,
            value: values[middle],
        };
        let result = prove(model, root, &question, algo, config)?;
        stats.absorb(&result.stats);
        searches += 1;
        match result.outcome {
            Outcome::Proved => {
                low = middle;
                proof = result.stats.proof_size;
            }
            Outcome::Disproved => {
                high = middle - 1;
                disproof = result.stats.proof_size;
            }
            Outcome::Stopped(reason) => {
                return Ok(ValueResult {
                    outcome: ValueOutcome::Stopped {
                        reason,
                        lower: values[low],
                        upper: values[high],
                    },
                    searches,
                    stats,
                });
            }
        }
    }
    if proof.is_some() || disproof.is_some() {
        stats.proof_size = Some(proof.unwrap_or(0).saturating_add(disproof.unwrap_or(0)));
    }
    Ok(ValueResult {
        outcome: ValueOutcome::Exact(values[low]),
        searches,
        stats,
    })
}
