//! `symgame info`: roles, sizes, grounding time and warnings of a game.

use crate::args::{load_game, GameArg, OutputArgs, TimeLimitArgs};
use crate::failure::Failure;
use crate::output::print_json;
use serde::Serialize;
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    game: GameArg,
    // The time limit bounds reading, parsing, checking and grounding.
    #[command(flatten)]
    time: TimeLimitArgs,
    /// Also list the fluents and the moves of each role.
    #[arg(long)]
    list: bool,
    // Last, as in every command.
    #[command(flatten)]
    output: OutputArgs,
}

#[derive(Serialize)]
struct RoleInfo {
    name: String,
    moves: usize,
}

#[derive(Serialize)]
struct Info {
    game: String,
    rules: usize,
    roles: Vec<RoleInfo>,
    fluents: usize,
    moves: usize,
    initial_fluents: usize,
    static_tuples: usize,
    dynamic_atoms: usize,
    ground_rules: usize,
    gates: usize,
    wires: usize,
    cyclic_blocks: usize,
    seconds: f64,
    warnings: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fluent_list: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    move_lists: Option<Vec<Vec<String>>>,
}

pub fn run(a: Args) -> Result<(), Failure> {
    let started = Instant::now();
    let clock = a.time.start();
    let (desc, game) = load_game(&a.game.game, clock.time_left())?;
    let info = Info {
        game: a.game.display().to_string(),
        rules: desc.rules.len(),
        roles: game
            .roles
            .iter()
            .map(|r| RoleInfo {
                name: r.name.to_string(),
                moves: r.moves.len(),
            })
            .collect(),
        fluents: game.fluents.len(),
        moves: game.num_moves(),
        initial_fluents: game.init.len(),
        static_tuples: game.stats.static_tuples,
        dynamic_atoms: game.stats.dynamic_atoms,
        ground_rules: game.stats.ground_rules,
        gates: game.stats.gates,
        wires: game.stats.wires,
        cyclic_blocks: game.stats.cyclic_blocks,
        seconds: started.elapsed().as_secs_f64(),
        warnings: game.warnings.clone(),
        fluent_list: a
            .list
            .then(|| game.fluents.iter().map(|f| f.to_string()).collect()),
        // A move with an action cost other than 1 (`cost` relation) shows it.
        move_lists: a.list.then(|| {
            game.roles
                .iter()
                .map(|r| {
                    r.moves
                        .iter()
                        .zip(&r.costs)
                        .map(|(m, &c)| match c {
                            1 => m.to_string(),
                            c => format!("{m} cost {c}"),
                        })
                        .collect()
                })
                .collect()
        }),
    };
    if a.output.json {
        return print_json(&info);
    }
    println!("game           {}", info.game);
    let roles: Vec<String> = info
        .roles
        .iter()
        .map(|r| format!("{} ({} moves)", r.name, r.moves))
        .collect();
    println!("roles          {}: {}", roles.len(), roles.join(", "));
    println!(
        "fluents        {} ({} true initially)",
        info.fluents, info.initial_fluents
    );
    println!("moves          {}", info.moves);
    println!("rules          {} after normalisation", info.rules);
    println!(
        "grounding      {} static tuples, {} dynamic atoms, {} ground rules",
        info.static_tuples, info.dynamic_atoms, info.ground_rules
    );
    println!(
        "circuit        {} gates, {} wires, {} cyclic blocks",
        info.gates, info.wires, info.cyclic_blocks
    );
    println!("time           {:.3} s", info.seconds);
    if info.warnings.is_empty() {
        println!("warnings       none");
    }
    for w in &info.warnings {
        println!("warning        {w}");
    }
    if let Some(fs) = &info.fluent_list {
        println!("\nfluents:");
        for f in fs {
            println!("  {f}");
        }
    }
    if let Some(ms) = &info.move_lists {
        for (r, ms) in info.roles.iter().zip(ms) {
            println!("\nmoves of {}:", r.name);
            for m in ms {
                println!("  {m}");
            }
        }
    }
    Ok(())
}
