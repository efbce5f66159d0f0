//! `symgame reach`: symbolic breadth-first search with exact per-layer counts.

use crate::{cancel_flag, load_game, print_json, Failure};
use serde::Serialize;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use symgame_bdd::{Backend, BddError, EngineConfig};
use symgame_symbolic::{
    reach_encoded, Encoding, EncodingKind, Limits, Order, ReachStats, SymbolicError,
    SymbolicOptions,
};

#[derive(clap::Args)]
pub struct Args {
    /// The game description (GDL, KIF syntax).
    game: PathBuf,
    /// The BDD engine: oxidd (default: fastest, multi-threaded) or biodivine (least memory).
    #[arg(long, default_value = "oxidd")]
    backend: Backend,
    /// Threads for engines that use them (0: one per core).
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// State encoding: compact (proven mutex groups as binary numbers) or plain (a bit per
    /// fluent).
    #[arg(long, default_value = "compact", value_parser = parse_encoding)]
    encoding: EncodingKind,
    /// Variable order: heuristic (ground terms sorted, turn first), rules (FORCE on rule
    /// supports) or given (ground order).
    #[arg(long, default_value = "heuristic", value_parser = parse_order)]
    order: Order,
    /// Merge per-move relations (same turn) while a merged relation has at most N BDD nodes
    /// (0: one relation per joint move).
    #[arg(long, value_name = "N", default_value_t = SymbolicOptions::default().cluster_nodes)]
    cluster_nodes: usize,
    /// Merge terminal parts while a merged part has at most N BDD nodes (0: one per part).
    #[arg(long, value_name = "N", default_value_t = SymbolicOptions::default().terminal_cluster_nodes)]
    terminal_cluster_nodes: usize,
    /// oxidd node table capacity as a power of two (2^N nodes, reserved, filled on demand).
    #[arg(long, value_name = "N", default_value_t = 24)]
    nodes_log2: u32,
    /// oxidd apply-cache size as a power of two (2^N entries, allocated at start).
    #[arg(long, value_name = "N", default_value_t = 22)]
    cache_log2: u32,
    /// Stop when a BDD has more nodes than this (exit code 3; finished layers are printed).
    #[arg(long, value_name = "N")]
    node_limit: Option<u64>,
    /// Stop after this many seconds, grounding included (exit code 3; finished layers are
    /// printed).
    #[arg(long, value_name = "SECONDS")]
    time_limit: Option<f64>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

pub(crate) fn parse_encoding(s: &str) -> Result<EncodingKind, String> {
    match s {
        "compact" => Ok(EncodingKind::Compact),
        "plain" => Ok(EncodingKind::Plain),
        _ => Err(format!(
            "unknown encoding {s:?} (expected \"compact\" or \"plain\")"
        )),
    }
}

fn parse_order(s: &str) -> Result<Order, String> {
    match s {
        "heuristic" => Ok(Order::Heuristic),
        "rules" => Ok(Order::Rules),
        "given" => Ok(Order::Given),
        _ => Err(format!(
            "unknown order {s:?} (expected \"heuristic\", \"rules\" or \"given\")"
        )),
    }
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
    /// Wall-clock seconds of the whole command.
    wall_seconds: f64,
    /// CPU seconds (user + system, all threads) of the whole command, from /proc/self/stat.
    cpu_seconds: Option<f64>,
    /// Peak resident memory in bytes (VmHWM from /proc/self/status).
    peak_memory_bytes: Option<u64>,
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

/// Peak resident memory (VmHWM) in bytes, on Linux.
pub fn peak_memory_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// CPU time (user + system, all threads) in seconds, on Linux (clock ticks of 1/100 s).
pub fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which may contain spaces) start at ") ".
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the full line, 12 and 13 here.
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) / 100.0)
}

fn failure(game: &std::path::Path, e: SymbolicError) -> Failure {
    match e {
        SymbolicError::Bdd(BddError::OutOfMemory { .. })
        | SymbolicError::TooManyJointMoves { .. }
        | SymbolicError::Stopped(_) => Failure::Limit(format!("{}: {e}", game.display())),
        SymbolicError::InitBreaksGroup => Failure::Internal(format!("{}: {e}", game.display())),
        _ => Failure::Input(format!("{}: {e}", game.display())),
    }
}

pub fn run(a: Args) -> Result<(), Failure> {
    let started = Instant::now();
    if a.nodes_log2 > 32 || a.cache_log2 > 32 {
        return Err(Failure::Input(
            "--nodes-log2 and --cache-log2 must be at most 32".to_string(),
        ));
    }
    let (_, game) = load_game(&a.game, a.time_limit)?;
    let opts = SymbolicOptions {
        order: a.order,
        encoding: a.encoding,
        cluster_nodes: a.cluster_nodes,
        terminal_cluster_nodes: a.terminal_cluster_nodes,
        goals: false,
        setup_deadline: crate::setup_deadline(a.time_limit),
        ..SymbolicOptions::default()
    };
    let encoding = Encoding::with_options(&game, &opts);
    let setup_seconds = started.elapsed().as_secs_f64();
    let config = EngineConfig {
        threads: a.threads,
        node_capacity: 1usize << a.nodes_log2,
        cache_capacity: 1usize << a.cache_log2,
    };
    let limits = Limits {
        max_nodes: a.node_limit,
        time_limit: a
            .time_limit
            .map(|t| Duration::from_secs_f64((t - setup_seconds).max(0.0))),
        cancel: Some(cancel_flag()),
        ..Limits::default()
    };
    let show_progress = !a.json && std::io::stderr().is_terminal();
    let facts_encoding = encoding.clone();
    let stats = reach_encoded(&game, encoding, a.backend, &config, &opts, &limits, |s| {
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
    })
    .map_err(|e| failure(&a.game, e))?;
    if show_progress {
        eprint!("\r{:80}\r", "");
    }
    let facts = RunFacts {
        fluents: game.fluents.len(),
        bits: facts_encoding.num_bits(),
        mutex_groups: facts_encoding
            .fluent_groups()
            .iter()
            .filter(|g| g.fluents.len() > 1)
            .count(),
        setup_seconds,
        wall_seconds: started.elapsed().as_secs_f64(),
        cpu_seconds: cpu_seconds(),
        peak_memory_bytes: peak_memory_bytes(),
    };
    if a.json {
        print_json(&Report {
            game: a.game.display().to_string(),
            backend: a.backend.to_string(),
            threads: a.threads,
            encoding: a.encoding,
            order: a.order,
            facts,
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
            "total {:>22} {:>22} {:>12} {:>10.3}",
            stats.states, stats.terminal, "", stats.seconds
        );
        let mem = facts
            .peak_memory_bytes
            .map_or("?".to_string(), |b| format!("{:.2} GB", b as f64 / 1e9));
        let cpu = facts
            .cpu_seconds
            .map_or("?".to_string(), |c| format!("{c:.1} s"));
        println!(
            "{} backend ({} threads), {:?} encoding ({} fluents in {} bits, {} groups), {:?} \
             order, {} partitions; setup {:.2} s, wall {:.2} s, CPU {cpu}, peak memory {mem}",
            a.backend,
            a.threads,
            a.encoding,
            facts.fluents,
            facts.bits,
            facts.mutex_groups,
            a.order,
            stats.partitions,
            facts.setup_seconds,
            facts.wall_seconds,
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
