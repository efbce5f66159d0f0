//! Strong solving by retrograde analysis: the value of every reachable state.
//!
//! Three whole-set algorithms (ALGORITHMS.md §2) and one layered algorithm:
//!
//! * single player: for each reward from high to low, backward breadth-first search from the
//!   terminal states with that reward, inside the reachable set, skipping solved states; every
//!   state gets the best reward it can reach and its distance to it;
//! * two players, constant sum: for each threshold `t` of role 0's rewards, the attractor of
//!   "role 0 gets at least `t`": pre-image where role 0 moves, strong pre-image where role 1
//!   moves, iterated to a fixpoint;
//! * two players, general rewards: outcome buckets; a state is placed once all its successors are
//!   solved, into the bucket that is best for the role to move (see [`preference`]);
//! * layered: when every move leads from BFS layer `k` to layer `k + 1` (detected, not assumed),
//!   the layers are solved from the last to the first with the same preference rule, keeping
//!   only two layers in memory; the BFS layers wait in files.
//!
//! Who moves: a role is *in control* of a state when it has at least two legal moves. A state
//! where both roles are in control is a simultaneous move, which this module rejects. A state
//! where no role is in control has a single joint move (forced); for the won/drawn/lost counts
//! it is attributed to the role whose only legal move is not a "pass" move (a move it plays while
//! the other role is in control somewhere), else to role 0. Which role a forced state is
//! attributed to does not change any value.

use std::path::{Path, PathBuf};
use std::time::Instant;

use num_bigint::BigUint;
use serde::{Deserialize, Serialize};
use symgame_bdd::{BddEngine, BddResult};
use symgame_ground::GroundGame;

use crate::decimal;
use crate::disjunction::or_all;
use crate::error::SymbolicError;
use crate::files::{self, StoredClass, StoredLayer};
use crate::game::SymbolicGame;
use crate::interrupt::Interrupt;
use crate::partition::Partition;
use crate::reach::{next_layer, Bfs};
use symgame_limits::{Guard, Limits, StopReason};

/// Which retrograde algorithm a game needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GameKind {
    /// One role: the best reward it can reach, and the distance to it.
    SinglePlayer,
    /// Two roles whose rewards sum to the same constant in every reachable terminal state.
    ZeroSum,
    /// Two roles, any rewards.
    GeneralSum,
}

impl std::fmt::Display for GameKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            GameKind::SinglePlayer => "single-player",
            GameKind::ZeroSum => "two-player constant-sum",
            GameKind::GeneralSum => "two-player general-sum",
        })
    }
}

/// Whether to solve layer by layer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LayeredMode {
    /// Layered when the game is two-player and every move goes from BFS layer `k` to `k + 1`.
    #[default]
    Auto,
    /// Always the whole-set algorithm.
    Never,
}

/// Options of [`solve`].
#[derive(Clone, Debug, Default)]
pub struct SolveOptions {
    /// Layered or whole-set solving.
    pub layered: LayeredMode,
    /// Return the value classes in memory ([`Solved::layers`]); otherwise they are dropped
    /// once written and counted.
    pub keep_classes: bool,
    /// Write the solution to this directory (format: `docs/formats/solution.md`).
    pub out_dir: Option<PathBuf>,
    /// Where the BFS layers wait during layered solving (default: a fresh directory under the
    /// system's temporary directory, removed at the end).
    pub spill_dir: Option<PathBuf>,
    /// Fingerprint of the ground game and encoding written into solution files (see
    /// [`crate::fingerprint`]).
    pub fingerprint: String,
    /// Limits; a stop is reported in [`SolveStats::stopped`], with the finished layers kept.
    pub limits: Limits,
}

/// Errors of [`solve`] (resource limits are not errors: see [`SolveStats::stopped`]).
#[derive(Debug)]
#[non_exhaustive]
pub enum SolveError {
    /// Building or searching the symbolic game failed.
    Symbolic(SymbolicError),
    /// The game has more than two roles.
    TooManyRoles(usize),
    /// Both roles have a choice in a reachable state: simultaneous moves.
    Simultaneous {
        /// One such state (its true fluents).
        state: Vec<usize>,
    },
    /// A reachable non-terminal state without a legal joint move.
    NoLegalMove {
        /// One such state (its true fluents).
        state: Vec<usize>,
    },
    /// Reading or writing solution or layer files failed.
    Io(files::FileError),
}

impl std::fmt::Display for SolveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SolveError::Symbolic(e) => write!(f, "{e}"),
            SolveError::TooManyRoles(n) => write!(
                f,
                "the game has {n} roles: solving supports one or two roles (reachability works \
                 for any number)"
            ),
            SolveError::Simultaneous { .. } => write!(
                f,
                "simultaneous moves: both roles have a choice in a reachable state; solving \
                 supports turn-taking games only (reachability works for any game)"
            ),
            SolveError::NoLegalMove { .. } => write!(
                f,
                "a reachable non-terminal state has no legal joint move (some role has no legal \
                 move); the game is not well formed"
            ),
            SolveError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for SolveError {}

impl From<SymbolicError> for SolveError {
    fn from(e: SymbolicError) -> Self {
        SolveError::Symbolic(e)
    }
}

impl From<files::FileError> for SolveError {
    fn from(e: files::FileError) -> Self {
        SolveError::Io(e)
    }
}

/// A set of states with the same value.
pub struct ValueClass<E: BddEngine> {
    /// Index into [`SolveStats::outcomes`]: the rewards of every role under optimal play.
    pub outcome: usize,
    /// Single-player games: moves to the nearest terminal state with that reward.
    pub distance: Option<u32>,
    /// The states (a BDD over current variables).
    pub states: E::Bdd,
}

