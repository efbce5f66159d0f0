//! Game kinds beyond two-player turn-taking: security levels and max^n, each checked state by
//! state against backward induction over the explicit reasoner (`symgame_prove`, which shares
//! no code with the BDD side), and security levels against the retrograde solution of every
//! two-player constant-sum game of `gdl/`.

use std::collections::HashMap;

use num_bigint::BigUint;
use symgame_bdd::{BddEngine, BiodivineEngine, EngineConfig};
use symgame_explicit::Reasoner;
use symgame_ground::GroundGame;
use symgame_limits::{Guard, Limits};
use symgame_prove::{maxn_values, security_levels, Induction, InductionRule, StateValues};
use symgame_symbolic::{
    solve, Encoding, GameKind, SolveOptions, Solved, SymbolicGame, SymbolicOptions, ValueRule,
};
use symgame_testkit::{for_each_solved, load_game, outcome_counts, Expect, ExplicitGraph};

fn options(values: ValueRule) -> SolveOptions {
    SolveOptions {
        values,
        keep_classes: true,
        ..Default::default()
    }
}

fn engine(game: &GroundGame) -> BiodivineEngine {
    let enc = Encoding::with_options(game, &SymbolicOptions::default());
    BiodivineEngine::new(enc.num_vars(), &EngineConfig::small()).unwrap()
}

fn compile<'e>(e: &'e BiodivineEngine, game: &GroundGame) -> SymbolicGame<'e, BiodivineEngine> {
    let enc = Encoding::with_options(game, &SymbolicOptions::default());
    SymbolicGame::new(e, game, enc, &SymbolicOptions::default()).unwrap()
}

/// The symbolic solution agrees with `explicit` on every reachable state, and covers them all;
/// returns the number of states of each outcome, sorted.
fn check_every_state(
    name: &str,
    game: &GroundGame,
    rule: ValueRule,
    want_kind: GameKind,
    explicit: &StateValues<symgame_explicit::State>,
) -> Vec<(Vec<u8>, BigUint)> {
    let e = engine(game);
    let g = compile(&e, game);
    let solved = solve(&g, &options(rule), |_| {}).unwrap();
    let st = &solved.stats;
    assert_eq!(st.kind, want_kind, "{name}");
    assert_eq!(st.stopped, None, "{name}");
    assert_eq!(st.unsolved, BigUint::default(), "{name}");
    let r = Reasoner::new(game);
    let states = ExplicitGraph::new(&r).states;
    assert_eq!(st.states, BigUint::from(states.len()), "{name}");
    assert_eq!(explicit.len(), states.len(), "{name}");
    for_each_solved(name, &solved, &g, &states, |s, fluents, o, _| {
        assert_eq!(
            Some(st.outcomes[o].as_slice()),
            explicit.get(s),
            "{name} {rule:?}: state {fluents:?}"
        );
    });
    let mut counts = outcome_counts(st);
    counts.sort();
    counts
}

/// The states of each outcome, as one BDD per outcome vector.
fn classes_by_outcome(
    e: &BiodivineEngine,
    solved: &Solved<BiodivineEngine>,
) -> HashMap<Vec<u8>, <BiodivineEngine as BddEngine>::Bdd> {
    let mut out: HashMap<Vec<u8>, _> = HashMap::new();
    for layer in &solved.layers {
        for c in &layer.classes {
            let outcome = solved.stats.outcomes[c.outcome].clone();
            let union = match out.remove(&outcome) {
                Some(before) => e.or(&before, &c.states).unwrap(),
                None => c.states.clone(),
            };
            out.insert(outcome, union);
        }
    }
    out
}

