//! Game databases (`symgame export`, `symgame query`, crate symgame-gamedb): every state of the
//! small games has in its database the value the solver gives it (`Solved::value_of`) and the
//! value an explicit minimax over the explicit reasoner gives it; ranks round-trip; damaged,
//! foreign and mismatched files are refused with the reader's error.

use std::path::{Path, PathBuf};

use symgame_bdd::{Backend, BddEngine, BiodivineEngine, EngineConfig};
use symgame_db::Database;
use symgame_explicit::Reasoner;
use symgame_gamedb::{export, ErrorKind, ExportOptions, Exported, GameDatabase, Layering};
use symgame_ground::{GroundGame, GroundTerm};
use symgame_symbolic::{
    solve, Encoding, GameKind, LayeredMode, Limits, SolveOptions, SymbolicGame, SymbolicOptions,
};
use symgame_testkit::{load_game as game, solved_in_memory, ExplicitGraph, Minimax};

use crate::symgame;

/// A fresh directory for one test's files.
fn dir(name: &str) -> PathBuf {
    symgame_testkit::scratch_dir!("export-tests", name)
}

fn options(name: &str) -> ExportOptions {
    ExportOptions {
        engine: EngineConfig::small(),
        game_name: format!("{name}.kif"),
        ..ExportOptions::default()
    }
}

/// Export `name` to `out` with `opts`; the file must have been written.
fn export_to(game: &GroundGame, out: &Path, opts: &ExportOptions) -> Exported {
    let done = export(game, out, opts, |_| {}).unwrap();
    assert_eq!(done.stopped(), None);
    let w = done.written.as_ref().expect("a file");
    assert_eq!(std::fs::metadata(out).unwrap().len(), w.bytes);
    done
}

/// The fixture game `name`, exported with the default options to `NAME.db` in a fresh
/// directory for the test `test`: the game and the file.
fn exported(name: &str, test: &str) -> (GroundGame, PathBuf) {
    let g = game(name);
    let out = dir(test).join(format!("{name}.db"));
    export_to(&g, &out, &options(name));
    (g, out)
}

