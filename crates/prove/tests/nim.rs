use crate::checks::{check_dfpn_win, check_question, configs};
use crate::oracle::forced_goal;
use symgame_prove::games::Nim;
use symgame_prove::{AtLeast, Config};

/// Every position with heaps up to `start`, with either role to move.
fn positions(nim: &Nim, start: &[u8]) -> Vec<(Vec<u8>, usize)> {
    let mut all = vec![Vec::new()];
    for &max in start {
        all = all
            .into_iter()
            .flat_map(|prefix: Vec<u8>| {
                (0..=max).map(move |h| {
                    let mut heaps = prefix.clone();
                    heaps.push(h);
                    heaps
                })
            })
            .collect();
    }
    let _ = nim;
    all.into_iter()
        .flat_map(|heaps| [(heaps.clone(), 0), (heaps, 1)])
        .collect()
}

fn check_xor_rule(start: &[u8]) {
    let nim = Nim::new(start);
    for (_, config) in configs() {
        for (heaps, mover) in positions(&nim, start) {
            let state = nim.state(&heaps, mover);
            let mover_wins = heaps.iter().fold(0, |x, &h| x ^ h) != 0;
            check_question(
                &nim,
                &state,
                &AtLeast {
                    role: mover,
                    value: 100,
                },
                mover_wins,
                &config,
            );
            let other = 1 - mover;
            check_question(
                &nim,
                &state,
                &AtLeast {
                    role: other,
                    value: 100,
                },
                !mover_wins,
                &config,
            );
        }
    }
}

#[test]
fn nim_1_2_3_is_lost_exactly_when_xor_is_zero() {
    check_xor_rule(&[1, 2, 3]);
}

#[test]
fn nim_3_4_5_is_lost_exactly_when_xor_is_zero() {
    check_xor_rule(&[3, 4, 5]);
}

#[test]
fn nim_agrees_with_minimax() {
    let nim = Nim::new(&[2, 3, 4]);
    let mut oracle = forced_goal(&nim, 0);
    for (heaps, mover) in positions(&nim, &[2, 3, 4]) {
        let state = nim.state(&heaps, mover);
        crate::checks::check_value(&nim, &state, 0, oracle.value(&state), &Config::default());
    }
}

#[test]
fn dfpn_with_tiny_table_solves_nim() {
    let start = [3, 4, 5];
    let nim = Nim::new(&start);
    for capacity in [1, 3, 8] {
        let config = Config {
            tt_capacity: capacity,
            ..Config::default()
        };
        for (heaps, mover) in positions(&nim, &start) {
            let state = nim.state(&heaps, mover);
            let mover_wins = heaps.iter().fold(0, |x, &h| x ^ h) != 0;
            check_dfpn_win(&nim, &state, mover, mover_wins, &config);
        }
    }
}
