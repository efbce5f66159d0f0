//! Mutex groups: sets of fluents of which at most one (or exactly one) is true in every
//! reachable state, found from the fluents' terms and proven as inductive invariants.
//!
//! Candidates: fluents of one relation that agree on every argument but one, e.g. the colours
//! of `(cell 1 1 ?)`, or the values of `(control ?)`. Each candidate gives two claims, "at
//! most one is true" and "at least one is true". The proof is the greatest fixpoint of
//! inductiveness (the Houdini algorithm): drop every claim the initial state breaks; then let
//! `Inv` be the conjunction of the remaining claims and check, for every joint move `j` and
//! every claim `C` about fluents `j` can change, that no state satisfying `Inv` where `j` is
//! legal (and that is not terminal) has a successor breaking `C`, i.e. that
//! `Inv(x) AND legal_j(x) AND NOT C(next|j(x)) AND NOT terminal(x)` is empty; drop the claims
//! that fail and repeat until nothing is dropped. The claims left hold in the initial state
//! and are preserved by every transition from a state where all of them hold, so by
//! induction they hold in every reachable state. The checks run on BDDs in a private
//! biodivine engine over the plain encoding. Any budget exceeded gives up soundly: no groups.
//!
//! Three things keep the proof cheap: random playouts of the explicit reasoner first drop the
//! claims a reachable state breaks (most candidates are false, and each would cost the
//! symbolic checks a round); the next functions and the broken sets of each joint move are
//! computed once and kept across rounds; and "not terminal" is checked on picked states rather
//! than built as a BDD (see `broken_outside_terminal`).
//!
//! The compact [`Encoding`] is built here, from outside the encoding: [`Encoding::compact`],
//! [`Encoding::compact_within`] and [`Encoding::with_options`] prove the groups, then lay them
//! out with [`Encoding::from_groups`].

use std::time::{Duration, Instant};

use symgame_bdd::{BddEngine, BddResult, BiodivineEngine, EngineConfig};
use symgame_ground::{GroundGame, GroundTerm};

use crate::compile::Compiler;
use crate::disjunction::two_and_none;
use crate::encoding::{Encoding, FluentGroup};
use crate::error::SymbolicError;
use crate::joint_moves::joint_moves;
use crate::options::{EncodingKind, Order, SymbolicOptions};

mod falsify;
use falsify::{falsify_by_playouts, falsify_by_states, Until};

/// The outcome of [`prove_groups`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MutexProof {
    /// A partition of all fluents: the chosen proven groups, then every other fluent alone.
    pub groups: Vec<FluentGroup>,
    /// Candidate groups considered.
    pub candidates: usize,
    /// Candidates proven "at most one".
    pub proven: usize,
    /// Candidates proven "exactly one".
    pub proven_exactly_one: usize,
    /// Rounds of the fixpoint.
    pub rounds: usize,
    /// Why no group was proven (a budget or the game's size), if so.
    pub gave_up: Option<String>,
    /// Whether `groups` are assumed, not proven: the proof gave up and
    /// [`MutexBudget::assume_on_give_up`] took the candidates random playouts did not break,
    /// or they were read off every reachable state ([`Self::exhaustive`]).
    pub assumed: bool,
    /// Whether the groups were read off every reachable state
    /// ([`MutexBudget::known_states_all`]), with no proof: exact on the reachable set.
    pub exhaustive: bool,
}

/// The encoding of `game` with `groups` in the order `opts` asks for, [`Order::Auto`]
/// resolved on its known states (logged as the set-up phase "order").
fn ordered(game: &GroundGame, opts: &SymbolicOptions, groups: Vec<FluentGroup>) -> Encoding {
    let states = match (&opts.known_states, opts.order) {
        (Some(states), Order::Auto) => states,
        (None, Order::Auto) => {
            return Encoding::from_groups(game, opts.encoding, Order::Heuristic, groups)
        }
        (_, order) => return Encoding::from_groups(game, opts.encoding, order, groups),
    };
    opts.phase("order");
    let (enc, sizes) =
        crate::order::auto_encoding(game, opts.encoding, groups, (states, opts.known_states_all));
    if !sizes.is_empty() {
        let sizes: Vec<String> = sizes.iter().map(|(o, n)| format!("{n} {o:?}")).collect();
        opts.phase_note(format!(
            "{:?}: BDD nodes {} on {} known states",
            enc.order(),
            sizes.join(", "),
            states.len()
        ));
    }
    opts.phase_done(None);
    enc
}

