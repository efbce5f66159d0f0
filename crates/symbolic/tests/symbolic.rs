//! Cross-checks of the symbolic searches against explicit enumeration (symgame-explicit is a
//! dev-dependency only) and between the two BDD engines.

use std::collections::{HashSet, VecDeque};
use std::path::{Path as FsPath, PathBuf};

use num_bigint::BigUint;
use symgame_bdd::{Backend, BddEngine, BiodivineEngine, EngineConfig, OxiddEngine};
use symgame_explicit::{explore, Limits, Reasoner, State};
use symgame_ground::GroundGame;
use symgame_symbolic::{
    reach, shortest_path_within, Encoding, EncodingKind, ExplicitLayerMode, ExplicitPrefix,
    GraphBudget, Order, ReachJob, ReachStats, Setup, SymbolicGame, SymbolicOptions,
    TERMINAL_WITHIN,
};
use symgame_testkit::{
    corpus_game, layerwise_options, load, load_game, root, Expect, ExplicitGraph,
};

/// Counts the reachable layers of `game` on `backend` (small engine configuration) within
/// `limits`.
fn reach_within(
    game: &GroundGame,
    backend: Backend,
    opts: &SymbolicOptions,
    limits: &Limits,
) -> ReachStats {
    reach_with_prefix(game, backend, opts, limits, None)
}

/// [`reach_within`], expanding the layers of at most `explicit` states explicitly.
fn reach_with_prefix(
    game: &GroundGame,
    backend: Backend,
    opts: &SymbolicOptions,
    limits: &Limits,
    explicit: Option<usize>,
) -> ReachStats {
    let config = EngineConfig::small();
    let setup = Setup::new(game, backend, &config, opts);
    let progress = |_: &ReachStats| {};
    setup
        .run(ReachJob {
            settings: limits,
            explicit: explicit.map(|n| {
                let mut prefix = ExplicitPrefix::new(game, n, 1e9);
                // Further after the set-up when compiled within each layer.
                prefix.layerwise_states = n.saturating_mul(10);
                // Bounded by states only, which the caller checks layer by layer (the bound
                // on successors has its own test).
                prefix.max_successors = usize::MAX;
                prefix.run(limits)
            }),
            progress,
        })
        .unwrap()
}

fn symbolic_layers(
    game: &GroundGame,
    backend: Backend,
    opts: &SymbolicOptions,
    explicit: Option<usize>,
) -> ReachStats {
    let stats = reach_with_prefix(game, backend, opts, &Limits::default(), explicit);
    assert_eq!(stats.stopped, None);
    stats
}

