//! The game compiled anew within each BFS layer, for games whose conditions or relations are
//! too large to compile once over all states.
//!
//! A condition such as "some jump is possible" (checkers' must-jump rule) or "no cell breaks a
//! sudoku constraint" can be a BDD of millions of nodes over all states while the game's first
//! layers hold a few thousand states. [`Compiler::within`] computes every gate of the circuit
//! only within a care set (a gate's BDD is its function AND the set), so within a layer each
//! gate is at most about as large as the layer. The image of a layer then enumerates the joint
//! moves legal in some state of it and applies, per joint move, the next functions of the bits
//! it changes, conjunct by conjunct, starting from the states where it is legal. Where each
//! fluent group's next value reads the moves of one role at most ([`owners`]) and the joint
//! moves are many, the image takes the roles' moves one role at a time instead
//! ([`Layerwise::factored_image`]): its cost is the sum of the roles' moves, not their product.
//! The cost of a layer follows the size of the layer and of the circuit, not of any condition
//! over all states; the price is compiling the circuit again for every layer.

use symgame_bdd::{BddEngine, BddError, Var, VarSet};
use symgame_ground::GroundGame;
use symgame_limits::{Guard, StopReason};

use crate::compile::Compiler;
use crate::disjunction::{and_not_all_checked, or_all_checked};
use crate::encoding::Encoding;
use crate::error::SymbolicError;
use crate::joint_moves::{joint_moves, joint_moves_where};
use crate::layer_explicit::ExplicitLayers;
use crate::move_vars::MoveVars;
use crate::next_bits::{group_violation, group_violation_of, next_bit_functions};
use crate::partition::Partition;

/// Joint moves, each with the states where it is legal.
type JointMoves<E> = Vec<(crate::compile::JointMove, <E as BddEngine>::Bdd)>;

/// The most joint moves pruned by the layer's turn bits alone (see
/// [`Layerwise::joint_moves_of`]).
const PRUNED_BY_TURN: usize = 4096;

/// The largest BDD leaf of a terminal condition's formula within a layer
/// ([`Compiler::and_not_terminal_formulas`]).
const TERMINAL_LEAF_NODES: usize = 20_000;

/// A game kept as its ground circuit, compiled within each state set it is asked about.
pub(crate) struct Layerwise {
    /// The ground game.
    pub(crate) game: GroundGame,
    /// Give up when more joint moves than this are legal in the states of one layer.
    pub(crate) max_joint_moves: usize,
    /// Conditions over this many nodes are cut to the layer ([`Compiler::within`]).
    pub(crate) cut_nodes: usize,
    /// The relations of a layer's joint moves are merged up to this many nodes
    /// ([`Self::clustered_image`]).
    pub(crate) cluster_nodes: usize,
    /// Set when a joint move legal in an expanded set breaks an assumed group
    /// ([`Encoding::assumed`]): the image of that set is not to be trusted.
    pub(crate) broken: std::sync::atomic::AtomicBool,
    /// A state of the expanded set where a legal joint move breaks an assumed group (its true
    /// fluents; [`SymbolicGame::break_witness`](crate::SymbolicGame::break_witness)).
    pub(crate) witness: std::sync::Mutex<Option<Vec<usize>>>,
    /// Per fluent group, the role whose moves its next values read ([`owners`]); `None` when
    /// the roles' moves cannot be taken one role at a time.
    pub(crate) owners: Option<Vec<Option<usize>>>,
    /// Set once an image took the roles' moves one role at a time (for the report).
    pub(crate) factored: std::sync::atomic::AtomicBool,
    /// The move variables, if the engine has them ([`crate::SymbolicOptions::move_vars`]).
    pub(crate) move_vars: Option<MoveVars>,
    /// A layer with more joint moves than this (and than twice its moves, [`explodes`]) takes
    /// its image with the moves as variables ([`crate::move_vars::MOVE_VARS_ABOVE`]; 0: every layer).
    pub(crate) move_vars_above: usize,
    /// Set once an image with the moves as variables ran past its share of the time left (or
    /// out of nodes): the layers are then taken one joint move at a time.
    pub(crate) move_vars_lost: std::sync::atomic::AtomicBool,
    /// Set once an image took the moves as variables (for the report).
    pub(crate) with_move_vars: std::sync::atomic::AtomicBool,
    /// The layers expanded state by state where that is predicted cheaper.
    pub(crate) explicit: ExplicitLayers,
}

