//! The compact encoding: proven mutex groups hold in every explicitly reachable state, the
//! proof rejects groups that are not invariants, and states round-trip through the encoding.

use symgame_bdd::{BddEngine, BiodivineEngine, EngineConfig};
use symgame_explicit::Reasoner;
use symgame_ground::GroundGame;
use symgame_symbolic::mutex::{prove_groups, MutexProof};
use symgame_symbolic::{Encoding, EncodingKind, FluentGroup, Order, SymbolicGame, SymbolicOptions};
use symgame_testkit::{load, load_game, root, ExplicitGraph};

fn names(game: &GroundGame, fluents: &[usize]) -> Vec<String> {
    fluents
        .iter()
        .map(|&f| game.fluents[f].to_string())
        .collect()
}

/// The index of the fluent printed as `text`.
fn fluent(game: &GroundGame, text: &str) -> usize {
    game.fluents
        .iter()
        .position(|f| f.to_string() == text)
        .unwrap_or_else(|| panic!("no fluent {text}"))
}

/// The proven group (of the partition) that holds fluent `f`.
fn group_of(proof: &MutexProof, f: usize) -> &FluentGroup {
    proof
        .groups
        .iter()
        .find(|g| g.fluents.contains(&f))
        .unwrap()
}

/// Every proven group holds in every reachable state (at most one true, exactly one when
/// claimed), and every state survives encode, decode, `state` and `pick_state`.
fn check_sound(name: &str) -> usize {
    let game = load_game(name);
    let proof = prove_groups(&game);
    assert_eq!(proof.gave_up, None, "{name}");
    // All reachable states (terminal ones included, not expanded), at most 200,000.
    let states = ExplicitGraph::new(&Reasoner::new(&game)).states;
    assert!(states.len() <= 200_000, "more than 200000 states");
    for g in &proof.groups {
        for s in &states {
            let on = g.fluents.iter().filter(|&&f| s.contains(f)).count();
            assert!(
                on <= 1,
                "{name}: {:?} has {on} true",
                names(&game, &g.fluents)
            );
            if g.exactly_one {
                assert_eq!(on, 1, "{name}: {:?}", names(&game, &g.fluents));
            }
        }
    }
    let enc = Encoding::compact(&game, Order::Heuristic);
    let e = BiodivineEngine::new(enc.num_vars(), &EngineConfig::small()).unwrap();
    let opts = SymbolicOptions::default();
    let sg = SymbolicGame::new(&e, &game, enc.clone(), &opts).unwrap();
    for s in states.iter().take(500) {
        let fl: Vec<usize> = s.fluents().collect();
        let lits = enc.encode(&fl).expect("a reachable state is encodable");
        let mut values = vec![false; enc.num_vars() as usize];
        for (v, b) in lits {
            values[v as usize] = b;
        }
        assert_eq!(enc.decode(&values), fl);
        let bdd = sg.state(&fl).unwrap();
        assert_eq!(sg.count(&bdd), 1u32.into());
        assert_eq!(sg.pick_state(&bdd), Some(fl));
    }
    proof.groups.iter().filter(|g| g.fluents.len() > 1).count()
}

#[test]
fn proven_groups_hold_in_every_reachable_state() {
    for (name, min_groups) in [
        ("tictactoe.kif", 10),
        ("connect4_4x4.kif", 17),
        ("eight_puzzle_easy.kif", 10),
        ("hanoi_4.kif", 1),
        ("nim_1_2_3.kif", 1),
        ("chomp_4x3.kif", 1),
        ("prisoners_2p.kif", 1),
        ("climb_rewards.kif", 1),
    ] {
        let groups = check_sound(name);
        assert!(groups >= min_groups, "{name}: only {groups} groups");
    }
}

