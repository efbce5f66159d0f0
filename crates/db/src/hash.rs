//! BDDs as minimal perfect hash functions: `rank` and `unrank` over a state set.
//!
//! A state set is a BDD over some *counted* variables (e.g. the current-state variables
//! 0, 2, 4, ...). Level `i` is the `i`-th counted variable in increasing order; the sinks are at
//! level `n` (the number of counted variables). One pass over the node table stores the
//! sat-count of every node over the levels from its own down to `n`:
//! `sc(v) = 2^(l(low)-l(v)-1) sc(low) + 2^(l(high)-l(v)-1) sc(high)`, `sc(false) = 0`,
//! `sc(true) = 1`, and the set has `2^l(root) sc(root)` members. `rank(s)` is the number of
//! members lexicographically smaller than `s` (the first counted variable most significant,
//! false before true); it walks one path from the root, adding the counts of the low branches
//! it passes over and the binary value of skipped levels times the count below them
//! (ALGORITHMS.md §3). `unrank` inverts it with divisions by the same counts. Both are
//! O(number of counted variables).

use std::any::type_name;

use num_bigint::BigUint;
use symgame_bdd::{BddNodes, Var, VarSet};

use crate::count::Count;
use crate::error::{Error, ErrorKind, Result};

/// One node with its sat-count.
#[derive(Clone, Debug)]
struct Node<C> {
    /// Index of the node's variable among the counted variables (`n` for the sinks).
    level: u32,
    /// Reference of the low child (0 = false, 1 = true, `k >= 2` = node `k`).
    low: u32,
    /// Reference of the high child.
    high: u32,
    /// Members under the low edge: `2^(l(low)-level-1) * sc(low)`; what taking the high edge
    /// adds to the rank.
    low_weight: C,
}

/// A minimal perfect hash of a BDD state set: `rank` maps the members bijectively onto
/// `0..len`, in the lexicographic order of their assignments, and `unrank` inverts it.
///
/// `C` is the integer type of counts and ranks ([`Count`]): `u64` (the default, no
/// allocation), `u128` or [`BigUint`]. Construction fails with [`ErrorKind::TooLarge`] if a
/// count does not fit; [`AnyPerfectHash`] picks the narrowest type that fits.
///
/// States are assignments indexed by variable, as in `BddEngine::eval`: `state[v]` is the
/// value of variable `v`, variables beyond the slice are false, and variables that are not
/// counted are ignored.
#[derive(Clone, Debug)]
pub struct PerfectHash<C: Count = u64> {
    num_vars: u32,
    /// The counted variables in increasing order: level `i` is `vars[i]`.
    vars: Vec<Var>,
    /// Indexed by reference: 0 = false, 1 = true, `k >= 2` = `BddNodes::nodes[k - 2]`.
    nodes: Vec<Node<C>>,
    /// Per reference, the satisfying assignments of the levels from the node's own down to
    /// `n` (apart from the nodes: only needed where levels are skipped, so the walk's nodes
    /// stay small in the cache).
    counts: Vec<C>,
    root: u32,
    len: C,
}

fn malformed(message: String) -> Error {
    Error::new(ErrorKind::MalformedNodes { section: None }, message)
}

fn too_large<C>() -> Error {
    Error::new(
        ErrorKind::TooLarge,
        format!(
            "the set has more members than {} can count",
            type_name::<C>()
        ),
    )
}

