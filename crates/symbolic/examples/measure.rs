//! Measures symbolic BFS on one game: `measure GAME.kif [biodivine|oxidd] [given|heuristic]
//! [cluster_nodes] [time_limit_s] [threads]`. Prints one line per layer.

use std::time::{Duration, Instant};

use symgame_bdd::{Backend, EngineConfig};
use symgame_symbolic::{reach_with_backend, Order, SearchLimits, SymbolicOptions};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = std::path::PathBuf::from(&args[1]);
    let backend: Backend = args
        .get(2)
        .map_or(Backend::Biodivine, |s| s.parse().unwrap());
    let order = match args.get(3).map(String::as_str) {
        Some("given") => Order::Given,
        _ => Order::Heuristic,
    };
    let cluster_nodes = args.get(4).map_or(0, |s| s.parse().unwrap());
    let time_limit = args.get(5).map(|s| Duration::from_secs(s.parse().unwrap()));
    let threads = args.get(6).map_or(0, |s| s.parse().unwrap());
    let t0 = Instant::now();
    let game = symgame_ground::load(&path, &Default::default()).unwrap();
    eprintln!(
        "grounded in {:.2}s, {} fluents",
        t0.elapsed().as_secs_f64(),
        game.fluents.len()
    );
    let opts = SymbolicOptions {
        order,
        cluster_nodes,
        goals: false,
        ..Default::default()
    };
    let cfg = EngineConfig {
        threads,
        ..EngineConfig::default()
    };
    let limits = SearchLimits {
        time_limit,
        ..Default::default()
    };
    let mut shown = 0;
    let st = reach_with_backend(&game, backend, &cfg, &opts, &limits, |s| {
        for (k, l) in s.layers.iter().enumerate().skip(shown) {
            eprintln!(
                "layer {k:3} states {:>14} terminal {:>12} nodes {:>10} t {:8.2}s",
                l.states, l.terminal, l.nodes, l.seconds
            );
        }
        shown = s.layers.len();
    })
    .unwrap();
    println!(
        "{} {backend} {order:?} cluster {cluster_nodes}: states {} terminal {} layers {} partitions {} reached_nodes {} time {:.2}s stopped {:?}",
        path.display(),
        st.states,
        st.terminal,
        st.layers.len(),
        st.partitions,
        st.reached_nodes,
        st.seconds,
        st.stopped
    );
}
