//! Symbolic breadth-first search: reachability with exact layer counts, and bidirectional
//! shortest-path search.

use num_bigint::BigUint;
use serde::{Deserialize, Serialize};
use symgame_bdd::{BddEngine, BddError};
pub(crate) use symgame_limits::Guard;
pub use symgame_limits::{Limits, StopReason};

use crate::compile::JointMove;
use crate::decimal;
use crate::disjunction::or_all;
use crate::game::SymbolicGame;
use crate::partition::Partition;

/// One breadth-first layer.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LayerStats {
    /// States first reached at this depth (serialised as a decimal string).
    #[serde(with = "decimal")]
    pub states: BigUint,
    /// Of those, the terminal ones (decimal string).
    #[serde(with = "decimal")]
    pub terminal: BigUint,
    /// BDD nodes of the layer.
    pub nodes: usize,
    /// Seconds since the start when the layer was complete.
    pub seconds: f64,
}

/// The statistics of a reachability run: complete layers, totals, and why it stopped early.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ReachStats {
    /// The complete layers, from the initial state.
    pub layers: Vec<LayerStats>,
    /// Total states over the complete layers (decimal string).
    #[serde(with = "decimal")]
    pub states: BigUint,
    /// Total terminal states over the complete layers (decimal string).
    #[serde(with = "decimal")]
    pub terminal: BigUint,
    /// BDD nodes of the reached set, taken at the end of the run (0 when the reached set was
    /// not kept, see [`reach_count`]).
    pub reached_nodes: usize,
    /// Number of transition partitions used by the image.
    pub partitions: usize,
    /// Seconds of the whole run.
    pub seconds: f64,
    /// `Some` when the run stopped before the end.
    pub stopped: Option<StopReason>,
}

/// The result of [`reach`]: statistics, the reached set, and the layers if asked for.
pub struct Reach<E: BddEngine> {
    /// The statistics.
    pub stats: ReachStats,
    /// All states of the complete layers.
    pub reached: E::Bdd,
    /// The complete layers (empty unless `keep_layers`).
    pub layers: Vec<E::Bdd>,
}

pub(crate) enum Interrupt {
    Stop(StopReason),
}

impl From<BddError> for Interrupt {
    fn from(_: BddError) -> Self {
        Interrupt::Stop(StopReason::OutOfMemory)
    }
}

impl From<StopReason> for Interrupt {
    fn from(r: StopReason) -> Self {
        Interrupt::Stop(r)
    }
}

/// Image of `s`, which must contain no terminal state.
pub(crate) fn image_guarded<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    s: &E::Bdd,
    guard: &Guard,
) -> Result<E::Bdd, Interrupt> {
    let mut parts = Vec::with_capacity(g.clusters().len());
    for p in g.clusters() {
        guard.check()?;
        parts.push(p.image(g.engine(), s)?);
    }
    Ok(or_all(g.engine(), parts)?)
}

fn pre_image_guarded<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    partitions: &[Partition<E>],
    s: &E::Bdd,
    guard: &Guard,
) -> Result<E::Bdd, Interrupt> {
    let mut parts = Vec::with_capacity(partitions.len());
    for p in partitions {
        guard.check()?;
        parts.push(p.pre_image(g.engine(), s)?);
    }
    Ok(g.and_not_terminal(&or_all(g.engine(), parts)?)?)
}

/// Symbolic breadth-first search from the initial state with duplicate detection. Each layer
/// `L_{k+1} = image(L_k AND NOT terminal) AND NOT reached`; terminal states are counted but not
/// expanded (the same convention as the explicit `explore`). The non-terminal part of a new
/// layer is found per cluster, removing only the terminal parts that cluster can make true
/// ([`Partition::terminal_parts`]). While every layer `k` lies in level `p0 + k` of the
/// potential ([`SymbolicGame::potential_levels`]), no state can be in two layers and the
/// difference with `reached` is skipped. `progress` is called after each layer. On a limit,
/// the complete layers are kept and `stats.stopped` says why.
pub fn reach<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    limits: &Limits,
    keep_layers: bool,
    progress: impl FnMut(&ReachStats),
) -> Reach<E> {
    reach_impl(g, None, limits, keep_layers, true, progress)
}

