//! The `symgame` command line.
//!
//! One module per subcommand (argument parsing and printing), beside the modules they share:
//! `args` (the shared flags and the library options they make), `failure` (exit codes and the
//! one mapping from library errors to them), `progress` (the progress bar on a terminal),
//! `plot` (the SVG pictures of `--plot`),
//! `output` (JSON, time and memory) and `signals` (Ctrl-C, SIGTERM, SIGPIPE, the time-limit
//! watchdog). No subcommand module imports another.
//!
//! Architecture invariant: only this crate knows clap, terminal progress, Ctrl-C and JSON
//! output; the libraries return typed results and the commands here print them.

mod args;
mod failure;
mod output;
mod plot;
mod progress;
mod signals;
mod tempfiles;

mod explore;
mod export;
mod info;
mod plan;
mod play;
mod prove;
mod query;
mod reach;
mod reach_slice;
mod serve;
mod slices;
mod slurm;
mod solve;
mod verify;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Symbolic game solving for games written in GDL.
#[derive(Parser)]
#[command(name = "symgame", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Parse, check and ground a game; print its roles, sizes and warnings.
    Info(info::Args),
    /// Enumerate the reachable states explicitly, breadth first.
    Explore(explore::Args),
    /// The value of a position for each role, by explicit proof-number search or alpha-beta.
    Prove(prove::Args),
    /// Count the reachable states symbolically (BDDs), layer by layer.
    Reach(reach::Args),
    /// Expand one slice of one layer of a `reach --jobs N` run in its directory (a job that a
    /// process pool or a batch scheduler starts; see docs/distributed.md).
    ReachSlice(reach_slice::Args),
    /// Solve the game strongly: the value of every reachable state, by retrograde analysis.
    Solve(solve::Args),
    /// Solve one slice of one layer of a `solve --jobs N` run in its directory (a job that a
    /// process pool or a batch scheduler starts; see docs/distributed.md).
    SolveSlice(slices::Args),
    /// Check the symbolic solution state by state with the explicit solvers.
    Verify(verify::Args),
    /// Solve a game and write its ranked database: per layer a BDD and one packed value a state.
    Export(export::Args),
    /// A state's value, rank and optimal moves from a database (by fluents, moves or rank).
    Query(query::Args),
    /// An optimal plan to a goal state (BFS, bidirectional BFS, Dijkstra or BDDA*), replayed.
    Plan(plan::Args),
    /// Play a game in the terminal against the engine (perfect from a table), or watch it
    /// play itself.
    Play(play::Args),
    /// A player for the GGP communication protocol (HTTP POST of KIF messages).
    Serve(serve::Args),
}

fn main() -> ExitCode {
    signals::restore_sigpipe();
    let result = match Cli::parse().command {
        Command::Info(a) => info::run(a),
        Command::Explore(a) => explore::run(a),
        Command::Prove(a) => prove::run(a),
        Command::Reach(a) => reach::run(a),
        Command::ReachSlice(a) => reach_slice::run(a),
        Command::Solve(a) => solve::run(a),
        Command::SolveSlice(a) => slices::run(a),
        Command::Verify(a) => verify::run(a),
        Command::Export(a) => export::run(a),
        Command::Query(a) => query::run(a),
        Command::Plan(a) => plan::run(a),
        Command::Play(a) => play::run(a),
        Command::Serve(a) => serve::run(a),
    };
    match result {
        Ok(()) => ExitCode::from(failure::EXIT_OK),
        Err(f) => {
            eprintln!("{f}");
            ExitCode::from(f.exit_code())
        }
    }
}
