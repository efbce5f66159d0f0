//! `symgame reach`: symbolic breadth-first search with exact per-layer counts.

use crate::args::{EncodingArgs, EngineArgs, GameArg, LayerRunArgs, Reaching};
use crate::failure::{Classify, Failure, Kind};
use crate::output::{print_json, Usage};
use crate::progress::Progress;
use crate::signals;
use serde::Serialize;
use std::sync::{Arc, Mutex};
use std::time::Instant;
use symgame_symbolic::{
    Encoding, EncodingKind, ExplicitRun, GroupRetry, KeptReachJob, Order, Phase, ReachJob,
    ReachStats, ReachStore, Retry, SetupLog, SlicePass, Slicing, StopReason, SymbolicError,
    SymbolicOptions,
};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    game: GameArg,
    #[command(flatten)]
    engine: EngineArgs<Reaching>,
    #[command(flatten)]
    encoding: EncodingArgs,
    /// Merge per-move relations (same turn) while a merged relation has at most N BDD nodes
    /// (0: one relation per joint move).
    #[arg(long, value_name = "N", default_value_t = SymbolicOptions::default().cluster_nodes)]
    cluster_nodes: usize,
    /// Merge terminal parts while a merged part has at most N BDD nodes (0: one per part).
    #[arg(long, value_name = "N", default_value_t = SymbolicOptions::default().terminal_cluster_nodes)]
    terminal_cluster_nodes: usize,
    /// Keep each finished layer in this directory (created if missing), and go on from the
    /// layers found there: a stopped or killed search resumes from its last finished layer,
    /// over the encoding it began with (the fingerprint of the game and encoding must match),
    /// and its seconds count over all sittings. A complete search is reported as found.
    #[arg(long, value_name = "DIR")]
    resume: Option<std::path::PathBuf>,
    /// --jobs N (with --resume DIR): each large layer's successors found in slices by
    /// `symgame reach-slice` jobs (games compiled once over all states; a game compiled within
    /// each layer expands every layer in this process). See docs/distributed.md.
    #[command(flatten)]
    jobs: crate::slices::JobsArgs,
    /// How --jobs split a forward layer: `clusters` (each job the whole layer under the
    /// transition clusters whose index is its own modulo the slice count) or `states` (each job
    /// the layer's states of its cube under every cluster). Default: states.
    #[arg(long, value_name = "clusters|states")]
    split: Option<symgame_symbolic::SliceSplit>,
    // The time limit bounds grounding too.
    #[command(flatten)]
    run: LayerRunArgs,
}

/// Machine and run facts reported with the table.
#[derive(Serialize)]
struct RunFacts {
    /// Fluents of the ground game.
    fluents: usize,
    /// State bits of the encoding.
    bits: u32,
    /// Fluent groups with more than one fluent.
    mutex_groups: usize,
    /// The variable order used (`auto` resolved).
    order_used: Order,
    /// Seconds of the whole set-up: grounding, encoding and compilation ([`whole_setup`]).
    setup_seconds: f64,
    /// The set-up's phases (grounding, mutex proof, compilation, relations, clustering) with
    /// their seconds and the engine's live nodes at their end.
    setup_phases: Vec<Phase>,
    #[serde(flatten)]
    usage: Usage,
}

/// What the run was asked to do.
#[derive(Clone, Serialize)]
struct Header {
    game: String,
    backend: String,
    threads: usize,
    encoding: EncodingKind,
    order: Order,
}

#[derive(Serialize)]
struct Report<'a> {
    #[serde(flatten)]
    header: &'a Header,
    #[serde(flatten)]
    facts: RunFacts,
    #[serde(flatten)]
    stats: &'a ReachStats,
}

/// What a run has finished, kept up to date for the watchdog, which ends a run stuck in one BDD
/// operation and prints this first.
#[derive(Default)]
struct Finished {
    /// Fluents, bits, mutex groups and set-up seconds, once the encoding is built.
    encoding: Option<(usize, u32, usize, Order, f64)>,
    /// The statistics after the last finished layer.
    stats: Option<ReachStats>,
    /// The layers expanded explicitly before the set-up.
    explicit: Vec<ExplicitLayer>,
}

/// A layer expanded explicitly, as reported when the symbolic set-up stopped.
#[derive(Clone, Serialize)]
struct ExplicitLayer {
    /// States first reached at this depth (a decimal string, as in the symbolic layers).
    states: String,
    /// Of those, the terminal ones.
    terminal: String,
}

