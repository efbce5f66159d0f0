//! The partitioned transition relation: one [`Partition`] per joint move that can be legal
//! (only the bits the move changes constrained), clustered per turn, with each part's image and
//! pre-image and the terminal parts it can make true.

use std::fmt;

use symgame_bdd::{BddEngine, BddError, BddResult, Var, VarSet};
use symgame_ground::GroundGame;

use crate::compile::{Compiler, JointMove};
use crate::disjunction::{and_not_all_checked, cluster_parts};
use crate::encoding::Encoding;
use crate::error::SymbolicError;
use crate::next_bits::{group_violation_capped, next_bit_functions};
use crate::options::SymbolicOptions;

/// One part of the partitioned transition relation.
///
/// `relation(x, x')` = `OR` over its joint moves `j` of
/// `legal_j(x) AND AND_{b in touched bits} (x_b' <-> next_b|j(x))`, where the bits not touched
/// by `j` but touched by another joint move of the part get the frame axiom `x_b' <-> x_b`.
/// Bits outside the touched ones keep their value and are not mentioned. Terminal states are
/// excluded by the callers ([`SymbolicGame::image`](crate::SymbolicGame::image) and [`SymbolicGame::pre_image`](crate::SymbolicGame::pre_image)), not by
/// the relation. A relation too large to build is kept as the conjunct list `conjuncts`
/// (then `relation` is only `legal_j`).
pub struct Partition<E: BddEngine> {
    /// The joint moves this part covers (one unless clustered).
    pub joint_moves: Vec<JointMove>,
    /// The relation over current variables and the next variables of the touched bits.
    pub relation: E::Bdd,
    /// Further conjuncts of the relation (empty unless it was too large to build): pairs of a
    /// touched bit's next variable and `x_b' <-> next_b|j(x)`, by descending variable.
    pub conjuncts: Vec<(Var, E::Bdd)>,
    /// The fluents whose next value is constrained (those of groups with a touched bit),
    /// sorted by position.
    pub touched: Vec<usize>,
    /// The touched bits, ascending.
    bits: Vec<u32>,
    /// The terminal parts this part can make true (merged), see [`Partition::terminal_parts`].
    terminal_parts: Vec<E::Bdd>,
    /// With assumed groups ([`Encoding::assumed`]): the states where a joint move of this part
    /// is legal and breaks a group (`None`: none can).
    violation: Option<E::Bdd>,
    quant_cur: VarSet,
    quant_next: VarSet,
    to_cur: Vec<(Var, Var)>,
    to_next: Vec<(Var, Var)>,
}

impl<E: BddEngine> Clone for Partition<E> {
    fn clone(&self) -> Self {
        Partition {
            joint_moves: self.joint_moves.clone(),
            relation: self.relation.clone(),
            conjuncts: self.conjuncts.clone(),
            touched: self.touched.clone(),
            bits: self.bits.clone(),
            terminal_parts: self.terminal_parts.clone(),
            violation: self.violation.clone(),
            quant_cur: self.quant_cur.clone(),
            quant_next: self.quant_next.clone(),
            to_cur: self.to_cur.clone(),
            to_next: self.to_next.clone(),
        }
    }
}

impl<E: BddEngine> fmt::Debug for Partition<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Partition")
            .field("joint_moves", &self.joint_moves)
            .field("relation", &self.relation)
            .field("touched", &self.touched)
            .finish()
    }
}

