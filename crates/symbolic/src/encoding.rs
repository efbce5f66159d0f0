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

use serde::{Deserialize, Serialize};
use symgame_bdd::{Var, VarSet};

use crate::options::{EncodingKind, Order};

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
///   are inductive invariants of the game, or, for [`Encoding::assumed`] groups, assumptions
///   the search checks before it trusts an image).
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
    /// Whether the groups are assumed (not proven): see [`Encoding::assumed`].
    #[serde(default)]
    assumed: bool,
}

impl Encoding {
    /// This encoding, read from a file, checked against a game of `num_fluents` fluents: its
    /// groups must partition the fluents and every derived field must be what the groups and
    /// their order give (a file that passed its checksums but was written wrongly or edited
    /// is refused, never trusted into a panic).
    pub fn checked(self, num_fluents: usize) -> Result<Encoding, String> {
        let mut seen = vec![false; num_fluents];
        for g in &self.groups {
            if g.fluents.is_empty() {
                return Err("an empty fluent group".to_string());
            }
            for &f in &g.fluents {
                match seen.get_mut(f) {
                    Some(s) if !*s => *s = true,
                    Some(_) => return Err(format!("fluent {f} in two groups")),
                    None => return Err(format!("fluent {f} of a game of {num_fluents}")),
                }
            }
        }
        if !seen.iter().all(|&s| s) {
            return Err("the groups do not cover every fluent".to_string());
        }
        if self.turn_group.len() != self.groups.len() {
            return Err("one turn flag per group expected".to_string());
        }
        let rebuilt = Encoding::lay_out(
            num_fluents,
            self.kind,
            self.order,
            self.groups.clone(),
            self.turn_group.clone(),
        );
        let rebuilt = if self.assumed {
            rebuilt.into_assumed()
        } else {
            rebuilt
        };
        if rebuilt != self {
            return Err("its derived fields do not follow from its groups".to_string());
        }
        Ok(rebuilt)
    }

    /// The layout of `groups`, already in variable order, over `num_fluents` fluents (a
    /// partition of them; panics otherwise); `turn_group[g]` says whether group `g` is a turn
    /// group. The constructors are [`Encoding::new`] and [`Encoding::from_groups`] (which
    /// choose the order) and [`Encoding::with_options`] (which proves the groups first).
    pub(crate) fn lay_out(
        num_fluents: usize,
        kind: EncodingKind,
        order: Order,
        groups: Vec<FluentGroup>,
        turn_group: Vec<bool>,
    ) -> Encoding {
        let n = num_fluents;
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
            assumed: false,
        }
    }

    /// Whether the groups are assumptions rather than proven invariants: candidates that
    /// random playouts did not break, taken when the mutex proof gave up
    /// ([`SymbolicOptions::assume_groups`](crate::SymbolicOptions::assume_groups)). A search on
    /// such an encoding must check, before it expands a set, that no legal joint move breaks a
    /// group there ([`SymbolicGame::assumption_broken`](crate::SymbolicGame::assumption_broken)).
    pub fn assumed(&self) -> bool {
        self.assumed
    }

    /// This encoding with its groups marked as assumed (see [`Encoding::assumed`]).
    pub fn into_assumed(mut self) -> Encoding {
        self.assumed = true;
        self
    }

    /// Whether the state with the true fluents `fluents` breaks a group: two of its fluents
    /// true, or none of an exactly-one group (such a state has no code in this encoding).
    pub fn breaks_groups(&self, fluents: impl IntoIterator<Item = usize>) -> bool {
        let mut count = vec![0u32; self.groups.len()];
        for f in fluents {
            count[self.group_of[f].0 as usize] += 1;
        }
        self.groups
            .iter()
            .zip(&count)
            .any(|(g, &c)| c > 1 || (g.exactly_one && c == 0))
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

    /// The current-state variables of the turn groups ([`Self::is_turn_group`]), ascending.
    pub fn turn_vars(&self) -> Vec<Var> {
        (0..self.fluent_groups().len())
            .filter(|&g| self.is_turn_group(g))
            .flat_map(|g| self.group_bits(g).map(Encoding::current_bit_var))
            .collect()
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

    /// The group of fluent `f` and its index in the group.
    pub(crate) fn group_of_fluent(&self, f: usize) -> (usize, usize) {
        let (g, k) = self.group_of[f];
        (g as usize, k as usize)
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
}
