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
use crate::solve::spill::Spill;

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

/// BFS from the initial state (the step of [`reach`](crate::reach): per-cluster images and terminal
/// cuts, no difference with the reached states while the layers lie in distinct potential
/// levels). With `spill`, layers go to files and only the reached set stays in memory; it also
/// detects whether the game is layered (no move leads back into a layer already seen, which
/// with BFS means every move goes from layer k to k + 1).
pub(crate) fn forward<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    ctx: &mut Context<'_, '_, E>,
    explicit: Option<ExplicitRun>,
    to_files: bool,
    spill: &Spill,
) -> Result<Forward<E>, SolveOrStop> {
    let e = g.engine();
    let mut bfs = Bfs::start_with(g, explicit)?;
    let mut layers = Vec::new();
    let mut depth = 0;
    let mut states = BigUint::default();
    let mut simultaneous = false;
    while !e.is_false(&bfs.frontier) {
        ctx.guard.check()?;
        ctx.track(&bfs.frontier)?;
        states += g.count(&bfs.frontier);
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
