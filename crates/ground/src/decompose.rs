//! Step 0 of grounding: rule bodies are decomposed so that joins cost sums instead of
//! products. Independent groups of local variables are split off, literals with variables
//! used nowhere else are projected, variable elimination joins a group of literals once when
//! it does not depend on the rest of the body, and long bodies are cut where a variable stops
//! being needed. Every cut-off part becomes an auxiliary relation with a fresh symbol.

use crate::chain_order::{Joins, VarSet};
use crate::pattern::Pattern;
use crate::rule::{CRule, Item};
use crate::terms::TermStore;
use std::collections::{HashMap, HashSet};
use symgame_gdl::{CheckedDescription, Sym};

/// The compiled, decomposed rules of a description.
pub(crate) struct Program {
    pub rules: Vec<CRule>,
    /// The stratum of every relation; an auxiliary relation has that of the relation it was
    /// cut from.
    pub stratum: HashMap<Sym, usize>,
    /// The relations split off by variable elimination.
    pub buckets: HashSet<Sym>,
}

impl Program {
    /// Compiles and decomposes the rules of `desc`.
    pub fn new(desc: &CheckedDescription, store: &mut TermStore) -> Program {
        let compiled: Vec<CRule> = desc
            .rules
            .iter()
            .enumerate()
            .map(|(i, r)| CRule::compile(r, i, store))
            .collect();
        let symbols = desc.description.symbols.len() as u32;
        let (rules, aux_preds, buckets) = decompose(compiled, symbols);
        let mut stratum = desc.stratum.clone();
        for r in &rules {
            if let Some(&(_, orig)) = aux_preds.iter().find(|(p, _)| *p == r.head_pred) {
                let s = stratum.get(&orig).copied().unwrap_or(0);
                stratum.insert(r.head_pred, s);
            }
        }
        Program {
            rules,
            stratum,
            buckets,
        }
    }

    /// The first symbol number above every relation of the description and of the rules.
    pub fn next_sym(&self, desc: &CheckedDescription) -> u32 {
        self.rules
            .iter()
            .map(|r| r.head_pred.0 + 1)
            .max()
            .unwrap_or(0)
            .max(desc.description.symbols.len() as u32)
    }
}

/// A literal of a fresh auxiliary relation (symbol from `next`) over the variables `vars`,
/// ascending and each once.
fn aux_literal(mut vars: Vec<u32>, next: &mut u32) -> (Sym, Vec<Pattern>) {
    vars.sort_unstable();
    vars.dedup();
    let sym = Sym(*next);
    *next += 1;
    (sym, vars.into_iter().map(Pattern::Var).collect())
}

/// Splits rule bodies whose local variables (those not in the head) fall into several
/// independent groups: each group becomes an auxiliary relation over the head variables it
/// uses. Without this, a frame rule such as `next(cell x y m) <= true(cell x y m), does(a, ma),
/// does(b, mb), differs(x, y, ma), differs(x, y, mb)` grounds to the product of both roles'
/// moves instead of their sum. Returns the rules, for each auxiliary relation the head relation
/// of the rule it came from, and the relations split off by variable elimination.
fn decompose(rules: Vec<CRule>, first_sym: u32) -> (Vec<CRule>, Vec<(Sym, Sym)>, HashSet<Sym>) {
    let mut next = first_sym;
    let mut out = Vec::with_capacity(rules.len());
    let mut aux = Vec::new();
    let mut buckets = HashSet::new();
    for r in rules {
        let parts = split_rule(&r, &mut next).unwrap_or_else(|| vec![r.clone()]);
        for part in parts {
            let part = project_singletons(part, &mut next, &mut out, &mut aux, r.head_pred);
            let pieces = extract_buckets(part, &mut next);
            for piece in &pieces[..pieces.len() - 1] {
                buckets.insert(piece.head_pred);
            }
            for piece in pieces {
                for c in project_chain(&piece, &mut next) {
                    if c.head_pred != r.head_pred {
                        aux.push((c.head_pred, r.head_pred));
                    }
                    out.push(c);
                }
            }
        }
    }
    (out, aux, buckets)
}

