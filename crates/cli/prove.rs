//! `symgame prove`: the value of a position by explicit proof-number search or alpha-beta.

use crate::{cancel_flag, load_game, print_json, Failure};
use serde::Serialize;
use std::path::PathBuf;
use std::time::Duration;
use symgame_explicit::{play_moves, Reasoner};
use symgame_ground::GroundTerm;
use symgame_prove::{solve_value, Algo, Config, Limits, Stats, ValueOutcome};

#[derive(clap::Args)]
pub struct Args {
    /// The game description (GDL, KIF syntax).
    game: PathBuf,
    /// Moves to play from the initial state first, as GDL terms, e.g. "(mark 1 1) (mark 2 2)".
    #[arg(long, value_name = "MOVES")]
    moves: Option<String>,
    /// The search algorithm: pn, pn2, dfpn or alphabeta.
    #[arg(long, default_value = "dfpn")]
    algo: Algo,
    /// Stop after expanding this many nodes (exit code 3).
    #[arg(long, value_name = "N")]
    node_limit: Option<u64>,
    /// Stop after this many seconds (exit code 3).
    #[arg(long, value_name = "SECONDS")]
    time_limit: Option<f64>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct RoleValue {
    role: String,
    /// The exact value, when proved.
    value: Option<u8>,
    /// Bounds when stopped early.
    lower: u8,
    upper: u8,
    stopped: Option<String>,
    searches: u32,
    stats: Stats,
}

#[derive(Serialize)]
struct Report {
    game: String,
    algo: String,
    moves_played: usize,
    roles: Vec<RoleValue>,
}

pub fn run(a: Args) -> Result<(), Failure> {
    let (_, game) = load_game(&a.game, None)?;
    let r = Reasoner::new(&game);
    let moves = match &a.moves {
        Some(text) => {
            GroundTerm::parse_sequence(text).map_err(|e| Failure::Input(format!("--moves: {e}")))?
        }
        None => Vec::new(),
    };
    let start = play_moves(&r, &game, &r.initial_state(), &moves)
        .map_err(|e| Failure::Input(format!("--moves: {e}")))?;
    let config = Config {
        limits: Limits {
            max_nodes: a.node_limit,
            time_limit: a.time_limit.map(Duration::from_secs_f64),
            cancel: Some(cancel_flag()),
            ..Limits::default()
        },
        ..Config::default()
    };
    let mut report = Report {
        game: a.game.display().to_string(),
        algo: a.algo.to_string(),
        moves_played: moves.len(),
        roles: Vec::new(),
    };
    let mut stopped = None;
    for role in 0..game.roles.len() {
        let v = solve_value(&r, &start, role, a.algo, &config)
            .map_err(|e| Failure::Input(format!("{}: {e}", a.game.display())))?;
        let (value, lower, upper, why) = match v.outcome {
            ValueOutcome::Exact(x) => (Some(x), x, x, None),
            ValueOutcome::Stopped {
                reason,
                lower,
                upper,
            } => (None, lower, upper, Some(format!("{reason:?}"))),
        };
        if why.is_some() {
            stopped = why.clone();
        }
        report.roles.push(RoleValue {
            role: game.roles[role].name.to_string(),
            value,
            lower,
            upper,
            stopped: why,
            searches: v.searches,
            stats: v.stats,
        });
    }
    if a.json {
        print_json(&report)?;
    } else {
        println!("game       {}", report.game);
        println!("algorithm  {}", report.algo);
        if !moves.is_empty() {
            println!("position   after {} moves", moves.len());
        }
        for rv in &report.roles {
            match rv.value {
                Some(v) => println!("{:10} value {v}", rv.role),
                None => println!(
                    "{:10} value in {}..={} (stopped)",
                    rv.role, rv.lower, rv.upper
                ),
            }
            println!(
                "{:10} {} searches, {} nodes expanded, {} nodes in memory at most, proof size {}, {:.3} s",
                "",
                rv.searches,
                rv.stats.nodes_expanded,
                rv.stats.nodes_in_memory,
                rv.stats
                    .proof_size
                    .map_or("-".to_string(), |p| p.to_string()),
                rv.stats.time.as_secs_f64()
            );
        }
    }
    match stopped {
        None => Ok(()),
        Some(why) => Err(Failure::Limit(format!("search stopped: {why}"))),
    }
}