#[test]
fn tictactoe_groups_are_cells_and_control() {
    let game = load_game("tictactoe");
    let proof = prove_groups(&game);
    let mut groups: Vec<(Vec<String>, bool)> = proof
        .groups
        .iter()
        .filter(|g| g.fluents.len() > 1)
        .map(|g| {
            let mut n = names(&game, &g.fluents);
            n.sort();
            (n, g.exactly_one)
        })
        .collect();
    groups.sort();
    assert_eq!(groups.len(), 10, "{groups:?}");
    assert!(groups.contains(&(
        vec![
            "(cell 1 1 b)".to_string(),
            "(cell 1 1 o)".to_string(),
            "(cell 1 1 x)".to_string()
        ],
        true
    )));
    assert!(groups.contains(&(
        vec![
            "(control oplayer)".to_string(),
            "(control xplayer)".to_string()
        ],
        true
    )));
    // 9 cells of 3 values in 2 bits each, control in 1 bit.
    assert_eq!(Encoding::compact(&game, Order::Heuristic).num_bits(), 19);
    assert_eq!(Encoding::new(&game, Order::Heuristic).num_bits(), 29);
}

#[test]
fn connect_four_cells_are_at_most_one_and_control_exactly_one() {
    let game = load_game("connect4_4x4");
    let proof = prove_groups(&game);
    for g in proof.groups.iter().filter(|g| g.fluents.len() > 1) {
        let n = names(&game, &g.fluents);
        if n[0].starts_with("(control") {
            assert!(g.exactly_one);
        } else {
            assert!(!g.exactly_one, "{n:?}: an empty cell has neither colour");
            assert_eq!(g.fluents.len(), 2);
        }
    }
    let enc = Encoding::compact(&game, Order::Heuristic);
    // Turn groups come first in the heuristic order.
    assert!(game.fluents[enc.fluent_groups()[0].fluents[0]]
        .to_string()
        .starts_with("(control"));
}

/// `(mark ?)` fluents look like a group by their names but accumulate
/// (`tests/games/accumulating_marks.kif`).
#[test]
fn accumulating_fluents_are_not_grouped() {
    let game = load(&root().join("tests/games/accumulating_marks.kif"));
    let proof = prove_groups(&game);
    let mark_a = fluent(&game, "(mark a)");
    let count0 = fluent(&game, "(count 0)");
    assert_eq!(
        group_of(&proof, mark_a).fluents.len(),
        1,
        "marks accumulate"
    );
    // The counter is a group; from (count 2), a terminal state, nothing follows, so it is
    // "exactly one" only thanks to the terminal cut.
    let counter = group_of(&proof, count0);
    assert_eq!(counter.fluents.len(), 3);
    assert!(counter.exactly_one);
    // Encode and count: the compact encoding gives the same layers as the plain one.
    for kind in [EncodingKind::Plain, EncodingKind::Compact] {
        let opts = SymbolicOptions {
            encoding: kind,
            ..Default::default()
        };
        let enc = Encoding::with_options(&game, &opts);
        let e = BiodivineEngine::new(enc.num_vars(), &EngineConfig::small()).unwrap();
        let g = SymbolicGame::new(&e, &game, enc, &opts).unwrap();
        let r = symgame_symbolic::reach(&g, &Default::default(), false, |_| {});
        let layers: Vec<String> = r
            .stats
            .layers
            .iter()
            .map(|l| l.states.to_string())
            .collect();
        assert_eq!(layers.join(" "), "1 3 4", "{kind:?}");
        let picked = g.pick_state(g.init()).unwrap();
        assert_eq!(picked, {
            let mut v = game.init.clone();
            v.sort_unstable();
            v
        });
        // Two counter values at once: a state of the plain encoding, none of the compact one.
        let two_counts = g
            .state(&[mark_a, count0, fluent(&game, "(count 1)")])
            .unwrap();
        assert_eq!(e.is_false(&two_counts), kind == EncodingKind::Compact);
    }
}

/// Two fluents exclusive only because each guards the other (`tests/games/mutual_lights.kif`):
/// a round of the proof that assumed nothing would reject both; the fixpoint keeps them.
#[test]
fn exclusivity_that_depends_on_itself_is_proven() {
    let game = load(&root().join("tests/games/mutual_lights.kif"));
    let proof = prove_groups(&game);
    let g = group_of(&proof, fluent(&game, "(light red)"));
    assert_eq!(g.fluents.len(), 2, "{:?}", proof.groups);
    assert!(g.exactly_one);
}

