//! Step 4a of grounding: the signals of the circuit before simplification. The inputs are
//! signal 0 (constant true), the fluents, then the moves of each role; every dynamic atom that
//! heads a ground rule gets a provisional signal after them, defined by its ground rule bodies;
//! `legal`, `next`, `terminal` and `goal` become provisional output literals.

use crate::circuit::Lit;
use crate::datalog::{Database, Relation};
use crate::relax::{GroundRules, Origins, RawLit};
use crate::rule::CRule;
use crate::terms::{FxHashMap, TermId};
use symgame_gdl::{CheckedDescription, Error, ErrorKind, Keywords, Sym};

/// The roles and the circuit inputs.
pub(crate) struct Inputs {
    /// The roles, in order of appearance.
    pub roles: Vec<TermId>,
    /// The fluents: the atoms of `true` in the relaxed model.
    pub fluents: Vec<TermId>,
    /// For each role, its moves: the atoms of `does` in the relaxed model.
    pub moves: Vec<Vec<TermId>>,
    /// For each `does` atom, its role and move (none when the role is not a role).
    does: Vec<Option<(usize, usize)>>,
    /// For each role, the signal of its first move.
    move_base: Vec<u32>,
    /// The number of input signals.
    pub count: u32,
}

impl Inputs {
    /// The inputs of the relaxed model in `db`; warns about moves of something not a role.
    pub fn new(
        desc: &CheckedDescription,
        roles: Vec<TermId>,
        db: &Database,
        warnings: &mut Vec<String>,
    ) -> Inputs {
        let kw = desc.description.keywords;
        let true_rel = &db.rels[&kw.true_];
        let fluents: Vec<TermId> = (0..true_rel.len()).map(|i| true_rel.tuple(i)[0]).collect();
        let nf = fluents.len() as u32;
        let does_rel = &db.rels[&kw.does];
        let mut moves: Vec<Vec<TermId>> = vec![Vec::new(); roles.len()];
        let mut does: Vec<Option<(usize, usize)>> = vec![None; does_rel.len() as usize];
        for i in 0..does_rel.len() {
            let t = does_rel.tuple(i);
            match roles.iter().position(|&r| r == t[0]) {
                Some(r) => {
                    does[i as usize] = Some((r, moves[r].len()));
                    moves[r].push(t[1]);
                }
                None => warnings.push(format!(
                    "legal moves for {}, which is not a role, are ignored",
                    db.store.show(t[0], &desc.description.symbols)
                )),
            }
        }
        let move_base: Vec<u32> = moves
            .iter()
            .scan(1 + nf, |acc, m| {
                let b = *acc;
                *acc += m.len() as u32;
                Some(b)
            })
            .collect();
        let count = 1 + nf + moves.iter().map(|m| m.len() as u32).sum::<u32>();
        Inputs {
            roles,
            fluents,
            moves,
            does,
            move_base,
            count,
        }
    }
}

/// The literals of `legal`, `next`, `terminal` and `goal`.
pub(crate) struct Outputs {
    /// `legal[r][m]`: when role `r` may play its move `m`.
    pub legal: Vec<Vec<Lit>>,
    /// `next[f]`: when fluent `f` holds in the next state.
    pub next: Vec<Lit>,
    pub terminal: Lit,
    /// For each role, `(value, condition)` pairs, ascending.
    pub goals: Vec<Vec<(u8, Lit)>>,
}

impl Outputs {
    /// Every output literal: the legal ones, the next ones, terminal, then the goals.
    pub fn lits(&self) -> Vec<Lit> {
        let goals = self.goals.iter().flatten().map(|g| g.1);
        let legal = self.legal.iter().flatten().chain(&self.next);
        legal.copied().chain([self.terminal]).chain(goals).collect()
    }

    /// The outputs with their literals replaced by `lits`, in the order of [`Outputs::lits`];
    /// goal values whose condition is false are left out.
    pub fn replaced(self, lits: &[Lit]) -> Outputs {
        let mut lits = lits.iter().copied();
        let mut next_lit = || lits.next().expect("one literal per output");
        let legal = self
            .legal
            .iter()
            .map(|ls| ls.iter().map(|_| next_lit()).collect())
            .collect();
        let next = self.next.iter().map(|_| next_lit()).collect();
        let terminal = next_lit();
        let goals = self
            .goals
            .iter()
            .map(|gs| {
                gs.iter()
                    .map(|&(v, _)| (v, next_lit()))
                    .filter(|&(_, l)| l != Lit::FALSE)
                    .collect()
            })
            .collect();
        Outputs {
            legal,
            next,
            terminal,
            goals,
        }
    }
}

/// The circuit signals of the atoms of the relaxed model.
pub(crate) struct Signals<'a> {
    inputs: &'a Inputs,
    kw: Keywords,
    /// Whether each relation (by symbol number) is dynamic.
    dynamic: &'a [bool],
    /// Per relation (by symbol number), per tuple: the provisional signal of the atom,
    /// `u32::MAX` when it heads no ground rule.
    atom_signal: Vec<Vec<u32>>,
    /// The atoms with a provisional signal, in signal order: (relation, tuple).
    pub atoms: Vec<(Sym, u32)>,
}