impl<E: BddEngine> Partition<E> {
    /// The part of `joint_moves` with the given relation (and conjuncts), constraining the next
    /// values of `bits` (in any order, repeats allowed); no terminal parts yet.
    pub(crate) fn new(
        enc: &Encoding,
        joint_moves: Vec<JointMove>,
        relation: E::Bdd,
        conjuncts: Vec<(Var, E::Bdd)>,
        mut bits: Vec<u32>,
    ) -> Self {
        bits.sort_unstable();
        bits.dedup();
        let mut groups: Vec<usize> = Vec::new();
        for &b in &bits {
            let g = enc.group_of_bit(b);
            if groups.last() != Some(&g) {
                groups.push(g);
            }
        }
        groups.dedup();
        let mut touched: Vec<usize> = groups
            .iter()
            .flat_map(|&g| enc.fluent_groups()[g].fluents.iter().copied())
            .collect();
        touched.sort_by_key(|&f| enc.position(f));
        touched.dedup();
        let cur = |b: u32| Encoding::current_bit_var(b);
        let next = |b: u32| Encoding::next_bit_var(b);
        Partition {
            joint_moves,
            relation,
            conjuncts,
            touched,
            quant_cur: bits.iter().map(|&b| cur(b)).collect(),
            quant_next: bits.iter().map(|&b| next(b)).collect(),
            to_cur: bits.iter().map(|&b| (next(b), cur(b))).collect(),
            to_next: bits.iter().map(|&b| (cur(b), next(b))).collect(),
            bits,
            terminal_parts: Vec::new(),
            violation: None,
        }
    }

    /// The states of `s` where a joint move of this part breaks an assumed group, if there
    /// are any (never with proven groups).
    pub(crate) fn breaking_states(&self, e: &E, s: &E::Bdd) -> BddResult<Option<E::Bdd>> {
        match &self.violation {
            None => Ok(None),
            Some(v) => Ok(Some(e.and(v, s)?).filter(|b| !e.is_false(b))),
        }
    }

    /// The parts of the terminal condition (merged as in [`SymbolicGame::terminal_parts`](crate::SymbolicGame::terminal_parts)) that
    /// this part can make true: a successor under this part of a non-terminal state is
    /// terminal iff it satisfies one of them. A part `t` is left out when no transition of
    /// this part leads from a state without `t` to a state with `t` (checked on BDDs, or, for
    /// a relation kept as conjuncts, when `t` reads no touched bit).
    pub fn terminal_parts(&self) -> &[E::Bdd] {
        &self.terminal_parts
    }

    /// The successors of `s` under this part that are not terminal, for `s` without
    /// terminal states.
    pub fn cut_terminal(&self, e: &E, s: &E::Bdd) -> BddResult<E::Bdd> {
        self.cut_terminal_checked(e, s, || Ok(()))
    }

    /// [`Self::cut_terminal`] calling `check` before each terminal part.
    pub(crate) fn cut_terminal_checked<Er: From<BddError>>(
        &self,
        e: &E,
        s: &E::Bdd,
        check: impl Fn() -> Result<(), Er>,
    ) -> Result<E::Bdd, Er> {
        and_not_all_checked(e, s, &self.terminal_parts, check)
    }

    /// The touched bits (their next value is constrained), ascending.
    pub fn touched_bits(&self) -> &[u32] {
        &self.bits
    }

    /// The current variables of the touched bits (quantified by the image).
    pub fn touched_current_vars(&self) -> &VarSet {
        &self.quant_cur
    }

    /// The next variables of the touched bits (quantified by the pre-image).
    pub fn touched_next_vars(&self) -> &VarSet {
        &self.quant_next
    }

    /// The successors of `s` under this part (a state set over current variables).
    pub fn image(&self, e: &E, s: &E::Bdd) -> BddResult<E::Bdd> {
        self.image_checked(e, s, || Ok(()))
    }

    /// [`Partition::image`] with `check` asked before each of its operations on the set (one
    /// per conjunct): the limits of a search, between operations that may each be long.
    pub(crate) fn image_checked<Er: From<BddError>>(
        &self,
        e: &E,
        s: &E::Bdd,
        check: impl Fn() -> Result<(), Er>,
    ) -> Result<E::Bdd, Er> {
        check()?;
        let r = if self.conjuncts.is_empty() {
            e.and_exists(s, &self.relation, &self.quant_cur)?
        } else {
            let mut acc = e.and(s, &self.relation)?;
            let (last, rest) = self.conjuncts.split_last().expect("non-empty");
            for (_, c) in rest {
                check()?;
                acc = e.and(&acc, c)?;
            }
            check()?;
            e.and_exists(&acc, &last.1, &self.quant_cur)?
        };
        Ok(e.rename(&r, &self.to_cur)?)
    }

