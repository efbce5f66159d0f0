//! Backward induction against hand-made game tables and the searches.

use super::{maxn_values, security_levels, StateValues};
use crate::games::{GridWalk, Nim, TicTacToe};
use crate::{alphabeta, solve_value, Algo, Config, Evaluation, GameModel, Unsupported};

/// A game given as a table: each state (an index) is a leaf with its rewards or an inner
/// state with a number of moves per role and the successor of each joint move, listed with
/// the last role's move changing fastest.
struct Table {
    roles: usize,
    nodes: Vec<Node>,
}

enum Node {
    Leaf(Vec<u8>),
    Inner {
        counts: Vec<usize>,
        children: Vec<usize>,
    },
}

impl GameModel for Table {
    type State = usize;
    type Move = usize;

    fn num_roles(&self) -> usize {
        self.roles
    }

    fn initial_state(&self) -> usize {
        0
    }

    fn is_terminal(&self, state: &usize) -> bool {
        matches!(self.nodes[*state], Node::Leaf(_))
    }

    fn goal(&self, state: &usize, role: usize) -> u8 {
        match &self.nodes[*state] {
            Node::Leaf(rewards) => rewards[role],
            Node::Inner { .. } => 0,
        }
    }

    fn legal_moves(&self, state: &usize, role: usize, out: &mut Vec<usize>) {
        if let Node::Inner { counts, .. } = &self.nodes[*state] {
            out.extend(0..counts[role]);
        }
    }

    fn next_state(&self, state: &usize, joint: &[usize]) -> usize {
        match &self.nodes[*state] {
            Node::Inner { counts, children } => {
                let at = joint
                    .iter()
                    .zip(counts)
                    .fold(0, |at, (&mv, &count)| at * count + mv);
                children[at]
            }
            Node::Leaf(_) => *state,
        }
    }
}

fn leaf(rewards: &[u8]) -> Node {
    Node::Leaf(rewards.to_vec())
}

fn inner(counts: &[usize], children: &[usize]) -> Node {
    Node::Inner {
        counts: counts.to_vec(),
        children: children.to_vec(),
    }
}

/// A one-shot simultaneous game: both roles pick one of `n` moves; `payoff(a, b)`.
fn matrix(n: usize, payoff: impl Fn(usize, usize) -> [u8; 2]) -> Table {
    let mut nodes = vec![inner(&[n, n], &(1..=n * n).collect::<Vec<_>>())];
    for a in 0..n {
        for b in 0..n {
            nodes.push(leaf(&payoff(a, b)));
        }
    }
    Table { roles: 2, nodes }
}

fn root_of<S: Eq + std::hash::Hash>(values: &StateValues<S>, root: &S) -> Vec<u8> {
    values.get(root).expect("the root is valued").to_vec()
}

#[test]
fn nim_security_levels_follow_the_nim_sum_in_every_state() {
    for heaps in [[1, 2, 3], [3, 4, 5], [2, 2, 5]] {
        let nim = Nim::new(&heaps);
        let root = nim.initial_state();
        let levels = security_levels(&nim, &root).unwrap();
        let first_wins = heaps.iter().fold(0, |x, h| x ^ h) != 0;
        let want = if first_wins { [100, 0] } else { [0, 100] };
        assert_eq!(root_of(&levels, &root), want, "{heaps:?}");
        for (state, rewards) in levels.iter() {
            let mover = usize::from(state.mover);
            let nonzero = state.heaps.iter().fold(0, |x, h| x ^ h) != 0;
            let terminal = nim.is_terminal(state);
            assert_eq!(
                rewards[mover] == 100,
                nonzero && !terminal,
                "{heaps:?} {state:?}"
            );
            assert_eq!(u32::from(rewards[0]) + u32::from(rewards[1]), 100);
        }
        let outcomes = maxn_values(&nim, &root).unwrap();
        assert_eq!(root_of(&outcomes, &root), want, "{heaps:?}");
        assert_eq!(outcomes.len(), levels.len());
    }
    // Heaps 1, 2, 3: 40 reachable states (gdl/nim_1_2_3.expect).
    let nim = Nim::new(&[1, 2, 3]);
    assert_eq!(
        security_levels(&nim, &nim.initial_state()).unwrap().len(),
        40
    );
}

