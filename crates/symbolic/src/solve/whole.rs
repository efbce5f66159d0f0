//! The whole-set algorithms (ALGORITHMS.md §2), run on the whole reachable set at once
//! ([`WholeSet`]): single player (backward BFS per reward, with distances), two players with
//! constant sum (attractors by pre-image and strong pre-image, [`WholeSet::security`]) and with
//! general rewards (outcome buckets filled once all successors are solved); and the statistics
//! of their solution per BFS layer.

use num_bigint::BigUint;
use symgame_bdd::{BddEngine, BddResult};
use symgame_limits::Limits;

use crate::error::SymbolicError;
use crate::game::SymbolicGame;
use crate::solve::context::{terminal_of, Context};
use crate::solve::error::{SolveError, SolveOrStop};
use crate::solve::options::{SolveOptions, ValueRule, CHOICE_NODES, MAX_GROUPS};
use crate::solve::stats::{GameKind, SolveLayerStats, SolveStats};
use crate::solve::value::{is_constant_sum, preference, Outcomes, ValueClass};

/// The whole reachable set to solve, with what every whole-set algorithm starts from: the
/// solvers' context, the non-terminal states and the terminal states by outcome.
pub(crate) struct WholeSet<'a, 'g, 'e, E: BddEngine> {
    pub(crate) ctx: &'a mut Context<'g, 'e, E>,
    pub(crate) reached: &'a E::Bdd,
    pub(crate) nonterminal: E::Bdd,
    /// `(outcome, states)` pairs.
    pub(crate) terminal: Vec<(usize, E::Bdd)>,
}

/// The value classes of the whole reachable set `reached`, by the algorithm the game and
/// `opts.values` ask for (security levels where two roles have a choice in a reachable state); sets
/// `stats.kind` and `stats.outcomes`.
pub(crate) fn solve_whole<E: BddEngine>(
    ctx: &mut Context<'_, '_, E>,
    reached: &E::Bdd,
    opts: &SolveOptions,
    stats: &mut SolveStats,
) -> Result<Vec<ValueClass<E>>, SolveOrStop> {
    let rule = opts.values;
    let roles = ctx.g.role_names().len();
    let mut outcomes = Outcomes::default();
    let mut whole = WholeSet::new(ctx, reached, &mut outcomes, roles > 1)?;
    let simultaneous = {
        let e = whole.ctx.e();
        !e.is_false(&e.and(&whole.nonterminal, &whole.ctx.simultaneous)?)
    };
    let classes = if roles == 1 {
        stats.kind = GameKind::SinglePlayer;
        whole.single_player(&outcomes.list)?
    } else if simultaneous
        && rule == ValueRule::Auto
        && roles == 2
        && is_constant_sum(&outcomes.list)
    {
        stats.kind = GameKind::MixedValues;
        let mut pairs = Outcomes::default();
        let classes = {
            let groups = opts.stage_groups.unwrap_or(MAX_GROUPS);
            let ground = opts.ground.as_deref().map(|g| (g, groups));
            whole.mixed_with_bounds(&outcomes.list, ground, &mut pairs, stats)?
        };
        outcomes = pairs;
        classes
    } else if simultaneous || rule == ValueRule::Security {
        stats.kind = GameKind::SecurityLevels;
        let mut levels = Outcomes::default();
        let classes = whole.security_levels(&outcomes.list, &mut levels)?;
        // Equilibria only say more than the security levels in general-sum games; they come
        // after the solution, within a budget of their own.
        if simultaneous && !(roles == 2 && is_constant_sum(&outcomes.list)) {
            stats.nash = Some(whole.one_shot_equilibria(&outcomes.list, opts.nash_budget));
        }
        outcomes = levels;
        classes
    } else if roles == 2 && is_constant_sum(&outcomes.list) {
        stats.kind = GameKind::ZeroSum;
        whole.constant_sum(&mut outcomes)?
    } else {
        stats.kind = if roles == 2 {
            GameKind::GeneralSum
        } else {
            GameKind::MaxN
        };
        whole.general_sum(&outcomes.list)?
    };
    stats.outcomes = outcomes.list;
    Ok(classes)
}

