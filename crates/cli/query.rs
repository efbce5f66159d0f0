//! `symgame query`: a state's value, layer, rank and optimal moves from a database file.

use crate::args::{load_game, OutputArgs};
use crate::failure::{Context, Failure};
use crate::output::print_json;
use serde::Serialize;
use std::path::PathBuf;
use symgame_gamedb::{Answer, GameDatabase, Layering, Value};
use symgame_ground::GroundTerm;
use symgame_symbolic::SymbolicOptions;

#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("position").required(true).args(["state", "moves", "rank"])))]
pub struct Args {
    /// The database file (written by `symgame export`).
    file: PathBuf,
    /// The game the database was made from (GDL, KIF syntax); a database of another game or
    /// variable order is refused.
    #[arg(long, value_name = "GAME")]
    game: PathBuf,
    /// The state as its true GDL fluents, e.g. "(cell 1 1 x) (control oplayer) ...".
    #[arg(long, value_name = "FLUENTS")]
    state: Option<String>,
    /// The state after these moves from the initial state, e.g. "(mark 2 2) (mark 1 2)".
    #[arg(long, value_name = "MOVES")]
    moves: Option<String>,
    /// The state of this rank: over the whole file, or within the layer given by --layer.
    #[arg(long, value_name = "N")]
    rank: Option<u64>,
    /// The layer number (BFS depth) --rank counts in.
    #[arg(long, value_name = "K", requires = "rank", conflicts_with_all = ["state", "moves"])]
    layer: Option<u32>,
    #[command(flatten)]
    output: OutputArgs,
}

#[derive(Serialize)]
struct RoleReward {
    role: String,
    /// The reward (for mixed values: the role's pure security level).
    reward: u8,
    /// Mixed values: the role's value in mixed strategies.
    #[serde(skip_serializing_if = "Option::is_none")]
    mixed: Option<f64>,
}

/// One role's optimal mixed strategy in a simultaneous state.
#[derive(Serialize)]
struct RoleStrategy {
    role: String,
    /// (move, probability) over the role's legal moves.
    moves: Vec<(String, f64)>,
}

#[derive(Serialize)]
struct MoveReport {
    /// The mover's move (or every role's move in a forced state).
    #[serde(rename = "move")]
    text: String,
    /// One move per role.
    joint: Vec<String>,
    optimal: bool,
    /// The successor's value (`None` if the database does not hold it).
    value: Option<Value>,
}

#[derive(Serialize)]
struct Report {
    database: String,
    game: String,
    state: Vec<String>,
    layer: u32,
    rank: u64,
    global_rank: u64,
    rewards: Vec<RoleReward>,
    distance: Option<u32>,
    terminal: bool,
    to_move: Option<String>,
    optimal: Vec<String>,
    moves: Vec<MoveReport>,
    /// Mixed values, where both roles choose: each role's optimal mixed strategy.
    #[serde(skip_serializing_if = "Option::is_none")]
    strategies: Option<Vec<RoleStrategy>>,
}

pub fn run(a: Args) -> Result<(), Failure> {
    let (_, game) = load_game(&a.game, None)?;
    let db = GameDatabase::open(&a.file, game, &SymbolicOptions::default())?;
    let state = if let Some(text) = &a.state {
        let terms = GroundTerm::parse_sequence(text)
            .map_err(|e| Failure::input(format!("--state: {e}")))?;
        db.state_of(&terms).about("--state")?
    } else if let Some(text) = &a.moves {
        let moves = GroundTerm::parse_sequence(text)
            .map_err(|e| Failure::input(format!("--moves: {e}")))?;
        db.play(&moves).about("--moves")?
    } else {
        let rank = a
            .rank
            .expect("clap requires one of --state, --moves, --rank");
        db.unrank(rank, a.layer).about("--rank")?
    };
    let answer = db.answer(&state)?;
    let report = report(&a, &db, &answer);
    if a.output.json {
        print_json(&report)
    } else {
        print_text(&db, &report);
        Ok(())
    }
}