#[test]
fn tictactoe_is_a_draw_in_5478_states() {
    let root = TicTacToe.initial_state();
    let levels = security_levels(&TicTacToe, &root).unwrap();
    assert_eq!(levels.len(), 5478);
    assert_eq!(levels.num_roles(), 2);
    assert_eq!(root_of(&levels, &root), [50, 50]);
    let outcomes = maxn_values(&TicTacToe, &root).unwrap();
    assert_eq!(root_of(&outcomes, &root), [50, 50]);
}

/// Two roles: the security level is the value alpha-beta forces, and max^n follows the
/// two-role preference (own minus other), as alpha-beta's difference does.
#[test]
fn two_roles_agree_with_alpha_beta() {
    for size in [3, 4, 6, 7] {
        let game = GridWalk { size };
        let root = game.initial_state();
        let levels = security_levels(&game, &root).unwrap();
        let config = Config::default();
        for role in 0..2 {
            let forced = solve_value(&game, &root, role, Algo::AlphaBeta, &config).unwrap();
            assert_eq!(
                forced.outcome,
                crate::ValueOutcome::Exact(levels.get(&root).unwrap()[role]),
                "size {size} role {role}"
            );
        }
        let outcome = root_of(&maxn_values(&game, &root).unwrap(), &root);
        let Evaluation::Values(goals) = alphabeta(&game, &root, &config).unwrap().evaluation else {
            panic!("alpha-beta stopped");
        };
        let difference = |g: &[u8]| i32::from(g[0]) - i32::from(g[1]);
        assert_eq!(difference(&outcome), difference(&goals), "size {size}");
    }
}

#[test]
fn pure_security_in_matching_pennies_and_rock_paper_scissors_is_zero() {
    let pennies = matrix(2, |a, b| if a == b { [100, 0] } else { [0, 100] });
    assert_eq!(root_of(&security_levels(&pennies, &0).unwrap(), &0), [0, 0]);
    // Rock 0, paper 1, scissors 2: b beats a when b == a + 1 (mod 3).
    let rps = matrix(3, |a, b| match (3 + b - a) % 3 {
        0 => [50, 50],
        1 => [0, 100],
        _ => [100, 0],
    });
    let levels = security_levels(&rps, &0).unwrap();
    assert_eq!(root_of(&levels, &0), [0, 0]);
    assert_eq!(levels.len(), 10);
    for game in [&pennies, &rps] {
        let err = maxn_values(game, &0).unwrap_err();
        assert!(matches!(err, Unsupported::Simultaneous { .. }), "{err}");
        assert!(err.to_string().contains("roles 0 and 1"), "{err}");
    }
}

#[test]
fn a_dominant_move_secures_its_worst_case() {
    // Prisoner's dilemma (0 cooperates, 1 defects): defecting guarantees 20.
    let dilemma = matrix(2, |a, b| match (a, b) {
        (0, 0) => [60, 60],
        (0, 1) => [0, 100],
        (1, 0) => [100, 0],
        _ => [20, 20],
    });
    assert_eq!(
        root_of(&security_levels(&dilemma, &0).unwrap(), &0),
        [20, 20]
    );
    // Asymmetric: role 0 has a safe move worth 30; role 1's moves are worth at least 40
    // and 10 whatever role 0 plays.
    let safe = matrix(2, |a, b| match (a, b) {
        (0, 0) => [30, 40],
        (0, 1) => [30, 10],
        (1, 0) => [100, 70],
        _ => [0, 90],
    });
    assert_eq!(root_of(&security_levels(&safe, &0).unwrap(), &0), [30, 40]);
}

/// Three roles moving at once, with different move counts: role r gets 30 for each step of
/// its own move and 40 when the next role copies it (which that role may refuse).
#[test]
fn three_simultaneous_roles_combine_every_joint_move() {
    let counts = [3, 2, 2];
    let mut nodes = vec![inner(&counts, &(1..=12).collect::<Vec<_>>())];
    for a in 0..3 {
        for b in 0..2 {
            for c in 0..2 {
                let m = [a, b, c];
                let reward =
                    |r: usize| (30 * m[r] + if m[(r + 1) % 3] == m[r] { 40 } else { 0 }) as u8;
                nodes.push(leaf(&[reward(0), reward(1), reward(2)]));
            }
        }
    }
    let game = Table { roles: 3, nodes };
    // Role 0: move 2 gives 60 (role 1 cannot copy it); roles 1 and 2: move 1 gives 30.
    assert_eq!(
        root_of(&security_levels(&game, &0).unwrap(), &0),
        [60, 30, 30]
    );
    let err = maxn_values(&game, &0).unwrap_err();
    assert!(err.to_string().contains("roles 0, 1 and 2"), "{err}");
    assert!(err.to_string().contains("(3, 2 and 2)"), "{err}");
}