/// Compares symbolic layer and terminal counts with explicit exploration; `None` if the game
/// has more than `max_states` states.
fn cross_check(path: &FsPath, max_states: u64) -> Option<u64> {
    let game = load(path);
    let r = Reasoner::new(&game);
    let ex = explore(
        &r,
        &Limits {
            max_states: Some(max_states),
            ..Default::default()
        },
        |_| {},
    );
    if ex.stopped.is_some() {
        return None;
    }
    let layerwise = layerwise_options();
    let variants = [
        (Backend::Biodivine, SymbolicOptions::default(), None),
        (Backend::Oxidd, SymbolicOptions::default(), None),
        // The first layers explicitly: while under 50 states (then symbolically), or all.
        (Backend::Oxidd, SymbolicOptions::default(), Some(50)),
        (
            Backend::Biodivine,
            SymbolicOptions::default(),
            Some(usize::MAX),
        ),
        (Backend::Biodivine, layerwise.clone(), Some(50)),
        (
            Backend::Biodivine,
            SymbolicOptions {
                order: Order::Given,
                encoding: EncodingKind::Plain,
                cluster_nodes: 5_000,
                ..Default::default()
            },
            None,
        ),
        (
            Backend::Biodivine,
            SymbolicOptions {
                order: Order::Rules,
                encoding: EncodingKind::Compact,
                terminal_cluster_nodes: 10_000,
                ..Default::default()
            },
            None,
        ),
        // Compiled once, every layer after the prefix expanded state by state (its sets built
        // as BDDs from their codes, the new layer's terminal states cut as a whole).
        (
            Backend::Oxidd,
            SymbolicOptions {
                explicit_layers: ExplicitLayerMode::Always,
                ..Default::default()
            },
            Some(50),
        ),
        // Compiled within each layer (no condition may be compiled once over all states),
        // with conditions cut to the layer when large, always, and never.
        (Backend::Biodivine, layerwise.clone(), None),
        (
            Backend::Oxidd,
            SymbolicOptions {
                layerwise_cut_nodes: 0,
                ..layerwise.clone()
            },
            None,
        ),
        // ... and never (every gate exact but a cyclic block's, which is always cut): the counts
        // must not depend on where gates are cut.
        (
            Backend::Biodivine,
            SymbolicOptions {
                layerwise_cut_nodes: usize::MAX,
                ..layerwise.clone()
            },
            None,
        ),
        // Compiled within each layer, every layer after the prefix expanded state by state
        // instead, and the race by measured rates (the default).
        (
            Backend::Oxidd,
            SymbolicOptions {
                explicit_layers: ExplicitLayerMode::Always,
                ..layerwise.clone()
            },
            Some(50),
        ),
        (
            Backend::Biodivine,
            SymbolicOptions {
                explicit_layers: ExplicitLayerMode::Measured,
                ..layerwise.clone()
            },
            None,
        ),
        // Compiling within a layer fails (more than one joint move is too many) and no race:
        // such a layer is expanded state by state only because compiling failed.
        (
            Backend::Biodivine,
            SymbolicOptions {
                explicit_layers: ExplicitLayerMode::Fallback,
                max_joint_moves: 1,
                ..layerwise
            },
            None,
        ),
    ];
    // Oxidd on the 8-puzzle (conjunct-list relation) is too slow for the test budget.
    let eight = path.to_string_lossy().contains("eight_puzzle");
    for (backend, opts, explicit) in variants {
        if eight && backend == Backend::Oxidd {
            continue;
        }
        let st = symbolic_layers(&game, backend, &opts, explicit);
        let layerwise = opts.layerwise_fallback;
        assert_eq!(st.partitioning.starts_with("within each layer"), layerwise);
        // Every layer of at most `n` states is explicit (`10 n` when compiled within each
        // layer: the run goes on after the set-up).
        let cap = explicit.map(|n| if layerwise { n.saturating_mul(10) } else { n });
        let small = ex
            .layers
            .iter()
            .take_while(|l| cap.is_some_and(|n| l.states as usize <= n))
            .count();
        assert_eq!(st.explicit_layers, small, "{}", path.display());
        // The layers after the prefix: state by state when asked to, never when forbidden.
        match opts.explicit_layers {
            ExplicitLayerMode::Always if ex.layers.len() > small + 1 => {
                assert!(st.explicit_later > 0, "{}", path.display())
            }
            ExplicitLayerMode::Never => assert_eq!(st.explicit_later, 0, "{}", path.display()),
            // Forced only: counted, to check that some game needed it.
            ExplicitLayerMode::Fallback if st.explicit_later > 0 => {
                FORCED_SEEN.store(true, std::sync::atomic::Ordering::Relaxed)
            }
            _ => {}
        }
        let sym: Vec<(BigUint, BigUint)> = st
            .layers
            .iter()
            .map(|l| (l.states.clone(), l.terminal.clone()))
            .collect();
        let exp: Vec<(BigUint, BigUint)> = ex
            .layers
            .iter()
            .map(|l| (BigUint::from(l.states), BigUint::from(l.terminal)))
            .collect();
        assert_eq!(sym, exp, "{} on {backend} {opts:?}", path.display());
        assert_eq!(st.states, BigUint::from(ex.states));
    }
    Some(ex.states)
}

/// Whether some game of [`cross_check`] had a layer expanded state by state because compiling
/// it failed (the variant with [`ExplicitLayerMode::Fallback`]).
static FORCED_SEEN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

