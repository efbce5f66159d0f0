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
use std::sync::Arc;

use symgame_bdd::{BddEngine, BddResult};
use symgame_ground::{Circuit, Gate, Lit};

use crate::disjunction::or_all;

/// A condition as an AND/OR tree over BDD leaves. Parts are shared, not copied: a circuit
/// whose gates are read by many others (arithmetic in a goal) gives a DAG in memory, though
/// its tree, the work of [`Formula::and_with`], may be much larger (the builder bounds it).
pub enum Formula<E: BddEngine> {
    /// A condition small enough to be one BDD.
    Leaf(E::Bdd),
    /// All of the parts.
    And(Arc<[Formula<E>]>),
    /// Any of the parts.
    Or(Arc<[Formula<E>]>),
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
            Formula::And(fs) => f.debug_tuple("And").field(&fs.len()).finish(),
            Formula::Or(fs) => f.debug_tuple("Or").field(&fs.len()).finish(),
        }
    }
}

impl<E: BddEngine> Formula<E> {
    /// `set AND self`, computed part by part (the whole formula is never built).
    pub fn and_with(&self, e: &E, set: &E::Bdd) -> BddResult<E::Bdd> {
        self.and_with_checked(e, set, &|| Ok(()))
    }

    /// [`Formula::and_with`] with `check` asked before each leaf's operation (a deadline that
    /// fails with [`symgame_bdd::BddError::Budget`]): a formula of thousands of leaves is as
    /// many operations on the set.
    pub fn and_with_checked(
        &self,
        e: &E,
        set: &E::Bdd,
        check: &dyn Fn() -> BddResult<()>,
    ) -> BddResult<E::Bdd> {
        if e.is_false(set) {
            return Ok(set.clone());
        }
        match self {
            Formula::Leaf(b) => {
                check()?;
                e.and(set, b)
            }
            Formula::And(fs) => {
                let mut acc = set.clone();
                for f in fs.iter() {
                    acc = f.and_with_checked(e, &acc, check)?;
                    if e.is_false(&acc) {
                        break;
                    }
                }
                Ok(acc)
            }
            Formula::Or(fs) => {
                let parts = fs
                    .iter()
                    .map(|f| f.and_with_checked(e, set, check))
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
                for f in fs.iter() {
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

    /// `NOT self`, with the negation pushed to the leaves. A part shared in memory is negated
    /// once and its negation shared the same way: the work and the result follow the DAG, not
    /// its tree (which may be exponentially larger).
    pub fn negate(&self, e: &E) -> BddResult<Formula<E>> {
        self.negate_shared(e, &mut HashMap::new())
    }

    /// [`Formula::negate`] with the negations of the shared parts met so far, by address.
    fn negate_shared(
        &self,
        e: &E,
        done: &mut HashMap<(usize, bool), Formula<E>>,
    ) -> BddResult<Formula<E>> {
        let (fs, is_and) = match self {
            Formula::Leaf(b) => return Ok(Formula::Leaf(e.not(b)?)),
            Formula::And(fs) => (fs, true),
            Formula::Or(fs) => (fs, false),
        };
        // The parts stay alive while `self` is borrowed, so an address names one part.
        let key = (Arc::as_ptr(fs) as *const Formula<E> as usize, is_and);
        if let Some(n) = done.get(&key) {
            return Ok(n.clone());
        }
        let parts: Arc<[Formula<E>]> = fs
            .iter()
            .map(|f| f.negate_shared(e, done))
            .collect::<BddResult<Vec<_>>>()?
            .into();
        let n = if is_and {
            Formula::Or(parts)
        } else {
            Formula::And(parts)
        };
        done.insert(key, n.clone());
        Ok(n)
    }

    /// Number of BDD leaves of the tree (a shared part counts once per use), saturating.
    pub fn leaves(&self) -> usize {
        self.leaves_up_to(usize::MAX)
    }

    /// The number of leaves of the tree, or a number above `limit` once it is passed (the walk
    /// stops there, so the cost is at most `limit` steps however large the tree).
    pub fn leaves_up_to(&self, limit: usize) -> usize {
        let mut n = 0usize;
        let mut stack = vec![self];
        while let Some(f) = stack.pop() {
            match f {
                Formula::Leaf(_) => {
                    n = n.saturating_add(1);
                    if n > limit {
                        return n;
                    }
                }
                Formula::And(fs) | Formula::Or(fs) => stack.extend(fs.iter()),
            }
        }
        n
    }
}

/// The most leaves a gate's formula tree may have; a larger one is compiled whole instead. A
/// gate read by several others is shared in memory but walked once per reader by
/// [`Formula::and_with`], so without a bound the work doubles with every level of sharing
/// (gt_two_thirds_4p's goal, an average over the bids, grew past 18 GB as a tree).
pub(crate) const MAX_LEAVES: usize = 4096;

/// Two leaves are merged only when the product of their node counts, which bounds the node
/// pairs the operation visits, is at most this.
const MAX_MERGE_PAIRS: usize = 1_000_000;

/// Builds formulas for literals of a circuit, bottom-up: a gate becomes one BDD leaf while the
/// combination of its inputs stays within `cap` nodes, else a tree of its inputs' formulas
/// (consecutive leaves merged up to the cap); a tree of more than [`MAX_LEAVES`] leaves is
/// replaced by the gate compiled whole (`known` with `whole` set).
/// What [`FormulaBuilder::build`] asks of the compiler: `(signal, whole)` to a BDD (see there).
pub(crate) type Known<'k, E> =
    dyn FnMut(u32, bool) -> BddResult<Option<<E as BddEngine>::Bdd>> + 'k;

pub(crate) struct FormulaBuilder<'a, E: BddEngine> {
    e: &'a E,
    circuit: &'a Circuit,
    cap: usize,
    memo: HashMap<u32, Formula<E>>,
    /// The negations of the signals read negated so far (a gate may be read negated by many).
    negated: HashMap<u32, Formula<E>>,
    /// Past it, merging leaves fails with [`symgame_bdd::BddError::Budget`].
    deadline: Option<std::time::Instant>,
}

impl<'a, E: BddEngine> FormulaBuilder<'a, E> {
    pub(crate) fn new(e: &'a E, circuit: &'a Circuit, cap: usize) -> Self {
        FormulaBuilder {
            e,
            circuit,
            cap,
            memo: HashMap::new(),
            negated: HashMap::new(),
            deadline: None,
        }
    }

    /// The builder with a deadline for its merges (a gate of thousands of inputs is as many
    /// operations).
    pub(crate) fn with_deadline(mut self, deadline: Option<std::time::Instant>) -> Self {
        self.deadline = deadline;
        self
    }

    /// The formula of `l`. `known(s, false)` gives the BDD of signal `s` when it is an input
    /// (constant, fluent, move) or a gate already compiled or one that must be compiled whole (a
    /// gate of a cyclic block); `None` makes the builder descend into the gate.
    /// `known(s, true)` compiles gate `s` whole and gives its BDD (`None` keeps the tree).
    pub(crate) fn build(&mut self, l: Lit, known: &mut Known<'_, E>) -> BddResult<Formula<E>> {
        let s = l.signal();
        if !l.is_negated() {
            return self.signal(s, known);
        }
        if let Some(n) = self.negated.get(&s) {
            return Ok(n.clone());
        }
        let n = self.signal(s, known)?.negate(self.e)?;
        self.negated.insert(s, n.clone());
        Ok(n)
    }

    fn signal(&mut self, s: u32, known: &mut Known<'_, E>) -> BddResult<Formula<E>> {
        if let Some(f) = self.memo.get(&s) {
            return Ok(f.clone());
        }
        let f = match known(s, false)? {
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
                        (Formula::And(fs), true) | (Formula::Or(fs), false) => {
                            parts.extend(fs.iter().cloned())
                        }
                        (f, _) => parts.push(f),
                    }
                }
                let f = self.combine(parts, is_and)?;
                if f.leaves_up_to(MAX_LEAVES) > MAX_LEAVES {
                    match known(s, true)? {
                        Some(b) => Formula::Leaf(b),
                        None => f,
                    }
                } else {
                    f
                }
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
            if self
                .deadline
                .is_some_and(|d| std::time::Instant::now() >= d)
            {
                return Err(symgame_bdd::BddError::Budget(
                    "set-up deadline passed".into(),
                ));
            }
            match p {
                Formula::Leaf(b) => {
                    // Merge only inputs that are small together: two leaves within the cap can
                    // still combine into a monster (Connect Four 6×5: "red has a line" and
                    // "yellow has a line" are small, "somebody has a line" is 34 M nodes), and
                    // building it just to see that is what the formula avoids. The product of
                    // the sizes bounds the operation's work: two leaves of 10,000 nodes each
                    // can make 10^8 node pairs (nonogram_10x10_1's terminal condition within a
                    // layer sat in one such AND for minutes).
                    let small = |c: &E::Bdd| {
                        let (nc, nb) = (e.node_count(c), e.node_count(&b));
                        nc + nb <= self.cap && nc.saturating_mul(nb) <= MAX_MERGE_PAIRS
                    };
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
            _ if is_and => Formula::And(out.into()),
            _ => Formula::Or(out.into()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use symgame_bdd::{BiodivineEngine, EngineConfig};

    /// A chain of gates each read twice by the next (`g_i = (g_{i-1} AND x_i) OR (g_{i-1} AND
    /// NOT x_i)`): its tree doubles at every level. With no merging (a cap of one node) the
    /// builder must hand the gate to the compiler once the tree passes [`MAX_LEAVES`], and the
    /// formula stays exact.
    #[test]
    fn shared_gates_are_compiled_whole_once_the_tree_is_too_big() {
        let n = 20u32;
        let num_inputs = n + 1;
        let x = |i: u32| Lit::new(i, false);
        let mut gates = vec![Gate::And(vec![x(1), x(2)])];
        for i in 3..=n {
            let prev = Lit::new(num_inputs + gates.len() as u32 - 1, false);
            gates.push(Gate::And(vec![prev, x(i)]));
            gates.push(Gate::And(vec![prev, Lit::new(i, true)]));
            let (a, b) = (gates.len() as u32 - 2, gates.len() as u32 - 1);
            gates.push(Gate::Or(vec![
                Lit::new(num_inputs + a, false),
                Lit::new(num_inputs + b, false),
            ]));
        }
        let top = Lit::new(num_inputs + gates.len() as u32 - 1, false);
        let circuit = Circuit {
            num_inputs,
            gates,
            blocks: Vec::new(),
        };
        let e = BiodivineEngine::new(n as _, &EngineConfig::small()).unwrap();
        // Every signal's BDD, gate by gate: what compiling a gate whole gives.
        let mut all: Vec<_> = (0..num_inputs)
            .map(|s| match s {
                0 => e.constant(true),
                _ => e.var(s - 1),
            })
            .collect();
        for g in &circuit.gates {
            let lit = |l: &Lit| {
                let b = &all[l.signal() as usize];
                if l.is_negated() {
                    e.not(b).unwrap()
                } else {
                    b.clone()
                }
            };
            let v = match g {
                Gate::And(ls) => ls
                    .iter()
                    .fold(e.constant(true), |a, l| e.and(&a, &lit(l)).unwrap()),
                Gate::Or(ls) => ls
                    .iter()
                    .fold(e.constant(false), |a, l| e.or(&a, &lit(l)).unwrap()),
            };
            all.push(v);
        }
        // The top gate is x1 AND x2 whatever the other inputs are.
        let want = e.and(&e.var(0), &e.var(1)).unwrap();
        let mut whole = Vec::new();
        let mut known = |s: u32, compile: bool| -> BddResult<Option<_>> {
            if s < num_inputs || compile {
                if s >= num_inputs {
                    whole.push(s);
                }
                return Ok(Some(all[s as usize].clone()));
            }
            Ok(None)
        };
        let mut builder = FormulaBuilder::new(&e, &circuit, 1);
        let f = builder.build(top, &mut known).unwrap();
        assert!(f.leaves() <= MAX_LEAVES, "{} leaves", f.leaves());
        assert!(!whole.is_empty(), "no gate was compiled whole");
        assert!(e.is_true(&e.iff(&f.to_bdd(&e).unwrap(), &want).unwrap()));
    }

    /// A part shared by a chain of levels (each level an OR of the one below with a fresh
    /// variable, read by both halves of an AND) is a tree of 2^levels leaves but a DAG of
    /// `levels` levels: its negation is built once per shared part (40 levels return at once),
    /// shares its parts as the formula does, and is exact (12 levels, built whole).
    #[test]
    fn negation_follows_the_shared_parts() {
        let e = BiodivineEngine::new(41, &EngineConfig::small()).unwrap();
        let chain = |levels: u32| {
            let mut f = Formula::<BiodivineEngine>::Leaf(e.var(0));
            let mut any = e.var(0);
            for v in 1..=levels {
                let lower = Formula::Or(vec![f.clone(), Formula::Leaf(e.var(v))].into());
                f = Formula::And(vec![lower.clone(), lower].into());
                any = e.or(&any, &e.var(v)).unwrap();
            }
            (f, any)
        };
        let (f, _) = chain(40);
        assert!(f.leaves_up_to(1 << 20) > 1 << 20);
        let not_f = f.negate(&e).unwrap();
        let Formula::Or(halves) = &not_f else {
            panic!("the negation of an AND is an OR")
        };
        let (Formula::And(a), Formula::And(b)) = (&halves[0], &halves[1]) else {
            panic!("the negation of an OR is an AND")
        };
        assert!(Arc::ptr_eq(a, b), "the shared part is negated once");
        let (f, any) = chain(12);
        let not_f = f.negate(&e).unwrap().to_bdd(&e).unwrap();
        assert!(e.is_true(&e.iff(&not_f, &e.not(&any).unwrap()).unwrap()));
    }

    /// Two leaves are merged only while their operation is cheap: within the cap by the sum of
    /// their sizes, and by the product (parities of 700 variables, about 1,400 nodes each: the
    /// sum is far within a cap of 10^6, the product over [`MAX_MERGE_PAIRS`]); small ones are.
    #[test]
    fn leaves_whose_operation_could_be_huge_stay_apart() {
        let n = 1_400u32;
        let e = BiodivineEngine::new(n + 4, &EngineConfig::small()).unwrap();
        let parity = |vars: std::ops::Range<u32>| {
            vars.fold(e.constant(false), |a, v| {
                e.apply(symgame_bdd::BinaryOp::Xor, &a, &e.var(v)).unwrap()
            })
        };
        let (a, b) = (parity(0..n / 2), parity(n / 2..n));
        assert!(e.node_count(&a) * e.node_count(&b) > MAX_MERGE_PAIRS);
        let circuit = Circuit {
            num_inputs: 1,
            gates: Vec::new(),
            blocks: Vec::new(),
        };
        let builder = FormulaBuilder::new(&e, &circuit, 1_000_000);
        let leaves = |bs: &[&<BiodivineEngine as BddEngine>::Bdd]| {
            bs.iter()
                .map(|&b| Formula::Leaf(b.clone()))
                .collect::<Vec<_>>()
        };
        let f = builder.combine(leaves(&[&a, &b]), true).unwrap();
        assert_eq!(f.leaves(), 2);
        let want = e.and(&a, &b).unwrap();
        assert!(e.is_true(&e.iff(&f.to_bdd(&e).unwrap(), &want).unwrap()));
        let (x, y) = (e.var(n), e.var(n + 1));
        let f = builder.combine(leaves(&[&x, &y]), false).unwrap();
        assert_eq!(f.leaves(), 1);
    }
}
