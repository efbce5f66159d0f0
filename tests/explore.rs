//! Explicit exploration against the expected figures in `gdl/*.expect`.

use symgame_explicit::{explore, Limits, Reasoner};
use symgame_testkit::{bound_from_env, corpus_game, expected_games, gdl_path, load, Expect};

/// The `layers`, `states` and `terminal` lines of an expectation file.
struct Figures {
    layers: Option<Vec<u64>>,
    states: Option<u64>,
    terminal: Option<u64>,
}

impl Figures {
    fn of(e: &Expect) -> Figures {
        Figures {
            layers: e.numbers("layers"),
            states: e.number("states"),
            terminal: e.number("terminal"),
        }
    }
}

fn check_game(path: &std::path::Path, e: &Figures) {
    let game = load(path);
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

fn tictactoe_figures() -> Figures {
    Figures {
        layers: Some(TICTACTOE.to_vec()),
        states: Some(5478),
        terminal: Some(958),
    }
}

#[test]
fn tictactoe_has_5478_states() {
    check_game(&gdl_path("tictactoe"), &tictactoe_figures());
}

#[test]
#[ignore = "corpus: needs the GGP corpus at ../shared/gdl-corpus"]
fn corpus_tictactoe_has_5478_states() {
    check_game(&corpus_game("ticTacToe.kif"), &tictactoe_figures());
}

/// Every game of `gdl/` with an `.expect` file small enough for explicit search (at most
/// `SYMGAME_EXPLORE_MAX` states, default 200,000) explores to the expected counts.
#[test]
fn bundled_games_explore_to_their_expected_counts() {
    let max = bound_from_env("SYMGAME_EXPLORE_MAX", 200_000);
    let mut checked = 0;
    for (path, expect) in expected_games() {
        let e = Figures::of(&expect);
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
    let game = load(&gdl_path("tictactoe"));
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
