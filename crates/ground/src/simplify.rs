//! Step 4b of grounding: the ground rules become a circuit. Constants are propagated and
//! aliases merged to a fixpoint, rules outside the cone of the outputs (`legal`, `next`,
//! `goal`, `terminal`) are dropped, and the atoms are emitted as And/Or gates in blocks,
//! dependencies first; recursive atoms form cyclic blocks (a negative cycle is an error).

use crate::circuit::{Block, Circuit, Gate, Lit};
use std::time::Instant;

/// Why simplification stopped, at which atom.
pub(crate) enum Stop {
    /// The deadline passed.
    Deadline(usize),
    /// The atom depends on its own negation.
    NegativeCycle(usize),
}

/// Simplifies the ground rule bodies `defs` of the atoms (signals `base` on) and builds the
/// circuit of the atoms that `outputs` depend on. Returns the circuit and the outputs in it.
pub(crate) fn simplify(
    base: u32,
    defs: Vec<Vec<Vec<Lit>>>,
    outputs: &[Lit],
    deadline: Option<Instant>,
) -> Result<(Circuit, Vec<Lit>), Stop> {
    let mut simp = Simplifier {
        base,
        subst: (0..defs.len() as u32)
            .map(|a| Lit::new(base + a, false))
            .collect(),
        defs,
    };
    simp.run(deadline).map_err(Stop::Deadline)?;
    let resolved: Vec<Lit> = outputs.iter().map(|&l| simp.resolve(l)).collect();
    let live = simp.cone(&resolved);
    let succ = Successors::new(&simp, &live);
    let sccs = components(&live, &succ);
    let (circuit, map) = simp.gates(&sccs, &succ).map_err(Stop::NegativeCycle)?;
    let outputs = resolved
        .iter()
        .map(|&l| match simp.atom(l) {
            Some(a) => map[a].xor(l.is_negated()),
            None => l,
        })
        .collect();
    Ok((circuit, outputs))
}

/// Constant propagation, alias merging and circuit construction over the ground rules.
struct Simplifier {
    /// Signal of the first atom.
    base: u32,
    /// For each atom, its ground rule bodies (a disjunction of conjunctions).
    defs: Vec<Vec<Vec<Lit>>>,
    /// For each atom, what it has been replaced by (itself when not replaced).
    subst: Vec<Lit>,
}

impl Simplifier {
    fn atom(&self, l: Lit) -> Option<usize> {
        (l.signal() >= self.base).then(|| (l.signal() - self.base) as usize)
    }

    /// `l` with replacements applied (compressing the replacement chains on the way).
    #[inline]
    fn resolve(&mut self, l: Lit) -> Lit {
        let mut cur = l;
        let mut path: Vec<(usize, bool)> = Vec::new();
        while let Some(a) = self.atom(cur) {
            let s = self.subst[a];
            if s.signal() == cur.signal() {
                break;
            }
            path.push((a, cur.is_negated()));
            cur = s.xor(cur.is_negated());
        }
        if path.len() > 1 {
            for &(a, neg) in &path {
                self.subst[a] = cur.xor(neg);
            }
        }
        cur
    }

    /// Simplifies to a fixpoint; past the deadline, stops and returns the atom it was at.
    fn run(&mut self, deadline: Option<Instant>) -> Result<(), usize> {
        loop {
            let mut changed = false;
            for a in 0..self.defs.len() {
                if a % 4096 == 0 && deadline.is_some_and(|d| Instant::now() > d) {
                    return Err(a);
                }
                if self.subst[a] != Lit::new(self.base + a as u32, false) {
                    continue;
                }
                let me = Lit::new(self.base + a as u32, false);
                // rewritten in place: no allocation per body
                let mut new = std::mem::take(&mut self.defs[a]);
                let mut always = false;
                new.retain_mut(|lits| {
                    let mut j = 0;
                    for k in 0..lits.len() {
                        let l = self.resolve(lits[k]);
                        match l.as_const() {
                            Some(true) => {}
                            Some(false) => return false,
                            None if l == me => return false, // useless for a least fixpoint
                            None => {
                                lits[j] = l;
                                j += 1;
                            }
                        }
                    }
                    lits.truncate(j);
                    lits.sort_unstable();
                    lits.dedup();
                    if lits.windows(2).any(|w| w[0] == !w[1]) {
                        return false;
                    }
                    always |= lits.is_empty();
                    true
                });
                if always {
                    self.subst[a] = Lit::TRUE;
                    changed = true;
                    continue;
                }
                if new.is_empty() {
                    self.subst[a] = Lit::FALSE;
                    changed = true;
                    continue;
                }
                new.sort();
                new.dedup();
                if new.len() == 1 && new[0].len() == 1 && new[0][0].signal() != me.signal() {
                    self.subst[a] = new[0][0];
                    changed = true;
                    continue;
                }
                self.defs[a] = new;
            }
            if !changed {
                return Ok(());
            }
        }
    }