impl<E: BddEngine> Clone for ValueClass<E> {
    fn clone(&self) -> Self {
        ValueClass {
            outcome: self.outcome,
            distance: self.distance,
            states: self.states.clone(),
        }
    }
}

/// The value classes of one BFS layer (layered solving) or of the whole reachable set.
pub struct SolvedLayer<E: BddEngine> {
    /// The BFS depth, or `None` for the whole reachable set.
    pub depth: Option<usize>,
    /// Disjoint classes covering the solved states of the layer.
    pub classes: Vec<ValueClass<E>>,
}

/// Won, drawn and lost non-terminal states, seen from the role to move (two-player games).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoverCounts {
    /// The role to move gets more than the other role (decimal string).
    #[serde(with = "decimal")]
    pub won: BigUint,
    /// Both get the same (decimal string).
    #[serde(with = "decimal")]
    pub drawn: BigUint,
    /// The role to move gets less (decimal string).
    #[serde(with = "decimal")]
    pub lost: BigUint,
}

/// The solution statistics of one BFS layer.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SolveLayerStats {
    /// BFS depth.
    pub depth: usize,
    /// States of the layer (decimal string).
    #[serde(with = "decimal")]
    pub states: BigUint,
    /// Terminal states of the layer (decimal string).
    #[serde(with = "decimal")]
    pub terminal: BigUint,
    /// States per outcome, indexed like [`SolveStats::outcomes`] (decimal strings).
    #[serde(with = "decimal::list")]
    pub per_outcome: Vec<BigUint>,
    /// Two-player games: non-terminal states won / drawn / lost for the role to move.
    pub mover: Option<MoverCounts>,
    /// BDD nodes of the layer's value classes (sum over the classes).
    pub nodes: usize,
    /// Seconds since the start of solving when the layer was done.
    pub seconds: f64,
}

/// The result statistics of [`solve`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SolveStats {
    /// Which algorithm.
    pub kind: GameKind,
    /// Whether the layered algorithm ran.
    pub layered: bool,
    /// The roles' names.
    pub roles: Vec<String>,
    /// The outcomes seen: `outcomes[i][r]` is the reward of role `r` under outcome `i`.
    pub outcomes: Vec<Vec<u8>>,
    /// The outcome of the initial state (`None` if solving stopped before reaching it).
    pub initial: Option<usize>,
    /// Single-player games: moves from the initial state to its best reward.
    pub initial_distance: Option<u32>,
    /// Per BFS layer; in layered solving, the solved layers (from the last one down).
    pub layers: Vec<SolveLayerStats>,
    /// Solved states per outcome over all layers (decimal strings).
    #[serde(with = "decimal::list")]
    pub per_outcome: Vec<BigUint>,
    /// Reachable states (decimal string).
    #[serde(with = "decimal")]
    pub states: BigUint,
    /// Reachable states left without a value (only in games with cycles; decimal string).
    #[serde(with = "decimal")]
    pub unsolved: BigUint,
    /// Seconds of the forward search.
    pub reach_seconds: f64,
    /// Seconds of the whole run.
    pub seconds: f64,
    /// The largest BDD (nodes) among layers, reached sets and value classes.
    pub peak_nodes: usize,
    /// `Some` if a limit stopped the run; the finished layers are kept.
    pub stopped: Option<StopReason>,
}

/// The solution: statistics, and the value classes when asked for.
pub struct Solved<E: BddEngine> {
    /// Statistics.
    pub stats: SolveStats,
    /// The value classes (empty unless [`SolveOptions::keep_classes`]), whole set or per layer
    /// (layered solving lists them from the first layer to the last).
    pub layers: Vec<SolvedLayer<E>>,
}

impl<E: BddEngine> Solved<E> {
    /// The outcome index and distance of the single state `state` (true fluents), if solved.
    pub fn value_of(
        &self,
        g: &SymbolicGame<'_, E>,
        state: &[usize],
    ) -> BddResult<Option<(usize, Option<u32>)>> {
        let s = g.state(state)?;
        let e = g.engine();
        for l in &self.layers {
            for c in &l.classes {
                if !e.is_false(&e.and(&c.states, &s)?) {
                    return Ok(Some((c.outcome, c.distance)));
                }
            }
        }
        Ok(None)
    }
}

/// The order in which role `p` prefers outcomes, best first: the largest difference between its
/// reward and the other role's, ties broken by its own reward. For a single role, its reward.
/// For constant-sum games this is minimax.
pub fn preference(outcomes: &[Vec<u8>], p: usize) -> Vec<usize> {
    let key = |o: &Vec<u8>| -> (i32, i32) {
        let own = i32::from(o[p]);
        let other: i32 = o
            .iter()
            .enumerate()
            .filter(|&(r, _)| r != p)
            .map(|(_, &v)| i32::from(v))
            .sum();
        if o.len() == 1 {
            (own, own)
        } else {
            (own - other, own)
        }
    };
    let mut idx: Vec<usize> = (0..outcomes.len()).collect();
    idx.sort_by(|&a, &b| key(&outcomes[b]).cmp(&key(&outcomes[a])).then(a.cmp(&b)));
    idx
}

/// A growing list of outcomes (reward vectors) with their indexes.
#[derive(Default)]
struct Outcomes {
    list: Vec<Vec<u8>>,
}

impl Outcomes {
    fn index(&mut self, o: &[u8]) -> usize {
        match self.list.iter().position(|x| x == o) {
            Some(i) => i,
            None => {
                self.list.push(o.to_vec());
                self.list.len() - 1
            }
        }
    }
}

