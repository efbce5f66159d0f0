//! Demand restriction (magic sets): evaluate a relation only for the argument values that the
//! rules using it can ask for.
//!
//! Bottom-up evaluation derives every atom of every relation, including atoms no rule ever
//! looks at: `direction-from` over all 51^4 coordinate pairs when the game only asks about the
//! 9 x 9 board, or a counting loop over every pair of start counts when it only starts from
//! `0 0`. Here each relation gets one *adornment*: the argument positions that every call binds
//! (following a sideways-information-passing order of each rule body). A relation with a bound
//! position is guarded by a *demand relation* `m_p` over those positions: every rule of `p` gets
//! `m_p(bound head args)` as an extra body literal, and every call `p(args)` in a rule body adds a
//! rule `m_p(bound args) <= guard, literals before the call`. The least model of the rewritten
//! rules contains exactly the atoms of the original least model that are demanded, and for each
//! demanded atom every rule instance whose body holds (the classic magic-set theorem, for
//! positive programs): the ground rules of demanded atoms are complete, and the cone of
//! `legal`, `next`, `goal` and `terminal` only reaches demanded atoms.
//!
//! Negation needs care. Static relations read under `not` (and everything they depend on) are
//! not restricted: the caller passes them as *complete*, and they are evaluated in full first,
//! so stratification is untouched. A dynamic relation read under `not` is ignored by the
//! relaxed fixpoint and only needs its tested atoms to be complete; it is evaluated in full
//! too, since a demand for each tested atom would repeat the caller's whole body join.

use crate::pattern::Pattern;
use crate::rule::{CRule, Item};
use std::collections::{HashMap, HashSet};
use symgame_gdl::Sym;

/// The rewritten program.
pub(crate) struct Demand {
    /// The rules of the demanded, restricted-or-full relations (guarded where restricted), and
    /// the rules of the demand relations.
    pub rules: Vec<CRule>,
    /// The demand relations, with their arity: they only steer evaluation and never take part
    /// in a ground rule.
    pub magic: Vec<(Sym, usize)>,
    /// The complete relations that some demanded rule reads (evaluated beforehand).
    pub complete_read: HashSet<Sym>,
}

/// A call of a relation in a rule body: the relation, whether under `not`, its arguments.
struct Call<'a> {
    pred: Sym,
    args: &'a [Pattern],
    /// Whether each argument is known when the call is made.
    bound: Vec<bool>,
    /// The body items (see [`Item`]) that run before the call, in order.
    before: Vec<Item>,
}

/// Whether pattern `p` has a constant or a known variable somewhere.
fn touches(p: &Pattern, bound: &[bool]) -> bool {
    match p {
        Pattern::Var(v) => bound[*v as usize],
        Pattern::Ground(_) => true,
        Pattern::Func(_, ps) => ps.iter().any(|q| touches(q, bound)),
    }
}