impl<C: Count> PerfectHash<C> {
    /// Build the hash of the set `states` ranked over the variables `counted`: one pass over the
    /// node table computing every node's sat-count.
    ///
    /// Errors: [`ErrorKind::InvalidInput`] if a counted variable is `>= states.num_vars`;
    /// [`ErrorKind::MalformedNodes`] if the table fails [`BddNodes::validate`], tests a
    /// variable that is not counted, or has a child whose variable is not below its parent's
    /// (the table must be ordered, as every export is); [`ErrorKind::TooLarge`] if a count
    /// does not fit `C`.
    pub fn new(states: &BddNodes, counted: &VarSet) -> Result<Self> {
        let levels = level_table(states, counted)?;
        let mut nodes: Vec<Node<C>> = Vec::with_capacity(levels.len());
        let mut counts: Vec<C> = Vec::with_capacity(levels.len());
        for (k, &(level, low, high)) in levels.iter().enumerate() {
            let (count, low_weight) = if k < 2 {
                (if k == 0 { C::zero() } else { C::one() }, C::zero())
            } else {
                let (ll, hl) = (levels[low as usize].0, levels[high as usize].0);
                let low_weight = counts[low as usize]
                    .checked_shl(ll - level - 1)
                    .ok_or_else(too_large::<C>)?;
                let count = counts[high as usize]
                    .checked_shl(hl - level - 1)
                    .and_then(|h| h.checked_add(&low_weight))
                    .ok_or_else(too_large::<C>)?;
                (count, low_weight)
            };
            nodes.push(Node {
                level,
                low,
                high,
                low_weight,
            });
            counts.push(count);
        }
        let root_level = levels[states.root as usize].0;
        let len = counts[states.root as usize]
            .checked_shl(root_level)
            .ok_or_else(too_large::<C>)?;
        Ok(PerfectHash {
            num_vars: states.num_vars,
            vars: counted.as_slice().to_vec(),
            nodes,
            counts,
            root: states.root,
            len,
        })
    }

    /// Number of members.
    pub fn len(&self) -> &C {
        &self.len
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.root == 0
    }

    /// The counted variables, increasing (level `i` is the `i`-th).
    pub fn counted(&self) -> &[Var] {
        &self.vars
    }

    /// Number of variables of the node table (the length of assignments [`Self::unrank`]
    /// returns).
    pub fn num_vars(&self) -> u32 {
        self.num_vars
    }

    /// Number of inner nodes of the table (unreachable ones included).
    pub fn node_count(&self) -> usize {
        self.nodes.len() - 2
    }

    #[inline]
    fn value(&self, state: &[bool], level: u32) -> bool {
        let v = self.vars[level as usize] as usize;
        state.get(v).copied().unwrap_or(false)
    }

    /// The binary number of the levels `from..to` of `state`, the first most significant.
    #[inline]
    fn binary(&self, state: &[bool], from: u32, to: u32) -> C {
        let mut b = C::zero();
        for l in from..to {
            b.push_bit(self.value(state, l));
        }
        b
    }

    /// Whether `state` is a member.
    pub fn contains(&self, state: &[bool]) -> bool {
        let mut node = self.root;
        while node >= 2 {
            let nd = &self.nodes[node as usize];
            node = if self.value(state, nd.level) {
                nd.high
            } else {
                nd.low
            };
        }
        node == 1
    }

    /// The rank of `state` in `0..len` (the number of members lexicographically smaller),
    /// or `None` if it is not a member.
    pub fn rank(&self, state: &[bool]) -> Option<C> {
        let mut node = self.root;
        if node == 0 {
            return None;
        }
        let root = &self.nodes[node as usize];
        let mut rank = C::zero();
        if root.level > 0 {
            rank.add_mul(
                &self.binary(state, 0, root.level),
                &self.counts[node as usize],
            );
        }
        while node >= 2 {
            let nd = &self.nodes[node as usize];
            let child = if self.value(state, nd.level) {
                rank.add(&nd.low_weight);
                nd.high
            } else {
                nd.low
            };
            if child == 0 {
                return None;
            }
            let c = &self.nodes[child as usize];
            if c.level > nd.level + 1 {
                rank.add_mul(
                    &self.binary(state, nd.level + 1, c.level),
                    &self.counts[child as usize],
                );
            }
            node = child;
        }
        Some(rank)
    }

    /// Write the binary number `q` into the levels `from..to` of `state`.
    fn write_binary(&self, q: &C, from: u32, to: u32, state: &mut [bool]) {
        for l in from..to {
            state[self.vars[l as usize] as usize] = q.bit(to - 1 - l);
        }
    }

