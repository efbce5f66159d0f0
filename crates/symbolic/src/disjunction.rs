//! Disjunctions: a circuit literal split into its top-level disjuncts ([`disjuncts`]), the OR
//! of many BDDs as a balanced tree ([`or_all`]), the parts of a disjunction merged up to a size
//! ([`cluster_parts`]) and a set with every part of a disjunction removed ([`and_not_all`]). The
//! terminal condition is kept as such parts because it is exponential as one BDD. A leaf.

use symgame_bdd::{BddEngine, BddError, BddResult, Var};
use symgame_ground::{Circuit, Gate, Lit};

/// The disjuncts of `l`: flattens non-negated `or` gates and negated `and` gates of acyclic
/// blocks; constant-false disjuncts are dropped.
pub(crate) fn disjuncts(c: &Circuit, l: Lit, out: &mut Vec<Lit>) {
    if l == Lit::FALSE {
        return;
    }
    let s = l.signal();
    if s >= c.num_inputs {
        let g = (s - c.num_inputs) as usize;
        let acyclic = !c.block_of(g).is_some_and(|b| b.cyclic);
        match (&c.gates[g], l.is_negated()) {
            (Gate::Or(ls), false) if acyclic => {
                for &x in ls {
                    disjuncts(c, x, out);
                }
                return;
            }
            (Gate::And(ls), true) if acyclic => {
                for &x in ls {
                    disjuncts(c, !x, out);
                }
                return;
            }
            _ => {}
        }
    }
    out.push(l);
}

/// OR of many BDDs as a balanced tree.
pub(crate) fn or_all<E: BddEngine>(e: &E, v: Vec<E::Bdd>) -> BddResult<E::Bdd> {
    or_all_checked(e, v, &|| Ok(()))
}

/// [`or_all`] with `check` asked before each OR (a deadline failing with
/// [`symgame_bdd::BddError::Budget`], or a search's limits): the OR of thousands of relations
/// is as many operations.
pub(crate) fn or_all_checked<E: BddEngine, Er: From<BddError>>(
    e: &E,
    v: Vec<E::Bdd>,
    check: &dyn Fn() -> Result<(), Er>,
) -> Result<E::Bdd, Er> {
    let step = |a: &E::Bdd, b: &E::Bdd| -> Result<E::Bdd, Er> {
        check()?;
        Ok(e.or(a, b)?)
    };
    let done = reduce_balanced(v, step, |_| false)?;
    Ok(done.unwrap_or_else(|| e.constant(false)))
}

/// `op` over `v` as a balanced tree (pairs, then pairs of pairs), which costs far less than a
/// fold into one growing BDD; stops at the first result `decided` accepts (a constant that
/// absorbs the rest). `None` for an empty `v`.
pub(crate) fn reduce_balanced<B, F, D, Er>(
    mut v: Vec<B>,
    mut op: F,
    decided: D,
) -> Result<Option<B>, Er>
where
    F: FnMut(&B, &B) -> Result<B, Er>,
    D: Fn(&B) -> bool,
{
    while v.len() > 1 {
        let mut next = Vec::with_capacity(v.len().div_ceil(2));
        let mut it = v.into_iter();
        while let Some(a) = it.next() {
            let x = match it.next() {
                Some(b) => op(&a, &b)?,
                None => a,
            };
            if decided(&x) {
                return Ok(Some(x));
            }
            next.push(x);
        }
        v = next;
    }
    Ok(v.pop())
}

/// `s AND NOT (p_1 OR p_2 OR ...)`, removing one part at a time and stopping as soon as
/// nothing is left.
pub(crate) fn and_not_all<E: BddEngine>(e: &E, s: &E::Bdd, parts: &[E::Bdd]) -> BddResult<E::Bdd> {
    and_not_all_checked(e, s, parts, || Ok(()))
}

/// [`and_not_all`] calling `check` before each part (a search checks its limits there: a
/// game such as gomoku has hundreds of terminal parts).
pub(crate) fn and_not_all_checked<E: BddEngine, Er: From<BddError>>(
    e: &E,
    s: &E::Bdd,
    parts: &[E::Bdd],
    check: impl Fn() -> Result<(), Er>,
) -> Result<E::Bdd, Er> {
    let mut acc = s.clone();
    for p in parts {
        if e.is_false(&acc) {
            break;
        }
        check()?;
        acc = e.and_not(&acc, p)?;
    }
    Ok(acc)
}

/// Merges the parts of a disjunction, sorted by their deepest and then shallowest variable,
/// while a merged part stays within `max_nodes` nodes.
pub(crate) fn cluster_parts<E: BddEngine>(
    e: &E,
    mut parts: Vec<E::Bdd>,
    max_nodes: usize,
) -> BddResult<Vec<E::Bdd>> {
    if max_nodes == 0 || parts.len() < 2 {
        return Ok(parts);
    }
    let keys: Vec<(Option<Var>, Option<Var>)> = parts
        .iter()
        .map(|p| {
            let s = e.support(p);
            (s.last().copied(), s.first().copied())
        })
        .collect();
    let mut idx: Vec<usize> = (0..parts.len()).collect();
    idx.sort_by_key(|&i| keys[i]);
    let mut sorted: Vec<Option<E::Bdd>> = parts.drain(..).map(Some).collect();
    let mut out: Vec<E::Bdd> = Vec::new();
    for i in idx {
        let p = sorted[i].take().expect("each part once");
        // A part already past the bound is never merged: its OR would be as large at least
        // as often as not, and on two big parts the OR alone can take minutes.
        let small = |b: &E::Bdd| !e.node_count_exceeds(b, max_nodes);
        if let Some(last) = out.last_mut().filter(|l| small(l) && small(&p)) {
            let m = e.or(last, &p)?;
            if !e.node_count_exceeds(&m, max_nodes) {
                *last = m;
                continue;
            }
        }
        out.push(p);
    }
    Ok(out)
}

