//! `symgame prove`: the value of a position by explicit proof-number search or alpha-beta.

use crate::args::{GameArg, LimitArgs, OutputArgs};
use crate::failure::{Context, Failure};
use crate::output::print_json;
use serde::Serialize;
use symgame_explicit::{play_moves, Reasoner};
use symgame_ground::GroundTerm;
use symgame_prove::{solve_value, Algo, Config, Stats, ValueOutcome};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    game: GameArg,
    /// Moves to play from the initial state first, as GDL terms, e.g. "(mark 1 1) (mark 2 2)".
    #[arg(long, value_name = "MOVES")]
    moves: Option<String>,
    /// The algorithm: pn, pn2, dfpn, alphabeta, or backward (backward induction over every
    /// reachable state: any number of roles, simultaneous moves in pure strategies).
    #[arg(long, default_value = "dfpn")]
    algo: Algo,
    #[command(flatten)]
    limits: LimitArgs,
    #[command(flatten)]
    output: OutputArgs,
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
    let clock = a.limits.start();
    let game = a.game.load(None)?;
    let r = Reasoner::new(&game);
    let moves = match &a.moves {
        Some(text) => {
            GroundTerm::parse_sequence(text).map_err(|e| Failure::input(format!("--moves: {e}")))?
        }
        None => Vec::new(),
    };
    let start = play_moves(&r, &game, &r.initial_state(), &moves)
        .map_err(|e| Failure::input(format!("--moves: {e}")))?;
    let config = Config {
        limits: a.limits.limits(&clock),
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
        let v = solve_value(&r, &start, role, a.algo, &config).about(a.game.display())?;
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
    if a.output.json {
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
        Some(why) => Err(Failure::limit(format!("search stopped: {why}"))),
    }
}
