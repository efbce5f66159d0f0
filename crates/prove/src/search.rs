//! Configuration, limits, outcomes and statistics shared by every algorithm.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;
use std::time::Duration;

pub use symgame_limits::{Guard, Limits, StopReason};

/// Proof or disproof number of a solved-against node ("infinity"). Sums saturate here.
pub(crate) const INF: u64 = 1 << 62;

/// Saturating addition of proof numbers.
pub(crate) fn add(a: u64, b: u64) -> u64 {
    (a + b).min(INF)
}

/// A search algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Algo {
    /// Proof-number search over an explicit DAG, kept whole in memory.
    Pn,
    /// Two-level proof-number search (PN²): far less memory than [`Algo::Pn`] for a few times
    /// more expansions.
    Pn2,
    /// Depth-first proof-number search with a bounded table ([`dfpn`](crate::dfpn)).
    DfPn,
    /// Alpha-beta with a transposition table ([`alphabeta`](crate::alphabeta)).
    AlphaBeta,
    /// Backward induction over every state reachable from the root
    /// ([`Induction`](crate::Induction)): any number of roles and simultaneous moves (the
    /// value is the pure security level), exact, and as costly as the reachable set; the node
    /// limit bounds the states held.
    Backward,
}

impl Algo {
    /// The four searches, in a fixed order: what `all` means on the command line. They answer
    /// two-player turn-taking games, expand nodes by need and stop cycles by their own rules.
    pub const SEARCHES: [Algo; 4] = [Algo::Pn, Algo::Pn2, Algo::DfPn, Algo::AlphaBeta];

    /// Every algorithm, in a fixed order: the searches, then [`Algo::Backward`].
    pub const ALL: [Algo; 5] = [
        Algo::Pn,
        Algo::Pn2,
        Algo::DfPn,
        Algo::AlphaBeta,
        Algo::Backward,
    ];

    /// The name used by [`Display`](fmt::Display) and [`FromStr`].
    pub fn name(self) -> &'static str {
        match self {
            Algo::Pn => "pn",
            Algo::Pn2 => "pn2",
            Algo::DfPn => "dfpn",
            Algo::AlphaBeta => "alphabeta",
            Algo::Backward => "backward",
        }
    }
}

impl fmt::Display for Algo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An algorithm name that is none of `pn`, `pn2`, `dfpn`, `alphabeta`, `backward`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseAlgoError {
    /// The rejected text.
    pub input: String,
}

impl fmt::Display for ParseAlgoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown algorithm `{}`: expected pn, pn2, dfpn, alphabeta or backward",
            self.input
        )
    }
}

impl std::error::Error for ParseAlgoError {}

impl FromStr for Algo {
    type Err = ParseAlgoError;

    fn from_str(s: &str) -> Result<Algo, ParseAlgoError> {
        Algo::ALL
            .into_iter()
            .find(|algo| algo.name() == s)
            .ok_or_else(|| ParseAlgoError {
                input: s.to_string(),
            })
    }
}

/// How the proof and disproof numbers of a new, unexpanded node are set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Init {
    /// pn = dn = 1.
    #[default]
    Unit,
    /// Mobility: with `m` legal moves, (pn, dn) = (1, m) where the attacker moves and (m, 1)
    /// where the opponent moves.
    Mobility,
}

/// The size limit of PN²'s second-level trees as a function of the first-level tree size `x`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub enum Pn2Limit {
    /// `f(x) = x`: the second-level tree may grow as large as the first-level tree.
    #[default]
    Linear,
    /// Breuker's logistic rule `f(x) = max / (1 + exp((a - x) / b))`: small second-level trees
    /// while the first-level tree is small, approaching `max` once it passes `a`.
    Logistic {
        /// The first-level size at which second-level trees reach `max / 2`.
        a: f64,
        /// The steepness: the growth happens over about `4 b` first-level nodes.
        b: f64,
        /// The largest second-level tree.
        max: u64,
    },
}

impl Pn2Limit {
    /// The node limit of a second-level tree when the first-level tree has `x` nodes (at least 1).
    pub fn second_level_nodes(self, x: u64) -> u64 {
        match self {
            Pn2Limit::Linear => x.max(1),
            Pn2Limit::Logistic { a, b, max } => {
                let f = max as f64 / (1.0 + ((a - x as f64) / b).exp());
                (f.ceil() as u64).max(1)
            }
        }
    }
}

