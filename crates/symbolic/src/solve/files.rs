//! Solution files: value classes as portable BDD node tables, written atomically.
//!
//! Format (documented for users in `docs/formats/solution.md`): a directory with
//! `solution.json` (the manifest, written last) and one binary file per solved layer
//! (`layer-0007.sol`) or one for the whole reachable set (`all.sol`). A binary file is
//! `MAGIC` (8 bytes), the format version (u32 LE), the payload length (u64 LE), the FNV-1a 64
//! checksum of the payload (u64 LE), then the payload: a [`StoredLayer`] in bincode's standard
//! configuration.

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use symgame_bdd::BddNodes;
use symgame_ground::GroundGame;

use crate::encoding::Encoding;
use crate::solve::stats::SolveStats;

/// The first 8 bytes of every binary solution or layer file.
pub const MAGIC: [u8; 8] = *b"SYMGSOL\n";
/// The version of the binary format this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;
/// The version of the manifest this build writes and reads (2: with a checksum).
pub const MANIFEST_VERSION: u32 = 2;
/// The manifest's file name inside a solution directory.
pub const MANIFEST: &str = "solution.json";

const HEADER_LEN: usize = 8 + 4 + 8 + 8;

/// One value class in a file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredClass {
    /// Index into the manifest's `outcomes`.
    pub outcome: u32,
    /// Single-player games: distance to the best reward.
    pub distance: Option<u32>,
    /// The states.
    pub nodes: BddNodes,
}

/// The content of one binary file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredLayer {
    /// Fingerprint of the ground game and encoding ([`fingerprint`]).
    pub fingerprint: String,
    /// BFS depth, or `None` for the whole reachable set.
    pub depth: Option<u32>,
    /// The classes.
    pub classes: Vec<StoredClass>,
}

/// The manifest `solution.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// Always `"symgame-solution"`.
    pub format: String,
    /// [`MANIFEST_VERSION`].
    pub version: u32,
    /// CRC-32 of the manifest file, 8 hex digits: of its exact bytes with these 8 digits
    /// replaced by `00000000`. Empty in manifests of version 1 (which are refused).
    #[serde(default)]
    pub checksum: String,
    /// Fingerprint of the ground game and encoding.
    pub fingerprint: String,
    /// Whether every layer was solved (false after a limit or Ctrl-C).
    pub complete: bool,
    /// The binary files, with their depth (`None`: the whole reachable set).
    pub files: Vec<(Option<u32>, String)>,
    /// The statistics of the run (roles, outcomes, per-layer counts, ...).
    pub stats: SolveStats,
    /// The encoding the solution's BDDs are over (the fingerprint covers it). The readers use
    /// it rather than proving the fluent groups again, which could end elsewhere (a proof that
    /// gave up at the solver's deadline, or groups the solver assumed and checked on every
    /// reachable state). Absent in manifests written before it was added.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encoding: Option<Encoding>,
}

/// A file that could not be read or written.
#[derive(Debug)]
pub struct FileError {
    /// The file.
    pub path: PathBuf,
    /// What went wrong.
    pub message: String,
}

impl FileError {
    pub(crate) fn io(path: &Path, e: std::io::Error) -> Self {
        FileError {
            path: path.to_path_buf(),
            message: e.to_string(),
        }
    }

    pub(crate) fn format(path: &Path, message: &str) -> Self {
        FileError {
            path: path.to_path_buf(),
            message: message.to_string(),
        }
    }
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.message)
    }
}

impl std::error::Error for FileError {}

