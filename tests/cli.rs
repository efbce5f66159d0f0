//! The `symgame` binary: output, exit codes and error messages.

use crate::{assert_shows, line_starting, symgame, symgame_line};

#[test]
fn info_prints_sizes_and_json() {
    let (code, out, _) = symgame(&["info", "gdl/tictactoe.kif"]);
    assert_eq!(code, 0);
    assert!(out.contains("roles") && out.contains("fluents"), "{out}");
    let (code, out, _) = symgame(&["info", "--json", "gdl/tictactoe.kif"]);
    assert_eq!(code, 0);
    assert!(out.contains("\"ground_rules\""), "{out}");
    assert!(out.contains("\"fluents\": 29"), "{out}");
}

#[test]
fn explore_prints_the_total() {
    let (code, out, _) = symgame(&["explore", "gdl/tictactoe.kif"]);
    assert_eq!(code, 0);
    let total = out
        .lines()
        .find(|l| l.starts_with("total"))
        .expect("a total line");
    assert!(total.contains("5478") && total.contains("958"), "{total}");
}

#[test]
fn a_gdl_error_exits_2_with_file_line_and_column() {
    let (code, _, err) = symgame(&["info", "tests/errors/unsafe_not.kif"]);
    assert_eq!(code, 2);
    assert!(err.contains("tests/errors/unsafe_not.kif:3:46: "), "{err}");
}

#[test]
fn a_state_limit_exits_3_and_keeps_the_finished_layers() {
    let (code, out, err) = symgame(&["explore", "--state-limit", "100", "gdl/tictactoe.kif"]);
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("state limit"), "{err}");
    assert!(
        out.lines().any(|l| l.trim_start().starts_with("1 ")),
        "{out}"
    );
}

#[test]
fn prove_answers_after_moves_and_rejects_illegal_ones() {
    // x in the centre, o on an edge: x wins
    let (code, out, err) =
        symgame_line("prove --algo dfpn --moves '(mark 2 2) (mark 1 2)' gdl/tictactoe.kif");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("xplayer    value 100"), "{out}");
    let (code, _, err) = symgame_line("prove --moves '(mark 2 2) (mark 2 2)' gdl/tictactoe.kif");
    assert_eq!(code, 2);
    assert!(err.contains("move 2"), "{err}");
}

#[test]
fn reach_counts_tictactoe_symbolically_on_both_engines() {
    for backend in ["biodivine", "oxidd"] {
        let (code, out, err) = symgame(&["reach", "--backend", backend, "gdl/tictactoe.kif"]);
        assert_eq!(code, 0, "{err}");
        let total = line_starting(&out, "total");
        assert!(
            total.contains(" 5478 ") && total.contains(" 958 "),
            "{total}"
        );
    }
}

/// `--progress lines` writes one line per layer (of `solve`: also of its forward search) to stderr, also beside `--json` (whose report
/// stays alone on stdout); by default a stderr that is not a terminal gets no progress.
#[test]
fn progress_lines_go_to_a_log_one_per_layer() {
    let lines_of = |err: &str, what: &str| {
        err.lines()
            .filter(|l| l.starts_with('[') && l.contains(" s, peak ") && l.contains(what))
            .count()
    };
    let (code, out, err) = symgame_line("reach gdl/tictactoe.kif --progress lines --json");
    assert_eq!(code, 0, "{err}");
    let report: serde_json::Value = serde_json::from_str(&out).expect("JSON alone on stdout");
    let layers = report["layers"].as_array().unwrap().len();
    assert_eq!(layers, 10);
    assert_eq!(lines_of(&err, "] layer "), layers, "{err}");
    let (code, _, err) = symgame_line("solve gdl/tictactoe.kif --progress lines");
    assert_eq!(code, 0, "{err}");
    assert_eq!(lines_of(&err, "] solved layer "), 10, "{err}");
    // Its forward search comes first, a line per layer too (a long one says how far it got).
    assert_eq!(lines_of(&err, "] forward search, layer "), 10, "{err}");
    assert!(
        err.contains("forward search, layer 9: 5,478 states in all"),
        "{err}"
    );
    for quiet in ["", "--progress off"] {
        let (code, _, err) = symgame_line(&format!("reach gdl/tictactoe.kif {quiet}"));
        assert_eq!(code, 0, "{err}");
        assert!(err.is_empty(), "{quiet}: {err}");
    }
    // `verify` reports states, not layers: at most a line a second, each with its count.
    let (code, _, err) = symgame_line("verify gdl/tictactoe.kif --sample 20 --progress lines");
    assert_eq!(code, 0, "{err}");
    let checked = lines_of(&err, " states checked, 0 disagreements");
    assert!((1..20).contains(&checked), "{err}");
    let (code, _, err) = symgame_line("reach gdl/tictactoe.kif --progress sometimes");
    assert_eq!(code, 2);
    assert_shows(&err, "possible values: auto, lines, off");
}

