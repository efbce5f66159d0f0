//! The explicit side: every chosen state and role asked of every explicit algorithm, and the
//! answers compared with the symbolic values.

use crate::compare::{compare, Verdict};
use crate::enumerate::fluent_names;
use crate::symbolic::SymbolicSide;
use crate::{AlgoTally, Disagreement, Error, Progress, VerifyOptions};
use std::time::Instant;
use symgame_explicit::{Reasoner, State};
use symgame_ground::GroundGame;
use symgame_limits::{Guard, Limits, StopReason};
use symgame_prove::{
    one_shot_equilibria, solve_value, Algo, Config, Induction, InductionError, InductionRule,
};
use symgame_symbolic::{GameKind, NashStats};

use crate::{NashCheck, NashCounts};

/// The answers of the explicit side.
pub(crate) struct Checked {
    /// States whose every role was asked of every algorithm.
    pub states: u64,
    /// Per algorithm.
    pub tallies: Vec<AlgoTally>,
    /// Every disagreement.
    pub disagreements: Vec<Disagreement>,
    /// Why the check ended early.
    pub stopped: Option<StopReason>,
}

/// Asks the explicit solvers about every state the symbolic side chose, until `guard` stops.
pub(crate) fn check(
    game: &GroundGame,
    reasoner: &Reasoner,
    side: &SymbolicSide,
    opts: &VerifyOptions,
    guard: &Guard<'_>,
    mut progress: impl FnMut(&Progress),
) -> Result<Checked, Error> {
    if let Some(rule) = induction_rule(side.kind) {
        return check_by_induction(game, reasoner, side, rule, opts, guard, progress);
    }
    let mut out = Checked {
        states: 0,
        tallies: opts.algos.iter().map(|&a| AlgoTally::new(a)).collect(),
        disagreements: Vec::new(),
        stopped: None,
    };
    // Backward induction keeps what it valued from one state to the next (a search per state
    // expanded the same subgames again: factoringMutuallyAssuredDestruction, 104 of 200 states
    // in 900 s); what a role can guarantee is the value the searches find.
    let mut shared = SharedInduction::new(reasoner, opts, guard);
    'states: for (fluents, want) in &side.expected {
        let mut state = State::empty(game.fluents.len());
        for &f in fluents {
            state.insert(f);
        }
        for (k, &algo) in opts.algos.iter().enumerate() {
            for (role, &expect) in want.iter().enumerate() {
                if let Err(why) = guard.check() {
                    out.stopped = Some(why);
                    break 'states;
                }
                let t0 = Instant::now();
                let (verdict, nodes) = if algo == Algo::Backward {
                    let before = shared.induction.valued() as u64;
                    let verdict = match shared.value(&state, role)? {
                        Some(explicit) if explicit == expect => Verdict::Agreed,
                        Some(explicit) => Verdict::Disagreed {
                            explicit,
                            undecided: false,
                        },
                        None => Verdict::Undecided,
                    };
                    (verdict, shared.induction.valued() as u64 - before)
                } else {
                    let cfg = Config {
                        limits: Limits {
                            max_nodes: Some(opts.search_nodes),
                            // The time left, so that one long search cannot outlast the limit.
                            time_limit: guard.time_left(),
                            cancel: opts.limits.cancel.clone(),
                            ..Limits::default()
                        },
                        // Many small searches: a small table each.
                        tt_capacity: 1 << 16,
                        ..Config::default()
                    };
                    let v = solve_value(reasoner, &state, role, algo, &cfg)?;
                    (compare(expect, &v.outcome), v.stats.nodes_expanded)
                };
                let tally = &mut out.tallies[k];
                tally.seconds += t0.elapsed().as_secs_f64();
                tally.nodes_expanded += nodes;
                match verdict {
                    Verdict::Agreed => tally.agreed += 1,
                    Verdict::Undecided => tally.undecided += 1,
                    Verdict::Disagreed {
                        explicit,
                        undecided,
                    } => {
                        tally.undecided += u64::from(undecided);
                        tally.disagreed += 1;
                        out.disagreements.push(Disagreement {
                            state: fluent_names(game, fluents),
                            role: game.roles[role].name.to_string(),
                            algo,
                            symbolic: expect,
                            explicit,
                            mixed: None,
                        });
                    }
                }
            }
        }
        out.states += 1;
        progress(&Progress {
            states_checked: out.states,
            states_to_check: side.expected.len() as u64,
            disagreements: out.disagreements.len() as u64,
        });
    }
    Ok(out)
}

