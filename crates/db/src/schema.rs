//! What a database file is about: its fingerprint, the caller's metadata, the counted
//! variables and the outcome dictionary.

use std::collections::HashSet;

use symgame_bdd::VarSet;

use crate::error::{Error, Result};
use crate::format::{Fingerprint, MAX_REWARD, MAX_VARS};

/// The value of a state: the reward of every role under optimal play, and optionally a
/// distance (e.g. moves to the end of the game; its meaning is the caller's, stated in the
/// metadata).
///
/// A file stores each distinct outcome once, in a dictionary, and per state only the index
/// into it: win/draw/loss costs 2 bits a state, a distance multiplies the dictionary by the
/// number of distinct distances.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Outcome {
    /// Reward of each role, in role order, `0..=100`.
    pub rewards: Vec<u8>,
    /// The distance, if the file stores distances (all outcomes of a file have one or none).
    pub distance: Option<u32>,
}

impl Outcome {
    /// An outcome without a distance.
    pub fn new(rewards: Vec<u8>) -> Self {
        Outcome {
            rewards,
            distance: None,
        }
    }
}

/// Everything in a database file besides the layers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schema {
    /// What the file was made from; readers may insist on it (see
    /// [`crate::Database::open`]).
    pub fingerprint: Fingerprint,
    /// Opaque bytes for the caller (e.g. JSON naming the roles, the fluent of each variable,
    /// the encoding and the meaning of distances).
    pub metadata: Vec<u8>,
    /// Number of variables of the node tables (the engine's `num_vars`).
    pub num_vars: u32,
    /// The variables states are ranked over (e.g. the current-state variables); every layer's
    /// BDD depends only on them.
    pub counted: VarSet,
    /// The distinct outcomes; a state's value is an index into this list.
    pub outcomes: Vec<Outcome>,
}

impl Schema {
    /// The number of roles (0 if there are no outcomes).
    pub fn num_roles(&self) -> usize {
        self.outcomes.first().map_or(0, |o| o.rewards.len())
    }

    /// Whether the outcomes carry distances.
    pub fn has_distance(&self) -> bool {
        self.outcomes.first().is_some_and(|o| o.distance.is_some())
    }

    /// Check the invariants every file keeps: at most [`MAX_VARS`] variables, counted variables in range, rewards `<= 100`,
    /// the same number of roles and the presence of a distance in every outcome, outcomes
    /// distinct, at most 2^32 of them.
    pub(crate) fn check(&self) -> Result<()> {
        if self.num_vars > MAX_VARS {
            return Err(Error::invalid_input(format!(
                "{} variables, more than the {MAX_VARS} a file may have",
                self.num_vars
            )));
        }
        if let Some(v) = self.counted.max_var().filter(|&v| v >= self.num_vars) {
            return Err(Error::invalid_input(format!(
                "counted variable {v} is out of range ({} variables)",
                self.num_vars
            )));
        }
        if u32::try_from(self.outcomes.len()).is_err() {
            return Err(Error::invalid_input("more than 2^32 - 1 distinct outcomes"));
        }
        let (roles, distance) = (self.num_roles(), self.has_distance());
        let mut seen = HashSet::new();
        for (i, o) in self.outcomes.iter().enumerate() {
            if o.rewards.len() != roles || o.distance.is_some() != distance {
                return Err(Error::invalid_input(format!(
                    "outcome {i} has {} rewards and {} distance, outcome 0 has {roles} and {}",
                    o.rewards.len(),
                    if o.distance.is_some() { "a" } else { "no" },
                    if distance { "a" } else { "no" }
                )));
            }
            if let Some(r) = o.rewards.iter().find(|&&r| r > MAX_REWARD) {
                return Err(Error::invalid_input(format!(
                    "outcome {i} has reward {r}, above {MAX_REWARD}"
                )));
            }
            if !seen.insert(o) {
                return Err(Error::invalid_input(format!(
                    "outcome {i} repeats an earlier outcome"
                )));
            }
        }
        Ok(())
    }
}
