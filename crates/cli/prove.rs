//! `symgame prove`: the value of a position by explicit proof-number search or alpha-beta.

use crate::args::{GameArg, LimitArgs, OutputArgs};
use crate::failure::{Context, Failure};
use crate::output::print_json;
use serde::Serialize;
use symgame_explicit::{play_moves, Reasoner};
use symgame_ground::GroundTerm;
use symgame_limits::Guard;
use symgame_prove::{
    solve_matrix_game, solve_value, Algo, Config, GameModel, Induction, InductionError,
    InductionRule, Stats, ValueOutcome,
};

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
    /// Also the value in mixed strategies of a two-player game (the first role maximises its
    /// reward, the second minimises it: the constant-sum reading), by backward induction with
    /// each simultaneous step a matrix game solved by LP, and both roles' optimal mixed
    /// strategies at the position.
    #[arg(long)]
    mixed: bool,
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
    /// With `--mixed`.
    mixed: Option<Mixed>,
}

/// The value in mixed strategies at the position, and each role's optimal mixed strategy
/// (moves with their probabilities; empty at a terminal position).
#[derive(Serialize)]
struct Mixed {
    /// The first role's value in mixed strategies.
    value: f64,
    strategies: Vec<(String, Vec<(String, f64)>)>,
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
        mixed: None,
    };
    if a.mixed {
        report.mixed = Some(mixed(&r, &game, &start, &config.limits, &a)?);
    }
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
    if let (Some(m), false) = (&report.mixed, a.output.json) {
        println!(
            "{:10} value {} in mixed strategies",
            report.roles[0].role, m.value
        );
        for (role, moves) in &m.strategies {
            let list: Vec<String> = moves
                .iter()
                .map(|(mv, p)| format!("{mv} {:.4}", p))
                .collect();
            println!("{role:10} optimal mixed strategy: {}", list.join(", "));
        }
    }
    match stopped {
        None => Ok(()),
        Some(why) => Err(Failure::limit(format!("search stopped: {why}"))),
    }
}

/// The value of `start` in mixed strategies (two roles) by backward induction, and the optimal
/// mixed strategies of its stage game, solved by LP on its successors' mixed values.
fn mixed(
    r: &Reasoner,
    game: &symgame_ground::GroundGame,
    start: &symgame_explicit::State,
    limits: &symgame_limits::Limits,
    a: &Args,
) -> Result<Mixed, Failure> {
    let guard = Guard::new(limits);
    let mut induction = Induction::new(r, InductionRule::Mixed);
    induction.value(start, &guard).map_err(|e| match e {
        InductionError::Stopped(why) => {
            Failure::limit(format!("mixed values: search stopped: {why}"))
        }
        e => Failure::input(format!("{}: mixed values: {e}", a.game.display())),
    })?;
    let value = induction.mixed(start).unwrap_or_default();
    let mut strategies = Vec::new();
    if !GameModel::is_terminal(r, start) {
        let moves: Vec<Vec<_>> = (0..2).map(|role| r.legal_moves(start, role)).collect();
        let mut payoff = Vec::with_capacity(moves[0].len());
        for &m0 in &moves[0] {
            let row = moves[1]
                .iter()
                .map(|&m1| induction.mixed(&r.next_state(start, &[m0, m1])))
                .collect::<Option<Vec<f64>>>()
                .ok_or_else(|| Failure::internal("a successor has no mixed value"))?;
            payoff.push(row);
        }
        let s = solve_matrix_game(&payoff)
            .map_err(|e| Failure::internal(format!("the stage game's LP failed: {e:?}")))?;
        for (role, probs) in s.strategies.iter().enumerate() {
            let support = moves[role]
                .iter()
                .zip(probs.iter())
                .filter(|(_, &p)| p > 1e-9)
                .map(|(&m, &p)| (game.roles[role].moves[m].to_string(), p))
                .collect();
            strategies.push((game.roles[role].name.to_string(), support));
        }
    }
    Ok(Mixed { value, strategies })
}
