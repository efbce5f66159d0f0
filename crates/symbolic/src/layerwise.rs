//! The game compiled anew within each BFS layer, for games whose conditions or relations are
//! too large to compile once over all states.
//!
//! A condition such as "some jump is possible" (checkers' must-jump rule) or "no cell breaks a
//! sudoku constraint" can be a BDD of millions of nodes over all states while the game's first
//! layers hold a few thousand states. [`Compiler::within`] computes every gate of the circuit
//! only within a care set (a gate's BDD is its function AND the set), so within a layer each
//! gate is at most about as large as the layer. The image of a layer then enumerates the joint
//! moves legal in some state of it and applies, per joint move, the next functions of the bits
//! it changes, conjunct by conjunct, starting from the states where it is legal. The cost of a
//! layer follows the size of the layer and of the circuit, not of any condition over all
//! states; the price is compiling the circuit again for every layer.

use symgame_bdd::BddEngine;
use symgame_ground::GroundGame;
use symgame_limits::Guard;

use crate::compile::{group_violation, joint_moves, next_bit_functions, Compiler};
use crate::disjunction::{and_not_all, or_all};
use crate::encoding::Encoding;
use crate::error::SymbolicError;
use crate::partition::Partition;

/// A game kept as its ground circuit, compiled within each state set it is asked about.
pub(crate) struct Layerwise {
    /// The ground game.
    pub(crate) game: GroundGame,
    /// Give up when more joint moves than this are legal in the states of one layer.
    pub(crate) max_joint_moves: usize,
    /// Conditions over this many nodes are cut to the layer ([`Compiler::within`]).
    pub(crate) cut_nodes: usize,
    /// Set when a joint move legal in an expanded set breaks an assumed group
    /// ([`Encoding::assumed`]): the image of that set is not to be trusted.
    pub(crate) broken: std::sync::atomic::AtomicBool,
}

impl Layerwise {
    /// A compiler within `s` (of the terminal cone only, if `terminal_only`), and the states
    /// of `s` that are not terminal.
    fn compiled<'a, E: BddEngine>(
        &'a self,
        e: &'a E,
        enc: &Encoding,
        s: &E::Bdd,
        guard: Option<&Guard>,
        terminal_only: bool,
    ) -> Result<(Compiler<'a, E>, E::Bdd), SymbolicError> {
        let deadline = guard.and_then(|g| g.deadline());
        let (comp, leaves) = Compiler::within(
            e,
            &self.game,
            enc,
            s,
            self.cut_nodes,
            terminal_only,
            deadline,
        )?;
        let expand = and_not_all(e, s, &comp.terminal_parts(&leaves)?)?;
        Ok((comp, expand))
    }

    /// The states of `s` that are not terminal.
    pub(crate) fn and_not_terminal<E: BddEngine>(
        &self,
        e: &E,
        enc: &Encoding,
        s: &E::Bdd,
    ) -> Result<E::Bdd, SymbolicError> {
        if e.is_false(s) {
            return Ok(s.clone());
        }
        Ok(self.compiled(e, enc, s, None, true)?.1)
    }

    /// The states of `s` that are not terminal, and their successors, from one compilation
    /// within `s` (in games like checkers the terminal condition, "no legal move", shares
    /// most of its gates with the legal conditions). The guard's limits are checked between
    /// joint moves and its deadline between gates ([`symgame_bdd::BddError::Budget`] once
    /// passed).
    pub(crate) fn expand_and_image<E: BddEngine>(
        &self,
        e: &E,
        enc: &Encoding,
        s: &E::Bdd,
        guard: Option<&Guard>,
    ) -> Result<(E::Bdd, E::Bdd), SymbolicError> {
        if e.is_false(s) {
            return Ok((s.clone(), s.clone()));
        }
        let game = &self.game;
        let (mut comp, expand) = self.compiled(e, enc, s, guard, false)?;
        if e.is_false(&expand) {
            return Ok((expand.clone(), expand));
        }
        let legal = comp.legal()?;
        let stop = || guard.map_or(Ok(()), |g| g.check());
        let expired = || stop().is_err();
        let joint = joint_moves(e, &legal, &expand, self.max_joint_moves, &expired)?;
        drop(legal);
        let mut images = Vec::with_capacity(joint.len());
        for (jm, cond) in joint {
            stop().map_err(SymbolicError::Stopped)?;
            comp.set_joint_move(&jm)?;
            if let Some(v) = group_violation(e, enc, &comp, game)? {
                if !e.is_false(&e.and(&cond, &v)?) {
                    self.broken
                        .store(true, std::sync::atomic::Ordering::Relaxed);
                }
            }
            let fns = next_bit_functions(e, enc, &comp, game)?;
            let touched: Vec<u32> = fns.iter().map(|(b, _)| *b).collect();
            // Conjuncts by descending variable, as `Partition` applies them.
            let mut eqs = Vec::with_capacity(fns.len());
            for (b, nb) in fns.iter().rev() {
                let next = Encoding::next_bit_var(*b);
                eqs.push((next, e.iff(&e.var(next), nb)?));
            }
            let image = if eqs.is_empty() {
                // No bit changes: the successor is the state itself.
                cond
            } else {
                Partition::new(enc, vec![jm], cond.clone(), eqs, touched).image(e, &cond)?
            };
            images.push(image);
        }
        Ok((expand, or_all(e, images)?))
    }
}
