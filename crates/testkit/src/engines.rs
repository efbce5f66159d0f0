//! BDD fixtures shared by the engine cross-checks and the kernel benchmarks.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use symgame_bdd::{BddEngine, BiodivineEngine, EngineConfig, OxiddEngine};

/// One engine of each backend over `num_vars` variables, with the small test configuration.
pub fn engine_pair(num_vars: u32) -> (BiodivineEngine, OxiddEngine) {
    let cfg = EngineConfig::small();
    (
        BiodivineEngine::new(num_vars, &cfg).expect("a biodivine engine"),
        OxiddEngine::new(num_vars, &cfg).expect("an oxidd engine"),
    )
}

/// A pair of engines ([`engine_pair`]) over `num_vars` variables, made once per process and
/// shared by the tests that ask for that many: an engine is costly to create (oxidd reserves
/// its tables), and many property-test cases run on the same pair.
pub fn shared_engine_pair(num_vars: u32) -> &'static (BiodivineEngine, OxiddEngine) {
    type Pairs = HashMap<u32, &'static (BiodivineEngine, OxiddEngine)>;
    static PAIRS: OnceLock<Mutex<Pairs>> = OnceLock::new();
    let mut pairs = PAIRS
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    pairs
        .entry(num_vars)
        .or_insert_with(|| Box::leak(Box::new(engine_pair(num_vars))))
}

/// The n-queens constraint over `n * n` variables (variable `r * n + c` is the square of row
/// `r`, column `c`): one queen in every row, and no two queens attacking each other.
pub fn queens<E: BddEngine>(e: &E, n: u32) -> E::Bdd {
    let q = |r: u32, c: u32| e.var(r * n + c);
    let mut f = e.constant(true);
    for r in 0..n {
        let mut row = e.constant(false);
        for c in 0..n {
            row = e.or(&row, &q(r, c)).unwrap();
            // No other queen attacks (r, c) from a later square.
            let mut free = e.constant(true);
            for r2 in r..n {
                for c2 in 0..n {
                    if (r2, c2) <= (r, c) {
                        continue;
                    }
                    let attacks = r2 == r || c2 == c || r2 + c == c2 + r || r2 + c2 == r + c;
                    if attacks {
                        free = e.and_not(&free, &q(r2, c2)).unwrap();
                    }
                }
            }
            let clause = e.imp(&q(r, c), &free).unwrap();
            f = e.and(&f, &clause).unwrap();
        }
        f = e.and(&f, &row).unwrap();
    }
    f
}
