//! Compilation of a ground game's circuit into BDDs over the current variables: the
//! [`Compiler`] (memoised gates, move-independent gates once, moves substituted as constants per
//! joint move, cyclic blocks iterated from false to their least fixpoint), the joint moves that
//! can be legal together ([`joint_moves`]) and the next function of every bit a joint move
//! touches ([`next_bit_functions`]). Used by the symbolic game and by the mutex proof.

use symgame_bdd::{BddEngine, BddResult};
use symgame_ground::{Gate, GroundGame, Lit};
use symgame_limits::StopReason;

use crate::disjunction::{disjuncts, or_all};
use crate::encoding::Encoding;
use crate::error::SymbolicError;
use crate::formula::{Formula, FormulaBuilder};

/// A joint move: the index of one move per role, in role order (`joint[r]` indexes
/// `game.roles[r].moves`).
pub type JointMove = Vec<usize>;

/// One role's goal conditions: `(value, condition)` pairs.
pub(crate) type RoleGoals<E> = Vec<(u8, Formula<E>)>;

/// Compiles circuit signals to BDDs over the current variables, with move signals as constants.
pub(crate) struct Compiler<'a, E: BddEngine> {
    e: &'a E,
    game: &'a GroundGame,
    /// Per fluent: its BDD over current variables.
    fluents: Vec<E::Bdd>,
    /// Per gate: whether it depends on a move signal.
    dep: Vec<bool>,
    /// Per gate: BDD of a move-independent gate.
    global: Vec<Option<E::Bdd>>,
    /// Per gate: BDD of a move-dependent gate under the current joint move.
    local: Vec<Option<E::Bdd>>,
    /// Per move signal (offset from the first move signal): its value in the current joint move.
    moves: Vec<bool>,
    /// Per role: the offset of its first move signal.
    move_base: Vec<usize>,
    /// Gates of the `next` cone.
    next_needed: Vec<bool>,
}

impl<'a, E: BddEngine> Compiler<'a, E> {
    /// A compiler whose fluent `f` reads `fluents[f]`.
    fn new(e: &'a E, game: &'a GroundGame, fluents: Vec<E::Bdd>) -> Self {
        let c = &game.circuit;
        let nf = game.fluents.len() as u32;
        let ni = c.num_inputs;
        let is_move = |s: u32| s > nf && s < ni;
        let mut dep = vec![false; c.gates.len()];
        for b in &c.blocks {
            let range = b.start as usize..b.end as usize;
            let reads_dep = |dep: &[bool], l: &Lit| {
                let s = l.signal();
                is_move(s) || (s >= ni && dep[(s - ni) as usize])
            };
            if b.cyclic {
                let d = range
                    .clone()
                    .any(|g| c.gates[g].inputs().iter().any(|l| reads_dep(&dep, l)));
                for g in range {
                    dep[g] = d;
                }
            } else {
                for g in range {
                    dep[g] = c.gates[g].inputs().iter().any(|l| reads_dep(&dep, l));
                }
            }
        }
        let move_base = (0..game.roles.len())
            .map(|r| (game.move_signal(r, 0) as usize) - game.fluents.len() - 1)
            .collect();
        Compiler {
            e,
            game,
            fluents,
            dep,
            global: vec![None; c.gates.len()],
            local: vec![None; c.gates.len()],
            moves: vec![false; game.num_moves()],
            move_base,
            next_needed: c.cone(&game.next),
        }
    }

    /// A compiler over the fluent BDDs of `enc` with the move-independent gates of every cone
    /// evaluated (the terminal disjuncts', the legal conditions' and the next functions'), and
    /// the terminal condition as a disjunction of parts ([`disjuncts`]; never built as one BDD
    /// unless asked for).
    pub(crate) fn prepared(
        e: &'a E,
        game: &'a GroundGame,
        enc: &Encoding,
    ) -> BddResult<(Self, Vec<Lit>)> {
        let mut comp = Compiler::new(e, game, fluent_bdds(e, enc)?);
        let mut term_leaves = Vec::new();
        disjuncts(&game.circuit, game.terminal, &mut term_leaves);
        // Move-independent gates of every cone, once.
        let mut roots: Vec<Lit> = term_leaves.clone();
        roots.extend(game.legal.iter().flatten().copied());
        roots.extend(game.next.iter().copied());
        comp.eval_global(&roots)?;
        Ok((comp, term_leaves))
    }

    /// `legal[r][m]`: the states where role `r` may play move `m`.
    pub(crate) fn legal(&self) -> BddResult<Vec<Vec<E::Bdd>>> {
        self.game
            .legal
            .iter()
            .map(|ls| ls.iter().map(|&l| self.lit(l)).collect())
            .collect()
    }

