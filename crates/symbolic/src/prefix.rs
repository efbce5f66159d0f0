//! The first layers of a breadth-first search expanded state by state with the explicit
//! reasoner, while they are small: [`ExplicitPrefix`] and its [`ExplicitRun`].
//!
//! A symbolic layer costs about the same whether it holds ten states or ten thousand: the
//! images of a game compiled within each layer recompile its circuit per layer, and even a
//! compiled relation pays its whole size per image. The first layers of most games hold a few
//! states, which the explicit reasoner expands in microseconds each. So before the symbolic
//! set-up, [`ExplicitPrefix::run`] expands the first layers explicitly while a layer has at
//! most [`ExplicitPrefix::max_states`] states (and is predicted to have at most eight times as
//! many successors) and its expansion fits (as predicted from the seconds per state of the
//! layer before) in what is left of [`ExplicitPrefix::max_seconds`].
//! The breadth-first search then replays each explicit step: the layer's non-terminal states
//! and their successors are built as BDDs straight from the state lists (a reduced node table
//! from the sorted codes, imported into the engine), and the search goes on with exactly the
//! sets a symbolic step would have given. Every later layer is expanded symbolically. The
//! explicit reasoner is the same one the cross-checks trust; tests compare the layer counts
//! with and without the prefix. Because the run needs no BDD, its layers are known even when
//! the symbolic set-up of a game stops.

use std::collections::{HashSet, VecDeque};
use std::time::Instant;

use symgame_bdd::{BddEngine, BddResult};
use symgame_explicit::{for_each_joint_move, MoveId, Reasoner, State};
use symgame_ground::GroundGame;
use symgame_limits::{Guard, Limits, StopReason};

use crate::codes::{codes_states_bdd, states_bdd, Coder};
use crate::encoding::Encoding;
use crate::layer_explicit::ExplicitLayers;

/// At most this many true fluents in all are in [`ExplicitRun::known_states`] (128 MB).
const KNOWN_FLUENTS: usize = 16_000_000;

/// How the first layers of a search are expanded explicitly (see the module documentation).
pub struct ExplicitPrefix {
    reasoner: Reasoner,
    /// When the prefix was made: the first budget counts the reasoner's compilation too.
    created: Instant,
    /// The largest layer expanded explicitly before the set-up, in states.
    pub max_states: usize,
    /// The most successors a layer expanded explicitly may have, predicted from the
    /// successors per state of the layer before (replaying a step builds their BDD state by
    /// state); eight times [`Self::max_states`] unless set.
    pub max_successors: usize,
    /// The longest the explicit run before the set-up may take, in seconds; a layer
    /// predicted to take longer than what is left, or running past it, ends the run (the
    /// layer is expanded symbolically).
    pub max_seconds: f64,
    /// For a game compiled within each layer (whose symbolic layers are slow), the run goes on
    /// after the set-up up to layers of this many states (and [`Self::max_successors`]
    /// successors), in at most `max_seconds` more.
    pub layerwise_states: usize,
}

/// One layer expanded explicitly: what the symbolic search replays.
pub(crate) struct ExplicitStep {
    /// The non-terminal states of the layer.
    expand: Vec<State>,
    /// Their successors (earlier states included, as an image gives them).
    successors: Vec<State>,
}

/// The layers an [`ExplicitPrefix`] expanded, for the symbolic search to replay.
pub struct ExplicitRun {
    prefix: ExplicitPrefix,
    steps: VecDeque<ExplicitStep>,
    /// The states of the last layer, not yet expanded.
    frontier: Vec<State>,
    /// Every state of the layers so far.
    seen: HashSet<State>,
    /// Seconds per state of the last expansion.
    per_state: f64,
    /// Distinct successors per state of the last expansion.
    branching: f64,
    /// Whether `frontier` is still the layer after the last step (no step dropped or cleared,
    /// and its non-terminal states not yet handed out by [`Self::frontier_expand`]).
    frontier_next: bool,
    /// When the frontier's terminal states are known: how many of its states are not
    /// terminal (they come first in `frontier`).
    frontier_open: Option<usize>,
    /// `(states, terminal)` of each layer expanded explicitly, from the initial state.
    pub layers: Vec<(u64, u64)>,
    /// Seconds the run took.
    pub seconds: f64,
    /// Set when a limit (time, Ctrl-C) ended the run.
    pub stopped: Option<StopReason>,
}

/// A layer of the explicit prefix applies at most this many joint moves per successor it may
/// have ([`ExplicitPrefix::max_successors`]): several joint moves often lead to one state, but
/// past that the reasoner's time (about a million joint moves a second) is the symbolic
/// set-up's.
const JOINT_PER_SUCCESSOR: u64 = 8;

