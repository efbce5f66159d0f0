//! The Boolean encoding of states: fluents in groups, each group a binary number, current and
//! next variables interleaved.
//!
//! A state is a set of true fluents. The fluents are partitioned into [`FluentGroup`]s laid out
//! one after the other in the variable order; a group of `n` fluents of which at most one can
//! be true is one binary number of `ceil(log2(n + 1))` bits (0 = none of them, fluent `k` =
//! `k + 1`), or of `ceil(log2(n))` bits when exactly one is always true (fluent `k` = `k`). Each
//! bit `b` is a pair of BDD variables, current `2b` and next `2b + 1`. The plain encoding
//! ([`EncodingKind::Plain`]) puts every fluent in a group of its own (one bit, 1 = true); the
//! compact one ([`EncodingKind::Compact`]) uses the groups proven mutually exclusive by
//! [`crate::mutex`].

use std::cmp::Ordering;

use serde::{Deserialize, Serialize};
use symgame_bdd::{Var, VarSet};
use symgame_ground::{GroundGame, GroundTerm};

use crate::game::SymbolicOptions;

/// How fluents are placed in the variable order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Order {
    /// The fluents' order in the ground game (their index order); groups by their first fluent.
    Given,
    /// Fluents sorted by their ground term, comparing argument by argument, numbers
    /// numerically and before names (`(cell 2 10 x)` after `(cell 2 9 x)`). Fluents of the same
    /// relation with equal leading arguments end up next to each other, e.g. Connect Four cells
    /// column by column, each cell's colours together. In games of two or more roles, the
    /// groups that the legal condition of every move reads (whose turn it is, like
    /// `(control ?r)`) come first: they split every state set at the root, and a relation
    /// whose mover is not to move is discarded at the first variable. Deterministic.
    #[default]
    Heuristic,
    /// Groups that occur together in rules placed close: starting from [`Order::Heuristic`],
    /// the FORCE heuristic (Aloul, Markov and Sakallah, 2003) moves each group to the mean
    /// centre of the rules it occurs in (the supports of `next`, `legal`, `terminal` and `goal`
    /// conditions) while the total span of the rules shrinks; turn groups first as in
    /// [`Order::Heuristic`]. Deterministic.
    Rules,
}

/// Which fluents share a binary number.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EncodingKind {
    /// One bit per fluent.
    Plain,
    /// Proven mutex groups as binary numbers (see [`crate::mutex`]); other fluents one bit
    /// each.
    #[default]
    Compact,
}

/// A group of fluents encoded together as one binary number.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct FluentGroup {
    /// The fluents in code order.
    pub fluents: Vec<usize>,
    /// Whether exactly one of them is true in every reachable state (codes `0..n`); otherwise
    /// at most one is (code 0 = none, fluent `k` has code `k + 1`).
    pub exactly_one: bool,
}

impl FluentGroup {
    /// A group of one fluent (one bit: 1 = true).
    pub fn single(f: usize) -> Self {
        FluentGroup {
            fluents: vec![f],
            exactly_one: false,
        }
    }

    /// Number of bits: `ceil(log2(n + 1))`, or `ceil(log2(n))` when exactly one is true
    /// (at least one bit).
    pub fn bits(&self) -> u32 {
        let codes = self.fluents.len() + usize::from(!self.exactly_one);
        (usize::BITS - (codes.max(2) - 1).leading_zeros()).max(1)
    }

    /// The code of the `k`-th fluent.
    pub fn code(&self, k: usize) -> u32 {
        (k + usize::from(!self.exactly_one)) as u32
    }
}

/// The variable layout of a ground game's states.
///
/// Invariants:
/// * every fluent is in exactly one group; groups occupy consecutive bits, in the order of
///   [`Encoding::groups`]; a group's bits hold its code most significant bit first;
/// * bit `b` has its current variable at `2b` and its next variable at `2b + 1` (interleaved),
///   so renaming next to current variables (or back) keeps the relative order and is cheap;
/// * a state set is a BDD over the current variables only ([`Encoding::current_vars`]);
/// * the fluent `k` of a group is true iff the group's bits hold its code
///   ([`Encoding::fluent_literals`]); a code that belongs to no fluent reads as "none of the
///   group" and never occurs in a set computed from the initial state by images (the groups
///   are inductive invariants of the game).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Encoding {
    kind: EncodingKind,
    order: Order,
    groups: Vec<FluentGroup>,
    /// Per group: whether every legal condition reads it (whose turn it is).
    turn_group: Vec<bool>,
    /// Per group: its first bit.
    first_bit: Vec<u32>,
    /// Per fluent: (group, index in the group).
    group_of: Vec<(u32, u32)>,
    /// Position -> fluent (the groups' fluents one after the other).
    fluents: Vec<usize>,
    /// Fluent -> position.
    position: Vec<usize>,
    num_bits: u32,
    current: VarSet,
    next: VarSet,
}

