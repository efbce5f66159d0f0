//! BDD perfect hashing and ranked endgame databases.
//!
//! A state set held as a BDD is also a minimal perfect hash function: [`PerfectHash`] maps its
//! members onto `0..len` in the lexicographic order of their assignments (`rank`) and back
//! (`unrank`), each in O(number of variables) after one pass over the node table. A ranked
//! database stores, per layer of a game (or for the whole reachable set), the state-set BDD
//! and one packed value per rank: the index of the state's [`Outcome`] in a per-file
//! dictionary, `ceil(log2(outcomes))` bits each (2 bits for win/draw/loss).
//!
//! Main types:
//!
//! * [`PerfectHash`] (generic over the [`Count`] integer: `u64`, `u128` or `BigUint`) and
//!   [`AnyPerfectHash`] (the narrowest that fits);
//! * [`Schema`] and [`Outcome`]: what a file describes (fingerprint, opaque metadata, the
//!   counted variables, the outcome dictionary);
//! * [`Writer`] (and [`write`](fn@write)): atomic file writing, layer by layer, values streamed;
//! * [`Database`]: a file opened through a memory map, validated on open, answering
//!   [`Database::lookup`], `rank`, `unrank` and per-layer counts ([`LayerInfo`], [`Hit`]);
//! * [`Error`] with its [`ErrorKind`].
//!
//! The file format is documented in `docs/formats/database.md`.
//!
//! Architecture invariant: depends on symgame-bdd only (for the portable node table
//! [`symgame_bdd::BddNodes`] and variables); knows assignments and values, never games, GDL
//! or BDD engines. The only `unsafe` code is the memory map in `map.rs`.

mod count;
mod error;
mod format;
mod hash;
mod map;
mod read;
mod schema;
mod write;

pub use count::Count;
pub use error::{Error, ErrorKind, Result};
pub use format::{bits_per_value, Fingerprint, MAGIC, MAX_REWARD, MAX_VARS, VERSION};
pub use hash::{AnyPerfectHash, PerfectHash};
pub use read::{Database, Hit, LayerInfo};
pub use schema::{Outcome, Schema};
pub use write::{write, WriteSummary, Writer};