#[test]
fn layer_counts_match_explicit_on_all_small_games() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("gdl"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "kif"))
        .collect();
    files.sort();
    let mut checked = Vec::new();
    for f in &files {
        // Large games: skip by their .expect state count before exploring.
        let expect = f.with_extension("expect");
        if expect.exists() && Expect::read(&expect).number("states") > Some(200_000) {
            continue;
        }
        if let Some(n) = cross_check(f, 200_000) {
            checked.push((f.file_name().unwrap().to_string_lossy().to_string(), n));
        }
    }
    let names: Vec<&str> = checked.iter().map(|c| c.0.as_str()).collect();
    for must in [
        "tictactoe.kif",
        "connect4_4x4.kif",
        "hanoi_3.kif",
        "nim_1_2_3.kif",
    ] {
        assert!(names.contains(&must), "{must} not checked: {names:?}");
    }
    assert!(
        FORCED_SEEN.load(std::sync::atomic::Ordering::Relaxed),
        "no layer was expanded state by state because compiling it failed"
    );
}

#[test]
#[ignore = "corpus: needs the GGP corpus at ../shared/gdl-corpus"]
fn corpus_tictactoe_matches_explicit() {
    let p = corpus_game("ticTacToe.kif");
    assert_eq!(cross_check(&p, 200_000), Some(5478));
}

#[test]
fn tictactoe_layers_on_both_backends() {
    let game = load_game("tictactoe");
    for b in Backend::ALL {
        let st = symbolic_layers(&game, b, &SymbolicOptions::default(), None);
        let layers: Vec<String> = st.layers.iter().map(|l| l.states.to_string()).collect();
        assert_eq!(
            layers.join(" "),
            "1 9 72 252 756 1260 1520 1140 390 78",
            "{b}"
        );
        assert_eq!(st.states, BigUint::from(5478u32));
        assert_eq!(st.terminal, BigUint::from(958u32));
        let json = serde_json_like(&st);
        assert!(json.contains("5478"));
    }
}

/// A game compiled within each layer answers `image` and `and_not_terminal` as the game
/// compiled once does, and refuses what needs the relation over all states.
#[test]
fn a_game_compiled_within_each_layer_images_and_refuses_pre_images() {
    let game = load_game("tictactoe");
    let enc = Encoding::new(&game, Order::Heuristic);
    let e = BiodivineEngine::new(enc.num_vars(), &EngineConfig::small()).unwrap();
    let once = SymbolicGame::new(&e, &game, enc.clone(), &SymbolicOptions::default()).unwrap();
    let within = SymbolicGame::new(&e, &game, enc, &layerwise_options()).unwrap();
    assert!(within.is_layerwise() && !once.is_layerwise());
    // Layer by layer to the sixth, where some states are terminal (a line after five marks).
    let layer = same_images(&once, &within, 6);
    let open = once.and_not_terminal(&layer).unwrap();
    assert_ne!(open, layer, "layer 6 holds terminal states");
    assert_eq!(within.and_not_terminal(&layer).unwrap(), open);
    assert!(within.pre_image(&layer).is_err());
    assert!(within.strong_pre_image(&layer).is_err());
    assert!(within.terminal().is_err());
}

/// Where only the terminal condition is over the conditions' cap, the relations are compiled
/// once and each layer's terminal states are cut within it: every layer, and its terminal
/// states, as the game compiled once counts them (tic-tac-toe's lines are larger BDDs than
/// its moves; Connect Four 4×4's too).
#[test]
fn a_terminal_cut_within_each_layer_counts_the_layers_of_the_game_compiled_once() {
    for name in ["tictactoe", "connect4_4x4"] {
        let game = load_game(name);
        // The smallest cap the moves fit in: the terminal condition is over it.
        let capped = (1..=12)
            .map(|k| SymbolicOptions {
                max_condition_nodes: 1 << k,
                ..layerwise_options()
            })
            .find(|opts| {
                symbolic_layers(&game, Backend::Biodivine, opts, None).partitioning
                    == TERMINAL_WITHIN
            })
            .unwrap_or_else(|| panic!("{name}: no cap cuts the terminal within each layer"));
        // Without a search to cut them (`solve`'s options), the terminal states are not left
        // to the layers: the game falls back to its explicit graph.
        let enc = Encoding::new(&game, Order::Heuristic);
        let e = BiodivineEngine::new(enc.num_vars(), &EngineConfig::small()).unwrap();
        let solving = SymbolicOptions {
            layerwise_fallback: false,
            explicit_graph: Some(GraphBudget::default()),
            ..capped.clone()
        };
        let g = SymbolicGame::new(&e, &game, enc, &solving).unwrap();
        assert!(!g.is_terminal_within() && g.is_from_graph(), "{name}");
        let once = symbolic_layers(&game, Backend::Biodivine, &SymbolicOptions::default(), None);
        for b in Backend::ALL {
            let within = symbolic_layers(&game, b, &capped, None);
            assert_eq!(within.partitioning, TERMINAL_WITHIN, "{name} {b}");
            let counts = |st: &ReachStats| {
                st.layers
                    .iter()
                    .map(|l| (l.states.clone(), l.terminal.clone()))
                    .collect::<Vec<_>>()
            };
            assert_eq!(counts(&within), counts(&once), "{name} {b}");
            assert!(within.terminal > BigUint::from(0u32), "{name}");
        }
    }
}

