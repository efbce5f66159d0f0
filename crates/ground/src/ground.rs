//! From a checked GDL description to a ground game.
//!
//! 0. Rule bodies are decomposed (independent variable groups, variable elimination, projection
//!    where a variable stops being needed), so that joins cost sums instead of products.
//! 1. *Complete* relations (static ones read under `not`, facts, `role`, `init`, `cost`, and all
//!    they depend on) are computed exactly, stratum by stratum.
//! 2. Demand restriction (`demand.rs`, magic sets) guards every other relation not read under
//!    `not`, so that it is only evaluated for the argument values its callers can ask for.
//! 3. The dynamic relations, and the other static ones restricted to their demanded atoms, are
//!    found by a relaxed fixpoint: negation on dynamic relations is ignored, `distinct` and
//!    negation on static relations are honoured, and the bridge rules `true ⇐ init`,
//!    `true ⇐ next`, `does ⇐ legal` connect the time steps. Every rule binding found on the way
//!    is kept as a ground rule with its static literals folded away.
//! 4. The ground rules become a circuit: constants propagated, aliases merged, rules outside the
//!    cone of `legal`, `next`, `goal` and `terminal` dropped, recursive atoms grouped into
//!    cyclic blocks (a negative cycle at ground level is an error).

use crate::circuit::{Block, Circuit, Gate, Lit};
use crate::cost::{cost_relation, read_costs};
use crate::datalog::{instantiate, Abort, CRule, Evaluator, Pattern, Relation, Sink};
use crate::demand;
use crate::terms::{FxHashMap, GroundTerm, TermId, TermStore};
use serde::Serialize;
use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};
use symgame_gdl::{CheckedDescription, Error, ErrorKind, NormalLiteral, Span, Sym};

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
}

