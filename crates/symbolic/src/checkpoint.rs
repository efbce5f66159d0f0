//! Reachability kept on disk layer by layer, so that a stopped or killed run goes on from its
//! last finished layer (`reach --resume DIR`).
//!
//! The directory holds `reach.json`, the manifest, and one file per layer (`reach-0007.layer`,
//! the binary format of solution files: [`write_stored`]). The manifest is rewritten
//! atomically after each layer's successors are all known, and only then: it lists the
//! finished layers (their counts, as the report gives them) and says whether the layer file
//! after them, the frontier, is the last. Whatever kills a run, the manifest on disk describes
//! finished layers whose files are complete, and a resumed run starts from the frontier of the
//! last manifest written. The manifest records the encoding too, so that a resumed run reads
//! the layers over the same variables without proving the fluent groups again; its fingerprint
//! ([`fingerprint`]) ties it to the ground game. A layer expanded in slices (`reach --jobs N`,
//! module `reach_slices`) has its slices' files there too while it is expanded.

use std::path::{Path, PathBuf};

use num_bigint::BigUint;
use serde::{Deserialize, Serialize};
use symgame_bdd::BddEngine;
use symgame_ground::GroundGame;

use crate::encoding::Encoding;
use crate::reach_stats::LayerStats;
use crate::solve::files::{
    check_manifest_sum, fingerprint, read_stored, remove_stale_temporaries, write_checksummed,
    write_stored, FileError, StoredClass, StoredLayer, NO_CHECKSUM,
};

/// The manifest's file name inside a reachability directory.
pub const REACH_MANIFEST: &str = "reach.json";
const FORMAT: &str = "symgame-reach";
const VERSION: u32 = 1;
/// What to do about a directory that cannot be resumed.
const AGAIN: &str = "remove the directory (or give another) to start the search again";

/// The manifest of a reachability directory.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReachManifest {
    /// Always `"symgame-reach"`.
    pub format: String,
    /// The manifest's version (1).
    pub version: u32,
    /// CRC-32 of the file, 8 hex digits, computed with these digits as `00000000`.
    pub checksum: String,
    /// Fingerprint of the ground game and the encoding.
    pub fingerprint: String,
    /// The encoding the layer files are over.
    pub encoding: Encoding,
    /// The finished layers, whose successors are all in the layer after them; their seconds
    /// count over every sitting.
    pub layers: Vec<LayerStats>,
    /// Whether the search is complete: the last finished layer has no new successor.
    pub complete: bool,
    /// Whether every layer so far lies in its own level of the game's potential, so that no
    /// later layer needs the difference with the earlier ones yet.
    pub layered: bool,
    /// Whether some layer had a successor in an earlier layer.
    pub revisited: bool,
    /// How many of the first layers were expanded state by state.
    pub explicit_layers: usize,
    /// The sittings the search took so far (1 for a run never resumed).
    pub sittings: u32,
    /// Seconds of all sittings up to the last finished layer.
    pub seconds: f64,
}

/// A reachability directory, open for a run: the manifest found there, if any, and the one
/// this run writes.
pub struct ReachStore {
    dir: PathBuf,
    previous: Option<ReachManifest>,
    current: Option<ReachManifest>,
}

/// The frontier and earlier layers of a search read back from a [`ReachStore`].
pub(crate) struct ReadBack<E: BddEngine> {
    /// The manifest they were read from.
    pub(crate) manifest: ReachManifest,
    /// The first layer not finished.
    pub(crate) frontier: E::Bdd,
    /// The union of the finished layers.
    pub(crate) reached: E::Bdd,
}

impl ReachStore {
    /// Opens `dir` (created if missing) for a search of `game`: a manifest found there must be
    /// readable, unaltered (its checksum) and of this game (its fingerprint with its encoding).
    pub fn open(dir: &Path, game: &GroundGame) -> Result<ReachStore, FileError> {
        std::fs::create_dir_all(dir).map_err(|e| FileError::io(dir, e))?;
        remove_stale_temporaries(dir, is_ours)?;
        let path = dir.join(REACH_MANIFEST);
        let previous = match std::fs::read_to_string(&path) {
            Ok(text) => Some(parse_manifest(&path, &text, game)?),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(FileError::io(&path, e)),
        };
        Ok(ReachStore {
            dir: dir.to_path_buf(),
            previous,
            current: None,
        })
    }

