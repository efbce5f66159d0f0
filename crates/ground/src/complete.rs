//! Step 1 of grounding: which relations are *dynamic* (depend on `true` or `does`) and which
//! are *complete* (static ones read under `not`, facts, `role`, `init`, `cost`, and all they
//! depend on), and the exact evaluation of the complete relations, stratum by stratum.

use crate::cost::cost_relation;
use crate::datalog::{Database, Evaluator, Limits};
use crate::decompose::Program;
use crate::rule::{relation_name, CRule};
use std::collections::HashSet;
use symgame_gdl::{CheckedDescription, Error, ErrorKind, Sym};

/// How the relations of a program are evaluated.
pub(crate) struct Kinds {
    /// The relations that depend on `true` or `does`.
    pub dynamic: HashSet<Sym>,
    /// The relations evaluated in full beforehand; every other one is evaluated in the relaxed
    /// fixpoint, restricted to the atoms its callers can ask for.
    pub complete: HashSet<Sym>,
    /// The action cost relation, if the description has one.
    pub cost: Option<Sym>,
}

impl Kinds {
    /// Sorts the relations of `rules`; an error if `true` or `does` heads a rule, or if the
    /// cost relation is malformed.
    pub fn new(desc: &CheckedDescription, rules: &[CRule]) -> Result<Kinds, Error> {
        let d = &desc.description;
        let kw = d.keywords;
        let mut dynamic: HashSet<Sym> = [kw.true_, kw.does].into_iter().collect();
        loop {
            let mut changed = false;
            for r in rules {
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
        for r in rules {
            if dynamic.contains(&r.head_pred) && (r.head_pred == kw.true_ || r.head_pred == kw.does)
            {
                return Err(Error::at(
                    ErrorKind::KeywordPlacement,
                    &d.source,
                    r.span,
                    "`true` and `does` cannot be rule heads",
                ));
            }
        }
        let cost = cost_relation(desc, &dynamic)?;
        let mut complete: HashSet<Sym> = [kw.role, kw.init].into_iter().chain(cost).collect();
        for r in rules {
            for (p, _) in &r.neg {
                if !dynamic.contains(p) {
                    complete.insert(*p);
                }
            }
        }
        let mut has_body: HashSet<Sym> = HashSet::new();
        for r in rules {
            if !r.pos.is_empty() || !r.neg.is_empty() {
                has_body.insert(r.head_pred);
            }
        }
        for r in rules {
            if !dynamic.contains(&r.head_pred) && !has_body.contains(&r.head_pred) {
                complete.insert(r.head_pred);
            }
        }
        close_over_bodies(rules, &mut complete);
        Ok(Kinds {
            dynamic,
            complete,
            cost,
        })
    }
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

/// Evaluates the complete relations in `needed`, and all they read, stratum by stratum with
/// exact negation; an error if a stratum reads its own negation.
pub(crate) fn evaluate(
    desc: &CheckedDescription,
    program: &Program,
    complete: &HashSet<Sym>,
    mut needed: HashSet<Sym>,
    db: &mut Database,
    limits: &mut Limits,
) -> Result<(), Error> {
    let d = &desc.description;
    let rules = &program.rules;
    close_over_bodies(rules, &mut needed);
    let mut by_stratum: Vec<(usize, usize)> = rules
        .iter()
        .enumerate()
        .filter(|(_, r)| complete.contains(&r.head_pred) && needed.contains(&r.head_pred))
        .map(|(i, r)| (program.stratum.get(&r.head_pred).copied().unwrap_or(0), i))
        .collect();
    by_stratum.sort();
    for stratum in by_stratum.chunk_by(|a, b| a.0 == b.0) {
        let group: Vec<usize> = stratum.iter().map(|&(_, r)| r).collect();
        let heads: HashSet<Sym> = group.iter().map(|&r| rules[r].head_pred).collect();
        for &r in &group {
            if let Some((p, _)) = rules[r].neg.iter().find(|(p, _)| heads.contains(p)) {
                return Err(Error::at(
                    ErrorKind::UnstratifiedNegation,
                    &d.source,
                    rules[r].span,
                    format!(
                        "relation {} is defined through its own negation; symgame needs a stratified \
                         description",
                        relation_name(d, *p)
                    ),
                ));
            }
        }
        let done = Evaluator::new(db, limits).fixpoint(rules, &group, &|_| true, None);
        done.map_err(|a| limits.error(a, &d.source))?;
    }
    Ok(())
}
