//! Normalisation and static validation.
//!
//! [`check`] turns the rules as written into [`NormalRule`]s — bodies that are flat conjunctions of
//! positive atoms, negated atoms, `distinct` and equality constraints (`or` expanded, `not` pushed
//! inwards, `(not (distinct a b))` read as `a = b`) — and checks the static conditions of GDL:
//! keyword arity and placement, consistent arities, rule safety, stratified negation, the
//! recursion restriction, `legal`/`goal`/`terminal`/`init` independent of `does`, and goal values.

use crate::error::{Error, ErrorKind};
use crate::syntax::*;
use std::collections::{HashMap, HashSet};

/// A body literal of a normalised rule.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum NormalLiteral {
    /// A positive atom.
    Pos(Atom),
    /// A negated atom.
    Neg(Atom),
    /// `(distinct a b)`.
    Distinct(Term, Term, Span),
    /// `(not (distinct a b))`: the two terms are equal.
    Equal(Term, Term, Span),
}

impl NormalLiteral {
    /// Where the literal starts.
    pub fn span(&self) -> Span {
        match self {
            NormalLiteral::Pos(a) | NormalLiteral::Neg(a) => a.span,
            NormalLiteral::Distinct(_, _, s) | NormalLiteral::Equal(_, _, s) => *s,
        }
    }
}

/// Calls its argument on every variable (with its span) of some part of a rule.
type VarVisitor<'a> = dyn Fn(&mut dyn FnMut(Sym, Span)) + 'a;

/// A rule whose body is a flat conjunction.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct NormalRule {
    /// The head atom.
    pub head: Atom,
    /// The body.
    pub body: Vec<NormalLiteral>,
    /// Where the original rule starts.
    pub span: Span,
}

/// A located warning: the description is usable, but something looks wrong.
#[derive(Clone, Debug)]
pub struct Warning {
    /// `file:line:col: message`.
    pub message: String,
}

/// A validated description, ready for grounding.
#[derive(Clone, Debug)]
pub struct CheckedDescription {
    /// The parsed description.
    pub description: Description,
    /// Normalised rules (one per disjunct of the originals).
    pub rules: Vec<NormalRule>,
    /// The arity of every relation that occurs.
    pub arity: HashMap<Sym, usize>,
    /// The stratum of every relation (0 = no negation below it).
    pub stratum: HashMap<Sym, usize>,
    /// Relations with negation inside their recursive component: stratified only once ground
    /// (checked by the grounder).
    pub needs_ground_check: HashSet<Sym>,
    /// Warnings that do not stop the game from being used.
    pub warnings: Vec<Warning>,
}

/// Upper bound on the rules that expanding `or` adds, to refuse pathological inputs cleanly.
const MAX_EXPANDED_RULES: usize = 1_000_000;

/// Normalises and validates a parsed description.
pub fn check(description: Description) -> Result<CheckedDescription, Error> {
    check_within(description, None)
}

/// [`check`], stopping with [`ErrorKind::TimeLimit`] once `deadline` has passed (checked
/// between its passes).
pub fn check_within(
    description: Description,
    deadline: Option<std::time::Instant>,
) -> Result<CheckedDescription, Error> {
    let c = Checker {
        d: &description,
        kw: description.keywords,
    };
    let clock = || crate::parse::check_clock(deadline, description.source.name(), "checking");
    c.keyword_placement()?;
    clock()?;
    let rules = c.normalise()?;
    clock()?;
    let arity = c.arities(&rules)?;
    for r in &rules {
        c.safety(r)?;
    }
    clock()?;
    let graph = DependencyGraph::new(&rules, &c.kw);
    let (stratum, needs_ground_check) = c.stratify(&graph);
    clock()?;
    c.recursion_restriction(&rules, &graph)?;
    c.independent_of_does(&rules, &graph)?;
    c.goal_values(&rules)?;
    c.roles(&rules)?;
    clock()?;
    let warnings = c.warnings(&rules, &graph);
    Ok(CheckedDescription {
        rules,
        arity,
        stratum,
        needs_ground_check,
        warnings,
        description,
    })
}

struct Checker<'a> {
    d: &'a Description,
    kw: Keywords,
}