    /// The manifest found when the directory was opened.
    pub fn previous(&self) -> Option<&ReachManifest> {
        self.previous.as_ref()
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The fingerprint of the search this run keeps (once begun or resumed).
    pub(crate) fn fingerprint(&self) -> Option<&str> {
        self.current.as_ref().map(|m| m.fingerprint.as_str())
    }

    /// The manifest of the search kept in `dir`, checked as [`ReachStore::open`] checks it,
    /// without touching the directory (a slice job reads it while other jobs write there).
    pub fn read_manifest(dir: &Path, game: &GroundGame) -> Result<ReachManifest, FileError> {
        let path = dir.join(REACH_MANIFEST);
        let text = std::fs::read_to_string(&path).map_err(|e| FileError::io(&path, e))?;
        parse_manifest(&path, &text, game)
    }

    /// Starts a new search over `encoding`: the manifest and layer files found are removed.
    pub fn begin(&mut self, game: &GroundGame, encoding: &Encoding) -> Result<(), FileError> {
        remove_ours(&self.dir)?;
        self.previous = None;
        self.current = Some(ReachManifest {
            format: FORMAT.to_string(),
            version: VERSION,
            checksum: NO_CHECKSUM.to_string(),
            fingerprint: fingerprint(game, encoding),
            encoding: encoding.clone(),
            layers: Vec::new(),
            complete: false,
            layered: true,
            revisited: false,
            explicit_layers: 0,
            sittings: 1,
            seconds: 0.0,
        });
        Ok(())
    }

    /// Whether this run goes on from layers found in the directory (else it starts anew with
    /// [`ReachStore::begin`] and its first layer).
    pub(crate) fn resuming(&self) -> bool {
        self.current.is_none() && self.previous.as_ref().is_some_and(|m| !m.complete)
    }

    /// The complete search found in the directory, if no search was begun since.
    pub(crate) fn complete(&self) -> Option<&ReachManifest> {
        match self.current {
            None => self.previous.as_ref().filter(|m| m.complete),
            Some(_) => None,
        }
    }

    /// Reads the frontier back, with the union of the finished layers unless the search lies
    /// in potential levels and `layered_union` is false (the search then reads them only if
    /// that ends: [`LayerReader`]), and makes their manifest this run's (one more sitting).
    pub(crate) fn resume<E: BddEngine>(
        &mut self,
        e: &E,
        layered_union: bool,
    ) -> Result<ReadBack<E>, FileError> {
        let mut manifest = self
            .previous
            .clone()
            .ok_or_else(|| FileError::format(&self.dir, "no search to resume"))?;
        let n = manifest.layers.len();
        let reader = LayerReader {
            dir: self.dir.clone(),
            fingerprint: manifest.fingerprint.clone(),
        };
        let reached = match manifest.layered && !layered_union {
            true => e.constant(false),
            false => reader.union(e, n)?,
        };
        let frontier = reader.read(e, n)?;
        manifest.sittings += 1;
        self.current = Some(manifest.clone());
        Ok(ReadBack {
            manifest,
            frontier,
            reached,
        })
    }

    /// Keeps layer `k` (written before the manifest that names it finished).
    pub(crate) fn save_layer<E: BddEngine>(
        &self,
        e: &E,
        k: usize,
        layer: &E::Bdd,
    ) -> Result<(), FileError> {
        let fingerprint = self.current.as_ref().map(|m| m.fingerprint.clone());
        let stored = StoredLayer {
            fingerprint: fingerprint.unwrap_or_default(),
            depth: Some(k as u32),
            classes: vec![StoredClass {
                outcome: 0,
                distance: None,
                nodes: e.export(layer),
            }],
        };
        write_stored(&self.layer_path(k), &stored)
    }

    /// Rewrites the manifest: `layers` are finished; `complete` if nothing follows them.
    pub(crate) fn save(
        &mut self,
        layers: &[LayerStats],
        complete: bool,
        layered: bool,
        revisited: bool,
        explicit_layers: usize,
    ) -> Result<(), FileError> {
        let path = self.dir.join(REACH_MANIFEST);
        let Some(m) = self.current.as_mut() else {
            return Err(FileError::format(&path, "no search begun"));
        };
        m.layers = layers.to_vec();
        m.complete = complete;
        m.layered = layered;
        m.revisited = revisited;
        m.explicit_layers = explicit_layers;
        m.seconds = layers.last().map_or(m.seconds, |l| l.seconds);
        m.checksum = NO_CHECKSUM.to_string();
        write_checksummed(&path, m)
    }

    fn layer_path(&self, k: usize) -> PathBuf {
        layer_file(&self.dir, k)
    }

    /// Reads the search's layers back from the directory (once begun or resumed).
    pub(crate) fn layer_reader(&self) -> Option<LayerReader> {
        Some(LayerReader {
            dir: self.dir.clone(),
            fingerprint: self.fingerprint()?.to_string(),
        })
    }
}

/// Reads the layers of a search kept in a directory back: a layered search kept there does not
/// hold its finished layers in memory, and needs them only if a layer stops lying in its own
/// level of the potential.
#[derive(Clone, Debug)]
pub(crate) struct LayerReader {
    dir: PathBuf,
    fingerprint: String,
}

impl LayerReader {
    /// Layer `k`, checked to be of this search.
    pub(crate) fn read<E: BddEngine>(&self, e: &E, k: usize) -> Result<E::Bdd, FileError> {
        let path = layer_file(&self.dir, k);
        let stored = read_stored(&path)?;
        if stored.fingerprint != self.fingerprint || stored.depth != Some(k as u32) {
            return Err(FileError::format(
                &path,
                &format!("not layer {k} of the search in this directory; {AGAIN}"),
            ));
        }
        let [class] = <[StoredClass; 1]>::try_from(stored.classes)
            .map_err(|_| FileError::format(&path, "a layer file of more than one set"))?;
        e.import(&class.nodes).map_err(|err| {
            FileError::format(&path, &format!("cannot be read into the BDD engine: {err}"))
        })
    }

