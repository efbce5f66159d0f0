//! Measures symbolic BFS on one game, one line per layer:
//! `measure GAME.kif [key=value ...]` with keys `backend` (biodivine|oxidd), `order`
//! (given|heuristic|rules), `encoding` (plain|compact), `cluster` (cluster_nodes), `tcluster`
//! (terminal_cluster_nodes), `time` (seconds), `threads`, `cache` (log2 of apply-cache entries),
//! `nodes` (log2 of node capacity), `layers` (stop after this many layers).

use std::time::{Duration, Instant};

use symgame_bdd::{Backend, EngineConfig};
use symgame_symbolic::{
    Encoding, EncodingKind, Limits, Order, ReachJob, ReachStats, Setup, SymbolicOptions,
};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let path = std::path::PathBuf::from(&args[1]);
    let mut opts = SymbolicOptions {
        goals: false,
        ..Default::default()
    };
    let mut backend = Backend::Biodivine;
    let mut cfg = EngineConfig::default();
    let cancel = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut limits = Limits {
        cancel: Some(cancel.clone()),
        ..Default::default()
    };
    let mut max_layers = usize::MAX;
    for kv in &args[2..] {
        let (k, v) = kv.split_once('=').expect("key=value");
        match k {
            "backend" => backend = v.parse().unwrap(),
            "order" => {
                opts.order = match v {
                    "given" => Order::Given,
                    "rules" => Order::Rules,
                    _ => Order::Heuristic,
                }
            }
            "encoding" => {
                opts.encoding = match v {
                    "plain" => EncodingKind::Plain,
                    _ => EncodingKind::Compact,
                }
            }
            "cluster" => opts.cluster_nodes = v.parse().unwrap(),
            "tcluster" => opts.terminal_cluster_nodes = v.parse().unwrap(),
            "time" => limits.time_limit = Some(Duration::from_secs_f64(v.parse().unwrap())),
            "threads" => cfg.threads = v.parse().unwrap(),
            "cache" => cfg.cache_capacity = 1 << v.parse::<u32>().unwrap(),
            "layers" => max_layers = v.parse().unwrap(),
            "nodes" => cfg.node_capacity = 1 << v.parse::<u32>().unwrap(),
            _ => panic!("unknown key {k}"),
        }
    }
    let t0 = Instant::now();
    let game = symgame_ground::load(&path, &Default::default()).unwrap();
    let t1 = Instant::now();
    let enc = Encoding::with_options(&game, &opts);
    eprintln!(
        "grounded in {:.2}s, {} fluents; encoding in {:.2}s: {} bits, {} groups",
        (t1 - t0).as_secs_f64(),
        game.fluents.len(),
        t1.elapsed().as_secs_f64(),
        enc.num_bits(),
        enc.groups().len()
    );
    let mut shown = 0;
    let setup = Setup::new(&game, backend, &cfg, &opts);
    let st = setup
        .run(ReachJob {
            settings: &limits,
            explicit: None,
            progress: |s: &ReachStats| {
                for (k, l) in s.layers.iter().enumerate().skip(shown) {
                    eprintln!(
                        "layer {k:3} states {:>14} terminal {:>12} nodes {:>10} t {:8.2}s",
                        l.states, l.terminal, l.nodes, l.seconds
                    );
                }
                shown = s.layers.len();
                if shown >= max_layers {
                    cancel.store(true, std::sync::atomic::Ordering::Relaxed);
                }
            },
        })
        .unwrap();
    println!(
        "{} {backend} {:?}/{:?} cluster {} tcluster {}: states {} terminal {} layers {} partitions {} reached_nodes {} time {:.2}s stopped {:?}",
        path.display(),
        opts.order,
        opts.encoding,
        opts.cluster_nodes,
        opts.terminal_cluster_nodes,
        st.states,
        st.terminal,
        st.layers.len(),
        st.partitions,
        st.reached_nodes,
        st.seconds,
        st.stopped
    );
}