    /// The terminal disjuncts `leaves` as BDDs, constant-false ones dropped; a constant-true one
    /// is the only part.
    pub(crate) fn terminal_parts(&self, leaves: &[Lit]) -> BddResult<Vec<E::Bdd>> {
        let e = self.e;
        let mut parts = Vec::new();
        for &l in leaves {
            let b = self.lit(l)?;
            if e.is_true(&b) {
                return Ok(vec![b]);
            }
            if !e.is_false(&b) {
                parts.push(b);
            }
        }
        Ok(parts)
    }

    /// `goals[r]`: the goal conditions of role `r` as [`Formula`]s. Gates already compiled
    /// (shared with terminal, legal, next) and gates of cyclic blocks are leaves; the others
    /// are built up to `cap` nodes.
    pub(crate) fn goal_formulas(&mut self, cap: usize) -> BddResult<Vec<RoleGoals<E>>> {
        let game = self.game;
        let c = &game.circuit;
        let mut builder = FormulaBuilder::new(self.e, c, cap);
        let ni = c.num_inputs;
        let mut known = |s: u32| -> BddResult<Option<E::Bdd>> {
            if s < ni {
                // Constants and fluents; goals never read moves (GDL), which read false.
                return Ok(Some(self.signal(s)));
            }
            let g = (s - ni) as usize;
            if self.global[g].is_none() && c.block_of(g).is_some_and(|b| b.cyclic) {
                self.eval(&c.cone(&[Lit::new(s, false)]), false)?;
            }
            Ok(self.global[g].is_some().then(|| self.signal(s)))
        };
        let mut goal_formulas = Vec::new();
        for gs in &game.goals {
            let mut role = Vec::with_capacity(gs.len());
            for &(v, l) in gs {
                role.push((v, builder.build(l, &mut known)?));
            }
            goal_formulas.push(role);
        }
        Ok(goal_formulas)
    }

    /// The BDD of fluent `f` (over current variables).
    pub(crate) fn fluent(&self, f: usize) -> &E::Bdd {
        &self.fluents[f]
    }

    fn signal(&self, s: u32) -> E::Bdd {
        let nf = self.game.fluents.len() as u32;
        let ni = self.game.circuit.num_inputs;
        if s == 0 {
            self.e.constant(true)
        } else if s <= nf {
            self.fluents[(s - 1) as usize].clone()
        } else if s < ni {
            self.e.constant(self.moves[(s - nf - 1) as usize])
        } else {
            self.stored((s - ni) as usize)
                .clone()
                .expect("gate evaluated before its readers")
        }
    }

    /// The BDD of a literal whose gates have been evaluated.
    pub(crate) fn lit(&self, l: Lit) -> BddResult<E::Bdd> {
        let b = self.signal(l.signal());
        if l.is_negated() {
            self.e.not(&b)
        } else {
            Ok(b)
        }
    }

    /// The BDD of gate `g` from its inputs' BDDs: an AND from true, stopping at false; an OR
    /// from false, stopping at true.
    fn gate(&self, g: usize) -> BddResult<E::Bdd> {
        let e = self.e;
        let (ls, is_and) = match &self.game.circuit.gates[g] {
            Gate::And(ls) => (ls, true),
            Gate::Or(ls) => (ls, false),
        };
        let mut acc = e.constant(is_and);
        for &l in ls {
            let x = self.lit(l)?;
            acc = if is_and {
                e.and(&acc, &x)?
            } else {
                e.or(&acc, &x)?
            };
            let decided = if is_and {
                e.is_false(&acc)
            } else {
                e.is_true(&acc)
            };
            if decided {
                break;
            }
        }
        Ok(acc)
    }

    /// Stores the BDD of gate `g`: per joint move if the gate reads a move, else once for all.
    fn store(&mut self, g: usize, b: E::Bdd) {
        let slots = if self.dep[g] {
            &mut self.local
        } else {
            &mut self.global
        };
        slots[g] = Some(b);
    }

    /// The BDD stored for gate `g` (see [`Self::store`]).
    fn stored(&self, g: usize) -> &Option<E::Bdd> {
        if self.dep[g] {
            &self.local[g]
        } else {
            &self.global[g]
        }
    }

    /// Evaluates the gates marked in `needed` whose move dependence equals `moves_dep`, in
    /// block order; cyclic blocks are iterated from false to their least fixpoint.
    fn eval(&mut self, needed: &[bool], moves_dep: bool) -> BddResult<()> {
        let c = &self.game.circuit;
        for b in &c.blocks {
            let gates: Vec<usize> = (b.start as usize..b.end as usize)
                .filter(|&g| needed[g] && self.dep[g] == moves_dep)
                .collect();
            if gates.is_empty() {
                continue;
            }
            if !b.cyclic {
                for g in gates {
                    let v = self.gate(g)?;
                    self.store(g, v);
                }
                continue;
            }
            for &g in &gates {
                let f = self.e.constant(false);
                self.store(g, f);
            }
            loop {
                let mut changed = false;
                for &g in &gates {
                    let v = self.gate(g)?;
                    if self.stored(g).as_ref() != Some(&v) {
                        self.store(g, v);
                        changed = true;
                    }
                }
                if !changed {
                    break;
                }
            }
        }
        Ok(())
    }

