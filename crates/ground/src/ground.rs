//! From a checked GDL description to a ground game: the public types, and [`ground`], which
//! runs the steps in order (each in its own module).
//!
//! 0. Rule bodies are decomposed (`decompose.rs`: independent variable groups, variable
//!    elimination, projection where a variable stops being needed), so that joins cost sums
//!    instead of products.
//! 1. *Complete* relations (`complete.rs`: static ones read under `not`, facts, `role`, `init`,
//!    `cost`, and all they depend on) are computed exactly, stratum by stratum.
//! 2. Demand restriction (`demand.rs`, magic sets) guards every other relation not read under
//!    `not`, so that it is only evaluated for the argument values its callers can ask for.
//! 3. The dynamic relations, and the other static ones restricted to their demanded atoms, are
//!    found by a relaxed fixpoint (`relax.rs`): negation on dynamic relations is ignored,
//!    `distinct` and negation on static relations are honoured, and the bridge rules
//!    `true ⇐ init`, `true ⇐ next`, `does ⇐ legal` connect the time steps. Every rule binding
//!    found on the way is kept as a ground rule with its static literals folded away.
//! 4. The ground rules become a circuit (`signals.rs`, `simplify.rs`): constants propagated,
//!    aliases merged, rules outside the cone of `legal`, `next`, `goal` and `terminal` dropped,
//!    recursive atoms grouped into cyclic blocks (a negative cycle at ground level is an error).

use crate::circuit::{Circuit, Lit};
use crate::complete::{self, Kinds};
use crate::cost::read_costs;
use crate::datalog::{Abort, Database, Limits, Relation};
use crate::decompose::Program;
use crate::demand::{self, Demand};
use crate::relax::{relax, Relaxed};
use crate::rule::{relation_name, CRule};
use crate::signals::{Inputs, Outputs, Signals};
use crate::simplify::{simplify, Stop};
use crate::terms::{FxHashMap, GroundTerm, TermId};
use serde::Serialize;
use std::collections::HashSet;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::time::{Duration, Instant};
use symgame_gdl::{CheckedDescription, Error, ErrorKind, Span, Sym};

/// Limits on grounding (hitting one is an [`ErrorKind::ResourceLimit`] error) and switches.
#[derive(Clone, Debug)]
pub struct GroundOptions {
    /// Wall-clock limit for the whole grounding.
    pub time_limit: Option<Duration>,
    /// Maximum number of ground atoms and ground rules together.
    pub max_size: usize,
    /// Evaluate relations only for the atoms their callers can ask for (magic sets); the
    /// ground game means the same either way, so turning it off is for cross-checks.
    pub demand: bool,
    /// Where the evaluation of the rules is, for a watchdog that ends a run stuck in one step
    /// and wants to name the rule: the byte offset of the rule being evaluated plus one, or 0
    /// outside the evaluation of rules (set back to 0 when grounding returns).
    pub at_rule: Option<Arc<AtomicU64>>,
}

impl Default for GroundOptions {
    fn default() -> GroundOptions {
        GroundOptions {
            time_limit: None,
            max_size: 30_000_000,
            demand: true,
            at_rule: None,
        }
    }
}

/// A role with its possible moves (every `does` atom that can be legal).
#[derive(Clone, PartialEq, Eq, Debug, Serialize)]
pub struct Role {
    /// The role's name as written in `(role ...)`.
    pub name: GroundTerm,
    /// The moves, in a fixed order; `MoveId`s index this list.
    pub moves: Vec<GroundTerm>,
    /// `costs[m]`: the cost of move `m`, from the optional static relation
    /// `(cost ?role ?move ?n)` (a positive integer; 1 when not given).
    pub costs: Vec<u32>,
}

