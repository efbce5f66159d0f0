//! Explicit reasoner throughput: state updates (legal moves of every role, then the next state)
//! per second, by random playouts on bundled games. Target: at least 1 million updates per
//! second on tic-tac-toe on one core.

// criterion's `criterion_group!` defines undocumented functions.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use symgame_explicit::{Reasoner, State};

/// A xorshift generator: the playouts must not depend on a crate's RNG.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// Plays `n` random games; returns the number of updates.
fn playouts(r: &Reasoner, rng: &mut Rng, n: usize) -> u64 {
    let mut updates = 0;
    let mut legal = vec![Vec::new(); r.num_roles()];
    let mut joint = vec![0; r.num_roles()];
    for _ in 0..n {
        let mut s: State = r.initial_state();
        while !r.is_terminal(&s) {
            for (role, l) in legal.iter_mut().enumerate() {
                r.legal_moves_into(&s, role, l);
                joint[role] = l[rng.below(l.len())];
            }
            s = r.next_state(&s, &joint);
            updates += 1;
        }
    }
    updates
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("explicit");
    for name in ["tictactoe", "connect4_6x5", "chomp_4x3"] {
        let game = symgame_testkit::load_game(name);
        let r = Reasoner::new(&game);
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        // measure the updates of 100 playouts to set the throughput
        let per_iter = playouts(&r, &mut rng, 100);
        group.throughput(Throughput::Elements(per_iter));
        group.bench_function(format!("{name} playouts (updates)"), |b| {
            b.iter(|| {
                let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
                playouts(&r, &mut rng, 100)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