/// The longest one BDD operation of the proof may run under a set-up deadline. An operation
/// that had not returned after a second almost never led to a proof: of the 60-s corpus
/// sweep's 36 proofs that ran to their deadline (11.5-12 s of the search's 60), 29 were stopped
/// inside one operation.
pub const OPERATION_TIME: Duration = Duration::from_secs(1);

/// Budgets of [`prove_groups_within`].
#[derive(Clone, Debug)]
pub struct MutexBudget {
    /// Give up after this much time.
    pub time: Duration,
    /// Give up when more joint moves than this can be legal together.
    pub max_joint_moves: usize,
    /// Give up after this many rounds of the fixpoint.
    pub max_rounds: usize,
    /// The conjunction of the claims assumed in a round stays within this many BDD nodes
    /// (claims that would grow it further are checked but not assumed).
    pub max_invariant_nodes: usize,
    /// No single BDD operation of the proof builds more nodes than this (past it, the proof
    /// gives up: no groups).
    pub max_operation_nodes: usize,
    /// No single BDD operation of the proof runs longer than this (past it, the proof gives
    /// up); `None`: only [`Self::time`] bounds it.
    pub max_operation_time: Option<Duration>,
    /// When the proof gives up: assume the candidates that a second of random playouts did not
    /// break (see [`MutexProof::assumed`]) instead of no groups.
    pub assume_on_give_up: bool,
    /// Reachable states already known (their true fluents; the explicit prefix of a search):
    /// every candidate one of them breaks is dropped before the proof and before any
    /// assumption.
    pub known_states: Option<std::sync::Arc<Vec<Vec<usize>>>>,
    /// Whether [`Self::known_states`] are every reachable state (the explicit prefix expanded
    /// the whole game) and the search checks assumed groups: the candidates they leave are
    /// then taken as they are, with neither proof nor playouts. Such groups hold on every
    /// reachable state but need not be inductive (an unreachable state may step out of them),
    /// so they are assumed, and a forward search never sees them break.
    pub known_states_all: bool,
    /// The variable order of the plain encoding the proof checks its claims in (the order the
    /// game will be encoded in, heuristic where it is chosen after the proof: a bad one can
    /// make the invariant itself too large).
    pub order: Order,
}

impl Default for MutexBudget {
    fn default() -> Self {
        MutexBudget {
            time: Duration::from_secs(20),
            max_joint_moves: 20_000,
            max_rounds: 20,
            max_invariant_nodes: 100_000,
            max_operation_nodes: 4_000_000,
            max_operation_time: None,
            assume_on_give_up: false,
            known_states: None,
            known_states_all: false,
            order: Order::Heuristic,
        }
    }
}