/// Export `name` (as one layer when `whole_set`), then check every reachable state's database
/// value against the solver and an explicit minimax, the optimal-move flags against the
/// minimax, and every rank's round trip.
fn check_game(name: &str, whole_set: bool) {
    let g = game(name);
    let d = dir(&format!("all-states-{name}-{whole_set}"));
    let out = d.join(format!("{name}.db"));
    let opts = ExportOptions {
        whole_set,
        ..options(name)
    };
    let done = export_to(&g, &out, &opts);
    let layered = done.solve.layered && !whole_set;
    assert_eq!(done.layers.len() > 1, layered, "{name}");

    // The solver's own answer, in memory.
    let enc = Encoding::with_options(&g, &SymbolicOptions::default());
    let engine = BiodivineEngine::new(enc.num_vars(), &EngineConfig::small()).unwrap();
    let sg = SymbolicGame::new(&engine, &g, enc, &SymbolicOptions::default()).unwrap();
    let solved = solved_in_memory(&sg);
    assert_eq!(solved.stats.kind, done.solve.kind, "{name}");

    let r = Reasoner::new(&g);
    let mut mm = Minimax::new(&r);
    mm.value(&r.initial_state());
    let mm = mm.values();
    let depth = ExplicitGraph::new(&r).depths();
    assert_eq!(depth.len(), mm.len(), "{name}: reachable states");

    let db = GameDatabase::open(&out, g.clone(), &Default::default()).unwrap();
    let single = db.metadata().kind == GameKind::SinglePlayer;
    let want = if layered {
        Layering::BfsDepth
    } else {
        Layering::WholeSet
    };
    assert_eq!(db.metadata().layers, want, "{name}");
    assert_eq!(db.database().len(), mm.len() as u64, "{name}: states");
    assert_eq!(db.metadata().roles, solved.stats.roles);
    for (s, (rewards, dist)) in mm {
        let fl: Vec<usize> = s.fluents().collect();
        let v = db.value(s).unwrap();
        assert_eq!(&v.rewards, rewards, "{name}: {fl:?} database vs minimax");
        let (o, sd) = solved.value_of(&sg, &fl).unwrap().expect("solved");
        assert_eq!(
            v.rewards, solved.stats.outcomes[o],
            "{name}: {fl:?} vs solver"
        );
        assert_eq!(v.distance, sd, "{name}: {fl:?} distance vs solver");
        if single {
            assert_eq!(
                v.distance,
                Some(*dist),
                "{name}: {fl:?} distance vs minimax"
            );
        }
        if db.metadata().layers == Layering::BfsDepth {
            assert_eq!(v.layer, depth[s], "{name}: {fl:?} layer");
        }
        // Ranks round-trip, within the layer and over the file.
        assert_eq!(&db.unrank(v.rank, Some(v.layer)).unwrap(), s, "{name}");
        assert_eq!(&db.unrank(v.global_rank, None).unwrap(), s, "{name}");
        // A move is optimal exactly when the minimax value of its successor is the state's.
        let ans = db.answer(s).unwrap();
        assert_eq!(ans.terminal, r.is_terminal(s));
        for succ in &ans.successors {
            let (sr, sdist) = &mm[&succ.state];
            let keeps = sr == rewards && (!single || *sdist + 1 == *dist);
            assert_eq!(succ.optimal, keeps, "{name}: {fl:?} move {:?}", succ.joint);
        }
        assert_eq!(ans.optimal().next().is_some(), !ans.terminal, "{name}");
    }
    // Every rank is a reachable state, and they are all different.
    let mut seen = std::collections::HashSet::new();
    for k in 0..db.database().len() {
        let s = db.unrank(k, None).unwrap();
        assert!(mm.contains_key(&s), "{name}: rank {k} is not reachable");
        assert!(seen.insert(s), "{name}: rank {k} repeats a state");
    }
    assert_eq!(
        db.unrank(db.database().len(), None).unwrap_err().kind(),
        &ErrorKind::RankOutOfRange
    );
}

#[test]
fn every_state_of_the_small_games_has_its_solved_value() {
    for name in [
        "tictactoe",
        "nim_1_2_3",
        "chomp_4x3",
        "hanoi_3",
        "climb_rewards",
        "prisoners_2p",
    ] {
        check_game(name, false);
    }
    // The layered games also as one layer for the whole set.
    check_game("tictactoe", true);
    check_game("prisoners_2p", true);
}

/// Following optimal moves from the initial state ends in a terminal state with the initial
/// state's value, after exactly its distance in single-player games.
#[test]
fn optimal_play_reaches_the_initial_value() {
    for (name, layered) in [
        ("hanoi_3", Layering::WholeSet),
        ("tictactoe", Layering::BfsDepth),
    ] {
        let (g, out) = exported(name, &format!("optimal-{name}"));
        let db = GameDatabase::open(&out, g, &Default::default()).unwrap();
        assert_eq!(db.metadata().layers, layered);
        let mut s = db.play(&[]).unwrap();
        let start = db.value(&s).unwrap();
        let mut moves = 0;
        loop {
            let ans = db.answer(&s).unwrap();
            assert_eq!(ans.value.rewards, start.rewards, "{name}");
            if ans.terminal {
                break;
            }
            // The last optimal move, so that the path differs from the reasoner's first choice.
            s = ans.optimal().last().unwrap().state.clone();
            moves += 1;
        }
        if let Some(d) = start.distance {
            assert_eq!(moves, d, "{name}");
        }
    }
}

