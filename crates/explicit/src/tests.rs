//! The incremental `next` evaluation against a plain evaluation of the whole `next` cone.

use crate::program::Program;
use crate::{MoveId, Reasoner, State};
use std::collections::HashSet;
use std::path::PathBuf;
use symgame_ground::{GroundGame, GroundOptions};

/// The reference: the whole `next` cone evaluated from scratch (the evaluator before the
/// incremental one), over a fresh byte per signal.
struct Reference {
    prog: Program,
    next: Vec<u32>,
    num_signals: usize,
    first_move: Vec<usize>,
}

impl Reference {
    fn new(game: &GroundGame) -> Reference {
        Reference {
            prog: Program::compile(&game.circuit, &game.next),
            next: game.next.iter().map(|l| l.code()).collect(),
            num_signals: game.circuit.num_signals(),
            first_move: (0..game.roles.len())
                .map(|r| game.move_signal(r, 0) as usize)
                .collect(),
        }
    }

    fn next_state(&self, s: &State, joint: &[MoveId]) -> State {
        let mut vals = vec![0u8; self.num_signals];
        vals[0] = 1;
        for f in s.fluents() {
            vals[1 + f] = 1;
        }
        for (r, &m) in joint.iter().enumerate() {
            vals[self.first_move[r] + m] = 1;
        }
        self.prog.run(&mut vals);
        let mut t = State::empty(self.next.len());
        for (f, &l) in self.next.iter().enumerate() {
            if vals[(l >> 1) as usize] ^ (l & 1) as u8 != 0 {
                t.insert(f);
            }
        }
        t
    }
}

fn load(game: &str) -> GroundGame {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("../../gdl/{game}.kif"));
    symgame_ground::load(&path, &GroundOptions::default())
        .unwrap_or_else(|e| panic!("{} does not ground: {e}", path.display()))
}

fn from_text(text: &str) -> GroundGame {
    let desc = symgame_gdl::parse(symgame_gdl::Source::new("test.kif", text))
        .and_then(symgame_gdl::check)
        .expect("the test description is valid");
    symgame_ground::ground(&desc, &GroundOptions::default()).expect("it grounds")
}

/// Checks every joint move of every state of the first `depth` layers (at most `max_states`
/// states) against the reference, each twice (forward, then backward: the incremental
/// evaluation must leave the state's base as it found it), with the specializations to single
/// moves chosen by measurement, always, and never (change propagation only); returns the joint
/// moves checked.
fn check_game(name: &str, game: &GroundGame, depth: usize, max_states: usize) -> usize {
    let reference = Reference::new(game);
    let always = Reasoner::new(game);
    always.always_specialized();
    let reasoners = [Reasoner::new(game), always, Reasoner::with_budget(game, 0)];
    assert_eq!(reasoners[2].c.plan.num_specialized(), 0);
    let r = &reasoners[0];
    let mut seen: HashSet<State> = HashSet::new();
    let mut layer = vec![r.initial_state()];
    seen.insert(r.initial_state());
    let mut checked = 0;
    for _ in 0..depth {
        let mut next_layer = Vec::new();
        for s in &layer {
            if r.is_terminal(s) {
                continue;
            }
            let joints = r.joint_moves(s);
            let wants: Vec<State> = joints.iter().map(|j| reference.next_state(s, j)).collect();
            for (k, r) in reasoners.iter().enumerate() {
                for (joint, want) in joints.iter().zip(&wants) {
                    let got = r.next_state(s, joint);
                    assert_eq!(&got, want, "{name}: reasoner {k}, {s:?} under {joint:?}");
                }
                for (joint, want) in joints.iter().zip(&wants).rev() {
                    let mut into = State::empty(r.num_fluents());
                    into.insert(0); // next_state_into overwrites every word
                    r.next_state_into(s, joint, &mut into);
                    assert_eq!(
                        &into, want,
                        "{name}: reasoner {k} backward, {s:?} under {joint:?}"
                    );
                }
            }
            checked += joints.len();
            for want in wants {
                if seen.len() < max_states && seen.insert(want.clone()) {
                    next_layer.push(want);
                }
            }
        }
        layer = next_layer;
    }
    checked
}

