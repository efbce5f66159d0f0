//! Explicit solvers on the bundled GDL games against the oracle values in `gdl/*.expect`.

use symgame_explicit::Reasoner;
use symgame_prove::{solve_value, Algo, Config, ValueOutcome};
use symgame_testkit::{bound_from_env, expected_games, gdl_path, load};

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