/// Exporting a solution directory gives the same file as solving in place, on either engine.
#[test]
fn solution_directories_and_engines_give_the_same_file() {
    let (g, direct) = exported("tictactoe", "solution-dir");
    let d = direct.parent().unwrap().to_path_buf();

    let sol = d.join("solution");
    let enc = Encoding::with_options(&g, &SymbolicOptions::default());
    let solve_opts = SolveOptions {
        out_dir: Some(sol.clone()),
        fingerprint: symgame_symbolic::fingerprint(&g, &enc),
        ..SolveOptions::default()
    };
    let e = BiodivineEngine::new(enc.num_vars(), &EngineConfig::small()).unwrap();
    let sg = SymbolicGame::new(&e, &g, enc, &SymbolicOptions::default()).unwrap();
    assert_eq!(solve(&sg, &solve_opts, |_| {}).unwrap().stats.stopped, None);
    let from_dir = d.join("from-dir.db");
    let opts = ExportOptions {
        solution: Some(sol.clone()),
        ..options("tictactoe")
    };
    let done = export_to(&g, &from_dir, &opts);
    assert_eq!(done.solve_seconds, None);
    assert_eq!(
        std::fs::read(&direct).unwrap(),
        std::fs::read(&from_dir).unwrap()
    );

    // F11: an interrupt in the write phase (here: before its first layer) is a stop, and no
    // database is written.
    let cancelled = d.join("cancelled.db");
    let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let opts = ExportOptions {
        solution: Some(sol.clone()),
        limits: Limits {
            cancel: Some(flag),
            ..Limits::default()
        },
        ..options("tictactoe")
    };
    let err = export(&g, &cancelled, &opts, |_| {}).unwrap_err();
    assert_eq!(*err.kind(), ErrorKind::SetupStopped, "{err}");
    assert!(
        err.to_string().contains("interrupted while writing"),
        "{err}"
    );
    assert!(!cancelled.exists());

    // Ranks and values depend on the state sets, not on the engine's node numbering.
    let oxidd = d.join("oxidd.db");
    let opts = ExportOptions {
        backend: Backend::Oxidd,
        ..options("tictactoe")
    };
    export_to(&g, &oxidd, &opts);
    let a = Database::open(&direct, None).unwrap();
    let b = Database::open(&oxidd, None).unwrap();
    assert_eq!(a.len(), b.len());
    assert_eq!(a.outcomes(), b.outcomes());
    for k in 0..a.len() {
        let (s, x) = a.unrank_global(k).unwrap();
        let (t, y) = b.unrank_global(k).unwrap();
        assert_eq!((s, x.outcome_index), (t, y.outcome_index), "rank {k}");
    }

    // A solution of another game, and an incomplete one, are refused.
    let nim = game("nim_1_2_3");
    let err = refused_export(&nim, &d.join("nim.db"), &sol, "nim_1_2_3");
    assert_eq!(err.kind(), &ErrorKind::Solution);
    assert!(err.message().contains("another game"), "{err}");
    let partial = d.join("partial");
    let stopped = SolveOptions {
        out_dir: Some(partial.clone()),
        fingerprint: symgame_symbolic::fingerprint(&g, sg.encoding()),
        limits: Limits {
            max_nodes: Some(1),
            ..Limits::default()
        },
        layered: LayeredMode::Auto,
        ..SolveOptions::default()
    };
    assert!(solve(&sg, &stopped, |_| {})
        .unwrap()
        .stats
        .stopped
        .is_some());
    let err = refused_export(&g, &d.join("p.db"), &partial, "tictactoe");
    assert_eq!(err.kind(), &ErrorKind::Solution);
    assert!(err.message().contains("incomplete"), "{err}");
    assert!(!d.join("nim.db").exists() && !d.join("p.db").exists());
}

/// Exports `game` (named `name`) from the solution directory `solution` to `out`, which must
/// be refused; returns the error.
fn refused_export(
    game: &GroundGame,
    out: &Path,
    solution: &Path,
    name: &str,
) -> symgame_gamedb::Error {
    let opts = ExportOptions {
        solution: Some(solution.to_path_buf()),
        ..options(name)
    };
    export(game, out, &opts, |_| {}).expect_err("a refused solution")
}