#[test]
fn incremental_next_state_matches_the_whole_cone() {
    for name in [
        "tictactoe",
        "connect4_4x4",
        "chomp_4x3",
        "hanoi_3",
        "nim_3_4_5",
        "prisoners_2p",
        "eight_puzzle",
        "toll_roads",
        "climb_rewards",
    ] {
        let game = load(name);
        if name != "prisoners_2p" {
            // (in prisoners_2p both roles' moves have effects: change propagation only)
            let r = Reasoner::new(&game);
            assert!(
                r.c.plan.num_specialized() > 0,
                "{name}: no move specialized"
            );
        }
        let checked = check_game(name, &game, 12, 3000);
        assert!(checked > 10, "{name}: only {checked} joint moves checked");
    }
}

/// A recursive relation read by `next` that reads moves: the cyclic block of `path` is
/// move-dependent, and is re-iterated from false for each joint move.
const CYCLIC: &str = "
(role robot) (role judge)
(node n1) (node n2) (node n3) (node n4)
(init (edge n1 n2))
(<= (legal robot (link ?x ?y)) (node ?x) (node ?y) (distinct ?x ?y) (not (true (edge ?x ?y))))
(legal robot wait)
(legal judge pass)
(<= (legal judge (cut ?x ?y)) (true (edge ?x ?y)))
(<= (next (edge ?x ?y)) (true (edge ?x ?y)) (not (does judge (cut ?x ?y))))
(<= (next (edge ?x ?y)) (does robot (link ?x ?y)))
(<= (path ?x ?y) (true (edge ?x ?y)) (not (does judge (cut ?x ?y))))
(<= (path ?x ?y) (does robot (link ?x ?y)))
(<= (path ?x ?z) (node ?y) (path ?x ?y) (path ?y ?z))
(<= (next (connected ?x ?y)) (path ?x ?y))
(<= (next (triangle ?x ?y ?z)) (path ?x ?y) (path ?y ?z) (path ?z ?x))
(<= (next (waited)) (does robot wait))
(<= terminal (true (connected n1 n4)))
(<= (goal robot 100) (true (connected n1 n4)))
(<= (goal robot 0) (not (true (connected n1 n4))))
(goal judge 0)
";

#[test]
fn incremental_next_state_matches_with_move_dependent_cycles() {
    let game = from_text(CYCLIC);
    let dep_cyclic = Reasoner::new(&game).c.plan.num_cyclic_runs();
    assert!(dep_cyclic > 0, "the game has a move-dependent cyclic block");
    let checked = check_game("cyclic", &game, 4, 5000);
    assert!(checked > 1000, "only {checked} joint moves checked");
}

/// A bidding game of two roles moving at once, its rules ground over every coin count: each
/// bid is read by a conjunction with each count of its bidder's coins (of which one is true in
/// a state), so change propagation visits only the readers whose fluent guard is true.
fn bidding_game() -> String {
    const MAX: u32 = 19;
    let mut facts = String::new();
    for c in 0..=MAX {
        facts += &format!("(count {c}) ");
        for x in 0..=c {
            facts += &format!("(spend {c} {x} {}) ", c - x);
        }
        for y in 0..c {
            facts += &format!("(above {c} {y}) ");
        }
    }
    format!(
        "(role red) (role blue) (other red blue) (other blue red)
         (step 0 1) (step 1 2) (step 2 3) {facts}
         (init (coins red {MAX})) (init (coins blue {MAX})) (init (round 0))
         (<= (legal ?r (bid ?x)) (true (coins ?r ?c)) (spend ?c ?x ?z))
         (<= (next (coins ?r ?z)) (true (coins ?r ?c)) (does ?r (bid ?x)) (spend ?c ?x ?z))
         (<= (next (won ?r)) (does ?r (bid ?x)) (other ?r ?o) (does ?o (bid ?y)) (above ?x ?y))
         (<= (next (won ?r)) (true (won ?r)) (does ?r (bid ?x)) (true (coins ?r ?x)))
         (<= (next (round ?n)) (true (round ?m)) (step ?m ?n))
         (<= terminal (true (round 3)))
         (<= (goal ?r 100) (role ?r) (true (won ?r)))
         (<= (goal ?r 0) (role ?r) (not (true (won ?r))))"
    )
}

