//! Bidirectional breadth-first search for a shortest path from the initial state to a goal set
//! ([`shortest_path`], [`Path`]), and the walk through stored layers that rebuilds a path one
//! joint move at a time ([`walk`]).

use serde::{Deserialize, Serialize};
use symgame_bdd::{Backend, BddEngine, EngineConfig};
use symgame_ground::GroundGame;
use symgame_limits::{Guard, Limits, StopReason};

use crate::backend::{GameJob, Setup};
use crate::compile::JointMove;
use crate::error::SymbolicError;
use crate::game::{goal_states, SymbolicGame};
use crate::interrupt::{union_guarded, Interrupt};
use crate::options::SymbolicOptions;
use crate::partition::Partition;
use crate::reach_stats::LayerStats;

/// Image of `s`, which must contain no terminal state.
fn image_guarded<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    s: &E::Bdd,
    guard: &Guard,
) -> Result<E::Bdd, Interrupt> {
    let e = g.engine();
    union_guarded(e, g.clusters(), guard, |p| p.image(e, s))
}

/// The non-terminal predecessors of `s` under `partitions`.
fn pre_image_guarded<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    partitions: &[Partition<E>],
    s: &E::Bdd,
    guard: &Guard,
) -> Result<E::Bdd, Interrupt> {
    let e = g.engine();
    let pre = union_guarded(e, partitions, guard, |p| p.pre_image(e, s))?;
    Ok(g.and_not_terminal(&pre)?)
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
/// of interest, e.g. the reached set of [`reach`](fn@crate::reach) or a state invariant).
pub fn shortest_path_within<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    goal: &E::Bdd,
    domain: Option<&E::Bdd>,
    limits: &Limits,
) -> Result<Option<Path>, StopReason> {
    let guard = Guard::new(limits);
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
            engine_nodes: e.live_nodes(),
            peak_resident: symgame_limits::peak_resident_bytes(),
            sliced: None,
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
    let (mut moves, mut states) = walk(g, &path_parts, &m, &fwd[..i], false)?;
    moves.reverse();
    states.reverse();
    states.push(m.clone());
    // Walk forward to the goal through the backward layers.
    let (forth, later) = walk(g, &path_parts, &m, &bwd[..j], true)?;
    moves.extend(forth);
    states.extend(later);
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

/// From the single state `from`, one step into each of `layers`, the last layer first: to a
/// successor in it (`forward`) or from a predecessor in it. The joint moves and the states
/// reached, in walking order.
pub(crate) fn walk<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    partitions: &[Partition<E>],
    from: &[usize],
    layers: &[E::Bdd],
    forward: bool,
) -> Result<(Vec<JointMove>, Vec<Vec<usize>>), Interrupt> {
    let mut moves = Vec::with_capacity(layers.len());
    let mut states = Vec::with_capacity(layers.len());
    let mut cur = from.to_vec();
    for layer in layers.iter().rev() {
        let s = g.state(&cur)?;
        let (jm, other) = step_between(g, partitions, &s, layer, forward)?;
        moves.push(jm);
        states.push(other.clone());
        cur = other;
    }
    Ok((moves, states))
}

/// Shortest path ([`shortest_path`]) from the initial state to a terminal state where `role`
/// (by name) gets exactly `value`, on the engine `backend`. `Ok(None)` if there is none.
pub fn shortest_path_with_backend(
    game: &GroundGame,
    backend: Backend,
    config: &EngineConfig,
    opts: &SymbolicOptions,
    limits: &Limits,
    role: &str,
    value: u8,
) -> Result<Option<Path>, SymbolicError> {
    let role_index = game
        .find_role(role)
        .ok_or_else(|| SymbolicError::UnknownRole(role.to_string()))?;
    let job = PathJob {
        limits,
        role: role_index,
        value,
    };
    Setup::new(game, backend, config, opts).run(job)
}

/// [`shortest_path`] to the states where a role gets a value, as a job for [`Setup::run`].
struct PathJob<'a> {
    limits: &'a Limits,
    role: usize,
    value: u8,
}

impl GameJob<Option<Path>, SymbolicError> for PathJob<'_> {
    fn run<E: BddEngine>(self, g: &SymbolicGame<'_, E>) -> Result<Option<Path>, SymbolicError> {
        let goal = goal_states(g, self.role, self.value)?;
        shortest_path(g, &goal, self.limits).map_err(SymbolicError::Stopped)
    }
}
