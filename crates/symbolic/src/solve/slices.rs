//! Layer slices solved as separate jobs. A layer of the layered backward pass is split by the
//! values of a few state variables into 2^b slices (cofactors: the layer's states with those
//! variables fixed). The value classes of a slice need only the slice and the next layer's
//! solution, so each slice can be one process with its own BDD engine, on this machine or on
//! another that sees the solve's directory. The union of the slices' classes is the layer's
//! (the slices are disjoint, so the counts add up).
//!
//! [`Slicing`] in [`SolveOptions`] hands the large layers of a resumable layered solve to a
//! [`SliceRunner`] (a process pool, a batch scheduler) and merges the files its jobs wrote;
//! [`solve_slice`] ([`SliceJob`] for an engine chosen at run time) is the job. A job reads the
//! forward layer from the directory, and the next layer's solution and the outcomes so far from
//! the solution written there, and writes its classes (`slice-DDDD-I-of-N.layer`) and then its
//! record (`slice-DDDD-I-of-N.json`, [`SliceRecord`]), each atomically: a slice whose record
//! is there is finished, and a rerun of the whole solve runs only the slices that are not.

use std::path::Path;
use std::time::Instant;

use num_bigint::BigUint;
use serde::{Deserialize, Serialize};
use symgame_bdd::{BddEngine, Var};

use crate::backend::GameJob;
use crate::decimal;
use crate::error::SymbolicError;
use crate::game::SymbolicGame;
use crate::solve::context::Context;
use crate::solve::error::{SolveError, SolveOrStop};
use crate::solve::files::{
    check_manifest_sum, read_manifest, read_stored, write_checksummed, write_stored, FileError,
    StoredLayer, NO_CHECKSUM,
};
use crate::solve::merged::{write_merged, MergeRecord, SlicedLayer};
use crate::solve::options::{SolveOptions, CHOICE_NODES};
use crate::solve::slicing::{SliceFailure, SlicePass, SliceTask, Slicing, MAX_SLICE_BITS};
use crate::solve::spill::{ForwardManifest, Spill};
use crate::solve::stats::{MoverCounts, SlicedStats};
use crate::solve::step::solve_layer;
use crate::solve::value::{read_layer, store, Outcomes, ValueClass};

/// What a slice job found, kept beside its classes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SliceRecord {
    /// Always `"symgame-slice"`.
    pub format: String,
    /// CRC-32 of the file, as in solution manifests.
    pub checksum: String,
    /// Fingerprint of the ground game and encoding.
    pub fingerprint: String,
    /// The layer.
    pub depth: usize,
    /// The slice.
    pub index: u32,
    /// Slices of the layer.
    pub count: u32,
    /// The variables that cut the layer into slices, and their values in this slice.
    pub cube: Vec<(Var, bool)>,
    /// The outcomes (reward vectors) that the classes' outcome numbers index: those of the
    /// solution when the job began, then the ones the slice found.
    pub outcomes: Vec<Vec<u8>>,
    /// How many of `outcomes` were known when the job began (the same in every slice of a
    /// layer).
    pub known: usize,
    /// Won, drawn and lost states for the role to move (two roles).
    pub mover: Option<MoverCounts>,
    /// Terminal states of the slice (decimal string).
    #[serde(with = "decimal")]
    pub terminal: BigUint,
    /// Seconds the job spent reading the next layer's solution and its part of the layer.
    pub read_seconds: f64,
    /// Seconds the job spent solving its slice.
    pub solve_seconds: f64,
    /// Seconds the job spent writing the slice's classes.
    pub write_seconds: f64,
    /// The largest BDD of the job, in nodes.
    pub peak_nodes: usize,
}

impl SliceRecord {
    /// Reads the record of `task` in `dir` if it is there, whole, and of `fingerprint`.
    pub fn read(dir: &Path, task: &SliceTask, fingerprint: &str) -> Option<SliceRecord> {
        let path = task.record_path(dir);
        let text = std::fs::read_to_string(&path).ok()?;
        let r: SliceRecord = serde_json::from_str(&text).ok()?;
        check_manifest_sum(&path, &text, &r.checksum, "the slice is solved again").ok()?;
        let same = r.format == "symgame-slice"
            && r.fingerprint == fingerprint
            && (r.depth, r.index, r.count) == (task.depth, task.index, task.count);
        same.then_some(r)
    }
}

