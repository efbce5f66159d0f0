use crate::checks::{check_difference, check_question, check_value, configs};
use crate::oracle::{forced_goal, goal_difference, reachable, Minimax};
use symgame_prove::games::{GridWalk, LightsOut};
use symgame_prove::{Beats, GameModel, Predicate};

fn lights(max_presses: u8) -> LightsOut {
    // The lights left on by pressing cells 0, 2, 4 and 5 of the 3 x 2 grid.
    let mut game = LightsOut {
        width: 3,
        height: 2,
        start: 0,
        max_presses,
    };
    let mut on = 0;
    for cell in [0u8, 2, 4, 5] {
        on = game
            .next_state(&symgame_prove::games::Lights { on, presses: 0 }, &[cell])
            .on;
    }
    game.start = on;
    game
}

#[test]
fn lights_out_values_match_brute_force() {
    let mut roots = Vec::new();
    for max_presses in 1..=4 {
        let game = lights(max_presses);
        let mut oracle = forced_goal(&game, 0);
        roots.push(oracle.value(&game.initial_state()));
        for (_, config) in configs() {
            for state in reachable(&game) {
                check_value(&game, &state, 0, oracle.value(&state), &config);
            }
        }
    }
    // More presses never hurt; one is not enough, four are.
    assert!(roots.windows(2).all(|w| w[0] <= w[1]), "{roots:?}");
    assert!(roots[0] < 100 && roots[3] == 100, "{roots:?}");
}

#[test]
fn grid_walk_values_match_brute_force() {
    let game = GridWalk { size: 7 };
    let states = reachable(&game);
    let mut first = forced_goal(&game, 0);
    let mut second = forced_goal(&game, 1);
    let mut difference = goal_difference(&game);
    for (_, config) in configs() {
        for state in &states {
            check_value(&game, state, 0, first.value(state), &config);
            check_value(&game, state, 1, second.value(state), &config);
        }
    }
    for state in &states {
        check_difference(&game, state, difference.value(state));
    }
}

#[test]
fn grid_walk_general_questions_match_brute_force() {
    let game = GridWalk { size: 7 };
    let beats = |role: usize| {
        Minimax::new(
            game,
            role,
            move |m: &GridWalk, s: &symgame_prove::games::Walker| {
                i32::from(m.goal(s, role) > m.goal(s, 1 - role))
            },
        )
    };
    let mut beats_oracle = [beats(0), beats(1)];
    let mut sum_oracle = Minimax::new(game, 1, |m: &GridWalk, s: &symgame_prove::games::Walker| {
        i32::from(u32::from(m.goal(s, 0)) + u32::from(m.goal(s, 1)) >= 100)
    });
    let rich = Predicate {
        role: 1,
        test: |m: &GridWalk, s: &symgame_prove::games::Walker| {
            u32::from(m.goal(s, 0)) + u32::from(m.goal(s, 1)) >= 100
        },
    };
    for (_, config) in configs() {
        for state in reachable(&game) {
            for (role, oracle) in beats_oracle.iter_mut().enumerate() {
                let beats = oracle.value(&state) == 1;
                check_question(&game, &state, &Beats { role }, beats, &config);
            }
            check_question(&game, &state, &rich, sum_oracle.value(&state) == 1, &config);
        }
    }
}