/// A proof that meets its node budget inside a BDD operation gives up soundly: no group is
/// proven, every fluent is a group of its own (the plain encoding), and the reason names the
/// budget; where groups may be assumed, those the playouts did not break are, and marked so.
#[test]
fn a_proof_over_its_node_budget_gives_up_with_single_fluents() {
    use symgame_symbolic::mutex::{prove_groups_within, MutexBudget};
    let game = load_game("tictactoe");
    for assume in [false, true] {
        let budget = MutexBudget {
            max_operation_nodes: 1,
            assume_on_give_up: assume,
            ..MutexBudget::default()
        };
        let proof = prove_groups_within(&game, &budget);
        let why = proof.gave_up.as_deref().expect("the budget is met");
        assert!(why.contains("nodes"), "{why}");
        assert_eq!(proof.proven, 0);
        assert_eq!(proof.assumed, assume);
        if assume {
            // The cells and the control are never broken by a playout: assumed as groups.
            assert!(proof.groups.iter().any(|g| g.fluents.len() > 1));
        } else {
            assert!(proof.groups.iter().all(|g| g.fluents.len() == 1));
            assert_eq!(proof.groups.len(), game.fluents.len());
        }
    }
}

/// A proof that gives up keeps dropped what it had dropped: `tests/games/latent_pair.kif`'s
/// `(a 1)`/`(a 2)` claim holds in every reachable state (so no playout breaks it) but is not
/// inductive, and the first round drops it. Given up after that round, the groups assumed
/// leave it out; `(b 1)`/`(b 2)` is still assumed.
#[test]
fn a_proof_that_gives_up_keeps_the_claims_it_dropped() {
    use symgame_symbolic::mutex::{prove_groups_within, MutexBudget};
    let game = load(&root().join("tests/games/latent_pair.kif"));
    let (a1, a2) = (fluent(&game, "(a 1)"), fluent(&game, "(a 2)"));
    let (b1, b2) = (fluent(&game, "(b 1)"), fluent(&game, "(b 2)"));
    // Given all the rounds it needs, the proof drops the claim and proves the other.
    let proof = prove_groups(&game);
    assert!(proof.gave_up.is_none(), "{proof:?}");
    assert_ne!(group_of(&proof, a1).fluents, group_of(&proof, a2).fluents);
    assert_eq!(group_of(&proof, b1).fluents.len(), 2, "{proof:?}");
    let budget = MutexBudget {
        max_rounds: 1,
        assume_on_give_up: true,
        ..MutexBudget::default()
    };
    let proof = prove_groups_within(&game, &budget);
    let why = proof.gave_up.as_deref().expect("a second round is needed");
    assert!(why.contains("rounds"), "{why}");
    assert!(proof.assumed, "{proof:?}");
    assert_eq!(group_of(&proof, a1).fluents.len(), 1, "{proof:?}");
    assert_eq!(group_of(&proof, a2).fluents.len(), 1, "{proof:?}");
    assert!(group_of(&proof, b1).fluents.contains(&b2), "{proof:?}");
}

/// Where the groups the playouts leave would save too few bits (`tests/games/turn_pairs.kif`:
/// four cells, each an at-most-one pair of two bits), a proof that gives up still assumes its
/// exactly-one groups (the turn: one bit for two fluents), and nothing else.
#[test]
fn a_proof_that_gives_up_assumes_the_turn_where_the_other_groups_save_nothing() {
    use symgame_symbolic::mutex::{prove_groups_within, MutexBudget};
    let game = load(&root().join("tests/games/turn_pairs.kif"));
    let budget = MutexBudget {
        max_operation_nodes: 1,
        assume_on_give_up: true,
        ..MutexBudget::default()
    };
    let proof = prove_groups_within(&game, &budget);
    assert!(proof.gave_up.is_some(), "{proof:?}");
    assert!(proof.assumed, "{proof:?}");
    let turn = group_of(&proof, fluent(&game, "(control white)"));
    assert!(turn.exactly_one, "{proof:?}");
    assert!(turn.fluents.contains(&fluent(&game, "(control black)")));
    for g in &proof.groups {
        assert!(g.fluents.len() == 1 || g.exactly_one, "{proof:?}");
    }
    assert_eq!(proof.groups.len(), game.fluents.len() - 1, "{proof:?}");
    // Proven, with the time it needs, the cells are groups too.
    let proven = prove_groups(&game);
    assert!(proven.gave_up.is_none(), "{proven:?}");
    let cell = group_of(&proven, fluent(&game, "(cell 1 white)"));
    assert_eq!(cell.fluents.len(), 2, "{proven:?}");
}