impl Layerwise {
    /// The game `game` under `enc` compiled within each layer, on an engine of `num_vars`
    /// variables, as `opts` asks.
    pub(crate) fn new(
        game: &GroundGame,
        enc: &Encoding,
        num_vars: u32,
        opts: &crate::options::SymbolicOptions,
    ) -> Layerwise {
        Layerwise {
            game: game.clone(),
            max_joint_moves: opts.max_joint_moves,
            cut_nodes: opts.layerwise_cut_nodes,
            cluster_nodes: opts.cluster_nodes,
            broken: Default::default(),
            witness: Default::default(),
            owners: owners(game, enc),
            factored: Default::default(),
            move_vars: MoveVars::fit(num_vars, game, enc),
            move_vars_above: crate::move_vars::MOVE_VARS_ABOVE,
            with_move_vars: Default::default(),
            move_vars_lost: Default::default(),
            explicit: ExplicitLayers::new(opts.explicit_layers),
        }
    }

    /// Marks the assumption broken where a legal joint move breaks an assumed group in a
    /// state of `at` (a subset of the expanded states), one of which is kept as the witness.
    fn note_break<E: BddEngine>(&self, e: &E, enc: &Encoding, at: &E::Bdd) {
        if let (Some(m), Ok(mut w)) = (e.pick_minterm(at), self.witness.lock()) {
            w.get_or_insert_with(|| enc.decode(&m));
        }
        self.broken
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }

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
        let (mut comp, leaves) = Compiler::within(
            e,
            &self.game,
            enc,
            s,
            self.cut_nodes,
            terminal_only,
            deadline,
        )?;
        let expand = comp.and_not_terminal_formulas(s, &leaves, TERMINAL_LEAF_NODES)?;
        Ok((comp, expand))
    }

    /// The states of `s` that are not terminal, with the guard's deadline on the compilation
    /// within `s` ([`symgame_bdd::BddError::Budget`] once passed).
    pub(crate) fn and_not_terminal_guarded<E: BddEngine>(
        &self,
        e: &E,
        enc: &Encoding,
        s: &E::Bdd,
        guard: &Guard,
    ) -> Result<E::Bdd, SymbolicError> {
        if e.is_false(s) {
            return Ok(s.clone());
        }
        Ok(self.compiled(e, enc, s, Some(guard), true)?.1)
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
    /// joint moves (or moves, taken one role at a time) and its deadline between gates
    /// ([`symgame_bdd::BddError::Budget`] once passed). `on_expand` sees the states that are
    /// not terminal as soon as they are known, before the image.
    ///
    /// With a guard (a search), the layer may be expanded state by state instead, where the
    /// measurements of [`ExplicitLayers`] predict that to be cheaper; the sets are the same.
    pub(crate) fn expand_and_image<E: BddEngine>(
        &self,
        e: &E,
        enc: &Encoding,
        (s, terminal): (&E::Bdd, Option<&[E::Bdd]>),
        guard: Option<&Guard>,
        on_expand: &mut dyn FnMut(&E::Bdd),
    ) -> Result<(E::Bdd, E::Bdd), SymbolicError> {
        let race = guard.filter(|_| !e.is_false(s));
        if let Some(g) = race {
            if let Some((expand, image)) =
                self.explicit
                    .try_layer(e, enc, Some(&self.game), s, g, false)?
            {
                on_expand(&expand);
                return Ok((expand, image));
            }
        }
        let started = std::time::Instant::now();
        let mut seen = false;
        let mut see = |x: &E::Bdd| {
            seen = true;
            on_expand(x);
        };
        match self.compiled_expand_and_image((e, enc, s, guard), terminal, &mut see) {
            Ok(result) => {
                if guard.is_some() {
                    self.explicit
                        .symbolic_took(e.node_count(s), started.elapsed().as_secs_f64());
                }
                Ok(result)
            }
            // Past what the symbolic way can do: state by state, with the time left.
            Err(
                err @ (SymbolicError::Bdd(BddError::OutOfMemory { .. })
                | SymbolicError::TooManyJointMoves { .. }),
            ) => {
                let forced = match race {
                    Some(g) => self
                        .explicit
                        .try_layer(e, enc, Some(&self.game), s, g, true)?,
                    None => None,
                };
                match forced {
                    Some((expand, image)) => {
                        if !seen {
                            on_expand(&expand);
                        }
                        Ok((expand, image))
                    }
                    None => Err(err),
                }
            }
            Err(err) => Err(err),
        }
    }

    /// [`Self::expand_and_image`] of `(e, enc, s, guard)`, the game compiled within `s`, or with
    /// `terminal` (its parts over all states) within the non-terminal states of `s`, cut first.
    fn compiled_expand_and_image<E: BddEngine>(
        &self,
        (e, enc, s, guard): (&E, &Encoding, &E::Bdd, Option<&Guard>),
        terminal: Option<&[E::Bdd]>,
        on_expand: &mut dyn FnMut(&E::Bdd),
    ) -> Result<(E::Bdd, E::Bdd), SymbolicError> {
        let stop = || guard.map_or(Ok(()), |g| g.check());
        let checked = || stop().map_err(SymbolicError::Stopped);
        let (comp, expand) = match terminal {
            Some(parts) => (None, and_not_all_checked(e, s, parts, checked)?),
            None if e.is_false(s) => (None, s.clone()),
            None => {
                let (comp, expand) = self.compiled(e, enc, s, guard, false)?;
                (Some(comp), expand)
            }
        };
        on_expand(&expand);
        if e.is_false(&expand) {
            return Ok((expand.clone(), expand));
        }
        let mut comp = match comp {
            Some(comp) => comp,
            None => {
                let deadline = guard.and_then(|g| g.deadline());
                Compiler::within(e, &self.game, enc, &expand, self.cut_nodes, false, deadline)?.0
            }
        };
        let mut legal = comp.legal()?;
        let expired = || stop().is_err();
        let mut known_moves = None;
        let mut known_joint = None;
        if let Some(vars) = &self.move_vars {
            let moves = moves_in(e, &legal, &expand, &expired)?;
            let factors = self.owners.is_some() && worth_factoring(&moves);
            let lost = self
                .move_vars_lost
                .load(std::sync::atomic::Ordering::Relaxed);
            let mut explode = !factors && !lost && explodes(&moves, self.move_vars_above);
            if explode {
                // The roles' moves multiplied overcount where the layer's states differ in
                // whose turn it is (quad: 235 moves each, 468 joint moves): counted by turn,
                // up to where they would explode, the joint moves serve the image below.
                prune_to(e, &mut legal, &moves);
                known_joint =
                    self.joint_moves_unless_explode(e, enc, &legal, &expand, &moves, &expired)?;
                explode = known_joint.is_none();
            }
            if explode {
                // Until a first image with the moves as variables is done, a race: past a
                // third of the time left, one joint move at a time for good.
                let won = self
                    .with_move_vars
                    .load(std::sync::atomic::Ordering::Relaxed);
                let until = guard
                    .and_then(|g| g.time_left())
                    .filter(|_| !won)
                    .map(|left| std::time::Instant::now() + left / 3);
                let within = || {
                    stop()?;
                    match until {
                        Some(t) if std::time::Instant::now() >= t => Err(StopReason::TimeLimit),
                        _ => Ok(()),
                    }
                };
                // The race's deadline stops its operations from inside too (with the run's).
                let raced = until.zip(guard).map(|(t, g)| {
                    let (run, late) = (g.stop_check(), symgame_limits::deadline_check(t));
                    let check: symgame_bdd::StopCheck =
                        std::sync::Arc::new(move || run().or_else(|| late()));
                    symgame_bdd::arm_stop(e, check)
                });
                let tried = crate::move_vars::image(
                    e, enc, &self.game, vars, &mut comp, &legal, &moves, &expand, &within,
                );
                drop(raced);
                match tried {
                    Ok(done) => {
                        self.with_move_vars
                            .store(true, std::sync::atomic::Ordering::Relaxed);
                        if let Some(at) = done.broken_at {
                            self.note_break(e, enc, &at);
                        }
                        return Ok((expand, done.image));
                    }
                    Err(
                        SymbolicError::Stopped(StopReason::TimeLimit)
                        | SymbolicError::Bdd(
                            BddError::OutOfMemory { .. }
                            | BddError::Budget(_)
                            | BddError::Stopped(StopReason::TimeLimit),
                        ),
                    ) if stop().is_ok() => {
                        self.move_vars_lost
                            .store(true, std::sync::atomic::Ordering::Relaxed);
                        e.gc();
                    }
                    Err(err) => return Err(err),
                }
            }
            known_moves = Some(moves);
        }
        if let Some(owners) = &self.owners {
            let moves = match known_moves.take() {
                Some(m) => m,
                None => moves_in(e, &legal, &expand, &expired)?,
            };
            if worth_factoring(&moves) {
                self.factored
                    .store(true, std::sync::atomic::Ordering::Relaxed);
                let image =
                    self.factored_image(e, enc, &mut comp, &legal, &moves, owners, &expand, &stop)?;
                return Ok((expand, image));
            }
            known_moves = Some(moves);
        }
        if let Some(moves) = known_moves {
            // The moves legal nowhere in the layer are known now: the joint moves skip them
            // (an AND with false) instead of meeting each with the layer again.
            prune_to(e, &mut legal, &moves);
        }
        let joint = match known_joint {
            Some(joint) => joint,
            None => self.joint_moves_of(e, enc, &legal, &expand, PRUNED_BY_TURN, &expired)?,
        };
        let image = self.clustered_image(e, enc, &mut comp, joint, &expand, guard)?;
        Ok((expand, image))
    }

    /// The joint moves whose moves may be legal together in a state of `expand`, with the
    /// states where they are legal (over all states, within the layer's care set). Pruned by
    /// the layer's turn bits only (`exists` of the other variables: a small BDD), which
    /// costs an operation on a tiny BDD per joint move; if that leaves more than `by_turn`
    /// ([`PRUNED_BY_TURN`]) joint moves (or [`Layerwise::max_joint_moves`]), by the layer
    /// itself (an operation on the layer each).
    fn joint_moves_of<E: BddEngine>(
        &self,
        e: &E,
        enc: &Encoding,
        legal: &[Vec<E::Bdd>],
        expand: &E::Bdd,
        by_turn: usize,
        expired: &dyn Fn() -> bool,
    ) -> Result<JointMoves<E>, SymbolicError> {
        let turns = turns_of(e, enc, expand)?;
        let limit = by_turn.min(self.max_joint_moves);
        let by_turn = joint_moves(e, legal, &turns, limit, expired);
        match by_turn {
            Ok(joint) => Ok(joint),
            Err(SymbolicError::TooManyJointMoves { .. }) => {
                joint_moves_within(e, legal, expand, self.max_joint_moves, expired)
            }
            Err(err) => Err(err),
        }
    }

    /// The joint moves of `legal` in `expand` pruned by the layer's turn bits (as
    /// [`Self::joint_moves_of`]), if they are too few to explode ([`explodes`] of their number
    /// against `moves`, the moves legal in the layer, and at most [`PRUNED_BY_TURN`]); `None`
    /// where they are more (the enumeration stops there).
    fn joint_moves_unless_explode<E: BddEngine>(
        &self,
        e: &E,
        enc: &Encoding,
        legal: &[Vec<E::Bdd>],
        expand: &E::Bdd,
        moves: &[Vec<usize>],
        expired: &dyn Fn() -> bool,
    ) -> Result<Option<JointMoves<E>>, SymbolicError> {
        if self.move_vars_above == 0 {
            return Ok(None);
        }
        let sum: usize = moves.iter().map(Vec::len).sum();
        let limit = self
            .move_vars_above
            .max(2 * sum)
            .min(PRUNED_BY_TURN)
            .min(self.max_joint_moves);
        match joint_moves(e, legal, &turns_of(e, enc, expand)?, limit, expired) {
            Ok(joint) => Ok(Some(joint)),
            Err(SymbolicError::TooManyJointMoves { .. }) => Ok(None),
            Err(err) => Err(err),
        }
    }

    /// The successors of `expand` under `joint` (joint moves with the states where they are
    /// legal): one relation per joint move (`legal AND AND_b (x_b' <-> next_b)` over the bits
    /// it changes), clustered up to [`Layerwise::cluster_nodes`] nodes
    /// ([`crate::partition::cluster`]), and one image of the layer per cluster: a pass over the
    /// layer serves many joint moves. A joint move legal nowhere in the layer costs its
    /// relation only.
    fn clustered_image<E: BddEngine>(
        &self,
        e: &E,
        enc: &Encoding,
        comp: &mut Compiler<'_, E>,
        joint: Vec<(crate::compile::JointMove, E::Bdd)>,
        expand: &E::Bdd,
        guard: Option<&Guard>,
    ) -> Result<E::Bdd, SymbolicError> {
        let game = &self.game;
        let stop = || guard.map_or(Ok(()), |g| g.check());
        let mut parts = Vec::new();
        let mut images = Vec::new();
        for (jm, jl) in joint {
            stop().map_err(SymbolicError::Stopped)?;
            comp.set_joint_move(&jm)?;
            if let Some(v) = group_violation(e, enc, comp, game)? {
                let at = e.and(&jl, &v)?;
                if !e.is_false(&at) {
                    let at = e.and(&at, expand)?;
                    if !e.is_false(&at) {
                        self.note_break(e, enc, &at);
                    }
                }
            }
            let fns = next_bit_functions(e, enc, comp, game)?;
            if fns.is_empty() {
                // No bit changes: the successor is the state itself.
                images.push(e.and(&jl, expand)?);
                continue;
            }
            let touched: Vec<u32> = fns.iter().map(|(b, _)| *b).collect();
            let part =
                if let Some(eqs) = equations_capped(e, &fns, Some(self.cluster_nodes), &stop)? {
                    Partition::new(enc, vec![jm], e.and(&jl, &eqs)?, Vec::new(), touched)
                } else {
                    // Too large as one BDD: its equations meet the layer one at a time.
                    let conjuncts = fns
                        .iter()
                        .rev()
                        .map(|(b, nb)| {
                            let next = Encoding::next_bit_var(*b);
                            Ok((next, e.iff(&e.var(next), nb)?))
                        })
                        .collect::<symgame_bdd::BddResult<Vec<_>>>()?;
                    Partition::new(enc, vec![jm], jl, conjuncts, touched)
                };
            parts.push(part);
        }
        let deadline = guard.and_then(|g| g.deadline());
        let clusters = crate::partition::cluster(e, enc, &parts, self.cluster_nodes, deadline)?;
        drop(parts);
        for c in &clusters {
            stop().map_err(SymbolicError::Stopped)?;
            images.push(c.image(e, expand)?);
        }
        let check = || stop().map_err(|why| BddError::Budget(why.to_string()));
        Ok(or_all_checked(e, images, &check)?)
    }

    /// The successors of `expand` with the roles' moves taken one role at a time (see
    /// [`owners`]): per role `r`, the relation `R_r(x, x'_r) = OR_m legal_r,m(x) AND
    /// AND_b (x_b' <-> next_b|m(x))` over the bits whose next value reads `r`'s moves only
    /// (the other roles' moves play no part in them), and `R_0` for the bits that read no
    /// move; the image is `exists x. expand AND R_0 AND R_1 AND ... AND R_k`. It costs the sum
    /// of the roles' move counts, where the joint moves cost their product.
    #[allow(clippy::too_many_arguments)]
    fn factored_image<E: BddEngine>(
        &self,
        e: &E,
        enc: &Encoding,
        comp: &mut Compiler<'_, E>,
        legal: &[Vec<E::Bdd>],
        moves: &[Vec<usize>],
        owners: &[Option<usize>],
        expand: &E::Bdd,
        stop: &dyn Fn() -> Result<(), symgame_limits::StopReason>,
    ) -> Result<E::Bdd, SymbolicError> {
        let game = &self.game;
        let default: Vec<usize> = moves.iter().map(|m| m[0]).collect();
        let owner = |b: u32| owners[enc.group_of_bit(b)];
        // Per role (and `None`: no role), the relation of each move, with the bits it
        // touches; the bits that read no move are the same under every joint move.
        let mut parts: Vec<E::Bdd> = Vec::new();
        let mut touched: Vec<u32> = Vec::new();
        comp.set_joint_move(&default)?;
        // With assumed groups: a group broken where a move is legal (its next values read that
        // role's moves alone, and every other role has some move in a non-terminal state).
        let breaks = |comp: &Compiler<'_, E>, owner: Option<usize>, legal: Option<&E::Bdd>| {
            let v = group_violation_of(e, enc, comp, game, |g| owners[g] == owner)?;
            let Some(v) = v else {
                return Ok::<Option<E::Bdd>, symgame_bdd::BddError>(None);
            };
            let mut cond = e.and(expand, &v)?;
            if let Some(l) = legal {
                cond = e.and(&cond, l)?;
            }
            Ok(Some(cond).filter(|c| !e.is_false(c)))
        };
        if let Some(at) = breaks(comp, None, None)? {
            self.note_break(e, enc, &at);
        }
        let fixed: Vec<(u32, E::Bdd)> = next_bit_functions(e, enc, comp, game)?
            .into_iter()
            .filter(|(b, _)| owner(*b).is_none())
            .collect();
        parts.push(equations(e, &fixed, stop)?);
        touched.extend(fixed.iter().map(|(b, _)| *b));
        for (r, role_moves) in moves.iter().enumerate() {
            let mut per_move = Vec::with_capacity(role_moves.len());
            let mut bits: Vec<u32> = Vec::new();
            for &m in role_moves {
                stop().map_err(SymbolicError::Stopped)?;
                let mut jm = default.clone();
                jm[r] = m;
                comp.set_joint_move(&jm)?;
                if let Some(at) = breaks(comp, Some(r), Some(&legal[r][m]))? {
                    self.note_break(e, enc, &at);
                }
                let fns: Vec<(u32, E::Bdd)> = next_bit_functions(e, enc, comp, game)?
                    .into_iter()
                    .filter(|(b, _)| owner(*b) == Some(r))
                    .collect();
                bits.extend(fns.iter().map(|(b, _)| *b));
                per_move.push((m, fns));
            }
            bits.sort_unstable();
            bits.dedup();
            // Each move's relation over all the role's bits: the bits it leaves alone keep
            // their value.
            let mut rels = Vec::with_capacity(per_move.len());
            for (m, fns) in per_move {
                stop().map_err(SymbolicError::Stopped)?;
                let mut eqs = fns;
                for &b in &bits {
                    if !eqs.iter().any(|(c, _)| *c == b) {
                        eqs.push((b, e.var(Encoding::current_bit_var(b))));
                    }
                }
                // Within the layer: over all states the OR of these relations can be one
                // operation that runs for minutes (cubicup's, past a 10-s limit).
                let within = e.and(expand, &legal[r][m])?;
                rels.push(e.and(&within, &equations(e, &eqs, stop)?)?);
            }
            let check = || stop().map_err(|why| BddError::Budget(why.to_string()));
            parts.push(or_all_checked(e, rels, &check)?);
            touched.extend(bits);
        }
        touched.sort_unstable();
        touched.dedup();
        let quant: VarSet = touched
            .iter()
            .map(|&b| Encoding::current_bit_var(b))
            .collect::<Vec<_>>()
            .into();
        let to_cur: Vec<(Var, Var)> = touched
            .iter()
            .map(|&b| (Encoding::next_bit_var(b), Encoding::current_bit_var(b)))
            .collect();
        let last = parts.pop().expect("one part a role");
        let mut acc = expand.clone();
        for p in &parts {
            stop().map_err(SymbolicError::Stopped)?;
            acc = e.and(&acc, p)?;
        }
        let image = e.and_exists(&acc, &last, &quant)?;
        Ok(e.rename(&image, &to_cur)?)
    }
}

