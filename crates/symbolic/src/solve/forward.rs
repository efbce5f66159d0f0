//! The forward search of the retrograde solver: BFS from the initial state with the reachability
//! step ([`next_layer`]), keeping the layers in memory or spilling them to files, and finding
//! out whether the game is layered.

use num_bigint::BigUint;
use symgame_bdd::BddEngine;

use crate::game::SymbolicGame;
use crate::prefix::ExplicitRun;
use crate::reach::{next_layer, Bfs};
use crate::solve::context::Context;
use crate::solve::error::SolveOrStop;
use crate::solve::spill::{ForwardManifest, Spill};

/// The forward search of [`solve`].
pub(crate) struct Forward<E: BddEngine> {
    /// All reachable states (dropped before layered solving).
    pub(crate) reached: Option<E::Bdd>,
    /// The layers, when kept in memory (`None` when they were written to the spill directory).
    pub(crate) layers: Option<Vec<E::Bdd>>,
    /// Number of layers.
    pub(crate) depths: usize,
    /// Whether every move goes from layer k to layer k + 1.
    pub(crate) layered: bool,
    /// The number of reachable states.
    pub(crate) states: BigUint,
    /// Whether two roles have a choice in a reachable state.
    pub(crate) simultaneous: bool,
    /// How many of the first layers were replayed from the explicit prefix.
    pub(crate) explicit_layers: usize,
}

/// A resumable solve's forward search ([`SolveOptions::resume`](crate::SolveOptions::resume)):
/// kept in the spill directory layer by layer with [`ForwardManifest`], and the manifest found
/// there, if any, to go on from.
pub(crate) struct Keep<'a> {
    /// The fingerprint of the game and encoding.
    pub(crate) fingerprint: &'a str,
    /// The forward search found in the directory, not complete.
    pub(crate) found: Option<ForwardManifest>,
}

/// BFS from the initial state (the step of [`reach`](crate::reach): per-cluster images and terminal
/// cuts, no difference with the reached states while the layers lie in distinct potential
/// levels). With `spill`, layers go to files and only the reached set stays in memory; it also
/// detects whether the game is layered (no move leads back into a layer already seen, which
/// with BFS means every move goes from layer k to k + 1). With `keep`, after each layer the
/// first layer not finished and the manifest are written too, and a search found there goes on
/// from its frontier (the explicit layers are then not used). `finished` is told the number of
/// layers and of their states after each layer.
pub(crate) fn forward<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    ctx: &mut Context<'_, '_, E>,
    explicit: Option<ExplicitRun>,
    (to_files, spill): (bool, &Spill),
    keep: Option<Keep<'_>>,
    finished: &mut dyn FnMut(usize, &BigUint),
) -> Result<Forward<E>, SolveOrStop> {
    let e = g.engine();
    let mut layers = Vec::new();
    let mut depth = 0;
    let mut states = BigUint::default();
    let mut simultaneous = false;
    let mut bfs = match keep.as_ref().and_then(|k| k.found.as_ref()) {
        Some(m) => {
            let mut reached = e.constant(false);
            for d in 0..m.depths {
                let (n, t) = spill.read(g, d)?;
                reached = e.or(&reached, &e.or(&n, &t)?)?;
            }
            let frontier = spill.read_frontier(e)?;
            let mut bfs = Bfs::resumed(g, frontier, reached, m.potential, !m.layered, true)?;
            bfs.explicit_layers = m.explicit_layers;
            (depth, states, simultaneous) = (m.depths, m.states.clone(), m.simultaneous);
            bfs
        }
        None => Bfs::start_with(g, explicit)?,
    };
    while !e.is_false(&bfs.frontier) {
        ctx.guard.check()?;
        let (count, nodes) = g.count_and_nodes(&bfs.frontier);
        ctx.track_nodes(nodes)?;
        states += count;
        let (new, new_expand) = next_layer(g, &mut bfs, depth, true, &ctx.guard, &mut |_| {})?;
        ctx.track(&bfs.reached)?;
        let frontier = std::mem::replace(&mut bfs.frontier, new);
        let expand = std::mem::replace(&mut bfs.expand, new_expand);
        simultaneous = simultaneous || ctx.any_simultaneous(&expand)?;
        if to_files {
            spill.write(e, depth, &expand, &e.and_not(&frontier, &expand)?)?;
        } else {
            layers.push(frontier);
        }
        depth += 1;
        if let Some(k) = keep.as_ref().filter(|_| !g.assumption_broken()) {
            // The layer's file and the next one's first, then the manifest naming them.
            let complete = e.is_false(&bfs.frontier);
            if !complete {
                spill.write_frontier(e, &bfs.frontier)?;
            }
            let m = ForwardManifest {
                format: "symgame-forward".to_string(),
                checksum: String::new(),
                fingerprint: k.fingerprint.to_string(),
                encoding: g.encoding().clone(),
                complete,
                depths: depth,
                layered: !bfs.revisited,
                potential: bfs.potential(),
                simultaneous,
                states: states.clone(),
                explicit_layers: bfs.explicit_layers,
            };
            m.write(spill.dir())?;
        }
        finished(depth, &states);
    }
    Ok(Forward {
        reached: Some(bfs.reached),
        layers: (!to_files).then_some(layers),
        depths: depth,
        layered: !bfs.revisited,
        states,
        simultaneous,
        explicit_layers: bfs.explicit_layers,
    })
}
