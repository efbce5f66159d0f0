//! The types of layer slices solved as separate jobs ([`Slicing`], [`SliceRunner`],
//! [`SliceTask`]): a leaf, so that the options can name them. The jobs and the merging are in
//! `slices`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use symgame_limits::StopReason;

/// Runs the jobs of a layer's slices: each job calls [`solve_slice`](crate::solve_slice) (through the command
/// `symgame solve-slice`, or in process) and has written its files when `run` returns `Ok`.
/// The same runners serve `reach --jobs N` (the pass they were made for says which command
/// and which file names).
pub trait SliceRunner: Send + Sync {
    /// Runs the slices `slices` (indices below `count`) of layer `depth`, every one to its end.
    fn run(&self, depth: usize, count: u32, slices: &[u32]) -> Result<(), SliceFailure>;
}

/// Why the jobs of a layer did not all finish.
#[derive(Debug)]
pub enum SliceFailure {
    /// A job stopped at a limit (the solve stops with the same reason, its layers kept).
    Stopped(StopReason),
    /// A job failed: what it said.
    Failed(String),
}

/// How a layered solve splits its layers into slices solved by separate jobs.
#[derive(Clone)]
pub struct Slicing {
    /// Slices per layer: 2^`bits`.
    pub bits: u32,
    /// A layer whose forward file has fewer bytes than this is solved in process: a job's
    /// set-up (grounding, compiling) would cost more than it saves.
    pub min_bytes: u64,
    /// Runs the jobs.
    pub runner: Arc<dyn SliceRunner>,
    /// How `reach` splits a forward layer among its jobs (`None`: [`SliceSplit::choose`]);
    /// `solve`'s backward slices are always by states.
    pub split: Option<SliceSplit>,
}

/// How the jobs of a forward layer (`reach --jobs N`) share its work.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SliceSplit {
    /// Each job takes the states of its cube (the cofactors by a few state variables) under
    /// every transition cluster (the partitions cofactored too).
    #[default]
    States,
    /// Each job takes the whole layer under the clusters whose index is its own modulo the
    /// number of jobs.
    Clusters,
}

impl SliceSplit {
    /// The split asked for, or else by states. Measured on Connect Four 6×5 (docs/distributed.md,
    /// "Forward layers"): by clusters, one job takes a layer's whole work when the game has
    /// one cluster per turn (1.06× one process's wall time, one thread each, quiet machine),
    /// by states each job half of it (0.80×).
    pub fn choose(asked: Option<SliceSplit>) -> SliceSplit {
        asked.unwrap_or_default()
    }

    /// Its name (`states`, `clusters`), as the flag `--split` takes it.
    pub fn name(self) -> &'static str {
        match self {
            SliceSplit::States => "states",
            SliceSplit::Clusters => "clusters",
        }
    }
}

impl std::str::FromStr for SliceSplit {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "states" => Ok(SliceSplit::States),
            "clusters" => Ok(SliceSplit::Clusters),
            _ => Err(format!("expected clusters or states, not {s:?}")),
        }
    }
}

impl std::fmt::Debug for Slicing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Slicing")
            .field("bits", &self.bits)
            .field("min_bytes", &self.min_bytes)
            .field("split", &self.split)
            .finish_non_exhaustive()
    }
}

/// The most slices per layer: 2^8.
pub const MAX_SLICE_BITS: u32 = 8;

/// Which pass of a search a slice belongs to: its files are named after it, so that the
/// slices of the two passes never meet in one directory.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SlicePass {
    /// A layer of the backward pass of `solve` (`symgame solve-slice`, files `slice-...`).
    #[default]
    Backward,
    /// A forward layer of `reach` (`symgame reach-slice`, files `reach-slice-...`).
    Forward,
}

impl SlicePass {
    /// The start of the names of layer `depth`'s slice files (`slice-0007-`,
    /// `reach-slice-0007-`).
    pub fn prefix(self, depth: usize) -> String {
        match self {
            SlicePass::Backward => format!("slice-{depth:04}-"),
            SlicePass::Forward => format!("reach-slice-{depth:04}-"),
        }
    }
}

/// Which slice of which layer a job solves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SliceTask {
    /// The pass the layer belongs to.
    pub pass: SlicePass,
    /// The layer (BFS depth).
    pub depth: usize,
    /// The slice, below `count`.
    pub index: u32,
    /// Slices of the layer, a power of two.
    pub count: u32,
}

impl SliceTask {
    /// The file of the slice's classes.
    pub fn layer_path(&self, dir: &Path) -> PathBuf {
        dir.join(format!("{}.layer", self.stem()))
    }

    /// The file of the slice's record, written last.
    pub fn record_path(&self, dir: &Path) -> PathBuf {
        dir.join(format!("{}.json", self.stem()))
    }

    /// The batch script of the layer's job array (`--slurm`), named like the slices' files so
    /// that it goes with them once the layer is merged.
    pub fn array_script_path(&self, dir: &Path) -> PathBuf {
        dir.join(format!("{}array.sh", self.pass.prefix(self.depth)))
    }

    fn stem(&self) -> String {
        format!(
            "{}{}-of-{}",
            self.pass.prefix(self.depth),
            self.index,
            self.count
        )
    }
}