/// Variable elimination: while some local variable `v` has a *bucket* (the body items that
/// mention it) that leaves out some variable of the rule and no head variable, and that
/// eliminates two variables or more, the bucket becomes an auxiliary relation over its
/// variables used outside it. `doesprime(m, move2(m1, m2)) <= true(loc m x
/// y), true(loc explorer ex1 ey1), does(explorer, move(em)), step(ex1, ey1, em, ex, ey), ...`
/// then joins the explorer's step once, `e(ex, ey)`, instead of once per mummy square. The
/// bucket with the fewest variables goes first. Returns the auxiliary rules, then the rest.
fn extract_buckets(mut r: CRule, next: &mut u32) -> Vec<CRule> {
    let mut out = Vec::new();
    if !r.equal.is_empty() {
        return vec![r];
    }
    loop {
        if r.pos.len() < 3 {
            break;
        }
        let items = items_with_vars(&r); // no `=` constraints here
        let head_vars: HashSet<u32> = CRule::vars_of(&r.head).into_iter().collect();
        let all_vars: HashSet<u32> = items.iter().flat_map(|(_, v)| v.iter().copied()).collect();
        // (width, interface size, variable)
        let mut best: Option<(usize, usize, u32)> = None;
        let mut locals: Vec<u32> = all_vars
            .iter()
            .copied()
            .filter(|v| !head_vars.contains(v))
            .collect();
        locals.sort_unstable();
        for &v in &locals {
            let bucket: Vec<usize> = (0..items.len())
                .filter(|&k| items[k].1.contains(&v))
                .collect();
            let npos = bucket
                .iter()
                .filter(|&&k| matches!(items[k].0, Item::Pos(_)))
                .count();
            if npos < 2 || npos == r.pos.len() {
                continue;
            }
            let pos_vars: HashSet<u32> = bucket
                .iter()
                .filter(|&&k| matches!(items[k].0, Item::Pos(_)))
                .flat_map(|&k| items[k].1.iter().copied())
                .collect();
            // constraints must be decidable inside the bucket
            if bucket
                .iter()
                .any(|&k| items[k].1.iter().any(|w| !pos_vars.contains(w)))
            {
                continue;
            }
            if pos_vars.len() == all_vars.len() {
                continue; // the bucket is the whole join: nothing to gain
            }
            if pos_vars.iter().any(|w| head_vars.contains(w)) {
                continue; // it would lose the bindings (and demand) the head passes to it
            }
            let interface = pos_vars
                .iter()
                .filter(|w| {
                    head_vars.contains(w)
                        || (0..items.len()).any(|k| !bucket.contains(&k) && items[k].1.contains(w))
                })
                .count();
            if pos_vars.len() - interface < 2 {
                continue; // eliminating one variable alone is left to the projection chain
            }
            let score = (pos_vars.len(), interface, v);
            if best.is_none_or(|b| score < b) {
                best = Some(score);
            }
        }
        let Some((_, _, v)) = best else { break };
        let bucket: Vec<usize> = (0..items.len())
            .filter(|&k| items[k].1.contains(&v))
            .collect();
        let in_bucket: Vec<Item> = bucket.iter().map(|&k| items[k].0).collect();
        let rest: Vec<Item> = (0..items.len())
            .filter(|k| !bucket.contains(k))
            .map(|k| items[k].0)
            .collect();
        let outside: HashSet<u32> = rest
            .iter()
            .flat_map(|&it| r.item_vars(it))
            .chain(head_vars.iter().copied())
            .collect();
        let iface: Vec<u32> = bucket
            .iter()
            .flat_map(|&k| items[k].1.iter().copied())
            .filter(|w| outside.contains(w))
            .collect();
        let (sym, args) = aux_literal(iface, next);
        out.push(r.with_items(sym, args.clone(), &in_bucket));
        let mut rest_rule = r.with_items(r.head_pred, r.head.clone(), &rest);
        rest_rule.pos.push((sym, args));
        r = rest_rule;
    }
    out.push(r);
    out
}

/// Replaces each positive literal that has variables used nowhere else in the rule by an
/// auxiliary relation over its other variables: `next(loc x y s) <= true(loc x y s),
/// does(p, play(x1, y1, x2, y2, x3, y3)), differs(x, y, x1, y1)` then grounds per source square
/// instead of per move.
fn project_singletons(
    mut r: CRule,
    next: &mut u32,
    out: &mut Vec<CRule>,
    aux: &mut Vec<(Sym, Sym)>,
    orig: Sym,
) -> CRule {
    if r.pos.len() < 2 {
        return r;
    }
    let mut count: HashMap<u32, usize> = HashMap::new();
    let mut add = |vs: Vec<u32>| {
        let mut vs = vs;
        vs.sort_unstable();
        vs.dedup();
        for v in vs {
            *count.entry(v).or_default() += 1;
        }
    };
    add(CRule::vars_of(&r.head));
    for it in r.items() {
        add(r.item_vars(it));
    }
    for k in 0..r.pos.len() {
        let mut vs = CRule::vars_of(&r.pos[k].1);
        vs.sort_unstable();
        vs.dedup();
        if !vs.iter().any(|v| count[v] == 1) {
            continue;
        }
        let keep: Vec<u32> = vs.iter().copied().filter(|v| count[v] > 1).collect();
        let (sym, args) = aux_literal(keep, next);
        let mut a = r.with_items(sym, args.clone(), &[Item::Pos(k)]);
        a.origin = r.origin;
        out.push(a);
        aux.push((sym, orig));
        r.pos[k] = (sym, args);
    }
    r
}

