//! The BFS layers spilled to files during layered solving ([`Spill`]): written by the forward
//! search, read back one at a time by the backward pass, removed at the end. A resumable solve
//! (`solve --resume DIR`) keeps them in its directory with [`FORWARD_MANIFEST`], written once
//! the forward search is complete, so that a solve stopped or killed in its backward pass goes
//! on without searching forward again.

use std::path::{Path, PathBuf};

use num_bigint::BigUint;
use serde::{Deserialize, Serialize};
use symgame_bdd::BddEngine;
use symgame_ground::GroundGame;

use crate::decimal;
use crate::encoding::Encoding;
use crate::game::SymbolicGame;
use crate::solve::error::SolveOrStop;
use crate::solve::files::{
    check_manifest_sum, fingerprint, read_stored, remove_stale_temporaries, write_checksummed,
    write_stored, FileError, StoredClass, StoredLayer, NO_CHECKSUM,
};

/// The manifest of the forward layers kept in a resumable solve's directory.
pub const FORWARD_MANIFEST: &str = "forward.json";

/// What the forward search of a resumable solve found, kept with its layers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct ForwardManifest {
    /// Always `"symgame-forward"`.
    pub(crate) format: String,
    /// CRC-32 of the file, as in solution manifests.
    pub(crate) checksum: String,
    /// Fingerprint of the ground game and encoding.
    pub(crate) fingerprint: String,
    /// The encoding the layers are over.
    pub(crate) encoding: Encoding,
    /// Whether the forward search is complete; if not, `frontier.layer` holds the first layer
    /// not finished.
    pub(crate) complete: bool,
    /// Number of finished layers (`bfs-0000.layer` to the last).
    pub(crate) depths: usize,
    /// Whether every move goes from a layer to the next (so far, while not complete).
    pub(crate) layered: bool,
    /// While not complete: whether every finished layer lies in its own level of the
    /// potential.
    pub(crate) potential: bool,
    /// Whether two roles have a choice in some reachable state.
    pub(crate) simultaneous: bool,
    /// Reachable states (decimal string).
    #[serde(with = "decimal")]
    pub(crate) states: BigUint,
    /// Layers expanded state by state.
    pub(crate) explicit_layers: usize,
}

impl ForwardManifest {
    /// Reads the forward manifest of `dir`, if there is one and it is `game`'s (else `None`:
    /// the forward search runs again).
    pub(crate) fn read(dir: &Path, game: &GroundGame) -> Option<ForwardManifest> {
        let m = ForwardManifest::read_any(dir)?;
        let enc = m.encoding.clone().checked(game.fluents.len()).ok()?;
        (fingerprint(game, &enc) == m.fingerprint).then_some(m)
    }

    /// Reads the forward manifest of `dir` if its fingerprint is `fingerprint`.
    pub(crate) fn read_matching(dir: &Path, fingerprint: &str) -> Option<ForwardManifest> {
        ForwardManifest::read_any(dir).filter(|m| m.fingerprint == fingerprint)
    }

    fn read_any(dir: &Path) -> Option<ForwardManifest> {
        let path = dir.join(FORWARD_MANIFEST);
        let text = std::fs::read_to_string(&path).ok()?;
        let m: ForwardManifest = serde_json::from_str(&text).ok()?;
        let again = "the forward search runs again";
        check_manifest_sum(&path, &text, &m.checksum, again).ok()?;
        (m.format == "symgame-forward").then_some(m)
    }

    /// Writes it into `dir` (atomically).
    pub(crate) fn write(&self, dir: &Path) -> Result<(), FileError> {
        let m = ForwardManifest {
            checksum: NO_CHECKSUM.to_string(),
            ..self.clone()
        };
        write_checksummed(&dir.join(FORWARD_MANIFEST), &m)
    }
}

/// The encoding of the resumable solve kept in `dir`, if it is `game`'s: the solution's
/// manifest's, else the forward search's.
pub fn resumable_encoding(dir: &Path, game: &GroundGame) -> Option<Encoding> {
    crate::solve::files::solution_encoding(dir, game)
        .or_else(|| ForwardManifest::read(dir, game).map(|m| m.encoding))
}

/// The BFS layers waiting in files during layered solving.
pub(crate) struct Spill {
    dir: PathBuf,
    /// Whether the directory is ours to remove.
    owned: bool,
    /// Whether the layer files stay when it is dropped (a resumable solve: removed only by
    /// [`Spill::remove_files`] once the solution is complete).
    keep: bool,
}

impl Spill {
    /// A spill directory: `dir`, or a fresh one under the system's temporary directory.
    pub(crate) fn new(dir: Option<&Path>) -> Result<Spill, FileError> {
        let (dir, owned) = match dir {
            Some(d) => (d.to_path_buf(), false),
            None => {
                let d = std::env::temp_dir().join(format!(
                    "symgame-layers-{}-{}",
                    std::process::id(),
                    std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .map(|t| t.as_nanos())
                        .unwrap_or(0)
                ));
                (d, true)
            }
        };
        std::fs::create_dir_all(&dir).map_err(|e| FileError::io(&dir, e))?;
        Ok(Spill {
            dir,
            owned,
            keep: false,
        })
    }

