//! The `symgame` command line.
//!
//! Architecture invariant: only this crate knows clap, terminal progress, Ctrl-C and JSON
//! output; the libraries return typed results and the commands here print them.

mod explore;
mod export;
mod info;
mod plan;
mod prove;
mod query;
mod reach;
mod solve;
mod verify;

use clap::{Parser, Subcommand};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

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
    /// Solve the game strongly: the value of every reachable state, by retrograde analysis.
    Solve(solve::Args),
    /// Check the symbolic solution state by state with the explicit solvers.
    Verify(verify::Args),
    /// Solve a game and write its ranked database: per layer a BDD and one packed value a state.
    Export(export::Args),
    /// A state's value, rank and optimal moves from a database (by fluents, moves or rank).
    Query(query::Args),
    /// An optimal plan to a goal state (BFS, bidirectional BFS, Dijkstra or BDDA*), replayed.
    Plan(plan::Args),
}

/// How a command failed; each maps to a documented exit code.
#[derive(Debug)]
pub enum Failure {
    /// Bad input: a GDL error, a bad argument, a missing file (exit code 2).
    Input(String),
    /// A resource limit was reached (exit code 3); what finished was printed.
    Limit(String),
    /// Anything else (exit code 1).
    Internal(String),
}

impl From<symgame_gdl::Error> for Failure {
    fn from(e: symgame_gdl::Error) -> Failure {
        match e.kind() {
            symgame_gdl::ErrorKind::ResourceLimit => Failure::Limit(e.to_string()),
            _ => Failure::Input(e.to_string()),
        }
    }
}

/// Exit code of a successful run.
const EXIT_OK: u8 = 0;
/// Exit code of an internal error.
const EXIT_INTERNAL: u8 = 1;
/// Exit code of an input error.
const EXIT_INPUT: u8 = 2;
/// Exit code of a run stopped by a resource limit (or Ctrl-C).
const EXIT_LIMIT: u8 = 3;

/// A flag raised by Ctrl-C; long runs poll it and stop, keeping what they finished.
pub fn cancel_flag() -> Arc<AtomicBool> {
    let flag = Arc::new(AtomicBool::new(false));
    let f = flag.clone();
    // Installing twice fails; then the first handler's flag is not ours, but commands install once.
    // A second interrupt ends the process at once: the first is only seen between BDD
    // operations, and one operation can run for minutes.
    let _ = ctrlc::set_handler(move || {
        if f.swap(true, std::sync::atomic::Ordering::Relaxed) {
            eprintln!("symgame: stopped: interrupted twice; nothing more is reported");
            std::process::exit(3);
        }
    });
    flag
}

/// Restores the default action of SIGPIPE (terminate quietly), which Rust programs ignore: then
/// a reader that closes the pipe early (`symgame solve ... | head`) ends symgame like any other
/// Unix tool, instead of `println!` panicking on a broken pipe.
fn restore_sigpipe() {
    #[cfg(unix)]
    #[allow(unsafe_code)] // the one libc call that has no safe wrapper in our dependencies
    // SAFETY: called once at the start of main, before any thread is spawned; setting a signal's
    // disposition to SIG_DFL has no other precondition.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn main() -> ExitCode {
    restore_sigpipe();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Info(a) => info::run(a),
        Command::Explore(a) => explore::run(a),
        Command::Prove(a) => prove::run(a),
        Command::Reach(a) => reach::run(a),
        Command::Solve(a) => solve::run(a),
        Command::Export(a) => export::run(a),
        Command::Query(a) => query::run(a),
        Command::Verify(a) => {
            return match verify::run(a) {
                Ok(code) => ExitCode::from(code),
                Err(f) => report_failure(f),
            }
        }
        Command::Plan(a) => plan::run(a),
    };
    match result {
        Ok(()) => ExitCode::from(EXIT_OK),
        Err(f) => report_failure(f),
    }
}

/// Prints a failure and returns its exit code.
fn report_failure(f: Failure) -> ExitCode {
    match f {
        Failure::Input(m) => {
            eprintln!("error: {m}");
            ExitCode::from(EXIT_INPUT)
        }
        Failure::Limit(m) => {
            eprintln!("stopped: {m}");
            ExitCode::from(EXIT_LIMIT)
        }
        Failure::Internal(m) => {
            eprintln!("internal error: {m}");
            ExitCode::from(EXIT_INTERNAL)
        }
    }
}

/// The instant a command's `--time-limit` (seconds) ends, counted from now: set-up (encoding,
/// compilation) stops there too.
pub fn setup_deadline(time_limit: Option<f64>) -> Option<std::time::Instant> {
    if let Some(s) = time_limit {
        start_watchdog(s);
    }
    time_limit.map(|s| std::time::Instant::now() + std::time::Duration::from_secs_f64(s))
}

/// The last resort behind `--time-limit`. Limits are checked between BDD operations, and one
/// operation (a relational product, or compiling a large GDL condition) cannot be interrupted;
/// on some games a single one runs for minutes. If the run is still going a grace period after
/// its limit (a quarter of the limit, at least 5 s), this thread ends the process with the
/// limit's exit code. Output files are written to a temporary name and renamed, so none is
/// left half-written.
fn start_watchdog(limit: f64) {
    static STARTED: std::sync::Once = std::sync::Once::new();
    STARTED.call_once(|| {
        let grace = (limit * 0.25).max(5.0);
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_secs_f64(limit + grace));
            let _out = std::io::stdout().lock();
            eprintln!(
                "symgame: stopped: time limit of {limit} s reached inside one BDD operation, which \
                 had not returned {grace:.0} s later; nothing more is reported"
            );
            std::process::exit(3);
        });
    });
}

/// Loads and grounds a game, with an optional grounding time limit in seconds.
pub fn load_game(
    path: &std::path::Path,
    time_limit: Option<f64>,
) -> Result<(symgame_gdl::CheckedDescription, symgame_ground::GroundGame), Failure> {
    let desc = symgame_gdl::load(path)?;
    let opts = symgame_ground::GroundOptions {
        time_limit: time_limit.map(std::time::Duration::from_secs_f64),
        ..Default::default()
    };
    let game = symgame_ground::ground(&desc, &opts)?;
    Ok((desc, game))
}

/// Prints `value` as pretty JSON on stdout.
pub fn print_json<T: serde::Serialize>(value: &T) -> Result<(), Failure> {
    let text = serde_json::to_string_pretty(value).map_err(|e| Failure::Internal(e.to_string()))?;
    println!("{text}");
    Ok(())
}
