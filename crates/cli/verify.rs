//! `symgame verify`: the symbolic solution checked state by state with the explicit solvers
//! (the check itself is `symgame_verify`; this module parses its flags and prints its report).

use crate::args::{
    symbolic_options, EngineArgs, GameArg, OutputArgs, ProgressArgs, Solving, TimeLimitArgs,
};
use crate::failure::{Context, Failure};
use crate::output::print_json;
use crate::progress::Progress;
use serde::Serialize;
use std::path::PathBuf;
use symgame_prove::Algo;
use symgame_symbolic::{GraphBudget, SymbolicOptions};
use symgame_verify::{verify, Mode, Report, Sampling, VerifyOptions};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    game: GameArg,
    /// Check the solution in this directory (from `symgame solve --out`) instead of solving now.
    #[arg(long, value_name = "DIR")]
    solution: Option<PathBuf>,
    /// Check every reachable state when there are at most this many; otherwise a sample.
    #[arg(long, value_name = "N", default_value_t = Sampling::default().all_limit)]
    all_limit: u64,
    /// Number of reachable states to sample (uniformly, with replacement) in bigger games.
    #[arg(long, value_name = "N", default_value_t = Sampling::default().size)]
    sample: usize,
    /// Seed of the sample.
    #[arg(long, default_value_t = Sampling::default().seed)]
    seed: u64,
    /// Explicit algorithms, comma-separated: pn, pn2, dfpn, alphabeta, backward, or all (the
    /// four searches). Max^n solutions and the security levels of simultaneous or many-role
    /// games are always checked by backward induction.
    #[arg(long, default_value = "dfpn,alphabeta")]
    algo: String,
    /// Node limit of each explicit search; a search that hits it leaves its state undecided.
    #[arg(long, value_name = "N", default_value_t = VerifyOptions::default().search_nodes)]
    node_limit: u64,
    // The symbolic side's engine.
    #[command(flatten)]
    engine: EngineArgs<Solving>,
    #[command(flatten)]
    time: TimeLimitArgs,
    #[command(flatten)]
    progress: ProgressArgs,
    #[command(flatten)]
    output: OutputArgs,
}

/// The library's report, with the game.
#[derive(Serialize)]
struct GameReport<'a> {
    game: String,
    #[serde(flatten)]
    report: &'a Report,
}

fn parse_algos(text: &str) -> Result<Vec<Algo>, Failure> {
    if text == "all" {
        return Ok(Algo::SEARCHES.to_vec());
    }
    text.split(',')
        .map(|s| s.trim().parse::<Algo>().about("--algo"))
        .collect()
}

pub fn run(a: Args) -> Result<(), Failure> {
    let algos = parse_algos(&a.algo)?;
    let engine = a.engine.config()?;
    let clock = a.time.start();
    crate::tempfiles::register_spill();
    let game = a.game.load(None)?;
    let opts = VerifyOptions {
        backend: a.engine.backend,
        engine,
        // A game too large to compile over all states but small enough to expand is solved
        // (and read back) from its explicit graph, as `solve` does.
        symbolic: SymbolicOptions {
            explicit_graph: Some(GraphBudget::default()),
            ..symbolic_options(&clock)
        },
        solution: a.solution.clone(),
        states: Sampling {
            all_limit: a.all_limit,
            size: a.sample,
            seed: a.seed,
        },
        algos,
        search_nodes: a.node_limit,
        limits: a.engine.bound(a.time.limits(&clock)),
    };
    let progress = Progress::new(a.progress.progress, a.output.json);
    let report = verify(&game, &opts, |p| progress.verify(p)).about(a.game.display())?;
    progress.clear();
    if a.output.json {
        print_json(&GameReport {
            game: a.game.display().to_string(),
            report: &report,
        })?;
    } else {
        print_text(&a, &report);
    }
    if report.size_mismatch() {
        return Err(Failure::disagreement(format!(
            "the explicit search reaches {} states, the symbolic solution covers {}",
            report.explicit_states.unwrap_or(0),
            report.reachable_states
        )));
    }
    if let Some(n) = report.nash.as_ref().filter(|n| !n.agrees()) {
        return Err(Failure::disagreement(format!(
            "the one-shot stage games' pure equilibria differ: symbolic {:?}, explicit {:?}",
            n.symbolic, n.explicit
        )));
    }
    if !report.disagreements.is_empty() {
        return Err(Failure::disagreement(format!(
            "{} answers of the explicit solvers contradict the symbolic solution",
            report.disagreements.len()
        )));
    }
    match report.stopped {
        None => Ok(()),
        Some(why) => Err(Failure::limit(format!(
            "{why} after {} checked states; no disagreement so far",
            report.states_checked
        ))),
    }
}

fn print_text(a: &Args, r: &Report) {
    println!("game: {} ({})", a.game.display(), r.kind);
    println!(
        "checked {} of {} reachable states ({}){}, symbolic side {:.3} s",
        r.states_checked,
        r.reachable_states,
        match r.mode {
            Mode::All => "all of them",
            Mode::Sample => "a seeded uniform sample",
        },
        r.explicit_states
            .map(|n| format!("; explicit search reaches {n}"))
            .unwrap_or_default(),
        r.symbolic_seconds
    );
    println!(
        "{:>10} {:>10} {:>10} {:>10} {:>14} {:>9}",
        "algorithm", "agreed", "undecided", "disagreed", "nodes", "seconds"
    );
    for t in &r.algos {
        println!(
            "{:>10} {:>10} {:>10} {:>10} {:>14} {:>9.3}",
            t.algo, t.agreed, t.undecided, t.disagreed, t.nodes_expanded, t.seconds
        );
    }
    for d in &r.disagreements {
        println!(
            "DISAGREEMENT ({}) role {}: symbolic {}, explicit {} in state {}",
            d.algo,
            d.role,
            d.symbolic,
            d.explicit,
            d.state.join(" ")
        );
    }
    if let Some(n) = &r.nash {
        let e = &n.explicit;
        println!(
            "one-shot stage games' pure equilibria: {} (symbolic {} states, {} with one; explicit \
             {} states, {} with one{})",
            if n.agrees() { "agree" } else { "DISAGREE" },
            n.symbolic.one_shot_states,
            n.symbolic.with_equilibrium,
            e.one_shot_states,
            e.with_equilibrium,
            match &e.initial {
                Some(eq) => format!("; the initial state's: {eq:?}"),
                None => String::new(),
            }
        );
    }
    if r.disagreements.is_empty() {
        println!("no disagreement");
    }
}
