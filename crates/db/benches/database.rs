//! Database benchmark on Connect Four 5×4 (3,945,711 states): the reachable layers come from
//! symbolic BFS (`reach`, keep_layers), each state's value is its GDL goal vector (3 outcomes,
//! 2 bits). Prints the file size against the 2-bit floor and the write time, then measures
//! lookups, `rank` and `unrank` per second with criterion.
//!
//! Run with `cargo bench -p symgame-db --bench database` (the game file can be changed with
//! `SYMGAME_DB_BENCH_GAME=gdl/other.kif`).

// criterion's `criterion_group!` defines undocumented functions.
#![allow(missing_docs)]

#[path = "../tests/support/mod.rs"]
mod support;

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Instant;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use symgame_bdd::{BddEngine, EngineConfig, OxiddEngine};
use symgame_db::Database;
use symgame_symbolic::{reach, Encoding, Limits, SymbolicGame, SymbolicOptions};

/// Sampled states per measurement.
const SAMPLE: u64 = 4096;

/// Print a file's size against the 2-bit floor.
fn report(what: &str, summary: &symgame_db::WriteSummary, write_s: f64) {
    let floor = summary.states.div_ceil(4);
    println!(
        "{what}: file {} bytes = {:.2}x the 2-bit floor ({floor} bytes): values {} bytes, node \
         tables {} bytes ({} nodes, {:.2} bits per state); write (classify + pack + sync) \
         {write_s:.2}s = {:.0} states/s",
        summary.bytes,
        summary.bytes as f64 / floor as f64,
        summary.value_bytes,
        summary.node_bytes,
        summary.nodes,
        summary.node_bytes as f64 * 8.0 / summary.states as f64,
        summary.states as f64 / write_s
    );
}

/// Build the database files once (per layer, and the whole reachable set as one layer), print
/// their figures, and return their paths.
fn build() -> (PathBuf, PathBuf) {
    let path = symgame_testkit::game_from_env("SYMGAME_DB_BENCH_GAME", "connect4_5x4");
    let game = symgame_testkit::load(&path);
    let enc = Encoding::new(&game, Default::default());
    let cfg = EngineConfig {
        threads: 1,
        ..EngineConfig::default()
    };
    let e = OxiddEngine::new(enc.num_vars(), &cfg).unwrap();
    let g = SymbolicGame::new(&e, &game, enc, &SymbolicOptions::default()).unwrap();
    let t = Instant::now();
    let run = reach(&g, &Limits::default(), true, |_| {});
    let reach_s = t.elapsed().as_secs_f64();
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bench-connect4.db");
    let t = Instant::now();
    let summary = support::write_goal_database(&g, &run.layers, &out, [0; 32]).unwrap();
    let write_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let db = Database::open(&out, None).unwrap();
    let open_s = t.elapsed().as_secs_f64();
    println!(
        "{}: {} states in {} layers ({} counted variables), reach {reach_s:.2}s, {} outcomes at \
         {} bits, open (validate) {open_s:.3}s",
        path.file_name().unwrap().to_string_lossy(),
        summary.states,
        summary.layers,
        g.encoding().current_vars().len(),
        db.outcomes().len(),
        summary.bits_per_value,
    );
    report("per layer", &summary, write_s);
    let whole = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bench-connect4-whole.db");
    let t = Instant::now();
    let summary =
        support::write_goal_database(&g, std::slice::from_ref(&run.reached), &whole, [0; 32])
            .unwrap();
    report("whole set", &summary, t.elapsed().as_secs_f64());
    (out, whole)
}

fn benches(c: &mut Criterion) {
    let (path, whole) = build();
    let db = Database::open(&path, None).unwrap();
    let whole = Database::open(&whole, None).unwrap();
    // States spread over the whole file, with their layers.
    let step = db.len() / SAMPLE;
    let sample: Vec<(usize, Vec<bool>)> = (0..SAMPLE)
        .map(|i| {
            let (s, hit) = db.unrank_global(i * step).unwrap();
            (hit.layer, s)
        })
        .collect();
    let mut group = c.benchmark_group("connect4_5x4");
    group.throughput(Throughput::Elements(SAMPLE));
    group.bench_function("lookup_in (layer known)", |b| {
        b.iter(|| {
            for (k, s) in &sample {
                black_box(db.lookup_in(*k, s).unwrap());
            }
        })
    });
    group.bench_function("lookup (all layers tried)", |b| {
        b.iter(|| {
            for (_, s) in &sample {
                black_box(db.lookup(s).unwrap());
            }
        })
    });
    group.bench_function("lookup (whole-set file)", |b| {
        b.iter(|| {
            for (_, s) in &sample {
                black_box(whole.lookup(s).unwrap());
            }
        })
    });
    group.bench_function("rank", |b| {
        b.iter(|| {
            for (k, s) in &sample {
                black_box(db.hash(*k).unwrap().rank(s).unwrap());
            }
        })
    });
    let ranks: Vec<(usize, u64)> = sample
        .iter()
        .map(|(k, s)| (*k, db.rank(*k, s).unwrap()))
        .collect();
    let mut buf = vec![false; db.schema().num_vars as usize];
    group.bench_function("unrank", |b| {
        b.iter(|| {
            for (k, r) in &ranks {
                black_box(db.hash(*k).unwrap().unrank_into(r, &mut buf));
            }
        })
    });
    group.finish();
}

criterion_group! {
    name = database;
    config = Criterion::default().sample_size(20);
    targets = benches
}
criterion_main!(database);