/// Sizes and time of a grounding.
#[derive(Clone, Debug, Default, Serialize)]
pub struct GroundStats {
    /// Tuples of the static relations.
    pub static_tuples: usize,
    /// Ground atoms of dynamic relations in the relaxed fixpoint.
    pub dynamic_atoms: usize,
    /// Ground rules found (before simplification).
    pub ground_rules: usize,
    /// Gates after simplification.
    pub gates: usize,
    /// Gate inputs after simplification.
    pub wires: usize,
    /// Cyclic blocks (recursive ground atoms) after simplification.
    pub cyclic_blocks: usize,
    /// Wall-clock time of the grounding.
    pub time: Duration,
}

/// A ground (propositional) game.
///
/// The state is the set of true fluents. Circuit inputs are: signal 0 (constant true), then one
/// signal per fluent ([`GroundGame::fluent_signal`]), then one per move of each role in role
/// order ([`GroundGame::move_signal`]). `legal`, `goals` and `terminal` read fluents only;
/// `next` reads fluents and moves.
#[derive(Clone, Debug, Serialize)]
pub struct GroundGame {
    /// The roles in the order of the description.
    pub roles: Vec<Role>,
    /// The fluents (arguments of `true`) that can occur.
    pub fluents: Vec<GroundTerm>,
    /// Fluents true in the initial state, ascending.
    pub init: Vec<usize>,
    /// The circuit.
    pub circuit: Circuit,
    /// `legal[r][m]`: when role `r` may play its move `m`.
    pub legal: Vec<Vec<Lit>>,
    /// `next[f]`: when fluent `f` holds in the next state.
    pub next: Vec<Lit>,
    /// `goals[r]`: `(value, condition)` pairs, values ascending and distinct.
    pub goals: Vec<Vec<(u8, Lit)>>,
    /// When the state is terminal.
    pub terminal: Lit,
    /// Sizes and time.
    pub stats: GroundStats,
    /// Warnings of the checker and of the grounder.
    pub warnings: Vec<String>,
}

impl GroundGame {
    /// The circuit signal of fluent `f`.
    pub fn fluent_signal(&self, f: usize) -> u32 {
        1 + f as u32
    }

    /// The circuit signal of move `m` of role `r`.
    pub fn move_signal(&self, r: usize, m: usize) -> u32 {
        let before: usize = self.roles[..r].iter().map(|x| x.moves.len()).sum();
        (1 + self.fluents.len() + before + m) as u32
    }

    /// Per gate of the circuit: whether it reads a move signal, directly or through other
    /// gates. All the gates of a cyclic block are, if one of them reads such a signal (the
    /// block is evaluated as a whole). The move-independent gates have the same value for
    /// every joint move of a state, so the reasoners evaluate them once per state or set.
    pub fn move_dependent_gates(&self) -> Vec<bool> {
        let c = &self.circuit;
        let nf = self.fluents.len() as u32;
        let ni = c.num_inputs;
        let is_move = |s: u32| s > nf && s < ni;
        let mut dep = vec![false; c.gates.len()];
        for b in &c.blocks {
            let range = b.start as usize..b.end as usize;
            let reads_dep = |dep: &[bool], l: &Lit| {
                let s = l.signal();
                is_move(s) || (s >= ni && dep[(s - ni) as usize])
            };
            if b.cyclic {
                let d = range
                    .clone()
                    .any(|g| c.gates[g].inputs().iter().any(|l| reads_dep(&dep, l)));
                for g in range {
                    dep[g] = d;
                }
            } else {
                for g in range {
                    dep[g] = c.gates[g].inputs().iter().any(|l| reads_dep(&dep, l));
                }
            }
        }
        dep
    }