#[test]
fn security_levels_equal_the_solution_of_every_two_player_constant_sum_game() {
    // Every two-player constant-sum game of gdl/ up to Connect Four 5x4 (3,945,711 states;
    // about 30 s of security levels); the larger Connect Four boards (70 M states and more)
    // are the same rules on a bigger board.
    let mut checked = Vec::new();
    for name in [
        "tictactoe",
        "nim_1_2_3",
        "nim_3_4_5",
        "chomp_4x3",
        "connect4_4x4",
        "connect4_5x4",
    ] {
        let game = load_game(name);
        let e = engine(&game);
        let g = compile(&e, &game);
        let auto = solve(&g, &options(ValueRule::Auto), |_| {}).unwrap();
        assert_eq!(auto.stats.kind, GameKind::ZeroSum, "{name}");
        let security = solve(&g, &options(ValueRule::Security), |_| {}).unwrap();
        assert_eq!(security.stats.kind, GameKind::SecurityLevels, "{name}");
        assert_eq!(security.stats.states, auto.stats.states, "{name}");
        let a = classes_by_outcome(&e, &auto);
        let s = classes_by_outcome(&e, &security);
        let mut outcomes: Vec<&Vec<u8>> = a.keys().collect();
        outcomes.sort();
        let mut other: Vec<&Vec<u8>> = s.keys().collect();
        other.sort();
        assert_eq!(outcomes, other, "{name}: the outcomes");
        for o in outcomes {
            let (x, y) = (&a[o], &s[o]);
            assert!(
                e.is_false(&e.and_not(x, y).unwrap()) && e.is_false(&e.and_not(y, x).unwrap()),
                "{name}: the states of outcome {o:?} differ"
            );
        }
        checked.push(name);
    }
    assert_eq!(checked.len(), 6);
}

#[test]
fn many_role_games_match_explicit_induction_under_max_n_and_security() {
    for name in ["nim3p", "ring4p"] {
        let game = load_game(name);
        let r = Reasoner::new(&game);
        let root = r.initial_state();
        let maxn = maxn_values(&r, &root).unwrap();
        let security = security_levels(&r, &root).unwrap();
        // The fixtures' figures, from the independent Python oracle.
        let ex = Expect::of(name);
        let text = |v: &[u8]| {
            v.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join("/")
        };
        assert_eq!(
            ex.get("maxn_initial"),
            maxn.get(&root).map(text).as_deref(),
            "{name}"
        );
        let oracle_security: Vec<&str> = ex
            .all("security")
            .filter_map(|l| l.split_whitespace().nth(1))
            .collect();
        assert_eq!(
            Some(oracle_security.join("/")),
            security.get(&root).map(text),
            "{name}"
        );
        let counts = check_every_state(name, &game, ValueRule::Auto, GameKind::MaxN, &maxn);
        let mut oracle = ex.outcomes();
        oracle.sort();
        assert_eq!(counts, oracle, "{name}: max^n outcome counts");
        check_every_state(
            name,
            &game,
            ValueRule::Security,
            GameKind::SecurityLevels,
            &security,
        );
    }
}

/// Every state's mixed value (role 0) and pure security levels against the explicit induction
/// with the same LP, solved as sets and, again, with the states valued one at a time from the
/// first round on; returns role 0's mixed value in the initial state.
fn check_mixed_values(name: &str, game: &GroundGame) -> f64 {
    let as_sets = check_mixed_values_with(name, game, None);
    let one_by_one = check_mixed_values_with(name, game, Some(0));
    assert!((as_sets - one_by_one).abs() < 1e-9, "{name}");
    as_sets
}

