//! Forward layers expanded in slices by separate jobs (`reach --jobs N`). A layer kept in a
//! reachability directory ([`ReachStore`](crate::ReachStore)) is cut into 2^b slices by the
//! values of a few state variables (the cube that `solve`'s slices use, chosen on the layer's
//! non-terminal states). The successors of a slice need only the slice, so each slice can be one
//! process with its own BDD engine ([`reach_slice`], [`ReachSliceJob`]): it reads the layer's
//! non-terminal states (`reach-expand-DDDD.layer`, written by the search before it starts the
//! jobs), cuts them and the transition partitions by its cube, and writes its successors and
//! their non-terminal part (`reach-slice-DDDD-I-of-N.layer`), then its record
//! (`reach-slice-DDDD-I-of-N.json`, [`ReachSliceRecord`]), each atomically: a slice with a
//! record is finished. The images of the slices overlap, so the search takes their union
//! ([`ReachSlicer`]) and then subtracts the states it reached before, as in one process: the
//! new layer is the same set, so its file and counts are the same.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::{Deserialize, Serialize};
use symgame_bdd::{BddEngine, Var};
use symgame_limits::{Guard, Limits, StopReason};

use crate::backend::GameJob;
use crate::checkpoint::ReachStore;
use crate::disjunction::or_all;
use crate::error::SymbolicError;
use crate::game::SymbolicGame;
use crate::interrupt::Interrupt;
use crate::solve::error::{SolveError, SolveOrStop};
use crate::solve::files::{
    check_manifest_sum, read_stored, write_checksummed, write_stored, FileError, StoredClass,
    StoredLayer, NO_CHECKSUM,
};
use crate::solve::slices::{remove_slices, slice_count, slice_cube};
use crate::solve::slicing::{SliceFailure, SlicePass, SliceSplit, SliceTask, Slicing};
use crate::solve::stats::SlicedStats;

const RECORD_FORMAT: &str = "symgame-reach-slice";

/// What the job of a slice of a forward layer found, kept beside its successors.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReachSliceRecord {
    /// Always `"symgame-reach-slice"`.
    pub format: String,
    /// CRC-32 of the file, as in solution manifests.
    pub checksum: String,
    /// Fingerprint of the ground game and encoding (the reachability manifest's).
    pub fingerprint: String,
    /// The layer.
    pub depth: usize,
    /// The slice.
    pub index: u32,
    /// Slices of the layer.
    pub count: u32,
    /// How the layer was split: by states (`cube`) or by clusters (`clusters`). A record of
    /// the other split than the search's is not this slice's: the slice is run again.
    #[serde(default)]
    pub split: SliceSplit,
    /// The variables that cut the layer into slices, and their values in this slice (by
    /// states; empty by clusters).
    pub cube: Vec<(Var, bool)>,
    /// The transition clusters the job took the images under (by clusters: those whose index
    /// is `index` modulo `count`; empty by states).
    #[serde(default)]
    pub clusters: Vec<usize>,
    /// The game's transition clusters, as the job compiled it.
    #[serde(default)]
    pub partitions: usize,
    /// The encoding's groups were assumed and a state of the slice breaks one: its successors
    /// cannot be trusted (none are written) and the search stops before this layer's image.
    pub broken: bool,
    /// Seconds the job spent reading the layer.
    pub read_seconds: f64,
    /// Seconds the job spent on the slice's images.
    pub image_seconds: f64,
    /// Seconds the job spent writing its successors.
    pub write_seconds: f64,
    /// The largest BDD of the job, in nodes.
    pub peak_nodes: usize,
}

impl ReachSliceRecord {
    /// Reads the record of `task` in `dir` if it is there, whole, of `fingerprint`, and made
    /// by `split` (by clusters: over the same `partitions`).
    pub fn read(
        dir: &Path,
        task: &SliceTask,
        fingerprint: &str,
        split: SliceSplit,
        partitions: usize,
    ) -> Option<ReachSliceRecord> {
        let path = task.record_path(dir);
        let text = std::fs::read_to_string(&path).ok()?;
        let r: ReachSliceRecord = serde_json::from_str(&text).ok()?;
        check_manifest_sum(&path, &text, &r.checksum, "the slice is expanded again").ok()?;
        let same = r.format == RECORD_FORMAT
            && r.fingerprint == fingerprint
            && (r.depth, r.index, r.count) == (task.depth, task.index, task.count)
            && r.split == split
            && (split == SliceSplit::States || r.partitions == partitions);
        same.then_some(r)
    }
}

