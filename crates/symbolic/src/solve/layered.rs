//! Layered solving, for games where every move goes from BFS layer `k` to layer `k + 1`: the
//! layers are read back from the spill files from the last to the first, and each layer's
//! classes come from the next layer's by the [`preference`] of the role to move, one pre-image
//! per class of the next layer, with two layers in memory.

use num_bigint::BigUint;
use symgame_bdd::BddEngine;

use crate::solve::context::Context;
use crate::solve::error::{SolveError, SolveOrStop};
use crate::solve::files::{
    check_stored, layer_file_name, read_manifest, write_layer, write_manifest, FileError, MANIFEST,
};
use crate::solve::merged::SlicedLayer;
use crate::solve::merged::{self, MergeRecord};
use crate::solve::options::SolveOptions;
use crate::solve::slices::{read_sliced, remove_slices, run_slices, slice_count};
use crate::solve::slicing::{SliceFailure, SlicePass, Slicing};
use crate::solve::spill::Spill;
use crate::solve::stats::{GameKind, SolveLayerStats, SolveStats};
use crate::solve::step::solve_layer;
use crate::solve::value::{
    is_constant_sum, read_layer, set_initial, store, Outcomes, SolvedLayer, ValueClass,
};

/// Layered solving: from the last layer to the first, each layer's classes from the next
/// layer's by the preference rule; two layers in memory. Returns the classes of every layer
/// (first to last) if [`SolveOptions::keep_classes`].
pub(crate) fn solve_layered<E: BddEngine>(
    opts: &SolveOptions,
    ctx: &mut Context<'_, '_, E>,
    stats: &mut SolveStats,
    progress: &mut impl FnMut(&SolveStats),
    spill: &Spill,
    depths: usize,
) -> Result<Vec<SolvedLayer<E>>, SolveOrStop> {
    let g = ctx.g;
    let mut outcomes = Outcomes::default();
    let mut next: Vec<ValueClass<E>> = Vec::new();
    let mut kept = Vec::new();
    // A resumable solve goes on below the layers it solved before.
    let mut start = depths;
    // The classes of the shallowest solved layer are read back only if this process solves the
    // layer above it: the jobs of a sliced layer read them from the files themselves, and
    // holding them here beside a merge doubled the memory of a 6x6 sitting.
    let solves_here = |d: usize| d == 0 || sliced(opts, spill, d - 1).is_none();
    if let Some((rows, list, classes)) = resume_point(opts, ctx, depths, solves_here)? {
        start = rows.last().map_or(depths, |l| l.depth);
        stats.resumed.layers = rows.len();
        stats.resumed.earlier_seconds = rows.last().map_or(0.0, |l| l.seconds);
        stats.layers = rows;
        // Also in the statistics now: a sitting that stops before it solves a layer rewrites
        // the manifest from them, and must not lose the outcomes the kept layers index.
        stats.outcomes = list.clone();
        outcomes.list = list;
        next = classes;
        if start == 0 {
            set_initial(g, stats, &next)?;
        }
    }
    let mut done = Done {
        opts,
        stats,
        progress,
        kept: &mut kept,
    };
    // A layer solved in slices whose files are not merged yet: the jobs of the layer before it
    // read it whole, and the first of them writes it merged ([`merged`](crate::solve::merged));
    // its row is recorded after them. (Merged here beside the jobs, it needed the memory of
    // the layer twice: the jobs' and this process's.)
    let mut unmerged: Option<usize> = None;
    for depth in (0..start).rev() {
        ctx.guard.check()?;
        if let Some(slicing) = sliced(opts, spill, depth) {
            let ran = run_slices(opts, slicing, depth);
            // A stop of the solve itself (Ctrl-C, its deadline) is why its jobs stopped too.
            ctx.guard.check()?;
            match ran {
                Ok(()) => {}
                Err(SliceFailure::Stopped(r)) => return Err(SolveOrStop::Stop(r)),
                Err(SliceFailure::Failed(message)) => {
                    return Err(SolveOrStop::Error(SolveError::Slice { depth, message }))
                }
            }
            if let Some(d) = unmerged.take() {
                merge(ctx, &mut done, &mut outcomes, slicing, d, false)?;
                // Merged (and its manifest row written): its slices are read no more.
                if let Some(dir) = &opts.out_dir {
                    remove_slices(dir, SlicePass::Backward, d);
                }
            }
            unmerged = Some(depth);
            continue;
        }
        if let Some(d) = unmerged.take() {
            let slicing = opts.slicing.as_ref().expect("sliced before");
            next = merge(ctx, &mut done, &mut outcomes, slicing, d, true)?;
            if let Some(dir) = &opts.out_dir {
                remove_slices(dir, SlicePass::Backward, d);
            }
        }
        let (nonterminal, terminal) = spill.read(g, depth)?;
        ctx.set_universe(&nonterminal)?;
        ctx.check_simultaneous(&nonterminal)?;
        // The layer's pre-images ask the limits from inside their operations (a stop leaves the
        // layers solved before it, which are kept); what follows is not stopped.
        let armed = symgame_bdd::arm_stop(ctx.e(), ctx.guard.stop_check());
        let solved = solve_layer(ctx, &mut outcomes, &next, &nonterminal, &terminal);
        drop(armed);
        let (mut classes, mover) = solved?;
        // In outcome order, as merged slices are: the files do not depend on slicing.
        classes.sort_by_key(|c| c.outcome);
        let layer = SlicedLayer {
            classes,
            mover,
            terminal: g.count(&terminal),
            sliced: None,
        };
        next = done.finish(ctx, &outcomes, depth, layer)?;
        // The jobs of the layer before, if it is sliced, read these classes from the files.
        if depth
            .checked_sub(1)
            .is_some_and(|d| sliced(opts, spill, d).is_some())
        {
            next.clear();
        }
    }
    if let Some(d) = unmerged {
        let slicing = opts.slicing.as_ref().expect("sliced before");
        merge(ctx, &mut done, &mut outcomes, slicing, d, false)?;
        if let Some(dir) = &opts.out_dir {
            remove_slices(dir, SlicePass::Backward, d);
        }
    }
    stats.kind = if is_constant_sum(&outcomes.list) {
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
    Ok(kept)
}

/// What becomes of a solved layer: its row in the statistics, its file and the manifest, the
/// progress report, and its classes if they are kept.
struct Done<'a, E: BddEngine, P> {
    opts: &'a SolveOptions,
    stats: &'a mut SolveStats,
    progress: &'a mut P,
    kept: &'a mut Vec<SolvedLayer<E>>,
}