/// [`check_mixed_values`] with [`SolveOptions::stage_groups`] at `stage_groups`: `Some(0)`
/// values every non-terminal state one at a time (checked).
fn check_mixed_values_with(name: &str, game: &GroundGame, stage_groups: Option<usize>) -> f64 {
    let r = Reasoner::new(game);
    let root = r.initial_state();
    let mut explicit = Induction::new(&r, InductionRule::Mixed);
    explicit
        .value(&root, &Guard::new(&Limits::default()))
        .unwrap();
    let e = engine(game);
    let g = compile(&e, game);
    let opts = SolveOptions {
        ground: Some(std::sync::Arc::new(game.clone())),
        stage_groups,
        ..options(ValueRule::Auto)
    };
    let solved = solve(&g, &opts, |_| {}).unwrap();
    let st = &solved.stats;
    assert_eq!(st.kind, GameKind::MixedValues, "{name}");
    if stage_groups == Some(0) {
        assert!(st.explicit_states > 0, "{name}: valued one at a time");
    } else {
        assert_eq!(st.explicit_states, 0, "{name}: valued as sets");
    }
    assert_eq!(st.unsolved, BigUint::default(), "{name}");
    assert_eq!(st.mixed.len(), st.outcomes.len(), "{name}");
    let states = ExplicitGraph::new(&r).states;
    assert_eq!(st.states, BigUint::from(states.len()), "{name}");
    for_each_solved(name, &solved, &g, &states, |s, fluents, o, _| {
        assert_eq!(
            Some(st.outcomes[o].as_slice()),
            explicit.get(s),
            "{name}: {fluents:?}"
        );
        let want = explicit.mixed(s).unwrap();
        let got = &st.mixed[o];
        assert!(
            (got[0] - want).abs() < 1e-6,
            "{name}: {fluents:?}: {got:?} vs {want}"
        );
        assert!(
            (got[0] + got[1] - 100.0).abs() < 1e-6,
            "{name}: constant sum 100: {got:?}"
        );
    });
    let (o, _) = solved
        .value_of(&g, &root.fluents().collect::<Vec<_>>())
        .unwrap()
        .unwrap();
    st.mixed[o][0]
}

/// Role 0's mixed value of the bundled game `name` (named `role` in its `.expect` file) equals
/// `exact` (an independent computation) and the fixture's 2-decimal figure; its security levels
/// are `security`.
fn check_bundled_mixed(name: &str, role: &str, exact: f64, security: &[u8]) {
    let game = load_game(name);
    let got = check_mixed_values(name, &game);
    assert!((got - exact).abs() < 1e-6, "{name}: {got}");
    let ex = Expect::of(name);
    let prefix = format!("{role} ");
    let want = ex
        .all("mixed_value")
        .find_map(|l| l.strip_prefix(prefix.as_str()))
        .unwrap();
    assert_eq!(format!("{got:.2}"), want, "{name}");
    check_security_levels(name, &game, security);
}

#[test]
fn simultaneous_games_get_mixed_values_and_security_levels() {
    // penalty_kick: the kicker guarantees 50 in pure strategies, the keeper nothing, and the
    // kicker's mixed value is 200/3 (gdl/penalty_kick.expect, by an independent computation).
    check_bundled_mixed("penalty_kick", "kicker", 200.0 / 3.0, &[50, 0]);
    // three_gates: 3x2 stage games, not symmetric, over three rounds (the row and the column
    // player cannot be swapped unnoticed); exactly 1508188/33291 for the attacker.
    check_bundled_mixed("three_gates", "attacker", 1508188.0 / 33291.0, &[40, 20]);
    // Matching pennies: 50 in mixed strategies, 0 each in pure ones.
    let pennies =
        symgame_testkit::load(&symgame_testkit::root().join("tests/games/matching_pennies.kif"));
    assert!((check_mixed_values("matching_pennies", &pennies) - 50.0).abs() < 1e-9);
    check_security_levels("matching_pennies", &pennies, &[0, 0]);
}

/// The security levels of every state of `game` by explicit backward induction, `initial` in
/// the initial state, and the symbolic ones agree state by state ([`check_every_state`]).
fn check_security_levels(name: &str, game: &GroundGame, initial: &[u8]) {
    let r = Reasoner::new(game);
    let security = security_levels(&r, &r.initial_state()).unwrap();
    assert_eq!(security.get(&r.initial_state()), Some(initial));
    check_every_state(
        name,
        game,
        ValueRule::Security,
        GameKind::SecurityLevels,
        &security,
    );
}

/// A one-shot game of two roles choosing `c` (cooperate) or `d` (defect) at once, rewards by
/// the `(pay ...)` table: the initial state is its only one-shot stage game.
fn one_shot(pay: &str) -> GroundGame {
    symgame_testkit::from_text(&format!(
        "(role a) (role b) (init (round 0))
         (<= (legal ?r c) (role ?r) (true (round 0)))
         (<= (legal ?r d) (role ?r) (true (round 0)))
         (<= (next (chose ?r ?m)) (does ?r ?m))
         (<= (next (round 1)) (true (round 0)))
         (<= terminal (true (round 1)))
         {pay}
         (<= (goal a ?x) (true (chose a ?m)) (true (chose b ?n)) (pay ?m ?n ?x ?y))
         (<= (goal b ?y) (true (chose a ?m)) (true (chose b ?n)) (pay ?m ?n ?x ?y))"
    ))
}