/// The file of layer `depth`'s non-terminal states, which the slices' jobs read.
pub fn expand_path(dir: &Path, depth: usize) -> PathBuf {
    dir.join(format!("reach-expand-{depth:04}.layer"))
}

/// The job of one slice of a forward layer: [`reach_slice`] as a [`GameJob`].
pub struct ReachSliceJob<'a> {
    /// The reachability directory.
    pub dir: &'a Path,
    /// The fingerprint of its manifest.
    pub fingerprint: &'a str,
    /// The job's limits.
    pub limits: &'a Limits,
    /// The slice.
    pub task: SliceTask,
    /// The split asked for (`None`: [`SliceSplit::choose`], as the search chooses).
    pub split: Option<SliceSplit>,
}

impl GameJob<ReachSliceRecord, SolveError> for ReachSliceJob<'_> {
    fn run<E: BddEngine>(self, g: &SymbolicGame<'_, E>) -> Result<ReachSliceRecord, SolveError> {
        reach_slice(
            g,
            self.dir,
            self.fingerprint,
            self.limits,
            self.task,
            self.split,
        )
    }
}

/// Expands slice `task` of a forward layer kept in `dir` (whose non-terminal states the search
/// wrote there): writes the slice's successors and their non-terminal part, then its record.
/// A limit, or the engine out of nodes, is `SolveError::Symbolic(SymbolicError::Stopped)`.
pub fn reach_slice<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    dir: &Path,
    fingerprint: &str,
    limits: &Limits,
    task: SliceTask,
    split: Option<SliceSplit>,
) -> Result<ReachSliceRecord, SolveError> {
    let split = SliceSplit::choose(split);
    match expand_slice(g, dir, fingerprint, limits, task, split) {
        Ok(r) => Ok(r),
        Err(SolveOrStop::Stop(r)) => Err(SolveError::Symbolic(SymbolicError::Stopped(r))),
        Err(SolveOrStop::Error(e)) => Err(e),
    }
}

/// Reads layer `depth`'s one set from `path`, checked against the fingerprint and the depth.
fn read_set<E: BddEngine>(
    e: &E,
    path: &Path,
    fingerprint: &str,
    depth: usize,
) -> Result<Vec<E::Bdd>, SolveOrStop> {
    let stored = read_stored(path)?;
    if stored.fingerprint != fingerprint || stored.depth != Some(depth as u32) {
        let why = format!("not of layer {depth} of the search in this directory");
        return Err(FileError::format(path, &why).into());
    }
    let mut sets = Vec::with_capacity(stored.classes.len());
    for c in &stored.classes {
        sets.push(e.import(&c.nodes)?);
    }
    Ok(sets)
}

/// What a job found: the union of its images and of their non-terminal parts, whether a
/// state breaks an assumed group, its largest BDD, and how it cut the layer.
struct Found<E: BddEngine> {
    union: E::Bdd,
    nonterminal: E::Bdd,
    broken: bool,
    peak: usize,
    cube: Vec<(Var, bool)>,
    clusters: Vec<usize>,
}

fn expand_slice<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    dir: &Path,
    fingerprint: &str,
    limits: &Limits,
    task: SliceTask,
    split: SliceSplit,
) -> Result<ReachSliceRecord, SolveOrStop> {
    let started = Instant::now();
    let guard = Guard::new(limits);
    let e = g.engine();
    if g.is_layerwise() {
        let why = "the game was compiled within each layer here, which has no partitions to cut";
        return Err(FileError::format(dir, why).into());
    }
    if task.index >= task.count || !task.count.is_power_of_two() {
        let why = format!("no slice {} of {}", task.index, task.count);
        return Err(FileError::format(dir, &why).into());
    }
    let path = expand_path(dir, task.depth);
    let expand = match read_set(e, &path, fingerprint, task.depth)?.as_slice() {
        [x] => x.clone(),
        _ => return Err(FileError::format(&path, "not a layer file of one set").into()),
    };
    let read_seconds = started.elapsed().as_secs_f64();
    let found = match split {
        SliceSplit::States => by_states(g, &expand, task, &guard)?,
        SliceSplit::Clusters => by_clusters(g, &expand, task, &guard)?,
    };
    guard.check()?;
    let imaged = started.elapsed().as_secs_f64();
    let classes = match found.broken {
        true => Vec::new(),
        false => [found.union, found.nonterminal]
            .iter()
            .enumerate()
            .map(|(i, s)| StoredClass {
                outcome: i as u32,
                distance: None,
                nodes: e.export(s),
            })
            .collect(),
    };
    let stored = StoredLayer {
        fingerprint: fingerprint.to_string(),
        depth: Some(task.depth as u32),
        classes,
    };
    write_stored(&task.layer_path(dir), &stored)?;
    let record = ReachSliceRecord {
        format: RECORD_FORMAT.to_string(),
        checksum: NO_CHECKSUM.to_string(),
        fingerprint: fingerprint.to_string(),
        depth: task.depth,
        index: task.index,
        count: task.count,
        split,
        cube: found.cube,
        clusters: found.clusters,
        partitions: g.clusters().len(),
        broken: found.broken,
        read_seconds,
        image_seconds: imaged - read_seconds,
        write_seconds: started.elapsed().as_secs_f64() - imaged,
        peak_nodes: found.peak,
    };
    write_checksummed(&task.record_path(dir), &record)?;
    Ok(record)
}