impl<E: BddEngine, P: FnMut(&SolveStats)> Done<'_, E, P> {
    /// Records layer `depth`, solved as `layer`, and returns its classes (for the layer
    /// before it).
    fn finish(
        &mut self,
        ctx: &mut Context<'_, '_, E>,
        outcomes: &Outcomes,
        depth: usize,
        layer: SlicedLayer<E>,
    ) -> Result<Vec<ValueClass<E>>, SolveOrStop> {
        let (g, opts) = (ctx.g, self.opts);
        let e = g.engine();
        let classes = layer.classes;
        // States and nodes of each class in one pass.
        let mut per = vec![BigUint::default(); outcomes.list.len()];
        let mut nodes = 0;
        for c in &classes {
            let (count, n) = g.count_and_nodes(&c.states);
            ctx.track_nodes(n)?;
            per[c.outcome] += count;
            nodes += n;
        }
        // The classes partition the layer: their counts add up to the layer's.
        let row = SolveLayerStats {
            depth,
            states: per.iter().sum(),
            terminal: layer.terminal,
            per_outcome: per,
            mover: layer.mover,
            nodes,
            seconds: 0.0,
            sliced: layer.sliced,
        };
        if let Some(dir) = &opts.out_dir {
            // The layer's file first, then the manifest that names it solved.
            write_layer(dir, &opts.fingerprint, Some(depth), &store(e, &classes))?;
        }
        self.record(ctx, outcomes, row, classes)
    }

    /// Records layer `depth` from the record of the job that merged it (its file written by
    /// that job), and returns its classes read back if `want` (else none).
    fn finish_merged(
        &mut self,
        ctx: &mut Context<'_, '_, E>,
        outcomes: &mut Outcomes,
        record: MergeRecord,
        want: bool,
    ) -> Result<Vec<ValueClass<E>>, SolveOrStop> {
        let opts = self.opts;
        let dir = opts
            .out_dir
            .as_deref()
            .expect("sliced solves write a directory");
        let depth = record.row.depth;
        if !record.outcomes.starts_with(&outcomes.list) {
            let why = "the layer was merged from other outcomes than the solve's";
            return Err(FileError::format(&merged::record_path(dir, depth), why).into());
        }
        outcomes.list = record.outcomes;
        let classes = if want || depth == 0 || opts.keep_classes {
            read_layer(ctx.e(), dir, &opts.fingerprint, depth)?
        } else {
            Vec::new()
        };
        self.record(ctx, outcomes, record.row, classes)
    }

    /// Adds `row` (its time set now) to the statistics and the manifest, and keeps `classes`
    /// if asked to (the layer's file is written).
    fn record(
        &mut self,
        ctx: &mut Context<'_, '_, E>,
        outcomes: &Outcomes,
        row: SolveLayerStats,
        classes: Vec<ValueClass<E>>,
    ) -> Result<Vec<ValueClass<E>>, SolveOrStop> {
        let (g, opts) = (ctx.g, self.opts);
        let depth = row.depth;
        let stats = &mut *self.stats;
        stats.outcomes = outcomes.list.clone();
        stats.layers.push(SolveLayerStats {
            seconds: stats.resumed.earlier_seconds + ctx.guard.started.elapsed().as_secs_f64(),
            ..row
        });
        if depth == 0 {
            set_initial(g, stats, &classes)?;
        }
        if let (Some(dir), true) = (&opts.out_dir, opts.resume) {
            write_manifest(dir, &opts.fingerprint, g.encoding(), stats, false)?;
        }
        (self.progress)(stats);
        if opts.keep_classes {
            self.kept.push(SolvedLayer {
                depth: Some(depth),
                classes: classes.clone(),
            });
        }
        Ok(classes)
    }
}

