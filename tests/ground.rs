//! Grounding results on small descriptions.

use crate::ground_text;
use symgame_explicit::Reasoner;
use symgame_ground::{GroundTerm, Lit};

fn names(ts: &[GroundTerm]) -> Vec<String> {
    let mut v: Vec<String> = ts.iter().map(|t| t.to_string()).collect();
    v.sort();
    v
}

/// A counter from 1 to 3 through a static `succ` table.
const COUNTER: &str = "
(role p)
(succ 1 2) (succ 2 3)
(init (count 1))
(<= (legal p inc) (true (count ?x)) (succ ?x ?y))
(<= (legal p stay) (true (count ?x)))
(<= (next (count ?y)) (does p inc) (true (count ?x)) (succ ?x ?y))
(<= (next (count ?x)) (does p stay) (true (count ?x)))
(<= terminal (true (count 3)))
(<= (goal p 100) (true (count 3)))
(<= (goal p 0) (not (true (count 3))))
";

#[test]
fn static_relations_are_folded_away() {
    let g = ground_text(COUNTER).expect("grounds");
    assert_eq!(names(&g.fluents), ["(count 1)", "(count 2)", "(count 3)"]);
    assert_eq!(names(&g.roles[0].moves), ["inc", "stay"]);
    assert_eq!(g.init.len(), 1);
    // `stay` is legal whenever some count holds; `inc` only below 3
    let r = Reasoner::new(&g);
    let s0 = r.initial_state();
    assert_eq!(r.legal_moves(&s0, 0).len(), 2);
    let inc = g.find_move(0, &GroundTerm::parse("inc").unwrap()).unwrap();
    let s1 = r.next_state(&s0, &[inc]);
    let s2 = r.next_state(&s1, &[inc]);
    assert!(r.is_terminal(&s2));
    assert_eq!(r.goal(&s2, 0), Some(100));
    assert_eq!(r.goal(&s1, 0), Some(0));
    assert_eq!(r.legal_moves(&s2, 0), vec![1 - inc]);
    // no gate reads a static relation: every gate input is a fluent, a move or a gate
    assert!(g
        .circuit
        .gates
        .iter()
        .all(|gate| gate.inputs().iter().all(|l| l.as_const().is_none())));
}

#[test]
fn fluents_are_the_reachable_ones_not_a_cartesian_product() {
    // 20 numbers, but only the chain from 1 is reachable through next
    let mut text = String::from("(role p)\n(init (at 1))\n(<= terminal (true (at 20)))\n(<= (goal p 100) (true (at 20)))\n(<= (legal p step) (true (at ?x)))\n(<= (next (at ?y)) (true (at ?x)) (succ ?x ?y))\n");
    for i in 1..20 {
        text.push_str(&format!("(succ {} {})\n", i, i + 1));
    }
    text.push_str("(pair a b)\n(<= (next (other ?x ?y)) (true (at 5)) (pair ?x ?y))\n");
    let g = ground_text(&text).expect("grounds");
    assert_eq!(g.fluents.len(), 20 + 1, "{:?}", names(&g.fluents));
}

#[test]
fn not_distinct_means_equal() {
    let g = ground_text(
        "(role p) (init (at a)) (thing a) (thing b)
         (<= (legal p (go ?x)) (thing ?x) (not (distinct ?x a)))
         (<= (next (at ?x)) (does p (go ?x)))
         (<= terminal (true (at b)))
         (<= (goal p 0) (true (at a)))",
    )
    .expect("grounds");
    assert_eq!(names(&g.roles[0].moves), ["(go a)"]);
}

#[test]
fn recursive_dynamic_relations_become_cyclic_blocks() {
    // reach(x): connected to node 1 through edges that are fluents; edges appear one by one
    let g = ground_text(
        "(role p)
         (init (edge 1 2)) (init (edge 3 4))
         (<= (legal p (add 2 3)) (not (true (edge 2 3))))
         (<= (legal p wait) (true (edge 1 2)))
         (<= (next (edge ?x ?y)) (true (edge ?x ?y)))
         (<= (next (edge ?x ?y)) (does p (add ?x ?y)))
         (<= (reach 1) (true (edge 1 2)))
         (<= (reach ?y) (reach ?x) (true (edge ?x ?y)))
         (<= (reach ?x) (reach ?y) (true (edge ?x ?y)))
         (<= terminal (reach 4))
         (<= (goal p 100) (reach 4))
         (<= (goal p 0) (not (reach 4)))",
    )
    .expect("grounds");
    assert!(g.stats.cyclic_blocks >= 1, "{:?}", g.stats);
    let r = Reasoner::new(&g);
    let s0 = r.initial_state();
    assert!(!r.is_terminal(&s0));
    let add = g
        .find_move(0, &GroundTerm::parse("(add 2 3)").unwrap())
        .expect("move exists");
    let s1 = r.next_state(&s0, &[add]);
    assert!(r.is_terminal(&s1));
    assert_eq!(r.goal(&s1, 0), Some(100));
    assert_eq!(r.goal(&s0, 0), Some(0));
}

