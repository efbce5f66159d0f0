//! The A* heuristic: [`Heuristic`], partitions of the states by h value combined by maximum,
//! and [`build_heuristic`], which makes it from pattern databases (chosen automatically or
//! given).

use std::collections::BTreeMap;
use std::time::Instant;

use symgame_bdd::{BddEngine, BddResult};
use symgame_ground::GroundGame;
use symgame_limits::{Limits, StopReason};

use crate::disjunction::or_all;
use crate::game::SymbolicGame;
use crate::plan::outcome::HeuristicStats;
use crate::plan::pdb::{pattern_database, PatternDatabase};
use crate::plan::problem::{remaining, Costs, PatternChoice, PlanError};
use crate::plan::select::{select_pattern, Selection};

/// A heuristic given as partitions of the states by h value, one per pattern database, combined
/// by maximum: `h(s) = max_i h_i(s)`, where `h_i(s)` is the h of the set of partition `i` that
/// holds `s`, and infinity (the state cannot reach the goal) if none does. The maximum is taken
/// lazily, by splitting a state set by one partition after the other: building the combined
/// partition `OR_{max(i, j) = h} (A_i AND B_j)` up front is far larger than its parts.
pub struct Heuristic<E: BddEngine> {
    /// Per database: `(h, H_h)` pairs, h ascending, the sets pairwise disjoint.
    pub partitions: Vec<Vec<(u64, E::Bdd)>>,
}

impl<E: BddEngine> Clone for Heuristic<E> {
    fn clone(&self) -> Self {
        Heuristic {
            partitions: self.partitions.clone(),
        }
    }
}

impl<E: BddEngine> Heuristic<E> {
    /// h = 0 everywhere (A* becomes Dijkstra).
    pub fn zero() -> Self {
        Heuristic {
            partitions: Vec::new(),
        }
    }

    /// Adds a pattern database to the maximum.
    pub fn add(&mut self, pdb: &PatternDatabase<E>) {
        self.partitions.push(pdb.levels.clone());
    }

    /// The h value of the states of `s` if they all share one (for a single state, its h);
    /// `None`: infinite.
    pub fn value_of_set(&self, e: &E, s: &E::Bdd) -> BddResult<Option<u64>> {
        let mut h = 0;
        for levels in &self.partitions {
            let mut found = None;
            for (v, set) in levels {
                if !e.is_false(&e.and(s, set)?) {
                    found = Some(*v);
                    break;
                }
            }
            match found {
                Some(v) => h = h.max(v),
                None => return Ok(None),
            }
        }
        Ok(Some(h))
    }

    /// `s` split by h value, h ascending (empty parts left out; states with infinite h
    /// dropped).
    pub fn split(&self, e: &E, s: &E::Bdd) -> BddResult<Vec<(u64, E::Bdd)>> {
        let mut parts: BTreeMap<u64, E::Bdd> = BTreeMap::new();
        parts.insert(0, s.clone());
        for levels in &self.partitions {
            let mut next: BTreeMap<u64, Vec<E::Bdd>> = BTreeMap::new();
            for (h, part) in parts {
                let mut rest = part;
                for (v, set) in levels {
                    if e.is_false(&rest) {
                        break;
                    }
                    let piece = e.and(&rest, set)?;
                    if !e.is_false(&piece) {
                        rest = e.and_not(&rest, set)?;
                        next.entry(h.max(*v)).or_default().push(piece);
                    }
                }
            }
            parts = BTreeMap::new();
            for (h, pieces) in next {
                parts.insert(h, or_all(e, pieces)?);
            }
        }
        Ok(parts.into_iter().collect())
    }
}

/// Builds the heuristic for `choice`: the automatic pattern, or the given patterns combined by
/// maximum. `Err(reason)` if a limit (other than the automatic selection's own node budget)
/// stopped the construction.
pub fn build_heuristic<E: BddEngine>(
    game: &GroundGame,
    g: &SymbolicGame<'_, E>,
    costs: &Costs,
    goal: &E::Bdd,
    choice: &PatternChoice,
    limits: &Limits,
) -> Result<Result<(Heuristic<E>, HeuristicStats), StopReason>, PlanError> {
    let e = g.engine();
    let started = Instant::now();
    let mut stats = HeuristicStats::default();
    let mut h = Heuristic::zero();
    match choice {
        PatternChoice::Auto { max_nodes } => {
            stats.automatic = true;
            match select_pattern(game, g, costs, goal, *max_nodes, limits)? {
                Err(why) => return Ok(Err(why)),
                Ok(Selection { database, tried }) => {
                    stats.tried = tried;
                    if let Some(pdb) = database {
                        h.add(&pdb);
                        stats.patterns.push(pdb.stats);
                    }
                }
            }
        }
        PatternChoice::Given(patterns) => {
            let n = g.encoding().groups().len();
            for p in patterns {
                if let Some(&bad) = p.iter().find(|&&i| i >= n) {
                    return Err(PlanError::BadPattern(format!(
                        "group {bad} does not exist (the game has {n} groups)"
                    )));
                }
                match pattern_database(g, costs, goal, p, &remaining(limits, started))? {
                    Err(why) => return Ok(Err(why)),
                    Ok(pdb) => {
                        h.add(&pdb);
                        stats.patterns.push(pdb.stats);
                    }
                }
            }
        }
    }
    stats.h_init = h.value_of_set(e, g.init())?;
    stats.seconds = started.elapsed().as_secs_f64();
    Ok(Ok((h, stats)))
}