/// The images of the states of the slice's cube (in `expand`) under every cluster, each
/// cluster cofactored by the cube.
fn by_states<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    expand: &E::Bdd,
    task: SliceTask,
    guard: &Guard,
) -> Result<Found<E>, SolveOrStop> {
    let e = g.engine();
    let cube = slice_cube(g, expand, &e.constant(false), task)?;
    let x = e.and(expand, &e.cube(&cube)?)?;
    let all: Vec<usize> = (0..g.clusters().len()).collect();
    let mut found = images_under(g, &x, &all, Some(&cube), guard)?;
    found.cube = cube;
    found.clusters = Vec::new();
    Ok(found)
}

/// The images of all of `expand` under the clusters whose index is the slice's modulo the
/// slice count.
fn by_clusters<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    expand: &E::Bdd,
    task: SliceTask,
    guard: &Guard,
) -> Result<Found<E>, SolveOrStop> {
    let mine: Vec<usize> = (0..g.clusters().len())
        .filter(|c| c % task.count as usize == task.index as usize)
        .collect();
    images_under(g, expand, &mine, None, guard)
}

/// The images of `x` under the clusters `clusters` (cofactored by `cube` if given), each cut by
/// its own terminal parts, as one process takes them; stops at the first cluster that finds
/// a state of `x` breaking an assumed group.
fn images_under<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    x: &E::Bdd,
    clusters: &[usize],
    cube: Option<&[(Var, bool)]>,
    guard: &Guard,
) -> Result<Found<E>, SolveOrStop> {
    let e = g.engine();
    let mut peak = e.node_count(x);
    let mut broken = false;
    let (mut images, mut cuts) = (Vec::new(), Vec::new());
    for &c in clusters {
        let p = &g.clusters()[c];
        guard.check()?;
        if let Some(at) = p.breaking_states(e, x)? {
            g.mark_broken_at(&at);
            broken = true;
            break;
        }
        // By states the part no longer reads the cut variables: no operation sees the other
        // slices.
        let img = match cube {
            Some(cube) => p.cofactor(e, cube)?.image(e, x)?,
            None => p.image(e, x)?,
        };
        if e.is_false(&img) {
            continue;
        }
        // A successor under this part is terminal only by a terminal part it can make true.
        let cut = p.cut_terminal(e, &img)?;
        peak = peak.max(e.node_count(&img)).max(e.node_count(&cut));
        images.push(img);
        cuts.push(cut);
    }
    let union = or_all(e, images)?;
    let nonterminal = or_all(e, cuts)?;
    peak = peak.max(e.node_count(&union));
    Ok(Found {
        union,
        nonterminal,
        broken,
        peak,
        cube: Vec::new(),
        clusters: clusters.to_vec(),
    })
}

/// The search's side of sliced layers: which layers are sliced, their jobs, the union of
/// their files. Interior mutability: the search calls it from inside a layer's step.
pub(crate) struct ReachSlicer<'a> {
    slicing: &'a Slicing,
    dir: PathBuf,
    fingerprint: String,
    /// How the layers are split among the jobs (the jobs choose the same).
    split: SliceSplit,
    /// The game's transition clusters (a job's record by clusters must have as many).
    partitions: usize,
    /// How the last sliced layer went, taken by the search for its row.
    sliced: RefCell<Option<SlicedStats>>,
    /// Why the jobs of a layer failed, if they did (the search then fails).
    failure: RefCell<Option<String>>,
}