/// State predicates the solvers share: who moves, and the goal reading.
struct Context<'g, 'e, E: BddEngine> {
    g: &'g SymbolicGame<'e, E>,
    /// Per role: the states it moves in (a partition of the non-terminal states with a successor
    /// when combined; see the module doc). Not restricted to reachable states.
    movers: Vec<E::Bdd>,
    /// States where both roles have a choice (two-player games; false otherwise).
    simultaneous: E::Bdd,
    /// States where every role has a legal move: the non-terminal ones among them have a
    /// successor (the next state is defined for every legal joint move).
    live: E::Bdd,
    /// Per role, its distinct goal values, descending.
    goal_values: Vec<Vec<u8>>,
    /// The transition partitions, those kept as conjunct lists restricted to the current
    /// universe ([`Context::set_universe`]).
    parts: Vec<Partition<E>>,
    guard: Guard<'g>,
    peak: usize,
}

impl<'g, 'e, E: BddEngine> Context<'g, 'e, E> {
    fn new(g: &'g SymbolicGame<'e, E>, limits: &'g Limits) -> BddResult<Self> {
        let e = g.engine();
        let roles = g.role_names().len();
        // States where a role has at least two legal moves.
        let mut choice = Vec::with_capacity(roles);
        let mut live = e.constant(true);
        for ls in g.legal() {
            live = e.and(&live, &or_all(e, ls.clone())?)?;
            let mut one = e.constant(false);
            let mut two = e.constant(false);
            for l in ls {
                two = e.or(&two, &e.and(&one, l)?)?;
                one = e.or(&one, l)?;
            }
            choice.push(two);
        }
        let simultaneous = if roles == 2 {
            e.and(&choice[0], &choice[1])?
        } else {
            e.constant(false)
        };
        let movers = if roles == 2 {
            // A move of role r is a pass move if it is legal somewhere the other role chooses.
            let mut active = Vec::with_capacity(2);
            for r in 0..2 {
                let other = &choice[1 - r];
                let mut acc = e.constant(false);
                for l in &g.legal()[r] {
                    if e.is_false(&e.and(l, other)?) {
                        acc = e.or(&acc, l)?;
                    }
                }
                active.push(acc);
            }
            let forced = e.not(&e.or(&choice[0], &choice[1])?)?;
            let forced1 = e.and_not(&e.and(&forced, &active[1])?, &active[0])?;
            let m1 = e.or(&choice[1], &forced1)?;
            let m0 = e.not(&m1)?;
            vec![m0, m1]
        } else {
            vec![e.constant(true)]
        };
        let goal_values = g
            .goal_formulas()
            .iter()
            .map(|gs| {
                let mut vals: Vec<u8> = gs.iter().map(|x| x.0).collect();
                vals.sort_unstable_by(|a, b| b.cmp(a));
                vals.dedup();
                vals
            })
            .collect();
        Ok(Context {
            g,
            movers,
            simultaneous,
            live,
            goal_values,
            parts: g.clusters().to_vec(),
            guard: Guard {
                limits,
                started: Instant::now(),
            },
            peak: 0,
        })
    }

    fn e(&self) -> &'e E {
        self.g.engine()
    }

    /// Records the size of `b` for the peak statistic and checks the node limit.
    fn track(&mut self, b: &E::Bdd) -> Result<(), Interrupt> {
        let n = self.e().node_count(b);
        self.peak = self.peak.max(n);
        Ok(self.guard.check_nodes(n as u64)?)
    }

    /// Splits the terminal states `t` by outcome (a missing goal value reads as 0, the same
    /// reading as the explicit reasoner).
    fn terminal_classes(
        &self,
        t: &E::Bdd,
        outcomes: &mut Outcomes,
    ) -> BddResult<Vec<(usize, E::Bdd)>> {
        let e = self.e();
        let mut parts: Vec<(Vec<u8>, E::Bdd)> = Vec::new();
        if !e.is_false(t) {
            parts.push((Vec::new(), t.clone()));
        }
        for (role, values) in self.goal_values.iter().enumerate() {
            let mut next: Vec<(Vec<u8>, E::Bdd)> = Vec::new();
            for (o, s) in parts {
                let mut rest = s;
                let push = |v: u8, set: E::Bdd, next: &mut Vec<(Vec<u8>, E::Bdd)>| {
                    let mut o2 = o.clone();
                    o2.push(v);
                    match next.iter_mut().find(|x| x.0 == o2) {
                        Some(x) => x.1 = e.or(&x.1, &set)?,
                        None => next.push((o2, set)),
                    }
                    BddResult::Ok(())
                };
                for &v in values {
                    if e.is_false(&rest) {
                        break;
                    }
                    // The goal conditions are formulas: conjoined piece by piece with the set.
                    let hit = self.g.and_goal(&rest, role, v)?;
                    if !e.is_false(&hit) {
                        rest = e.and_not(&rest, &hit)?;
                        push(v, hit, &mut next)?;
                    }
                }
                if !e.is_false(&rest) {
                    push(0, rest, &mut next)?;
                }
            }
            parts = next;
        }
        Ok(parts
            .into_iter()
            .map(|(o, s)| (outcomes.index(&o), s))
            .collect())
    }

    /// Restricts the partitions kept as conjunct lists to `universe`, a superset of every
    /// domain that [`Context::pre_in`] will be asked about: such relations are huge over all
    /// states (most unreachable) but small over the universe.
    fn set_universe(&mut self, universe: &E::Bdd) -> BddResult<()> {
        let e = self.e();
        self.parts = self
            .g
            .clusters()
            .iter()
            .map(|p| {
                if p.conjuncts.is_empty() {
                    Ok(p.clone())
                } else {
                    p.restricted_to(e, universe)
                }
            })
            .collect::<BddResult<_>>()?;
        Ok(())
    }

    /// Predecessors of `target` inside `domain` (non-terminal states with a joint move into
    /// `target`).
    fn pre_in(&self, target: &E::Bdd, domain: &E::Bdd) -> Result<E::Bdd, Interrupt> {
        let e = self.e();
        if e.is_false(target) || e.is_false(domain) {
            return Ok(e.constant(false));
        }
        let mut parts = Vec::with_capacity(self.parts.len());
        for p in &self.parts {
            self.guard.check()?;
            parts.push(p.pre_image_within(e, target, Some(domain))?);
        }
        Ok(or_all(e, parts)?)
    }

    /// Fails if two roles are in control of a state of `nonterminal`.
    fn check_simultaneous(&self, nonterminal: &E::Bdd) -> Result<(), SolveOrStop> {
        let both = self.e().and(nonterminal, &self.simultaneous)?;
        match self.g.pick_state(&both) {
            Some(state) => Err(SolveOrStop::Error(SolveError::Simultaneous { state })),
            None => Ok(()),
        }
    }

    /// Fails if two roles are in control of a state of `nonterminal`, or if a state of it has no
    /// successor in `successors` (a superset of the successors of `nonterminal`: the reachable
    /// set, or the next layer; restricting the pre-image to it keeps it small).
    fn check_states(&self, nonterminal: &E::Bdd, successors: &E::Bdd) -> Result<(), SolveOrStop> {
        let e = self.e();
        let g = self.g;
        self.check_simultaneous(nonterminal)?;
        let live = self.pre_in(successors, nonterminal)?;
        let dead = e.and_not(nonterminal, &live)?;
        if let Some(state) = g.pick_state(&dead) {
            return Err(SolveOrStop::Error(SolveError::NoLegalMove { state }));
        }
        Ok(())
    }

    /// Counts of `layer`'s non-terminal states won/drawn/lost for the role to move.
    fn mover_counts(
        &self,
        classes: &[ValueClass<E>],
        outcomes: &[Vec<u8>],
        terminal: &E::Bdd,
    ) -> BddResult<Option<MoverCounts>> {
        if self.movers.len() != 2 {
            return Ok(None);
        }
        let e = self.e();
        let mut m = MoverCounts::default();
        for c in classes {
            let o = &outcomes[c.outcome];
            let inner = e.and_not(&c.states, terminal)?;
            if e.is_false(&inner) {
                continue;
            }
            for (p, mv) in self.movers.iter().enumerate() {
                let n = self.g.count(&e.and(&inner, mv)?);
                match o[p].cmp(&o[1 - p]) {
                    std::cmp::Ordering::Greater => m.won += n,
                    std::cmp::Ordering::Equal => m.drawn += n,
                    std::cmp::Ordering::Less => m.lost += n,
                }
            }
        }
        Ok(Some(m))
    }
}