impl ExplicitPrefix {
    /// The explicit prefix of searches on `game`.
    pub fn new(game: &GroundGame, max_states: usize, max_seconds: f64) -> ExplicitPrefix {
        ExplicitPrefix {
            created: Instant::now(),
            reasoner: Reasoner::new(game),
            max_states,
            max_seconds,
            layerwise_states: max_states.saturating_mul(4),
            max_successors: max_states.saturating_mul(8),
        }
    }

    /// Expands the first layers explicitly (see the module documentation), within `limits`
    /// and what is left of [`Self::max_seconds`] since the prefix was made.
    pub fn run(self, limits: &Limits) -> ExplicitRun {
        let init = self.reasoner.initial_state();
        let (max_states, left) = (
            self.max_states,
            self.max_seconds - self.created.elapsed().as_secs_f64(),
        );
        let mut run = ExplicitRun {
            prefix: self,
            steps: VecDeque::new(),
            seen: HashSet::from([init.clone()]),
            frontier: vec![init],
            per_state: 0.0,
            branching: 0.0,
            frontier_next: true,
            frontier_open: None,
            layers: Vec::new(),
            seconds: 0.0,
            stopped: None,
        };
        let max_successors = run.prefix.max_successors;
        run.extend(max_states, max_successors, left, limits);
        run
    }
    /// The non-terminal states of `layer` and their successors; `Ok(None)` when that takes
    /// more than `seconds`, or the layer's joint moves are more than `max_joint` (counted
    /// before each state's moves are applied: a first state of 101^4 joint moves is not
    /// begun).
    fn expand(
        &self,
        layer: &[State],
        (seconds, max_joint): (f64, u64),
        guard: &Guard,
    ) -> Result<Option<ExplicitStep>, StopReason> {
        let started = Instant::now();
        let r = &self.reasoner;
        let mut expand = Vec::new();
        let mut successors: HashSet<State> = HashSet::new();
        let mut legal: Vec<Vec<MoveId>> = vec![Vec::new(); r.num_roles()];
        // Checked every 64 states or updates, and so also within a state of many joint moves
        // (four roles of a hundred moves each: 10^8 joint moves).
        let mut updates = 0u64;
        let mut expired = false;
        let mut joint_moves = 0u64;
        for s in layer {
            updates += 1;
            if updates.is_multiple_of(64) {
                guard.check()?;
                if started.elapsed().as_secs_f64() > seconds {
                    return Ok(None);
                }
            }
            if r.is_terminal(s) {
                continue;
            }
            expand.push(s.clone());
            for (role, l) in legal.iter_mut().enumerate() {
                r.legal_moves_into(s, role, l);
            }
            let here = legal
                .iter()
                .try_fold(1u64, |acc, l| acc.checked_mul(l.len() as u64));
            joint_moves = match here.and_then(|n| joint_moves.checked_add(n)) {
                Some(n) if n <= max_joint => n,
                _ => return Ok(None),
            };
            let done = for_each_joint_move(&legal, |joint| {
                successors.insert(r.next_state(s, joint));
                updates += 1;
                if updates.is_multiple_of(64) {
                    expired = guard.check().is_err() || started.elapsed().as_secs_f64() > seconds;
                }
                !expired
            });
            if !done || expired {
                guard.check()?;
                return Ok(None);
            }
        }
        // Sorted, so that consecutive states share most fluents: the reasoner evaluates a
        // state by change propagation from the one before.
        let mut successors: Vec<State> = successors.into_iter().collect();
        successors.sort_unstable();
        Ok(Some(ExplicitStep { expand, successors }))
    }
}