/// FNV-1a, 64 bits, from `seed`.
fn fnv1a(seed: u64, bytes: &[u8]) -> u64 {
    let mut h = seed;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// A fingerprint of a ground game and its encoding: 128 bits in hex, from the roles, moves,
/// fluents and the variable layout. Files carry it so that a solution is never read against
/// another game or order. (Not cryptographic: it detects mistakes, not forgeries.)
pub fn fingerprint(game: &GroundGame, enc: &Encoding) -> String {
    let mut text = String::new();
    for r in &game.roles {
        text.push_str(&format!("role {}\n", r.name));
        for m in &r.moves {
            text.push_str(&format!("move {m}\n"));
        }
    }
    for f in &game.fluents {
        text.push_str(&format!("fluent {f}\n"));
    }
    let layout = bincode::serde::encode_to_vec(enc, bincode::config::standard())
        .expect("an encoding always serialises");
    let mut bytes = text.into_bytes();
    bytes.extend_from_slice(&layout);
    let a = fnv1a(FNV_OFFSET, &bytes);
    let b = fnv1a(a ^ 0x9e37_79b9_7f4a_7c15, &bytes);
    format!("{a:016x}{b:016x}")
}

/// Writes `bytes` to `path` atomically: a temporary file in the same directory, flushed to
/// disk, then renamed over `path`.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), FileError> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(FileError::io(path, e));
    }
    Ok(())
}

/// Removes the temporary files a killed run left in `dir` while writing a file whose name
/// `ours` accepts (`.<name>.<pid>.tmp`: [`write_atomic`]).
pub(crate) fn remove_stale_temporaries(
    dir: &Path,
    ours: impl Fn(&str) -> bool,
) -> Result<(), FileError> {
    let entries = std::fs::read_dir(dir).map_err(|e| FileError::io(dir, e))?;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        let target = name
            .strip_prefix('.')
            .and_then(|n| n.strip_suffix(".tmp"))
            .and_then(|n| n.rsplit_once('.'))
            .filter(|(_, pid)| !pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit()));
        if target.is_some_and(|(n, _)| ours(n)) {
            let p = entry.path();
            std::fs::remove_file(&p).map_err(|e| FileError::io(&p, e))?;
        }
    }
    Ok(())
}

/// Writes one binary file.
pub fn write_stored(path: &Path, layer: &StoredLayer) -> Result<(), FileError> {
    let payload = bincode::serde::encode_to_vec(layer, bincode::config::standard())
        .map_err(|e| FileError::format(path, &format!("cannot encode: {e}")))?;
    let mut bytes = Vec::with_capacity(HEADER_LEN + payload.len());
    bytes.extend_from_slice(&MAGIC);
    bytes.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    bytes.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&fnv1a(FNV_OFFSET, &payload).to_le_bytes());
    bytes.extend_from_slice(&payload);
    write_atomic(path, &bytes)
}

/// Reads one binary file, checking magic, version, length and checksum, and that every node
/// table is well formed.
pub fn read_stored(path: &Path) -> Result<StoredLayer, FileError> {
    let bytes = std::fs::read(path).map_err(|e| FileError::io(path, e))?;
    let payload = checked_payload(path, &bytes)?;
    let (layer, used): (StoredLayer, usize) =
        bincode::serde::decode_from_slice(payload, bincode::config::standard())
            .map_err(|e| FileError::format(path, &format!("malformed payload: {e}")))?;
    if used != payload.len() {
        return Err(FileError::format(path, "trailing bytes after the payload"));
    }
    for c in &layer.classes {
        c.nodes
            .validate(c.nodes.num_vars)
            .map_err(|e| FileError::format(path, &e.to_string()))?;
    }
    Ok(layer)
}

/// Checks the header and the checksum of the solution file at `path` without decoding it.
pub(crate) fn check_stored(path: &Path) -> Result<(), FileError> {
    let bytes = std::fs::read(path).map_err(|e| FileError::io(path, e))?;
    checked_payload(path, &bytes).map(drop)
}

