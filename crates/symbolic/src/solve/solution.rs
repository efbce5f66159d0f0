//! Reading a solution directory back: the one reader, with one set of checks, that every
//! consumer (`symgame verify`, `symgame export`) uses.
//!
//! [`read_solution`] checks the manifest as a whole (checksum, fingerprint, completeness, game
//! kind, the layer list); [`Solution::read_layer`] checks each layer file against it (its own
//! header and checksum, fingerprint, depth, outcome indices, distances). Every inconsistency
//! is a [`FileError`] naming the file and what is wrong.

use std::path::{Path, PathBuf};

use crate::solve::files::{
    layer_file_name, read_manifest, read_stored, FileError, Manifest, StoredLayer, MANIFEST,
};
use crate::solve::stats::GameKind;
use crate::solve::value::is_constant_sum;

/// A complete solution directory made for one game and encoding, its manifest checked.
#[derive(Clone, Debug)]
pub struct Solution {
    /// The directory.
    pub dir: PathBuf,
    /// The manifest (checked: consistent with itself and complete).
    pub manifest: Manifest,
    /// The BDD variables of the encoding the solution is read for: every stored BDD must be
    /// over exactly these.
    pub num_vars: u32,
}

impl Solution {
    /// The layer files in depth order: (BFS depth, or `None` for the whole reachable set;
    /// file name). Layered solutions list depths `0..n`, each once.
    pub fn files(&self) -> &[(Option<u32>, String)] {
        &self.manifest.files
    }

    /// Whether the solution has one file per BFS depth (false: one file for the whole set).
    pub fn layered(&self) -> bool {
        self.manifest.stats.layered
    }

    /// Reads the `i`-th file of [`Solution::files`], checking it against the manifest: its
    /// header and checksum, fingerprint and depth, and that every class has an outcome of the
    /// manifest, is a BDD over the encoding's variables, and has a distance exactly when the
    /// game is single-player.
    pub fn read_layer(&self, i: usize) -> Result<StoredLayer, FileError> {
        let (depth, name) = &self.manifest.files[i];
        let path = self.dir.join(name);
        let layer = read_stored(&path)?;
        let bad = |message: String| Err(FileError::format(&path, &message));
        if layer.fingerprint != self.manifest.fingerprint {
            return bad(format!(
                "the file belongs to another solution (fingerprint {}, the manifest's is {})",
                layer.fingerprint, self.manifest.fingerprint
            ));
        }
        if layer.depth != *depth {
            return bad(format!(
                "the file holds {}, but the manifest lists it as {}",
                depth_name(layer.depth),
                depth_name(*depth)
            ));
        }
        let stats = &self.manifest.stats;
        let single = stats.kind == GameKind::SinglePlayer;
        for c in &layer.classes {
            if c.nodes.num_vars != self.num_vars {
                return bad(format!(
                    "a class of outcome {} is a BDD over {} variables, but the encoding has {}",
                    c.outcome, c.nodes.num_vars, self.num_vars
                ));
            }
            if c.outcome as usize >= stats.outcomes.len() {
                return bad(format!(
                    "a class has outcome {}, but the manifest lists {} outcomes",
                    c.outcome,
                    stats.outcomes.len()
                ));
            }
            if c.distance.is_some() != single {
                return bad(format!(
                    "a class of outcome {} {} a distance, but the manifest says the game is {}",
                    c.outcome,
                    if c.distance.is_some() { "has" } else { "lacks" },
                    stats.kind
                ));
            }
        }
        Ok(layer)
    }
}

fn depth_name(depth: Option<u32>) -> String {
    match depth {
        Some(d) => format!("depth {d}"),
        None => "the whole reachable set".to_string(),
    }
}

