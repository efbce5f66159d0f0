//! Explicit solvers on the bundled GDL games against the oracle values in `gdl/*.expect`.

use std::collections::BTreeMap;

use symgame_explicit::Reasoner;
use symgame_prove::{
    maxn_values, security_levels, solve_value, Algo, Config, Unsupported, ValueOutcome,
};
use symgame_testkit::{bound_from_env, expected_games, gdl_path, load, Expect};

fn value(r: &Reasoner, role: usize, algo: Algo) -> u8 {
    let v = solve_value(r, &r.initial_state(), role, algo, &Config::default()).expect("supported");
    match v.outcome {
        ValueOutcome::Exact(x) => x,
        other => panic!("no exact value: {other:?}"),
    }
}

#[test]
fn tictactoe_is_a_draw_by_every_algorithm() {
    let game = load(&gdl_path("tictactoe"));
    let r = Reasoner::new(&game);
    for algo in [Algo::Pn, Algo::Pn2, Algo::DfPn, Algo::AlphaBeta] {
        assert_eq!(value(&r, 0, algo), 50, "{algo}");
        assert_eq!(value(&r, 1, algo), 50, "{algo}");
    }
}

/// Every game of `gdl/` whose `.expect` gives `value ROLE V` lines and at most
/// `SYMGAME_PROVE_MAX` states (default 200,000): df-pn and alpha-beta find those values.
#[test]
fn bundled_games_have_their_oracle_values() {
    let max = bound_from_env("SYMGAME_PROVE_MAX", 200_000);
    let mut checked = 0;
    for (path, expect) in expected_games() {
        let states = expect.number("states").unwrap_or(u64::MAX);
        let values = expect.values();
        if values.is_empty() || states > max {
            continue;
        }
        let game = load(&path);
        let r = Reasoner::new(&game);
        for (role, want) in &values {
            let ri = game.find_role(role).expect("role of the .expect file");
            for algo in [Algo::DfPn, Algo::AlphaBeta] {
                assert_eq!(
                    value(&r, ri, algo),
                    *want,
                    "{} {role} {algo}",
                    path.display()
                );
            }
        }
        checked += 1;
    }
    assert!(checked >= 5, "only {checked} games checked");
}

/// The security levels a fixture gives for the initial state, by role name: its `security ROLE
/// V` lines, its `value ROLE V` lines (what a role can guarantee in a two-player game is its
/// security level) and, for a single-player game, `best V`.
fn expected_security_levels(expect: &Expect, roles: &[String]) -> Vec<(String, u8)> {
    let mut levels: Vec<(String, u8)> = expect
        .all("security")
        .map(|line| {
            let (role, value) = line.split_once(' ').expect("security ROLE V");
            (role.to_string(), value.trim().parse().expect("a reward"))
        })
        .collect();
    levels.extend(expect.values());
    if let (Some(best), [role]) = (expect.number("best"), roles) {
        levels.push((role.clone(), u8::try_from(best).expect("a reward")));
    }
    levels
}

/// An outcome written as in the fixtures: rewards in role order, `/`-separated.
fn outcome_text(rewards: &[u8]) -> String {
    rewards
        .iter()
        .map(u8::to_string)
        .collect::<Vec<_>>()
        .join("/")
}