/// Role 0 chooses between a sure 40 and handing the choice to role 1, whose max^n choice
/// gives role 0 70 but who could give it 0: max^n 70/30/0, security levels 40/30/0.
#[test]
fn maxn_and_security_differ_with_three_roles() {
    let game = Table {
        roles: 3,
        nodes: vec![
            inner(&[2, 1, 1], &[1, 2]),
            leaf(&[40, 30, 30]),
            inner(&[1, 2, 1], &[3, 4]),
            leaf(&[70, 30, 0]),
            leaf(&[0, 20, 80]),
        ],
    };
    let outcomes = maxn_values(&game, &0).unwrap();
    assert_eq!(root_of(&outcomes, &0), [70, 30, 0]);
    assert_eq!(root_of(&outcomes, &2), [70, 30, 0]);
    let levels = security_levels(&game, &0).unwrap();
    assert_eq!(root_of(&levels, &0), [40, 30, 0]);
    assert_eq!(root_of(&levels, &2), [0, 30, 0]);
    assert_eq!(levels.len(), 5);
}

/// Max^n ties: role 1 gets 50 either way and picks the outcome worse for the others
/// together (the second move); a forced state passes its single successor's outcome up.
#[test]
fn maxn_breaks_ties_against_the_others_and_passes_forced_moves() {
    let game = Table {
        roles: 3,
        nodes: vec![
            inner(&[1, 1, 1], &[1]),
            inner(&[1, 2, 1], &[2, 3]),
            leaf(&[100, 50, 0]),
            leaf(&[0, 50, 50]),
        ],
    };
    let outcomes = maxn_values(&game, &0).unwrap();
    assert_eq!(root_of(&outcomes, &0), [0, 50, 50]);
    assert_eq!(
        root_of(&security_levels(&game, &0).unwrap(), &0),
        [0, 50, 0]
    );
}

#[test]
fn cycles_are_errors_but_transpositions_are_not() {
    // 0 -> 1 -> 2 -> 0, with an exit to a leaf at 1.
    let cyclic = Table {
        roles: 2,
        nodes: vec![
            inner(&[1, 1], &[1]),
            inner(&[2, 1], &[2, 3]),
            inner(&[1, 1], &[0]),
            leaf(&[100, 0]),
        ],
    };
    for result in [security_levels(&cyclic, &0), maxn_values(&cyclic, &0)] {
        let err = result.unwrap_err();
        assert_eq!(err, Unsupported::Cycle { length: 3 });
        assert!(err.to_string().contains("after 3 moves"), "{err}");
    }
    let self_loop = Table {
        roles: 1,
        nodes: vec![inner(&[2], &[0, 1]), leaf(&[10])],
    };
    assert_eq!(
        security_levels(&self_loop, &0).unwrap_err(),
        Unsupported::Cycle { length: 1 }
    );
    // A diamond: state 3 is reached twice, never on the same path.
    let diamond = Table {
        roles: 1,
        nodes: vec![
            inner(&[2], &[1, 2]),
            inner(&[1], &[3]),
            inner(&[2], &[3, 4]),
            inner(&[1], &[4]),
            leaf(&[60]),
        ],
    };
    assert_eq!(root_of(&security_levels(&diamond, &0).unwrap(), &0), [60]);
    assert_eq!(root_of(&maxn_values(&diamond, &0).unwrap(), &0), [60]);
}

#[test]
fn a_role_without_moves_is_an_error() {
    let game = Table {
        roles: 2,
        nodes: vec![inner(&[2, 0], &[]), leaf(&[0, 0])],
    };
    for result in [security_levels(&game, &0), maxn_values(&game, &0)] {
        assert_eq!(result.unwrap_err(), Unsupported::NoLegalMoves { role: 1 });
    }
}

