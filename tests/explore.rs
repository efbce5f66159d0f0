//! Explicit exploration against the expected figures in `gdl/*.expect`.

use crate::{corpus, ground_file, root};
use symgame_explicit::{explore, Limits, Reasoner};

/// The `layers`, `states` and `terminal` lines of an expectation file.
struct Expect {
    layers: Option<Vec<u64>>,
    states: Option<u64>,
    terminal: Option<u64>,
}

fn read_expect(path: &std::path::Path) -> Expect {
    let text = std::fs::read_to_string(path).expect("readable .expect file");
    let mut e = Expect {
        layers: None,
        states: None,
        terminal: None,
    };
    for line in text.lines() {
        let mut w = line.split_whitespace();
        let nums = |w: std::str::SplitWhitespace| -> Vec<u64> {
            w.map(|x| x.replace(',', "").parse().expect("a number"))
                .collect()
        };
        match w.next() {
            Some("layers") => e.layers = Some(nums(w)),
            Some("states") => e.states = nums(w).first().copied(),
            Some("terminal") => e.terminal = nums(w).first().copied(),
            _ => {}
        }
    }
    e
}

fn check_game(path: &std::path::Path, e: &Expect) {
    let game = ground_file(path);
    let r = Reasoner::new(&game);
    let x = explore(&r, &Limits::default(), |_| {});
    let name = path.display();
    if let Some(l) = &e.layers {
        let got: Vec<u64> = x.layers.iter().map(|l| l.states).collect();
        assert_eq!(&got, l, "{name}: layers");
    }
    if let Some(s) = e.states {
        assert_eq!(x.states, s, "{name}: states");
    }
    if let Some(t) = e.terminal {
        assert_eq!(x.terminal, t, "{name}: terminal states");
    }
}

const TICTACTOE: [u64; 10] = [1, 9, 72, 252, 756, 1260, 1520, 1140, 390, 78];

#[test]
fn tictactoe_has_5478_states() {
    let e = Expect {
        layers: Some(TICTACTOE.to_vec()),
        states: Some(5478),
        terminal: Some(958),
    };
    check_game(&root().join("gdl/tictactoe.kif"), &e);
    if let Some(c) = corpus() {
        check_game(&c.join("ticTacToe.kif"), &e);
    }
}

/// Every game of `gdl/` with an `.expect` file small enough for explicit search (at most
/// `SYMGAME_EXPLORE_MAX` states, default 200,000) explores to the expected counts.
#[test]
fn bundled_games_explore_to_their_expected_counts() {
    let max: u64 = std::env::var("SYMGAME_EXPLORE_MAX")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200_000);
    let mut checked = 0;
    for entry in std::fs::read_dir(root().join("gdl")).expect("gdl/ exists") {
        let path = entry.expect("entry").path();
        if path.extension().is_none_or(|e| e != "kif") {
            continue;
        }
        let exp = path.with_extension("expect");
        if !exp.exists() {
            continue;
        }
        let e = read_expect(&exp);
        if e.states.is_none_or(|s| s > max) {
            continue;
        }
        check_game(&path, &e);
        checked += 1;
    }
    assert!(checked >= 5, "only {checked} games checked");
}

#[test]
fn state_limit_stops_with_a_reason_and_keeps_finished_layers() {
    let game = ground_file(&root().join("gdl/tictactoe.kif"));
    let r = Reasoner::new(&game);
    let limits = Limits {
        max_states: Some(500),
        ..Default::default()
    };
    let x = explore(&r, &limits, |_| {});
    assert_eq!(x.stopped, Some(symgame_explicit::StopReason::StateLimit));
    let got: Vec<u64> = x.layers.iter().map(|l| l.states).collect();
    assert_eq!(got, TICTACTOE[..got.len()].to_vec());
    assert!(got.len() < TICTACTOE.len());
}