/// The successors of a layer, and their non-terminal part (before the difference with the
/// states reached before); `None` when a state of the layer breaks an assumed group.
pub(crate) type Images<E> = Option<(<E as BddEngine>::Bdd, <E as BddEngine>::Bdd)>;

impl<'a> ReachSlicer<'a> {
    /// The slicer of a search kept in `dir`, of `fingerprint`, of a game of `partitions`
    /// transition clusters.
    pub(crate) fn new(
        slicing: &'a Slicing,
        dir: &Path,
        fingerprint: &str,
        partitions: usize,
    ) -> Self {
        let split = SliceSplit::choose(slicing.split);
        ReachSlicer {
            slicing,
            dir: dir.to_path_buf(),
            fingerprint: fingerprint.to_string(),
            split,
            partitions,
            sliced: RefCell::new(None),
            failure: RefCell::new(None),
        }
    }

    /// The slicer of a search of `g` kept in `store` with `slicing`. A game compiled within
    /// each layer has no partitions to cut: its layers are never sliced.
    pub(crate) fn for_search<E: BddEngine>(
        g: &SymbolicGame<'_, E>,
        slicing: Option<&'a Slicing>,
        store: Option<&ReachStore>,
    ) -> Option<Self> {
        match (slicing, store, g.layerwise()) {
            (Some(s), Some(st), None) => st
                .fingerprint()
                .map(|f| ReachSlicer::new(s, st.dir(), f, g.clusters().len())),
            _ => None,
        }
    }

    /// Whether layer `depth` is expanded in slices: its file has at least
    /// [`Slicing::min_bytes`].
    pub(crate) fn sliced(&self, depth: usize) -> bool {
        let file = self.dir.join(format!("reach-{depth:04}.layer"));
        let bytes = std::fs::metadata(file).map_or(0, |m| m.len());
        self.slicing.bits > 0 && bytes >= self.slicing.min_bytes
    }

    fn task(&self, depth: usize, index: u32) -> SliceTask {
        SliceTask {
            pass: SlicePass::Forward,
            depth,
            index,
            count: slice_count(self.slicing),
        }
    }

    /// The successors of layer `depth`, whose non-terminal states are `expand`, from its
    /// slices' jobs: the layer's non-terminal states written for them, the jobs not finished
    /// run, their files united.
    pub(crate) fn images<E: BddEngine>(
        &self,
        e: &E,
        depth: usize,
        expand: &E::Bdd,
    ) -> Result<Images<E>, Interrupt> {
        let count = slice_count(self.slicing);
        let missing: Vec<u32> = (0..count)
            .filter(|&i| self.record(&self.task(depth, i)).is_none())
            .collect();
        if !missing.is_empty() {
            let stored = StoredLayer {
                fingerprint: self.fingerprint.clone(),
                depth: Some(depth as u32),
                classes: vec![StoredClass {
                    outcome: 0,
                    distance: None,
                    nodes: e.export(expand),
                }],
            };
            if let Err(err) = write_stored(&expand_path(&self.dir, depth), &stored) {
                return Err(self.fail(err.to_string()));
            }
            match self.slicing.runner.run(depth, count, &missing) {
                Ok(()) => {}
                Err(SliceFailure::Stopped(r)) => return Err(Interrupt::Stop(r)),
                Err(SliceFailure::Failed(message)) => {
                    let why = format!("the job of a slice of layer {depth} failed: {message}");
                    return Err(self.fail(why));
                }
            }
        }
        let started = Instant::now();
        match self.merge(e, depth, count) {
            Ok(Some((images, mut stats))) => {
                stats.merge_seconds = started.elapsed().as_secs_f64();
                *self.sliced.borrow_mut() = Some(stats);
                Ok(Some(images))
            }
            Ok(None) => Ok(None),
            Err(SolveOrStop::Stop(r)) => Err(Interrupt::Stop(r)),
            Err(SolveOrStop::Error(err)) => Err(self.fail(err.to_string())),
        }
    }

    /// The record of `task`, if it is there, whole and made by this search's split.
    fn record(&self, task: &SliceTask) -> Option<ReachSliceRecord> {
        let (split, partitions) = (self.split, self.partitions);
        ReachSliceRecord::read(&self.dir, task, &self.fingerprint, split, partitions)
    }

