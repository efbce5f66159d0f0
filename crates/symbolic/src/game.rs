//! A ground game compiled to BDDs: state predicates and the partitioned transition relation.

use std::fmt;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};
use symgame_bdd::{BddEngine, BddError, BddResult, Var, VarSet};
use symgame_ground::{Gate, GroundGame, Lit};

use crate::encoding::{Encoding, EncodingKind, Order};
use crate::formula::{Formula, FormulaBuilder};

/// A joint move: the index of one move per role, in role order (`joint[r]` indexes
/// `game.roles[r].moves`).
pub type JointMove = Vec<usize>;

/// Options for building a [`SymbolicGame`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SymbolicOptions {
    /// Variable order of the fluents (used by [`Encoding::with_options`]).
    pub order: Order,
    /// Plain (one bit per fluent) or compact (proven mutex groups as binary numbers) encoding
    /// (used by [`Encoding::with_options`]).
    pub encoding: EncodingKind,
    /// Give up ([`SymbolicError::TooManyJointMoves`]) when the number of joint moves that
    /// can be legal together exceeds this.
    pub max_joint_moves: usize,
    /// Clustering: consecutive per-joint-move relations are merged (with frame axioms for the
    /// bits only one of them touches) while the merged relation has at most this many BDD
    /// nodes. 0 disables clustering (one partition per joint move).
    pub cluster_nodes: usize,
    /// A per-joint-move relation whose conjunction grows beyond this many BDD nodes is kept as
    /// a list of conjuncts instead, and applied conjunct by conjunct to the state set (slower
    /// per image, but avoids relations that are huge over unreachable states).
    pub max_relation_nodes: usize,
    /// The parts of the terminal disjunction, sorted by their deepest variable, are merged
    /// while a merged part has at most this many BDD nodes (0: keep every part alone). Fewer
    /// parts mean fewer passes over a layer when terminal states are cut off.
    pub terminal_cluster_nodes: usize,
    /// Compile the goal conditions (as [`Formula`]s: see [`SymbolicGame::goal_formulas`]).
    /// Reachability does not need them; with `false` there are none.
    pub goals: bool,
    /// A goal condition's gate is kept as one BDD while it has at most this many nodes, else as
    /// a formula over its inputs ("red has a line" on Connect Four 6×5 is 34 million nodes as
    /// one BDD, 69 small lines as a formula).
    pub formula_leaf_nodes: usize,
    /// Building the encoding and compiling the game stop at this instant
    /// ([`SymbolicError::Stopped`] with [`crate::StopReason::TimeLimit`]; the mutex proof gives
    /// up soundly, with fewer groups): a command's time limit covers its set-up too.
    #[serde(skip)]
    pub setup_deadline: Option<std::time::Instant>,
}

impl SymbolicOptions {
    /// Whether the set-up deadline has passed.
    pub(crate) fn setup_expired(&self) -> Result<(), SymbolicError> {
        match self.setup_deadline {
            Some(d) if std::time::Instant::now() >= d => {
                Err(SymbolicError::Stopped(crate::search::StopReason::TimeLimit))
            }
            _ => Ok(()),
        }
    }
}

