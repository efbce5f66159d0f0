use super::*;
use crate::joint_moves::joint_moves;
use crate::test_support::{encoded, small_engine};

/// The incremental [`Compiler::set_joint_move`] gives every next function a full
/// evaluation of the `next` cone gives, and `next_may_change` is false only where the
/// next function is the fluent itself.
#[test]
fn incremental_joint_moves_match_full_evaluation() {
    for name in [
        "tictactoe",
        "connect4_4x4",
        "nim_1_2_3",
        "prisoners_2p",
        "eight_puzzle_easy",
        "hanoi_3",
        "toll_roads",
    ] {
        let (game, enc) = encoded(name);
        let e = small_engine(&enc);
        let (mut inc, _) = Compiler::prepared(&e, &game, &enc, None).unwrap();
        let (mut full, _) = Compiler::prepared(&e, &game, &enc, None).unwrap();
        let legal = inc.legal().unwrap();
        let joint = joint_moves(&e, &legal, &e.constant(true), 1_000_000, &|| false).unwrap();
        assert!(joint.len() > 1, "{name}");
        for (jm, _) in &joint {
            inc.set_joint_move(jm).unwrap();
            full.moves.fill(false);
            for (r, &m) in jm.iter().enumerate() {
                full.moves[full.move_base[r] + m] = true;
            }
            full.local.fill(None);
            let needed = full.next_needed.clone();
            full.eval(&needed, true).unwrap();
            for f in 0..game.fluents.len() {
                let want = full.lit(game.next[f]).unwrap();
                assert_eq!(inc.lit(game.next[f]).unwrap(), want, "{name} {jm:?} {f}");
                if !inc.next_may_change(f) {
                    assert_eq!(&want, inc.fluent(f), "{name} {jm:?} {f}");
                }
            }
        }
    }
}

/// With a cap on the gates that read a move, a joint move whose gates pass it fails with
/// a budget; a cap they fit gives the same next functions as none.
#[test]
fn a_cap_on_the_gates_of_a_joint_move_fails_with_a_budget() {
    let (game, enc) = encoded("connect4_4x4");
    let e = small_engine(&enc);
    let (mut free, _) = Compiler::prepared(&e, &game, &enc, None).unwrap();
    let (mut tight, _) = Compiler::prepared(&e, &game, &enc, None).unwrap();
    let (mut roomy, _) = Compiler::prepared(&e, &game, &enc, None).unwrap();
    tight.cap_move_gates(Some(0));
    roomy.cap_move_gates(Some(1_000_000));
    let legal = free.legal().unwrap();
    let joint = joint_moves(&e, &legal, &e.constant(true), 1_000, &|| false).unwrap();
    let jm = &joint[0].0;
    let err = tight.set_joint_move(jm);
    assert!(matches!(err, Err(BddError::Budget(_))), "{err:?}");
    free.set_joint_move(jm).unwrap();
    roomy.set_joint_move(jm).unwrap();
    for f in 0..game.fluents.len() {
        let want = free.lit(game.next[f]).unwrap();
        assert_eq!(roomy.lit(game.next[f]).unwrap(), want, "{f}");
    }
}

/// The conditions' trial on a budgeted engine also takes a first joint move: a cap its
/// gates pass fails with a budget, also where the conditions alone fit it (the eight
/// puzzle's move gates are larger than its conditions).
#[test]
fn the_conditions_trial_takes_a_first_joint_move_within_the_cap() {
    let (game, enc) = encoded("eight_puzzle");
    let e = small_engine(&enc).with_budget(None, Some(20));
    Compiler::prepared_with(&e, &game, &enc, None, Some(20)).unwrap();
    let err = conditions_fit(&game, &enc, None, 20);
    assert!(matches!(err, Err(BddError::Budget(_))), "{err:?}");
    assert!(conditions_fit(&game, &enc, None, 1_000_000).unwrap());
}