/// Reads the solution directory `dir` for the game and encoding of fingerprint `fingerprint`
/// (see [`fingerprint`](crate::fingerprint)), checking its manifest: format, version,
/// checksum, fingerprint, completeness, the game kind against the roles and outcomes, and the
/// layer list (layered: depths `0..n` each once, as many as the statistics' layers, the last
/// one all terminal; whole set: the one file `all.sol`). The layer files are checked when read
/// ([`Solution::read_layer`]), their BDDs against the `num_vars` variables of the encoding.
/// The files are sorted by depth.
pub fn read_solution(dir: &Path, fingerprint: &str, num_vars: u32) -> Result<Solution, FileError> {
    let mut manifest = read_manifest(dir)?;
    let path = dir.join(MANIFEST);
    let error = |message: String| FileError::format(&path, &message);
    let bad = |message: String| Err(error(message));
    if manifest.fingerprint != fingerprint {
        return bad(format!(
            "the solution was made for another game or encoding (fingerprint {}, this game has \
             {fingerprint})",
            manifest.fingerprint
        ));
    }
    let stats = &manifest.stats;
    if !manifest.complete || stats.stopped.is_some() {
        return bad(format!(
            "the solution is incomplete ({}); solve the game again without limits",
            stats
                .stopped
                .map_or("not marked complete".to_string(), |r| r.to_string())
        ));
    }
    check_kind(&manifest).map_err(error)?;
    manifest.files.sort_by_key(|(d, _)| *d);
    check_files(&manifest).map_err(error)?;
    Ok(Solution {
        dir: dir.to_path_buf(),
        manifest,
        num_vars,
    })
}

/// The game kind agrees with the roles and outcomes (as the solver decides it).
fn check_kind(m: &Manifest) -> Result<(), String> {
    let s = &m.stats;
    let roles = s.roles.len();
    if let Some(o) = s.outcomes.iter().find(|o| o.len() != roles) {
        return Err(format!(
            "an outcome has {} rewards, but the game has {roles} roles",
            o.len()
        ));
    }
    if s.outcomes.is_empty() {
        return Err("the manifest lists no outcomes".to_string());
    }
    if s.initial.is_some_and(|i| i >= s.outcomes.len()) {
        return Err("the initial state's outcome is not in the outcome list".to_string());
    }
    let kind = match (roles, s.kind) {
        (1, _) => GameKind::SinglePlayer,
        // Security levels are not reward vectors of a play: any levels are possible.
        (_, GameKind::SecurityLevels) => GameKind::SecurityLevels,
        // Mixed values: the outcomes are pure security levels, one per (levels, mixed value).
        (2, GameKind::MixedValues) if s.mixed.len() == s.outcomes.len() => GameKind::MixedValues,
        (2, _) if is_constant_sum(&s.outcomes) => GameKind::ZeroSum,
        (2, _) => GameKind::GeneralSum,
        _ => GameKind::MaxN,
    };
    if s.kind != kind {
        return Err(format!(
            "the manifest says the game is {}, but its roles and outcomes make it {kind}",
            s.kind
        ));
    }
    Ok(())
}

/// The layer list (sorted by depth) is whole and agrees with the statistics.
fn check_files(m: &Manifest) -> Result<(), String> {
    let s = &m.stats;
    for (d, name) in &m.files {
        if *name != layer_file_name(*d) {
            return Err(format!(
                "{} is listed as the file of {}, whose file is {}",
                name,
                depth_name(*d),
                layer_file_name(*d)
            ));
        }
    }
    if !s.layered {
        return match m.files.as_slice() {
            [(None, _)] => Ok(()),
            _ => Err("a whole-set solution must list exactly the one file all.sol".to_string()),
        };
    }
    if m.files.is_empty() {
        return Err("the manifest lists no layer files".to_string());
    }
    for (i, (d, _)) in m.files.iter().enumerate() {
        match d {
            Some(d) if *d as usize == i => {}
            Some(d) if (*d as usize) < i => return Err(format!("depth {d} is listed twice")),
            Some(_) => return Err(format!("depth {i} is missing from the layer list")),
            None => return Err("a layered solution lists the whole-set file".to_string()),
        }
    }
    if m.files.len() != s.layers.len() {
        return Err(format!(
            "the manifest lists {} layer files, but its statistics have {} layers",
            m.files.len(),
            s.layers.len()
        ));
    }
    if let Some(i) = s.layers.iter().enumerate().position(|(i, l)| l.depth != i) {
        return Err(format!(
            "the statistics' layer {i} has depth {}",
            s.layers[i].depth
        ));
    }
    let last = s.layers.last().expect("at least one layer");
    if last.terminal != last.states {
        return Err(format!(
            "the last layer (depth {}) has non-terminal states, so the layer list is not whole",
            last.depth
        ));
    }
    Ok(())
}
