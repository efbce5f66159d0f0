//! Symbolic breadth-first search from the initial state: reachability with exact big-integer
//! layer counts ([`reach`], [`reach_count`], [`reach_until`]), and the BFS step ([`Bfs`],
//! [`next_layer`]) that the retrograde solver's forward search shares.

use symgame_bdd::{BddEngine, BddError};
use symgame_limits::{Guard, Limits, StopReason};

use crate::backend::{GameJob, LayerJob};
pub(crate) use crate::bfs::Bfs;
use crate::checkpoint::ReachStore;
use crate::disjunction::or_all;
use crate::error::SymbolicError;
use crate::game::SymbolicGame;
use crate::image_pieces::layer_image;
use crate::interrupt::Interrupt;
use crate::layerwise::Layerwise;
use crate::prefix::ExplicitRun;
use crate::reach_kept::{begin, keep_step, read_back};
use crate::reach_slices::{Images, ReachSlicer};
pub use crate::reach_stats::{LayerStats, ReachStats};
use crate::solve::slicing::Slicing;

/// The result of [`reach`]: statistics, the reached set, and the layers if asked for.
pub struct Reach<E: BddEngine> {
    /// The statistics.
    pub stats: ReachStats,
    /// All states of the complete layers.
    pub reached: E::Bdd,
    /// The complete layers (empty unless `keep_layers`).
    pub layers: Vec<E::Bdd>,
}

/// Symbolic breadth-first search from the initial state with duplicate detection. Each layer
/// `L_{k+1} = image(L_k AND NOT terminal) AND NOT reached`; terminal states are counted but not
/// expanded (the same convention as the explicit `explore`). The non-terminal part of a new
/// layer is found per cluster, removing only the terminal parts that cluster can make true
/// ([`Partition::terminal_parts`](crate::Partition::terminal_parts)). While every layer `k` lies in level `p0 + k` of the
/// potential ([`SymbolicGame::potential_levels`]), no state can be in two layers and the
/// difference with `reached` is skipped. `progress` is called after each layer. On a limit,
/// the complete layers are kept and `stats.stopped` says why.
pub fn reach<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    limits: &Limits,
    keep_layers: bool,
    progress: impl FnMut(&ReachStats),
) -> Reach<E> {
    reach_impl(
        g,
        None,
        Start::default(),
        limits,
        keep_layers,
        true,
        progress,
    )
}

/// [`reach`] for the counts only: the reached set is not kept (`reached` is the empty set and
/// `stats.reached_nodes` is 0) while the layers are provably disjoint (see [`reach`]), which
/// saves a union and a difference with the reached set per layer.
pub fn reach_count<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    limits: &Limits,
    progress: impl FnMut(&ReachStats),
) -> ReachStats {
    reach_impl(g, None, Start::default(), limits, false, false, progress).stats
}

/// How the report names the partitioning of a game compiled within each layer once an image
/// took the roles' moves one role at a time (joint moves that would be too many).
pub const FACTORED: &str = "within each layer, moves one role at a time";

/// How the report names the partitioning of a game compiled within each layer once an image
/// took the moves as BDD variables (module `move_vars`).
pub const MOVE_VARIABLES: &str = "within each layer, moves as BDD variables";

/// How the report names the partitioning of a game whose relations are compiled once (per
/// joint move, clustered) and whose terminal condition, too large over all states, is
/// compiled within each layer.
pub const TERMINAL_WITHIN: &str = "per joint move, terminal within each layer";

/// One layer: `frontier` (layer `k`) joins the reached states and the next layer and its
/// non-terminal states are computed. `bfs` changes only on success. `on_expand` sees the
/// non-terminal states of the frontier as soon as they are known, before any image (a game
/// compiled within each layer cuts them in the compilation that also gives the image).
pub(crate) fn next_layer<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    bfs: &mut Bfs<E>,
    k: usize,
    keep_reached: bool,
    guard: &Guard,
    on_expand: &mut dyn FnMut(&E::Bdd),
) -> Result<(E::Bdd, E::Bdd), Interrupt> {
    step_layer(g, bfs, k, keep_reached, guard, on_expand, None)
}