/// The job of one slice: [`solve_slice`] as a [`GameJob`].
pub struct SliceJob<'a> {
    /// The solve's settings: its directory ([`SolveOptions::out_dir`]), fingerprint and limits.
    pub settings: &'a SolveOptions,
    /// The slice.
    pub task: SliceTask,
}

impl GameJob<SliceRecord, SolveError> for SliceJob<'_> {
    fn run<E: BddEngine>(self, g: &SymbolicGame<'_, E>) -> Result<SliceRecord, SolveError> {
        solve_slice(g, self.settings, self.task)
    }
}

/// Solves slice `task` of a resumable layered solve in `opts.out_dir`: the forward layers
/// there and the solution of every deeper layer must be finished. Writes the slice's classes
/// and then its record; a limit is `SolveError::Symbolic(SymbolicError::Stopped)`.
pub fn solve_slice<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    opts: &SolveOptions,
    task: SliceTask,
) -> Result<SliceRecord, SolveError> {
    let stopped = |r| SolveError::Symbolic(SymbolicError::Stopped(r));
    match slice(g, opts, task) {
        Ok(r) => Ok(r),
        Err(SolveOrStop::Stop(r)) => Err(stopped(r)),
        Err(SolveOrStop::Error(e)) => Err(e),
    }
}

fn slice<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    opts: &SolveOptions,
    task: SliceTask,
) -> Result<SliceRecord, SolveOrStop> {
    let started = Instant::now();
    let e = g.engine();
    let dir = opts.out_dir.as_deref().ok_or_else(|| {
        FileError::format(Path::new("."), "a slice job needs the solve's directory")
    })?;
    let bad = |why: &str| SolveOrStop::Error(FileError::format(dir, why).into());
    let fwd = ForwardManifest::read_matching(dir, &opts.fingerprint)
        .filter(|m| m.complete)
        .ok_or_else(|| bad("no finished forward search of this game and encoding here"))?;
    if task.depth >= fwd.depths || task.index >= task.count || !task.count.is_power_of_two() {
        return Err(bad(&format!(
            "no slice {} of {} of layer {} (the forward search has {} layers)",
            task.index, task.count, task.depth, fwd.depths
        )));
    }
    let (mut outcomes, next) = if task.depth + 1 < fwd.depths {
        solved_layer(g, opts, dir, task.depth + 1, task.count)?
    } else {
        (Outcomes::default(), Vec::new())
    };
    let known = outcomes.list.len();
    let (nonterminal, terminal) = Spill::reader(dir).read(g, task.depth)?;
    let read_seconds = started.elapsed().as_secs_f64();
    let cube = slice_cube(g, &nonterminal, &terminal, task)?;
    let within = e.cube(&cube)?;
    let nonterminal = e.and(&nonterminal, &within)?;
    let terminal = e.and(&terminal, &within)?;
    let mut ctx = Context::new(g, &opts.limits, opts.choice_nodes.unwrap_or(CHOICE_NODES))?;
    if ctx.deferred() {
        ctx.settle(&e.or(&nonterminal, &terminal)?)?;
    }
    ctx.set_universe(&nonterminal)?;
    ctx.cut(&cube)?;
    ctx.check_simultaneous(&nonterminal)?;
    let (classes, mover) = solve_layer(&mut ctx, &mut outcomes, &next, &nonterminal, &terminal)?;
    for c in &classes {
        ctx.track(&c.states)?;
    }
    let solved = started.elapsed().as_secs_f64();
    let stored = StoredLayer {
        fingerprint: opts.fingerprint.clone(),
        depth: Some(task.depth as u32),
        classes: store(e, &classes),
    };
    write_stored(&task.layer_path(dir), &stored)?;
    let terminal = g.count(&terminal);
    let record = SliceRecord {
        format: "symgame-slice".to_string(),
        checksum: NO_CHECKSUM.to_string(),
        fingerprint: opts.fingerprint.clone(),
        depth: task.depth,
        index: task.index,
        count: task.count,
        cube,
        outcomes: outcomes.list,
        known,
        mover,
        terminal,
        read_seconds,
        solve_seconds: solved - read_seconds,
        write_seconds: started.elapsed().as_secs_f64() - solved,
        peak_nodes: ctx.peak,
    };
    write_checksummed(&task.record_path(dir), &record)?;
    Ok(record)
}

