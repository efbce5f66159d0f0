//! Step 3 of grounding: the relaxed fixpoint. The dynamic relations, and the static ones
//! restricted to their demanded atoms, are evaluated with negation on dynamic relations
//! ignored (`distinct` and negation on static relations honoured), and the bridge rules
//! `true ⇐ init`, `true ⇐ next`, `does ⇐ legal` connect the time steps. Every rule binding
//! found on the way is kept as a ground rule with its static literals folded away.

use crate::datalog::{Binding, Database, Evaluator, Limits, Relation, Sink};
use crate::pattern::instantiate;
use crate::rule::{relation_name, CRule};
use crate::terms::{FxHashMap, TermId, TermStore};
use std::collections::{HashMap, HashSet};
use symgame_gdl::{CheckedDescription, Error, Span, Sym};

/// A body literal of a ground rule before the circuit is built.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub(crate) enum RawLit {
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
pub(crate) struct GroundRules {
    pub heads: Vec<(Sym, u32)>,
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

    pub fn len(&self) -> usize {
        self.heads.len()
    }

    pub fn body(&self, i: usize) -> &[RawLit] {
        &self.lits[self.start[i] as usize..self.start[i + 1] as usize]
    }

    /// Adds the rule `head <= body`.
    fn push(&mut self, head: (Sym, u32), body: &[RawLit]) {
        self.heads.push(head);
        self.lits.extend_from_slice(body);
        self.start.push(self.lits.len() as u32);
    }
}

/// For each dynamic atom, the first source rule that derived it (for error locations).
pub(crate) struct Origins(FxHashMap<(Sym, u32), usize>);

impl Origins {
    /// Where the atom `(relation, tuple)` comes from: the first source rule that derived it,
    /// else the first rule of its relation.
    pub fn span(
        &self,
        desc: &CheckedDescription,
        rules: &[CRule],
        atom: (Sym, u32),
    ) -> Option<Span> {
        self.0
            .get(&atom)
            .map(|&r| desc.rules[r].span)
            .or_else(|| rules.iter().find(|r| r.head_pred == atom.0).map(|r| r.span))
    }
}

/// The outcome of the relaxed fixpoint (the atoms themselves are in the relations).
pub(crate) struct Relaxed {
    pub rules: GroundRules,
    /// The negated dynamic atoms, per relation (whether they hold is known only at the end).
    pub negated: FxHashMap<Sym, Relation>,
    pub origins: Origins,
    /// Whether each relation (by symbol number) is dynamic.
    pub dynamic: Vec<bool>,
}

/// Inserts rule heads and records the ground rules (dynamic relaxed fixpoint).
struct Recorder<'a> {
    /// Whether each relation (by symbol number) is dynamic.
    dynamic: &'a [bool],
    rules: GroundRules,
    negated: FxHashMap<Sym, Relation>,
    origin: FxHashMap<(Sym, u32), usize>,
    body: Vec<RawLit>,
    tuple: Vec<TermId>,
}

impl Sink for Recorder<'_> {
    fn emit(&mut self, b: &Binding, store: &mut TermStore) -> bool {
        let rule = b.rule;
        let Some(origin) = rule.origin else {
            return false; // bridge rules carry no ground rule
        };
        let dynamic = |p: Sym| self.dynamic.get(p.0 as usize).copied().unwrap_or(false);
        if !dynamic(rule.head_pred) {
            return false; // static and demand relations are folded away
        }
        if b.new {
            self.origin.insert((rule.head_pred, b.head), origin);
        }
        self.body.clear();
        for ((p, _), &i) in rule.pos.iter().zip(b.matched) {
            if dynamic(*p) {
                self.body.push(RawLit::Pos(*p, i));
            }
        }
        for (p, args) in &rule.neg {
            if dynamic(*p) {
                self.tuple.clear();
                for a in args {
                    let t = instantiate(a, b.env, store);
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
        self.rules.push((rule.head_pred, b.head), &self.body);
        true
    }
}

/// Runs the relaxed fixpoint of `rules` (the demanded rules) with the bridge rules added.
/// `magic` are the demand relations and `next_sym` is above every relation (for debug output).
pub(crate) fn relax(
    desc: &CheckedDescription,
    mut rules: Vec<CRule>,
    dynamic: &HashSet<Sym>,
    magic: &HashSet<Sym>,
    next_sym: u32,
    db: &mut Database,
    limits: &mut Limits,
) -> Result<Relaxed, Error> {
    let d = &desc.description;
    let kw = d.keywords;
    rules.push(CRule::bridge(kw.true_, kw.init, 1));
    rules.push(CRule::bridge(kw.true_, kw.next, 1));
    rules.push(CRule::bridge(kw.does, kw.legal, 2));
    let all: Vec<usize> = (0..rules.len()).collect();
    let mut is_dynamic = vec![false; next_sym as usize];
    for p in dynamic {
        if let Some(x) = is_dynamic.get_mut(p.0 as usize) {
            *x = true;
        }
    }
    let mut rec = Recorder {
        dynamic: &is_dynamic,
        rules: GroundRules::new(),
        negated: FxHashMap::default(),
        origin: FxHashMap::default(),
        body: Vec::new(),
        tuple: Vec::new(),
    };
    let debug = std::env::var_os("SYMGAME_DEBUG_GROUND").is_some();
    let mut ev = Evaluator::new(db, limits);
    ev.profile = debug.then(|| vec![0; rules.len()]);
    let done = ev.fixpoint(&rules, &all, &|p| !dynamic.contains(&p), Some(&mut rec));
    if let Some(profile) = &ev.profile {
        print_profile(desc, &rules, profile, magic);
    }
    let steps = ev.steps;
    done.map_err(|a| limits.error(a, &d.source))?;
    if debug {
        eprintln!(
            "dynamic fixpoint: {} join steps, {} ground rules, {:?}",
            steps,
            rec.rules.len(),
            limits.elapsed()
        );
        let mut by_head: HashMap<Sym, usize> = HashMap::new();
        for h in &rec.rules.heads {
            *by_head.entry(h.0).or_default() += 1;
        }
        let mut v: Vec<_> = by_head.into_iter().collect();
        v.sort_by_key(|x| std::cmp::Reverse(x.1));
        for (p, n) in v.iter().take(8) {
            eprintln!("  {n} ground rules for {}", relation_name(d, *p));
        }
    }
    Ok(Relaxed {
        rules: rec.rules,
        negated: rec.negated,
        origins: Origins(rec.origin),
        dynamic: is_dynamic,
    })
}

/// Prints the rules with the most join steps (debug output).
fn print_profile(
    desc: &CheckedDescription,
    rules: &[CRule],
    profile: &[u64],
    magic: &HashSet<Sym>,
) {
    let d = &desc.description;
    let mut by_rule: Vec<(u64, usize)> = profile.iter().enumerate().map(|(i, &n)| (n, i)).collect();
    by_rule.sort_unstable_by(|a, b| b.cmp(a));
    for &(n, i) in by_rule.iter().take(6) {
        let r = &rules[i];
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