    /// The member of rank `rank` as an assignment of all `num_vars` variables (those not
    /// counted are false), or `None` if `rank >= len`.
    pub fn unrank(&self, rank: &C) -> Option<Vec<bool>> {
        let mut state = vec![false; self.num_vars as usize];
        self.unrank_into(rank, &mut state).then_some(state)
    }

    /// Set the counted variables of `state` to the member of rank `rank` (the others are left
    /// alone); `false` (and `state` unchanged) if `rank >= len`. Panics if `state` is shorter
    /// than the largest counted variable.
    pub fn unrank_into(&self, rank: &C, state: &mut [bool]) -> bool {
        if *rank >= self.len {
            return false;
        }
        let mut node = self.root;
        let root = &self.nodes[node as usize];
        let mut r = rank.clone();
        if root.level > 0 {
            let (q, rest) = r.div_rem(&self.counts[node as usize]);
            self.write_binary(&q, 0, root.level, state);
            r = rest;
        }
        while node >= 2 {
            let nd = &self.nodes[node as usize];
            let v = self.vars[nd.level as usize] as usize;
            let child = if r < nd.low_weight {
                state[v] = false;
                nd.low
            } else {
                r.sub(&nd.low_weight);
                state[v] = true;
                nd.high
            };
            let c = &self.nodes[child as usize];
            if c.level > nd.level + 1 {
                let (q, rest) = r.div_rem(&self.counts[child as usize]);
                self.write_binary(&q, nd.level + 1, c.level, state);
                r = rest;
            }
            node = child;
        }
        debug_assert!(node == 1 && r == C::zero());
        true
    }

    /// Call `f` on every member in rank order (as an assignment of all `num_vars` variables,
    /// those not counted false).
    pub fn for_each_member(&self, mut f: impl FnMut(&[bool])) {
        let mut state = vec![false; self.num_vars as usize];
        self.walk(0, self.root, &mut state, &mut f);
    }

    fn walk(&self, level: u32, node: u32, state: &mut [bool], f: &mut impl FnMut(&[bool])) {
        if node == 0 {
            return;
        }
        let nd = &self.nodes[node as usize];
        if level == self.vars.len() as u32 {
            f(state);
            return;
        }
        let v = self.vars[level as usize] as usize;
        let (low, high) = if level < nd.level {
            (node, node)
        } else {
            (nd.low, nd.high)
        };
        state[v] = false;
        self.walk(level + 1, low, state, f);
        state[v] = true;
        self.walk(level + 1, high, state, f);
        state[v] = false;
    }

    /// The outcome of every member, in rank order: the tag of the first of `classes` (pairs of
    /// a tag and a state set over the same counted variables) that contains it. See
    /// [`Self::classify_each`]; this collects its answers.
    ///
    /// Errors: those of [`Self::classify_each`]; [`ErrorKind::InvalidInput`] if a member is in
    /// no class; [`ErrorKind::TooLarge`] if the set has more members than memory can index.
    pub fn classify(&self, classes: &[(u32, &BddNodes)]) -> Result<Vec<u32>> {
        let len = self
            .len
            .to_u64()
            .and_then(|l| usize::try_from(l).ok())
            .ok_or_else(too_large::<usize>)?;
        let mut out = Vec::with_capacity(len);
        let mut missing = false;
        self.classify_each(classes, |tag| match tag {
            Some(t) => {
                out.push(t);
                true
            }
            None => {
                missing = true;
                false
            }
        })?;
        if missing {
            return Err(Error::invalid_input(format!(
                "the member of rank {} is in none of the {} classes",
                out.len(),
                classes.len()
            )));
        }
        Ok(out)
    }

