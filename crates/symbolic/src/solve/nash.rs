//! Pure-strategy Nash equilibria of the one-shot stage games of a simultaneous-move game: the
//! reachable states whose every successor is terminal, where a joint move decides the rewards
//! outright. A joint move is an equilibrium when no role can raise its own reward by changing
//! only its own move. Nothing is claimed about earlier states (where equilibria of the whole
//! game would need a rule to pick among the equilibria that follow); the report says so.

use std::time::{Duration, Instant};

use symgame_bdd::BddEngine;

use crate::solve::error::SolveOrStop;
use crate::solve::stage::Signature;
use crate::solve::stats::NashStats;
use crate::solve::whole::WholeSet;

/// The time the report of equilibria takes by default: it comes after the solution and only
/// adds to it, so it gets at most a quarter of the time left and never more than its budget.
const NASH_SECONDS: u64 = 60;

impl<E: BddEngine> WholeSet<'_, '_, '_, E> {
    /// The pure equilibria of every one-shot stage game; `outcomes` are the terminal outcomes.
    /// It runs within a budget of its own (`budget`, by default [`NASH_SECONDS`]; at most a
    /// quarter of the time left): a limit hit here ends the report (`stopped`), never the
    /// solution it follows.
    pub(crate) fn one_shot_equilibria(
        &mut self,
        outcomes: &[Vec<u8>],
        budget: Option<Duration>,
    ) -> NashStats {
        let started = Instant::now();
        let mut budget = budget.unwrap_or(Duration::from_secs(NASH_SECONDS));
        if let Some(left) = self.ctx.guard.time_left() {
            budget = budget.min(left / 4);
        }
        let result = self.equilibria_within(outcomes, started + budget);
        let mut stats = match result {
            Ok(stats) => stats,
            Err(SolveOrStop::Stop(reason)) => NashStats {
                stopped: Some(reason),
                ..NashStats::default()
            },
            Err(SolveOrStop::Error(e)) => NashStats {
                failed: Some(e.to_string()),
                ..NashStats::default()
            },
        };
        stats.seconds = started.elapsed().as_secs_f64();
        stats
    }

    fn equilibria_within(
        &mut self,
        outcomes: &[Vec<u8>],
        until: Instant,
    ) -> Result<NashStats, SolveOrStop> {
        let stage = self.stage_moves()?;
        let e = self.ctx.e();
        let g = self.ctx.g;
        let deep = self.ctx.pre_in(&self.nonterminal, &self.nonterminal)?;
        let one_shot = e.and_not(&self.nonterminal, &deep)?;
        let terminal: Vec<E::Bdd> = self.terminal.iter().map(|(_, s)| s.clone()).collect();
        let sets: Vec<&E::Bdd> = terminal.iter().collect();
        let groups = self
            .signatures(&stage, &one_shot, &sets, Some(until), None)?
            .unwrap_or_default();
        let mut out = NashStats {
            one_shot_states: g.count(&one_shot),
            stage_games: groups.len() as u64,
            ..NashStats::default()
        };
        let rewards = |ci: usize| &outcomes[self.terminal[ci].0];
        for (sig, states) in &groups {
            let equilibria = equilibria(sig, &stage.moves, &rewards);
            if !equilibria.is_empty() {
                out.with_equilibrium += g.count(states);
            }
            if !e.is_false(&e.and(states, g.init())?) {
                out.initial = Some(equilibria);
            }
        }
        Ok(out)
    }
}

/// The rewards of every pure equilibrium of the stage game `sig` (joint moves `moves`).
fn equilibria<'a>(
    sig: &Signature,
    moves: &[Vec<usize>],
    rewards: &dyn Fn(usize) -> &'a Vec<u8>,
) -> Vec<Vec<u8>> {
    let legal: Vec<(usize, usize)> = sig
        .iter()
        .enumerate()
        .filter_map(|(k, c)| Some((k, (*c)?)))
        .collect();
    let mut out = Vec::new();
    for &(k, ci) in &legal {
        let here = rewards(ci);
        // A deviation of role r: a legal joint move equal to moves[k] but for r's move.
        let stable = (0..here.len()).all(|r| {
            legal.iter().all(|&(k2, c2)| {
                let differs_only_in_r = moves[k2]
                    .iter()
                    .zip(&moves[k])
                    .enumerate()
                    .all(|(r2, (a, b))| r2 == r || a == b);
                !differs_only_in_r || rewards(c2)[r] <= here[r]
            })
        });
        if stable {
            out.push(here.clone());
        }
    }
    out
}