/// Cuts a rule body, in source order, after each prefix of two or more positive literals at
/// which some variable is no longer needed: the prefix becomes an auxiliary relation over the
/// variables still needed (a projection). `total <= g1(a), g2(b), sum(a,b,s), g3(c),
/// sum(s,c,t)` then grounds to |a|·|b| + |s|·|c| rules instead of |a|·|b|·|c|.
fn project_chain(r: &CRule, next: &mut u32) -> Vec<CRule> {
    if r.pos.len() < 3 {
        return vec![r.clone()];
    }
    let head_vars: HashSet<u32> = CRule::vars_of(&r.head).into_iter().collect();
    let vars_of_item = |it: Item| r.item_vars(it);
    let mut rest: Vec<Item> = (0..r.neg.len())
        .map(Item::Neg)
        .chain((0..r.distinct.len()).map(Item::Distinct))
        .chain((0..r.equal.len()).map(Item::Equal))
        .collect();
    let mut out = Vec::new();
    // the current prefix: its items, the auxiliary literal standing for the earlier prefix
    let mut prefix: Vec<Item> = Vec::new();
    let mut carried: Option<(Sym, Vec<Pattern>)> = None;
    let mut bound: HashSet<u32> = HashSet::new();
    let mut npos = 0;
    // Greedy elimination order: next the literal that kills the most variables for the fewest
    // new ones (ties in source order).
    let order: Vec<usize> = {
        let other_vars: Vec<u32> = rest.iter().flat_map(|&it| vars_of_item(it)).collect();
        let mut remaining: Vec<usize> = (0..r.pos.len()).collect();
        let mut seen: HashSet<u32> = HashSet::new();
        let mut order = Vec::new();
        while !remaining.is_empty() {
            let mut best: Option<(i64, usize)> = None;
            for (pos_in_rem, &k) in remaining.iter().enumerate() {
                let vk = vars_of_item(Item::Pos(k));
                let new = vk.iter().filter(|v| !seen.contains(v)).count() as i64;
                let mut after: HashSet<u32> = seen.clone();
                after.extend(vk.iter().copied());
                let dying = after
                    .iter()
                    .filter(|v| {
                        !head_vars.contains(v)
                            && !other_vars.contains(v)
                            && !remaining
                                .iter()
                                .any(|&j| j != k && vars_of_item(Item::Pos(j)).contains(v))
                    })
                    .count() as i64;
                let score = new - 2 * dying;
                if best.is_none_or(|(b, _)| score < b) {
                    best = Some((score, pos_in_rem));
                }
            }
            let (_, i) = best.expect("a literal remains");
            let k = remaining.remove(i);
            seen.extend(vars_of_item(Item::Pos(k)));
            order.push(k);
        }
        cheaper_order(r, &head_vars, &rest, order)
    };
    for (n, &k) in order.iter().enumerate() {
        prefix.push(Item::Pos(k));
        npos += 1;
        bound.extend(vars_of_item(Item::Pos(k)));
        // attach the constraints whose variables are all bound now
        let (now, later): (Vec<Item>, Vec<Item>) = rest.into_iter().partition(|&it| {
            !matches!(it, Item::Equal(_)) && vars_of_item(it).iter().all(|v| bound.contains(v))
        });
        prefix.extend(now);
        rest = later;
        if n + 1 == r.pos.len() || npos < 2 {
            continue;
        }
        let mut needed: HashSet<u32> = head_vars.clone();
        for it in order[n + 1..]
            .iter()
            .map(|&j| Item::Pos(j))
            .chain(rest.iter().copied())
        {
            needed.extend(vars_of_item(it));
        }
        let live: Vec<u32> = bound
            .iter()
            .copied()
            .filter(|v| needed.contains(v))
            .collect();
        if live.len() == bound.len() {
            continue;
        }
        let (sym, args) = aux_literal(live.clone(), next);
        let mut aux = r.with_items(sym, args.clone(), &prefix);
        if let Some(c) = carried.take() {
            aux.pos.insert(0, c);
        }
        out.push(aux);
        carried = Some((sym, args));
        prefix.clear();
        bound = live.into_iter().collect();
        npos = 1;
    }
    if out.is_empty() {
        return vec![r.clone()];
    }
    prefix.extend(rest);
    let mut last = r.with_items(r.head_pred, r.head.clone(), &prefix);
    if let Some(c) = carried {
        last.pos.insert(0, c);
    }
    out.push(last);
    out
}