/// The outcomes and the value classes of layer `depth`, solved: its merged file if the
/// solution's manifest names it or a job before this one merged it ([`MergeRecord`]), else the
/// files of its `count` slices, merged here and written merged for the jobs after this one and
/// the solve.
fn solved_layer<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    opts: &SolveOptions,
    dir: &Path,
    depth: usize,
    count: u32,
) -> Result<(Outcomes, Vec<ValueClass<E>>), SolveOrStop> {
    let e = g.engine();
    let m = read_manifest(dir).ok();
    let merged = m.as_ref().filter(|m| {
        m.fingerprint == opts.fingerprint && m.stats.layers.iter().any(|l| l.depth == depth)
    });
    if let Some(m) = merged {
        let outcomes = Outcomes {
            list: m.stats.outcomes.clone(),
        };
        return Ok((outcomes, read_layer(e, dir, &opts.fingerprint, depth)?));
    }
    if let Some(r) = MergeRecord::read(dir, depth, count, &opts.fingerprint) {
        // A merged file that cannot be read back (damaged since) is merged again below.
        match read_layer(e, dir, &opts.fingerprint, depth) {
            Ok(classes) => return Ok((Outcomes { list: r.outcomes }, classes)),
            Err(SolveOrStop::Stop(r)) => return Err(SolveOrStop::Stop(r)),
            Err(SolveOrStop::Error(_)) => {}
        }
    }
    let first = SliceTask {
        pass: SlicePass::Backward,
        depth,
        index: 0,
        count,
    };
    let Some(r) = SliceRecord::read(dir, &first, &opts.fingerprint) else {
        let why = format!("layer {depth} is not solved yet");
        return Err(FileError::format(dir, &why).into());
    };
    let mut outcomes = Outcomes {
        list: r.outcomes[..r.known.min(r.outcomes.len())].to_vec(),
    };
    let started = Instant::now();
    let mut layer = read_sliced(e, dir, &opts.fingerprint, depth, count, &mut outcomes)?;
    if let Some(s) = layer.sliced.as_mut() {
        s.merge_seconds = started.elapsed().as_secs_f64();
    }
    write_merged(
        g,
        dir,
        &opts.fingerprint,
        depth,
        count,
        &outcomes.list,
        &layer,
    )?;
    Ok((outcomes, layer.classes))
}

/// How many of the layer's first state variables (in the order) are tried as cuts.
const CUT_CANDIDATES: usize = 6;

/// The cube of slice `task`: `log2(count)` state variables chosen to balance the slices' BDD
/// sizes (greedily, among the first variables of the layer's support, each trial a cofactor
/// of the layer), and the slice's values of them (bit `i` of the index for the `i`-th).
/// Every job of the layer computes the same choice from the same files.
pub(crate) fn slice_cube<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    nonterminal: &E::Bdd,
    terminal: &E::Bdd,
    task: SliceTask,
) -> Result<Vec<(Var, bool)>, SolveOrStop> {
    let e = g.engine();
    let bits = task.count.trailing_zeros();
    let current = g.encoding().current_vars();
    let mut support: Vec<Var> = e.support(nonterminal);
    support.extend(e.support(terminal));
    support.sort_unstable();
    support.dedup();
    // Variables outside the layer's support cut it into an empty slice and a whole one.
    let mut candidates: Vec<Var> = support
        .into_iter()
        .filter(|v| current.contains(*v))
        .collect();
    candidates.extend(
        current
            .iter()
            .filter(|v| !candidates.contains(v))
            .collect::<Vec<_>>(),
    );
    let mut chosen: Vec<Var> = Vec::new();
    for _ in 0..bits {
        let mut best: Option<(usize, Var)> = None;
        for &v in candidates
            .iter()
            .filter(|v| !chosen.contains(v))
            .take(CUT_CANDIDATES)
        {
            let mut vars = chosen.clone();
            vars.push(v);
            let mut largest = 0;
            for values in 0..1u32 << vars.len() {
                let assignment: Vec<(Var, bool)> = vars
                    .iter()
                    .enumerate()
                    .map(|(i, &x)| (x, values >> i & 1 == 1))
                    .collect();
                let part = e.restrict(nonterminal, &assignment)?;
                largest = largest.max(e.node_count(&part));
            }
            if best.is_none_or(|(n, _)| largest < n) {
                best = Some((largest, v));
            }
        }
        match best {
            Some((_, v)) => chosen.push(v),
            None => break,
        }
    }
    Ok(chosen
        .iter()
        .enumerate()
        .map(|(i, &v)| (v, task.index >> i & 1 == 1))
        .collect())
}

