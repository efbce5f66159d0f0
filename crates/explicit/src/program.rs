//! Flat programs over a byte per signal: the evaluator the reasoner compiles the circuit into.

use symgame_ground::{Circuit, Gate};

/// One instruction: a gate writing `out` from `len` literal codes starting at `start`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Instr {
    pub(crate) out: u32,
    start: u32,
    len: u32,
    and: bool,
}

/// A straight-line program; cyclic runs are iterated to their least fixpoint.
#[derive(Clone, Debug, Default)]
pub(crate) struct Program {
    pub(crate) instrs: Vec<Instr>,
    lits: Vec<u32>,
    /// (first instruction, end, cyclic)
    pub(crate) runs: Vec<(u32, u32, bool)>,
}

impl Program {
    /// The program of the cone of `roots`.
    #[cfg(test)]
    pub(crate) fn compile(c: &Circuit, roots: &[symgame_ground::Lit]) -> Program {
        let needed = c.cone(roots);
        Program::compile_gates(c, |g| needed[g])
    }

    /// The program of the gates `keep` selects, in circuit order. A cyclic block's kept gates
    /// form one cyclic run (iterated from false); consecutive acyclic blocks share a run.
    pub(crate) fn compile_gates(c: &Circuit, keep: impl Fn(usize) -> bool) -> Program {
        let mut p = Program::default();
        for b in &c.blocks {
            let first = p.instrs.len() as u32;
            for g in b.start..b.end {
                if !keep(g as usize) {
                    continue;
                }
                let gate = &c.gates[g as usize];
                let start = p.lits.len() as u32;
                p.lits.extend(gate.inputs().iter().map(|l| l.code()));
                p.instrs.push(Instr {
                    out: c.gate_signal(g as usize),
                    start,
                    len: gate.inputs().len() as u32,
                    and: matches!(gate, Gate::And(_)),
                });
            }
            let end = p.instrs.len() as u32;
            if end == first {
                continue;
            }
            match p.runs.last_mut() {
                Some(r) if !r.2 && !b.cyclic => r.1 = end,
                _ => p.runs.push((first, end, b.cyclic)),
            }
        }
        p
    }

    /// The literal codes instruction `i` reads.
    pub(crate) fn inputs(&self, i: &Instr) -> &[u32] {
        &self.lits[i.start as usize..(i.start + i.len) as usize]
    }

    /// Whether instruction `i` is an AND (else an OR).
    pub(crate) fn is_and(&self, i: &Instr) -> bool {
        i.and
    }

    #[inline]
    pub(crate) fn gate(&self, i: &Instr, vals: &[u8]) -> u8 {
        let lits = self.inputs(i);
        if i.and {
            for &l in lits {
                if vals[(l >> 1) as usize] ^ (l & 1) as u8 == 0 {
                    return 0;
                }
            }
            1
        } else {
            for &l in lits {
                if vals[(l >> 1) as usize] ^ (l & 1) as u8 != 0 {
                    return 1;
                }
            }
            0
        }
    }

    /// Evaluates the cyclic run `instrs` to its least fixpoint: from false, until stable.
    pub(crate) fn fixpoint(&self, instrs: &[Instr], vals: &mut [u8]) {
        for i in instrs {
            vals[i.out as usize] = 0;
        }
        loop {
            let mut changed = false;
            for i in instrs {
                let v = self.gate(i, vals);
                if v != vals[i.out as usize] {
                    vals[i.out as usize] = v;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
    }

    pub(crate) fn run(&self, vals: &mut [u8]) {
        for &(a, b, cyclic) in &self.runs {
            let instrs = &self.instrs[a as usize..b as usize];
            if cyclic {
                self.fixpoint(instrs, vals);
            } else {
                for i in instrs {
                    vals[i.out as usize] = self.gate(i, vals);
                }
            }
        }
    }
}
