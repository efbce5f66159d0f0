//! `symgame solve`: strong solving by retrograde analysis.

use crate::args::{
    symbolic_options, EngineArgs, GameArg, LayerRunArgs, LayeredArgs, Solving, ValuesArgs,
};
use crate::failure::{Failure, Kind};
use crate::output::{print_json, Usage};
use crate::progress::Progress;
use serde::Serialize;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;
use symgame_ground::GroundGame;
use symgame_symbolic::{
    fingerprint, resumable_encoding, Encoding, ExplicitRun, GameKind, GroupRetry, Order, Phase,
    Retry, SetupLog, SolveError, SolveJob, SolveOptions, SolveStats, StopReason, SymbolicError,
    SymbolicOptions, EXPLICIT_GRAPH_NOTE, PREFER_GRAPH_COMPILE,
};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    game: GameArg,
    /// Write the solution (one BDD per value class, per layer when layered) to this directory
    /// (format: docs/formats/solution.md). Files are written atomically; after a limit or
    /// Ctrl-C the finished layers are kept and the manifest says the solution is incomplete.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// --out DIR, resumable: the forward search's layers are kept in DIR too until the
    /// solution is complete, and the manifest is rewritten after each solved layer. Run again
    /// after a limit, Ctrl-C or a kill, the solve goes on over the encoding it began with: without
    /// the forward search once that is complete, and, when solving layer by layer, from the
    /// last solved layer. A complete solution is reported as found.
    #[arg(long, value_name = "DIR", conflicts_with = "out")]
    resume: Option<PathBuf>,
    #[command(flatten)]
    layered: LayeredArgs,
    #[command(flatten)]
    values: ValuesArgs,
    #[command(flatten)]
    engine: EngineArgs<Solving>,
    /// Variable order: auto (heuristic, rules or given, whichever gives the states the explicit
    /// prefix found the smallest BDD; another than heuristic must be a third of its size,
    /// and given is not taken where heuristic needs under 2,000 nodes),
    /// heuristic, rules or given. The solution records its encoding, order included, and
    /// every reader of it uses that.
    #[arg(long, default_value = "auto", value_parser = crate::args::parse_order)]
    order: Order,
    #[command(flatten)]
    mutex: crate::args::MutexArgs,
    #[command(flatten)]
    jobs: crate::slices::JobsArgs,
    #[command(flatten)]
    run: LayerRunArgs,
}

#[derive(Serialize)]
struct Report<'a> {
    game: String,
    backend: String,
    out: Option<String>,
    /// State bits of the encoding (two BDD variables each).
    bits: u32,
    /// The variable order of the encoding (`auto` resolved).
    order: Option<Order>,
    /// Whether fluent groups were assumed where the mutex proof gave up (each checked on
    /// every reachable state: a break would have solved again with proven groups).
    assumed_groups: bool,
    /// When compiling the game over all states gave up and its relations were built from the
    /// explicit graph of the whole game: that graph's size (`None`: compiled).
    explicit_graph: Option<String>,
    /// The set-up's phases, a retry after a broken assumed group included (as in `reach`).
    setup_phases: &'a [Phase],
    /// Time and memory of the whole command (grounding, encoding, solving, writing).
    #[serde(flatten)]
    usage: Usage,
    #[serde(flatten)]
    stats: &'a SolveStats,
}

/// `100/0` for an outcome.
fn label(o: &[u8]) -> String {
    o.iter()
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join("/")
}

/// Outcome `i` of `st`: its rewards, and for mixed values role 0's mixed value first
/// (`66.67 [50/0]`: mixed value 66.67, pure security levels 50 and 0).
fn outcome_label(st: &SolveStats, i: usize) -> String {
    match st.mixed.get(i).and_then(|m| m.first()) {
        Some(v) => format!("{v:.2} [{}]", label(&st.outcomes[i])),
        None => label(&st.outcomes[i]),
    }
}

/// What the mixed values of outcome `i` mean, their pure bounds and the stage games solved.
fn mixed_verdict(st: &SolveStats, i: usize) -> String {
    let one_by_one = match st.explicit_states {
        0 => String::new(),
        n => format!(" ({n} states valued one at a time: too many stage games to split as sets)"),
    };
    format!(
        "values in mixed strategies; pure security levels {}; {} stage games solved by LP{}, {} \
         classes",
        label(&st.outcomes[i]),
        st.stage_games,
        one_by_one,
        st.outcomes.len()
    )
}