/// `reach` counts the same layers whether its first layers are expanded explicitly (the
/// default) or not, and says how many were.
#[test]
fn reach_counts_the_same_with_and_without_the_explicit_prefix() {
    let layers = |args: &[&str]| {
        let json = reach_connect4_4x4(args);
        (json["layers"].to_string(), json["explicit_layers"].as_u64())
    };
    let strip_times = |s: String| {
        let v: serde_json::Value = serde_json::from_str(&s).unwrap();
        v.as_array()
            .unwrap()
            .iter()
            .map(|l| {
                (
                    l["states"].clone(),
                    l["terminal"].clone(),
                    l["nodes"].clone(),
                )
            })
            .collect::<Vec<_>>()
    };
    let (with, n) = layers(&["--explicit-states", "300"]);
    let (without, zero) = layers(&["--explicit-states", "0"]);
    assert_eq!(zero, Some(0));
    // Connect Four 4x4: 1, 4, 16, 52 and 160 states in the first layers, then 436.
    assert_eq!(n, Some(5));
    assert_eq!(strip_times(with), strip_times(without));
}

/// `reach --json` of Connect Four 4x4 with `args`, which must succeed; its report.
fn reach_connect4_4x4(args: &[&str]) -> serde_json::Value {
    let mut all = vec!["reach", "--json", "gdl/connect4_4x4.kif"];
    all.extend_from_slice(args);
    let (code, out, err) = symgame(&all);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap()
}

