use super::*;
use crate::test_support::{encoded, forced_layerwise, small_engine};

/// Compiled within each layer but with the terminal condition compiled over all states
/// (where only the relations gave up), each layer's non-terminal states and image are the
/// game compiled once's, terminal states included.
#[test]
fn layers_cut_by_a_terminal_over_all_states_match_the_game_compiled_once() {
    for name in ["tictactoe", "connect4_4x4"] {
        let (game, enc) = encoded(name);
        let e = small_engine(&enc);
        let once = SymbolicGame::new(&e, &game, enc.clone(), &SymbolicOptions::default()).unwrap();
        let layerwise = forced_layerwise();
        let mut within = SymbolicGame::new(&e, &game, enc, &layerwise).unwrap();
        assert!(within.is_layerwise() && within.terminal_over_all().is_none());
        within.terminal_parts = once.terminal_parts.clone();
        within.terminal_compiled = true;
        let (mut layer, mut cut) = (once.init().clone(), false);
        while !e.is_false(&layer) {
            let expand = once.and_not_terminal(&layer).unwrap();
            cut |= expand != layer;
            assert_eq!(within.and_not_terminal(&layer).unwrap(), expand, "{name}");
            let next = once.image(&layer).unwrap();
            assert_eq!(within.image(&layer).unwrap(), next, "{name}");
            layer = next;
        }
        assert!(cut, "{name}: no layer held terminal states");
    }
}
