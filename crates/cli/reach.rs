//! `symgame reach`: symbolic breadth-first search with exact per-layer counts.

use crate::args::{EncodingArgs, EngineArgs, GameArg, LimitArgs, OutputArgs, Reaching};
use crate::failure::{Context, Failure};
use crate::output::{print_json, Usage};
use crate::progress::Progress;
use serde::Serialize;
use std::time::Instant;
use symgame_symbolic::{reach_encoded, Encoding, EncodingKind, Order, ReachStats, SymbolicOptions};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    game: GameArg,
    #[command(flatten)]
    engine: EngineArgs<Reaching>,
    #[command(flatten)]
    encoding: EncodingArgs,
    /// Merge per-move relations (same turn) while a merged relation has at most N BDD nodes
    /// (0: one relation per joint move).
    #[arg(long, value_name = "N", default_value_t = SymbolicOptions::default().cluster_nodes)]
    cluster_nodes: usize,
    /// Merge terminal parts while a merged part has at most N BDD nodes (0: one per part).
    #[arg(long, value_name = "N", default_value_t = SymbolicOptions::default().terminal_cluster_nodes)]
    terminal_cluster_nodes: usize,
    // The time limit bounds grounding too.
    #[command(flatten)]
    limits: LimitArgs,
    #[command(flatten)]
    output: OutputArgs,
}

/// Machine and run facts reported with the table.
#[derive(Serialize)]
struct RunFacts {
    /// Fluents of the ground game.
    fluents: usize,
    /// State bits of the encoding.
    bits: u32,
    /// Fluent groups with more than one fluent.
    mutex_groups: usize,
    /// Seconds to ground the game and build the encoding.
    setup_seconds: f64,
    #[serde(flatten)]
    usage: Usage,
}

#[derive(Serialize)]
struct Report<'a> {
    game: String,
    backend: String,
    threads: usize,
    encoding: EncodingKind,
    order: Order,
    #[serde(flatten)]
    facts: RunFacts,
    #[serde(flatten)]
    stats: &'a ReachStats,
}

pub fn run(a: Args) -> Result<(), Failure> {
    let started = Instant::now();
    let config = a.engine.config()?;
    let clock = a.limits.start();
    let game = a.game.load(clock.time_left())?;
    let opts = SymbolicOptions {
        cluster_nodes: a.cluster_nodes,
        terminal_cluster_nodes: a.terminal_cluster_nodes,
        goals: false,
        ..a.encoding.options(&clock)
    };
    let encoding = Encoding::with_options(&game, &opts);
    let setup_seconds = started.elapsed().as_secs_f64();
    let (bits, mutex_groups) = (
        encoding.num_bits(),
        encoding
            .fluent_groups()
            .iter()
            .filter(|g| g.fluents.len() > 1)
            .count(),
    );
    let limits = a.limits.limits(&clock);
    let progress = Progress::new(a.output.json);
    let stats = reach_encoded(
        &game,
        encoding,
        a.engine.backend,
        &config,
        &opts,
        &limits,
        |s| progress.reach(s),
    )
    .about(a.game.display())?;
    progress.clear();
    let facts = RunFacts {
        fluents: game.fluents.len(),
        bits,
        mutex_groups,
        setup_seconds,
        usage: Usage::since(started),
    };
    if a.output.json {
        print_json(&Report {
            game: a.game.display().to_string(),
            backend: a.engine.backend.to_string(),
            threads: a.engine.threads,
            encoding: a.encoding.encoding,
            order: a.encoding.order,
            facts,
            stats: &stats,
        })?;
    } else {
        print_text(&a, &facts, &stats);
    }
    match stats.stopped {
        None => Ok(()),
        Some(why) => Err(Failure::limit(format!(
            "{why} after {} complete layers; the table above is partial",
            stats.layers.len()
        ))),
    }
}

fn print_text(a: &Args, facts: &RunFacts, stats: &ReachStats) {
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
        "total {:>22} {:>22} {:>12} {:>10.3}",
        stats.states, stats.terminal, "", stats.seconds
    );
    println!(
        "{} backend ({} threads), {:?} encoding ({} fluents in {} bits, {} groups), {:?} \
         order, {} partitions; setup {:.2} s, {}",
        a.engine.backend,
        a.engine.threads,
        a.encoding.encoding,
        facts.fluents,
        facts.bits,
        facts.mutex_groups,
        a.encoding.order,
        stats.partitions,
        facts.setup_seconds,
        facts.usage.text(),
    );
}