    /// This part with its relation restricted to current states in `domain`, built as one BDD
    /// (the conjunct list, if any, is conjoined onto the domain).
    pub fn restricted_to(&self, e: &E, domain: &E::Bdd) -> BddResult<Self> {
        let mut rel = e.and(&self.relation, domain)?;
        for (_, c) in &self.conjuncts {
            rel = e.and(&rel, c)?;
        }
        let mut p = self.clone();
        p.relation = rel;
        p.conjuncts.clear();
        Ok(p)
    }

    /// The predecessors under this part of states in `s`.
    pub fn pre_image(&self, e: &E, s: &E::Bdd) -> BddResult<E::Bdd> {
        self.pre_image_within(e, s, None)
    }

    /// This part on the states of `cube` (current-state literals) only: its relation and
    /// conjuncts cofactored, so that they no longer read those variables. Its pre-images are
    /// then taken with [`Partition::pre_image_cut`] and the same cube, inside a domain within
    /// the cube: a slice of a layer costs a share of the layer's work.
    pub(crate) fn cofactor(&self, e: &E, cube: &[(Var, bool)]) -> BddResult<Self> {
        let mut p = self.clone();
        p.relation = e.restrict(&self.relation, cube)?;
        for (_, c) in &mut p.conjuncts {
            *c = e.restrict(c, cube)?;
        }
        Ok(p)
    }

    /// The predecessors under this part of states in `s` that lie in `domain`. With a
    /// conjunct list, the domain restricts the intermediate results too (without it, the
    /// pre-image over all assignments, most unreachable, can blow up).
    pub fn pre_image_within(
        &self,
        e: &E,
        s: &E::Bdd,
        domain: Option<&E::Bdd>,
    ) -> BddResult<E::Bdd> {
        self.pre_image_cut(e, s, domain, &[], false)
    }

    /// [`Partition::pre_image_within`] for a part cofactored by `cube`
    /// ([`Partition::cofactor`]; `domain` must lie within the cube): the states of `s` are
    /// cofactored too where they are read as current-state variables (the bits this part
    /// leaves alone), so no operation sees the other slices.
    ///
    /// `domain_first`: a relation kept whole is conjoined with the domain before the
    /// relational product, instead of the product over all states being conjoined with it
    /// after (a conjunct list always meets the domain first). Where the domain is a BFS layer
    /// that saves the product's states outside it: on Connect Four 5×5 the pre-image of a
    /// class over all states has three times the nodes of the one within the layer. The
    /// layered solve takes 5% less time there, 11% on 6×4 and half on blocks2player. On sets
    /// that are not layers it can cost more (the 8-puzzle's whole-set solve: 1.6 times the
    /// time).
    pub(crate) fn pre_image_cut(
        &self,
        e: &E,
        s: &E::Bdd,
        domain: Option<&E::Bdd>,
        cube: &[(Var, bool)],
        domain_first: bool,
    ) -> BddResult<E::Bdd> {
        let mut primed = e.rename(s, &self.to_next)?;
        if !cube.is_empty() {
            primed = e.restrict(&primed, cube)?;
        }
        if self.conjuncts.is_empty() {
            return match domain {
                Some(d) if domain_first => {
                    let within = e.and(&self.relation, d)?;
                    e.and_exists(&within, &primed, &self.quant_next)
                }
                Some(d) => e.and(&e.and_exists(&self.relation, &primed, &self.quant_next)?, d),
                None => e.and_exists(&self.relation, &primed, &self.quant_next),
            };
        }
        // Substitute x_b' := next_b|j(x) one bit at a time, bottom-up.
        let cond = match domain {
            Some(d) => e.and(&self.relation, d)?,
            None => self.relation.clone(),
        };
        let mut acc = e.and(&cond, &primed)?;
        for (v, c) in &self.conjuncts {
            acc = e.and_exists(&acc, c, &VarSet::from(vec![*v]))?;
        }
        Ok(acc)
    }
}