/// Per fluent group of `enc`: the one role whose moves the next values of its fluents read,
/// `None` if they read no move; `None` for the whole game if a group reads the moves of two
/// roles (or the game has fewer than two roles), so that the roles' moves cannot be taken one
/// role at a time.
pub(crate) fn owners(game: &GroundGame, enc: &Encoding) -> Option<Vec<Option<usize>>> {
    if game.roles.len() < 2 {
        return None;
    }
    let mask = game.move_roles_of_signals()?;
    let mut out = Vec::with_capacity(enc.fluent_groups().len());
    for group in enc.fluent_groups() {
        let m = group
            .fluents
            .iter()
            .fold(0u64, |acc, &f| acc | mask[game.next[f].signal() as usize]);
        if m.count_ones() > 1 {
            return None;
        }
        out.push((m != 0).then(|| m.trailing_zeros() as usize));
    }
    Some(out)
}

/// The turn bits' values in `s`: `s` with every other current variable quantified.
fn turns_of<E: BddEngine>(e: &E, enc: &Encoding, s: &E::Bdd) -> symgame_bdd::BddResult<E::Bdd> {
    let turn = enc.turn_vars();
    let others: VarSet = enc
        .current_vars()
        .iter()
        .filter(|v| !turn.contains(v))
        .collect::<Vec<_>>()
        .into();
    e.exists(s, &others)
}

