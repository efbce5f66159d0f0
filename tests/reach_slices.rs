//! `reach --jobs N --resume DIR`: forward layers expanded in slices by `symgame reach-slice`
//! processes give the same layer counts and the same kept layer files as one process, a
//! sliced search stopped on the way goes on to the same end, and the flags and failures say
//! what is wrong.

use crate::{symgame, symgame_line};
use std::path::{Path, PathBuf};
use symgame_testkit::{fresh_dir, root};

/// A fresh directory under the target directory.
fn scratch(name: &str) -> PathBuf {
    fresh_dir(
        root()
            .join("target/test-scratch")
            .join(format!("reach-slices-{name}-{}", std::process::id())),
    )
}

/// The files of a reachability directory (name, bytes), sorted by name: its manifest left
/// out (it holds seconds), every layer file kept.
fn layer_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != "reach.json")
        .map(|n| {
            let bytes = std::fs::read(dir.join(&n)).unwrap();
            (n, bytes)
        })
        .collect();
    files.sort();
    files
}

/// What must not depend on slicing: per layer its states, terminal states and BDD nodes, and
/// the totals.
fn counts(report: &serde_json::Value) -> serde_json::Value {
    let layers: Vec<serde_json::Value> = report["layers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| serde_json::json!([l["states"], l["terminal"], l["nodes"]]))
        .collect();
    serde_json::json!({
        "states": report["states"],
        "terminal": report["terminal"],
        "layers": layers,
    })
}

/// How many layers of a report were expanded in slices.
fn sliced_layers(report: &serde_json::Value) -> usize {
    report["layers"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| !l["sliced"].is_null())
        .count()
}

/// Searches `game` kept in a fresh directory with `extra` flags; returns the directory and
/// the JSON report.
fn reach_into(game: &str, name: &str, extra: &[&str]) -> (PathBuf, serde_json::Value) {
    let dir = scratch(name);
    let d = dir.to_str().unwrap();
    let mut args = vec!["reach", game, "--resume", d, "--json"];
    args.extend_from_slice(extra);
    let (code, out, err) = symgame(&args);
    assert_eq!(code, 0, "{game} {extra:?}: {err}");
    (dir, serde_json::from_str(&out).unwrap())
}

/// Four slices per layer, two jobs at once, every layer sliced.
const SLICED: [&str; 6] = ["--jobs", "2", "--slices", "4", "--slice-min-bytes", "0"];
/// Each job the layer's states of its cube.
const BY_STATES: [&str; 2] = ["--split", "states"];
/// Each job the whole layer under its share of the clusters, one cluster per joint move (so
/// that every job has clusters of each turn).
const BY_CLUSTERS: [&str; 4] = ["--split", "clusters", "--cluster-nodes", "0"];
/// Every layer symbolic (no explicit prefix, whose layers are never sliced).
const SYMBOLIC: [&str; 2] = ["--explicit-states", "0"];

/// Checks that `game` searched with `base` flags gives the same counts and layer files with
/// every layer sliced, split by states and by clusters; returns how many layers were sliced
/// (the fewer of the two). `tag` names its directories apart from another test's on the same
/// game (the tests run at once).
fn same_with_slices(tag: &str, name: &str, base: &[&str]) -> usize {
    let game = format!("gdl/{name}.kif");
    let (one, r1) = reach_into(&game, &format!("{tag}-{name}-one"), base);
    assert_eq!(sliced_layers(&r1), 0, "{name}");
    let a = layer_files(&one);
    assert!(!a.is_empty(), "{name}: no layer file");
    let mut sliced = usize::MAX;
    for (split, flags) in [("states", &BY_STATES[..]), ("clusters", &BY_CLUSTERS[..])] {
        let sliced_flags: Vec<&str> = base.iter().chain(&SLICED).chain(flags).copied().collect();
        let (many, r2) = reach_into(&game, &format!("{tag}-{name}-{split}"), &sliced_flags);
        assert_eq!(
            counts(&r1),
            counts(&r2),
            "{name} by {split}: the counts differ"
        );
        let b = layer_files(&many);
        // The same names: nothing of the jobs (slices, records, logs) is left behind.
        assert_eq!(
            a.iter().map(|f| &f.0).collect::<Vec<_>>(),
            b.iter().map(|f| &f.0).collect::<Vec<_>>(),
            "{name} by {split}"
        );
        for ((file, x), (_, y)) in a.iter().zip(&b) {
            assert!(x == y, "{name}: {file} differs with slices by {split}");
        }
        for l in r2["layers"].as_array().unwrap() {
            if !l["sliced"].is_null() {
                assert_eq!(l["sliced"]["split"], split, "{name}");
            }
        }
        sliced = sliced.min(sliced_layers(&r2));
        let _ = std::fs::remove_dir_all(many);
    }
    let _ = std::fs::remove_dir_all(one);
    sliced
}

#[test]
fn reach_slices_give_the_same_layers_on_every_bundled_game() {
    // The Connect Four boards from 6x4 up take minutes; the 8-puzzle's 41 layers in four jobs
    // each (every job compiling the game) take over a minute.
    let games = crate::bundled_games_but_the_largest();
    let mut sliced = Vec::new();
    for name in &games {
        if same_with_slices("symbolic", name, &SYMBOLIC) > 0 {
            sliced.push(name.clone());
        }
    }
    for name in [
        "tictactoe",
        "connect4_4x4",
        "connect4_5x4",
        "hanoi_5",
        "nim3p",
    ] {
        assert!(
            sliced.iter().any(|n| n == name),
            "{name} was not expanded in slices"
        );
    }
}

#[test]
fn reach_slices_after_the_explicit_prefix_give_the_same_layers() {
    // The first layers expanded state by state (never sliced), the later ones in slices.
    let sliced = same_with_slices("prefix", "connect4_5x4", &[]);
    assert!(
        sliced > 0,
        "no layer of connect4_5x4 was expanded in slices"
    );
}

#[test]
fn a_stopped_sliced_reach_goes_on_to_the_same_layers() {
    stopped_and_resumed("states", &BY_STATES);
}

#[test]
fn a_stopped_reach_split_by_clusters_goes_on_to_the_same_layers() {
    stopped_and_resumed("clusters", &BY_CLUSTERS);
}

/// Connect Four 5x4 sliced with `split` flags, stopped by time limits and resumed: the same
/// layers as one process.
fn stopped_and_resumed(name: &str, split: &[&str]) {
    let game = "gdl/connect4_5x4.kif";
    let (whole, r1) = reach_into(game, &format!("resume-whole-{name}"), &SYMBOLIC);
    let dir = scratch(&format!("resume-{name}"));
    let d = dir.to_str().unwrap();
    let flags: Vec<&str> = SYMBOLIC
        .iter()
        .chain(&SLICED)
        .chain(split)
        .copied()
        .collect();
    // Stopped early, then after a few layers, then run to the end: the same layers.
    let mut stops = 0;
    for limit in ["0.5", "1.5", "3"] {
        let mut args = vec!["reach", game, "--resume", d, "--time-limit", limit];
        args.extend_from_slice(&flags);
        let (code, _, err) = symgame(&args);
        assert!(code == 3 || code == 0, "{err}");
        stops += usize::from(code == 3);
    }
    assert!(stops > 0, "no run was stopped: the test checks nothing");
    let mut args = vec!["reach", game, "--resume", d, "--json"];
    args.extend_from_slice(&flags);
    let (code, out, err) = symgame(&args);
    assert_eq!(code, 0, "{err}");
    let r2: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(r2["states"], "3945711");
    assert!(r2["sittings"].as_u64().unwrap() > 1, "not resumed");
    assert!(sliced_layers(&r2) > 0, "no layer was sliced");
    assert_eq!(counts(&r1), counts(&r2));
    assert_eq!(layer_files(&whole), layer_files(&dir));
    for d in [whole, dir] {
        let _ = std::fs::remove_dir_all(d);
    }
}

#[test]
fn reach_slice_flags_say_what_is_wrong() {
    for flags in ["--jobs 2", "--slices 4", "--slurm"] {
        let (code, _, err) = symgame_line(&format!("reach gdl/tictactoe.kif {flags}"));
        assert_eq!(code, 2, "{flags}: {err}");
        assert!(
            err.contains("--jobs, --slices and --slurm need --resume DIR"),
            "{flags}: {err}"
        );
    }
    let (code, _, err) = symgame_line("reach gdl/tictactoe.kif --resume x --slices 3");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("power of two"), "{err}");
    for bad in ["3/2", "1/3", "x", "0/512"] {
        let line = format!("reach-slice gdl/tictactoe.kif --dir no --layer 0 --slice {bad}");
        let (code, _, err) = symgame_line(&line);
        assert_eq!(code, 2, "{bad}: {err}");
        assert!(err.contains("expected I/N"), "{bad}: {err}");
    }
    let empty = scratch("no-search");
    let line = format!(
        "reach-slice gdl/tictactoe.kif --dir {} --layer 0 --slice 0/2",
        empty.display()
    );
    let (code, _, err) = symgame_line(&line);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("holds no search"), "{err}");
    let _ = std::fs::remove_dir_all(empty);
}

#[test]
fn a_failed_slice_job_fails_the_reach_naming_it() {
    // A search stopped at a layer of more than 60 nodes (deterministic), then resumed in two
    // slices a layer where slice 1 cannot write its file (a directory has its name).
    let game = "gdl/connect4_4x4.kif";
    let dir = scratch("failed");
    let d = dir.to_str().unwrap();
    let line = format!("reach {game} --resume {d} --explicit-states 0 --node-limit 60");
    let (code, _, err) = symgame_line(&line);
    assert_eq!(code, 3, "{err}");
    for k in 0..20 {
        std::fs::create_dir_all(dir.join(format!("reach-slice-{k:04}-1-of-2.layer"))).unwrap();
    }
    let line =
        format!("reach {game} --resume {d} --explicit-states 0 --jobs 2 --slice-min-bytes 0");
    let (code, _, err) = symgame_line(&line);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("the job of a slice of layer"), "{err}");
    assert!(err.contains("slice 1/2"), "{err}");
    assert!(err.contains(".log"), "{err}");
    let _ = std::fs::remove_dir_all(dir);
}