/// `parts` with each part kept as a conjunct list restricted to `domain`, as one BDD
/// ([`Partition::restricted_to`]); the parts without a conjunct list as they are. Such relations
/// are huge over all states (most unreachable) but small over a domain.
pub(crate) fn restrict_conjunct_lists<E: BddEngine>(
    e: &E,
    parts: &[Partition<E>],
    domain: &E::Bdd,
) -> BddResult<Vec<Partition<E>>> {
    parts
        .iter()
        .map(|p| {
            if p.conjuncts.is_empty() {
                Ok(p.clone())
            } else {
                p.restricted_to(e, domain)
            }
        })
        .collect()
}

/// One partition per joint move of `joint` (each with the states where it is legal): the
/// moves substituted as constants into the `next` circuit, only the bits they change
/// constrained (frame by omission). A relation larger than [`SymbolicOptions::max_relation_nodes`]
/// is kept as conjuncts; a relation that is empty is dropped. With `predict` (the caller has a
/// fallback), fails with [`BddError::Budget`] as soon as the relations are predicted to end
/// past the set-up deadline ([`past_share`]), and where a gate of one joint move or a check
/// of the assumed fluent groups passes [`SymbolicOptions::max_condition_nodes`].
pub(crate) fn per_joint_move<E: BddEngine>(
    e: &E,
    enc: &Encoding,
    comp: &mut Compiler<'_, E>,
    game: &GroundGame,
    joint: Vec<(JointMove, E::Bdd)>,
    opts: &SymbolicOptions,
    predict: bool,
) -> Result<Vec<Partition<E>>, SymbolicError> {
    let total = joint.len();
    // With a fallback, no gate of one joint move (nor check of the assumed groups) over the
    // conditions' cap: within each layer they are far smaller.
    let cap = predict.then_some(opts.max_condition_nodes);
    comp.cap_move_gates(cap);
    // The rate is measured from the end of the first relation: the first joint move also
    // evaluates the `next` cone with every move false (the base of the others).
    let mut started = std::time::Instant::now();
    let mut partitions = Vec::with_capacity(total);
    for (done, (jm, cond)) in joint.into_iter().enumerate() {
        opts.setup_expired().map_err(SymbolicError::Stopped)?;
        if done == 1 {
            started = std::time::Instant::now();
        }
        if predict && done > 1 {
            past_share(started, done - 1, total - 1, opts.setup_deadline)?;
        }
        comp.set_joint_move(&jm)?;
        let fns = next_bit_functions(e, enc, comp, game)?;
        let violation = match group_violation_capped(e, enc, comp, game, cap)? {
            Some(v) => Some(e.and(&cond, &v)?).filter(|v| !e.is_false(v)),
            None => None,
        };
        let touched: Vec<u32> = fns.iter().map(|(b, _)| *b).collect();
        // Bottom-up: largest bit first.
        let mut eqs = Vec::with_capacity(fns.len());
        let mut acc = Some(e.constant(true));
        for (b, nb) in fns.iter().rev() {
            let eq = e.iff(&e.var(Encoding::next_bit_var(*b)), nb)?;
            if let Some(a) = &acc {
                let a2 = e.and(&eq, a)?;
                acc = (!e.node_count_exceeds(&a2, opts.max_relation_nodes)).then_some(a2);
            }
            eqs.push((Encoding::next_bit_var(*b), eq));
        }
        let mut part = match acc {
            Some(a) => {
                let rel = e.and(&cond, &a)?;
                if e.is_false(&rel) {
                    continue;
                }
                Partition::new(enc, vec![jm], rel, Vec::new(), touched)
            }
            None => Partition::new(enc, vec![jm], cond, eqs, touched),
        };
        part.violation = violation;
        partitions.push(part);
    }
    comp.cap_move_gates(None);
    Ok(partitions)
}

