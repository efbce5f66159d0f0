//! Compilation of a ground game's circuit into BDDs over the current variables: the
//! [`Compiler`] (memoised gates, move-independent gates once, moves substituted as constants per
//! joint move, cyclic blocks iterated from false to their least fixpoint), the joint moves that
//! can be legal together ([`joint_moves`]); the next function of every bit a joint move touches
//! is in [`crate::next_bits`]. Used by the symbolic game and by the mutex proof.

use symgame_bdd::{BddEngine, BddError, BddResult, BiodivineEngine, EngineConfig};
use symgame_ground::{Gate, GroundGame, Lit};
use symgame_limits::CoarseDeadline;

use crate::disjunction::{disjuncts, or_all, reduce_balanced, SizeWatch};
use crate::encoding::Encoding;
use crate::formula::{Formula, FormulaBuilder};

mod moves;

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
    /// Per move-dependent gate of the `next` cone: its BDD with every move signal false (built
    /// on the first [`Self::set_joint_move`]); `local` overrides it for the gates the current
    /// joint move reaches.
    base: Option<Vec<Option<E::Bdd>>>,
    /// Per fluent: whether its next function with every move false differs from the fluent.
    base_changed: Vec<bool>,
    /// Per signal: the gates of the `next` cone that read it.
    readers: Vec<Vec<u32>>,
    /// Gates re-evaluated for the current joint move, ascending (their `local` slots are set).
    dirty: Vec<usize>,
    /// Per gate: the stamp of the last joint move that reached it.
    mark: Vec<u32>,
    stamp: u32,
    /// No gate is evaluated after this instant ([`BddError::Budget`]); with it on the coarse
    /// clock, asked before every gate (the precise clock's reads were a tenth of the time).
    deadline: Option<(std::time::Instant, CoarseDeadline)>,
    /// A move-independent gate of more nodes than this fails with [`BddError::Budget`].
    gate_nodes: Option<usize>,
    /// A gate that reads a move, or a step towards it, of more nodes than this fails with
    /// [`BddError::Budget`] ([`Self::cap_move_gates`]).
    move_gate_nodes: Option<SizeWatch>,
    /// The care set, with the node count above which a gate is cut to it. When set, a
    /// signal's BDD is only right within the care set: it is any function that agrees with
    /// the signal there (exact while small; a gate or step of a gate over the node count is
    /// replaced by its AND with the set, and a gate of a cyclic block always is, so that the
    /// fixpoint iteration compares values that are exact within the set).
    care: Option<(E::Bdd, usize)>,
    /// Per move signal: its BDD over move variables, while the `next` cone is evaluated with
    /// the moves as variables ([`Self::set_symbolic_moves`]); `None`: moves are constants.
    move_bdds: Option<Vec<E::Bdd>>,
}