/// The statistics of a whole-set solution: unsolved states, states per outcome, and per BFS
/// layer of `layers`.
pub(crate) fn whole_stats<E: BddEngine>(
    ctx: &Context<'_, '_, E>,
    reached: &E::Bdd,
    layers: &[E::Bdd],
    classes: &[ValueClass<E>],
    stats: &mut SolveStats,
) -> BddResult<()> {
    let g = ctx.g;
    let e = g.engine();
    let outcomes = stats.outcomes.clone();
    // Statistics per BFS layer.
    let mut solved = e.constant(false);
    for c in classes {
        solved = e.or(&solved, &c.states)?;
    }
    stats.unsolved = g.count(&e.and_not(reached, &solved)?);
    stats.per_outcome = vec![BigUint::default(); outcomes.len()];
    for c in classes {
        stats.per_outcome[c.outcome] += g.count(&c.states);
    }
    for (depth, layer) in layers.iter().enumerate() {
        let t = terminal_of(g, layer)?;
        let mut per = vec![BigUint::default(); outcomes.len()];
        let mut in_layer = Vec::new();
        for c in classes {
            let s = e.and(&c.states, layer)?;
            if !e.is_false(&s) {
                per[c.outcome] += g.count(&s);
                in_layer.push(ValueClass {
                    outcome: c.outcome,
                    distance: c.distance,
                    states: s,
                });
            }
        }
        let mover = match stats.kind {
            GameKind::ZeroSum | GameKind::GeneralSum => {
                ctx.mover_counts(&in_layer, &outcomes, &t)?
            }
            _ => None,
        };
        stats.layers.push(SolveLayerStats {
            depth,
            states: g.count(layer),
            terminal: g.count(&t),
            per_outcome: per,
            mover,
            nodes: in_layer.iter().map(|c| e.node_count(&c.states)).sum(),
            seconds: ctx.guard.started.elapsed().as_secs_f64(),
            sliced: None,
        });
    }
    Ok(())
}

impl<'a, 'g, 'e, E: BddEngine> WholeSet<'a, 'g, 'e, E> {
    /// Checks the states of `reached` (a legal move in every non-terminal state; turn-taking
    /// unless `simultaneous` allows otherwise) and splits its terminal states by outcome (added
    /// to `outcomes`).
    fn new(
        ctx: &'a mut Context<'g, 'e, E>,
        reached: &'a E::Bdd,
        outcomes: &mut Outcomes,
        simultaneous: bool,
    ) -> Result<Self, SolveOrStop> {
        let e = ctx.e();
        let nonterminal = ctx.g.and_not_terminal(reached)?;
        ctx.set_universe(&nonterminal)?;
        ctx.check_states(&nonterminal, reached, simultaneous)?;
        let terminal = e.and_not(reached, &nonterminal)?;
        let terminal = ctx.terminal_classes(&terminal, outcomes)?;
        Ok(WholeSet {
            ctx,
            reached,
            nonterminal,
            terminal,
        })
    }

    /// Single player: backward BFS from the terminal states of each reward, best reward first.
    fn single_player(&mut self, outcomes: &[Vec<u8>]) -> Result<Vec<ValueClass<E>>, SolveOrStop> {
        let ctx = &mut *self.ctx;
        let e = ctx.e();
        let g = ctx.g;
        let mut order: Vec<&(usize, E::Bdd)> = self.terminal.iter().collect();
        order.sort_by_key(|(o, _)| std::cmp::Reverse(outcomes[*o][0]));
        let mut solved = e.constant(false);
        let mut classes = Vec::new();
        let open = g.and_not_terminal(self.reached)?;
        for (o, seed) in order {
            let mut frontier = e.and_not(seed, &solved)?;
            let mut d = 0u32;
            while !e.is_false(&frontier) {
                ctx.track(&frontier)?;
                solved = e.or(&solved, &frontier)?;
                ctx.track(&solved)?;
                classes.push(ValueClass {
                    outcome: *o,
                    distance: Some(d),
                    states: frontier.clone(),
                });
                let domain = e.and_not(&open, &solved)?;
                frontier = ctx.pre_in(&frontier, &domain)?;
                d += 1;
            }
        }
        Ok(classes)
    }

