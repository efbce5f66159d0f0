//! Stage games: the states of a set split by the signature of their one-step game, for the
//! solvers that value a state from a matrix over its successors (mixed values, pure Nash
//! equilibria of one-shot stage games).
//!
//! The signature of a state lists, per joint move `j` (one partition each), the class its
//! `j`-successor falls in among given disjoint sets, or "illegal". States with one signature
//! have the same stage game, so one computation serves them all. A class index is read bit by
//! bit: per joint move, one pre-image per bit of the index (`log2` of the classes) instead of
//! one per class.

use std::time::Instant;

use symgame_bdd::BddEngine;
use symgame_limits::StopReason;

use crate::partition::Partition;
use crate::solve::error::{SolveError, SolveOrStop};
use crate::solve::whole::WholeSet;

/// Per joint move (in [`StageMoves::moves`] order): the class of its successor, or `None`
/// where it is not legal.
pub(crate) type Signature = Vec<Option<usize>>;

/// States grouped by signature: one set per signature.
pub(crate) type Groups<B> = Vec<(Signature, B)>;

/// The partitions of the joint moves, each one joint move, and where each is legal.
pub(crate) struct StageMoves<E: BddEngine> {
    pub(crate) parts: Vec<Partition<E>>,
    /// One move per role, per partition.
    pub(crate) moves: Vec<Vec<usize>>,
    /// The non-terminal states where each joint move is legal.
    pub(crate) legal: Vec<E::Bdd>,
}

impl<E: BddEngine> WholeSet<'_, '_, '_, E> {
    /// The per-joint-move partitions with their joint moves and legality.
    pub(crate) fn stage_moves(&self) -> Result<StageMoves<E>, SolveOrStop> {
        let parts = self.joint_parts()?;
        let e = self.ctx.e();
        let mut moves = Vec::with_capacity(parts.len());
        let mut legal = Vec::with_capacity(parts.len());
        for p in &parts {
            self.ctx.guard.check()?;
            match p.joint_moves.as_slice() {
                [j] => moves.push(j.to_vec()),
                _ => {
                    return Err(SolveOrStop::Error(SolveError::StageGame(
                        "stage games need one partition per joint move".to_string(),
                    )))
                }
            }
            legal.push(p.pre_image_within(e, self.reached, Some(&self.nonterminal))?);
        }
        Ok(StageMoves {
            parts,
            moves,
            legal,
        })
    }

    /// The states of `ready` grouped by signature over the disjoint `classes`; every
    /// successor of a state of `ready` must be in one of them. Stops at the run's limits, and
    /// with [`StopReason::TimeLimit`] once `until` (a budget of its own) has passed. `None`
    /// once there are more than `max_groups` groups (the split then stops).
    pub(crate) fn signatures(
        &mut self,
        stage: &StageMoves<E>,
        ready: &E::Bdd,
        classes: &[&E::Bdd],
        until: Option<Instant>,
        max_groups: Option<usize>,
    ) -> Result<Option<Groups<E::Bdd>>, SolveOrStop> {
        let e = self.ctx.e();
        let guard = &self.ctx.guard;
        let check = || -> Result<(), StopReason> {
            guard.check()?;
            match until {
                Some(t) if Instant::now() >= t => Err(StopReason::TimeLimit),
                _ => Ok(()),
            }
        };
        let bits = bit_unions(e, classes)?;
        let mut groups: Vec<(Signature, E::Bdd)> = vec![(Vec::new(), ready.clone())];
        for (k, p) in stage.parts.iter().enumerate() {
            let mut pres = Vec::with_capacity(bits.len());
            for b in &bits {
                check()?;
                pres.push(p.pre_image_within(e, b, Some(ready))?);
            }
            let mut next = Vec::with_capacity(groups.len());
            for (sig, g) in groups {
                check()?;
                let illegal = e.and_not(&g, &stage.legal[k])?;
                if !e.is_false(&illegal) {
                    let mut s = sig.clone();
                    s.push(None);
                    next.push((s, illegal));
                }
                let mut split = vec![(0usize, e.and(&g, &stage.legal[k])?)];
                for (b, pre) in pres.iter().enumerate() {
                    let mut finer = Vec::with_capacity(split.len() * 2);
                    for (ci, h) in split {
                        let with = e.and(&h, pre)?;
                        let without = e.and_not(&h, pre)?;
                        if !e.is_false(&with) {
                            finer.push((ci | 1 << b, with));
                        }
                        if !e.is_false(&without) {
                            finer.push((ci, without));
                        }
                    }
                    split = finer;
                }
                for (ci, h) in split {
                    if !e.is_false(&h) {
                        let mut s = sig.clone();
                        s.push(Some(ci));
                        next.push((s, h));
                    }
                }
            }
            groups = next;
            if max_groups.is_some_and(|m| groups.len() > m) {
                return Ok(None);
            }
        }
        Ok(Some(groups))
    }
}

/// `bits[b]`: the union of the classes whose index has bit `b` set (at least one bit).
fn bit_unions<E: BddEngine>(e: &E, classes: &[&E::Bdd]) -> Result<Vec<E::Bdd>, SolveOrStop> {
    let n = classes.len().max(2);
    let width = (usize::BITS - (n - 1).leading_zeros()) as usize;
    let mut bits = vec![e.constant(false); width];
    for (ci, c) in classes.iter().enumerate() {
        for (b, union) in bits.iter_mut().enumerate() {
            if ci >> b & 1 == 1 {
                *union = e.or(union, c)?;
            }
        }
    }
    Ok(bits)
}
