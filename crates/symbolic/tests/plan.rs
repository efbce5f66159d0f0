//! Planning: every algorithm finds a plan of the optimal length or cost, replayed by the
//! explicit reasoner and compared with the `.expect` fixtures and with an explicit Dijkstra;
//! pattern-database heuristics never overestimate the explicit goal distance.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use symgame_bdd::{Backend, BddEngine, BiodivineEngine, EngineConfig, OxiddEngine};
use symgame_explicit::Reasoner;
use symgame_ground::GroundGame;
use symgame_symbolic::{
    build_heuristic, goal_states, parse_pattern, pattern_order, plan_with_backend, Algorithm,
    Costs, Encoding, EncodingKind, Limits, Order, PatternChoice, PlanError, PlanOptions,
    PlanOutcome, StopReason, SymbolicGame, SymbolicOptions,
};
use symgame_testkit::{load_game as load, Expect, ExplicitGraph};

/// A number from the game's `.expect` fixture.
fn expected(name: &str, key: &str) -> Option<u64> {
    Expect::of(name).number(key)
}

/// Explicit graph of the reachable states: successors with their joint-move costs, and which
/// states are goal states (terminal, with `value` for role 0).
struct Graph {
    explicit: ExplicitGraph,
    succ: Vec<Vec<(usize, u64)>>,
    goal: Vec<bool>,
}

fn explicit_graph(game: &GroundGame, value: u8) -> Graph {
    let r = Reasoner::new(game);
    let costs = Costs::of(game);
    let explicit = ExplicitGraph::new(&r);
    let succ = (0..explicit.len())
        .map(|i| {
            let edges = explicit.succ[i].iter().zip(&explicit.joints[i]);
            edges.map(|(&t, j)| (t, costs.joint(j))).collect()
        })
        .collect();
    let goal = (0..explicit.len())
        .map(|i| explicit.terminal[i] && r.goal(&explicit.states[i], 0) == Some(value))
        .collect();
    Graph {
        explicit,
        succ,
        goal,
    }
}

/// Least cost from every state to a goal state (explicit backward Dijkstra).
fn distances_to_goal(g: &Graph) -> Vec<Option<u64>> {
    let mut pred: Vec<Vec<(usize, u64)>> = vec![Vec::new(); g.explicit.len()];
    for (s, out) in g.succ.iter().enumerate() {
        for &(t, c) in out {
            pred[t].push((s, c));
        }
    }
    let mut dist = vec![None; g.explicit.len()];
    let mut heap = BinaryHeap::new();
    for (i, &is_goal) in g.goal.iter().enumerate() {
        if is_goal {
            heap.push(Reverse((0u64, i)));
        }
    }
    while let Some(Reverse((d, s))) = heap.pop() {
        if dist[s].is_some() {
            continue;
        }
        dist[s] = Some(d);
        for &(p, c) in &pred[s] {
            if dist[p].is_none() {
                heap.push(Reverse((d + c, p)));
            }
        }
    }
    dist
}

fn limits() -> Limits {
    Limits::default()
}