impl ExplicitRun {
    /// Goes on expanding layers explicitly while each has at most `max_states` states, is
    /// predicted to have at most `max_successors` successors (as many per state as the layer
    /// before) and to fit in `seconds` from now (nothing if a limit ended the run).
    fn extend(&mut self, max_states: usize, max_successors: usize, seconds: f64, limits: &Limits) {
        let guard = Guard::new(limits);
        let started = guard.started;
        while self.stopped.is_none()
            && !self.frontier.is_empty()
            && self.frontier.len() <= max_states
        {
            let left = seconds - started.elapsed().as_secs_f64();
            let n = self.frontier.len() as f64;
            if self.per_state * n > left || self.branching * n > max_successors as f64 {
                break;
            }
            let layer_started = Instant::now();
            let max_joint = (max_successors as u64).saturating_mul(JOINT_PER_SUCCESSOR);
            let step = match self
                .prefix
                .expand(&self.frontier, (left, max_joint), &guard)
            {
                Ok(Some(step)) => step,
                Ok(None) => break,
                Err(why) => {
                    self.stopped = Some(why);
                    break;
                }
            };
            let n = self.frontier.len();
            self.per_state = layer_started.elapsed().as_secs_f64() / n as f64;
            self.branching = step.successors.len() as f64 / n as f64;
            self.layers.push((n as u64, (n - step.expand.len()) as u64));
            let new: Vec<State> = step
                .successors
                .iter()
                .filter(|t| !self.seen.contains(*t))
                .cloned()
                .collect();
            self.steps.push_back(step);
            self.seen.extend(new.iter().cloned());
            self.frontier = new;
            self.frontier_open = None;
        }
        let left = seconds - started.elapsed().as_secs_f64();
        if self.stopped.is_none() && self.frontier_open.is_none() && left > 0.0 {
            // Within what is left of the budget only, and a third of it: where the terminal
            // condition is costly (quarto, merrills) the check would take time from the
            // symbolic layers, which a game compiled once cuts cheaply; a game compiled within
            // each layer checks the frontier when it gets there (`frontier_expand`).
            self.check_frontier(left.min(seconds / 3.0), &guard);
        }
        self.seconds += started.elapsed().as_secs_f64();
    }

    /// Sorts the frontier's non-terminal states first and counts them
    /// ([`Self::frontier_layer`]), unless that is predicted (from the states checked so far)
    /// to take longer than `seconds`, or a limit passes.
    fn check_frontier(&mut self, seconds: f64, guard: &Guard) {
        let started = Instant::now();
        let r = &self.prefix.reasoner;
        let mut open = 0;
        let n = self.frontier.len();
        for i in 0..n {
            // Given up as soon as the whole check is predicted to take longer.
            let late = || started.elapsed().as_secs_f64() * n as f64 > seconds * i as f64;
            if i % 64 == 0 && (guard.check().is_err() || (i > 0 && late())) {
                return;
            }
            if !r.is_terminal(&self.frontier[i]) {
                self.frontier.swap(open, i);
                open += 1;
            }
        }
        self.frontier_open = Some(open);
    }

    /// The layer after the last one expanded, `(states, terminal)`, when its terminal states
    /// were counted (the run does so within its budget): a finished layer of the search that
    /// the run did not expand.
    pub fn frontier_layer(&self) -> Option<(u64, u64)> {
        let open = self.frontier_open.filter(|_| !self.frontier.is_empty())?;
        let n = self.frontier.len();
        Some((n as u64, (n - open) as u64))
    }

    /// `(states, terminal)` of each layer the run counted: those it expanded and, if counted,
    /// the one after ([`Self::frontier_layer`]).
    pub(crate) fn counted(&self) -> Vec<(u64, u64)> {
        self.layers
            .iter()
            .copied()
            .chain(self.frontier_layer())
            .collect()
    }

    /// The states of the run (their true fluents), for the mutex proof and the choice of order
    /// ([`SymbolicOptions::known_states`](crate::SymbolicOptions::known_states)): every one,
    /// or as many as 16 million true fluents in all hold (both uses are sound on any
    /// subset of the reachable states). factoringImpossibleTurtleBrain's 220,000 states of
    /// thousands of true fluents each were copied for 9 s, into 5 GB, past the time limit.
    pub fn known_states(&self) -> std::sync::Arc<Vec<Vec<usize>>> {
        self.known_states_within(KNOWN_FLUENTS)
    }

    /// [`Self::known_states`], and whether they are every reachable state: the run expanded
    /// the whole game (no new state in its last layer, no limit ended it) and the cap held
    /// them all ([`SymbolicOptions::known_states_all`](crate::SymbolicOptions::known_states_all)).
    pub fn known(&self) -> (std::sync::Arc<Vec<Vec<usize>>>, bool) {
        let known = self.known_states();
        let all = self.complete() && known.len() == self.seen.len();
        (known, all)
    }

    /// Whether the run expanded the whole game: no new state in its last layer, and no limit
    /// ended it.
    pub fn complete(&self) -> bool {
        self.stopped.is_none() && self.frontier.is_empty()
    }

    /// [`Self::known_states`] with at most `fluents` true fluents in all.
    fn known_states_within(&self, fluents: usize) -> std::sync::Arc<Vec<Vec<usize>>> {
        let mut left = fluents;
        let states = self
            .seen
            .iter()
            .map_while(|s| {
                let fluents: Vec<usize> = s.fluents().collect();
                left = left.checked_sub(fluents.len())?;
                Some(fluents)
            })
            .collect();
        std::sync::Arc::new(states)
    }