/// Relation-level dependency graph: head relation -> body relations, with the sign.
pub struct DependencyGraph {
    /// For each relation, the relations its rules use: (relation, negated, span of the use).
    pub edges: HashMap<Sym, Vec<(Sym, bool, Span)>>,
    /// Strongly connected component index of each relation.
    pub scc: HashMap<Sym, usize>,
}

impl DependencyGraph {
    fn new(rules: &[NormalRule], kw: &Keywords) -> DependencyGraph {
        let mut edges: HashMap<Sym, Vec<(Sym, bool, Span)>> = HashMap::new();
        let mut nodes: Vec<Sym> = Vec::new();
        let mut seen = HashSet::new();
        let mut add_node = |s: Sym, nodes: &mut Vec<Sym>| {
            if seen.insert(s) {
                nodes.push(s);
            }
        };
        for r in rules {
            // `next` feeds `true` and `legal` feeds `does` across time steps: not a same-step
            // dependency, so it is not an edge here.
            add_node(r.head.pred, &mut nodes);
            let e = edges.entry(r.head.pred).or_default();
            for l in &r.body {
                match l {
                    NormalLiteral::Pos(a) => e.push((a.pred, false, a.span)),
                    NormalLiteral::Neg(a) => e.push((a.pred, true, a.span)),
                    _ => {}
                }
            }
        }
        for r in rules {
            for l in &r.body {
                if let NormalLiteral::Pos(a) | NormalLiteral::Neg(a) = l {
                    add_node(a.pred, &mut nodes);
                }
            }
        }
        let _ = kw;
        let scc = tarjan(&nodes, &edges);
        DependencyGraph { edges, scc }
    }

    /// True if `from` depends (transitively, through any rule) on `to`.
    pub fn depends_on(&self, from: Sym, to: Sym) -> bool {
        let mut stack = vec![from];
        let mut seen = HashSet::new();
        while let Some(s) = stack.pop() {
            if s == to {
                return true;
            }
            if !seen.insert(s) {
                continue;
            }
            if let Some(es) = self.edges.get(&s) {
                stack.extend(es.iter().map(|e| e.0));
            }
        }
        false
    }
}

/// Tarjan's strongly connected components, iterative (deep recursion in rule graphs is possible).
fn tarjan(nodes: &[Sym], edges: &HashMap<Sym, Vec<(Sym, bool, Span)>>) -> HashMap<Sym, usize> {
    let mut index: HashMap<Sym, usize> = HashMap::new();
    let mut low: HashMap<Sym, usize> = HashMap::new();
    let mut on_stack: HashSet<Sym> = HashSet::new();
    let mut stack: Vec<Sym> = Vec::new();
    let mut comp: HashMap<Sym, usize> = HashMap::new();
    let mut next_index = 0;
    let mut next_comp = 0;
    let empty = Vec::new();
    for &root in nodes {
        if index.contains_key(&root) {
            continue;
        }
        // (node, position in its edge list)
        let mut work: Vec<(Sym, usize)> = vec![(root, 0)];
        index.insert(root, next_index);
        low.insert(root, next_index);
        next_index += 1;
        stack.push(root);
        on_stack.insert(root);
        while let Some(&mut (v, ref mut pos)) = work.last_mut() {
            let es = edges.get(&v).unwrap_or(&empty);
            if *pos < es.len() {
                let w = es[*pos].0;
                *pos += 1;
                if let std::collections::hash_map::Entry::Vacant(e) = index.entry(w) {
                    e.insert(next_index);
                    low.insert(w, next_index);
                    next_index += 1;
                    stack.push(w);
                    on_stack.insert(w);
                    work.push((w, 0));
                } else if on_stack.contains(&w) {
                    let lw = index[&w];
                    let lv = low.get_mut(&v).expect("visited");
                    *lv = (*lv).min(lw);
                }
            } else {
                work.pop();
                if let Some(&(parent, _)) = work.last() {
                    let lv = low[&v];
                    let lp = low.get_mut(&parent).expect("visited");
                    *lp = (*lp).min(lv);
                }
                if low[&v] == index[&v] {
                    loop {
                        let w = stack.pop().expect("tarjan stack");
                        on_stack.remove(&w);
                        comp.insert(w, next_comp);
                        if w == v {
                            break;
                        }
                    }
                    next_comp += 1;
                }
            }
        }
    }
    comp
}