pub fn run(a: Args) -> Result<(), Failure> {
    let started = Instant::now();
    a.run.plot.check(&a.game.game)?;
    let config = a.engine.config()?;
    let clock = a.run.limits.start();
    let header = Header {
        game: a.game.display().to_string(),
        backend: a.engine.backend.to_string(),
        threads: a.engine.threads,
        encoding: a.encoding.encoding,
        order: a.encoding.order_or_auto(),
    };
    let log = SetupLog::new();
    let finished = Arc::new(Mutex::new(Finished::default()));
    {
        let (header, log, finished, json, plot) = (
            header.clone(),
            log.clone(),
            finished.clone(),
            a.run.output.json,
            a.run.plot.plot.clone(),
        );
        signals::on_watchdog(move || {
            let done = finished.lock().unwrap_or_else(|e| e.into_inner());
            let phases = log.phases();
            if let (Some((fluents, bits, mutex_groups, order_used, setup_seconds)), Some(stats)) =
                (done.encoding, done.stats.as_ref())
            {
                let mut stats = stats.clone();
                stats.stopped = Some(StopReason::TimeLimit);
                let facts = RunFacts {
                    fluents,
                    bits,
                    mutex_groups,
                    order_used,
                    setup_seconds: whole_setup(setup_seconds, &phases),
                    setup_phases: phases,
                    usage: Usage::since(started),
                };
                print_report(&header, facts, &stats, json);
                if let Some(Err(e)) = plot
                    .as_ref()
                    .map(|p| crate::plot::reach(p, &header.game, &stats))
                {
                    eprintln!("{e}");
                }
            } else {
                let _ = report_setup(&header, &phases, &done.explicit, "time limit reached", json);
            }
        });
    }
    let progress = Progress::with_setup(a.run.progress.progress, a.run.output.json, &log);
    log.start("grounding");
    let game = match a.game.load(clock.time_left()) {
        Ok(game) => game,
        Err(f) => {
            // Stopped while reading or grounding: the report says so, also under --json.
            if f.kind == Kind::Limit {
                progress.clear();
                report_setup(
                    &header,
                    &log.phases(),
                    &[],
                    &f.to_string(),
                    a.run.output.json,
                )?;
                crate::plot::not_drawn(a.run.plot.plot.as_deref());
            }
            return Err(f);
        }
    };
    log.finish(None);
    let mut store = match &a.resume {
        Some(dir) => Some(ReachStore::open(dir, &game)?),
        None => None,
    };
    let slicing = slicing(&a, &clock)?;
    // The encoding of the search found in --resume DIR, used by the first attempt only.
    let mut stored = store
        .as_ref()
        .and_then(|s| s.previous())
        .map(|m| m.encoding.clone());
    // After a break of an assumed group, the set-up runs again with the groups assumed
    // without the one that broke, or with proven groups only (`GroupRetry`).
    let mut retry = GroupRetry::new();
    // The run on assumed groups that broke (of those that broke, the one with the most
    // layers): its layers before the break are exact, and stand if the run after it stops
    // before it gets as far.
    let mut broken: Option<(ReachStats, u32, usize, f64)> = None;
    let mut order_used: Order;
    let (stats, bits, mutex_groups, setup_seconds) = loop {
        let resumed = stored.take();
        let explicit = match resumed {
            Some(_) => None,
            None => a.run.explicit_run(&game, &clock, &log),
        };
        if let (Some(run), Ok(mut done)) = (&explicit, finished.lock()) {
            done.explicit = explicit_layers(run);
        }
        let known = retry.known(explicit.as_ref().map(ExplicitRun::known));
        let opts = SymbolicOptions {
            cluster_nodes: a.cluster_nodes,
            terminal_cluster_nodes: a.terminal_cluster_nodes,
            goals: false,
            // Reachability needs only images: a game too large to compile once is compiled
            // within each layer.
            layerwise_fallback: true,
            move_vars: true,
            // Where the mutex proof gives up, the groups that playouts did not break are
            // assumed and checked by the search; if one breaks, the set-up runs again.
            assume_groups: retry.assume_groups(),
            reassume_groups: retry.reassume_groups(),
            known_states: known.as_ref().map(|k| k.0.clone()),
            known_states_all: known.as_ref().is_some_and(|k| k.1),
            setup_log: Some(log.clone()),
            // The explicit prefix expanded the whole game: its layers are only encoded (and
            // where it knows every state, the groups are read off them: `known_states_all`).
            layerwise_only: explicit.as_ref().is_some_and(ExplicitRun::complete),
            order: a.encoding.order_or_auto(),
            ..a.encoding.options(&clock)
        };
        let encoding = match resumed {
            Some(enc) => enc,
            None => {
                let enc = Encoding::with_options(&game, &opts);
                if let Some(s) = store.as_mut() {
                    s.begin(&game, &enc)?;
                }
                enc
            }
        };
        let setup_seconds = started.elapsed().as_secs_f64();
        order_used = encoding.order();
        let (bits, mutex_groups) = (
            encoding.num_bits(),
            encoding
                .fluent_groups()
                .iter()
                .filter(|g| g.fluents.len() > 1)
                .count(),
        );
        if let Ok(mut done) = finished.lock() {
            done.encoding = Some((
                game.fluents.len(),
                bits,
                mutex_groups,
                encoding.order(),
                setup_seconds,
            ));
        }
        let limits = a.engine.bound(a.run.limits.limits(&clock));
        let setup = a.engine.setup(&game, encoding, &config, &opts);
        let explicit_done = explicit.as_ref().map(explicit_layers).unwrap_or_default();
        let on_layer = |s: &ReachStats| {
            progress.reach(s);
            if let Ok(mut done) = finished.lock() {
                done.stats = Some(s.clone());
            }
        };
        let stats = match store.as_mut() {
            Some(store) => setup.run(KeptReachJob {
                limits: &limits,
                explicit,
                store,
                slicing: slicing.as_ref(),
                progress: on_layer,
            }),
            None => setup.run(ReachJob {
                settings: &limits,
                explicit,
                progress: on_layer,
            }),
        };
        let stats = match stats {
            // The bar goes on through the retry.
            Ok(stats) if stats.assumption_broken && retry.assume_groups() => {
                log.start("retry");
                let layer = stats.layers.len();
                log.note(
                    match retry.after_break(&game, stats.break_witness.as_deref()) {
                        Retry::Reassume { states } => format!(
                        "an assumed fluent group breaks in layer {layer}: set-up again with the \
                         groups assumed without it ({states} states at the break known)"
                    ),
                        Retry::ProvenOnly => format!(
                            "an assumed fluent group breaks in layer {layer}: set-up again with \
                         proven groups only"
                        ),
                    },
                );
                log.finish(None);
                if broken
                    .as_ref()
                    .is_none_or(|b| b.0.layers.len() < stats.layers.len())
                {
                    broken = Some((stats, bits, mutex_groups, setup_seconds));
                }
                continue;
            }
            Ok(stats) => match broken.take() {
                Some((mut first, b, m, s))
                    if stats.stopped.is_some() && first.layers.len() > stats.layers.len() =>
                {
                    first.stopped = stats.stopped;
                    break (first, b, m, s);
                }
                _ => stats,
            },
            Err(e) if broken.is_some() && e.kind() == Kind::Limit => {
                // The retry's set-up stopped: the exact layers before the break are the result.
                let (mut first, b, m, s) = broken.take().expect("checked");
                first.stopped = Some(match &e {
                    SymbolicError::Stopped(why)
                    | SymbolicError::Bdd(symgame_bdd::BddError::Stopped(why)) => *why,
                    SymbolicError::TooManyJointMoves { .. } => StopReason::NodeLimit,
                    _ => StopReason::OutOfMemory,
                });
                break (first, b, m, s);
            }
            Err(e) => {
                // Stopped or failed in the set-up: say how far it got, also under --json.
                progress.clear();
                let failure = Failure::from(e).about(a.game.display());
                let (phases, json) = (log.phases(), a.run.output.json);
                report_setup(&header, &phases, &explicit_done, &failure.to_string(), json)?;
                crate::plot::not_drawn(a.run.plot.plot.as_deref());
                return Err(failure);
            }
        };
        break (stats, bits, mutex_groups, setup_seconds);
    };
    progress.clear();
    if let (Some(e), Some(store)) = (&stats.slice_error, &store) {
        return Err(Failure::new(
            Kind::Internal,
            format!(
                "{e}; the search stopped after {} finished layers, kept in {}",
                stats.layers.len(),
                store.dir().display()
            ),
        ));
    }
    if let (Some(e), Some(store)) = (&stats.store_error, &store) {
        let dir = store.dir().display();
        let kept = match stats.layers.len() {
            // Stopped while reading the search back: its manifest is as it was.
            0 => format!("the layers finished before are kept in {dir}"),
            n => format!("the search stopped after {n} finished layers, kept in {dir}"),
        };
        return Err(Failure::new(Kind::Input, format!("{e}; {kept}")));
    }
    let setup_phases = log.phases();
    let facts = RunFacts {
        fluents: game.fluents.len(),
        bits,
        mutex_groups,
        order_used,
        setup_seconds: whole_setup(setup_seconds, &setup_phases),
        setup_phases,
        usage: Usage::since(started),
    };
    print_report(&header, facts, &stats, a.run.output.json);
    let plot = match &a.run.plot.plot {
        Some(p) => crate::plot::reach(p, &header.game, &stats),
        None => Ok(()),
    };
    let run = match stats.stopped {
        None => Ok(()),
        Some(why) => Err(Failure::limit(format!(
            "{why} after {} complete layers{}; the table above is partial",
            stats.layers.len(),
            stats
                .stop_note
                .as_ref()
                .map_or(String::new(), |n| format!(" ({n})"))
        ))),
    };
    crate::plot::outcome(plot, run)
}