/// Everything an algorithm can be tuned with.
#[derive(Clone, Debug)]
pub struct Config {
    /// Resource limits.
    pub limits: Limits,
    /// Initial numbers of new nodes (PN, PN², df-pn).
    pub init: Init,
    /// Weak proof numbers: the summed number of a node (dn at OR, pn at AND) is
    /// `max + (number of children with a non-zero number - 1)` instead of the sum, which
    /// curbs double counting through transpositions (PN, PN², df-pn).
    pub weak_pn: bool,
    /// Second-level tree size of PN².
    pub pn2_limit: Pn2Limit,
    /// Delete the subtrees of solved nodes (PN, PN²), freeing their slots when not shared.
    pub delete_solved: bool,
    /// Capacity in entries of the transposition table (df-pn, alpha-beta).
    pub tt_capacity: usize,
    /// df-pn's 1+ε trick: the child threshold is `max(second + 1, ceil(second * (1 + ε)))`;
    /// 0 gives Nagai's `second + 1`.
    pub epsilon: f64,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            limits: Limits::default(),
            init: Init::Unit,
            weak_pn: false,
            pn2_limit: Pn2Limit::Linear,
            delete_solved: true,
            tt_capacity: 1 << 20,
            epsilon: 0.0,
        }
    }
}

impl Config {
    /// The entries a transposition table of `slot_bytes`-byte slots may hold: `tt_capacity`,
    /// capped by the memory limit; `None` when not even one entry fits.
    pub(crate) fn table_capacity(&self, slot_bytes: usize) -> Option<usize> {
        match self.limits.max_memory_bytes {
            Some(bytes) if bytes < slot_bytes => None,
            Some(bytes) => Some(self.tt_capacity.min(bytes / slot_bytes)),
            None => Some(self.tt_capacity),
        }
    }

    /// The limits inside a search whose transposition table never outgrows its capacity (see
    /// [`Config::table_capacity`]): all but the memory limit.
    pub(crate) fn limits_beside_the_table(&self) -> Limits {
        Limits {
            max_memory_bytes: None,
            ..self.limits.clone()
        }
    }
}

/// The answer to a boolean question.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Outcome {
    /// The attacker can force the property.
    Proved,
    /// The attacker cannot force the property.
    Disproved,
    /// No answer: a limit was hit.
    Stopped(StopReason),
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Proved => f.write_str("proved"),
            Outcome::Disproved => f.write_str("disproved"),
            Outcome::Stopped(reason) => write!(f, "stopped: {reason}"),
        }
    }
}

/// What a search cost.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stats {
    /// Nodes whose successors were generated (both levels for PN²).
    pub nodes_expanded: u64,
    /// The peak number of nodes (PN, PN²) or table entries (df-pn, alpha-beta) held.
    pub nodes_in_memory: u64,
    /// The number of nodes of the solution tree found (proof or disproof; subtrees reached by
    /// several paths are counted once per path, saturating), when the question was answered by
    /// a proof-number search.
    pub proof_size: Option<u64>,
    /// Wall-clock time.
    pub time: Duration,
}

impl Stats {
    /// Adds the cost of another search done after this one.
    pub fn absorb(&mut self, other: &Stats) {
        self.nodes_expanded += other.nodes_expanded;
        self.nodes_in_memory = self.nodes_in_memory.max(other.nodes_in_memory);
        self.time += other.time;
    }
}

impl fmt::Display for Stats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} nodes expanded, {} in memory at peak",
            self.nodes_expanded, self.nodes_in_memory
        )?;
        if let Some(size) = self.proof_size {
            write!(f, ", solution of {size} nodes")?;
        }
        write!(f, ", {:.3} s", self.time.as_secs_f64())
    }
}

/// The answer to a boolean question and its cost.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchResult {
    /// Proved, disproved or stopped.
    pub outcome: Outcome,
    /// The cost.
    pub stats: Stats,
}

/// Expansion counting and limit checks of one search.
pub(crate) struct Budget<'l> {
    guard: Guard<'l>,
    /// Expansions so far.
    pub(crate) expanded: u64,
    /// The largest node or entry count seen by [`Budget::check`].
    pub(crate) peak: u64,
}