/// The pure equilibria of the initial state's stage game, by enumerating its joint moves over
/// the explicit reasoner.
fn explicit_equilibria(game: &GroundGame) -> Vec<Vec<u8>> {
    use symgame_prove::GameModel;
    let r = Reasoner::new(game);
    let root = r.initial_state();
    let (rows, columns) = (r.legal_moves(&root, 0), r.legal_moves(&root, 1));
    let reward = |i: usize, j: usize| {
        let next = GameModel::next_state(&r, &root, &[rows[i], columns[j]]);
        vec![GameModel::goal(&r, &next, 0), GameModel::goal(&r, &next, 1)]
    };
    let mut out = Vec::new();
    for i in 0..rows.len() {
        for j in 0..columns.len() {
            let here = reward(i, j);
            let a_stays = (0..rows.len()).all(|i2| reward(i2, j)[0] <= here[0]);
            let b_stays = (0..columns.len()).all(|j2| reward(i, j2)[1] <= here[1]);
            if a_stays && b_stays {
                out.push(here);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn one_shot_stage_games_report_their_pure_equilibria() {
    // The prisoner's dilemma: mutual defection is the only equilibrium. A general-sum
    // pennies: no pure equilibrium. A coordination game: two.
    for (name, pay, want) in [
        (
            "dilemma",
            "(pay c c 60 60) (pay c d 0 100) (pay d c 100 0) (pay d d 20 20)",
            vec![vec![20, 20]],
        ),
        (
            "pennies",
            "(pay c c 100 10) (pay c d 0 90) (pay d c 0 90) (pay d d 100 10)",
            vec![],
        ),
        (
            "coordination",
            "(pay c c 100 70) (pay c d 0 0) (pay d c 0 0) (pay d d 70 100)",
            vec![vec![70, 100], vec![100, 70]],
        ),
    ] {
        let game = one_shot(pay);
        assert_eq!(explicit_equilibria(&game), want, "{name}: explicit");
        let e = engine(&game);
        let g = compile(&e, &game);
        let solved = solve(&g, &options(ValueRule::Auto), |_| {}).unwrap();
        assert_eq!(solved.stats.kind, GameKind::SecurityLevels, "{name}");
        let nash = solved.stats.nash.clone().expect("equilibria are reported");
        assert_eq!(nash.one_shot_states, BigUint::from(1u32), "{name}");
        let with = u32::from(!want.is_empty());
        assert_eq!(nash.with_equilibrium, BigUint::from(with), "{name}");
        let mut got = nash.initial.expect("the initial state is one-shot");
        got.sort();
        assert_eq!(got, want, "{name}: symbolic");
    }
}

#[test]
fn the_equilibria_report_stops_within_its_budget_and_keeps_the_solution() {
    // A budget of zero: the report stops at once, the security levels are all there.
    let game = one_shot("(pay c c 60 60) (pay c d 0 100) (pay d c 100 0) (pay d d 20 20)");
    let e = engine(&game);
    let g = compile(&e, &game);
    let full = solve(&g, &options(ValueRule::Auto), |_| {}).unwrap();
    let opts = SolveOptions {
        nash_budget: Some(std::time::Duration::ZERO),
        ..options(ValueRule::Auto)
    };
    let cut = solve(&g, &opts, |_| {}).unwrap();
    let nash = cut.stats.nash.clone().expect("the report says it stopped");
    assert_eq!(nash.stopped, Some(symgame_limits::StopReason::TimeLimit));
    assert_eq!(nash.initial, None);
    assert_eq!(cut.stats.stopped, None, "the solution is complete");
    assert_eq!(cut.stats.initial, full.stats.initial);
    assert_eq!(cut.stats.outcomes, full.stats.outcomes);
    assert_eq!(cut.stats.per_outcome, full.stats.per_outcome);
    assert_eq!(full.stats.nash.expect("reported").stopped, None);
}