/// One token of a flattened ground term.
fn flatten<'a>(t: &'a GroundTerm, out: &mut Vec<&'a str>) {
    match t {
        GroundTerm::Const(c) => out.push(c),
        GroundTerm::Func(f, args) => {
            out.push(f);
            for a in args {
                flatten(a, out);
            }
        }
    }
}

/// Numbers compare numerically and come before names; names compare as strings.
fn cmp_token(a: &str, b: &str) -> Ordering {
    match (a.parse::<i64>(), b.parse::<i64>()) {
        (Ok(x), Ok(y)) => x.cmp(&y).then_with(|| a.cmp(b)),
        (Ok(_), Err(_)) => Ordering::Less,
        (Err(_), Ok(_)) => Ordering::Greater,
        (Err(_), Err(_)) => a.cmp(b),
    }
}

fn cmp_terms(a: &GroundTerm, b: &GroundTerm) -> Ordering {
    let (mut ta, mut tb) = (Vec::new(), Vec::new());
    flatten(a, &mut ta);
    flatten(b, &mut tb);
    for (x, y) in ta.iter().zip(&tb) {
        let c = cmp_token(x, y);
        if c != Ordering::Equal {
            return c;
        }
    }
    ta.len().cmp(&tb.len()).then_with(|| a.cmp(b))
}

/// The fluents each rule reads: the supports of every `next`, `legal`, `terminal` and `goal`
/// condition in the circuit (`next` of `f` with `f` itself), as sorted fluent lists with at
/// least two members. `None` when tracing them would take more than `budget` steps.
pub(crate) fn rule_supports(game: &GroundGame, budget: usize) -> Option<Vec<Vec<usize>>> {
    let c = &game.circuit;
    let nf = game.fluents.len() as u32;
    let mut roots: Vec<(u32, Option<usize>)> = Vec::new();
    for (f, l) in game.next.iter().enumerate() {
        roots.push((l.signal(), Some(f)));
    }
    for l in game.legal.iter().flatten() {
        roots.push((l.signal(), None));
    }
    for (_, l) in game.goals.iter().flatten() {
        roots.push((l.signal(), None));
    }
    // The terminal condition by its top-level disjuncts: one rule each.
    let mut term = Vec::new();
    crate::game::disjuncts(c, game.terminal, &mut term);
    for l in term {
        roots.push((l.signal(), None));
    }
    let mut stamp = vec![u32::MAX; c.num_signals()];
    let mut steps = 0usize;
    let mut out: Vec<Vec<usize>> = Vec::new();
    for (k, &(root, own)) in roots.iter().enumerate() {
        let mut support: Vec<usize> = own.into_iter().collect();
        let mut stack = vec![root];
        while let Some(s) = stack.pop() {
            if stamp[s as usize] == k as u32 {
                continue;
            }
            stamp[s as usize] = k as u32;
            steps += 1;
            if steps > budget {
                return None;
            }
            if s >= 1 && s <= nf {
                support.push((s - 1) as usize);
            } else if s >= c.num_inputs {
                stack.extend(
                    c.gates[(s - c.num_inputs) as usize]
                        .inputs()
                        .iter()
                        .map(|l| l.signal()),
                );
            }
        }
        support.sort_unstable();
        support.dedup();
        if support.len() >= 2 {
            out.push(support);
        }
    }
    out.sort();
    out.dedup();
    Some(out)
}

