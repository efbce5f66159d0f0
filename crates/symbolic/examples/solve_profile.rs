//! Solves one game with the biodivine engine and prints the statistics (a profiling aid).
use symgame_bdd::{BddEngine, BiodivineEngine, EngineConfig};
use symgame_symbolic::{solve, Encoding, LayeredMode, SolveOptions, SymbolicGame, SymbolicOptions};

fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: solve_profile GAME.kif [never]");
    let never = std::env::args().nth(2).is_some_and(|a| a == "never");
    let game = symgame_ground::load(std::path::Path::new(&path), &Default::default()).unwrap();
    let enc = Encoding::new(&game, Default::default());
    let engine = BiodivineEngine::new(enc.num_vars(), &EngineConfig::default()).unwrap();
    let t = std::time::Instant::now();
    // SYMGAME_CLUSTER=N merges per-move relations up to N nodes (0: one per joint move).
    let sym = SymbolicOptions {
        cluster_nodes: std::env::var("SYMGAME_CLUSTER")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(0),
        ..Default::default()
    };
    let g = SymbolicGame::new(&engine, &game, enc, &sym).unwrap();
    eprintln!(
        "compile {:.2} s, {} partitions",
        t.elapsed().as_secs_f64(),
        g.partitions().len()
    );
    let opts = SolveOptions {
        layered: if never {
            LayeredMode::Never
        } else {
            LayeredMode::Auto
        },
        ..Default::default()
    };
    let s = solve(&g, &opts, |st| eprintln!("progress {:.2} s", st.seconds)).unwrap();
    println!("{}", serde_json::to_string(&s.stats).unwrap());
}
