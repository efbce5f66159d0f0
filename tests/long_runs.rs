//! Long runs (issue 17): `reach --resume DIR` goes on from the last finished layer of a
//! stopped or killed search and gives the counts and files of one uninterrupted run, and
//! `--memory` bounds a run, which stops with its typed reason (exit code 3) when it needs more.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::symgame;

/// `reach --json` with `args`: (exit code, the report, stderr).
fn reach(args: &[&str]) -> (i32, Value, String) {
    let mut all = vec!["reach", "--json", "--threads", "1"];
    all.extend_from_slice(args);
    let (code, out, err) = symgame(&all);
    let report = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    (code, report, err)
}

/// Per layer: (states, terminal states).
fn counts(report: &Value) -> Vec<(String, String)> {
    report["layers"]
        .as_array()
        .expect("layers")
        .iter()
        .map(|l| {
            let field = |k: &str| l[k].as_str().expect("a decimal string").to_string();
            (field("states"), field("terminal"))
        })
        .collect()
}

/// The files of `dir` (name, and a hash of the bytes), the manifest left out (its seconds
/// differ).
fn layer_files(dir: &Path) -> Vec<(String, u64)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.file_name().is_some_and(|n| n != "reach.json"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            let mut h = std::collections::hash_map::DefaultHasher::new();
            std::hash::Hash::hash(&std::fs::read(&p).unwrap(), &mut h);
            (name, std::hash::Hasher::finish(&h))
        })
        .collect();
    files.sort();
    files
}

fn manifest(dir: &Path) -> Option<Value> {
    let text = std::fs::read_to_string(dir.join("reach.json")).ok()?;
    serde_json::from_str(&text).ok()
}

