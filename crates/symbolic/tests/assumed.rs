//! Encodings whose fluent groups are assumed, not proven (`SymbolicOptions::assume_groups`):
//! the search checks them as it goes and stops where one breaks, with exact layers before.

use std::time::Duration;

use symgame_bdd::{BddEngine, BiodivineEngine, EngineConfig};
use symgame_explicit::{explore, Limits, Reasoner};
use symgame_symbolic::mutex::{prove_groups, prove_groups_within, MutexBudget};
use symgame_symbolic::{
    reach, solve, states_at_break, Encoding, EncodingKind, ExplicitPrefix, GameJob, Order,
    ReachJob, ReachStats, SolveError, SolveOptions, SymbolicGame, SymbolicOptions,
};
use symgame_testkit::{
    for_each_solved, from_text, layerwise_options, solved_in_memory, ExplicitGraph,
};

/// Twenty binary choices; `(flag 2)` joins `(flag 1)` only after twenty `b`s, a path random
/// playouts almost never take, so "at most one of (flag 1), (flag 2)" survives them but is
/// false.
fn rare() -> String {
    let text = String::from(
        "(role p) (init (step 0)) (init (flag 1)) (init allb)
         (<= (legal p a) (true (step ?n))) (<= (legal p b) (true (step ?n)))
         (<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))
         (<= (next (flag 1)) (true (flag 1)))
         (<= (next allb) (true allb) (does p b))
         (<= (next (flag 2)) (true allb) (true (step 19)) (does p b))
         (<= (next (flag 2)) (true (flag 2)))
         (<= terminal (true (step 20)))
         (<= (goal p 100) (true (flag 2))) (<= (goal p 0) (not (true (flag 2))))\n",
    );
    with_succ(text, 20)
}

/// `rules` with the successor facts `(succ 0 1)` ... `(succ n-1 n)`.
fn with_succ(mut rules: String, n: usize) -> String {
    for k in 0..n {
        rules.push_str(&format!("(succ {k} {})\n", k + 1));
    }
    rules
}

/// The states of each BFS layer of `game`, by explicit search.
fn explicit_layers(game: &symgame_ground::GroundGame) -> Vec<u64> {
    let explicit = explore(&Reasoner::new(game), &Limits::default(), |_| {});
    explicit.layers.iter().map(|l| l.states).collect()
}

/// The states of each layer of a symbolic search.
fn layer_counts(stats: &ReachStats) -> Vec<u64> {
    stats
        .layers
        .iter()
        .map(|l| u64::try_from(&l.states).unwrap())
        .collect()
}