/// The body of `rule` in sideways-information-passing order when the head arguments marked in
/// `head_bound` are known, with each call of a relation and what is known at that point.
///
/// Order: constraints as soon as their variables are known; then positive literals, first the
/// joins split off by variable elimination, then literals with a known argument (complete
/// relations first), fewest unknown variables first, then complete relations with nothing
/// known, then the rest; ties in source order (the order the author wrote usually binds well). Negative literals are calls once all their
/// variables are known.
fn sips<'a>(
    rule: &'a CRule,
    head_bound: &[bool],
    complete: &dyn Fn(Sym) -> bool,
    split_off: &dyn Fn(Sym) -> bool,
) -> Vec<Call<'a>> {
    let mut bound = vec![false; rule.nvars];
    for (p, &b) in rule.head.iter().zip(head_bound) {
        if b {
            for v in CRule::vars_of(std::slice::from_ref(p)) {
                bound[v as usize] = true;
            }
        }
    }
    // variables known from the body (not only from the head)
    let mut body_bound = vec![false; rule.nvars];
    // A call whose arguments are all known is a membership test: arguments known only from
    // the head (typically the caller's outputs, asked for one value at a time) would multiply
    // the demand by their domain for little selectivity, so they are not passed on.
    let adornment = |args: &[Pattern], bound: &[bool], body_bound: &[bool]| -> Vec<bool> {
        let b: Vec<bool> = args.iter().map(|a| a.is_bound(bound)).collect();
        if b.iter().all(|&x| x) {
            args.iter().map(|a| a.is_bound(body_bound)).collect()
        } else {
            b
        }
    };
    let mut order: Vec<Item> = Vec::new();
    let mut calls = Vec::new();
    let mut pos_done = vec![false; rule.pos.len()];
    let mut neg_done = vec![false; rule.neg.len()];
    let mut dist_done = vec![false; rule.distinct.len()];
    let mut eq_done = vec![false; rule.equal.len()];
    loop {
        // constraints that can run now
        rule.bind_equalities(&mut eq_done, &mut bound, |j| {
            order.push(Item::Equal(j));
            for v in rule.item_vars(Item::Equal(j)) {
                body_bound[v as usize] = true;
            }
        });
        for (j, (a, b)) in rule.distinct.iter().enumerate() {
            if !dist_done[j] && a.is_bound(&bound) && b.is_bound(&bound) {
                dist_done[j] = true;
                order.push(Item::Distinct(j));
            }
        }
        for (j, (p, args)) in rule.neg.iter().enumerate() {
            if !neg_done[j] && args.iter().all(|a| a.is_bound(&bound)) {
                neg_done[j] = true;
                // read under `not`: evaluated in full (a demand for every tested atom would
                // repeat the whole body join in the demand rule)
                calls.push(Call {
                    pred: *p,
                    args,
                    bound: vec![false; args.len()],
                    before: order.clone(),
                });
                order.push(Item::Neg(j));
            }
        }
        let mut best: Option<(usize, (u8, usize, usize))> = None;
        for (i, (p, args)) in rule.pos.iter().enumerate() {
            if pos_done[i] {
                continue;
            }
            let unbound = {
                let mut vs = CRule::vars_of(args);
                vs.sort_unstable();
                vs.dedup();
                vs.iter().filter(|&&v| !bound[v as usize]).count()
            };
            let known = args.iter().filter(|a| a.is_bound(&bound)).count();
            let (class, rank) = if split_off(*p) {
                (0, unbound)
            } else if complete(*p) {
                // a complete relation is looked up by any known leaf, even inside a term
                let touched = args.is_empty() || args.iter().any(|a| touches(a, &bound));
                (if touched { 1 } else { 3 }, unbound)
            } else if known > 0 || args.is_empty() {
                (2, unbound)
            } else {
                (4, 0)
            };
            let score = (class, rank, i);
            if best.is_none_or(|(_, s)| score < s) {
                best = Some((i, score));
            }
        }
        let Some((i, _)) = best else { break };
        pos_done[i] = true;
        let (p, args) = &rule.pos[i];
        calls.push(Call {
            pred: *p,
            args,
            bound: adornment(args, &bound, &body_bound),
            before: order.clone(),
        });
        order.push(Item::Pos(i));
        for v in CRule::vars_of(args) {
            bound[v as usize] = true;
            body_bound[v as usize] = true;
        }
    }
    calls
}