impl<'l> Budget<'l> {
    pub(crate) fn new(limits: &'l Limits) -> Self {
        Budget {
            guard: Guard::new(limits),
            expanded: 0,
            peak: 0,
        }
    }

    /// Called before each expansion with the current size of the search's structures.
    pub(crate) fn check(&mut self, in_memory: u64, bytes: usize) -> Result<(), StopReason> {
        self.peak = self.peak.max(in_memory);
        if self.guard.limits.cancelled() {
            return Err(StopReason::Cancelled);
        }
        // A node limit of n allows n expansions.
        self.guard.check_nodes(self.expanded.saturating_add(1))?;
        self.guard.check()?;
        self.guard.check_memory(bytes)
    }

    /// The statistics so far.
    pub(crate) fn stats(&self, proof_size: Option<u64>) -> Stats {
        Stats {
            nodes_expanded: self.expanded,
            nodes_in_memory: self.peak,
            proof_size,
            time: self.guard.elapsed(),
        }
    }
}

/// The (pn, dn) of an interior node from its children's (pn, dn).
///
/// OR (`and == false`): pn = min pn, dn = sum dn. AND: pn = sum pn, dn = min dn. With `weak`,
/// the sum becomes `max + (number of non-zero terms - 1)`.
pub(crate) fn combine(
    and: bool,
    weak: bool,
    children: impl Iterator<Item = (u64, u64)>,
) -> (u64, u64) {
    let mut least = INF;
    let mut sum = 0;
    let mut max = 0;
    let mut nonzero = 0;
    for (pn, dn) in children {
        let (select, summed) = if and { (dn, pn) } else { (pn, dn) };
        least = least.min(select);
        sum = add(sum, summed);
        if summed > 0 {
            max = max.max(summed);
            nonzero += 1;
        }
    }
    let summed = match (weak, nonzero) {
        (false, _) => sum,
        (true, 0) => 0,
        (true, k) => add(max, k - 1),
    };
    if and {
        (summed, least)
    } else {
        (least, summed)
    }
}

/// The number of nodes of a solved node's solution tree, from its children's (pn, dn, size).
///
/// A node needing one solved child (proved OR, disproved AND) takes the smallest such child; a
/// node needing all children sums them.
pub(crate) fn solution_size(
    and: bool,
    proved: bool,
    children: impl Iterator<Item = (u64, u64, u64)>,
) -> u64 {
    let one_child = proved != and;
    let mut total: u64 = 0;
    let mut least = u64::MAX;
    for (pn, dn, size) in children {
        let solved_our_way = if proved { pn == 0 } else { dn == 0 };
        if one_child {
            if solved_our_way {
                least = least.min(size);
            }
        } else {
            total = total.saturating_add(size);
        }
    }
    let below = if one_child {
        if least == u64::MAX {
            0
        } else {
            least
        }
    } else {
        total
    };
    below.saturating_add(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combine_or_and_weak() {
        let kids = [(3, 2), (1, 5), (4, 0)];
        assert_eq!(combine(false, false, kids.into_iter()), (1, 7));
        assert_eq!(combine(false, true, kids.into_iter()), (1, 6));
        assert_eq!(combine(true, false, kids.into_iter()), (8, 0));
        assert_eq!(combine(true, true, kids.into_iter()), (6, 0));
        assert_eq!(
            combine(false, true, [(INF, 0), (INF, 0)].into_iter()),
            (INF, 0)
        );
        assert_eq!(
            combine(false, true, [(0, INF), (2, 2)].into_iter()),
            (0, INF)
        );
    }

    #[test]
    fn pn2_limits_grow() {
        assert_eq!(Pn2Limit::Linear.second_level_nodes(0), 1);
        assert_eq!(Pn2Limit::Linear.second_level_nodes(40), 40);
        let logistic = Pn2Limit::Logistic {
            a: 1000.0,
            b: 100.0,
            max: 10_000,
        };
        assert!(logistic.second_level_nodes(0) < 10);
        assert_eq!(logistic.second_level_nodes(1000), 5000);
        assert_eq!(logistic.second_level_nodes(100_000), 10_000);
    }

    #[test]
    fn algo_names_round_trip() {
        for algo in Algo::ALL {
            assert_eq!(algo.to_string().parse::<Algo>(), Ok(algo));
        }
        assert!("minimax".parse::<Algo>().is_err());
    }
}