/// Where the successors of a layer's non-terminal states come from when not from this
/// process's partitions: the jobs of the layer's slices ([`ReachSlicer::images`]).
type SlicedImages<'a, E> = &'a dyn Fn(&<E as BddEngine>::Bdd) -> Result<Images<E>, Interrupt>;

/// [`next_layer`], whose symbolic image is `sliced`'s if given (the explicit and layerwise
/// steps never are).
fn step_layer<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    bfs: &mut Bfs<E>,
    k: usize,
    keep_reached: bool,
    guard: &Guard,
    on_expand: &mut dyn FnMut(&E::Bdd),
    sliced: Option<SlicedImages<'_, E>>,
) -> Result<(E::Bdd, E::Bdd), Interrupt> {
    let e = g.engine();
    // The step's operations ask the limits from inside (one image can outlast the limit many
    // times over); what follows the step (counting and keeping its layer) is not stopped.
    let _armed = symgame_bdd::arm_stop(e, guard.stop_check());
    let limit_nodes = guard.limits.max_nodes.is_some();
    let mut layered = bfs.layered.clone();
    let mut reached = bfs.reached.clone();
    match &mut layered {
        Some(_) if !keep_reached && bfs.on_disk.is_some() => {}
        Some((_, kept)) if !keep_reached => kept.push(bfs.frontier.clone()),
        _ => {
            reached = e.or(&reached, &bfs.frontier)?;
            if limit_nodes {
                guard.check_nodes(e.node_count(&reached) as u64)?;
            }
        }
    }
    let mut images = Vec::new();
    // Sliced: the non-terminal successors, from the jobs.
    let mut sliced_cut = None;
    let mut expand = None;
    // An explicit step reports its non-terminal states before it builds their successors.
    let step = match &mut bfs.explicit {
        Some(run) => run.next_step(e, g.encoding(), g.explicit_layers(), on_expand)?,
        None => None,
    };
    // Compiled within each layer, the first layer after the explicit steps has its terminal
    // states checked state by state (its symbolic terminal cut compiles the game within it).
    let known_expand = match (&step, g.layerwise(), &mut bfs.explicit) {
        (None, Some(_), Some(run)) => run.frontier_expand(e, g.encoding(), guard)?,
        _ => None,
    };
    let union = match (&step, g.layerwise()) {
        (Some((x, union)), _) => {
            expand = Some(x.clone());
            union.clone()
        }
        (None, Some(lw)) => {
            match layerwise_step(g, lw, bfs, known_expand, guard, on_expand, &mut images)? {
                Some((x, union)) => {
                    expand = Some(x);
                    union
                }
                None => {
                    // No image of this layer can be trusted: the caller stops here.
                    g.mark_broken();
                    return Ok((e.constant(false), e.constant(false)));
                }
            }
        }
        (None, None) => {
            on_expand(&bfs.expand);
            let found = match sliced {
                Some(images_of) => images_of(&bfs.expand)?.map(|(union, cut)| {
                    sliced_cut = Some(cut);
                    union
                }),
                None => layer_image(g, (&bfs.expand, &mut bfs.pace), guard, &mut images)?,
            };
            match found {
                Some(union) => union,
                None => {
                    // No image of this layer can be trusted: the caller stops here.
                    g.mark_broken();
                    return Ok((e.constant(false), e.constant(false)));
                }
            }
        }
    };
    // Layered: if every new state has potential p0 + k + 1, no earlier layer (potential
    // p0 + j, j <= k) can hold it.
    if let Some((p0, kept)) = &mut layered {
        let levels = g.potential_levels()?.expect("layered implies levels");
        let fits = match levels.get(*p0 + k + 1) {
            Some(level) => e.is_false(&e.and_not(&union, level)?),
            None => e.is_false(&union),
        };
        if !fits {
            match &bfs.on_disk {
                _ if keep_reached => {}
                // The caller reads them back and takes them out of the new layer.
                Some(_) => bfs.read_back = true,
                None => reached = or_all(e, std::mem::take(kept))?,
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
        // In slices: each job cut its images as below.
        _ if sliced_cut.is_some() => e.and(&sliced_cut.take().expect("checked"), &new)?,
        // Compiled within each layer: cut when the new layer is expanded.
        _ if g.is_layerwise() => new.clone(),
        // Expanded explicitly: the next step cuts it the same way, or is symbolic.
        _ if step.is_some() => g.and_not_terminal(&new)?,
        // No image: none had successors, or the layer was expanded state by state.
        [] => g.and_not_terminal(&new)?,
        [(c, _)] => g.clusters()[*c]
            .cut_terminal_checked(e, &new, || guard.check().map_err(Interrupt::from))?,
        _ => {
            let mut cut = Vec::with_capacity(images.len());
            for (c, img) in &images {
                cut.push(
                    g.clusters()[*c]
                        .cut_terminal_checked(e, img, || guard.check().map_err(Interrupt::from))?,
                );
            }
            e.and(&or_all(e, cut)?, &new)?
        }
    };
    guard.check()?;
    bfs.reached = reached;
    bfs.layered = layered;
    bfs.revisited = revisited;
    if let Some(x) = expand {
        bfs.expand = x;
    }
    bfs.explicit_layers += usize::from(step.is_some());
    Ok((new, new_expand))
}

/// A layer's non-terminal states and their successors.
type ExpandAndImage<E> = (<E as BddEngine>::Bdd, <E as BddEngine>::Bdd);

/// The non-terminal states of the frontier of a game compiled within each layer (`known`, if
/// its terminal states were checked state by state) and their successors; `None` if a state
/// of it breaks an assumed group. Where only the terminal condition is compiled within the
/// layer ([`SymbolicGame::is_terminal_within`]), the successors are the clusters' images.
fn layerwise_step<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    lw: &Layerwise,
    bfs: &mut Bfs<E>,
    known: Option<E::Bdd>,
    guard: &Guard,
    on_expand: &mut dyn FnMut(&E::Bdd),
    images: &mut Vec<(usize, E::Bdd)>,
) -> Result<Option<ExpandAndImage<E>>, Interrupt> {
    let e = g.engine();
    if g.is_terminal_within() {
        let x = match known {
            Some(x) => x,
            None => lw
                .and_not_terminal_guarded(e, g.encoding(), &bfs.frontier, guard)
                .map_err(|err| layerwise_stop(err, guard))?,
        };
        on_expand(&x);
        let found = layer_image(g, (&x, &mut bfs.pace), guard, images)?;
        return Ok(found.map(|union| (x, union)));
    }
    let terminal = g.terminal_over_all();
    let (x, image) = match known {
        Some(x) => {
            on_expand(&x);
            let (_, image) = lw
                .expand_and_image(e, g.encoding(), (&x, terminal), Some(guard), &mut |_| {})
                .map_err(|err| layerwise_stop(err, guard))?;
            (x, image)
        }
        None => lw
            .expand_and_image(
                e,
                g.encoding(),
                (&bfs.frontier, terminal),
                Some(guard),
                on_expand,
            )
            .map_err(|err| layerwise_stop(err, guard))?,
    };
    Ok(Some((x, image)))
}

/// Why compiling within a layer stopped: the guard's own reason when a limit has passed (the
/// compiler's deadline is the guard's), else the engine running out of nodes, or too many
/// joint moves in one layer (as a node limit: the layer's relation would be too large).
fn layerwise_stop(err: SymbolicError, guard: &Guard) -> Interrupt {
    if let Err(why) = guard.check() {
        return Interrupt::Stop(why);
    }
    Interrupt::Stop(match err {
        SymbolicError::Stopped(why) | SymbolicError::Bdd(BddError::Stopped(why)) => why,
        SymbolicError::TooManyJointMoves { .. } => StopReason::NodeLimit,
        // The compiler's deadline is the guard's, on a coarse clock that can pass a little
        // before the guard's own (quad at 10 s was reported out of nodes at 312 MB).
        SymbolicError::Bdd(BddError::Budget(_)) => StopReason::TimeLimit,
        _ => StopReason::OutOfMemory,
    })
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
    if g.is_layerwise() {
        bfs.expand = g.and_not_terminal(&bfs.frontier)?;
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
    reach_impl(
        g,
        Some(goal),
        Start::default(),
        limits,
        keep_layers,
        true,
        progress,
    )
}

impl ReachStats {
    /// The statistics of a search of `g` before its first layer: its partitioning, one
    /// sitting.
    fn before_search<E: BddEngine>(g: &SymbolicGame<'_, E>) -> ReachStats {
        let partitioning = match (g.is_terminal_within(), g.is_layerwise()) {
            (true, _) => TERMINAL_WITHIN,
            (false, true) => "within each layer",
            (false, false) => "per joint move",
        };
        ReachStats {
            partitions: g.clusters().len(),
            partitioning: partitioning.to_string(),
            sittings: 1,
            ..ReachStats::default()
        }
    }
}

/// What a search reports after a layer: whether the moves of a game compiled within each layer
/// were taken one role at a time, and how many later layers were expanded state by state.
fn note_layers<E: BddEngine>(g: &SymbolicGame<'_, E>, stats: &mut ReachStats) {
    if let Some(l) = g.layerwise() {
        if l.factored.load(std::sync::atomic::Ordering::Relaxed) {
            stats.partitioning = FACTORED.to_string();
        }
        if l.with_move_vars.load(std::sync::atomic::Ordering::Relaxed) {
            stats.partitioning = MOVE_VARIABLES.to_string();
        }
    }
    stats.explicit_later = (g.explicit_layers().won).load(std::sync::atomic::Ordering::Relaxed);
}

/// How a search starts: its first layers expanded explicitly, and the directory that keeps
/// its layers (a search found there goes on from its frontier; the explicit layers are then
/// not used).
#[derive(Default)]
pub(crate) struct Start<'s> {
    pub(crate) explicit: Option<ExplicitRun>,
    pub(crate) store: Option<&'s mut ReachStore>,
    /// With `store`: the large layers expanded in slices by separate jobs.
    pub(crate) slicing: Option<&'s Slicing>,
}

pub(crate) fn reach_impl<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    goal: Option<&E::Bdd>,
    start: Start<'_>,
    limits: &Limits,
    keep_layers: bool,
    keep_reached: bool,
    mut progress: impl FnMut(&ReachStats),
) -> Reach<E> {
    let e = g.engine();
    let guard = Guard::new(limits);
    let mut stats = ReachStats::before_search(g);
    let mut layers = Vec::new();
    let Start {
        explicit,
        mut store,
        slicing,
    } = start;
    // The explicit prefix's exact layers, for a search its limits stop before it reports them.
    let counts_only = !keep_layers && !keep_reached && store.is_none();
    let known =
        (explicit.as_ref().filter(|_| counts_only)).map_or(Vec::new(), ExplicitRun::counted);
    let mut bfs = match begin(g, explicit, store.as_deref_mut(), keep_reached, &mut stats) {
        Ok(b) => b,
        Err(why) => {
            stats.stopped = why.reason();
            stats.store_error = why.file_error();
            return Reach {
                stats,
                reached: e.constant(false),
                layers,
            };
        }
    };
    // Seconds of the earlier sittings of a resumed search.
    let earlier = stats.layers.last().map_or(0.0, |l| l.seconds);
    let slicer = ReachSlicer::for_search(g, slicing, store.as_deref());
    while !e.is_false(&bfs.frontier) && !g.assumption_broken() {
        let k = stats.layers.len();
        let (states, nodes) = g.count_and_nodes(&bfs.frontier);
        if let Err(why) = guard.check().and_then(|()| guard.check_nodes(nodes as u64)) {
            stats.stopped = Some(why);
            break;
        }
        let hit = match goal.map(|t| e.and(&bfs.frontier, t)) {
            None => false,
            Some(Ok(h)) => !e.is_false(&h),
            Some(Err(_)) => {
                stats.stopped = Some(StopReason::OutOfMemory);
                break;
            }
        };
        // The layer's row is added and reported once its non-terminal states are known, before
        // its image (which may not finish within the limits): its figures are final then.
        let mut counted = false;
        let mut count_layer = |expand: &E::Bdd| {
            let terminal = &states - g.count(expand);
            stats.states += &states;
            stats.terminal += &terminal;
            stats.layers.push(LayerStats {
                states: states.clone(),
                terminal,
                nodes,
                seconds: earlier + guard.started.elapsed().as_secs_f64(),
                engine_nodes: e.live_nodes(),
                peak_resident: symgame_limits::peak_resident_bytes(),
                sliced: None,
            });
            stats.seconds = earlier + guard.started.elapsed().as_secs_f64();
            counted = true;
            progress(&stats);
        };
        let stepped = if hit {
            // The goal layer is kept but not expanded.
            let stepped = goal_layer(g, &mut bfs, keep_reached);
            if stepped.is_ok() {
                count_layer(&bfs.expand);
            }
            stepped
        } else {
            // A large layer of a search kept in a directory: its images from its slices' jobs.
            let sliced = slicer.as_ref().filter(|s| s.sliced(k));
            let images_of = sliced.map(|s| move |x: &E::Bdd| s.images(e, k, x));
            let images_of = images_of.as_ref().map(|f| f as SlicedImages<'_, E>);
            step_layer(
                g,
                &mut bfs,
                k,
                keep_reached,
                &guard,
                &mut count_layer,
                images_of,
            )
        };
        stats.explicit_layers = bfs.explicit_layers;
        match stepped {
            // The step expanded states where an assumed group breaks: its image is void.
            Ok(_) if g.assumption_broken() => break,
            Ok((mut new, mut new_expand)) => {
                if let Err(why) = read_back(g, &mut bfs, k, &mut new, &mut new_expand) {
                    stats.stopped = why.reason();
                    stats.store_error = why.file_error();
                    break;
                }
                let slicer = slicer.as_ref();
                let kept = keep_step(g, store.as_deref_mut(), slicer, &bfs, &mut stats, &new);
                if let Err(err) = kept {
                    stats.store_error = Some(err.to_string());
                    break;
                }
                let done = std::mem::replace(&mut bfs.frontier, new);
                if keep_layers {
                    layers.push(done);
                }
                bfs.expand = new_expand;
                bfs.collector.collect(e);
                note_layers(g, &mut stats);
                progress(&stats);
            }
            Err(Interrupt::Stop(why)) => {
                match slicer.as_ref().and_then(ReachSlicer::take_failure) {
                    Some(failure) => stats.slice_error = Some(failure),
                    None => stats.stopped = Some(why),
                }
                stats.stop_note = g.explicit_layers().declined();
                if counted {
                    // The frontier was counted before the step stopped: it is a finished
                    // layer of the result.
                    if keep_reached {
                        bfs.reached = e.or(&bfs.reached, &bfs.frontier).unwrap_or(bfs.reached);
                    }
                    if keep_layers {
                        layers.push(bfs.frontier.clone());
                    }
                    progress(&stats);
                }
                break;
            }
        }
    }
    stats.add_known_layers(&known, earlier + guard.started.elapsed().as_secs_f64());
    let seconds = earlier + guard.started.elapsed().as_secs_f64();
    finish(
        g,
        stats,
        keep_reached.then_some(bfs.reached),
        layers,
        seconds,
    )
}

/// The result of a search from its figures, the union of its finished layers if kept, and
/// the layers kept.
fn finish<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    mut stats: ReachStats,
    reached: Option<E::Bdd>,
    layers: Vec<E::Bdd>,
    seconds: f64,
) -> Reach<E> {
    let e = g.engine();
    stats.reached_nodes = reached.as_ref().map_or(0, |r| e.node_count(r));
    stats.seconds = seconds;
    stats.assumption_broken = g.assumption_broken();
    stats.break_witness = g.break_witness();
    let reached = reached.unwrap_or_else(|| e.constant(false));
    Reach {
        stats,
        reached,
        layers,
    }
}