    /// Records `why` as the failure of the search, which stops.
    fn fail(&self, why: String) -> Interrupt {
        *self.failure.borrow_mut() = Some(why);
        Interrupt::Stop(StopReason::Cancelled)
    }

    /// The union of the slices' files of layer `depth`, and how the jobs went; `None` if a
    /// slice breaks an assumed group.
    #[allow(clippy::type_complexity)]
    fn merge<E: BddEngine>(
        &self,
        e: &E,
        depth: usize,
        count: u32,
    ) -> Result<Option<((E::Bdd, E::Bdd), SlicedStats)>, SolveOrStop> {
        let mut stats = SlicedStats {
            slices: count,
            split: Some(self.split),
            ..SlicedStats::default()
        };
        let (mut images, mut cuts) = (Vec::new(), Vec::new());
        for index in 0..count {
            let t = self.task(depth, index);
            let r = self.record(&t).ok_or_else(|| {
                let why = "the job of this slice finished without writing its record";
                FileError::format(&t.record_path(&self.dir), why)
            })?;
            if r.broken {
                return Ok(None);
            }
            stats.read_seconds.push(r.read_seconds);
            stats.solve_seconds.push(r.image_seconds);
            stats.write_seconds.push(r.write_seconds);
            stats.peak_nodes.push(r.peak_nodes);
            let path = t.layer_path(&self.dir);
            match <[E::Bdd; 2]>::try_from(read_set(e, &path, &self.fingerprint, depth)?) {
                Ok([img, cut]) => {
                    images.push(img);
                    cuts.push(cut);
                }
                Err(_) => return Err(FileError::format(&path, "not the files of a slice").into()),
            }
        }
        Ok(Some(((or_all(e, images)?, or_all(e, cuts)?), stats)))
    }

    /// How the last sliced layer went (taken).
    pub(crate) fn take_stats(&self) -> Option<SlicedStats> {
        self.sliced.borrow_mut().take()
    }

    /// Why the jobs failed, if they did (taken).
    pub(crate) fn take_failure(&self) -> Option<String> {
        self.failure.borrow_mut().take()
    }

    /// Removes the files of layer `depth`'s slices (once the next layer is kept).
    pub(crate) fn remove(&self, depth: usize) {
        remove_slices(&self.dir, SlicePass::Forward, depth);
        let _ = std::fs::remove_file(expand_path(&self.dir, depth));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A record of the other split, or by clusters over other partitions, is not the slice's:
    /// the search runs the slice again.
    #[test]
    fn a_record_of_the_other_split_is_not_read() {
        let dir = std::env::temp_dir().join(format!("reach-split-record-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let task = SliceTask {
            pass: SlicePass::Forward,
            depth: 3,
            index: 1,
            count: 2,
        };
        let record = ReachSliceRecord {
            format: RECORD_FORMAT.to_string(),
            checksum: NO_CHECKSUM.to_string(),
            fingerprint: "f".to_string(),
            depth: 3,
            index: 1,
            count: 2,
            split: SliceSplit::Clusters,
            cube: Vec::new(),
            clusters: vec![1, 3],
            partitions: 4,
            broken: false,
            read_seconds: 0.0,
            image_seconds: 0.0,
            write_seconds: 0.0,
            peak_nodes: 1,
        };
        write_checksummed(&task.record_path(&dir), &record).unwrap();
        let read = |split, partitions| ReachSliceRecord::read(&dir, &task, "f", split, partitions);
        assert!(read(SliceSplit::Clusters, 4).is_some());
        assert!(read(SliceSplit::Clusters, 5).is_none());
        assert!(read(SliceSplit::States, 4).is_none());
        let states = ReachSliceRecord {
            split: SliceSplit::States,
            ..record
        };
        write_checksummed(&task.record_path(&dir), &states).unwrap();
        assert!(read(SliceSplit::States, 4).is_some());
        assert!(read(SliceSplit::Clusters, 4).is_none());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_split_is_by_states_unless_asked() {
        assert_eq!(SliceSplit::choose(None), SliceSplit::States);
        let clusters = Some(SliceSplit::Clusters);
        assert_eq!(SliceSplit::choose(clusters), SliceSplit::Clusters);
        assert_eq!("clusters".parse(), Ok(SliceSplit::Clusters));
        assert!("both".parse::<SliceSplit>().is_err());
    }
}