    /// Call `f` on every member in rank order with the tag of the first of `classes` (pairs of
    /// a tag and a state set over the same counted variables) that contains it, `None` if no
    /// class does; stop early when `f` returns `false`. One walk over the members that follows
    /// every class BDD along, so each class costs O(1) per step: this turns the value classes a
    /// solver produces (e.g. won, drawn, lost as BDDs) into the values of a database layer.
    ///
    /// Errors: [`ErrorKind::MalformedNodes`] if a class table is malformed or tests a variable
    /// that is not counted; [`ErrorKind::InvalidInput`] if it has another number of variables.
    pub fn classify_each(
        &self,
        classes: &[(u32, &BddNodes)],
        mut f: impl FnMut(Option<u32>) -> bool,
    ) -> Result<()> {
        let counted: VarSet = self.vars.iter().copied().collect();
        let tables = classes
            .iter()
            .map(|(_, c)| LevelTable::new(c, &counted, self.num_vars))
            .collect::<Result<Vec<_>>>()?;
        let n = self.vars.len();
        let k = classes.len();
        // Current node of each class at each depth of the walk.
        let mut frames = vec![0u32; k * (n + 1)];
        for (c, t) in tables.iter().enumerate() {
            frames[c] = t.root;
        }
        let mut visit = |frame: &[u32]| {
            let tag = frame.iter().position(|&p| p == 1).map(|c| classes[c].0);
            f(tag)
        };
        self.classify_walk(0, self.root, &tables, &mut frames, &mut visit);
        Ok(())
    }

    /// The walk of [`Self::classify_each`]; `false` once `visit` asked to stop.
    fn classify_walk(
        &self,
        level: u32,
        node: u32,
        tables: &[LevelTable],
        frames: &mut [u32],
        visit: &mut impl FnMut(&[u32]) -> bool,
    ) -> bool {
        if node == 0 {
            return true;
        }
        let k = tables.len();
        let l = level as usize;
        if level == self.vars.len() as u32 {
            return visit(&frames[l * k..(l + 1) * k]);
        }
        let nd = &self.nodes[node as usize];
        let (low, high) = if level < nd.level {
            (node, node)
        } else {
            (nd.low, nd.high)
        };
        for (bit, child) in [(false, low), (true, high)] {
            for (c, t) in tables.iter().enumerate() {
                let p = frames[l * k + c];
                frames[(l + 1) * k + c] = t.step(p, level, bit);
            }
            if !self.classify_walk(level + 1, child, tables, frames, visit) {
                return false;
            }
        }
        true
    }
}

/// A node table with variables replaced by levels, for following a class BDD along a walk.
struct LevelTable {
    /// `(level, low, high)` per reference; the sinks have level `u32::MAX`.
    nodes: Vec<(u32, u32, u32)>,
    root: u32,
}

impl LevelTable {
    /// The class `table` over the levels of `counted`, checked like a hash's own table.
    fn new(table: &BddNodes, counted: &VarSet, num_vars: u32) -> Result<Self> {
        if table.num_vars != num_vars {
            return Err(Error::invalid_input(format!(
                "a class has {} variables, the set {num_vars}",
                table.num_vars
            )));
        }
        let mut nodes = level_table(table, counted)?;
        // Sinks never match a level, so a walk stays on them.
        nodes[0].0 = u32::MAX;
        nodes[1].0 = u32::MAX;
        Ok(LevelTable {
            nodes,
            root: table.root,
        })
    }

    /// The node reached from `p` after assigning `bit` to `level`.
    #[inline]
    fn step(&self, p: u32, level: u32, bit: bool) -> u32 {
        let (l, low, high) = self.nodes[p as usize];
        if l != level {
            p
        } else if bit {
            high
        } else {
            low
        }
    }
}

