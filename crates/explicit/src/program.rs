//! Flat programs over a byte per signal: the evaluator the reasoner compiles the circuit into.
//!
//! A cyclic run (the gates of a recursive rule: a path across a hex board, a group of
//! connected pieces) is evaluated to its least fixpoint. When the run reads its own gates only
//! positively, as stratified GDL's recursion does, that is a linear-time propagation: every
//! gate starts false, and a gate becomes true once (an OR at its first true literal, an AND
//! when the last of its literals in the run turns true, its other literals being true),
//! telling only the gates that read it ([`Monotone`]). Iterating the whole run until nothing
//! changes, as a run with a negated literal of its own still is, takes a pass per step of the
//! longest chain of derivations: linesOfAction's connected groups spent half of `explore`'s
//! time there.

use crate::csr::{read, Csr};
use symgame_ground::{Circuit, Gate};

/// The fewest gates of a cyclic run evaluated by propagation: a smaller one is stable after a
/// pass or two of iteration, which costs less (amazonsTorus_10x10's 800 runs).
const MIN_PROPAGATED: u32 = 16;

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
    /// Per cyclic run that reads its own gates only positively, by its first instruction: its
    /// propagation (see the module documentation).
    monotone: Vec<(u32, Monotone)>,
}

/// A cyclic run whose gates read each other only positively, for the least fixpoint by
/// propagation: per gate (by its place in the run) the literals it reads from outside the run,
/// how many it reads from inside, and the gates of the run that read it (one entry a literal).
#[derive(Clone, Debug)]
struct Monotone {
    /// `outside[start[k]..start[k + 1]]`: the literal codes gate `k` reads from outside.
    start: Vec<u32>,
    outside: Vec<u32>,
    /// Literals gate `k` reads from gates of the run.
    inside: Vec<u32>,
    /// Per gate: the gates of the run reading it.
    readers: Csr,
}

impl Monotone {
    /// The propagation of the run `run`, or `None` if a gate of it reads one of the run
    /// negated.
    fn new(p: &Program, run: &[Instr]) -> Option<Monotone> {
        let place: std::collections::HashMap<u32, u32> = run
            .iter()
            .enumerate()
            .map(|(k, i)| (i.out, k as u32))
            .collect();
        let (mut start, mut outside, mut inside, mut pairs) = (vec![0], vec![], vec![], vec![]);
        for (k, i) in run.iter().enumerate() {
            let mut n = 0;
            for &l in p.inputs(i) {
                match place.get(&(l >> 1)) {
                    Some(_) if l & 1 == 1 => return None,
                    Some(&at) => {
                        pairs.push((at, k as u32));
                        n += 1;
                    }
                    None => outside.push(l),
                }
            }
            start.push(outside.len() as u32);
            inside.push(n);
        }
        Some(Monotone {
            start,
            outside,
            inside,
            readers: Csr::new(run.len(), pairs),
        })
    }
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
            if b.cyclic && end - first >= MIN_PROPAGATED {
                let run = &p.instrs[first as usize..end as usize];
                if let Some(m) = Monotone::new(&p, run) {
                    p.monotone.push((first, m));
                }
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

    /// Evaluates the cyclic run of instructions `first..end` to its least fixpoint.
    pub(crate) fn fixpoint(&self, (first, end): (u32, u32), vals: &mut [u8]) {
        let run = &self.instrs[first as usize..end as usize];
        match self.monotone.binary_search_by_key(&first, |m| m.0) {
            Ok(at) => Self::propagate(&self.monotone[at].1, run, vals),
            Err(_) => self.iterate(run, vals),
        }
    }

    /// The least fixpoint of the monotone run `run` by propagation (see the module
    /// documentation).
    fn propagate(m: &Monotone, run: &[Instr], vals: &mut [u8]) {
        thread_local! {
            /// The scratch space of [`Program::propagate`], kept between calls (most runs are
            /// small, and an allocation per run cost amazonsTorus_10x10 an eighth of its speed).
            static SCRATCH: std::cell::RefCell<(Vec<u32>, Vec<u32>)> =
                const { std::cell::RefCell::new((Vec::new(), Vec::new())) };
        }
        SCRATCH.with_borrow_mut(|(missing, stack)| {
            missing.clear();
            missing.resize(run.len(), 0);
            stack.clear();
            Self::propagate_in(m, run, vals, missing, stack);
        });
    }

    /// [`Self::propagate`] in the scratch space `missing` (one entry a gate, zeroed) and
    /// `stack` (empty).
    fn propagate_in(
        m: &Monotone,
        run: &[Instr],
        vals: &mut [u8],
        missing: &mut [u32],
        stack: &mut Vec<u32>,
    ) {
        // `missing[k]`: how many of gate `k`'s literals in the run must still turn true for it
        // to be true (0: it is; `u32::MAX`: never, a literal from outside is false).
        for (k, i) in run.iter().enumerate() {
            let outside = &m.outside[m.start[k] as usize..m.start[k + 1] as usize];
            let seed = if i.and {
                let all = outside.iter().all(|&l| read(vals, l));
                missing[k] = if all { m.inside[k] } else { u32::MAX };
                all && m.inside[k] == 0
            } else {
                let any = outside.iter().any(|&l| read(vals, l));
                missing[k] = u32::from(!any);
                any
            };
            vals[i.out as usize] = u8::from(seed);
            if seed {
                stack.push(k as u32);
            }
        }
        while let Some(k) = stack.pop() {
            for &j in m.readers.get(k) {
                let left = &mut missing[j as usize];
                if *left == 0 || *left == u32::MAX {
                    continue;
                }
                *left = if run[j as usize].and { *left - 1 } else { 0 };
                if *left == 0 {
                    vals[run[j as usize].out as usize] = 1;
                    stack.push(j);
                }
            }
        }
    }

    /// The least fixpoint of the cyclic run `instrs` by iteration: from false, until stable.
    fn iterate(&self, instrs: &[Instr], vals: &mut [u8]) {
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
            if cyclic {
                self.fixpoint((a, b), vals);
            } else {
                let instrs = &self.instrs[a as usize..b as usize];
                for i in instrs {
                    vals[i.out as usize] = self.gate(i, vals);
                }
            }
        }
    }
}

#[cfg(test)]
impl Program {
    /// This program with every cyclic run iterated, none propagated: the reference the
    /// propagation is tested against.
    pub(crate) fn iterated(&self) -> Program {
        Program {
            monotone: Vec::new(),
            ..self.clone()
        }
    }

    /// How many cyclic runs are evaluated by propagation.
    pub(crate) fn num_monotone_runs(&self) -> usize {
        self.monotone.len()
    }
}
