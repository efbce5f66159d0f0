use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use symgame_prove::games::{Nim, TicTacToe};
use symgame_prove::{
    alphabeta, prove, solve_value, Algo, AtLeast, Config, Evaluation, GameModel, Limits, Outcome,
    StopReason, ValueOutcome,
};

fn limited(limits: Limits) -> Config {
    Config {
        limits,
        ..Config::default()
    }
}

fn stops_with(config: &Config, reason: StopReason) {
    let game = TicTacToe;
    let root = game.initial_state();
    let question = AtLeast { role: 0, value: 50 };
    for algo in Algo::SEARCHES {
        let result = prove(&game, &root, &question, algo, config).unwrap();
        assert_eq!(result.outcome, Outcome::Stopped(reason), "{algo}");
        assert_eq!(result.stats.proof_size, None, "{algo}");
        let value = solve_value(&game, &root, 0, algo, config).unwrap();
        assert!(
            matches!(value.outcome, ValueOutcome::Stopped { reason: r, lower: 0, upper: 100 } if r == reason),
            "{algo}: {:?}",
            value.outcome
        );
    }
    let value = alphabeta(&game, &root, config).unwrap();
    assert_eq!(value.evaluation, Evaluation::Stopped(reason));
}

#[test]
fn tiny_node_limit_stops() {
    for max in [0, 1, 5, 50] {
        stops_with(
            &limited(Limits {
                max_nodes: Some(max),
                ..Limits::default()
            }),
            StopReason::NodeLimit,
        );
    }
}

#[test]
fn node_limit_counts_expansions() {
    let game = TicTacToe;
    let root = game.initial_state();
    let config = limited(Limits {
        max_nodes: Some(40),
        ..Limits::default()
    });
    for algo in Algo::SEARCHES {
        let result = prove(&game, &root, &AtLeast { role: 0, value: 50 }, algo, &config).unwrap();
        assert_eq!(result.stats.nodes_expanded, 40, "{algo}");
    }
}

#[test]
fn zero_time_limit_stops() {
    stops_with(
        &limited(Limits {
            time_limit: Some(Duration::ZERO),
            ..Limits::default()
        }),
        StopReason::TimeLimit,
    );
}

#[test]
fn raised_cancel_flag_stops() {
    let cancel = Arc::new(AtomicBool::new(true));
    stops_with(
        &limited(Limits {
            cancel: Some(cancel),
            ..Limits::default()
        }),
        StopReason::Cancelled,
    );
}

#[test]
fn tiny_memory_limit_stops() {
    stops_with(
        &limited(Limits {
            max_memory_bytes: Some(1),
            ..Limits::default()
        }),
        StopReason::MemoryLimit,
    );
}

/// `algo` asked whether the first player wins `nim` stops for `reason`.
fn assert_stops(nim: &Nim, config: &Config, algo: Algo, reason: StopReason) {
    let first_wins = AtLeast {
        role: 0,
        value: 100,
    };
    let result = prove(nim, &nim.initial_state(), &first_wins, algo, config).unwrap();
    assert_eq!(result.outcome, Outcome::Stopped(reason), "{algo}");
}

#[test]
fn pn_stops_at_its_memory_limit_on_a_big_game() {
    let nim = Nim::new(&[9, 9, 9, 9, 9, 9]);
    let config = limited(Limits {
        max_memory_bytes: Some(1 << 20),
        ..Limits::default()
    });
    for algo in [Algo::Pn, Algo::Pn2] {
        assert_stops(&nim, &config, algo, StopReason::MemoryLimit);
    }
}

#[test]
fn cancel_from_another_thread_stops_a_long_search() {
    let nim = Nim::new(&[20, 20, 20, 20, 20, 20, 20, 20]);
    for algo in Algo::SEARCHES {
        let cancel = Arc::new(AtomicBool::new(false));
        let config = limited(Limits {
            cancel: Some(cancel.clone()),
            time_limit: Some(Duration::from_secs(20)),
            max_memory_bytes: Some(256 << 20),
            ..Limits::default()
        });
        let canceller = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(30));
            cancel.store(true, Ordering::Relaxed);
        });
        assert_stops(&nim, &config, algo, StopReason::Cancelled);
        canceller.join().unwrap();
    }
}

#[test]
fn pn2_holds_fewer_nodes_than_pn() {
    let nim = Nim::new(&[3, 4, 5, 1]);
    let root = nim.initial_state();
    let question = AtLeast {
        role: 0,
        value: 100,
    };
    let config = Config::default();
    let pn = prove(&nim, &root, &question, Algo::Pn, &config).unwrap();
    let pn2 = prove(&nim, &root, &question, Algo::Pn2, &config).unwrap();
    assert_eq!(pn.outcome, Outcome::Proved);
    assert_eq!(pn2.outcome, Outcome::Proved);
    assert!(
        pn2.stats.nodes_in_memory < pn.stats.nodes_in_memory,
        "pn2 {} vs pn {}",
        pn2.stats,
        pn.stats
    );
}