/// An error or a stop, inside the solvers.
enum SolveOrStop {
    Error(SolveError),
    Stop(StopReason),
}

impl From<Interrupt> for SolveOrStop {
    fn from(i: Interrupt) -> Self {
        match i {
            Interrupt::Stop(r) => SolveOrStop::Stop(r),
        }
    }
}

impl From<StopReason> for SolveOrStop {
    fn from(r: StopReason) -> Self {
        SolveOrStop::Stop(r)
    }
}

impl From<symgame_bdd::BddError> for SolveOrStop {
    fn from(_: symgame_bdd::BddError) -> Self {
        SolveOrStop::Stop(StopReason::OutOfMemory)
    }
}

impl From<files::FileError> for SolveOrStop {
    fn from(e: files::FileError) -> Self {
        SolveOrStop::Error(SolveError::Io(e))
    }
}

/// The terminal part of `s`.
fn terminal_of<E: BddEngine>(g: &SymbolicGame<'_, E>, s: &E::Bdd) -> BddResult<E::Bdd> {
    g.engine().and_not(s, &g.and_not_terminal(s)?)
}

/// Solves `game` strongly: the value of every reachable state. See the module documentation
/// for the algorithms. `progress` is called after each solved layer or phase.
pub fn solve<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    opts: &SolveOptions,
    mut progress: impl FnMut(&SolveStats),
) -> Result<Solved<E>, SolveError> {
    let roles = g.role_names().len();
    if roles > 2 {
        return Err(SolveError::TooManyRoles(roles));
    }
    let started = Instant::now();
    let mut ctx = Context::new(g, &opts.limits).map_err(SymbolicError::from)?;
    let mut stats = SolveStats {
        kind: if roles == 1 {
            GameKind::SinglePlayer
        } else {
            GameKind::GeneralSum
        },
        layered: false,
        roles: g.role_names().to_vec(),
        outcomes: Vec::new(),
        initial: None,
        initial_distance: None,
        layers: Vec::new(),
        per_outcome: Vec::new(),
        states: BigUint::default(),
        unsolved: BigUint::default(),
        reach_seconds: 0.0,
        seconds: 0.0,
        peak_nodes: 0,
        stopped: None,
    };
    let mut layers_out = Vec::new();
    let result = run(
        g,
        opts,
        &mut ctx,
        &mut stats,
        &mut layers_out,
        &mut progress,
    );
    stats.seconds = started.elapsed().as_secs_f64();
    stats.peak_nodes = ctx.peak;
    match result {
        Ok(()) => {}
        Err(SolveOrStop::Stop(r)) => stats.stopped = Some(r),
        Err(SolveOrStop::Error(e)) => return Err(e),
    }
    if let Some(dir) = &opts.out_dir {
        files::write_manifest(dir, &opts.fingerprint, &stats)?;
    }
    Ok(Solved {
        stats,
        layers: layers_out,
    })
}

