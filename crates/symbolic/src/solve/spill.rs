//! The BFS layers spilled to files during layered solving ([`Spill`]): written by the forward
//! search, read back one at a time by the backward pass, removed at the end.

use std::path::{Path, PathBuf};

use symgame_bdd::BddEngine;

use crate::game::SymbolicGame;
use crate::solve::error::SolveOrStop;
use crate::solve::files::{read_stored, write_stored, FileError, StoredClass, StoredLayer};

/// The BFS layers waiting in files during layered solving.
pub(crate) struct Spill {
    dir: PathBuf,
    /// Whether the directory is ours to remove.
    owned: bool,
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
        Ok(Spill { dir, owned })
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
