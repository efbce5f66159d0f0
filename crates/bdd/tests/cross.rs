//! Cross-backend tests: random formulas built in both engines are checked against an
//! independent brute-force truth-table evaluator (at most 10 variables) and against each
//! other (node counts, export/import across engines).

use num_bigint::BigUint;
use proptest::prelude::*;
use symgame_bdd::{
    Backend, BddEngine, BddError, BddNodes, BinaryOp, BiodivineEngine, EngineConfig, EngineJob,
    OxiddEngine, VarSet,
};
use symgame_testkit::{queens, shared_engine_pair};

/// Variables of the shared engines; formulas use the first `n <= 10` of them.
const ENGINE_VARS: u32 = 12;

fn engines() -> &'static (BiodivineEngine, OxiddEngine) {
    shared_engine_pair(ENGINE_VARS)
}

// ---------------------------------------------------------------------------------------
// Formulas and the brute-force reference.

#[derive(Clone, Debug)]
enum Expr {
    Const(bool),
    Var(u32),
    Not(Box<Expr>),
    Bin(BinaryOp, Box<Expr>, Box<Expr>),
    Ite(Box<Expr>, Box<Expr>, Box<Expr>),
}

fn expr(n: u32) -> impl Strategy<Value = Expr> {
    let leaf = prop_oneof![
        1 => any::<bool>().prop_map(Expr::Const),
        6 => (0..n).prop_map(Expr::Var),
    ];
    leaf.prop_recursive(7, 64, 3, |inner| {
        let op = prop::sample::select(BinaryOp::ALL.to_vec());
        prop_oneof![
            1 => inner.clone().prop_map(|e| Expr::Not(Box::new(e))),
            5 => (op, inner.clone(), inner.clone())
                .prop_map(|(o, a, b)| Expr::Bin(o, Box::new(a), Box::new(b))),
            1 => (inner.clone(), inner.clone(), inner)
                .prop_map(|(c, t, e)| Expr::Ite(Box::new(c), Box::new(t), Box::new(e))),
        ]
    })
}

/// Truth table over `n` variables: entry `a` is the value at the assignment where variable
/// `v` is bit `v` of `a`.
type Tt = Vec<bool>;

fn bit(a: usize, v: u32) -> bool {
    (a >> v) & 1 == 1
}

fn eval_expr(x: &Expr, a: usize) -> bool {
    match x {
        Expr::Const(b) => *b,
        Expr::Var(v) => bit(a, *v),
        Expr::Not(e) => !eval_expr(e, a),
        Expr::Bin(op, l, r) => {
            let (l, r) = (eval_expr(l, a), eval_expr(r, a));
            match op {
                BinaryOp::And => l && r,
                BinaryOp::Or => l || r,
                BinaryOp::Xor => l != r,
                BinaryOp::Iff => l == r,
                BinaryOp::AndNot => l && !r,
                BinaryOp::Imp => !l || r,
            }
        }
        Expr::Ite(c, t, e) => {
            if eval_expr(c, a) {
                eval_expr(t, a)
            } else {
                eval_expr(e, a)
            }
        }
    }
}

fn tt_of_expr(x: &Expr, n: u32) -> Tt {
    (0..1usize << n).map(|a| eval_expr(x, a)).collect()
}

fn tt_exists(t: &Tt, vars: &[u32], n: u32) -> Tt {
    let mut t = t.clone();
    for &v in vars.iter().filter(|&&v| v < n) {
        t = (0..t.len())
            .map(|a| t[a & !(1 << v)] || t[a | (1 << v)])
            .collect();
    }
    t
}

fn tt_forall(t: &Tt, vars: &[u32], n: u32) -> Tt {
    let mut t = t.clone();
    for &v in vars.iter().filter(|&&v| v < n) {
        t = (0..t.len())
            .map(|a| t[a & !(1 << v)] && t[a | (1 << v)])
            .collect();
    }
    t
}

/// `r(a) = t(a')` with `a'[from] = a[to]`.
fn tt_rename(t: &Tt, pairs: &[(u32, u32)]) -> Tt {
    (0..t.len())
        .map(|a| {
            let mut b = a;
            for &(from, to) in pairs {
                b = (b & !(1 << from)) | (usize::from(bit(a, to)) << from);
            }
            t[b]
        })
        .collect()
}

