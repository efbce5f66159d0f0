//! A game built from its explicit graph ([`SymbolicOptions::explicit_graph`], module `graph`):
//! the whole reachable game expanded by the explicit reasoner, its predicates and relations
//! built from that graph.

use symgame_bdd::{BddEngine, BddError};
use symgame_ground::GroundGame;

use crate::error::SymbolicError;
use crate::graph::{graph_bdds, ExplicitGraph, EXPLICIT_GRAPH_NOTE};
use crate::options::SymbolicOptions;
use crate::partition;

use super::SymbolicGame;

impl<E: BddEngine> SymbolicGame<'_, E> {
    /// Expands the whole game explicitly within [`SymbolicOptions::explicit_graph`]'s budget
    /// and builds the game from that graph, in the set-up phase "explicit_graph" (started by
    /// the caller, finished here with a note); `false`, with the engine's garbage collected,
    /// when the graph or its BDDs are over the budget.
    pub(super) fn try_explicit_graph(&mut self, game: &GroundGame, opts: &SymbolicOptions) -> bool {
        let e = self.engine;
        let Some(budget) = &opts.explicit_graph else {
            return false;
        };
        let built = ExplicitGraph::explore(game, budget, opts.setup_deadline).and_then(|graph| {
            match self.build_from_graph(&graph, budget.max_nodes, opts) {
                Ok(()) => Ok(format!(
                    "{EXPLICIT_GRAPH_NOTE}{} states, {} edges",
                    graph.states.len(),
                    graph.num_edges
                )),
                // Too large as BDDs: on to the other fallback.
                Err(SymbolicError::Bdd(
                    err @ (BddError::Budget(_) | BddError::OutOfMemory { .. }),
                )) => Err(format!(
                    "{} states, {} edges, but {err}",
                    graph.states.len(),
                    graph.num_edges
                )),
                Err(other) => Err(other.to_string()),
            }
        });
        let live = e.stats().live_nodes;
        match built {
            Ok(note) => {
                opts.phase_note(note);
                opts.phase_done(live);
                true
            }
            Err(over) => {
                e.gc();
                opts.phase_note(over);
                opts.phase_done(e.stats().live_nodes);
                false
            }
        }
    }

    /// The predicates and partitions built from `graph`, the whole reachable game expanded
    /// explicitly (module `graph`). A state that breaks a group of an assumed encoding marks
    /// the assumption broken ([`Self::assumption_broken`]) and leaves the game without moves.
    fn build_from_graph(
        &mut self,
        graph: &ExplicitGraph,
        max_nodes: usize,
        opts: &SymbolicOptions,
    ) -> Result<(), SymbolicError> {
        let e = self.engine;
        let enc = &self.encoding;
        let codes = match graph.codes(enc) {
            Ok(codes) => codes,
            Err(state) => {
                // A reachable state of the graph breaks a group itself.
                self.note_witness(state);
                self.mark_broken();
                return Ok(());
            }
        };
        let built = graph_bdds(e, enc, graph, &codes, opts.goals, max_nodes)?;
        let mut clusters = partition::cluster(
            e,
            enc,
            &built.partitions,
            opts.cluster_nodes,
            opts.setup_deadline,
        )?;
        partition::attach_terminal_parts(e, &mut clusters, &built.terminal_parts, opts)?;
        self.terminal_parts = built.terminal_parts;
        self.legal = built.legal;
        self.goal_formulas = built.goal_formulas;
        self.partitions = built.partitions;
        self.clusters = clusters;
        self.from_graph = true;
        Ok(())
    }
}