/// The fluents each `legal` condition reads (one sorted list per move of each role).
/// `None` when tracing them would take more than `budget` steps.
pub(crate) fn legal_supports(game: &GroundGame, budget: usize) -> Option<Vec<Vec<usize>>> {
    let c = &game.circuit;
    let nf = game.fluents.len();
    let mut stamp = vec![u32::MAX; c.num_signals()];
    let mut steps = 0usize;
    let mut out = Vec::new();
    for (k, l) in game.legal.iter().flatten().enumerate() {
        let mut support = Vec::new();
        let mut stack = vec![l.signal()];
        while let Some(s) = stack.pop() {
            if stamp[s as usize] == k as u32 {
                continue;
            }
            stamp[s as usize] = k as u32;
            steps += 1;
            if steps > budget {
                return None;
            }
            if s >= 1 && s as usize <= nf {
                support.push(s as usize - 1);
            } else if s >= c.num_inputs {
                stack.extend(
                    c.gates[(s - c.num_inputs) as usize]
                        .inputs()
                        .iter()
                        .map(|l| l.signal()),
                );
            }
        }
        support.sort_unstable();
        out.push(support);
    }
    Some(out)
}

/// FORCE: reorders `order` (group indexes) so that the hyperedges `edges` (sets of group
/// indexes) span fewer positions. Each round moves every group to the mean centre of gravity
/// of its edges and keeps the new order if the total span shrank.
fn force_order(order: &mut Vec<usize>, edges: &[Vec<usize>], rounds: usize) {
    let n = order.len();
    let mut incident: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (k, e) in edges.iter().enumerate() {
        for &g in e {
            incident[g].push(k);
        }
    }
    let span = |pos: &[usize]| -> usize {
        edges
            .iter()
            .map(|e| {
                let (lo, hi) = e.iter().fold((usize::MAX, 0), |(lo, hi), &g| {
                    (lo.min(pos[g]), hi.max(pos[g]))
                });
                hi - lo
            })
            .sum()
    };
    let positions = |order: &[usize]| -> Vec<usize> {
        let mut pos = vec![0; n];
        for (p, &g) in order.iter().enumerate() {
            pos[g] = p;
        }
        pos
    };
    let mut pos = positions(order);
    let mut best = span(&pos);
    for _ in 0..rounds {
        let cog: Vec<f64> = edges
            .iter()
            .map(|e| e.iter().map(|&g| pos[g] as f64).sum::<f64>() / e.len() as f64)
            .collect();
        let target: Vec<f64> = (0..n)
            .map(|g| {
                if incident[g].is_empty() {
                    pos[g] as f64
                } else {
                    incident[g].iter().map(|&k| cog[k]).sum::<f64>() / incident[g].len() as f64
                }
            })
            .collect();
        let mut next = order.clone();
        next.sort_by(|&a, &b| {
            target[a]
                .total_cmp(&target[b])
                .then_with(|| pos[a].cmp(&pos[b]))
        });
        let next_pos = positions(&next);
        let s = span(&next_pos);
        if s >= best {
            break;
        }
        best = s;
        *order = next;
        pos = next_pos;
    }
}

impl Encoding {
    /// The plain encoding of `game`'s fluents (one bit each) in the given order.
    pub fn new(game: &GroundGame, order: Order) -> Encoding {
        let groups = (0..game.fluents.len()).map(FluentGroup::single).collect();
        Encoding::from_groups(game, EncodingKind::Plain, order, groups)
    }

    /// The encoding `opts` asks for: [`SymbolicOptions::encoding`] and [`SymbolicOptions::order`].
    /// The compact encoding first proves the mutex groups ([`crate::mutex::prove_groups`]).
    pub fn with_options(game: &GroundGame, opts: &SymbolicOptions) -> Encoding {
        match opts.encoding {
            EncodingKind::Plain => Encoding::new(game, opts.order),
            EncodingKind::Compact => {
                let mut budget = crate::mutex::MutexBudget::default();
                if let Some(d) = opts.setup_deadline {
                    let left = d.saturating_duration_since(std::time::Instant::now());
                    budget.time = budget.time.min(left);
                }
                Encoding::compact_within(game, opts.order, &budget)
            }
        }
    }

    /// The compact encoding: mutex groups proven by [`crate::mutex::prove_groups`], each one
    /// binary number; the other fluents one bit each.
    pub fn compact(game: &GroundGame, order: Order) -> Encoding {
        Encoding::compact_within(game, order, &crate::mutex::MutexBudget::default())
    }

    /// [`Self::compact`] with the mutex proof held to `budget` (past it, fewer groups).
    pub fn compact_within(
        game: &GroundGame,
        order: Order,
        budget: &crate::mutex::MutexBudget,
    ) -> Encoding {
        let groups = crate::mutex::prove_groups_within(game, budget).groups;
        Encoding::from_groups(game, EncodingKind::Compact, order, groups)
    }