#[test]
fn a_broken_assumption_stops_the_search_with_exact_layers_before() {
    let game = from_text(&rare());
    let want = explicit_layers(&game);
    assert_eq!(want.len(), 21);

    // The proof (given its time) finds the flag group false: no assumption.
    assert!(!prove_groups(&game).assumed);
    // Given no time, it gives up and assumes what the playouts left, the flag group included.
    let budget = MutexBudget {
        time: Duration::ZERO,
        assume_on_give_up: true,
        ..MutexBudget::default()
    };
    let proof = prove_groups_within(&game, &budget);
    assert!(proof.assumed, "{proof:?}");
    let enc = Encoding::from_groups(&game, EncodingKind::Compact, Order::Heuristic, proof.groups)
        .into_assumed();
    let e = BiodivineEngine::new(enc.num_vars(), &EngineConfig::small()).unwrap();
    let g = SymbolicGame::new(&e, &game, enc, &SymbolicOptions::default()).unwrap();
    let stats = reach(&g, &Limits::default(), false, |_| {}).stats;
    assert!(stats.assumption_broken, "{stats:?}");
    assert!(g.assumption_broken());
    let got = layer_counts(&stats);
    assert!(got.len() < want.len(), "{got:?}");
    assert_eq!(
        got,
        want[..got.len()],
        "the layers before the break are exact"
    );

    // The break's witness is a state of the last layer expanded (the twentieth `b` ahead);
    // with it and its successors known, the flag group is no longer assumed, the other
    // groups still are, and the search runs to the end with exact layers.
    let witness = stats.break_witness.clone().expect("a witness of the break");
    let r = Reasoner::new(&game);
    let at_break = states_at_break(&game, &witness);
    assert_eq!(at_break[0], witness);
    assert!(
        at_break.len() == 3,
        "the witness and its two successors: {at_break:?}"
    );
    let state = |fluents: &[usize]| {
        let mut s = symgame_explicit::State::empty(r.num_fluents());
        fluents.iter().for_each(|&f| s.insert(f));
        s
    };
    let mut successors: Vec<Vec<usize>> = r
        .successors(&state(&witness))
        .iter()
        .map(|t| t.fluents().collect())
        .collect();
    successors.sort();
    let mut got_successors = at_break[1..].to_vec();
    got_successors.sort();
    assert_eq!(got_successors, successors);
    let again = MutexBudget {
        known_states: Some(std::sync::Arc::new(at_break)),
        ..budget
    };
    let proof = prove_groups_within(&game, &again);
    assert!(proof.assumed, "{proof:?}");
    let enc = Encoding::from_groups(&game, EncodingKind::Compact, Order::Heuristic, proof.groups)
        .into_assumed();
    assert!(
        enc.fluent_groups().iter().any(|g| g.fluents.len() > 1),
        "other groups stay assumed"
    );
    let e = BiodivineEngine::new(enc.num_vars(), &EngineConfig::small()).unwrap();
    let g = SymbolicGame::new(&e, &game, enc, &SymbolicOptions::default()).unwrap();
    let stats = reach(&g, &Limits::default(), false, |_| {}).stats;
    assert!(!stats.assumption_broken, "{stats:?}");
    assert_eq!(stats.break_witness, None);
    assert_eq!(layer_counts(&stats), want);
}

/// Known reachable states (as `reach` passes its explicit prefix) drop the candidates they
/// break before anything is assumed: with the state that holds both flags known, the flag
/// group is not assumed and the search runs to the end with exact layers.
#[test]
fn known_states_drop_the_candidates_they_break() {
    let game = from_text(&rare());
    let r = Reasoner::new(&game);
    let want: Vec<u64> = explore(&r, &Limits::default(), |_| {})
        .layers
        .iter()
        .map(|l| l.states)
        .collect();
    let known: Vec<Vec<usize>> = ExplicitGraph::new(&r)
        .states
        .iter()
        .map(|s| s.fluents().collect())
        .collect();
    let budget = MutexBudget {
        time: Duration::ZERO,
        assume_on_give_up: true,
        known_states: Some(std::sync::Arc::new(known)),
        ..MutexBudget::default()
    };
    let proof = prove_groups_within(&game, &budget);
    let enc = Encoding::from_groups(&game, EncodingKind::Compact, Order::Heuristic, proof.groups);
    let enc = if proof.assumed {
        enc.into_assumed()
    } else {
        enc
    };
    let e = BiodivineEngine::new(enc.num_vars(), &EngineConfig::small()).unwrap();
    let g = SymbolicGame::new(&e, &game, enc, &SymbolicOptions::default()).unwrap();
    let stats = reach(&g, &Limits::default(), false, |_| {}).stats;
    assert!(!stats.assumption_broken, "{stats:?}");
    let got = layer_counts(&stats);
    assert_eq!(got, want);
}

/// The encoding of `game` with every candidate group that playouts leave assumed (a mutex
/// proof given no time).
fn assumed_encoding(game: &symgame_ground::GroundGame) -> Encoding {
    let budget = MutexBudget {
        time: Duration::ZERO,
        assume_on_give_up: true,
        ..MutexBudget::default()
    };
    let proof = prove_groups_within(game, &budget);
    assert!(proof.assumed, "{proof:?}");
    Encoding::from_groups(game, EncodingKind::Compact, Order::Heuristic, proof.groups)
        .into_assumed()
}

