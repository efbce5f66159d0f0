//! The command line on games of the public GGP corpus (`../shared/gdl-corpus`): ignored by
//! default, since the corpus may be missing; `cargo test --release -- --ignored corpus` runs
//! them (CI does, when the corpus is there), and without the corpus they fail, saying so.

use std::path::Path;

use symgame_testkit::{corpus_game, root};

/// A reader that closes the pipe early ends symgame quietly (no panic on a broken pipe).
#[test]
#[ignore = "corpus: needs the GGP corpus at ../shared/gdl-corpus"]
fn a_closed_pipe_ends_the_output_quietly() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    // Megabytes of output (173,962 moves listed), far beyond a pipe's buffer.
    let game = corpus_game("amazons.kif");
    let mut child = Command::new(env!("CARGO_BIN_EXE_symgame"))
        .args(["info", "--list", game.to_str().unwrap()])
        .current_dir(root())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    // The read end is closed here, before the table is complete.
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(
        out.status.signal(),
        Some(13),
        "ended by SIGPIPE: {:?}",
        out.status
    );
}

/// `--time-limit` covers the set-up too: checkersTorus spends seconds in the mutex proof and in
/// compiling its move-independent conditions (many operations, none of them endless), and must
/// stop with the limit's exit code between two operations, not run on until killed. (Until
/// 2026-11-24 this test used 3pffa, whose set-up now ends within a second at the joint-move
/// limit.) breakthroughHoles' `solve` with no explicit prefix: until 2026-11-28, the check of
/// which terminal parts a cluster can make true took the image of almost every state, one
/// operation that ran on for minutes past a 3-s limit. cubicup's `reach`: its images taken one
/// role at a time ORed each role's move relations over all states, one OR that ran on past a
/// 10-s limit (until 2026-11-28; they are now built within the layer).
#[test]
#[ignore = "corpus: needs the GGP corpus at ../shared/gdl-corpus"]
fn a_time_limit_stops_the_set_up_too() {
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    let cases: [(&str, &str, &[&str]); 4] = [
        ("checkersTorus.kif", "reach", &["--time-limit", "1"]),
        ("cubicup.kif", "reach", &["--time-limit", "10"]),
        ("checkersTorus.kif", "solve", &["--time-limit", "1"]),
        (
            "breakthroughHoles.kif",
            "solve",
            &["--explicit-states", "0", "--time-limit", "10"],
        ),
    ];
    for (name, cmd, flags) in cases {
        let game = corpus_game(name);
        let mut child = Command::new(env!("CARGO_BIN_EXE_symgame"))
            .arg(cmd)
            .args(flags)
            .arg(&game)
            .current_dir(root())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // A generous bound against a hang (without the set-up limit it runs for minutes).
        let started = Instant::now();
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s;
            }
            if started.elapsed() > Duration::from_secs(120) {
                child.kill().unwrap();
                panic!("{name} {cmd} {flags:?} still runs after 120 s");
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(status.code(), Some(3), "{name} {cmd}: {err}");
        assert!(err.contains("time limit"), "{name} {cmd}: {err}");
        // Stopped between operations, not by the watchdog.
        assert!(
            !err.contains("inside one BDD operation"),
            "{name} {cmd}: {err}"
        );
    }
}

/// When one BDD operation outlasts `--time-limit`, it is stopped from inside at the limit
/// (oxidd's stop check, armed around the set-up's compilation): exit code 3 and the reason,
/// not the watchdog, which ended such a run a grace period later (5.03 s against 10.01 s
/// here). hexPie's `solve` (with no explicit prefix, which would give it a fallback): one of
/// the gates of its per-joint-move relations is a single operation of the main engine that
/// runs for more than a minute. (`reach` of hex and zhadu, the games used before, now compile
/// within the layers or in pieces, with the limit checked between operations.)
#[test]
#[ignore = "corpus: needs the GGP corpus at ../shared/gdl-corpus"]
fn a_time_limit_ends_even_a_single_endless_bdd_operation() {
    use std::time::{Duration, Instant};
    let game = corpus_game("hexPie.kif");
    let started = Instant::now();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_symgame"))
        .args([
            "solve",
            "--explicit-states",
            "0",
            // Long enough that even on a loaded machine the set-up reaches the endless
            // operation before the deadline (with 2 s, a loaded run could stop between
            // operations instead, which is not what this test is about).
            "--time-limit",
            "5",
            game.to_str().unwrap(),
        ])
        .current_dir(root())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains("BDD operation stopped inside: time limit"),
        "{err}"
    );
    assert!(
        !err.contains("inside one BDD operation"),
        "the watchdog: {err}"
    );
    // 5 s and grounding, with room for a loaded machine (and the watchdog's 5 s grace).
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "{:?}",
        started.elapsed()
    );
}

