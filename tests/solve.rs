//! `symgame solve`: values, tables, solution files, limits and the games it must refuse.

use crate::{line_starting, symgame, symgame_line};
use std::path::{Path, PathBuf};
use symgame_bdd::{BddEngine, BiodivineEngine, EngineConfig};
use symgame_testkit::{fresh_dir, load_game, root};

/// A fresh directory under the target directory.
fn scratch(name: &str) -> PathBuf {
    fresh_dir(
        root()
            .join("target/test-scratch")
            .join(format!("{name}-{}", std::process::id())),
    )
}

/// The output of `symgame solve GAME`, which must succeed and report `initial` (the initial
/// state's value).
fn solved(game: &str, initial: &str) -> String {
    let (code, out, err) = symgame(&["solve", game]);
    assert_eq!(code, 0, "{game}: {err}");
    assert!(out.contains(initial), "{out}");
    out
}

#[test]
fn tictactoe_is_a_draw_with_the_table_and_json() {
    let out = solved(
        "gdl/tictactoe.kif",
        "initial state: xplayer 50, oplayer 50 (draw)",
    );
    assert!(out.contains("solved layer by layer"), "{out}");
    let total = line_starting(&out, "total");
    let nums: Vec<&str> = total.split_whitespace().collect();
    assert_eq!(nums, ["total", "5478", "2936", "1068", "1474"], "{total}");
    let (code, out, _) = symgame(&["solve", "--json", "--layered", "never", "gdl/tictactoe.kif"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["kind"], "zero-sum");
    assert_eq!(v["layered"], false);
    let initial = v["initial"].as_u64().unwrap() as usize;
    assert_eq!(v["outcomes"][initial], serde_json::json!([50, 50]));
    assert_eq!(v["states"], "5478");
    // All ten layers from the explicit prefix by default; none with --explicit-states 0: the
    // same solution either way.
    assert_eq!(v["explicit_layers"], 10);
    let (code, out, _) = symgame(&[
        "solve",
        "--json",
        "--layered",
        "never",
        "--explicit-states",
        "0",
        "gdl/tictactoe.kif",
    ]);
    assert_eq!(code, 0);
    let w: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(w["explicit_layers"], 0);
    for key in ["outcomes", "per_outcome", "initial", "states"] {
        assert_eq!(v[key], w[key], "{key}");
    }
}

#[test]
fn single_player_reports_the_best_reward_and_its_distance() {
    solved(
        "gdl/climb_rewards.kif",
        "initial state: climber 100 (best reward in 4 moves)",
    );
}

/// Loads every class of a solution directory into one engine; returns (outcome, states) pairs.
fn load_solution(dir: &Path, num_vars: u32) -> Vec<(Vec<u8>, u64)> {
    let m = symgame_symbolic::read_manifest(dir).unwrap();
    assert!(m.complete);
    let e = BiodivineEngine::new(num_vars, &EngineConfig::small()).unwrap();
    let counted: symgame_bdd::VarSet = (0..num_vars).step_by(2).collect();
    let mut per: Vec<(Vec<u8>, u64)> = m.stats.outcomes.iter().map(|o| (o.clone(), 0)).collect();
    for (_, file) in &m.files {
        let layer = symgame_symbolic::read_stored(&dir.join(file)).unwrap();
        assert_eq!(layer.fingerprint, m.fingerprint);
        for c in layer.classes {
            let b = e.import(&c.nodes).unwrap();
            let n: u64 = e.sat_count_over(&b, &counted).try_into().unwrap();
            per[c.outcome as usize].1 += n;
        }
    }
    per
}

#[test]
fn solution_files_round_trip_and_reject_damage() {
    let dir = scratch("ttt-solution");
    let d = dir.to_str().unwrap();
    let (code, out, err) = symgame(&["solve", "--out", d, "gdl/tictactoe.kif"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("solution written to"), "{out}");
    // The solver's encoding (compact: 19 bits for 29 fluents), two variables a bit.
    let game = load_game("tictactoe");
    let enc = symgame_symbolic::Encoding::with_options(&game, &Default::default());
    assert_eq!(enc.num_vars(), 38);
    let per = load_solution(&dir, enc.num_vars());
    let mut counts: Vec<(Vec<u8>, u64)> = per.into_iter().filter(|x| x.1 > 0).collect();
    counts.sort();
    assert_eq!(
        counts,
        [
            (vec![0, 100], 1474),
            (vec![50, 50], 1068),
            (vec![100, 0], 2936)
        ]
    );
    // No temporary files are left.
    let leftovers: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");

    let file = dir.join("layer-0005.sol");
    let good = std::fs::read(&file).unwrap();
    let err_of = |bytes: &[u8]| -> String {
        std::fs::write(&file, bytes).unwrap();
        symgame_symbolic::read_stored(&file)
            .expect_err("damaged file accepted")
            .to_string()
    };
    for cut in [0, 5, 20, good.len() / 2, good.len() - 1] {
        let msg = err_of(&good[..cut]);
        assert!(msg.contains("layer-0005.sol"), "{msg}");
    }
    for at in [40, good.len() / 2, good.len() - 1] {
        let mut bad = good.clone();
        bad[at] ^= 0x10;
        assert!(err_of(&bad).contains("checksum mismatch"), "byte {at}");
    }
    let mut future = good.clone();
    future[8] = 99;
    assert!(err_of(&future).contains("format version 99"));
    assert!(err_of(b"(role x)\n(init (p))\n(<= terminal (true (p)))\n").contains("wrong magic"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_time_limit_exits_3_and_marks_the_solution_incomplete() {
    let dir = scratch("c4-limit");
    let d = dir.to_str().unwrap();
    // A node limit stops the search itself (deterministically, after the set-up).
    let (code, _, err) = symgame_line(&format!(
        "solve --node-limit 2000 --out {d} gdl/connect4_4x4.kif"
    ));
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("node limit"), "{err}");
    let m = symgame_symbolic::read_manifest(&dir).unwrap();
    assert!(!m.complete);
    let _ = std::fs::remove_dir_all(&dir);
    // A time limit that ends during the set-up: the limit's exit code, and no solution files.
    let (code, _, err) = symgame_line(&format!(
        "solve --time-limit 0 --out {d} gdl/connect4_4x4.kif"
    ));
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("time limit reached"), "{err}");
    assert!(symgame_symbolic::read_manifest(&dir).is_err(), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn games_outside_the_solver_get_a_clear_message() {
    let path = "tests/games/dead_end.kif";
    let (code, _, err) = symgame(&["solve", path]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(path) && err.contains("no legal joint move"),
        "{err}"
    );
    // The state is named with its fluents.
    assert!(err.contains("(state: (at stuck))"), "{err}");
}

#[test]
fn simultaneous_and_many_role_games_are_solved() {
    // Matching pennies: 50 each in mixed strategies (a matrix game solved by LP), 0 in pure
    // ones, where whoever commits first loses.
    let pennies = "tests/games/matching_pennies.kif";
    let (code, out, err) = symgame(&["solve", pennies]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("(mixed values)"), "{out}");
    assert!(
        out.contains("initial state: even 50.00, odd 50.00 (values in mixed strategies; pure security levels 0/0;"),
        "{out}"
    );
    let (code, out, err) = symgame(&["solve", "--values", "security", pennies]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("security levels (pure strategies)"), "{out}");
    assert!(out.contains("initial state: even 0, odd 0"), "{out}");
    // The mixed values in --json, per outcome and role.
    let (code, out, err) = symgame(&["solve", "--json", pennies]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let initial = v["initial"].as_u64().unwrap() as usize;
    assert_eq!(
        v["mixed"][initial],
        serde_json::json!([50.0, 50.0]),
        "{out}"
    );
    // Three roles taking turns: max^n.
    let (code, out, err) = symgame(&["solve", "tests/games/three_roles.kif"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("(max^n)"), "{out}");
    // Security levels on request, for a turn-taking game too.
    let (code, out, err) = symgame(&[
        "solve",
        "--values",
        "security",
        "tests/games/three_roles.kif",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("security levels (pure strategies)"), "{out}");
    // Reachability works on them as before.
    let (code, _, err) = symgame(&["reach", "tests/games/matching_pennies.kif"]);
    assert_eq!(code, 0, "{err}");
}