fn run<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    opts: &SolveOptions,
    ctx: &mut Context<'_, '_, E>,
    stats: &mut SolveStats,
    layers_out: &mut Vec<SolvedLayer<E>>,
    progress: &mut impl FnMut(&SolveStats),
) -> Result<(), SolveOrStop> {
    if let Some(dir) = &opts.out_dir {
        files::prepare_dir(dir)?;
    }
    let two = g.role_names().len() == 2;
    let spill = Spill::new(opts.spill_dir.as_deref())?;
    let to_files = two && opts.layered == LayeredMode::Auto;
    let fwd = forward(g, ctx, to_files, &spill)?;
    stats.reach_seconds = ctx.guard.started.elapsed().as_secs_f64();
    stats.states = fwd.states.clone();
    if to_files && fwd.layered {
        stats.layered = true;
        drop(fwd.reached);
        return solve_layered(
            g, opts, ctx, stats, layers_out, progress, &spill, fwd.depths,
        );
    }
    let reached = fwd.reached.expect("kept when not layered");
    let layers = match fwd.layers {
        Some(l) => l,
        None => spill.load_all(g, fwd.depths)?,
    };
    drop(spill);
    let e = g.engine();
    let nonterminal = g.and_not_terminal(&reached)?;
    ctx.set_universe(&nonterminal)?;
    ctx.check_states(&nonterminal, &reached)?;
    let terminal = e.and_not(&reached, &nonterminal)?;
    let mut outcomes = Outcomes::default();
    let term_classes = ctx.terminal_classes(&terminal, &mut outcomes)?;
    let classes = if !two {
        stats.kind = GameKind::SinglePlayer;
        single_player(ctx, &reached, &term_classes, &outcomes.list)?
    } else if is_constant_sum(&outcomes.list) {
        stats.kind = GameKind::ZeroSum;
        constant_sum(ctx, &reached, &nonterminal, &term_classes, &mut outcomes)?
    } else {
        stats.kind = GameKind::GeneralSum;
        general_sum(ctx, &reached, &nonterminal, &term_classes, &outcomes.list)?
    };
    stats.outcomes = outcomes.list.clone();
    // Statistics per BFS layer.
    let mut solved = e.constant(false);
    for c in &classes {
        solved = e.or(&solved, &c.states)?;
    }
    stats.unsolved = g.count(&e.and_not(&reached, &solved)?);
    stats.per_outcome = vec![BigUint::default(); outcomes.list.len()];
    for c in &classes {
        stats.per_outcome[c.outcome] += g.count(&c.states);
    }
    for (depth, layer) in layers.iter().enumerate() {
        let t = terminal_of(g, layer)?;
        let mut per = vec![BigUint::default(); outcomes.list.len()];
        let mut in_layer = Vec::new();
        for c in &classes {
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
        let mover = ctx.mover_counts(&in_layer, &outcomes.list, &t)?;
        stats.layers.push(SolveLayerStats {
            depth,
            states: g.count(layer),
            terminal: g.count(&t),
            per_outcome: per,
            mover,
            nodes: in_layer.iter().map(|c| e.node_count(&c.states)).sum(),
            seconds: ctx.guard.started.elapsed().as_secs_f64(),
        });
    }
    set_initial(g, stats, &classes)?;
    if let Some(dir) = &opts.out_dir {
        files::write_layer(dir, &opts.fingerprint, None, &store(e, &classes))?;
    }
    progress(stats);
    if opts.keep_classes {
        layers_out.push(SolvedLayer {
            depth: None,
            classes,
        });
    }
    Ok(())
}

fn store<E: BddEngine>(e: &E, classes: &[ValueClass<E>]) -> Vec<StoredClass> {
    classes
        .iter()
        .map(|c| StoredClass {
            outcome: c.outcome as u32,
            distance: c.distance,
            nodes: e.export(&c.states),
        })
        .collect()
}

fn set_initial<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    stats: &mut SolveStats,
    classes: &[ValueClass<E>],
) -> BddResult<()> {
    let e = g.engine();
    for c in classes {
        if !e.is_false(&e.and(&c.states, g.init())?) {
            stats.initial = Some(c.outcome);
            stats.initial_distance = c.distance;
        }
    }
    Ok(())
}

fn is_constant_sum(outcomes: &[Vec<u8>]) -> bool {
    let sums: Vec<u32> = outcomes
        .iter()
        .map(|o| o.iter().map(|&v| u32::from(v)).sum())
        .collect();
    sums.windows(2).all(|w| w[0] == w[1])
}