/// When the symbolic set-up of a game is slow (mummymaze1p: its per-joint-move relations take
/// about 30 s; within 8 s it stops, or falls back to compiling within each layer), `reach`
/// still reports at least the first layers the explicit prefix expanded before it, and they are
/// the layers `explore` finds. On a fast machine the explicit layers reach the end of the game
/// (51 layers) within the limit: then the run ends normally and the whole table must match.
#[test]
#[ignore = "corpus: needs the GGP corpus at ../shared/gdl-corpus"]
fn the_explicit_layers_are_reported_when_the_symbolic_set_up_stops() {
    let game = corpus_game("mummymaze1p.kif");
    let (code, reach) = reach_json(&game, "8");
    assert!([Some(0), Some(3)].contains(&code), "{code:?} {reach}");
    let how = reach["partitioning"].as_str().unwrap_or_default();
    assert!(
        [
            "explicit only (the symbolic set-up stopped)",
            "within each layer"
        ]
        .contains(&how),
        "{how}"
    );
    let (_, explore) = run_json(&game, &["explore", "--json", "--time-limit", "20"]);
    let counts = |v| layer_counts(v, &["states", "terminal"]);
    let (got, want) = (counts(&reach), counts(&explore));
    assert!(got.len() >= 5, "{got:?}");
    if code == Some(0) {
        assert_eq!(got.len(), 51, "{got:?}");
    }
    let n = got.len().min(want.len());
    assert_eq!(got[..n], want[..n]);
}

/// roshambo2 (two rounds of rock-paper-scissors, symmetric): worth 50 to each role in mixed
/// strategies, 0 in pure ones (an opponent who knows a pure strategy beats every throw), and
/// the explicit induction with the same LP agrees on all 180 states. switches (3 roles) is
/// solved under max^n and verified the same way.
#[test]
#[ignore = "corpus: needs the GGP corpus at ../shared/gdl-corpus"]
fn corpus_simultaneous_and_three_role_games_are_solved_and_verified() {
    let game = corpus_game("roshambo2.kif");
    let path = game.to_str().unwrap();
    let (code, out, err) = crate::symgame(&["solve", path]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("initial state: white 50.00, black 50.00 (values in mixed strategies; pure security levels 0/0;"),
        "{out}"
    );
    let (code, out, err) = crate::symgame(&["solve", "--values", "security", path]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("initial state: white 0, black 0"), "{out}");
    for game in ["roshambo2.kif", "switches.kif"] {
        let out = verify_agrees(&corpus_game(game), &[], &[0]);
        assert!(out.contains("(all of them)"), "{game}: {out}");
    }
}

/// mummymaze2p: the mutex proof gives up, the groups random playouts leave are assumed and
/// checked layer by layer, and the whole reachable set comes out (51 layers, 145,877 states;
/// with the plain encoding 26 layers in 60 s), equal layer by layer to explicit enumeration.
#[test]
#[ignore = "corpus: needs the GGP corpus at ../shared/gdl-corpus"]
fn assumed_groups_checked_by_the_search_give_exact_counts() {
    let game = corpus_game("mummymaze2p.kif");
    let (code, reach) = reach_json(&game, "300");
    assert_eq!(code, Some(0), "{reach}");
    let mutex = reach["setup_phases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "mutex")
        .expect("a mutex phase");
    assert!(
        mutex["note"]
            .as_str()
            .unwrap_or_default()
            .contains("assumed"),
        "{mutex}"
    );
    let (code, explore) = run_json(&game, &["explore", "--json", "--time-limit", "300"]);
    assert_eq!(code, Some(0), "{explore}");
    let states = |v| layer_counts(v, &["states"]);
    assert_eq!(states(&reach), states(&explore));
    assert_eq!(reach["states"].to_string().replace('"', ""), "145877");
}

/// `solve` on mummymaze2p assumes the fluent groups its mutex proof gives up on (checked on
/// every reachable state) and records that encoding in the solution; `export`, `query` and
/// `verify` read it there instead of proving the groups again (which would give another
/// encoding, and so a "made for another game" refusal).
#[test]
#[ignore = "corpus: needs the GGP corpus at ../shared/gdl-corpus"]
fn a_solution_on_assumed_groups_is_read_back_with_its_encoding() {
    let game = corpus_game("mummymaze2p.kif");
    let dir = symgame_testkit::scratch_dir!("corpus", "assumed-solution");
    let (sol, db) = (dir.join("sol"), dir.join("mm.db"));
    let (sol_s, db_s, game_s) = (
        sol.to_str().unwrap(),
        db.to_str().unwrap(),
        game.to_str().unwrap(),
    );
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_symgame"))
            .args(args)
            .current_dir(root())
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        (out.status.code(), text)
    };
    let (code, out) = run(&["solve", "--out", sol_s, "--time-limit", "300", game_s]);
    assert_eq!(code, Some(0), "{out}");
    assert!(
        out.contains("fluent groups assumed"),
        "the report says so: {out}"
    );
    let manifest = std::fs::read_to_string(sol.join("solution.json")).unwrap();
    assert!(
        manifest.contains("\"assumed\": true"),
        "the encoding is recorded"
    );
    let (code, out) = run(&["export", "--solution", sol_s, "--out", db_s, game_s]);
    assert_eq!(code, Some(0), "{out}");
    let (code, out) = run(&["query", "--game", game_s, "--rank", "0", db_s]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("145877 states"), "{out}");
    // Checked state by state by the explicit solvers, as far as 30 s go: no disagreement.
    let (code, out) = run(&["verify", "--solution", sol_s, "--time-limit", "30", game_s]);
    assert!(matches!(code, Some(0 | 3)), "{out}");
    assert!(out.contains("no disagreement"), "{out}");
}