/// What a run that stopped before solving a layer (while compiling the game) reports under
/// `--json`: the set-up's phases and why it stopped.
#[derive(Serialize)]
struct SetupReport<'a> {
    game: String,
    backend: String,
    setup_phases: &'a [Phase],
    stopped: String,
}

/// What the reports of a run name and where they go, shared with the watchdog's last words.
#[derive(Clone)]
struct Names {
    game: String,
    backend: String,
    out: Option<PathBuf>,
    plot: Option<PathBuf>,
    json: bool,
}

impl Names {
    fn of(a: &Args) -> Self {
        Names {
            game: a.game.display().to_string(),
            backend: a.engine.backend.to_string(),
            out: a.out.clone(),
            plot: a.run.plot.plot.clone(),
            json: a.run.output.json,
        }
    }
}

pub fn run(mut a: Args) -> Result<(), Failure> {
    let started = Instant::now();
    let resume = a.resume.is_some();
    if resume {
        a.out = a.resume.clone();
    }
    a.run.plot.check(&a.game.game)?;
    if let Some(dir) = &a.out {
        // The run removes the manifest and `*.sol` files of an earlier solution in `dir`.
        crate::output::refuse_overwrite("--out", dir, &[&a.game.game], &[])?;
        crate::output::refuse_input_inside("--out", dir, &a.game.game)?;
    }
    let config = a.engine.config()?;
    let clock = a.run.limits.start();
    let slicing = match &a.out {
        Some(dir) => {
            let spec = crate::slices::JobSpec {
                pass: symgame_symbolic::SlicePass::Backward,
                game: &a.game.game,
                dir,
                engine: &a.engine,
                limits: &a.run.limits,
                extra: Vec::new(),
            };
            a.jobs.slicing(&spec, &clock)?
        }
        None if a.jobs.jobs > 1 || a.jobs.slices.is_some_and(|n| n > 1) => {
            return Err(Failure::input(
                "--jobs and --slices need --out DIR or --resume DIR: the jobs share the \
                 solve's files",
            ))
        }
        None => None,
    };
    crate::tempfiles::register_spill();
    if let Some(out) = a.out.as_ref().filter(|_| !resume) {
        crate::tempfiles::register_if_new(out);
    }
    let names = Names::of(&a);
    let log = SetupLog::new();
    let progress = Progress::with_setup(a.run.progress.progress, a.run.output.json, &log);
    log.start("grounding");
    let game = Arc::new(a.game.load(None)?);
    log.finish(None);
    let layout = Arc::new(Layout::default());
    let finished = on_watchdog(&names, &log, layout.clone(), started);
    // Where the mutex proof gives up, the groups that playouts did not break are assumed; the
    // forward search checks them on every reachable state, and if one breaks, nothing is
    // solved and the set-up runs again (without the group that broke, or with proven groups
    // only).
    let mut retry = GroupRetry::new();
    // The encoding of a solve found in --resume DIR, used by the first attempt only.
    let mut stored = a.resume.as_ref().and_then(|d| resumable_encoding(d, &game));
    let stats = loop {
        let resumed = stored.take();
        let explicit = match resumed {
            Some(_) => None,
            None => a.run.explicit_run(&game, &clock, &log),
        };
        let known = retry.known(explicit.as_ref().map(ExplicitRun::known));
        let sym = SymbolicOptions {
            setup_log: Some(log.clone()),
            // Reachable states falsify mutex candidates early; the proven groups are the same.
            known_states: known.as_ref().map(|k| k.0.clone()),
            known_states_all: known.as_ref().is_some_and(|k| k.1),
            assume_groups: retry.assume_groups(),
            reassume_groups: retry.reassume_groups(),
            // Too large to compile over all states, small enough to expand: built from the
            // explicit graph of the whole game.
            explicit_graph: a.run.explicit.graph_budget(&clock),
            // Where the explicit prefix expanded the whole game, its graph is soon preferred.
            prefer_graph: explicit
                .as_ref()
                .is_some_and(ExplicitRun::complete)
                .then_some(PREFER_GRAPH_COMPILE),
            order: a.order,
            mutex_seconds: a.mutex.duration(),
            ..symbolic_options(&clock)
        };
        let encoding = resumed.unwrap_or_else(|| Encoding::with_options(&game, &sym));
        layout.bits.store(encoding.num_bits(), Ordering::Relaxed);
        if let Ok(mut order) = layout.order.lock() {
            *order = Some(encoding.order());
        }
        layout.assumed.store(encoding.assumed(), Ordering::Relaxed);
        let opts = SolveOptions {
            layered: a.layered.layered,
            values: a.values.values,
            keep_classes: false,
            out_dir: a.out.clone(),
            spill_dir: None,
            // Slice jobs read the forward layers and the solved layers from the directory.
            resume: resume || slicing.is_some(),
            fingerprint: fingerprint(&game, &encoding),
            nash_budget: None,
            limits: a.engine.bound(a.run.limits.limits(&clock)),
            choice_nodes: None,
            ground: Some(game.clone()),
            stage_groups: None,
            slicing: slicing.clone(),
        };
        let setup = a.engine.setup(&game, encoding, &config, &sym);
        let solving = SolveJob {
            settings: &opts,
            explicit,
            progress: |s: &SolveStats| {
                progress.solve(s);
                if let Ok(mut done) = finished.lock() {
                    *done = Some(s.clone());
                }
            },
        };
        match setup.run(solving) {
            Err(SolveError::AssumedGroupBroken { witness }) if retry.assume_groups() => {
                log.start("retry");
                log.note(match retry.after_break(&game, witness.as_deref()) {
                    Retry::Reassume { states } => format!(
                        "a reachable state breaks an assumed fluent group: set-up again with \
                         the groups assumed without it ({states} states at the break known)"
                    ),
                    Retry::ProvenOnly => "a reachable state breaks an assumed fluent group: \
                                          set-up again with proven groups only"
                        .to_string(),
                });
                log.finish(None);
            }
            r => break r.map_err(|e| failure(&a, &game, e)),
        }
    };
    progress.clear();
    let stats = match stats {
        Ok(stats) => stats,
        Err(f) if f.kind == Kind::Limit => {
            // Stopped in the set-up: the JSON report says how far it got.
            if a.run.output.json {
                print_setup(&names, &log.phases(), &f.to_string())?;
            }
            crate::plot::not_drawn(a.run.plot.plot.as_deref());
            return Err(f);
        }
        Err(f) => return Err(f),
    };
    report(
        &names,
        &stats,
        &layout,
        &log.phases(),
        Usage::since(started),
    )?;
    let plot = write_plot(&names, &stats);
    let run = match stats.stopped {
        None => Ok(()),
        Some(why) => Err(Failure::limit(format!(
            "{why} after {} solved layers; the table above is partial{}",
            stats.layers.len(),
            if a.out.is_some() {
                " and the written solution is marked incomplete"
            } else {
                ""
            }
        ))),
    };
    crate::plot::outcome(plot, run)
}

