//! Property tests of the perfect hash on random BDDs built by both engines: every assignment
//! of the counted variables is enumerated in lexicographic order and checked against the BDD
//! itself (`eval`), the engine's `sat_count_over`, and the three integer widths.

use num_bigint::BigUint;
use proptest::prelude::*;
use symgame_bdd::{BddEngine, BiodivineEngine, OxiddEngine, VarSet};
use symgame_db::{AnyPerfectHash, PerfectHash};
use symgame_testkit::shared_engine_pair;

/// Variables of the small engines.
const SMALL_VARS: u32 = 12;
/// Variables of the wide engines (sets too large for 64 bits).
const WIDE_VARS: u32 = 90;

fn small() -> &'static (BiodivineEngine, OxiddEngine) {
    shared_engine_pair(SMALL_VARS)
}

fn wide() -> &'static (BiodivineEngine, OxiddEngine) {
    shared_engine_pair(WIDE_VARS)
}

/// A formula over the variable slots `0..k` (mapped to the counted variables when built).
#[derive(Clone, Debug)]
enum Expr {
    Const(bool),
    Var(usize),
    Not(Box<Expr>),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Xor(Box<Expr>, Box<Expr>),
}

fn expr(slots: usize) -> impl Strategy<Value = Expr> {
    let leaf = prop_oneof![
        1 => any::<bool>().prop_map(Expr::Const),
        6 => (0..slots).prop_map(Expr::Var),
    ];
    leaf.prop_recursive(6, 48, 2, |inner| {
        prop_oneof![
            1 => inner.clone().prop_map(|e| Expr::Not(Box::new(e))),
            3 => (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::And(Box::new(a), Box::new(b))),
            3 => (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::Or(Box::new(a), Box::new(b))),
            1 => (inner.clone(), inner).prop_map(|(a, b)| Expr::Xor(Box::new(a), Box::new(b))),
        ]
    })
}

fn build<E: BddEngine>(e: &E, x: &Expr, vars: &[u32]) -> E::Bdd {
    match x {
        Expr::Const(b) => e.constant(*b),
        Expr::Var(i) => e.var(vars[*i % vars.len()]),
        Expr::Not(a) => e.not(&build(e, a, vars)).unwrap(),
        Expr::And(a, b) => e.and(&build(e, a, vars), &build(e, b, vars)).unwrap(),
        Expr::Or(a, b) => e.or(&build(e, a, vars), &build(e, b, vars)).unwrap(),
        Expr::Xor(a, b) => e.xor(&build(e, a, vars), &build(e, b, vars)).unwrap(),
    }
}

/// The counted variables chosen by `mask` (bit `v` = variable `v`), never empty.
fn counted_of(mask: u32, num_vars: u32) -> VarSet {
    let vs: VarSet = (0..num_vars).filter(|v| mask >> v & 1 == 1).collect();
    if vs.is_empty() {
        VarSet::from(vec![0])
    } else {
        vs
    }
}

/// Every assignment of the counted variables in lexicographic order (the first counted
/// variable most significant); the variables not counted get the bits of `noise`.
fn all_states(counted: &[u32], num_vars: u32, noise: u32) -> Vec<Vec<bool>> {
    let k = counted.len();
    (0..1usize << k)
        .map(|idx| {
            let mut s: Vec<bool> = (0..num_vars).map(|v| noise >> v & 1 == 1).collect();
            for (j, &v) in counted.iter().enumerate() {
                s[v as usize] = idx >> (k - 1 - j) & 1 == 1;
            }
            s
        })
        .collect()
}