/// The uninterrupted run of `game` kept in `dir`.
fn whole(game: &str, dir: &Path) -> Value {
    // A search that would not end (a layer read again and again) fails, not hangs.
    let (code, report, err) = reach(&[
        game,
        "--resume",
        dir.to_str().unwrap(),
        "--time-limit",
        "60",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(report["sittings"], 1);
    report
}

#[test]
fn a_search_stopped_at_a_limit_resumes_to_the_counts_and_files_of_one_run() {
    // Connect Four's layers lie in levels of a potential (its pieces); three-player Nim
    // reaches states again in later layers, so its resumed search needs the union of the
    // layers read back; fill_reset's layers lie in the levels until its board is cleared,
    // and a search kept in a directory, which does not hold its finished layers in memory
    // while they do, reads them back then.
    let games = [
        ("gdl/connect4_5x4.kif", "20000", 4),
        ("gdl/nim3p.kif", "30", 3),
        ("tests/games/fill_reset.kif", "14", 2),
    ];
    for (game, nodes, least) in games {
        let name = Path::new(game).file_stem().unwrap().to_str().unwrap();
        let scratch = symgame_testkit::scratch_dir!("long-runs", name);
        let (one, parts): (PathBuf, PathBuf) = (scratch.join("one"), scratch.join("parts"));
        let expected = whole(game, &one);
        if name == "fill_reset" {
            // The explicit search's layers (`symgame explore`).
            let want = [("1", "0"), ("6", "0"), ("12", "0"), ("8", "1")];
            let want: Vec<_> = want.map(|(s, t)| (s.to_string(), t.to_string())).into();
            assert_eq!(counts(&expected), want);
            let m = manifest(&one).expect("a manifest");
            assert_eq!(
                (&m["layered"], &m["revisited"]),
                (&false.into(), &true.into())
            );
        }
        let p = parts.to_str().unwrap();
        // A node limit stops the search at the same layer on every machine.
        let (code, first, err) = reach(&[game, "--resume", p, "--node-limit", nodes]);
        assert_eq!(code, 3, "{err}");
        assert_eq!(first["stopped"], "NodeLimit");
        let done = counts(&first).len();
        assert!(
            done >= least && done < counts(&expected).len(),
            "{game}: {done} layers"
        );
        let (code, second, err) = reach(&[game, "--resume", p]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(second["sittings"], 2);
        assert_eq!(counts(&second), counts(&expected), "{game}");
        assert_eq!(second["states"], expected["states"]);
        assert_eq!(layer_files(&parts), layer_files(&one));
        // Found complete: reported as found, nothing searched again.
        let (code, third, err) = reach(&[game, "--resume", p]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(counts(&third), counts(&expected));
        assert_eq!(third["sittings"], 2);
    }
}

#[test]
fn a_layer_file_spoilt_before_it_is_read_back_is_a_clear_error() {
    // fill_reset's layers lie in levels of a potential until its board is cleared, so a search
    // kept in a directory reads its finished layers back only then (after layer 3). A layer
    // file spoilt in between gives an error that names it when it is read back, with the
    // finished layers kept.
    let scratch = symgame_testkit::scratch_dir!("long-runs", "spoilt");
    let dir = scratch.join("kept");
    let d = dir.to_str().unwrap();
    let game = "tests/games/fill_reset.kif";
    let (code, first, err) = reach(&[game, "--resume", d, "--node-limit", "14"]);
    assert_eq!(code, 3, "{err}");
    let done = counts(&first).len();
    assert!((2..4).contains(&done), "{done} layers");
    // Layer 0 is read back only when the board is cleared; the frontier's file is read at once.
    let before = std::fs::read_to_string(dir.join("reach.json")).unwrap();
    std::fs::write(dir.join("reach-0000.layer"), b"not a layer").unwrap();
    let (code, _, err) = symgame(&["reach", "--threads", "1", game, "--resume", d]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("reach-0000.layer"), "{err}");
    assert!(err.contains("finished layers, kept in"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    // Nothing finished is lost: the manifest names at least the layers it named before.
    let m = manifest(&dir).expect("a manifest");
    let kept: Value = serde_json::from_str(&before).unwrap();
    assert!(m["layers"].as_array().unwrap().len() >= kept["layers"].as_array().unwrap().len());
    assert_eq!(m["complete"], false);
}

#[test]
fn a_killed_search_resumes_from_its_last_finished_layer() {
    let scratch = symgame_testkit::scratch_dir!("long-runs", "killed");
    let game = "gdl/connect4_6x4.kif";
    let (one, parts) = (scratch.join("one"), scratch.join("parts"));
    let expected = whole(game, &one);
    let args = [
        "reach",
        "--threads",
        "1",
        "--explicit-states",
        "0",
        game,
        "--resume",
    ];
    let finished = |m: Value| m["layers"].as_array().map_or(0, Vec::len);
    // Killed (SIGKILL: no handler runs) once four layers are finished.
    kill_when(&args, &parts, || {
        manifest(&parts).is_some_and(|m| finished(m) >= 4)
    });
    let kept = manifest(&parts).unwrap();
    assert_eq!(
        kept["complete"], false,
        "the search ended before it was killed"
    );
    let (code, resumed, err) = reach(&[game, "--resume", parts.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(resumed["sittings"], 2);
    assert_eq!(counts(&resumed), counts(&expected));
    assert_eq!(layer_files(&parts), layer_files(&one));
    assert!(no_temporaries(&parts));
}

/// Runs `symgame args DIR` and kills it (SIGKILL: no handler runs) as soon as `ready`.
fn kill_when(args: &[&str], dir: &Path, ready: impl Fn() -> bool) {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_symgame"))
        .args(args)
        .arg(dir)
        .current_dir(symgame_testkit::root())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while !ready() {
        let waited = started.elapsed();
        assert!(waited < Duration::from_secs(120), "{args:?}: not ready");
        let ended = child.try_wait().unwrap();
        assert!(
            ended.is_none() || ready(),
            "{args:?}: ended ({ended:?}) before ready"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
}

/// Whether `dir` holds no temporary file (one a killed run was writing is removed when the
/// directory is opened again).
fn no_temporaries(dir: &Path) -> bool {
    layer_files(dir).iter().all(|(n, _)| !n.ends_with(".tmp"))
}

#[test]
fn a_directory_of_another_game_or_altered_is_refused() {
    let scratch = symgame_testkit::scratch_dir!("long-runs", "refused");
    let dir = scratch.join("d");
    let d = dir.to_str().unwrap();
    whole("gdl/connect4_4x4.kif", &dir);
    let (code, _, err) = symgame(&["reach", "gdl/tictactoe.kif", "--resume", d]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("reach.json") && err.contains("another game"),
        "{err}"
    );
    let path = dir.join("reach.json");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        text.replacen("\"complete\": true", "\"complete\": false", 1),
    )
    .unwrap();
    let (code, _, err) = symgame(&["reach", "gdl/connect4_4x4.kif", "--resume", d]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("checksum mismatch"), "{err}");
}

#[test]
fn memory_bounds_a_run_and_a_run_that_needs_more_stops_with_exit_3() {
    let game = "gdl/connect4_6x5.kif";
    // oxidd: the node table sized to --memory fills, and the run stops where it is.
    let (code, report, err) = reach(&[game, "--memory", "200M", "--cache-log2", "16"]);
    assert_eq!(code, 3, "{err}");
    assert_eq!(report["stopped"], "OutOfMemory");
    let layers = report["layers"].as_array().unwrap();
    assert!(layers.len() > 5, "{report}");
    let peak = layers.last().unwrap()["peak_resident"].as_u64().unwrap();
    assert!(peak < 200 << 20, "{peak} bytes");
    // biodivine has no shared table: the resident memory itself is checked.
    let args = [game, "--backend", "biodivine", "--memory", "100M"];
    let (code, report, err) = reach(&args);
    assert_eq!(code, 3, "{err}");
    assert_eq!(report["stopped"], "MemoryLimit");
    assert!(err.contains("memory limit reached"), "{err}");
    // Nonsense is refused before any work.
    for bad in ["20X", "1M", "-3G"] {
        let (code, _, err) = symgame(&["reach", game, "--memory", bad]);
        assert_eq!(code, 2, "{bad}: {err}");
    }
}

/// Per solved layer: depth, states, states per outcome, won/drawn/lost for the mover.
fn solved_rows(report: &Value) -> Vec<String> {
    let rows = report["layers"].as_array().expect("layers");
    let row = |l: &Value| {
        format!(
            "{} {} {} {}",
            l["depth"], l["states"], l["per_outcome"], l["mover"]
        )
    };
    rows.iter().map(row).collect()
}

/// The solution files of `dir` (name, hash of the bytes), the manifest left out.
fn solution_files(dir: &Path) -> Vec<(String, u64)> {
    layer_files(dir)
        .into_iter()
        .filter(|(n, _)| n.ends_with(".sol"))
        .collect()
}

#[test]
fn a_killed_solve_resumes_from_its_last_solved_layer() {
    let scratch = symgame_testkit::scratch_dir!("long-runs", "solve-killed");
    let game = "gdl/connect4_5x4.kif";
    let (one, parts) = (scratch.join("one"), scratch.join("parts"));
    let (code, out, err) = symgame(&["solve", "--json", game, "--out", one.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let expected: Value = serde_json::from_str(&out).unwrap();
    let solved = |dir: &Path| {
        let text = std::fs::read_to_string(dir.join("solution.json")).ok()?;
        let m: Value = serde_json::from_str(&text).ok()?;
        Some((
            m["stats"]["layers"].as_array()?.len(),
            m["complete"].clone(),
        ))
    };
    // Stopped in its forward search first (a node limit stops it at the same layer on every
    // machine): the forward layers finished are kept, with the first one not finished.
    let p = parts.to_str().unwrap();
    let (code, _, err) = symgame(&["solve", game, "--resume", p, "--node-limit", "50000"]);
    assert_eq!(code, 3, "{err}");
    let text = std::fs::read_to_string(parts.join("forward.json")).unwrap();
    let forward: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(forward["complete"], false);
    let kept = forward["depths"].as_u64().unwrap();
    assert!(kept >= 3, "{kept} forward layers kept");
    // Then killed once three layers are solved (the backward pass goes from the last layer).
    let args = ["solve", game, "--resume"];
    kill_when(&args, &parts, || {
        solved(&parts).is_some_and(|(n, _)| n >= 3)
    });
    let (n, complete) = solved(&parts).unwrap();
    assert_eq!(
        complete, false,
        "the solve ended before it was killed ({n} layers)"
    );
    assert!(parts.join("forward.json").exists());
    let kept = std::fs::read_to_string(parts.join("solution.json")).unwrap();
    lost_outcomes_are_refused(game, &parts, &scratch.join("lost"), &kept);
    // A sitting stopped before it solves a layer (the node limit trips in the first one) keeps
    // the solved layers and the outcomes they index (it once wrote none, and the next sitting
    // solved on with the draw missing).
    let (code, _, err) = symgame(&["solve", game, "--resume", p, "--node-limit", "5000"]);
    assert_eq!(code, 3, "{err}");
    let after: Value =
        serde_json::from_str(&std::fs::read_to_string(parts.join("solution.json")).unwrap())
            .unwrap();
    let before: Value = serde_json::from_str(&kept).unwrap();
    assert_eq!(after["stats"]["outcomes"], before["stats"]["outcomes"]);
    assert_eq!(after["stats"]["layers"], before["stats"]["layers"]);
    let (code, out, err) = symgame(&["solve", "--json", game, "--resume", p]);
    assert_eq!(code, 0, "{err}");
    let resumed: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(resumed["resumed"]["forward"], true);
    let found = resumed["resumed"]["layers"].as_u64().unwrap() as usize;
    assert!(
        found >= n,
        "{found} layers found solved, {n} were when killed"
    );
    assert_eq!(solved_rows(&resumed), solved_rows(&expected));
    // Its seconds go on from the earlier sittings': taken deepest first, in the order the
    // layers were solved, they never fall back to the start of this sitting.
    let mut rows: Vec<(u64, f64)> = (resumed["layers"].as_array().unwrap().iter())
        .map(|l| (l["depth"].as_u64().unwrap(), l["seconds"].as_f64().unwrap()))
        .collect();
    rows.sort_by_key(|r| std::cmp::Reverse(r.0));
    assert!(rows.windows(2).all(|w| w[0].1 <= w[1].1), "{rows:?}");
    let earlier = resumed["resumed"]["earlier_seconds"].as_f64().unwrap();
    assert_eq!(earlier, rows[found - 1].1);
    assert!(resumed["seconds"].as_f64().unwrap() >= rows[rows.len() - 1].1);
    assert_eq!(resumed["outcomes"], expected["outcomes"]);
    assert_eq!(resumed["initial"], expected["initial"]);
    assert_eq!(solution_files(&parts), solution_files(&one));
    assert!(no_temporaries(&parts));
    // The forward layers are removed once the solution is complete.
    assert!(!parts.join("forward.json").exists());
    assert!(layer_files(&parts)
        .iter()
        .all(|(n, _)| !n.ends_with(".layer")));
    // Found complete: reported as found.
    let (code, out, err) = symgame(&["solve", "--json", game, "--resume", p]);
    assert_eq!(code, 0, "{err}");
    let again: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(solved_rows(&again), solved_rows(&expected));
    // The solution reads back as any other.
    let (code, out, err) = symgame(&["verify", "--solution", p, game, "--sample", "50"]);
    assert_eq!(code, 0, "{out}{err}");
}

/// A copy of the solve directory `from` whose manifest (`kept`, its text) lists fewer outcomes
/// than its solved layers name, checksummed as if written so, is refused with a clear error:
/// solving on from it would give wrong values.
fn lost_outcomes_are_refused(game: &str, from: &Path, to: &Path, kept: &str) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
    let mut m: Value = serde_json::from_str(kept).unwrap();
    m["stats"]["outcomes"] = Value::Array(Vec::new());
    m["checksum"] = Value::from("00000000");
    let text = serde_json::to_string_pretty(&m).unwrap();
    let sum = format!("{:08x}", crc32fast::hash(text.as_bytes()));
    let text = text.replacen(
        "\"checksum\": \"00000000\"",
        &format!("\"checksum\": \"{sum}\""),
        1,
    );
    std::fs::write(to.join("solution.json"), text).unwrap();
    let (code, _, err) = symgame(&["solve", game, "--resume", to.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("solution.json") && err.contains("outcomes but the manifest lists 0"),
        "{err}"
    );
}
