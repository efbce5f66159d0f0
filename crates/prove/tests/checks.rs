//! The assertions the game tests are made of: the only code that calls the searches.

use std::fmt::Debug;
use symgame_prove::{
    alphabeta, dfpn, prove, solve_value, Algo, AtLeast, Config, Evaluation, GameModel, Init,
    Outcome, Pn2Limit, Question, ValueOutcome,
};

/// Configurations every algorithm must agree under.
pub fn configs() -> Vec<(&'static str, Config)> {
    vec![
        ("default", Config::default()),
        (
            "mobility+weak",
            Config {
                init: Init::Mobility,
                weak_pn: true,
                ..Config::default()
            },
        ),
        (
            "logistic+epsilon+keep",
            Config {
                pn2_limit: Pn2Limit::Logistic {
                    a: 40.0,
                    b: 10.0,
                    max: 200,
                },
                epsilon: 0.25,
                delete_solved: false,
                tt_capacity: 64,
                ..Config::default()
            },
        ),
    ]
}

/// Every algorithm finds `expected` as the value `role` can force from `state`.
pub fn check_value<M: GameModel>(
    model: &M,
    state: &M::State,
    role: usize,
    expected: i32,
    config: &Config,
) where
    M::State: Debug,
{
    for algo in Algo::SEARCHES {
        let result = solve_value(model, state, role, algo, config).unwrap();
        assert_eq!(
            result.outcome,
            ValueOutcome::Exact(expected as u8),
            "{algo}: value of role {role} at {state:?}"
        );
    }
}

/// Every algorithm answers `question` at `state` with `expected`.
pub fn check_question<M: GameModel, Q: Question<M>>(
    model: &M,
    state: &M::State,
    question: &Q,
    expected: bool,
    config: &Config,
) where
    M::State: Debug,
{
    let want = proof_outcome(expected);
    for algo in Algo::SEARCHES {
        let result = prove(model, state, question, algo, config).unwrap();
        assert_eq!(result.outcome, want, "{algo}: question at {state:?}");
        if algo != Algo::AlphaBeta {
            assert!(result.stats.proof_size.is_some_and(|size| size >= 1));
        }
    }
}

/// What a proof search answers to a question whose answer is `answer`.
pub fn proof_outcome(answer: bool) -> Outcome {
    if answer {
        Outcome::Proved
    } else {
        Outcome::Disproved
    }
}

/// df-pn under `config` answers "can `role` force the goal 100 from `state`?" with `wins`.
pub fn check_dfpn_win<M: GameModel>(
    model: &M,
    state: &M::State,
    role: usize,
    wins: bool,
    config: &Config,
) where
    M::State: Debug,
{
    let question = AtLeast { role, value: 100 };
    let result = dfpn(model, state, &question, config).unwrap();
    assert_eq!(
        result.outcome,
        proof_outcome(wins),
        "table capacity {}, role {role} at {state:?}",
        config.tt_capacity
    );
}

/// Alpha-beta's goal values at `state` have the optimal difference `difference` (two roles).
pub fn check_difference<M: GameModel>(model: &M, state: &M::State, difference: i32)
where
    M::State: Debug,
{
    let result = alphabeta(model, state, &Config::default()).unwrap();
    let Evaluation::Values(values) = result.evaluation else {
        panic!("alpha-beta stopped at {state:?}");
    };
    assert_eq!(
        i32::from(values[0]) - i32::from(values[1]),
        difference,
        "alpha-beta goals {values:?} at {state:?}"
    );
}
