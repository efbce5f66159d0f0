//! Claims of the mutex proof dropped without BDDs: by the states already known to be
//! reachable and by random playouts of the explicit reasoner. Sound either way (a claim false in
//! a reachable state is no invariant), and cheap where the proof is not.

use std::time::{Duration, Instant};

use symgame_ground::GroundGame;

use super::{Candidate, MutexBudget};

/// How long random playouts run: their whole time, or until they have settled.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Until {
    /// The whole time given.
    Time,
    /// Until [`SETTLE_FACTOR`] times as many states as the playouts had visited when they
    /// dropped their last claim (at least [`SETTLE_MIN_STATES`]), or the time given: breaks
    /// are found early or rarely (sudokuGrade1 and madBishops dropped none after their first
    /// 2,000 states, hex kept dropping to the end), so a second of playouts mostly confirmed
    /// what its first tenth had found. Counted in states, not seconds, so that where the time
    /// does not cut them the playouts, and so the groups assumed, are the same on any machine.
    Settled,
}

/// The fewest states settling playouts visit.
const SETTLE_MIN_STATES: usize = 2_000;

/// Settling playouts stop at this multiple of the states visited at their last drop.
const SETTLE_FACTOR: usize = 3;

/// Drops the claims that a state of [`MutexBudget::known_states`] breaks (sound: they are
/// reachable).
pub(super) fn falsify_by_states(
    budget: &MutexBudget,
    candidates: &[Candidate],
    amo: &mut [bool],
    alo: &mut [bool],
) {
    let Some(states) = &budget.known_states else {
        return;
    };
    let fluents = candidates
        .iter()
        .flat_map(|cand| cand.members.iter().map(|&f| f + 1))
        .max()
        .unwrap_or(0);
    let mut member_of: Vec<Vec<usize>> = vec![Vec::new(); fluents];
    for (c, cand) in candidates.iter().enumerate() {
        for &f in &cand.members {
            member_of[f].push(c);
        }
    }
    // Per state, only the candidates it has a member of are visited, and those whose "at
    // least one" still stands: hundreds of thousands of known states times thousands of
    // candidates took seconds (sudokuGrade3: 9 s of its 10).
    let mut count = vec![0u32; candidates.len()];
    let mut touched: Vec<usize> = Vec::new();
    let mut at_least_one: Vec<usize> = (0..candidates.len()).filter(|&c| alo[c]).collect();
    for state in states.iter() {
        for &f in state {
            for &c in member_of.get(f).map_or(&[][..], Vec::as_slice) {
                if count[c] == 0 {
                    touched.push(c);
                }
                count[c] += 1;
            }
        }
        for &c in &touched {
            if count[c] >= 2 {
                amo[c] = false;
                alo[c] = false;
            }
        }
        at_least_one.retain(|&c| {
            if count[c] == 0 {
                alo[c] = false;
            }
            alo[c]
        });
        for c in touched.drain(..) {
            count[c] = 0;
        }
    }
}

/// Drops the claims that a reachable state breaks, found by random playouts of the explicit
/// reasoner from the initial state for up to `time` (and at most 100,000 states; with
/// [`Until::Settled`], until they have settled), random by `seed` (SplitMix64); returns the
/// states visited. Sound: a
/// claim false in a reachable state is no invariant. Cheap where the proof is not: most
/// candidates of a game are false, and every one costs the symbolic checks a full round.
pub(super) fn falsify_by_playouts(
    game: &GroundGame,
    candidates: &[Candidate],
    amo: &mut [bool],
    alo: &mut [bool],
    (time, until): (Duration, Until),
    seed: u64,
) -> usize {
    const MAX_STATES: usize = 100_000;
    const MAX_DEPTH: usize = 1_000;
    let started = Instant::now();
    // No per-move specializations: they take longer to build (a second on a large circuit)
    // than these playouts take to run.
    let reasoner = symgame_explicit::Reasoner::with_budget(game, 0);
    let roles = reasoner.num_roles();
    let mut seed = seed;
    let mut rand = move |n: usize| {
        seed = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = seed;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) % n as u64) as usize
    };
    let mut states = 0usize;
    // The states visited when a claim was last dropped.
    let mut last_drop = 0usize;
    let settled = |states: usize, last_drop: usize| {
        until == Until::Settled && states >= SETTLE_MIN_STATES.max(last_drop * SETTLE_FACTOR)
    };
    let mut moves = Vec::new();
    'playouts: while started.elapsed() < time && states < MAX_STATES {
        if settled(states, last_drop) {
            break;
        }
        let mut s = reasoner.initial_state();
        for _ in 0..MAX_DEPTH {
            states += 1;
            for (c, cand) in candidates.iter().enumerate() {
                if !(amo[c] || alo[c]) {
                    continue;
                }
                let k = cand.members.iter().filter(|&&f| s.contains(f)).count();
                if k >= 2 || (k == 0 && alo[c]) {
                    last_drop = states;
                }
                if k >= 2 {
                    amo[c] = false;
                    alo[c] = false;
                } else if k == 0 {
                    alo[c] = false;
                }
            }
            if reasoner.is_terminal(&s) || states >= MAX_STATES {
                break;
            }
            let mut joint = Vec::with_capacity(roles);
            for r in 0..roles {
                reasoner.legal_moves_into(&s, r, &mut moves);
                if moves.is_empty() {
                    continue 'playouts;
                }
                joint.push(moves[rand(moves.len())]);
            }
            s = reasoner.next_state(&s, &joint);
            if settled(states, last_drop)
                || (states.is_multiple_of(256) && started.elapsed() >= time)
            {
                break 'playouts;
            }
        }
    }
    states
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mutex::{candidate_groups, claims_of_init, SAMPLE_SEED};
    use crate::test_support::encoded;

    /// Settling playouts drop what a full run of them drops on games whose claims break early,
    /// in far fewer states, and they stop at a number of states (not a time), the same on
    /// every run. Fails if `Until::Settled` is read as `Until::Time` (a full run visits
    /// 100,000 states) or if the count of the last drop is not kept.
    #[test]
    fn settled_playouts_drop_what_a_full_run_drops_in_fewer_states() {
        for name in ["tictactoe", "connect4_4x4", "hanoi_3"] {
            let (game, _) = encoded(name);
            let candidates = candidate_groups(&game);
            let run = |until| {
                let (mut amo, mut alo) = claims_of_init(&game, &candidates);
                let long = Duration::from_secs(600);
                let states = falsify_by_playouts(
                    &game,
                    &candidates,
                    &mut amo,
                    &mut alo,
                    (long, until),
                    SAMPLE_SEED,
                );
                (states, amo, alo)
            };
            let (all, amo, alo) = run(Until::Time);
            let (settled, s_amo, s_alo) = run(Until::Settled);
            assert_eq!(
                (s_amo, s_alo),
                (amo, alo),
                "{name}: different claims dropped"
            );
            assert!(settled >= SETTLE_MIN_STATES, "{name}: {settled} states");
            assert!(settled < all / 10, "{name}: {settled} of {all} states");
            assert_eq!(run(Until::Settled).0, settled, "{name}: not reproducible");
        }
    }
}
