//! `symgame explore`: explicit breadth-first enumeration of the reachable states.

use crate::args::{GameArg, OutputArgs, ProgressArgs, TimeLimitArgs};
use crate::failure::Failure;
use crate::output::print_json;
use crate::progress::Progress;
use serde::Serialize;
use symgame_explicit::{explore, Exploration, Limits, Reasoner};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    game: GameArg,
    /// Stop after storing this many states (exit code 3; finished layers are printed).
    #[arg(long, value_name = "N", default_value_t = 50_000_000)]
    state_limit: u64,
    #[command(flatten)]
    time: TimeLimitArgs,
    // Last, as in every command.
    #[command(flatten)]
    progress: ProgressArgs,
    #[command(flatten)]
    output: OutputArgs,
}

#[derive(Serialize)]
struct Report<'a> {
    game: String,
    #[serde(flatten)]
    exploration: &'a Exploration,
    complete: bool,
}

pub fn run(a: Args) -> Result<(), Failure> {
    crate::signals::watch_inside("one step of the explicit reasoner");
    let clock = a.time.start();
    let game = a.game.load(None)?;
    let reasoner = Reasoner::new(&game);
    let limits = Limits {
        max_states: Some(a.state_limit),
        ..a.time.limits(&clock)
    };
    let progress = Progress::new(a.progress.progress, a.output.json);
    let result = explore(&reasoner, &limits, |e| progress.explore(e));
    progress.clear();
    if a.output.json {
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
        Some(why) => Err(Failure::limit(format!(
            "{why} after {} complete layers; the table above is partial",
            result.layers.len()
        ))),
    }
}
