//! Exit codes, end to end: every command maps a library error of one kind to the same exit code
//! (the mapping itself is unit-tested, error kind by error kind, in `crates/cli/failure.rs`).
//! 0 success, 1 internal error, 2 input error, 3 limit or signal, 4 verification disagreement.

use crate::symgame;
use std::path::{Path, PathBuf};

/// A scratch directory of this test process.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("symgame-exit-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("a scratch directory");
    d
}

/// Runs `symgame` and checks the exit code and a piece of stderr.
fn check(args: &[&str], code: i32, says: &str) {
    let (got, out, err) = symgame(args);
    assert_eq!(got, code, "{args:?}: {out}{err}");
    assert!(err.contains(says), "{args:?}: {err}");
}

/// Runs each of `commands` with `flags` on `game` (`plan` on the planning game `puzzle`;
/// `export` writes into `dir`) and checks that it stops at a limit (exit code 3) and `says` so.
fn check_limit(
    dir: &Path,
    commands: &[&str],
    (game, puzzle): (&str, &str),
    flags: &[&str],
    says: &str,
) {
    let db = dir.join("t.db");
    let db = db.to_str().unwrap();
    for &command in commands {
        let mut args = vec![command];
        match command {
            "export" => args.extend(["--out", db, game]),
            "plan" => args.push(puzzle),
            _ => args.push(game),
        }
        args.extend(flags);
        check(&args, 3, says);
    }
}

/// The BDD engine running out of nodes is a resource limit (3) in every symbolic command: it
/// was 3 in reach and plan, 2 in solve and 1 in verify before the errors had one mapping.
#[test]
fn a_bdd_engine_out_of_nodes_exits_3_in_every_command() {
    let d = scratch("oom");
    // The smallest table --nodes-log2 allows (2^16 nodes) holds tic-tac-toe, not these.
    let tiny = ["--backend", "oxidd", "--nodes-log2", "16"];
    let games = ("gdl/connect4_5x4.kif", "gdl/eight_puzzle_easy.kif");
    let commands = ["reach", "solve", "export", "verify", "plan"];
    check_limit(&d, &commands, games, &tiny, "out of nodes");
    assert!(!d.join("t.db").exists(), "export wrote a file");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_node_limit_exits_3_in_every_command_that_has_one() {
    let d = scratch("nodes");
    let games = ("gdl/tictactoe.kif", "gdl/hanoi_3.kif");
    let commands = ["reach", "solve", "export", "plan", "prove"];
    check_limit(&d, &commands, games, &["--node-limit", "1"], "stopped");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_time_limit_exits_3_in_every_command() {
    let d = scratch("time");
    let games = ("gdl/connect4_4x4.kif", "gdl/hanoi_5.kif");
    let commands = ["info", "reach", "solve", "export", "verify", "plan"];
    check_limit(&d, &commands, games, &["--time-limit", "0"], "time limit");
    let _ = std::fs::remove_dir_all(&d);
}

/// A GDL error, a missing file and a bad flag value are input errors (2) in every command.
#[test]
fn bad_input_exits_2_in_every_command() {
    let d = scratch("input");
    let bad = d.join("bad.kif");
    std::fs::write(&bad, "(role x)\n(<= (legal x ?m) (true (at ?n)))\n").unwrap();
    let bad = bad.to_str().unwrap();
    let db = d.join("t.db");
    let db = db.to_str().unwrap();
    let commands: [&[&str]; 9] = [
        &["info"],
        &["explore"],
        &["prove"],
        &["reach"],
        &["solve"],
        &["verify"],
        &["export", "--out", db],
        &["plan"],
        &["play"],
    ];
    let games = [
        (bad, "bad.kif:2:"),
        ("gdl/no_such_game.kif", "no_such_game.kif"),
    ];
    for cmd in commands {
        for (game, says) in games {
            let args: Vec<&str> = cmd.iter().copied().chain([game]).collect();
            check(&args, 2, says);
        }
    }
    check(
        &["query", db, "--game", bad, "--rank", "0"],
        2,
        "bad.kif:2:",
    );
    for cmd in ["reach", "solve", "verify", "plan"] {
        check(
            &[cmd, "--nodes-log2", "33", "gdl/tictactoe.kif"],
            2,
            "16..=32",
        );
    }
    check(
        &["verify", "--algo", "minimax", "gdl/tictactoe.kif"],
        2,
        "--algo",
    );
    check(
        &["reach", "--time-limit=-1", "gdl/tictactoe.kif"],
        2,
        "seconds",
    );
    let _ = std::fs::remove_dir_all(&d);
}