/// With `done` of `total` relations built since `started`: fails with [`BddError::Budget`]
/// when the rest, at the rate so far, would end past `deadline` (measured from
/// [`PREDICT_AFTER`] relations and a quarter of a second on), so that a compilation with a
/// fallback gives up at once instead of at its deadline.
fn past_share(
    started: std::time::Instant,
    done: usize,
    total: usize,
    deadline: Option<std::time::Instant>,
) -> Result<(), SymbolicError> {
    let Some(deadline) = deadline else {
        return Ok(());
    };
    let elapsed = started.elapsed();
    if done < PREDICT_AFTER || elapsed < std::time::Duration::from_millis(250) {
        return Ok(());
    }
    let rest = elapsed.mul_f64((total - done) as f64 / done as f64);
    if std::time::Instant::now() + rest <= deadline {
        return Ok(());
    }
    let left = total - done;
    let rest = rest.as_secs_f64();
    Err(SymbolicError::Bdd(BddError::Budget(format!(
        "{left} more relations predicted to take {rest:.1} s, past their share"
    ))))
}

/// The relations built before [`per_joint_move`] predicts its end.
const PREDICT_AFTER: usize = 8;

/// The partitions merged into clusters: consecutive ones while the merged relation has at most
/// `max_nodes` nodes (0: no merging), never two whose relations fix the turn groups to
/// different values, nor one kept as conjuncts; past `deadline`, no more merges.
pub(crate) fn cluster<E: BddEngine>(
    e: &E,
    enc: &Encoding,
    partitions: &[Partition<E>],
    max_nodes: usize,
    deadline: Option<std::time::Instant>,
) -> BddResult<Vec<Partition<E>>> {
    if max_nodes == 0 {
        return Ok(partitions.to_vec());
    }
    // Parts whose relations fix the turn groups to different values are never merged:
    // in a layer where one role moves, the other role's cluster is empty at once.
    let turn_vars = enc.turn_vars();
    type Guard = Vec<(Var, bool)>;
    let mut keyed: Vec<(Guard, Vec<Partition<E>>)> = Vec::new();
    for p in partitions {
        let key = implied_literals(e, &p.relation, &turn_vars)?;
        match keyed.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push(p.clone()),
            None => keyed.push((key, vec![p.clone()])),
        }
    }
    let mut out: Vec<Partition<E>> = Vec::new();
    let small = |r: &E::Bdd| !e.node_count_exceeds(r, max_nodes);
    for (_, parts) in keyed {
        if parts.len() > BALANCED_FROM {
            out.extend(cluster_balanced(e, enc, parts, max_nodes, deadline)?);
            continue;
        }
        let start = out.len();
        // Whether the last cluster is known to be within the bound (each relation is counted
        // once: a count walks up to `max_nodes` nodes).
        let mut last_small = false;
        for p in parts {
            // Past the deadline the rest stays unmerged: clustering only speeds up images.
            let late = deadline.is_some_and(|d| std::time::Instant::now() >= d);
            let mut p_small = None;
            if out.len() > start && !late {
                let last = out.last_mut().expect("non-empty");
                // A relation already over the bound is not merged (the merge would be built
                // in vain).
                if last.conjuncts.is_empty()
                    && p.conjuncts.is_empty()
                    && (last_small || small(&last.relation))
                    && *p_small.insert(small(&p.relation))
                {
                    let m = merge(e, enc, last, &p)?;
                    if small(&m.relation) {
                        *last = m;
                        last_small = true;
                        continue;
                    }
                }
            }
            last_small = p_small == Some(true);
            out.push(p);
        }
    }
    Ok(out)
}

/// Past this many partitions of one turn, [`cluster`] merges them in rounds of neighbours
/// ([`cluster_balanced`]) instead of growing one cluster at a time.
const BALANCED_FROM: usize = 64;

