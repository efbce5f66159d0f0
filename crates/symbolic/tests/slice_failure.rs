//! A sliced solve whose job fails: the solve stops with [`SolveError::Slice`] naming the layer
//! and quoting the job, keeps what was finished, and a resumed solve reruns only the slices
//! without a record and ends with the files of a solve that never failed.
//!
//! The jobs run in this process through a [`SliceRunner`] that builds its own engine and game
//! per slice (as a `solve-slice` process does) and fails one chosen slice once; the runners of
//! the CLI (a process pool, Slurm) are tested end to end in `tests/slices.rs` and
//! `tests/slurm.rs`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use symgame_bdd::{BddEngine, BiodivineEngine, EngineConfig};
use symgame_ground::GroundGame;
use symgame_symbolic::{
    fingerprint, solve, solve_slice, Encoding, LayeredMode, SliceFailure, SlicePass, SliceRunner,
    SliceTask, Slicing, SolveError, SolveOptions, SymbolicGame, SymbolicOptions,
};
use symgame_testkit::load_game;

/// Runs each slice in this process with its own engine, and fails slice `fail.1` of the
/// `fail.0`-th layer it is asked for (counting from 0), once.
struct InProcess {
    game: Arc<GroundGame>,
    settings: SolveOptions,
    fail: Mutex<Option<(usize, u32)>>,
    /// Per call: the layer and the slices asked for.
    calls: Mutex<Vec<(usize, Vec<u32>)>>,
    /// After the jobs of a layer, remove the slices' classes of the layer below them (which
    /// the jobs merged and wrote merged): the solve can then only record it from the jobs'
    /// merge.
    drop_merged_slices: bool,
    /// Between the jobs of a layer, overwrite the middle of the merged file of the layer below
    /// (which the first job wrote): the jobs after it must merge the slices again.
    damage_merged: bool,
}

impl SliceRunner for InProcess {
    fn run(&self, depth: usize, count: u32, slices: &[u32]) -> Result<(), SliceFailure> {
        let call = {
            let mut calls = self.calls.lock().unwrap();
            calls.push((depth, slices.to_vec()));
            calls.len() - 1
        };
        let failing = {
            let mut fail = self.fail.lock().unwrap();
            match *fail {
                Some((at, index)) if at == call => {
                    *fail = None;
                    Some(index)
                }
                _ => None,
            }
        };
        for &index in slices {
            if failing == Some(index) {
                return Err(SliceFailure::Failed(format!(
                    "slice {index}/{count}: injected failure"
                )));
            }
            let game = &*self.game;
            let enc = Encoding::with_options(game, &SymbolicOptions::default());
            let e = BiodivineEngine::new(enc.num_vars(), &EngineConfig::small()).unwrap();
            let g = SymbolicGame::new(&e, game, enc, &SymbolicOptions::default()).unwrap();
            let task = SliceTask {
                pass: SlicePass::Backward,
                depth,
                index,
                count,
            };
            solve_slice(&g, &self.settings, task)
                .map_err(|e| SliceFailure::Failed(format!("slice {index}/{count}: {e}")))?;
            let dir = self.settings.out_dir.as_deref().unwrap();
            let merged = dir.join(format!("layer-{:04}.sol", depth + 1));
            if self.damage_merged && merged.is_file() {
                let mut bytes = std::fs::read(&merged).unwrap();
                let mid = bytes.len() / 2;
                for b in &mut bytes[mid..mid + 8] {
                    *b ^= 0x5a;
                }
                std::fs::write(&merged, bytes).unwrap();
            }
        }
        if self.drop_merged_slices {
            let dir = self.settings.out_dir.as_deref().unwrap();
            let below = format!("slice-{:04}-", depth + 1);
            for f in std::fs::read_dir(dir).unwrap() {
                let name = f.unwrap().file_name().to_string_lossy().into_owned();
                if name.starts_with(&below) && name.ends_with(".layer") {
                    std::fs::remove_file(dir.join(name)).unwrap();
                }
            }
        }
        Ok(())
    }
}