/// A limit stops the solver: no file, and the stop reason is reported.
#[test]
fn a_limit_writes_no_file() {
    let g = game("tictactoe");
    let out = dir("limit").join("tt.db");
    let opts = ExportOptions {
        limits: Limits {
            max_nodes: Some(5),
            ..Limits::default()
        },
        ..options("tictactoe")
    };
    let done = export(&g, &out, &opts, |_| {}).unwrap();
    assert_eq!(
        done.stopped(),
        Some(symgame_symbolic::StopReason::NodeLimit)
    );
    assert!(done.written.is_none());
    assert!(!out.exists());
    // The working directory beside the file is gone too.
    assert_eq!(std::fs::read_dir(out.parent().unwrap()).unwrap().count(), 0);
    // An output directory that does not exist is an error, and is not created.
    let missing = out.parent().unwrap().join("missing");
    let err = export(&g, &missing.join("tt.db"), &options("tictactoe"), |_| {}).unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::Io, "{err}");
    assert!(!missing.exists());
}

/// Every truncation of a real database is reported as truncated, every single-bit flip as an
/// error (never a wrong answer), through the game-level API and the reader.
#[test]
fn truncated_and_bit_flipped_databases_are_refused() {
    let (g, out) = exported("nim_1_2_3", "damaged");
    let d = out.parent().unwrap().to_path_buf();
    let bytes = std::fs::read(&out).unwrap();
    let fp =
        symgame_gamedb::fingerprint(&g, &Encoding::with_options(&g, &SymbolicOptions::default()));
    assert!(Database::from_bytes(bytes.clone(), Some(&fp)).is_ok());
    for len in 0..bytes.len() {
        let err = Database::from_bytes(bytes[..len].to_vec(), Some(&fp))
            .err()
            .unwrap_or_else(|| panic!("truncated to {len} bytes and accepted"));
        assert_eq!(
            err.kind(),
            &symgame_db::ErrorKind::Truncated,
            "length {len}: {err}"
        );
    }
    let damaged = d.join("damaged.db");
    for len in [0, 5, 80, bytes.len() / 2, bytes.len() - 1] {
        std::fs::write(&damaged, &bytes[..len]).unwrap();
        let err = GameDatabase::open(&damaged, g.clone(), &Default::default())
            .err()
            .unwrap_or_else(|| panic!("truncated to {len} bytes and accepted"));
        assert_eq!(
            err.kind(),
            &ErrorKind::Database(symgame_db::ErrorKind::Truncated),
            "length {len}: {err}"
        );
    }
    for at in 0..bytes.len() {
        for bit in 0..8 {
            let mut b = bytes.clone();
            b[at] ^= 1 << bit;
            assert!(
                Database::from_bytes(b, Some(&fp)).is_err(),
                "flip at byte {at} bit {bit} accepted"
            );
        }
    }
    // Through the file API, a flip in a layer is a checksum mismatch naming the layer.
    let mut b = bytes.clone();
    let at = bytes.len() - 200;
    b[at] ^= 0x10;
    std::fs::write(&damaged, &b).unwrap();
    let err = GameDatabase::open(&damaged, g, &Default::default())
        .err()
        .unwrap();
    assert!(
        matches!(
            err.kind(),
            ErrorKind::Database(symgame_db::ErrorKind::ChecksumMismatch { .. })
        ),
        "{err}"
    );
}

/// Bad fluents, illegal moves and states outside the database get their own error kinds.
#[test]
fn bad_states_and_moves_are_named() {
    let (g, out) = exported("tictactoe", "bad-input");
    let db = GameDatabase::open(&out, g, &Default::default()).unwrap();
    let terms = |t: &str| GroundTerm::parse_sequence(t).unwrap();
    let err = db
        .state_of(&terms("(cell 1 1 x) (cell 4 4 x)"))
        .unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::UnknownFluent);
    assert!(err.message().contains("(cell 4 4 x)"), "{err}");
    let err = db.play(&terms("(mark 2 2) (mark 2 2)")).unwrap_err();
    assert_eq!(err.kind(), &ErrorKind::IllegalMove);
    let lonely = db.state_of(&terms("(control xplayer)")).unwrap();
    assert_eq!(
        db.value(&lonely).unwrap_err().kind(),
        &ErrorKind::NotInDatabase
    );
    assert_eq!(
        db.unrank(0, Some(10)).unwrap_err().kind(),
        &ErrorKind::NoSuchLayer
    );
    assert_eq!(
        db.unrank(1, Some(0)).unwrap_err().kind(),
        &ErrorKind::RankOutOfRange
    );
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

