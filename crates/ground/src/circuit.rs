//! The ground game as a Boolean circuit over fluents and moves.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A literal: a signal of the circuit, possibly negated. `Lit::TRUE` and `Lit::FALSE` are the
/// constant signal 0 and its negation.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Lit(u32);

impl Lit {
    /// The constant true.
    pub const TRUE: Lit = Lit(0);
    /// The constant false.
    pub const FALSE: Lit = Lit(1);

    /// The literal of `signal`, negated if `negated`.
    pub fn new(signal: u32, negated: bool) -> Lit {
        Lit(signal << 1 | negated as u32)
    }

    /// The signal this literal reads.
    pub fn signal(self) -> u32 {
        self.0 >> 1
    }

    /// Whether the literal is the negation of its signal.
    pub fn is_negated(self) -> bool {
        self.0 & 1 == 1
    }

    /// `Some(value)` if the literal is a constant.
    pub fn as_const(self) -> Option<bool> {
        match self {
            Lit::TRUE => Some(true),
            Lit::FALSE => Some(false),
            _ => None,
        }
    }

    /// The literal negated `if negate`.
    pub fn xor(self, negate: bool) -> Lit {
        Lit(self.0 ^ negate as u32)
    }

    /// The raw code (`signal * 2 + negated`).
    pub fn code(self) -> u32 {
        self.0
    }
}

impl std::ops::Not for Lit {
    type Output = Lit;
    fn not(self) -> Lit {
        Lit(self.0 ^ 1)
    }
}

impl fmt::Debug for Lit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.as_const() {
            Some(v) => write!(f, "{v}"),
            None => write!(
                f,
                "{}s{}",
                if self.is_negated() { "!" } else { "" },
                self.signal()
            ),
        }
    }
}

/// A gate: the conjunction or disjunction of its inputs.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub enum Gate {
    /// True when every input is true (true when empty).
    And(Vec<Lit>),
    /// True when some input is true (false when empty).
    Or(Vec<Lit>),
}

impl Gate {
    /// The inputs of the gate.
    pub fn inputs(&self) -> &[Lit] {
        match self {
            Gate::And(l) | Gate::Or(l) => l,
        }
    }
}

/// A run of consecutive gates. A cyclic block comes from recursive GDL relations: its gates read
/// each other (positively only) and mean their least fixpoint, computed by starting from false
/// and re-evaluating the block until nothing changes.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct Block {
    /// First gate index.
    pub start: u32,
    /// One past the last gate index.
    pub end: u32,
    /// Whether the block must be iterated to its least fixpoint.
    pub cyclic: bool,
}

/// A Boolean circuit. Signals: `0` is the constant true, `1..num_inputs` are inputs (fluents,
/// then moves), and gate `i` drives signal `num_inputs + i`. Gates only read inputs, gates of
/// earlier blocks and, in a cyclic block, gates of their own block.
#[derive(Clone, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
pub struct Circuit {
    /// Number of input signals, counting the constant signal 0.
    pub num_inputs: u32,
    /// The gates in evaluation order.
    pub gates: Vec<Gate>,
    /// The gates split into blocks, in evaluation order.
    pub blocks: Vec<Block>,
}

impl Circuit {
    /// The number of signals (inputs and gates).
    pub fn num_signals(&self) -> usize {
        self.num_inputs as usize + self.gates.len()
    }

    /// The signal driven by gate `i`.
    pub fn gate_signal(&self, i: usize) -> u32 {
        self.num_inputs + i as u32
    }

    /// The total number of gate inputs.
    pub fn num_wires(&self) -> usize {
        self.gates.iter().map(|g| g.inputs().len()).sum()
    }

    /// Evaluates every signal. `values` holds at least `num_inputs` entries with the inputs set
    /// (entry 0 is forced to true); on return it holds all `num_signals()` values. This is the
    /// reference semantics; the explicit reasoner compiles a faster evaluator.
    pub fn eval(&self, values: &mut Vec<bool>) {
        values.resize(self.num_signals(), false);
        values[0] = true;
        let read = |values: &[bool], l: Lit| values[l.signal() as usize] != l.is_negated();
        let gate = |values: &[bool], g: &Gate| match g {
            Gate::And(ls) => ls.iter().all(|&l| read(values, l)),
            Gate::Or(ls) => ls.iter().any(|&l| read(values, l)),
        };
        let base = self.num_inputs as usize;
        for b in &self.blocks {
            let range = b.start as usize..b.end as usize;
            if !b.cyclic {
                for i in range {
                    values[base + i] = gate(values, &self.gates[i]);
                }
                continue;
            }
            for i in range.clone() {
                values[base + i] = false;
            }
            loop {
                let mut changed = false;
                for i in range.clone() {
                    let v = gate(values, &self.gates[i]);
                    if v != values[base + i] {
                        values[base + i] = v;
                        changed = true;
                    }
                }
                if !changed {
                    break;
                }
            }
        }
    }

    /// Marks the gates that `roots` depend on, directly or not.
    pub fn cone(&self, roots: &[Lit]) -> Vec<bool> {
        let mut needed = vec![false; self.gates.len()];
        let mut stack: Vec<u32> = roots.iter().map(|l| l.signal()).collect();
        while let Some(s) = stack.pop() {
            if s < self.num_inputs {
                continue;
            }
            let g = (s - self.num_inputs) as usize;
            if needed[g] {
                continue;
            }
            needed[g] = true;
            stack.extend(self.gates[g].inputs().iter().map(|l| l.signal()));
        }
        needed
    }

    /// The block containing gate `g`.
    pub fn block_of(&self, g: usize) -> Option<&Block> {
        let i = self.blocks.partition_point(|b| (b.end as usize) <= g);
        self.blocks.get(i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_encode_signal_and_sign() {
        let l = Lit::new(7, true);
        assert_eq!(l.signal(), 7);
        assert!(l.is_negated());
        assert_eq!(!l, Lit::new(7, false));
        assert_eq!(!Lit::TRUE, Lit::FALSE);
        assert_eq!(Lit::new(3, false).as_const(), None);
    }

    #[test]
    fn cyclic_block_takes_the_least_fixpoint() {
        // inputs: 0 = true, 1 = a. g0 = a | g1, g1 = g0 (reachability); g2 = g3 | g2... g2 = g2 alone
        let c = Circuit {
            num_inputs: 2,
            gates: vec![
                Gate::Or(vec![Lit::new(1, false), Lit::new(3, false)]),
                Gate::And(vec![Lit::new(2, false)]),
                Gate::Or(vec![Lit::new(4, false)]),
            ],
            blocks: vec![
                Block {
                    start: 0,
                    end: 2,
                    cyclic: true,
                },
                Block {
                    start: 2,
                    end: 3,
                    cyclic: true,
                },
            ],
        };
        let mut v = vec![true, true];
        c.eval(&mut v);
        assert_eq!(v[2..], [true, true, false]);
        let mut v = vec![true, false];
        c.eval(&mut v);
        assert_eq!(v[2..], [false, false, false]);
    }
}
