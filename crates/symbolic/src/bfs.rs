//! The state of a symbolic breadth-first search between layers ([`Bfs`]), shared by
//! reachability ([`crate::reach()`]) and the retrograde solver's forward search.

use symgame_bdd::{BddEngine, BddError};

use crate::checkpoint::LayerReader;
use crate::game::SymbolicGame;
use crate::image_pieces::ImagePace;
use crate::prefix::ExplicitRun;

/// The state of a breadth-first search between layers.
pub(crate) struct Bfs<E: BddEngine> {
    /// The last layer.
    pub(crate) frontier: E::Bdd,
    /// Its non-terminal states.
    pub(crate) expand: E::Bdd,
    /// The union of the layers before `frontier` (kept unless counting a layered search).
    pub(crate) reached: E::Bdd,
    /// While layered: the potential of the initial state (layer `k` lies in
    /// `levels[p0 + k]`), and the layers themselves when the union is not kept (and they are
    /// not in [`Self::on_disk`]).
    pub(crate) layered: Option<(usize, Vec<E::Bdd>)>,
    /// Where the finished layers of a search kept in a directory are read back from.
    pub(crate) on_disk: Option<LayerReader>,
    /// Set by a step whose new layer left the potential levels: its caller reads the finished
    /// layers back from [`Self::on_disk`] into [`Self::reached`] and takes them out of it.
    pub(crate) read_back: bool,
    /// Whether some layer had a successor in an earlier layer (known only once the layers
    /// stopped lying in distinct potential levels; until then none can).
    pub(crate) revisited: bool,
    /// The layers expanded explicitly before the search ([`crate::ExplicitPrefix`]), replayed
    /// first (a popped step is gone even if the layer then stops).
    pub(crate) explicit: Option<ExplicitRun>,
    /// How many layers were expanded explicitly.
    pub(crate) explicit_layers: usize,
    /// How long the images of the last layer took ([`crate::image_pieces::cluster_images`]).
    pub(crate) pace: ImagePace,
    /// The node table's collection between layers (reachability only).
    pub(crate) collector: LayerCollector,
}

impl<E: BddEngine> Bfs<E> {
    /// The search before its first layer: the initial state as the frontier.
    pub(crate) fn start(g: &SymbolicGame<'_, E>) -> Result<Bfs<E>, BddError> {
        let e = g.engine();
        let init = g.init().clone();
        // The potential of the initial state, if potentials exist.
        let layered = match g.potential_levels()? {
            Some(levels) => {
                let mut p0 = None;
                for (p, level) in levels.iter().enumerate() {
                    if !e.is_false(&e.and(&init, level)?) {
                        p0 = Some(p);
                    }
                }
                p0.map(|p| (p, Vec::new()))
            }
            None => None,
        };
        // Compiled within each layer: the terminal states are cut when the layer is expanded
        // (`next_layer`), from the same compilation as its image.
        let expand = match g.layerwise() {
            Some(_) => init.clone(),
            None => g.and_not_terminal(&init)?,
        };
        Ok(Bfs {
            expand,
            frontier: init,
            reached: e.constant(false),
            layered,
            on_disk: None,
            read_back: false,
            revisited: false,
            explicit: None,
            explicit_layers: 0,
            pace: ImagePace::default(),
            collector: Default::default(),
        })
    }

    /// A search read back: `frontier`, the first layer not finished, and `reached`, the union
    /// of the finished ones; `potential` while every finished layer lay in its own level of the
    /// potential (see [`reach`]), `revisited` if some layer had a successor in an earlier one.
    pub(crate) fn resumed(
        g: &SymbolicGame<'_, E>,
        frontier: E::Bdd,
        reached: E::Bdd,
        potential: bool,
        revisited: bool,
        keep_reached: bool,
    ) -> Result<Bfs<E>, BddError> {
        let mut bfs = Bfs::start(g)?;
        bfs.expand = match g.layerwise() {
            Some(_) => frontier.clone(),
            None => g.and_not_terminal(&frontier)?,
        };
        bfs.frontier = frontier;
        let e = g.engine();
        match (&mut bfs.layered, potential) {
            // read back from a directory, the finished layers stay there (`on_disk`)
            (Some(_), true) if !keep_reached && e.is_false(&reached) => {}
            (Some((_, kept)), true) if !keep_reached => kept.push(reached),
            (Some(_), true) => bfs.reached = reached,
            _ => {
                bfs.layered = None;
                bfs.reached = reached;
            }
        }
        bfs.revisited = revisited;
        Ok(bfs)
    }

    /// Whether every layer so far lies in its own level of the potential.
    pub(crate) fn potential(&self) -> bool {
        self.layered.is_some()
    }

    /// The search before its first layer, whose first layers replay `explicit`.
    pub(crate) fn start_with(
        g: &SymbolicGame<'_, E>,
        explicit: Option<ExplicitRun>,
    ) -> Result<Bfs<E>, BddError> {
        let mut bfs = Bfs::start(g)?;
        bfs.explicit = explicit;
        Ok(bfs)
    }
}

/// Garbage collection between two layers of a search, once the shared node table (oxidd) is
/// half full of nodes, and a quarter of it more than the last collection left.
///
/// oxidd collects by itself only when the table is 95 % full, which in a large search happens
/// inside a layer's image, and each collection empties the apply cache, so the image goes on
/// without the results it had cached. Collected between layers, the next image starts with
/// room (what the cache loses then is mostly the last layer's, of little use to the next).
/// Connect Four 7×6, ply 28: 447 s of wall time on two threads with the table full of the
/// earlier plies' dead nodes, 244 s on one thread in a sitting resumed from ply 27's file,
/// whose table held no garbage (`docs/solving.md`). Side by side on Connect Four 6×5, where
/// the table fills again within the larger layers, it saves only 3–4 % of the time.
#[derive(Default)]
pub(crate) struct LayerCollector {
    /// Nodes the last collection left in the table.
    pub(crate) left: usize,
}

impl LayerCollector {
    /// Collects the table if it is due (see [`LayerCollector`]).
    pub(crate) fn collect<E: BddEngine>(&mut self, e: &E) {
        let stats = e.stats();
        let (Some(nodes), Some(capacity)) = (stats.live_nodes, stats.node_capacity) else {
            return;
        };
        if nodes > capacity / 2 && nodes > self.left.saturating_add(capacity / 4) {
            e.gc();
            self.left = e.live_nodes().unwrap_or(0);
        }
    }
}