/// The checks on one engine.
fn check_small<E: BddEngine>(e: &E, x: &Expr, counted: &VarSet, noise: u32) {
    let vars = counted.as_slice();
    let f = build(e, x, vars);
    let table = e.export(&f);
    let h64: PerfectHash<u64> = PerfectHash::new(&table, counted).unwrap();
    let h128: PerfectHash<u128> = PerfectHash::new(&table, counted).unwrap();
    let hbig: PerfectHash<BigUint> = PerfectHash::new(&table, counted).unwrap();
    assert_eq!(BigUint::from(*h64.len()), e.sat_count_over(&f, counted));
    assert_eq!(BigUint::from(*h128.len()), *hbig.len());
    assert_eq!(h64.is_empty(), e.is_false(&f));

    let mut members = Vec::new();
    for s in all_states(vars, SMALL_VARS, noise) {
        let member = e.eval(&f, &s);
        let r = h64.rank(&s);
        assert_eq!(r.is_some(), member, "membership of {s:?}");
        assert_eq!(h64.contains(&s), member);
        assert_eq!(h128.rank(&s).map(u64::try_from), r.map(Ok));
        assert_eq!(hbig.rank(&s), r.map(BigUint::from));
        if let Some(r) = r {
            // Dense, distinct and in lexicographic order: the k-th member has rank k.
            assert_eq!(r, members.len() as u64, "rank of {s:?}");
            let canonical: Vec<bool> = (0..SMALL_VARS)
                .map(|v| counted.contains(v) && s[v as usize])
                .collect();
            assert_eq!(h64.unrank(&r).as_ref(), Some(&canonical));
            assert_eq!(h128.unrank(&u128::from(r)).as_ref(), Some(&canonical));
            assert_eq!(hbig.unrank(&BigUint::from(r)).as_ref(), Some(&canonical));
            members.push(canonical);
        }
    }
    assert_eq!(members.len() as u64, *h64.len());
    assert_eq!(h64.unrank(h64.len()), None);
    assert_eq!(hbig.unrank(&(hbig.len() + 1u8)), None);
    let mut walked = Vec::new();
    h64.for_each_member(|s| walked.push(s.to_vec()));
    assert_eq!(walked, members);
}

/// Checks on a set too large for `u64`: random ranks round-trip, and rank order is the
/// lexicographic order of the members.
fn check_wide<E: BddEngine>(e: &E, x: &Expr, counted: &VarSet, picks: &[u64]) {
    let vars = counted.as_slice();
    let f = build(e, x, vars);
    let h = AnyPerfectHash::new(&e.export(&f), counted).unwrap();
    let len = h.len();
    assert_eq!(len, e.sat_count_over(&f, counted));
    if len == BigUint::from(0u8) {
        return;
    }
    let mut sampled: Vec<(BigUint, Vec<bool>)> = Vec::new();
    for &p in picks {
        // A rank spread over the whole range: len * p / 2^64.
        let r = (&len * BigUint::from(p)) >> 64usize;
        let s = h.unrank(&r).unwrap();
        assert!(e.eval(&f, &s), "unrank({r}) is not a member");
        assert_eq!(h.rank(&s), Some(r.clone()));
        sampled.push((r, s));
    }
    let last = &len - 1u8;
    let s = h.unrank(&last).unwrap();
    assert_eq!(h.rank(&s), Some(last));
    assert_eq!(h.unrank(&len), None);
    // Rank order == lexicographic order of the counted variables.
    let key = |s: &[bool]| -> Vec<bool> { vars.iter().map(|&v| s[v as usize]).collect() };
    for a in &sampled {
        for b in &sampled {
            assert_eq!(a.0.cmp(&b.0), key(&a.1).cmp(&key(&b.1)));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn ranks_are_dense_ordered_and_invertible(
        x in expr(8),
        mask in 1u32..(1 << SMALL_VARS),
        noise in any::<u32>(),
    ) {
        let counted = counted_of(mask, SMALL_VARS);
        let (b, o) = small();
        check_small(b, &x, &counted, noise);
        check_small(o, &x, &counted, noise);
    }

    #[test]
    fn wide_sets_rank_with_big_integers(
        x in expr(40),
        stride in 1u32..3,
        picks in proptest::collection::vec(any::<u64>(), 1..12),
    ) {
        // 45 or 90 counted variables: counts far beyond 2^64.
        let counted: VarSet = (0..WIDE_VARS).step_by(stride as usize).collect();
        let (b, o) = wide();
        check_wide(b, &x, &counted, &picks);
        check_wide(o, &x, &counted, &picks);
    }
}

#[test]
fn interleaved_current_variables_skip_the_next_ones() {
    // A state set over the even variables, as the symbolic encoding makes them.
    let (b, _) = small();
    let counted: VarSet = (0..SMALL_VARS).step_by(2).collect();
    let f = b
        .and(&b.var(2), &b.or(&b.nvar(6), &b.var(10)).unwrap())
        .unwrap();
    check_small(b, &Expr::Const(true), &counted, 0b1010_1010_1010);
    let h: PerfectHash = PerfectHash::new(&b.export(&f), &counted).unwrap();
    // x2 fixed, (x6, x10) in {00, 01, 11}, x0, x4, x8 free: 2^3 * 3 members.
    assert_eq!(*h.len(), 24);
    for r in 0..24 {
        let s = h.unrank(&r).unwrap();
        assert!(b.eval(&f, &s));
        assert_eq!(h.rank(&s), Some(r));
    }
}
