//! A ground game compiled to BDDs: state predicates and the partitioned transition relation.

use std::fmt;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};
use symgame_bdd::{BddEngine, BddError, BddResult, Var, VarSet};
use symgame_ground::{Gate, GroundGame, Lit};

use crate::encoding::{Encoding, Order};
use crate::formula::{Formula, FormulaBuilder};

/// A joint move: the index of one move per role, in role order (`joint[r]` indexes
/// `game.roles[r].moves`).
pub type JointMove = Vec<usize>;

/// Options for building a [`SymbolicGame`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SymbolicOptions {
    /// Variable order of the fluents.
    pub order: Order,
    /// Give up ([`SymbolicError::TooManyJointMoves`]) when the number of joint moves that
    /// can be legal together exceeds this.
    pub max_joint_moves: usize,
    /// Clustering: consecutive per-joint-move relations are merged (with frame axioms for the
    /// fluents only one of them touches) while the merged relation has at most this many BDD
    /// nodes. 0 disables clustering (one partition per joint move).
    pub cluster_nodes: usize,
    /// A per-joint-move relation whose conjunction grows beyond this many BDD nodes is kept as
    /// a list of conjuncts instead, and applied conjunct by conjunct to the state set (slower
    /// per image, but avoids relations that are huge over unreachable states).
    pub max_relation_nodes: usize,
    /// Compile the goal conditions (as [`Formula`]s: see [`SymbolicGame::goal_formulas`]).
    /// Reachability does not need them; with `false` there are none.
    pub goals: bool,
    /// A goal condition's gate is kept as one BDD while it has at most this many nodes, else as
    /// a formula over its inputs ("red has a line" on Connect Four 6×5 is 34 million nodes as
    /// one BDD, 69 small lines as a formula).
    pub formula_leaf_nodes: usize,
}

impl Default for SymbolicOptions {
    fn default() -> Self {
        SymbolicOptions {
            order: Order::Heuristic,
            max_joint_moves: 100_000,
            cluster_nodes: 0,
            max_relation_nodes: 200_000,
            goals: true,
            formula_leaf_nodes: 20_000,
        }
    }
}

/// Errors when building a symbolic game or running a search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SymbolicError {
    /// A BDD operation failed (node table full).
    Bdd(BddError),
    /// More joint moves can be legal together than [`SymbolicOptions::max_joint_moves`].
    TooManyJointMoves {
        /// The limit that was exceeded.
        limit: usize,
    },
    /// A role with that name does not exist.
    UnknownRole(String),
    /// A search stopped before it finished.
    Stopped(crate::search::StopReason),
}

impl fmt::Display for SymbolicError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SymbolicError::Bdd(e) => write!(f, "{e}"),
            SymbolicError::TooManyJointMoves { limit } => write!(
                f,
                "more than {limit} joint moves can be legal together; the per-joint-move \
                 transition partition is too large for this game"
            ),
            SymbolicError::UnknownRole(r) => write!(f, "unknown role {r:?}"),
            SymbolicError::Stopped(why) => write!(f, "search stopped: {why}"),
        }
    }
}

impl std::error::Error for SymbolicError {}

impl From<BddError> for SymbolicError {
    fn from(e: BddError) -> Self {
        SymbolicError::Bdd(e)
    }
}

/// One part of the partitioned transition relation.
///
/// `relation(x, x')` = `OR` over its joint moves `j` of
/// `legal_j(x) AND AND_{f in touched} (x_f' <-> next_f|j(x))`, where the fluents not touched
/// by `j` but touched by another joint move of the part get the frame axiom `x_f' <-> x_f`.
/// Fluents outside `touched` keep their value and are not mentioned. Terminal states are
/// excluded by the callers ([`SymbolicGame::image`] and [`SymbolicGame::pre_image`]), not by
/// the relation. A relation too large to build is kept as the conjunct list `conjuncts`
/// (then `relation` is only `legal_j`).
pub struct Partition<E: BddEngine> {
    /// The joint moves this part covers (one unless clustered).
    pub joint_moves: Vec<JointMove>,
    /// The relation over current variables and the next variables of `touched`.
    pub relation: E::Bdd,
    /// Further conjuncts of the relation (empty unless it was too large to build): pairs of a
    /// touched fluent's next variable and `x_f' <-> next_f|j(x)`, by descending position.
    pub conjuncts: Vec<(Var, E::Bdd)>,
    /// The fluents whose next value is constrained, sorted by position.
    pub touched: Vec<usize>,
    quant_cur: VarSet,
    quant_next: VarSet,
    to_cur: Vec<(Var, Var)>,
    to_next: Vec<(Var, Var)>,
}

