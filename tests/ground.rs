//! Grounding results on small descriptions.

use symgame_explicit::Reasoner;
use symgame_ground::{GroundTerm, Lit};
use symgame_testkit::{check_text, ground_text};

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

/// 9^8 static tuples, all asked for, from the rule on line 2.
const BIG_STATIC: &str = "(role p) (n 1) (n 2) (n 3) (n 4) (n 5) (n 6) (n 7) (n 8) (n 9)
(<= (big ?a ?b ?c ?d ?e ?f ?g ?h) (n ?a) (n ?b) (n ?c) (n ?d) (n ?e) (n ?f) (n ?g) (n ?h))
(init (s 1))
(<= (legal p go) (true (s 1)) (big ?a ?b ?c ?d ?e ?f ?g ?x))
(<= (next (s 2)) (does p go))
(<= terminal (true (s 2)))
(<= (goal p 100) (true (s 2)))";

#[test]
fn a_grounding_time_limit_is_a_located_resource_error() {
    // far more than a tenth of a second
    let desc = check_text("big.kif", BIG_STATIC).expect("parses and checks");
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
fn grounding_names_the_rule_it_is_evaluating_for_a_watchdog() {
    // a second of evaluating the rule on line 2
    let desc = check_text("big.kif", BIG_STATIC).expect("parses and checks");
    let at = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let opts = symgame_ground::GroundOptions {
        time_limit: Some(std::time::Duration::from_secs(1)),
        at_rule: Some(at.clone()),
        ..Default::default()
    };
    let seen = std::thread::scope(|s| {
        let watcher = s.spawn(|| {
            let mut seen = std::collections::BTreeSet::new();
            while seen.len() < 100 && !seen.contains(&u64::MAX) {
                seen.insert(at.load(std::sync::atomic::Ordering::Relaxed));
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            seen
        });
        let err = symgame_ground::ground(&desc, &opts).expect_err("stops");
        assert_eq!(err.position(), Some((2, 1)), "{err}");
        // tells the watcher to stop
        let after = at.swap(u64::MAX, std::sync::atomic::Ordering::Relaxed);
        assert_eq!(after, 0, "no rule is named once grounding has returned");
        watcher.join().expect("watcher")
    });
    let rule = desc
        .description
        .source
        .text()
        .find("(<= (big")
        .expect("rule") as u64;
    assert!(
        seen.contains(&(rule + 1)),
        "the big rule was named: {seen:?}"
    );
    let span = desc.description.source.span_at(rule as u32);
    assert_eq!((span.line, span.col), (2, 1));
}

/// Grounds `text` with the default options but demand restriction switched as given.
fn ground_with_demand(text: &str, demand: bool) -> symgame_ground::GroundGame {
    let desc = check_text("test.kif", text).expect("parses and checks");
    let opts = symgame_ground::GroundOptions {
        demand,
        ..Default::default()
    };
    symgame_ground::ground(&desc, &opts).expect("grounds")
}

/// The legal moves of role 0 in `s`, printed and sorted.
fn legal_names(
    g: &symgame_ground::GroundGame,
    r: &Reasoner,
    s: &symgame_explicit::State,
) -> Vec<String> {
    let mut v: Vec<String> = r
        .legal_moves(s, 0)
        .iter()
        .map(|&m| g.roles[0].moves[m].to_string())
        .collect();
    v.sort();
    v
}

/// Layer sizes, terminal counts and the goals of every reachable state, in a canonical form.
fn behaviour(g: &symgame_ground::GroundGame) -> (Vec<(u64, u64)>, Vec<String>) {
    let r = Reasoner::new(g);
    let x = symgame_explicit::explore(&r, &Default::default(), |_| {});
    let layers = x.layers.iter().map(|l| (l.states, l.terminal)).collect();
    // every state reachable in a few plies, named by its fluents, with legal moves and goals
    let mut seen = std::collections::BTreeSet::new();
    let mut layer = vec![r.initial_state()];
    for _ in 0..6 {
        let mut next = Vec::new();
        for s in &layer {
            let mut fl: Vec<String> = s.fluents().map(|f| g.fluents[f].to_string()).collect();
            fl.sort();
            let legal = legal_names(g, &r, s);
            let line = format!("{fl:?} {legal:?} {:?} {}", r.goal(s, 0), r.is_terminal(s));
            if seen.insert(line) && !r.is_terminal(s) {
                for j in r.joint_moves(s) {
                    next.push(r.next_state(s, &j));
                }
            }
        }
        layer = next;
    }
    (layers, seen.into_iter().collect())
}

/// A counter that adds 1 or 2 through a recursive static `plus` over 0..120: in full, `plus`
/// has 7,381 tuples; the game only ever asks `plus(c, 1, ?)` and `plus(c, 2, ?)`.
fn plus_counter() -> String {
    let mut t = String::from(
        "(role p) (init (count 0)) (step 1) (step 2)
         (<= (plus ?x 0 ?x) (num ?x))
         (<= (plus ?x ?y2 ?z2) (succ ?y ?y2) (plus ?x ?y ?z) (succ ?z ?z2))
         (<= (legal p (add ?k)) (true (count ?c)) (step ?k))
         (<= (next (count ?d)) (does p (add ?k)) (true (count ?c)) (plus ?c ?k ?d))
         (<= terminal (true (count 6)))
         (<= (goal p 100) (true (count 6)))
         (<= (goal p 0) (not (true (count 6))))\n",
    );
    for i in 0..=120 {
        t.push_str(&format!("(num {i}) "));
        if i < 120 {
            t.push_str(&format!("(succ {i} {})\n", i + 1));
        }
    }
    t
}

#[test]
fn demand_restriction_evaluates_only_the_asked_tuples() {
    let text = plus_counter();
    let full = ground_with_demand(&text, false);
    let restricted = ground_with_demand(&text, true);
    assert!(full.stats.static_tuples > 7_381, "{:?}", full.stats);
    assert!(
        restricted.stats.static_tuples < 1_000,
        "{:?}",
        restricted.stats
    );
    assert_eq!(names(&full.fluents), names(&restricted.fluents));
    assert_eq!(behaviour(&full), behaviour(&restricted));
    // and the counter really counts: 0 -> 2 -> 4 -> 6
    let r = Reasoner::new(&restricted);
    let add2 = restricted
        .find_move(0, &GroundTerm::parse("(add 2)").unwrap())
        .unwrap();
    let mut s = r.initial_state();
    for _ in 0..3 {
        s = r.next_state(&s, &[add2]);
    }
    assert!(r.is_terminal(&s));
    assert_eq!(r.goal(&s, 0), Some(100));
}

#[test]
fn demand_restriction_keeps_negated_dynamic_relations_complete() {
    // `blocked` depends on the state and is read under `not` and, restricted, as a condition
    let text = "(role p) (init (at 0)) (init (wall 3)) (init (wall 6))
        (succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6) (succ 6 7) (succ 7 8)
        (<= (blocked ?x ?y) (true (wall ?y)) (succ ?x ?y))
        (<= (legal p right) (true (at ?x)) (succ ?x ?y) (not (blocked ?x ?y)))
        (<= (legal p jump) (true (at ?x)) (succ ?x ?y) (succ ?y ?z))
        (<= (legal p smash) (true (at ?x)) (succ ?x ?y) (blocked ?x ?y))
        (<= (next (at ?y)) (does p right) (true (at ?x)) (succ ?x ?y))
        (<= (next (at ?z)) (does p jump) (true (at ?x)) (succ ?x ?y) (succ ?y ?z))
        (<= (next (at ?x)) (does p smash) (true (at ?x)))
        (<= (next (wall ?y)) (true (wall ?y)) (not (does p smash)))
        (<= (next (wall ?y)) (true (wall ?y)) (does p smash) (true (at ?x)) (not (succ ?x ?y)))
        (<= terminal (true (at 8)))
        (<= (goal p 100) (true (at 8)))
        (<= (goal p 0) (not (true (at 8))))";
    let full = ground_with_demand(text, false);
    let restricted = ground_with_demand(text, true);
    assert_eq!(behaviour(&full), behaviour(&restricted));
    let r = Reasoner::new(&restricted);
    let mv = |m: &str| {
        restricted
            .find_move(0, &GroundTerm::parse(m).unwrap())
            .unwrap()
    };
    // at 2 the wall at 3 blocks `right` until it is smashed
    let s2 = r.next_state(&r.initial_state(), &[mv("jump")]);
    let names_at = |s: &symgame_explicit::State| legal_names(&restricted, &r, s);
    assert_eq!(names_at(&s2), ["jump", "smash"]);
    let s2b = r.next_state(&s2, &[mv("smash")]);
    assert_eq!(names_at(&s2b), ["jump", "right"]);
}

#[test]
fn variable_elimination_joins_independent_parts_once() {
    // The chaser's step depends on the hero's new square, which depends on the hero's square
    // and move only: eliminating the hero's old coordinates, then the move, costs about
    // 2·20·9 + 2·20·20 ground rules instead of 20·20·9.
    let mut text = String::from(
        "(role hero) (init (chaser 0)) (init (at 2 2))
         (d 0) (d 1) (d 2)
         (<= (legal hero (step ?dx ?dy)) (d ?dx) (d ?dy) (true (at ?x ?y)))
         (<= (next (at ?x2 ?y2)) (true (at ?x ?y)) (does hero (step ?dx ?dy))
             (move ?x ?y ?dx ?dy ?x2 ?y2))
         (<= (next (chaser ?e)) (true (chaser ?c)) (true (at ?x ?y)) (does hero (step ?dx ?dy))
             (move ?x ?y ?dx ?dy ?x2 ?y2) (toward ?c ?x2 ?y2 ?e))
         (<= terminal (true (chaser ?c)) (true (at ?x ?y)) (square ?x ?y ?c))
         (<= (goal hero 0) (true (chaser ?c)) (true (at ?x ?y)) (square ?x ?y ?c))\n",
    );
    // a 5 x 4 torus; the chaser walks the square numbers 0..20 toward the hero's square
    for x in 0..5i32 {
        for y in 0..4i32 {
            let i = 4 * x + y;
            text.push_str(&format!("(square {x} {y} {i})\n"));
            for dx in 0..3 {
                for dy in 0..3 {
                    let (x2, y2) = ((x + dx) % 5, (y + dy) % 4);
                    text.push_str(&format!("(move {x} {y} {dx} {dy} {x2} {y2})\n"));
                }
            }
            for c in 0..20 {
                let e = c + (i - c).signum();
                text.push_str(&format!("(toward {c} {x} {y} {e})\n"));
            }
        }
    }
    let g = ground_with_demand(&text, true);
    assert_eq!(g.fluents.len(), 40);
    assert!(g.stats.ground_rules < 20 * 20 * 9 / 2, "{:?}", g.stats);
    let r = Reasoner::new(&g);
    let step = g
        .find_move(0, &GroundTerm::parse("(step 1 2)").unwrap())
        .unwrap();
    let s1 = r.next_state(&r.initial_state(), &[step]);
    let mut fl: Vec<String> = s1.fluents().map(|f| g.fluents[f].to_string()).collect();
    fl.sort();
    // from (2 2) to (3 0), square 12; the chaser moves from 0 to 1
    assert_eq!(fl, ["(at 3 0)", "(chaser 1)"]);
    assert_eq!(behaviour(&g), behaviour(&ground_with_demand(&text, false)));
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

/// A sealed-bid duel over 0..=N: both pay the lower bid and the higher bidder scores 3.
fn bid_duel(n: u32) -> String {
    let mut t = String::from(
        "(role a) (role b) (init (apurse 12)) (init (bpurse 12))
         (<= (legal a (bid ?x)) (true (apurse ?p)) (le ?x ?p))
         (<= (legal b (bid ?x)) (true (bpurse ?p)) (le ?x ?p))
         (<= (lower ?x ?y ?x) (le ?x ?y))
         (<= (lower ?x ?y ?y) (lt ?y ?x))
         (<= (aprize 3) (does a (bid ?x)) (does b (bid ?y)) (lt ?y ?x))
         (<= (aprize 0) (does a (bid ?x)) (does b (bid ?y)) (le ?x ?y))
         (<= (bprize 3) (does a (bid ?x)) (does b (bid ?y)) (lt ?x ?y))
         (<= (bprize 0) (does a (bid ?x)) (does b (bid ?y)) (le ?y ?x))
         (<= (next (apurse ?q)) (true (apurse ?p)) (does a (bid ?x)) (does b (bid ?y))
             (lower ?x ?y ?m) (aprize ?w) (plus ?rest ?m ?p) (plus ?rest ?w ?q))
         (<= (next (bpurse ?q)) (true (bpurse ?p)) (does a (bid ?x)) (does b (bid ?y))
             (lower ?x ?y ?m) (bprize ?w) (plus ?rest ?m ?p) (plus ?rest ?w ?q))
         (<= (plus ?x 0 ?x) (num ?x))
         (<= (plus ?x ?y2 ?z2) (succ ?y ?y2) (plus ?x ?y ?z) (succ ?z ?z2))
         (<= (le ?x ?y) (plus ?x ?d ?y))
         (<= (lt ?x ?y) (plus ?x ?d ?y) (distinct ?d 0))
         (<= terminal (true (apurse 0)))
         (<= terminal (true (bpurse 0)))
         (<= (goal ?r 100) (role ?r) terminal)
         (<= (goal ?r 0) (role ?r) (not terminal))\n",
    );
    for i in 0..=n {
        t.push_str(&format!("(num {i}) "));
        if i < n {
            t.push_str(&format!("(succ {i} {})\n", i + 1));
        }
    }
    t
}

#[test]
fn a_projection_chain_joins_the_bids_before_the_purse() {
    // A purse's next value reads the purse, both bids, the lower bid and the prize. Joined in
    // the greedy order (the purse first, then what shares its variable), one join binds the
    // rest of the purse, the lower bid and both bids: about N^3 ground rules. The order the
    // join cost model chooses joins the bids and the lower bid first, then the purse: about
    // N^2.
    let n = 30;
    let text = bid_duel(n);
    let g = ground_with_demand(&text, true);
    let n = n as usize;
    assert!(g.stats.ground_rules < n * n * n / 3, "{:?}", g.stats);
    assert_eq!(behaviour(&g), behaviour(&ground_with_demand(&text, false)));
}
