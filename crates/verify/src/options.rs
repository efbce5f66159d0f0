//! What a verification checks, and with what.

use std::path::PathBuf;
use symgame_bdd::{Backend, EngineConfig};
use symgame_limits::Limits;
use symgame_prove::Algo;
use symgame_symbolic::SymbolicOptions;

/// The options of [`crate::verify`]. [`VerifyOptions::default`] checks a fresh solve on
/// oxidd (one thread) with df-pn and alpha-beta: every state of games with at most 20,000
/// reachable states, else a sample of 200 (seed 1).
#[derive(Clone, Debug)]
pub struct VerifyOptions {
    /// The BDD engine of the symbolic side.
    pub backend: Backend,
    /// Its parameters (threads, node table and cache sizes).
    pub engine: EngineConfig,
    /// How the game is encoded and compiled; its `setup_deadline` bounds the set-up.
    pub symbolic: SymbolicOptions,
    /// Check the solution in this directory (written by `symgame solve --out`) instead of
    /// solving now. It must be complete and made for this game and encoding (fingerprint).
    pub solution: Option<PathBuf>,
    /// Which reachable states are checked.
    pub states: Sampling,
    /// The explicit algorithms that answer each checked state, in this order.
    pub algos: Vec<Algo>,
    /// The node limit of each explicit search; a search that reaches it leaves its state
    /// undecided (unless its bounds already exclude the symbolic value).
    pub search_nodes: u64,
    /// Limits of the whole check: the time limit (counted from the call) and the cancel flag
    /// bound the symbolic solve and the explicit searches alike.
    pub limits: Limits,
}

/// Which reachable states a verification checks: every one in small games, else a seeded
/// uniform sample (reproducible: the same seed finds a reported disagreement again).
#[derive(Clone, Debug)]
pub struct Sampling {
    /// Check every reachable state when there are at most this many; otherwise a sample.
    pub all_limit: u64,
    /// The number of reachable states to sample (uniformly, with replacement) in bigger games.
    pub size: usize,
    /// The seed of the sample.
    pub seed: u64,
}

impl Default for Sampling {
    fn default() -> Self {
        Sampling {
            all_limit: 20_000,
            size: 200,
            seed: 1,
        }
    }
}

impl Default for VerifyOptions {
    fn default() -> Self {
        VerifyOptions {
            backend: Backend::Oxidd,
            engine: EngineConfig {
                threads: 1,
                ..EngineConfig::default()
            },
            symbolic: SymbolicOptions::default(),
            solution: None,
            states: Sampling::default(),
            algos: vec![Algo::DfPn, Algo::AlphaBeta],
            search_nodes: 2_000_000,
            limits: Limits::default(),
        }
    }
}