impl<E: BddEngine> Clone for Partition<E> {
    fn clone(&self) -> Self {
        Partition {
            joint_moves: self.joint_moves.clone(),
            relation: self.relation.clone(),
            conjuncts: self.conjuncts.clone(),
            touched: self.touched.clone(),
            quant_cur: self.quant_cur.clone(),
            quant_next: self.quant_next.clone(),
            to_cur: self.to_cur.clone(),
            to_next: self.to_next.clone(),
        }
    }
}

impl<E: BddEngine> fmt::Debug for Partition<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Partition")
            .field("joint_moves", &self.joint_moves)
            .field("relation", &self.relation)
            .field("touched", &self.touched)
            .finish()
    }
}

impl<E: BddEngine> Partition<E> {
    fn new(
        enc: &Encoding,
        joint_moves: Vec<JointMove>,
        relation: E::Bdd,
        conjuncts: Vec<(Var, E::Bdd)>,
        mut touched: Vec<usize>,
    ) -> Self {
        touched.sort_by_key(|&f| enc.position(f));
        touched.dedup();
        Partition {
            joint_moves,
            relation,
            conjuncts,
            quant_cur: touched.iter().map(|&f| enc.current_var(f)).collect(),
            quant_next: touched.iter().map(|&f| enc.next_var(f)).collect(),
            to_cur: touched
                .iter()
                .map(|&f| (enc.next_var(f), enc.current_var(f)))
                .collect(),
            to_next: touched
                .iter()
                .map(|&f| (enc.current_var(f), enc.next_var(f)))
                .collect(),
            touched,
        }
    }

    /// The successors of `s` under this part (a state set over current variables).
    pub fn image(&self, e: &E, s: &E::Bdd) -> BddResult<E::Bdd> {
        let r = if self.conjuncts.is_empty() {
            e.and_exists(s, &self.relation, &self.quant_cur)?
        } else {
            let mut acc = e.and(s, &self.relation)?;
            let (last, rest) = self.conjuncts.split_last().expect("non-empty");
            for (_, c) in rest {
                acc = e.and(&acc, c)?;
            }
            e.and_exists(&acc, &last.1, &self.quant_cur)?
        };
        e.rename(&r, &self.to_cur)
    }

    /// This part with its relation restricted to current states in `domain`, built as one BDD
    /// (the conjunct list, if any, is conjoined onto the domain).
    pub fn restricted_to(&self, e: &E, domain: &E::Bdd) -> BddResult<Self> {
        let mut rel = e.and(&self.relation, domain)?;
        for (_, c) in &self.conjuncts {
            rel = e.and(&rel, c)?;
        }
        let mut p = self.clone();
        p.relation = rel;
        p.conjuncts.clear();
        Ok(p)
    }

    /// The predecessors under this part of states in `s`.
    pub fn pre_image(&self, e: &E, s: &E::Bdd) -> BddResult<E::Bdd> {
        self.pre_image_within(e, s, None)
    }

    /// The predecessors under this part of states in `s` that lie in `domain`. With a
    /// conjunct list, the domain restricts the intermediate results too (without it, the
    /// pre-image over all assignments, most unreachable, can blow up).
    pub fn pre_image_within(
        &self,
        e: &E,
        s: &E::Bdd,
        domain: Option<&E::Bdd>,
    ) -> BddResult<E::Bdd> {
        let primed = e.rename(s, &self.to_next)?;
        if self.conjuncts.is_empty() {
            let r = e.and_exists(&self.relation, &primed, &self.quant_next)?;
            return match domain {
                Some(d) => e.and(&r, d),
                None => Ok(r),
            };
        }
        // Substitute x_f' := next_f|j(x) one fluent at a time, bottom-up.
        let cond = match domain {
            Some(d) => e.and(&self.relation, d)?,
            None => self.relation.clone(),
        };
        let mut acc = e.and(&cond, &primed)?;
        for (v, c) in &self.conjuncts {
            acc = e.and_exists(&acc, c, &VarSet::from(vec![*v]))?;
        }
        Ok(acc)
    }
}

