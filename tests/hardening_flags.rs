//! Bad flag values end with exit code 2 and a message from the argument parser, never a panic
//! (101) or an abort (134); the edge values of each range work (issue 16).

use crate::symgame_line;

const G: &str = "gdl/tictactoe.kif";

/// The commands that take `--time-limit`.
const TIMED: [&str; 8] = [
    "info", "explore", "prove", "reach", "solve", "verify", "export", "plan",
];

fn assert_refused(line: &str, flag: &str) {
    let (code, _, err) = symgame_line(line);
    assert_eq!(code, 2, "{line}: exit {code}, stderr {err}");
    assert!(err.contains(flag), "{line}: stderr without {flag}: {err}");
    assert!(!err.contains("panicked"), "{line}: {err}");
}

#[test]
fn time_limits_out_of_range_are_refused() {
    for command in TIMED {
        for bad in [
            "inf",
            "nan",
            "1e20",
            "1e309",
            "18446744073709551616",
            "-1",
            "1e9.5",
        ] {
            assert_refused(&format!("{command} {G} --time-limit={bad}"), "--time-limit");
        }
    }
}

#[test]
fn engine_sizes_out_of_range_are_refused() {
    for command in ["reach", "solve", "verify", "export"] {
        for bad in [
            "--nodes-log2 0",
            "--nodes-log2 15",
            "--nodes-log2 33",
            "--cache-log2 7",
            "--cache-log2 33",
            "--threads 99999999",
            "--threads=-1",
        ] {
            let flag = bad.split([' ', '=']).next().unwrap();
            assert_refused(&format!("{command} {G} {bad}"), flag);
        }
    }
}

#[test]
fn tables_larger_than_memory_are_refused() {
    // 2^32 nodes are 64 GiB of node table: more than any test machine has.
    for command in ["reach", "solve"] {
        let line = format!("{command} {G} --nodes-log2 32");
        assert_refused(&line, "the largest --nodes-log2 that fits is");
    }
}

#[test]
fn edge_values_work() {
    for line in [
        format!("info {G} --time-limit 1e9"),
        format!("info {G} --time-limit 0.5"),
        format!("reach {G} --nodes-log2 16 --cache-log2 8"),
        format!("solve {G} --nodes-log2 16 --cache-log2 8"),
        format!("reach {G} --threads 0"),
        format!("solve {G} --threads 4"),
    ] {
        let (code, _, err) = symgame_line(&line);
        assert_eq!(code, 0, "{line}: {err}");
    }
}

#[test]
fn stale_temporary_directories_of_dead_runs_are_removed() {
    if !std::path::Path::new("/proc/self").exists() {
        return; // only Linux tells which processes exist
    }
    // A PID above Linux's maximum (2^22): never a live process.
    let stale = std::env::temp_dir().join("symgame-layers-99999998-1");
    std::fs::create_dir_all(stale.join("sub")).unwrap();
    let (code, _, err) = symgame_line(&format!("solve {G}"));
    assert_eq!(code, 0, "{err}");
    assert!(!stale.exists(), "{} was left", stale.display());
}

#[test]
fn play_and_serve_flags_out_of_range_are_refused() {
    let play = format!("play {G}");
    for (command, bad) in [
        (play.as_str(), "--move-time=-1"),
        (&play, "--move-time=inf"),
        (&play, "--solve-time=nan"),
        (&play, "--as"),
        ("serve", "--port=65536"),
        ("serve", "--port=-1"),
        ("serve", "--max-matches=0"),
        ("serve", "--bind=localhost:1"),
    ] {
        let flag = bad.split('=').next().unwrap();
        assert_refused(&format!("{command} {bad}"), flag);
    }
    assert_refused("serve --port 0 --db-dir gdl/tictactoe.kif", "--db-dir");
}
