//! Explicit solvers on the bundled GDL games against the oracle values in `gdl/*.expect`.

use crate::{ground_file, root};
use symgame_explicit::Reasoner;
use symgame_prove::{solve_value, Algo, Config, ValueOutcome};

fn value(r: &Reasoner, role: usize, algo: Algo) -> u8 {
    let v = solve_value(r, &r.initial_state(), role, algo, &Config::default()).expect("supported");
    match v.outcome {
        ValueOutcome::Exact(x) => x,
        other => panic!("no exact value: {other:?}"),
    }
}

#[test]
fn tictactoe_is_a_draw_by_every_algorithm() {
    let game = ground_file(&root().join("gdl/tictactoe.kif"));
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
    let max: u64 = std::env::var("SYMGAME_PROVE_MAX")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200_000);
    let mut checked = 0;
    for entry in std::fs::read_dir(root().join("gdl")).expect("gdl/ exists") {
        let exp = entry.expect("entry").path();
        if exp.extension().is_none_or(|e| e != "expect") {
            continue;
        }
        let text = std::fs::read_to_string(&exp).expect("readable");
        let states: u64 = text
            .lines()
            .find_map(|l| l.strip_prefix("states "))
            .and_then(|s| s.trim().replace(',', "").parse().ok())
            .unwrap_or(u64::MAX);
        let values: Vec<(String, u8)> = text
            .lines()
            .filter_map(|l| l.strip_prefix("value "))
            .filter_map(|l| {
                let mut w = l.split_whitespace();
                Some((w.next()?.to_string(), w.next()?.parse().ok()?))
            })
            .collect();
        if values.is_empty() || states > max {
            continue;
        }
        let game = ground_file(&exp.with_extension("kif"));
        let r = Reasoner::new(&game);
        for (role, want) in &values {
            let ri = game.find_role(role).expect("role of the .expect file");
            for algo in [Algo::DfPn, Algo::AlphaBeta] {
                assert_eq!(
                    value(&r, ri, algo),
                    *want,
                    "{} {role} {algo}",
                    exp.display()
                );
            }
        }
        checked += 1;
    }
    assert!(checked >= 5, "only {checked} games checked");
}
