//! `symgame plan`: an optimal plan to a goal state, by symbolic BFS, bidirectional BFS,
//! Dijkstra or BDDA*, replayed through the explicit reasoner.

use crate::args::{
    EncodingArgs, EngineArgs, GameArg, LimitArgs, OutputArgs, Planning, ProgressArgs,
};
use crate::failure::{Context, Failure};
use crate::output::print_json;
use crate::progress::Progress;
use serde::Serialize;
use symgame_explicit::{play_moves, Reasoner};
use symgame_ground::{GroundGame, GroundTerm};
use symgame_symbolic::{
    parse_pattern, plan_with_backend, Algorithm, Direction, Encoding, PatternChoice, Plan,
    PlanOptions, PlanStats, AUTO_MAX_NODES,
};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    game: GameArg,
    /// The search: bfs or bidir (fewest moves), dijkstra or astar (least total cost).
    #[arg(long, default_value = "astar", value_parser = parse_algorithm)]
    algo: Algorithm,
    /// The goal: terminal states where the role gets this reward.
    #[arg(long, value_name = "N", default_value_t = 100)]
    goal: u8,
    /// The role whose reward counts; needed when the game has several roles (all roles then
    /// cooperate: the plan chooses every role's move).
    #[arg(long, value_name = "ROLE")]
    role: Option<String>,
    /// An A* pattern, by hand: fluent groups to keep, as group indexes, relation names (`on`)
    /// or fluent terms where `?x` matches any argument and missing trailing arguments match
    /// anything (`(cell ?r ?c 0)`). Repeat for several pattern databases, combined by maximum.
    /// Without it the pattern is chosen automatically.
    #[arg(long, value_name = "SPEC")]
    pattern: Vec<String>,
    /// Node budget of the automatic pattern selection: BDD nodes per abstract set.
    #[arg(long, value_name = "N", default_value_t = AUTO_MAX_NODES)]
    pattern_nodes: usize,
    #[command(flatten)]
    encoding: EncodingArgs,
    #[command(flatten)]
    engine: EngineArgs<Planning>,
    #[command(flatten)]
    limits: LimitArgs,
    #[command(flatten)]
    progress: ProgressArgs,
    #[command(flatten)]
    output: OutputArgs,
}

#[derive(Serialize)]
struct PlanReport {
    /// The steps as GDL moves (several roles: `role move` pairs separated by `, `).
    moves: Vec<String>,
    step_costs: Vec<u64>,
    length: usize,
    cost: u64,
    /// What the explicit replay found.
    replay: String,
}

#[derive(Serialize)]
struct Report<'a> {
    game: String,
    algorithm: String,
    backend: String,
    role: String,
    goal: u8,
    /// What the plan minimises: "cost" or "moves".
    optimises: &'static str,
    plan: Option<PlanReport>,
    stats: &'a PlanStats,
}

/// `--algo`: an algorithm by its name (in any case), like the CLI's other options of the
/// symbolic crate.
fn parse_algorithm(s: &str) -> Result<Algorithm, String> {
    Algorithm::ALL
        .into_iter()
        .find(|a| a.name().eq_ignore_ascii_case(s))
        .ok_or_else(|| format!("unknown algorithm {s:?} (expected bfs, bidir, dijkstra or astar)"))
}