/// Single player: backward BFS from the terminal states of each reward, best reward first.
fn single_player<E: BddEngine>(
    ctx: &mut Context<'_, '_, E>,
    reached: &E::Bdd,
    term_classes: &[(usize, E::Bdd)],
    outcomes: &[Vec<u8>],
) -> Result<Vec<ValueClass<E>>, SolveOrStop> {
    let e = ctx.e();
    let g = ctx.g;
    let mut order: Vec<&(usize, E::Bdd)> = term_classes.iter().collect();
    order.sort_by_key(|(o, _)| std::cmp::Reverse(outcomes[*o][0]));
    let mut solved = e.constant(false);
    let mut classes = Vec::new();
    let open = g.and_not_terminal(reached)?;
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
fn security<E: BddEngine>(
    ctx: &mut Context<'_, '_, E>,
    reached: &E::Bdd,
    nonterminal: &E::Bdd,
    term_classes: &[(usize, E::Bdd)],
    outcomes: &[Vec<u8>],
    role: usize,
) -> Result<Vec<(u8, E::Bdd)>, SolveOrStop> {
    let e = ctx.e();
    let mut values: Vec<u8> = outcomes.iter().map(|o| o[role]).collect();
    values.sort_unstable();
    values.dedup();
    let own = e.and(nonterminal, &ctx.movers[role])?;
    let other = e.and_not(nonterminal, &ctx.movers[role])?;
    // attr[i]: states where the role can force at least values[i]; attr[0] is everything.
    let mut attr = vec![reached.clone()];
    for &t in values.iter().skip(1) {
        let mut a = e.constant(false);
        for (o, s) in term_classes {
            if outcomes[*o][role] >= t {
                a = e.or(&a, s)?;
            }
        }
        // A state first enters the attractor right after one of its successors did.
        let mut frontier = a.clone();
        loop {
            let open = e.and_not(nonterminal, &a)?;
            let cand = ctx.pre_in(&frontier, &open)?;
            if e.is_false(&cand) {
                break;
            }
            let chosen = e.and(&cand, &own)?;
            let forced = e.and(&cand, &other)?;
            let escape = ctx.pre_in(&e.and_not(reached, &a)?, &forced)?;
            let all_in = e.and_not(&forced, &escape)?;
            frontier = e.or(&chosen, &all_in)?;
            if e.is_false(&frontier) {
                break;
            }
            a = e.or(&a, &frontier)?;
            ctx.track(&a)?;
        }
        attr.push(a);
    }
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

/// Two players, constant sum: role 0's security values, the other role getting the rest.
fn constant_sum<E: BddEngine>(
    ctx: &mut Context<'_, '_, E>,
    reached: &E::Bdd,
    nonterminal: &E::Bdd,
    term_classes: &[(usize, E::Bdd)],
    outcomes: &mut Outcomes,
) -> Result<Vec<ValueClass<E>>, SolveOrStop> {
    let list = outcomes.list.clone();
    let total: u16 = list[0].iter().map(|&v| u16::from(v)).sum();
    let classes = security(ctx, reached, nonterminal, term_classes, &list, 0)?;
    Ok(classes
        .into_iter()
        .map(|(v, s)| ValueClass {
            outcome: outcomes.index(&[v, (total - u16::from(v)) as u8]),
            distance: None,
            states: s,
        })
        .collect())
}

/// The security value of `role` (by name index) in every state of `reached`, a set closed under
/// successors (e.g. the reachable states): the largest reward the role can force when the other
/// role minimises it, as the explicit solvers of `symgame prove` compute it. For constant-sum
/// games it is the role's part of the solved outcome; for general rewards it differs from the
/// outcome of [`solve`] (which follows [`preference`]). Returns `(value, states)` pairs
/// partitioning `reached`, ascending by value.
pub fn security_values<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    reached: &E::Bdd,
    role: usize,
    limits: &Limits,
) -> Result<Vec<(u8, E::Bdd)>, SolveError> {
    let roles = g.role_names().len();
    if roles > 2 {
        return Err(SolveError::TooManyRoles(roles));
    }
    let run = || -> Result<Vec<(u8, E::Bdd)>, SolveOrStop> {
        let mut ctx = Context::new(g, limits)?;
        let e = g.engine();
        let nonterminal = g.and_not_terminal(reached)?;
        ctx.set_universe(&nonterminal)?;
        ctx.check_states(&nonterminal, reached)?;
        let terminal = e.and_not(reached, &nonterminal)?;
        let mut outcomes = Outcomes::default();
        let term = ctx.terminal_classes(&terminal, &mut outcomes)?;
        security(&mut ctx, reached, &nonterminal, &term, &outcomes.list, role)
    };
    run().map_err(|x| match x {
        SolveOrStop::Error(e) => e,
        SolveOrStop::Stop(r) => SolveError::Symbolic(SymbolicError::Stopped(r)),
    })
}

/// Two players, general rewards: outcome buckets filled once all successors are solved.
fn general_sum<E: BddEngine>(
    ctx: &mut Context<'_, '_, E>,
    reached: &E::Bdd,
    nonterminal: &E::Bdd,
    term_classes: &[(usize, E::Bdd)],
    outcomes: &[Vec<u8>],
) -> Result<Vec<ValueClass<E>>, SolveOrStop> {
    let e = ctx.e();
    let mut bucket: Vec<E::Bdd> = vec![e.constant(false); outcomes.len()];
    let mut solved = e.constant(false);
    for (o, s) in term_classes {
        bucket[*o] = e.or(&bucket[*o], s)?;
        solved = e.or(&solved, s)?;
    }
    let prefs = [preference(outcomes, 0), preference(outcomes, 1)];
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

/// The forward search of [`solve`].
struct Forward<E: BddEngine> {
    /// All reachable states (dropped before layered solving).
    reached: Option<E::Bdd>,
    /// The layers, when kept in memory (`None` when they were written to the spill directory).
    layers: Option<Vec<E::Bdd>>,
    /// Number of layers.
    depths: usize,
    /// Whether every move goes from layer k to layer k + 1.
    layered: bool,
    states: BigUint,
}

/// BFS from the initial state (the step of [`reach`](crate::reach): per-cluster images and terminal
/// cuts, no difference with the reached states while the layers lie in distinct potential
/// levels). With `spill`, layers go to files and only the reached set stays in memory; it also
/// detects whether the game is layered (no move leads back into a layer already seen, which
/// with BFS means every move goes from layer k to k + 1).
fn forward<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    ctx: &mut Context<'_, '_, E>,
    to_files: bool,
    spill: &Spill,
) -> Result<Forward<E>, SolveOrStop> {
    let e = g.engine();
    let mut bfs = Bfs::start(g)?;
    let mut layers = Vec::new();
    let mut depth = 0;
    let mut states = BigUint::default();
    while !e.is_false(&bfs.frontier) {
        ctx.guard.check()?;
        ctx.track(&bfs.frontier)?;
        states += g.count(&bfs.frontier);
        let (new, new_expand) = next_layer(g, &mut bfs, depth, true, &ctx.guard)?;
        ctx.track(&bfs.reached)?;
        let frontier = std::mem::replace(&mut bfs.frontier, new);
        let expand = std::mem::replace(&mut bfs.expand, new_expand);
        if to_files {
            spill.write(e, depth, &expand, &e.and_not(&frontier, &expand)?)?;
        } else {
            layers.push(frontier);
        }
        depth += 1;
    }
    Ok(Forward {
        reached: Some(bfs.reached),
        layers: (!to_files).then_some(layers),
        depths: depth,
        layered: !bfs.revisited,
        states,
    })
}

/// Layered solving: from the last layer to the first, each layer's classes from the next
/// layer's by the preference rule; two layers in memory.
#[allow(clippy::too_many_arguments)]
fn solve_layered<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    opts: &SolveOptions,
    ctx: &mut Context<'_, '_, E>,
    stats: &mut SolveStats,
    layers_out: &mut Vec<SolvedLayer<E>>,
    progress: &mut impl FnMut(&SolveStats),
    spill: &Spill,
    depths: usize,
) -> Result<(), SolveOrStop> {
    let e = g.engine();
    let mut outcomes = Outcomes::default();
    let mut next: Vec<ValueClass<E>> = Vec::new();
    let mut kept = Vec::new();
    let mut sums: Vec<u32> = Vec::new();
    for depth in (0..depths).rev() {
        ctx.guard.check()?;
        let (nonterminal, terminal) = spill.read(g, depth)?;
        ctx.set_universe(&nonterminal)?;
        ctx.check_simultaneous(&nonterminal)?;
        let mut classes: Vec<ValueClass<E>> = ctx
            .terminal_classes(&terminal, &mut outcomes)?
            .into_iter()
            .map(|(o, s)| ValueClass {
                outcome: o,
                distance: None,
                states: s,
            })
            .collect();
        // Each mover takes, in its order of preference, the states with a successor in a
        // class of the next layer: one pre-image per class, inside the states still pending
        // (those with a successor in a class it prefers are already taken). Every successor
        // lies in the next layer, which is fully solved, so the states left for the least
        // preferred class present need no pre-image: all their successors are in it, as long
        // as they have one (every role has a legal move). On Connect Four a layer has one
        // mover, so this is two pre-images a layer instead of one per class.
        // Won/drawn/lost for the role to move, counted as the states are taken (two roles).
        let mut mover_counts = (ctx.movers.len() == 2).then(MoverCounts::default);
        for (p, mover) in ctx.movers.clone().iter().enumerate() {
            let mut pending = e.and(&nonterminal, mover)?;
            if e.is_false(&pending) {
                continue;
            }
            let order: Vec<usize> = preference(&outcomes.list, p)
                .into_iter()
                .filter(|o| next.iter().any(|c| c.outcome == *o))
                .collect();
            for (i, &o) in order.iter().enumerate() {
                if e.is_false(&pending) {
                    break;
                }
                let target = &next
                    .iter()
                    .find(|c| c.outcome == o)
                    .expect("filtered above")
                    .states;
                let take = if i + 1 == order.len() {
                    let dead = e.and_not(&pending, &ctx.live)?;
                    if let Some(state) = g.pick_state(&dead) {
                        return Err(SolveOrStop::Error(SolveError::NoLegalMove { state }));
                    }
                    pending.clone()
                } else {
                    let t = ctx.pre_in(target, &pending)?;
                    ctx.track(&t)?;
                    t
                };
                if e.is_false(&take) {
                    continue;
                }
                pending = e.and_not(&pending, &take)?;
                if let Some(m) = mover_counts.as_mut() {
                    let (mine, theirs) = (outcomes.list[o][p], outcomes.list[o][1 - p]);
                    let n = g.count(&take);
                    match mine.cmp(&theirs) {
                        std::cmp::Ordering::Greater => m.won += n,
                        std::cmp::Ordering::Equal => m.drawn += n,
                        std::cmp::Ordering::Less => m.lost += n,
                    }
                }
                match classes.iter_mut().find(|x| x.outcome == o) {
                    Some(x) => x.states = e.or(&x.states, &take)?,
                    None => classes.push(ValueClass {
                        outcome: o,
                        distance: None,
                        states: take,
                    }),
                }
            }
            // Only when the next layer is empty: states without any successor.
            if let Some(state) = g.pick_state(&pending) {
                return Err(SolveOrStop::Error(SolveError::NoLegalMove { state }));
            }
        }
        for c in &classes {
            ctx.track(&c.states)?;
        }
        let mut per = vec![BigUint::default(); outcomes.list.len()];
        for c in &classes {
            per[c.outcome] += g.count(&c.states);
        }
        let mover = mover_counts;
        stats.outcomes = outcomes.list.clone();
        // The two parts are disjoint: their counts add up to the layer's, without a union.
        let terminal_count = g.count(&terminal);
        stats.layers.push(SolveLayerStats {
            depth,
            states: g.count(&nonterminal) + &terminal_count,
            terminal: terminal_count,
            per_outcome: per,
            mover,
            nodes: classes.iter().map(|c| e.node_count(&c.states)).sum(),
            seconds: ctx.guard.started.elapsed().as_secs_f64(),
        });
        if let Some(dir) = &opts.out_dir {
            files::write_layer(dir, &opts.fingerprint, Some(depth), &store(e, &classes))?;
        }
        if depth == 0 {
            set_initial(g, stats, &classes)?;
        }
        sums = outcomes
            .list
            .iter()
            .map(|o| o.iter().map(|&v| u32::from(v)).sum())
            .collect();
        progress(stats);
        if opts.keep_classes {
            kept.push(SolvedLayer {
                depth: Some(depth),
                classes: classes.clone(),
            });
        }
        next = classes;
    }
    stats.kind = if sums.windows(2).all(|w| w[0] == w[1]) {
        GameKind::ZeroSum
    } else {
        GameKind::GeneralSum
    };
    stats.layers.reverse();
    stats.per_outcome = vec![BigUint::default(); outcomes.list.len()];
    for l in &stats.layers {
        for (o, n) in l.per_outcome.iter().enumerate() {
            stats.per_outcome[o] += n;
        }
    }
    kept.reverse();
    *layers_out = kept;
    Ok(())
}