fn report(a: &Args, db: &GameDatabase, ans: &Answer) -> Report {
    let g = db.game();
    let v = &ans.value;
    let moves: Vec<MoveReport> = ans
        .successors
        .iter()
        .map(|s| MoveReport {
            // Where every role chooses, the joint move names each role's move.
            text: db.move_text(&s.joint, ans.mover.filter(|_| ans.strategies.is_none())),
            joint: s
                .joint
                .iter()
                .enumerate()
                .map(|(p, &m)| g.roles[p].moves[m].to_string())
                .collect(),
            optimal: s.optimal,
            value: s.value.clone(),
        })
        .collect();
    Report {
        database: a.file.display().to_string(),
        game: a.game.display().to_string(),
        state: db.fluent_terms(&ans.state),
        layer: v.layer,
        rank: v.rank,
        global_rank: v.global_rank,
        rewards: g
            .roles
            .iter()
            .zip(&v.rewards)
            .enumerate()
            .map(|(i, (r, &reward))| RoleReward {
                role: r.name.to_string(),
                reward,
                mixed: v.mixed.as_ref().and_then(|m| m.get(i).copied()),
            })
            .collect(),
        distance: v.distance,
        terminal: ans.terminal,
        to_move: ans.mover.map(|p| g.roles[p].name.to_string()),
        optimal: moves
            .iter()
            .filter(|m| m.optimal)
            .map(|m| m.text.clone())
            .collect(),
        moves,
        strategies: ans.strategies.as_ref().map(|per_role| {
            per_role
                .iter()
                .enumerate()
                .map(|(p, moves)| RoleStrategy {
                    role: g.roles[p].name.to_string(),
                    moves: moves
                        .iter()
                        .map(|&(m, prob)| (g.roles[p].moves[m].to_string(), prob))
                        .collect(),
                })
                .collect()
        }),
    }
}

fn rewards_text(rewards: &[u8]) -> String {
    rewards
        .iter()
        .map(|r| r.to_string())
        .collect::<Vec<_>>()
        .join("/")
}

fn print_text(db: &GameDatabase, r: &Report) {
    let m = db.metadata();
    let layers = match m.layers {
        Layering::BfsDepth => format!("{} layers by BFS depth", db.database().num_layers()),
        Layering::WholeSet => "one layer for the whole reachable set".to_string(),
    };
    println!(
        "database  {} ({}, {}, {layers}, {} states)",
        r.database,
        m.game,
        m.kind,
        db.database().len()
    );
    println!("state     {}", r.state.join(" "));
    println!(
        "rank      {} in layer {} (global rank {})",
        r.rank, r.layer, r.global_rank
    );
    let rewards: Vec<String> = r
        .rewards
        .iter()
        .map(|x| format!("{} {}", x.role, x.reward))
        .collect();
    let mixed: Vec<String> = r
        .rewards
        .iter()
        .filter_map(|x| Some(format!("{} {:.2}", x.role, x.mixed?)))
        .collect();
    if !mixed.is_empty() {
        println!(
            "value     {} in mixed strategies (pure security levels: {})",
            mixed.join(", "),
            rewards.join(", ")
        );
    }
    match r.distance {
        _ if !mixed.is_empty() => {}
        Some(d) => println!(
            "value     {} in {d} moves under optimal play",
            rewards.join(", ")
        ),
        None => println!("value     {} under optimal play", rewards.join(", ")),
    }
    if r.terminal {
        println!("status    terminal");
        return;
    }
    match (&r.strategies, &r.to_move) {
        (Some(per_role), _) => {
            println!("status    simultaneous: every role chooses");
            for s in per_role {
                let moves: Vec<String> =
                    s.moves.iter().map(|(m, p)| format!("{m} {p:.3}")).collect();
                println!("strategy  {}: {}", s.role, moves.join(", "));
            }
        }
        (None, Some(p)) => println!("status    {p} to move"),
        (None, None) => println!("status    a forced move"),
    }
    if r.strategies.is_none() {
        println!("optimal   {}", r.optimal.join(", "));
    }
    for mv in &r.moves {
        let value = match &mv.value {
            Some(v) => match (&v.mixed, v.distance) {
                (Some(m), _) => format!(
                    "{} [{}]",
                    m.iter()
                        .map(|x| format!("{x:.2}"))
                        .collect::<Vec<_>>()
                        .join("/"),
                    rewards_text(&v.rewards)
                ),
                (None, Some(d)) => format!("{} in {d}", rewards_text(&v.rewards)),
                (None, None) => rewards_text(&v.rewards),
            },
            None => "not in the database".to_string(),
        };
        println!(
            "  {} {:24} -> {value}",
            if mv.optimal { "*" } else { " " },
            mv.text
        );
    }
}