    /// The union of layers `0..n`.
    pub(crate) fn union<E: BddEngine>(&self, e: &E, n: usize) -> Result<E::Bdd, FileError> {
        let mut reached = e.constant(false);
        for k in 0..n {
            let layer = self.read(e, k)?;
            reached = e.or(&reached, &layer).map_err(|err| {
                FileError::format(
                    &layer_file(&self.dir, k),
                    &format!("cannot be read into the BDD engine: {err}"),
                )
            })?;
        }
        Ok(reached)
    }
}

/// The file of layer `k` in `dir`.
fn layer_file(dir: &Path, k: usize) -> PathBuf {
    dir.join(format!("reach-{k:04}.layer"))
}

/// The manifest in `text`, checked: format, version, checksum, the encoding fits `game` and
/// gives the fingerprint.
fn parse_manifest(path: &Path, text: &str, game: &GroundGame) -> Result<ReachManifest, FileError> {
    let m: ReachManifest = serde_json::from_str(text).map_err(|e| {
        FileError::format(path, &format!("not a symgame reach manifest: {e}; {AGAIN}"))
    })?;
    if m.format != FORMAT || m.version != VERSION {
        return Err(FileError::format(
            path,
            &format!(
                "format {:?} version {}, but this build reads {FORMAT:?} version {VERSION}",
                m.format, m.version
            ),
        ));
    }
    check_manifest_sum(path, text, &m.checksum, AGAIN)?;
    let enc = m
        .encoding
        .clone()
        .checked(game.fluents.len())
        .map_err(|e| {
            FileError::format(
                path,
                &format!("the encoding of another game ({e}); {AGAIN}"),
            )
        })?;
    if fingerprint(game, &enc) != m.fingerprint {
        return Err(FileError::format(
            path,
            &format!("the layers of another game (its fingerprint differs); {AGAIN}"),
        ));
    }
    let total: BigUint = m.layers.iter().map(|l| &l.states).sum();
    if m.layers.is_empty() && m.complete || total == BigUint::default() && !m.layers.is_empty() {
        return Err(FileError::format(
            path,
            &format!("inconsistent layer counts; {AGAIN}"),
        ));
    }
    Ok(ReachManifest { encoding: enc, ..m })
}

/// Whether `name` is the manifest or a layer file of a search (its slices' files
/// included: `reach-slice-...`, `reach-expand-...`).
fn is_ours(name: &str) -> bool {
    name == REACH_MANIFEST
        || name.starts_with("reach-") && name.ends_with(".layer")
        || name.starts_with("reach-slice-")
}

/// Removes the manifest and layer files of a search in `dir` (only ours).
fn remove_ours(dir: &Path) -> Result<(), FileError> {
    let entries = std::fs::read_dir(dir).map_err(|e| FileError::io(dir, e))?;
    for entry in entries.flatten() {
        let p = entry.path();
        if is_ours(&entry.file_name().to_string_lossy()) {
            std::fs::remove_file(&p).map_err(|e| FileError::io(&p, e))?;
        }
    }
    Ok(())
}
