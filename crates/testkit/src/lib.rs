//! Test support shared by symgame's test crates (integration tests, benches, examples): the
//! paths of the fixture games in `gdl/` and of the public corpus, loading and grounding a game
//! from a file or from text ([`load`], [`load_game`], [`ground_text`]), the `.expect` fixtures
//! beside the games ([`Expect`]), explicit enumeration of the reachable states
//! ([`ExplicitGraph`]), the explicit minimax that cross-checks solutions ([`Minimax`]) and
//! reading a symbolic solution back state by state ([`for_each_solved`], [`outcome_counts`]);
//! the options that compile a game within each layer ([`layerwise_options`]).
//!
//! Architecture invariant: this crate is only ever a dev-dependency; no library crate depends
//! on it. It uses the libraries' public API only, like the tests it serves.

mod engines;
mod expect;
mod explicit;
pub mod fuzz;
mod solution;

use std::path::{Path, PathBuf};

pub use engines::{engine_pair, queens, shared_engine_pair};
pub use expect::Expect;
pub use explicit::{ExplicitGraph, Minimax};
pub use solution::{for_each_solved, outcome_counts, solved_in_memory};

use symgame_gdl::CheckedDescription;
use symgame_ground::{GroundGame, GroundOptions};
use symgame_symbolic::SymbolicOptions;

/// The repository root (the workspace directory holding `gdl/`).
pub fn root() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    root.canonicalize().unwrap_or(root)
}

/// The path of the fixture game `name` in `gdl/`; `name` may omit the `.kif` extension.
pub fn gdl_path(name: &str) -> PathBuf {
    root().join("gdl").join(name).with_extension("kif")
}

/// Every fixture game of `gdl/` that has an `.expect` file: the game's path and its
/// expectations, sorted by path.
pub fn expected_games() -> Vec<(PathBuf, Expect)> {
    let dir = root().join("gdl");
    let mut games: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "kif"))
        .filter(|p| p.with_extension("expect").is_file())
        .collect();
    games.sort();
    games
        .into_iter()
        .map(|p| {
            let e = Expect::read(&p.with_extension("expect"));
            (p, e)
        })
        .collect()
}

/// A bound (such as a number of states) read from the environment variable `var`, or
/// `default` when it is unset or not a number.
pub fn bound_from_env(var: &str, default: u64) -> u64 {
    std::env::var(var)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The game file a bench or example measures: the path in the environment variable `var` when
/// it is set, else the fixture game `default` in `gdl/`.
pub fn game_from_env(var: &str, default: &str) -> PathBuf {
    std::env::var_os(var).map_or_else(|| gdl_path(default), PathBuf::from)
}

/// Where the corpus of public GGP games is looked for: the directory named by the environment
/// variable `SYMGAME_CORPUS` when it is set (e.g. from a git worktree), else
/// `../shared/gdl-corpus` beside the repository.
pub fn corpus_dir() -> PathBuf {
    std::env::var_os("SYMGAME_CORPUS")
        .map_or_else(|| root().join("../shared/gdl-corpus"), PathBuf::from)
}

/// The corpus of public GGP games ([`corpus_dir`]), when present.
pub fn corpus() -> Option<PathBuf> {
    let p = corpus_dir();
    p.is_dir().then_some(p)
}

/// The corpus game `file` (e.g. `ticTacToe.kif`). Panics when the corpus is missing: the tests
/// that need it are `#[ignore]`d, so running them asks for the corpus.
pub fn corpus_game(file: &str) -> PathBuf {
    let corpus = corpus().unwrap_or_else(|| {
        panic!(
            "this test needs the GGP corpus at {} (or SYMGAME_CORPUS=DIR)",
            corpus_dir().display()
        )
    });
    corpus.join(file)
}

/// Reads, checks and grounds the game file at `path` with the default options; panics naming
/// the file if it does not ground.
pub fn load(path: &Path) -> GroundGame {
    symgame_ground::load(path, &GroundOptions::default())
        .unwrap_or_else(|e| panic!("{} does not ground: {e}", path.display()))
}

/// Reads, checks and grounds the fixture game `name` of `gdl/` (see [`gdl_path`]).
pub fn load_game(name: &str) -> GroundGame {
    load(&gdl_path(name))
}

/// Parses and checks a description given as text, named `file` in its errors.
pub fn check_text(file: &str, text: &str) -> Result<CheckedDescription, symgame_gdl::Error> {
    symgame_gdl::check(symgame_gdl::parse(symgame_gdl::Source::new(file, text))?)
}

/// Parses, checks and grounds a description given as text (named `test.kif` in its errors),
/// with the default grounding options.
pub fn ground_text(text: &str) -> Result<GroundGame, symgame_gdl::Error> {
    symgame_ground::ground(&check_text("test.kif", text)?, &GroundOptions::default())
}

/// [`ground_text`] for a description that must ground: panics with the error otherwise.
pub fn from_text(text: &str) -> GroundGame {
    ground_text(text).unwrap_or_else(|e| panic!("the test description does not ground: {e}"))
}

/// Symbolic options that compile a game within each layer: no condition is compiled over all
/// states (a budget of 0 nodes), so every compilation falls back to the layer at hand.
pub fn layerwise_options() -> SymbolicOptions {
    SymbolicOptions {
        layerwise_fallback: true,
        max_condition_nodes: 0,
        // Every layer compiled: the tests of the compiled way must not see explicit layers.
        explicit_layers: symgame_symbolic::ExplicitLayerMode::Never,
        ..Default::default()
    }
}

/// Empties (or creates) the directory `dir` and returns it: a fresh place for one test's files.
pub fn fresh_dir(dir: PathBuf) -> PathBuf {
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)
        .unwrap_or_else(|e| panic!("cannot create {}: {e}", dir.display()));
    dir
}

/// A fresh directory `GROUP/NAME` under the calling test crate's `CARGO_TARGET_TMPDIR` (see
/// [`fresh_dir`]); a macro because that variable exists only when the test crate is compiled.
#[macro_export]
macro_rules! scratch_dir {
    ($group:expr, $name:expr) => {
        $crate::fresh_dir(
            ::std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
                .join($group)
                .join($name),
        )
    };
}
