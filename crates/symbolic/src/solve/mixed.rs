//! Mixed values of two-player constant-sum games with simultaneous moves
//! ([`GameKind::MixedValues`](crate::GameKind::MixedValues)).
//!
//! Where both roles choose at once, a state is a matrix game over its successors' values: the
//! value of role 0 (the maximiser; role 1 gets the constant sum minus it) is
//! `max_x min_y x^T A y` over mixed strategies, an LP ([`symgame_prove::solve_matrix_game`],
//! the same LP the explicit cross-check solves). Turn-taking states are the 1-row or 1-column
//! case (max or min).
//!
//! Symbolically, backward in rounds: the *ready* states are the unvalued ones all of whose
//! successors are valued (`unvalued \ pre(unvalued)`). They are split by the signature of their
//! stage game: per joint move `j`, the value class of the `j`-successor, or "illegal", read
//! through one pre-image per joint move and bit of the class index. Every state of one signature has the same matrix, so a
//! single LP values the whole group; groups of equal value join one class.

use symgame_bdd::BddEngine;
use symgame_ground::GroundGame;
use symgame_prove::{solve_matrix_game, VALUE_SCALE};

use crate::codes::MAX_CODE_BITS;
use crate::solve::error::{SolveError, SolveOrStop};
use crate::solve::mixed_explicit::{ExplicitMixed, MAX_STATES};
use crate::solve::stage::Signature;
use crate::solve::stats::SolveStats;
use crate::solve::value::{Outcomes, ValueClass};
use crate::solve::whole::WholeSet;

/// Role 0's mixed value, its rounded key and the states that have it.
pub(crate) struct MixedClass<B> {
    pub(crate) value: f64,
    key: i64,
    pub(crate) states: B,
}

/// The classes of the mixed values, the number of stage games (signatures) solved, and of
/// states valued one at a time.
pub(crate) struct MixedValues<B> {
    pub(crate) classes: Vec<MixedClass<B>>,
    pub(crate) stage_games: u64,
    pub(crate) explicit_states: u64,
}

fn key_of(v: f64) -> i64 {
    (v * VALUE_SCALE).round() as i64
}

impl<E: BddEngine> WholeSet<'_, '_, '_, E> {
    /// Role 0's mixed value in every reachable state that reaches only terminal states (see
    /// the module documentation); `outcomes` are the terminal outcomes. With `ground` (the
    /// game's ground form and a number of groups), once a round has more stage games than
    /// that, the states left are valued one at a time ([`crate::solve::mixed_explicit`]).
    pub(crate) fn mixed_values(
        &mut self,
        outcomes: &[Vec<u8>],
        ground: Option<(&GroundGame, usize)>,
    ) -> Result<MixedValues<E::Bdd>, SolveOrStop> {
        let stage = self.stage_moves()?;
        let e = self.ctx.e();
        let moves: Vec<(usize, usize)> = stage.moves.iter().map(|j| (j[0], j[1])).collect();
        let mut out = MixedValues {
            classes: Vec::new(),
            stage_games: 0,
            explicit_states: 0,
        };
        let ground = ground.filter(|_| {
            self.ctx.g.encoding().num_bits() <= MAX_CODE_BITS
                && self.ctx.g.count(self.reached) <= MAX_STATES.into()
        });
        for (o, s) in &self.terminal {
            let value = f64::from(outcomes[*o][0]);
            add(e, &mut out.classes, value, s.clone())?;
        }
        let mut unvalued = self.nonterminal.clone();
        loop {
            self.ctx.guard.check()?;
            let blocked = self.ctx.pre_in(&unvalued, &unvalued)?;
            let ready = e.and_not(&unvalued, &blocked)?;
            if e.is_false(&ready) {
                break;
            }
            // Split the ready states by the class of each joint move's successor.
            let sets: Vec<&E::Bdd> = out.classes.iter().map(|c| &c.states).collect();
            let max_groups = ground.map(|(_, m)| m);
            let Some(groups) = self.signatures(&stage, &ready, &sets, None, max_groups)? else {
                if let Some((ground, _)) = ground {
                    self.mixed_explicit(ground, &unvalued, &mut out)?;
                }
                break;
            };
            let mut valued = Vec::with_capacity(groups.len());
            for (sig, g) in groups {
                let value = stage_value(&sig, &moves, &out.classes)?;
                out.stage_games += 1;
                valued.push((value, g));
            }
            for (value, g) in valued {
                add(e, &mut out.classes, value, g)?;
            }
            unvalued = e.and_not(&unvalued, &ready)?;
            self.ctx.track(&unvalued)?;
        }
        Ok(out)
    }
}