/// The slicing of a search kept in `--resume DIR` with `--jobs`, `--slices` or `--slurm`.
fn slicing(a: &Args, clock: &crate::args::Clock) -> Result<Option<Slicing>, Failure> {
    let Some(dir) = &a.resume else {
        if a.jobs.asked() {
            return Err(Failure::input(
                "--jobs, --slices and --slurm need --resume DIR: the jobs share the search's \
                 layer files",
            ));
        }
        return Ok(None);
    };
    let extra = [
        ("--cluster-nodes", a.cluster_nodes),
        ("--terminal-cluster-nodes", a.terminal_cluster_nodes),
    ];
    let mut extra: Vec<std::ffi::OsString> = extra
        .iter()
        .flat_map(|(flag, n)| [flag.into(), n.to_string().into()])
        .collect();
    if let Some(split) = a.split {
        extra.extend(["--split".into(), split.name().into()]);
    }
    let spec = crate::slices::JobSpec {
        pass: SlicePass::Forward,
        game: &a.game.game,
        dir,
        engine: &a.engine,
        limits: &a.run.limits,
        extra,
    };
    let slicing = a.jobs.slicing(&spec, clock)?;
    Ok(slicing.map(|s| Slicing {
        split: a.split,
        ..s
    }))
}

/// What a run that ended in its set-up reports: the phases it went through, and the layers
/// expanded explicitly before it (empty if none).
#[derive(Serialize)]
struct SetupReport<'a> {
    game: String,
    setup_phases: &'a [Phase],
    layers: &'a [ExplicitLayer],
    partitioning: &'static str,
    stopped: String,
}