/// The options of a resumable layered solve into `dir`.
fn settings(game: &GroundGame, dir: &Path) -> SolveOptions {
    let enc = Encoding::with_options(game, &SymbolicOptions::default());
    SolveOptions {
        layered: LayeredMode::Auto,
        out_dir: Some(dir.to_path_buf()),
        resume: true,
        fingerprint: fingerprint(game, &enc),
        ..SolveOptions::default()
    }
}

/// Solves `game` into `dir`, sliced by `runner` if given.
fn run(
    game: &GroundGame,
    dir: &Path,
    runner: Option<Arc<InProcess>>,
) -> Result<symgame_symbolic::SolveStats, SolveError> {
    let enc = Encoding::with_options(game, &SymbolicOptions::default());
    let e = BiodivineEngine::new(enc.num_vars(), &EngineConfig::small()).unwrap();
    let g = SymbolicGame::new(&e, game, enc, &SymbolicOptions::default()).unwrap();
    let opts = SolveOptions {
        slicing: runner.map(|r| Slicing {
            bits: 1,
            min_bytes: 0,
            runner: r,
            split: None,
        }),
        ..settings(game, dir)
    };
    solve(&g, &opts, |_| {}).map(|s| s.stats)
}

/// Every solution file (`.sol`) of `dir` by name, with its bytes, and the names of the other
/// files (the manifest records times and sittings, which differ between runs).
fn files(dir: &Path) -> (BTreeMap<String, Vec<u8>>, Vec<String>) {
    let mut sols = BTreeMap::new();
    let mut others = Vec::new();
    for f in std::fs::read_dir(dir).unwrap() {
        let p: PathBuf = f.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if name.ends_with(".sol") {
            sols.insert(name, std::fs::read(&p).unwrap());
        } else {
            others.push(name);
        }
    }
    others.sort();
    (sols, others)
}

