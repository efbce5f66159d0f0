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

/// Two rounds of the battle of the sexes (general-sum, simultaneous): the second round's four
/// states are one-shot stage games with two pure equilibria each.
const BATTLE: &str = "\
(role ann) (role bob)
(init (round 1))
(succ 1 2) (succ 2 3)
(choice opera) (choice football)
(pay opera opera 2 1) (pay football football 1 2)
(pay opera football 0 0) (pay football opera 0 0)
(<= (legal ?r ?c) (role ?r) (choice ?c))
(<= (next (round ?n)) (true (round ?m)) (succ ?m ?n))
(<= (next (first ?a ?b)) (true (round 1)) (does ann ?a) (does bob ?b))
(<= (next (first ?a ?b)) (true (first ?a ?b)))
(<= (next (second ?a ?b)) (true (round 2)) (does ann ?a) (does bob ?b))
(<= terminal (true (round 3)))
(score 0 0) (score 1 20) (score 2 40) (score 3 60) (score 4 80)
(<= (goal ann ?g) (true (first ?a ?b)) (true (second ?c ?d)) (pay ?a ?b ?x ?u)
    (pay ?c ?d ?y ?v) (plus ?x ?y ?s) (score ?s ?g))
(<= (goal bob ?g) (true (first ?a ?b)) (true (second ?c ?d)) (pay ?a ?b ?u ?x)
    (pay ?c ?d ?v ?y) (plus ?x ?y ?s) (score ?s ?g))
(plus 0 0 0) (plus 0 1 1) (plus 0 2 2) (plus 1 0 1) (plus 1 1 2) (plus 1 2 3)
(plus 2 0 2) (plus 2 1 3) (plus 2 2 4)
";

/// The one-shot stage games' pure equilibria are checked by an explicit count; a solution
/// whose report of them is wrong (checksum intact) is a disagreement (exit 4).
#[test]
fn verify_checks_the_one_shot_equilibria() {
    let dir = symgame_testkit::scratch_dir!("verify", "battle");
    let game = dir.join("battle.kif");
    std::fs::write(&game, BATTLE).unwrap();
    let g = game.to_str().unwrap();
    let (code, out, err) = symgame(&["verify", g]);
    assert_eq!(code, 0, "{out}{err}");
    let line = line_starting(&out, "one-shot stage games' pure equilibria");
    assert!(
        line.contains("agree (symbolic 4 states, 4 with one; explicit 4 states, 4 with one"),
        "{line}"
    );

    let sol = dir.join("sol");
    let (code, out, err) = symgame(&["solve", g, "--out", sol.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    let mut m = symgame_symbolic::read_manifest(&sol).unwrap();
    let nash = m
        .stats
        .nash
        .as_mut()
        .expect("the solution reports equilibria");
    nash.with_equilibrium = 3u32.into();
    symgame_symbolic::write_manifest_file(&sol, &m).unwrap();
    let (code, out, err) = symgame(&["verify", "--solution", sol.to_str().unwrap(), g]);
    assert_eq!(code, 4, "{out}{err}");
    assert!(err.contains("pure equilibria differ"), "{err}");
}
