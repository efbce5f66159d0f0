//! Solution directories are read one way (`symgame_symbolic::read_solution`) by `verify` and
//! `export`, and outputs never destroy inputs (issue 16): every corruption of a real
//! tic-tac-toe solution is an input error (exit 2) naming the file, in both commands.

use std::path::{Path, PathBuf};

use symgame_symbolic::{read_manifest, write_manifest_file, GameKind, Manifest, MANIFEST};

use crate::symgame;

const GAME: &str = "gdl/tictactoe.kif";

/// A fresh solution of tic-tac-toe in the scratch directory of the test `name`.
fn solved(name: &str) -> PathBuf {
    let dir = symgame_testkit::scratch_dir!("hardening-files", name);
    let sol = dir.join("sol");
    let (code, out, err) = symgame(&["solve", GAME, "--out", sol.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    sol
}

/// Rewrites the manifest of `sol` after `edit`, with a valid checksum.
fn edit_manifest(sol: &Path, edit: impl FnOnce(&mut Manifest)) {
    let mut m = read_manifest(sol).unwrap();
    edit(&mut m);
    write_manifest_file(sol, &m).unwrap();
}

/// Both `verify --solution` and `export --solution` refuse `sol` with exit 2 and a message
/// containing `file` and `what`; `export` writes no database.
fn refused_by_both(sol: &Path, file: &str, what: &str) {
    let s = sol.to_str().unwrap();
    let (code, out, err) = symgame(&["verify", "--solution", s, GAME]);
    assert_eq!(code, 2, "verify: {out}{err}");
    assert!(err.contains(file) && err.contains(what), "verify: {err}");
    let db = sol.parent().unwrap().join("t.db");
    let (code, out, err) = symgame(&[
        "export",
        GAME,
        "--solution",
        s,
        "--out",
        db.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "export: {out}{err}");
    assert!(err.contains(file) && err.contains(what), "export: {err}");
    assert!(!db.exists(), "export wrote {}", db.display());
}

/// F7: one flipped outcome in the manifest (`50` → `51`) fails its checksum.
#[test]
fn a_flipped_outcome_fails_the_manifest_checksum() {
    let sol = solved("flipped");
    let path = sol.join(MANIFEST);
    let text = std::fs::read_to_string(&path).unwrap();
    let at = text.find("\"outcomes\"").unwrap();
    let fifty = at + text[at..].find("50").unwrap();
    let mut bytes = text.into_bytes();
    bytes[fifty + 1] = b'1';
    std::fs::write(&path, bytes).unwrap();
    refused_by_both(&sol, MANIFEST, "checksum mismatch");
}

/// Old manifests (version 1, no checksum) are refused with a word to solve again.
#[test]
fn a_version_1_manifest_is_refused() {
    let sol = solved("version-1");
    let path = sol.join(MANIFEST);
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replacen("\"version\": 2", "\"version\": 1", 1)).unwrap();
    refused_by_both(&sol, MANIFEST, "has no checksum; solve the game again");
}

/// F5: a manifest listing 5 of the 10 layers but saying it is complete.
#[test]
fn a_partial_layer_list_marked_complete_is_refused() {
    let sol = solved("partial");
    edit_manifest(&sol, |m| m.files.truncate(5));
    refused_by_both(
        &sol,
        MANIFEST,
        "lists 5 layer files, but its statistics have 10",
    );
    edit_manifest(&sol, |m| m.stats.layers.truncate(5));
    refused_by_both(
        &sol,
        MANIFEST,
        "the last layer (depth 4) has non-terminal states",
    );
}

/// F6: a layer listed twice.
#[test]
fn a_layer_listed_twice_is_refused() {
    let sol = solved("twice");
    edit_manifest(&sol, |m| {
        let third = m.files[3].clone();
        m.files.insert(3, third);
    });
    refused_by_both(&sol, MANIFEST, "depth 3 is listed twice");
}

/// F8: swapped layer files, an edited depth, a wrong game kind.
#[test]
fn swapped_files_edited_depths_and_a_wrong_kind_are_refused() {
    let sol = solved("swapped");
    let (a, b) = (sol.join("layer-0003.sol"), sol.join("layer-0004.sol"));
    let tmp = sol.join("swap.tmp");
    std::fs::rename(&a, &tmp).unwrap();
    std::fs::rename(&b, &a).unwrap();
    std::fs::rename(&tmp, &b).unwrap();
    refused_by_both(
        &sol,
        "layer-0003.sol",
        "the file holds depth 4, but the manifest lists it as depth 3",
    );

    let sol = solved("depth");
    edit_manifest(&sol, |m| m.files[3] = (Some(13), "layer-0013.sol".into()));
    refused_by_both(&sol, MANIFEST, "depth 3 is missing from the layer list");
    let sol = solved("depth-only");
    edit_manifest(&sol, |m| m.files[3].0 = Some(13));
    refused_by_both(
        &sol,
        MANIFEST,
        "layer-0003.sol is listed as the file of depth 13",
    );
    let sol = solved("depth-name");
    edit_manifest(&sol, |m| m.files[3].1 = "layer-0004.sol".into());
    refused_by_both(
        &sol,
        MANIFEST,
        "layer-0004.sol is listed as the file of depth 3",
    );

    let sol = solved("kind");
    edit_manifest(&sol, |m| m.stats.kind = GameKind::GeneralSum);
    refused_by_both(
        &sol,
        MANIFEST,
        "the manifest says the game is two-player general-sum",
    );
}

/// F9: `export --out` the game file or a file inside the solution directory, and
/// `solve --out` a directory holding the game, are refused before any work; the inputs stay.
#[test]
fn outputs_never_overwrite_inputs() {
    let sol = solved("overwrite");
    let dir = sol.parent().unwrap();
    let game = dir.join("t.kif");
    std::fs::copy(symgame_testkit::root().join(GAME), &game).unwrap();
    let before = std::fs::read(&game).unwrap();
    let g = game.to_str().unwrap();
    let (code, out, err) = symgame(&["export", g, "--out", g]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("it is the input file"), "{err}");
    assert_eq!(std::fs::read(&game).unwrap(), before);

    let manifest = sol.join(MANIFEST);
    let kept = std::fs::read(&manifest).unwrap();
    let s = sol.to_str().unwrap();
    let m = manifest.to_str().unwrap();
    let (code, out, err) = symgame(&["export", GAME, "--solution", s, "--out", m]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("lies inside the input directory"), "{err}");
    assert_eq!(std::fs::read(&manifest).unwrap(), kept);

    let d = dir.to_str().unwrap();
    let (code, out, err) = symgame(&["solve", g, "--out", d]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("holds the input file"), "{err}");
    assert_eq!(std::fs::read(&game).unwrap(), before);
}

/// A layer file whose BDDs claim more variables than the encoding has (rewritten with a valid
/// checksum) is an input error naming the file in both commands, not a BDD engine failure.
#[test]
fn a_layer_over_too_many_variables_is_refused() {
    let sol = solved("vars");
    let m = read_manifest(&sol).unwrap();
    let (_, name) = m.files[0].clone();
    let path = sol.join(&name);
    let mut layer = symgame_symbolic::read_stored(&path).unwrap();
    for c in &mut layer.classes {
        c.nodes.num_vars += 8;
    }
    symgame_symbolic::write_stored(&path, &layer).unwrap();
    refused_by_both(&sol, &name, "variables, but the encoding has");
}

/// Inputs the file-reader fuzz harness (`examples/fuzz_files.rs`) once found panicking, kept
/// in `tests/fuzz-crashes/files/` as `files-seedS-I--FILE`: a database (`t.db`) is opened from
/// its bytes; any other file replaces its namesake in a fresh tic-tac-toe solution, which is then read and every
/// stored BDD imported. Each may be refused; none may panic.
#[test]
fn file_reader_crash_fixtures_stay_fixed() {
    use symgame_bdd::{BddEngine, BiodivineEngine, EngineConfig};
    let dir = symgame_testkit::root().join("tests/fuzz-crashes/files");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|es| es.filter_map(|e| Some(e.ok()?.path())).collect())
        .unwrap_or_default();
    files.sort();
    for f in files {
        let bytes = std::fs::read(&f).unwrap();
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        if name.ends_with("t.db") {
            let _ = symgame_db::Database::from_bytes(bytes, None);
            continue;
        }
        let sol = solved(&format!("fixture-{name}"));
        // Named `files-seedS-I--FILE` by the harness.
        let target = name.split("--").last().unwrap().to_string();
        std::fs::write(sol.join(&target), bytes).unwrap();
        let game = symgame_testkit::load(&symgame_testkit::root().join(GAME));
        let enc = symgame_symbolic::Encoding::with_options(&game, &Default::default());
        let print = symgame_symbolic::fingerprint(&game, &enc);
        let Ok(solution) = symgame_symbolic::read_solution(&sol, &print, enc.num_vars()) else {
            continue;
        };
        let e = BiodivineEngine::new(enc.num_vars(), &EngineConfig::small()).unwrap();
        for i in 0..solution.files().len() {
            if let Ok(layer) = solution.read_layer(i) {
                for c in &layer.classes {
                    let _ = e.import(&c.nodes);
                }
            }
        }
    }
}