    /// An encoding with the given groups (a partition of the fluents; panics otherwise),
    /// ordered by `order`. The caller vouches that each group is a valid invariant: at most
    /// (or exactly) one of its fluents true in every reachable state.
    pub fn from_groups(
        game: &GroundGame,
        kind: EncodingKind,
        order: Order,
        mut groups: Vec<FluentGroup>,
    ) -> Encoding {
        let n = game.fluents.len();
        let terms = &game.fluents;
        // Members of a group, then the groups.
        for g in &mut groups {
            match order {
                Order::Given => g.fluents.sort_unstable(),
                Order::Heuristic | Order::Rules => g
                    .fluents
                    .sort_by(|&a, &b| cmp_terms(&terms[a], &terms[b]).then_with(|| a.cmp(&b))),
            }
        }
        match order {
            Order::Given => groups.sort_by_key(|g| g.fluents[0]),
            Order::Heuristic | Order::Rules => groups.sort_by(|a, b| {
                cmp_terms(&terms[a.fluents[0]], &terms[b.fluents[0]])
                    .then_with(|| a.fluents[0].cmp(&b.fluents[0]))
            }),
        }
        if order == Order::Rules {
            if let Some(rules) = rule_supports(game, 50_000_000) {
                let mut group_of = vec![0; n];
                for (i, g) in groups.iter().enumerate() {
                    for &f in &g.fluents {
                        group_of[f] = i;
                    }
                }
                let mut edges: Vec<Vec<usize>> = rules
                    .iter()
                    .map(|r| {
                        let mut e: Vec<usize> = r.iter().map(|&f| group_of[f]).collect();
                        e.sort_unstable();
                        e.dedup();
                        e
                    })
                    .filter(|e| e.len() >= 2)
                    .collect();
                edges.sort();
                edges.dedup();
                let mut idx: Vec<usize> = (0..groups.len()).collect();
                force_order(&mut idx, &edges, 50);
                let mut old: Vec<Option<FluentGroup>> = groups.into_iter().map(Some).collect();
                groups = idx
                    .into_iter()
                    .map(|i| old[i].take().expect("a permutation"))
                    .collect();
            }
        }
        // A turn group: in a game of two or more roles, every legal condition reads one of
        // its fluents.
        let legal = (game.roles.len() >= 2)
            .then(|| legal_supports(game, 10_000_000))
            .flatten();
        let turn = |g: &FluentGroup| {
            legal.as_ref().is_some_and(|legal| {
                legal
                    .iter()
                    .all(|sup| g.fluents.iter().any(|f| sup.binary_search(f).is_ok()))
            })
        };
        if order != Order::Given {
            // Stable: turn groups first, the rest in their order.
            groups.sort_by_key(|g| !turn(g));
        }
        let turn_group: Vec<bool> = groups.iter().map(turn).collect();
        let mut seen = vec![false; n];
        let mut first_bit = Vec::with_capacity(groups.len());
        let mut group_of = vec![(u32::MAX, 0); n];
        let mut fluents = Vec::with_capacity(n);
        let mut bit = 0u32;
        for (gi, g) in groups.iter().enumerate() {
            assert!(!g.fluents.is_empty(), "empty fluent group");
            first_bit.push(bit);
            bit += g.bits();
            for (k, &f) in g.fluents.iter().enumerate() {
                assert!(
                    !std::mem::replace(&mut seen[f], true),
                    "fluent {f} in two groups"
                );
                group_of[f] = (gi as u32, k as u32);
                fluents.push(f);
            }
        }
        assert!(
            seen.iter().all(|&s| s),
            "the groups do not cover every fluent"
        );
        let mut position = vec![0; n];
        for (p, &f) in fluents.iter().enumerate() {
            position[f] = p;
        }
        Encoding {
            kind,
            order,
            groups,
            turn_group,
            first_bit,
            group_of,
            fluents,
            position,
            num_bits: bit,
            current: (0..bit).map(|b| 2 * b).collect(),
            next: (0..bit).map(|b| 2 * b + 1).collect(),
        }
    }

    /// Plain or compact.
    pub fn kind(&self) -> EncodingKind {
        self.kind
    }

    /// The order this encoding was built with.
    pub fn order(&self) -> Order {
        self.order
    }

