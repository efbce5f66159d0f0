//! `solve --jobs N`: layers solved in slices by `symgame solve-slice` processes give the same
//! solution files and counts as one process, and a run stopped between slices goes on from
//! the slices it finished.

use crate::{symgame, symgame_line};
use std::path::{Path, PathBuf};
use symgame_testkit::{fresh_dir, root};

/// A fresh directory under the target directory.
fn scratch(name: &str) -> PathBuf {
    fresh_dir(
        root()
            .join("target/test-scratch")
            .join(format!("slices-{name}-{}", std::process::id())),
    )
}

/// The solution files of `dir` (name, bytes), sorted by name.
pub fn solution_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".sol"))
        .map(|n| {
            let bytes = std::fs::read(dir.join(&n)).unwrap();
            (n, bytes)
        })
        .collect();
    files.sort();
    files
}

/// What a solution's manifest says that must not depend on slicing: per layer its depth,
/// states, terminal states, states per outcome and won/drawn/lost counts; the outcomes, the
/// initial value and the kind.
fn counts(dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("solution.json")).unwrap();
    let m: serde_json::Value = serde_json::from_str(&text).unwrap();
    let s = &m["stats"];
    let layers: Vec<serde_json::Value> = s["layers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            serde_json::json!([
                l["depth"],
                l["states"],
                l["terminal"],
                l["per_outcome"],
                l["mover"]
            ])
        })
        .collect();
    serde_json::json!({
        "complete": m["complete"],
        "kind": s["kind"],
        "outcomes": s["outcomes"],
        "initial": s["initial"],
        "per_outcome": s["per_outcome"],
        "layers": layers,
    })
}

/// The files of a solution directory that are not the solution (the jobs' files, forward
/// layers).
pub fn left_behind(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".sol") && n != "solution.json")
        .collect()
}

/// Solves `game` into a fresh directory with `extra` flags; returns the directory and the JSON
/// report.
fn solve_into(game: &str, name: &str, extra: &[&str]) -> (PathBuf, serde_json::Value) {
    let dir = scratch(name);
    let d = dir.to_str().unwrap();
    let mut args = vec!["solve", game, "--out", d, "--json"];
    args.extend_from_slice(extra);
    let (code, out, err) = symgame(&args);
    assert_eq!(code, 0, "{game} {extra:?}: {err}");
    (dir, serde_json::from_str(&out).unwrap())
}

/// How many layers of a report were solved in slices.
fn sliced_layers(report: &serde_json::Value) -> usize {
    report["layers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| !l["sliced"].is_null())
        .count()
}

/// Four slices per layer, two jobs at once, every layer sliced.
const SLICED: [&str; 6] = ["--jobs", "2", "--slices", "4", "--slice-min-bytes", "0"];

#[test]
fn slices_give_the_same_solution_on_every_bundled_game() {
    // The Connect Four boards from 6x4 up take minutes (measured in docs/distributed.md);
    // eight_puzzle is single-player, solved on the whole set, which is never sliced.
    let games = crate::bundled_games_but_the_largest();
    let mut layered = Vec::new();
    for name in &games {
        let game = format!("gdl/{name}.kif");
        let (one, r1) = solve_into(&game, &format!("{name}-one"), &[]);
        let (many, r2) = solve_into(&game, &format!("{name}-many"), &SLICED);
        assert_eq!(counts(&one), counts(&many), "{name}: the counts differ");
        let (a, b) = (solution_files(&one), solution_files(&many));
        assert!(!a.is_empty(), "{name}: no solution file");
        assert_eq!(
            a.iter().map(|f| &f.0).collect::<Vec<_>>(),
            b.iter().map(|f| &f.0).collect::<Vec<_>>(),
            "{name}"
        );
        for ((file, x), (_, y)) in a.iter().zip(&b) {
            assert!(x == y, "{name}: {file} differs with slices");
        }
        // Every layer of a layered game is sliced; a game solved on the whole set is not.
        assert_eq!(sliced_layers(&r1), 0, "{name}");
        if r2["layered"] == true {
            assert_eq!(
                sliced_layers(&r2),
                r2["layers"].as_array().unwrap().len(),
                "{name}"
            );
            layered.push(name.clone());
        } else {
            assert_eq!(sliced_layers(&r2), 0, "{name}");
        }
        // Nothing of the jobs is left behind.
        let left = left_behind(&many);
        assert!(left.is_empty(), "{name}: left behind {left:?}");
        for d in [one, many] {
            let _ = std::fs::remove_dir_all(d);
        }
    }
    for name in ["tictactoe", "connect4_4x4", "connect4_5x4", "prisoners_2p"] {
        assert!(
            layered.iter().any(|n| n == name),
            "{name} was not solved in slices"
        );
    }
}

#[test]
fn a_stopped_sliced_solve_goes_on_from_its_finished_slices() {
    let game = "gdl/connect4_5x4.kif";
    // The groups come from playouts, counted in states, not from a proof within a share of the
    // time left: the first sitting's 0.5 s gave the proof 0.1 s, which on a loaded machine
    // gave up with other groups, so another encoding, and every file differed (seen once in
    // the whole suite).
    let groups = ["--mutex-seconds", "0"];
    let (whole, _) = solve_into(game, "resume-whole", &groups);
    let dir = scratch("resume-sliced");
    let d = dir.to_str().unwrap();
    // Stopped at once, then after a few layers, then run to the end: the same solution.
    let mut stops = 0;
    for limit in ["0.5", "2", "4"] {
        let mut args = vec!["solve", game, "--resume", d, "--time-limit", limit];
        args.extend_from_slice(&SLICED);
        args.extend_from_slice(&groups);
        let (code, _, err) = symgame(&args);
        assert!(code == 3 || code == 0, "{err}");
        stops += usize::from(code == 3);
    }
    assert!(stops > 0, "no run was stopped: the test checks nothing");
    let mut args = vec!["solve", game, "--resume", d, "--json"];
    args.extend_from_slice(&SLICED);
    args.extend_from_slice(&groups);
    let (code, out, err) = symgame(&args);
    assert_eq!(code, 0, "{err}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(report["states"], "3945711");
    assert_eq!(counts(&whole), counts(&dir));
    assert_eq!(solution_files(&whole), solution_files(&dir));
    for d in [whole, dir] {
        let _ = std::fs::remove_dir_all(d);
    }
}

#[test]
fn slice_flags_and_jobs_say_what_is_wrong() {
    let (code, _, err) = symgame(&["solve", "gdl/tictactoe.kif", "--jobs", "2"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--jobs and --slices need --out DIR"), "{err}");
    for bad in ["3/2", "1/3", "x", "0/512"] {
        let line = format!("solve-slice gdl/tictactoe.kif --dir no --layer 0 --slice {bad}");
        let (code, _, err) = symgame_line(&line);
        assert_eq!(code, 2, "{bad}: {err}");
        assert!(err.contains("expected I/N"), "{bad}: {err}");
    }
    let dir = scratch("no-solve");
    let line = format!(
        "solve-slice gdl/tictactoe.kif --dir {} --layer 0 --slice 0/2",
        dir.display()
    );
    let (code, _, err) = symgame_line(&line);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("holds no solve of gdl/tictactoe.kif"), "{err}");
    let _ = std::fs::remove_dir_all(dir);
}