/// The BFS layers waiting in files during layered solving.
struct Spill {
    dir: PathBuf,
    /// Whether the directory is ours to remove.
    owned: bool,
}

impl Spill {
    fn new(dir: Option<&Path>) -> Result<Spill, files::FileError> {
        let (dir, owned) = match dir {
            Some(d) => (d.to_path_buf(), false),
            None => {
                let d = std::env::temp_dir().join(format!(
                    "symgame-layers-{}-{}",
                    std::process::id(),
                    std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .map(|t| t.as_nanos())
                        .unwrap_or(0)
                ));
                (d, true)
            }
        };
        std::fs::create_dir_all(&dir).map_err(|e| files::FileError::io(&dir, e))?;
        Ok(Spill { dir, owned })
    }

    fn path(&self, depth: usize) -> PathBuf {
        self.dir.join(format!("bfs-{depth:04}.layer"))
    }

    /// Writes layer `depth` as its non-terminal and terminal parts (the forward search has
    /// split them already; the backward pass needs both).
    fn write<E: BddEngine>(
        &self,
        e: &E,
        depth: usize,
        nonterminal: &E::Bdd,
        terminal: &E::Bdd,
    ) -> Result<(), SolveOrStop> {
        let part = |outcome, b: &E::Bdd| StoredClass {
            outcome,
            distance: None,
            nodes: e.export(b),
        };
        let stored = StoredLayer {
            fingerprint: String::new(),
            depth: Some(depth as u32),
            classes: vec![part(0, nonterminal), part(1, terminal)],
        };
        files::write_stored(&self.path(depth), &stored)?;
        Ok(())
    }