impl Default for GroundOptions {
    fn default() -> GroundOptions {
        GroundOptions {
            time_limit: None,
            max_size: 30_000_000,
            demand: true,
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

/// A body literal of a ground rule before the circuit is built.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
enum RawLit {
    /// A dynamic atom present in the relaxed model (relation, tuple index).
    Pos(Sym, u32),
    /// The negation of a dynamic atom, which may be absent from the relaxed model (relation,
    /// index in the table of negated atoms).
    Neg(Sym, u32),
}

/// The ground rules found by the relaxed fixpoint, in one flat arena (no allocation per rule),
/// in the order they were found. The same rule can occur twice (found through two source
/// rules, or through two witnesses of a folded static literal): rare, and the simplifier
/// merges repeated bodies anyway.
struct GroundRules {
    heads: Vec<(Sym, u32)>,
    /// The body of rule `i` is `lits[start[i]..start[i + 1]]`.
    start: Vec<u32>,
    lits: Vec<RawLit>,
}

impl GroundRules {
    fn new() -> GroundRules {
        GroundRules {
            heads: Vec::new(),
            start: vec![0],
            lits: Vec::new(),
        }
    }

    fn len(&self) -> usize {
        self.heads.len()
    }

    fn body(&self, i: usize) -> &[RawLit] {
        &self.lits[self.start[i] as usize..self.start[i + 1] as usize]
    }

    /// Adds the rule `head <= body`.
    fn push(&mut self, head: (Sym, u32), body: &[RawLit]) {
        self.heads.push(head);
        self.lits.extend_from_slice(body);
        self.start.push(self.lits.len() as u32);
    }
}

/// Grounds a checked description.
pub fn ground(desc: &CheckedDescription, opts: &GroundOptions) -> Result<GroundGame, Error> {
    let started = Instant::now();
    let deadline = opts.time_limit.map(|d| started + d);
    let d = &desc.description;
    let kw = d.keywords;
    let source = &d.source;
    let err_at = |kind: ErrorKind, span: Span, msg: String| Error::at(kind, source, span, msg);
    let limit_error = |what: Abort| {
        let (span, msg) = match what {
            Abort::Deadline(span) => (
                span,
                format!(
                    "grounding stopped: time limit of {:.1} s reached",
                    opts.time_limit.unwrap_or_default().as_secs_f64()
                ),
            ),
            Abort::Limit(span) => (
                span,
                format!(
                    "grounding stopped: more than {} ground atoms and rules",
                    opts.max_size
                ),
            ),
        };
        match span {
            Some(span) => Error::at(
                ErrorKind::ResourceLimit,
                source,
                span,
                format!("{msg} while grounding this rule"),
            ),
            None => Error::file(ErrorKind::ResourceLimit, source.name(), msg),
        }
    };

    let mut store = TermStore::default();
    let compiled: Vec<CRule> = desc
        .rules
        .iter()
        .enumerate()
        .map(|(i, r)| compile_rule(r, i, &mut store))
        .collect();
    // Split rule bodies into independent parts (auxiliary relations get fresh symbols).
    let (crules, aux_preds, buckets) = decompose(compiled, d.symbols.len() as u32);
    let mut stratum = desc.stratum.clone();
    for r in &crules {
        if let Some(&(_, orig)) = aux_preds.iter().find(|(p, _)| *p == r.head_pred) {
            let s = stratum.get(&orig).copied().unwrap_or(0);
            stratum.insert(r.head_pred, s);
        }
    }
    let pred_name = |p: Sym| -> &str {
        if (p.0 as usize) < d.symbols.len() {
            d.symbols.name(p)
        } else {
            "(auxiliary relation)"
        }
    };

    // Dynamic relations: those depending on `true` or `does`.
    let mut dynamic: HashSet<Sym> = [kw.true_, kw.does].into_iter().collect();
    loop {
        let mut changed = false;
        for r in &crules {
            if !dynamic.contains(&r.head_pred)
                && r.pos.iter().chain(&r.neg).any(|(p, _)| dynamic.contains(p))
            {
                dynamic.insert(r.head_pred);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    for r in &crules {
        if dynamic.contains(&r.head_pred) && (r.head_pred == kw.true_ || r.head_pred == kw.does) {
            return Err(err_at(
                ErrorKind::KeywordPlacement,
                r.span,
                "`true` and `does` cannot be rule heads".into(),
            ));
        }
    }

    let cost = cost_relation(desc, &dynamic)?;
    // Complete relations: static ones read under `not`, facts, `role`, `init` and `cost`, and
    // all they depend on. They are evaluated in full, stratum by stratum; every other relation
    // is evaluated in the relaxed fixpoint, restricted to the atoms its callers can ask for.
    let mut complete: HashSet<Sym> = [kw.role, kw.init].into_iter().chain(cost).collect();
    for r in &crules {
        for (p, _) in &r.neg {
            if !dynamic.contains(p) {
                complete.insert(*p);
            }
        }
    }
    let mut has_body: HashSet<Sym> = HashSet::new();
    for r in &crules {
        if !r.pos.is_empty() || !r.neg.is_empty() {
            has_body.insert(r.head_pred);
        }
    }
    for r in &crules {
        if !dynamic.contains(&r.head_pred) && !has_body.contains(&r.head_pred) {
            complete.insert(r.head_pred);
        }
    }
    close_over_bodies(&crules, &mut complete);
    let mut next_sym = crules
        .iter()
        .map(|r| r.head_pred.0 + 1)
        .max()
        .unwrap_or(0)
        .max(d.symbols.len() as u32);
    let seeds = [kw.legal, kw.next, kw.goal, kw.terminal, kw.role, kw.init];
    let demand = demand::restrict(
        &crules,
        &|p| complete.contains(&p) || p == kw.true_ || p == kw.does,
        &|p| buckets.contains(&p),
        &seeds,
        opts.demand,
        &mut next_sym,
    );
    let magic: HashSet<Sym> = demand.magic.iter().map(|&(m, _)| m).collect();
    if std::env::var_os("SYMGAME_DEBUG_GROUND").is_some_and(|v| v == "rules") {
        for r in &demand.rules {
            eprintln!("{r:?}");
        }
    }
    // The complete relations read by the demanded rules, the keywords, and what they read.
    let mut needed: HashSet<Sym> = demand
        .complete_read
        .iter()
        .copied()
        .chain(seeds.iter().copied().filter(|p| complete.contains(p)))
        .chain(cost)
        .collect();
    close_over_bodies(&crules, &mut needed);

    let mut rels: FxHashMap<Sym, Relation> = FxHashMap::default();
    for (&p, &a) in &desc.arity {
        rels.insert(p, Relation::new(a));
    }
    for r in crules
        .iter()
        .filter(|r| r.head_pred.0 as usize >= d.symbols.len())
    {
        rels.entry(r.head_pred)
            .or_insert_with(|| Relation::new(r.head.len()));
    }
    for &(m, a) in &demand.magic {
        rels.insert(m, Relation::new(a));
    }
    for (p, a) in [
        (kw.true_, 1),
        (kw.does, 2),
        (kw.init, 1),
        (kw.next, 1),
        (kw.legal, 2),
        (kw.goal, 2),
        (kw.terminal, 0),
        (kw.role, 1),
    ] {
        rels.entry(p).or_insert_with(|| Relation::new(a));
    }

    // 1. Static relations, stratum by stratum, negation exact.
    let mut by_stratum: Vec<(usize, usize)> = crules
        .iter()
        .enumerate()
        .filter(|(_, r)| complete.contains(&r.head_pred) && needed.contains(&r.head_pred))
        .map(|(i, r)| (stratum.get(&r.head_pred).copied().unwrap_or(0), i))
        .collect();
    by_stratum.sort();
    let mut budget = Budget {
        used: 0,
        max: opts.max_size,
    };
    let mut i = 0;
    while i < by_stratum.len() {
        let s = by_stratum[i].0;
        let mut group = Vec::new();
        while i < by_stratum.len() && by_stratum[i].0 == s {
            group.push(by_stratum[i].1);
            i += 1;
        }
        let heads: HashSet<Sym> = group.iter().map(|&r| crules[r].head_pred).collect();
        for &r in &group {
            if let Some((p, _)) = crules[r].neg.iter().find(|(p, _)| heads.contains(p)) {
                return Err(err_at(
                    ErrorKind::UnstratifiedNegation,
                    crules[r].span,
                    format!(
                        "relation {} is defined through its own negation; symgame needs a stratified \
                         description",
                        pred_name(*p)
                    ),
                ));
            }
        }
        let mut sink = StaticSink {
            budget: &mut budget,
            tuple: Vec::new(),
        };
        let mut ev = Evaluator {
            store: &mut store,
            rels: &mut rels,
            deadline,
            steps: 0,
            profile: None,
        };
        ev.fixpoint(&crules, &group, &|_| true, &mut sink)
            .map_err(limit_error)?;
    }
    if std::env::var_os("SYMGAME_DEBUG_GROUND").is_some() {
        eprintln!("static phase: {:?}", started.elapsed());
    }
    // Roles, in order of appearance.
    let role_terms: Vec<TermId> = {
        let rel = &rels[&kw.role];
        (0..rel.len()).map(|i| rel.tuple(i)[0]).collect()
    };
    if role_terms.is_empty() {
        return Err(Error::file(
            ErrorKind::BadRole,
            source.name(),
            "the game has no role: add a fact such as (role white)",
        ));
    }

    // 2. The relaxed fixpoint of the dynamic relations (and of the static ones restricted to
    // their demanded atoms).
    let mut all_rules = demand.rules;
    let bridge = |head: Sym, body: Sym, arity: usize| -> CRule {
        let vars: Vec<Pattern> = (0..arity as u32).map(Pattern::Var).collect();
        CRule {
            head_pred: head,
            head: vars.clone(),
            pos: vec![(body, vars)],
            neg: vec![],
            distinct: vec![],
            equal: vec![],
            nvars: arity,
            span: Span::default(),
            origin: None,
        }
    };
    all_rules.push(bridge(kw.true_, kw.init, 1));
    all_rules.push(bridge(kw.true_, kw.next, 1));
    all_rules.push(bridge(kw.does, kw.legal, 2));
    let dyn_rules: Vec<usize> = (0..all_rules.len()).collect();
    let mut is_dynamic = vec![false; next_sym as usize];
    for p in &dynamic {
        if let Some(x) = is_dynamic.get_mut(p.0 as usize) {
            *x = true;
        }
    }
    let mut rec = Recorder {
        dynamic: &is_dynamic,
        rules: GroundRules::new(),
        negated: FxHashMap::default(),
        origin: FxHashMap::default(),
        budget: &mut budget,
        body: Vec::new(),
        tuple: Vec::new(),
    };
    {
        let debug = std::env::var_os("SYMGAME_DEBUG_GROUND").is_some();
        let mut ev = Evaluator {
            store: &mut store,
            rels: &mut rels,
            deadline,
            steps: 0,
            profile: debug.then(|| vec![0; all_rules.len()]),
        };
        let done = ev.fixpoint(&all_rules, &dyn_rules, &|p| !dynamic.contains(&p), &mut rec);
        if let Some(profile) = &ev.profile {
            let mut by_rule: Vec<(u64, usize)> =
                profile.iter().enumerate().map(|(i, &n)| (n, i)).collect();
            by_rule.sort_unstable_by(|a, b| b.cmp(a));
            for &(n, i) in by_rule.iter().take(6) {
                let r = &all_rules[i];
                let name = |p: Sym| -> String {
                    if magic.contains(&p) {
                        format!("demand#{}", p.0)
                    } else if (p.0 as usize) < d.symbols.len() {
                        d.symbols.name(p).to_string()
                    } else {
                        format!("aux#{}", p.0)
                    }
                };
                let body: Vec<String> = r.pos.iter().map(|(p, _)| name(*p)).collect();
                eprintln!(
                    "  {n} join steps: {} <= {}",
                    name(r.head_pred),
                    body.join(", ")
                );
            }
        }
        done.map_err(limit_error)?;
        if std::env::var_os("SYMGAME_DEBUG_GROUND").is_some() {
            eprintln!(
                "dynamic fixpoint: {} join steps, {} ground rules, {:?}",
                ev.steps,
                rec.rules.len(),
                started.elapsed()
            );
        }
    }
    if std::env::var_os("SYMGAME_DEBUG_GROUND").is_some() {
        let mut by_head: HashMap<Sym, usize> = HashMap::new();
        for h in &rec.rules.heads {
            *by_head.entry(h.0).or_default() += 1;
        }
        let mut v: Vec<_> = by_head.into_iter().collect();
        v.sort_by_key(|x| std::cmp::Reverse(x.1));
        for (p, n) in v.iter().take(8) {
            eprintln!("  {n} ground rules for {}", pred_name(*p));
        }
    }
    let static_tuples: usize = rels
        .iter()
        .filter(|(p, _)| !dynamic.contains(p) && !magic.contains(p))
        .map(|(_, r)| r.len() as usize)
        .sum();
    let instances = rec.rules;
    let negated = rec.negated;
    let origin = rec.origin;
    let dynamic_atoms: usize = rels
        .iter()
        .filter(|(p, _)| dynamic.contains(p))
        .map(|(_, r)| r.len() as usize)
        .sum();

    // Inputs: fluents and moves.
    let true_rel = &rels[&kw.true_];
    let fluent_terms: Vec<TermId> = (0..true_rel.len()).map(|i| true_rel.tuple(i)[0]).collect();
    let nf = fluent_terms.len() as u32;
    let does_rel = &rels[&kw.does];
    let mut moves: Vec<Vec<TermId>> = vec![Vec::new(); role_terms.len()];
    let mut does_signal: Vec<Option<(usize, usize)>> = vec![None; does_rel.len() as usize];
    let mut warnings: Vec<String> = desc.warnings.iter().map(|w| w.message.clone()).collect();
    for i in 0..does_rel.len() {
        let t = does_rel.tuple(i);
        match role_terms.iter().position(|&r| r == t[0]) {
            Some(r) => {
                does_signal[i as usize] = Some((r, moves[r].len()));
                moves[r].push(t[1]);
            }
            None => warnings.push(format!(
                "legal moves for {}, which is not a role, are ignored",
                display(&store, t[0], d)
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
    let num_inputs = 1 + nf + moves.iter().map(|m| m.len() as u32).sum::<u32>();
    let costs = read_costs(
        desc,
        cost,
        cost.and_then(|c| rels.get(&c)),
        &store,
        &role_terms,
        &moves,
        &mut warnings,
    )?;

    // Provisional signals for the other dynamic atoms: per relation (by symbol number), per
    // tuple, `u32::MAX` when the atom heads no ground rule.
    let mut atom_signal: Vec<Vec<u32>> = vec![Vec::new(); next_sym as usize];
    let mut atoms: Vec<(Sym, u32)> = Vec::new();
    for &(p, i) in &instances.heads {
        let sigs = &mut atom_signal[p.0 as usize];
        if sigs.is_empty() {
            sigs.resize(rels[&p].len() as usize, u32::MAX);
        }
        if sigs[i as usize] == u32::MAX {
            sigs[i as usize] = num_inputs + atoms.len() as u32;
            atoms.push((p, i));
        }
    }
    let signal_of = |p: Sym, i: u32| -> Lit {
        if p == kw.true_ {
            Lit::new(1 + i, false)
        } else if p == kw.does {
            match does_signal[i as usize] {
                Some((r, m)) => Lit::new(move_base[r] + m as u32, false),
                None => Lit::FALSE,
            }
        } else {
            match atom_signal[p.0 as usize].get(i as usize) {
                Some(&s) if s != u32::MAX => Lit::new(s, false),
                _ => Lit::FALSE,
            }
        }
    };
    let mut defs: Vec<Vec<Vec<Lit>>> = vec![Vec::new(); atoms.len()];
    for (k, &(p, i)) in instances.heads.iter().enumerate() {
        let a = (atom_signal[p.0 as usize][i as usize] - num_inputs) as usize;
        let lits = instances.body(k);
        let mut body = Vec::with_capacity(lits.len());
        for l in lits {
            match *l {
                RawLit::Pos(p, i) => body.push(signal_of(p, i)),
                RawLit::Neg(p, t) => {
                    if let Some(i) = rels[&p].find(negated[&p].tuple(t)) {
                        body.push(!signal_of(p, i));
                    }
                }
            }
        }
        defs[a].push(body);
    }
    let ground_rules = instances.len();
    drop(instances);

    // Outputs, as provisional literals.
    let lookup = |p: Sym, t: &[TermId]| -> Lit {
        match rels[&p].find(t) {
            None => Lit::FALSE,
            Some(_) if !dynamic.contains(&p) => Lit::TRUE,
            Some(i) => signal_of(p, i),
        }
    };
    let legal: Vec<Vec<Lit>> = (0..role_terms.len())
        .map(|r| {
            moves[r]
                .iter()
                .map(|&m| lookup(kw.legal, &[role_terms[r], m]))
                .collect()
        })
        .collect();
    let next: Vec<Lit> = fluent_terms
        .iter()
        .map(|&f| lookup(kw.next, &[f]))
        .collect();
    let terminal = lookup(kw.terminal, &[]);
    let mut goals: Vec<Vec<(u8, Lit)>> = vec![Vec::new(); role_terms.len()];
    let goal_rel = &rels[&kw.goal];
    for i in 0..goal_rel.len() {
        let t = goal_rel.tuple(i);
        let span = origin
            .get(&(kw.goal, i))
            .map(|&r| desc.rules[r].span)
            .or_else(|| {
                crules
                    .iter()
                    .find(|r| r.head_pred == kw.goal)
                    .map(|r| r.span)
            })
            .unwrap_or_default();
        let value = store
            .as_const(t[1])
            .and_then(|s| d.symbols.name(s).parse::<u8>().ok())
            .filter(|&v| v <= 100);
        let Some(value) = value else {
            return Err(err_at(
                ErrorKind::BadGoalValue,
                span,
                format!(
                    "goal value {} is not an integer from 0 to 100",
                    display(&store, t[1], d)
                ),
            ));
        };
        let Some(r) = role_terms.iter().position(|&r| r == t[0]) else {
            warnings.push(format!(
                "goal for {}, which is not a role, is ignored",
                display(&store, t[0], d)
            ));
            continue;
        };
        goals[r].push((value, lookup(kw.goal, t)));
    }

    // 3. Simplify and build the circuit.
    let mut simp = Simplifier {
        base: num_inputs,
        defs,
        subst: (0..atoms.len() as u32)
            .map(|a| Lit::new(num_inputs + a, false))
            .collect(),
    };
    let atom_span = |a: usize| -> Option<Span> {
        origin
            .get(&atoms[a])
            .map(|&r| desc.rules[r].span)
            .or_else(|| {
                crules
                    .iter()
                    .find(|r| r.head_pred == atoms[a].0)
                    .map(|r| r.span)
            })
    };
    simp.run(deadline)
        .map_err(|a| limit_error(Abort::Deadline(atom_span(a))))?;
    let mut outputs: Vec<Lit> = Vec::new();
    for l in legal.iter().flatten().chain(&next).chain([&terminal]) {
        outputs.push(simp.resolve(*l));
    }
    for g in goals.iter().flatten() {
        outputs.push(simp.resolve(g.1));
    }
    let (circuit, map) = simp.build(&outputs).map_err(|a| {
        let (p, _) = atoms[a];
        let span = origin
            .get(&atoms[a])
            .map(|&r| desc.rules[r].span)
            .or_else(|| crules.iter().find(|r| r.head_pred == p).map(|r| r.span))
            .unwrap_or_default();
        err_at(
            ErrorKind::UnstratifiedNegation,
            span,
            format!(
                "the ground atoms of {} depend on their own negation (a cycle through `not`)",
                pred_name(p)
            ),
        )
    })?;
    let mut fin = |l: Lit| -> Lit {
        let l = simp.resolve(l);
        if l.signal() >= num_inputs {
            map[(l.signal() - num_inputs) as usize].xor(l.is_negated())
        } else {
            l
        }
    };
    let legal: Vec<Vec<Lit>> = legal
        .iter()
        .map(|ls| ls.iter().map(|&l| fin(l)).collect::<Vec<Lit>>())
        .collect();
    let next: Vec<Lit> = next.iter().map(|&l| fin(l)).collect();
    let terminal = fin(terminal);
    let goals: Vec<Vec<(u8, Lit)>> = goals
        .into_iter()
        .map(|mut gs| {
            gs.sort();
            gs.into_iter()
                .map(|(v, l)| (v, fin(l)))
                .filter(|&(_, l)| l != Lit::FALSE)
                .collect()
        })
        .collect();

    let init_rel = &rels[&kw.init];
    let mut init: Vec<usize> = (0..init_rel.len())
        .filter_map(|i| true_rel.find(init_rel.tuple(i)).map(|f| f as usize))
        .collect();
    init.sort_unstable();

    let roles: Vec<Role> = role_terms
        .iter()
        .zip(&moves)
        .zip(costs)
        .map(|((&r, ms), costs)| Role {
            name: store.to_ground(r, &d.symbols),
            moves: ms.iter().map(|&m| store.to_ground(m, &d.symbols)).collect(),
            costs,
        })
        .collect();
    for (r, role) in roles.iter().enumerate() {
        if role.moves.is_empty() {
            warnings.push(format!("role {} has no legal move in any state", role.name));
        }
        if goals[r].is_empty() {
            warnings.push(format!("role {} has no reachable goal", role.name));
        }
    }
    let fluents: Vec<GroundTerm> = fluent_terms
        .iter()
        .map(|&f| store.to_ground(f, &d.symbols))
        .collect();
    let stats = GroundStats {
        static_tuples,
        dynamic_atoms,
        ground_rules,
        gates: circuit.gates.len(),
        wires: circuit.num_wires(),
        cyclic_blocks: circuit.blocks.iter().filter(|b| b.cyclic).count(),
        time: started.elapsed(),
    };
    Ok(GroundGame {
        roles,
        fluents,
        init,
        circuit,
        legal,
        next,
        goals,
        terminal,
        stats,
        warnings,
    })
}

/// Adds to `set` every relation read by the rules of a relation in `set`, to a fixpoint.
fn close_over_bodies(rules: &[CRule], set: &mut HashSet<Sym>) {
    loop {
        let mut changed = false;
        for r in rules {
            if set.contains(&r.head_pred) {
                for (p, _) in r.pos.iter().chain(&r.neg) {
                    changed |= set.insert(*p);
                }
            }
        }
        if !changed {
            return;
        }
    }
}

fn display(store: &TermStore, t: TermId, d: &symgame_gdl::Description) -> String {
    store.to_ground(t, &d.symbols).to_string()
}

/// A body item of a compiled rule, for decomposition.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Item {
    Pos(usize),
    Neg(usize),
    Distinct(usize),
    Equal(usize),
}

/// Splits rule bodies whose local variables (those not in the head) fall into several
/// independent groups: each group becomes an auxiliary relation over the head variables it
/// uses. Without this, a frame rule such as `next(cell x y m) <= true(cell x y m), does(a, ma),
/// does(b, mb), differs(x, y, ma), differs(x, y, mb)` grounds to the product of both roles'
/// moves instead of their sum. Returns the rules, for each auxiliary relation the head relation
/// of the rule it came from, and the relations split off by variable elimination.
fn decompose(rules: Vec<CRule>, first_sym: u32) -> (Vec<CRule>, Vec<(Sym, Sym)>, HashSet<Sym>) {
    let mut next = first_sym;
    let mut out = Vec::with_capacity(rules.len());
    let mut aux = Vec::new();
    let mut buckets = HashSet::new();
    for r in rules {
        let parts = split_rule(&r, &mut next).unwrap_or_else(|| vec![r.clone()]);
        for part in parts {
            let part = project_singletons(part, &mut next, &mut out, &mut aux, r.head_pred);
            let pieces = extract_buckets(part, &mut next);
            for piece in &pieces[..pieces.len() - 1] {
                buckets.insert(piece.head_pred);
            }
            for piece in pieces {
                for c in project_chain(&piece, &mut next) {
                    if c.head_pred != r.head_pred {
                        aux.push((c.head_pred, r.head_pred));
                    }
                    out.push(c);
                }
            }
        }
    }
    (out, aux, buckets)
}

/// Variable elimination: while some local variable `v` has a *bucket* (the body items that
/// mention it) that leaves out some variable of the rule and no head variable, and that
/// eliminates two variables or more, the bucket becomes an auxiliary relation over its
/// variables used outside it. `doesprime(m, move2(m1, m2)) <= true(loc m x
/// y), true(loc explorer ex1 ey1), does(explorer, move(em)), step(ex1, ey1, em, ex, ey), ...`
/// then joins the explorer's step once, `e(ex, ey)`, instead of once per mummy square. The
/// bucket with the fewest variables goes first. Returns the auxiliary rules, then the rest.
fn extract_buckets(mut r: CRule, next: &mut u32) -> Vec<CRule> {
    let mut out = Vec::new();
    if !r.equal.is_empty() {
        return vec![r];
    }
    loop {
        if r.pos.len() < 3 {
            break;
        }
        let items: Vec<(Item, Vec<u32>)> = (0..r.pos.len())
            .map(|i| (Item::Pos(i), CRule::vars_of(&r.pos[i].1)))
            .chain((0..r.neg.len()).map(|i| (Item::Neg(i), CRule::vars_of(&r.neg[i].1))))
            .chain((0..r.distinct.len()).map(|i| {
                let (a, b) = &r.distinct[i];
                (Item::Distinct(i), CRule::vars_of(&[a.clone(), b.clone()]))
            }))
            .collect();
        let head_vars: HashSet<u32> = CRule::vars_of(&r.head).into_iter().collect();
        let all_vars: HashSet<u32> = items.iter().flat_map(|(_, v)| v.iter().copied()).collect();
        // (width, interface size, variable)
        let mut best: Option<(usize, usize, u32)> = None;
        let mut locals: Vec<u32> = all_vars
            .iter()
            .copied()
            .filter(|v| !head_vars.contains(v))
            .collect();
        locals.sort_unstable();
        for &v in &locals {
            let bucket: Vec<usize> = (0..items.len())
                .filter(|&k| items[k].1.contains(&v))
                .collect();
            let npos = bucket
                .iter()
                .filter(|&&k| matches!(items[k].0, Item::Pos(_)))
                .count();
            if npos < 2 || npos == r.pos.len() {
                continue;
            }
            let pos_vars: HashSet<u32> = bucket
                .iter()
                .filter(|&&k| matches!(items[k].0, Item::Pos(_)))
                .flat_map(|&k| items[k].1.iter().copied())
                .collect();
            // constraints must be decidable inside the bucket
            if bucket
                .iter()
                .any(|&k| items[k].1.iter().any(|w| !pos_vars.contains(w)))
            {
                continue;
            }
            if pos_vars.len() == all_vars.len() {
                continue; // the bucket is the whole join: nothing to gain
            }
            if pos_vars.iter().any(|w| head_vars.contains(w)) {
                continue; // it would lose the bindings (and demand) the head passes to it
            }
            let interface = pos_vars
                .iter()
                .filter(|w| {
                    head_vars.contains(w)
                        || (0..items.len()).any(|k| !bucket.contains(&k) && items[k].1.contains(w))
                })
                .count();
            if pos_vars.len() - interface < 2 {
                continue; // eliminating one variable alone is left to the projection chain
            }
            let score = (pos_vars.len(), interface, v);
            if best.is_none_or(|b| score < b) {
                best = Some(score);
            }
        }
        let Some((_, _, v)) = best else { break };
        let bucket: Vec<usize> = (0..items.len())
            .filter(|&k| items[k].1.contains(&v))
            .collect();
        let in_bucket: Vec<Item> = bucket.iter().map(|&k| items[k].0).collect();
        let rest: Vec<Item> = (0..items.len())
            .filter(|k| !bucket.contains(k))
            .map(|k| items[k].0)
            .collect();
        let outside: HashSet<u32> = rest
            .iter()
            .flat_map(|&it| match it {
                Item::Pos(i) => CRule::vars_of(&r.pos[i].1),
                Item::Neg(i) => CRule::vars_of(&r.neg[i].1),
                Item::Distinct(i) => {
                    CRule::vars_of(&[r.distinct[i].0.clone(), r.distinct[i].1.clone()])
                }
                Item::Equal(_) => vec![],
            })
            .chain(head_vars.iter().copied())
            .collect();
        let mut iface: Vec<u32> = bucket
            .iter()
            .flat_map(|&k| items[k].1.iter().copied())
            .filter(|w| outside.contains(w))
            .collect();
        iface.sort_unstable();
        iface.dedup();
        let sym = Sym(*next);
        *next += 1;
        let args: Vec<Pattern> = iface.iter().map(|&w| Pattern::Var(w)).collect();
        out.push(rule_from_items(&r, sym, args.clone(), &in_bucket));
        let mut rest_rule = rule_from_items(&r, r.head_pred, r.head.clone(), &rest);
        rest_rule.pos.push((sym, args));
        r = rest_rule;
    }
    out.push(r);
    out
}

/// Replaces each positive literal that has variables used nowhere else in the rule by an
/// auxiliary relation over its other variables: `next(loc x y s) <= true(loc x y s),
/// does(p, play(x1, y1, x2, y2, x3, y3)), differs(x, y, x1, y1)` then grounds per source square
/// instead of per move.
fn project_singletons(
    mut r: CRule,
    next: &mut u32,
    out: &mut Vec<CRule>,
    aux: &mut Vec<(Sym, Sym)>,
    orig: Sym,
) -> CRule {
    if r.pos.len() < 2 {
        return r;
    }
    let mut count: HashMap<u32, usize> = HashMap::new();
    let mut add = |vs: Vec<u32>| {
        let mut vs = vs;
        vs.sort_unstable();
        vs.dedup();
        for v in vs {
            *count.entry(v).or_default() += 1;
        }
    };
    add(CRule::vars_of(&r.head));
    for (_, args) in r.pos.iter().chain(&r.neg) {
        add(CRule::vars_of(args));
    }
    for (a, b) in r.distinct.iter().chain(&r.equal) {
        add(CRule::vars_of(&[a.clone(), b.clone()]));
    }
    for k in 0..r.pos.len() {
        let mut vs = CRule::vars_of(&r.pos[k].1);
        vs.sort_unstable();
        vs.dedup();
        if !vs.iter().any(|v| count[v] == 1) {
            continue;
        }
        let keep: Vec<u32> = vs.iter().copied().filter(|v| count[v] > 1).collect();
        let sym = Sym(*next);
        *next += 1;
        let args: Vec<Pattern> = keep.iter().map(|&v| Pattern::Var(v)).collect();
        let mut a = rule_from_items(&r, sym, args.clone(), &[Item::Pos(k)]);
        a.origin = r.origin;
        out.push(a);
        aux.push((sym, orig));
        r.pos[k] = (sym, args);
    }
    r
}

/// Cuts a rule body, in source order, after each prefix of two or more positive literals at
/// which some variable is no longer needed: the prefix becomes an auxiliary relation over the
/// variables still needed (a projection). `total <= g1(a), g2(b), sum(a,b,s), g3(c),
/// sum(s,c,t)` then grounds to |a|·|b| + |s|·|c| rules instead of |a|·|b|·|c|.
fn project_chain(r: &CRule, next: &mut u32) -> Vec<CRule> {
    if r.pos.len() < 3 {
        return vec![r.clone()];
    }
    let head_vars: HashSet<u32> = CRule::vars_of(&r.head).into_iter().collect();
    let vars_of_item = |it: Item| -> Vec<u32> {
        match it {
            Item::Pos(i) => CRule::vars_of(&r.pos[i].1),
            Item::Neg(i) => CRule::vars_of(&r.neg[i].1),
            Item::Distinct(i) => {
                CRule::vars_of(&[r.distinct[i].0.clone(), r.distinct[i].1.clone()])
            }
            Item::Equal(i) => CRule::vars_of(&[r.equal[i].0.clone(), r.equal[i].1.clone()]),
        }
    };
    let mut rest: Vec<Item> = (0..r.neg.len())
        .map(Item::Neg)
        .chain((0..r.distinct.len()).map(Item::Distinct))
        .chain((0..r.equal.len()).map(Item::Equal))
        .collect();
    let mut out = Vec::new();
    // the current prefix: its items, the auxiliary literal standing for the earlier prefix
    let mut prefix: Vec<Item> = Vec::new();
    let mut carried: Option<(Sym, Vec<Pattern>)> = None;
    let mut bound: HashSet<u32> = HashSet::new();
    let mut npos = 0;
    // Greedy elimination order: next the literal that kills the most variables for the fewest
    // new ones (ties in source order).
    let order: Vec<usize> = {
        let other_vars: Vec<u32> = rest.iter().flat_map(|&it| vars_of_item(it)).collect();
        let mut remaining: Vec<usize> = (0..r.pos.len()).collect();
        let mut seen: HashSet<u32> = HashSet::new();
        let mut order = Vec::new();
        while !remaining.is_empty() {
            let mut best: Option<(i64, usize)> = None;
            for (pos_in_rem, &k) in remaining.iter().enumerate() {
                let vk = vars_of_item(Item::Pos(k));
                let new = vk.iter().filter(|v| !seen.contains(v)).count() as i64;
                let mut after: HashSet<u32> = seen.clone();
                after.extend(vk.iter().copied());
                let dying = after
                    .iter()
                    .filter(|v| {
                        !head_vars.contains(v)
                            && !other_vars.contains(v)
                            && !remaining
                                .iter()
                                .any(|&j| j != k && vars_of_item(Item::Pos(j)).contains(v))
                    })
                    .count() as i64;
                let score = new - 2 * dying;
                if best.is_none_or(|(b, _)| score < b) {
                    best = Some((score, pos_in_rem));
                }
            }
            let (_, i) = best.expect("a literal remains");
            let k = remaining.remove(i);
            seen.extend(vars_of_item(Item::Pos(k)));
            order.push(k);
        }
        order
    };
    for (n, &k) in order.iter().enumerate() {
        prefix.push(Item::Pos(k));
        npos += 1;
        bound.extend(vars_of_item(Item::Pos(k)));
        // attach the constraints whose variables are all bound now
        let (now, later): (Vec<Item>, Vec<Item>) = rest.into_iter().partition(|&it| {
            !matches!(it, Item::Equal(_)) && vars_of_item(it).iter().all(|v| bound.contains(v))
        });
        prefix.extend(now);
        rest = later;
        if n + 1 == r.pos.len() || npos < 2 {
            continue;
        }
        let mut needed: HashSet<u32> = head_vars.clone();
        for it in order[n + 1..]
            .iter()
            .map(|&j| Item::Pos(j))
            .chain(rest.iter().copied())
        {
            needed.extend(vars_of_item(it));
        }
        let mut live: Vec<u32> = bound
            .iter()
            .copied()
            .filter(|v| needed.contains(v))
            .collect();
        if live.len() == bound.len() {
            continue;
        }
        live.sort_unstable();
        let sym = Sym(*next);
        *next += 1;
        let args: Vec<Pattern> = live.iter().map(|&v| Pattern::Var(v)).collect();
        let mut aux = rule_from_items(r, sym, args.clone(), &prefix);
        if let Some(c) = carried.take() {
            aux.pos.insert(0, c);
        }
        out.push(aux);
        carried = Some((sym, args));
        prefix.clear();
        bound = live.into_iter().collect();
        npos = 1;
    }
    if out.is_empty() {
        return vec![r.clone()];
    }
    prefix.extend(rest);
    let mut last = rule_from_items(r, r.head_pred, r.head.clone(), &prefix);
    if let Some(c) = carried {
        last.pos.insert(0, c);
    }
    out.push(last);
    out
}

fn split_rule(r: &CRule, next: &mut u32) -> Option<Vec<CRule>> {
    let head_vars: HashSet<u32> = CRule::vars_of(&r.head).into_iter().collect();
    let mut items: Vec<(Item, Vec<u32>)> = Vec::new();
    for (i, (_, args)) in r.pos.iter().enumerate() {
        items.push((Item::Pos(i), CRule::vars_of(args)));
    }
    for (i, (_, args)) in r.neg.iter().enumerate() {
        items.push((Item::Neg(i), CRule::vars_of(args)));
    }
    for (i, (a, b)) in r.distinct.iter().enumerate() {
        items.push((Item::Distinct(i), CRule::vars_of(&[a.clone(), b.clone()])));
    }
    for (i, (a, b)) in r.equal.iter().enumerate() {
        items.push((Item::Equal(i), CRule::vars_of(&[a.clone(), b.clone()])));
    }
    // union-find over items sharing a local variable
    let mut parent: Vec<usize> = (0..items.len()).collect();
    fn find(p: &mut [usize], mut i: usize) -> usize {
        while p[i] != i {
            p[i] = p[p[i]];
            i = p[i];
        }
        i
    }
    let mut first: HashMap<u32, usize> = HashMap::new();
    for (i, (_, vs)) in items.iter().enumerate() {
        for v in vs.iter().filter(|v| !head_vars.contains(v)) {
            match first.get(v) {
                Some(&j) => {
                    let (a, b) = (find(&mut parent, i), find(&mut parent, j));
                    parent[a] = b;
                }
                None => {
                    first.insert(*v, i);
                }
            }
        }
    }
    let mut comps: Vec<Vec<usize>> = Vec::new();
    let mut comp_of_root: HashMap<usize, usize> = HashMap::new();
    let mut shared: Vec<usize> = Vec::new(); // items without local variables
    for (i, (_, vs)) in items.iter().enumerate() {
        if vs.iter().all(|v| head_vars.contains(v)) {
            shared.push(i);
            continue;
        }
        let root = find(&mut parent, i);
        let c = *comp_of_root.entry(root).or_insert_with(|| {
            comps.push(Vec::new());
            comps.len() - 1
        });
        comps[c].push(i);
    }
    if comps.len() < 2 {
        return None;
    }
    let mut out = Vec::new();
    let mut main_items: Vec<Item> = shared.iter().map(|&i| items[i].0).collect();
    let mut main_aux: Vec<(Sym, Vec<Pattern>)> = Vec::new();
    for comp in &comps {
        let mut hv: Vec<u32> = comp
            .iter()
            .flat_map(|&i| items[i].1.iter().copied())
            .filter(|v| head_vars.contains(v))
            .collect();
        hv.sort_unstable();
        hv.dedup();
        let bound: HashSet<u32> = comp
            .iter()
            .filter(|&&i| matches!(items[i].0, Item::Pos(_)))
            .flat_map(|&i| items[i].1.iter().copied())
            .collect();
        let mut body: Vec<Item> = comp.iter().map(|&i| items[i].0).collect();
        for v in hv.iter().filter(|v| !bound.contains(v)) {
            // bind it with a positive literal of the shared part
            let binder = shared
                .iter()
                .find(|&&i| matches!(items[i].0, Item::Pos(_)) && items[i].1.contains(v))?;
            if !body.contains(&items[*binder].0) {
                body.push(items[*binder].0);
            }
        }
        let sym = Sym(*next);
        *next += 1;
        let args: Vec<Pattern> = hv.iter().map(|&v| Pattern::Var(v)).collect();
        out.push(rule_from_items(r, sym, args.clone(), &body));
        main_aux.push((sym, args));
    }
    main_items.sort_by_key(|i| match i {
        Item::Pos(k) => (0, *k),
        Item::Neg(k) => (1, *k),
        Item::Distinct(k) => (2, *k),
        Item::Equal(k) => (3, *k),
    });
    let mut main = rule_from_items(r, r.head_pred, r.head.clone(), &main_items);
    main.pos.extend(main_aux);
    out.push(main);
    Some(out)
}

fn rule_from_items(r: &CRule, head_pred: Sym, head: Vec<Pattern>, items: &[Item]) -> CRule {
    let mut c = CRule {
        head_pred,
        head,
        pos: vec![],
        neg: vec![],
        distinct: vec![],
        equal: vec![],
        nvars: r.nvars,
        span: r.span,
        origin: r.origin,
    };
    for it in items {
        match *it {
            Item::Pos(i) => c.pos.push(r.pos[i].clone()),
            Item::Neg(i) => c.neg.push(r.neg[i].clone()),
            Item::Distinct(i) => c.distinct.push(r.distinct[i].clone()),
            Item::Equal(i) => c.equal.push(r.equal[i].clone()),
        }
    }
    c
}

fn compile_rule(r: &symgame_gdl::NormalRule, origin: usize, store: &mut TermStore) -> CRule {
    let mut vars = HashMap::new();
    let head = r
        .head
        .args
        .iter()
        .map(|a| Pattern::compile(a, &mut vars, store))
        .collect();
    let mut pos = Vec::new();
    let mut neg = Vec::new();
    let mut distinct = Vec::new();
    let mut equal = Vec::new();
    for l in &r.body {
        match l {
            NormalLiteral::Pos(a) => pos.push((
                a.pred,
                a.args
                    .iter()
                    .map(|t| Pattern::compile(t, &mut vars, store))
                    .collect(),
            )),
            NormalLiteral::Neg(a) => neg.push((
                a.pred,
                a.args
                    .iter()
                    .map(|t| Pattern::compile(t, &mut vars, store))
                    .collect(),
            )),
            NormalLiteral::Distinct(a, b, _) => distinct.push((
                Pattern::compile(a, &mut vars, store),
                Pattern::compile(b, &mut vars, store),
            )),
            NormalLiteral::Equal(a, b, _) => equal.push((
                Pattern::compile(a, &mut vars, store),
                Pattern::compile(b, &mut vars, store),
            )),
        }
    }
    CRule {
        head_pred: r.head.pred,
        head,
        pos,
        neg,
        distinct,
        equal,
        nvars: vars.len(),
        span: r.span,
        origin: Some(origin),
    }
}

struct Budget {
    used: usize,
    max: usize,
}

impl Budget {
    fn take(&mut self) -> bool {
        self.used += 1;
        self.used <= self.max
    }
}

/// Inserts the head of `rule` under `env` into its relation: (tuple index, whether new).
fn insert_head(
    rule: &CRule,
    env: &[u32],
    store: &mut TermStore,
    rels: &mut FxHashMap<Sym, Relation>,
    buf: &mut Vec<TermId>,
) -> (u32, bool) {
    buf.clear();
    for p in &rule.head {
        let t = instantiate(p, env, store);
        buf.push(t);
    }
    rels.get_mut(&rule.head_pred)
        .expect("relation exists")
        .insert(buf, store)
}

/// Inserts rule heads (static evaluation).
struct StaticSink<'a> {
    budget: &'a mut Budget,
    tuple: Vec<TermId>,
}

impl Sink for StaticSink<'_> {
    fn emit(
        &mut self,
        rule: &CRule,
        env: &[u32],
        _matched: &[u32],
        store: &mut TermStore,
        rels: &mut FxHashMap<Sym, Relation>,
    ) -> bool {
        if insert_head(rule, env, store, rels, &mut self.tuple).1 {
            return self.budget.take();
        }
        true
    }
}

/// Inserts rule heads and records the ground rules (dynamic relaxed fixpoint).
struct Recorder<'a> {
    /// Whether each relation (by symbol number) is dynamic.
    dynamic: &'a [bool],
    rules: GroundRules,
    /// The negated dynamic atoms, per relation (whether they hold is known only at the end).
    negated: FxHashMap<Sym, Relation>,
    /// For each dynamic atom, the first source rule that derived it (for error locations).
    origin: FxHashMap<(Sym, u32), usize>,
    budget: &'a mut Budget,
    body: Vec<RawLit>,
    tuple: Vec<TermId>,
}

impl Sink for Recorder<'_> {
    fn emit(
        &mut self,
        rule: &CRule,
        env: &[u32],
        matched: &[u32],
        store: &mut TermStore,
        rels: &mut FxHashMap<Sym, Relation>,
    ) -> bool {
        let (hi, new) = insert_head(rule, env, store, rels, &mut self.tuple);
        if new && !self.budget.take() {
            return false;
        }
        let Some(origin) = rule.origin else {
            return true; // bridge rules carry no ground rule
        };
        let dynamic = |p: Sym| self.dynamic.get(p.0 as usize).copied().unwrap_or(false);
        if !dynamic(rule.head_pred) {
            return true; // static and demand relations are folded away
        }
        if new {
            self.origin.insert((rule.head_pred, hi), origin);
        }
        self.body.clear();
        for ((p, _), &i) in rule.pos.iter().zip(matched) {
            if dynamic(*p) {
                self.body.push(RawLit::Pos(*p, i));
            }
        }
        for (p, args) in &rule.neg {
            if dynamic(*p) {
                self.tuple.clear();
                for a in args {
                    let t = instantiate(a, env, store);
                    self.tuple.push(t);
                }
                let table = self
                    .negated
                    .entry(*p)
                    .or_insert_with(|| Relation::new(args.len()));
                let (k, _) = table.insert(&self.tuple, store);
                self.body.push(RawLit::Neg(*p, k));
            }
        }
        self.body.sort_unstable();
        self.body.dedup();
        self.rules.push((rule.head_pred, hi), &self.body);
        if !self.budget.take() {
            return false;
        }
        true
    }
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

    /// Builds the circuit of the atoms that `outputs` depend on. Returns, for each atom, its
    /// literal in the new circuit, or the atom of a negative ground cycle.
    fn build(&mut self, outputs: &[Lit]) -> Result<(Circuit, Vec<Lit>), usize> {
        let n = self.defs.len();
        // Cone of influence, over resolved literals.
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
        // Successor atoms of each live atom, once, in one flat array.
        let mut succ_start = vec![0u32; n + 1];
        let mut succ_list: Vec<u32> = Vec::new();
        for a in 0..n {
            if live[a] {
                let from = succ_list.len();
                for l in self.defs[a].iter().flatten() {
                    if l.signal() >= self.base {
                        succ_list.push(l.signal() - self.base);
                    }
                }
                succ_list[from..].sort_unstable();
                let mut k = from;
                for j in from..succ_list.len() {
                    if j == from || succ_list[j] != succ_list[k - 1] {
                        succ_list[k] = succ_list[j];
                        k += 1;
                    }
                }
                succ_list.truncate(k);
            }
            succ_start[a + 1] = succ_list.len() as u32;
        }
        let succ = |a: usize| &succ_list[succ_start[a] as usize..succ_start[a + 1] as usize];
        // Strongly connected components (iterative Tarjan); emitted dependencies first.
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
                let ss = succ(v);
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
        // Emit gates.
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
            let cyclic = comp.len() > 1 || succ(comp[0]).contains(&(comp[0] as u32));
            if cyclic {
                for &a in comp {
                    for l in self.defs[a].iter().flatten() {
                        if l.is_negated() && self.atom(*l).is_some_and(|b| comp_of[b] == ci) {
                            return Err(a);
                        }
                    }
                }
            }
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
                    let ls = bodies[0].iter().map(|&l| remap(l, &map)).collect();
                    circuit.gates.push(Gate::And(ls));
                    continue;
                }
                let mut ors = Vec::with_capacity(bodies.len());
                for b in bodies {
                    if b.len() == 1 {
                        ors.push(remap(b[0], &map));
                    } else {
                        let ls = b.iter().map(|&l| remap(l, &map)).collect();
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
}