/// [`cluster`]'s merging for many partitions: in rounds, each partition or cluster merged with
/// its right neighbour while the merge stays within `max_nodes` nodes, until a round merges
/// nothing (or `deadline` passes). Growing one cluster a partition at a time rebuilds it per
/// partition: its cost is the number of partitions times the bound (queens31lg's 651
/// partitions took 3.5 s); in rounds, each partition takes part in about log2 of the
/// partitions a cluster holds.
fn cluster_balanced<E: BddEngine>(
    e: &E,
    enc: &Encoding,
    parts: Vec<Partition<E>>,
    max_nodes: usize,
    deadline: Option<std::time::Instant>,
) -> BddResult<Vec<Partition<E>>> {
    // The nodes of a relation within the bound, `None` past it.
    let size = |r: &E::Bdd| (!e.node_count_exceeds(r, max_nodes)).then(|| e.node_count(r));
    struct Item<P> {
        part: P,
        // `usize::MAX` for a partition over the bound or kept as conjuncts: never merged.
        nodes: usize,
        // Whether it may still merge with its right neighbour: not once that merge was too
        // large (a larger neighbour would be larger still), until it is merged itself.
        right: bool,
    }
    let mut items: Vec<Item<Partition<E>>> = parts
        .into_iter()
        .map(|p| {
            let nodes = size(&p.relation).filter(|_| p.conjuncts.is_empty());
            Item {
                nodes: nodes.unwrap_or(usize::MAX),
                right: nodes.is_some(),
                part: p,
            }
        })
        .collect();
    // Two relations are merged only if their sizes add up to the bound and multiply to at
    // most this many times it: the merge is an OR of the two with their frames, which can
    // grow to the product (withConviction: two of 4,447 nodes made 1.1 M, in 0.4 s each).
    const PRODUCT_PER_NODE: usize = 64;
    loop {
        let mut merged_any = false;
        let mut next = Vec::with_capacity(items.len() / 2 + 1);
        let mut rest = items.into_iter().peekable();
        while let Some(mut a) = rest.next() {
            let late = deadline.is_some_and(|d| std::time::Instant::now() >= d);
            let pair = rest.peek().filter(|b| {
                a.right
                    && b.nodes != usize::MAX
                    && !late
                    && a.nodes.saturating_add(b.nodes) <= max_nodes
                    && a.nodes.saturating_mul(b.nodes) <= max_nodes.saturating_mul(PRODUCT_PER_NODE)
            });
            if pair.is_none() {
                // Not mergeable with its right neighbour now: not later either unless it or
                // the neighbour changes, which only a merge does.
                if !late && rest.peek().is_some() {
                    a.right = false;
                }
                next.push(a);
                continue;
            }
            let b = rest.next().expect("peeked");
            let m = merge(e, enc, &a.part, &b.part)?;
            match size(&m.relation) {
                Some(nodes) => {
                    next.push(Item {
                        part: m,
                        nodes,
                        right: true,
                    });
                    merged_any = true;
                }
                None => {
                    a.right = false;
                    next.push(a);
                    next.push(b);
                }
            }
        }
        items = next;
        let late = deadline.is_some_and(|d| std::time::Instant::now() >= d);
        if !merged_any || late {
            break;
        }
    }
    Ok(items.into_iter().map(|i| i.part).collect())
}

/// The largest relation [`attach_terminal_parts`] checks a terminal part against.
const CHECKED_RELATION_NODES: usize = 20_000;

