//! A search kept in a directory ([`ReachStore`]): begun or read back there, each finished step
//! kept as it ends.

use symgame_bdd::{BddEngine, BddError};
use symgame_limits::StopReason;

use crate::bfs::Bfs;
use crate::checkpoint::ReachStore;
use crate::game::SymbolicGame;
use crate::prefix::ExplicitRun;
use crate::reach_slices::ReachSlicer;
use crate::reach_stats::ReachStats;
use crate::solve::files::FileError;

/// Why a search kept in a directory could not start.
pub(crate) enum StoreStop {
    /// The engine ran out of nodes.
    Engine,
    /// The directory could not be read or written.
    File(FileError),
}

impl From<BddError> for StoreStop {
    fn from(_: BddError) -> Self {
        StoreStop::Engine
    }
}

impl From<FileError> for StoreStop {
    fn from(e: FileError) -> Self {
        StoreStop::File(e)
    }
}

impl StoreStop {
    pub(crate) fn reason(&self) -> Option<StopReason> {
        match self {
            StoreStop::Engine => Some(StopReason::OutOfMemory),
            StoreStop::File(_) => None,
        }
    }

    pub(crate) fn file_error(&self) -> Option<String> {
        match self {
            StoreStop::Engine => None,
            StoreStop::File(e) => Some(e.to_string()),
        }
    }
}

/// The search kept in `store` read back: its frontier, the union of its finished layers unless
/// it is layered and does not keep the union (it then reads them back from `store` only if
/// that ends), its finished layers' rows in `stats`.
fn resumed<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    store: &mut ReachStore,
    keep_reached: bool,
    stats: &mut ReachStats,
) -> Result<Bfs<E>, StoreStop> {
    let e = g.engine();
    let r = store.resume(e, keep_reached)?;
    let m = &r.manifest;
    let bfs = Bfs::resumed(
        g,
        r.frontier,
        r.reached,
        m.layered,
        m.revisited,
        keep_reached,
    )?;
    let mut bfs = bfs;
    bfs.on_disk = store.layer_reader();
    bfs.explicit_layers = r.manifest.explicit_layers;
    stats.explicit_layers = r.manifest.explicit_layers;
    for l in &r.manifest.layers {
        stats.states += &l.states;
        stats.terminal += &l.terminal;
    }
    stats.layers = r.manifest.layers;
    stats.sittings = r.manifest.sittings;
    Ok(bfs)
}

/// The search before its first layer: from the initial state (kept as layer 0 in `store`), or
/// read back from `store`.
pub(crate) fn begin<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    explicit: Option<ExplicitRun>,
    store: Option<&mut ReachStore>,
    keep_reached: bool,
    stats: &mut ReachStats,
) -> Result<Bfs<E>, StoreStop> {
    match store {
        Some(s) if s.resuming() => resumed(g, s, keep_reached, stats),
        Some(s) => {
            let mut b = Bfs::start_with(g, explicit)?;
            b.on_disk = s.layer_reader();
            s.save_layer(g.engine(), 0, &b.frontier)?;
            s.save(&[], false, b.potential(), false, 0)?;
            Ok(b)
        }
        None => Ok(Bfs::start_with(g, explicit)?),
    }
}

/// Keeps a finished step in `store`: the new layer's file first, then the manifest that names
/// the layers before it finished.
fn keep<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    store: Option<&mut ReachStore>,
    bfs: &Bfs<E>,
    stats: &ReachStats,
    new: &E::Bdd,
) -> Result<(), FileError> {
    let Some(s) = store else {
        return Ok(());
    };
    let complete = g.engine().is_false(new);
    if !complete {
        s.save_layer(g.engine(), stats.layers.len(), new)?;
    }
    let (layered, revisited) = (bfs.potential(), bfs.revisited);
    s.save(
        &stats.layers,
        complete,
        layered,
        revisited,
        bfs.explicit_layers,
    )
}

/// Keeps a finished step ([`keep`]) with, in the last layer's row, how its slices went if it
/// was expanded in slices (their files are removed once the new layer is kept).
pub(crate) fn keep_step<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    store: Option<&mut ReachStore>,
    slicer: Option<&ReachSlicer<'_>>,
    bfs: &Bfs<E>,
    stats: &mut ReachStats,
    new: &E::Bdd,
) -> Result<(), FileError> {
    let sliced = slicer.and_then(ReachSlicer::take_stats);
    let in_slices = sliced.is_some();
    if let Some(row) = stats.layers.last_mut() {
        row.sliced = sliced;
    }
    keep(g, store, bfs, stats, new)?;
    let last = stats.layers.len().checked_sub(1);
    if let (Some(s), Some(k)) = (slicer.filter(|_| in_slices), last) {
        s.remove(k);
    }
    Ok(())
}

/// After step `k` of a layered search kept in `bfs.on_disk` whose new layer left the potential
/// levels ([`Bfs::read_back`]): the finished layers `0..=k`, read back, become the reached
/// states and are taken out of the new layer `new` and its states to expand.
pub(crate) fn read_back<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    bfs: &mut Bfs<E>,
    k: usize,
    new: &mut E::Bdd,
    new_expand: &mut E::Bdd,
) -> Result<(), StoreStop> {
    let Some(reader) = bfs.on_disk.as_ref().filter(|_| bfs.read_back) else {
        return Ok(());
    };
    bfs.read_back = false;
    let e = g.engine();
    let reached = reader.union(e, k + 1)?;
    let fresh = e.and_not(new, &reached)?;
    *new_expand = e.and(new_expand, &fresh)?;
    bfs.revisited |= fresh != *new;
    *new = fresh;
    bfs.reached = reached;
    Ok(())
}
