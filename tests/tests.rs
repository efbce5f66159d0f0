//! Integration tests: one binary, one module per area. Tests read fixture files (games in
//! `gdl/`, error cases in `tests/errors/`) and compare with the expectations written beside them.

mod cli;
mod errors;
mod explore;
mod ground;
mod plan;
mod prove;

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