/// [`reach`] for the counts only: the reached set is not kept (`reached` is the empty set and
/// `stats.reached_nodes` is 0) while the layers are provably disjoint (see [`reach`]), which
/// saves a union and a difference with the reached set per layer.
pub fn reach_count<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    limits: &Limits,
    progress: impl FnMut(&ReachStats),
) -> ReachStats {
    reach_impl(g, None, limits, false, false, progress).stats
}

/// The state of a breadth-first search between layers.
pub(crate) struct Bfs<E: BddEngine> {
    /// The last layer.
    pub(crate) frontier: E::Bdd,
    /// Its non-terminal states.
    pub(crate) expand: E::Bdd,
    /// The union of the layers before `frontier` (kept unless counting a layered search).
    pub(crate) reached: E::Bdd,
    /// While layered: the potential of the initial state (layer `k` lies in
    /// `levels[p0 + k]`), and the layers themselves when the union is not kept.
    layered: Option<(usize, Vec<E::Bdd>)>,
    /// Whether some layer had a successor in an earlier layer (known only once the layers
    /// stopped lying in distinct potential levels; until then none can).
    pub(crate) revisited: bool,
}

impl<E: BddEngine> Bfs<E> {
    /// The search before its first layer: the initial state as the frontier.
    pub(crate) fn start(g: &SymbolicGame<'_, E>) -> Result<Bfs<E>, BddError> {
        let e = g.engine();
        let init = g.init().clone();
        // The potential of the initial state, if potentials exist.
        let layered = match g.potential_levels()? {
            Some(levels) => {
                let mut p0 = None;
                for (p, level) in levels.iter().enumerate() {
                    if !e.is_false(&e.and(&init, level)?) {
                        p0 = Some(p);
                    }
                }
                p0.map(|p| (p, Vec::new()))
            }
            None => None,
        };
        Ok(Bfs {
            expand: g.and_not_terminal(&init)?,
            frontier: init,
            reached: e.constant(false),
            layered,
            revisited: false,
        })
    }
}

/// One layer: `frontier` (layer `k`) joins the reached states and the next layer and its
/// non-terminal states are computed. `bfs` changes only on success.
pub(crate) fn next_layer<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    bfs: &mut Bfs<E>,
    k: usize,
    keep_reached: bool,
    guard: &Guard,
) -> Result<(E::Bdd, E::Bdd), Interrupt> {
    let e = g.engine();
    let limit_nodes = guard.limits.max_nodes.is_some();
    let mut layered = bfs.layered.clone();
    let mut reached = bfs.reached.clone();
    match &mut layered {
        Some((_, kept)) if !keep_reached => kept.push(bfs.frontier.clone()),
        _ => {
            reached = e.or(&reached, &bfs.frontier)?;
            if limit_nodes {
                guard.check_nodes(e.node_count(&reached) as u64)?;
            }
        }
    }
    let mut images = Vec::new();
    for (c, p) in g.clusters().iter().enumerate() {
        guard.check()?;
        let img = p.image(e, &bfs.expand)?;
        if !e.is_false(&img) {
            images.push((c, img));
        }
    }
    let union = or_all(e, images.iter().map(|(_, b)| b.clone()).collect())?;
    // Layered: if every new state has potential p0 + k + 1, no earlier layer (potential
    // p0 + j, j <= k) can hold it.
    if let Some((p0, kept)) = &mut layered {
        let levels = g.potential_levels()?.expect("layered implies levels");
        let fits = match levels.get(*p0 + k + 1) {
            Some(level) => e.is_false(&e.and_not(&union, level)?),
            None => e.is_false(&union),
        };
        if !fits {
            if !keep_reached {
                reached = or_all(e, std::mem::take(kept))?;
            }
            layered = None;
        }
    }
    guard.check()?;
    let mut revisited = bfs.revisited;
    let new = match layered {
        Some(_) => union,
        None => {
            let new = e.and_not(&union, &reached)?;
            revisited |= new != union;
            new
        }
    };
    if limit_nodes {
        guard.check_nodes(e.node_count(&new) as u64)?;
    }
    // A successor (under one cluster) of a non-terminal state is terminal only by a terminal
    // part that cluster can make true, so each image is cut by its cluster's parts only.
    let new_expand = match images.as_slice() {
        [] => e.constant(false),
        [(c, _)] => g.clusters()[*c].cut_terminal(e, &new)?,
        _ => {
            let mut cut = Vec::with_capacity(images.len());
            for (c, img) in &images {
                cut.push(g.clusters()[*c].cut_terminal(e, img)?);
            }
            e.and(&or_all(e, cut)?, &new)?
        }
    };
    guard.check()?;
    bfs.reached = reached;
    bfs.layered = layered;
    bfs.revisited = revisited;
    Ok((new, new_expand))
}