/// One backward induction (security levels: what each role can force, the value the searches
/// find) for every state a check asks about, held to the node limit of its options as a limit
/// on the states it holds.
struct SharedInduction<'m, 'g> {
    induction: Induction<'m, Reasoner>,
    limits: Limits,
    guard: &'g Guard<'g>,
}

impl<'m, 'g> SharedInduction<'m, 'g> {
    fn new(reasoner: &'m Reasoner, opts: &VerifyOptions, guard: &'g Guard<'g>) -> Self {
        SharedInduction {
            induction: Induction::new(reasoner, InductionRule::Security),
            limits: Limits {
                max_states: Some(opts.search_nodes),
                cancel: opts.limits.cancel.clone(),
                ..Limits::default()
            },
            guard,
        }
    }

    /// What `role` can force from `state`, or `None` where the induction stopped at its
    /// limits (undecided).
    fn value(&mut self, state: &State, role: usize) -> Result<Option<u8>, Error> {
        let limits = Limits {
            time_limit: self.guard.time_left(),
            ..self.limits.clone()
        };
        match self.induction.value(state, &Guard::new(&limits)) {
            Ok(values) => Ok(values.get(role).copied()),
            Err(InductionError::Stopped(_)) => Ok(None),
            Err(InductionError::Unsupported(u)) => Err(Error::Explicit(u)),
            Err(InductionError::Matrix(e)) => Err(Error::Matrix(e)),
        }
    }
}

/// Compares role 0's mixed value on both sides (role 1's is the constant sum minus it), to
/// within the rounding of [`symgame_prove::VALUE_SCALE`] and the LP's float error.
fn check_mixed(
    game: &GroundGame,
    fluents: &[usize],
    expect: f64,
    explicit: f64,
    tally: &mut AlgoTally,
    out: &mut Checked,
) {
    if (expect - explicit).abs() <= 1e-4 {
        tally.agreed += 1;
        return;
    }
    tally.disagreed += 1;
    out.disagreements.push(Disagreement {
        state: fluent_names(game, fluents),
        role: game.roles[0].name.to_string(),
        algo: Algo::Backward,
        symbolic: expect.round().clamp(0.0, 255.0) as u8,
        explicit: explicit.round().clamp(0.0, 255.0) as u8,
        mixed: Some([expect, explicit]),
    });
}

/// The backward-induction rule that checks a solution of kind `kind`, for the kinds the
/// searches cannot check: max^n outcomes are no forced values, and security levels of
/// simultaneous or many-role games are outside proof-number search and alpha-beta.
fn induction_rule(kind: GameKind) -> Option<InductionRule> {
    match kind {
        GameKind::MaxN => Some(InductionRule::MaxN),
        GameKind::SecurityLevels => Some(InductionRule::Security),
        GameKind::MixedValues => Some(InductionRule::Mixed),
        _ => None,
    }
}