/// Sets the legal condition of every move not in `moves` (per role, the moves legal in the
/// layer, ascending) to false.
fn prune_to<E: BddEngine>(e: &E, legal: &mut [Vec<E::Bdd>], moves: &[Vec<usize>]) {
    for (ls, ms) in legal.iter_mut().zip(moves) {
        let mut keep = ms.iter().peekable();
        for (m, l) in ls.iter_mut().enumerate() {
            if keep.next_if_eq(&&m).is_none() {
                *l = e.constant(false);
            }
        }
    }
}

/// Per role, the moves legal in some state of `domain`.
fn moves_in<E: BddEngine>(
    e: &E,
    legal: &[Vec<E::Bdd>],
    domain: &E::Bdd,
    expired: &dyn Fn() -> bool,
) -> Result<Vec<Vec<usize>>, SymbolicError> {
    let mut out = Vec::with_capacity(legal.len());
    for ls in legal {
        let mut ms = Vec::new();
        for (m, l) in ls.iter().enumerate() {
            // Checked per move: thousands of operations on the layer outlast any limit.
            if expired() {
                return Err(SymbolicError::Stopped(
                    symgame_limits::StopReason::TimeLimit,
                ));
            }
            if !disjoint_or_stop(e, domain, l, expired)? {
                ms.push(m);
            }
        }
        out.push(ms);
    }
    Ok(out)
}