    /// The security value of `role` in every state of `reached`: the largest reward it can force
    /// when the other role minimises that reward (for a single role: the best reward it can reach).
    /// For each threshold `t` of the role's terminal rewards, the attractor of "at least `t`" grows
    /// by the pre-image in the states the role moves in and by the strong pre-image in the others.
    /// Returns `(value, states)` pairs, ascending by value, partitioning `reached`.
    fn security(
        &mut self,
        outcomes: &[Vec<u8>],
        role: usize,
    ) -> Result<Vec<(u8, E::Bdd)>, SolveOrStop> {
        let ctx = &mut *self.ctx;
        let e = ctx.e();
        let (reached, nonterminal) = (self.reached, &self.nonterminal);
        let mut values: Vec<u8> = outcomes.iter().map(|o| o[role]).collect();
        values.sort_unstable();
        values.dedup();
        let own = e.and(nonterminal, &ctx.movers[role])?;
        let other = e.and_not(nonterminal, &ctx.movers[role])?;
        // attr[i]: states where the role can force at least values[i]; attr[0] is everything.
        let mut attr = vec![reached.clone()];
        for &t in values.iter().skip(1) {
            let mut a = e.constant(false);
            for (o, s) in &self.terminal {
                if outcomes[*o][role] >= t {
                    a = e.or(&a, s)?;
                }
            }
            // The role's own states enter with one successor inside, the others with all.
            let a = attract(ctx, nonterminal, a, |ctx, cand, a| {
                let chosen = e.and(cand, &own)?;
                let forced = e.and(cand, &other)?;
                let escape = ctx.pre_in(&e.and_not(reached, a)?, &forced)?;
                let all_in = e.and_not(&forced, &escape)?;
                Ok(e.or(&chosen, &all_in)?)
            })?;
            attr.push(a);
        }
        level_classes(ctx, &values, &attr)
    }

    /// Two players, constant sum: role 0's security values, the other role getting the rest.
    fn constant_sum(&mut self, outcomes: &mut Outcomes) -> Result<Vec<ValueClass<E>>, SolveOrStop> {
        let list = outcomes.list.clone();
        let total: u16 = list[0].iter().map(|&v| u16::from(v)).sum();
        let classes = self.security(&list, 0)?;
        Ok(classes
            .into_iter()
            .map(|(v, s)| ValueClass {
                outcome: outcomes.index(&[v, (total - u16::from(v)) as u8]),
                distance: None,
                states: s,
            })
            .collect())
    }

    /// Turn-taking, general rewards (two roles, or max^n for more): outcome buckets filled once
    /// all successors are solved, the role in control taking the first outcome in its
    /// [`preference`] among its successors'.
    fn general_sum(&mut self, outcomes: &[Vec<u8>]) -> Result<Vec<ValueClass<E>>, SolveOrStop> {
        let ctx = &mut *self.ctx;
        let e = ctx.e();
        let (reached, nonterminal) = (self.reached, &self.nonterminal);
        let mut bucket: Vec<E::Bdd> = vec![e.constant(false); outcomes.len()];
        let mut solved = e.constant(false);
        for (o, s) in &self.terminal {
            bucket[*o] = e.or(&bucket[*o], s)?;
            solved = e.or(&solved, s)?;
        }
        let prefs: Vec<Vec<usize>> = (0..ctx.movers.len())
            .map(|p| preference(outcomes, p))
            .collect();
        let mut frontier = solved.clone();
        loop {
            let open = e.and_not(nonterminal, &solved)?;
            // A state becomes solvable right after its last successor was solved.
            let cand = ctx.pre_in(&frontier, &open)?;
            let blocked = ctx.pre_in(&e.and_not(reached, &solved)?, &cand)?;
            let solvable = e.and_not(&cand, &blocked)?;
            if e.is_false(&solvable) {
                break;
            }
            for (p, pref) in prefs.iter().enumerate() {
                let mut pending = e.and(&solvable, &ctx.movers[p])?;
                for &o in pref {
                    if e.is_false(&pending) {
                        break;
                    }
                    let take = ctx.pre_in(&bucket[o], &pending)?;
                    if !e.is_false(&take) {
                        pending = e.and_not(&pending, &take)?;
                        bucket[o] = e.or(&bucket[o], &take)?;
                        ctx.track(&bucket[o])?;
                    }
                }
            }
            solved = e.or(&solved, &solvable)?;
            ctx.track(&solved)?;
            frontier = solvable;
        }
        Ok(bucket
            .into_iter()
            .enumerate()
            .filter(|(_, s)| !e.is_false(s))
            .map(|(o, s)| ValueClass {
                outcome: o,
                distance: None,
                states: s,
            })
            .collect())
    }
}