/// The notes of the set-up phases of a `--json` report, one `"phase": note` a line.
fn setup_notes(json: &serde_json::Value) -> String {
    json["setup_phases"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| Some(format!("{}: {}", p["name"], p["note"].as_str()?)))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Where the explicit prefix expands the whole game (Connect Four 4x4: 161,029 states in 17
/// layers), `reach` compiles nothing once over all states and reads the mutex groups off the
/// prefix's states, with no proof; the layers are those of the symbolic search, and the groups
/// the ones the proof finds.
#[test]
fn a_game_the_explicit_prefix_finishes_is_only_encoded() {
    let counts = |json: &serde_json::Value| {
        let layers = json["layers"].as_array().unwrap().iter();
        layers
            .map(|l| (l["states"].clone(), l["terminal"].clone()))
            .collect::<Vec<_>>()
    };
    let (prefix, symbolic) = (
        reach_connect4_4x4(&[]),
        reach_connect4_4x4(&["--explicit-states", "0"]),
    );
    let log = setup_notes(&prefix);
    assert_shows(
        &log,
        "17 of 43 candidates hold on all 161029 reachable states (the explicit prefix expanded \
         the whole game); no proof",
    );
    assert_shows(
        &log,
        "compiled within each layer: nothing is left to expand",
    );
    assert_eq!(prefix["explicit_layers"], 17, "{prefix}");
    assert!(!setup_notes(&symbolic).contains("no proof"), "{symbolic}");
    assert_eq!(prefix["mutex_groups"], symbolic["mutex_groups"]);
    assert_eq!(prefix["states"], "161029", "{prefix}");
    assert_eq!(counts(&prefix), counts(&symbolic));
}

/// Where the mutex proof is skipped (`--mutex-seconds 0`), `reach` and `solve` assume the
/// groups random playouts leave. On `rare_flag` one of them breaks only after twenty `b` moves
/// in a row: the search finds the break, sets up again with the witness's states known, and
/// keeps the other group assumed. The counts and the value are the explicit search's.
#[test]
fn a_broken_assumed_group_is_assumed_again_without_it() {
    let flags = ["--explicit-states", "0", "--mutex-seconds", "0", "--json"];
    let run = |command: &str| {
        let mut args = vec![command, "tests/games/rare_flag.kif"];
        args.extend_from_slice(&flags);
        let (code, out, err) = symgame(&args);
        assert_eq!(code, 0, "{err}");
        serde_json::from_str::<serde_json::Value>(&out).unwrap()
    };
    let reach = run("reach");
    let log = setup_notes(&reach);
    assert_shows(&log, "2 groups assumed from playouts");
    assert_shows(
        &log,
        "breaks in layer 20: set-up again with the groups assumed without it",
    );
    assert_shows(&log, "not tried again: 1 group assumed");
    assert!(!log.contains("proven groups only"), "{log}");
    assert_eq!(reach["mutex_groups"], 1, "{reach}");
    let states: Vec<&str> = reach["layers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["states"].as_str().unwrap())
        .collect();
    let mut want = vec!["1"];
    want.extend(["2"; 20]);
    assert_eq!(states, want);
    assert_eq!(reach["stopped"], serde_json::Value::Null, "{reach}");
    assert_eq!(reach["states"], "41", "{reach}");

    // `solve`: the one role can reach the flag by playing b twenty times.
    let (code, out, err) = symgame(&[
        "solve",
        "tests/games/rare_flag.kif",
        "--explicit-states",
        "0",
        "--mutex-seconds",
        "0",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_shows(&out, "100");
    let solved = run("solve");
    assert_eq!(solved["assumed_groups"], true, "{solved}");
    let log = setup_notes(&solved);
    assert_shows(&log, "set-up again with the groups assumed without it");
    assert!(!log.contains("proven groups only"), "{log}");
    assert_eq!(solved["states"], "41", "{solved}");
}

/// SIGTERM (a `kill`, a scheduler's time-out) stops a long run like Ctrl-C does: exit code 3,
/// the finished layers printed, and the temporary layer files of layered solving removed.
#[test]
fn sigterm_stops_a_solve_cleanly_and_removes_its_layer_files() {
    let tmp = std::env::temp_dir().join(format!("symgame-sigterm-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).unwrap();
    let child = solve_connect4_6x4(&[], &tmp);
    // SAFETY: sending a signal to our own child process, which has not been waited for yet.
    #[allow(unsafe_code)] // std cannot send SIGTERM to a child process
    let sent = unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) };
    assert_eq!(sent, 0);
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("cancelled"), "{err}");
    let left: Vec<_> = std::fs::read_dir(&tmp).unwrap().flatten().collect();
    assert!(left.is_empty(), "left behind: {left:?}");
    let _ = std::fs::remove_dir_all(&tmp);
}

/// F10: a second Ctrl-C right after the first ends the run at once with exit code 3 and
/// leaves no temporary layer directory, and never an output directory without its manifest
/// (the run created it, so it is removed; or the first interrupt had time to write the
/// finished layers and a manifest that marks the solution incomplete).
#[test]
fn a_double_interrupt_leaves_no_temporary_files() {
    use std::time::Duration;
    let tmp = std::env::temp_dir().join(format!("symgame-sigint2-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).unwrap();
    let out_dir = tmp.join("out");
    let layers = tmp.join("layers");
    std::fs::create_dir_all(&layers).unwrap();
    let child = solve_connect4_6x4(&["--out", out_dir.to_str().unwrap()], &layers);
    for _ in 0..2 {
        // SAFETY: sending a signal to our own child process, which has not been waited for.
        #[allow(unsafe_code)] // std cannot send SIGINT to a child process
        let sent = unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
        assert_eq!(sent, 0);
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    let left: Vec<_> = std::fs::read_dir(&layers).unwrap().flatten().collect();
    assert!(left.is_empty(), "left behind: {left:?}");
    if out_dir.exists() {
        assert!(
            out_dir.join(symgame_symbolic::MANIFEST).exists(),
            "an output directory without manifest: {err}"
        );
    }
    let _ = std::fs::remove_dir_all(&tmp);
}

/// `symgame solve gdl/connect4_6x4.kif ARGS` with its temporary files in `tmp`, returned once
/// its layer directory exists there (then the run and its signal handler have started).
/// Connect Four 6×4 takes minutes to solve: it is surely still running when signalled.
fn solve_connect4_6x4(args: &[&str], tmp: &std::path::Path) -> std::process::Child {
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    let child = Command::new(env!("CARGO_BIN_EXE_symgame"))
        .args(["solve", "gdl/connect4_6x4.kif"])
        .args(args)
        .current_dir(symgame_testkit::root())
        .env("TMPDIR", tmp)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while std::fs::read_dir(tmp).unwrap().next().is_none() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no layer directory"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(500));
    child
}
