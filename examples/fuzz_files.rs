//! The mutation fuzz harness of the file readers: the solution reader
//! (`symgame_symbolic::read_solution` and `Solution::read_layer`, then importing every stored
//! BDD into an engine, as `verify` and `export` do) and the database reader
//! (`symgame_db::Database::from_bytes`, then ranking and unranking):
//!
//!     cargo run --release --example fuzz_files -- --seed S --iterations N
//!
//! It solves and exports tic-tac-toe once, then mutates one file per iteration: raw bytes of
//! the manifest, of a layer file or of the database (edits, truncations, insertions), or, past
//! the checksums, the node tables inside a layer file (rewritten with a valid header and
//! checksum). A reader may refuse a mutant with an error; it must never panic. Every mutant
//! that panics is written to `tests/fuzz-crashes/files/` (to become a fixture of the reader it
//! broke); exit code 1 if any.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use symgame_bdd::{BddEngine, BiodivineEngine, EngineConfig};
use symgame_db::Database;
use symgame_gamedb::{export, ExportOptions};
use symgame_symbolic::{
    fingerprint, read_solution, read_stored, solve, write_stored, Encoding, SolveOptions,
    SymbolicGame, SymbolicOptions, MANIFEST,
};
use symgame_testkit::fuzz::{mutate, HarnessArgs, Rng};