/// The security value of `role` (by name index) in every state of `reached`, a set closed under
/// successors (e.g. the reachable states): the largest reward the role can force when the other
/// role minimises it, as the explicit solvers of `symgame prove` compute it. For constant-sum
/// games it is the role's part of the solved outcome; for general rewards it differs from the
/// outcome of [`solve`](fn@crate::solve) (which follows [`preference`]). Returns `(value, states)` pairs
/// partitioning `reached`, ascending by value.
pub fn security_values<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    reached: &E::Bdd,
    role: usize,
    limits: &Limits,
) -> Result<Vec<(u8, E::Bdd)>, SolveError> {
    let run = || -> Result<Vec<(u8, E::Bdd)>, SolveOrStop> {
        let mut ctx = Context::new(g, limits, CHOICE_NODES)?;
        ctx.settle(reached)?;
        let mut outcomes = Outcomes::default();
        let mut whole = WholeSet::new(&mut ctx, reached, &mut outcomes, true)?;
        let e = g.engine();
        let simultaneous = !e.is_false(&e.and(&whole.nonterminal, &whole.ctx.simultaneous)?);
        if g.role_names().len() <= 2 && !simultaneous {
            whole.security(&outcomes.list, role)
        } else {
            let parts = whole.joint_parts()?;
            whole.role_levels(&outcomes.list, role, &parts)
        }
    };
    run().map_err(|x| match x {
        SolveOrStop::Error(e) => e,
        SolveOrStop::Stop(r) => SolveError::Symbolic(SymbolicError::Stopped(r)),
    })
}

/// The classes of equal level from the nested attractors `attr` (`attr[i]`: the states where
/// the role guarantees at least `values[i]`; `attr[0]` is every state), ascending by level.
pub(crate) fn level_classes<E: BddEngine>(
    ctx: &mut Context<'_, '_, E>,
    values: &[u8],
    attr: &[E::Bdd],
) -> Result<Vec<(u8, E::Bdd)>, SolveOrStop> {
    let e = ctx.e();
    let mut classes = Vec::new();
    for (i, &v) in values.iter().enumerate() {
        let s = match attr.get(i + 1) {
            Some(next) => e.and_not(&attr[i], next)?,
            None => attr[i].clone(),
        };
        if !e.is_false(&s) {
            ctx.track(&s)?;
            classes.push((v, s));
        }
    }
    Ok(classes)
}

/// Grows the attractor `a` to its fixpoint: each round the states of `nonterminal` outside it
/// with a successor among the last round's additions are the candidates (a state first enters
/// right after one of its successors did), and `step(ctx, candidates, a)` gives those that
/// enter.
pub(crate) fn attract<E: BddEngine>(
    ctx: &mut Context<'_, '_, E>,
    nonterminal: &E::Bdd,
    mut a: E::Bdd,
    mut step: impl FnMut(&Context<'_, '_, E>, &E::Bdd, &E::Bdd) -> Result<E::Bdd, SolveOrStop>,
) -> Result<E::Bdd, SolveOrStop> {
    let e = ctx.e();
    let mut frontier = a.clone();
    loop {
        ctx.guard.check()?;
        let open = e.and_not(nonterminal, &a)?;
        let cand = ctx.pre_in(&frontier, &open)?;
        if e.is_false(&cand) {
            break;
        }
        frontier = step(ctx, &cand, &a)?;
        if e.is_false(&frontier) {
            break;
        }
        a = e.or(&a, &frontier)?;
        ctx.track(&a)?;
    }
    Ok(a)
}