/// The last layer of [`reach_until`]: `frontier` joins the reached states and nothing follows.
fn goal_layer<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    bfs: &mut Bfs<E>,
    keep_reached: bool,
) -> Result<(E::Bdd, E::Bdd), Interrupt> {
    let e = g.engine();
    // When the union is kept, `reached` holds every earlier layer (see `next_layer`).
    if keep_reached {
        bfs.reached = e.or(&bfs.reached, &bfs.frontier)?;
    }
    Ok((e.constant(false), e.constant(false)))
}

/// [`reach`] that stops after the first layer containing a state of `goal` (that layer is the
/// last one kept and counted): breadth-first search for a shortest path.
pub fn reach_until<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    goal: &E::Bdd,
    limits: &Limits,
    keep_layers: bool,
    progress: impl FnMut(&ReachStats),
) -> Reach<E> {
    reach_impl(g, Some(goal), limits, keep_layers, true, progress)
}

fn reach_impl<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    goal: Option<&E::Bdd>,
    limits: &Limits,
    keep_layers: bool,
    keep_reached: bool,
    mut progress: impl FnMut(&ReachStats),
) -> Reach<E> {
    let e = g.engine();
    let guard = Guard {
        limits,
        started: std::time::Instant::now(),
    };
    let mut stats = ReachStats {
        partitions: g.clusters().len(),
        ..ReachStats::default()
    };
    let mut layers = Vec::new();
    let mut bfs = match Bfs::start(g) {
        Ok(b) => b,
        Err(_) => {
            stats.stopped = Some(StopReason::OutOfMemory);
            return Reach {
                stats,
                reached: e.constant(false),
                layers,
            };
        }
    };
    while !e.is_false(&bfs.frontier) {
        let k = stats.layers.len();
        let (states, nodes) = g.count_and_nodes(&bfs.frontier);
        if let Err(why) = guard.check().and_then(|()| guard.check_nodes(nodes as u64)) {
            stats.stopped = Some(why);
            break;
        }
        let terminal = &states - g.count(&bfs.expand);
        let hit = match goal.map(|t| e.and(&bfs.frontier, t)) {
            None => false,
            Some(Ok(h)) => !e.is_false(&h),
            Some(Err(_)) => {
                stats.stopped = Some(StopReason::OutOfMemory);
                break;
            }
        };
        let stepped = if hit {
            // The goal layer is kept but not expanded.
            goal_layer(g, &mut bfs, keep_reached)
        } else {
            next_layer(g, &mut bfs, k, keep_reached, &guard)
        };
        match stepped {
            Ok((new, new_expand)) => {
                stats.states += &states;
                stats.terminal += &terminal;
                stats.layers.push(LayerStats {
                    states,
                    terminal,
                    nodes,
                    seconds: guard.started.elapsed().as_secs_f64(),
                });
                stats.seconds = guard.started.elapsed().as_secs_f64();
                let done = std::mem::replace(&mut bfs.frontier, new);
                if keep_layers {
                    layers.push(done);
                }
                bfs.expand = new_expand;
                progress(&stats);
            }
            Err(Interrupt::Stop(why)) => {
                stats.stopped = Some(why);
                break;
            }
        }
    }
    // The union of the finished layers.
    let reached = if keep_reached {
        bfs.reached
    } else {
        e.constant(false)
    };
    stats.reached_nodes = if keep_reached {
        e.node_count(&reached)
    } else {
        0
    };
    stats.seconds = guard.started.elapsed().as_secs_f64();
    Reach {
        stats,
        reached,
        layers,
    }
}

