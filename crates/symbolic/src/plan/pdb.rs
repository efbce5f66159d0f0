//! Symbolic pattern databases: keep the variables of some fluent groups, quantify the others
//! out of the initial state, the goal and every partition's relation, and find the abstract
//! goal distances by a backward Dijkstra within the abstract states reachable from the abstract
//! initial state. Every concrete transition is an abstract one, so the distances are an
//! admissible and consistent heuristic.

use std::collections::{BTreeMap, HashSet};

use symgame_bdd::{BddEngine, VarSet};
use symgame_limits::{Guard, Limits, StopReason};

use crate::encoding::Encoding;
use crate::game::SymbolicGame;
use crate::interrupt::{union_guarded, Interrupt};
use crate::partition::Partition;
use crate::plan::outcome::PatternStats;
use crate::plan::problem::{cost_classes, CostClasses, Costs, PlanError};

/// A symbolic pattern database: abstract goal distances in the abstraction that keeps the
/// variables of some fluent groups.
pub struct PatternDatabase<E: BddEngine> {
    /// `(h, states)`: the abstract states at abstract distance h, as sets over the kept
    /// current variables (so also sets of concrete states), h ascending.
    pub levels: Vec<(u64, E::Bdd)>,
    /// Statistics.
    pub stats: PatternStats,
}

/// Builds the pattern database of the groups `pattern` (indexes into
/// [`Encoding::groups`]) for the goal set `goal` with action costs `costs`.
///
/// The abstraction quantifies the other groups' variables out of the initial state, the goal
/// and each partition's relation conjoined with "not terminal"; abstract states reachable from
/// the abstract initial state are found by BFS, then abstract goal distances by a backward
/// Dijkstra within them. `limits.max_nodes` bounds every abstract set.
pub fn pattern_database<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    costs: &Costs,
    goal: &E::Bdd,
    pattern: &[usize],
    limits: &Limits,
) -> Result<Result<PatternDatabase<E>, StopReason>, PlanError> {
    let guard = Guard::new(limits);
    match build_pdb(g, costs, goal, pattern, &guard) {
        Ok(p) => Ok(Ok(p)),
        Err(Interrupt::Stop(why)) => Ok(Err(why)),
    }
}

fn build_pdb<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    costs: &Costs,
    goal: &E::Bdd,
    pattern: &[usize],
    guard: &Guard,
) -> Result<PatternDatabase<E>, Interrupt> {
    let e = g.engine();
    let abs = Abstraction::new(g.encoding(), pattern);
    let mut peak = Peak { guard, nodes: 0 };
    let mut classes = abstract_classes(g, costs, &abs, guard)?;
    let init = e.exists(g.init(), &abs.drop_cur)?;
    let reached = abstract_reachable(e, &classes, init, &mut peak)?;
    restrict_to(e, &mut classes, &reached, &mut peak)?;
    let agoal = e.and(&e.exists(goal, &abs.drop_cur)?, &reached)?;
    let (levels, closed) = goal_distances(e, &classes, agoal, &reached, &mut peak)?;
    let stats = PatternStats {
        groups: pattern.to_vec(),
        fluents: abs.kept.len(),
        abstract_states: e.sat_count_over(&reached, &abs.kept_cur),
        solvable_states: e.sat_count_over(&closed, &abs.kept_cur),
        max_h: levels.last().map_or(0, |l| l.0),
        peak_nodes: peak.nodes,
        seconds: guard.started.elapsed().as_secs_f64(),
    };
    Ok(PatternDatabase { levels, stats })
}

/// The abstraction of a pattern: the fluents of its groups kept, the others' variables
/// quantified out.
struct Abstraction {
    /// The kept fluents, sorted.
    kept: Vec<usize>,
    kept_set: HashSet<usize>,
    /// The kept current variables (abstract states are sets over them).
    kept_cur: VarSet,
    /// The dropped current variables.
    drop_cur: VarSet,
    /// The dropped current and next variables.
    drop_all: VarSet,
}

impl Abstraction {
    fn new(enc: &Encoding, pattern: &[usize]) -> Self {
        let groups = enc.groups();
        let kept = fluents_of_groups(&groups, pattern);
        let kept_set: HashSet<usize> = kept.iter().copied().collect();
        let dropped: Vec<usize> = (0..enc.num_fluents())
            .filter(|f| !kept_set.contains(f))
            .collect();
        let (kept_cur, _) = enc.vars_of(&kept);
        let (drop_cur, drop_next) = enc.vars_of(&dropped);
        let drop_all: VarSet = drop_cur.iter().chain(drop_next.iter()).collect();
        Abstraction {
            kept,
            kept_set,
            kept_cur,
            drop_cur,
            drop_all,
        }
    }
}

/// The largest abstract set so far; every set noted is checked against the node limit.
struct Peak<'a, 'g> {
    guard: &'g Guard<'a>,
    nodes: usize,
}

impl Peak<'_, '_> {
    fn note<E: BddEngine>(&mut self, e: &E, b: &E::Bdd) -> Result<(), Interrupt> {
        let n = e.node_count(b);
        self.nodes = self.nodes.max(n);
        Ok(self.guard.check_nodes(n as u64)?)
    }
}

