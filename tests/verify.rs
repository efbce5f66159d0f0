//! `symgame verify`: the explicit solvers check the symbolic solution.

use crate::{line_starting, symgame};
use symgame_testkit::root;

/// `verify` passes on every bundled game (every state of the small ones, a sample of the
/// bigger ones), with all four explicit algorithms on tic-tac-toe.
#[test]
fn verify_passes_on_the_bundled_games() {
    for (game, extra) in [
        ("tictactoe", vec!["--algo", "all"]),
        ("nim_1_2_3", vec![]),
        ("nim_3_4_5", vec![]),
        ("chomp_4x3", vec![]),
        ("hanoi_3", vec![]),
        ("hanoi_4", vec![]),
        ("hanoi_5", vec![]),
        ("climb_rewards", vec![]),
        ("prisoners_2p", vec![]),
        ("single_step", vec![]),
        ("eight_puzzle_easy", vec![]),
        ("connect4_4x4", vec!["--sample", "60"]),
    ] {
        let path = format!("gdl/{game}.kif");
        let mut args = vec!["verify", path.as_str()];
        args.extend(extra);
        let (code, out, err) = symgame(&args);
        assert_eq!(code, 0, "{game}: {out}{err}");
        assert!(out.contains("no disagreement"), "{game}: {out}");
        if game != "connect4_4x4" {
            assert!(
                out.contains("(all of them); explicit search reaches"),
                "{game}: {out}"
            );
        } else {
            assert!(out.contains("checked 60 of 161029"), "{out}");
        }
    }
}

/// A wrong solution (two outcomes swapped in one layer, checksums intact) is caught, with the
/// state and both answers; a solution of another game is refused.
#[test]
fn verify_reports_a_wrong_solution_and_refuses_a_foreign_one() {
    let dir = root()
        .join("target/test-scratch")
        .join(format!("verify-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.to_str().unwrap();
    let (code, _, err) = symgame(&["solve", "--out", d, "gdl/tictactoe.kif"]);
    assert_eq!(code, 0, "{err}");
    let (code, out, err) = symgame(&["verify", "--solution", d, "gdl/tictactoe.kif"]);
    assert_eq!(code, 0, "{out}{err}");

    let file = dir.join("layer-0007.sol");
    let mut layer = symgame_symbolic::read_stored(&file).unwrap();
    let a = layer.classes[0].outcome;
    let b = layer.classes[1].outcome;
    layer.classes[0].outcome = b;
    layer.classes[1].outcome = a;
    symgame_symbolic::write_stored(&file, &layer).unwrap();
    let (code, out, _) = symgame(&["verify", "--solution", d, "gdl/tictactoe.kif"]);
    assert_eq!(code, 4, "{out}");
    let line = line_starting(&out, "DISAGREEMENT");
    assert!(line.contains("symbolic") && line.contains("explicit") && line.contains("(cell"));

    let (code, _, err) = symgame(&["verify", "--solution", d, "gdl/connect4_4x4.kif"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("made for another game"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