    /// Drops the steps from the first whose successors hold a state that breaks a group of
    /// `enc` (only assumed groups can be broken; see [`Encoding::assumed`]): such a state has
    /// no code. The search then expands that layer symbolically, where the joint move that
    /// breaks the group is found and the search stops with the exact layers before it (and the
    /// caller sets up again with proven groups), instead of losing every layer of the run.
    pub(crate) fn drop_broken_steps(&mut self, enc: &Encoding) {
        if !enc.assumed() {
            return;
        }
        let first = self.steps.iter().position(|step| {
            step.successors
                .iter()
                .any(|t| enc.breaks_groups(t.fluents()))
        });
        if let Some(i) = first {
            self.steps.truncate(i);
            self.frontier_next = false;
        }
    }

    /// This run fitted to `g`: for a game compiled within each layer, whose symbolic layers
    /// are slow, it goes on further ([`Self::extend_for_layerwise`]). A state beyond what
    /// assumed groups were checked against may break one: the steps from its layer on are
    /// dropped ([`Self::drop_broken_steps`]).
    pub(crate) fn fitted<E: BddEngine>(
        mut self,
        g: &crate::game::SymbolicGame<'_, E>,
        limits: &Limits,
    ) -> ExplicitRun {
        if g.layerwise().is_some() {
            self.extend_for_layerwise(limits);
        }
        g.explicit_layers()
            .offer(self.prefix.reasoner.clone(), self.per_state, self.branching);
        self.drop_broken_steps(g.encoding());
        self
    }

    /// For a game compiled within each layer: goes on up to layers of
    /// [`ExplicitPrefix::layerwise_states`] states (and [`ExplicitPrefix::max_successors`]
    /// successors), in at most [`ExplicitPrefix::max_seconds`] more and a third of the time
    /// limit. The successors are bounded because each step is replayed as BDDs built state by
    /// state, which costs about a tenth of a microsecond a state and bit and, where the
    /// encoding shares little between states (rubiksCube: 49 nodes a state), can take longer
    /// than the layers it saves.
    pub(crate) fn extend_for_layerwise(&mut self, limits: &Limits) {
        let third = limits
            .time_limit
            .map_or(f64::INFINITY, |t| t.as_secs_f64() / 3.0);
        let seconds = self.prefix.max_seconds.min(third);
        let (states, successors) = (self.prefix.layerwise_states, self.prefix.max_successors);
        self.extend(states, successors, seconds, limits);
    }

    /// The next layer's step as BDDs (its non-terminal states, their successors), if the run
    /// expanded it; `None` once the run is replayed. `on_expand` sees the non-terminal states
    /// before the successors are built (the larger set, by the layer's branching factor).
    ///
    /// The builds are timed for `race`: its first prediction of a later layer state by state
    /// includes building that layer's sets at the rate measured here.
    pub(crate) fn next_step<E: BddEngine>(
        &mut self,
        e: &E,
        enc: &Encoding,
        race: &ExplicitLayers,
        on_expand: &mut dyn FnMut(&E::Bdd),
    ) -> BddResult<Option<(E::Bdd, E::Bdd)>> {
        // The node table is built recursively, one level a bit.
        const MAX_BITS: u32 = 4096;
        if enc.num_bits() > MAX_BITS {
            self.steps.clear();
            self.frontier_next = false;
        }
        let Some(step) = self.steps.pop_front() else {
            return Ok(None);
        };
        let mut coder = Coder::new(enc);
        let mut codes = |states: &[State]| -> Option<Vec<Box<[u64]>>> {
            states.iter().map(|s| coder.words_of(s)).collect()
        };
        match (codes(&step.expand), codes(&step.successors)) {
            (Some(expand), Some(successors)) => {
                drop(step);
                let started = Instant::now();
                let states = expand.len() + successors.len();
                let expand = codes_states_bdd(e, enc, expand)?;
                let mut seconds = started.elapsed();
                on_expand(&expand);
                let started = Instant::now();
                let union = codes_states_bdd(e, enc, successors)?;
                seconds += started.elapsed();
                race.built(states as f64 * f64::from(enc.num_bits()), seconds);
                Ok(Some((expand, union)))
            }
            _ => {
                // A state outside the encoding's proven groups: impossible while the reasoner
                // and the mutex proof agree; the symbolic steps decide from here.
                debug_assert!(false, "an explicit state breaks a proven fluent group");
                self.steps.clear();
                self.frontier_next = false;
                Ok(None)
            }
        }
    }