/// A goal value and its condition as one BDD.
pub type GoalBdd<E> = (u8, <E as BddEngine>::Bdd);

/// A ground game compiled to BDDs over an [`Encoding`], on engine `E`.
pub struct SymbolicGame<'e, E: BddEngine> {
    engine: &'e E,
    encoding: Encoding,
    role_names: Vec<String>,
    init: E::Bdd,
    init_fluents: Vec<usize>,
    terminal_parts: Vec<E::Bdd>,
    terminal: OnceLock<E::Bdd>,
    legal: Vec<Vec<E::Bdd>>,
    goal_formulas: Vec<Vec<(u8, Formula<E>)>>,
    goals: OnceLock<Vec<Vec<GoalBdd<E>>>>,
    partitions: Vec<Partition<E>>,
    clusters: Vec<Partition<E>>,
    has_successor: OnceLock<E::Bdd>,
}

/// Compiles circuit signals to BDDs over the current variables, with move signals as constants.
struct Compiler<'a, E: BddEngine> {
    e: &'a E,
    game: &'a GroundGame,
    enc: &'a Encoding,
    /// Per gate: whether it depends on a move signal.
    dep: Vec<bool>,
    /// Per gate: BDD of a move-independent gate.
    global: Vec<Option<E::Bdd>>,
    /// Per gate: BDD of a move-dependent gate under the current joint move.
    local: Vec<Option<E::Bdd>>,
    /// Per move signal (offset from the first move signal): its value in the current joint move.
    moves: Vec<bool>,
}

impl<'a, E: BddEngine> Compiler<'a, E> {
    fn new(e: &'a E, game: &'a GroundGame, enc: &'a Encoding) -> Self {
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
        Compiler {
            e,
            game,
            enc,
            dep,
            global: vec![None; c.gates.len()],
            local: vec![None; c.gates.len()],
            moves: vec![false; game.num_moves()],
        }
    }

    fn signal(&self, s: u32) -> E::Bdd {
        let nf = self.game.fluents.len() as u32;
        let ni = self.game.circuit.num_inputs;
        if s == 0 {
            self.e.constant(true)
        } else if s <= nf {
            self.e.var(self.enc.current_var((s - 1) as usize))
        } else if s < ni {
            self.e.constant(self.moves[(s - nf - 1) as usize])
        } else {
            let g = (s - ni) as usize;
            let slot = if self.dep[g] {
                &self.local[g]
            } else {
                &self.global[g]
            };
            slot.clone().expect("gate evaluated before its readers")
        }
    }

    fn lit(&self, l: Lit) -> BddResult<E::Bdd> {
        let b = self.signal(l.signal());
        if l.is_negated() {
            self.e.not(&b)
        } else {
            Ok(b)
        }
    }

    fn gate(&self, g: usize) -> BddResult<E::Bdd> {
        let e = self.e;
        match &self.game.circuit.gates[g] {
            Gate::And(ls) => {
                let mut acc = e.constant(true);
                for &l in ls {
                    acc = e.and(&acc, &self.lit(l)?)?;
                    if e.is_false(&acc) {
                        break;
                    }
                }
                Ok(acc)
            }
            Gate::Or(ls) => {
                let mut acc = e.constant(false);
                for &l in ls {
                    acc = e.or(&acc, &self.lit(l)?)?;
                    if e.is_true(&acc) {
                        break;
                    }
                }
                Ok(acc)
            }
        }
    }

    fn store(&mut self, g: usize, b: E::Bdd) {
        if self.dep[g] {
            self.local[g] = Some(b);
        } else {
            self.global[g] = Some(b);
        }
    }

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
}