impl<'a, E: BddEngine> Compiler<'a, E> {
    /// A compiler whose fluent `f` reads `fluents[f]`.
    fn new(e: &'a E, game: &'a GroundGame, fluents: Vec<E::Bdd>) -> Self {
        let c = &game.circuit;
        let dep = game.move_dependent_gates();
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
            base: None,
            base_changed: Vec::new(),
            readers: Vec::new(),
            dirty: Vec::new(),
            mark: vec![0; c.gates.len()],
            stamp: 0,
            deadline: None,
            gate_nodes: None,
            move_gate_nodes: None,
            care: None,
            move_bdds: None,
        }
    }

    /// A compiler over the fluent BDDs of `enc` with the move-independent gates of every cone
    /// evaluated (the terminal disjuncts', the legal conditions' and the next functions'), and
    /// the terminal condition as a disjunction of parts ([`disjuncts`]; never built as one BDD
    /// unless asked for). Past `deadline` no gate is evaluated: [`BddError::Budget`].
    pub(crate) fn prepared(
        e: &'a E,
        game: &'a GroundGame,
        enc: &Encoding,
        deadline: Option<std::time::Instant>,
    ) -> BddResult<(Self, Vec<Lit>)> {
        Self::prepared_with(e, game, enc, deadline, None)
    }

    /// [`Self::prepared`] where a move-independent gate of the prepared cones with more than
    /// `gate_nodes` nodes fails with [`BddError::Budget`] (the caller falls back to compiling
    /// within each layer).
    pub(crate) fn prepared_with(
        e: &'a E,
        game: &'a GroundGame,
        enc: &Encoding,
        deadline: Option<std::time::Instant>,
        gate_nodes: Option<usize>,
    ) -> BddResult<(Self, Vec<Lit>)> {
        Self::prepared_cones(e, game, enc, deadline, gate_nodes, true)
    }

    /// [`Self::prepared_with`], with the terminal cone only if `terminal`: without it, the
    /// terminal disjuncts are returned but not compiled (a game whose terminal condition is
    /// too large over all states, cut within each layer instead).
    pub(crate) fn prepared_cones(
        e: &'a E,
        game: &'a GroundGame,
        enc: &Encoding,
        deadline: Option<std::time::Instant>,
        gate_nodes: Option<usize>,
        terminal: bool,
    ) -> BddResult<(Self, Vec<Lit>)> {
        let mut comp = Compiler::new(e, game, fluent_bdds(e, enc)?);
        comp.deadline = deadline.map(|d| (d, CoarseDeadline::new(d)));
        comp.gate_nodes = gate_nodes;
        let term_leaves = comp.eval_cones(false, terminal)?;
        // The cap is for the conditions over all states, not for the gates of one joint move.
        comp.gate_nodes = None;
        Ok((comp, term_leaves))
    }

    /// Evaluates the move-independent gates of the cones of the terminal disjuncts (if
    /// `terminal`) and, unless `terminal_only`, of the legal conditions and next functions;
    /// returns the disjuncts.
    fn eval_cones(&mut self, terminal_only: bool, terminal: bool) -> BddResult<Vec<Lit>> {
        let game = self.game;
        let mut term_leaves = Vec::new();
        disjuncts(&game.circuit, game.terminal, &mut term_leaves);
        // Within a care set the terminal disjuncts are built as formulas when asked
        // ([`Self::and_not_terminal_formulas`]), not compiled with the other cones.
        let mut roots: Vec<Lit> = if self.care.is_some() || !terminal {
            Vec::new()
        } else {
            term_leaves.clone()
        };
        if !terminal_only {
            roots.extend(game.legal.iter().flatten().copied());
            roots.extend(game.next.iter().copied());
        }
        self.eval_global(&roots)?;
        Ok(term_leaves)
    }

    /// A compiler that computes every signal only within the states of `care` (a signal's BDD
    /// agrees with the signal on `care`, and is cut to `care` when over `cut_nodes` nodes),
    /// with the move-independent gates of the cones of the legal conditions and next functions
    /// evaluated unless `terminal_only`. Returns the terminal disjuncts, which are not compiled
    /// here: [`Self::and_not_terminal_formulas`] builds them as formulas within a set. Used to
    /// compile a game per layer: within a small layer even a condition that is huge over all
    /// states is small. Callers must use every result only within `care` (conjoined with a
    /// subset of it).
    pub(crate) fn within(
        e: &'a E,
        game: &'a GroundGame,
        enc: &Encoding,
        care: &E::Bdd,
        cut_nodes: usize,
        terminal_only: bool,
        deadline: Option<std::time::Instant>,
    ) -> BddResult<(Self, Vec<Lit>)> {
        let mut comp = Compiler::new(e, game, fluent_bdds(e, enc)?);
        comp.deadline = deadline.map(|d| (d, CoarseDeadline::new(d)));
        // Small BDDs stay exact (cheap to combine); a larger one is cut to the care set, so
        // that no operation combines two large BDDs over states outside the set.
        comp.care = Some((care.clone(), cut_nodes));
        let term_leaves = comp.eval_cones(terminal_only, true)?;
        Ok((comp, term_leaves))
    }

    /// The care set of a compiler made by [`Self::within`]: its signals are right only there.
    pub(crate) fn care(&self) -> Option<&E::Bdd> {
        self.care.as_ref().map(|(care, _)| care)
    }

    /// From now on, a gate that reads a move (or a step towards it) of more than `cap` nodes
    /// fails with [`BddError::Budget`]: for a caller with a fallback, such as relations over
    /// all states that can instead be compiled within each layer (wargame03: one joint move's
    /// gates filled 16 M nodes in 20 s over all states, and take 0.2 s within a layer).
    pub(crate) fn cap_move_gates(&mut self, cap: Option<usize>) {
        self.move_gate_nodes = cap.map(SizeWatch::new);
    }

    /// `v` cut to the care set if there is one and `v` has more nodes than the cut size (as
    /// every gate is): small BDDs stay exact, so that [`Self::same`] still finds a bit that
    /// does not change.
    pub(crate) fn cut_large(&self, v: E::Bdd) -> BddResult<E::Bdd> {
        self.cut(false, v)
    }

    /// Whether `a` and `b` are the same BDD. Callers use it to skip work (a bit whose next
    /// function is its current value), so "no" is always safe: within a care set, two functions
    /// that agree only on the set are taken as different (checking within the set costs an
    /// operation over the whole set, per fluent and joint move).
    pub(crate) fn same(&self, a: &E::Bdd, b: &E::Bdd) -> bool {
        a == b
    }

    /// `v`, the BDD of a gate or of a step towards it, cut to the care set if there is one
    /// and `v` has more nodes than the cut size, or `always` (a gate of a cyclic block).
    fn cut(&self, always: bool, v: E::Bdd) -> BddResult<E::Bdd> {
        let Some((care, cap)) = &self.care else {
            return Ok(v);
        };
        if always || self.e.node_count_exceeds(&v, *cap) {
            self.e.and(&v, care)
        } else {
            Ok(v)
        }
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

    /// `s AND NOT terminal`, where `leaves` are the terminal disjuncts: each built as a
    /// [`Formula`] (gates already compiled are its leaves, the others combined up to `cap`
    /// nodes) and taken away from what is left of `s`, within it ([`Formula::and_with`]), so
    /// that a condition such as "no legal move" is never built over all states or even over
    /// all of `s`: its conjuncts meet a set that shrinks as they go.
    pub(crate) fn and_not_terminal_formulas(
        &mut self,
        s: &E::Bdd,
        leaves: &[Lit],
        cap: usize,
    ) -> BddResult<E::Bdd> {
        let e = self.e;
        let game = self.game;
        let c = &game.circuit;
        let mut builder = FormulaBuilder::new(e, c, cap).with_deadline(self.deadline.map(|d| d.0));
        let mut acc = s.clone();
        for &l in leaves {
            if e.is_false(&acc) {
                break;
            }
            let f = builder.build(l, &mut |sig, whole| self.formula_leaf(sig, whole))?;
            let t = f.and_with_checked(e, &acc, &|| self.check_deadline())?;
            acc = e.and_not(&acc, &t)?;
        }
        Ok(acc)
    }

    /// `goals[r]`: the goal conditions of role `r` as [`Formula`]s. Gates already compiled
    /// (shared with terminal, legal, next) and gates of cyclic blocks are leaves; the others
    /// are built up to `cap` nodes.
    pub(crate) fn goal_formulas(&mut self, cap: usize) -> BddResult<Vec<RoleGoals<E>>> {
        let game = self.game;
        let c = &game.circuit;
        let mut builder =
            FormulaBuilder::new(self.e, c, cap).with_deadline(self.deadline.map(|d| d.0));
        let mut known = |s: u32, whole: bool| self.formula_leaf(s, whole);
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

    /// What a [`FormulaBuilder`] asks of the compiler for signal `s` (see
    /// [`FormulaBuilder::build`]): inputs (constants, fluents; goal and terminal conditions
    /// never read moves in GDL, which read false) and gates already compiled are leaves; a
    /// gate of a cyclic block, or any gate if `whole`, is compiled (its move-independent cone)
    /// and is a leaf; other gates are `None`, for the builder to descend into.
    fn formula_leaf(&mut self, s: u32, whole: bool) -> BddResult<Option<E::Bdd>> {
        // Asked once per signal the builder meets: its merges between two asks are bounded.
        self.check_deadline()?;
        let c = &self.game.circuit;
        let ni = c.num_inputs;
        if s < ni {
            return Ok(Some(self.signal(s)));
        }
        let g = (s - ni) as usize;
        if self.global[g].is_none() && (whole || c.block_of(g).is_some_and(|b| b.cyclic)) {
            self.eval(&c.cone(&[Lit::new(s, false)]), false)?;
        }
        Ok(self.global[g].is_some().then(|| self.signal(s)))
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
            match &self.move_bdds {
                Some(m) => m[(s - nf - 1) as usize].clone(),
                None => self.e.constant(self.moves[(s - nf - 1) as usize]),
            }
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
    /// from false, stopping at true. A wide gate (the OR of every legal move in a "no move
    /// left" condition) is reduced as a balanced tree ([`reduce_balanced`]).
    fn gate(&self, g: usize) -> BddResult<E::Bdd> {
        const WIDE: usize = 8;
        let e = self.e;
        self.check_deadline()?;
        let (ls, is_and) = match &self.game.circuit.gates[g] {
            Gate::And(ls) => (ls, true),
            Gate::Or(ls) => (ls, false),
        };
        // Within a care set: cut every step of a cyclic block's gate, others when large.
        let cut_always =
            self.care.is_some() && self.game.circuit.block_of(g).is_some_and(|b| b.cyclic);
        let cap = self.move_gate_nodes.as_ref().filter(|_| self.dep[g]);
        let op = |a: &E::Bdd, b: &E::Bdd| {
            let v = if is_and { e.and(a, b) } else { e.or(a, b) }?;
            let v = self.cut(cut_always, v)?;
            match cap {
                Some(watch) if watch.over(e, &[&v]) => Err(BddError::Budget(format!(
                    "a condition of one joint move of more than {} nodes",
                    watch.cap
                ))),
                _ => Ok(v),
            }
        };
        let decided = |x: &E::Bdd| if is_and { e.is_false(x) } else { e.is_true(x) };
        if ls.len() > WIDE {
            let mut v = Vec::with_capacity(ls.len());
            for &l in ls {
                let x = self.lit(l)?;
                if decided(&x) {
                    return Ok(x);
                }
                v.push(x);
            }
            let step = |a: &E::Bdd, b: &E::Bdd| {
                self.check_deadline()?;
                op(a, b)
            };
            let done = reduce_balanced(v, step, decided)?;
            return Ok(done.unwrap_or_else(|| e.constant(is_and)));
        }
        let mut acc = e.constant(is_and);
        for &l in ls {
            let x = self.lit(l)?;
            acc = op(&acc, &x)?;
            if decided(&acc) {
                break;
            }
        }
        Ok(acc)
    }

    /// Fails once the deadline given to [`Self::prepared`] has passed.
    pub(crate) fn check_deadline(&self) -> BddResult<()> {
        match self.deadline {
            Some((_, d)) if d.passed() => Err(BddError::Budget("set-up deadline passed".into())),
            _ => Ok(()),
        }
    }

    /// Fails when `v`, the BDD of move-independent gate `g`, has more nodes than the cap
    /// given to [`Self::prepared_with`].
    fn check_size(&self, g: usize, v: &E::Bdd) -> BddResult<()> {
        match self.gate_nodes {
            Some(cap) if !self.dep[g] && self.e.node_count_exceeds(v, cap) => {
                Err(BddError::Budget(format!(
                    "a move-independent condition of more than {cap} nodes"
                )))
            }
            _ => Ok(()),
        }
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
        if !self.dep[g] {
            return &self.global[g];
        }
        match (&self.local[g], &self.base) {
            (None, Some(base)) => &base[g],
            (local, _) => local,
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
                    self.check_size(g, &v)?;
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
                    self.check_size(g, &v)?;
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
}

/// Whether the move-independent conditions of `game` (the gates [`Compiler::prepared`]
/// evaluates), and then the gates of a first joint move, compile with no gate over
/// `max_nodes` nodes and no operation building more, before `deadline`:
/// `Err(`[`BddError::Budget`]`)` if not. Tried on a biodivine engine with that budget on
/// every operation, because an operation of the main engine cannot be stopped once started
/// (one operation of a huge condition can run for minutes). The first joint move of a
/// compilation evaluates every gate that reads a move (the base the later ones change a few
/// of), so one operation of it can be the largest of all: hexPie's ran out of 16 M nodes in
/// the main engine after 18 s, past the time limit.
///
/// The legal conditions, the next functions and the first joint move are tried first, then
/// the terminal condition: `Ok(false)` when only the terminal condition is over `max_nodes`
/// (before the deadline), as in quad, whose "four stones of one colour on the corners of a
/// square" is huge over all states while its moves and next functions are small.
pub(crate) fn conditions_fit(
    game: &GroundGame,
    enc: &Encoding,
    deadline: Option<std::time::Instant>,
    max_nodes: usize,
) -> BddResult<bool> {
    let e = BiodivineEngine::new(enc.num_vars(), &EngineConfig::small())?
        .with_budget(deadline, Some(max_nodes));
    let (mut comp, leaves) =
        Compiler::prepared_cones(&e, game, enc, deadline, Some(max_nodes), false)?;
    if game.roles.iter().all(|r| !r.moves.is_empty()) {
        comp.cap_move_gates(Some(max_nodes));
        comp.set_joint_move(&vec![0; game.roles.len()])?;
    }
    comp.gate_nodes = Some(max_nodes);
    match comp.eval_global(&leaves) {
        Ok(()) => Ok(true),
        Err(BddError::Budget(_)) if deadline.is_none_or(|d| std::time::Instant::now() < d) => {
            Ok(false)
        }
        Err(err) => Err(err),
    }
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

#[cfg(test)]
mod tests;