impl<'a> Signals<'a> {
    /// Gives a provisional signal, after the inputs, to every atom that heads a ground rule.
    /// `dynamic` tells for each relation (by symbol number) whether it is dynamic.
    pub fn new(
        desc: &CheckedDescription,
        inputs: &'a Inputs,
        dynamic: &'a [bool],
        rules: &GroundRules,
        db: &Database,
    ) -> Signals<'a> {
        let mut atom_signal: Vec<Vec<u32>> = vec![Vec::new(); dynamic.len()];
        let mut atoms: Vec<(Sym, u32)> = Vec::new();
        for &(p, i) in &rules.heads {
            let sigs = &mut atom_signal[p.0 as usize];
            if sigs.is_empty() {
                sigs.resize(db.rels[&p].len() as usize, u32::MAX);
            }
            if sigs[i as usize] == u32::MAX {
                sigs[i as usize] = inputs.count + atoms.len() as u32;
                atoms.push((p, i));
            }
        }
        Signals {
            inputs,
            kw: desc.description.keywords,
            dynamic,
            atom_signal,
            atoms,
        }
    }

    /// The literal of tuple `i` of dynamic relation `p`.
    fn lit(&self, p: Sym, i: u32) -> Lit {
        if p == self.kw.true_ {
            Lit::new(1 + i, false)
        } else if p == self.kw.does {
            match self.inputs.does[i as usize] {
                Some((r, m)) => Lit::new(self.inputs.move_base[r] + m as u32, false),
                None => Lit::FALSE,
            }
        } else {
            match self.atom_signal[p.0 as usize].get(i as usize) {
                Some(&s) if s != u32::MAX => Lit::new(s, false),
                _ => Lit::FALSE,
            }
        }
    }

    /// For each atom, in signal order, its ground rule bodies.
    pub fn bodies(
        &self,
        rules: &GroundRules,
        negated: &FxHashMap<Sym, Relation>,
        db: &Database,
    ) -> Vec<Vec<Vec<Lit>>> {
        let mut defs: Vec<Vec<Vec<Lit>>> = vec![Vec::new(); self.atoms.len()];
        for (k, &(p, i)) in rules.heads.iter().enumerate() {
            let a = (self.atom_signal[p.0 as usize][i as usize] - self.inputs.count) as usize;
            let lits = rules.body(k);
            let mut body = Vec::with_capacity(lits.len());
            for l in lits {
                match *l {
                    RawLit::Pos(p, i) => body.push(self.lit(p, i)),
                    RawLit::Neg(p, t) => {
                        if let Some(i) = db.rels[&p].find(negated[&p].tuple(t)) {
                            body.push(!self.lit(p, i));
                        }
                    }
                }
            }
            defs[a].push(body);
        }
        defs
    }

    /// The literal of atom `p(t)`: false when absent from the relaxed model, true for a static
    /// atom present.
    fn lookup(&self, db: &Database, p: Sym, t: &[TermId]) -> Lit {
        match db.rels[&p].find(t) {
            None => Lit::FALSE,
            Some(_) if !self.dynamic.get(p.0 as usize).copied().unwrap_or(false) => Lit::TRUE,
            Some(i) => self.lit(p, i),
        }
    }

    /// The outputs as provisional literals; an error for a goal value that is not an integer
    /// from 0 to 100, a warning for a goal of something not a role.
    pub fn outputs(
        &self,
        desc: &CheckedDescription,
        rules: &[CRule],
        origins: &Origins,
        db: &Database,
        warnings: &mut Vec<String>,
    ) -> Result<Outputs, Error> {
        let d = &desc.description;
        let kw = self.kw;
        let roles = &self.inputs.roles;
        let legal: Vec<Vec<Lit>> = (0..roles.len())
            .map(|r| {
                self.inputs.moves[r]
                    .iter()
                    .map(|&m| self.lookup(db, kw.legal, &[roles[r], m]))
                    .collect()
            })
            .collect();
        let next: Vec<Lit> = self
            .inputs
            .fluents
            .iter()
            .map(|&f| self.lookup(db, kw.next, &[f]))
            .collect();
        let terminal = self.lookup(db, kw.terminal, &[]);
        let mut goals: Vec<Vec<(u8, Lit)>> = vec![Vec::new(); roles.len()];
        let goal_rel = &db.rels[&kw.goal];
        for i in 0..goal_rel.len() {
            let t = goal_rel.tuple(i);
            let value = db
                .store
                .as_const(t[1])
                .and_then(|s| d.symbols.name(s).parse::<u8>().ok())
                .filter(|&v| v <= 100);
            let Some(value) = value else {
                return Err(Error::at(
                    ErrorKind::BadGoalValue,
                    &d.source,
                    origins.span(desc, rules, (kw.goal, i)).unwrap_or_default(),
                    format!(
                        "goal value {} is not an integer from 0 to 100",
                        db.store.show(t[1], &d.symbols)
                    ),
                ));
            };
            let Some(r) = roles.iter().position(|&r| r == t[0]) else {
                warnings.push(format!(
                    "goal for {}, which is not a role, is ignored",
                    db.store.show(t[0], &d.symbols)
                ));
                continue;
            };
            goals[r].push((value, self.lookup(db, kw.goal, t)));
        }
        for gs in &mut goals {
            gs.sort();
        }
        Ok(Outputs {
            legal,
            next,
            terminal,
            goals,
        })
    }
}