/// `solve` on assumed groups: where one breaks it solves nothing and says so (the commands then
/// solve again with proven groups); where none breaks, every reachable state gets the value
/// explicit minimax gives it.
#[test]
fn solving_on_assumed_groups_refuses_a_broken_one_and_is_exact_otherwise() {
    let game = from_text(&rare());
    let enc = assumed_encoding(&game);
    let e = BiodivineEngine::new(enc.num_vars(), &EngineConfig::small()).unwrap();
    let g = SymbolicGame::new(&e, &game, enc, &SymbolicOptions::default()).unwrap();
    match solve(&g, &SolveOptions::default(), |_| {}) {
        Err(SolveError::AssumedGroupBroken { witness: Some(_) }) => {}
        other => panic!(
            "expected AssumedGroupBroken, got {:?}",
            other.map(|s| s.stats)
        ),
    }

    let game = symgame_testkit::load_game("tictactoe");
    let r = Reasoner::new(&game);
    let mut mm = symgame_testkit::Minimax::new(&r);
    mm.value(&r.initial_state());
    let enc = assumed_encoding(&game);
    let e = BiodivineEngine::new(enc.num_vars(), &EngineConfig::small()).unwrap();
    let g = SymbolicGame::new(&e, &game, enc, &SymbolicOptions::default()).unwrap();
    let solved = solved_in_memory(&g);
    assert_eq!(solved.stats.stopped, None);
    assert_eq!(solved.stats.states, mm.values().len().into());
    for_each_solved(
        "tictactoe",
        &solved,
        &g,
        mm.values().keys(),
        |s, fluents, o, _| {
            assert_eq!(solved.stats.outcomes[o], mm.values()[s].0, "{fluents:?}");
        },
    );
}

/// An explicit run that goes past the layer where an assumed group breaks (the run of a game
/// compiled within each layer goes on after the set-up, beyond what the groups were checked
/// against): its steps from that layer on are dropped, the search finds the break in its
/// symbolic step and stops with every layer before it exact, not with none.
#[test]
fn an_explicit_run_past_a_broken_group_keeps_the_layers_before_the_break() {
    let game = from_text(&rare());
    let want = explicit_layers(&game);
    let enc = assumed_encoding(&game);
    for opts in [SymbolicOptions::default(), layerwise_options()] {
        let e = BiodivineEngine::new(enc.num_vars(), &EngineConfig::small()).unwrap();
        let g = SymbolicGame::new(&e, &game, enc.clone(), &opts).unwrap();
        let limits = Limits::default();
        let run = ExplicitPrefix::new(&game, usize::MAX, 1e9).run(&limits);
        assert_eq!(run.layers.len(), want.len(), "the run holds every layer");
        let job = ReachJob {
            settings: &limits,
            explicit: Some(run),
            progress: |_: &ReachStats| {},
        };
        let stats = job.run(&g).unwrap();
        assert!(stats.assumption_broken, "{stats:?}");
        let got = layer_counts(&stats);
        // (flag 2) joins in layer 20: the step from layer 19 breaks the group. Layer 19's
        // states are exact (only their successors break it), so it is counted too.
        assert_eq!(got, want[..20], "{opts:?}");
        assert_eq!(stats.explicit_layers, 19, "{opts:?}");
        witness_shows_the_break(&game, &g, &stats);
    }
}

/// The break's witness ([`ReachStats::break_witness`]) is a state that meets the groups, one
/// of whose successors ([`states_at_break`]) breaks one.
fn witness_shows_the_break<E: BddEngine>(
    game: &symgame_ground::GroundGame,
    g: &SymbolicGame<'_, E>,
    stats: &ReachStats,
) {
    let w = stats.break_witness.clone().expect("a witness of the break");
    let enc = g.encoding();
    assert!(!enc.breaks_groups(w.iter().copied()), "{w:?}");
    let at = states_at_break(game, &w);
    assert!(
        at[1..].iter().any(|s| enc.breaks_groups(s.iter().copied())),
        "{at:?}"
    );
}