/// Registers what the watchdog prints when it ends a run stuck in one BDD operation: the
/// solved layers (kept up to date in the returned slot) and their plot, or under `--json` the
/// set-up's phases if no layer was solved.
fn on_watchdog(
    names: &Names,
    log: &SetupLog,
    layout: Arc<Layout>,
    started: Instant,
) -> Arc<Mutex<Option<SolveStats>>> {
    let finished = Arc::new(Mutex::new(None::<SolveStats>));
    let (names, log, done) = (names.clone(), log.clone(), finished.clone());
    crate::signals::on_watchdog(move || {
        let done = done.lock().unwrap_or_else(|e| e.into_inner());
        match done.as_ref() {
            Some(stats) => {
                let mut stats = stats.clone();
                stats.stopped = Some(StopReason::TimeLimit);
                let _ = report(
                    &names,
                    &stats,
                    &layout,
                    &log.phases(),
                    Usage::since(started),
                );
                if let Err(e) = write_plot(&names, &stats) {
                    eprintln!("{e}");
                }
            }
            None if names.json => {
                let _ = print_setup(&names, &log.phases(), "time limit reached");
            }
            None => {}
        }
    });
    finished
}

/// The JSON report of a run stopped in its set-up.
fn print_setup(names: &Names, phases: &[Phase], stopped: &str) -> Result<(), Failure> {
    print_json(&SetupReport {
        game: names.game.clone(),
        backend: names.backend.clone(),
        setup_phases: phases,
        stopped: stopped.to_string(),
    })
}

/// The encoding of the run (set once the encoding is built; again after a retry).
#[derive(Default)]
struct Layout {
    bits: AtomicU32,
    assumed: AtomicBool,
    order: std::sync::Mutex<Option<Order>>,
}

