//! Compiles a game with and without goal conditions and prints the time and the largest goal
//! BDD (a measuring aid for the goal representation).
use symgame_bdd::{BddEngine, BiodivineEngine, EngineConfig};
use symgame_symbolic::{Encoding, SymbolicGame, SymbolicOptions};

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: compile_time GAME.kif");
    let game = symgame_ground::load(std::path::Path::new(&path), &Default::default()).unwrap();
    for goals in [false, true] {
        let enc = Encoding::new(&game, Default::default());
        let engine = BiodivineEngine::new(enc.num_vars(), &EngineConfig::default()).unwrap();
        let t = std::time::Instant::now();
        let opts = SymbolicOptions {
            goals,
            ..Default::default()
        };
        let g = SymbolicGame::new(&engine, &game, enc, &opts).unwrap();
        let leaves: usize = g
            .goal_formulas()
            .iter()
            .flatten()
            .map(|(_, f)| f.leaves())
            .sum();
        if std::env::var_os("SHOW").is_some() {
            for (r, gs) in g.goal_formulas().iter().enumerate() {
                for (v, f) in gs {
                    println!("role {r} value {v}: {f:?}");
                }
            }
        }
        println!(
            "goals {goals}: {:.2} s, goal formulas with {leaves} leaves",
            t.elapsed().as_secs_f64()
        );
    }
}
