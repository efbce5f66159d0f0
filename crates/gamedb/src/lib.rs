//! Game databases: a strongly solved GDL game as a ranked database file, and queries about
//! its states in the game's own terms.
//!
//! The database crate (`symgame-db`) knows assignments and outcome values, never games; the
//! solver (`symgame-symbolic`) knows games and BDDs, never files of packed values. This crate
//! joins them:
//!
//! * [`export`] (with [`ExportOptions`], [`Exported`]): solve a game (or read a solution
//!   directory) and stream it, layer by layer, into a `symgame_db::Writer`: each layer's
//!   state set is the union of its value classes, each state's value the index of its
//!   outcome (rewards per role; for single-player games also the distance to the best
//!   reward). The header's fingerprint and the [`Metadata`] (roles, kind, fluents in variable
//!   order, the encoding) tie the file to the ground game and variable order.
//! * [`GameDatabase`]: open a file for a given game (refused if the fingerprints differ),
//!   turn GDL fluents or moves into states ([`GameDatabase::state_of`],
//!   [`GameDatabase::play`]) and ranks back into states ([`GameDatabase::unrank`]), and answer
//!   a state's value, layer, rank and optimal moves ([`GameDatabase::answer`]; successors come
//!   from the explicit reasoner and are looked up in the file).
//! * [`Error`] with its [`ErrorKind`].
//!
//! ```no_run
//! use std::path::Path;
//! use symgame_gamedb::{export, ExportOptions, GameDatabase};
//! use symgame_ground::GroundTerm;
//!
//! let game = symgame_ground::load(Path::new("gdl/tictactoe.kif"), &Default::default())?;
//! let out = Path::new("tictactoe.db");
//! let opts = ExportOptions { game_name: "tictactoe.kif".into(), ..Default::default() };
//! export(&game, out, &opts, |_| {})?;
//! let db = GameDatabase::open(out, game, &Default::default())?;
//! let state = db.play(&GroundTerm::parse_sequence("(mark 2 2) (mark 1 2)")?)?;
//! let answer = db.answer(&state)?;
//! println!("rewards {:?}, {} optimal moves", answer.value.rewards, answer.optimal().count());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Architecture invariant: the only crate that depends on both the solver and the database
//! crate. Queries need no BDD engine: states become assignments through the encoding, and
//! successors come from the explicit reasoner, independent of the BDD code that wrote the file.

mod error;
mod export;
mod metadata;
mod query;

pub use error::{Error, ErrorKind, Result};
pub use export::{export, ExportOptions, Exported, ExportedLayer};
pub use metadata::{
    fingerprint, fingerprint_bytes, GroupLayout, Layering, Metadata, FORMAT, METADATA_VERSION,
};
pub use query::{Answer, GameDatabase, Strategies, Successor, Value};