/// The disjuncts of `l`: flattens non-negated `or` gates and negated `and` gates of acyclic
/// blocks; constant-false disjuncts are dropped.
fn disjuncts(c: &symgame_ground::Circuit, l: Lit, out: &mut Vec<Lit>) {
    if l == Lit::FALSE {
        return;
    }
    let s = l.signal();
    if s >= c.num_inputs {
        let g = (s - c.num_inputs) as usize;
        let acyclic = !c.block_of(g).is_some_and(|b| b.cyclic);
        match (&c.gates[g], l.is_negated()) {
            (Gate::Or(ls), false) if acyclic => {
                for &x in ls {
                    disjuncts(c, x, out);
                }
                return;
            }
            (Gate::And(ls), true) if acyclic => {
                for &x in ls {
                    disjuncts(c, !x, out);
                }
                return;
            }
            _ => {}
        }
    }
    out.push(l);
}

/// Builds `x_f' <-> x_f` for every `f` in `fluents` (sorted by position), bottom-up.
fn frame<E: BddEngine>(e: &E, enc: &Encoding, fluents: &[usize]) -> BddResult<E::Bdd> {
    let mut acc = e.constant(true);
    for &f in fluents.iter().rev() {
        let eq = e.iff(&e.var(enc.next_var(f)), &e.var(enc.current_var(f)))?;
        acc = e.and(&eq, &acc)?;
    }
    Ok(acc)
}

/// Merges two partitions into one relation over the union of their touched fluents.
fn merge<E: BddEngine>(
    e: &E,
    enc: &Encoding,
    a: &Partition<E>,
    b: &Partition<E>,
) -> BddResult<Partition<E>> {
    let only = |x: &Partition<E>, y: &Partition<E>| -> Vec<usize> {
        y.touched
            .iter()
            .copied()
            .filter(|f| !x.touched.contains(f))
            .collect()
    };
    let fa = frame(e, enc, &only(a, b))?;
    let fb = frame(e, enc, &only(b, a))?;
    let ra = e.and(&a.relation, &fa)?;
    let rb = e.and(&b.relation, &fb)?;
    let rel = e.or(&ra, &rb)?;
    let mut joint = a.joint_moves.clone();
    joint.extend(b.joint_moves.iter().cloned());
    let mut touched = a.touched.clone();
    touched.extend(b.touched.iter().copied());
    Ok(Partition::new(enc, joint, rel, Vec::new(), touched))
}

/// OR of many BDDs as a balanced tree.
pub(crate) fn or_all<E: BddEngine>(e: &E, mut v: Vec<E::Bdd>) -> BddResult<E::Bdd> {
    if v.is_empty() {
        return Ok(e.constant(false));
    }
    while v.len() > 1 {
        let mut next = Vec::with_capacity(v.len().div_ceil(2));
        let mut it = v.into_iter();
        while let Some(a) = it.next() {
            match it.next() {
                Some(b) => next.push(e.or(&a, &b)?),
                None => next.push(a),
            }
        }
        v = next;
    }
    Ok(v.pop().expect("non-empty"))
}

