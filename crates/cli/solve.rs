//! `symgame solve`: strong solving by retrograde analysis.

use crate::reach::{cpu_seconds, peak_memory_bytes};
use crate::{cancel_flag, load_game, print_json, Failure};
use serde::Serialize;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;
use symgame_bdd::{Backend, EngineConfig};
use symgame_symbolic::{
    fingerprint, solve_encoded, Encoding, GameKind, LayeredMode, Limits, SolveError, SolveOptions,
    SolveStats, SymbolicError, SymbolicOptions,
};

#[derive(clap::Args)]
pub struct Args {
    /// The game description (GDL, KIF syntax).
    game: PathBuf,
    /// Write the solution (one BDD per value class, per layer when layered) to this directory
    /// (format: docs/formats/solution.md). Files are written atomically; after a limit or
    /// Ctrl-C the finished layers are kept and the manifest says the solution is incomplete.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// The BDD engine: oxidd or biodivine (oxidd on one thread solved Connect Four 6×4 and
    /// 5×5 in half to two thirds of biodivine's CPU time; docs/solving.md).
    #[arg(long, default_value = "oxidd")]
    backend: Backend,
    /// Threads for engines that use them (0: one per core). One by default: on Connect Four
    /// 6×4 two threads cost 1.6× the CPU time of one and gained no wall time on a busy machine.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// oxidd node table capacity as a power of two (2^N nodes, reserved, filled on demand).
    /// Larger than reach's default: a solve keeps two layers' value classes and the relation
    /// (Connect Four 6×5 needs more than 2^24), and a table near full collects garbage often.
    #[arg(long, value_name = "N", default_value_t = 27)]
    nodes_log2: u32,
    /// oxidd apply-cache size as a power of two (2^N entries, allocated at start, about
    /// 0.25 GB at 23).
    #[arg(long, value_name = "N", default_value_t = 23)]
    cache_log2: u32,
    /// Layered solving when every move goes from BFS layer k to k + 1 (auto), or never.
    #[arg(long, default_value = "auto", value_parser = parse_layered)]
    layered: LayeredMode,
    /// Stop when a BDD has more nodes than this (exit code 3; finished layers are kept).
    #[arg(long, value_name = "N")]
    node_limit: Option<u64>,
    /// Stop after this many seconds (exit code 3; finished layers are kept).
    #[arg(long, value_name = "SECONDS")]
    time_limit: Option<f64>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

fn parse_layered(s: &str) -> Result<LayeredMode, String> {
    match s {
        "auto" => Ok(LayeredMode::Auto),
        "never" => Ok(LayeredMode::Never),
        _ => Err(format!("expected auto or never, not {s:?}")),
    }
}

#[derive(Serialize)]
struct Report<'a> {
    game: String,
    backend: String,
    out: Option<String>,
    /// State bits of the encoding (two BDD variables each).
    bits: u32,
    /// Wall-clock seconds of the whole command (grounding, encoding, solving, writing).
    wall_seconds: f64,
    /// CPU seconds of the process (user + system, all threads).
    cpu_seconds: Option<f64>,
    /// Peak resident memory in bytes (VmHWM).
    peak_memory_bytes: Option<u64>,
    #[serde(flatten)]
    stats: &'a SolveStats,
}

/// `100/0` for an outcome.
fn label(o: &[u8]) -> String {
    o.iter()
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join("/")
}