    /// Evaluates the move-independent gates of the cones of `roots`.
    fn eval_global(&mut self, roots: &[Lit]) -> BddResult<()> {
        let needed = self.game.circuit.cone(roots);
        self.eval(&needed, false)
    }

    /// Sets the move signals to the joint move `jm` and evaluates the `next` cone under it
    /// (the move-independent gates must have been evaluated by [`Self::eval_global`]).
    pub(crate) fn set_joint_move(&mut self, jm: &[usize]) -> BddResult<()> {
        self.moves.fill(false);
        for (r, &m) in jm.iter().enumerate() {
            self.moves[self.move_base[r] + m] = true;
        }
        let needed = std::mem::take(&mut self.next_needed);
        let r = self.eval(&needed, true);
        self.next_needed = needed;
        r
    }
}

/// The joint moves whose moves can be legal together in a state of `domain`, with the
/// states where they are (`legal[r][m]` per role and move), role by role. Stops with
/// [`SymbolicError::Stopped`] (time limit) as soon as `expired()` says so.
pub(crate) fn joint_moves<E: BddEngine>(
    e: &E,
    legal: &[Vec<E::Bdd>],
    domain: &E::Bdd,
    limit: usize,
    expired: &dyn Fn() -> bool,
) -> Result<Vec<(JointMove, E::Bdd)>, SymbolicError> {
    let mut joint: Vec<(JointMove, E::Bdd)> = vec![(Vec::new(), domain.clone())];
    for ls in legal {
        let mut next = Vec::new();
        for (j, cond) in &joint {
            if expired() {
                return Err(SymbolicError::Stopped(StopReason::TimeLimit));
            }
            for (m, l) in ls.iter().enumerate() {
                let c2 = e.and(cond, l)?;
                if e.is_false(&c2) {
                    continue;
                }
                let mut j2 = j.clone();
                j2.push(m);
                next.push((j2, c2));
                if next.len() > limit {
                    return Err(SymbolicError::TooManyJointMoves { limit });
                }
            }
        }
        joint = next;
    }
    Ok(joint)
}

/// The BDD of every fluent under `enc`: its group's bits hold its code.
pub(crate) fn fluent_bdds<E: BddEngine>(e: &E, enc: &Encoding) -> BddResult<Vec<E::Bdd>> {
    (0..enc.num_fluents())
        .map(|f| e.cube(&enc.fluent_literals(f)))
        .collect()
}

/// States whose exactly-one groups hold a code of one of their fluents (the other codes are
/// not states). True when every code is used.
pub(crate) fn valid_codes<E: BddEngine>(e: &E, enc: &Encoding) -> BddResult<E::Bdd> {
    let mut acc = e.constant(true);
    for (g, group) in enc.fluent_groups().iter().enumerate().rev() {
        let width = enc.group_bits(g).len() as u32;
        if !group.exactly_one || group.fluents.len() == 1 << width {
            continue;
        }
        let codes = group
            .fluents
            .iter()
            .map(|&f| e.cube(&enc.fluent_literals(f)))
            .collect::<BddResult<Vec<_>>>()?;
        acc = e.and(&or_all(e, codes)?, &acc)?;
    }
    Ok(acc)
}

/// The next function of every bit the current joint move of `comp` touches (whose next value
/// is not its current value), ascending by bit. A group's bit `i` is next true iff a fluent
/// whose code has bit `i` set is next true (at most one is, by the group invariant).
pub(crate) fn next_bit_functions<E: BddEngine>(
    e: &E,
    enc: &Encoding,
    comp: &Compiler<'_, E>,
    game: &GroundGame,
) -> BddResult<Vec<(u32, E::Bdd)>> {
    let mut out = Vec::new();
    for (g, group) in enc.fluent_groups().iter().enumerate() {
        let mut nfs = Vec::with_capacity(group.fluents.len());
        let mut changed = false;
        for &f in &group.fluents {
            let nf = comp.lit(game.next[f])?;
            changed |= &nf != comp.fluent(f);
            nfs.push(nf);
        }
        if !changed {
            continue;
        }
        let bits = enc.group_bits(g);
        let width = bits.len() as u32;
        for (i, b) in bits.enumerate() {
            let mask = 1u32 << (width - 1 - i as u32);
            let set: Vec<E::Bdd> = nfs
                .iter()
                .enumerate()
                .filter(|(k, _)| group.code(*k) & mask != 0)
                .map(|(_, nf)| nf.clone())
                .collect();
            let nb = or_all(e, set)?;
            if nb != e.var(Encoding::current_bit_var(b)) {
                out.push((b, nb));
            }
        }
    }
    Ok(out)
}