/// [`BddEngine::disjoint`], a time limit inside it a stop.
fn disjoint_or_stop<E: BddEngine>(
    e: &E,
    f: &E::Bdd,
    g: &E::Bdd,
    expired: &dyn Fn() -> bool,
) -> Result<bool, SymbolicError> {
    e.disjoint(f, g, expired)?.ok_or(SymbolicError::Stopped(
        symgame_limits::StopReason::TimeLimit,
    ))
}

/// The joint moves whose moves are legal together in some state of `domain`, each with its
/// legal condition alone (the AND of its moves' conditions, not AND `domain`: that goes into
/// its relation), role by role. Whether a joint move meets `domain` is a search for one state
/// ([`BddEngine::disjoint`]) where an AND would pass over the whole domain, once per move.
/// `Err(TooManyJointMoves)` past `limit` of them.
fn joint_moves_within<E: BddEngine>(
    e: &E,
    legal: &[Vec<E::Bdd>],
    domain: &E::Bdd,
    limit: usize,
    expired: &dyn Fn() -> bool,
) -> Result<Vec<(crate::compile::JointMove, E::Bdd)>, SymbolicError> {
    let moves = moves_in(e, legal, domain, expired)?;
    let meets = |c: &E::Bdd| Ok(!disjoint_or_stop(e, c, domain, expired)?);
    joint_moves_where(
        e,
        legal,
        &moves,
        e.constant(true),
        limit,
        expired,
        meets,
        None,
    )
}

