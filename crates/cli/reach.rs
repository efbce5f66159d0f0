//! `symgame reach`: symbolic breadth-first search with exact per-layer counts.

use crate::{cancel_flag, load_game, print_json, Failure};
use serde::Serialize;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;
use symgame_bdd::{Backend, EngineConfig};
use symgame_symbolic::{reach_with_backend, ReachStats, SearchLimits, SymbolicOptions};

#[derive(clap::Args)]
pub struct Args {
    /// The game description (GDL, KIF syntax).
    game: PathBuf,
    /// The BDD engine: biodivine or oxidd.
    #[arg(long, default_value = "biodivine")]
    backend: Backend,
    /// Threads for engines that use them (0: one per core).
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Stop when a BDD has more nodes than this (exit code 3; finished layers are printed).
    #[arg(long, value_name = "N")]
    node_limit: Option<usize>,
    /// Stop after this many seconds (exit code 3; finished layers are printed).
    #[arg(long, value_name = "SECONDS")]
    time_limit: Option<f64>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct Report<'a> {
    game: String,
    backend: String,
    #[serde(flatten)]
    stats: &'a ReachStats,
}

pub fn run(a: Args) -> Result<(), Failure> {
    let (_, game) = load_game(&a.game, None)?;
    let config = EngineConfig {
        threads: a.threads,
        ..EngineConfig::default()
    };
    let limits = SearchLimits {
        max_nodes: a.node_limit,
        time_limit: a.time_limit.map(Duration::from_secs_f64),
        cancel: Some(cancel_flag()),
    };
    let show_progress = !a.json && std::io::stderr().is_terminal();
    let stats = reach_with_backend(
        &game,
        a.backend,
        &config,
        &SymbolicOptions::default(),
        &limits,
        |s| {
            if show_progress {
                if let Some(l) = s.layers.last() {
                    eprint!(
                        "\rlayer {:>4}: {:>20} states, {:>10} nodes ({:.1} s)   ",
                        s.layers.len() - 1,
                        l.states,
                        l.nodes,
                        l.seconds
                    );
                }
            }
        },
    )
    .map_err(|e| Failure::Input(format!("{}: {e}", a.game.display())))?;
    if show_progress {
        eprint!("\r{:80}\r", "");
    }
    if a.json {
        print_json(&Report {
            game: a.game.display().to_string(),
            backend: a.backend.to_string(),
            stats: &stats,
        })?;
    } else {
        println!(
            "{:>5} {:>22} {:>22} {:>12} {:>10}",
            "layer", "states", "terminal", "BDD nodes", "seconds"
        );
        for (i, l) in stats.layers.iter().enumerate() {
            println!(
                "{:>5} {:>22} {:>22} {:>12} {:>10.3}",
                i, l.states, l.terminal, l.nodes, l.seconds
            );
        }
        println!(
            "total {:>22} {:>22} {:>12} {:>10.3}   ({} partitions, {} backend)",
            stats.states,
            stats.terminal,
            stats.reached_nodes,
            stats.seconds,
            stats.partitions,
            a.backend
        );
    }
    match stats.stopped {
        None => Ok(()),
        Some(why) => Err(Failure::Limit(format!(
            "{why} after {} complete layers; the table above is partial",
            stats.layers.len()
        ))),
    }
}
