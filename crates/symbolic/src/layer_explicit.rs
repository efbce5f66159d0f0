//! A layer of a search expanded state by state where that is predicted to be cheaper than the
//! symbolic way (the images of a game compiled once, or compiling the game within the layer).
//!
//! Compiling the game within a layer costs about the same however few states the layer holds,
//! and the images cost per joint move; the explicit reasoner costs per state and joint move.
//! Which is cheaper depends on the game (wargame01: the whole reachable set, 172,726 states in 49
//! layers, state by state in 48 s, while the layers compiled symbolically ran out of nodes
//! after 29 layers; kalaha_2009 the other way round: 4,000 joint moves a second explicitly).
//! So each layer is a race decided by measurement ([`ExplicitLayers`]): the seconds per state
//! of the last explicit expansion against the seconds per BDD node of the last symbolic one,
//! each applied to the layer at hand. A layer tried state by state gets a time budget (one and
//! a half times what the symbolic expansion is predicted to take; while no symbolic expansion
//! is measured, twice the explicit prediction, at most a third of the time left, and no attempt
//! where the prediction alone is more); past it, the attempt is dropped and the layer is expanded
//! symbolically; each such loss makes the next attempt wait for a prediction twice as
//! favourable, until an attempt finishes. The explicit way's cost includes building the BDDs of
//! its sets from their codes (tens of nanoseconds a state and bit: it can outweigh the
//! expansion), and a build predicted past the budget is not started. Both ways give the same sets:
//! the non-terminal states of the layer and their successors, exact. In a game compiled once,
//! where the explicit way is not taken and the images are predicted (the last symbolic
//! layer's seconds per node, grown as they grew from the one before) to take well over the
//! time left, the search stops at once with the time limit
//! ([`ExplicitLayers::symbolic_hopeless`]) on an engine whose operations cannot be stopped once
//! started (biodivine); oxidd's stop at the limit from inside, so there the images are tried.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use symgame_bdd::{BddEngine, BddResult};
use symgame_explicit::{for_each_joint_move, MoveId, Reasoner};
use symgame_ground::GroundGame;
use symgame_limits::Guard;

use crate::codes::{codes_states_bdd, for_each_word_code, Coder, WordCodeSet};
use crate::encoding::Encoding;
use crate::options::ExplicitLayerMode;

/// The largest layer tried state by state, in states (its codes are held in memory).
const MAX_STATES: u64 = 4_000_000;

/// The budget of an attempt before any symbolic expansion was measured.
const FIRST_BUDGET: Duration = Duration::from_secs(1);

/// Seconds per state and bit of building the BDD of a set of state codes, until one is
/// measured (ticTacHeavenFC's fifth layer: 82,062 states and their 1.19 million successors
/// of 207 bits in 7.6 s, 29 ns; expanding them took 0.77 s).
const BUILD_PER_STATE_BIT: f64 = 30e-9;

/// The most the seconds per node of a symbolic expansion are assumed to grow from one layer
/// to the next.
const MAX_GROWTH: f64 = 4.0;

/// How many times the time left a layer's images must be predicted to take for them not to be
/// started ([`ExplicitLayers::symbolic_hopeless`]): predictions err both ways (gt_two_thirds_4p
/// finished a layer predicted at the 0.6 s it had left).
const HOPELESS: f64 = 1.5;

/// What the race between the two ways of expanding a layer measured so far.
#[derive(Default)]
struct Rates {
    reasoner: Option<Reasoner>,
    /// Seconds per state of the last explicit expansion (or of the part an abandoned attempt
    /// got through).
    explicit_per_state: Option<f64>,
    /// Seconds per BDD node of the layer of the last symbolic expansion.
    symbolic_per_node: Option<f64>,
    /// How much that grew from the symbolic expansion before (1 if unknown, at most
    /// [`MAX_GROWTH`]).
    symbolic_growth: f64,
    /// The seconds predicted for a symbolic expansion not started, and the seconds that were
    /// left ([`ExplicitLayers::symbolic_hopeless`]).
    declined: Option<(f64, f64)>,
    /// Seconds per state and bit of the last build of a set's BDD from its codes.
    build_per_state_bit: Option<f64>,
    /// Distinct successors per expanded state of the last explicit expansion.
    branching: f64,
    /// Attempts that ran past their budget since the last one that finished: each makes the
    /// next attempt wait for a prediction twice as favourable (a wrong guess costs its
    /// budget).
    lost: u32,
}

