//! `symgame explore`: explicit breadth-first enumeration of the reachable states.

use crate::{cancel_flag, load_game, print_json, Failure};
use serde::Serialize;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;
use symgame_explicit::{explore, Exploration, Limits, Reasoner};

#[derive(clap::Args)]
pub struct Args {
    /// The game description (GDL, KIF syntax).
    game: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// Stop after storing this many states (exit code 3; finished layers are printed).
    #[arg(long, value_name = "N", default_value_t = 50_000_000)]
    state_limit: u64,
    /// Stop after this many seconds (exit code 3; finished layers are printed).
    #[arg(long, value_name = "SECONDS")]
    time_limit: Option<f64>,
}

#[derive(Serialize)]
struct Report<'a> {
    game: String,
    #[serde(flatten)]
    exploration: &'a Exploration,
    complete: bool,
}

pub fn run(a: Args) -> Result<(), Failure> {
    let (_, game) = load_game(&a.game, None)?;
    let reasoner = Reasoner::new(&game);
    let limits = Limits {
        max_states: Some(a.state_limit),
        time_limit: a.time_limit.map(Duration::from_secs_f64),
        cancel: Some(cancel_flag()),
        ..Limits::default()
    };
    let show_progress = !a.json && std::io::stderr().is_terminal();
    let result = explore(&reasoner, &limits, |e| {
        if show_progress {
            let l = e.layers.last().expect("a finished layer");
            eprint!(
                "\rlayer {:>4}: {:>12} states ({:.1} s)   ",
                e.layers.len() - 1,
                l.states,
                l.seconds
            );
        }
    });
    if show_progress {
        eprint!("\r{:60}\r", "");
    }
    if a.json {
        print_json(&Report {
            game: a.game.display().to_string(),
            exploration: &result,
            complete: result.stopped.is_none(),
        })?;
    } else {
        println!(
            "{:>5} {:>14} {:>14} {:>10}",
            "layer", "states", "terminal", "seconds"
        );
        for (i, l) in result.layers.iter().enumerate() {
            println!(
                "{:>5} {:>14} {:>14} {:>10.3}",
                i, l.states, l.terminal, l.seconds
            );
        }
        println!(
            "total {:>14} {:>14}   ({} joint moves applied)",
            result.states, result.terminal, result.updates
        );
    }
    match result.stopped {
        None => Ok(()),
        Some(why) => Err(Failure::Limit(format!(
            "{why} after {} complete layers; the table above is partial",
            result.layers.len()
        ))),
    }
}