/// Past the conditions' cap in the gates of a first joint move (the eight puzzle's
/// conditions fit 20 nodes, its first move's gates do not), a game compiled once gives up
/// before its relations and is compiled within each layer instead, with the same images
/// (equations that over all states would pass 24 GB meet the layer one at a time).
#[test]
fn a_first_joint_move_over_the_cap_falls_back_to_compiling_within_each_layer() {
    let game = load_game("eight_puzzle");
    let enc = Encoding::new(&game, Order::Heuristic);
    let e = BiodivineEngine::new(enc.num_vars(), &EngineConfig::small()).unwrap();
    let once = SymbolicGame::new(&e, &game, enc.clone(), &SymbolicOptions::default()).unwrap();
    let capped = SymbolicOptions {
        max_condition_nodes: 20,
        ..layerwise_options()
    };
    let within = SymbolicGame::new(&e, &game, enc, &capped).unwrap();
    assert!(within.is_layerwise() && !once.is_layerwise());
    let layer = same_images(&once, &within, 8);
    assert!(!e.is_false(&layer));
}

/// Each cluster keeps the terminal parts a step of it can make true, and only those (a
/// satisfying path of `R & !t & t'`, not the image of every non-terminal state): every
/// terminal successor of a non-terminal state under the cluster is in one of its parts, and a
/// part it dropped holds none. Tic-tac-toe with one cluster a move and one part a line: a
/// mark in a corner can complete three lines, not the other five.
#[test]
fn clusters_keep_exactly_the_terminal_parts_they_can_make_true() {
    let game = load_game("tictactoe");
    let enc = Encoding::new(&game, Order::Heuristic);
    let e = BiodivineEngine::new(enc.num_vars(), &EngineConfig::small()).unwrap();
    let opts = SymbolicOptions {
        cluster_nodes: 0,
        terminal_cluster_nodes: 0,
        ..SymbolicOptions::default()
    };
    let g = SymbolicGame::new(&e, &game, enc, &opts).unwrap();
    let terminal = g.terminal().unwrap();
    let open = e.not(&terminal).unwrap();
    let all_parts = g.terminal_parts();
    let mut dropped = 0;
    for cl in g.clusters() {
        let ends = e.and(&cl.image(&e, &open).unwrap(), &terminal).unwrap();
        let kept = cl.terminal_parts();
        let mut covered = e.constant(false);
        for t in kept {
            covered = e.or(&covered, t).unwrap();
        }
        assert!(
            e.implies(&ends, &covered).unwrap(),
            "a part made true was dropped"
        );
        for t in all_parts.iter().filter(|t| !kept.contains(t)) {
            dropped += 1;
            let leave = cl.image(&e, &e.and_not(&open, t).unwrap()).unwrap();
            assert!(
                e.is_false(&e.and(&leave, t).unwrap()),
                "a dropped part is made true"
            );
        }
    }
    assert!(dropped > 0, "no cluster dropped a part");
}

/// The first `layers` images from the initial state, checked equal under both compilations
/// of a game; the last of them.
fn same_images<E: BddEngine>(
    once: &SymbolicGame<'_, E>,
    within: &SymbolicGame<'_, E>,
    layers: usize,
) -> E::Bdd {
    let mut layer = once.init().clone();
    for _ in 0..layers {
        let next = once.image(&layer).unwrap();
        assert_eq!(within.image(&layer).unwrap(), next);
        layer = next;
    }
    layer
}