/// The joint moves of `moves` (per role, its moves), saturating.
fn joint_count(moves: &[Vec<usize>]) -> usize {
    moves
        .iter()
        .try_fold(1usize, |acc, m| acc.checked_mul(m.len()))
        .unwrap_or(usize::MAX)
}

/// Whether the joint moves of `moves` (per role, its moves) explode: more than `above` of
/// them, and more than twice the roles' moves together (a turn-taking layer, where one role
/// chooses and the others wait, has about as many joint moves as moves; so does a game of one
/// role). `above` 0 says yes to every layer (for the tests).
fn explodes(moves: &[Vec<usize>], above: usize) -> bool {
    let joint = joint_count(moves);
    let sum: usize = moves.iter().map(Vec::len).sum();
    above == 0 || (joint > above && joint > 2 * sum)
}

/// Whether taking the roles' moves one role at a time is worth it: at least two roles have a
/// choice, and the joint moves would be more than twice as many evaluations as the roles'
/// moves (a turn-taking layer has about as many joint moves as moves).
fn worth_factoring(moves: &[Vec<usize>]) -> bool {
    if moves.iter().any(|m| m.is_empty()) {
        return false;
    }
    let sum: usize = moves.iter().map(Vec::len).sum();
    moves.iter().filter(|m| m.len() > 1).count() >= 2 && joint_count(moves) > 2 * sum
}