impl Encoding {
    /// The encoding `opts` asks for: [`SymbolicOptions::encoding`] and [`SymbolicOptions::order`].
    /// The compact encoding first proves the mutex groups ([`prove_groups`]), within what is
    /// left of [`SymbolicOptions::setup_deadline`].
    pub fn with_options(game: &GroundGame, opts: &SymbolicOptions) -> Encoding {
        match opts.encoding {
            EncodingKind::Plain => {
                let singles = (0..game.fluents.len()).map(FluentGroup::single).collect();
                ordered(game, opts, singles)
            }
            EncodingKind::Compact => {
                // At most a fifth of the set-up time left: the proof only makes the encoding
                // smaller, and the game must still be compiled after it.
                // Under a deadline, no operation of over a million nodes either: one such
                // operation takes about a second, and the proof rarely recovers from it.
                let mut budget = MutexBudget::default();
                if let Some(d) = opts.setup_deadline {
                    let left = d.saturating_duration_since(Instant::now());
                    budget.time = budget.time.min(left.mul_f64(0.2));
                    budget.max_operation_nodes = budget.max_operation_nodes.min(1_000_000);
                    budget.max_operation_time = Some(OPERATION_TIME);
                }
                if let Some(s) = opts.mutex_seconds {
                    budget.time = budget.time.min(s);
                }
                budget.assume_on_give_up = opts.assume_groups;
                if opts.assume_groups && opts.reassume_groups {
                    budget.time = Duration::ZERO;
                }
                budget.known_states = opts.known_states.clone();
                budget.known_states_all = opts.known_states_all && opts.assume_groups;
                // Auto is resolved on the proven groups: the proof checks its claims in the
                // heuristic order.
                if opts.order != Order::Auto {
                    budget.order = opts.order;
                }
                opts.phase("mutex");
                let proof = prove_groups_within(game, &budget);
                let assumed = || match proof.groups.iter().filter(|g| g.fluents.len() > 1).count() {
                    1 => "1 group".to_string(),
                    n => format!("{n} groups"),
                };
                opts.phase_note(match &proof.gave_up {
                    None if proof.exhaustive => format!(
                        "{} of {} candidates hold on all {} reachable states (the explicit \
                         prefix expanded the whole game); no proof",
                        proof.proven,
                        proof.candidates,
                        opts.known_states.as_ref().map_or(0, |s| s.len())
                    ),
                    Some(_) if proof.assumed && opts.reassume_groups => format!(
                        "not tried again: {} assumed from playouts and the known \
                         states, checked during the search",
                        assumed()
                    ),
                    Some(why) if proof.assumed => format!(
                        "gave up ({why}): {} assumed from playouts, checked during the \
                         search",
                        assumed()
                    ),
                    Some(why) => format!("gave up ({why}): plain encoding"),
                    None => format!(
                        "{} of {} candidates proven ({} exactly one)",
                        proof.proven, proof.candidates, proof.proven_exactly_one
                    ),
                });
                opts.phase_done(None);
                let enc = ordered(game, opts, proof.groups);
                if proof.assumed {
                    enc.into_assumed()
                } else {
                    enc
                }
            }
        }
    }

    /// The compact encoding: mutex groups proven by [`prove_groups`], each one binary number;
    /// the other fluents one bit each.
    pub fn compact(game: &GroundGame, order: Order) -> Encoding {
        Encoding::compact_within(game, order, &MutexBudget::default())
    }

    /// [`Self::compact`] with the mutex proof held to `budget` (past it, fewer groups).
    pub fn compact_within(game: &GroundGame, order: Order, budget: &MutexBudget) -> Encoding {
        let groups = prove_groups_within(game, budget).groups;
        Encoding::from_groups(game, EncodingKind::Compact, order, groups)
    }
}

/// A candidate group: fluents of one relation that agree on all arguments except the
/// `varied` positions, or (with no varied position) fluents of several relations with the
/// same arguments.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Candidate {
    /// The fluents, ascending.
    pub members: Vec<usize>,
    /// The argument positions that vary (one or two), ascending; none when the relation
    /// varies instead.
    pub varied: Vec<usize>,
}

/// Candidate groups, each with at least two members and each distinct member set once (with
/// its fewest varied positions):
/// - fluents of one relation equal in all arguments but one position, or but two positions
///   (e.g. "the blank is in one cell" over `(cell ?x ?y 0)`);
/// - fluents of different relations with the same arguments: a cell written as
///   `(blank a 1)`, `(ecks a 1)` and `(oh a 1)` rather than `(cell a 1 ?)`.
pub fn candidate_groups(game: &GroundGame) -> Vec<Candidate> {
    use std::collections::HashMap;
    type Key<'a> = (&'a str, usize, Vec<usize>, Vec<&'a GroundTerm>);
    let mut by_key: HashMap<Key<'_>, Vec<usize>> = HashMap::new();
    for (f, t) in game.fluents.iter().enumerate() {
        if let GroundTerm::Func(name, args) = t {
            // The relation varies: keyed by the arguments alone.
            by_key
                .entry(("", args.len(), Vec::new(), args.iter().collect()))
                .or_default()
                .push(f);
            let k = args.len();
            let mut variations: Vec<Vec<usize>> = (0..k).map(|p| vec![p]).collect();
            for p in 0..k {
                for q in p + 1..k {
                    variations.push(vec![p, q]);
                }
            }
            for varied in variations {
                let rest: Vec<&GroundTerm> = args
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| !varied.contains(i))
                    .map(|(_, a)| a)
                    .collect();
                by_key
                    .entry((name.as_str(), k, varied, rest))
                    .or_default()
                    .push(f);
            }
        }
    }
    let mut out: Vec<Candidate> = by_key
        .into_iter()
        .filter(|(_, v)| v.len() >= 2)
        .map(|((_, _, varied, _), mut members)| {
            members.sort_unstable();
            Candidate { members, varied }
        })
        .collect();
    // The same member set from several variations: keep the one with fewest varied positions.
    out.sort_by(|a, b| {
        a.members
            .cmp(&b.members)
            .then(a.varied.len().cmp(&b.varied.len()))
            .then(a.varied.cmp(&b.varied))
    });
    out.dedup_by(|a, b| a.members == b.members);
    out
}