    /// The layers of a resumable solve, kept in `dir` until [`Spill::remove_files`].
    pub(crate) fn kept(dir: &Path) -> Result<Spill, FileError> {
        std::fs::create_dir_all(dir).map_err(|e| FileError::io(dir, e))?;
        // What a killed run was writing when it died.
        remove_stale_temporaries(dir, |n| {
            n == FORWARD_MANIFEST
                || n == crate::solve::files::MANIFEST
                || n.ends_with(".layer")
                || n.ends_with(".sol")
        })?;
        Ok(Spill {
            dir: dir.to_path_buf(),
            owned: false,
            keep: true,
        })
    }

    /// The layers of a resumable solve in `dir`, to read only (a slice job: nothing is
    /// cleaned up, other jobs may be writing there).
    pub(crate) fn reader(dir: &Path) -> Spill {
        Spill {
            dir: dir.to_path_buf(),
            owned: false,
            keep: true,
        }
    }

    /// The size of layer `depth`'s file in bytes (0 if it cannot be read).
    pub(crate) fn bytes(&self, depth: usize) -> u64 {
        std::fs::metadata(self.path(depth)).map_or(0, |m| m.len())
    }

    /// The directory.
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// Removes the layer files and the forward manifest (the directory stays).
    pub(crate) fn remove_files(&self) {
        for entry in std::fs::read_dir(&self.dir).into_iter().flatten().flatten() {
            let p = entry.path();
            let ours = p.extension().is_some_and(|x| x == "layer")
                || p.file_name().is_some_and(|n| n == FORWARD_MANIFEST);
            if ours {
                let _ = std::fs::remove_file(p);
            }
        }
    }

    fn path(&self, depth: usize) -> PathBuf {
        self.dir.join(format!("bfs-{depth:04}.layer"))
    }

    /// Writes layer `depth` as its non-terminal and terminal parts (the forward search has
    /// split them already; the backward pass needs both).
    pub(crate) fn write<E: BddEngine>(
        &self,
        e: &E,
        depth: usize,
        nonterminal: &E::Bdd,
        terminal: &E::Bdd,
    ) -> Result<(), SolveOrStop> {
        let part = |outcome, b: &E::Bdd| StoredClass {
            outcome,
            distance: None,
            nodes: e.export(b),
        };
        let stored = StoredLayer {
            fingerprint: String::new(),
            depth: Some(depth as u32),
            classes: vec![part(0, nonterminal), part(1, terminal)],
        };
        write_stored(&self.path(depth), &stored)?;
        Ok(())
    }

    fn frontier_path(&self) -> PathBuf {
        self.dir.join("frontier.layer")
    }

    /// Keeps the first layer not finished of a resumable solve's forward search.
    pub(crate) fn write_frontier<E: BddEngine>(
        &self,
        e: &E,
        frontier: &E::Bdd,
    ) -> Result<(), SolveOrStop> {
        let stored = StoredLayer {
            fingerprint: String::new(),
            depth: None,
            classes: vec![StoredClass {
                outcome: 0,
                distance: None,
                nodes: e.export(frontier),
            }],
        };
        write_stored(&self.frontier_path(), &stored)?;
        Ok(())
    }

    /// Reads back what [`Spill::write_frontier`] kept.
    pub(crate) fn read_frontier<E: BddEngine>(&self, e: &E) -> Result<E::Bdd, SolveOrStop> {
        let path = self.frontier_path();
        let stored = read_stored(&path)?;
        let [a] = <[StoredClass; 1]>::try_from(stored.classes)
            .map_err(|_| FileError::format(&path, "a frontier file of more than one set"))?;
        Ok(e.import(&a.nodes)?)
    }

    /// Reads layer `depth`: (non-terminal, terminal) states.
    pub(crate) fn read<E: BddEngine>(
        &self,
        g: &SymbolicGame<'_, E>,
        depth: usize,
    ) -> Result<(E::Bdd, E::Bdd), SolveOrStop> {
        let path = self.path(depth);
        let stored = read_stored(&path)?;
        let [a, b] = <[StoredClass; 2]>::try_from(stored.classes)
            .map_err(|_| FileError::format(&path, "a layer file without its two parts"))?;
        let e = g.engine();
        Ok((e.import(&a.nodes)?, e.import(&b.nodes)?))
    }

    /// Reads every layer `0..depths` back, each as one set.
    pub(crate) fn load_all<E: BddEngine>(
        &self,
        g: &SymbolicGame<'_, E>,
        depths: usize,
    ) -> Result<Vec<E::Bdd>, SolveOrStop> {
        let e = g.engine();
        (0..depths)
            .map(|d| {
                let (n, t) = self.read(g, d)?;
                Ok(e.or(&n, &t)?)
            })
            .collect()
    }
}

impl Drop for Spill {
    fn drop(&mut self) {
        if self.keep {
            return;
        }
        if self.owned {
            let _ = std::fs::remove_dir_all(&self.dir);
        } else {
            for entry in std::fs::read_dir(&self.dir).into_iter().flatten().flatten() {
                let p = entry.path();
                if p.extension().is_some_and(|x| x == "layer") {
                    let _ = std::fs::remove_file(p);
                }
            }
        }
    }
}