    /// Resolves the bodies of the atoms left, and marks the atoms that `outputs` depend on.
    fn cone(&mut self, outputs: &[Lit]) -> Vec<bool> {
        let n = self.defs.len();
        for a in 0..n {
            if self.subst[a] == Lit::new(self.base + a as u32, false) {
                let defs = std::mem::take(&mut self.defs[a]);
                let defs: Vec<Vec<Lit>> = defs
                    .into_iter()
                    .map(|inst| inst.into_iter().map(|l| self.resolve(l)).collect())
                    .collect();
                self.defs[a] = defs;
            } else {
                self.defs[a].clear();
            }
        }
        let mut live = vec![false; n];
        let mut stack: Vec<usize> = outputs.iter().filter_map(|&l| self.atom(l)).collect();
        while let Some(a) = stack.pop() {
            if live[a] {
                continue;
            }
            live[a] = true;
            for inst in &self.defs[a] {
                stack.extend(inst.iter().filter_map(|&l| self.atom(l)));
            }
        }
        live
    }

    /// Emits the gates of the strongly connected components `sccs` (dependencies first).
    /// Returns the circuit and, for each atom, its literal in it, or the atom of a negative
    /// ground cycle.
    fn gates(&self, sccs: &[Vec<usize>], succ: &Successors) -> Result<(Circuit, Vec<Lit>), usize> {
        let n = self.defs.len();
        let mut map = vec![Lit::FALSE; n];
        for (m, s) in map.iter_mut().zip(&self.subst) {
            if let Some(c) = s.as_const() {
                *m = if c { Lit::TRUE } else { Lit::FALSE };
            }
        }
        let mut comp_of = vec![usize::MAX; n];
        for (ci, comp) in sccs.iter().enumerate() {
            for &a in comp {
                comp_of[a] = ci;
            }
        }
        let mut circuit = Circuit {
            num_inputs: self.base,
            gates: Vec::new(),
            blocks: Vec::new(),
        };
        for (ci, comp) in sccs.iter().enumerate() {
            let cyclic = comp.len() > 1 || succ.of(comp[0]).contains(&(comp[0] as u32));
            if cyclic {
                for &a in comp {
                    for l in self.defs[a].iter().flatten() {
                        if l.is_negated() && self.atom(*l).is_some_and(|b| comp_of[b] == ci) {
                            return Err(a);
                        }
                    }
                }
            }
            self.emit_block(comp, cyclic, &mut map, &mut circuit);
        }
        // merge consecutive acyclic blocks
        let mut merged: Vec<Block> = Vec::new();
        for b in circuit.blocks.drain(..) {
            match merged.last_mut() {
                Some(m) if !m.cyclic && !b.cyclic => m.end = b.end,
                _ => merged.push(b),
            }
        }
        circuit.blocks = merged;
        Ok((circuit, map))
    }