impl Checker<'_> {
    fn err(&self, kind: ErrorKind, span: Span, msg: impl Into<String>) -> Error {
        Error::at(kind, &self.d.source, span, msg)
    }

    fn name(&self, s: Sym) -> &str {
        self.d.symbols.name(s)
    }

    fn keyword_arity(&self, s: Sym) -> Option<usize> {
        let relations = self.kw.relations();
        relations.iter().find(|(kw, _)| *kw == s).map(|&(_, n)| n)
    }

    fn check_atom_arity(&self, a: &Atom) -> Result<(), Error> {
        if let Some(n) = self.keyword_arity(a.pred) {
            if a.args.len() != n {
                let name = self.name(a.pred);
                let source = &self.d.source;
                return Err(Error::keyword_arity(source, a.span, name, n, a.args.len()));
            }
        }
        Ok(())
    }

    fn keyword_placement(&self) -> Result<(), Error> {
        let k = &self.kw;
        for r in &self.d.rules {
            let h = &r.head;
            self.check_atom_arity(h)?;
            if h.pred == k.true_ || h.pred == k.does {
                return Err(self.err(
                    ErrorKind::KeywordPlacement,
                    h.span,
                    format!(
                        "`{}` may not appear in a rule head (it is given by the game state or the moves)",
                        self.name(h.pred)
                    ),
                ));
            }
            if h.pred == k.role && !r.body.is_empty() {
                return Err(self.err(
                    ErrorKind::BadRole,
                    h.span,
                    "`role` must be a ground fact, not defined by a rule",
                ));
            }
            let mut bad = None;
            for l in &r.body {
                visit_atoms(l, &mut |a| {
                    if bad.is_none() {
                        if let Err(e) = self.check_atom_arity(a) {
                            bad = Some(e);
                        } else if [k.init, k.next, k.base, k.input].contains(&a.pred) {
                            bad = Some(self.err(
                                ErrorKind::KeywordPlacement,
                                a.span,
                                format!("`{}` may not appear in a rule body", self.name(a.pred)),
                            ));
                        }
                    }
                });
            }
            if let Some(e) = bad {
                return Err(e);
            }
        }
        Ok(())
    }

    fn normalise(&self) -> Result<Vec<NormalRule>, Error> {
        let mut out = Vec::with_capacity(self.d.rules.len());
        // rules added by expanding `or` (a rule without `or` gives one rule: the plain rules
        // are bounded by the size of the file, not by this limit)
        let mut added = 0usize;
        for r in &self.d.rules {
            // DNF of the body: a list of conjunctions
            let mut conjs: Vec<Vec<NormalLiteral>> = vec![Vec::new()];
            for l in &r.body {
                let alternatives = conjs.len().saturating_mul(dnf_len(l, false));
                if added.saturating_add(alternatives.saturating_sub(1)) > MAX_EXPANDED_RULES {
                    return Err(self.err(
                        ErrorKind::ResourceLimit,
                        r.span,
                        format!("expanding `or` adds more than {MAX_EXPANDED_RULES} rules"),
                    ));
                }
                conjs = conjoin(conjs, &dnf(l, false));
            }
            added += conjs.len().saturating_sub(1);
            for body in conjs {
                out.push(NormalRule {
                    head: r.head.clone(),
                    body,
                    span: r.span,
                });
            }
        }
        Ok(out)
    }

    fn arities(&self, rules: &[NormalRule]) -> Result<HashMap<Sym, usize>, Error> {
        let mut arity: HashMap<Sym, (usize, Span)> = HashMap::new();
        let mut note = |a: &Atom| -> Result<(), Error> {
            match arity.get(&a.pred) {
                Some(&(n, first)) if n != a.args.len() => Err(self.err(
                    ErrorKind::ArityMismatch,
                    a.span,
                    format!(
                        "relation `{}` used with {} argument{} here but with {} at line {}:{}",
                        self.name(a.pred),
                        a.args.len(),
                        if a.args.len() == 1 { "" } else { "s" },
                        n,
                        first.line,
                        first.col
                    ),
                )),
                Some(_) => Ok(()),
                None => {
                    arity.insert(a.pred, (a.args.len(), a.span));
                    Ok(())
                }
            }
        };
        for r in rules {
            note(&r.head)?;
            for l in &r.body {
                if let NormalLiteral::Pos(a) | NormalLiteral::Neg(a) = l {
                    note(a)?;
                }
            }
        }
        Ok(arity.into_iter().map(|(k, (n, _))| (k, n)).collect())
    }

    fn safety(&self, r: &NormalRule) -> Result<(), Error> {
        let mut bound = HashSet::new();
        for l in &r.body {
            if let NormalLiteral::Pos(a) = l {
                a.for_each_var(&mut |v, _| {
                    bound.insert(v);
                });
            }
        }
        // `(not (distinct ?x t))` binds ?x when t is bound: propagate to a fixpoint
        loop {
            let mut changed = false;
            for l in &r.body {
                if let NormalLiteral::Equal(a, b, _) = l {
                    for (x, y) in [(a, b), (b, a)] {
                        let mut all = true;
                        y.for_each_var(&mut |v, _| all &= bound.contains(&v));
                        if all {
                            x.for_each_var(&mut |v, _| changed |= bound.insert(v));
                        }
                    }
                }
            }
            if !changed {
                break;
            }
        }
        let check = |t: &VarVisitor, place: &str| -> Result<(), Error> {
            let mut bad = None;
            t(&mut |v, s| {
                if bad.is_none() && !bound.contains(&v) {
                    bad = Some((v, s));
                }
            });
            match bad {
                Some((v, s)) => Err(self.err(
                    ErrorKind::UnsafeRule,
                    s,
                    format!(
                        "unsafe rule: variable ?{} in {} does not occur in a positive body literal",
                        self.name(v),
                        place
                    ),
                )),
                None => Ok(()),
            }
        };
        check(
            &|f| r.head.for_each_var(&mut |v, s| f(v, s)),
            "the rule head",
        )?;
        for l in &r.body {
            match l {
                NormalLiteral::Neg(a) => check(&|f| a.for_each_var(&mut |v, s| f(v, s)), "`not`")?,
                NormalLiteral::Distinct(a, b, _) | NormalLiteral::Equal(a, b, _) => {
                    let place = match l {
                        NormalLiteral::Distinct(..) => "`distinct`",
                        _ => "`(not (distinct ...))`",
                    };
                    check(
                        &|f| {
                            a.for_each_var(&mut |v, s| f(v, s));
                            b.for_each_var(&mut |v, s| f(v, s));
                        },
                        place,
                    )?
                }
                NormalLiteral::Pos(_) => {}
            }
        }
        Ok(())
    }

    /// Strata of the relations. Negation between relations of one recursive component is not
    /// rejected here: real descriptions write `(<= (goal r 100) (not (goal r 0)))`, which is
    /// stratified once ground. Such relations are listed in `needs_ground_check`; the grounder
    /// rejects them if a ground atom depends negatively on itself.
    fn stratify(&self, g: &DependencyGraph) -> (HashMap<Sym, usize>, HashSet<Sym>) {
        let mut local = HashSet::new();
        for (&p, es) in &g.edges {
            for &(q, neg, _) in es {
                if neg && g.scc.get(&q) == g.scc.get(&p) {
                    local.insert(p);
                    local.insert(q);
                }
            }
        }
        // stratum(p) = max over edges p -> q of stratum(q) + [negated and across components]
        let mut stratum: HashMap<Sym, usize> = g.scc.keys().map(|&s| (s, 0)).collect();
        for _ in 0..=stratum.len() {
            let mut changed = false;
            for (&p, es) in &g.edges {
                let mut s = stratum[&p];
                for &(q, neg, _) in es {
                    let step = usize::from(neg && g.scc.get(&q) != g.scc.get(&p));
                    s = s.max(stratum[&q] + step);
                }
                if s > stratum[&p] {
                    stratum.insert(p, s);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        (stratum, local)
    }

    fn recursion_restriction(
        &self,
        rules: &[NormalRule],
        g: &DependencyGraph,
    ) -> Result<(), Error> {
        for r in rules {
            let hc = g.scc.get(&r.head.pred);
            let mut allowed = HashSet::new();
            r.head.for_each_var(&mut |v, _| {
                allowed.insert(v);
            });
            let mut recursive = Vec::new();
            for l in &r.body {
                if let NormalLiteral::Pos(a) = l {
                    if g.scc.get(&a.pred) == hc {
                        recursive.push(a);
                    } else {
                        a.for_each_var(&mut |v, _| {
                            allowed.insert(v);
                        });
                    }
                }
            }
            for a in recursive {
                let mut bad = None;
                a.for_each_var(&mut |v, s| {
                    if bad.is_none() && !allowed.contains(&v) {
                        bad = Some((v, s));
                    }
                });
                if let Some((v, s)) = bad {
                    return Err(self.err(
                        ErrorKind::RecursionRestriction,
                        s,
                        format!(
                            "recursion restriction: variable ?{} of the recursive literal `{}` occurs neither in the head nor in a non-recursive positive literal",
                            self.name(v),
                            self.name(a.pred)
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    fn independent_of_does(&self, rules: &[NormalRule], g: &DependencyGraph) -> Result<(), Error> {
        let k = &self.kw;
        for key in [k.legal, k.goal, k.terminal, k.init] {
            if let Some((span, _, via)) = self.find_use(rules, g, key, &[k.does]) {
                return Err(self.err(
                    ErrorKind::DependsOnDoes,
                    span,
                    format!(
                        "`{}` depends on `does`{via}; legal, goal, terminal and init must depend on the state only",
                        self.name(key)
                    ),
                ));
            }
        }
        let state = [k.true_, k.legal, k.next, k.goal, k.terminal];
        if let Some((span, used, via)) = self.find_use(rules, g, k.init, &state) {
            return Err(self.err(
                ErrorKind::InitDependsOnState,
                span,
                format!(
                    "`init` depends on `{}`{via}; init may not depend on true, does, legal, next, goal or terminal",
                    self.name(used)
                ),
            ));
        }
        Ok(())
    }

    /// The nearest literal of a relation in `used` in a rule of `key` or of a relation `key`
    /// depends on (relations visited breadth-first from `key`): its span, its relation, and
    /// ` (through `rel`)` naming the rule's relation when that is not `key`.
    fn find_use(
        &self,
        rules: &[NormalRule],
        g: &DependencyGraph,
        key: Sym,
        used: &[Sym],
    ) -> Option<(Span, Sym, String)> {
        if !used.iter().any(|&u| g.depends_on(key, u)) {
            return None;
        }
        let mut by_head: HashMap<Sym, Vec<&NormalRule>> = HashMap::new();
        for r in rules {
            by_head.entry(r.head.pred).or_default().push(r);
        }
        let mut queue = std::collections::VecDeque::from([key]);
        let mut seen = HashSet::from([key]);
        while let Some(rel) = queue.pop_front() {
            for r in by_head.get(&rel).into_iter().flatten() {
                for l in &r.body {
                    let (NormalLiteral::Pos(a) | NormalLiteral::Neg(a)) = l else {
                        continue;
                    };
                    if used.contains(&a.pred) {
                        let via = if rel == key {
                            String::new()
                        } else {
                            format!(" (through `{}`)", self.name(rel))
                        };
                        return Some((a.span, a.pred, via));
                    }
                    if seen.insert(a.pred) {
                        queue.push_back(a.pred);
                    }
                }
            }
        }
        None
    }

    fn goal_values(&self, rules: &[NormalRule]) -> Result<(), Error> {
        for r in rules {
            if r.head.pred != self.kw.goal {
                continue;
            }
            if let Some(Term::Const(c, s)) = r.head.args.get(1) {
                let name = self.name(*c);
                match name.parse::<u32>() {
                    Ok(v) if v <= 100 => {}
                    _ => {
                        return Err(self.err(
                            ErrorKind::BadGoalValue,
                            *s,
                            format!("goal value `{name}` is not an integer between 0 and 100"),
                        ))
                    }
                }
            } else if let Some(t @ Term::Func(..)) = r.head.args.get(1) {
                return Err(self.err(
                    ErrorKind::BadGoalValue,
                    t.span(),
                    "goal value must be an integer between 0 and 100, found a compound term",
                ));
            }
        }
        Ok(())
    }

    fn roles(&self, rules: &[NormalRule]) -> Result<(), Error> {
        let mut any = false;
        for r in rules {
            if r.head.pred == self.kw.role {
                any = true;
                if let Some(t) = r.head.args.first() {
                    if !t.is_ground() {
                        return Err(self.err(
                            ErrorKind::BadRole,
                            t.span(),
                            "`role` must be a ground fact",
                        ));
                    }
                }
            }
        }
        if !any {
            return Err(Error::file(
                ErrorKind::BadRole,
                self.d.source.name(),
                "the description declares no role",
            ));
        }
        Ok(())
    }

    fn warnings(&self, rules: &[NormalRule], _g: &DependencyGraph) -> Vec<Warning> {
        let mut defined = HashSet::new();
        for r in rules {
            defined.insert(r.head.pred);
        }
        let k = &self.kw;
        let mut out = Vec::new();
        let mut reported = HashSet::new();
        for r in rules {
            for l in &r.body {
                if let NormalLiteral::Pos(a) | NormalLiteral::Neg(a) = l {
                    if a.pred != k.true_
                        && a.pred != k.does
                        && !defined.contains(&a.pred)
                        && reported.insert(a.pred)
                    {
                        out.push(Warning {
                            message: format!(
                                "{}:{}:{}: relation `{}` is used but never defined (it is always false)",
                                self.d.source.name(),
                                a.span.line,
                                a.span.col,
                                self.name(a.pred)
                            ),
                        });
                    }
                }
            }
        }
        for (key, what) in [
            (k.terminal, "terminal"),
            (k.goal, "goal"),
            (k.legal, "legal"),
        ] {
            if !defined.contains(&key) {
                out.push(Warning {
                    message: format!("{}: no `{}` rule", self.d.source.name(), what),
                });
            }
        }
        out
    }
}

fn visit_atoms(l: &Literal, f: &mut impl FnMut(&Atom)) {
    match l {
        Literal::Pos(a) => f(a),
        Literal::Not(inner, _) => visit_atoms(inner, f),
        Literal::Distinct(..) => {}
        Literal::Or(ls, _) | Literal::And(ls, _) => ls.iter().for_each(|l| visit_atoms(l, f)),
    }
}

/// The conjunction of two formulas in disjunctive normal form: every conjunction of `conjs`
/// extended by every alternative of `alts`, in that order.
fn conjoin(
    mut conjs: Vec<Vec<NormalLiteral>>,
    alts: &[Vec<NormalLiteral>],
) -> Vec<Vec<NormalLiteral>> {
    if let [alt] = alts {
        for c in &mut conjs {
            c.extend(alt.iter().cloned());
        }
        return conjs;
    }
    let mut next = Vec::with_capacity(conjs.len() * alts.len());
    for c in &conjs {
        for a in alts {
            let mut n = c.clone();
            n.extend(a.iter().cloned());
            next.push(n);
        }
    }
    next
}

/// The number of alternatives [`dnf`] gives for `l` (saturating), computed without building
/// them.
fn dnf_len(l: &Literal, neg: bool) -> usize {
    match (l, neg) {
        (Literal::Pos(_) | Literal::Distinct(..), _) => 1,
        (Literal::Not(inner, _), n) => dnf_len(inner, !n),
        (Literal::Or(ls, _), false) | (Literal::And(ls, _), true) => ls
            .iter()
            .fold(0usize, |acc, l| acc.saturating_add(dnf_len(l, neg))),
        (Literal::And(ls, _), false) | (Literal::Or(ls, _), true) => ls
            .iter()
            .fold(1usize, |acc, l| acc.saturating_mul(dnf_len(l, neg))),
    }
}

/// Disjunctive normal form of a literal (negated when `neg`): alternatives of conjunctions.
fn dnf(l: &Literal, neg: bool) -> Vec<Vec<NormalLiteral>> {
    match (l, neg) {
        (Literal::Pos(a), false) => vec![vec![NormalLiteral::Pos(a.clone())]],
        (Literal::Pos(a), true) => vec![vec![NormalLiteral::Neg(a.clone())]],
        (Literal::Distinct(a, b, s), false) => {
            vec![vec![NormalLiteral::Distinct(a.clone(), b.clone(), *s)]]
        }
        (Literal::Distinct(a, b, s), true) => {
            vec![vec![NormalLiteral::Equal(a.clone(), b.clone(), *s)]]
        }
        (Literal::Not(inner, _), n) => dnf(inner, !n),
        (Literal::Or(ls, _), false) | (Literal::And(ls, _), true) => {
            ls.iter().flat_map(|l| dnf(l, neg)).collect()
        }
        (Literal::And(ls, _), false) | (Literal::Or(ls, _), true) => {
            let mut acc: Vec<Vec<NormalLiteral>> = vec![Vec::new()];
            for l in ls {
                acc = conjoin(acc, &dnf(l, neg));
            }
            acc
        }
    }
}