/// Runs `symgame verify ARGS... GAME`, checks that its exit code is one of `codes` and that it
/// found no disagreement; returns its standard output.
fn verify_agrees(game: &Path, args: &[&str], codes: &[i32]) -> String {
    let mut all = vec!["verify"];
    all.extend(args);
    all.push(game.to_str().unwrap());
    let (code, out, err) = crate::symgame(&all);
    assert!(codes.contains(&code), "{}: {err}", game.display());
    assert!(out.contains("no disagreement"), "{}: {out}", game.display());
    out
}

/// Runs symgame with `args` and then `game`, and parses its standard output as JSON.
fn run_json(game: &Path, args: &[&str]) -> (Option<i32>, serde_json::Value) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_symgame"))
        .args(args)
        .arg(game.to_str().unwrap())
        .current_dir(root())
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code(), json)
}

/// Runs `symgame reach --json --threads 1 --time-limit SECONDS` on `game`.
fn reach_json(game: &Path, seconds: &str) -> (Option<i32>, serde_json::Value) {
    run_json(
        game,
        &["reach", "--json", "--threads", "1", "--time-limit", seconds],
    )
}

/// Each layer's `fields` of a `reach` or `explore` JSON report, as decimal text.
fn layer_counts(report: &serde_json::Value, fields: &[&str]) -> Vec<Vec<String>> {
    report["layers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            fields
                .iter()
                .map(|&f| l[f].to_string().replace('"', ""))
                .collect()
        })
        .collect()
}

/// Single-player puzzles whose "some move is legal" is huge over all states (most of them
/// unreachable: on queens08lg a square is legal when no queen attacks it) are solved: the
/// solver no longer builds, over all states, where a role has two legal moves. Before
/// 2026-11-24, queens08lg ran out of 2^27 nodes there and hidato19 stuck in it; now both fit
/// in 2^22 nodes. `verify` checks a sample of their states with the explicit solvers.
#[test]
#[ignore = "corpus: needs the GGP corpus at ../shared/gdl-corpus"]
fn single_player_puzzles_are_solved_in_a_small_node_table() {
    for (game, states) in [("queens08lg.kif", "237846"), ("hidato19.kif", "739683")] {
        let path = corpus_game(game);
        let (code, solve) = run_json(
            &path,
            &[
                "solve",
                "--json",
                "--nodes-log2",
                "22",
                "--time-limit",
                "300",
            ],
        );
        assert_eq!(code, Some(0), "{game}: {solve}");
        assert_eq!(solve["states"].to_string().replace('"', ""), states);
        let initial = solve["initial"].as_u64().expect("an initial outcome") as usize;
        assert_eq!(solve["outcomes"][initial][0], 100, "{game}: {solve}");
        verify_agrees(&path, &["--time-limit", "300"], &[0]);
    }
}

