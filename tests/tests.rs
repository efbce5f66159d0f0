//! Integration tests: one binary, one module per area. Tests read fixture files (games in
//! `gdl/`, error cases in `tests/errors/`) and compare with the expectations written beside them;
//! the helpers they share with the crates' tests are in `symgame-testkit`.

mod cli;
mod corpus;
mod errors;
mod explore;
mod export;
mod ground;
mod plan;
mod prove;
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