/// The cheapest order of `r`'s positive literals under the join cost model of
/// [`chain_order`](crate::chain_order) if its widest join binds fewer variables than
/// the widest of `greedy`, else `greedy`. The model guesses every variable's number of values
/// and knows nothing of the values demand restriction passes down, so an order that is only
/// cheaper in total can be dearer in fact (`god`'s neighbour count, whose source order
/// follows the count from the 0 its callers pass: 12,958 ground rules, 136,433 in the
/// model's cheapest order); a narrower widest join is the gain that survives the guess
/// (`gt_attrition`: 2,840,793 ground rules and 1,426,680 gates before, 62,687 and 33,076).
fn cheaper_order(
    r: &CRule,
    head_vars: &HashSet<u32>,
    rest: &[Item],
    greedy: Vec<usize>,
) -> Vec<usize> {
    let bits = |vs: Vec<u32>| -> Option<VarSet> {
        vs.into_iter()
            .try_fold(0, |a: VarSet, v| (v < VarSet::BITS).then(|| a | 1 << v))
    };
    let joins = (|| {
        let pos = (0..r.pos.len())
            .map(|k| bits(r.item_vars(Item::Pos(k))))
            .collect::<Option<Vec<_>>>()?;
        let mut always = bits(head_vars.iter().copied().collect())?;
        let mut constraints = Vec::new();
        for &it in rest {
            let vs = bits(r.item_vars(it))?;
            match it {
                Item::Equal(_) => always |= vs,
                _ => constraints.push(vs),
            }
        }
        Some(Joins {
            pos,
            constraints,
            always,
        })
    })();
    let Some(joins) = joins else { return greedy };
    match joins.cheapest() {
        Some(best) if joins.max_width(&best) < joins.max_width(&greedy) => best,
        _ => greedy,
    }
}

fn split_rule(r: &CRule, next: &mut u32) -> Option<Vec<CRule>> {
    let head_vars: HashSet<u32> = CRule::vars_of(&r.head).into_iter().collect();
    let items = items_with_vars(r);
    // union-find over items sharing a local variable
    let mut parent: Vec<usize> = (0..items.len()).collect();
    fn find(p: &mut [usize], mut i: usize) -> usize {
        while p[i] != i {
            p[i] = p[p[i]];
            i = p[i];
        }
        i
    }
    let mut first: HashMap<u32, usize> = HashMap::new();
    for (i, (_, vs)) in items.iter().enumerate() {
        for v in vs.iter().filter(|v| !head_vars.contains(v)) {
            match first.get(v) {
                Some(&j) => {
                    let (a, b) = (find(&mut parent, i), find(&mut parent, j));
                    parent[a] = b;
                }
                None => {
                    first.insert(*v, i);
                }
            }
        }
    }
    let mut comps: Vec<Vec<usize>> = Vec::new();
    let mut comp_of_root: HashMap<usize, usize> = HashMap::new();
    let mut shared: Vec<usize> = Vec::new(); // items without local variables
    for (i, (_, vs)) in items.iter().enumerate() {
        if vs.iter().all(|v| head_vars.contains(v)) {
            shared.push(i);
            continue;
        }
        let root = find(&mut parent, i);
        let c = *comp_of_root.entry(root).or_insert_with(|| {
            comps.push(Vec::new());
            comps.len() - 1
        });
        comps[c].push(i);
    }
    if comps.len() < 2 {
        return None;
    }
    let mut out = Vec::new();
    let mut main_items: Vec<Item> = shared.iter().map(|&i| items[i].0).collect();
    let mut main_aux: Vec<(Sym, Vec<Pattern>)> = Vec::new();
    for comp in &comps {
        let hv: Vec<u32> = comp
            .iter()
            .flat_map(|&i| items[i].1.iter().copied())
            .filter(|v| head_vars.contains(v))
            .collect();
        let bound: HashSet<u32> = comp
            .iter()
            .filter(|&&i| matches!(items[i].0, Item::Pos(_)))
            .flat_map(|&i| items[i].1.iter().copied())
            .collect();
        let mut body: Vec<Item> = comp.iter().map(|&i| items[i].0).collect();
        for v in hv.iter().filter(|v| !bound.contains(v)) {
            // bind it with a positive literal of the shared part
            let binder = shared
                .iter()
                .find(|&&i| matches!(items[i].0, Item::Pos(_)) && items[i].1.contains(v))?;
            if !body.contains(&items[*binder].0) {
                body.push(items[*binder].0);
            }
        }
        let (sym, args) = aux_literal(hv, next);
        out.push(r.with_items(sym, args.clone(), &body));
        main_aux.push((sym, args));
    }
    main_items.sort(); // kinds in body order, each in source order
    let mut main = r.with_items(r.head_pred, r.head.clone(), &main_items);
    main.pos.extend(main_aux);
    out.push(main);
    Some(out)
}

/// The body items of `r` in order, each with its variables.
fn items_with_vars(r: &CRule) -> Vec<(Item, Vec<u32>)> {
    r.items().map(|it| (it, r.item_vars(it))).collect()
}