/// Runs the jobs of layer `depth`'s slices that are not finished (no engine: the solve
/// merges the layer before while they run).
pub(crate) fn run_slices(
    opts: &SolveOptions,
    slicing: &Slicing,
    depth: usize,
) -> Result<(), SliceFailure> {
    let Some(dir) = opts.out_dir.as_deref() else {
        return Err(SliceFailure::Failed(
            "a sliced solve needs a directory".into(),
        ));
    };
    let count = slice_count(slicing);
    let missing: Vec<u32> = (0..count)
        .filter(|&index| {
            let t = SliceTask {
                pass: SlicePass::Backward,
                depth,
                index,
                count,
            };
            SliceRecord::read(dir, &t, &opts.fingerprint).is_none()
        })
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    slicing.runner.run(depth, count, &missing)
}

/// Slices per layer.
pub(crate) fn slice_count(slicing: &Slicing) -> u32 {
    1 << slicing.bits.min(MAX_SLICE_BITS)
}

/// Layer `depth` as the files of its `count` slices hold it: the classes (merged, sorted by
/// outcome), the won/drawn/lost counts and the terminal states. `outcomes` must be the
/// outcomes the slices' jobs began with; the new ones join it in the order an unsliced solve
/// finds them (descending, role by role), so that the solution is the same.
pub(crate) fn read_sliced<E: BddEngine>(
    e: &E,
    dir: &Path,
    fingerprint: &str,
    depth: usize,
    count: u32,
    outcomes: &mut Outcomes,
) -> Result<SlicedLayer<E>, SolveOrStop> {
    let mut records = Vec::with_capacity(count as usize);
    for index in 0..count {
        let t = SliceTask {
            pass: SlicePass::Backward,
            depth,
            index,
            count,
        };
        let r = SliceRecord::read(dir, &t, fingerprint).ok_or_else(|| {
            let why = "the job of this slice finished without writing its record";
            SolveOrStop::Error(FileError::format(&t.record_path(dir), why).into())
        })?;
        if r.outcomes.get(..r.known) != Some(&outcomes.list[..]) {
            let why = "the slice began from other outcomes than the solve";
            return Err(FileError::format(&t.record_path(dir), why).into());
        }
        records.push((t, r));
    }
    let mut new: Vec<&Vec<u8>> = records
        .iter()
        .flat_map(|(_, r)| &r.outcomes[r.known..])
        .collect();
    new.sort_unstable_by(|a, b| b.cmp(a));
    new.dedup();
    for o in new {
        outcomes.index(o);
    }
    let mut classes: Vec<ValueClass<E>> = Vec::new();
    let mut mover: Option<MoverCounts> = None;
    let mut terminal = BigUint::default();
    let mut sliced = SlicedStats {
        slices: count,
        ..SlicedStats::default()
    };
    for (t, r) in &records {
        sliced.read_seconds.push(r.read_seconds);
        sliced.solve_seconds.push(r.solve_seconds);
        sliced.write_seconds.push(r.write_seconds);
        sliced.peak_nodes.push(r.peak_nodes);
        let path = t.layer_path(dir);
        let stored = read_stored(&path)?;
        if stored.fingerprint != fingerprint || stored.depth != Some(depth as u32) {
            let why = "not the slice its record names; remove the directory to solve again";
            return Err(FileError::format(&path, why).into());
        }
        for c in &stored.classes {
            let o = r
                .outcomes
                .get(c.outcome as usize)
                .map(|o| outcomes.index(o))
                .ok_or_else(|| FileError::format(&path, "a class of an unknown outcome"))?;
            let states = e.import(&c.nodes)?;
            match classes.iter_mut().find(|x| x.outcome == o) {
                Some(x) => x.states = e.or(&x.states, &states)?,
                None => classes.push(ValueClass {
                    outcome: o,
                    distance: None,
                    states,
                }),
            }
        }
        if let Some(m) = &r.mover {
            let sum = mover.get_or_insert_with(MoverCounts::default);
            sum.won += &m.won;
            sum.drawn += &m.drawn;
            sum.lost += &m.lost;
        }
        terminal += &r.terminal;
    }
    classes.sort_by_key(|c| c.outcome);
    Ok(SlicedLayer {
        classes,
        mover,
        terminal,
        sliced: Some(sliced),
    })
}

/// Removes the files of layer `depth`'s slices of `pass` (once the merged layer is written).
pub(crate) fn remove_slices(dir: &Path, pass: SlicePass, depth: usize) {
    let prefix = pass.prefix(depth);
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        if entry.file_name().to_string_lossy().starts_with(&prefix) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}