/// The seconds of the whole set-up: those of its phases (the compilation after the encoding
/// included, every sitting's when assumed groups broke and it ran again), at least
/// `until_encoding` (the seconds until the encoding was built).
fn whole_setup(until_encoding: f64, phases: &[Phase]) -> f64 {
    phases
        .iter()
        .map(|p| p.seconds)
        .sum::<f64>()
        .max(until_encoding)
}

fn explicit_layers(run: &ExplicitRun) -> Vec<ExplicitLayer> {
    run.layers
        .iter()
        .chain(&run.frontier_layer())
        .map(|&(states, terminal)| ExplicitLayer {
            states: states.to_string(),
            terminal: terminal.to_string(),
        })
        .collect()
}

/// Prints the report, as JSON or as a table.
fn print_report(header: &Header, facts: RunFacts, stats: &ReachStats, json: bool) {
    if json {
        // Printing can only fail on a closed stdout, where there is no one to tell.
        let _ = print_json(&Report {
            header,
            facts,
            stats,
        });
    } else {
        print_text(header, &facts, stats);
    }
}

fn report_setup(
    header: &Header,
    phases: &[Phase],
    explicit: &[ExplicitLayer],
    stopped: &str,
    json: bool,
) -> Result<(), Failure> {
    if json {
        print_json(&SetupReport {
            game: header.game.clone(),
            setup_phases: phases,
            layers: explicit,
            partitioning: if explicit.is_empty() {
                ""
            } else {
                "explicit only (the symbolic set-up stopped)"
            },
            stopped: stopped.to_string(),
        })
    } else {
        if !explicit.is_empty() {
            println!("{:>5} {:>22} {:>22}", "layer", "states", "terminal");
            for (i, l) in explicit.iter().enumerate() {
                println!("{i:>5} {:>22} {:>22}", l.states, l.terminal);
            }
            println!("(found explicitly, state by state; the symbolic set-up stopped)");
        }
        eprintln!("set-up: {}", phases_text(phases));
        Ok(())
    }
}