/// Plans `name` with `algorithm` and checks the plan by explicit replay; returns (moves, cost).
fn plan_and_replay(
    name: &str,
    game: &GroundGame,
    algorithm: Algorithm,
    patterns: PatternChoice,
    backend: Backend,
) -> (usize, u64) {
    // Given patterns are groups of the plain encoding (tile patterns: the compact encoding
    // groups the 8-puzzle by cell, so a tile's positions span every group).
    let sym = SymbolicOptions {
        encoding: match patterns {
            PatternChoice::Given(_) => EncodingKind::Plain,
            PatternChoice::Auto { .. } => EncodingKind::Compact,
        },
        ..SymbolicOptions::default()
    };
    let opts = PlanOptions {
        algorithm,
        patterns,
        ..PlanOptions::default()
    };
    let out = plan_with_backend(
        game,
        backend,
        &EngineConfig::small(),
        &sym,
        &opts,
        &limits(),
        |_| {},
    )
    .unwrap();
    assert_eq!(out.stats.stopped, None, "{name} {algorithm}");
    let plan = out
        .plan
        .unwrap_or_else(|| panic!("{name} {algorithm}: no plan"));
    assert_eq!(plan.states.len(), plan.moves.len() + 1);
    let costs = Costs::of(game);
    let r = Reasoner::new(game);
    let mut s = r.initial_state();
    assert_eq!(s.fluents().collect::<Vec<_>>(), plan.states[0]);
    for (k, jm) in plan.moves.iter().enumerate() {
        assert!(
            !r.is_terminal(&s),
            "{name} {algorithm}: step {k} after the end"
        );
        for (role, &m) in jm.iter().enumerate() {
            assert!(
                r.legal_moves(&s, role).contains(&m),
                "{name} {algorithm}: illegal step {k}"
            );
        }
        assert_eq!(plan.step_costs[k], costs.joint(jm));
        s = r.next_state(&s, jm);
        assert_eq!(s.fluents().collect::<Vec<_>>(), plan.states[k + 1]);
    }
    assert!(r.is_terminal(&s), "{name} {algorithm}");
    assert_eq!(r.goal(&s, 0), Some(100), "{name} {algorithm}");
    assert_eq!(plan.cost, plan.step_costs.iter().sum::<u64>());
    assert!(out.stats.expanded_layers > 0 || plan.moves.is_empty());
    assert_eq!(
        out.stats.heuristic.is_some(),
        algorithm == Algorithm::Astar,
        "{name} {algorithm}"
    );
    (plan.moves.len(), plan.cost)
}

fn auto() -> PatternChoice {
    PatternChoice::default()
}

#[test]
fn hanoi_plans_have_2_pow_n_minus_1_moves_with_every_algorithm() {
    for (n, name) in [(3, "hanoi_3.kif"), (4, "hanoi_4.kif"), (5, "hanoi_5.kif")] {
        let game = load(name);
        let len = (1u64 << n) - 1;
        assert_eq!(expected(name, "plan_length"), Some(len));
        for algo in Algorithm::ALL {
            let (moves, cost) = plan_and_replay(name, &game, algo, auto(), Backend::Biodivine);
            assert_eq!((moves as u64, cost), (len, len), "{name} {algo}");
        }
        // The other engine agrees.
        let (moves, _) = plan_and_replay(name, &game, Algorithm::Astar, auto(), Backend::Oxidd);
        assert_eq!(moves as u64, len, "{name} on oxidd");
    }
}

/// 8-puzzle pattern databases over the positions of some tiles, combined by maximum (all keep
/// the blank, tile 0). `specs`: the tile lists.
fn eight_puzzle_patterns(game: &GroundGame, specs: &[&[u8]]) -> PatternChoice {
    let enc = Encoding::new(game, Order::Heuristic);
    PatternChoice::Given(
        specs
            .iter()
            .map(|tiles| {
                let spec: Vec<String> = tiles.iter().map(|t| format!("(cell ?r ?c {t})")).collect();
                parse_pattern(game, &enc, &spec.join(" ")).unwrap()
            })
            .collect(),
    )
}

/// The classic pair for the hard instance: tiles 1-4 and tiles 5-8, each with the blank.
const HARD: &[&[u8]] = &[&[0, 1, 2, 3, 4], &[0, 5, 6, 7, 8]];
/// Smaller databases for the easy instance (cheaper to build).
const EASY: &[&[u8]] = &[&[0, 1, 2], &[0, 3, 4]];

/// The 8-puzzle instance `name`: `algos`, each with the pattern databases over the tile lists
/// `specs`, find a plan of `length` moves.
fn check_eight_puzzle(name: &str, specs: &[&[u8]], algos: &[Algorithm], length: usize) {
    let game = load(name);
    assert_eq!(expected(name, "plan_length"), Some(length as u64));
    for &algo in algos {
        let patterns = eight_puzzle_patterns(&game, specs);
        let (moves, cost) = plan_and_replay(name, &game, algo, patterns, Backend::Biodivine);
        assert_eq!((moves, cost), (length, length as u64), "{algo}");
    }
}

#[test]
fn eight_puzzle_easy_plans_have_8_moves_with_every_algorithm() {
    check_eight_puzzle("eight_puzzle_easy.kif", EASY, &Algorithm::ALL, 8);
}

