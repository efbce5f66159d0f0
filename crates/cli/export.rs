//! `symgame export`: solve a game and write its ranked database (one packed value per state).

use crate::args::{
    symbolic_options, EngineArgs, GameArg, LayeredArgs, LimitArgs, OutputArgs, ProgressArgs,
    Solving,
};
use crate::failure::Failure;
use crate::output::print_json;
use crate::progress::Progress;
use crate::signals::cancel_flag;
use serde::Serialize;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::Instant;
use symgame_gamedb::{export, ExportOptions, Exported, ExportedLayer};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    game: GameArg,
    /// The database file to write (atomically: nothing appears unless it is complete).
    #[arg(long, value_name = "FILE")]
    out: PathBuf,
    /// Read this solution directory (from `symgame solve --out DIR`) instead of solving.
    #[arg(long, value_name = "DIR")]
    solution: Option<PathBuf>,
    #[command(flatten)]
    engine: EngineArgs<Solving>,
    #[command(flatten)]
    layered: LayeredArgs,
    /// Write one database layer for the whole reachable set even when the game is solved layer
    /// by layer (a smaller file when the layers share structure; lookups need no layer).
    #[arg(long)]
    whole_set: bool,
    // A limit while solving writes no file.
    #[command(flatten)]
    limits: LimitArgs,
    #[command(flatten)]
    progress: ProgressArgs,
    #[command(flatten)]
    output: OutputArgs,
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
    let solution: Vec<&std::path::Path> = a.solution.iter().map(|d| d.as_path()).collect();
    crate::output::refuse_overwrite("--out", &a.out, &[&a.game.game], &solution)?;
    let engine = a.engine.config()?;
    let clock = a.limits.start();
    crate::tempfiles::register_spill();
    crate::tempfiles::register_beside(&a.out);
    let game = a.game.load(None)?;
    let opts = ExportOptions {
        backend: a.engine.backend,
        engine,
        layered: a.layered.layered,
        limits: a.engine.bound(a.limits.limits(&clock)),
        whole_set: a.whole_set,
        symbolic: symbolic_options(&clock),
        solution: a.solution.clone(),
        game_name: a.game.game.file_name().map_or_else(
            || a.game.display().to_string(),
            |n| n.to_string_lossy().into(),
        ),
    };
    let progress = Progress::new(a.progress.progress, a.output.json);
    let done = export(&game, &a.out, &opts, |s| progress.solve(s))?;
    progress.clear();
    if done.written.is_some() && cancel_flag().load(Ordering::Relaxed) {
        // Interrupted after the last check of the write phase: the file is complete, but the
        // run promised exit code 3 and no output once interrupted.
        let _ = std::fs::remove_file(&a.out);
        return Err(Failure::limit(format!(
            "interrupted while writing; {} was not kept",
            a.out.display()
        )));
    }
    let Some(w) = &done.written else {
        let why = done
            .stopped()
            .map_or("stopped".to_string(), |r| r.to_string());
        return Err(Failure::limit(format!(
            "{why} while solving ({} layers solved, {:.1} s); no database was written",
            done.solve.layers.len(),
            done.solve_seconds.unwrap_or(0.0)
        )));
    };
    let floor_bytes = (w.states * u64::from(w.bits_per_value)).div_ceil(8);
    let report = Report {
        game: a.game.display().to_string(),
        out: a.out.display().to_string(),
        backend: a.engine.backend.to_string(),
        kind: done.solve.kind.to_string(),
        layered: done.solve.layered,
        whole_set: !done.solve.layered || a.whole_set,
        solved_here: done.solve_seconds.is_some(),
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
        solve_seconds: done.solve_seconds.unwrap_or(0.0),
        write_seconds: done.write_seconds,
        seconds: started.elapsed().as_secs_f64(),
    };
    if a.output.json {
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
