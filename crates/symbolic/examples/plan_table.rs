//! Compares the planning algorithms: `plan_table [--time-limit S] [--pattern GAME=SPEC]...
//! GAME.kif...` runs BFS, bidirectional BFS, Dijkstra and BDDA* (automatic pattern, and the
//! given patterns for that game if any) on each game with the biodivine engine and prints a
//! Markdown table: plan length and cost, wall and CPU time (heuristic included), peak BDD
//! nodes, expanded layers, h of the initial state. The numbers of docs/planning.md come from it.

use std::time::{Duration, Instant};

use symgame_bdd::{Backend, EngineConfig};
use symgame_symbolic::{
    parse_pattern, plan_with_backend, Algorithm, Encoding, Limits, Order, PatternChoice,
    PlanOptions, SymbolicOptions,
};

/// CPU seconds of this process (user + system), from /proc on Linux.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut time_limit = Duration::from_secs(900);
    let mut patterns: Vec<(String, String)> = Vec::new();
    let mut games = Vec::new();
    let mut it = args.into_iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--time-limit" => {
                time_limit = Duration::from_secs_f64(it.next().expect("seconds").parse().unwrap())
            }
            "--pattern" => {
                let p = it.next().expect("GAME=SPEC");
                let (g, spec) = p.split_once('=').expect("GAME=SPEC");
                patterns.push((g.to_string(), spec.to_string()));
            }
            _ => games.push(a),
        }
    }
    println!(
        "| game | algorithm | moves | cost | wall s | CPU s | peak BDD nodes | expanded layers | h(init) |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|");
    for path in &games {
        let game = symgame_ground::load(std::path::Path::new(path), &Default::default())
            .unwrap_or_else(|e| panic!("{e}"));
        let stem = std::path::Path::new(path)
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .to_string();
        let enc = Encoding::new(&game, Order::Heuristic);
        let given: Vec<Vec<usize>> = patterns
            .iter()
            .filter(|(g, _)| *g == stem)
            .map(|(_, spec)| parse_pattern(&game, &enc, spec).unwrap())
            .collect();
        let mut runs: Vec<(String, Algorithm, PatternChoice)> = vec![
            ("BFS".into(), Algorithm::Bfs, PatternChoice::default()),
            (
                "bidirectional BFS".into(),
                Algorithm::Bidir,
                PatternChoice::default(),
            ),
            (
                "Dijkstra".into(),
                Algorithm::Dijkstra,
                PatternChoice::default(),
            ),
            (
                "BDDA*, automatic pattern".into(),
                Algorithm::Astar,
                PatternChoice::default(),
            ),
        ];
        if !given.is_empty() {
            runs.push((
                format!("BDDA*, {} given patterns", given.len()),
                Algorithm::Astar,
                PatternChoice::Given(given),
            ));
        }
        for (label, algorithm, patterns) in runs {
            let opts = PlanOptions {
                algorithm,
                patterns,
                ..PlanOptions::default()
            };
            let limits = Limits {
                time_limit: Some(time_limit),
                ..Default::default()
            };
            let cpu0 = cpu_seconds();
            let t0 = Instant::now();
            let out = plan_with_backend(
                &game,
                Backend::Biodivine,
                &EngineConfig::default(),
                &SymbolicOptions::default(),
                &opts,
                &limits,
                |_| {},
            )
            .unwrap_or_else(|e| panic!("{e}"));
            let wall = t0.elapsed().as_secs_f64();
            let cpu = cpu0
                .zip(cpu_seconds())
                .map_or("-".to_string(), |(a, b)| format!("{:.2}", b - a));
            let (moves, cost) = match (&out.plan, out.stats.stopped) {
                (Some(p), _) => (p.moves.len().to_string(), p.cost.to_string()),
                (None, Some(why)) => (format!("stopped: {why}"), "-".into()),
                (None, None) => ("no plan".into(), "-".into()),
            };
            let h = out.stats.heuristic.as_ref().map_or("-".to_string(), |h| {
                let groups: Vec<String> = h
                    .patterns
                    .iter()
                    .map(|p| p.groups.len().to_string())
                    .collect();
                format!(
                    "{} ({} groups, built in {:.2} s)",
                    h.h_init.map_or("inf".into(), |v| v.to_string()),
                    groups.join("+"),
                    h.seconds
                )
            });
            println!(
                "| {stem} | {label} | {moves} | {cost} | {wall:.2} | {cpu} | {} | {} | {h} |",
                out.stats.peak_nodes, out.stats.expanded_layers
            );
        }
    }
}
