//! Kernel benchmarks on real Connect Four 6x5 layers, per backend: the image of a layer's
//! non-terminal states under the clustered relation, the pre-image of a layer, and the
//! terminal cut of a new layer. The layers come from one biodivine BFS, exported and imported
//! into a fresh engine for every iteration (untimed), so oxidd's apply cache starts cold.
//!
//! Run with `cargo bench -p symgame-symbolic --bench connect4`.

// criterion's `criterion_group!` defines undocumented functions.
#![allow(missing_docs)]

use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use symgame_bdd::{BddEngine, BddNodes, BiodivineEngine, EngineConfig, OxiddEngine};
use symgame_ground::GroundGame;
use symgame_symbolic::{reach, Encoding, Limits, SymbolicGame, SymbolicOptions};

/// The layer the kernels start from (its successors form layer `LAYER + 1`).
const LAYER: usize = 15;

struct Fixture {
    game: GroundGame,
    encoding: Encoding,
    opts: SymbolicOptions,
    /// Layer `LAYER` and layer `LAYER + 1`, exported.
    layers: [BddNodes; 2],
}

fn fixture() -> Fixture {
    let game = symgame_testkit::load_game("connect4_6x5");
    let opts = SymbolicOptions {
        goals: false,
        ..Default::default()
    };
    let encoding = Encoding::with_options(&game, &opts);
    let e = BiodivineEngine::new(encoding.num_vars(), &EngineConfig::small()).unwrap();
    let g = SymbolicGame::new(&e, &game, encoding.clone(), &opts).unwrap();
    let cancel = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let limits = Limits {
        cancel: Some(cancel.clone()),
        ..Default::default()
    };
    let r = reach(&g, &limits, true, |s| {
        if s.layers.len() > LAYER + 1 {
            cancel.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    });
    let layers = [e.export(&r.layers[LAYER]), e.export(&r.layers[LAYER + 1])];
    Fixture {
        game,
        encoding,
        opts,
        layers,
    }
}

/// Times `op` on a fresh engine with the game compiled and the two layers imported.
fn time_kernel<E: BddEngine>(
    f: &Fixture,
    iters: u64,
    op: impl Fn(&SymbolicGame<'_, E>, &E::Bdd, &E::Bdd) -> usize,
) -> Duration {
    let cfg = EngineConfig {
        threads: 1,
        node_capacity: 1 << 24,
        cache_capacity: 1 << 22,
    };
    let mut total = Duration::ZERO;
    for _ in 0..iters {
        let e = E::new(f.encoding.num_vars(), &cfg).unwrap();
        let g = SymbolicGame::new(&e, &f.game, f.encoding.clone(), &f.opts).unwrap();
        let a = e.import(&f.layers[0]).unwrap();
        let b = e.import(&f.layers[1]).unwrap();
        let t = Instant::now();
        std::hint::black_box(op(&g, &a, &b));
        total += t.elapsed();
    }
    total
}

fn bench_engine<E: BddEngine>(c: &mut Criterion, f: &Fixture, name: &str) {
    c.bench_function(&format!("image_layer{LAYER}/{name}"), |b| {
        b.iter_custom(|iters| {
            time_kernel::<E>(f, iters, |g, layer, _| {
                let e = g.engine();
                let s = g.and_not_terminal(layer).unwrap();
                let img: Vec<E::Bdd> = g
                    .clusters()
                    .iter()
                    .map(|p| p.image(e, &s).unwrap())
                    .collect();
                img.iter().map(|i| e.node_count(i)).sum()
            })
        })
    });
    c.bench_function(&format!("pre_image_layer{}/{name}", LAYER + 1), |b| {
        b.iter_custom(|iters| {
            time_kernel::<E>(f, iters, |g, _, next| {
                g.engine().node_count(&g.pre_image(next).unwrap())
            })
        })
    });
    c.bench_function(&format!("terminal_cut_layer{}/{name}", LAYER + 1), |b| {
        b.iter_custom(|iters| {
            time_kernel::<E>(f, iters, |g, _, next| {
                g.engine().node_count(&g.and_not_terminal(next).unwrap())
            })
        })
    });
}

fn kernels(c: &mut Criterion) {
    let f = fixture();
    bench_engine::<BiodivineEngine>(c, &f, "biodivine");
    bench_engine::<OxiddEngine>(c, &f, "oxidd");
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = kernels
}
criterion_main!(benches);
