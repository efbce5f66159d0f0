//! What `reach` and `solve` do when an assumed fluent group breaks: set up again with the
//! groups assumed without the one that broke, or with proven groups only.
//!
//! Where the mutex proof gives up, the candidate groups that playouts did not break are assumed
//! and checked by the search. When one breaks, the search keeps a witness: a reachable state
//! where a legal joint move breaks it. The witness and its successors
//! ([`states_at_break`]) join the known states of the next set-up, which drop every candidate
//! group they break, and the rest are assumed again at once
//! ([`SymbolicOptions::reassume_groups`](crate::SymbolicOptions::reassume_groups)). After
//! [`MAX_REASSUMED`] such retries, or after a break without a witness, the set-up uses proven
//! groups only.

use std::sync::Arc;

use symgame_ground::GroundGame;

use crate::prefix::states_at_break;

/// How many times the groups are assumed anew after one broke, before the set-up falls back to
/// proven groups only. Each retry repeats the search from its first layer, and a dropped
/// candidate can let another, untested one through.
pub const MAX_REASSUMED: usize = 3;

/// Known states as [`ExplicitRun::known`](crate::ExplicitRun::known) gives them: the states
/// (true fluents of each) and whether they are every reachable state.
pub type KnownStates = (Arc<Vec<Vec<usize>>>, bool);

/// The state of the retries of one run after breaks of assumed groups.
#[derive(Debug, Clone)]
pub struct GroupRetry {
    assume: bool,
    reassumed: usize,
    witnessed: Vec<Vec<usize>>,
}

/// What the next set-up does after a break ([`GroupRetry::after_break`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retry {
    /// The groups are assumed again without those that the `states` states at the break
    /// (the witness and its successors) break.
    Reassume {
        /// States at the break added to the known states.
        states: usize,
    },
    /// Proven groups only: no witness, or [`MAX_REASSUMED`] retries done.
    ProvenOnly,
}

impl Default for GroupRetry {
    fn default() -> Self {
        Self::new()
    }
}

impl GroupRetry {
    /// The first attempt: groups assumed where the proof gives up, nothing witnessed.
    pub fn new() -> Self {
        Self {
            assume: true,
            reassumed: 0,
            witnessed: Vec::new(),
        }
    }

    /// [`SymbolicOptions::assume_groups`](crate::SymbolicOptions::assume_groups) for the next
    /// set-up.
    pub fn assume_groups(&self) -> bool {
        self.assume
    }

    /// [`SymbolicOptions::reassume_groups`](crate::SymbolicOptions::reassume_groups) for the
    /// next set-up: the proof that gave up is not run again after a witnessed break.
    pub fn reassume_groups(&self) -> bool {
        self.assume && self.reassumed > 0
    }

    /// How many retries assumed the groups anew.
    pub fn reassumed(&self) -> usize {
        self.reassumed
    }

    /// The known states of the next set-up: `explicit` (the explicit prefix's, if any) with
    /// the states witnessed at every break so far. Whether they are all reachable states is
    /// `explicit`'s flag: the witnessed states are reachable, so they never make it false.
    pub fn known(&self, explicit: Option<KnownStates>) -> Option<KnownStates> {
        if self.witnessed.is_empty() {
            return explicit;
        }
        let all = explicit.as_ref().is_some_and(|k| k.1);
        let mut states = explicit.map_or_else(Vec::new, |k| (*k.0).clone());
        states.extend(self.witnessed.iter().cloned());
        Some((Arc::new(states), all))
    }

    /// Records a break of an assumed group, with its witness if the search kept one, and says
    /// what the next set-up does.
    pub fn after_break(&mut self, game: &GroundGame, witness: Option<&[usize]>) -> Retry {
        match witness.filter(|_| self.assume && self.reassumed < MAX_REASSUMED) {
            Some(w) => {
                let states = states_at_break(game, w);
                let n = states.len();
                self.witnessed.extend(states);
                self.reassumed += 1;
                Retry::Reassume { states: n }
            }
            None => {
                self.assume = false;
                Retry::ProvenOnly
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use symgame_explicit::Reasoner;
    use symgame_testkit::load_game;

    /// Breaks with a witness add the witness and its successors to the known states, keep the
    /// explicit prefix's and its flag, and after `MAX_REASSUMED` of them the set-up falls back
    /// to proven groups; a break without a witness does at once.
    #[test]
    fn retries_collect_witnesses_then_fall_back() {
        let game = load_game("nim_1_2_3");
        let r = Reasoner::with_budget(&game, 0);
        let init = r.initial_state();
        let witness: Vec<usize> = init.fluents().collect();
        let successors = r.successors(&init).len();
        assert!(successors > 1);
        let mut retry = GroupRetry::new();
        assert!(retry.assume_groups() && !retry.reassume_groups());
        assert_eq!(retry.known(None), None);
        assert_eq!(
            retry.after_break(&game, Some(&witness)),
            Retry::Reassume {
                states: 1 + successors
            }
        );
        assert!(retry.assume_groups() && retry.reassume_groups());
        let known = retry.known(None).expect("witnessed states");
        assert_eq!(known.0.len(), 1 + successors);
        assert_eq!(known.0[0], witness);
        assert!(!known.1);
        let explicit = (Arc::new(vec![witness.clone()]), true);
        let known = retry.known(Some(explicit)).expect("merged");
        assert_eq!(known.0.len(), 2 + successors);
        assert!(known.1, "witnessed states are reachable: the flag stands");
        for _ in 1..MAX_REASSUMED {
            assert!(matches!(
                retry.after_break(&game, Some(&witness)),
                Retry::Reassume { .. }
            ));
        }
        assert_eq!(retry.reassumed(), MAX_REASSUMED);
        assert_eq!(retry.after_break(&game, Some(&witness)), Retry::ProvenOnly);
        assert!(!retry.assume_groups() && !retry.reassume_groups());

        let mut retry = GroupRetry::new();
        assert_eq!(retry.after_break(&game, None), Retry::ProvenOnly);
        assert!(!retry.assume_groups());
        assert_eq!(retry.after_break(&game, Some(&witness)), Retry::ProvenOnly);
    }
}