/// A chain far deeper than the call stack could take by recursion.
#[test]
fn a_game_200000_plies_deep_needs_no_recursion() {
    struct Countdown;
    impl GameModel for Countdown {
        type State = u32;
        type Move = ();
        fn num_roles(&self) -> usize {
            2
        }
        fn initial_state(&self) -> u32 {
            200_000
        }
        fn is_terminal(&self, state: &u32) -> bool {
            *state == 0
        }
        fn goal(&self, _state: &u32, role: usize) -> u8 {
            [25, 75][role]
        }
        fn legal_moves(&self, _state: &u32, _role: usize, out: &mut Vec<()>) {
            out.push(());
        }
        fn next_state(&self, state: &u32, _joint: &[()]) -> u32 {
            state - 1
        }
    }
    let levels = security_levels(&Countdown, &200_000).unwrap();
    assert_eq!(levels.len(), 200_001);
    assert_eq!(root_of(&levels, &200_000), [25, 75]);
    let outcomes = maxn_values(&Countdown, &200_000).unwrap();
    assert_eq!(root_of(&outcomes, &200_000), [25, 75]);
    assert_eq!(outcomes.get(&200_001), None);
}

#[test]
fn the_backward_algorithm_answers_like_alpha_beta_and_stops_at_its_state_limit() {
    use crate::{prove, AtLeast, Outcome, ValueOutcome};
    let game = TicTacToe;
    let root = game.initial_state();
    for role in 0..2 {
        let backward = solve_value(&game, &root, role, Algo::Backward, &Config::default()).unwrap();
        let alphabeta =
            solve_value(&game, &root, role, Algo::AlphaBeta, &Config::default()).unwrap();
        assert_eq!(backward.outcome, alphabeta.outcome);
        assert_eq!(backward.outcome, ValueOutcome::Exact(50));
        assert_eq!(backward.stats.nodes_expanded, 5478);
    }
    let win = AtLeast {
        role: 0,
        value: 100,
    };
    let draw = AtLeast { role: 0, value: 50 };
    let config = Config::default();
    assert_eq!(
        prove(&game, &root, &win, Algo::Backward, &config)
            .unwrap()
            .outcome,
        Outcome::Disproved
    );
    assert_eq!(
        prove(&game, &root, &draw, Algo::Backward, &config)
            .unwrap()
            .outcome,
        Outcome::Proved
    );
    // A node limit below the reachable set stops it, with the goal range as bounds.
    let mut small = Config::default();
    small.limits.max_nodes = Some(1000);
    let stopped = solve_value(&game, &root, 0, Algo::Backward, &small).unwrap();
    assert!(
        matches!(
            stopped.outcome,
            ValueOutcome::Stopped {
                lower: 0,
                upper: 100,
                ..
            }
        ),
        "{stopped:?}"
    );
}

#[test]
fn an_induction_stopped_by_a_limit_resumes_where_it_stopped() {
    use crate::{Induction, InductionError, InductionRule};
    use symgame_limits::{Guard, Limits, StopReason};
    let game = TicTacToe;
    let root = game.initial_state();
    let mut induction = Induction::new(&game, InductionRule::Security);
    let tight = Limits {
        max_states: Some(100),
        ..Limits::default()
    };
    let err = induction.value(&root, &Guard::new(&tight)).unwrap_err();
    assert_eq!(err, InductionError::Stopped(StopReason::StateLimit));
    let partial = induction.valued();
    assert!(partial > 0 && partial < 5478, "{partial}");
    let free = Limits::default();
    assert_eq!(
        induction.value(&root, &Guard::new(&free)).unwrap(),
        &[50, 50][..]
    );
    assert_eq!(induction.valued(), 5478);
    // Every state agrees with a fresh, unlimited run.
    let fresh = security_levels(&game, &root).unwrap();
    let resumed = induction.into_values();
    assert_eq!(resumed.len(), fresh.len());
    for (state, values) in fresh.iter() {
        assert_eq!(resumed.get(state), Some(values));
    }
}

#[test]
fn mixed_values_need_two_roles() {
    use crate::{Induction, InductionError, InductionRule};
    use symgame_limits::{Guard, Limits};
    let three = Table {
        roles: 3,
        nodes: vec![Node::Leaf(vec![50, 50, 0])],
    };
    let mut induction = Induction::new(&three, InductionRule::Mixed);
    let err = induction
        .value(&0, &Guard::new(&Limits::default()))
        .unwrap_err();
    assert_eq!(
        err,
        InductionError::Unsupported(Unsupported::Roles { count: 3 })
    );
}