/// The explicit side of a game compiled within each layer: the race's measurements and the
/// number of layers it won.
#[derive(Default)]
pub(crate) struct ExplicitLayers {
    mode: ExplicitLayerMode,
    rates: Mutex<Rates>,
    /// Layers expanded state by state.
    pub(crate) won: AtomicUsize,
    /// Whether no layer is tried state by state before a symbolic one was measured
    /// ([`Self::symbolic_first`]).
    measure_symbolic_first: bool,
}

/// Why a layer is not expanded state by state here.
enum Declined {
    /// Predicted slower, too large, or over its budget: the symbolic way.
    Symbolic,
    /// A successor breaks an assumed fluent group: the symbolic way, which reports it.
    Broken,
}

impl ExplicitLayers {
    /// The explicit side under `mode`.
    pub(crate) fn new(mode: ExplicitLayerMode) -> Self {
        ExplicitLayers {
            mode,
            ..Default::default()
        }
    }

    /// The explicit side under `mode` of a game compiled once, whose images are usually cheap:
    /// no layer is tried state by state (unless forced) before the images of one were
    /// measured, so that the race compares measured rates. Trying first cost eightPuzzle its
    /// whole reachable set (won state by state, layer after layer, at 0.37 s a layer where
    /// its images took 0.08 s) and quad_5x5 1.6 s on a layer of 203,490 states and 521 nodes.
    pub(crate) fn symbolic_first(mode: ExplicitLayerMode) -> Self {
        ExplicitLayers {
            mode,
            measure_symbolic_first: true,
            ..Default::default()
        }
    }

    /// Hands over the explicit prefix's reasoner (building one for a large game takes
    /// seconds), its measured seconds per state (of its last layer; 0 when none) and its
    /// distinct successors per state.
    pub(crate) fn offer(&self, reasoner: Reasoner, per_state: f64, branching: f64) {
        if let Ok(mut r) = self.rates.lock() {
            r.reasoner.get_or_insert(reasoner);
            if per_state > 0.0 && r.explicit_per_state.is_none() {
                r.explicit_per_state = Some(per_state);
                r.branching = branching;
            }
        }
    }

    /// Records a build of the BDDs of sets from their codes: `state_bits` states times bits
    /// in `seconds` (an explicit prefix's replay of its layers).
    pub(crate) fn built(&self, state_bits: f64, seconds: Duration) {
        if let Ok(mut r) = self.rates.lock() {
            if state_bits > 0.0 {
                r.build_per_state_bit = Some(seconds.as_secs_f64() / state_bits);
            }
        }
    }

    /// Records a symbolic expansion of a layer of `nodes` BDD nodes that took `seconds`.
    pub(crate) fn symbolic_took(&self, nodes: usize, seconds: f64) {
        if let Ok(mut r) = self.rates.lock() {
            let per_node = seconds / nodes.max(1) as f64;
            r.symbolic_growth = match r.symbolic_per_node {
                Some(before) if before > 0.0 => (per_node / before).clamp(1.0, MAX_GROWTH),
                _ => 1.0,
            };
            r.symbolic_per_node = Some(per_node);
        }
    }

    /// Whether the images of a layer of `nodes` nodes of a game compiled once are predicted
    /// (the last symbolic layer's seconds per node, grown as they grew from the one before) to
    /// take more than [`HOPELESS`] times the time `guard` leaves. The caller then stops at
    /// once with the time limit instead of starting them: they would not finish, and an
    /// operation of the engine cannot be stopped once started (copolymer_4's tenth layer,
    /// predicted 10.6 s with 4.6 s left: one of its eight pieces ran 7.8 s, past the limit).
    /// Asked only of such engines (`BddEngine::stops_inside`: not oxidd's).
    /// The layer itself is counted before its images. Not used in a game compiled within each
    /// layer, whose layer is counted only after the compilation within it: there the
    /// prediction cost sudokuGrade1 and chinook their fifth layer, which the old way finished
    /// 1.3 s and 0.1 s past the limit. Never without a time limit or a measurement.
    pub(crate) fn symbolic_hopeless(&self, nodes: usize, guard: &Guard) -> bool {
        let (Some(left), Ok(mut r)) = (guard.time_left(), self.rates.lock()) else {
            return false;
        };
        let Some(rate) = r.symbolic_per_node else {
            return false;
        };
        let predicted = rate * r.symbolic_growth.max(1.0) * nodes as f64;
        let left = left.as_secs_f64();
        if predicted <= HOPELESS * left {
            return false;
        }
        r.declined = Some((predicted, left));
        true
    }