/// The hard 8-puzzle instance: `algos`, each with the two classic pattern databases, find a
/// plan of 31 moves.
fn check_eight_puzzle_31(algos: &[Algorithm]) {
    check_eight_puzzle("eight_puzzle.kif", HARD, algos, 31);
}

/// A* with two pattern databases takes seconds.
#[test]
fn eight_puzzle_at_distance_31_by_astar() {
    check_eight_puzzle_31(&[Algorithm::Astar]);
}

/// The other algorithms expand ~1.3 M states, and so does A* with the automatic pattern.
#[test]
#[ignore = "heavy: the blind algorithms expand ~1.3 M 8-puzzle states (minutes)"]
fn eight_puzzle_at_distance_31_by_every_algorithm() {
    check_eight_puzzle_31(&Algorithm::ALL);
    let name = "eight_puzzle.kif";
    let game = load(name);
    let (moves, _) = plan_and_replay(name, &game, Algorithm::Astar, auto(), Backend::Biodivine);
    assert_eq!(moves, 31, "automatic pattern");
}

#[test]
fn with_action_costs_the_cheapest_plan_is_not_the_shortest() {
    let name = "toll_roads.kif";
    let game = load(name);
    let shortest = expected(name, "plan_length").unwrap();
    let cheapest = expected(name, "plan_cost").unwrap();
    assert!(cheapest < 9 && shortest == 1);
    // An independent explicit Dijkstra agrees with the fixture.
    let graph = explicit_graph(&game, 100);
    assert_eq!(distances_to_goal(&graph)[0], Some(cheapest));
    for backend in Backend::ALL {
        for algo in Algorithm::ALL {
            let (moves, cost) = plan_and_replay(name, &game, algo, auto(), backend);
            if algo.minimises_cost() {
                assert_eq!(cost, cheapest, "{algo} on {backend}");
                assert!(moves as u64 > shortest, "{algo}: {moves} moves");
            } else {
                assert_eq!(moves as u64, shortest, "{algo} on {backend}");
                assert!(cost > cheapest, "{algo}: cost {cost}");
            }
        }
    }
}

/// h(s) <= the explicit least cost to the goal for every reachable state, and h(s) is
/// infinite only where the goal is unreachable.
fn check_admissible<E: BddEngine>(
    engine: &E,
    game: &GroundGame,
    patterns: &[Vec<usize>],
    with_auto: bool,
) {
    let enc = Encoding::new(game, Order::Heuristic);
    let g = SymbolicGame::new(engine, game, enc, &SymbolicOptions::default()).unwrap();
    let costs = Costs::of(game);
    let goal = goal_states(&g, 0, 100).unwrap();
    let graph = explicit_graph(game, 100);
    let dist = distances_to_goal(&graph);
    let mut choices: Vec<PatternChoice> = patterns
        .iter()
        .map(|p| PatternChoice::Given(vec![p.clone()]))
        .collect();
    choices.push(PatternChoice::Given(patterns.to_vec()));
    if with_auto {
        choices.push(auto());
    }
    for choice in choices {
        let (h, _) = build_heuristic(game, &g, &costs, &goal, &choice, &limits())
            .unwrap()
            .unwrap();
        let mut exact = 0;
        for (i, s) in graph.explicit.states.iter().enumerate() {
            let fl: Vec<usize> = s.fluents().collect();
            let v = h.value_of_set(engine, &g.state(&fl).unwrap()).unwrap();
            match (v, dist[i]) {
                (Some(hv), Some(d)) => {
                    assert!(hv <= d, "h {hv} > distance {d} with {choice:?}");
                    exact += usize::from(hv == d);
                }
                (None, Some(d)) => panic!("h infinite, distance {d} with {choice:?}"),
                (_, None) => {}
            }
        }
        // Goal states have h = 0: the heuristic is not vacuous there.
        assert!(exact > 0, "{choice:?}");
    }
}

