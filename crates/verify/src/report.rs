//! The result of a verification: agreement counts per algorithm and the disagreements.
//!
//! Everything serialises for `--json` output; algorithms, stop reasons and big counts are
//! written as their display text (`"dfpn"`, `"time limit reached"`, `"161029"`).

use num_bigint::BigUint;
use serde::{Serialize, Serializer};
use std::fmt::Display;
use symgame_limits::StopReason;
use symgame_prove::Algo;
use symgame_symbolic::GameKind;

/// Which states were checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Every reachable state, enumerated by the explicit reasoner (whose count must equal the
    /// symbolic one).
    All,
    /// A seeded uniform sample of the symbolic reachable set.
    Sample,
}

/// A state where the two sides disagree.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Disagreement {
    /// The state's true fluents, as GDL terms.
    pub state: Vec<String>,
    /// The role whose value differs.
    pub role: String,
    /// The explicit algorithm that disagrees.
    #[serde(serialize_with = "display")]
    pub algo: Algo,
    /// The value the symbolic side gives.
    pub symbolic: u8,
    /// The explicit answer: the exact value, or the bound (after a limit) that excludes the
    /// symbolic value.
    pub explicit: u8,
    /// Mixed values ([`GameKind::MixedValues`](symgame_symbolic::GameKind::MixedValues)):
    /// the role's value in mixed strategies on each side, `[symbolic, explicit]`, when they
    /// differ (`symbolic` and `explicit` above then hold them rounded).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mixed: Option<[f64; 2]>,
}

/// The answers of one explicit algorithm.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AlgoTally {
    /// The algorithm.
    #[serde(serialize_with = "display")]
    pub algo: Algo,
    /// Answers (one per state and role) equal to the symbolic value.
    pub agreed: u64,
    /// Searches stopped by their node limit (their bounds may still contradict the symbolic
    /// value: then they count as disagreed too).
    pub undecided: u64,
    /// Answers that contradict the symbolic value.
    pub disagreed: u64,
    /// Nodes expanded by all its searches.
    pub nodes_expanded: u64,
    /// Seconds spent in its searches.
    pub seconds: f64,
}

impl AlgoTally {
    /// A tally of `algo` with nothing counted yet.
    pub fn new(algo: Algo) -> Self {
        AlgoTally {
            algo,
            agreed: 0,
            undecided: 0,
            disagreed: 0,
            nodes_expanded: 0,
            seconds: 0.0,
        }
    }
}

/// The result of [`crate::verify`].
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// The kind of game, which decides the value compared.
    pub kind: GameKind,
    /// Every reachable state, or a sample.
    pub mode: Mode,
    /// The states of the symbolic solution (the union of its value classes).
    #[serde(serialize_with = "display")]
    pub reachable_states: BigUint,
    /// In [`Mode::All`]: the number of reachable states the explicit enumeration found.
    pub explicit_states: Option<u64>,
    /// States whose every role was asked of every algorithm.
    pub states_checked: u64,
    /// Per explicit algorithm, in the order of [`crate::VerifyOptions::algos`].
    pub algos: Vec<AlgoTally>,
    /// Every disagreement found.
    pub disagreements: Vec<Disagreement>,
    /// Seconds of the symbolic side (set-up, solving or reading, choosing the states).
    pub symbolic_seconds: f64,
    /// Seconds of the whole verification.
    pub seconds: f64,
    /// Why the check ended before every chosen state was checked.
    #[serde(serialize_with = "display_option")]
    pub stopped: Option<StopReason>,
    /// The pure equilibria of the one-shot stage games, both sides (when the symbolic solution
    /// reports them complete and every reachable state is checked, [`Mode::All`]).
    pub nash: Option<NashCheck>,
}

/// The one-shot stage games' pure equilibria, counted on each side.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct NashCounts {
    /// Non-terminal states whose every joint move ends the game.
    pub one_shot_states: u64,
    /// Of those, the states with at least one pure equilibrium.
    pub with_equilibrium: u64,
    /// When the initial state is one: the rewards of its equilibria, sorted.
    pub initial: Option<Vec<Vec<u8>>>,
}

/// The symbolic report of one-shot pure equilibria against the explicit count.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NashCheck {
    /// The symbolic solver's report.
    pub symbolic: NashCounts,
    /// The explicit side's, state by state over the reachable set.
    pub explicit: NashCounts,
}

impl NashCheck {
    /// Whether the two sides say the same.
    pub fn agrees(&self) -> bool {
        self.symbolic == self.explicit
    }
}

impl Report {
    /// Whether the explicit enumeration ([`Mode::All`]) reached another number of states than
    /// the symbolic solution covers.
    pub fn size_mismatch(&self) -> bool {
        self.explicit_states
            .is_some_and(|n| BigUint::from(n) != self.reachable_states)
    }

    /// Whether the two sides disagree anywhere: a value, the size of the reachable set, or
    /// the one-shot equilibria.
    pub fn disagrees(&self) -> bool {
        !self.disagreements.is_empty()
            || self.size_mismatch()
            || self.nash.as_ref().is_some_and(|n| !n.agrees())
    }
}

/// How far a verification has come, passed to its progress callback after each state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// States checked so far.
    pub states_checked: u64,
    /// States chosen for checking.
    pub states_to_check: u64,
    /// Disagreements found so far.
    pub disagreements: u64,
}

fn display<T: Display, S: Serializer>(value: &T, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(value)
}

fn display_option<T: Display, S: Serializer>(value: &Option<T>, s: S) -> Result<S::Ok, S::Error> {
    match value {
        Some(v) => s.collect_str(v),
        None => s.serialize_none(),
    }
}