fn tt_restrict(t: &Tt, assignment: &[(u32, bool)]) -> Tt {
    (0..t.len())
        .map(|a| {
            let mut b = a;
            for &(v, val) in assignment {
                b = (b & !(1 << v)) | (usize::from(val) << v);
            }
            t[b]
        })
        .collect()
}

fn tt_support(t: &Tt, n: u32) -> Vec<u32> {
    (0..n)
        .filter(|&v| (0..t.len()).any(|a| t[a] != t[a ^ (1 << v)]))
        .collect()
}

fn tt_count(t: &Tt) -> u64 {
    t.iter().filter(|&&b| b).count() as u64
}

/// Lexicographically smallest satisfying assignment, variable 0 most significant.
fn tt_lex_min(t: &Tt, n: u32) -> Option<Vec<bool>> {
    (0..1usize << n)
        .map(|k| {
            (0..n)
                .map(|v| (k >> (n - 1 - v)) & 1 == 1)
                .collect::<Vec<bool>>()
        })
        .find(|vals| {
            let a = vals
                .iter()
                .enumerate()
                .fold(0usize, |acc, (v, &b)| acc | (usize::from(b) << v));
            t[a]
        })
}

// ---------------------------------------------------------------------------------------
// Engine-side helpers, written once for both engines.

fn build<E: BddEngine>(e: &E, x: &Expr) -> E::Bdd {
    match x {
        Expr::Const(b) => e.constant(*b),
        Expr::Var(v) => e.var(*v),
        Expr::Not(a) => {
            // Exercise both `not` and `nvar`.
            if let Expr::Var(v) = **a {
                e.nvar(v)
            } else {
                e.not(&build(e, a)).unwrap()
            }
        }
        Expr::Bin(op, l, r) => {
            let (l, r) = (build(e, l), build(e, r));
            match op {
                BinaryOp::And => e.and(&l, &r),
                BinaryOp::Or => e.or(&l, &r),
                BinaryOp::Xor => e.xor(&l, &r),
                BinaryOp::Iff => e.iff(&l, &r),
                BinaryOp::AndNot => e.and_not(&l, &r),
                BinaryOp::Imp => e.imp(&l, &r),
            }
            .unwrap()
        }
        Expr::Ite(c, t, f) => e.ite(&build(e, c), &build(e, t), &build(e, f)).unwrap(),
    }
}

fn tt_of<E: BddEngine>(e: &E, f: &E::Bdd, n: u32) -> Tt {
    (0..1usize << n)
        .map(|a| {
            let vals: Vec<bool> = (0..n).map(|v| bit(a, v)).collect();
            e.eval(f, &vals)
        })
        .collect()
}

/// Build the BDD of a truth table by Shannon expansion (independent of the operations
/// under test except `ite` on a literal).
fn from_tt<E: BddEngine>(e: &E, t: &[bool], var: u32) -> E::Bdd {
    if t.iter().all(|&b| b) {
        return e.constant(true);
    }
    if !t.iter().any(|&b| b) {
        return e.constant(false);
    }
    // Variable `var` is the lowest bit of the remaining index.
    let lo: Vec<bool> = t.iter().step_by(2).copied().collect();
    let hi: Vec<bool> = t.iter().skip(1).step_by(2).copied().collect();
    let (lo, hi) = (from_tt(e, &lo, var + 1), from_tt(e, &hi, var + 1));
    e.ite(&e.var(var), &hi, &lo).unwrap()
}

#[derive(Clone, Debug)]
struct Case {
    n: u32,
    f: Expr,
    g: Expr,
    quant: Vec<u32>,
    perm_seed: Vec<u32>,
    restrict: Vec<(u32, bool)>,
    extra_counted: Vec<u32>,
}

fn case() -> impl Strategy<Value = Case> {
    (1u32..=10).prop_flat_map(|n| {
        (
            expr(n),
            expr(n),
            proptest::collection::vec(0..n, 0..4),
            proptest::collection::vec(any::<u32>(), n as usize),
            proptest::collection::vec((0..n, any::<bool>()), 0..3),
            proptest::collection::vec(0..ENGINE_VARS, 0..4),
        )
            .prop_map(
                move |(f, g, quant, perm_seed, restrict, extra_counted)| Case {
                    n,
                    f,
                    g,
                    quant,
                    perm_seed,
                    restrict,
                    extra_counted,
                },
            )
    })
}

/// Everything one engine computes for a case, as engine-independent data.
#[derive(Debug, PartialEq)]
struct Outcome {
    node_counts: Vec<usize>,
    imported: BddNodes,
}