    /// Per signal of the circuit (constant, fluents, moves, then gates): the roles whose move
    /// signals it reads, directly or through other gates, as a bit set (bit `r` for role `r`;
    /// `None` with more than 64 roles). All the gates of a cyclic block read the union of what
    /// the block reads, as in [`Self::move_dependent_gates`]. A next function that reads the
    /// moves of one role only lets an image treat the roles' moves one role at a time.
    pub fn move_roles_of_signals(&self) -> Option<Vec<u64>> {
        if self.roles.len() > 64 {
            return None;
        }
        let c = &self.circuit;
        let ni = c.num_inputs as usize;
        let mut mask = vec![0u64; ni + c.gates.len()];
        for r in 0..self.roles.len() {
            for m in 0..self.roles[r].moves.len() {
                mask[self.move_signal(r, m) as usize] = 1 << r;
            }
        }
        let reads = |mask: &[u64], g: usize| {
            c.gates[g]
                .inputs()
                .iter()
                .fold(0, |acc, l| acc | mask[l.signal() as usize])
        };
        for b in &c.blocks {
            let range = b.start as usize..b.end as usize;
            if b.cyclic {
                let m = range.clone().fold(0, |acc, g| acc | reads(&mask, g));
                for g in range {
                    mask[ni + g] = m;
                }
            } else {
                for g in range {
                    mask[ni + g] = reads(&mask, g);
                }
            }
        }
        Some(mask)
    }

    /// The total number of moves over all roles.
    pub fn num_moves(&self) -> usize {
        self.roles.iter().map(|r| r.moves.len()).sum()
    }

    /// The index of the fluent written as `t`.
    pub fn find_fluent(&self, t: &GroundTerm) -> Option<usize> {
        self.fluents.iter().position(|f| f == t)
    }

    /// The cost of move `m` of role `r` (1 unless the `cost` relation gives another).
    pub fn move_cost(&self, r: usize, m: usize) -> u32 {
        self.roles[r].costs[m]
    }

    /// The index of role `r`'s move written as `t`.
    pub fn find_move(&self, r: usize, t: &GroundTerm) -> Option<usize> {
        self.roles[r].moves.iter().position(|m| m == t)
    }

    /// The index of the role named `name` (case-insensitive).
    pub fn find_role(&self, name: &str) -> Option<usize> {
        let lower = name.to_ascii_lowercase();
        self.roles.iter().position(|r| r.name.to_string() == lower)
    }
}

/// Grounds a checked description.
pub fn ground(desc: &CheckedDescription, opts: &GroundOptions) -> Result<GroundGame, Error> {
    let started = Instant::now();
    let mut limits = Limits::new(started, opts.time_limit, opts.max_size);
    limits.at_rule = opts.at_rule.clone();
    // The rules are evaluated up to the circuit; no rule is named from there on, or on return.
    let _outside = OutsideRules(opts.at_rule.clone());
    let d = &desc.description;
    let mut db = Database::default();
    // 0. Decompose the rule bodies.
    let program = Program::new(desc, &mut db.store);
    // 1. Which relations are dynamic, and which complete.
    let kinds = Kinds::new(desc, &program.rules)?;
    // 2. Demand restriction.
    let mut next_sym = program.next_sym(desc);
    let demand = restrict(desc, &program, &kinds, opts.demand, &mut next_sym);
    let magic: HashSet<Sym> = demand.magic.iter().map(|&(m, _)| m).collect();
    // 1. The complete relations read by the demanded rules, by the keywords, and what they
    // read, evaluated exactly.
    db.rels = empty_relations(desc, &program.rules, &demand.magic);
    let needed = (demand.complete_read.iter().copied())
        .chain(
            seeds(desc)
                .into_iter()
                .filter(|p| kinds.complete.contains(p)),
        )
        .chain(kinds.cost)
        .collect();
    complete::evaluate(
        desc,
        &program,
        &kinds.complete,
        needed,
        &mut db,
        &mut limits,
    )?;
    if std::env::var_os("SYMGAME_DEBUG_GROUND").is_some() {
        eprintln!("static phase: {:?}", started.elapsed());
    }
    let roles = role_terms(desc, &db)?;
    // 3. The relaxed fixpoint.
    let dynamic = &kinds.dynamic;
    let relaxed = relax(
        desc,
        demand.rules,
        dynamic,
        &magic,
        next_sym,
        &mut db,
        &mut limits,
    )?;
    let static_tuples = count_tuples(&db, |p| !dynamic.contains(&p) && !magic.contains(&p));
    let dynamic_atoms = count_tuples(&db, |p| dynamic.contains(&p));
    // 4. The circuit.
    limits.at(None);
    let mut warnings: Vec<String> = desc.warnings.iter().map(|w| w.message.clone()).collect();
    let inputs = Inputs::new(desc, roles, &db, &mut warnings);
    let costs = read_costs(
        desc,
        kinds.cost,
        kinds.cost.and_then(|c| db.rels.get(&c)),
        &db.store,
        &inputs.roles,
        &inputs.moves,
        &mut warnings,
    )?;
    let (circuit, outputs, ground_rules) = build_circuit(
        desc,
        &program,
        relaxed,
        &inputs,
        &db,
        &limits,
        &mut warnings,
    )?;
    let roles = ground_roles(desc, &db, &inputs, costs, &outputs, &mut warnings);
    let stats = GroundStats {
        static_tuples,
        dynamic_atoms,
        ground_rules,
        gates: circuit.gates.len(),
        wires: circuit.num_wires(),
        cyclic_blocks: circuit.blocks.iter().filter(|b| b.cyclic).count(),
        time: started.elapsed(),
    };
    let fluents = inputs.fluents.iter();
    Ok(GroundGame {
        roles,
        fluents: fluents
            .map(|&f| db.store.to_ground(f, &d.symbols))
            .collect(),
        init: initial_state(desc, &db),
        circuit,
        legal: outputs.legal,
        next: outputs.next,
        goals: outputs.goals,
        terminal: outputs.terminal,
        stats,
        warnings,
    })
}