/// The payload of a solution file's `bytes`, its magic bytes, version, length and checksum
/// checked.
fn checked_payload<'b>(path: &Path, bytes: &'b [u8]) -> Result<&'b [u8], FileError> {
    if bytes.len() < 8 || bytes[..8] != MAGIC {
        return Err(FileError::format(
            path,
            "not a symgame solution file (wrong magic bytes)",
        ));
    }
    if bytes.len() < HEADER_LEN {
        return Err(FileError::format(path, "truncated header"));
    }
    let word = |at: usize, n: usize| -> u64 {
        let mut b = [0u8; 8];
        b[..n].copy_from_slice(&bytes[at..at + n]);
        u64::from_le_bytes(b)
    };
    let version = word(8, 4) as u32;
    if version != FORMAT_VERSION {
        return Err(FileError::format(
            path,
            &format!("format version {version}, but this build reads version {FORMAT_VERSION}"),
        ));
    }
    let len = word(12, 8);
    let sum = word(20, 8);
    let payload = &bytes[HEADER_LEN..];
    if payload.len() as u64 != len {
        return Err(FileError::format(
            path,
            &format!(
                "truncated or padded: the header announces {len} payload bytes, the file has {}",
                payload.len()
            ),
        ));
    }
    if fnv1a(FNV_OFFSET, payload) != sum {
        return Err(FileError::format(
            path,
            "checksum mismatch: the file is corrupted",
        ));
    }
    Ok(payload)
}

/// The binary file name of a layer (`None`: the whole set).
pub fn layer_file_name(depth: Option<u32>) -> String {
    match depth {
        Some(d) => format!("layer-{d:04}.sol"),
        None => "all.sol".to_string(),
    }
}

/// Creates `dir` and removes the files of an earlier solution in it (only ours: the manifest
/// and `*.sol` files).
pub(crate) fn prepare_dir(dir: &Path) -> Result<(), FileError> {
    std::fs::create_dir_all(dir).map_err(|e| FileError::io(dir, e))?;
    let entries = std::fs::read_dir(dir).map_err(|e| FileError::io(dir, e))?;
    for entry in entries.flatten() {
        let p = entry.path();
        let ours = p.file_name().is_some_and(|n| n == MANIFEST)
            || p.extension().is_some_and(|x| x == "sol");
        if ours {
            std::fs::remove_file(&p).map_err(|e| FileError::io(&p, e))?;
        }
    }
    Ok(())
}

pub(crate) fn write_layer(
    dir: &Path,
    fingerprint: &str,
    depth: Option<usize>,
    classes: &[StoredClass],
) -> Result<(), FileError> {
    let depth = depth.map(|d| d as u32);
    let stored = StoredLayer {
        fingerprint: fingerprint.to_string(),
        depth,
        classes: classes.to_vec(),
    };
    write_stored(&dir.join(layer_file_name(depth)), &stored)
}

pub(crate) fn write_manifest(
    dir: &Path,
    fingerprint: &str,
    encoding: &Encoding,
    stats: &SolveStats,
    complete: bool,
) -> Result<(), FileError> {
    let files = if stats.layered {
        stats
            .layers
            .iter()
            .map(|l| {
                let d = Some(l.depth as u32);
                (d, layer_file_name(d))
            })
            .collect()
    } else if complete {
        vec![(None, layer_file_name(None))]
    } else {
        Vec::new()
    };
    let m = Manifest {
        format: "symgame-solution".to_string(),
        version: MANIFEST_VERSION,
        checksum: String::new(),
        fingerprint: fingerprint.to_string(),
        complete,
        files,
        stats: stats.clone(),
        encoding: Some(encoding.clone()),
    };
    write_manifest_file(dir, &m)
}

/// The encoding a solution directory's manifest records, if it is `game`'s: it fits the game
/// ([`Encoding::checked`]) and gives the manifest's fingerprint with it. `None` otherwise (a
/// manifest written before the encoding was recorded, a solution of another game, or a
/// manifest that cannot be read: [`read_solution`](crate::read_solution) then says why).
pub fn solution_encoding(dir: &Path, game: &GroundGame) -> Option<Encoding> {
    let m = read_manifest(dir).ok()?;
    let enc = m.encoding?.checked(game.fluents.len()).ok()?;
    (fingerprint(game, &enc) == m.fingerprint).then_some(enc)
}