/// `AND_b (x_b' <-> f_b)` over `eqs`, built bottom-up by descending bit; `None` once it
/// passes `max_nodes` nodes, if given (the equations then meet the layer one at a time). Over all
/// states their conjunction can be exponential where the layer keeps it small: the eight
/// puzzle's, a blank's move shifting tiles between cells, passed 24 GB on its first layer of
/// one state.
fn equations_capped<E: BddEngine>(
    e: &E,
    eqs: &[(u32, E::Bdd)],
    max_nodes: Option<usize>,
    stop: &dyn Fn() -> Result<(), StopReason>,
) -> Result<Option<E::Bdd>, SymbolicError> {
    let mut sorted: Vec<&(u32, E::Bdd)> = eqs.iter().collect();
    sorted.sort_by_key(|(b, _)| std::cmp::Reverse(*b));
    let mut acc = e.constant(true);
    for (b, f) in sorted {
        // A joint move may set hundreds of bits, each equation an AND with the ones before.
        stop().map_err(SymbolicError::Stopped)?;
        let eq = e.iff(&e.var(Encoding::next_bit_var(*b)), f)?;
        acc = e.and(&eq, &acc)?;
        if max_nodes.is_some_and(|n| e.node_count_exceeds(&acc, n)) {
            return Ok(None);
        }
    }
    Ok(Some(acc))
}

/// [`equations_capped`] with no cap: the whole conjunction.
fn equations<E: BddEngine>(
    e: &E,
    eqs: &[(u32, E::Bdd)],
    stop: &dyn Fn() -> Result<(), StopReason>,
) -> Result<E::Bdd, SymbolicError> {
    Ok(equations_capped(e, eqs, None, stop)?.expect("with no cap it never gives up"))
}

#[cfg(test)]
mod tests;