/// Gives each cluster the parts of the terminal disjunction `terminal` it can make true
/// ([`Partition::terminal_parts`]), merged up to [`SymbolicOptions::terminal_cluster_nodes`].
pub(crate) fn attach_terminal_parts<E: BddEngine>(
    e: &E,
    clusters: &mut [Partition<E>],
    terminal: &[E::Bdd],
    opts: &SymbolicOptions,
) -> Result<(), SymbolicError> {
    let checks = clusters.len() * terminal.len();
    // The check only drops parts (a part kept in vain costs a cut per image), so it and the
    // merging get a second of set-up time; past it, every part that reads a touched bit is
    // kept, unmerged.
    let check_until = std::time::Instant::now() + std::time::Duration::from_secs(1);
    // Clusters with the same relevant parts share their merge (often every part is relevant).
    let mut merged: std::collections::HashMap<Vec<usize>, Vec<E::Bdd>> = Default::default();
    for cl in clusters.iter_mut() {
        opts.setup_expired().map_err(SymbolicError::Stopped)?;
        let mut rel = Vec::new();
        let touched: Vec<Var> = cl.quant_cur.iter().collect();
        for (i, t) in terminal.iter().enumerate() {
            let reads_touched = e
                .support(t)
                .iter()
                .any(|v| touched.binary_search(v).is_ok());
            if !reads_touched {
                continue;
            }
            // Can a step of the cluster go from a state outside `t` to one inside: is
            // `R(x, x') & !t(x) & t(x')` satisfiable (untouched bits read from `x`)? Not an
            // image of `!t` (almost every state), whose quantification can blow up: a search
            // for one satisfying path, given up at the second's end, on small BDDs only.
            let relevant = if !cl.conjuncts.is_empty()
                || checks > 20_000
                || std::time::Instant::now() >= check_until
                || e.node_count_exceeds(&cl.relation, CHECKED_RELATION_NODES)
                || e.node_count_exceeds(t, CHECKED_RELATION_NODES)
            {
                true
            } else {
                let leaves = e.and_not(&cl.relation, t)?;
                let enters = e.rename(t, &cl.to_next)?;
                let stop = || std::time::Instant::now() >= check_until;
                e.disjoint(&leaves, &enters, &stop)? != Some(true)
            };
            if relevant {
                rel.push(i);
            }
        }
        let parts = || rel.iter().map(|&i| terminal[i].clone()).collect::<Vec<_>>();
        cl.terminal_parts = match merged.get(&rel) {
            Some(done) => done.clone(),
            // Past the second, the parts stay unmerged too (one more cut per part and image).
            None if std::time::Instant::now() >= check_until => parts(),
            None => {
                let done = cluster_parts(e, parts(), opts.terminal_cluster_nodes)?;
                merged.insert(rel, done.clone());
                done
            }
        };
    }
    Ok(())
}

/// Builds `x_b' <-> x_b` for every bit in `bits` (ascending), bottom-up.
fn frame<E: BddEngine>(e: &E, bits: &[u32]) -> BddResult<E::Bdd> {
    let mut acc = e.constant(true);
    for &b in bits.iter().rev() {
        let eq = e.iff(
            &e.var(Encoding::next_bit_var(b)),
            &e.var(Encoding::current_bit_var(b)),
        )?;
        acc = e.and(&eq, &acc)?;
    }
    Ok(acc)
}

/// Merges two partitions into one relation over the union of their touched bits.
fn merge<E: BddEngine>(
    e: &E,
    enc: &Encoding,
    a: &Partition<E>,
    b: &Partition<E>,
) -> BddResult<Partition<E>> {
    let only = |x: &Partition<E>, y: &Partition<E>| -> Vec<u32> {
        y.bits
            .iter()
            .copied()
            .filter(|f| x.bits.binary_search(f).is_err())
            .collect()
    };
    let fa = frame(e, &only(a, b))?;
    let fb = frame(e, &only(b, a))?;
    let ra = e.and(&a.relation, &fa)?;
    let rb = e.and(&b.relation, &fb)?;
    let rel = e.or(&ra, &rb)?;
    let mut joint = a.joint_moves.clone();
    joint.extend(b.joint_moves.iter().cloned());
    let mut bits = a.bits.clone();
    bits.extend(b.bits.iter().copied());
    let mut merged = Partition::new(enc, joint, rel, Vec::new(), bits);
    merged.violation = match (&a.violation, &b.violation) {
        (Some(x), Some(y)) => Some(e.or(x, y)?),
        (x, y) => x.clone().or_else(|| y.clone()),
    };
    Ok(merged)
}