    /// What [`Self::symbolic_hopeless`] declined, said for the report.
    pub(crate) fn declined(&self) -> Option<String> {
        let (predicted, left) = self.rates.lock().ok()?.declined?;
        Some(format!(
            "the next layer's images were predicted to take {predicted:.1} s, more than \
             {HOPELESS} times the {left:.1} s left, and were not started"
        ))
    }

    /// The non-terminal states of `s` and their successors, expanded state by state, if that
    /// is predicted to be cheaper than compiling the game within `s` and it finishes within
    /// its budget; `None` otherwise (then nothing is changed but the measurements). `forced`
    /// (the symbolic way failed: out of nodes, too many joint moves): whatever the prediction,
    /// with the time the guard leaves. Without `game`, only a reasoner offered before
    /// ([`Self::offer`]) expands.
    pub(crate) fn try_layer<E: BddEngine>(
        &self,
        e: &E,
        enc: &Encoding,
        game: Option<&GroundGame>,
        s: &E::Bdd,
        guard: &Guard,
        forced: bool,
    ) -> BddResult<Option<(E::Bdd, E::Bdd)>> {
        let forced = match self.mode {
            ExplicitLayerMode::Never => return Ok(None),
            ExplicitLayerMode::Always => true,
            ExplicitLayerMode::Measured => forced,
            ExplicitLayerMode::Fallback if forced => true,
            ExplicitLayerMode::Fallback => return Ok(None),
        };
        let (count, nodes) = e.sat_count_and_nodes(s, enc.current_vars());
        let states: u64 = match u64::try_from(count) {
            Ok(n) if n <= MAX_STATES => n,
            _ => return Ok(None),
        };
        let Ok(mut rates) = self.rates.lock() else {
            return Ok(None);
        };
        // The explicit way: expanding the states, then building the BDDs of them and of their
        // successors from codes.
        let bits = f64::from(enc.num_bits());
        let per_bit = rates.build_per_state_bit.unwrap_or(BUILD_PER_STATE_BIT);
        let build = per_bit * bits * (1.0 + rates.branching);
        let budget = match (rates.explicit_per_state, rates.symbolic_per_node) {
            _ if forced => guard.time_left().unwrap_or(Duration::MAX),
            (Some(x), Some(y)) => {
                let (explicit, symbolic) = ((x + build) * states as f64, y * nodes as f64);
                if explicit * f64::from(1u32 << rates.lost.min(20)) >= symbolic {
                    return Ok(None);
                }
                Duration::from_secs_f64(1.5 * symbolic + 0.05)
            }
            (None, Some(y)) => Duration::from_secs_f64(1.5 * y * nodes as f64 + 0.05),
            // Nothing symbolic measured yet: twice the prediction, at least a second, at most
            // a third of the time left (not tried at all where the prediction alone is more);
            // once lost, the symbolic way measures first.
            (Some(_), None) | (None, None) if rates.lost > 0 => return Ok(None),
            (_, None) if self.measure_symbolic_first => return Ok(None),
            (Some(x), None) => {
                // An attempt predicted to outlast its budget would only cost the budget.
                let cap = guard.time_left().map_or(Duration::MAX, |t| t / 3);
                let predicted = Duration::from_secs_f64((x + build) * states as f64);
                if predicted > cap {
                    return Ok(None);
                }
                (2 * predicted).max(FIRST_BUDGET).min(cap)
            }
            (None, None) => FIRST_BUDGET,
        };
        let now = Instant::now();
        let deadline = now
            .checked_add(budget)
            .unwrap_or(now + Duration::from_secs(1 << 40));
        if rates.reasoner.is_none() {
            let Some(game) = game else {
                return Ok(None);
            };
            rates.reasoner = Some(Reasoner::new(game));
        }
        let reasoner = rates.reasoner.as_ref().expect("set above");
        let started = Instant::now();
        let mut coder = Coder::new(enc);
        let mut codes: Vec<Box<[u64]>> = Vec::with_capacity(states as usize);
        for_each_word_code(&e.export(s), enc.num_bits(), &mut |c| codes.push(c.into()));
        let mut expand = Vec::new();
        let mut successors = WordCodeSet::default();
        let mut done = 0usize;
        let outcome = expand_codes(
            reasoner,
            &mut coder,
            codes,
            deadline,
            guard,
            &mut expand,
            &mut successors,
            &mut done,
        );
        // An attempt dropped part way through a state counts the states it finished.
        let finished = if outcome.is_ok() {
            done
        } else {
            done.saturating_sub(1)
        };
        let expanded = started.elapsed();
        rates.explicit_per_state = Some(expanded.as_secs_f64() / finished.max(1) as f64);
        match outcome {
            Ok(()) => {}
            Err(Declined::Symbolic) => {
                rates.lost += 1;
                return Ok(None);
            }
            Err(Declined::Broken) => return Ok(None),
        }
        rates.branching = successors.len() as f64 / expand.len().max(1) as f64;
        // The BDDs are built state by state and bit by bit, with no check of the limits: a
        // build predicted past the budget (or the time left, when forced) is not started.
        let set_bits = (expand.len() + successors.len()) as f64 * bits;
        if Instant::now() + Duration::from_secs_f64(per_bit * set_bits) > deadline {
            rates.lost += 1;
            return Ok(None);
        }
        rates.lost = 0;
        let expand = codes_states_bdd(e, enc, expand)?;
        let image = codes_states_bdd(e, enc, successors.into_iter().collect())?;
        let building = (started.elapsed() - expanded).as_secs_f64();
        rates.build_per_state_bit = Some(building / set_bits.max(1.0));
        self.won.fetch_add(1, Ordering::Relaxed);
        Ok(Some((expand, image)))
    }
}

