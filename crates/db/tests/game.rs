//! Databases of real games cross-checked against the explicit reasoner: every reachable state
//! (found by explicit breadth-first search) is in the database, in the layer of its BFS depth,
//! with the goal vector the reasoner computes; and unranking every rank gives back exactly the
//! reachable states.

mod support;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use symgame_bdd::{BddEngine, BiodivineEngine, EngineConfig, OxiddEngine};
use symgame_db::Database;
use symgame_explicit::Reasoner;
use symgame_symbolic::{reach, Encoding, Limits, SymbolicGame, SymbolicOptions};
use symgame_testkit::{load_game, ExplicitGraph};

/// Build the database of `name` with engine `E` (file tagged `tag`), check it against explicit
/// search, and return its path.
fn check_game<E: BddEngine>(name: &str, tag: &str) -> PathBuf {
    let game = load_game(name);
    let e = E::new(
        Encoding::new(&game, Default::default()).num_vars(),
        &EngineConfig::small(),
    )
    .unwrap();
    let enc = Encoding::new(&game, Default::default());
    let g = SymbolicGame::new(&e, &game, enc, &SymbolicOptions::default()).unwrap();
    let run = reach(&g, &Limits::default(), true, |_| {});
    assert_eq!(run.stats.stopped, None);

    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("db-game-tests");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}-{}-{tag}.db", E::BACKEND));
    let fingerprint = [E::BACKEND as u8; 32];
    let summary = support::write_goal_database(&g, &run.layers, &path, fingerprint).unwrap();
    let db = Database::open(&path, Some(&fingerprint)).unwrap();
    assert_eq!(summary.bytes, db.file_size() as u64);

    let r = Reasoner::new(&game);
    // Explicit BFS (terminal states not expanded): every reachable state with its depth.
    let states = ExplicitGraph::new(&r).depths();
    assert_eq!(db.len(), states.len() as u64, "{name}: states");
    let mut assignments = HashSet::new();
    for (s, &depth) in &states {
        let fluents: Vec<usize> = s.fluents().collect();
        let a = e.pick_minterm(&g.state(&fluents).unwrap()).unwrap();
        let hit = db
            .lookup(&a)
            .unwrap_or_else(|| panic!("{name}: state {fluents:?} not in the database"));
        assert_eq!(hit.layer_number, depth, "{name}: layer of {fluents:?}");
        assert_eq!(db.layers().nth(hit.layer).unwrap().number, hit.layer_number);
        let goals: Vec<u8> = (0..r.num_roles())
            .map(|role| r.goal(s, role).expect("goal defined in every state"))
            .collect();
        assert_eq!(hit.outcome.rewards, goals, "{name}: value of {fluents:?}");
        assert_eq!(db.lookup_in(hit.layer, &a), Some(hit));
        assignments.insert(a);
    }
    // Unranking every rank enumerates the reachable states exactly once.
    let mut seen = HashSet::new();
    for k in 0..db.len() {
        let (a, hit) = db.unrank_global(k).unwrap();
        assert_eq!(hit.global_rank, k);
        assert!(
            assignments.contains(&a),
            "{name}: rank {k} is not reachable"
        );
        assert!(seen.insert(a), "{name}: rank {k} repeats a state");
    }
    path
}

#[test]
fn nim_database_matches_explicit_search() {
    // Goals of nim are defined in every state too (the player to move at the end loses).
    check_game::<BiodivineEngine>("nim_3_4_5.kif", "check");
}

#[test]
fn tictactoe_databases_of_both_backends_match_explicit_search_and_agree() {
    let name = "tictactoe.kif";
    let a = Database::open(&check_game::<BiodivineEngine>(name, "agree"), None).unwrap();
    let b = Database::open(&check_game::<OxiddEngine>(name, "agree"), None).unwrap();
    assert_eq!(a.len(), b.len());
    assert_eq!(a.outcomes(), b.outcomes());
    for k in 0..a.len() {
        let (s, hit) = a.unrank_global(k).unwrap();
        let (t, hit2) = b.unrank_global(k).unwrap();
        // Ranks depend on the set, not on the engine's node numbering.
        assert_eq!(s, t);
        assert_eq!(hit.outcome_index, hit2.outcome_index);
    }
}
