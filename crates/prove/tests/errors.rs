use crate::oracle::{GraphGame, Pennies, ThreeRoles};
use symgame_prove::{
    alphabeta, prove, solve_value, Algo, AtLeast, Config, Evaluation, GameModel, Outcome,
    Unsupported,
};

/// `algo` refuses the question "can `role` force at least `value` from `root`?".
fn refusal<M: GameModel>(
    game: &M,
    root: &M::State,
    role: usize,
    value: u8,
    algo: Algo,
) -> Unsupported {
    let question = AtLeast { role, value };
    prove(game, root, &question, algo, &Config::default()).expect_err("an unsupported game")
}

#[test]
fn simultaneous_moves_are_unsupported() {
    for delay in [0, 3] {
        let game = Pennies { delay };
        let root = game.initial_state();
        for algo in Algo::SEARCHES {
            let err = refusal(&game, &root, 0, 100, algo);
            assert!(
                matches!(err, Unsupported::Simultaneous { .. }),
                "{algo}: {err}"
            );
            assert!(err.to_string().contains("roles 0 and 1"), "{err}");
            let err = solve_value(&game, &root, 1, algo, &Config::default()).unwrap_err();
            assert!(
                matches!(err, Unsupported::Simultaneous { .. }),
                "{algo}: {err}"
            );
        }
        let err = alphabeta(&game, &root, &Config::default()).unwrap_err();
        assert!(matches!(err, Unsupported::Simultaneous { .. }));
    }
}

#[test]
fn three_roles_are_unsupported() {
    let game = ThreeRoles;
    for algo in Algo::SEARCHES {
        let err = refusal(&game, &0, 0, 50, algo);
        assert_eq!(err, Unsupported::Roles { count: 3 }, "{algo}");
    }
    assert_eq!(
        alphabeta(&game, &0, &Config::default()).unwrap_err(),
        Unsupported::Roles { count: 3 }
    );
}

#[test]
fn unknown_role_is_rejected() {
    let game = GraphGame {
        edges: vec![vec![1], vec![]],
        mover: vec![0, 0],
        goals: vec![[0, 0], [100, 0]],
        roles: 1,
    };
    for algo in Algo::SEARCHES {
        let err = refusal(&game, &0, 1, 50, algo);
        assert_eq!(
            err,
            Unsupported::UnknownRole { role: 1, count: 1 },
            "{algo}"
        );
    }
}

/// Every algorithm answers "can `role` force at least `value` from vertex 0?" with `want`.
fn answers(game: &GraphGame, role: usize, value: u8, want: Outcome) {
    let question = AtLeast { role, value };
    for algo in Algo::SEARCHES {
        let result = prove(game, &0, &question, algo, &Config::default()).unwrap();
        assert_eq!(result.outcome, want, "{algo}: role {role} at least {value}");
    }
}

#[test]
fn cycles_terminate_single_player() {
    // 0 -> 1 -> 2 -> 0 is a loop; 2 -> 3 ends with goal 100, 1 -> 4 with goal 30.
    let game = GraphGame {
        edges: vec![vec![1], vec![2, 4], vec![0, 3], vec![], vec![]],
        mover: vec![0; 5],
        goals: vec![[0, 0], [0, 0], [0, 0], [100, 0], [30, 0]],
        roles: 1,
    };
    answers(&game, 0, 100, Outcome::Proved);
    for algo in Algo::SEARCHES {
        let value = solve_value(&game, &0, 0, algo, &Config::default()).unwrap();
        assert_eq!(
            value.outcome,
            symgame_prove::ValueOutcome::Exact(100),
            "{algo}"
        );
    }
    // Without the exit at 3 the loop never pays more than 30.
    let mut stuck = game.clone();
    stuck.edges[2] = vec![0];
    answers(&stuck, 0, 100, Outcome::Disproved);
    answers(&stuck, 0, 30, Outcome::Proved);
}

#[test]
fn cycles_terminate_two_players() {
    // Role 0 moves 0 -> 1; role 1 at 1 can loop back to 0 or end at 2 (goal 100 for role 0).
    // Endless play is a failure for the attacker, so role 0 cannot force 100.
    let game = GraphGame {
        edges: vec![vec![1], vec![0, 2], vec![]],
        mover: vec![0, 1, 0],
        goals: vec![[0, 0], [0, 0], [100, 0]],
        roles: 2,
    };
    answers(&game, 0, 100, Outcome::Disproved);
    // Role 1 cannot force a terminal where it gets 100 either: the only terminal pays it 0.
    answers(&game, 1, 100, Outcome::Disproved);
    // Alpha-beta scores the repetition as goal 0 for both roles: role 1 prefers it.
    let result = alphabeta(&game, &0, &Config::default()).unwrap();
    assert_eq!(result.evaluation, Evaluation::Values(vec![0, 0]));
    // A larger loop where both roles can leave.
    let game = GraphGame {
        edges: vec![
            vec![1, 4],
            vec![2, 5],
            vec![3, 0],
            vec![0, 1],
            vec![],
            vec![],
        ],
        mover: vec![0, 1, 0, 1, 0, 0],
        goals: vec![[0, 0]; 4]
            .into_iter()
            .chain([[50, 50], [100, 0]])
            .collect(),
        roles: 2,
    };
    // Role 0 takes the sure 50 at once; role 1 never enters 5.
    answers(&game, 0, 50, Outcome::Proved);
    answers(&game, 0, 100, Outcome::Disproved);
}

#[test]
fn self_loops_terminate() {
    // Vertex 0 can stay where it is forever or end at 1.
    for (goal, want) in [(100, Outcome::Proved), (0, Outcome::Disproved)] {
        let game = GraphGame {
            edges: vec![vec![0, 1], vec![]],
            mover: vec![0, 0],
            goals: vec![[0, 0], [goal, 0]],
            roles: 1,
        };
        answers(&game, 0, 100, want);
    }
    // A forced self-loop never ends: nothing can be forced.
    let game = GraphGame {
        edges: vec![vec![0]],
        mover: vec![0],
        goals: vec![[100, 0]],
        roles: 1,
    };
    answers(&game, 0, 0, Outcome::Disproved);
}
