//! Game database benchmark on Connect Four 5×4 (3,945,711 states) with solved values: solves
//! the game layer by layer (once, into a solution directory), exports it as one database layer
//! per BFS depth and as one layer for the whole set, prints each file's size against the 2-bit
//! floor and the solve and write times, then measures lookups per second with criterion.
//!
//! Run with `cargo bench -p symgame-gamedb --bench connect4`; `SYMGAME_GAMEDB_BENCH_GAME` picks
//! another game file, `SYMGAME_GAMEDB_BENCH_BACKEND=oxidd` the other engine.

// criterion's `criterion_group!` defines undocumented functions.
#![allow(missing_docs)]

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Instant;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use symgame_bdd::{Backend, EngineConfig};
use symgame_gamedb::{export, ExportOptions, Exported, GameDatabase};
use symgame_symbolic::{
    fingerprint, Encoding, Setup, SolveJob, SolveOptions, SolveStats, SymbolicOptions,
};

/// Sampled states per measurement.
const SAMPLE: u64 = 4096;

fn game_path() -> PathBuf {
    symgame_testkit::game_from_env("SYMGAME_GAMEDB_BENCH_GAME", "connect4_5x4")
}

fn backend() -> Backend {
    std::env::var("SYMGAME_GAMEDB_BENCH_BACKEND")
        .ok()
        .map_or(Backend::Biodivine, |b| {
            b.parse().expect("biodivine or oxidd")
        })
}

/// Print a file's figures against the floor of its packed values (2 bits for win/draw/loss).
fn report(what: &str, done: &Exported, solve_s: f64) {
    let w = done.written.as_ref().expect("written");
    let floor = (w.states * u64::from(w.bits_per_value)).div_ceil(8);
    println!(
        "{what}: {} layers, file {} bytes = {:.2} bits a state = {:.2}x the {}-bit floor ({floor} \
         bytes); node tables {} bytes ({} nodes, {:.2} bits a state), values {} bytes; export = \
         solve {solve_s:.2}s + write {:.2}s ({:.0} states/s written)",
        w.layers,
        w.bytes,
        w.bytes as f64 * 8.0 / w.states as f64,
        w.bytes as f64 / floor as f64,
        w.bits_per_value,
        w.node_bytes,
        w.nodes,
        w.node_bytes as f64 * 8.0 / w.states as f64,
        w.value_bytes,
        done.write_seconds,
        w.states as f64 / done.write_seconds,
    );
}

/// Solve once, write both files, print their figures, and return their paths.
fn build() -> (PathBuf, PathBuf) {
    let path = game_path();
    let game = symgame_testkit::load(&path);
    let dir =
        symgame_testkit::fresh_dir(Path::new(env!("CARGO_TARGET_TMPDIR")).join("gamedb-bench"));
    let solution = dir.join("solution");
    let sym = SymbolicOptions::default();
    let opts = SolveOptions {
        out_dir: Some(solution.clone()),
        fingerprint: fingerprint(&game, &Encoding::new(&game, sym.order)),
        ..SolveOptions::default()
    };
    let engine = EngineConfig {
        threads: 1,
        ..EngineConfig::default()
    };
    let t = Instant::now();
    let solving = SolveJob {
        settings: &opts,
        explicit: None,
        progress: |_: &SolveStats| {},
    };
    let stats = Setup::new(&game, backend(), &engine, &sym)
        .run(solving)
        .unwrap();
    let solve_s = t.elapsed().as_secs_f64();
    assert_eq!(stats.stopped, None);
    println!(
        "{}: {} states, {} ({}), solved in {solve_s:.2}s on {} (1 thread)",
        path.file_name().unwrap().to_string_lossy(),
        stats.states,
        stats.kind,
        if stats.layered {
            "layered"
        } else {
            "whole set"
        },
        backend()
    );
    let mut files = Vec::new();
    for (what, whole_set) in [("per layer", false), ("whole set", true)] {
        let out = dir.join(format!("{}.db", what.replace(' ', "-")));
        let opts = ExportOptions {
            backend: backend(),
            engine: engine.clone(),
            whole_set,
            solution: Some(solution.clone()),
            game_name: path.file_name().unwrap().to_string_lossy().into(),
            ..ExportOptions::default()
        };
        let done = export(&game, &out, &opts, |_| {}).unwrap();
        report(what, &done, solve_s);
        files.push(out);
    }
    let whole = files.pop().unwrap();
    (files.pop().unwrap(), whole)
}

fn benches(c: &mut Criterion) {
    let (per_layer, whole) = build();
    let game = symgame_testkit::load(&game_path());
    let t = Instant::now();
    let db = GameDatabase::open(&per_layer, game.clone(), &Default::default()).unwrap();
    println!(
        "open (validate every checksum, node table and value) {:.3}s",
        t.elapsed().as_secs_f64()
    );
    let whole = GameDatabase::open(&whole, game, &Default::default()).unwrap();
    // States spread over the whole file, with their layer's position in the file.
    let n = db.database().len();
    let sample: Vec<_> = (0..SAMPLE)
        .map(|i| {
            let s = db.unrank(i * (n / SAMPLE), None).unwrap();
            let layer = db.value(&s).unwrap().layer;
            let pos = db
                .database()
                .layers()
                .position(|l| l.number == layer)
                .unwrap();
            let a = db.encoding().assignment(s.fluents()).unwrap();
            (s, pos, a)
        })
        .collect();
    let mut group = c.benchmark_group("gamedb");
    group.throughput(Throughput::Elements(SAMPLE));
    group.bench_function("value of a GDL state (per-layer file, layers tried)", |b| {
        b.iter(|| {
            for (s, _, _) in &sample {
                black_box(db.lookup(s).unwrap());
            }
        })
    });
    group.bench_function("value of a GDL state (whole-set file)", |b| {
        b.iter(|| {
            for (s, _, _) in &sample {
                black_box(whole.lookup(s).unwrap());
            }
        })
    });
    group.bench_function("lookup_in of an assignment (layer known)", |b| {
        b.iter(|| {
            for (_, pos, a) in &sample {
                black_box(db.database().lookup_in(*pos, a).unwrap());
            }
        })
    });
    group.bench_function("answer: value and optimal moves (whole-set file)", |b| {
        b.iter(|| {
            for (s, _, _) in &sample {
                black_box(whole.answer(s).unwrap());
            }
        })
    });
    group.finish();
}

criterion_group! {
    name = gamedb;
    config = Criterion::default().sample_size(10);
    targets = benches
}
criterion_main!(gamedb);
