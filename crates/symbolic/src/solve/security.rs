//! Security levels for any game ([`GameKind::SecurityLevels`](crate::GameKind::SecurityLevels)):
//! any number of roles, simultaneous moves allowed.
//!
//! The security level of role `r` in a state is the largest reward `r` can guarantee in pure
//! strategies, choosing its move without seeing the moves the other roles make at the same
//! step, whatever they play:
//!
//! ```text
//! level_r(s) = goal_r(s)                                        if s is terminal
//! level_r(s) = max_{m legal for r in s} min_{j legal in s, j_r = m} level_r(next(s, j))
//! ```
//!
//! Symbolically, per threshold `t` of `r`'s rewards, the attractor `A` of "at least `t`" starts
//! from the terminal states with `goal_r >= t` and grows by the states with a move `m` of `r`
//! such that every legal joint move with `r` playing `m` leads into `A`: with the per-joint-move
//! partitions `T_j`,
//!
//! ```text
//! enter(A) = OR_m ( legal_r,m  AND NOT OR_{j : j_r = m} pre_j(reached \ A) )
//! ```
//!
//! (a strong pre-image with `r`'s move chosen first). A state enters right after one of its
//! successors did, so each round looks only at the predecessors of the states added in the round
//! before. In a turn-taking game this is the attractor of [`WholeSet::security`]: where `r` is
//! in control each of its moves is one joint move (a pre-image), elsewhere `r`'s only move is a
//! noop and the condition is the strong pre-image.

use symgame_bdd::BddEngine;

use crate::disjunction::or_all;
use crate::partition::{cluster, restrict_conjunct_lists, Partition};
use crate::solve::error::SolveOrStop;
use crate::solve::value::{Outcomes, ValueClass};
use crate::solve::whole::{attract, level_classes, WholeSet};

/// The largest relation the partitions of one move of a role are merged into (as the image
/// clusters' default bound, [`SymbolicOptions::cluster_nodes`](crate::SymbolicOptions::cluster_nodes)).
const MOVE_CLUSTER_NODES: usize = 50_000;

impl<E: BddEngine> WholeSet<'_, '_, '_, E> {
    /// The security levels of every role: classes of the states of the reachable set with the
    /// same level for every role, whose outcome (added to `levels`) lists the levels.
    pub(crate) fn security_levels(
        &mut self,
        outcomes: &[Vec<u8>],
        levels: &mut Outcomes,
    ) -> Result<Vec<ValueClass<E>>, SolveOrStop> {
        let e = self.ctx.e();
        let roles = self.ctx.g.role_names().len();
        let parts = self.joint_parts()?;
        // Classes with the levels of the roles so far.
        let mut classes: Vec<(Vec<u8>, E::Bdd)> = vec![(Vec::new(), self.reached.clone())];
        for role in 0..roles {
            let per = self.role_levels(outcomes, role, &parts)?;
            let mut next = Vec::new();
            for (o, s) in &classes {
                for (v, t) in &per {
                    let both = e.and(s, t)?;
                    if !e.is_false(&both) {
                        let mut o2 = o.clone();
                        o2.push(*v);
                        next.push((o2, both));
                    }
                }
            }
            classes = next;
        }
        Ok(classes
            .into_iter()
            .map(|(o, s)| ValueClass {
                outcome: levels.index(&o),
                distance: None,
                states: s,
            })
            .collect())
    }

    /// The per-joint-move partitions, those kept as conjunct lists restricted to the
    /// non-terminal states.
    pub(crate) fn joint_parts(&self) -> Result<Vec<Partition<E>>, SolveOrStop> {
        let ctx = &self.ctx;
        let parts = restrict_conjunct_lists(ctx.e(), ctx.g.partitions(), &self.nonterminal)?;
        Ok(parts)
    }

    /// The security level of `role` in every reachable state: `(level, states)` pairs
    /// partitioning the reachable set, ascending by level (see the module documentation).
    pub(crate) fn role_levels(
        &mut self,
        outcomes: &[Vec<u8>],
        role: usize,
        parts: &[Partition<E>],
    ) -> Result<Vec<(u8, E::Bdd)>, SolveOrStop> {
        let ctx = &mut *self.ctx;
        let e = ctx.e();
        let g = ctx.g;
        let (reached, nonterminal) = (self.reached, &self.nonterminal);
        let legal = &g.legal()[role];
        // The partitions of each move of the role, merged into clusters: the union of their
        // pre-images is the pre-image of their union, and a game of many joint moves (two
        // roles of 73 moves: 5,329) would otherwise take one pre-image per joint move in every
        // round of every attractor.
        let mut by_move: Vec<Vec<Partition<E>>> = vec![Vec::new(); legal.len()];
        for p in parts {
            for j in &p.joint_moves {
                by_move[j[role]].push(p.clone());
            }
        }
        let by_move = by_move
            .iter()
            .map(|ps| cluster(e, g.encoding(), ps, MOVE_CLUSTER_NODES, None))
            .collect::<Result<Vec<_>, _>>()?;
        let mut values: Vec<u8> = outcomes.iter().map(|o| o[role]).collect();
        values.sort_unstable();
        values.dedup();
        // attr[i]: states where the role guarantees at least values[i]; attr[0] is everything.
        // Built from the highest threshold down: what guarantees more guarantees less, so each
        // attractor starts from the one above (a set between its seeds and its fixpoint, from
        // which the rounds reach the same fixpoint) instead of from its seeds alone; a game of
        // many reward values (crissrace: sums of two goals) would otherwise redo every round.
        let mut above: Vec<E::Bdd> = Vec::new();
        for &t in values.iter().skip(1).rev() {
            let mut seeds: Vec<E::Bdd> = self
                .terminal
                .iter()
                .filter(|(o, _)| outcomes[*o][role] >= t)
                .map(|(_, s)| s.clone())
                .collect();
            seeds.extend(above.last().cloned());
            let a = or_all(e, seeds)?;
            // A candidate enters for a move of the role after which every joint move stays
            // inside.
            let a = attract(ctx, nonterminal, a, |ctx, cand, a| {
                let outside = e.and_not(reached, a)?;
                let mut entered = Vec::new();
                for (m, ps) in by_move.iter().enumerate() {
                    let here = e.and(cand, &legal[m])?;
                    if e.is_false(&here) {
                        continue;
                    }
                    let mut escapes = Vec::with_capacity(ps.len());
                    for p in ps {
                        ctx.guard.check()?;
                        escapes.push(p.pre_image_within(e, &outside, Some(&here))?);
                    }
                    entered.push(e.and_not(&here, &or_all(e, escapes)?)?);
                }
                Ok(or_all(e, entered)?)
            })?;
            above.push(a);
        }
        let attr: Vec<E::Bdd> = std::iter::once(reached.clone())
            .chain(above.into_iter().rev())
            .collect();
        level_classes(ctx, &values, &attr)
    }
}