#[test]
fn cli_export_and_query_round_trip_ranks() {
    let d = dir("cli");
    let db = d.join("tt.db");
    let db = db.to_str().unwrap();
    let (code, out, err) = symgame(&["export", "gdl/tictactoe.kif", "--out", db, "--json"]);
    assert_eq!(code, 0, "{err}");
    let r = json(&out);
    assert_eq!(r["states"], 5478);
    assert_eq!(r["bits_per_value"], 2);
    assert_eq!(r["layers"].as_array().unwrap().len(), 10);
    assert_eq!(r["bytes"], std::fs::metadata(db).unwrap().len());

    let q = |extra: &[&str]| {
        let mut args = vec!["query", db, "--game", "gdl/tictactoe.kif", "--json"];
        args.extend_from_slice(extra);
        let (code, out, err) = symgame(&args);
        assert_eq!(code, 0, "{extra:?}: {err}");
        json(&out)
    };
    // Global rank -> state -> the same global rank; the layer's rank -> the same state.
    for rank in ["0", "1000", "5477"] {
        let a = q(&["--rank", rank]);
        let state: Vec<&str> = a["state"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f.as_str().unwrap())
            .collect();
        let b = q(&["--state", &state.join(" ")]);
        assert_eq!(b["global_rank"].to_string(), rank);
        let (layer, in_layer) = (a["layer"].to_string(), a["rank"].to_string());
        let c = q(&["--rank", &in_layer, "--layer", &layer]);
        assert_eq!(c["state"], a["state"]);
    }
    // x in the centre, o on an edge: x wins, and the edge replies are not all optimal.
    let a = q(&["--moves", "(mark 2 2) (mark 1 2)"]);
    assert_eq!(a["rewards"][0]["reward"], 100);
    assert_eq!(a["to_move"], "xplayer");
    assert_eq!(a["layer"], 2);
    let optimal = a["optimal"].as_array().unwrap().len();
    assert!(optimal >= 1 && optimal < a["moves"].as_array().unwrap().len());
    let (code, out, _) = symgame(&["query", db, "--game", "gdl/tictactoe.kif", "--moves", ""]);
    assert_eq!(code, 0);
    assert!(out.contains("xplayer 50, oplayer 50"), "{out}");
}