/// Marks (on drop) that grounding is outside the evaluation of rules.
struct OutsideRules(Option<Arc<AtomicU64>>);

impl Drop for OutsideRules {
    fn drop(&mut self) {
        if let Some(at) = &self.0 {
            at.store(0, std::sync::atomic::Ordering::Relaxed);
        }
    }
}

/// The relations asked for in full: `legal`, `next`, `goal`, `terminal`, `role`, `init`.
fn seeds(desc: &CheckedDescription) -> [Sym; 6] {
    let kw = desc.description.keywords;
    [kw.legal, kw.next, kw.goal, kw.terminal, kw.role, kw.init]
}

/// Step 2: the rules rewritten so that only the atoms the seeds ask for are derived (fresh
/// relation symbols from `next_sym`).
fn restrict(
    desc: &CheckedDescription,
    program: &Program,
    kinds: &Kinds,
    enabled: bool,
    next_sym: &mut u32,
) -> Demand {
    let kw = desc.description.keywords;
    let demand = demand::restrict(
        &program.rules,
        &|p| kinds.complete.contains(&p) || p == kw.true_ || p == kw.does,
        &|p| program.buckets.contains(&p),
        &seeds(desc),
        enabled,
        next_sym,
    );
    if std::env::var_os("SYMGAME_DEBUG_GROUND").is_some_and(|v| v == "rules") {
        for r in &demand.rules {
            eprintln!("{r:?}");
        }
    }
    demand
}

/// Step 4: the circuit of the relaxed model, the outputs in it, and the number of ground rules
/// it came from.
fn build_circuit(
    desc: &CheckedDescription,
    program: &Program,
    relaxed: Relaxed,
    inputs: &Inputs,
    db: &Database,
    limits: &Limits,
    warnings: &mut Vec<String>,
) -> Result<(Circuit, Outputs, usize), Error> {
    let Relaxed {
        rules,
        negated,
        origins,
        dynamic,
    } = relaxed;
    let signals = Signals::new(desc, inputs, &dynamic, &rules, db);
    let defs = signals.bodies(&rules, &negated, db);
    let ground_rules = rules.len();
    drop((rules, negated));
    let outputs = signals.outputs(desc, &program.rules, &origins, db, warnings)?;
    let span_of = |a: usize| origins.span(desc, &program.rules, signals.atoms[a]);
    let (circuit, lits) = simplify(inputs.count, defs, &outputs.lits(), limits.deadline).map_err(
        |stop| match stop {
            Stop::Deadline(a) => {
                limits.error(Abort::Deadline(span_of(a)), &desc.description.source)
            }
            Stop::NegativeCycle(a) => negative_cycle(desc, signals.atoms[a].0, span_of(a)),
        },
    )?;
    Ok((circuit, outputs.replaced(&lits), ground_rules))
}