/// Records layer `depth`, solved in slices: from the record of the job that merged it if there
/// is one ([`Done::finish_merged`], its classes read back if `want`), else merged here from the
/// slices' files ([`Done::finish`]).
fn merge<E: BddEngine, P: FnMut(&SolveStats)>(
    ctx: &mut Context<'_, '_, E>,
    done: &mut Done<'_, E, P>,
    outcomes: &mut Outcomes,
    slicing: &Slicing,
    depth: usize,
    want: bool,
) -> Result<Vec<ValueClass<E>>, SolveOrStop> {
    let opts = done.opts;
    let dir = opts
        .out_dir
        .as_deref()
        .expect("sliced solves write a directory");
    let count = slice_count(slicing);
    // The merged file as its job wrote it (else merged again here, rewriting it).
    let merged_file = dir.join(layer_file_name(Some(depth as u32)));
    if let Some(record) = MergeRecord::read(dir, depth, count, &opts.fingerprint)
        .filter(|_| check_stored(&merged_file).is_ok())
    {
        return done.finish_merged(ctx, outcomes, record, want);
    }
    let started = std::time::Instant::now();
    let mut layer = read_sliced(ctx.e(), dir, &opts.fingerprint, depth, count, outcomes)?;
    if let Some(s) = layer.sliced.as_mut() {
        s.merge_seconds = started.elapsed().as_secs_f64();
    }
    done.finish(ctx, outcomes, depth, layer)
}

/// How layer `depth` is split into slices solved by separate jobs, if it is: a resumable solve
/// with [`SolveOptions::slicing`], and a layer whose forward file is large enough.
fn sliced<'a>(opts: &'a SolveOptions, spill: &Spill, depth: usize) -> Option<&'a Slicing> {
    let s = opts.slicing.as_ref().filter(|s| s.bits > 0)?;
    let files = opts.resume && opts.out_dir.is_some();
    (files && spill.bytes(depth) >= s.min_bytes).then_some(s)
}

/// Where a resumable layered solve goes on ([`SolveOptions::resume`]): the rows of the layers
/// its directory's manifest lists as solved (the deepest first, down from the last layer
/// without a gap), the outcomes, and the classes of the shallowest of them read back if
/// `read_classes` of its depth (else none). `None`
/// when there is nothing to go on from.
#[allow(clippy::type_complexity)]
fn resume_point<E: BddEngine>(
    opts: &SolveOptions,
    ctx: &Context<'_, '_, E>,
    depths: usize,
    read_classes: impl Fn(usize) -> bool,
) -> Result<Option<(Vec<SolveLayerStats>, Vec<Vec<u8>>, Vec<ValueClass<E>>)>, SolveOrStop> {
    let Some(dir) = opts.out_dir.as_deref().filter(|_| opts.resume) else {
        return Ok(None);
    };
    let Ok(m) = read_manifest(dir) else {
        return Ok(None);
    };
    let rows = m.stats.layers;
    let from_the_last = rows
        .iter()
        .enumerate()
        .all(|(i, l)| l.depth + i + 1 == depths);
    let usable = m.fingerprint == opts.fingerprint && m.stats.layered && !m.complete;
    let Some(shallowest) = rows.last().filter(|_| usable && from_the_last) else {
        return Ok(None);
    };
    let classes = if read_classes(shallowest.depth) {
        read_layer(ctx.g.engine(), dir, &opts.fingerprint, shallowest.depth)?
    } else {
        Vec::new()
    };
    let known = m.stats.outcomes.len();
    let named = rows.iter().map(|l| l.per_outcome.len());
    let indexed = classes.iter().map(|c| c.outcome + 1);
    if let Some(n) = named.chain(indexed).max().filter(|&n| n > known) {
        let why = format!(
            "the solved layers name {n} outcomes but the manifest lists {known}; remove the \
             directory to solve again"
        );
        return Err(FileError::format(&dir.join(MANIFEST), &why).into());
    }
    Ok(Some((rows, m.stats.outcomes, classes)))
}