fn main() {
    let args = HarnessArgs::parse("fuzz_files", 20_000, &[]);
    let (seed, iterations) = (args.seed, args.iterations);
    let work = std::env::temp_dir().join(format!("symgame-fuzz-files-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).expect("a scratch directory");
    let game = symgame_testkit::load_game("tictactoe");
    let enc = Encoding::with_options(&game, &SymbolicOptions::default());
    let print = fingerprint(&game, &enc);
    let num_vars = enc.num_vars();
    let solution = work.join("solution");
    {
        let e = BiodivineEngine::new(num_vars, &EngineConfig::small()).expect("an engine");
        let g = SymbolicGame::new(&e, &game, enc, &SymbolicOptions::default()).expect("compiles");
        let opts = SolveOptions {
            out_dir: Some(solution.clone()),
            fingerprint: print.clone(),
            ..SolveOptions::default()
        };
        solve(&g, &opts, |_| {}).expect("tic-tac-toe solves");
    }
    let db_path = work.join("t.db");
    let opts = ExportOptions {
        engine: EngineConfig::small(),
        game_name: "tictactoe.kif".into(),
        ..ExportOptions::default()
    };
    export(&game, &db_path, &opts, |_| {}).expect("tic-tac-toe exports");
    let db_bytes = std::fs::read(&db_path).expect("the database");
    let files: Vec<PathBuf> = std::fs::read_dir(&solution)
        .expect("the solution")
        .flatten()
        .map(|e| e.path())
        .collect();
    let originals: Vec<Vec<u8>> = files
        .iter()
        .map(|p| std::fs::read(p).expect("a solution file"))
        .collect();

    std::panic::set_hook(Box::new(|_| {}));
    let mut rng = Rng::new(seed);
    let mut crashes = Vec::new();
    let mut refused = 0usize;
    let started = std::time::Instant::now();
    for i in 0..iterations {
        let (name, bytes, outcome) = if rng.below(3) == 0 {
            let mutant = mutate_bytes(&db_bytes, &mut rng);
            let r = catch_unwind(|| read_database(&mutant));
            ("t.db".to_string(), mutant, r)
        } else {
            // Restore the solution, then spoil one file.
            for (p, b) in files.iter().zip(&originals) {
                std::fs::write(p, b).expect("restored");
            }
            let k = rng.below(files.len());
            let target = &files[k];
            let is_layer = target.file_name().is_some_and(|n| n != MANIFEST);
            if is_layer && rng.below(2) == 0 {
                spoil_nodes(target, &mut rng);
            } else {
                std::fs::write(target, mutate_bytes(&originals[k], &mut rng)).expect("written");
            }
            let mutant = std::fs::read(target).expect("the mutant");
            let r = catch_unwind(AssertUnwindSafe(|| read_all(&solution, &print, num_vars)));
            let name = target.file_name().expect("a name").to_string_lossy().into();
            (name, mutant, r)
        };
        match outcome {
            Ok(Ok(())) => {}
            Ok(Err(_)) => refused += 1,
            Err(_) => crashes.push((i, name, bytes)),
        }
    }
    let dir = symgame_testkit::root().join("tests/fuzz-crashes/files");
    for (i, name, bytes) in &crashes {
        std::fs::create_dir_all(&dir).expect("the crash directory");
        let path = dir.join(format!("files-seed{seed}-{i}--{name}"));
        std::fs::write(&path, bytes).expect("the crash file");
        println!("{}: a reader panicked", path.display());
    }
    let _ = std::fs::remove_dir_all(&work);
    eprintln!(
        "{iterations} mutants, {refused} refused with an error, {} panics, in {:.1} s",
        crashes.len(),
        started.elapsed().as_secs_f64()
    );
    std::process::exit(i32::from(!crashes.is_empty()));
}

/// Byte-level edits: the GDL mutator's edits, or a truncation, or a flipped bit.
fn mutate_bytes(input: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut out = input.to_vec();
    match rng.below(3) {
        0 => out = mutate(input, rng),
        1 => out.truncate(rng.below(input.len().max(1))),
        _ => {
            if !out.is_empty() {
                let k = rng.below(out.len());
                out[k] ^= 1 << rng.below(8);
            }
        }
    }
    out
}

/// Changes one number of a node table in the layer file at `path` and writes it back with a
/// valid header and checksum, so that the reader's own checks of the table are reached.
fn spoil_nodes(path: &Path, rng: &mut Rng) {
    let Ok(mut layer) = read_stored(path) else {
        return;
    };
    let k = rng.below(layer.classes.len().max(1));
    let Some(class) = layer.classes.get_mut(k) else {
        return;
    };
    let nodes = &mut class.nodes;
    let wild = |rng: &mut Rng| match rng.below(3) {
        0 => rng.below(4) as u32,
        1 => u32::MAX - rng.below(4) as u32,
        _ => rng.next_u64() as u32,
    };
    match rng.below(4) {
        0 => nodes.num_vars = wild(rng),
        1 => nodes.root = wild(rng),
        _ if !nodes.nodes.is_empty() => {
            let k = rng.below(nodes.nodes.len());
            let n = &mut nodes.nodes[k];
            match rng.below(3) {
                0 => n.0 = wild(rng),
                1 => n.1 = wild(rng),
                _ => n.2 = wild(rng),
            }
        }
        _ => nodes.nodes.truncate(rng.below(nodes.nodes.len() + 1)),
    }
    let _ = write_stored(path, &layer);
}

/// Reads the solution and imports every stored BDD, as `verify` and `export` do.
fn read_all(dir: &Path, print: &str, num_vars: u32) -> Result<(), String> {
    let solution = read_solution(dir, print, num_vars).map_err(|e| e.to_string())?;
    let e = BiodivineEngine::new(num_vars, &EngineConfig::small()).map_err(|e| e.to_string())?;
    for i in 0..solution.files().len() {
        let layer = solution.read_layer(i).map_err(|e| e.to_string())?;
        for c in &layer.classes {
            let b = e.import(&c.nodes).map_err(|e| e.to_string())?;
            let _ = e.node_count(&b);
        }
    }
    Ok(())
}

/// Opens the database from bytes, then unranks and ranks its first states.
fn read_database(bytes: &[u8]) -> Result<(), String> {
    let db = Database::from_bytes(bytes.to_vec(), None).map_err(|e| e.to_string())?;
    for k in 0..db.len().min(200) {
        if let Some((state, _)) = db.unrank_global(k) {
            let _ = db.lookup(&state);
        }
    }
    Ok(())
}