/// Empty relations for every relation of the description, the auxiliary relations of `rules`,
/// the demand relations `magic` (with their arities) and the keywords.
fn empty_relations(
    desc: &CheckedDescription,
    rules: &[CRule],
    magic: &[(Sym, usize)],
) -> FxHashMap<Sym, Relation> {
    let d = &desc.description;
    let mut rels: FxHashMap<Sym, Relation> = FxHashMap::default();
    for (&p, &a) in &desc.arity {
        rels.insert(p, Relation::new(a));
    }
    for r in rules
        .iter()
        .filter(|r| r.head_pred.0 as usize >= d.symbols.len())
    {
        rels.entry(r.head_pred)
            .or_insert_with(|| Relation::new(r.head.len()));
    }
    for &(m, a) in magic {
        rels.insert(m, Relation::new(a));
    }
    for (p, a) in d.keywords.relations() {
        rels.entry(p).or_insert_with(|| Relation::new(a));
    }
    rels
}

/// The number of tuples of the relations `p` with `keep(p)`.
fn count_tuples(db: &Database, keep: impl Fn(Sym) -> bool) -> usize {
    db.rels
        .iter()
        .filter(|(p, _)| keep(**p))
        .map(|(_, r)| r.len() as usize)
        .sum()
}

/// The roles, in order of appearance; an error if there is none.
fn role_terms(desc: &CheckedDescription, db: &Database) -> Result<Vec<TermId>, Error> {
    let rel = &db.rels[&desc.description.keywords.role];
    let roles: Vec<TermId> = (0..rel.len()).map(|i| rel.tuple(i)[0]).collect();
    if roles.is_empty() {
        return Err(Error::file(
            ErrorKind::BadRole,
            desc.description.source.name(),
            "the game has no role: add a fact such as (role white)",
        ));
    }
    Ok(roles)
}

/// The error for the atoms of relation `p` depending on their own negation.
fn negative_cycle(desc: &CheckedDescription, p: Sym, span: Option<Span>) -> Error {
    let d = &desc.description;
    Error::at(
        ErrorKind::UnstratifiedNegation,
        &d.source,
        span.unwrap_or_default(),
        format!(
            "the ground atoms of {} depend on their own negation (a cycle through `not`)",
            relation_name(d, p)
        ),
    )
}

/// The roles with their moves and costs; warns about a role without moves or goals.
fn ground_roles(
    desc: &CheckedDescription,
    db: &Database,
    inputs: &Inputs,
    costs: Vec<Vec<u32>>,
    outputs: &Outputs,
    warnings: &mut Vec<String>,
) -> Vec<Role> {
    let symbols = &desc.description.symbols;
    let roles: Vec<Role> = inputs
        .roles
        .iter()
        .zip(&inputs.moves)
        .zip(costs)
        .map(|((&r, ms), costs)| Role {
            name: db.store.to_ground(r, symbols),
            moves: ms.iter().map(|&m| db.store.to_ground(m, symbols)).collect(),
            costs,
        })
        .collect();
    for (r, role) in roles.iter().enumerate() {
        if role.moves.is_empty() {
            warnings.push(format!("role {} has no legal move in any state", role.name));
        }
        if outputs.goals[r].is_empty() {
            warnings.push(format!("role {} has no reachable goal", role.name));
        }
    }
    roles
}

/// The fluents true in the initial state, ascending.
fn initial_state(desc: &CheckedDescription, db: &Database) -> Vec<usize> {
    let kw = desc.description.keywords;
    let (init_rel, true_rel) = (&db.rels[&kw.init], &db.rels[&kw.true_]);
    let mut init: Vec<usize> = (0..init_rel.len())
        .filter_map(|i| true_rel.find(init_rel.tuple(i)).map(|f| f as usize))
        .collect();
    init.sort_unstable();
    init
}
