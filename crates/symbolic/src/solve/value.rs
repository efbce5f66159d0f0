//! The values of states: [`ValueClass`]es (states with one outcome), per layer
//! ([`SolvedLayer`]) or in the whole [`Solved`] result; the outcomes seen ([`Outcomes`]) and the
//! [`preference`] rule of the role to move.

use symgame_bdd::{BddEngine, BddResult};

use crate::game::SymbolicGame;
use crate::solve::error::SolveOrStop;
use crate::solve::files::{layer_file_name, read_stored, FileError, StoredClass};
use crate::solve::stats::SolveStats;

/// A set of states with the same value.
pub struct ValueClass<E: BddEngine> {
    /// Index into [`SolveStats::outcomes`]: the rewards of every role under optimal play.
    pub outcome: usize,
    /// Single-player games: moves to the nearest terminal state with that reward.
    pub distance: Option<u32>,
    /// The states (a BDD over current variables).
    pub states: E::Bdd,
}

impl<E: BddEngine> Clone for ValueClass<E> {
    fn clone(&self) -> Self {
        ValueClass {
            outcome: self.outcome,
            distance: self.distance,
            states: self.states.clone(),
        }
    }
}

/// The value classes of one BFS layer (layered solving) or of the whole reachable set.
pub struct SolvedLayer<E: BddEngine> {
    /// The BFS depth, or `None` for the whole reachable set.
    pub depth: Option<usize>,
    /// Disjoint classes covering the solved states of the layer.
    pub classes: Vec<ValueClass<E>>,
}

/// The solution: statistics, and the value classes when asked for.
pub struct Solved<E: BddEngine> {
    /// Statistics.
    pub stats: SolveStats,
    /// The value classes (empty unless [`SolveOptions::keep_classes`](crate::SolveOptions::keep_classes)), whole set or per layer
    /// (layered solving lists them from the first layer to the last).
    pub layers: Vec<SolvedLayer<E>>,
}

impl<E: BddEngine> Solved<E> {
    /// The outcome index and distance of the single state `state` (true fluents), if solved.
    pub fn value_of(
        &self,
        g: &SymbolicGame<'_, E>,
        state: &[usize],
    ) -> BddResult<Option<(usize, Option<u32>)>> {
        let s = g.state(state)?;
        let e = g.engine();
        for l in &self.layers {
            for c in &l.classes {
                if !e.is_false(&e.and(&c.states, &s)?) {
                    return Ok(Some((c.outcome, c.distance)));
                }
            }
        }
        Ok(None)
    }
}

/// The order in which role `p` prefers outcomes, best first: one definition, shared with the
/// explicit solvers of `symgame-prove` so that both sides of a cross-check play by the same rule.
pub use symgame_prove::preference;

/// A growing list of outcomes (reward vectors) with their indexes.
#[derive(Default)]
pub(crate) struct Outcomes {
    /// The outcomes in the order they were first seen.
    pub(crate) list: Vec<Vec<u8>>,
}

impl Outcomes {
    /// The index of `o`, added if new.
    pub(crate) fn index(&mut self, o: &[u8]) -> usize {
        match self.list.iter().position(|x| x == o) {
            Some(i) => i,
            None => {
                self.list.push(o.to_vec());
                self.list.len() - 1
            }
        }
    }
}

/// The classes of solved layer `depth` read back from its file in `dir`, which must be of
/// `fingerprint` and of that layer.
pub(crate) fn read_layer<E: BddEngine>(
    e: &E,
    dir: &std::path::Path,
    fingerprint: &str,
    depth: usize,
) -> Result<Vec<ValueClass<E>>, SolveOrStop> {
    let path = dir.join(layer_file_name(Some(depth as u32)));
    let stored = read_stored(&path)?;
    if stored.fingerprint != fingerprint || stored.depth != Some(depth as u32) {
        let why = "not the solved layer the manifest names; remove the directory to solve again";
        return Err(FileError::format(&path, why).into());
    }
    let mut classes = Vec::with_capacity(stored.classes.len());
    for c in &stored.classes {
        classes.push(ValueClass {
            outcome: c.outcome as usize,
            distance: c.distance,
            states: e.import(&c.nodes)?,
        });
    }
    Ok(classes)
}

/// The classes as portable node tables, for a solution file.
pub(crate) fn store<E: BddEngine>(e: &E, classes: &[ValueClass<E>]) -> Vec<StoredClass> {
    classes
        .iter()
        .map(|c| StoredClass {
            outcome: c.outcome as u32,
            distance: c.distance,
            nodes: e.export(&c.states),
        })
        .collect()
}

/// Records the outcome (and distance) of the initial state from the classes that hold it.
pub(crate) fn set_initial<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    stats: &mut SolveStats,
    classes: &[ValueClass<E>],
) -> BddResult<()> {
    let e = g.engine();
    for c in classes {
        if !e.is_false(&e.and(&c.states, g.init())?) {
            stats.initial = Some(c.outcome);
            stats.initial_distance = c.distance;
        }
    }
    Ok(())
}

/// Whether every outcome's rewards have the same sum.
pub(crate) fn is_constant_sum(outcomes: &[Vec<u8>]) -> bool {
    let sums: Vec<u32> = outcomes
        .iter()
        .map(|o| o.iter().map(|&v| u32::from(v)).sum())
        .collect();
    sums.windows(2).all(|w| w[0] == w[1])
}