/// The literals on `vars` that every satisfying assignment of `f` has, ascending.
fn implied_literals<E: BddEngine>(e: &E, f: &E::Bdd, vars: &[Var]) -> BddResult<Vec<(Var, bool)>> {
    let mut out = Vec::new();
    for &v in vars {
        if e.is_false(&e.and(f, &e.nvar(v))?) {
            out.push((v, true));
        } else if e.is_false(&e.and(f, &e.var(v))?) {
            out.push((v, false));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    /// The relations give up once the rate of the first ones puts their end past the
    /// deadline, not before eight of them and a quarter of a second, and never without a
    /// deadline.
    #[test]
    fn relations_predicted_past_their_share_give_up() {
        let now = Instant::now();
        let started = now - Duration::from_secs(1);
        // 10 relations a second: 990 more take 99 s.
        let soon = Some(now + Duration::from_secs(5));
        let late = Some(now + Duration::from_secs(200));
        assert!(matches!(
            past_share(started, 10, 1000, soon),
            Err(SymbolicError::Bdd(BddError::Budget(_)))
        ));
        assert!(past_share(started, 10, 1000, late).is_ok());
        assert!(past_share(started, 10, 1000, None).is_ok());
        assert!(past_share(started, PREDICT_AFTER - 1, 1000, soon).is_ok());
        assert!(past_share(now, 10, 1000, soon).is_ok(), "too soon to tell");
    }

    /// Clustered in rounds, the partitions of a game keep its images layer by layer and every
    /// joint move once, under bounds that merge all, some or none of them; a cluster never
    /// passes the bound unless it is a single partition.
    #[test]
    fn clusters_merged_in_rounds_keep_the_images() {
        use crate::options::SymbolicOptions;
        use crate::test_support::{encoded, small_engine};
        use crate::SymbolicGame;
        let (game, enc) = encoded("tictactoe");
        let e = small_engine(&enc);
        let opts = SymbolicOptions {
            cluster_nodes: 0,
            ..Default::default()
        };
        let g = SymbolicGame::new(&e, &game, enc.clone(), &opts).unwrap();
        let parts = g.partitions().to_vec();
        let n = parts.len();
        assert!(n > BALANCED_FROM, "{n} partitions");
        fn image<E: BddEngine>(e: &E, ps: &[Partition<E>], s: &E::Bdd) -> E::Bdd {
            let images: Vec<_> = ps.iter().map(|p| p.image(e, s).unwrap()).collect();
            crate::disjunction::or_all(e, images).unwrap()
        }
        let mut counts = Vec::new();
        for bound in [1, 300, 2_000, 1 << 20] {
            let clusters = cluster_balanced(&e, &enc, parts.clone(), bound, None).unwrap();
            let mut joint: Vec<_> = clusters
                .iter()
                .flat_map(|c| c.joint_moves.clone())
                .collect();
            joint.sort();
            let mut want: Vec<_> = parts.iter().flat_map(|p| p.joint_moves.clone()).collect();
            want.sort();
            assert_eq!(joint, want, "every joint move once, bound {bound}");
            for c in &clusters {
                assert!(
                    c.joint_moves.len() == 1 || e.node_count(&c.relation) <= bound,
                    "bound {bound}"
                );
            }
            let mut layer = g.init().clone();
            for _ in 0..5 {
                let got = image(&e, &clusters, &layer);
                assert_eq!(got, image(&e, &parts, &layer), "bound {bound}");
                layer = got;
            }
            counts.push(clusters.len());
        }
        assert_eq!(counts[0], n, "a bound of one node merges nothing");
        assert!(counts[1] < n && counts[1] > counts[3], "{counts:?}");
        assert_eq!(counts[3], 1, "no bound: one cluster, {counts:?}");
    }
}
