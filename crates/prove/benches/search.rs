//! Nodes per second of df-pn and alpha-beta: full solves of tic-tac-toe from the empty board
//! and of Nim [3, 4, 5, 2]. Throughput is reported in expanded nodes.

// criterion's `criterion_group!` defines undocumented functions.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use symgame_prove::games::{Nim, TicTacToe};
use symgame_prove::{alphabeta, dfpn, AtLeast, Config, GameModel};

/// Benchmarks df-pn ("can role 0 force at least `value`?") and alpha-beta (exact values) on one
/// game, with the expansions of a first run as the throughput unit.
fn bench_game<M: GameModel>(c: &mut Criterion, name: &str, model: &M, value: u8) {
    let root = model.initial_state();
    let config = Config::default();
    let question = AtLeast { role: 0, value };
    let mut group = c.benchmark_group(name);

    let nodes = dfpn(model, &root, &question, &config)
        .unwrap()
        .stats
        .nodes_expanded;
    group.throughput(Throughput::Elements(nodes));
    group.bench_function(BenchmarkId::new("dfpn", nodes), |b| {
        b.iter(|| dfpn(model, &root, &question, &config).unwrap())
    });

    let nodes = alphabeta(model, &root, &config)
        .unwrap()
        .stats
        .nodes_expanded;
    group.throughput(Throughput::Elements(nodes));
    group.bench_function(BenchmarkId::new("alphabeta", nodes), |b| {
        b.iter(|| alphabeta(model, &root, &config).unwrap())
    });
    group.finish();
}

fn search(c: &mut Criterion) {
    bench_game(c, "tictactoe", &TicTacToe, 50);
    bench_game(c, "nim-3-4-5-2", &Nim::new(&[3, 4, 5, 2]), 100);
}

criterion_group!(benches, search);
criterion_main!(benches);