    /// Number of fluents.
    pub fn num_fluents(&self) -> usize {
        self.fluents.len()
    }

    /// Number of state bits (one current and one next variable each).
    pub fn num_bits(&self) -> u32 {
        self.num_bits
    }

    /// Number of BDD variables (two per bit).
    pub fn num_vars(&self) -> u32 {
        2 * self.num_bits
    }

    /// The position of fluent `f` in the fluent order (groups one after the other).
    pub fn position(&self, f: usize) -> usize {
        self.position[f]
    }

    /// The fluent at position `p` of the fluent order.
    pub fn fluent_at(&self, p: usize) -> usize {
        self.fluents[p]
    }

    /// The groups of fluents that are encoded together, as fluent indexes, in variable order.
    /// Every fluent is in exactly one group; a search that abstracts states (pattern
    /// databases) keeps or drops whole groups. In the plain encoding every group is a single
    /// fluent.
    pub fn groups(&self) -> Vec<Vec<usize>> {
        self.groups.iter().map(|g| g.fluents.clone()).collect()
    }

    /// The groups with their kind (at most one / exactly one), in variable order.
    pub fn fluent_groups(&self) -> &[FluentGroup] {
        &self.groups
    }

    /// Whether group `g` says whose turn it is: the game has two or more roles and the legal
    /// condition of every move reads one of the group's fluents (like `(control ?r)`).
    pub fn is_turn_group(&self, g: usize) -> bool {
        self.turn_group[g]
    }

    /// The index (in [`Encoding::fluent_groups`]) of the group of fluent `f`.
    pub fn group_of(&self, f: usize) -> usize {
        self.group_of[f].0 as usize
    }

    /// The bits of group `g`, most significant first.
    pub fn group_bits(&self, g: usize) -> std::ops::Range<u32> {
        let b = self.first_bit[g];
        b..b + self.groups[g].bits()
    }

    /// The group that bit `b` belongs to.
    pub fn group_of_bit(&self, b: u32) -> usize {
        assert!(
            b < self.num_bits,
            "bit {b} out of range ({} bits)",
            self.num_bits
        );
        self.first_bit.partition_point(|&first| first <= b) - 1
    }

    /// The current-state variable of bit `b`.
    pub fn current_bit_var(b: u32) -> Var {
        2 * b
    }

    /// The next-state variable of bit `b`.
    pub fn next_bit_var(b: u32) -> Var {
        2 * b + 1
    }

    /// The literals over current variables that say "fluent `f` is true": its group's bits
    /// hold its code.
    pub fn fluent_literals(&self, f: usize) -> Vec<(Var, bool)> {
        let (g, k) = self.group_of[f];
        let group = &self.groups[g as usize];
        let code = group.code(k as usize);
        let bits = self.group_bits(g as usize);
        let width = bits.len() as u32;
        bits.enumerate()
            .map(|(i, b)| (2 * b, code >> (width - 1 - i as u32) & 1 == 1))
            .collect()
    }

    /// The full assignment of the current variables that encodes the state whose true fluents
    /// are `fluents`; `None` if that set breaks a group (two fluents of one group, or none of
    /// an exactly-one group), i.e. it is not a reachable state.
    pub fn encode(&self, fluents: &[usize]) -> Option<Vec<(Var, bool)>> {
        let mut chosen: Vec<Option<u32>> = vec![None; self.groups.len()];
        for &f in fluents {
            let (g, k) = self.group_of[f];
            match chosen[g as usize] {
                Some(other) if other != k => return None,
                _ => chosen[g as usize] = Some(k),
            }
        }
        let mut out = Vec::with_capacity(self.num_bits as usize);
        for (g, group) in self.groups.iter().enumerate() {
            let code = match chosen[g] {
                Some(k) => group.code(k as usize),
                None if group.exactly_one => return None,
                None => 0,
            };
            let bits = self.group_bits(g);
            let width = bits.len() as u32;
            for (i, b) in bits.enumerate() {
                out.push((2 * b, code >> (width - 1 - i as u32) & 1 == 1));
            }
        }
        Some(out)
    }