/// One step in GDL: the move alone in a single-player game, else `role move` for each role.
fn step_text(game: &GroundGame, jm: &[usize]) -> String {
    if game.roles.len() == 1 {
        return game.roles[0].moves[jm[0]].to_string();
    }
    jm.iter()
        .enumerate()
        .map(|(r, &m)| format!("{} {}", game.roles[r].name, game.roles[r].moves[m]))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Replays the plan with the explicit reasoner: every joint move legal in a non-terminal state,
/// the states equal to the symbolic ones, the end terminal with the expected reward; for a
/// single-player game also as GDL text through `play_moves`.
fn replay(game: &GroundGame, plan: &Plan, role: usize, goal: u8) -> Result<String, String> {
    let r = Reasoner::new(game);
    let mut s = r.initial_state();
    let fluents = |s: &symgame_explicit::State| s.fluents().collect::<Vec<usize>>();
    if fluents(&s) != plan.states[0] {
        return Err("the plan does not start in the initial state".into());
    }
    for (k, jm) in plan.moves.iter().enumerate() {
        if r.is_terminal(&s) {
            return Err(format!("step {} comes after the game has ended", k + 1));
        }
        for (role, &m) in jm.iter().enumerate() {
            if !r.legal_moves(&s, role).contains(&m) {
                return Err(format!(
                    "step {} ({}) is not legal",
                    k + 1,
                    step_text(game, jm)
                ));
            }
        }
        s = r.next_state(&s, jm);
        if fluents(&s) != plan.states[k + 1] {
            return Err(format!(
                "after step {} the explicit state differs from the symbolic one",
                k + 1
            ));
        }
    }
    if !r.is_terminal(&s) {
        return Err("the plan does not end in a terminal state".into());
    }
    if r.goal(&s, role) != Some(goal) {
        return Err(format!(
            "the plan ends with reward {:?} for {}, not {goal}",
            r.goal(&s, role),
            game.roles[role].name
        ));
    }
    if game.roles.len() == 1 {
        let text: Vec<String> = plan.moves.iter().map(|jm| step_text(game, jm)).collect();
        let terms = GroundTerm::parse_sequence(&text.join(" "))?;
        let end = play_moves(&r, game, &r.initial_state(), &terms)?;
        if end != s {
            return Err("replaying the GDL moves reaches another state".into());
        }
    }
    Ok(format!(
        "legal, ends in a terminal state with reward {goal} for {}",
        game.roles[role].name
    ))
}

pub fn run(a: Args) -> Result<(), Failure> {
    let config = a.engine.config()?;
    let clock = a.limits.start();
    let game = a.game.load(None)?;
    let role = match &a.role {
        Some(name) => Some(
            game.find_role(name)
                .ok_or_else(|| Failure::input(format!("--role: unknown role {name:?}")))?,
        ),
        None => None,
    };
    let sym = a.encoding.options(&clock);
    let encoding = Encoding::with_options(&game, &sym);
    let patterns = if a.pattern.is_empty() {
        PatternChoice::Auto {
            max_nodes: a.pattern_nodes,
        }
    } else {
        PatternChoice::Given(
            a.pattern
                .iter()
                .map(|spec| {
                    parse_pattern(&game, &encoding, spec).about(format!("--pattern {spec:?}"))
                })
                .collect::<Result<_, _>>()?,
        )
    };
    let opts = PlanOptions {
        role,
        goal: a.goal,
        algorithm: a.algo,
        patterns,
    };
    let limits = a.engine.bound(a.limits.limits(&clock));
    let progress = Progress::new(a.progress.progress, a.output.json);
    let outcome = plan_with_backend(
        &game,
        a.engine.backend,
        &config,
        &sym,
        &opts,
        &limits,
        |s| progress.plan(s),
    )
    .about(a.game.display())?;
    progress.clear();
    let role = role.unwrap_or(0);
    let plan = match &outcome.plan {
        None => None,
        Some(p) => {
            let checked = replay(&game, p, role, a.goal)
                .map_err(|m| Failure::internal(format!("the plan does not replay: {m}")))?;
            Some(PlanReport {
                moves: p.moves.iter().map(|jm| step_text(&game, jm)).collect(),
                step_costs: p.step_costs.clone(),
                length: p.moves.len(),
                cost: p.cost,
                replay: checked,
            })
        }
    };
    let stats = &outcome.stats;
    let report = Report {
        game: a.game.display().to_string(),
        algorithm: a.algo.to_string(),
        backend: a.engine.backend.to_string(),
        role: game.roles[role].name.to_string(),
        goal: a.goal,
        optimises: if a.algo.minimises_cost() {
            "cost"
        } else {
            "moves"
        },
        plan,
        stats,
    };
    if a.output.json {
        print_json(&report)?;
    } else {
        print_text(&report, &game, &encoding);
    }
    match stats.stopped {
        None => Ok(()),
        Some(why) => Err(Failure::limit(format!(
            "{why} after {} expanded layers; no plan yet",
            stats.expanded_layers
        ))),
    }
}

fn print_text(r: &Report, game: &GroundGame, encoding: &Encoding) {
    let s = r.stats;
    println!("game        {}", r.game);
    println!(
        "algorithm   {} (fewest {}), {} backend",
        r.algorithm,
        if r.optimises == "cost" {
            "total cost"
        } else {
            "moves"
        },
        r.backend
    );
    println!(
        "goal        terminal state where {} gets {}",
        r.role, r.goal
    );
    if let Some(h) = &s.heuristic {
        let groups = encoding.groups().len();
        if h.patterns.is_empty() {
            println!("heuristic   h = 0 (no pattern fits the budget)");
        }
        for p in &h.patterns {
            println!(
                "heuristic   pattern of {} of {groups} groups ({} fluents{}): {} abstract states, \
                 {} can reach the goal, max h {}, {} nodes at most, {:.3} s",
                p.groups.len(),
                p.fluents,
                if h.automatic { ", automatic" } else { "" },
                p.abstract_states,
                p.solvable_states,
                p.max_h,
                p.peak_nodes,
                p.seconds
            );
            let groups = encoding.groups();
            let kept: Vec<String> = p
                .groups
                .iter()
                .flat_map(|&i| groups[i].iter().map(|&f| game.fluents[f].to_string()))
                .collect();
            const SHOWN: usize = 12;
            println!(
                "            keeps {}{}",
                kept[..kept.len().min(SHOWN)].join(" "),
                if kept.len() > SHOWN { " ..." } else { "" }
            );
        }
        println!(
            "            h(initial state) = {}",
            h.h_init.map_or("infinite".into(), |v| v.to_string())
        );
    }
    let astar = s.layers.iter().any(|l| l.h.is_some());
    if astar {
        println!(
            "{:>6} {:>6} {:>6} {:>18} {:>10} {:>9}",
            "f", "g", "h", "states", "BDD nodes", "seconds"
        );
    } else {
        println!(
            "{:>9} {:>6} {:>18} {:>10} {:>9}",
            "direction", "g", "states", "BDD nodes", "seconds"
        );
    }
    for l in &s.layers {
        match l.h {
            Some(h) => println!(
                "{:>6} {:>6} {:>6} {:>18} {:>10} {:>9.3}",
                l.g + h,
                l.g,
                h,
                l.states,
                l.nodes,
                l.seconds
            ),
            None => println!(
                "{:>9} {:>6} {:>18} {:>10} {:>9.3}",
                match l.direction {
                    Direction::Forward => "forward",
                    Direction::Backward => "backward",
                },
                l.g,
                l.states,
                l.nodes,
                l.seconds
            ),
        }
    }
    println!(
        "expanded    {} layers, peak {} BDD nodes, {:.3} s",
        s.expanded_layers, s.peak_nodes, s.seconds
    );
    match &r.plan {
        Some(p) => {
            println!(
                "plan        {} moves, cost {} (replayed: {})",
                p.length, p.cost, p.replay
            );
            for (m, c) in p.moves.iter().zip(&p.step_costs) {
                println!("{m} {c}");
            }
        }
        None if s.stopped.is_none() => println!(
            "plan        none: no terminal state where {} gets {} is reachable",
            r.role, r.goal
        ),
        None => {}
    }
}