/// `(two, none)`: the states where at least two of `bs` are true; those where none is.
pub(crate) fn two_and_none<E: BddEngine>(e: &E, bs: &[E::Bdd]) -> BddResult<(E::Bdd, E::Bdd)> {
    two_and_none_within(e, bs, (None, None), &|| Ok(()))
}

/// [`two_and_none`] with `check` asked before each function's operations (see
/// [`or_all_checked`]), within the states of `within` (if given): both results are
/// conjoined with it, and so is every step towards them. Over all states "exactly one of
/// these" of many functions can be far larger than within a small layer (wargame03: the
/// location group's next values, within a layer of 4,926 states, ran past 16 M nodes).
/// With a cap, a step of more nodes fails with [`BddError::Budget`] (checked as often as
/// [`SizeWatch`] allows).
pub(crate) fn two_and_none_within<E: BddEngine>(
    e: &E,
    bs: &[E::Bdd],
    (within, cap): (Option<&E::Bdd>, Option<&SizeWatch>),
    check: &dyn Fn() -> BddResult<()>,
) -> BddResult<(E::Bdd, E::Bdd)> {
    let mut none = within.cloned().unwrap_or_else(|| e.constant(true));
    let mut one = e.constant(false);
    let mut two = e.constant(false);
    for b in bs {
        check()?;
        let cut;
        let b = match within {
            Some(w) => {
                cut = e.and(b, w)?;
                &cut
            }
            None => b,
        };
        two = e.or(&two, &e.and(&one, b)?)?;
        one = e.or(&e.and_not(&one, b)?, &e.and(&none, b)?)?;
        none = e.and_not(&none, b)?;
        if let Some(watch) = cap {
            if watch.over(e, &[&two, &one, &none]) {
                return Err(BddError::Budget(format!(
                    "a check of an assumed fluent group of more than {} nodes",
                    watch.cap
                )));
            }
        }
    }
    Ok((two, none))
}

/// A node cap on BDDs being built, checked no more often than its checks cost: counting a
/// large BDD's nodes after every step can cost more than the steps (mineClearingSmall's
/// groups of about a thousand fluents: three counts per fluent made its relations miss the
/// set-up deadline). The first check is made at once; each later one waits nine times as long
/// as the one before took, and at least [`SizeWatch::GAP`], so the checks cost at most about
/// a tenth of the time. A BDD that passes the cap keeps growing, so a later check finds it.
pub(crate) struct SizeWatch {
    pub(crate) cap: usize,
    /// When the next check is due, on the coarse clock: the compiler asks before every gate
    /// operation, and a precise clock read per ask was a tenth of blockerParallel's set-up
    /// (65,536 joint moves' relations).
    next: std::cell::Cell<symgame_limits::CoarseDeadline>,
}

impl SizeWatch {
    /// The least time between two checks.
    const GAP: std::time::Duration = std::time::Duration::from_millis(1);

    pub(crate) fn new(cap: usize) -> Self {
        SizeWatch {
            cap,
            next: std::cell::Cell::new(symgame_limits::CoarseDeadline::new(
                std::time::Instant::now(),
            )),
        }
    }

    /// Whether one of `bdds` has more than the cap's nodes, if a check is due (`false` if not).
    pub(crate) fn over<E: BddEngine>(&self, e: &E, bdds: &[&E::Bdd]) -> bool {
        if !self.next.get().passed() {
            return false;
        }
        let now = std::time::Instant::now();
        let over = bdds.iter().any(|b| e.node_count_exceeds(b, self.cap));
        let next = std::time::Instant::now() + now.elapsed() * 9 + Self::GAP;
        self.next.set(symgame_limits::CoarseDeadline::new(next));
        over
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::Encoding;
    use crate::test_support::{encoded, small_engine};

    /// Within a set, "two of these" and "none of these" are those over all states conjoined
    /// with the set; a cap below their size fails with a budget.
    #[test]
    fn two_and_none_within_a_set_are_those_over_all_states_in_it() {
        let (_, enc) = encoded("tictactoe");
        let e = small_engine(&enc);
        let x = |b: u32| e.var(Encoding::current_bit_var(b));
        // Functions that overlap in many ways: x_k <-> x_(k+1), and a set of two literals.
        let bs: Vec<_> = (0..8).map(|k| e.iff(&x(k), &x(k + 1)).unwrap()).collect();
        let within = e.or(&x(0), &x(9)).unwrap();
        let (two, none) = two_and_none(&e, &bs).unwrap();
        let (two_w, none_w) =
            two_and_none_within(&e, &bs, (Some(&within), None), &|| Ok(())).unwrap();
        assert!(!e.is_false(&two_w) && !e.is_false(&none_w));
        assert_eq!(two_w, e.and(&two, &within).unwrap());
        assert_eq!(none_w, e.and(&none, &within).unwrap());
        let watch = SizeWatch::new(2);
        let capped = two_and_none_within(&e, &bs, (None, Some(&watch)), &|| Ok(()));
        assert!(matches!(capped, Err(BddError::Budget(_))), "{capped:?}");
    }
}