/// Expands the states of `codes` one by one: the non-terminal ones go to `expand`, their
/// successors' codes to `successors`, and `done` counts the states looked at. Gives up past
/// `deadline` or a limit of `guard` (the symbolic way then decides, and stops at the limit),
/// and when a successor breaks an assumed group of the encoding.
#[allow(clippy::too_many_arguments)]
fn expand_codes(
    r: &Reasoner,
    coder: &mut Coder<'_>,
    codes: Vec<Box<[u64]>>,
    deadline: Instant,
    guard: &Guard,
    expand: &mut Vec<Box<[u64]>>,
    successors: &mut WordCodeSet,
    done: &mut usize,
) -> Result<(), Declined> {
    let mut legal: Vec<Vec<MoveId>> = vec![Vec::new(); r.num_roles()];
    let mut updates = 0u64;
    let mut late = false;
    for c in codes {
        *done += 1;
        updates += 1;
        if updates.is_multiple_of(64) && (Instant::now() > deadline || guard.check().is_err()) {
            return Err(Declined::Symbolic);
        }
        let s = coder.state_of_words(&c);
        if r.is_terminal(&s) {
            continue;
        }
        expand.push(c);
        for (role, l) in legal.iter_mut().enumerate() {
            r.legal_moves_into(&s, role, l);
        }
        let mut broken = false;
        for_each_joint_move(&legal, |joint| {
            let Some(code) = coder.words_of(&r.next_state(&s, joint)) else {
                // A successor breaks an assumed group: it has no code.
                broken = true;
                return false;
            };
            successors.insert(code);
            updates += 1;
            if updates.is_multiple_of(64) {
                late = Instant::now() > deadline || guard.check().is_err();
            }
            !late
        });
        if broken {
            return Err(Declined::Broken);
        }
        if late {
            return Err(Declined::Symbolic);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codes::state_code;
    use crate::test_support::{encoded, small_engine};
    use symgame_bdd::BddEngine;
    use symgame_limits::Limits;

    /// The successors of tictactoe's first move, as a layer of nine states.
    fn second_layer<E: BddEngine>(e: &E, enc: &Encoding, game: &GroundGame) -> E::Bdd {
        let r = Reasoner::new(game);
        let init = r.initial_state();
        let mut legal: Vec<Vec<MoveId>> = vec![Vec::new(); r.num_roles()];
        for (role, l) in legal.iter_mut().enumerate() {
            r.legal_moves_into(&init, role, l);
        }
        let mut codes = Vec::new();
        for_each_joint_move(&legal, |joint| {
            codes.push(state_code(enc, &r.next_state(&init, joint)).expect("a code"));
            true
        });
        codes_states_bdd(e, enc, codes).unwrap()
    }

    /// Before any symbolic layer is measured, a layer whose explicit expansion is predicted to
    /// outlast the budget it could get (a third of the time left) is not tried at all, so it
    /// costs nothing; one predicted to fit is tried and expanded.
    #[test]
    fn an_attempt_predicted_past_its_budget_is_not_made() {
        let (game, enc) = encoded("tictactoe");
        let e = small_engine(&enc);
        let layer = second_layer(&e, &enc, &game);
        let limits = Limits {
            time_limit: Some(Duration::from_secs(100)),
            ..Default::default()
        };
        let guard = Guard::new(&limits);
        // Nine states at five seconds each: 45 s, past a third of the 100 s left.
        let slow = ExplicitLayers::new(ExplicitLayerMode::Measured);
        slow.offer(Reasoner::new(&game), 5.0, 8.0);
        let got = slow
            .try_layer(&e, &enc, Some(&game), &layer, &guard, false)
            .unwrap();
        assert!(got.is_none());
        let rates = slow.rates.lock().unwrap();
        assert_eq!(
            rates.explicit_per_state,
            Some(5.0),
            "no attempt measured anything"
        );
        assert_eq!(rates.lost, 0);
        drop(rates);
        // At a millisecond a state it is tried, and gives the layer's successors.
        let fast = ExplicitLayers::new(ExplicitLayerMode::Measured);
        fast.offer(Reasoner::new(&game), 0.001, 8.0);
        let (expand, image) = fast
            .try_layer(&e, &enc, Some(&game), &layer, &guard, false)
            .unwrap()
            .expect("expanded state by state");
        assert_eq!(expand, layer, "no state of the second layer is terminal");
        let n = e.sat_count_over(&image, enc.current_vars());
        assert_eq!(n, 72u32.into(), "nine first moves, eight replies each");
        assert_eq!(fast.won.load(Ordering::Relaxed), 1);
    }

    /// A game compiled once races only after one layer's images were measured: before, even a
    /// cheap prediction is not tried; after images measured slow, the same layer is expanded
    /// state by state.
    #[test]
    fn a_game_compiled_once_measures_its_images_first() {
        let (game, enc) = encoded("tictactoe");
        let e = small_engine(&enc);
        let layer = second_layer(&e, &enc, &game);
        let limits = Limits::default();
        let guard = Guard::new(&limits);
        let race = ExplicitLayers::symbolic_first(ExplicitLayerMode::Measured);
        race.offer(Reasoner::new(&game), 1e-9, 8.0);
        let before = race
            .try_layer(&e, &enc, None, &layer, &guard, false)
            .unwrap();
        assert!(before.is_none(), "tried before any image was measured");
        // Images at a second a node: far slower than nine states state by state.
        race.symbolic_took(1, 1.0);
        let (_, image) = race
            .try_layer(&e, &enc, None, &layer, &guard, false)
            .unwrap()
            .expect("expanded state by state once the images were measured");
        let n = e.sat_count_over(&image, enc.current_vars());
        assert_eq!(n, 72u32.into());
    }

    /// The images of a layer predicted (the last one's seconds per node, grown as they grew
    /// from the one before, at most [`MAX_GROWTH`] times) to take more than [`HOPELESS`]
    /// times the time left are not started, and the report says why; never without a limit
    /// or a measurement.
    #[test]
    fn images_predicted_well_past_the_time_left_are_not_started() {
        let limit = Limits {
            time_limit: Some(Duration::from_secs(100)),
            ..Default::default()
        };
        let guard = Guard::new(&limit);
        let no_limit = Limits::default();
        let race = ExplicitLayers::new(ExplicitLayerMode::Measured);
        assert!(
            !race.symbolic_hopeless(usize::MAX, &guard),
            "nothing measured"
        );
        race.symbolic_took(1000, 0.01);
        assert!(
            !race.symbolic_hopeless(14_000_000, &guard),
            "140 s, about 100 s left"
        );
        assert!(race.declined().is_none());
        assert!(race.symbolic_hopeless(16_000_000, &guard), "160 s");
        let said = race.declined().expect("said");
        assert!(said.contains("160.0 s"), "{said}");
        assert!(
            !race.symbolic_hopeless(usize::MAX, &Guard::new(&no_limit)),
            "no limit"
        );
        // Twice the seconds per node of the layer before: predicted twice again.
        race.symbolic_took(1000, 0.02);
        assert!(!race.symbolic_hopeless(3_000_000, &guard), "120 s");
        assert!(race.symbolic_hopeless(4_000_000, &guard), "160 s");
        // Fifty times: taken as four times.
        race.symbolic_took(1000, 1.0);
        assert!(!race.symbolic_hopeless(30_000, &guard), "120 s");
        assert!(race.symbolic_hopeless(40_000, &guard), "160 s");
        // Faster again: no growth.
        race.symbolic_took(1000, 0.5);
        assert!(!race.symbolic_hopeless(290_000, &guard), "145 s");
    }
}