/// Proves mutex groups of `game` with the default budget; see the module documentation.
pub fn prove_groups(game: &GroundGame) -> MutexProof {
    prove_groups_within(game, &MutexBudget::default())
}

/// Proves mutex groups of `game` within `budget`; see the module documentation.
pub fn prove_groups_within(game: &GroundGame, budget: &MutexBudget) -> MutexProof {
    let candidates = candidate_groups(game);
    let mut proof = MutexProof {
        groups: Vec::new(),
        candidates: candidates.len(),
        proven: 0,
        proven_exactly_one: 0,
        rounds: 0,
        gave_up: None,
        assumed: false,
        exhaustive: false,
    };
    let singles = || (0..game.fluents.len()).map(FluentGroup::single).collect();
    if candidates.is_empty() {
        proof.groups = singles();
        return proof;
    }
    // The claims the initial state, the known states and a sample of playouts leave; the
    // proof drops more, and when it gives up, the ones it had dropped stay dropped.
    let (mut amo, mut alo) = claims_of_init(game, &candidates);
    if budget.known_states_all && budget.known_states.is_some() {
        falsify_by_states(budget, &candidates, &mut amo, &mut alo);
        proof.proven = amo.iter().filter(|&&b| b).count();
        proof.proven_exactly_one = amo.iter().zip(&alo).filter(|(a, b)| **a && **b).count();
        proof.groups = choose(game.fluents.len(), &candidates, &amo, &alo);
        proof.exhaustive = true;
        proof.assumed = proof.groups.iter().any(|g| g.fluents.len() > 1);
        return proof;
    }
    let enc = Encoding::plain_by_arguments(game, budget.order);
    let deadline = Instant::now() + budget.time;
    // No engine for the proof (pancakes88's 80,722 fluents are past the engine's 65,535
    // variables): the proof gives up, and the groups may still be assumed below.
    let engine = BiodivineEngine::new(enc.num_vars(), &EngineConfig::small()).map(|e| {
        e.with_budget(Some(deadline), Some(budget.max_operation_nodes))
            .with_operation_time(budget.max_operation_time)
    });
    let sample_time = (budget.time / 10).min(ASSUME_PLAYOUTS);
    falsify_by_states(budget, &candidates, &mut amo, &mut alo);
    falsify_by_playouts(
        game,
        &candidates,
        &mut amo,
        &mut alo,
        (sample_time, Until::Time),
        SAMPLE_SEED,
    );
    let mut claims = (amo, alo);
    let found = match &engine {
        Ok(engine) => houdini(
            engine,
            game,
            &enc,
            &candidates,
            budget,
            deadline,
            &mut claims,
            &mut proof.rounds,
        ),
        Err(e) => Ok(Err(e.to_string())),
    };
    match found {
        Ok(Ok(())) => {
            let (amo, alo) = &claims;
            proof.proven = amo.iter().filter(|&&b| b).count();
            proof.proven_exactly_one = amo
                .iter()
                .zip(alo.iter())
                .filter(|(a, b)| **a && **b)
                .count();
            proof.groups = choose(game.fluents.len(), &candidates, amo, alo);
        }
        Ok(Err(why)) => {
            proof.gave_up = Some(why);
            proof.groups = singles();
        }
        Err(e) => {
            proof.gave_up = Some(e.to_string());
            proof.groups = singles();
        }
    }
    if proof.gave_up.is_some() && budget.assume_on_give_up {
        // Every claim dropped so far is kept dropped (by a reachable state, or as not
        // inductive: either way it would only risk a break during the search). Playouts of
        // another seed go on from the sample, until they settle or the second of playouts
        // the sample began is over.
        let (mut amo, mut alo) = claims;
        let more = (ASSUME_PLAYOUTS.saturating_sub(sample_time), Until::Settled);
        falsify_by_playouts(game, &candidates, &mut amo, &mut alo, more, ASSUME_SEED);
        let groups = choose(game.fluents.len(), &candidates, &amo, &alo);
        // Worth it only where it saves a quarter of the bits: the checks cost a BDD per joint
        // move, and a relation over many small assumed groups can outgrow the plain one.
        let bits: u32 = groups.iter().map(FluentGroup::bits).sum();
        if bits * 4 <= game.fluents.len() as u32 * 3 {
            proof.groups = groups;
            proof.assumed = true;
        } else if let Some(groups) = exactly_one_only(groups) {
            // Else the exactly-one groups alone (a turn: `control white` and `control
            // black`): never more bits than plain, no code for "none", and the roles' legal
            // conditions on them exclude each other (madBishops' plain encoding let every
            // white move be legal with every black move, and its joint moves filled the node
            // table).
            proof.groups = groups;
            proof.assumed = true;
        }
    }
    proof
}