impl Default for SymbolicOptions {
    fn default() -> Self {
        SymbolicOptions {
            order: Order::Heuristic,
            encoding: EncodingKind::Compact,
            max_joint_moves: 100_000,
            cluster_nodes: 50_000,
            max_relation_nodes: 200_000,
            terminal_cluster_nodes: 5_000,
            goals: true,
            formula_leaf_nodes: 20_000,
            setup_deadline: None,
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
    /// The initial state breaks a fluent group of the encoding (two fluents of one group
    /// true, or none of an exactly-one group), so the groups are not invariants of the game.
    InitBreaksGroup,
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
            SymbolicError::InitBreaksGroup => write!(
                f,
                "the initial state breaks a fluent group of the encoding (the groups are not \
                 invariants of this game)"
            ),
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
/// `legal_j(x) AND AND_{b in touched bits} (x_b' <-> next_b|j(x))`, where the bits not touched
/// by `j` but touched by another joint move of the part get the frame axiom `x_b' <-> x_b`.
/// Bits outside the touched ones keep their value and are not mentioned. Terminal states are
/// excluded by the callers ([`SymbolicGame::image`] and [`SymbolicGame::pre_image`]), not by
/// the relation. A relation too large to build is kept as the conjunct list `conjuncts`
/// (then `relation` is only `legal_j`).
pub struct Partition<E: BddEngine> {
    /// The joint moves this part covers (one unless clustered).
    pub joint_moves: Vec<JointMove>,
    /// The relation over current variables and the next variables of the touched bits.
    pub relation: E::Bdd,
    /// Further conjuncts of the relation (empty unless it was too large to build): pairs of a
    /// touched bit's next variable and `x_b' <-> next_b|j(x)`, by descending variable.
    pub conjuncts: Vec<(Var, E::Bdd)>,
    /// The fluents whose next value is constrained (those of groups with a touched bit),
    /// sorted by position.
    pub touched: Vec<usize>,
    /// The touched bits, ascending.
    bits: Vec<u32>,
    /// The terminal parts this part can make true (merged), see [`Partition::terminal_parts`].
    terminal_parts: Vec<E::Bdd>,
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
            bits: self.bits.clone(),
            terminal_parts: self.terminal_parts.clone(),
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
        mut bits: Vec<u32>,
    ) -> Self {
        bits.sort_unstable();
        bits.dedup();
        let mut groups: Vec<usize> = Vec::new();
        for &b in &bits {
            let g = enc.group_of_bit(b);
            if groups.last() != Some(&g) {
                groups.push(g);
            }
        }
        groups.dedup();
        let mut touched: Vec<usize> = groups
            .iter()
            .flat_map(|&g| enc.fluent_groups()[g].fluents.iter().copied())
            .collect();
        touched.sort_by_key(|&f| enc.position(f));
        touched.dedup();
        let cur = |b: u32| Encoding::current_bit_var(b);
        let next = |b: u32| Encoding::next_bit_var(b);
        Partition {
            joint_moves,
            relation,
            conjuncts,
            touched,
            quant_cur: bits.iter().map(|&b| cur(b)).collect(),
            quant_next: bits.iter().map(|&b| next(b)).collect(),
            to_cur: bits.iter().map(|&b| (next(b), cur(b))).collect(),
            to_next: bits.iter().map(|&b| (cur(b), next(b))).collect(),
            bits,
            terminal_parts: Vec::new(),
        }
    }

    /// The parts of the terminal condition (merged as in [`SymbolicGame::terminal_parts`]) that
    /// this part can make true: a successor under this part of a non-terminal state is
    /// terminal iff it satisfies one of them. A part `t` is left out when no transition of
    /// this part leads from a state without `t` to a state with `t` (checked on BDDs, or, for
    /// a relation kept as conjuncts, when `t` reads no touched bit).
    pub fn terminal_parts(&self) -> &[E::Bdd] {
        &self.terminal_parts
    }

    /// The successors of `s` under this part that are not terminal, for `s` without
    /// terminal states.
    pub fn cut_terminal(&self, e: &E, s: &E::Bdd) -> BddResult<E::Bdd> {
        let mut acc = s.clone();
        for t in &self.terminal_parts {
            if e.is_false(&acc) {
                break;
            }
            acc = e.and_not(&acc, t)?;
        }
        Ok(acc)
    }

    /// The touched bits (their next value is constrained), ascending.
    pub fn touched_bits(&self) -> &[u32] {
        &self.bits
    }

    /// The current variables of the touched bits (quantified by the image).
    pub fn touched_current_vars(&self) -> &VarSet {
        &self.quant_cur
    }

    /// The next variables of the touched bits (quantified by the pre-image).
    pub fn touched_next_vars(&self) -> &VarSet {
        &self.quant_next
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
        // Substitute x_b' := next_b|j(x) one bit at a time, bottom-up.
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
    potential: OnceLock<Option<Vec<E::Bdd>>>,
}

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
    pub(crate) fn new(e: &'a E, game: &'a GroundGame, fluents: Vec<E::Bdd>) -> Self {
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
            let g = (s - ni) as usize;
            let slot = if self.dep[g] {
                &self.local[g]
            } else {
                &self.global[g]
            };
            slot.clone().expect("gate evaluated before its readers")
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
    pub(crate) fn eval(&mut self, needed: &[bool], moves_dep: bool) -> BddResult<()> {
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
    pub(crate) fn eval_global(&mut self, roots: &[Lit]) -> BddResult<()> {
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

/// The disjuncts of `l`: flattens non-negated `or` gates and negated `and` gates of acyclic
/// blocks; constant-false disjuncts are dropped.
pub(crate) fn disjuncts(c: &symgame_ground::Circuit, l: Lit, out: &mut Vec<Lit>) {
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
                return Err(SymbolicError::Stopped(crate::search::StopReason::TimeLimit));
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

/// Builds `x_b' <-> x_b` for every bit in `bits` (ascending), bottom-up.
fn frame<E: BddEngine>(e: &E, bits: &[u32]) -> BddResult<E::Bdd> {
    let mut acc = e.constant(true);
    for &b in bits.iter().rev() {
        let eq = e.iff(
            &e.var(Encoding::next_bit_var(b)),
            &e.var(Encoding::current_bit_var(b)),
        )?;
        acc = e.and(&eq, &acc)?;
    }
    Ok(acc)
}

/// Merges two partitions into one relation over the union of their touched bits.
fn merge<E: BddEngine>(
    e: &E,
    enc: &Encoding,
    a: &Partition<E>,
    b: &Partition<E>,
) -> BddResult<Partition<E>> {
    let only = |x: &Partition<E>, y: &Partition<E>| -> Vec<u32> {
        y.bits
            .iter()
            .copied()
            .filter(|f| x.bits.binary_search(f).is_err())
            .collect()
    };
    let fa = frame(e, &only(a, b))?;
    let fb = frame(e, &only(b, a))?;
    let ra = e.and(&a.relation, &fa)?;
    let rb = e.and(&b.relation, &fb)?;
    let rel = e.or(&ra, &rb)?;
    let mut joint = a.joint_moves.clone();
    joint.extend(b.joint_moves.iter().cloned());
    let mut bits = a.bits.clone();
    bits.extend(b.bits.iter().copied());
    Ok(Partition::new(enc, joint, rel, Vec::new(), bits))
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

/// Exactly-`k` functions of `indicators` for `k = 0..=n` (the count of true indicators).
fn exactly<E: BddEngine>(e: &E, indicators: &[E::Bdd]) -> BddResult<Vec<E::Bdd>> {
    let mut cnt = vec![e.constant(true)];
    for ind in indicators.iter().rev() {
        let mut next = Vec::with_capacity(cnt.len() + 1);
        for k in 0..=cnt.len() {
            let stay = match cnt.get(k) {
                Some(c) => e.and_not(c, ind)?,
                None => e.constant(false),
            };
            let up = match k.checked_sub(1).and_then(|j| cnt.get(j)) {
                Some(c) => e.and(c, ind)?,
                None => e.constant(false),
            };
            next.push(e.or(&stay, &up)?);
        }
        cnt = next;
    }
    Ok(cnt)
}

/// The literals on `vars` that every satisfying assignment of `f` has, ascending.
fn implied_literals<E: BddEngine>(e: &E, f: &E::Bdd, vars: &[Var]) -> BddResult<Vec<(Var, bool)>> {
    let mut out = Vec::new();
    for &v in vars {
        if e.is_false(&e.and(f, &e.nvar(v))?) {
            out.push((v, true));
        } else if e.is_false(&e.and(f, &e.var(v))?) {
            out.push((v, false));
        }
    }
    Ok(out)
}

/// Merges the parts of a disjunction, sorted by their deepest and then shallowest variable,
/// while a merged part stays within `max_nodes` nodes.
fn cluster_parts<E: BddEngine>(
    e: &E,
    mut parts: Vec<E::Bdd>,
    max_nodes: usize,
) -> BddResult<Vec<E::Bdd>> {
    if max_nodes == 0 || parts.len() < 2 {
        return Ok(parts);
    }
    let keys: Vec<(Option<Var>, Option<Var>)> = parts
        .iter()
        .map(|p| {
            let s = e.support(p);
            (s.last().copied(), s.first().copied())
        })
        .collect();
    let mut idx: Vec<usize> = (0..parts.len()).collect();
    idx.sort_by_key(|&i| keys[i]);
    let mut sorted: Vec<Option<E::Bdd>> = parts.drain(..).map(Some).collect();
    let mut out: Vec<E::Bdd> = Vec::new();
    for i in idx {
        let p = sorted[i].take().expect("each part once");
        if let Some(last) = out.last_mut() {
            let m = e.or(last, &p)?;
            if e.node_count(&m) <= max_nodes {
                *last = m;
                continue;
            }
        }
        out.push(p);
    }
    Ok(out)
}

impl<'e, E: BddEngine> SymbolicGame<'e, E> {
    /// Compiles `game` on `engine`, which must have at least `encoding.num_vars()` variables
    /// (build the encoding first, e.g. with [`Encoding::with_options`], then create the
    /// engine).
    ///
    /// Joint moves are enumerated role by role, keeping only those whose moves can be legal
    /// together in some encodable state (the conjunction of their `legal` BDDs is
    /// satisfiable; with the compact encoding the proven mutex groups rule out, e.g., two
    /// roles in control at once). In turn-taking games this is the mover's moves times the
    /// others' single `noop`. Each joint move becomes one [`Partition`]; the moves are
    /// substituted as constants into the `next` circuit, and bits whose next function is the
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
        let mut comp = Compiler::new(e, game, fluent_bdds(e, enc)?);

        // Terminal as a disjunction of parts (never built as one BDD unless asked for).
        let mut term_leaves = Vec::new();
        disjuncts(c, game.terminal, &mut term_leaves);
        // Move-independent gates of every cone, once.
        let mut roots: Vec<Lit> = term_leaves.clone();
        roots.extend(game.legal.iter().flatten().copied());
        roots.extend(game.next.iter().copied());
        comp.eval_global(&roots)?;

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
        let raw_terminal_parts = terminal_parts.clone();
        let terminal_parts = cluster_parts(e, terminal_parts, opts.terminal_cluster_nodes)?;
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
        let init = match enc.encode(&game.init) {
            Some(lits) => e.cube(&lits)?,
            None => return Err(SymbolicError::InitBreaksGroup),
        };

        // Joint moves that can be legal together.
        let valid = valid_codes(e, enc)?;
        opts.setup_expired()?;
        let joint = joint_moves(e, &legal, &valid, opts.max_joint_moves, &|| {
            opts.setup_expired().is_err()
        })?;

        // One relation per joint move.
        let mut partitions = Vec::with_capacity(joint.len());
        for (jm, cond) in joint {
            opts.setup_expired()?;
            comp.set_joint_move(&jm)?;
            let fns = next_bit_functions(e, enc, &comp, game)?;
            let touched: Vec<u32> = fns.iter().map(|(b, _)| *b).collect();
            // Bottom-up: largest bit first.
            let mut eqs = Vec::with_capacity(fns.len());
            let mut acc = Some(e.constant(true));
            for (b, nb) in fns.iter().rev() {
                let eq = e.iff(&e.var(Encoding::next_bit_var(*b)), nb)?;
                if let Some(a) = &acc {
                    let a2 = e.and(&eq, a)?;
                    acc = (e.node_count(&a2) <= opts.max_relation_nodes).then_some(a2);
                }
                eqs.push((Encoding::next_bit_var(*b), eq));
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

        let mut clusters = if opts.cluster_nodes == 0 {
            partitions.clone()
        } else {
            // Parts whose relations fix the turn groups to different values are never merged:
            // in a layer where one role moves, the other role's cluster is empty at once.
            let turn_vars: Vec<Var> = (0..enc.fluent_groups().len())
                .filter(|&g| enc.is_turn_group(g))
                .flat_map(|g| enc.group_bits(g).map(Encoding::current_bit_var))
                .collect();
            type Guard = Vec<(Var, bool)>;
            let mut keyed: Vec<(Guard, Vec<Partition<E>>)> = Vec::new();
            for p in &partitions {
                let key = implied_literals(e, &p.relation, &turn_vars)?;
                match keyed.iter_mut().find(|(k, _)| *k == key) {
                    Some((_, v)) => v.push(p.clone()),
                    None => keyed.push((key, vec![p.clone()])),
                }
            }
            let mut out: Vec<Partition<E>> = Vec::new();
            for (_, parts) in keyed {
                let start = out.len();
                for p in parts {
                    if out.len() > start {
                        let last = out.last_mut().expect("non-empty");
                        if last.conjuncts.is_empty() && p.conjuncts.is_empty() {
                            let m = merge(e, enc, last, &p)?;
                            if e.node_count(&m.relation) <= opts.cluster_nodes {
                                *last = m;
                                continue;
                            }
                        }
                    }
                    out.push(p);
                }
            }
            out
        };
        // Terminal parts each cluster can make true.
        let checks = clusters.len() * raw_terminal_parts.len();
        for cl in &mut clusters {
            opts.setup_expired()?;
            let mut rel = Vec::new();
            let touched: Vec<Var> = cl.quant_cur.iter().collect();
            for t in &raw_terminal_parts {
                let reads_touched = e
                    .support(t)
                    .iter()
                    .any(|v| touched.binary_search(v).is_ok());
                if !reads_touched {
                    continue;
                }
                let relevant = if !cl.conjuncts.is_empty() || checks > 20_000 {
                    true
                } else {
                    let from = cl.image(e, &e.not(t)?)?;
                    !e.is_false(&e.and(&from, t)?)
                };
                if relevant {
                    rel.push(t.clone());
                }
            }
            cl.terminal_parts = cluster_parts(e, rel, opts.terminal_cluster_nodes)?;
        }

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
            potential: OnceLock::new(),
        })
    }

    /// The potential of states: `levels[k]` is the set of states in which exactly `k` of the
    /// "at most one" groups hold a fluent (e.g. Connect Four cells with a disc). `None` if
    /// there is no such group or more than 200. Built on first use.
    pub fn potential_levels(&self) -> BddResult<Option<&[E::Bdd]>> {
        const MAX_GROUPS: usize = 200;
        if let Some(p) = self.potential.get() {
            return Ok(p.as_deref());
        }
        let e = self.engine;
        let enc = &self.encoding;
        let groups: Vec<usize> = (0..enc.fluent_groups().len())
            .filter(|&g| !enc.fluent_groups()[g].exactly_one)
            .collect();
        let levels = if groups.is_empty() || groups.len() > MAX_GROUPS {
            None
        } else {
            // A group holds a fluent iff one of its bits is set (code 0 = none).
            let holds = groups
                .iter()
                .map(|&g| {
                    let bits = enc
                        .group_bits(g)
                        .map(|b| e.var(Encoding::current_bit_var(b)))
                        .collect();
                    or_all(e, bits)
                })
                .collect::<BddResult<Vec<_>>>()?;
            Some(exactly(e, &holds)?)
        };
        Ok(self.potential.get_or_init(|| levels).as_deref())
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

    /// The number of states in `s` and the BDD node count of `s`, in one pass.
    pub fn count_and_nodes(&self, s: &E::Bdd) -> (num_bigint::BigUint, usize) {
        self.engine
            .sat_count_and_nodes(s, self.encoding.current_vars())
    }

    /// The single state whose true fluents are `fluents`; the empty set if that fluent set
    /// breaks a group of the encoding (then it is not a reachable state).
    pub fn state(&self, fluents: &[usize]) -> BddResult<E::Bdd> {
        match self.encoding.encode(fluents) {
            Some(lits) => self.engine.cube(&lits),
            None => Ok(self.engine.constant(false)),
        }
    }

    /// One state of `s` (the smallest in the variable order), as its true fluents, ascending;
    /// `None` if `s` is empty.
    pub fn pick_state(&self, s: &E::Bdd) -> Option<Vec<usize>> {
        let m = self.engine.pick_minterm(s)?;
        Some(self.encoding.decode(&m))
    }
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