/// Writes `m` as the manifest of `dir` (atomically), with its checksum computed (the field
/// `checksum` of `m` is ignored).
pub fn write_manifest_file(dir: &Path, m: &Manifest) -> Result<(), FileError> {
    let m = Manifest {
        checksum: NO_CHECKSUM.to_string(),
        ..m.clone()
    };
    write_checksummed(&dir.join(MANIFEST), &m)
}

/// Writes `value` as pretty JSON to `path` (atomically), its `checksum` field (which must be
/// [`NO_CHECKSUM`] in `value`) set to the CRC-32 of the text with that field zeroed.
pub(crate) fn write_checksummed<T: Serialize>(path: &Path, value: &T) -> Result<(), FileError> {
    let text = serde_json::to_string_pretty(value)
        .map_err(|e| FileError::format(path, &format!("cannot encode: {e}")))?;
    let field = checksum_field(NO_CHECKSUM);
    let sum = format!("{:08x}", crc32fast::hash(text.as_bytes()));
    let text = text.replacen(&field, &checksum_field(&sum), 1);
    write_atomic(path, text.as_bytes())
}

/// The checksum's value while it is computed.
pub(crate) const NO_CHECKSUM: &str = "00000000";

/// The checksum field as `serde_json::to_string_pretty` writes it.
fn checksum_field(value: &str) -> String {
    format!("\"checksum\": \"{value}\"")
}

/// Checks the manifest's checksum against the file's bytes `text`; `again` says what to do
/// about a corrupted one.
pub(crate) fn check_manifest_sum(
    path: &Path,
    text: &str,
    sum: &str,
    again: &str,
) -> Result<(), FileError> {
    let corrupted = |what: &str| {
        FileError::format(
            path,
            &format!("{what}: the manifest is corrupted or was edited; {again}"),
        )
    };
    let well_formed = sum.len() == 8 && sum.bytes().all(|b| b.is_ascii_hexdigit());
    let field = checksum_field(sum);
    if !well_formed || !text.contains(&field) {
        return Err(corrupted("malformed checksum field"));
    }
    let zeroed = text.replacen(&field, &checksum_field(NO_CHECKSUM), 1);
    let actual = format!("{:08x}", crc32fast::hash(zeroed.as_bytes()));
    if !actual.eq_ignore_ascii_case(sum) {
        return Err(corrupted(&format!(
            "checksum mismatch (the file says {sum}, its bytes give {actual})"
        )));
    }
    Ok(())
}

/// Reads a solution directory's manifest, checking its format, version and checksum (not
/// whether it is consistent: [`read_solution`](crate::read_solution) does that).
pub fn read_manifest(dir: &Path) -> Result<Manifest, FileError> {
    let path = dir.join(MANIFEST);
    let text = std::fs::read_to_string(&path).map_err(|e| FileError::io(&path, e))?;
    let m: Manifest = serde_json::from_str(&text)
        .map_err(|e| FileError::format(&path, &format!("not a solution manifest: {e}")))?;
    if m.format != "symgame-solution" {
        return Err(FileError::format(&path, "not a symgame solution manifest"));
    }
    if m.version == 1 {
        return Err(FileError::format(
            &path,
            "manifest format version 1 (written by an older symgame) has no checksum; solve \
             the game again to rewrite the solution",
        ));
    }
    if m.version != MANIFEST_VERSION {
        return Err(FileError::format(
            &path,
            &format!(
                "manifest format version {}, but this build reads version {MANIFEST_VERSION}",
                m.version
            ),
        ));
    }
    check_manifest_sum(&path, &text, &m.checksum, "solve the game again")?;
    Ok(m)
}