/// Rewrites `rules` so that only demanded atoms are derived.
///
/// `complete(p)` says whether relation `p` is evaluated in full beforehand (or is `true` /
/// `does`); `split_off(p)` whether it is a join split off by variable elimination (independent
/// of the head, meant to be computed once and scanned first); `seeds` are the relations asked for in
/// full (`legal`, `next`, `goal`, `terminal`, ...). When not `enabled`, every demanded relation
/// is evaluated in full. Fresh relation symbols are taken from `next_sym`.
pub(crate) fn restrict(
    rules: &[CRule],
    complete: &dyn Fn(Sym) -> bool,
    split_off: &dyn Fn(Sym) -> bool,
    seeds: &[Sym],
    enabled: bool,
    next_sym: &mut u32,
) -> Demand {
    let mut rules_of: HashMap<Sym, Vec<usize>> = HashMap::new();
    for (i, r) in rules.iter().enumerate() {
        rules_of.entry(r.head_pred).or_default().push(i);
    }
    // A relation whose rules each scan one complete relation costs no more in full than that
    // scan: a demand for it would only add work.
    let scan: HashSet<Sym> = rules_of
        .iter()
        .filter(|(_, rs)| {
            rs.iter().all(|&i| {
                let r = &rules[i];
                r.pos.len() <= 1 && r.pos.iter().chain(&r.neg).all(|(q, _)| complete(*q))
            })
        })
        .map(|(&p, _)| p)
        .collect();
    let guardable = |p: Sym| !complete(p) && rules_of.contains_key(&p);
    // 1. One adornment per relation: the positions bound in every call, to a fixpoint.
    let mut adorn: HashMap<Sym, Vec<bool>> = HashMap::new();
    let mut work: Vec<Sym> = Vec::new();
    for &s in seeds {
        if guardable(s) && !adorn.contains_key(&s) {
            let arity = rules[rules_of[&s][0]].head.len();
            adorn.insert(s, vec![false; arity]);
            work.push(s);
        }
    }
    while let Some(p) = work.pop() {
        let a = adorn[&p].clone();
        for &ri in &rules_of[&p] {
            for mut c in sips(&rules[ri], &a, complete, split_off) {
                if !guardable(c.pred) {
                    continue;
                }
                if !enabled || scan.contains(&c.pred) {
                    c.bound.iter_mut().for_each(|b| *b = false);
                }
                match adorn.get_mut(&c.pred) {
                    None => {
                        adorn.insert(c.pred, c.bound);
                        work.push(c.pred);
                    }
                    Some(old) => {
                        let new: Vec<bool> =
                            old.iter().zip(&c.bound).map(|(x, y)| *x && *y).collect();
                        if new != *old {
                            *old = new;
                            work.push(c.pred);
                        }
                    }
                }
            }
        }
    }
    // 2. Demand relations for the adornments with a bound position.
    let mut preds: Vec<Sym> = adorn.keys().copied().collect();
    preds.sort();
    let mut magic_of: HashMap<Sym, Sym> = HashMap::new();
    let mut magic = Vec::new();
    for &p in &preds {
        let a = &adorn[&p];
        if a.iter().any(|&b| b) {
            let m = Sym(*next_sym);
            *next_sym += 1;
            magic_of.insert(p, m);
            magic.push((m, a.iter().filter(|&&b| b).count()));
        }
    }
    let pick = |args: &[Pattern], a: &[bool]| -> Vec<Pattern> {
        args.iter()
            .zip(a)
            .filter(|(_, &b)| b)
            .map(|(p, _)| p.clone())
            .collect()
    };
    // 3. Guarded rules and demand rules.
    let mut out = Vec::new();
    let mut complete_read = HashSet::new();
    for &p in &preds {
        let a = &adorn[&p];
        let mp = magic_of.get(&p).copied();
        for &ri in &rules_of[&p] {
            let r = &rules[ri];
            let guard = mp.map(|m| (m, pick(&r.head, a)));
            for (q, _) in r.pos.iter().chain(&r.neg) {
                if complete(*q) {
                    complete_read.insert(*q);
                }
            }
            for c in sips(r, a, complete, split_off) {
                let Some(&mq) = magic_of.get(&c.pred) else {
                    continue;
                };
                let head = pick(c.args, &adorn[&c.pred]);
                let (items, guarded) = connected(r, &guard, &head, &c.before);
                let mut m = r.with_items(mq, head, &items);
                if let Some(gl) = guard.as_ref().filter(|_| guarded) {
                    m.pos.insert(0, gl.clone());
                }
                out.push(m);
            }
            let mut g = r.clone();
            if let Some(gl) = guard {
                g.pos.insert(0, gl);
            }
            out.push(g);
        }
    }
    Demand {
        rules: out,
        magic,
        complete_read,
    }
}

/// The items of `before` linked to the variables of `head` through shared variables (the
/// others only filter by existence, and dropping them keeps the demand a superset), and
/// whether the guard is linked too.
fn connected(
    r: &CRule,
    guard: &Option<(Sym, Vec<Pattern>)>,
    head: &[Pattern],
    before: &[Item],
) -> (Vec<Item>, bool) {
    let mut live: HashSet<u32> = CRule::vars_of(head).into_iter().collect();
    let guard_vars: Vec<u32> = guard.as_ref().map_or(vec![], |(_, a)| CRule::vars_of(a));
    let mut keep = vec![false; before.len()];
    let mut keep_guard = false;
    loop {
        let mut changed = false;
        for (k, &it) in before.iter().enumerate() {
            if !keep[k] {
                let vs = r.item_vars(it);
                if vs.iter().any(|v| live.contains(v)) {
                    keep[k] = true;
                    live.extend(vs);
                    changed = true;
                }
            }
        }
        if !keep_guard && guard_vars.iter().any(|v| live.contains(v)) {
            keep_guard = true;
            live.extend(guard_vars.iter().copied());
            changed = true;
        }
        if !changed {
            break;
        }
    }
    let items = before
        .iter()
        .zip(&keep)
        .filter(|(_, &k)| k)
        .map(|(&it, _)| it)
        .collect();
    (items, keep_guard)
}