/// The node table of `states` with each variable replaced by its level among `counted`, per
/// reference (0 = false, 1 = true, `k >= 2` = node `k - 2`); the sinks are at level `n`. Checks
/// everything [`PerfectHash::new`] documents except the size.
fn level_table(states: &BddNodes, counted: &VarSet) -> Result<Vec<(u32, u32, u32)>> {
    let num_vars = states.num_vars;
    if let Some(v) = counted.max_var().filter(|&v| v >= num_vars) {
        return Err(Error::invalid_input(format!(
            "counted variable {v} is out of range ({num_vars} variables)"
        )));
    }
    states
        .validate(num_vars)
        .map_err(|e| malformed(e.to_string()))?;
    let n = counted.len() as u32;
    let mut level_of = vec![u32::MAX; num_vars as usize];
    for (i, v) in counted.iter().enumerate() {
        level_of[v as usize] = i as u32;
    }
    let mut out = Vec::with_capacity(states.nodes.len() + 2);
    out.push((n, 0, 0));
    out.push((n, 1, 1));
    for (k, &(var, low, high)) in states.nodes.iter().enumerate() {
        let reference = k + 2;
        let level = level_of[var as usize];
        if level == u32::MAX {
            return Err(malformed(format!(
                "node {reference} tests variable {var}, which is not counted"
            )));
        }
        if out[low as usize].0 <= level || out[high as usize].0 <= level {
            return Err(malformed(format!(
                "node {reference} (variable {var}) has a child that is not below it in the \
                 variable order"
            )));
        }
        out.push((level, low, high));
    }
    Ok(out)
}

/// A [`PerfectHash`] over the narrowest integer type that holds its counts. Ranks are exchanged
/// as [`BigUint`]; use [`PerfectHash`] directly on hot paths.
#[derive(Clone, Debug)]
pub enum AnyPerfectHash {
    /// At most `u64::MAX` members and counts: no allocation when ranking.
    U64(PerfectHash<u64>),
    /// Counts that need up to 128 bits.
    U128(PerfectHash<u128>),
    /// Anything larger (allocates on every arithmetic operation).
    Big(PerfectHash<BigUint>),
}

impl AnyPerfectHash {
    /// Build the hash with the narrowest integer type that fits (see [`PerfectHash::new`] for
    /// the errors; [`ErrorKind::TooLarge`] cannot happen).
    pub fn new(states: &BddNodes, counted: &VarSet) -> Result<Self> {
        let is_too_large = |e: &Error| matches!(e.kind(), ErrorKind::TooLarge);
        match PerfectHash::<u64>::new(states, counted) {
            Ok(h) => return Ok(AnyPerfectHash::U64(h)),
            Err(e) if !is_too_large(&e) => return Err(e),
            Err(_) => {}
        }
        match PerfectHash::<u128>::new(states, counted) {
            Ok(h) => Ok(AnyPerfectHash::U128(h)),
            Err(e) if !is_too_large(&e) => Err(e),
            Err(_) => Ok(AnyPerfectHash::Big(PerfectHash::new(states, counted)?)),
        }
    }

    /// Number of members.
    pub fn len(&self) -> BigUint {
        match self {
            AnyPerfectHash::U64(h) => h.len().to_biguint(),
            AnyPerfectHash::U128(h) => h.len().to_biguint(),
            AnyPerfectHash::Big(h) => h.len().clone(),
        }
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        match self {
            AnyPerfectHash::U64(h) => h.is_empty(),
            AnyPerfectHash::U128(h) => h.is_empty(),
            AnyPerfectHash::Big(h) => h.is_empty(),
        }
    }

    /// See [`PerfectHash::rank`].
    pub fn rank(&self, state: &[bool]) -> Option<BigUint> {
        match self {
            AnyPerfectHash::U64(h) => h.rank(state).map(BigUint::from),
            AnyPerfectHash::U128(h) => h.rank(state).map(BigUint::from),
            AnyPerfectHash::Big(h) => h.rank(state),
        }
    }

