//! Compiled rules: a head and a body of positive and negative literals, `distinct` and `=`
//! constraints over [`Pattern`]s, with the body items that decomposition and demand
//! restriction reorder and regroup.

use crate::pattern::Pattern;
use crate::terms::TermStore;
use std::collections::HashMap;
use symgame_gdl::{Description, NormalLiteral, NormalRule, Span, Sym};

/// A compiled rule.
#[derive(Clone, Debug)]
pub(crate) struct CRule {
    pub head_pred: Sym,
    pub head: Vec<Pattern>,
    pub pos: Vec<(Sym, Vec<Pattern>)>,
    pub neg: Vec<(Sym, Vec<Pattern>)>,
    pub distinct: Vec<(Pattern, Pattern)>,
    pub equal: Vec<(Pattern, Pattern)>,
    pub nvars: usize,
    pub span: Span,
    /// index of the source rule (for ground rule origins), or None for bridge rules
    pub origin: Option<usize>,
}

/// A body item of a compiled rule: a positive or negative literal, a `distinct` or a `=`
/// constraint, by its index in the rule (ordered by kind in that order, then by index).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub(crate) enum Item {
    Pos(usize),
    Neg(usize),
    Distinct(usize),
    Equal(usize),
}

impl CRule {
    /// The rule `head_pred(head) <= ` with an empty body.
    fn bodiless(
        head_pred: Sym,
        head: Vec<Pattern>,
        nvars: usize,
        span: Span,
        origin: Option<usize>,
    ) -> CRule {
        CRule {
            head_pred,
            head,
            pos: vec![],
            neg: vec![],
            distinct: vec![],
            equal: vec![],
            nvars,
            span,
            origin,
        }
    }

    /// Compiles source rule number `origin`.
    pub fn compile(r: &NormalRule, origin: usize, store: &mut TermStore) -> CRule {
        let mut vars = HashMap::new();
        let mut pattern = |t| Pattern::compile(t, &mut vars, store);
        let head = r.head.args.iter().map(&mut pattern).collect();
        let mut c = CRule::bodiless(r.head.pred, head, 0, r.span, Some(origin));
        for l in &r.body {
            match l {
                NormalLiteral::Pos(a) => c
                    .pos
                    .push((a.pred, a.args.iter().map(&mut pattern).collect())),
                NormalLiteral::Neg(a) => c
                    .neg
                    .push((a.pred, a.args.iter().map(&mut pattern).collect())),
                NormalLiteral::Distinct(a, b, _) => c.distinct.push((pattern(a), pattern(b))),
                NormalLiteral::Equal(a, b, _) => c.equal.push((pattern(a), pattern(b))),
            }
        }
        c.nvars = vars.len();
        c
    }

    /// The bridge rule `head(x1..xn) <= body(x1..xn)` (no source rule).
    pub fn bridge(head: Sym, body: Sym, arity: usize) -> CRule {
        let vars: Vec<Pattern> = (0..arity as u32).map(Pattern::Var).collect();
        let mut c = CRule::bodiless(head, vars.clone(), arity, Span::default(), None);
        c.pos.push((body, vars));
        c
    }

    /// A rule `head_pred(head) <= items`, the items taken from this rule's body in the given
    /// order (within each kind), with this rule's variables and origin.
    pub fn with_items(&self, head_pred: Sym, head: Vec<Pattern>, items: &[Item]) -> CRule {
        let mut c = CRule::bodiless(head_pred, head, self.nvars, self.span, self.origin);
        for it in items {
            match *it {
                Item::Pos(i) => c.pos.push(self.pos[i].clone()),
                Item::Neg(i) => c.neg.push(self.neg[i].clone()),
                Item::Distinct(i) => c.distinct.push(self.distinct[i].clone()),
                Item::Equal(i) => c.equal.push(self.equal[i].clone()),
            }
        }
        c
    }

    /// The variables of `ps`, left to right, with repetitions.
    pub fn vars_of(ps: &[Pattern]) -> Vec<u32> {
        let mut v = Vec::new();
        ps.iter().for_each(|p| p.vars(&mut v));
        v
    }

    /// The body items: positive literals, negative literals, `distinct`, `=`, each in order.
    pub fn items(&self) -> impl Iterator<Item = Item> {
        (0..self.pos.len())
            .map(Item::Pos)
            .chain((0..self.neg.len()).map(Item::Neg))
            .chain((0..self.distinct.len()).map(Item::Distinct))
            .chain((0..self.equal.len()).map(Item::Equal))
    }

    /// The variables of body item `it`, left to right, with repetitions.
    pub fn item_vars(&self, it: Item) -> Vec<u32> {
        let pair = |(a, b): &(Pattern, Pattern)| {
            let mut v = Vec::new();
            a.vars(&mut v);
            b.vars(&mut v);
            v
        };
        match it {
            Item::Pos(i) => CRule::vars_of(&self.pos[i].1),
            Item::Neg(i) => CRule::vars_of(&self.neg[i].1),
            Item::Distinct(i) => pair(&self.distinct[i]),
            Item::Equal(i) => pair(&self.equal[i]),
        }
    }

    /// Runs, to a fixpoint, each `=` constraint not yet `done` with a side whose variables are
    /// all `bound`: it binds the variables of the other side. `ran(j)` is called for each
    /// constraint `j` run, in order.
    pub fn bind_equalities(
        &self,
        done: &mut [bool],
        bound: &mut [bool],
        mut ran: impl FnMut(usize),
    ) {
        loop {
            let mut progress = false;
            for (j, (a, b)) in self.equal.iter().enumerate() {
                if !done[j] && (a.is_bound(bound) || b.is_bound(bound)) {
                    done[j] = true;
                    for v in self.item_vars(Item::Equal(j)) {
                        bound[v as usize] = true;
                    }
                    ran(j);
                    progress = true;
                }
            }
            if !progress {
                return;
            }
        }
    }
}

/// The name of relation `p`, or a stand-in for the auxiliary relations added by grounding.
pub(crate) fn relation_name(d: &Description, p: Sym) -> &str {
    if (p.0 as usize) < d.symbols.len() {
        d.symbols.name(p)
    } else {
        "(auxiliary relation)"
    }
}
