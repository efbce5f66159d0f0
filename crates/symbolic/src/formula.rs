//! Conditions kept as formulas over small BDDs, never built as one BDD unless asked.
//!
//! Some conditions are exponential as a single BDD in every variable order while their pieces
//! are tiny: "red has four in a row" on Connect Four 6×5 is a BDD of 34 million nodes, yet an
//! OR of 69 lines of 4 cells. A [`Formula`] keeps such a condition as an AND/OR tree whose
//! leaves are BDDs of bounded size, and [`Formula::and_with`] conjoins a state set with it piece
//! by piece: `S AND (a OR b) = (S AND a) OR (S AND b)`, `S AND (a AND b) = (S AND a) AND b`.
//! The results stay as small as `S` allows. [`FormulaBuilder`] builds such formulas for the
//! goal conditions of the circuit.

use std::collections::HashMap;

use symgame_bdd::{BddEngine, BddResult};
use symgame_ground::{Circuit, Gate, Lit};

use crate::disjunction::or_all;

/// A condition as an AND/OR tree over BDD leaves.
pub enum Formula<E: BddEngine> {
    /// A condition small enough to be one BDD.
    Leaf(E::Bdd),
    /// All of the parts.
    And(Vec<Formula<E>>),
    /// Any of the parts.
    Or(Vec<Formula<E>>),
}

impl<E: BddEngine> Clone for Formula<E> {
    fn clone(&self) -> Self {
        match self {
            Formula::Leaf(b) => Formula::Leaf(b.clone()),
            Formula::And(fs) => Formula::And(fs.clone()),
            Formula::Or(fs) => Formula::Or(fs.clone()),
        }
    }
}

impl<E: BddEngine> std::fmt::Debug for Formula<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Formula::Leaf(_) => f.write_str("Leaf"),
            Formula::And(fs) => f.debug_tuple("And").field(fs).finish(),
            Formula::Or(fs) => f.debug_tuple("Or").field(fs).finish(),
        }
    }
}

impl<E: BddEngine> Formula<E> {
    /// `set AND self`, computed part by part (the whole formula is never built).
    pub fn and_with(&self, e: &E, set: &E::Bdd) -> BddResult<E::Bdd> {
        if e.is_false(set) {
            return Ok(set.clone());
        }
        match self {
            Formula::Leaf(b) => e.and(set, b),
            Formula::And(fs) => {
                let mut acc = set.clone();
                for f in fs {
                    acc = f.and_with(e, &acc)?;
                    if e.is_false(&acc) {
                        break;
                    }
                }
                Ok(acc)
            }
            Formula::Or(fs) => {
                let parts = fs
                    .iter()
                    .map(|f| f.and_with(e, set))
                    .collect::<BddResult<Vec<_>>>()?;
                or_all(e, parts)
            }
        }
    }

    /// The whole condition as one BDD (may be huge: prefer [`Formula::and_with`]).
    pub fn to_bdd(&self, e: &E) -> BddResult<E::Bdd> {
        match self {
            Formula::Leaf(b) => Ok(b.clone()),
            Formula::And(fs) => {
                let mut acc = e.constant(true);
                for f in fs {
                    acc = e.and(&acc, &f.to_bdd(e)?)?;
                }
                Ok(acc)
            }
            Formula::Or(fs) => {
                let parts = fs.iter().map(|f| f.to_bdd(e)).collect::<BddResult<_>>()?;
                or_all(e, parts)
            }
        }
    }

    /// `NOT self`, with the negation pushed to the leaves.
    pub fn negate(&self, e: &E) -> BddResult<Formula<E>> {
        Ok(match self {
            Formula::Leaf(b) => Formula::Leaf(e.not(b)?),
            Formula::And(fs) => {
                Formula::Or(fs.iter().map(|f| f.negate(e)).collect::<BddResult<_>>()?)
            }
            Formula::Or(fs) => {
                Formula::And(fs.iter().map(|f| f.negate(e)).collect::<BddResult<_>>()?)
            }
        })
    }

    /// Number of BDD leaves.
    pub fn leaves(&self) -> usize {
        match self {
            Formula::Leaf(_) => 1,
            Formula::And(fs) | Formula::Or(fs) => fs.iter().map(|f| f.leaves()).sum(),
        }
    }
}

