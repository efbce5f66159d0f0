//! Exit codes, end to end: every command maps a library error of one kind to the same exit code
//! (the mapping itself is unit-tested, error kind by error kind, in `crates/cli/failure.rs`).
//! 0 success, 1 internal error, 2 input error, 3 limit or signal, 4 verification disagreement.

use crate::symgame;
use std::path::PathBuf;

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

/// The BDD engine running out of nodes is a resource limit (3) in every symbolic command: it
/// was 3 in reach and plan, 2 in solve and 1 in verify before the errors had one mapping.
#[test]
fn a_bdd_engine_out_of_nodes_exits_3_in_every_command() {
    let d = scratch("oom");
    let db = d.join("t.db");
    let db = db.to_str().unwrap();
    // The smallest table --nodes-log2 allows (2^16 nodes) holds tic-tac-toe, not these.
    let tiny = ["--backend", "oxidd", "--nodes-log2", "16"];
    for cmd in [
        &["reach", "gdl/connect4_5x4.kif"][..],
        &["solve", "gdl/connect4_5x4.kif"],
        &["export", "--out", db, "gdl/connect4_5x4.kif"],
        &["verify", "gdl/connect4_5x4.kif"],
        &["plan", "gdl/eight_puzzle_easy.kif"],
    ] {
        let args: Vec<&str> = cmd.iter().chain(&tiny).copied().collect();
        check(&args, 3, "out of nodes");
    }
    assert!(!std::path::Path::new(db).exists(), "export wrote a file");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_node_limit_exits_3_in_every_command_that_has_one() {
    let d = scratch("nodes");
    let db = d.join("t.db");
    for cmd in [
        &["reach", "gdl/tictactoe.kif"][..],
        &["solve", "gdl/tictactoe.kif"],
        &["export", "--out", db.to_str().unwrap(), "gdl/tictactoe.kif"],
        &["plan", "gdl/hanoi_3.kif"],
        &["prove", "gdl/tictactoe.kif"],
    ] {
        let args: Vec<&str> = cmd.iter().chain(&["--node-limit", "1"]).copied().collect();
        check(&args, 3, "stopped");
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_time_limit_exits_3_in_every_command() {
    let d = scratch("time");
    let db = d.join("t.db");
    for cmd in [
        &["info", "gdl/tictactoe.kif"][..],
        &["reach", "gdl/connect4_4x4.kif"],
        &["solve", "gdl/connect4_4x4.kif"],
        &[
            "export",
            "--out",
            db.to_str().unwrap(),
            "gdl/connect4_4x4.kif",
        ],
        &["verify", "gdl/connect4_4x4.kif"],
        &["plan", "gdl/hanoi_5.kif"],
    ] {
        let args: Vec<&str> = cmd.iter().chain(&["--time-limit", "0"]).copied().collect();
        check(&args, 3, "time limit");
    }
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
    let commands: [&[&str]; 8] = [
        &["info"],
        &["explore"],
        &["prove"],
        &["reach"],
        &["solve"],
        &["verify"],
        &["export", "--out", db],
        &["plan"],
    ];
    for cmd in commands {
        let with = |game: &str| -> Vec<String> {
            cmd.iter()
                .map(|s| s.to_string())
                .chain([game.into()])
                .collect()
        };
        let args = with(bad);
        check(
            &args.iter().map(String::as_str).collect::<Vec<_>>(),
            2,
            "bad.kif:2:",
        );
        let args = with("gdl/no_such_game.kif");
        check(
            &args.iter().map(String::as_str).collect::<Vec<_>>(),
            2,
            "no_such_game.kif",
        );
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