/// Serialisation smoke test without serde_json: the stats implement `Serialize`, and the
/// debug form shows the counts.
fn serde_json_like(st: &ReachStats) -> String {
    fn is_ser<T: serde::Serialize>(_: &T) {}
    is_ser(st);
    format!("{st:?}")
}

/// The `layers` and `states` lines of a game's `.expect` fixture.
fn expected_layers(name: &str) -> (Option<Vec<BigUint>>, BigUint) {
    let e = Expect::of(name);
    let layers = e
        .numbers("layers")
        .map(|l| l.into_iter().map(BigUint::from).collect());
    (layers, e.number("states").expect("a states line").into())
}

/// Connect Four 4x4 and 5x4 (3,945,711 states): every layer as in the fixtures, on both
/// engines, compact and plain encodings: two independent BDD engines cross-check each other.
#[test]
fn connect4_layers_match_fixtures_on_both_engines() {
    for name in ["connect4_4x4.kif", "connect4_5x4.kif"] {
        let game = load_game(name);
        let (layers, states) = expected_layers(name);
        let layers = layers.expect("a layers line");
        for (backend, encoding) in [
            (Backend::Biodivine, EncodingKind::Compact),
            (Backend::Oxidd, EncodingKind::Compact),
            (Backend::Oxidd, EncodingKind::Plain),
        ] {
            let opts = SymbolicOptions {
                encoding,
                goals: false,
                ..Default::default()
            };
            let st = symbolic_layers(&game, backend, &opts, None);
            let got: Vec<BigUint> = st.layers.iter().map(|l| l.states.clone()).collect();
            assert_eq!(got, layers, "{name} on {backend} {encoding:?}");
            assert_eq!(st.states, states, "{name} on {backend} {encoding:?}");
        }
    }
}

/// Connect Four 6x5: 2,818,972,642 states (J. Tromp's count), terminal positions counted, not
/// expanded.
#[test]
#[ignore = "heavy: a few minutes and several GB on a 2-core machine"]
fn connect4_6x5_count_heavy() {
    let name = "connect4_6x5.kif";
    let game = load_game(name);
    let (_, states) = expected_layers(name);
    let config = EngineConfig {
        threads: 0,
        node_capacity: 1 << 26,
        cache_capacity: 1 << 24,
    };
    let opts = SymbolicOptions {
        goals: false,
        ..Default::default()
    };
    let setup = Setup::new(&game, Backend::Oxidd, &config, &opts);
    let limits = Limits::default();
    let progress = |_: &ReachStats| {};
    let st = setup
        .run(ReachJob {
            settings: &limits,
            explicit: None,
            progress,
        })
        .unwrap();
    assert_eq!(st.stopped, None);
    assert_eq!(st.states, states);
    assert_eq!(st.layers.len(), 31);
}

fn fluents_of(s: &State) -> Vec<usize> {
    s.fluents().collect()
}

fn check_preimages<E: BddEngine>(engine: &E, game: &GroundGame, graph: &ExplicitGraph) {
    let enc = Encoding::new(game, Order::Heuristic);
    let g = SymbolicGame::new(engine, game, enc, &SymbolicOptions::default()).unwrap();
    let e = engine;
    let r = reach(&g, &Limits::default(), false, |_| {});
    let reached = r.reached;
    // Target sets: every third state, and the terminal states, and all non-terminal ones.
    let pick = |f: &dyn Fn(usize) -> bool| -> (HashSet<usize>, E::Bdd) {
        let mut set = HashSet::new();
        let mut b = e.constant(false);
        for (i, s) in graph.states.iter().enumerate() {
            if f(i) {
                set.insert(i);
                b = e.or(&b, &g.state(&fluents_of(s)).unwrap()).unwrap();
            }
        }
        (set, b)
    };
    let targets = [
        pick(&|i| i % 3 == 0),
        pick(&|i| graph.terminal[i]),
        pick(&|i| !graph.terminal[i]),
        pick(&|i| i % 2 == 1 || graph.terminal[i]),
    ];
    for (set, bdd) in &targets {
        let pre = e.and(&g.pre_image(bdd).unwrap(), &reached).unwrap();
        let strong = e.and(&g.strong_pre_image(bdd).unwrap(), &reached).unwrap();
        let img = g.image(bdd).unwrap();
        let mut exp_img = HashSet::new();
        for (i, s) in graph.states.iter().enumerate() {
            let st = g.state(&fluents_of(s)).unwrap();
            let succ = &graph.succ[i];
            let weak = succ.iter().any(|t| set.contains(t));
            let all = !succ.is_empty() && succ.iter().all(|t| set.contains(t));
            assert_eq!(!e.is_false(&e.and(&pre, &st).unwrap()), weak, "pre-image");
            assert_eq!(!e.is_false(&e.and(&strong, &st).unwrap()), all, "strong");
            if set.contains(&i) {
                exp_img.extend(succ.iter().copied());
            }
        }
        // The image of reachable states consists of reachable states: compare counts.
        assert_eq!(g.count(&img), BigUint::from(exp_img.len()));
        for t in exp_img {
            let st = g.state(&fluents_of(&graph.states[t])).unwrap();
            assert!(!e.is_false(&e.and(&img, &st).unwrap()));
        }
    }
}