/// Symbolic BFS ([`reach_count`]) as a search for [`Setup::run`](crate::Setup::run): on an
/// engine chosen at run time, with the limits as its settings; `progress` is called after each
/// layer.
pub type ReachJob<'a, F> = LayerJob<'a, Limits, F>;

impl<F: FnMut(&ReachStats)> GameJob<ReachStats, SymbolicError> for ReachJob<'_, F> {
    fn run<E: BddEngine>(self, g: &SymbolicGame<'_, E>) -> Result<ReachStats, SymbolicError> {
        let explicit = self.explicit.map(|r| r.fitted(g, self.settings));
        let start = Start {
            explicit,
            store: None,
            slicing: None,
        };
        Ok(reach_impl(g, None, start, self.settings, false, false, self.progress).stats)
    }
}

/// [`ReachJob`] kept in a directory layer by layer ([`ReachStore`]): a search found there
/// goes on from its frontier (`explicit` is then not used), else one begins
/// ([`ReachStore::begin`] first).
pub struct KeptReachJob<'a, F> {
    /// The limits of this sitting.
    pub limits: &'a Limits,
    /// The first layers expanded explicitly, for a search that begins.
    pub explicit: Option<ExplicitRun>,
    /// The directory.
    pub store: &'a mut ReachStore,
    /// The large layers expanded in slices by separate jobs (`None`: all in this process).
    /// Not for games compiled within each layer: their layers are all expanded here.
    pub slicing: Option<&'a Slicing>,
    /// Called after each layer.
    pub progress: F,
}

