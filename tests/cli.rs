//! The `symgame` binary: output, exit codes and error messages.

use crate::symgame;

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
    let (code, out, err) = symgame(&[
        "prove",
        "--algo",
        "dfpn",
        "--moves",
        "(mark 2 2) (mark 1 2)",
        "gdl/tictactoe.kif",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("xplayer    value 100"), "{out}");
    let (code, _, err) = symgame(&[
        "prove",
        "--moves",
        "(mark 2 2) (mark 2 2)",
        "gdl/tictactoe.kif",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("move 2"), "{err}");
}

#[test]
fn reach_counts_tictactoe_symbolically_on_both_engines() {
    for backend in ["biodivine", "oxidd"] {
        let (code, out, err) = symgame(&["reach", "--backend", backend, "gdl/tictactoe.kif"]);
        assert_eq!(code, 0, "{err}");
        let total = out
            .lines()
            .find(|l| l.starts_with("total"))
            .expect("a total line");
        assert!(
            total.contains(" 5478 ") && total.contains(" 958 "),
            "{total}"
        );
    }
}

/// A reader that closes the pipe early ends symgame quietly (no panic on a broken pipe).
#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    // Megabytes of output (173,962 moves listed), far beyond a pipe's buffer.
    let Some(corpus) = crate::corpus() else {
        return;
    };
    let game = corpus.join("amazons.kif");
    let mut child = Command::new(env!("CARGO_BIN_EXE_symgame"))
        .args(["info", "--list", game.to_str().unwrap()])
        .current_dir(crate::root())
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

/// `--time-limit` covers the set-up too: a three-player game with 744 moves spends its time
/// enumerating joint moves (in the mutex proof and the compilation), and must still stop with
/// the limit's exit code, not run on until killed.
#[test]
fn a_time_limit_stops_the_set_up_too() {
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    let Some(corpus) = crate::corpus() else {
        return;
    };
    let game = corpus.join("3pffa.kif");
    for cmd in ["reach", "solve"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_symgame"))
            .args([cmd, "--time-limit", "1", game.to_str().unwrap()])
            .current_dir(crate::root())
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
                panic!("{cmd} --time-limit 1 still runs after 120 s");
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(status.code(), Some(3), "{cmd}: {err}");
        assert!(err.contains("time limit"), "{cmd}: {err}");
        // Stopped between operations, not by the watchdog.
        assert!(!err.contains("inside one BDD operation"), "{cmd}: {err}");
    }
}

/// When one BDD operation outlasts `--time-limit` (checkersTorus: compiling one of its
/// conditions does not finish in minutes), the watchdog still ends the run with exit code 3
/// shortly after the limit and says why.
#[test]
fn a_time_limit_ends_even_a_single_endless_bdd_operation() {
    use std::time::{Duration, Instant};
    let Some(corpus) = crate::corpus() else {
        return;
    };
    let game = corpus.join("checkersTorus.kif");
    let started = Instant::now();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_symgame"))
        .args(["reach", "--time-limit", "2", game.to_str().unwrap()])
        .current_dir(crate::root())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(err.contains("inside one BDD operation"), "{err}");
    // 2 s, the 5 s grace and grounding, with room for a loaded machine.
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "{:?}",
        started.elapsed()
    );
}

/// SIGTERM (a `kill`, a scheduler's time-out) stops a long run like Ctrl-C does: exit code 3,
/// the finished layers printed, and the temporary layer files of layered solving removed.
#[test]
fn sigterm_stops_a_solve_cleanly_and_removes_its_layer_files() {
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    let tmp = std::env::temp_dir().join(format!("symgame-sigterm-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).unwrap();
    // Connect Four 6×4 takes minutes to solve: it is surely still running when signalled.
    let child = Command::new(env!("CARGO_BIN_EXE_symgame"))
        .args(["solve", "gdl/connect4_6x4.kif"])
        .current_dir(crate::root())
        .env("TMPDIR", &tmp)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The layer directory appears once the run (and its signal handler) has started.
    let started = Instant::now();
    while std::fs::read_dir(&tmp).unwrap().next().is_none() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no layer directory"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(500));
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
