//! `symgame reach-slice`: the successors of one slice of one forward layer of a
//! `reach --jobs N --resume DIR` run, reading and writing only files of its directory (see
//! docs/distributed.md).

use crate::args::{symbolic_options, EngineArgs, GameArg, LimitArgs, OutputArgs, Reaching};
use crate::failure::Failure;
use crate::slices::{job_outcome, parse_slice};
use std::path::PathBuf;
use symgame_symbolic::{
    ReachSliceJob, ReachStore, SlicePass, SliceSplit, SliceTask, SymbolicOptions, REACH_MANIFEST,
};

/// `symgame reach-slice`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    game: GameArg,
    /// The search's directory (`reach --jobs N --resume DIR`): its manifest and the layer's
    /// non-terminal states, written by the search before it starts the jobs.
    #[arg(long, value_name = "DIR")]
    dir: PathBuf,
    /// The layer (BFS depth) to expand a slice of.
    #[arg(long, value_name = "K")]
    layer: usize,
    /// Which slice, as I/N: N a power of two up to 256, I below N.
    #[arg(long, value_name = "I/N", value_parser = parse_slice)]
    slice: (u32, u32),
    /// As `reach --split` (the search passes its own): by clusters, the clusters whose index
    /// is I modulo N over the whole layer; by states, the layer's states of the slice's cube.
    /// Default: clusters when the game has at least N clusters, else states.
    #[arg(long, value_name = "clusters|states")]
    split: Option<SliceSplit>,
    #[command(flatten)]
    engine: EngineArgs<Reaching>,
    /// As `reach --cluster-nodes` (the search passes its own).
    #[arg(long, value_name = "N", default_value_t = SymbolicOptions::default().cluster_nodes)]
    cluster_nodes: usize,
    /// As `reach --terminal-cluster-nodes` (the search passes its own).
    #[arg(long, value_name = "N", default_value_t = SymbolicOptions::default().terminal_cluster_nodes)]
    terminal_cluster_nodes: usize,
    #[command(flatten)]
    limits: LimitArgs,
    #[command(flatten)]
    output: OutputArgs,
}

pub fn run(a: Args) -> Result<(), Failure> {
    let clock = a.limits.start();
    let game = a.game.load(clock.time_left())?;
    if !a.dir.join(REACH_MANIFEST).is_file() {
        return Err(Failure::input(format!(
            "{} holds no search of {} to take a slice of (run reach --jobs N --resume DIR \
             first)",
            a.dir.display(),
            a.game.display()
        )));
    }
    let manifest = ReachStore::read_manifest(&a.dir, &game)?;
    let limits = a.engine.bound(a.limits.limits(&clock));
    let config = a.engine.config()?;
    // Compiled once over all states, as the search that slices a layer compiled it: a job
    // never compiles within each layer.
    let sym = SymbolicOptions {
        cluster_nodes: a.cluster_nodes,
        terminal_cluster_nodes: a.terminal_cluster_nodes,
        goals: false,
        layerwise_fallback: false,
        ..symbolic_options(&clock)
    };
    let task = SliceTask {
        pass: SlicePass::Forward,
        depth: a.layer,
        index: a.slice.0,
        count: a.slice.1,
    };
    let setup = a.engine.setup(&game, manifest.encoding, &config, &sym);
    let result = setup.run(ReachSliceJob {
        dir: &a.dir,
        fingerprint: &manifest.fingerprint,
        limits: &limits,
        task,
        split: a.split,
    });
    job_outcome(result, &task, a.output.json, a.game.display(), |r| {
        format!(
            "expanded in {:.3} s, peak BDD {} nodes",
            r.image_seconds, r.peak_nodes
        )
    })
}
