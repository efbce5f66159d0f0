//! `symgame play` through standard input: scripted games against the engine and the engine
//! against itself, ending as the table says; bad moves refused, the end of input a clean end.

use crate::{assert_shows, symgame};
use std::io::Write;
use std::process::{Command, Stdio};

/// Runs `symgame play ARGS`, the arguments written as a command line ([`crate::words`]), with
/// `input` on standard input: (exit code, stdout, stderr).
fn play(args: &str, input: impl AsRef<[u8]>) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_symgame"))
        .arg("play")
        .args(crate::words(args))
        .current_dir(symgame_testkit::root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut stdin = child.stdin.take().expect("piped stdin");
    // The engine may end the game before reading every line.
    let _ = stdin.write_all(input.as_ref());
    drop(stdin);
    let out = child.wait_with_output().expect("the binary ends");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// [`play`] that must end with exit code 0: its stdout.
fn play_ok(args: &str, input: impl AsRef<[u8]>) -> String {
    let (code, out, err) = play(args, input);
    assert_eq!(code, 0, "{err}");
    out
}

/// Writes a table of the fixture game `game` with `symgame COMMAND gdl/GAME.kif --out PATH`:
/// `export` writes the database `GAME.db`, `solve` the solution directory `GAME-solution`, in
/// the fresh directory `play-tests/COMMAND-GAME`. Returns PATH, quoted for [`play`].
fn table(command: &str, game: &str) -> String {
    let file = match command {
        "export" => format!("{game}.db"),
        _ => format!("{game}-solution"),
    };
    let path = symgame_testkit::scratch_dir!("play-tests", format!("{command}-{game}")).join(file);
    let path = path.to_str().unwrap();
    let (code, _, err) = symgame(&[command, &format!("gdl/{game}.kif"), "--out", path]);
    assert_eq!(code, 0, "{err}");
    format!("'{path}'")
}

/// Every cell of tic-tac-toe in order: each line is refused while its cell is taken, so the
/// script is legal whatever the engine plays.
fn every_cell() -> String {
    let mut s = String::new();
    for x in 1..=3 {
        for y in 1..=3 {
            s.push_str(&format!("(mark {x} {y})\n"));
        }
    }
    s
}

/// The rewards of a "value" or "game over" line's first role, from "(R1/R2)" or "ROLE N, ...".
fn final_rewards(out: &str) -> Vec<u8> {
    let line = crate::line_starting(out, "game over: ");
    line.trim_start_matches("game over: ")
        .split(", ")
        .map(|part| part.rsplit(' ').next().unwrap().parse().unwrap())
        .collect()
}

/// The number of moves played after the first line of `out` that contains `marker`.
fn moves_after(out: &str, marker: &str) -> Option<(usize, String)> {
    let lines: Vec<&str> = out.lines().collect();
    let at = lines.iter().position(|l| l.contains(marker))?;
    let moves = lines[at..]
        .iter()
        .filter(|l| l.starts_with("move "))
        .count();
    Some((moves, lines[at].to_string()))
}

#[test]
fn a_scripted_game_against_the_table_ends_as_the_table_says() {
    let db = table("export", "tictactoe");
    let out = play_ok(&format!("gdl/tictactoe.kif --db {db}"), every_cell());
    // The start is a draw; the script (cells in order) makes a losing move at some point, and
    // then the table says in how many moves the engine wins: it wins in exactly that many.
    assert_shows(
        &out,
        "value     xplayer: draw (50/50); oplayer: draw (50/50)",
    );
    let (moves, line) = moves_after(&out, "oplayer: wins in ").expect("the script loses");
    let promised: usize = line
        .split("oplayer: wins in ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no length in {line}"));
    assert_eq!(moves, promised, "{out}");
    assert_eq!(final_rewards(&out), vec![0, 100], "{out}");
    assert_shows(&out, ") is not a legal move; legal moves: (mark ");
    // The moves offered carry their values, the perfect ones starred.
    assert_shows(&out, "  * (mark 1 1)");
}

