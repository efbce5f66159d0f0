//! Term patterns: GDL terms compiled with per-rule variable numbers, matched against interned
//! ground terms (binding variables in an environment) and instantiated from a binding.

use crate::terms::{with_ids, TermId, TermNode, TermStore};
use std::collections::HashMap;
use symgame_gdl::{Sym, Term};

/// A term pattern with per-rule variable numbers.
#[derive(Clone, Debug)]
pub(crate) enum Pattern {
    Var(u32),
    Ground(TermId),
    Func(Sym, Vec<Pattern>),
}

/// The value of an unbound variable in an environment.
pub(crate) const UNBOUND: u32 = u32::MAX;

impl Pattern {
    pub fn compile(t: &Term, vars: &mut HashMap<Sym, u32>, store: &mut TermStore) -> Pattern {
        match t {
            Term::Var(v, _) => {
                let n = vars.len() as u32;
                Pattern::Var(*vars.entry(*v).or_insert(n))
            }
            Term::Const(c, _) => Pattern::Ground(store.intern(TermNode::Const(*c))),
            Term::Func(f, args, _) => {
                let ps: Vec<Pattern> = args
                    .iter()
                    .map(|a| Pattern::compile(a, vars, store))
                    .collect();
                if ps.iter().all(|p| matches!(p, Pattern::Ground(_))) {
                    let ids = ps
                        .iter()
                        .map(|p| match p {
                            Pattern::Ground(t) => *t,
                            _ => unreachable!("checked ground"),
                        })
                        .collect();
                    Pattern::Ground(store.intern(TermNode::Func(*f, ids)))
                } else {
                    Pattern::Func(*f, ps)
                }
            }
        }
    }

    /// Appends the variables of the pattern to `out`, left to right, with repetitions.
    pub fn vars(&self, out: &mut Vec<u32>) {
        match self {
            Pattern::Var(v) => out.push(*v),
            Pattern::Ground(_) => {}
            Pattern::Func(_, ps) => ps.iter().for_each(|p| p.vars(out)),
        }
    }

    /// Whether every variable of the pattern is marked in `bound`.
    pub fn is_bound(&self, bound: &[bool]) -> bool {
        match self {
            Pattern::Var(v) => bound[*v as usize],
            Pattern::Ground(_) => true,
            Pattern::Func(_, ps) => ps.iter().all(|p| p.is_bound(bound)),
        }
    }
}

/// Matches `p` against `t` structurally; `var(v, s)` decides each variable occurrence `v`
/// facing the subterm `s`.
fn match_term(
    p: &Pattern,
    t: TermId,
    store: &TermStore,
    var: &mut impl FnMut(u32, TermId) -> bool,
) -> bool {
    match p {
        Pattern::Ground(g) => *g == t,
        Pattern::Var(v) => var(*v, t),
        Pattern::Func(f, ps) => match store.node(t) {
            TermNode::Func(g, args) if g == f && args.len() == ps.len() => ps
                .iter()
                .zip(args.iter())
                .all(|(p, &a)| match_term(p, a, store, var)),
            _ => false,
        },
    }
}

/// Matches `p` against `t`, binding variables in `env` (recorded in `trail` for undoing).
pub(crate) fn unify(
    p: &Pattern,
    t: TermId,
    env: &mut [u32],
    trail: &mut Vec<u32>,
    store: &TermStore,
) -> bool {
    match_term(p, t, store, &mut |v, t| {
        let cur = &mut env[v as usize];
        if *cur == UNBOUND {
            *cur = t.0;
            trail.push(v);
            true
        } else {
            *cur == t.0
        }
    })
}

/// Whether the bound pattern `p` denotes the term `t`.
fn matches_term(p: &Pattern, t: TermId, env: &[u32], store: &TermStore) -> bool {
    match_term(p, t, store, &mut |v, t| env[v as usize] == t.0)
}

/// Instantiates a pattern whose variables are all bound, without interning: `None` when the
/// term has never been built (so no relation can contain it).
pub(crate) fn lookup_instance(p: &Pattern, env: &[u32], store: &TermStore) -> Option<TermId> {
    match p {
        Pattern::Ground(g) => Some(*g),
        Pattern::Var(v) => Some(TermId(env[*v as usize])),
        Pattern::Func(f, ps) => with_ids::<8, _>(ps.len(), |args| {
            for (a, p) in args.iter_mut().zip(ps) {
                *a = lookup_instance(p, env, store)?;
            }
            store.lookup_func(*f, args)
        }),
    }
}

/// Instantiates a pattern whose variables are all bound.
pub(crate) fn instantiate(p: &Pattern, env: &[u32], store: &mut TermStore) -> TermId {
    match p {
        Pattern::Ground(g) => *g,
        Pattern::Var(v) => TermId(env[*v as usize]),
        Pattern::Func(f, ps) => with_ids::<8, _>(ps.len(), |args| {
            for (a, p) in args.iter_mut().zip(ps) {
                *a = instantiate(p, env, store);
            }
            store.intern_func(*f, args)
        }),
    }
}

/// Whether two patterns whose variables are bound denote the same ground term.
pub(crate) fn same_term(a: &Pattern, b: &Pattern, env: &[u32], store: &TermStore) -> bool {
    let id = |p: &Pattern| match p {
        Pattern::Ground(g) => Some(*g),
        Pattern::Var(v) => Some(TermId(env[*v as usize])),
        Pattern::Func(..) => None,
    };
    match (id(a), id(b)) {
        (Some(x), Some(y)) => x == y,
        (Some(x), None) => matches_term(b, x, env, store),
        (None, Some(y)) => matches_term(a, y, env, store),
        (None, None) => match (a, b) {
            (Pattern::Func(f, xs), Pattern::Func(g, ys)) => {
                f == g
                    && xs.len() == ys.len()
                    && xs.iter().zip(ys).all(|(x, y)| same_term(x, y, env, store))
            }
            _ => false,
        },
    }
}