impl<F: FnMut(&ReachStats)> GameJob<ReachStats, SymbolicError> for KeptReachJob<'_, F> {
    fn run<E: BddEngine>(self, g: &SymbolicGame<'_, E>) -> Result<ReachStats, SymbolicError> {
        if let Some(done) = self.store.complete() {
            // Found complete: reported as found, nothing searched.
            let mut stats = ReachStats {
                explicit_layers: done.explicit_layers,
                seconds: done.seconds,
                sittings: done.sittings,
                ..ReachStats::before_search(g)
            };
            for l in &done.layers {
                stats.states += &l.states;
                stats.terminal += &l.terminal;
            }
            stats.layers = done.layers.clone();
            return Ok(stats);
        }
        let explicit = match self.store.resuming() {
            true => None,
            false => self.explicit.map(|r| r.fitted(g, self.limits)),
        };
        let start = Start {
            explicit,
            store: Some(self.store),
            slicing: self.slicing,
        };
        Ok(reach_impl(g, None, start, self.limits, false, false, self.progress).stats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Between layers, the table is collected once it is half full (and a quarter more than
    /// the last collection left), not before, and a live set is kept.
    #[test]
    fn the_table_is_collected_between_layers_once_half_full() {
        use crate::bfs::LayerCollector;
        use symgame_bdd::{EngineConfig, OxiddEngine};
        let cfg = EngineConfig {
            threads: 1,
            node_capacity: 1 << 16,
            cache_capacity: 1 << 10,
        };
        let e = OxiddEngine::new(40, &cfg).expect("an engine");
        let capacity = e.stats().node_capacity.expect("oxidd's capacity");
        // A set kept alive: a chain of 20 variables.
        let kept = (0..20).try_fold(e.constant(true), |f, v| e.and(&f, &e.var(v)));
        let kept = kept.expect("a chain");
        let kept_nodes = e.node_count(&kept);
        // Dead nodes: XORs of pseudo-random two-literal clauses, dropped at once.
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut garbage = |n: u32| {
            for _ in 0..n {
                let f = (0..12).try_fold(e.constant(false), |f, _| {
                    seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                    let (a, b) = ((seed >> 33) as u32 % 40, (seed >> 45) as u32 % 40);
                    let c = e.and(&e.var(a), &e.not(&e.var(b))?)?;
                    e.xor(&f, &c)
                });
                drop(f.expect("within the table"));
            }
        };
        let mut collector = LayerCollector::default();
        garbage(20);
        let before = e.stats();
        assert!(before.live_nodes.unwrap() < capacity / 2, "{before:?}");
        collector.collect(&e);
        assert_eq!(e.stats().gc_runs, before.gc_runs, "collected below half");
        for _ in 0..1000 {
            if e.live_nodes().unwrap() > capacity / 2 + capacity / 8 {
                break;
            }
            garbage(5);
        }
        let full = e.stats();
        collector.collect(&e);
        let after = e.stats();
        assert_eq!(after.gc_runs, full.gc_runs + 1, "not collected at {full:?}");
        assert!(after.live_nodes.unwrap() < capacity / 4, "{after:?}");
        assert_eq!(collector.left, after.live_nodes.unwrap());
        assert_eq!(e.node_count(&kept), kept_nodes);
        assert!(e.implies(&kept, &e.var(19)).unwrap());
        // Right after a collection, with no new garbage: none again.
        collector.collect(&e);
        assert_eq!(e.stats().gc_runs, after.gc_runs);
        // Over half full of live nodes: no collection again until a quarter of the table more
        // is allocated (it would free nothing).
        let mut live = Vec::new();
        for _ in 0..100_000 {
            if collector.left > capacity / 2 {
                break;
            }
            let f = (0..12).try_fold(e.constant(false), |f, _| {
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                let (a, b) = ((seed >> 33) as u32 % 40, (seed >> 45) as u32 % 40);
                e.xor(&f, &e.and(&e.var(a), &e.var(b))?)
            });
            live.push(f.expect("within the table"));
            collector.collect(&e);
        }
        assert!(collector.left > capacity / 2, "{:?}", e.stats());
        let runs = e.stats().gc_runs;
        collector.collect(&e);
        assert_eq!(e.stats().gc_runs, runs, "collected again in vain");
    }

    /// A deadline inside a layer's compilation, or the engine out of nodes, with the guard's
    /// limits not yet passed: the time limit and the node table, each by its own name.
    #[test]
    fn a_layers_compilation_stops_with_the_reason_of_its_error() {
        let limits = Limits::default();
        let guard = Guard::new(&limits);
        let stop = |err| {
            let Interrupt::Stop(why) = layerwise_stop(err, &guard);
            why
        };
        let late = BddError::Budget("set-up deadline passed".into());
        assert_eq!(stop(SymbolicError::Bdd(late)), StopReason::TimeLimit);
        let full = BddError::OutOfMemory {
            backend: symgame_bdd::Backend::Oxidd,
            node_capacity: 1 << 16,
        };
        assert_eq!(stop(SymbolicError::Bdd(full)), StopReason::OutOfMemory);
        // An operation stopped from inside by the limits keeps their reason, also where it
        // reaches the search as an engine error.
        let inside = || BddError::Stopped(StopReason::Cancelled);
        assert_eq!(stop(SymbolicError::Bdd(inside())), StopReason::Cancelled);
        let Interrupt::Stop(why) = Interrupt::from(inside());
        assert_eq!(why, StopReason::Cancelled);
        let full = BddError::OutOfMemory {
            backend: symgame_bdd::Backend::Oxidd,
            node_capacity: 1 << 16,
        };
        let Interrupt::Stop(why) = Interrupt::from(full);
        assert_eq!(why, StopReason::OutOfMemory);
    }
}
