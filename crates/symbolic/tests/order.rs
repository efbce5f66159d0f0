//! The variable order chosen by measurement (`Order::Auto`): on the states of an explicit
//! search, the order whose BDD of them is smallest, and the same counts whichever it is.

use std::sync::Arc;

use symgame_bdd::{BddEngine, BiodivineEngine, EngineConfig};
use symgame_explicit::Reasoner;
use symgame_symbolic::{reach, Encoding, Order, SymbolicGame, SymbolicOptions};
use symgame_testkit::{load_game, Expect, ExplicitGraph};

/// The true fluents of every reachable state of `game`.
fn all_states(game: &symgame_ground::GroundGame) -> Vec<Vec<usize>> {
    ExplicitGraph::new(&Reasoner::new(game))
        .states
        .iter()
        .map(|s| s.fluents().collect())
        .collect()
}

/// The layer counts and the BDD nodes of the union of all layers, searched in `order`.
fn searched(game: &symgame_ground::GroundGame, opts: &SymbolicOptions) -> (Order, Vec<u64>, usize) {
    let enc = Encoding::with_options(game, opts);
    let order = enc.order();
    let e = BiodivineEngine::new(enc.num_vars(), &EngineConfig::small()).unwrap();
    let g = SymbolicGame::new(&e, game, enc, opts).unwrap();
    let r = reach(&g, &symgame_symbolic::Limits::default(), false, |_| {});
    let layers = r
        .stats
        .layers
        .iter()
        .map(|l| u64::try_from(&l.states).unwrap())
        .collect();
    (order, layers, e.node_count(&r.reached))
}

/// pick_log's logs of picks: sorted as ground terms, the green picks come before the red
/// ones and the set of logs is exponential; measured on the known states another order is
/// chosen, its reachable set is several times smaller, and the layers are the oracle's.
#[test]
fn auto_picks_a_smaller_order_where_the_heuristic_one_is_exponential() {
    let game = load_game("pick_log");
    let want = Expect::of("pick_log").numbers("layers").unwrap();
    let heuristic = searched(&game, &SymbolicOptions::default());
    let auto = searched(
        &game,
        &SymbolicOptions {
            order: Order::Auto,
            known_states: Some(Arc::new(all_states(&game))),
            known_states_all: true,
            ..Default::default()
        },
    );
    assert_eq!(heuristic.0, Order::Heuristic);
    assert_ne!(auto.0, Order::Heuristic, "auto kept the heuristic order");
    assert_eq!(heuristic.1, want);
    assert_eq!(auto.1, want);
    assert!(
        auto.2 * 4 < heuristic.2,
        "reachable set: {} nodes in {:?}, {} heuristic",
        auto.2,
        auto.0,
        heuristic.2
    );
}

/// Without known states, auto is the heuristic order; with them, on tic-tac-toe, the counts
/// are the oracle's whichever order is chosen.
#[test]
fn auto_is_heuristic_without_known_states_and_counts_hold_with_them() {
    let game = load_game("tictactoe");
    let want = Expect::of("tictactoe").numbers("layers").unwrap();
    let unknown = SymbolicOptions {
        order: Order::Auto,
        ..Default::default()
    };
    assert_eq!(searched(&game, &unknown).0, Order::Heuristic);
    let known = SymbolicOptions {
        known_states: Some(Arc::new(all_states(&game))),
        ..unknown
    };
    let (_, layers, _) = searched(&game, &known);
    assert_eq!(layers, want);
}