/// Checks every chosen state by backward induction over the explicit reasoner, one
/// [`Induction`] for all of them (each state below the first is valued once), tallied as
/// [`Algo::Backward`]. The node limit of `opts` bounds the states it holds; a state whose
/// induction it stops counts as undecided.
fn check_by_induction(
    game: &GroundGame,
    reasoner: &Reasoner,
    side: &SymbolicSide,
    rule: InductionRule,
    opts: &VerifyOptions,
    guard: &Guard<'_>,
    mut progress: impl FnMut(&Progress),
) -> Result<Checked, Error> {
    let mut tally = AlgoTally::new(Algo::Backward);
    let mut out = Checked {
        states: 0,
        tallies: Vec::new(),
        disagreements: Vec::new(),
        stopped: None,
    };
    let limits = Limits {
        max_states: Some(opts.search_nodes),
        time_limit: guard.time_left(),
        cancel: opts.limits.cancel.clone(),
        ..Limits::default()
    };
    let inner = Guard::new(&limits);
    let mut induction = Induction::new(reasoner, rule);
    for (k, (fluents, want)) in side.expected.iter().enumerate() {
        if let Err(why) = guard.check() {
            out.stopped = Some(why);
            break;
        }
        let mut state = State::empty(game.fluents.len());
        for &f in fluents {
            state.insert(f);
        }
        let t0 = Instant::now();
        let before = induction.valued() as u64;
        let answer = induction.value(&state, &inner).map(<[u8]>::to_vec);
        tally.seconds += t0.elapsed().as_secs_f64();
        tally.nodes_expanded += induction.valued() as u64 - before;
        match answer {
            Ok(values) => {
                for (role, (&expect, &explicit)) in want.iter().zip(&values).enumerate() {
                    if expect == explicit {
                        tally.agreed += 1;
                    } else {
                        tally.disagreed += 1;
                        out.disagreements.push(Disagreement {
                            state: fluent_names(game, fluents),
                            role: game.roles[role].name.to_string(),
                            algo: Algo::Backward,
                            symbolic: expect,
                            explicit,
                            mixed: None,
                        });
                    }
                }
            }
            Err(InductionError::Stopped(StopReason::StateLimit)) => {
                tally.undecided += want.len() as u64;
            }
            Err(InductionError::Stopped(why)) => {
                out.stopped = Some(why);
                break;
            }
            Err(InductionError::Unsupported(u)) => return Err(Error::Explicit(u)),
            Err(InductionError::Matrix(e)) => return Err(Error::Matrix(e)),
        }
        if let (Some(&Some(expect)), Some(explicit)) = (side.mixed.get(k), induction.mixed(&state))
        {
            check_mixed(game, fluents, expect, explicit, &mut tally, &mut out);
        }
        out.states += 1;
        progress(&Progress {
            states_checked: out.states,
            states_to_check: side.expected.len() as u64,
            disagreements: out.disagreements.len() as u64,
        });
    }
    out.tallies.push(tally);
    Ok(out)
}