#[test]
fn the_engine_against_itself_plays_the_table_value() {
    let db = table("export", "connect4_4x4");
    // Connect Four 4x4 is a draw (gdl/connect4_4x4.expect): perfect play on both sides draws.
    let both = format!("gdl/connect4_4x4.kif --db {db} --as none");
    let out = play_ok(&both, "");
    assert_eq!(final_rewards(&out), vec![50, 50], "{out}");
    // From a lost position, the winner takes the shortest win and the loser holds out the
    // longest: the game lasts exactly the length the table gives.
    let out = play_ok(&format!("{both} --moves '(drop 1) (drop 2) (drop 2)'"), "");
    let first = crate::line_starting(&out, "value     ");
    assert_eq!(
        first,
        "value     red: loses in 13 (0/100); yellow: wins in 13 (0/100)"
    );
    let (n, _) = moves_after(&out, "value     ").unwrap();
    assert_eq!(n, 13, "{out}");
    assert_eq!(final_rewards(&out), vec![0, 100], "{out}");
}

#[test]
fn simultaneous_moves_follow_the_optimal_mixed_strategies() {
    // penalty_kick: both roles choose at once; the table holds values in mixed strategies.
    let out = play_ok("gdl/penalty_kick.kif --as none", "");
    assert_shows(
        &out,
        "value     kicker: 66.67 in mixed strategies (66.67/33.33)",
    );
    assert_shows(
        &out,
        "(kick right)             probability 0.667 in an optimal mixed strategy",
    );
    assert_shows(&out, "game over: ");
}

#[test]
fn a_solution_directory_is_a_table_too() {
    let sol = table("solve", "tictactoe");
    let out = play_ok(&format!("gdl/tictactoe.kif --solution {sol} --as none"), "");
    assert!(out.starts_with("table     solution "), "{out}");
    assert_eq!(final_rewards(&out), vec![50, 50], "{out}");
    // A solution of another game is refused (exit code 2).
    let (code, _, err) = play(&format!("gdl/connect4_4x4.kif --solution {sol}"), "");
    assert_eq!(code, 2, "{err}");
}

#[test]
fn without_a_table_it_solves_first_or_searches() {
    // Solved here (tic-tac-toe takes well under the default 20 s).
    let out = play_ok("gdl/tictactoe.kif --as none", "");
    assert_shows(&out, "table     solved here");
    assert_eq!(final_rewards(&out), vec![50, 50], "{out}");
    // No solving: alpha-beta per move finds the draw in tic-tac-toe within its time.
    let searching = "gdl/tictactoe.kif --as none --solve-time 0 --move-time 30";
    let out = play_ok(searching, "");
    assert_shows(&out, "engine    searches");
    assert_eq!(final_rewards(&out), vec![50, 50], "{out}");
}

#[test]
fn bad_moves_are_refused_and_the_end_of_input_ends_cleanly() {
    let input = b"(((\nnonsense\n(mark 4 4)\n\n(mark 1 1 1)\n(mark \xff)\n";
    let out = play_ok("gdl/tictactoe.kif --as xplayer", input);
    assert_eq!(out.matches("refused: ").count(), 4, "{out}");
    assert_eq!(out.matches("could not read the line").count(), 1, "{out}");
    assert_shows(&out, "legal moves: (mark 1 1) (mark 1 2)");
    assert!(out.ends_with("input ended; the game stops here\n"), "{out}");
    // Bad arguments: exit code 2 with a message.
    let cases: [&[&str]; 4] = [
        &["play", "gdl/tictactoe.kif", "--as", "nobody"],
        &[
            "play",
            "gdl/tictactoe.kif",
            "--moves",
            "(mark 1 1) (mark 1 1)",
        ],
        &["play", "gdl/tictactoe.kif", "--db", "gdl/tictactoe.kif"],
        &["play", "gdl/no-such-game.kif"],
    ];
    for args in cases {
        let (code, _, err) = symgame(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.starts_with("error: "), "{args:?}: {err}");
    }
}