/// How long random playouts try to break the candidates before they are assumed (the sample
/// before the proof included).
const ASSUME_PLAYOUTS: Duration = Duration::from_secs(1);

/// The seeds of the playouts before the proof and of those after it gave up: fixed, so that
/// the proof, and so the encoding, is deterministic but for where a time budget cuts it.
const SAMPLE_SEED: u64 = 0x9E37_79B9_7F4A_7C15;
const ASSUME_SEED: u64 = 0xD1B5_4A32_D192_ED03;

/// Per candidate: whether "at most one" and whether "at least one" is proven.
type Claims = (Vec<bool>, Vec<bool>);

/// Drops claims from `claims` (per candidate, whether "at most one" and "at least one" hold)
/// until the rest is inductive: their greatest inductive subset. The inner `Err` is a budget
/// given up on (`deadline`, or [`MutexBudget`]'s others); `claims` then holds what was left
/// when it gave up, a superset of that subset.
#[allow(clippy::too_many_arguments)]
fn houdini<E: BddEngine>(
    e: &E,
    game: &GroundGame,
    enc: &Encoding,
    candidates: &[Candidate],
    budget: &MutexBudget,
    deadline: Instant,
    claims: &mut Claims,
    rounds: &mut usize,
) -> BddResult<Result<(), String>> {
    let (amo, alo) = claims;
    let (mut comp, term_leaves) = Compiler::prepared(e, game, enc, None)?;
    let terminal_parts = term_leaves
        .iter()
        .map(|&l| comp.lit(l))
        .collect::<BddResult<Vec<_>>>()?;
    let legal = comp.legal()?;
    // Candidates of each fluent, to visit only the claims a joint move can break.
    let mut of_fluent: Vec<Vec<usize>> = vec![Vec::new(); game.fluents.len()];
    for (c, cand) in candidates.iter().enumerate() {
        for &f in &cand.members {
            of_fluent[f].push(c);
        }
    }
    // Claims are assumed largest group first: the conjunction of big groups fixes the
    // function early, and the small, often implied, claims then barely change it.
    let mut assume_order: Vec<usize> = (0..candidates.len()).collect();
    assume_order.sort_by_key(|&c| (std::cmp::Reverse(candidates[c].members.len()), c));
    let out_of_time = || Instant::now() > deadline;
    const CACHE_LIMIT: usize = 2_000_000;
    const PAIRS_LIMIT: usize = 200_000;
    type Pair<B> = (B, B);
    let mut pairs: std::collections::HashMap<(Vec<usize>, usize), Pair<E::Bdd>> =
        std::collections::HashMap::new();
    let mut cache: std::collections::HashMap<Vec<usize>, Vec<Option<E::Bdd>>> =
        std::collections::HashMap::new();
    loop {
        *rounds += 1;
        if *rounds > budget.max_rounds {
            return Ok(Err(format!("more than {} rounds", budget.max_rounds)));
        }
        // Inv: the conjunction of the surviving claims. Assuming fewer claims only makes
        // the checks stricter, so claims that would grow Inv past the budget are left out.
        let mut inv = e.constant(true);
        for &c in &assume_order {
            if !amo[c] && !alo[c] {
                continue;
            }
            let bs: Vec<E::Bdd> = candidates[c]
                .members
                .iter()
                .map(|&f| comp.fluent(f).clone())
                .collect();
            let (two, none) = two_and_none(e, &bs)?;
            let mut next = inv.clone();
            if amo[c] {
                next = e.and_not(&next, &two)?;
            }
            if alo[c] {
                next = e.and_not(&next, &none)?;
            }
            if e.node_count(&next) <= budget.max_invariant_nodes {
                inv = next;
            }
        }
        let joint = match joint_moves(e, &legal, &inv, budget.max_joint_moves, &out_of_time) {
            Ok(j) => j,
            Err(SymbolicError::Stopped(_)) => {
                return Ok(Err(format!("time budget of {:?} exceeded", budget.time)));
            }
            Err(SymbolicError::TooManyJointMoves { limit }) => {
                return Ok(Err(format!("more than {limit} joint moves")))
            }
            Err(SymbolicError::Bdd(e)) => return Err(e),
            Err(other) => return Ok(Err(other.to_string())),
        };
        let mut dropped = false;
        for (jm, cond) in &joint {
            if out_of_time() {
                return Ok(Err(format!("time budget of {:?} exceeded", budget.time)));
            }
            // The next functions do not depend on the claims: computed once per joint move
            // (kept across rounds while the cache is small).
            let next = match cache.get(jm) {
                Some(n) => n.clone(),
                None => {
                    let live = |f: usize| of_fluent[f].iter().any(|&c| amo[c] || alo[c]);
                    let next = next_functions(&mut comp, game, jm, live)?;
                    if cache.len() * game.fluents.len() < CACHE_LIMIT {
                        cache.insert(jm.clone(), next.clone());
                    }
                    next
                }
            };
            let changed: Vec<bool> = (0..game.fluents.len())
                .map(|f| next[f].as_ref().is_some_and(|nf| nf != comp.fluent(f)))
                .collect();
            for (c, cand) in candidates.iter().enumerate() {
                if !(amo[c] || alo[c]) || !cand.members.iter().any(|&f| changed[f]) {
                    continue;
                }
                // Like the next functions, the broken sets do not depend on the claims.
                let key = (jm.clone(), c);
                let (two, none) = match pairs.get(&key) {
                    Some(p) => p.clone(),
                    None => {
                        let bs: Vec<E::Bdd> = cand
                            .members
                            .iter()
                            .map(|&f| next[f].clone().expect("computed for live candidates"))
                            .collect();
                        let p = two_and_none(e, &bs)?;
                        if pairs.len() < PAIRS_LIMIT {
                            pairs.insert(key, p.clone());
                        }
                        p
                    }
                };
                for (claim, broken) in [(&mut amo[c], two), (&mut alo[c], none)] {
                    if !*claim {
                        continue;
                    }
                    let bad = e.and(cond, &broken)?;
                    if e.is_false(&bad) {
                        continue;
                    }
                    if broken_outside_terminal(e, bad, &terminal_parts)? {
                        *claim = false;
                        dropped = true;
                    }
                }
                if !amo[c] {
                    alo[c] = false;
                }
            }
        }
        if !dropped {
            return Ok(Ok(()));
        }
    }
}

