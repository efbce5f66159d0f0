//! What a game database says about itself: the JSON in the file's metadata section.

use serde::{Deserialize, Serialize};
use symgame_db::Fingerprint;
use symgame_ground::GroundGame;
use symgame_symbolic::{Encoding, GameKind};

use crate::error::{Error, ErrorKind, Result};

/// The value of [`Metadata::format`].
pub const FORMAT: &str = "symgame-game-database";

/// The metadata version this crate writes. Version 3 added [`Metadata::mixed`] (games with
/// simultaneous moves solved in mixed strategies); version 2 files, which cannot hold such
/// games, are still read.
pub const METADATA_VERSION: u32 = 3;

/// The oldest metadata version this crate reads.
pub const OLDEST_METADATA_VERSION: u32 = 2;

/// What the layers of a database are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Layering {
    /// One layer per BFS depth (the layered solver ran): layer `k` holds the states first
    /// reached after `k` moves, which in these games is every state after `k` moves.
    BfsDepth,
    /// One layer (number 0) holding every solved reachable state.
    WholeSet,
}

/// The metadata section of a game database (UTF-8 JSON): enough to check that a query uses
/// the matching game and to read the values without the solver.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Metadata {
    /// Always [`FORMAT`].
    pub format: String,
    /// [`METADATA_VERSION`].
    pub version: u32,
    /// The game file's name (without its directory).
    pub game: String,
    /// The fingerprint of the ground game and encoding (32 hex characters,
    /// [`symgame_symbolic::fingerprint`]); the file header holds the same characters.
    pub fingerprint: String,
    /// The roles, in role order (the order of the rewards in every outcome).
    pub roles: Vec<String>,
    /// Which retrograde algorithm solved the game.
    pub kind: GameKind,
    /// What the layers are.
    pub layers: Layering,
    /// What a value means.
    pub values: String,
    /// What an outcome's distance means (`None`: the outcomes carry no distance).
    pub distance: Option<String>,
    /// Reachable states.
    pub states: String,
    /// Reachable states without a value (only in games with cycles); they are not in the file.
    pub unsolved: String,
    /// The fluent groups in variable order: how the counted (current-state) variables encode
    /// a state.
    pub groups: Vec<GroupLayout>,
    /// The variable layout, as the symbolic crate serialises it.
    pub encoding: Encoding,
    /// [`GameKind::MixedValues`]: per value of the database's outcome list (indexed like it),
    /// each role's value in mixed strategies; the outcome's rewards are then the roles' pure
    /// security levels. Empty for other kinds (and in version 2 files).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mixed: Vec<Vec<f64>>,
}

impl Metadata {
    /// The JSON bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        serde_json::to_vec_pretty(self).expect("metadata always serialises")
    }

    /// Parse the metadata of a database file.
    pub fn from_bytes(bytes: &[u8]) -> Result<Metadata> {
        let m: Metadata = serde_json::from_slice(bytes).map_err(|e| {
            Error::new(
                ErrorKind::Metadata,
                format!("the metadata is not that of a symgame game database: {e}"),
            )
        })?;
        if m.format != FORMAT || !(OLDEST_METADATA_VERSION..=METADATA_VERSION).contains(&m.version)
        {
            return Err(Error::new(
                ErrorKind::Metadata,
                format!(
                    "metadata format {:?} version {}, but this program reads {FORMAT:?} versions \
                     {OLDEST_METADATA_VERSION} to {METADATA_VERSION}",
                    m.format, m.version
                ),
            ));
        }
        Ok(m)
    }
}

/// One group of fluents of the encoding, as the metadata spells it out for other programs.
///
/// The group's `variables` hold a binary code, most significant bit first. When `exactly_one`,
/// code `k` means `fluents[k]` is the true one; otherwise code 0 means none of them is true and
/// code `k + 1` means `fluents[k]` is. A group of one fluent that is not `exactly_one` is a plain
/// bit (1 = true).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GroupLayout {
    /// The ground fluents of the group, in code order.
    pub fluents: Vec<String>,
    /// Whether exactly one of them is true in every reachable state.
    pub exactly_one: bool,
    /// The group's current-state variables (BDD variable indices), most significant first.
    pub variables: Vec<u32>,
}

/// The groups of `enc`, in variable order, with the ground fluents named.
pub(crate) fn group_layouts(game: &GroundGame, enc: &Encoding) -> Vec<GroupLayout> {
    enc.fluent_groups()
        .iter()
        .enumerate()
        .map(|(g, group)| GroupLayout {
            fluents: group
                .fluents
                .iter()
                .map(|&f| game.fluents[f].to_string())
                .collect(),
            exactly_one: group.exactly_one,
            variables: enc.group_bits(g).map(Encoding::current_bit_var).collect(),
        })
        .collect()
}

/// The database fingerprint of a symbolic fingerprint: its 32 hex characters as bytes (so a
/// hex dump of the header shows the same text as the solution files and the metadata).
pub fn fingerprint_bytes(hex: &str) -> Fingerprint {
    let mut f = [0u8; 32];
    let b = hex.as_bytes();
    let n = b.len().min(32);
    f[..n].copy_from_slice(&b[..n]);
    f
}

/// The fingerprint of `game` under `enc`, as stored in database headers.
pub fn fingerprint(game: &GroundGame, enc: &Encoding) -> Fingerprint {
    fingerprint_bytes(&symgame_symbolic::fingerprint(game, enc))
}