#[test]
fn pre_images_match_explicit() {
    for name in ["nim_1_2_3.kif", "tictactoe.kif", "prisoners_2p.kif"] {
        let game = load_game(name);
        let graph = ExplicitGraph::new(&Reasoner::new(&game));
        let n = Encoding::new(&game, Order::Heuristic).num_vars();
        check_preimages(
            &BiodivineEngine::new(n, &EngineConfig::small()).unwrap(),
            &game,
            &graph,
        );
        check_preimages(
            &OxiddEngine::new(n, &EngineConfig::small()).unwrap(),
            &game,
            &graph,
        );
    }
}

/// Explicit BFS distance from the initial state to a terminal state where role 0 gets 100.
fn explicit_distance(r: &Reasoner) -> Option<usize> {
    let mut seen = HashSet::new();
    let mut q = VecDeque::new();
    seen.insert(r.initial_state());
    q.push_back((r.initial_state(), 0));
    while let Some((s, d)) = q.pop_front() {
        if r.is_terminal(&s) {
            if r.goal(&s, 0) == Some(100) {
                return Some(d);
            }
            continue;
        }
        for j in r.joint_moves(&s) {
            let t = r.next_state(&s, &j);
            if seen.insert(t.clone()) {
                q.push_back((t, d + 1));
            }
        }
    }
    None
}

fn check_path<E: BddEngine>(engine: &E, game: &GroundGame, expected_len: usize, within: bool) {
    let enc = Encoding::new(game, Order::Heuristic);
    let g = SymbolicGame::new(engine, game, enc, &SymbolicOptions::default()).unwrap();
    let goal = engine
        .and(
            &g.terminal().unwrap(),
            &g.goal_value_states(0, 100).unwrap(),
        )
        .unwrap();
    // The 8-puzzle relation is a conjunct list: restrict the backward search to the
    // forward-reachable states (see `shortest_path_within`).
    let domain = within.then(|| reach(&g, &Limits::default(), false, |_| {}).reached);
    let path = shortest_path_within(&g, &goal, domain.as_ref(), &Limits::default())
        .unwrap()
        .expect("a path exists");
    assert_eq!(path.moves.len(), expected_len);
    assert_eq!(path.states.len(), expected_len + 1);
    // Replay with the explicit reasoner.
    let r = Reasoner::new(game);
    let mut s = r.initial_state();
    assert_eq!(fluents_of(&s), path.states[0]);
    for (k, jm) in path.moves.iter().enumerate() {
        assert!(!r.is_terminal(&s));
        for (role, &m) in jm.iter().enumerate() {
            assert!(r.legal_moves(&s, role).contains(&m), "illegal move at {k}");
        }
        s = r.next_state(&s, jm);
        assert_eq!(fluents_of(&s), path.states[k + 1]);
    }
    assert!(r.is_terminal(&s));
    assert_eq!(r.goal(&s, 0), Some(100));
    assert_eq!(explicit_distance(&r), Some(expected_len));
}