/// The next function of every fluent `live` accepts under the joint move `jm` (`None` for the
/// others).
fn next_functions<E: BddEngine>(
    comp: &mut Compiler<'_, E>,
    game: &GroundGame,
    jm: &[usize],
    live: impl Fn(usize) -> bool,
) -> BddResult<Vec<Option<E::Bdd>>> {
    comp.set_joint_move(jm)?;
    (0..game.fluents.len())
        .map(|f| {
            Ok(match live(f) {
                false => None,
                true if comp.next_may_change(f) => Some(comp.lit(game.next[f])?),
                true => Some(comp.fluent(f).clone()),
            })
        })
        .collect()
}

/// Whether some state of `bad` may be non-terminal (in none of `terminal`'s parts), found by
/// picking states: one outside every part settles it; while the state picked lies in a part,
/// that part is taken out of `bad` and another state picked (the first one, the lowest, is
/// often terminal, such as a full board); `bad` used up means no. After eight picks the answer
/// is yes without building `bad AND NOT terminal`, which on games like Connect Four in the plain
/// encoding is a huge BDD: a claim is then dropped that only terminal states might break. That
/// is sound (a claim dropped is never assumed), it only costs a group.
fn broken_outside_terminal<E: BddEngine>(
    e: &E,
    bad: E::Bdd,
    terminal: &[E::Bdd],
) -> BddResult<bool> {
    let mut rest = bad;
    for _ in 0..8 {
        let Some(state) = e.pick_minterm(&rest) else {
            return Ok(false);
        };
        match terminal.iter().find(|t| e.eval(t, &state)) {
            None => return Ok(true),
            Some(t) => rest = e.and_not(&rest, t)?,
        }
    }
    Ok(true)
}