/// The cost classes of partitions ([`cost_classes`]) in the abstraction: each relation
/// conjoined with "not terminal" and the dropped variables quantified out (a conjunct list
/// conjunct by conjunct, an over-approximation that keeps every concrete transition); empty
/// relations left out.
fn abstract_classes<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    costs: &Costs,
    abs: &Abstraction,
    guard: &Guard,
) -> Result<CostClasses<E>, Interrupt> {
    let e = g.engine();
    let enc = g.encoding();
    let mut classes = Vec::new();
    for (c, parts) in cost_classes(g, costs) {
        let mut out = Vec::with_capacity(parts.len());
        for p in &parts {
            guard.check()?;
            let touched: Vec<usize> = p
                .touched
                .iter()
                .copied()
                .filter(|f| abs.kept_set.contains(f))
                .collect();
            let (_, tn) = enc.vars_of(&touched);
            let base = g.and_not_terminal(&p.relation)?;
            let (relation, conjuncts) = if p.conjuncts.is_empty() {
                (e.exists(&base, &abs.drop_all)?, Vec::new())
            } else {
                let mut conj = Vec::new();
                for (v, cj) in &p.conjuncts {
                    if tn.contains(*v) {
                        conj.push((*v, e.exists(cj, &abs.drop_cur)?));
                    }
                }
                let rel = e.exists(&base, &abs.drop_cur)?;
                // Fewer variables than the concrete relation: often small enough to build
                // (bottom-up: the conjuncts come by descending position).
                let mut whole = Some(e.constant(true));
                for (_, c) in &conj {
                    whole = match whole {
                        Some(w) => {
                            let w2 = e.and(c, &w)?;
                            (e.node_count(&w2) <= ABSTRACT_RELATION_NODES).then_some(w2)
                        }
                        None => None,
                    };
                }
                match whole.map(|w| e.and(&rel, &w)).transpose()? {
                    Some(r) if e.node_count(&r) <= ABSTRACT_RELATION_NODES => (r, Vec::new()),
                    _ => (rel, conj),
                }
            };
            if e.is_false(&relation) {
                continue;
            }
            // The abstract part constrains the kept touched groups' bits (the variables of
            // `vars_of(&touched)`).
            let bits: Vec<u32> = touched
                .iter()
                .flat_map(|&f| enc.group_bits(enc.group_of(f)))
                .collect();
            let joint = p.joint_moves.clone();
            out.push(Partition::new(enc, joint, relation, conjuncts, bits));
        }
        classes.push((c, out));
    }
    Ok(classes)
}

/// The abstract states reachable from `init` (unit steps: only the set).
fn abstract_reachable<E: BddEngine>(
    e: &E,
    classes: &CostClasses<E>,
    init: E::Bdd,
    peak: &mut Peak,
) -> Result<E::Bdd, Interrupt> {
    let parts: Vec<&Partition<E>> = classes.iter().flat_map(|(_, ps)| ps).collect();
    let mut reached = init.clone();
    let mut frontier = init;
    while !e.is_false(&frontier) {
        let img = union_guarded(e, &parts, peak.guard, |p| p.image(e, &frontier))?;
        frontier = e.and_not(&img, &reached)?;
        reached = e.or(&reached, &frontier)?;
        peak.note(e, &frontier)?;
        peak.note(e, &reached)?;
    }
    Ok(reached)
}

/// Restricts every part to the reachable abstract states `reached`, as one relation: a
/// conjunct list substituted one variable at a time blows up over unreachable states.
fn restrict_to<E: BddEngine>(
    e: &E,
    classes: &mut CostClasses<E>,
    reached: &E::Bdd,
    peak: &mut Peak,
) -> Result<(), Interrupt> {
    for (_, parts) in classes.iter_mut() {
        for p in parts.iter_mut() {
            peak.guard.check()?;
            let mut rel = e.and(&p.relation, reached)?;
            for (_, c) in &p.conjuncts {
                rel = e.and(&rel, c)?;
                peak.note(e, &rel)?;
            }
            p.relation = rel;
            p.conjuncts.clear();
        }
    }
    Ok(())
}

/// Backward Dijkstra from the abstract goal within the reachable abstract states `reached`
/// (the parts restricted to them, see [`restrict_to`]): the `(h, states)` levels, h ascending,
/// and their union.
fn goal_distances<E: BddEngine>(
    e: &E,
    classes: &CostClasses<E>,
    agoal: E::Bdd,
    reached: &E::Bdd,
    peak: &mut Peak,
) -> Result<(Levels<E>, E::Bdd), Interrupt> {
    let mut open: BTreeMap<u64, E::Bdd> = BTreeMap::new();
    open.insert(0, agoal);
    let mut closed = e.constant(false);
    let mut levels = Vec::new();
    while let Some((h, bucket)) = open.pop_first() {
        peak.guard.check()?;
        let s = e.and_not(&bucket, &closed)?;
        if e.is_false(&s) {
            continue;
        }
        closed = e.or(&closed, &s)?;
        peak.note(e, &closed)?;
        for (c, parts) in classes {
            let pre = union_guarded(e, parts, peak.guard, |p| {
                p.pre_image_within(e, &s, Some(reached))
            })?;
            let new = e.and_not(&pre, &closed)?;
            if e.is_false(&new) {
                continue;
            }
            let slot = open.entry(h + c).or_insert_with(|| e.constant(false));
            *slot = e.or(slot, &new)?;
            peak.note(e, slot)?;
        }
        levels.push((h, s));
    }
    Ok((levels, closed))
}

/// The fluents of the given groups, sorted.
fn fluents_of_groups(groups: &[Vec<usize>], chosen: &[usize]) -> Vec<usize> {
    let mut fl: Vec<usize> = chosen
        .iter()
        .flat_map(|&i| groups[i].iter().copied())
        .collect();
    fl.sort_unstable();
    fl.dedup();
    fl
}

/// Abstract states by goal distance: `(h, states)`, h ascending.
type Levels<E> = Vec<(u64, <E as BddEngine>::Bdd)>;

/// An abstract relation larger than this is kept as a conjunct list (for the forward search).
const ABSTRACT_RELATION_NODES: usize = 100_000;
