//! The lengths the engine gives (moves to the end under perfect play) against a brute-force
//! check that reads only the rules: in a won position of length `d`, the winner can force its
//! win within `d` moves and not within `d - 1` (the loser can hold out that long).

use std::collections::HashMap;
use std::path::Path;

use symgame_explicit::{Reachable, Reasoner, State};
use symgame_gamedb::{export, ExportOptions, GameDatabase};
use symgame_player::depth::Depths;
use symgame_player::{deadline_in, Engine};

/// Whether `winner` can force a terminal state where its reward is above every other role's
/// within `k` moves from `s` (the other role choosing freely).
struct Forcing<'a> {
    r: &'a Reasoner,
    winner: usize,
    memo: HashMap<(State, u32), bool>,
}

impl Forcing<'_> {
    fn wins_within(&mut self, s: &State, k: u32) -> bool {
        if self.r.is_terminal(s) {
            let mine = self.r.goal(s, self.winner).unwrap_or(0);
            return (0..self.r.num_roles())
                .filter(|&p| p != self.winner)
                .all(|p| self.r.goal(s, p).unwrap_or(0) < mine);
        }
        if k == 0 {
            return false;
        }
        if let Some(&b) = self.memo.get(&(s.clone(), k)) {
            return b;
        }
        let chooses = self.r.legal_moves(s, self.winner).len() > 1;
        let mut next = self.r.successors(s).into_iter();
        let b = if chooses {
            next.any(|n| self.wins_within(&n, k - 1))
        } else {
            next.all(|n| self.wins_within(&n, k - 1))
        };
        self.memo.insert((s.clone(), k), b);
        b
    }
}

fn database(name: &str) -> GameDatabase {
    let game = symgame_testkit::load_game(name);
    let dir = symgame_testkit::scratch_dir!("player-depth", name);
    let out = dir.join(format!("{name}.db"));
    let opts = ExportOptions {
        game_name: name.to_string(),
        ..Default::default()
    };
    export(&game, &out, &opts, |_| {}).expect("exports");
    GameDatabase::open(Path::new(&out), game, &Default::default()).expect("opens")
}

/// Checks every state reachable from the start, at most `limit` of them.
fn check(name: &str, limit: usize) -> usize {
    let db = database(name);
    let r = db.reasoner();
    let mut depths = Depths::default();
    let mut won = 0;
    for s in Reachable::new(r).take(limit) {
        let v = db.value(&s).expect("a reachable state is in the database");
        let d = depths.depth(
            &db,
            &s,
            &v,
            deadline_in(std::time::Duration::from_secs(600)),
        );
        let best = *v.rewards.iter().max().unwrap();
        let winners: Vec<usize> = (0..v.rewards.len())
            .filter(|&p| v.rewards[p] == best)
            .collect();
        if let [w] = winners[..] {
            won += 1;
            let d = d.expect("a won position has a length");
            let mut f = Forcing {
                r,
                winner: w,
                memo: HashMap::new(),
            };
            assert!(f.wins_within(&s, d), "{name}: not won within {d}: {s:?}");
            assert!(
                d == 0 || !f.wins_within(&s, d - 1),
                "{name}: won within {}: {s:?}",
                d - 1
            );
            assert_eq!(d == 0, r.is_terminal(&s));
        } else {
            assert_eq!(d, None, "{name}: a draw has no length");
        }
    }
    won
}

#[test]
fn tictactoe_lengths_are_the_shortest_forced_wins() {
    // Every reachable state; 4,410 of the 5,478 are won by one side (outcome counts of
    // gdl/tictactoe.expect: 2,936 + 1,474).
    assert_eq!(check("tictactoe", usize::MAX), 2936 + 1474);
}

#[test]
fn connect_four_4x4_lengths_are_the_shortest_forced_wins() {
    // The first 3,000 states breadth first (the forcing check is exponential in the length).
    assert!(check("connect4_4x4", 3_000) > 0);
}

#[test]
fn the_engine_wins_fastest_and_loses_slowest() {
    // From a lost position of Connect Four 4x4, the engine on both sides plays exactly the
    // length the table gives (13 moves, see tests/play.rs).
    let db = database("connect4_4x4");
    let mut engine = Engine::with_table(db);
    let r_moves = "(drop 1) (drop 2) (drop 2)";
    let moves = symgame_ground::GroundTerm::parse_sequence(r_moves).unwrap();
    let mut s = symgame_explicit::play_moves(
        engine.reasoner(),
        engine.game(),
        &engine.reasoner().initial_state(),
        &moves,
    )
    .unwrap();
    let far = deadline_in(std::time::Duration::from_secs(600));
    let a = engine.analyse(&s, far).unwrap();
    let d = a.value.as_ref().and_then(|v| v.depth).expect("a length");
    let mut plies = 0;
    while !engine.reasoner().is_terminal(&s) {
        let joint = engine.choose_joint(&s, far).unwrap();
        s = engine.reasoner().next_state(&s, &joint);
        plies += 1;
    }
    assert_eq!(plies, d);
    assert_eq!(engine.reasoner().goal(&s, 1), Some(100));
}