/// The one-shot stage games' pure equilibria counted state by state over the reachable set
/// (`side.expected` in [`crate::Mode::All`]) by the explicit reasoner, beside the symbolic
/// report `symbolic`.
pub(crate) fn check_nash(
    reasoner: &Reasoner,
    side: &SymbolicSide,
    symbolic: &NashStats,
) -> NashCheck {
    let mut explicit = NashCounts::default();
    let init = reasoner.initial_state();
    for (fluents, _) in &side.expected {
        let mut state = State::empty(reasoner.num_fluents());
        for &f in fluents {
            state.insert(f);
        }
        if let Some(mut eq) = one_shot_equilibria(reasoner, &state) {
            explicit.one_shot_states += 1;
            explicit.with_equilibrium += u64::from(!eq.is_empty());
            if state == init {
                eq.sort();
                explicit.initial = Some(eq);
            }
        }
    }
    let count = |n: &num_bigint::BigUint| u64::try_from(n).unwrap_or(u64::MAX);
    let mut initial = symbolic.initial.clone();
    if let Some(eq) = &mut initial {
        eq.sort();
    }
    NashCheck {
        symbolic: NashCounts {
            one_shot_states: count(&symbolic.one_shot_states),
            with_equilibrium: count(&symbolic.with_equilibrium),
            initial,
        },
        explicit,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Mode;

    /// nim3p's initial state, expected to have the rewards `want` (max^n: 100/50/0).
    fn side(reasoner: &Reasoner, kind: GameKind, want: Vec<u8>) -> SymbolicSide {
        let initial: Vec<usize> = reasoner.initial_state().fluents().collect();
        SymbolicSide {
            kind,
            reachable: 152u32.into(),
            expected: vec![(initial, want)],
            mixed: Vec::new(),
            mode: Mode::Sample,
            explicit_states: None,
            nash: None,
            seconds: 0.0,
        }
    }

    fn run(kind: GameKind, want: Vec<u8>) -> Checked {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../gdl/nim3p.kif");
        let game = symgame_ground::load(&path, &Default::default()).unwrap();
        let reasoner = Reasoner::new(&game);
        let opts = VerifyOptions::default();
        let guard = Guard::new(&opts.limits);
        let side = side(&reasoner, kind, want);
        check(&game, &reasoner, &side, &opts, &guard, |_| {}).unwrap()
    }

    /// `--algo backward` on a zero-sum game keeps one induction for all the states it checks:
    /// the states it values over 82 of tictactoe's states (the first two plies) are at most its
    /// 5,478 reachable states, where an induction per state valued the same subgames again
    /// (fails then), and a wrong value is still named.
    #[test]
    fn backward_checks_share_one_induction_and_name_wrong_values() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../gdl/tictactoe.kif");
        let game = symgame_ground::load(&path, &Default::default()).unwrap();
        let reasoner = Reasoner::new(&game);
        let mut states = vec![reasoner.initial_state()];
        let mut frontier = states.clone();
        for _ in 0..2 {
            let mut next = Vec::new();
            for s in &frontier {
                for &x in &reasoner.legal_moves(s, 0) {
                    for &y in &reasoner.legal_moves(s, 1) {
                        let n = reasoner.next_state(s, &[x, y]);
                        if !states.contains(&n) {
                            states.push(n.clone());
                            next.push(n);
                        }
                    }
                }
            }
            frontier = next;
        }
        let cfg = Config::default();
        let mut expected: Vec<(Vec<usize>, Vec<u8>)> = states
            .iter()
            .map(|s| {
                let want = (0..2)
                    .map(
                        |r| match solve_value(&reasoner, s, r, Algo::AlphaBeta, &cfg) {
                            Ok(v) => match v.outcome {
                                symgame_prove::ValueOutcome::Exact(x) => x,
                                other => panic!("alpha-beta stopped: {other:?}"),
                            },
                            Err(e) => panic!("{e}"),
                        },
                    )
                    .collect();
                (s.fluents().collect(), want)
            })
            .collect();
        assert_eq!(expected.len(), 82);
        let wrong = &mut expected[5].1[0];
        *wrong = if *wrong == 50 { 0 } else { 50 };
        let side = SymbolicSide {
            kind: GameKind::ZeroSum,
            reachable: 5478u32.into(),
            expected,
            mixed: Vec::new(),
            mode: Mode::Sample,
            explicit_states: None,
            nash: None,
            seconds: 0.0,
        };
        let opts = VerifyOptions {
            algos: vec![Algo::Backward],
            ..VerifyOptions::default()
        };
        let guard = Guard::new(&opts.limits);
        let out = check(&game, &reasoner, &side, &opts, &guard, |_| {}).unwrap();
        let tally = &out.tallies[0];
        assert_eq!(
            (tally.agreed, tally.disagreed, tally.undecided),
            (163, 1, 0)
        );
        assert!(
            tally.nodes_expanded <= 5478,
            "{} states valued",
            tally.nodes_expanded
        );
        assert_eq!(out.disagreements.len(), 1);
    }

    #[test]
    fn induction_agrees_with_the_right_values_and_names_the_wrong_ones() {
        // max^n from the initial state of nim3p: 100/50/0 (gdl/nim3p.expect).
        let ok = run(GameKind::MaxN, vec![100, 50, 0]);
        assert_eq!(ok.tallies[0].algo, Algo::Backward);
        assert_eq!(ok.tallies[0].agreed, 3);
        assert!(ok.disagreements.is_empty());
        // The same values read as security levels (50/0/0) disagree for the first two roles.
        let wrong = run(GameKind::SecurityLevels, vec![100, 50, 0]);
        assert_eq!(wrong.tallies[0].disagreed, 2);
        let seen: Vec<(u8, u8)> = wrong
            .disagreements
            .iter()
            .map(|d| (d.symbolic, d.explicit))
            .collect();
        assert_eq!(seen, vec![(100, 50), (50, 0)]);
    }
}