/// `grounding 0.01 s, mutex 0.20 s, conditions 1.52 s (40,112 nodes), relations 3.0 s so far`.
fn phases_text(phases: &[Phase]) -> String {
    let one = |p: &Phase| {
        let nodes = p.nodes.map(|n| format!(" ({n} nodes)")).unwrap_or_default();
        let open = if p.finished {
            ""
        } else {
            " so far, unfinished"
        };
        let note = p
            .note
            .as_ref()
            .map(|n| format!(" [{n}]"))
            .unwrap_or_default();
        format!("{} {:.2} s{nodes}{open}{note}", p.name, p.seconds)
    };
    phases.iter().map(one).collect::<Vec<_>>().join(", ")
}

fn print_text(h: &Header, facts: &RunFacts, stats: &ReachStats) {
    println!(
        "{:>5} {:>22} {:>22} {:>12} {:>10} {:>12} {:>9}",
        "layer", "states", "terminal", "BDD nodes", "seconds", "table nodes", "peak MiB"
    );
    let or_dash = |v: Option<String>| v.unwrap_or_else(|| "-".to_string());
    for (i, l) in stats.layers.iter().enumerate() {
        println!(
            "{:>5} {:>22} {:>22} {:>12} {:>10.3} {:>12} {:>9}",
            i,
            l.states,
            l.terminal,
            l.nodes,
            l.seconds,
            or_dash(l.engine_nodes.map(|n| n.to_string())),
            or_dash(l.peak_resident.map(|b| (b >> 20).to_string())),
        );
    }
    println!(
        "total {:>22} {:>22} {:>12} {:>10.3}",
        stats.states, stats.terminal, "", stats.seconds
    );
    println!(
        "{} backend ({} threads), {:?} encoding ({} fluents in {} bits, {} groups), {:?} \
         order, {}; setup {:.2} s, {}",
        h.backend,
        h.threads,
        h.encoding,
        facts.fluents,
        facts.bits,
        facts.mutex_groups,
        facts.order_used,
        if stats.partitioning == "within each layer" {
            "compiled within each layer".to_string()
        } else {
            format!("{} partitions ({})", stats.partitions, stats.partitioning)
        },
        facts.setup_seconds,
        facts.usage.text(),
    );
    println!("set-up: {}", phases_text(&facts.setup_phases));
    if stats.sittings > 1 {
        println!(
            "resumed: sitting {} of this search; its seconds count over all sittings",
            stats.sittings
        );
    }
    print_sliced(stats);
    if stats.explicit_layers > 0 {
        println!(
            "the first {} layers were expanded state by state (explicit reasoner)",
            stats.explicit_layers
        );
    }
    if stats.explicit_later > 0 {
        println!(
            "{} later layers were expanded state by state, where that was measured cheaper than \
             the symbolic way",
            stats.explicit_later
        );
    }
}

/// One line per layer expanded in slices: its jobs' image seconds and peak nodes, the merge.
fn print_sliced(stats: &ReachStats) {
    for (k, l) in stats.layers.iter().enumerate() {
        let Some(s) = &l.sliced else { continue };
        let seconds: Vec<String> = s.solve_seconds.iter().map(|t| format!("{t:.2}")).collect();
        let peak: Vec<String> = s.peak_nodes.iter().map(usize::to_string).collect();
        println!(
            "layer {k} expanded in {} slices by {}: jobs' images {} s, peak nodes {}; merged in \
             {:.2} s",
            s.slices,
            s.split.unwrap_or_default().name(),
            seconds.join(" "),
            peak.join(" "),
            s.merge_seconds
        );
    }
}
