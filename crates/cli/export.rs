//! `symgame export`: solve a game and write its ranked database (one packed value per state).

use crate::{cancel_flag, load_game, print_json, Failure};
use serde::Serialize;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use symgame_bdd::{Backend, EngineConfig};
use symgame_gamedb::{export, ErrorKind, ExportOptions, Exported, ExportedLayer};
use symgame_symbolic::{LayeredMode, Limits, SolveStats};

#[derive(clap::Args)]
pub struct Args {
    /// The game description (GDL, KIF syntax).
    game: PathBuf,
    /// The database file to write (atomically: nothing appears unless it is complete).
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Read this solution directory (from `symgame solve --out DIR`) instead of solving.
    #[arg(long, value_name = "DIR")]
    solution: Option<PathBuf>,
    /// The BDD engine: biodivine or oxidd.
    #[arg(long, default_value = "biodivine")]
    backend: Backend,
    /// Threads for engines that use them (0: one per core).
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Layered solving when every move goes from BFS layer k to k + 1 (auto: one database
    /// layer per BFS depth), or never (one layer for the whole reachable set).
    #[arg(long, default_value = "auto", value_parser = parse_layered)]
    layered: LayeredMode,
    /// Write one database layer for the whole reachable set even when the game is solved layer
    /// by layer (a smaller file when the layers share structure; lookups need no layer).
    #[arg(long)]
    whole_set: bool,
    /// Stop solving when a BDD has more nodes than this (exit code 3; no file is written).
    #[arg(long, value_name = "N")]
    node_limit: Option<u64>,
    /// Stop solving after this many seconds (exit code 3; no file is written).
    #[arg(long, value_name = "SECONDS")]
    time_limit: Option<f64>,
    /// Print a JSON summary instead of text.
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
struct Report {
    game: String,
    out: String,
    backend: String,
    kind: String,
    /// Whether the game was solved layer by layer.
    layered: bool,
    /// Whether the file has one layer for the whole reachable set.
    whole_set: bool,
    /// Whether the game was solved by this run (false: a solution directory was read).
    solved_here: bool,
    states: u64,
    bytes: u64,
    node_bytes: u64,
    nodes: u64,
    value_bytes: u64,
    bits_per_value: u32,
    /// File bits per state.
    bits_per_state: f64,
    /// The packed values alone at `bits_per_value` bits a state (2 for win/draw/loss), in
    /// bytes: the floor a ranked file cannot go below.
    floor_bytes: u64,
    /// `bytes / floor_bytes`.
    vs_floor: f64,
    layers: Vec<ExportedLayer>,
    solve_seconds: f64,
    write_seconds: f64,
    seconds: f64,
}

pub fn run(a: Args) -> Result<(), Failure> {
    let started = Instant::now();
    let (_, game) = load_game(&a.game, None)?;
    let opts = ExportOptions {
        backend: a.backend,
        engine: EngineConfig {
            threads: a.threads,
            ..EngineConfig::default()
        },
        layered: a.layered,
        limits: Limits {
            max_nodes: a.node_limit,
            time_limit: a.time_limit.map(Duration::from_secs_f64),
            cancel: Some(cancel_flag()),
            ..Limits::default()
        },
        whole_set: a.whole_set,
        symbolic: symgame_symbolic::SymbolicOptions {
            setup_deadline: crate::setup_deadline(a.time_limit),
            ..Default::default()
        },
        solution: a.solution.clone(),
        game_name: a.game.file_name().map_or_else(
            || a.game.display().to_string(),
            |n| n.to_string_lossy().into(),
        ),
    };
    let show_progress = !a.json && std::io::stderr().is_terminal();
    let result = export(&game, &a.out, &opts, |s: &SolveStats| {
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
    let done = result.map_err(|e| match e.kind() {
        ErrorKind::Bdd | ErrorKind::SetupStopped => Failure::Limit(e.to_string()),
        ErrorKind::Database(symgame_db::ErrorKind::Io) | ErrorKind::Io => {
            Failure::Input(e.to_string())
        }
        ErrorKind::Database(_) => Failure::Internal(e.to_string()),
        _ => Failure::Input(e.to_string()),
    })?;
    let Some(w) = &done.written else {
        let why = done
            .stopped()
            .map_or("stopped".to_string(), |r| r.to_string());
        return Err(Failure::Limit(format!(
            "{why} while solving ({} layers solved, {:.1} s); no database was written",
            done.solve.layers.len(),
            done.solve_seconds
        )));
    };
    let floor_bytes = (w.states * u64::from(w.bits_per_value)).div_ceil(8);
    let report = Report {
        game: a.game.display().to_string(),
        out: a.out.display().to_string(),
        backend: a.backend.to_string(),
        kind: done.solve.kind.to_string(),
        layered: done.solve.layered,
        whole_set: !done.solve.layered || a.whole_set,
        solved_here: done.solved_here,
        states: w.states,
        bytes: w.bytes,
        node_bytes: w.node_bytes,
        nodes: w.nodes,
        value_bytes: w.value_bytes,
        bits_per_value: w.bits_per_value,
        bits_per_state: ratio(w.bytes * 8, w.states),
        floor_bytes,
        vs_floor: ratio(w.bytes, floor_bytes),
        layers: done.layers.clone(),
        solve_seconds: done.solve_seconds,
        write_seconds: done.write_seconds,
        seconds: started.elapsed().as_secs_f64(),
    };
    if a.json {
        print_json(&report)
    } else {
        print_text(&report, &done);
        Ok(())
    }
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

fn print_text(r: &Report, done: &Exported) {
    let how = if r.whole_set {
        "one layer for the whole reachable set".to_string()
    } else {
        format!("{} layers by BFS depth", r.layers.len())
    };
    println!("game      {} ({}, {how})", r.game, r.kind);
    if r.solved_here {
        println!(
            "solved    {} states in {:.2} s ({} backend)",
            done.solve.states, r.solve_seconds, r.backend
        );
    } else {
        println!("solution  read from a solution directory");
    }
    println!(
        "database  {}: {} bytes for {} states = {:.2} bits a state ({:.2}x the floor of {} \
         bytes at {} bits a value)",
        r.out, r.bytes, r.states, r.bits_per_state, r.vs_floor, r.floor_bytes, r.bits_per_value
    );
    println!(
        "          node tables {} bytes ({} nodes, {:.2} bits a state), values {} bytes",
        r.node_bytes,
        r.nodes,
        ratio(r.node_bytes * 8, r.states),
        r.value_bytes
    );
    println!("written   in {:.2} s", r.write_seconds);
}