    /// Once every step is replayed: the non-terminal states of the layer after the last step
    /// (the run's frontier), checked state by state (if the run has not already), for a game
    /// compiled within each layer
    /// (whose terminal cut of a large layer is slow). At most once, and `None` when it is not
    /// the next layer any more, when the check takes longer than
    /// [`ExplicitPrefix::max_seconds`], or when a state breaks a group of `enc`. `Err` when a
    /// limit of `guard` passes.
    pub(crate) fn frontier_expand<E: BddEngine>(
        &mut self,
        e: &E,
        enc: &Encoding,
        guard: &Guard,
    ) -> Result<Option<E::Bdd>, crate::interrupt::Interrupt> {
        if !self.steps.is_empty() || !std::mem::take(&mut self.frontier_next) {
            return Ok(None);
        }
        if self.frontier_open.is_none() {
            self.check_frontier(self.prefix.max_seconds, guard);
            guard.check()?;
        }
        let Some(open) = self.frontier_open else {
            return Ok(None);
        };
        Ok(states_bdd(e, enc, self.frontier[..open].iter())?)
    }
}

/// The states at a break of an assumed group: `witness` (the true fluents of a reachable state
/// where a legal joint move breaks one, [`ReachStats::break_witness`](crate::ReachStats::break_witness)) and its successors, as
/// true fluents; only the witness where more than 100,000 joint moves are legal in it.
pub fn states_at_break(game: &GroundGame, witness: &[usize]) -> Vec<Vec<usize>> {
    let r = Reasoner::with_budget(game, 0);
    let mut s = State::empty(r.num_fluents());
    for &f in witness {
        s.insert(f);
    }
    let mut states = vec![witness.to_vec()];
    if r.is_terminal(&s) {
        return states;
    }
    let joint: usize = (0..r.num_roles())
        .map(|role| r.legal_moves(&s, role).len())
        .try_fold(1usize, |n, m| n.checked_mul(m).filter(|&n| n <= 100_000))
        .unwrap_or(usize::MAX);
    if joint <= 100_000 {
        states.extend(r.successors(&s).iter().map(|t| t.fluents().collect()));
    }
    states
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::encoded;

    /// The known states are states of the run, each once; all of them under a cap that holds
    /// them, and no more true fluents in all than a smaller cap.
    #[test]
    fn known_states_keep_within_their_cap() {
        let (game, _) = encoded("tictactoe");
        let run = ExplicitPrefix::new(&game, usize::MAX, 1e9).run(&Limits::default());
        let seen: HashSet<Vec<usize>> = run.seen.iter().map(|s| s.fluents().collect()).collect();
        let total: usize = seen.iter().map(Vec::len).sum();
        let all = run.known_states_within(total);
        assert_eq!(all.len(), seen.len());
        assert_eq!(all.iter().cloned().collect::<HashSet<_>>(), seen);
        let some = run.known_states_within(total / 3);
        assert!(!some.is_empty() && some.len() < seen.len());
        assert!(some.iter().map(Vec::len).sum::<usize>() <= total / 3);
        assert!(some.iter().all(|s| seen.contains(s)));
    }

    /// A layer whose joint moves pass [`JOINT_PER_SUCCESSOR`] times its successors' cap is
    /// not begun: two roles bidding 0–19 at once make 400 joint moves in the initial state.
    #[test]
    fn a_layer_of_too_many_joint_moves_is_not_begun() {
        let game = symgame_testkit::from_text(
            "(role a) (role b) (init (round 0))
             (bid 0) (bid 1) (bid 2) (bid 3) (bid 4) (bid 5) (bid 6) (bid 7) (bid 8) (bid 9)
             (bid 10) (bid 11) (bid 12) (bid 13) (bid 14) (bid 15) (bid 16) (bid 17) (bid 18)
             (bid 19)
             (<= (legal ?r (offer ?n)) (role ?r) (bid ?n))
             (<= (next (said ?r ?n)) (does ?r (offer ?n)))
             (<= (next (round 1)) (true (round 0)))
             (<= terminal (true (round 1)))
             (goal a 50) (goal b 50)",
        );
        // One state, 8 successors at most: 64 joint moves.
        let run = ExplicitPrefix::new(&game, 1, 1e9).run(&Limits::default());
        assert!(run.layers.is_empty(), "{:?}", run.layers);
        // 50 states, 400 successors: 3,200 joint moves.
        let run = ExplicitPrefix::new(&game, 50, 1e9).run(&Limits::default());
        assert_eq!(run.layers, vec![(1, 0)]);
        assert_eq!(run.frontier.len(), 400);
    }
}