/// The claims the initial state keeps: "at most one" where at most one member is true in
/// it, "at least one" (only with "at most one": an exactly-one group) where exactly one is.
fn claims_of_init(game: &GroundGame, candidates: &[Candidate]) -> Claims {
    let mut in_init = vec![false; game.fluents.len()];
    for &f in &game.init {
        in_init[f] = true;
    }
    candidates
        .iter()
        .map(|cand| {
            let k = cand.members.iter().filter(|&&f| in_init[f]).count();
            (k <= 1, k == 1)
        })
        .unzip()
}

/// `groups` with every group that is not exactly-one split into single fluents; `None`
/// where no exactly-one group of two or more fluents is left.
fn exactly_one_only(groups: Vec<FluentGroup>) -> Option<Vec<FluentGroup>> {
    let mut out = Vec::with_capacity(groups.len());
    let mut any = false;
    for g in groups {
        if g.exactly_one && g.fluents.len() > 1 {
            any = true;
            out.push(g);
        } else {
            out.extend(g.fluents.into_iter().map(FluentGroup::single));
        }
    }
    any.then_some(out)
}

/// A partition of the fluents: proven candidates by decreasing saving (bits freed), then by
/// size, then fewer varied positions, later varied positions first (the value position of
/// `(cell ?x ?y ?v)`); a candidate overlapping groups already chosen keeps its remaining
/// fluents (a subset of an "at most one" group is one too, but loses "exactly one"); the rest
/// alone.
fn choose(
    num_fluents: usize,
    candidates: &[Candidate],
    amo: &[bool],
    alo: &[bool],
) -> Vec<FluentGroup> {
    use std::cmp::Reverse;
    let saving = |c: usize| {
        let g = FluentGroup {
            fluents: candidates[c].members.clone(),
            exactly_one: alo[c],
        };
        g.fluents.len() as i64 - i64::from(g.bits())
    };
    let mut order: Vec<usize> = (0..candidates.len()).filter(|&c| amo[c]).collect();
    order.sort_by_key(|&c| {
        let cand = &candidates[c];
        (
            Reverse(saving(c)),
            Reverse(cand.members.len()),
            cand.varied.len(),
            Reverse(cand.varied.clone()),
            c,
        )
    });
    let mut taken = vec![false; num_fluents];
    let mut out = Vec::new();
    for c in order {
        let members = &candidates[c].members;
        let free: Vec<usize> = members.iter().copied().filter(|&f| !taken[f]).collect();
        if free.len() < 2 {
            continue;
        }
        let whole = free.len() == members.len();
        for &f in &free {
            taken[f] = true;
        }
        out.push(FluentGroup {
            fluents: free,
            exactly_one: whole && alo[c],
        });
    }
    for (f, t) in taken.iter().enumerate() {
        if !t {
            out.push(FluentGroup::single(f));
        }
    }
    out
}
