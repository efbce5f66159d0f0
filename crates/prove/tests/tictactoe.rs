use crate::checks::{check_dfpn_win, check_difference, check_question, check_value, configs};
use crate::oracle::{forced_goal, goal_difference, reachable};
use symgame_prove::games::TicTacToe;
use symgame_prove::{dfpn, prove, Algo, AtLeast, Beats, Config, GameModel, Outcome};

#[test]
fn initial_position_is_a_draw() {
    let game = TicTacToe;
    let root = game.initial_state();
    for (_, config) in configs() {
        check_question(
            &game,
            &root,
            &AtLeast {
                role: 0,
                value: 100,
            },
            false,
            &config,
        );
        check_question(&game, &root, &AtLeast { role: 0, value: 50 }, true, &config);
        check_question(&game, &root, &AtLeast { role: 1, value: 50 }, true, &config);
        check_question(&game, &root, &Beats { role: 1 }, false, &config);
        check_value(&game, &root, 0, 50, &config);
    }
    check_difference(&game, &root, 0);
}

#[test]
fn every_reachable_state_matches_minimax() {
    let game = TicTacToe;
    let states = reachable(&game);
    assert_eq!(states.len(), 5478);
    let mut x = forced_goal(&game, 0);
    let mut o = forced_goal(&game, 1);
    let mut difference = goal_difference(&game);
    let config = Config::default();
    for state in &states {
        check_value(&game, state, 0, x.value(state), &config);
        check_value(&game, state, 1, o.value(state), &config);
        check_difference(&game, state, difference.value(state));
    }
}

#[test]
fn every_reachable_state_matches_minimax_under_other_configs() {
    let game = TicTacToe;
    let mut x = forced_goal(&game, 0);
    for (_, config) in configs().into_iter().skip(1) {
        for state in reachable(&game) {
            check_value(&game, &state, 0, x.value(&state), &config);
        }
    }
}

#[test]
fn dfpn_with_tiny_table_stays_correct() {
    let game = TicTacToe;
    let mut x = forced_goal(&game, 0);
    for capacity in [1, 2, 5, 16] {
        let config = Config {
            tt_capacity: capacity,
            ..Config::default()
        };
        let root = game.initial_state();
        let draw = dfpn(&game, &root, &AtLeast { role: 0, value: 50 }, &config).unwrap();
        assert_eq!(draw.outcome, Outcome::Proved, "capacity {capacity}");
        assert!(draw.stats.nodes_in_memory <= capacity as u64);
        check_dfpn_win(&game, &root, 0, false, &config);
        for state in reachable(&game).iter().step_by(7) {
            check_dfpn_win(&game, state, 0, x.value(state) >= 100, &config);
        }
    }
}

#[test]
fn node_counts_from_the_empty_board() {
    // Printed for the record (cargo test -- --nocapture); asserts only sanity.
    let game = TicTacToe;
    let root = game.initial_state();
    for (name, config) in configs() {
        for algo in Algo::SEARCHES {
            for value in [50, 100] {
                let result =
                    prove(&game, &root, &AtLeast { role: 0, value }, algo, &config).unwrap();
                eprintln!(
                    "tictactoe {name:>22} {algo:>9} x>={value:<3}: {} ({})",
                    result.outcome, result.stats
                );
                assert!(result.stats.nodes_expanded > 0);
                assert!(result.stats.nodes_in_memory > 0);
            }
        }
    }
}