pub fn run(a: Args) -> Result<(), Failure> {
    let started = std::time::Instant::now();
    if a.nodes_log2 > 32 || a.cache_log2 > 32 {
        return Err(Failure::Input(
            "--nodes-log2 and --cache-log2 must be at most 32".to_string(),
        ));
    }
    let (_, game) = load_game(&a.game, None)?;
    let config = EngineConfig {
        threads: a.threads,
        node_capacity: 1usize << a.nodes_log2,
        cache_capacity: 1usize << a.cache_log2,
    };
    let sym = SymbolicOptions {
        setup_deadline: crate::setup_deadline(a.time_limit),
        ..SymbolicOptions::default()
    };
    let encoding = Encoding::with_options(&game, &sym);
    let bits = encoding.num_bits();
    let opts = SolveOptions {
        layered: a.layered,
        keep_classes: false,
        out_dir: a.out.clone(),
        spill_dir: None,
        fingerprint: fingerprint(&game, &encoding),
        limits: Limits {
            max_nodes: a.node_limit,
            time_limit: a.time_limit.map(Duration::from_secs_f64),
            cancel: Some(cancel_flag()),
            ..Limits::default()
        },
    };
    let show_progress = !a.json && std::io::stderr().is_terminal();
    let result = solve_encoded(&game, encoding, a.backend, &config, &sym, &opts, |s| {
        if show_progress {
            if let Some(l) = s.layers.last() {
                eprint!(
                    "\rsolved layer {:>4}: {:>20} states, {:>10} nodes ({:.1} s)   ",
                    l.depth, l.states, l.nodes, l.seconds
                );
            }
        }
    });
    if show_progress {
        eprint!("\r{:80}\r", "");
    }
    let stats = result.map_err(|e| {
        let detail = match &e {
            SolveError::Simultaneous { state } | SolveError::NoLegalMove { state } => {
                let fl: Vec<String> = state.iter().map(|&f| game.fluents[f].to_string()).collect();
                format!(" (state: {})", fl.join(" "))
            }
            _ => String::new(),
        };
        match e {
            SolveError::Io(_) => Failure::Input(format!("{e}")),
            SolveError::Symbolic(SymbolicError::Stopped(why)) => Failure::Limit(format!(
                "{}: {why} while compiling the game (nothing solved, nothing written)",
                a.game.display()
            )),
            _ => Failure::Input(format!("{}: {e}{detail}", a.game.display())),
        }
    })?;
    if a.json {
        print_json(&Report {
            game: a.game.display().to_string(),
            backend: a.backend.to_string(),
            out: a.out.as_ref().map(|p| p.display().to_string()),
            bits,
            wall_seconds: started.elapsed().as_secs_f64(),
            cpu_seconds: cpu_seconds(),
            peak_memory_bytes: peak_memory_bytes(),
            stats: &stats,
        })?;
    } else {
        print_text(&a, &stats);
        let mem =
            peak_memory_bytes().map_or("?".to_string(), |b| format!("{:.2} GB", b as f64 / 1e9));
        let cpu = cpu_seconds().map_or("?".to_string(), |c| format!("{c:.1} s"));
        println!(
            "{bits} state bits; wall {:.2} s, CPU {cpu}, peak memory {mem}",
            started.elapsed().as_secs_f64()
        );
    }
    match stats.stopped {
        None => Ok(()),
        Some(why) => Err(Failure::Limit(format!(
            "{why} after {} solved layers; the table above is partial{}",
            stats.layers.len(),
            if a.out.is_some() {
                " and the written solution is marked incomplete"
            } else {
                ""
            }
        ))),
    }
}

fn print_text(a: &Args, st: &SolveStats) {
    let how = if st.layered {
        "solved layer by layer"
    } else {
        "solved on the whole reachable set"
    };
    println!("game: {} ({}, {how})", a.game.display(), st.kind);
    match st.initial {
        Some(i) => {
            let o = &st.outcomes[i];
            let rewards: Vec<String> = st
                .roles
                .iter()
                .zip(o)
                .map(|(r, v)| format!("{r} {v}"))
                .collect();
            let verdict = match st.kind {
                GameKind::SinglePlayer => match st.initial_distance {
                    Some(d) => format!("best reward in {d} moves"),
                    None => String::new(),
                },
                GameKind::GeneralSum => "general-sum rewards".to_string(),
                _ if o[0] > o[1] => format!("{} wins", st.roles[0]),
                _ if o[0] < o[1] => format!("{} wins", st.roles[1]),
                _ => "draw".to_string(),
            };
            println!("initial state: {} ({verdict})", rewards.join(", "));
        }
        None => println!("initial state: not solved"),
    }
    let two = st.roles.len() == 2;
    let mut header = format!("{:>5} {:>16} {:>14}", "layer", "states", "terminal");
    for o in &st.outcomes {
        header.push_str(&format!(" {:>14}", label(o)));
    }
    if two {
        header.push_str(&format!(" {:>14} {:>14} {:>14}", "won", "drawn", "lost"));
    }
    header.push_str(&format!(" {:>10} {:>9}", "BDD nodes", "seconds"));
    println!("{header}");
    for l in &st.layers {
        let mut row = format!("{:>5} {:>16} {:>14}", l.depth, l.states, l.terminal);
        for o in 0..st.outcomes.len() {
            let n = l.per_outcome.get(o).cloned().unwrap_or_default();
            row.push_str(&format!(" {n:>14}"));
        }
        if let Some(m) = &l.mover {
            row.push_str(&format!(" {:>14} {:>14} {:>14}", m.won, m.drawn, m.lost));
        }
        row.push_str(&format!(" {:>10} {:>9.3}", l.nodes, l.seconds));
        println!("{row}");
    }
    let mut total = format!("{:>5} {:>16} {:>14}", "total", st.states, "");
    for n in &st.per_outcome {
        total.push_str(&format!(" {n:>14}"));
    }
    println!("{total}");
    if two {
        println!("won/drawn/lost: non-terminal states, seen from the role to move");
    }
    println!(
        "forward search {:.3} s, total {:.3} s, peak BDD {} nodes ({} backend)",
        st.reach_seconds, st.seconds, st.peak_nodes, a.backend
    );
    if st.unsolved > num_bigint::BigUint::default() {
        println!(
            "{} reachable states have no value (they cannot reach a terminal state)",
            st.unsolved
        );
    }
    if let Some(dir) = &a.out {
        println!("solution written to {}", dir.display());
    }
}