/// Prints the report of a run that solved (some) layers, as JSON or as a table.
fn report(
    names: &Names,
    stats: &SolveStats,
    layout: &Layout,
    phases: &[Phase],
    usage: Usage,
) -> Result<(), Failure> {
    let bits = layout.bits.load(Ordering::Relaxed);
    let assumed_groups = layout.assumed.load(Ordering::Relaxed);
    let order = layout.order.lock().map_or(None, |o| *o);
    // The last set-up (a retry sets up again) built from the explicit graph, if it was.
    let explicit_graph = phases
        .iter()
        .rev()
        .find(|p| p.name == "explicit_graph" || p.name == "retry")
        .and_then(|p| p.note.as_deref())
        .and_then(|n| n.strip_prefix(EXPLICIT_GRAPH_NOTE))
        .map(str::to_string);
    if names.json {
        print_json(&Report {
            game: names.game.clone(),
            backend: names.backend.clone(),
            out: names.out.as_ref().map(|p| p.display().to_string()),
            bits,
            order,
            assumed_groups,
            explicit_graph,
            setup_phases: phases,
            usage,
            stats,
        })
    } else {
        print_text(names, stats);
        let how = if assumed_groups {
            " (fluent groups assumed where the mutex proof gave up, checked on every reachable \
             state)"
        } else {
            ""
        };
        let graph = match &explicit_graph {
            Some(g) => format!("; built from the explicit graph of the whole game ({g})"),
            None => String::new(),
        };
        let order = order.map(|o| format!(", {o:?} order")).unwrap_or_default();
        println!("{bits} state bits{order}{how}{graph}; {}", usage.text());
        Ok(())
    }
}

/// Writes the `--plot` picture, if asked for.
fn write_plot(names: &Names, stats: &SolveStats) -> Result<(), Failure> {
    match &names.plot {
        Some(p) => crate::plot::solve(p, &names.game, stats),
        None => Ok(()),
    }
}

/// A solver error about the game, with the state it names (as GDL fluents) and what a stop
/// during compilation means here.
fn failure(a: &Args, game: &GroundGame, e: SolveError) -> Failure {
    let detail = match &e {
        SolveError::Simultaneous { state } | SolveError::NoLegalMove { state } => {
            let fl: Vec<String> = state.iter().map(|&f| game.fluents[f].to_string()).collect();
            format!(" (state: {})", fl.join(" "))
        }
        SolveError::Symbolic(SymbolicError::Stopped(_)) => {
            " while compiling the game (nothing solved, nothing written)".to_string()
        }
        _ => String::new(),
    };
    let f = Failure::from(e).about(a.game.display());
    Failure::new(f.kind, format!("{}{detail}", f.message))
}

/// Above this many distinct outcomes the layer table drops its per-outcome
/// columns and the most frequent outcomes are listed below it instead.
const MAX_OUTCOME_COLUMNS: usize = 8;

/// The outcomes held by most states, for a table too wide to show them all.
fn print_frequent_outcomes(st: &SolveStats) {
    let mut by_count: Vec<(usize, &num_bigint::BigUint)> =
        st.per_outcome.iter().enumerate().collect();
    by_count.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(&b.0)));
    let shown: Vec<String> = by_count
        .iter()
        .take(MAX_OUTCOME_COLUMNS)
        .map(|(i, n)| format!("{} ({n})", outcome_label(st, *i)))
        .collect();
    println!(
        "{} distinct outcomes; the most frequent (states): {}",
        st.outcomes.len(),
        shown.join(", ")
    );
}

/// The pure equilibria of the one-shot stage games, labelled as exactly that.
fn print_nash(st: &SolveStats, n: &symgame_symbolic::NashStats) {
    if let Some(why) = &n.failed {
        println!("pure Nash equilibria of the one-shot stage games: not computed ({why})");
        return;
    }
    if let Some(reason) = n.stopped {
        println!(
            "pure Nash equilibria of the one-shot stage games: not computed, {reason} after \
             {:.1} s (the report has a budget of its own; the solution above is complete)",
            n.seconds
        );
        return;
    }
    println!(
        "pure Nash equilibria of the one-shot stage games (states whose every joint move ends \
         the game): {} such states, {} of them with a pure equilibrium ({} distinct stage games)",
        n.one_shot_states, n.with_equilibrium, n.stage_games
    );
    match &n.initial {
        Some(eq) if eq.is_empty() => {
            println!("the initial state is a one-shot stage game without a pure equilibrium")
        }
        Some(eq) => {
            let list: Vec<String> = eq.iter().map(|o| label(o)).collect();
            println!(
                "the initial state is a one-shot stage game; its pure equilibria give {} ({})",
                list.join(", "),
                st.roles.join("/")
            )
        }
        None => println!(
            "(no claim about the equilibria of earlier states: the stage games there depend on \
             which equilibria follow)"
        ),
    }
}

