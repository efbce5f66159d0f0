//! `solve --slurm`: Connect Four 5×4 solved through Slurm job arrays gives the solution of one
//! process. Runs where a Slurm cluster answers (`scripts/slurm_single_node.sh` sets one up on
//! this machine; CI runs it first); elsewhere it says "skipped: no Slurm".

use crate::symgame;
use std::path::Path;
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

/// The `.sol` files of `dir`, sorted by name, with their bytes.
fn sol_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.ends_with(".sol")
                .then(|| (name, std::fs::read(e.path()).unwrap()))
        })
        .collect();
    files.sort();
    files
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
    assert_eq!(sol_files(&one), sol_files(&arrays));
    let left: Vec<String> = std::fs::read_dir(&arrays)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".sol") && n != "solution.json")
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
    let _ = std::fs::remove_dir_all(base);
}