impl<'e, E: BddEngine> SymbolicGame<'e, E> {
    /// Compiles `game` on `engine`, which must have at least `encoding.num_vars()` variables
    /// (use [`Encoding::new`] with `opts.order` first, then create the engine).
    ///
    /// Joint moves are enumerated role by role, keeping only those whose moves can be legal
    /// together in some state (the conjunction of their `legal` BDDs is satisfiable). In
    /// turn-taking games this is the mover's moves times
    /// the others' single `noop`. Each joint move becomes one [`Partition`]; the moves are
    /// substituted as constants into the `next` circuit, and fluents whose next function is the
    /// identity for that joint move are left out of its relation (frame by omission).
    /// Limit: games with a large product of simultaneous moves get one relation per joint move
    /// (see [`SymbolicOptions::max_joint_moves`]).
    pub fn new(
        engine: &'e E,
        game: &GroundGame,
        encoding: Encoding,
        opts: &SymbolicOptions,
    ) -> Result<Self, SymbolicError> {
        let e = engine;
        let enc = &encoding;
        let c = &game.circuit;
        let mut comp = Compiler::new(e, game, enc);

        // Terminal as a disjunction of parts (never built as one BDD unless asked for).
        let mut term_leaves = Vec::new();
        disjuncts(c, game.terminal, &mut term_leaves);
        // Move-independent gates of every cone, once.
        let mut roots: Vec<Lit> = term_leaves.clone();
        roots.extend(game.legal.iter().flatten().copied());
        roots.extend(game.next.iter().copied());
        let needed = c.cone(&roots);
        comp.eval(&needed, false)?;

        let mut terminal_parts = Vec::new();
        for &l in &term_leaves {
            let b = comp.lit(l)?;
            if e.is_true(&b) {
                terminal_parts = vec![b];
                break;
            }
            if !e.is_false(&b) {
                terminal_parts.push(b);
            }
        }
        let legal = game
            .legal
            .iter()
            .map(|ls| ls.iter().map(|&l| comp.lit(l)).collect())
            .collect::<BddResult<Vec<Vec<E::Bdd>>>>()?;
        // Goals as formulas: gates already compiled (shared with terminal, legal, next) and
        // gates of cyclic blocks are leaves; the others are built up to the leaf size.
        let mut goal_formulas = Vec::new();
        if opts.goals {
            let mut builder = FormulaBuilder::new(e, c, opts.formula_leaf_nodes);
            let ni = c.num_inputs;
            let mut known = |s: u32| -> BddResult<Option<E::Bdd>> {
                if s < ni {
                    // Constants and fluents; goals never read moves (GDL), which read false.
                    return Ok(Some(comp.signal(s)));
                }
                let g = (s - ni) as usize;
                if comp.global[g].is_none() && c.block_of(g).is_some_and(|b| b.cyclic) {
                    comp.eval(&c.cone(&[Lit::new(s, false)]), false)?;
                }
                Ok(comp.global[g].is_some().then(|| comp.signal(s)))
            };
            for gs in &game.goals {
                let mut role = Vec::with_capacity(gs.len());
                for &(v, l) in gs {
                    role.push((v, builder.build(l, &mut known)?));
                }
                goal_formulas.push(role);
            }
        }
        let mut init_vals = vec![false; game.fluents.len()];
        for &f in &game.init {
            init_vals[f] = true;
        }
        let init = e.cube(
            &(0..game.fluents.len())
                .map(|f| (enc.current_var(f), init_vals[f]))
                .collect::<Vec<_>>(),
        )?;

        // Joint moves that can be legal together.
        let mut joint: Vec<(JointMove, E::Bdd)> = vec![(Vec::new(), e.constant(true))];
        for ls in &legal {
            let mut next = Vec::new();
            for (j, cond) in &joint {
                for (m, l) in ls.iter().enumerate() {
                    let c2 = e.and(cond, l)?;
                    if e.is_false(&c2) {
                        continue;
                    }
                    let mut j2 = j.clone();
                    j2.push(m);
                    next.push((j2, c2));
                    if next.len() > opts.max_joint_moves {
                        return Err(SymbolicError::TooManyJointMoves {
                            limit: opts.max_joint_moves,
                        });
                    }
                }
            }
            joint = next;
        }

        // One relation per joint move.
        let next_needed = c.cone(&game.next);
        let mut partitions = Vec::with_capacity(joint.len());
        let move_base: Vec<usize> = (0..game.roles.len())
            .map(|r| (game.move_signal(r, 0) as usize) - game.fluents.len() - 1)
            .collect();
        for (jm, cond) in joint {
            comp.moves.fill(false);
            for (r, &m) in jm.iter().enumerate() {
                comp.moves[move_base[r] + m] = true;
            }
            comp.eval(&next_needed, true)?;
            let mut touched = Vec::new();
            let mut fns = Vec::new();
            for p in (0..enc.num_fluents()).rev() {
                let f = enc.fluent_at(p);
                let nf = comp.lit(game.next[f])?;
                if nf != e.var(enc.current_var(f)) {
                    touched.push(f);
                    fns.push((f, nf));
                }
            }
            // Bottom-up: largest position first.
            let mut eqs = Vec::with_capacity(fns.len());
            let mut acc = Some(e.constant(true));
            for (f, nf) in &fns {
                let eq = e.iff(&e.var(enc.next_var(*f)), nf)?;
                if let Some(a) = &acc {
                    let a2 = e.and(&eq, a)?;
                    acc = (e.node_count(&a2) <= opts.max_relation_nodes).then_some(a2);
                }
                eqs.push((enc.next_var(*f), eq));
            }
            let part = match acc {
                Some(a) => {
                    let rel = e.and(&cond, &a)?;
                    if e.is_false(&rel) {
                        continue;
                    }
                    Partition::new(enc, vec![jm], rel, Vec::new(), touched)
                }
                None => Partition::new(enc, vec![jm], cond, eqs, touched),
            };
            partitions.push(part);
        }
        drop(comp);

        let clusters = if opts.cluster_nodes == 0 {
            partitions.clone()
        } else {
            let mut out: Vec<Partition<E>> = Vec::new();
            for p in &partitions {
                if let Some(last) = out
                    .last_mut()
                    .filter(|l| l.conjuncts.is_empty() && p.conjuncts.is_empty())
                {
                    let m = merge(e, enc, last, p)?;
                    if e.node_count(&m.relation) <= opts.cluster_nodes {
                        *last = m;
                        continue;
                    }
                }
                out.push(p.clone());
            }
            out
        };

        Ok(SymbolicGame {
            engine,
            role_names: game.roles.iter().map(|r| r.name.to_string()).collect(),
            init,
            init_fluents: game.init.clone(),
            terminal_parts,
            terminal: OnceLock::new(),
            legal,
            goal_formulas,
            goals: OnceLock::new(),
            partitions,
            clusters,
            encoding,
            has_successor: OnceLock::new(),
        })
    }