/// A shortest path found by [`shortest_path`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Path {
    /// The joint moves, one per step (`moves[k][r]` = move index of role `r` at step `k`).
    pub moves: Vec<JointMove>,
    /// The states along the path (true fluents, ascending), `moves.len() + 1` of them, from the
    /// initial state to a goal state.
    pub states: Vec<Vec<usize>>,
    /// Forward layers computed.
    pub forward_layers: usize,
    /// Backward layers computed.
    pub backward_layers: usize,
    /// Sizes of the forward layers (terminal states counted, `seconds` since the start).
    pub forward: Vec<LayerStats>,
    /// Sizes of the backward layers, from the goal set.
    pub backward: Vec<LayerStats>,
    /// The largest number of BDD nodes held at once by the frontiers and the two visited sets.
    pub peak_nodes: usize,
}

/// Bidirectional breadth-first search from the initial state to the state set `goal`.
///
/// Forward layers come from [`SymbolicGame::image`] (terminal states are not expanded),
/// backward layers from [`SymbolicGame::pre_image`] (only non-terminal predecessors); each step
/// expands the direction whose frontier has fewer BDD nodes, until a new frontier meets the
/// other side. The path is rebuilt from the stored layers with the per-joint-move partitions.
/// Returns `Ok(None)` if no goal state is reachable, `Err` if a limit stopped the search.
///
/// Limit: the backward search runs over all assignments of the fluents, most of them
/// unreachable; on games whose relation is kept as a conjunct list (e.g. the 8-puzzle) this
/// can blow up. [`shortest_path_within`] restricts it to a domain.
pub fn shortest_path<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    goal: &E::Bdd,
    limits: &Limits,
) -> Result<Option<Path>, StopReason> {
    shortest_path_within(g, goal, None, limits)
}

/// [`shortest_path`] with the backward layers restricted to `domain` (a superset of the states
/// of interest, e.g. the reached set of [`reach`] or a state invariant).
pub fn shortest_path_within<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    goal: &E::Bdd,
    domain: Option<&E::Bdd>,
    limits: &Limits,
) -> Result<Option<Path>, StopReason> {
    let guard = Guard {
        limits,
        started: std::time::Instant::now(),
    };
    match bidir(g, goal, domain, &guard) {
        Ok(p) => Ok(p),
        Err(Interrupt::Stop(why)) => Err(why),
    }
}