    /// The true fluents (ascending) of the state in `values`, an assignment indexed by
    /// variable (only current variables are read). A code of no fluent reads as none.
    pub fn decode(&self, values: &[bool]) -> Vec<usize> {
        let mut out = Vec::new();
        for (g, group) in self.groups.iter().enumerate() {
            let code = self
                .group_bits(g)
                .fold(0u32, |acc, b| acc << 1 | u32::from(values[2 * b as usize]));
            let k = code as usize;
            let k = if group.exactly_one {
                Some(k)
            } else {
                k.checked_sub(1)
            };
            if let Some(&f) = k.and_then(|k| group.fluents.get(k)) {
                out.push(f);
            }
        }
        out.sort_unstable();
        out
    }

    /// The current-state and next-state variables that encode the given fluents (all the
    /// variables of their groups), each set sorted.
    pub fn vars_of(&self, fluents: &[usize]) -> (VarSet, VarSet) {
        let mut cur = Vec::new();
        for &f in fluents {
            cur.extend(self.group_bits(self.group_of(f)).map(|b| 2 * b));
        }
        let cur: VarSet = cur.into();
        let next = cur.iter().map(|v| v + 1).collect();
        (cur, next)
    }

    /// All current-state variables (the even ones).
    pub fn current_vars(&self) -> &VarSet {
        &self.current
    }

    /// The state whose true fluents are `fluents` as an assignment of all `num_vars()`
    /// variables (next-state variables false): the form ranked databases look states up in.
    /// `None` if the fluents break a proven group (two fluents of an "at most one" group, or
    /// none of an "exactly one" group): no reachable state does.
    pub fn assignment(&self, fluents: impl IntoIterator<Item = usize>) -> Option<Vec<bool>> {
        let fluents: Vec<usize> = fluents.into_iter().collect();
        let mut a = vec![false; self.num_vars() as usize];
        for (v, val) in self.encode(&fluents)? {
            a[v as usize] = val;
        }
        Some(a)
    }

    /// The true fluents (ascending) of the state an assignment of the current-state
    /// variables encodes; the inverse of [`Self::assignment`]. Panics if `assignment` is
    /// shorter than `num_vars()`.
    pub fn fluents_of(&self, assignment: &[bool]) -> Vec<usize> {
        self.decode(assignment)
    }

    /// All next-state variables (the odd ones).
    pub fn next_vars(&self) -> &VarSet {
        &self.next
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numeric_tokens_compare_numerically() {
        let t = |s: &str| GroundTerm::parse(s).unwrap();
        assert_eq!(
            cmp_terms(&t("(cell 2 9 x)"), &t("(cell 2 10 x)")),
            Ordering::Less
        );
        assert_eq!(
            cmp_terms(&t("(cell 1 1 x)"), &t("(cell 1 a x)")),
            Ordering::Less
        );
        assert_eq!(
            cmp_terms(&t("(cell 1 1 o)"), &t("(cell 1 1 x)")),
            Ordering::Less
        );
        assert_eq!(
            cmp_terms(&t("(cell 1 1)"), &t("(cell 1 1 x)")),
            Ordering::Less
        );
    }

    #[test]
    fn group_widths() {
        let g = |n: usize, exactly_one: bool| FluentGroup {
            fluents: (0..n).collect(),
            exactly_one,
        };
        // at most one: ceil(log2(n + 1)); exactly one: ceil(log2(n)), at least 1.
        assert_eq!(g(1, false).bits(), 1);
        assert_eq!(g(2, false).bits(), 2);
        assert_eq!(g(3, false).bits(), 2);
        assert_eq!(g(4, false).bits(), 3);
        assert_eq!(g(2, true).bits(), 1);
        assert_eq!(g(3, true).bits(), 2);
        assert_eq!(g(4, true).bits(), 2);
        assert_eq!(g(5, true).bits(), 3);
        assert_eq!(g(9, true).bits(), 4);
        assert_eq!(g(40, false).bits(), 6);
    }

    #[test]
    fn force_shortens_spans() {
        // A chain 0-3-1-4-2 laid out as 0 1 2 3 4: FORCE pulls chain neighbours together.
        let edges = vec![vec![0, 3], vec![3, 1], vec![1, 4], vec![4, 2]];
        let mut order: Vec<usize> = (0..5).collect();
        force_order(&mut order, &edges, 20);
        let mut pos = [0; 5];
        for (p, &g) in order.iter().enumerate() {
            pos[g] = p;
        }
        let span: usize = edges.iter().map(|e| pos[e[0]].abs_diff(pos[e[1]])).sum();
        assert!(span < 2 + 2 + 3 + 2, "span {span}, order {order:?}");
    }
}