    /// The engine.
    pub fn engine(&self) -> &'e E {
        self.engine
    }

    /// The encoding.
    pub fn encoding(&self) -> &Encoding {
        &self.encoding
    }

    /// The roles' names.
    pub fn role_names(&self) -> &[String] {
        &self.role_names
    }

    /// The initial state (a single state).
    pub fn init(&self) -> &E::Bdd {
        &self.init
    }

    /// The fluents true in the initial state.
    pub fn init_fluents(&self) -> &[usize] {
        &self.init_fluents
    }

    /// The terminal states (built on first use from [`Self::terminal_parts`]; on games like
    /// Connect Four this BDD is large, prefer [`Self::and_not_terminal`]).
    pub fn terminal(&self) -> BddResult<E::Bdd> {
        if let Some(b) = self.terminal.get() {
            return Ok(b.clone());
        }
        let b = or_all(self.engine, self.terminal_parts.clone())?;
        Ok(self.terminal.get_or_init(|| b).clone())
    }

    /// The terminal condition as a disjunction of parts (the inputs of the top `or` of the
    /// `terminal` circuit, flattened).
    pub fn terminal_parts(&self) -> &[E::Bdd] {
        &self.terminal_parts
    }

    /// `s AND NOT terminal`, removing one terminal part at a time.
    pub fn and_not_terminal(&self, s: &E::Bdd) -> BddResult<E::Bdd> {
        let mut acc = s.clone();
        for p in &self.terminal_parts {
            if self.engine.is_false(&acc) {
                break;
            }
            acc = self.engine.and_not(&acc, p)?;
        }
        Ok(acc)
    }

    /// `legal[r][m]`: states where role `r` may play move `m`.
    pub fn legal(&self) -> &[Vec<E::Bdd>] {
        &self.legal
    }

    /// `goals[r]`: `(value, condition)` pairs as in the ground game, each condition as one BDD
    /// (built from [`Self::goal_formulas`] on first use: on big games these BDDs are huge, use
    /// [`Self::and_goal`] instead).
    pub fn goals(&self) -> BddResult<&[Vec<GoalBdd<E>>]> {
        if let Some(g) = self.goals.get() {
            return Ok(g);
        }
        let e = self.engine;
        let built = self
            .goal_formulas
            .iter()
            .map(|gs| {
                gs.iter()
                    .map(|(v, f)| Ok((*v, f.to_bdd(e)?)))
                    .collect::<BddResult<Vec<_>>>()
            })
            .collect::<BddResult<Vec<_>>>()?;
        Ok(self.goals.get_or_init(|| built))
    }

    /// `goal_formulas[r]`: `(value, condition)` pairs as in the ground game, each condition a
    /// [`Formula`] over small BDDs.
    pub fn goal_formulas(&self) -> &[Vec<(u8, Formula<E>)>] {
        &self.goal_formulas
    }

    /// `set AND (some goal condition of `role` with `value` holds)`, without building the
    /// conditions as whole BDDs (higher values are not excluded: see
    /// [`Self::goal_value_states`]).
    pub fn and_goal(&self, set: &E::Bdd, role: usize, value: u8) -> BddResult<E::Bdd> {
        let parts = self.goal_formulas[role]
            .iter()
            .filter(|(v, _)| *v == value)
            .map(|(_, f)| f.and_with(self.engine, set))
            .collect::<BddResult<Vec<_>>>()?;
        or_all(self.engine, parts)
    }

    /// States where the goal value of `role` is exactly `value`: its condition holds and no
    /// higher value's does (the same reading as the explicit reasoner).
    pub fn goal_value_states(&self, role: usize, value: u8) -> BddResult<E::Bdd> {
        let e = self.engine;
        let mut acc = e.constant(false);
        for (v, cond) in &self.goals()?[role] {
            if *v == value {
                acc = cond.clone();
            } else if *v > value {
                acc = e.and_not(&acc, cond)?;
            }
        }
        Ok(acc)
    }

    /// The per-joint-move partitions (used for path extraction).
    pub fn partitions(&self) -> &[Partition<E>] {
        &self.partitions
    }

    /// The clustered partitions used by [`Self::image`] and [`Self::pre_image`] (the same as
    /// [`Self::partitions`] without clustering).
    pub fn clusters(&self) -> &[Partition<E>] {
        &self.clusters
    }

    /// Successors of the states in `s`: `(EXISTS x . S(x) AND T(x, x'))[x'/x]`. Terminal states
    /// have no successors.
    pub fn image(&self, s: &E::Bdd) -> BddResult<E::Bdd> {
        let s = self.and_not_terminal(s)?;
        let parts = self
            .clusters
            .iter()
            .map(|p| p.image(self.engine, &s))
            .collect::<BddResult<Vec<_>>>()?;
        or_all(self.engine, parts)
    }

    /// Predecessors of the states in `s`: `EXISTS x' . T(x, x') AND S(x')` (non-terminal states
    /// with some joint move leading into `s`).
    pub fn pre_image(&self, s: &E::Bdd) -> BddResult<E::Bdd> {
        let parts = self
            .clusters
            .iter()
            .map(|p| p.pre_image(self.engine, s))
            .collect::<BddResult<Vec<_>>>()?;
        self.and_not_terminal(&or_all(self.engine, parts)?)
    }

    /// States with at least one successor (non-terminal, some legal joint move); cached.
    pub fn has_successor(&self) -> BddResult<E::Bdd> {
        if let Some(b) = self.has_successor.get() {
            return Ok(b.clone());
        }
        let b = self.pre_image(&self.engine.constant(true))?;
        Ok(self.has_successor.get_or_init(|| b).clone())
    }

    /// Strong pre-image: states that have at least one successor and all of whose successors
    /// lie in `s` (`pre_image(TRUE) AND NOT pre_image(NOT s)`); terminal states never qualify.
    pub fn strong_pre_image(&self, s: &E::Bdd) -> BddResult<E::Bdd> {
        let e = self.engine;
        let bad = self.pre_image(&e.not(s)?)?;
        e.and_not(&self.has_successor()?, &bad)
    }

    /// The number of states in `s` (a BDD over current variables).
    pub fn count(&self, s: &E::Bdd) -> num_bigint::BigUint {
        self.engine.sat_count_over(s, self.encoding.current_vars())
    }

    /// The single state whose true fluents are `fluents`.
    pub fn state(&self, fluents: &[usize]) -> BddResult<E::Bdd> {
        let mut vals = vec![false; self.encoding.num_fluents()];
        for &f in fluents {
            vals[f] = true;
        }
        self.engine.cube(
            &(0..vals.len())
                .map(|f| (self.encoding.current_var(f), vals[f]))
                .collect::<Vec<_>>(),
        )
    }

    /// One state of `s` (the smallest in the variable order), as its true fluents, ascending;
    /// `None` if `s` is empty.
    pub fn pick_state(&self, s: &E::Bdd) -> Option<Vec<usize>> {
        let m = self.engine.pick_minterm(s)?;
        let mut fl: Vec<usize> = (0..self.encoding.num_fluents())
            .filter(|&f| m[self.encoding.current_var(f) as usize])
            .collect();
        fl.sort_unstable();
        Some(fl)
    }
}
