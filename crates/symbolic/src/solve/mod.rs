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
//!
//! Modules: [`options`], [`error`], [`stats`] (the statistics, also written into solution
//! files), [`value`] (value classes, outcomes, the preference rule), [`context`] (the state
//! predicates the solvers share), [`forward`] (the forward search), [`spill`] (layers waiting
//! in files), [`whole`] (the whole-set algorithms) and [`layered`]. This module holds the entry
//! points: [`solve`], and [`SolveJob`] for an engine chosen at run time.

pub(crate) mod context;
pub(crate) mod error;
pub(crate) mod files;
pub(crate) mod forward;
pub(crate) mod layered;
pub(crate) mod merged;
pub(crate) mod mixed;
pub(crate) mod mixed_explicit;
pub(crate) mod nash;
pub(crate) mod options;
pub(crate) mod security;
pub(crate) mod slices;
pub(crate) mod slicing;
pub(crate) mod solution;
pub(crate) mod spill;
pub(crate) mod stage;
pub(crate) mod stats;
pub(crate) mod step;
pub(crate) mod value;
pub(crate) mod whole;

use std::time::Instant;

use num_bigint::BigUint;
use symgame_bdd::BddEngine;

use crate::backend::{GameJob, LayerJob};
use crate::error::SymbolicError;
use crate::game::SymbolicGame;
use crate::prefix::ExplicitRun;
use crate::solve::context::Context;
use crate::solve::error::{SolveError, SolveOrStop};
use crate::solve::files::{prepare_dir, read_manifest, write_layer, write_manifest};
use crate::solve::forward::{forward, Forward, Keep};
use crate::solve::layered::solve_layered;
use crate::solve::options::{LayeredMode, SolveOptions, ValueRule};
use crate::solve::spill::{ForwardManifest, Spill};
use crate::solve::stats::{GameKind, SolveStats};
use crate::solve::value::{set_initial, store, Solved, SolvedLayer};
use crate::solve::whole::{solve_whole, whole_stats};

/// Solves `game` strongly: the value of every reachable state. See the module documentation
/// for the algorithms. `progress` is called after each solved layer or phase.
pub fn solve<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    opts: &SolveOptions,
    progress: impl FnMut(&SolveStats),
) -> Result<Solved<E>, SolveError> {
    solve_with(g, opts, None, progress)
}

/// [`solve`] whose forward search first replays `explicit`, the first layers expanded state by
/// state ([`ExplicitPrefix::run`](crate::ExplicitPrefix::run)); the layers and so the solution
/// are the same either way.
pub fn solve_with<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    opts: &SolveOptions,
    explicit: Option<ExplicitRun>,
    mut progress: impl FnMut(&SolveStats),
) -> Result<Solved<E>, SolveError> {
    let roles = g.role_names().len();
    let started = Instant::now();
    let choice_nodes = opts.choice_nodes.unwrap_or(options::CHOICE_NODES);
    let mut ctx = Context::new(g, &opts.limits, choice_nodes).map_err(SymbolicError::from)?;
    let mut stats = SolveStats {
        kind: match roles {
            1 => GameKind::SinglePlayer,
            2 => GameKind::GeneralSum,
            _ => GameKind::MaxN,
        },
        layered: false,
        roles: g.role_names().to_vec(),
        outcomes: Vec::new(),
        initial: None,
        initial_distance: None,
        layers: Vec::new(),
        per_outcome: Vec::new(),
        states: BigUint::default(),
        forward_layers: 0,
        unsolved: BigUint::default(),
        reach_seconds: 0.0,
        explicit_layers: 0,
        seconds: 0.0,
        peak_nodes: 0,
        stopped: None,
        mixed: Vec::new(),
        stage_games: 0,
        explicit_states: 0,
        nash: None,
        resumed: Default::default(),
    };
    let mut layers_out = Vec::new();
    let result = run(
        g,
        opts,
        explicit,
        &mut ctx,
        &mut stats,
        &mut layers_out,
        &mut progress,
    );
    // Over all sittings of a resumed solve.
    stats.seconds = stats.resumed.earlier_seconds + started.elapsed().as_secs_f64();
    stats.peak_nodes = ctx.peak;
    match result {
        Ok(()) => {}
        Err(SolveOrStop::Stop(r)) => stats.stopped = Some(r),
        Err(SolveOrStop::Error(e)) => return Err(e),
    }
    if let Some(dir) = &opts.out_dir {
        let complete = stats.stopped.is_none();
        // A sitting stopped before it read back (or solved) any layer leaves the manifest of
        // the earlier ones as it is: rewritten from these statistics it would lose them.
        let kept = stats.stopped.is_some() && stats.layers.is_empty() && read_manifest(dir).is_ok();
        if !kept {
            write_manifest(dir, &opts.fingerprint, g.encoding(), &stats, complete)?;
        }
    }
    Ok(Solved {
        stats,
        layers: layers_out,
    })
}