fn check_engine<E: BddEngine>(e: &E, c: &Case) -> Outcome {
    let n = c.n;
    let (tf, tg) = (tt_of_expr(&c.f, n), tt_of_expr(&c.g, n));
    let (f, g) = (build(e, &c.f), build(e, &c.g));
    let name = E::BACKEND;

    // Evaluation and equality semantics.
    assert_eq!(tt_of(e, &f, n), tf, "{name}: f truth table");
    assert_eq!(tt_of(e, &g, n), tg, "{name}: g truth table");
    assert_eq!(f == g, tf == tg, "{name}: == vs truth tables");
    assert_eq!(e.is_false(&f), !tf.iter().any(|&b| b), "{name}: is_false");
    assert_eq!(e.is_true(&f), tf.iter().all(|&b| b), "{name}: is_true");
    assert_eq!(
        e.implies(&f, &g).unwrap(),
        (0..tf.len()).all(|a| !tf[a] || tg[a]),
        "{name}: implies"
    );
    let canon = from_tt(e, &tf, 0);
    assert_eq!(f, canon, "{name}: f equals its Shannon rebuild");

    // Support and counting.
    let support = tt_support(&tf, n);
    assert_eq!(e.support(&f), support, "{name}: support");
    assert_eq!(
        e.sat_count(&f, n),
        BigUint::from(tt_count(&tf)),
        "{name}: sat_count"
    );
    assert_eq!(
        e.sat_count(&f, ENGINE_VARS + 3),
        BigUint::from(tt_count(&tf)) << (ENGINE_VARS + 3 - n),
        "{name}: sat_count over more variables than the engine has"
    );
    let counted: VarSet = support.iter().chain(&c.extra_counted).copied().collect();
    let counted_below_n = counted.iter().filter(|&v| v < n).count();
    let counted_above = counted.len() - counted_below_n;
    assert_eq!(
        e.sat_count_over(&f, &counted),
        (BigUint::from(tt_count(&tf)) << counted_above) >> (n as usize - counted_below_n),
        "{name}: sat_count_over {counted:?}"
    );

    // pick_one / pick_minterm.
    match e.pick_one(&f) {
        None => assert!(
            !tf.iter().any(|&b| b),
            "{name}: pick_one None on satisfiable f"
        ),
        Some(cube) => {
            let c = e.cube(&cube).unwrap();
            assert!(e.implies(&c, &f).unwrap(), "{name}: picked cube implies f");
            let minterm = e.pick_minterm(&f).unwrap();
            assert!(e.eval(&f, &minterm), "{name}: minterm satisfies f");
            assert_eq!(
                Some(minterm[..n as usize].to_vec()),
                tt_lex_min(&tf, n),
                "{name}: lexicographically smallest"
            );
            assert!(minterm[n as usize..].iter().all(|&b| !b));
        }
    }

    // Quantification and the relational product.
    let q: VarSet = c.quant.iter().copied().collect();
    let tfg: Tt = (0..tf.len()).map(|a| tf[a] && tg[a]).collect();
    let ex = e.exists(&f, &q).unwrap();
    assert_eq!(
        tt_of(e, &ex, n),
        tt_exists(&tf, q.as_slice(), n),
        "{name}: exists"
    );
    let fa = e.forall(&f, &q).unwrap();
    assert_eq!(
        tt_of(e, &fa, n),
        tt_forall(&tf, q.as_slice(), n),
        "{name}: forall"
    );
    let ae = e.and_exists(&f, &g, &q).unwrap();
    assert_eq!(
        tt_of(e, &ae, n),
        tt_exists(&tfg, q.as_slice(), n),
        "{name}: and_exists"
    );

    // Rename by a random permutation of 0..n (generally not order-preserving).
    let mut perm: Vec<u32> = (0..n).collect();
    perm.sort_by_key(|&v| (c.perm_seed[v as usize], v));
    let pairs: Vec<(u32, u32)> = (0..n).map(|v| (v, perm[v as usize])).collect();
    let rn = e.rename(&f, &pairs).unwrap();
    let t_rn = tt_rename(&tf, &pairs);
    assert_eq!(
        tt_of(e, &rn, n),
        t_rn,
        "{name}: rename by permutation {pairs:?}"
    );
    assert_eq!(
        rn,
        from_tt(e, &t_rn, 0),
        "{name}: rename result is canonical"
    );
    // Order-preserving shift of the support one up (into a variable >= n if needed).
    let shift: Vec<(u32, u32)> = (0..n).rev().map(|v| (v, v + 1)).collect();
    let sh = e.rename(&f, &shift).unwrap();
    let sh_back = e
        .rename(&sh, &(0..n).map(|v| (v + 1, v)).collect::<Vec<_>>())
        .unwrap();
    assert_eq!(sh_back, f, "{name}: shift up then down");
    let vals_hi: Vec<bool> = (0..=n).map(|v| v > 0 && v % 2 == 1).collect();
    let vals_lo: Vec<bool> = (0..n).map(|v| v % 2 == 0).collect();
    assert_eq!(
        e.eval(&sh, &vals_hi),
        e.eval(&f, &vals_lo),
        "{name}: shift semantics"
    );

    // Restriction.
    let rs = e.restrict(&f, &c.restrict).unwrap();
    let t_rs = tt_restrict(&tf, &c.restrict);
    assert_eq!(tt_of(e, &rs, n), t_rs, "{name}: restrict");
    assert_eq!(
        rs,
        from_tt(e, &t_rs, 0),
        "{name}: restrict result is canonical"
    );

    // Export/import round trip within the engine.
    let table = e.export(&f);
    table.validate(e.num_vars()).unwrap();
    let constant = e.is_false(&f) || e.is_true(&f);
    let inner = if constant { 0 } else { e.node_count(&f) - 2 };
    assert_eq!(table.nodes.len(), inner, "{name}: exported inner nodes");
    assert_eq!(
        e.import(&table).unwrap(),
        f,
        "{name}: export/import round trip"
    );

    // The bounded size check agrees with the count on every cap around it.
    for b in [&f, &g, &ex, &ae] {
        let n = e.node_count(b);
        for cap in [0, 1, 2, n.saturating_sub(1), n, n + 1] {
            assert_eq!(
                e.node_count_exceeds(b, cap),
                n > cap,
                "{name}: exceeds {cap} of {n}"
            );
        }
    }

    // The disjointness search agrees with the conjunction, on pairs that meet and pairs that
    // cannot (a function and its negation, or a part of it cut off).
    let nf = e.not(&f).unwrap();
    let f_not_g = e.and_not(&f, &g).unwrap();
    for (i, (a, b)) in [
        (&f, &g),
        (&f, &nf),
        (&g, &nf),
        (&ex, &ae),
        (&rs, &f),
        (&f, &f),
    ]
    .into_iter()
    .chain([(&f_not_g, &g), (&g, &f_not_g), (&sh, &rn)])
    .enumerate()
    {
        let meet = e.and(a, b).unwrap();
        assert_eq!(
            e.disjoint(a, b, &|| false).unwrap(),
            Some(e.is_false(&meet)),
            "{name}: disjoint pair {i}"
        );
        // Told to stop at once, a search may give up, never a wrong answer.
        let told = e.disjoint(a, b, &|| true).unwrap();
        assert!(
            told.is_none() || told == Some(e.is_false(&meet)),
            "{name}: stopped {i}"
        );
    }

    Outcome {
        node_counts: [&f, &g, &ex, &fa, &ae, &rn, &sh, &rs]
            .iter()
            .map(|b| e.node_count(b))
            .collect(),
        imported: table,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_formulas_agree_with_brute_force_and_across_engines(c in case()) {
        let (bio, oxi) = engines();
        let ob = check_engine(bio, &c);
        let oo = check_engine(oxi, &c);
        prop_assert_eq!(&ob.node_counts, &oo.node_counts);

        // Export from one engine, import into the other.
        let fb = build(bio, &c.f);
        let fo = build(oxi, &c.f);
        prop_assert_eq!(oxi.import(&ob.imported).unwrap(), fo.clone());
        prop_assert_eq!(bio.import(&oo.imported).unwrap(), fb.clone());
        // Exports of the same function describe the same graph.
        prop_assert_eq!(ob.imported.nodes.len(), oo.imported.nodes.len());
        // Through JSON, as written to a file.
        let json = serde_json::to_string(&oo.imported).unwrap();
        let back: BddNodes = serde_json::from_str(&json).unwrap();
        prop_assert_eq!(bio.import(&back).unwrap(), fb);
    }
}

// ---------------------------------------------------------------------------------------
// Targeted tests, run on both backends.

/// Runs a generic check on a fresh engine of each backend.
macro_rules! on_both {
    ($num_vars:expr, $cfg:expr, |$e:ident| $body:block) => {{
        fn check<E: BddEngine>($e: &E) $body
        check(&BiodivineEngine::new($num_vars, &$cfg).unwrap());
        check(&OxiddEngine::new($num_vars, &$cfg).unwrap());
    }};
}

#[test]
fn counts_beyond_2_pow_64() {
    on_both!(100, EngineConfig::small(), |e| {
        let two = BigUint::from(2u32);
        assert_eq!(e.sat_count(&e.constant(true), 100), two.pow(100));
        assert_eq!(e.sat_count(&e.constant(false), 100), BigUint::default());
        // x0 | x1 over 100 variables: 3 * 2^98.
        let f = e.or(&e.var(0), &e.var(1)).unwrap();
        assert_eq!(e.sat_count(&f, 100), BigUint::from(3u32) * two.pow(98));
        // Parity of all 100 variables: 2^99.
        let mut p = e.constant(false);
        for v in 0..100 {
            p = e.xor(&p, &e.var(v)).unwrap();
        }
        assert_eq!(e.sat_count(&p, 100), two.pow(99));
        assert_eq!(e.node_count(&p), 2 * 100 + 1);
        // Counting over the even variables only (support of an even-variable parity).
        let mut q = e.constant(true);
        for v in (0..100).step_by(2) {
            q = e.xor(&q, &e.var(v)).unwrap();
        }
        let evens: VarSet = (0..100).step_by(2).collect();
        assert_eq!(e.sat_count_over(&q, &evens), two.pow(49));
        assert_eq!(e.sat_count(&q, 100), two.pow(99));
        // At most one of 100 variables true, above 2^64 when counted over 200 variables.
        let mut none = e.constant(true);
        let mut one = e.constant(false);
        for v in (0..100).rev() {
            let x = e.var(v);
            one = e.ite(&x, &none, &one).unwrap();
            none = e.and_not(&none, &x).unwrap();
        }
        let at_most_one = e.or(&none, &one).unwrap();
        assert_eq!(e.sat_count(&at_most_one, 100), BigUint::from(101u32));
        assert_eq!(e.sat_count(&at_most_one, 200), BigUint::from(101u32) << 100);
    });
}

#[test]
#[should_panic(expected = "depends on variable")]
fn sat_count_rejects_support_beyond_n_vars_biodivine() {
    let e = BiodivineEngine::new(8, &EngineConfig::small()).unwrap();
    e.sat_count(&e.var(5), 5);
}

#[test]
#[should_panic(expected = "depends on variable")]
fn sat_count_rejects_support_beyond_n_vars_oxidd() {
    let e = OxiddEngine::new(8, &EngineConfig::small()).unwrap();
    e.sat_count(&e.var(5), 5);
}

#[test]
#[should_panic(expected = "not counted")]
fn sat_count_over_rejects_uncounted_support() {
    let e = OxiddEngine::new(8, &EngineConfig::small()).unwrap();
    let f = e.and(&e.var(1), &e.var(2)).unwrap();
    e.sat_count_over(&f, &VarSet::from(vec![1]));
}

#[test]
fn interleaved_image_step() {
    // States over 6 bits x_i at 2i, next x_i' at 2i+1; transition: x' = x + 1 (mod 64).
    on_both!(12, EngineConfig::small(), |e| {
        let bits = 6u32;
        let cur = |i: u32| 2 * i;
        let nxt = |i: u32| 2 * i + 1;
        let mut trans = e.constant(true);
        let mut carry = e.constant(true);
        for i in 0..bits {
            let x = e.var(cur(i));
            let sum = e.xor(&x, &carry).unwrap();
            let eq = e.iff(&e.var(nxt(i)), &sum).unwrap();
            trans = e.and(&trans, &eq).unwrap();
            carry = e.and(&carry, &x).unwrap();
        }
        let state = |k: u32, next: bool| {
            let lits: Vec<(u32, bool)> = (0..bits)
                .map(|i| (if next { nxt(i) } else { cur(i) }, (k >> i) & 1 == 1))
                .collect();
            e.cube(&lits).unwrap()
        };
        let current: VarSet = (0..bits).map(cur).collect();
        let to_current: Vec<(u32, u32)> = (0..bits).map(|i| (nxt(i), cur(i))).collect();
        let mut reach = state(0, false);
        let mut frontier = reach.clone();
        let mut steps = 0;
        while !e.is_false(&frontier) {
            let img = e.and_exists(&frontier, &trans, &current).unwrap();
            let img = e.rename(&img, &to_current).unwrap();
            frontier = e.and_not(&img, &reach).unwrap();
            reach = e.or(&reach, &frontier).unwrap();
            steps += 1;
        }
        assert_eq!(steps, 64);
        assert!(e.is_true(&reach), "all 64 states are reachable");
        assert_eq!(e.sat_count_over(&reach, &current), BigUint::from(64u32));
        // Image of {5} is {6}, expressed over next-state variables before the rename.
        let img = e.and_exists(&state(5, false), &trans, &current).unwrap();
        assert_eq!(img, state(6, true));
        assert_eq!(e.rename(&img, &to_current).unwrap(), state(6, false));
    });
}

#[test]
fn literals_cubes_and_orientation() {
    on_both!(4, EngineConfig::small(), |e| {
        let (a, b) = (e.var(0), e.var(1));
        // and_not is f & !g, not !f & g.
        let an = e.and_not(&a, &b).unwrap();
        assert!(e.eval(&an, &[true, false]));
        assert!(!e.eval(&an, &[false, true]));
        assert_eq!(e.literal(2, false), e.nvar(2));
        assert_eq!(e.not(&e.var(2)).unwrap(), e.nvar(2));
        assert!(e.is_false(&e.cube(&[(1, true), (1, false)]).unwrap()));
        assert!(e.is_true(&e.cube(&[]).unwrap()));
        assert_eq!(e.node_count(&e.constant(true)), 1);
        assert_eq!(e.node_count(&e.constant(false)), 1);
        assert_eq!(e.node_count(&a), 3);
        // Same shape, different variables: not equal (and equal functions are).
        let x01 = e.and(&e.var(0), &e.var(1)).unwrap();
        let x02 = e.and(&e.var(0), &e.var(2)).unwrap();
        assert_ne!(x01, x02);
        let x012 = e.and(&x01, &e.var(2)).unwrap();
        assert_eq!(e.restrict(&x012, &[(2, true)]).unwrap(), x01);
        assert_eq!(e.exists(&x012, &VarSet::from(vec![1])).unwrap(), x02);
        assert_eq!(e.pick_one(&e.constant(false)), None);
        assert_eq!(e.pick_one(&e.constant(true)), Some(vec![]));
        // Swap rename (not order-preserving).
        let f = e.and_not(&a, &b).unwrap();
        let swapped = e.rename(&f, &[(0, 1), (1, 0)]).unwrap();
        assert_eq!(swapped, e.and_not(&b, &a).unwrap());
        // Restrict with a repeated variable: the last value wins.
        let r = e.restrict(&a, &[(0, false), (0, true)]).unwrap();
        assert!(e.is_true(&r));
        let stats = e.stats();
        assert_eq!(stats.num_vars, 4);
        assert_eq!(stats.backend, E::BACKEND);
        e.gc();
    });
}

#[test]
fn import_rejects_malformed_tables_and_accepts_unordered_ones() {
    on_both!(4, EngineConfig::small(), |e| {
        let forward = BddNodes {
            num_vars: 4,
            nodes: vec![(0, 0, 3), (1, 0, 1)],
            root: 2,
        };
        assert!(matches!(e.import(&forward), Err(BddError::InvalidNodes(_))));
        let bad_var = BddNodes {
            num_vars: 9,
            nodes: vec![(7, 0, 1)],
            root: 2,
        };
        assert!(matches!(e.import(&bad_var), Err(BddError::InvalidNodes(_))));
        let bad_root = BddNodes {
            num_vars: 4,
            nodes: vec![],
            root: 5,
        };
        assert!(e.import(&bad_root).is_err());
        // Unordered, unreduced: node 2 tests x3, node 3 tests x1 above it, node 4 is
        // redundant. Meaning: x1 ? x3 : false = x1 & x3.
        let unordered = BddNodes {
            num_vars: 4,
            nodes: vec![(3, 0, 1), (1, 0, 2), (2, 3, 3), (0, 4, 4)],
            root: 5,
        };
        let want = e.and(&e.var(1), &e.var(3)).unwrap();
        assert_eq!(e.import(&unordered).unwrap(), want);
        // Ordered parent above unordered child: x3 ? x0 : false (x0 under x3).
        let inverted = BddNodes {
            num_vars: 4,
            nodes: vec![(0, 0, 1), (3, 0, 2)],
            root: 3,
        };
        let want = e.and(&e.var(0), &e.var(3)).unwrap();
        assert_eq!(e.import(&inverted).unwrap(), want);
        assert!(e.is_true(&e.import(&BddNodes::constant(4, true)).unwrap()));
        assert!(e.is_false(&e.import(&BddNodes::constant(4, false)).unwrap()));
    });
}

#[test]
fn oxidd_reports_out_of_memory() {
    let cfg = EngineConfig {
        threads: 1,
        node_capacity: 2048,
        cache_capacity: 1 << 10,
    };
    let e = OxiddEngine::new(40, &cfg).unwrap();
    // x_i <-> x_{i+20} for all i with the order x0..x39 needs about 2^21 nodes.
    let mut f = Ok(e.constant(true));
    for i in 0..20 {
        f = f.and_then(|acc| {
            let eq = e.iff(&e.var(i), &e.var(i + 20))?;
            e.and(&acc, &eq)
        });
        if f.is_err() {
            break;
        }
    }
    match f {
        Err(BddError::OutOfMemory {
            backend: Backend::Oxidd,
            node_capacity,
        }) => {
            assert_eq!(node_capacity, 2048)
        }
        other => panic!("expected OutOfMemory, got {other:?}"),
    }
    // FIXME: after an out-of-memory error, oxidd's collection does not always free enough
    // nodes for a new operation in the same 2048-node manager (about 1 run in 20 when the
    // tests run in parallel), so only the statistics are checked here.
    drop(f);
    e.gc();
    assert!(e.stats().live_nodes.is_some());
}

#[test]
fn too_many_variables_for_biodivine() {
    let err = BiodivineEngine::new(70_000, &EngineConfig::small()).unwrap_err();
    assert!(matches!(err, BddError::TooManyVariables { max: 65535, .. }));
    assert!(err.to_string().contains("65535"));
}

/// Counts the solutions of the n-queens problem, on whichever engine runs it.
struct CountQueens(u32);

impl EngineJob<String> for CountQueens {
    fn run<E: BddEngine>(self, e: E) -> String {
        let n = self.0;
        e.sat_count(&queens(&e, n), n * n).to_string()
    }
}

#[test]
fn runtime_dispatch_runs_generic_jobs() {
    for backend in Backend::ALL {
        let count = backend
            .run(36, &EngineConfig::small(), CountQueens(6))
            .unwrap();
        assert_eq!(count, "4", "{backend}");
    }
    // oxidd with two worker threads (parallel apply).
    let two_threads = EngineConfig {
        threads: 2,
        ..EngineConfig::small()
    };
    let five = symgame_bdd::run_with(Backend::Oxidd, 25, &two_threads, CountQueens(5));
    assert_eq!(five.unwrap(), "10");
}

/// `BiodivineEngine::with_budget`: a binary operation whose result would pass the node budget
/// fails with `BddError::Budget` (the same operation without the budget succeeds, and is larger),
/// and no operation starts once the deadline has passed.
#[test]
fn a_budgeted_biodivine_engine_gives_up() {
    use std::time::{Duration, Instant};
    let n = 24;
    let free = BiodivineEngine::new(n, &EngineConfig::small()).unwrap();
    // x0 <-> x12, x1 <-> x13, ...: exponential in this order.
    let build = |e: &BiodivineEngine| -> Result<symgame_bdd::BiodivineBdd, BddError> {
        let mut acc = e.constant(true);
        for i in 0..n / 2 {
            acc = e.and(&acc, &e.iff(&e.var(i), &e.var(i + n / 2))?)?;
        }
        Ok(acc)
    };
    let big = build(&free).unwrap();
    assert!(free.node_count(&big) > 1000);
    let small = free.clone().with_budget(None, Some(1000));
    assert!(matches!(build(&small), Err(BddError::Budget(_))));
    let late = free
        .clone()
        .with_budget(Some(Instant::now() - Duration::from_millis(1)), None);
    assert!(matches!(
        late.and(&late.var(0), &late.var(1)),
        Err(BddError::Budget(_))
    ));
    assert!(matches!(
        late.exists(&big, &VarSet::from(vec![0])),
        Err(BddError::Budget(_))
    ));
}

/// `x0 <-> x(n/2), x1 <-> x(n/2+1), ...` over `n` variables: about `2^(n/2)` nodes in this
/// order.
fn halves_equal(e: &BiodivineEngine, n: u32) -> symgame_bdd::BiodivineBdd {
    let mut acc = e.constant(true);
    for i in 0..n / 2 {
        acc = e
            .and(&acc, &e.iff(&e.var(i), &e.var(i + n / 2)).unwrap())
            .unwrap();
    }
    acc
}

/// `BiodivineEngine::with_budget`: an operation still running when the deadline passes stops
/// inside with `BddError::Budget`, binary or quantifying; the engine and its BDDs are sound
/// afterwards, and without a deadline the same operations finish.
#[test]
fn a_budgeted_biodivine_operation_stops_inside_at_the_deadline() {
    use std::time::{Duration, Instant};
    let n = 36;
    let free = BiodivineEngine::new(n, &EngineConfig::small()).unwrap();
    // About 2^19 nodes, one step of an operation on it per node at least.
    let big = halves_equal(&free, n);
    assert!(free.node_count(&big) > 500_000);
    let upper: VarSet = (n / 2..n).collect::<Vec<_>>().into();
    // No clock reading before the first 16,384 steps: a deadline a millisecond away has
    // passed well before the half million steps of either operation.
    let soon = || {
        free.clone()
            .with_budget(Some(Instant::now() + Duration::from_millis(1)), None)
    };
    let shifted = free.or(&big, &free.var(0)).unwrap();
    let binary = soon().xor(&big, &shifted);
    assert!(matches!(binary, Err(BddError::Budget(_))), "{binary:?}");
    let quantified = soon().exists(&big, &upper);
    assert!(
        matches!(quantified, Err(BddError::Budget(_))),
        "{quantified:?}"
    );
    let related = soon().and_exists(&big, &shifted, &upper);
    assert!(matches!(related, Err(BddError::Budget(_))), "{related:?}");
    // Nothing was harmed: the same operations without a deadline.
    assert!(free.is_true(&free.exists(&big, &upper).unwrap()));
    let diff = free.xor(&big, &shifted).unwrap();
    assert_eq!(diff, free.and_not(&shifted, &big).unwrap());
}

/// `BiodivineEngine::with_operation_time`: each operation gets its own time, counted from its
/// start: a long one stops inside with `BddError::Budget` naming the cap, a short one after it
/// still runs, and without the cap the long one finishes.
#[test]
fn a_biodivine_operation_past_its_own_time_stops_inside() {
    use std::time::Duration;
    let n = 36;
    let free = BiodivineEngine::new(n, &EngineConfig::small()).unwrap();
    let big = halves_equal(&free, n);
    let shifted = free.or(&big, &free.var(0)).unwrap();
    let capped = free
        .clone()
        .with_operation_time(Some(Duration::from_millis(1)));
    std::thread::sleep(Duration::from_millis(5));
    // The cap runs from each operation's start, not from the engine's making.
    let small = capped.and(&capped.var(0), &capped.var(1)).unwrap();
    assert_eq!(small, free.and(&free.var(0), &free.var(1)).unwrap());
    match capped.xor(&big, &shifted) {
        Err(BddError::Budget(why)) => assert!(why.contains("ran past"), "{why}"),
        other => panic!("{other:?}"),
    }
    let upper: VarSet = (n / 2..n).collect::<Vec<_>>().into();
    assert!(matches!(
        capped.exists(&big, &upper),
        Err(BddError::Budget(_))
    ));
    assert!(free.xor(&big, &shifted).is_ok());
}

/// The bounded size check stays exact when small checks follow a large one (the oxidd engine
/// keeps its visited sets between calls, a small and a large one): `x_i <-> y_i` for 16
/// pairs with every `x` above every `y` has over 2^16 nodes, a single pair 4.
#[test]
fn size_checks_after_a_large_walk_stay_exact() {
    on_both!(32, EngineConfig::small(), |e| {
        let mut eq = e.constant(true);
        for i in 0..16 {
            let pair = e.iff(&e.var(i), &e.var(16 + i)).unwrap();
            eq = e.and(&eq, &pair).unwrap();
        }
        let n = e.node_count(&eq);
        assert!(n > 1 << 16, "{n}");
        let one = e.iff(&e.var(3), &e.var(19)).unwrap();
        let m = e.node_count(&one);
        for _ in 0..3 {
            for cap in [n - 1, n, 1 << 20] {
                assert_eq!(e.node_count_exceeds(&eq, cap), n > cap, "{cap} of {n}");
            }
            for cap in [m - 1, m, 5_000, 1 << 20] {
                assert_eq!(e.node_count_exceeds(&one, cap), m > cap, "{cap} of {m}");
            }
            assert!(e.node_count_exceeds(&eq, 5_000));
        }
    });
}