/// mummyMaze2p_2007 is too large to compile over all states (a move-independent condition
/// over its budget; before 2026-11-24 `solve` stuck in that compilation and ran out of 2^27
/// nodes) but has 132,272 reachable states: `solve` builds it from its explicit graph, says
/// so, and solves it (the mummy wins); `verify` agrees on every state it checks.
#[test]
#[ignore = "corpus: needs the GGP corpus at ../shared/gdl-corpus"]
fn a_game_too_large_to_compile_is_solved_from_its_explicit_graph() {
    let game = corpus_game("mummyMaze2p_2007.kif");
    let (code, solve) = run_json(&game, &["solve", "--json", "--time-limit", "300"]);
    assert_eq!(code, Some(0), "{solve}");
    assert_eq!(solve["states"].to_string().replace('"', ""), "132272");
    assert!(
        solve["explicit_graph"]
            .as_str()
            .is_some_and(|g| g.starts_with("132272 states")),
        "{solve}"
    );
    let initial = solve["initial"].as_u64().expect("an initial outcome") as usize;
    assert_eq!(solve["outcomes"][initial], serde_json::json!([0, 100]));
    verify_agrees(&game, &["--time-limit", "40"], &[0, 3]);
}

/// gt_two_thirds_4p: four roles choose a number from 0 to 100 at once, 101^4 joint moves in its
/// first step. Compiled within each layer, it gave up past 20,000 joint moves; each fluent's
/// next value reads one role's move, so the image takes the moves one role at a time (4 · 101
/// evaluations) and the whole reachable set (the initial state and 101^4 terminal states) is
/// counted, saying how.
#[test]
#[ignore = "corpus: needs the GGP corpus at ../shared/gdl-corpus"]
fn a_simultaneous_game_of_many_joint_moves_is_counted_one_role_at_a_time() {
    let game = corpus_game("gt_two_thirds_4p.kif");
    let reach = reached(&game, "120");
    assert_eq!(reach["states"], "104060402", "{reach}");
    assert_eq!(reach["terminal"], "104060401", "{reach}");
    assert_eq!(
        reach["partitioning"],
        "within each layer, moves one role at a time"
    );
}

/// wallmaze: two roles of 73 moves each, moving at once (security levels). Its attractors took
/// one pre-image per joint move in every round and did not finish in 600 s; with the
/// partitions of each move of a role merged first, it is solved (75 s on the development
/// machine), and `verify` agrees on a sample of its states.
#[test]
#[ignore = "corpus: needs the GGP corpus at ../shared/gdl-corpus"]
fn a_simultaneous_maze_gets_its_security_levels() {
    let game = corpus_game("wallmaze.kif");
    let solve = solved_and_verified(&game, "400", "300");
    assert_eq!(solve["states"], "38226", "{solve}");
}

/// `reach --json` of `game` within `limit` seconds, which must finish; its report.
fn reached(game: &Path, limit: &str) -> serde_json::Value {
    let (code, reach) = run_json(game, &["reach", "--json", "--time-limit", limit]);
    assert_eq!(code, Some(0), "{reach}");
    reach
}

/// `solve --json --out` of `game` within `solve_limit` seconds, which must finish; then
/// `verify --solution` of that solution within `verify_limit`, which must agree. Returns the
/// solve report.
fn solved_and_verified(game: &Path, solve_limit: &str, verify_limit: &str) -> serde_json::Value {
    let name = game.file_stem().unwrap().to_str().unwrap();
    let dir = symgame_testkit::scratch_dir!("corpus", name);
    let sol = dir.join("sol");
    let sol = sol.to_str().unwrap();
    let args = ["solve", "--json", "--time-limit", solve_limit, "--out", sol];
    let (code, solve) = run_json(game, &args);
    assert_eq!(code, Some(0), "{solve}");
    assert!(solve["stopped"].is_null(), "{solve}");
    verify_agrees(
        game,
        &["--solution", sol, "--time-limit", verify_limit],
        &[0],
    );
    solve
}

/// firefighter logs one action per step, `(maked ACTION STEP)`: sorted as ground terms all
/// the steps of one action come before the next action's, and its layers (2^k states) need
/// BDDs as large as the explicit sets (16 layers in 20 s before 2026-11-25). The automatic
/// order measures the explicit prefix's states and takes the ground order, where the reachable
/// set (1.1e15 states) is counted and solved in seconds; `verify` checks the written solution
/// on a sample with the explicit solvers.
#[test]
#[ignore = "corpus: needs the GGP corpus at ../shared/gdl-corpus"]
fn a_game_whose_term_order_is_exponential_is_solved_in_the_order_measured_best() {
    let game = corpus_game("firefighter.kif");
    let reach = reached(&game, "60");
    assert_eq!(reach["states"], "1125899906842624", "{reach}");
    let solve = solved_and_verified(&game, "60", "120");
    assert_eq!(solve["order"], "given", "{solve}");
    assert_eq!(solve["states"], "1125899906842624", "{solve}");
    let initial = solve["initial"].as_u64().expect("an initial outcome") as usize;
    assert_eq!(solve["outcomes"][initial], serde_json::json!([100]));
}