#[test]
fn cli_refuses_foreign_truncated_and_mismatched_files() {
    let d = dir("cli-errors");
    let db = d.join("tt.db");
    let (code, _, err) = symgame(&["export", "gdl/tictactoe.kif", "--out", db.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let query = |file: &str, game: &str, extra: &[&str]| {
        let mut args = vec!["query", file, "--game", game];
        args.extend_from_slice(extra);
        symgame(&args)
    };
    let tt = "gdl/tictactoe.kif";
    // A GDL file is not a database.
    let (code, _, err) = query(tt, tt, &["--rank", "0"]);
    assert_eq!(code, 2);
    assert!(err.contains("not a symgame database"), "{err}");
    // Truncated.
    let bytes = std::fs::read(&db).unwrap();
    let short = d.join("short.db");
    std::fs::write(&short, &bytes[..bytes.len() / 2]).unwrap();
    let (code, _, err) = query(short.to_str().unwrap(), tt, &["--rank", "0"]);
    assert_eq!(code, 2);
    assert!(err.contains("truncated"), "{err}");
    // One flipped bit.
    let mut flipped = bytes.clone();
    flipped[bytes.len() / 2] ^= 4;
    let bad = d.join("flipped.db");
    std::fs::write(&bad, &flipped).unwrap();
    let (code, _, err) = query(bad.to_str().unwrap(), tt, &["--rank", "0"]);
    assert_eq!(code, 2);
    assert!(err.contains("checksum mismatch"), "{err}");
    // Made for tic-tac-toe, queried with Nim.
    let (code, _, err) = query(db.to_str().unwrap(), "gdl/nim_1_2_3.kif", &["--rank", "0"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("fingerprint mismatch") && err.contains("made for tictactoe.kif"),
        "{err}"
    );
    // Bad fluents, illegal moves, ranks out of range.
    let db = db.to_str().unwrap();
    for (args, want) in [
        (&["--state", "(cell 1 1 q)"][..], "not a fluent"),
        (&["--moves", "(mark 2 2) (mark 2 2)"][..], "move 2"),
        (&["--rank", "5478"][..], "out of range"),
        (&["--rank", "0", "--layer", "99"][..], "no layer 99"),
    ] {
        let (code, _, err) = query(db, tt, args);
        assert_eq!(code, 2, "{args:?}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
}

#[test]
fn cli_export_limits_exit_3_without_a_file() {
    let d = dir("cli-limit");
    let db = d.join("tt.db");
    let (code, _, err) = symgame(&[
        "export",
        "gdl/tictactoe.kif",
        "--out",
        db.to_str().unwrap(),
        "--node-limit",
        "5",
    ]);
    assert_eq!(code, 3, "{err}");
    assert!(
        err.contains("node limit") && err.contains("no database"),
        "{err}"
    );
    assert!(!db.exists());
    assert_eq!(std::fs::read_dir(&d).unwrap().count(), 0);
}

/// The new value kinds in databases: max^n (nim3p) and mixed values (penalty_kick), every
/// state's database value equal to the explicit induction's, and `query` printing the mixed
/// value, its pure bounds and both roles' optimal mixed strategies.
#[test]
fn databases_hold_max_n_outcomes_and_mixed_values() {
    use symgame_limits::{Guard, Limits};
    use symgame_prove::{Induction, InductionRule};
    let mut files = Vec::new();
    for (name, rule) in [
        ("nim3p", InductionRule::MaxN),
        ("penalty_kick", InductionRule::Mixed),
    ] {
        let (g, out) = exported(name, &format!("kinds-{name}"));
        files.push(out.clone());
        let db = GameDatabase::open(&out, g.clone(), &SymbolicOptions::default()).unwrap();
        let r = Reasoner::new(&g);
        let mut explicit = Induction::new(&r, rule);
        explicit
            .value(&r.initial_state(), &Guard::new(&Limits::default()))
            .unwrap();
        let states = ExplicitGraph::new(&r).states;
        assert_eq!(db.database().len(), states.len() as u64, "{name}");
        for s in &states {
            let v = db.value(s).unwrap();
            assert_eq!(Some(v.rewards.as_slice()), explicit.get(s), "{name}: {s:?}");
            match explicit.mixed(s) {
                Some(m) => {
                    let got = v.mixed.expect("a mixed value");
                    assert!((got[0] - m).abs() < 1e-6, "{name}: {got:?} vs {m}");
                }
                None => assert_eq!(v.mixed, None, "{name}"),
            }
        }
    }
    // Metadata version 2 (before mixed values) is still read; an older one is refused.
    let db = GameDatabase::open(&files[0], game("nim3p"), &SymbolicOptions::default()).unwrap();
    let mut json: serde_json::Value = serde_json::from_slice(&db.metadata().to_bytes()).unwrap();
    json["version"] = 2.into();
    let v2 = symgame_gamedb::Metadata::from_bytes(json.to_string().as_bytes()).unwrap();
    assert_eq!(v2.kind, GameKind::MaxN);
    json["version"] = 1.into();
    let err = symgame_gamedb::Metadata::from_bytes(json.to_string().as_bytes()).unwrap_err();
    assert!(err.to_string().contains("versions 2 to 3"), "{err}");
    let out = &files[1];
    let (code, text, err) = symgame(&[
        "query",
        "--game",
        "gdl/penalty_kick.kif",
        "--moves",
        "",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    for line in [
        "value     kicker 66.67, keeper 33.33 in mixed strategies (pure security levels: kicker 50, keeper 0)",
        "strategy  kicker: (kick left) 0.333, (kick right) 0.667",
        "strategy  keeper: (dive left) 0.333, (dive right) 0.667",
    ] {
        assert!(text.contains(line), "{text}");
    }
}