#[test]
fn readers_indexed_by_their_guard_give_the_whole_cones_next_states() {
    let game = from_text(&bidding_game());
    let r = Reasoner::new(&game);
    assert!(
        r.c.plan.num_indexed() > 0,
        "no signal has its readers indexed by guard"
    );
    let checked = check_game("bidding", &game, 3, 400);
    assert!(checked > 10_000, "only {checked} joint moves checked");
}

/// The readers change propagation visits are those without a guard and those whose guard is
/// true, on random fluents: few true (the guards looked up one by one) and many (the guards
/// scanned).
#[test]
fn live_readers_are_those_whose_guard_is_true() {
    let game = from_text(&bidding_game());
    let plan = &Reasoner::new(&game).c.plan;
    let mut rng = 0x9E37_79B9_7F4A_7C15u64;
    let mut ways = [0usize; 2];
    for round in 0..400 {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        let dense = round % 2 == 1;
        let mut vals = vec![0u8; game.circuit.num_signals()];
        vals[0] = 1;
        for (f, v) in vals
            .iter_mut()
            .enumerate()
            .take(game.fluents.len() + 1)
            .skip(1)
        {
            let x = rng.rotate_left(f as u32 % 64) ^ (f as u64).wrapping_mul(0x2545_F491);
            *v = u8::from(if dense {
                !x.is_multiple_of(3)
            } else {
                x.is_multiple_of(17)
            });
        }
        for (_, way) in plan.check_live_readers(&vals) {
            ways[way] += 1;
        }
    }
    assert!(ways[0] > 0 && ways[1] > 0, "both ways taken: {ways:?}");
}

/// [`Reachable`](crate::Reachable) walks the states [`explore`](crate::explore) counts, each
/// once, the initial state first.
#[test]
fn the_reachable_walk_yields_each_state_explore_counts_once() {
    for name in ["tictactoe", "nim_1_2_3"] {
        let game = load(name);
        let r = Reasoner::new(&game);
        let states: Vec<State> = crate::Reachable::new(&r).collect();
        let distinct: HashSet<&State> = states.iter().collect();
        let counted = crate::explore(&r, &crate::Limits::default(), |_| {});
        assert_eq!(states.len() as u64, counted.states, "{name}");
        assert_eq!(distinct.len(), states.len(), "{name}");
        assert_eq!(states[0], r.initial_state(), "{name}");
    }
}

/// A recursive relation read by `terminal`, `legal` and `goal`: the state-only cones have a
/// cyclic block, which a change reaching it re-iterates from false.
const CYCLIC_STATE: &str = "
(role a) (role b)
(node n1) (node n2) (node n3) (node n4)
(init (control a))
(<= (legal ?p (link ?x ?y)) (true (control ?p)) (node ?x) (node ?y) (distinct ?x ?y)
    (not (true (edge ?x ?y))) (not (path ?y ?x)))
(<= (legal ?p (cut ?x ?y)) (true (control ?p)) (true (edge ?x ?y)))
(<= (legal ?p noop) (role ?p) (not (true (control ?p))))
(<= (cut ?x ?y) (does ?p (cut ?x ?y)))
(<= (next (edge ?x ?y)) (does ?p (link ?x ?y)))
(<= (next (edge ?x ?y)) (true (edge ?x ?y)) (not (cut ?x ?y)))
(<= (next (control b)) (true (control a)))
(<= (next (control a)) (true (control b)))
(<= (path ?x ?y) (true (edge ?x ?y)))
(<= (path ?x ?z) (path ?x ?y) (true (edge ?y ?z)))
(<= terminal (path n1 n4) (path n4 n1))
(<= (goal a 100) (path n1 n4))
(<= (goal a 0) (not (path n1 n4)))
(<= (goal b 100) (path n4 n1))
(<= (goal b 0) (not (path n4 n1)))
";

