//! The moves of a [`Compiler`]: a joint move substituted as constants in the `next` cone
//! (incrementally, from a base with every move false), or every move signal read as a BDD over
//! move variables, and which fluents the current joint move may change.

use symgame_bdd::{BddEngine, BddResult};

use super::Compiler;

impl<E: BddEngine> Compiler<'_, E> {
    /// Sets the move signals to the joint move `jm` and evaluates the `next` cone under it
    /// (the move-independent gates must have been evaluated by [`Self::eval_global`]).
    ///
    /// Incremental: the cone is evaluated once with every move false (the base); a joint
    /// move then re-evaluates only the gates that read one of its moves, directly or through
    /// other gates (a whole cyclic block if one of its gates is reached). Every other gate
    /// reads only false move signals, so its base value is its value under `jm`.
    pub(crate) fn set_joint_move(&mut self, jm: &[usize]) -> BddResult<()> {
        if self.move_bdds.take().is_some() {
            self.local.fill(None);
            self.stamp = self.stamp.wrapping_add(1);
        }
        if self.base.is_none() {
            self.build_base()?;
        }
        for g in std::mem::take(&mut self.dirty) {
            self.local[g] = None;
        }
        self.moves.fill(false);
        for (r, &m) in jm.iter().enumerate() {
            self.moves[self.move_base[r] + m] = true;
        }
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.mark.fill(0);
            self.stamp = 1;
        }
        let c = &self.game.circuit;
        let nf = self.game.fluents.len() as u32;
        let mut stack: Vec<u32> = Vec::new();
        for (r, &m) in jm.iter().enumerate() {
            let s = nf + 1 + (self.move_base[r] + m) as u32;
            stack.extend_from_slice(&self.readers[s as usize]);
        }
        let mut reached = Vec::new();
        while let Some(g) = stack.pop() {
            let g = g as usize;
            if self.mark[g] == self.stamp {
                continue;
            }
            // A gate of a cyclic block brings in the whole block (no allocation per gate).
            let (from, to, whole) = match c.block_of(g).filter(|b| b.cyclic) {
                Some(b) => (b.start as usize, b.end as usize, true),
                None => (g, g + 1, false),
            };
            for h in from..to {
                if whole && !(self.next_needed[h] && self.dep[h]) {
                    continue;
                }
                if self.mark[h] == self.stamp {
                    continue;
                }
                self.mark[h] = self.stamp;
                reached.push(h);
                let s = c.num_inputs as usize + h;
                stack.extend_from_slice(&self.readers[s]);
            }
        }
        reached.sort_unstable();
        let mut i = 0;
        while i < reached.len() {
            let g = reached[i];
            match c.block_of(g).filter(|b| b.cyclic) {
                None => {
                    let v = self.gate(g)?;
                    self.local[g] = Some(v);
                    i += 1;
                }
                Some(b) => {
                    let end = reached[i..].partition_point(|&h| h < b.end as usize) + i;
                    let gates = &reached[i..end];
                    for &h in gates {
                        self.local[h] = Some(self.e.constant(false));
                    }
                    loop {
                        let mut changed = false;
                        for &h in gates {
                            let v = self.gate(h)?;
                            if self.local[h].as_ref() != Some(&v) {
                                self.local[h] = Some(v);
                                changed = true;
                            }
                        }
                        if !changed {
                            break;
                        }
                    }
                    i = end;
                }
            }
        }
        self.dirty = reached;
        Ok(())
    }

    /// Evaluates the `next` cone with every move signal read as a BDD over move variables:
    /// `moves[i]` for the move signal `i` (in [`GroundGame::move_signal`] order), so that a
    /// fluent's next function is a BDD over the current and the move variables (the
    /// move-independent gates must have been evaluated). Until the next
    /// [`Self::set_joint_move`], [`Self::next_may_change`] says true for every fluent.
    pub(crate) fn set_symbolic_moves(&mut self, moves: Vec<E::Bdd>) -> BddResult<()> {
        debug_assert_eq!(moves.len(), self.moves.len());
        for g in std::mem::take(&mut self.dirty) {
            self.local[g] = None;
        }
        self.move_bdds = Some(moves);
        let needed = std::mem::take(&mut self.next_needed);
        // `stored` reads the base for a gate with no local value: evaluate without it.
        let base = self.base.take();
        let r = self.eval(&needed, true);
        self.base = base;
        self.next_needed = needed;
        r
    }

    /// The base of [`Self::set_joint_move`]: the `next` cone with every move false, the
    /// readers of every signal within the cone, and which fluents the base changes.
    fn build_base(&mut self) -> BddResult<()> {
        let c = &self.game.circuit;
        self.moves.fill(false);
        let needed = std::mem::take(&mut self.next_needed);
        let r = self.eval(&needed, true);
        self.next_needed = needed;
        r?;
        let mut readers: Vec<Vec<u32>> = vec![Vec::new(); c.num_inputs as usize + c.gates.len()];
        for (g, gate) in c.gates.iter().enumerate() {
            if !(self.next_needed[g] && self.dep[g]) {
                continue;
            }
            for l in gate.inputs() {
                let list = &mut readers[l.signal() as usize];
                if list.last() != Some(&(g as u32)) {
                    list.push(g as u32);
                }
            }
        }
        self.readers = readers;
        self.base = Some(std::mem::replace(
            &mut self.local,
            vec![None; c.gates.len()],
        ));
        self.base_changed = (0..self.game.fluents.len())
            .map(|f| {
                let nf = self.lit(self.game.next[f])?;
                Ok(!self.same(&nf, self.fluent(f)))
            })
            .collect::<BddResult<_>>()?;
        Ok(())
    }

    /// Whether the next value of fluent `f` under the current joint move may differ from its
    /// current value (false: its next function is the fluent itself). Cheap: no BDD is
    /// compared unless the joint move reaches the fluent's next gate.
    pub(crate) fn next_may_change(&self, f: usize) -> bool {
        if self.move_bdds.is_some() {
            return true;
        }
        let s = self.game.next[f].signal();
        let ni = self.game.circuit.num_inputs;
        if s < ni {
            // A constant, a fluent or a move read directly.
            let nf = self.game.fluents.len() as u32;
            return s > nf || self.base_changed[f];
        }
        let g = (s - ni) as usize;
        if self.dep[g] && self.mark[g] == self.stamp {
            return true;
        }
        self.base_changed[f]
    }
}