#[test]
fn pattern_databases_never_overestimate() {
    for name in [
        "hanoi_3.kif",
        "hanoi_4.kif",
        "toll_roads.kif",
        "climb_rewards.kif",
        "eight_puzzle_easy.kif",
    ] {
        let game = load(name);
        let enc = Encoding::new(&game, Order::Heuristic);
        let n = enc.num_vars();
        let groups = enc.groups().len();
        let e = BiodivineEngine::new(n, &EngineConfig::small()).unwrap();
        let g = SymbolicGame::new(&e, &game, enc.clone(), &SymbolicOptions::default()).unwrap();
        let goal = goal_states(&g, 0, 100).unwrap();
        let (order, _) = pattern_order(&game, &g, &goal);
        let eight = name.starts_with("eight");
        // Prefixes of the automatic order, every other group, and every group; on the
        // 8-puzzle (large abstractions are slow to build) short prefixes and three tiles.
        let patterns = if eight {
            vec![
                order[..3].to_vec(),
                order[..12].to_vec(),
                parse_pattern(&game, &enc, "(cell ?r ?c 0) (cell ?r ?c 1) (cell ?r ?c 2)").unwrap(),
            ]
        } else {
            vec![
                order[..order.len().min(3)].to_vec(),
                order[..order.len() / 2].to_vec(),
                (0..groups).step_by(2).collect(),
                (0..groups).collect(),
            ]
        };
        check_admissible(&e, &game, &patterns, !eight);
        if name == "hanoi_3.kif" {
            let o = OxiddEngine::new(n, &EngineConfig::small()).unwrap();
            check_admissible(&o, &game, &patterns, true);
        }
    }
}

/// Plans on biodivine with the default encoding.
fn plan(game: &GroundGame, opts: PlanOptions, limits: Limits) -> Result<PlanOutcome, PlanError> {
    let (config, sym) = (EngineConfig::small(), SymbolicOptions::default());
    plan_with_backend(
        game,
        Backend::Biodivine,
        &config,
        &sym,
        &opts,
        &limits,
        |_| {},
    )
}

/// [`PlanOptions`] with `algorithm`, the rest default.
fn with_algorithm(algorithm: Algorithm) -> PlanOptions {
    PlanOptions {
        algorithm,
        ..PlanOptions::default()
    }
}

#[test]
fn limits_stop_planning_with_a_reason() {
    let game = load("hanoi_5.kif");
    for algo in Algorithm::ALL {
        let cancel = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
        let cancelled = Limits {
            cancel: Some(cancel),
            ..Default::default()
        };
        let out = plan(&game, with_algorithm(algo), cancelled).unwrap();
        assert_eq!(out.stats.stopped, Some(StopReason::Cancelled), "{algo}");
        assert!(out.plan.is_none());
        let opts = PlanOptions {
            patterns: PatternChoice::Given(vec![]),
            ..with_algorithm(algo)
        };
        let few_nodes = Limits {
            max_nodes: Some(30),
            ..Default::default()
        };
        let out = plan(&game, opts, few_nodes).unwrap();
        assert_eq!(out.stats.stopped, Some(StopReason::NodeLimit), "{algo}");
    }
}

#[test]
fn several_roles_need_a_chosen_role() {
    let game = load("tictactoe.kif");
    let err = plan(&game, PlanOptions::default(), limits()).unwrap_err();
    assert!(err.to_string().contains("2 roles"), "{err}");
    // With a role, all roles cooperate: x completes a line after 5 plies.
    let opts = PlanOptions {
        role: Some(0),
        ..with_algorithm(Algorithm::Dijkstra)
    };
    let out = plan(&game, opts, limits()).unwrap();
    let plan = out.plan.expect("a plan");
    assert_eq!(plan.moves.len(), 5);
    // Each joint move costs the sum of both roles' moves (the noop included).
    assert_eq!(plan.cost, 10);
}

#[test]
fn an_unreachable_goal_gives_no_plan() {
    let game = load("hanoi_3.kif");
    for algo in Algorithm::ALL {
        let opts = PlanOptions {
            goal: 50,
            ..with_algorithm(algo)
        };
        let out = plan(&game, opts, limits()).unwrap();
        assert_eq!(out.stats.stopped, None, "{algo}");
        assert!(out.plan.is_none(), "{algo}");
    }
}