/// [`rare`] with a second role moving at the same time, and five moves each: `(flag 2)` joins
/// `(flag 1)` only after p plays `m5` eight times. A game compiled within each layer takes the
/// roles' moves one role at a time here (25 joint moves, 10 moves), and must still find the
/// assumed group that breaks.
fn rare_simultaneous() -> String {
    let text = String::from(
        "(role p) (role q) (init (step 0)) (init (flag 1)) (init streak)
         (move m1) (move m2) (move m3) (move m4) (move m5)
         (<= (legal ?r ?m) (role ?r) (move ?m) (true (step ?n)))
         (<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))
         (<= (next (flag 1)) (true (flag 1)))
         (<= (next streak) (true streak) (does p m5))
         (<= (next (flag 2)) (true streak) (true (step 7)) (does p m5))
         (<= (next (flag 2)) (true (flag 2)))
         (<= (next (last ?m)) (does q ?m))
         (<= terminal (true (step 9)))
         (<= (goal p 100) (true (flag 2))) (<= (goal p 0) (not (true (flag 2))))
         (<= (goal q 0) (true (flag 2))) (<= (goal q 100) (not (true (flag 2))))\n",
    );
    with_succ(text, 9)
}

#[test]
fn a_broken_group_is_found_with_the_moves_one_role_at_a_time() {
    let game = from_text(&rare_simultaneous());
    let want = explicit_layers(&game);
    let enc = assumed_encoding(&game);
    let e = BiodivineEngine::new(enc.num_vars(), &EngineConfig::small()).unwrap();
    let g = SymbolicGame::new(&e, &game, enc, &layerwise_options()).unwrap();
    let stats = reach(&g, &Limits::default(), false, |_| {}).stats;
    assert!(
        stats.partitioning.contains("one role at a time"),
        "{stats:?}"
    );
    assert!(stats.assumption_broken, "{stats:?}");
    let got = layer_counts(&stats);
    // (flag 2) joins in layer 8: the step from layer 7 breaks the group; layer 7 is counted
    // (its states are exact, only their successors break it).
    assert_eq!(got, want[..8]);
    witness_shows_the_break(&game, &g, &stats);
}

/// [`rare_simultaneous`] with twenty moves each and a fluent that reads both roles' moves
/// (`same`: both played the same move), so that the moves cannot be taken one role at a time
/// and the 400 joint moves are taken as BDD variables: the assumed group that breaks must
/// still be found, with the layers before it exact.
#[test]
fn a_broken_group_is_found_with_the_moves_as_variables() {
    let moves: String = (1..=20).map(|i| format!("(move m{i}) ")).collect();
    let text = rare_simultaneous()
        .replace("(move m1) (move m2) (move m3) (move m4) (move m5)", &moves)
        .replace(
            "(<= terminal",
            "(<= (next same) (does p ?m) (does q ?m)) (<= terminal",
        );
    let game = from_text(&text);
    let want = explicit_layers(&game);
    let enc = assumed_encoding(&game);
    // Room for the move variables after the state ones (5 per role).
    let e = BiodivineEngine::new(enc.num_vars() + 10, &EngineConfig::small()).unwrap();
    let opts = SymbolicOptions {
        move_vars: true,
        ..layerwise_options()
    };
    let g = SymbolicGame::new(&e, &game, enc, &opts).unwrap();
    let stats = reach(&g, &Limits::default(), false, |_| {}).stats;
    assert!(
        stats.partitioning.contains("moves as BDD variables"),
        "{stats:?}"
    );
    assert!(stats.assumption_broken, "{stats:?}");
    assert_eq!(layer_counts(&stats), want[..8]);
    witness_shows_the_break(&game, &g, &stats);
}