#[test]
fn bidirectional_search_finds_shortest_paths() {
    for (name, len, within) in [
        ("hanoi_3.kif", 7, false),
        ("hanoi_4.kif", 15, true),
        ("eight_puzzle_easy.kif", 8, true),
    ] {
        let game = load_game(name);
        let n = Encoding::new(&game, Order::Heuristic).num_vars();
        check_path(
            &BiodivineEngine::new(n, &EngineConfig::small()).unwrap(),
            &game,
            len,
            within,
        );
        // Oxidd on the 8-puzzle (conjunct-list relation) is too slow for the test budget.
        if !name.starts_with("eight") {
            check_path(
                &OxiddEngine::new(n, &EngineConfig::small()).unwrap(),
                &game,
                len,
                within,
            );
        }
    }
}

#[test]
fn limits_stop_cleanly_and_keep_layers() {
    let game = load_game("tictactoe");
    let opts = SymbolicOptions::default();
    let few_nodes = Limits {
        max_nodes: Some(200),
        ..Default::default()
    };
    let stats = reach_within(&game, Backend::Biodivine, &opts, &few_nodes);
    assert_eq!(stats.stopped, Some(symgame_symbolic::StopReason::NodeLimit));
    assert!(!stats.layers.is_empty() && stats.layers.len() < 10);
    assert_eq!(stats.layers[0].states, BigUint::from(1u32));
    let cancel = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let cancelled = Limits {
        cancel: Some(cancel),
        ..Default::default()
    };
    let stats = reach_within(&game, Backend::Oxidd, &opts, &cancelled);
    assert_eq!(stats.stopped, Some(symgame_symbolic::StopReason::Cancelled));
    assert!(stats.layers.is_empty());
}

/// `Encoding::assignment` is the one minterm of `SymbolicGame::state`, and `fluents_of` inverts
/// it, for every reachable state of tic-tac-toe (in both variable orders).
#[test]
fn assignments_are_the_minterms_of_states() {
    let game = load_game("tictactoe");
    let graph = ExplicitGraph::new(&Reasoner::new(&game));
    for order in [Order::Heuristic, Order::Given] {
        let enc = Encoding::new(&game, order);
        let e = BiodivineEngine::new(enc.num_vars(), &EngineConfig::small()).unwrap();
        let g = SymbolicGame::new(&e, &game, enc.clone(), &SymbolicOptions::default()).unwrap();
        for s in &graph.states {
            let fl = fluents_of(s);
            let a = enc.assignment(fl.iter().copied()).unwrap();
            assert_eq!(e.pick_minterm(&g.state(&fl).unwrap()), Some(a.clone()));
            assert_eq!(enc.fluents_of(&a), fl);
        }
    }
}

/// An explicit run does not expand a layer predicted (from the successors per state of the
/// layer before) to have more successors than `max_successors`: on tictactoe (layers of 1, 9,
/// 72 and 252 states; 9, then 8 successors a state), a bound of 100 expands the first two
/// layers, the 72 states of the third are counted and left to the symbolic search.
#[test]
fn an_explicit_run_bounds_the_successors_of_the_layers_it_expands() {
    let game = load_game("tictactoe");
    for (bound, expanded) in [(100, 2), (575, 2), (576, 3), (usize::MAX, 10)] {
        let mut prefix = ExplicitPrefix::new(&game, usize::MAX, 1e9);
        prefix.max_successors = bound;
        let run = prefix.run(&Limits::default());
        assert_eq!(run.layers.len(), expanded, "bound {bound}");
    }
}

/// The layer after the last one an explicit run expands is counted too (its states and
/// terminal states), as explicit exploration counts it, wherever the run stops (none when the
/// run expanded every layer, or had no time left for the check).
#[test]
fn an_explicit_run_counts_the_layer_after_its_last() {
    for name in ["tictactoe", "nim_3_4_5", "connect4_4x4"] {
        let game = load_game(name);
        let want = explore(&Reasoner::new(&game), &Limits::default(), |_| {}).layers;
        for max_states in [1, 10, 100, 1000] {
            let run = ExplicitPrefix::new(&game, max_states, 1e9).run(&Limits::default());
            let k = run.layers.len();
            let want = want.get(k).map(|l| (l.states, l.terminal));
            assert_eq!(run.frontier_layer(), want, "{name}, {max_states}");
        }
        // With no time left, nothing is expanded and the first layer is not checked either.
        let run = ExplicitPrefix::new(&game, usize::MAX, 0.0).run(&Limits::default());
        assert!(run.layers.is_empty(), "{name}");
        assert_eq!(run.frontier_layer(), None, "{name}");
    }
}
