//! Kernel benchmarks, per backend: building an n-queens BDD (many `and`/`and_not` on a
//! growing BDD), one image step `rename(exists x. S(x) & T(x, x'), x' -> x)` on a random
//! guarded-update relation with interleaved variables (the inner loop of symbolic search), and
//! importing the node table of a set of random states on two threads (how the explicit prefix's
//! layers enter the engine: one tiny operation a node).
//!
//! Run with `cargo bench -p symgame-bdd --bench kernels`.

// criterion's `criterion_group!` defines undocumented functions.
#![allow(missing_docs)]

use std::collections::HashMap;
use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use symgame_bdd::{BddEngine, BddNodes, BiodivineEngine, EngineConfig, OxiddEngine, Var, VarSet};
use symgame_testkit::queens;

/// A tiny deterministic generator (no extra dependency).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A random relation over `bits` state bits (current `x_i` at `2i`, next at `2i + 1`): a
/// union of `rules` guarded updates, each testing 3 bits, setting 2 bits and framing the
/// rest; and a random state set (a union of `cubes` cubes over 5 bits each).
fn random_system<E: BddEngine>(e: &E, bits: u32, rules: u32, cubes: u32) -> (E::Bdd, E::Bdd) {
    let mut rng = Lcg(0x5eed);
    let mut trans = e.constant(false);
    for _ in 0..rules {
        let mut lits = Vec::new();
        for _ in 0..3 {
            lits.push((2 * rng.below(u64::from(bits)) as u32, rng.below(2) == 1));
        }
        let mut set = vec![None; bits as usize];
        for _ in 0..2 {
            set[rng.below(u64::from(bits)) as usize] = Some(rng.below(2) == 1);
        }
        let mut rule = e.cube(&lits).unwrap();
        for i in (0..bits).rev() {
            let next = match set[i as usize] {
                Some(v) => e.literal(2 * i + 1, v),
                None => e.iff(&e.var(2 * i + 1), &e.var(2 * i)).unwrap(),
            };
            rule = e.and(&rule, &next).unwrap();
        }
        trans = e.or(&trans, &rule).unwrap();
    }
    let mut states = e.constant(false);
    for _ in 0..cubes {
        let lits: Vec<(u32, bool)> = (0..5)
            .map(|_| (2 * rng.below(u64::from(bits)) as u32, rng.below(2) == 1))
            .collect();
        states = e.or(&states, &e.cube(&lits).unwrap()).unwrap();
    }
    (states, trans)
}

fn image<E: BddEngine>(e: &E, states: &E::Bdd, trans: &E::Bdd, bits: u32) -> E::Bdd {
    let current: VarSet = (0..bits).map(|i| 2 * i).collect();
    let to_current: Vec<(u32, u32)> = (0..bits).map(|i| (2 * i + 1, 2 * i)).collect();
    let img = e.and_exists(states, trans, &current).unwrap();
    e.rename(&img, &to_current).unwrap()
}

/// A node table being built: its nodes, and each node's index by its `(var, low, high)`.
type Building = (Vec<(Var, u32, u32)>, HashMap<(Var, u32, u32), u32>);

/// The reduced node table of the set `codes` (sorted, distinct) of `bits`-bit codes, the
/// first bit at variable 0: children before parents, 0 and 1 the constants.
fn states_table(codes: &[u64], bits: u32) -> BddNodes {
    fn node(codes: &[u64], level: u32, bits: u32, table: &mut Building) -> u32 {
        if codes.is_empty() || level == bits {
            return u32::from(!codes.is_empty());
        }
        let split = codes.partition_point(|c| c >> (bits - 1 - level) & 1 == 0);
        let low = node(&codes[..split], level + 1, bits, table);
        let high = node(&codes[split..], level + 1, bits, table);
        if low == high {
            return low;
        }
        let (nodes, unique) = table;
        *unique.entry((level, low, high)).or_insert_with(|| {
            nodes.push((level, low, high));
            nodes.len() as u32 + 1
        })
    }
    let mut table = (Vec::new(), HashMap::new());
    let root = node(codes, 0, bits, &mut table);
    BddNodes {
        num_vars: bits,
        nodes: table.0,
        root,
    }
}

/// The engine settings of the benchmarks, with `threads` worker threads.
fn config(threads: usize) -> EngineConfig {
    EngineConfig {
        threads,
        node_capacity: 1 << 22,
        cache_capacity: 1 << 20,
    }
}

fn bench_import<E: BddEngine>(c: &mut Criterion, name: &str) {
    let bits = 60;
    let mut rng = Lcg(0x1e4f);
    let mut codes: Vec<u64> = (0..20_000)
        .map(|_| rng.next() << 31 ^ rng.next())
        .map(|c| c & ((1 << bits) - 1))
        .collect();
    codes.sort_unstable();
    codes.dedup();
    let table = states_table(&codes, bits);
    let cfg = config(2);
    c.bench_function(&format!("import20k/{name}"), |b| {
        b.iter_batched(
            || E::new(bits, &cfg).unwrap(),
            |e| black_box(e.node_count(&e.import(&table).unwrap())),
            BatchSize::PerIteration,
        )
    });
}

fn bench_engine<E: BddEngine>(c: &mut Criterion, name: &str) {
    // A fresh engine per iteration (built untimed), so that oxidd's apply cache does not
    // turn repeated iterations into cache hits.
    let cfg = config(1);
    c.bench_function(&format!("queens7/{name}"), |b| {
        b.iter_batched(
            || E::new(49, &cfg).unwrap(),
            |e| black_box(e.node_count(&queens(&e, 7))),
            BatchSize::PerIteration,
        )
    });
    let bits = 24;
    c.bench_function(&format!("image24/{name}"), |b| {
        b.iter_batched(
            || {
                let e = E::new(2 * bits, &cfg).unwrap();
                let (states, trans) = random_system(&e, bits, 12, 16);
                (e, states, trans)
            },
            |(e, states, trans)| black_box(e.node_count(&image(&e, &states, &trans, bits))),
            BatchSize::PerIteration,
        )
    });
}

fn kernels(c: &mut Criterion) {
    bench_engine::<BiodivineEngine>(c, "biodivine");
    bench_engine::<OxiddEngine>(c, "oxidd");
    bench_import::<BiodivineEngine>(c, "biodivine");
    bench_import::<OxiddEngine>(c, "oxidd");
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = kernels
}
criterion_main!(benches);