/// Checks the terminal, legal and goal answers of one reasoner, which evaluates each state by
/// change propagation from the state before, against a fresh clone's full evaluation, over
/// the states of the first `depth` layers (at most `max_states`) visited in breadth-first
/// order, backward and in a scattered order; returns the states checked.
fn check_state_cones(name: &str, game: &GroundGame, depth: usize, max_states: usize) -> usize {
    let r = Reasoner::new(game);
    let mut states = vec![r.initial_state()];
    let mut seen: HashSet<State> = states.iter().cloned().collect();
    let mut from = 0;
    for _ in 0..depth {
        let end = states.len();
        for k in from..end {
            let s = states[k].clone();
            if r.is_terminal(&s) {
                continue;
            }
            for t in r.successors(&s) {
                if seen.len() < max_states && seen.insert(t.clone()) {
                    states.push(t);
                }
            }
        }
        from = end;
    }
    let n = states.len();
    let order = (0..n)
        .chain((0..n).rev())
        .chain((0..n).map(|k| k * 7919 % n));
    let mut checked = 0;
    for k in order {
        let s = &states[k];
        let fresh = r.clone();
        assert_eq!(
            r.is_terminal(s),
            fresh.is_terminal(s),
            "{name}: terminal in {s:?}"
        );
        for role in 0..r.num_roles() {
            let want = (fresh.legal_moves(s, role), fresh.goal(s, role));
            let got = (r.legal_moves(s, role), r.goal(s, role));
            assert_eq!(got, want, "{name}: legal moves and goal of {role} in {s:?}");
        }
        checked += 1;
    }
    checked
}

#[test]
fn state_cones_by_change_propagation_match_a_full_evaluation() {
    for name in [
        "tictactoe",
        "connect4_5x4",
        "chomp_4x3",
        "hanoi_4",
        "eight_puzzle",
        "prisoners_2p",
        "toll_roads",
    ] {
        let checked = check_state_cones(name, &load(name), 8, 2000);
        assert!(checked > 30, "{name}: only {checked} states checked");
    }
    let game = from_text(CYCLIC_STATE);
    assert!(
        Reasoner::new(&game).c.net.num_cyclic_runs() > 0,
        "the state-only cones have a cyclic block"
    );
    let checked = check_state_cones("cyclic state", &game, 6, 5000);
    assert!(checked > 1000, "only {checked} states checked");
}

/// The least fixpoint of a cyclic run by propagation gives every signal the value iteration
/// gives, on random inputs (fluents and moves) of games with recursion in their `next`,
/// legal and terminal cones.
#[test]
fn cyclic_runs_by_propagation_match_iteration() {
    let mut rng = 0x2545_F491_4F6C_DD1Du64;
    let mut random = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    for text in [CYCLIC, CYCLIC_STATE] {
        let game = from_text(text);
        let c = &game.circuit;
        let mut roots: Vec<symgame_ground::Lit> = game.next.clone();
        roots.push(game.terminal);
        roots.extend(game.legal.iter().flatten().copied());
        roots.extend(game.goals.iter().flatten().map(|&(_, l)| l));
        let prog = Program::compile(c, &roots);
        assert!(prog.num_monotone_runs() > 0, "a cyclic run is propagated");
        let reference = prog.iterated();
        // the constant, the fluents and the moves come before the gates' signals
        let inputs = c.gate_signal(0) as usize;
        for _ in 0..2000 {
            let mut vals = vec![0u8; c.num_signals()];
            vals[0] = 1;
            // sparse inputs, as states and joint moves are
            for v in &mut vals[1..inputs] {
                *v = u8::from(random() % 3 == 0);
            }
            let mut iterated = vals.clone();
            prog.run(&mut vals);
            reference.run(&mut iterated);
            assert_eq!(vals, iterated);
        }
    }
}

/// A limit stops `explore` inside one state's joint moves, not only between states: three
/// roles of 200 moves each give the initial state 8 million joint moves, each to a new state.
#[test]
fn explore_stops_at_a_limit_inside_one_state() {
    let nums: String = (1..=200).map(|x| format!("(num {x}) ")).collect();
    let text = format!(
        "(role a) (role b) (role c) {nums}
         (init (start))
         (<= (legal ?r (pick ?x)) (role ?r) (num ?x))
         (<= (next (picked ?r ?x)) (does ?r (pick ?x)))
         (<= terminal (not (true (start))))
         (<= (goal ?r 0) (role ?r))"
    );
    let game = from_text(&text);
    let r = Reasoner::new(&game);
    let limits = crate::Limits {
        max_states: Some(1000),
        ..Default::default()
    };
    let e = crate::explore(&r, &limits, |_| {});
    assert_eq!(e.stopped, Some(symgame_limits::StopReason::StateLimit));
    assert!(e.layers.is_empty(), "the first layer was not finished");
    assert!(
        e.updates < 1 << 20,
        "{} of the 8,000,000 joint moves applied before the limit was seen",
        e.updates
    );
}