fn print_text(a: &Names, st: &SolveStats) {
    let how = if st.layered {
        "solved layer by layer"
    } else {
        "solved on the whole reachable set"
    };
    println!("game: {} ({}, {how})", a.game, st.kind);
    match st.initial {
        Some(i) => {
            let o = &st.outcomes[i];
            let rewards: Vec<String> = match st.mixed.get(i) {
                Some(m) => st
                    .roles
                    .iter()
                    .zip(m)
                    .map(|(r, v)| format!("{r} {v:.2}"))
                    .collect(),
                None => st
                    .roles
                    .iter()
                    .zip(o)
                    .map(|(r, v)| format!("{r} {v}"))
                    .collect(),
            };
            let verdict = match st.kind {
                GameKind::SinglePlayer => match st.initial_distance {
                    Some(d) => format!("best reward in {d} moves"),
                    None => String::new(),
                },
                GameKind::GeneralSum => "general-sum rewards".to_string(),
                GameKind::MaxN => "max^n outcome".to_string(),
                GameKind::MixedValues => mixed_verdict(st, i),
                GameKind::SecurityLevels => {
                    "security levels: what each role can guarantee in pure strategies".to_string()
                }
                _ if o[0] > o[1] => format!("{} wins", st.roles[0]),
                _ if o[0] < o[1] => format!("{} wins", st.roles[1]),
                _ => "draw".to_string(),
            };
            println!("initial state: {} ({verdict})", rewards.join(", "));
        }
        None => println!("initial state: not solved"),
    }
    let two = st.layers.iter().any(|l| l.mover.is_some());
    // One column per outcome while they fit on a line; security-level vectors
    // of general-sum games can number in the hundreds.
    let columns = if st.outcomes.len() <= MAX_OUTCOME_COLUMNS {
        st.outcomes.len()
    } else {
        0
    };
    let mut header = format!("{:>5} {:>16} {:>14}", "layer", "states", "terminal");
    for i in 0..columns {
        header.push_str(&format!(" {:>14}", outcome_label(st, i)));
    }
    if two {
        header.push_str(&format!(" {:>14} {:>14} {:>14}", "won", "drawn", "lost"));
    }
    header.push_str(&format!(" {:>10} {:>9}", "BDD nodes", "seconds"));
    println!("{header}");
    for l in &st.layers {
        let mut row = format!("{:>5} {:>16} {:>14}", l.depth, l.states, l.terminal);
        for o in 0..columns {
            let n = l.per_outcome.get(o).cloned().unwrap_or_default();
            row.push_str(&format!(" {n:>14}"));
        }
        if let Some(m) = &l.mover {
            row.push_str(&format!(" {:>14} {:>14} {:>14}", m.won, m.drawn, m.lost));
        }
        row.push_str(&format!(" {:>10} {:>9.3}", l.nodes, l.seconds));
        println!("{row}");
    }
    let mut total = format!("{:>5} {:>16} {:>14}", "total", st.states, "");
    for n in st.per_outcome.iter().take(columns) {
        total.push_str(&format!(" {n:>14}"));
    }
    println!("{total}");
    if columns < st.outcomes.len() {
        print_frequent_outcomes(st);
    }
    if two {
        println!("won/drawn/lost: non-terminal states, seen from the role to move");
    }
    println!(
        "forward search {:.3} s, total {:.3} s, peak BDD {} nodes ({} backend)",
        st.reach_seconds, st.seconds, st.peak_nodes, a.backend
    );
    if st.explicit_layers > 0 {
        println!(
            "the first {} layers of the forward search were expanded state by state (explicit \
             reasoner)",
            st.explicit_layers
        );
    }
    if let Some(n) = &st.nash {
        print_nash(st, n);
    }
    if st.unsolved > num_bigint::BigUint::default() {
        println!(
            "{} reachable states have no value (they cannot reach a terminal state)",
            st.unsolved
        );
    }
    let r = &st.resumed;
    if r.forward_layers > 0 || r.layers > 0 {
        println!(
            "resumed: {} layers of the forward search found finished{}, {} layers found solved \
             (in {:.3} s of earlier sittings, counted in the seconds above)",
            r.forward_layers,
            if r.forward { " (all of them)" } else { "" },
            r.layers,
            r.earlier_seconds
        );
    }
    if let Some(dir) = &a.out {
        println!("solution written to {}", dir.display());
    }
}