    /// Reads layer `depth`: (non-terminal, terminal) states.
    fn read<E: BddEngine>(
        &self,
        g: &SymbolicGame<'_, E>,
        depth: usize,
    ) -> Result<(E::Bdd, E::Bdd), SolveOrStop> {
        let path = self.path(depth);
        let stored = files::read_stored(&path)?;
        let [a, b] = <[StoredClass; 2]>::try_from(stored.classes)
            .map_err(|_| files::FileError::format(&path, "a layer file without its two parts"))?;
        let e = g.engine();
        Ok((e.import(&a.nodes)?, e.import(&b.nodes)?))
    }

    fn load_all<E: BddEngine>(
        &self,
        g: &SymbolicGame<'_, E>,
        depths: usize,
    ) -> Result<Vec<E::Bdd>, SolveOrStop> {
        let e = g.engine();
        (0..depths)
            .map(|d| {
                let (n, t) = self.read(g, d)?;
                Ok(e.or(&n, &t)?)
            })
            .collect()
    }
}

impl Drop for Spill {
    fn drop(&mut self) {
        if self.owned {
            let _ = std::fs::remove_dir_all(&self.dir);
        } else {
            for entry in std::fs::read_dir(&self.dir).into_iter().flatten().flatten() {
                let p = entry.path();
                if p.extension().is_some_and(|x| x == "layer") {
                    let _ = std::fs::remove_file(p);
                }
            }
        }
    }
}

/// [`solve`] on the engine `backend`: compiles `game` with the encoding `sym` asks for
/// ([`crate::Encoding::with_options`]) and solves it.
pub fn solve_with_backend(
    game: &GroundGame,
    backend: symgame_bdd::Backend,
    config: &symgame_bdd::EngineConfig,
    sym: &crate::SymbolicOptions,
    opts: &SolveOptions,
    progress: impl FnMut(&SolveStats),
) -> Result<SolveStats, SolveError> {
    let enc = crate::Encoding::with_options(game, sym);
    solve_encoded(game, enc, backend, config, sym, opts, progress)
}

/// [`solve_with_backend`] with an encoding built by the caller (who may need it too, e.g. for
/// the fingerprint of the solution files, and so builds it once).
pub fn solve_encoded(
    game: &GroundGame,
    enc: crate::Encoding,
    backend: symgame_bdd::Backend,
    config: &symgame_bdd::EngineConfig,
    sym: &crate::SymbolicOptions,
    opts: &SolveOptions,
    progress: impl FnMut(&SolveStats),
) -> Result<SolveStats, SolveError> {
    struct Job<'a, F> {
        game: &'a GroundGame,
        enc: crate::Encoding,
        sym: &'a crate::SymbolicOptions,
        opts: &'a SolveOptions,
        progress: F,
    }
    impl<F: FnMut(&SolveStats)> symgame_bdd::EngineJob<Result<SolveStats, SolveError>> for Job<'_, F> {
        fn run<E: BddEngine>(self, engine: E) -> Result<SolveStats, SolveError> {
            let g = SymbolicGame::new(&engine, self.game, self.enc, self.sym)?;
            Ok(solve(&g, self.opts, self.progress)?.stats)
        }
    }
    let n = enc.num_vars();
    backend
        .run(
            n,
            config,
            Job {
                game,
                enc,
                sym,
                opts,
                progress,
            },
        )
        .map_err(|e| SolveError::Symbolic(e.into()))?
}