/// Builds formulas for literals of a circuit, bottom-up: a gate becomes one BDD leaf while the
/// combination of its inputs stays within `cap` nodes, else a tree of its inputs' formulas
/// (consecutive leaves merged up to the cap).
pub(crate) struct FormulaBuilder<'a, E: BddEngine> {
    e: &'a E,
    circuit: &'a Circuit,
    cap: usize,
    memo: HashMap<u32, Formula<E>>,
}

impl<'a, E: BddEngine> FormulaBuilder<'a, E> {
    pub(crate) fn new(e: &'a E, circuit: &'a Circuit, cap: usize) -> Self {
        FormulaBuilder {
            e,
            circuit,
            cap,
            memo: HashMap::new(),
        }
    }

    /// The formula of `l`. `known(s)` gives the BDD of signal `s` when it is an input (constant,
    /// fluent, move) or a gate already compiled or one that must be compiled whole (a gate of a
    /// cyclic block); `None` makes the builder descend into the gate.
    pub(crate) fn build(
        &mut self,
        l: Lit,
        known: &mut dyn FnMut(u32) -> BddResult<Option<E::Bdd>>,
    ) -> BddResult<Formula<E>> {
        let f = self.signal(l.signal(), known)?;
        if l.is_negated() {
            f.negate(self.e)
        } else {
            Ok(f)
        }
    }

    fn signal(
        &mut self,
        s: u32,
        known: &mut dyn FnMut(u32) -> BddResult<Option<E::Bdd>>,
    ) -> BddResult<Formula<E>> {
        if let Some(f) = self.memo.get(&s) {
            return Ok(f.clone());
        }
        let f = match known(s)? {
            Some(b) => Formula::Leaf(b),
            None => {
                let g = (s - self.circuit.num_inputs) as usize;
                let (inputs, is_and) = match &self.circuit.gates[g] {
                    Gate::And(ls) => (ls.clone(), true),
                    Gate::Or(ls) => (ls.clone(), false),
                };
                let mut parts = Vec::with_capacity(inputs.len());
                for l in inputs {
                    let f = self.build(l, known)?;
                    // Flatten nested gates of the same kind.
                    match (f, is_and) {
                        (Formula::And(fs), true) | (Formula::Or(fs), false) => parts.extend(fs),
                        (f, _) => parts.push(f),
                    }
                }
                self.combine(parts, is_and)?
            }
        };
        self.memo.insert(s, f.clone());
        Ok(f)
    }

    /// AND (or OR) of `parts`: leaves merged greedily while a merged leaf stays within the cap.
    fn combine(&self, parts: Vec<Formula<E>>, is_and: bool) -> BddResult<Formula<E>> {
        let e = self.e;
        let mut leaves: Vec<E::Bdd> = Vec::new();
        let mut trees = Vec::new();
        for p in parts {
            match p {
                Formula::Leaf(b) => {
                    // Merge only inputs that are small together: two leaves within the cap can
                    // still combine into a monster (Connect Four 6×5: "red has a line" and
                    // "yellow has a line" are small, "somebody has a line" is 34 M nodes), and
                    // building it just to see that is what the formula avoids.
                    let small = |c: &E::Bdd| e.node_count(c) + e.node_count(&b) <= self.cap;
                    let merged = match leaves.last() {
                        Some(c) if small(c) && is_and => Some(e.and(c, &b)?),
                        Some(c) if small(c) => Some(e.or(c, &b)?),
                        _ => None,
                    };
                    match merged {
                        // A constant decides the whole gate.
                        Some(m) if is_and && e.is_false(&m) || !is_and && e.is_true(&m) => {
                            return Ok(Formula::Leaf(m));
                        }
                        Some(m) if !e.node_count_exceeds(&m, self.cap) => {
                            *leaves.last_mut().expect("merged with the last leaf") = m;
                        }
                        // Too big together: the leaf starts a new chunk.
                        _ => leaves.push(b),
                    }
                }
                tree => trees.push(tree),
            }
        }
        let mut out: Vec<Formula<E>> = leaves.into_iter().map(Formula::Leaf).collect();
        out.extend(trees);
        Ok(match out.len() {
            0 => Formula::Leaf(e.constant(is_and)),
            1 => out.pop().expect("one part"),
            _ if is_and => Formula::And(out),
            _ => Formula::Or(out),
        })
    }
}