#[test]
fn a_failed_slice_stops_the_solve_and_a_resumed_solve_reruns_only_the_missing_slices() {
    let game = Arc::new(load_game("connect4_4x4"));
    let root = std::env::temp_dir().join(format!("symgame-slice-failure-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let (plain_dir, sliced_dir) = (root.join("plain"), root.join("sliced"));
    std::fs::create_dir_all(&plain_dir).unwrap();
    std::fs::create_dir_all(&sliced_dir).unwrap();
    let plain = run(&game, &plain_dir, None).unwrap();
    assert!(plain.stopped.is_none(), "the unsliced solve finishes");

    // The third sliced layer fails in its second slice, after its first was solved.
    let runner = Arc::new(InProcess {
        game: game.clone(),
        settings: settings(&game, &sliced_dir),
        fail: Mutex::new(Some((2, 1))),
        calls: Mutex::new(Vec::new()),
        drop_merged_slices: false,
        damage_merged: false,
    });
    let err = run(&game, &sliced_dir, Some(runner.clone())).unwrap_err();
    let calls = runner.calls.lock().unwrap().clone();
    assert_eq!(
        calls.len(),
        3,
        "the solve stops at the failed layer: {calls:?}"
    );
    let failed_depth = calls[2].0;
    match &err {
        SolveError::Slice { depth, message } => {
            assert_eq!(*depth, failed_depth);
            assert!(message.contains("injected failure"), "{message}");
        }
        other => panic!("expected a slice failure, got {other}"),
    }
    assert!(err.to_string().contains("injected failure"), "{err}");

    // Resumed: the failed layer's first slice has its record and is not solved again.
    let resumed_runner = Arc::new(InProcess {
        game: game.clone(),
        settings: settings(&game, &sliced_dir),
        fail: Mutex::new(None),
        calls: Mutex::new(Vec::new()),
        drop_merged_slices: false,
        damage_merged: false,
    });
    let resumed = run(&game, &sliced_dir, Some(resumed_runner.clone())).unwrap();
    assert!(resumed.stopped.is_none());
    let again = resumed_runner.calls.lock().unwrap().clone();
    assert_eq!(again.first(), Some(&(failed_depth, vec![1])), "{again:?}");
    assert!(
        again.iter().skip(1).all(|(d, _)| *d < failed_depth),
        "the layers below the failed one only: {again:?}"
    );
    assert_eq!(resumed.outcomes, plain.outcomes);
    assert_eq!(resumed.per_outcome, plain.per_outcome);
    let ((sliced, sliced_others), (plain, plain_others)) = (files(&sliced_dir), files(&plain_dir));
    assert_eq!(sliced_others, plain_others, "no slice file is left behind");
    assert_eq!(
        sliced.keys().collect::<Vec<_>>(),
        plain.keys().collect::<Vec<_>>()
    );
    for (name, bytes) in &plain {
        assert!(&sliced[name] == bytes, "{name} differs");
    }
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn the_jobs_that_read_a_sliced_layer_merge_it_for_the_solve() {
    let (game, root, plain_dir, sliced_dir, plain) = solved_plainly("merge");
    // Each layer's slices are gone once the jobs of the layer above have run: only the merged
    // file and record the first of those jobs wrote are left for the solve to record.
    let runner = Arc::new(InProcess {
        game: game.clone(),
        settings: settings(&game, &sliced_dir),
        fail: Mutex::new(None),
        calls: Mutex::new(Vec::new()),
        drop_merged_slices: true,
        damage_merged: false,
    });
    let sliced = run(&game, &sliced_dir, Some(runner.clone())).unwrap();
    assert!(sliced.stopped.is_none());
    assert!(
        runner.calls.lock().unwrap().len() > 3,
        "several layers were sliced"
    );
    assert_eq!(sliced.outcomes, plain.outcomes);
    assert_eq!(sliced.per_outcome, plain.per_outcome);
    let strip = |s: &symgame_symbolic::SolveStats| {
        let rows = s.layers.iter();
        rows.map(|l| (l.depth, l.states.clone(), l.per_outcome.clone(), l.nodes))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        strip(&sliced),
        strip(&plain),
        "the rows from the jobs' merges"
    );
    let ((sliced_sols, others), (plain_sols, plain_others)) =
        (files(&sliced_dir), files(&plain_dir));
    assert_eq!(
        others, plain_others,
        "no slice or merge record is left behind"
    );
    assert_eq!(sliced_sols, plain_sols, "the merged files are the solve's");
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn a_damaged_merged_layer_is_merged_again_from_its_slices() {
    let (game, root, plain_dir, sliced_dir, plain) = solved_plainly("damage");
    let runner = Arc::new(InProcess {
        game: game.clone(),
        settings: settings(&game, &sliced_dir),
        fail: Mutex::new(None),
        calls: Mutex::new(Vec::new()),
        drop_merged_slices: false,
        damage_merged: true,
    });
    let sliced = run(&game, &sliced_dir, Some(runner)).unwrap();
    assert!(sliced.stopped.is_none());
    assert_eq!(sliced.per_outcome, plain.per_outcome);
    // The last job of each layer left the layer below damaged: the solve found it so and
    // merged that layer again, so every file is the plain solve's.
    let (sliced_sols, plain_sols) = (files(&sliced_dir).0, files(&plain_dir).0);
    assert_eq!(sliced_sols, plain_sols);
    let _ = std::fs::remove_dir_all(&root);
}

/// Connect Four 4×4 solved by one process into `plain` of a fresh scratch directory named
/// after `name`, beside an empty `sliced`: the game, the root, both directories, the stats.
fn solved_plainly(
    name: &str,
) -> (
    Arc<GroundGame>,
    PathBuf,
    PathBuf,
    PathBuf,
    symgame_symbolic::SolveStats,
) {
    let game = Arc::new(load_game("connect4_4x4"));
    let root = std::env::temp_dir().join(format!("symgame-slice-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let (plain_dir, sliced_dir) = (root.join("plain"), root.join("sliced"));
    std::fs::create_dir_all(&plain_dir).unwrap();
    std::fs::create_dir_all(&sliced_dir).unwrap();
    let plain = run(&game, &plain_dir, None).unwrap();
    (game, root, plain_dir, sliced_dir, plain)
}
