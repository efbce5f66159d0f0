//! A sliced layer merged by a job of the layer above it. Every job of the layer above reads
//! the whole of the layer below (its states' successors can be in any slice), so the first of
//! them to merge the slices' files writes the merged layer (`layer-DDDD.sol`, as the solve
//! would) and then a record of it (`slice-DDDD-merged.json`, [`MergeRecord`]), each
//! atomically. The jobs after it read the merged file instead of merging again, and the solve
//! records the layer from the record without holding its classes: the merge and the jobs then
//! never need their memory at once (on 6×6 Connect Four each needed over 12 GB for layer 27).

use std::path::{Path, PathBuf};

use num_bigint::BigUint;
use serde::{Deserialize, Serialize};
use symgame_bdd::BddEngine;

use crate::game::SymbolicGame;
use crate::solve::error::SolveOrStop;
use crate::solve::files::{
    check_manifest_sum, layer_file_name, write_checksummed, write_layer, NO_CHECKSUM,
};
use crate::solve::slicing::SlicePass;
use crate::solve::stats::{MoverCounts, SlicedStats, SolveLayerStats};
use crate::solve::value::{store, ValueClass};

/// What a merged layer's row in the manifest needs, written by the job that merged it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct MergeRecord {
    /// Always `"symgame-merge"`.
    pub format: String,
    /// CRC-32 of the file, as in solution manifests.
    pub checksum: String,
    /// Fingerprint of the ground game and encoding.
    pub fingerprint: String,
    /// Slices the layer was merged from.
    pub count: u32,
    /// The outcomes the merged classes index (those of the slices' jobs, then the new ones).
    pub outcomes: Vec<Vec<u8>>,
    /// The layer's row (its `seconds` are the solve's to set).
    pub row: SolveLayerStats,
}

/// The record of merged layer `depth` in `dir`.
pub(crate) fn record_path(dir: &Path, depth: usize) -> PathBuf {
    dir.join(format!("{}merged.json", SlicePass::Backward.prefix(depth)))
}

impl MergeRecord {
    /// The record of layer `depth` merged from `count` slices, if it is in `dir`, whole, of
    /// `fingerprint`, and the merged file it describes is there.
    pub(crate) fn read(
        dir: &Path,
        depth: usize,
        count: u32,
        fingerprint: &str,
    ) -> Option<MergeRecord> {
        let path = record_path(dir, depth);
        let text = std::fs::read_to_string(&path).ok()?;
        let r: MergeRecord = serde_json::from_str(&text).ok()?;
        check_manifest_sum(&path, &text, &r.checksum, "the layer is merged again").ok()?;
        let same = r.format == "symgame-merge"
            && r.fingerprint == fingerprint
            && r.count == count
            && r.row.depth == depth;
        let file = dir.join(layer_file_name(Some(depth as u32)));
        (same && file.is_file()).then_some(r)
    }
}

/// Writes layer `depth`, merged from its `count` slices as `layer` (classes indexing
/// `outcomes`), as the solve would, and then its record.
pub(crate) fn write_merged<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    dir: &Path,
    fingerprint: &str,
    depth: usize,
    count: u32,
    outcomes: &[Vec<u8>],
    layer: &SlicedLayer<E>,
) -> Result<(), SolveOrStop> {
    let row = layer_row(g, depth, outcomes.len(), layer);
    write_layer(
        dir,
        fingerprint,
        Some(depth),
        &store(g.engine(), &layer.classes),
    )?;
    let record = MergeRecord {
        format: "symgame-merge".to_string(),
        checksum: NO_CHECKSUM.to_string(),
        fingerprint: fingerprint.to_string(),
        count,
        outcomes: outcomes.to_vec(),
        row,
    };
    write_checksummed(&record_path(dir, depth), &record)?;
    Ok(())
}

/// The row of layer `depth` solved as `layer` with `outcomes` outcomes known: states per
/// outcome and nodes counted in one pass over the classes (`seconds` left at 0).
pub(crate) fn layer_row<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    depth: usize,
    outcomes: usize,
    layer: &SlicedLayer<E>,
) -> SolveLayerStats {
    let (per, nodes) = count_classes(g, outcomes, &layer.classes);
    SolveLayerStats {
        depth,
        states: per.iter().sum(),
        terminal: layer.terminal.clone(),
        per_outcome: per,
        mover: layer.mover.clone(),
        nodes,
        seconds: 0.0,
        sliced: layer.sliced.clone(),
    }
}

/// States per outcome (of `outcomes`) and the nodes of `classes`.
pub(crate) fn count_classes<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    outcomes: usize,
    classes: &[ValueClass<E>],
) -> (Vec<BigUint>, usize) {
    let mut per = vec![BigUint::default(); outcomes];
    let mut nodes = 0;
    for c in classes {
        let (count, n) = g.count_and_nodes(&c.states);
        per[c.outcome] += count;
        nodes += n;
    }
    (per, nodes)
}

/// A layer merged from its slices ([`solve_sliced`]).
pub(crate) struct SlicedLayer<E: BddEngine> {
    /// The value classes, sorted by outcome.
    pub(crate) classes: Vec<ValueClass<E>>,
    /// Won, drawn and lost states for the role to move.
    pub(crate) mover: Option<MoverCounts>,
    /// Terminal states of the layer.
    pub(crate) terminal: BigUint,
    /// How the slices' jobs went (`None`: solved in this process).
    pub(crate) sliced: Option<SlicedStats>,
}
