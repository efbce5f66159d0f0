use super::*;
use crate::options::SymbolicOptions;
use crate::test_support::{encoded, forced_layerwise, small_engine};
use crate::SymbolicGame;

/// The joint moves pruned by the turn bits, and past the limit by the layer, give the
/// image of the game compiled once, layer by layer.
#[test]
fn both_prunings_of_the_joint_moves_give_the_compiled_image() {
    let (game, enc) = encoded("tictactoe");
    let e = small_engine(&enc);
    let once = SymbolicGame::new(&e, &game, enc.clone(), &SymbolicOptions::default()).unwrap();
    let layerwise = forced_layerwise();
    let within = SymbolicGame::new(&e, &game, enc.clone(), &layerwise).unwrap();
    let lw = within.layerwise().expect("compiled within each layer");
    let mut layer = once.init().clone();
    for _ in 0..4 {
        let want = once.image(&layer).unwrap();
        for by_turn in [PRUNED_BY_TURN, 0] {
            let (mut comp, expand) = lw.compiled(&e, &enc, &layer, None, false).unwrap();
            let legal = comp.legal().unwrap();
            let joint = lw
                .joint_moves_of(&e, &enc, &legal, &expand, by_turn, &|| false)
                .unwrap();
            let got = lw
                .clustered_image(&e, &enc, &mut comp, joint, &expand, None)
                .unwrap();
            assert_eq!(got, want, "pruned by turn up to {by_turn}");
        }
        layer = want;
    }
}

/// The dials of three_dials read the moves of their own role only and the round counter
/// reads none; penalty_kick's score reads both roles' moves, and a single role is never
/// factored.
#[test]
fn owners_follow_the_roles_whose_moves_a_group_reads() {
    let (game, enc) = encoded("three_dials");
    let mut owned = owners(&game, &enc).expect("three_dials factors");
    owned.sort_unstable();
    owned.dedup();
    assert_eq!(owned, vec![None, Some(0), Some(1), Some(2)]);
    // prisoners_2p's roles each record their own choice, two moves each: factorable, but
    // not worth it, so its layers take the joint moves with the moves legal nowhere
    // dropped (checked against explicit search with every small game).
    let (game, enc) = encoded("prisoners_2p");
    assert!(owners(&game, &enc).is_some());
    for name in ["penalty_kick", "toll_roads"] {
        let (game, enc) = encoded(name);
        assert_eq!(owners(&game, &enc), None, "{name}");
    }
}

/// Within each layer, the image with the roles' moves one role at a time is the image of
/// the game compiled once, layer by layer, and says that it was taken.
#[test]
fn factored_images_match_the_compiled_relation() {
    let (game, enc) = encoded("three_dials");
    let e = small_engine(&enc);
    let once = SymbolicGame::new(&e, &game, enc.clone(), &SymbolicOptions::default()).unwrap();
    let layerwise = forced_layerwise();
    let within = SymbolicGame::new(&e, &game, enc, &layerwise).unwrap();
    let lw = within.layerwise().expect("compiled within each layer");
    let mut layer = once.init().clone();
    for _ in 0..3 {
        let next = once.image(&layer).unwrap();
        assert_eq!(within.image(&layer).unwrap(), next);
        layer = next;
    }
    assert!(lw.factored.load(std::sync::atomic::Ordering::Relaxed));
}