/// Every game of `gdl/` with an `.expect` file and at most `SYMGAME_PROVE_MAX` states (default
/// 200,000), any number of roles: backward induction over the explicit reasoner reaches the
/// fixture's number of states and finds its security levels at the initial state; where no two
/// roles move at once, the max^n outcomes of `maxn_values` match `maxn_initial` and the
/// per-outcome state counts of the `outcome` lines (with one or two roles the preference rule
/// has no ties between distinct outcomes, and the fixtures with more roles are built so that
/// ties never matter, so these counts do not depend on move order). The simultaneous games are
/// refused by `maxn_values`, and their fixtures say so by giving a `mixed_value` instead.
#[test]
fn bundled_games_have_their_security_levels_and_maxn_outcomes() {
    let max = bound_from_env("SYMGAME_PROVE_MAX", 200_000);
    let mut checked = Vec::new();
    for (path, expect) in expected_games() {
        let Some(states) = expect.number("states").filter(|&n| n <= max) else {
            continue;
        };
        let name = path.display().to_string();
        let game = load(&path);
        let roles: Vec<String> = game.roles.iter().map(|r| r.name.to_string()).collect();
        let r = Reasoner::new(&game);
        let root = r.initial_state();
        let levels = security_levels(&r, &root).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(levels.len() as u64, states, "{name}: reachable states");
        let at_root = levels.get(&root).expect("the root is valued");
        let want = expected_security_levels(&expect, &roles);
        for (role, level) in &want {
            let i = game.find_role(role).expect("a role of the .expect file");
            assert_eq!(at_root[i], *level, "{name}: security level of {role}");
        }
        match maxn_values(&r, &root) {
            Ok(outcomes) => {
                assert_eq!(expect.get("mixed_value"), None, "{name}: turn-taking");
                let initial = outcomes.get(&root).expect("the root is valued");
                if let Some(want) = expect.get("maxn_initial") {
                    assert_eq!(outcome_text(initial), want, "{name}: maxn_initial");
                }
                let want: BTreeMap<String, u64> = expect
                    .outcomes()
                    .into_iter()
                    .map(|(o, n)| (outcome_text(&o), u64::try_from(n).expect("a count")))
                    .collect();
                if !want.is_empty() {
                    let mut got = BTreeMap::new();
                    for (_, rewards) in outcomes.iter() {
                        *got.entry(outcome_text(rewards)).or_insert(0) += 1;
                    }
                    assert_eq!(got, want, "{name}: states per max^n outcome");
                }
            }
            Err(Unsupported::Simultaneous { message }) => {
                // Mixed values are given for two roles (three_dials has three).
                assert!(
                    (roles.len() != 2 || expect.get("mixed_value").is_some())
                        && expect.get("maxn_initial").is_none(),
                    "{name}: simultaneous moves ({message}) in a game whose fixture does not \
                     say so"
                );
            }
            Err(e) => panic!("{name}: {e}"),
        }
        checked.push((
            path.file_stem()
                .expect("a file name")
                .to_string_lossy()
                .into_owned(),
            want.len(),
        ));
    }
    for must in [
        "nim3p",
        "ring4p",
        "penalty_kick",
        "tictactoe",
        "nim_1_2_3",
        "hanoi_3",
    ] {
        let levels = checked.iter().find(|(n, _)| n == must).map(|c| c.1);
        assert!(
            levels.is_some_and(|n| n > 0),
            "{must}: no security level checked: {checked:?}"
        );
    }
}

/// `prove --mixed` gives penalty_kick's value in mixed strategies and both optimal strategies:
/// each round is the 2x2 game (0, 50; 50, 25) for the kicker, whose value is 100/3 with
/// "left" played with probability (25 - 50) / (0 + 25 - 50 - 50) = 1/3 by both roles; two
/// rounds: 200/3. A three-role game is refused as input.
#[test]
fn prove_gives_mixed_values_and_optimal_mixed_strategies() {
    let path = gdl_path("penalty_kick");
    let p = path.to_str().unwrap();
    let (code, out, err) = crate::symgame(&["prove", p, "--algo", "backward", "--mixed"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("kicker     value 66.666666 in mixed strategies"),
        "{out}"
    );
    assert!(
        out.contains("kicker     optimal mixed strategy: (kick left) 0.3333, (kick right) 0.6667"),
        "{out}"
    );
    assert!(
        out.contains("keeper     optimal mixed strategy: (dive left) 0.3333, (dive right) 0.6667"),
        "{out}"
    );
    let nim = gdl_path("nim3p");
    let (code, _, err) = crate::symgame(&["prove", nim.to_str().unwrap(), "--mixed"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("mixed values"), "{err}");
}