/// Prepares the output directory, runs the forward search and solves layer by layer or the
/// whole reachable set at once.
fn run<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    opts: &SolveOptions,
    explicit: Option<ExplicitRun>,
    ctx: &mut Context<'_, '_, E>,
    stats: &mut SolveStats,
    layers_out: &mut Vec<SolvedLayer<E>>,
    progress: &mut impl FnMut(&SolveStats),
) -> Result<(), SolveOrStop> {
    let resume_dir = opts.out_dir.as_deref().filter(|_| opts.resume);
    if let Some(m) = resume_dir.and_then(|d| found(d, &opts.fingerprint)) {
        if m.complete {
            // Solved already: reported as found.
            *stats = m.stats;
            return Ok(());
        }
    } else if let Some(dir) = &opts.out_dir {
        prepare_dir(dir)?;
    }
    let two = g.role_names().len() == 2;
    let spill = match resume_dir {
        Some(dir) => Spill::kept(dir)?,
        None => Spill::new(opts.spill_dir.as_deref())?,
    };
    let to_files = two && opts.layered == LayeredMode::Auto || resume_dir.is_some();
    let found = resume_dir.and_then(|d| ForwardManifest::read_matching(d, &opts.fingerprint));
    let fwd = match found {
        Some(m) if m.complete => {
            stats.resumed.forward = true;
            stats.resumed.forward_layers = m.depths;
            forward_found(ctx, opts, &spill, m)?
        }
        found => {
            stats.resumed.forward_layers = found.as_ref().map_or(0, |m| m.depths);
            let keep = resume_dir.map(|_| Keep {
                fingerprint: &opts.fingerprint,
                found,
            });
            // Each finished layer shown as progress (a long search says how far it got).
            let mut finished = |depths: usize, states: &BigUint| {
                stats.forward_layers = depths;
                stats.states.clone_from(states);
                progress(stats);
            };
            forward(g, ctx, explicit, (to_files, &spill), keep, &mut finished)?
        }
    };
    if g.assumption_broken() {
        // The layers end where a group broke: solving them would be wrong.
        return Err(SolveOrStop::Error(SolveError::AssumedGroupBroken {
            witness: g.break_witness(),
        }));
    }
    // Who moves, within the reachable states, if it was too large over all states.
    if let Some(reached) = &fwd.reached {
        ctx.settle(reached)?;
    }
    stats.reach_seconds = ctx.guard.started.elapsed().as_secs_f64();
    stats.explicit_layers = fwd.explicit_layers;
    stats.states = fwd.states.clone();
    stats.forward_layers = fwd.depths;
    if layered_path(two, opts, &fwd) {
        stats.layered = true;
        drop(fwd.reached);
        *layers_out = solve_layered(opts, ctx, stats, progress, &spill, fwd.depths)?;
        if resume_dir.is_some() {
            spill.remove_files();
        }
        return Ok(());
    }
    let reached = fwd.reached.expect("kept when not layered");
    let layers = match fwd.layers {
        Some(l) => l,
        None => spill.load_all(g, fwd.depths)?,
    };
    if resume_dir.is_some() {
        spill.remove_files();
    }
    drop(spill);
    let e = g.engine();
    let classes = solve_whole(ctx, &reached, opts, stats)?;
    whole_stats(ctx, &reached, &layers, &classes, stats)?;
    set_initial(g, stats, &classes)?;
    if let Some(dir) = &opts.out_dir {
        write_layer(dir, &opts.fingerprint, None, &store(e, &classes))?;
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

/// Whether the layers are solved one by one: two roles, every move from a layer to the next,
/// no simultaneous move, the natural values.
fn layered_path<E: BddEngine>(two: bool, opts: &SolveOptions, fwd: &Forward<E>) -> bool {
    two && opts.layered == LayeredMode::Auto
        && fwd.layered
        && !fwd.simultaneous
        && opts.values == ValueRule::Auto
}

/// The solution manifest in `dir`, if it is of the game and encoding `fingerprint`.
fn found(dir: &std::path::Path, fingerprint: &str) -> Option<files::Manifest> {
    files::read_manifest(dir)
        .ok()
        .filter(|m| m.fingerprint == fingerprint)
}

/// The forward search kept in a resumable solve's directory, read back: the union of its
/// layers only where it is needed (who moves within the reachable states, or whole-set
/// solving).
fn forward_found<E: BddEngine>(
    ctx: &Context<'_, '_, E>,
    opts: &SolveOptions,
    spill: &Spill,
    m: ForwardManifest,
) -> Result<Forward<E>, SolveOrStop> {
    let g = ctx.g;
    let mut fwd = Forward {
        reached: None,
        layers: None,
        depths: m.depths,
        layered: m.layered,
        states: m.states,
        simultaneous: m.simultaneous,
        explicit_layers: m.explicit_layers,
    };
    let two = g.role_names().len() == 2;
    if ctx.deferred() || !layered_path(two, opts, &fwd) {
        let layers = spill.load_all(g, fwd.depths)?;
        fwd.reached = Some(crate::disjunction::or_all(g.engine(), layers)?);
    }
    Ok(fwd)
}

/// [`solve`] as a search for [`Setup::run`](crate::Setup::run): on an engine chosen at run
/// time, with what to solve and keep and the limits as its settings; `progress` is called
/// after each solved layer.
pub type SolveJob<'a, F> = LayerJob<'a, SolveOptions, F>;

impl<F: FnMut(&SolveStats)> GameJob<SolveStats, SolveError> for SolveJob<'_, F> {
    fn run<E: BddEngine>(self, g: &SymbolicGame<'_, E>) -> Result<SolveStats, SolveError> {
        let explicit = self.explicit.map(|r| r.fitted(g, &self.settings.limits));
        Ok(solve_with(g, self.settings, explicit, self.progress)?.stats)
    }
}