    /// See [`PerfectHash::unrank`].
    pub fn unrank(&self, rank: &BigUint) -> Option<Vec<bool>> {
        match self {
            AnyPerfectHash::U64(h) => h.unrank(&u64::from_biguint(rank)?),
            AnyPerfectHash::U128(h) => h.unrank(&u128::from_biguint(rank)?),
            AnyPerfectHash::Big(h) => h.unrank(rank),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `x0 | x2` over the counted variables {0, 2} of 3 variables.
    fn or_table() -> BddNodes {
        BddNodes {
            num_vars: 3,
            nodes: vec![(2, 0, 1), (0, 2, 1)],
            root: 3,
        }
    }

    #[test]
    fn ranks_follow_lexicographic_order() {
        let h: PerfectHash = PerfectHash::new(&or_table(), &VarSet::from(vec![0, 2])).unwrap();
        assert_eq!(*h.len(), 3);
        // (x0, x2): 01 -> 0, 10 -> 1, 11 -> 2; 00 is not a member.
        assert_eq!(h.rank(&[false, false, false]), None);
        assert_eq!(h.rank(&[false, false, true]), Some(0));
        assert_eq!(h.rank(&[true, false, false]), Some(1));
        assert_eq!(h.rank(&[true, true, true]), Some(2));
        assert_eq!(h.unrank(&1), Some(vec![true, false, false]));
        assert_eq!(h.unrank(&3), None);
    }

    #[test]
    fn skipped_levels_above_the_root_count() {
        // x2 alone, counted over {0, 1, 2}: members are every (x0, x1) with x2.
        let t = BddNodes {
            num_vars: 3,
            nodes: vec![(2, 0, 1)],
            root: 2,
        };
        let h: PerfectHash = PerfectHash::new(&t, &VarSet::range(0..3)).unwrap();
        assert_eq!(*h.len(), 4);
        assert_eq!(h.rank(&[true, false, true]), Some(2));
        assert_eq!(h.unrank(&3), Some(vec![true, true, true]));
    }

    #[test]
    fn rejects_uncounted_and_unordered_tables() {
        let e = PerfectHash::<u64>::new(&or_table(), &VarSet::from(vec![0])).unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::MalformedNodes { .. }), "{e}");
        let unordered = BddNodes {
            num_vars: 3,
            nodes: vec![(0, 0, 1), (2, 2, 1)],
            root: 3,
        };
        let e = PerfectHash::<u64>::new(&unordered, &VarSet::range(0..3)).unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::MalformedNodes { .. }), "{e}");
        let e = PerfectHash::<u64>::new(&or_table(), &VarSet::from(vec![0, 5])).unwrap_err();
        assert_eq!(e.kind(), &ErrorKind::InvalidInput);
    }

    #[test]
    fn wide_sets_fall_back_to_wider_integers() {
        let all = BddNodes::constant(70, true);
        let counted = VarSet::range(0..70);
        let e = PerfectHash::<u64>::new(&all, &counted).unwrap_err();
        assert_eq!(e.kind(), &ErrorKind::TooLarge);
        let h = AnyPerfectHash::new(&all, &counted).unwrap();
        assert!(matches!(h, AnyPerfectHash::U128(_)));
        assert_eq!(h.len(), BigUint::from(1u8) << 70usize);
        let mut s = vec![false; 70];
        s[0] = true;
        s[69] = true;
        let r = h.rank(&s).unwrap();
        assert_eq!(r, (BigUint::from(1u8) << 69usize) + 1u8);
        assert_eq!(h.unrank(&r).unwrap(), s);
        let huge = BddNodes::constant(200, true);
        let h = AnyPerfectHash::new(&huge, &VarSet::range(0..200)).unwrap();
        assert!(matches!(h, AnyPerfectHash::Big(_)));
        let last = h.len() - 1u8;
        assert_eq!(h.unrank(&last).unwrap(), vec![true; 200]);
        assert_eq!(h.rank(&[true; 200]).unwrap(), last);
    }

    #[test]
    fn classes_give_values_in_rank_order() {
        let h: PerfectHash = PerfectHash::new(&or_table(), &VarSet::from(vec![0, 2])).unwrap();
        // Class 7: x0 (ranks 1, 2); class 9: everything.
        let x0 = BddNodes {
            num_vars: 3,
            nodes: vec![(0, 0, 1)],
            root: 2,
        };
        let all = BddNodes::constant(3, true);
        assert_eq!(h.classify(&[(7, &x0), (9, &all)]).unwrap(), vec![9, 7, 7]);
        let e = h.classify(&[(7, &x0)]).unwrap_err();
        assert_eq!(e.kind(), &ErrorKind::InvalidInput);
    }
}