impl<E: BddEngine> WholeSet<'_, '_, '_, E> {
    /// Values the states of `unvalued` one at a time, from the classes of `out`, and adds
    /// them to those classes.
    fn mixed_explicit(
        &mut self,
        ground: &GroundGame,
        unvalued: &E::Bdd,
        out: &mut MixedValues<E::Bdd>,
    ) -> Result<(), SolveOrStop> {
        let e = self.ctx.e();
        let mut x = ExplicitMixed::new(ground, self.ctx.g.encoding());
        for c in &out.classes {
            self.ctx.guard.check()?;
            x.known(c.value, c.key, &e.export(&c.states));
        }
        let guard = &self.ctx.guard;
        x.value_all(&e.export(unvalued), key_of, || Ok(guard.check()?))?;
        let found = x.finish(e)?;
        out.stage_games += found.stage_games;
        out.explicit_states = found.states;
        for (value, states) in found.classes {
            add(e, &mut out.classes, value, states)?;
        }
        Ok(())
    }
}

/// Adds `states` to the class of `value`, or a new class.
fn add<E: BddEngine>(
    e: &E,
    classes: &mut Vec<MixedClass<E::Bdd>>,
    value: f64,
    states: E::Bdd,
) -> Result<(), SolveOrStop> {
    let key = key_of(value);
    match classes.iter_mut().find(|c| c.key == key) {
        Some(c) => c.states = e.or(&c.states, &states)?,
        None => classes.push(MixedClass { value, key, states }),
    }
    Ok(())
}

/// The value of the stage game whose joint move `k` (`moves[k]`) leads to class `sig[k]`.
fn stage_value<B>(
    sig: &Signature,
    moves: &[(usize, usize)],
    classes: &[MixedClass<B>],
) -> Result<f64, SolveOrStop> {
    let mut rows: Vec<usize> = Vec::new();
    let mut columns: Vec<usize> = Vec::new();
    for (k, c) in sig.iter().enumerate() {
        if c.is_some() {
            rows.push(moves[k].0);
            columns.push(moves[k].1);
        }
    }
    rows.sort_unstable();
    rows.dedup();
    columns.sort_unstable();
    columns.dedup();
    let mut payoff = vec![vec![f64::NAN; columns.len()]; rows.len()];
    for (k, c) in sig.iter().enumerate() {
        if let Some(ci) = c {
            let (m0, m1) = moves[k];
            let i = rows.binary_search(&m0).unwrap_or_default();
            let j = columns.binary_search(&m1).unwrap_or_default();
            payoff[i][j] = classes[*ci].value;
        }
    }
    if payoff.iter().flatten().any(|x| x.is_nan()) {
        return Err(SolveOrStop::Error(SolveError::StageGame(
            "the legal joint moves of a state are not every pair of the roles' legal moves"
                .to_string(),
        )));
    }
    solve_matrix_game(&payoff)
        .map(|s| s.value)
        .map_err(|e| SolveOrStop::Error(SolveError::StageGame(e.to_string())))
}

impl<E: BddEngine> WholeSet<'_, '_, '_, E> {
    /// The classes of equal mixed value and equal pure security levels: each outcome added to
    /// `pairs` lists the security levels, and `stats.mixed` gets role 0's mixed value of each
    /// outcome (several outcomes may share the levels, with different mixed values).
    pub(crate) fn mixed_with_bounds(
        &mut self,
        outcomes: &[Vec<u8>],
        ground: Option<(&GroundGame, usize)>,
        pairs: &mut Outcomes,
        stats: &mut SolveStats,
    ) -> Result<Vec<ValueClass<E>>, SolveOrStop> {
        let mixed = self.mixed_values(outcomes, ground)?;
        let mut levels = Outcomes::default();
        let security = self.security_levels(outcomes, &mut levels)?;
        let e = self.ctx.e();
        let total: f64 = outcomes
            .first()
            .map_or(0.0, |o| o.iter().map(|&v| f64::from(v)).sum());
        stats.stage_games = mixed.stage_games;
        stats.explicit_states = mixed.explicit_states;
        stats.mixed.clear();
        let mut classes = Vec::new();
        for m in &mixed.classes {
            for s in &security {
                let both = e.and(&m.states, &s.states)?;
                if e.is_false(&both) {
                    continue;
                }
                // One outcome per (levels, mixed value): the levels repeat across values.
                let outcome = pairs.list.len();
                pairs.list.push(levels.list[s.outcome].clone());
                stats.mixed.push(vec![m.value, total - m.value]);
                self.ctx.track(&both)?;
                classes.push(ValueClass {
                    outcome,
                    distance: None,
                    states: both,
                });
            }
        }
        Ok(classes)
    }
}