    /// Emits the gates of the atoms of `comp` as one block, recording their literals in `map`.
    fn emit_block(&self, comp: &[usize], cyclic: bool, map: &mut [Lit], circuit: &mut Circuit) {
        // Reserve signals: one And per multi-literal body when there are several, then the
        // atom's own gate last.
        let start = circuit.gates.len();
        let mut next_gate = start;
        let mut plan: Vec<(usize, usize)> = Vec::new(); // (atom, its gate)
        for &a in comp {
            let bodies = &self.defs[a];
            let extra = if bodies.len() == 1 {
                0
            } else {
                bodies.iter().filter(|b| b.len() > 1).count()
            };
            next_gate += extra;
            plan.push((a, next_gate));
            map[a] = Lit::new(self.base + next_gate as u32, false);
            next_gate += 1;
        }
        let base = self.base;
        let remap = |l: Lit, map: &[Lit]| -> Lit {
            if l.signal() >= base {
                map[(l.signal() - base) as usize].xor(l.is_negated())
            } else {
                l
            }
        };
        for &(a, _) in &plan {
            let bodies = &self.defs[a];
            if bodies.len() == 1 {
                let ls = bodies[0].iter().map(|&l| remap(l, map)).collect();
                circuit.gates.push(Gate::And(ls));
                continue;
            }
            let mut ors = Vec::with_capacity(bodies.len());
            for b in bodies {
                if b.len() == 1 {
                    ors.push(remap(b[0], map));
                } else {
                    let ls = b.iter().map(|&l| remap(l, map)).collect();
                    ors.push(Lit::new(base + circuit.gates.len() as u32, false));
                    circuit.gates.push(Gate::And(ls));
                }
            }
            circuit.gates.push(Gate::Or(ors));
        }
        debug_assert_eq!(circuit.gates.len(), next_gate);
        circuit.blocks.push(Block {
            start: start as u32,
            end: circuit.gates.len() as u32,
            cyclic,
        });
    }
}

/// The successor atoms of each live atom, once each, ascending, in one flat array.
struct Successors {
    /// The successors of atom `a` are `list[start[a]..start[a + 1]]`.
    start: Vec<u32>,
    list: Vec<u32>,
}

impl Successors {
    fn new(simp: &Simplifier, live: &[bool]) -> Successors {
        let n = live.len();
        let mut start = vec![0u32; n + 1];
        let mut list: Vec<u32> = Vec::new();
        for a in 0..n {
            if live[a] {
                let from = list.len();
                for l in simp.defs[a].iter().flatten() {
                    if l.signal() >= simp.base {
                        list.push(l.signal() - simp.base);
                    }
                }
                list[from..].sort_unstable();
                let mut k = from;
                for j in from..list.len() {
                    if j == from || list[j] != list[k - 1] {
                        list[k] = list[j];
                        k += 1;
                    }
                }
                list.truncate(k);
            }
            start[a + 1] = list.len() as u32;
        }
        Successors { start, list }
    }

    fn of(&self, a: usize) -> &[u32] {
        &self.list[self.start[a] as usize..self.start[a + 1] as usize]
    }
}

/// The strongly connected components of the live atoms (iterative Tarjan), each ascending;
/// emitted dependencies first.
fn components(live: &[bool], succ: &Successors) -> Vec<Vec<usize>> {
    let n = live.len();
    let mut index = vec![u32::MAX; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut stack = Vec::new();
    let mut sccs: Vec<Vec<usize>> = Vec::new();
    let mut next_index = 0u32;
    for root in 0..n {
        if !live[root] || index[root] != u32::MAX {
            continue;
        }
        let mut work: Vec<(usize, usize)> = vec![(root, 0)];
        index[root] = next_index;
        low[root] = next_index;
        next_index += 1;
        stack.push(root);
        on_stack[root] = true;
        while let Some((v, pos)) = work.last_mut() {
            let v = *v;
            let ss = succ.of(v);
            if *pos < ss.len() {
                let w = ss[*pos] as usize;
                *pos += 1;
                if index[w] == u32::MAX {
                    index[w] = next_index;
                    low[w] = next_index;
                    next_index += 1;
                    stack.push(w);
                    on_stack[w] = true;
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
            } else {
                work.pop();
                if let Some((u, _)) = work.last() {
                    low[*u] = low[*u].min(low[v]);
                }
                if low[v] == index[v] {
                    let mut comp = Vec::new();
                    loop {
                        let w = stack.pop().expect("tarjan stack");
                        on_stack[w] = false;
                        comp.push(w);
                        if w == v {
                            break;
                        }
                    }
                    comp.sort_unstable();
                    sccs.push(comp);
                }
            }
        }
    }
    sccs
}
