//! `solve --slurm`: Connect Four 5×4 solved through Slurm job arrays gives the solution of one
//! process; `reach --slurm`: its forward layers expanded by job arrays are those of one
//! process. Runs where a Slurm cluster answers (`scripts/slurm_single_node.sh` sets one up on
//! this machine; CI runs it first); elsewhere it says "skipped: no Slurm".

use crate::slices::{left_behind, solution_files};
use crate::symgame;
use symgame_testkit::{fresh_dir, root};

/// Whether `sinfo` shows a node that can take jobs.
fn slurm_answers() -> bool {
    std::process::Command::new("sinfo")
        .args(["-h", "-o", "%T"])
        .output()
        .is_ok_and(|o| {
            let text = String::from_utf8_lossy(&o.stdout);
            o.status.success()
                && ["idle", "mixed", "allocated"]
                    .iter()
                    .any(|s| text.contains(s))
        })
}

#[test]
fn connect_four_5x4_through_slurm_job_arrays() {
    if !slurm_answers() {
        eprintln!("skipped: no Slurm (run scripts/slurm_single_node.sh as root to set one up)");
        return;
    }
    let base = root().join(format!("target/test-scratch/slurm-{}", std::process::id()));
    let (one, arrays) = (fresh_dir(base.join("one")), fresh_dir(base.join("arrays")));
    let game = "gdl/connect4_5x4.kif";
    let (code, out, err) = symgame(&["solve", game, "--out", one.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{err}");
    let r1: serde_json::Value = serde_json::from_str(&out).unwrap();
    let dir = arrays.to_str().unwrap();
    let (code, out, err) = symgame(&[
        "solve", game, "--out", dir, "--slurm", "--slices", "2", "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let r2: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(r2["states"], "3945711");
    for key in ["initial", "outcomes", "per_outcome"] {
        assert_eq!(r1[key], r2[key], "{key}");
    }
    let layers = r2["layers"].as_array().unwrap();
    assert!(
        layers.iter().all(|l| l["sliced"]["slices"] == 2),
        "every layer in two slices"
    );
    assert_eq!(solution_files(&one), solution_files(&arrays));
    let left = left_behind(&arrays);
    assert!(left.is_empty(), "left behind: {left:?}");
    let _ = std::fs::remove_dir_all(base);
}

#[test]
fn connect_four_5x4_reach_through_slurm_job_arrays() {
    if !slurm_answers() {
        eprintln!("skipped: no Slurm (run scripts/slurm_single_node.sh as root to set one up)");
        return;
    }
    let base = root().join(format!(
        "target/test-scratch/slurm-reach-{}",
        std::process::id()
    ));
    let (one, arrays) = (fresh_dir(base.join("one")), fresh_dir(base.join("arrays")));
    let game = "gdl/connect4_5x4.kif";
    let reach = |dir: &std::path::Path, extra: &[&str]| {
        let mut args = vec!["reach", game, "--resume", dir.to_str().unwrap(), "--json"];
        args.extend_from_slice(&["--explicit-states", "0"]);
        args.extend_from_slice(extra);
        let (code, out, err) = symgame(&args);
        assert_eq!(code, 0, "{err}");
        serde_json::from_str::<serde_json::Value>(&out).unwrap()
    };
    let r1 = reach(&one, &[]);
    let r2 = reach(&arrays, &["--slurm", "--slices", "2"]);
    assert_eq!(r2["states"], "3945711");
    assert_eq!(r1["states"], r2["states"]);
    let layers = r2["layers"].as_array().unwrap();
    // Every layer in two slices (the last has no successors, also expanded in slices).
    assert!(
        layers.iter().all(|l| l["sliced"]["slices"] == 2),
        "every layer in two slices"
    );
    let files = |dir: &std::path::Path| {
        let mut names: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n != "reach.json")
            .map(|n| (n.clone(), std::fs::read(dir.join(&n)).unwrap()))
            .collect();
        names.sort();
        names
    };
    // The same layer files, and nothing of the jobs left behind.
    assert_eq!(files(&one), files(&arrays));
    let _ = std::fs::remove_dir_all(base);
}