fn bidir<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    goal: &E::Bdd,
    domain: Option<&E::Bdd>,
    guard: &Guard,
) -> Result<Option<Path>, Interrupt> {
    let e = g.engine();
    // With a domain, the backward steps use relations restricted to it.
    let (back, path_parts) = match domain {
        Some(d) => (
            g.clusters()
                .iter()
                .map(|p| p.restricted_to(e, d))
                .collect::<Result<Vec<_>, _>>()?,
            g.partitions()
                .iter()
                .map(|p| p.restricted_to(e, d))
                .collect::<Result<Vec<_>, _>>()?,
        ),
        None => (g.clusters().to_vec(), g.partitions().to_vec()),
    };
    let size = |layer: &E::Bdd| -> Result<LayerStats, Interrupt> {
        let states = g.count(layer);
        let terminal = &states - g.count(&g.and_not_terminal(layer)?);
        Ok(LayerStats {
            states,
            terminal,
            nodes: e.node_count(layer),
            seconds: guard.started.elapsed().as_secs_f64(),
        })
    };
    let mut fwd = vec![g.init().clone()];
    let mut bwd = vec![goal.clone()];
    let mut seen_f = g.init().clone();
    let mut seen_b = goal.clone();
    let mut forward = vec![size(g.init())?];
    let mut backward = vec![size(goal)?];
    let held = |a: &E::Bdd, b: &E::Bdd, c: &E::Bdd, d: &E::Bdd| {
        e.node_count(a) + e.node_count(b) + e.node_count(c) + e.node_count(d)
    };
    let mut peak_nodes = held(g.init(), goal, &seen_f, &seen_b);
    // (forward index, backward index) of the meeting layers.
    let mut meet = if e.is_false(&e.and(g.init(), goal)?) {
        None
    } else {
        Some((0, 0))
    };
    while meet.is_none() {
        guard.check()?;
        let last_f = fwd.last().expect("non-empty");
        let last_b = bwd.last().expect("non-empty");
        if e.is_false(last_f) || e.is_false(last_b) {
            return Ok(None);
        }
        if e.node_count(last_f) <= e.node_count(last_b) {
            let img = image_guarded(g, &g.and_not_terminal(last_f)?, guard)?;
            let new = e.and_not(&img, &seen_f)?;
            guard.check_nodes(e.node_count(&new) as u64)?;
            seen_f = e.or(&seen_f, &new)?;
            forward.push(size(&new)?);
            peak_nodes = peak_nodes.max(held(&new, last_b, &seen_f, &seen_b));
            fwd.push(new.clone());
            if !e.is_false(&e.and(&new, &seen_b)?) {
                meet = Some((fwd.len() - 1, first_meeting(e, &new, &bwd)?));
            }
        } else {
            let pre = pre_image_guarded(g, &back, last_b, guard)?;
            let new = e.and_not(&pre, &seen_b)?;
            guard.check_nodes(e.node_count(&new) as u64)?;
            seen_b = e.or(&seen_b, &new)?;
            backward.push(size(&new)?);
            peak_nodes = peak_nodes.max(held(last_f, &new, &seen_f, &seen_b));
            bwd.push(new.clone());
            if !e.is_false(&e.and(&new, &seen_f)?) {
                meet = Some((first_meeting(e, &new, &fwd)?, bwd.len() - 1));
            }
        }
    }
    let (i, j) = meet.expect("met");
    let middle = e.and(&fwd[i], &bwd[j])?;
    let m = g.pick_state(&middle).expect("non-empty meeting set");
    // Walk back to the initial state through the forward layers.
    let mut states = vec![m.clone()];
    let mut moves: Vec<JointMove> = Vec::new();
    let mut cur = m.clone();
    for k in (0..i).rev() {
        let s = g.state(&cur)?;
        let (jm, prev) = step_between(g, &path_parts, &s, &fwd[k], false)?;
        moves.push(jm);
        states.push(prev.clone());
        cur = prev;
    }
    states.reverse();
    moves.reverse();
    // Walk forward to the goal through the backward layers.
    let mut cur = m;
    for k in (0..j).rev() {
        let s = g.state(&cur)?;
        let (jm, next) = step_between(g, &path_parts, &s, &bwd[k], true)?;
        moves.push(jm);
        states.push(next.clone());
        cur = next;
    }
    Ok(Some(Path {
        moves,
        states,
        forward_layers: fwd.len(),
        backward_layers: bwd.len(),
        forward,
        backward,
        peak_nodes,
    }))
}

/// The first of `layers` that intersects `set`.
fn first_meeting<E: BddEngine>(e: &E, set: &E::Bdd, layers: &[E::Bdd]) -> Result<usize, Interrupt> {
    for (k, l) in layers.iter().enumerate() {
        if !e.is_false(&e.and(set, l)?) {
            return Ok(k);
        }
    }
    unreachable!("the set meets the union of the layers")
}

/// One step from the single state `s` to (`forward`) or from (`!forward`) a state of `layer`:
/// the joint move and the other state. A predecessor is never terminal (terminal states have
/// no successors, even where the relation allows a move).
pub(crate) fn step_between<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    partitions: &[Partition<E>],
    s: &E::Bdd,
    layer: &E::Bdd,
    forward: bool,
) -> Result<(JointMove, Vec<usize>), Interrupt> {
    let e = g.engine();
    let sources;
    let layer = if forward {
        layer
    } else {
        sources = g.and_not_terminal(layer)?;
        &sources
    };
    for p in partitions {
        let other = if forward {
            p.image(e, s)?
        } else {
            p.pre_image(e, s)?
        };
        let hit = e.and(&other, layer)?;
        if let Some(t) = g.pick_state(&hit) {
            return Ok((p.joint_moves[0].clone(), t));
        }
    }
    unreachable!("consecutive BFS layers are linked by some joint move")
}