#[test]
fn goals_defined_by_negated_goals_are_accepted() {
    // negation through the goal relation is recursive at the relation level but stratified
    // on ground atoms
    let g = ground_text(
        "(role p) (init (s 0))
         (<= (legal p go) (true (s 0)))
         (<= (next (s 1)) (does p go))
         (<= terminal (true (s 1)))
         (<= (goal p 0) (true (s 0)))
         (<= (goal p 100) (not (goal p 0)))",
    )
    .expect("grounds");
    let r = Reasoner::new(&g);
    let s1 = r.next_state(&r.initial_state(), &[0]);
    assert_eq!(r.goal(&s1, 0), Some(100));
    assert_eq!(r.goal(&r.initial_state(), 0), Some(0));
}

#[test]
fn static_legal_facts_are_constant_true() {
    let g = ground_text(
        "(role p) (legal p go) (init (s 0))
         (<= (next (s 1)) (does p go))
         (<= terminal (true (s 1)))
         (<= (goal p 100) (true (s 1)))",
    )
    .expect("grounds");
    assert_eq!(g.legal[0], vec![Lit::TRUE]);
    assert_eq!(g.terminal, Lit::new(g.fluent_signal(1), false));
}

#[test]
fn ground_terms_print_and_parse_back() {
    let g = ground_text(COUNTER).expect("grounds");
    for f in &g.fluents {
        assert_eq!(&GroundTerm::parse(&f.to_string()).unwrap(), f);
    }
    assert!(GroundTerm::parse("(cell 1").is_err());
    assert!(GroundTerm::parse("(cell ?x)").is_err());
}

#[test]
fn a_grounding_time_limit_is_a_located_resource_error() {
    // 9^8 static tuples: far more than a tenth of a second
    let text = "(role p) (n 1) (n 2) (n 3) (n 4) (n 5) (n 6) (n 7) (n 8) (n 9)
(<= (big ?a ?b ?c ?d ?e ?f ?g ?h) (n ?a) (n ?b) (n ?c) (n ?d) (n ?e) (n ?f) (n ?g) (n ?h))
(init (s 1))
(<= (legal p go) (true (s 1)) (big 1 2 3 4 5 6 7 ?x))
(<= (next (s 2)) (does p go))
(<= terminal (true (s 2)))
(<= (goal p 100) (true (s 2)))";
    let desc = symgame_gdl::check(
        symgame_gdl::parse(symgame_gdl::Source::new("big.kif", text)).expect("parses"),
    )
    .expect("checks");
    let opts = symgame_ground::GroundOptions {
        time_limit: Some(std::time::Duration::from_millis(100)),
        ..Default::default()
    };
    let err = symgame_ground::ground(&desc, &opts).expect_err("stops");
    assert_eq!(err.kind(), symgame_gdl::ErrorKind::ResourceLimit);
    assert_eq!(err.position(), Some((2, 1)), "{err}");
    assert!(err.message().contains("time limit"), "{err}");
}

#[test]
fn costs_come_from_the_static_cost_relation_with_default_1() {
    let text = format!(
        "{COUNTER}
(price 5)
(<= (cost p inc ?n) (price ?n))
(cost nobody inc 2)"
    );
    let g = ground_text(&text).expect("grounds");
    let inc = g.find_move(0, &GroundTerm::parse("inc").unwrap()).unwrap();
    let stay = g.find_move(0, &GroundTerm::parse("stay").unwrap()).unwrap();
    assert_eq!(g.move_cost(0, inc), 5);
    assert_eq!(g.move_cost(0, stay), 1);
    assert!(
        g.warnings.iter().any(|w| w.contains("nobody")),
        "{:?}",
        g.warnings
    );
    // Without a cost relation every move costs 1.
    let g = ground_text(COUNTER).expect("grounds");
    assert!(g.roles[0].costs.iter().all(|&c| c == 1));
}

#[test]
fn a_cost_relation_of_the_wrong_arity_is_an_error() {
    let err = ground_text(&format!("{COUNTER}\n(cost p 3)")).unwrap_err();
    assert_eq!(err.kind(), symgame_gdl::ErrorKind::BadCost);
    assert!(err.message().contains("3 arguments"), "{err}");
}
