//! Integration tests: one binary, one module per area. Tests read fixture files (games in
//! `gdl/`, error cases in `tests/errors/`) and compare with the expectations written beside them;
//! the helpers they share with the crates' tests are in `symgame-testkit`.

mod cli;
mod corpus;
mod errors;
mod exit_codes;
mod explore;
mod export;
mod ground;
mod hardening_files;
mod hardening_flags;
mod hardening_gdl;
mod long_runs;
mod plan;
mod play;
mod plot;
mod prove;
mod reach_slices;
mod serve;
mod slices;
mod slurm;
mod solve;
mod verify;

/// Runs the `symgame` binary from the repository root: (exit code, stdout, stderr).
pub fn symgame(args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_symgame"))
        .args(args)
        .current_dir(symgame_testkit::root())
        .output()
        .expect("the binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// [`symgame`] with its arguments written as a command line (see [`words`]).
pub fn symgame_line(line: &str) -> (i32, String, String) {
    symgame(&words(line))
}

/// The arguments of a command line: words split at spaces, a 'single-quoted' part (a move
/// list, a pattern, a path) kept as one argument.
pub fn words(line: &str) -> Vec<&str> {
    let mut args = Vec::new();
    let mut rest = line.trim();
    while !rest.is_empty() {
        let (arg, tail) = match rest.strip_prefix('\'') {
            Some(quoted) => quoted.split_once('\'').expect("a closing quote"),
            None => rest.split_once(' ').unwrap_or((rest, "")),
        };
        args.push(arg);
        rest = tail.trim_start();
    }
    args
}

/// Asserts that `text` (a command's output) contains `part`; the failure shows `text`.
#[track_caller]
pub fn assert_shows(text: &str, part: &str) {
    assert!(text.contains(part), "{part:?} is not in: {text}");
}

/// The first line of `text` that starts with `prefix`; panics showing `text` when none does.
pub fn line_starting<'a>(text: &'a str, prefix: &str) -> &'a str {
    text.lines()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no line starts with {prefix:?}: {text}"))
}

/// The bundled games (`gdl/*.kif`, by name, sorted) but the Connect Four boards from 6x4 up
/// (minutes each) and the 8-puzzle (41 layers): the games the slice tests run both ways.
pub fn bundled_games_but_the_largest() -> Vec<String> {
    let skip = [
        "connect4_6x4",
        "connect4_5x5",
        "connect4_6x5",
        "connect4_6x6",
        "connect4_7x6",
        "eight_puzzle",
    ];
    let mut games: Vec<String> = std::fs::read_dir(symgame_testkit::root().join("gdl"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter_map(|n| n.strip_suffix(".kif").map(str::to_string))
        .filter(|n| !skip.contains(&n.as_str()))
        .collect();
    games.sort();
    games
}
