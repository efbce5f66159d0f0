//! Action costs: the optional relation `(cost ?role ?move ?n)`.
//!
//! GDL has no action costs. symgame reads them from a `cost` relation whose facts (or static
//! rules) give a positive integer cost for a role's move; moves without one cost 1. The
//! relation must not depend on `true` or `does` (a cost is a property of the move, not of the
//! state), and a move may not get two different costs. The grounder evaluates static relations
//! and folds them away, so `cost` is kept here explicitly.

use std::collections::HashSet;

use symgame_gdl::{CheckedDescription, Error, ErrorKind, NormalLiteral, Span, Sym, TermDisplay};

use crate::datalog::Relation;
use crate::terms::{FxHashMap, TermId, TermStore};

/// The name of the cost relation.
pub(crate) const COST: &str = "cost";

/// The cost relation's symbol, if the description uses it; an error if it has the wrong arity
/// or depends on `true`/`does` (through any relation in `dynamic`).
pub(crate) fn cost_relation(
    desc: &CheckedDescription,
    dynamic: &HashSet<Sym>,
) -> Result<Option<Sym>, Error> {
    let d = &desc.description;
    let Some(cost) = d.symbols.get(COST) else {
        return Ok(None);
    };
    let mut rules = desc.rules.iter().filter(|r| r.head.pred == cost);
    let Some(first) = rules.next() else {
        return Ok(None);
    };
    if first.head.args.len() != 3 {
        return Err(Error::at(
            ErrorKind::BadCost,
            &d.source,
            first.head.span,
            format!(
                "`cost` takes 3 arguments (role, move, cost), found {}",
                first.head.args.len()
            ),
        ));
    }
    if dynamic.contains(&cost) {
        for r in desc.rules.iter().filter(|r| r.head.pred == cost) {
            for l in &r.body {
                if let NormalLiteral::Pos(a) | NormalLiteral::Neg(a) = l {
                    if dynamic.contains(&a.pred) {
                        return Err(Error::at(
                            ErrorKind::BadCost,
                            &d.source,
                            a.span,
                            format!(
                                "`cost` depends on the state or the moves (through `{}`); a move's \
                                 cost must not depend on `true` or `does`",
                                d.symbols.name(a.pred)
                            ),
                        ));
                    }
                }
            }
        }
        // The relation is dynamic through some rule; point at the first one.
        return Err(Error::at(
            ErrorKind::BadCost,
            &d.source,
            first.span,
            "`cost` depends on `true` or `does`; a move's cost must be static",
        ));
    }
    Ok(Some(cost))
}

/// Reads the evaluated cost relation into per-role, per-move costs (default 1), in the order
/// of `moves`. Costs for something that is not a role, or for a move that is never legal, are
/// ignored with a warning.
pub(crate) fn read_costs(
    desc: &CheckedDescription,
    cost: Option<Sym>,
    rel: Option<&Relation>,
    store: &TermStore,
    role_terms: &[TermId],
    moves: &[Vec<TermId>],
    warnings: &mut Vec<String>,
) -> Result<Vec<Vec<u32>>, Error> {
    let mut costs: Vec<Vec<u32>> = moves.iter().map(|ms| vec![1; ms.len()]).collect();
    let (Some(cost), Some(rel)) = (cost, rel) else {
        return Ok(costs);
    };
    let d = &desc.description;
    let show = |t: TermId| store.show(t, &d.symbols);
    // Where a cost tuple comes from: the fact (or rule head) that writes it, else the first
    // `cost` rule; with the span of its value argument when it has one.
    let locate = |t: &[TermId]| -> Span {
        let shown: Vec<String> = t.iter().map(|&x| show(x)).collect();
        let heads = desc.rules.iter().filter(|r| r.head.pred == cost);
        for r in heads.clone() {
            let written: Vec<String> = r
                .head
                .args
                .iter()
                .map(|a| TermDisplay(a, &d.symbols).to_string())
                .collect();
            if written == shown {
                return r.head.args[2].span();
            }
        }
        heads.map(|r| r.head.span).next().unwrap_or_default()
    };
    let move_index: Vec<FxHashMap<TermId, usize>> = moves
        .iter()
        .map(|ms| ms.iter().enumerate().map(|(i, &m)| (m, i)).collect())
        .collect();
    let mut given: Vec<Vec<Option<u32>>> = moves.iter().map(|ms| vec![None; ms.len()]).collect();
    for i in 0..rel.len() {
        let t = rel.tuple(i);
        let value = store
            .as_const(t[2])
            .and_then(|s| d.symbols.name(s).parse::<u32>().ok())
            .filter(|&v| v > 0);
        let Some(value) = value else {
            return Err(Error::at(
                ErrorKind::BadCost,
                &d.source,
                locate(t),
                format!(
                    "cost {} of move {} is not a positive integer",
                    show(t[2]),
                    show(t[1])
                ),
            ));
        };
        let Some(r) = role_terms.iter().position(|&x| x == t[0]) else {
            warnings.push(format!(
                "cost for {}, which is not a role, is ignored",
                show(t[0])
            ));
            continue;
        };
        let Some(&m) = move_index[r].get(&t[1]) else {
            warnings.push(format!(
                "cost for move {} of role {}, which is never legal, is ignored",
                show(t[1]),
                show(t[0])
            ));
            continue;
        };
        match given[r][m] {
            Some(old) if old != value => {
                return Err(Error::at(
                    ErrorKind::BadCost,
                    &d.source,
                    locate(t),
                    format!(
                        "move {} of role {} is given two different costs, {old} and {value}",
                        show(t[1]),
                        show(t[0])
                    ),
                ));
            }
            _ => {
                given[r][m] = Some(value);
                costs[r][m] = value;
            }
        }
    }
    Ok(costs)
}
