//! Where a table comes from: a database file, a solution directory, a directory of databases
//! searched by fingerprint, or solving the game here within a time limit.
//!
//! Tables are opened with the default symbolic options (the encoding `symgame export` and
//! `symgame solve` use), so a database is found for a game exactly when its header's
//! fingerprint (a hash of the ground game and its variable order) is the game's.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use symgame_gamedb::{export, fingerprint, ExportOptions, GameDatabase};
use symgame_ground::GroundGame;
use symgame_symbolic::{Encoding, Limits, SymbolicOptions};

/// Opens the database at `path` for `game` (refused if it was made for another game).
pub fn open_database(path: &Path, game: GroundGame) -> symgame_gamedb::Result<GameDatabase> {
    GameDatabase::open(path, game, &SymbolicOptions::default())
}

/// The fingerprint a database of `game` carries in its header.
pub fn game_fingerprint(game: &GroundGame) -> symgame_db::Fingerprint {
    let enc = Encoding::with_options(game, &SymbolicOptions::default());
    fingerprint(game, &enc)
}

/// The first database file in `dir` (in name order) made for `game` (see [`table_in_dir`]).
pub fn find_in_dir(dir: &Path, game: &GroundGame) -> Option<PathBuf> {
    table_in_dir(dir, game).map(|(path, _)| path)
}

/// The first database file in `dir` (in name order) made for `game`, with the result of
/// opening it: first by the fingerprint in the files' headers (that of the encoding with proven
/// groups); then, among the other database files, the first that opens, its recorded encoding
/// fitting the game and giving its fingerprint (a table solved on assumed groups, or under a
/// deadline that cut the mutex proof short). Unreadable files, other files and hidden files
/// (the temporary files of writers) are passed over.
pub fn table_in_dir(
    dir: &Path,
    game: &GroundGame,
) -> Option<(PathBuf, symgame_gamedb::Result<GameDatabase>)> {
    let fp = game_fingerprint(game);
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| Some(e.ok()?.path()))
        // Hidden files are the writers' temporary files.
        .filter(|p| {
            p.is_file()
                && !p
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with('.'))
        })
        .collect();
    paths.sort();
    let headers: Vec<Option<symgame_db::Fingerprint>> =
        paths.iter().map(|p| header_fingerprint(p)).collect();
    if let Some(i) = headers.iter().position(|h| h.as_ref() == Some(&fp)) {
        let path = paths.swap_remove(i);
        let db = open_database(&path, game.clone());
        return Some((path, db));
    }
    paths
        .into_iter()
        .zip(headers)
        .filter(|(_, h)| h.is_some())
        .find_map(|(p, _)| {
            let db = open_database(&p, game.clone()).ok()?;
            Some((p, Ok(db)))
        })
}

/// The fingerprint in the header of the database file at `path` (bytes 16 to 48, after the
/// magic bytes, version and checksum; `docs/formats/database.md`).
fn header_fingerprint(path: &Path) -> Option<symgame_db::Fingerprint> {
    let mut head = [0u8; 48];
    std::fs::File::open(path).ok()?.read_exact(&mut head).ok()?;
    if head[..8] != symgame_db::MAGIC[..] {
        return None;
    }
    head[16..48].try_into().ok()
}

/// Where [`solve_table`] writes.
pub enum Keep<'a> {
    /// A temporary file, removed once opened (the open database maps it).
    Nowhere,
    /// A file in this directory, named after the game's fingerprint, kept for later matches.
    In(&'a Path),
}

/// Solves `game` (named `name` in the metadata) until `deadline` and opens its table; `None`
/// when the solver stopped at the deadline or the game is outside the solver (say, three
/// roles with simultaneous moves), with the reason.
pub fn solve_table(
    game: &GroundGame,
    name: &str,
    deadline: Instant,
    keep: Keep<'_>,
) -> Result<GameDatabase, String> {
    let left = deadline.saturating_duration_since(Instant::now());
    let opts = ExportOptions {
        symbolic: SymbolicOptions {
            setup_deadline: Some(deadline),
            ..SymbolicOptions::default()
        },
        limits: Limits {
            time_limit: Some(left),
            ..Limits::default()
        },
        game_name: name.to_string(),
        ..ExportOptions::default()
    };
    write_and_open(game, opts, keep)
}

/// The table of the solution directory `dir` (written by `symgame solve --out`).
pub fn solution_table(game: &GroundGame, name: &str, dir: &Path) -> Result<GameDatabase, String> {
    let opts = ExportOptions {
        solution: Some(dir.to_path_buf()),
        game_name: name.to_string(),
        ..ExportOptions::default()
    };
    write_and_open(game, opts, Keep::Nowhere)
}

fn write_and_open(
    game: &GroundGame,
    opts: ExportOptions,
    keep: Keep<'_>,
) -> Result<GameDatabase, String> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let (out, temporary) = match keep {
        Keep::Nowhere => {
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            let name = format!("symgame-player-{}-{n}.db", std::process::id());
            (std::env::temp_dir().join(name), true)
        }
        Keep::In(dir) => {
            // Named by the fingerprint alone: matches of one game share one file.
            let fp = game_fingerprint(game);
            let hex = String::from_utf8_lossy(&fp[..16]).into_owned();
            (dir.join(format!("symgame-{hex}.db")), false)
        }
    };
    let done = export(game, &out, &opts, |_| {}).map_err(|e| e.to_string())?;
    if done.written.is_none() {
        let why = done
            .stopped()
            .map_or("stopped".to_string(), |r| r.to_string());
        return Err(format!("the solver stopped: {why}"));
    }
    let db = open_database(&out, game.clone()).map_err(|e| e.to_string());
    if temporary {
        // The database maps the file; on Unix the mapping outlives the name.
        let _ = std::fs::remove_file(&out);
    }
    db
}
