//! Integration tests: one binary, one module per area. Tests read fixture files (games in
//! `gdl/`, error cases in `tests/errors/`) and compare with the expectations written beside them.

mod cli;
mod errors;
mod exit_codes;
mod explore;
mod export;
mod ground;
mod plan;
mod prove;
mod solve;
mod verify;

use std::path::{Path, PathBuf};

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The corpus of public GGP games, when it is present beside the repository.
pub fn corpus() -> Option<PathBuf> {
    let p = root().join("../shared/gdl-corpus");
    p.is_dir().then_some(p)
}

/// Runs the `symgame` binary from the repository root: (exit code, stdout, stderr).
pub fn symgame(args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_symgame"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("the binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Loads and grounds a game file.
pub fn ground_file(path: &Path) -> symgame_ground::GroundGame {
    symgame_ground::load(path, &Default::default())
        .unwrap_or_else(|e| panic!("{} does not ground: {e}", path.display()))
}

/// Grounds a description given as text.
pub fn ground_text(text: &str) -> Result<symgame_ground::GroundGame, symgame_gdl::Error> {
    let src = symgame_gdl::Source::new("test.kif", text);
    let desc = symgame_gdl::check(symgame_gdl::parse(src)?)?;
    symgame_ground::ground(&desc, &Default::default())
}
