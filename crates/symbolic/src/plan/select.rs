//! The automatic pattern choice: groups ordered by relevance to the goal ([`pattern_order`]),
//! and the longest prefix of that order whose pattern database fits a node budget
//! ([`select_pattern`]).

use std::collections::HashSet;
use std::time::Instant;

use symgame_bdd::{BddEngine, Var};
use symgame_ground::{GroundGame, Lit};
use symgame_limits::{Limits, StopReason};

use crate::game::SymbolicGame;
use crate::plan::pdb::{pattern_database, PatternDatabase};
use crate::plan::problem::{remaining, Costs, PlanError};

/// The fluents that the cone of literal `l` reads.
fn fluents_read(game: &GroundGame, l: Lit, out: &mut HashSet<usize>) {
    let c = &game.circuit;
    let nf = game.fluents.len() as u32;
    let mut seen = HashSet::new();
    let mut stack = vec![l.signal()];
    while let Some(s) = stack.pop() {
        if s >= 1 && s <= nf {
            out.insert((s - 1) as usize);
        } else if s >= c.num_inputs && seen.insert(s) {
            let gate = (s - c.num_inputs) as usize;
            stack.extend(c.gates[gate].inputs().iter().map(|x| x.signal()));
        }
    }
}

/// The automatic pattern order: group indexes, most relevant first, and how many of them the
/// goal reads.
///
/// The goal set's groups come first (those holding a variable the goal BDD depends on). Then,
/// greedily, the group that the most fluents of the pattern so far depend on: a fluent depends
/// on the fluents its `next` function reads, and on those any `legal` condition reads. Groups
/// nothing in the pattern depends on (e.g. a step counter that only feeds `terminal`) are never
/// added: keeping them enlarges the abstraction without sharpening the distances much.
pub fn pattern_order<E: BddEngine>(
    game: &GroundGame,
    g: &SymbolicGame<'_, E>,
    goal: &E::Bdd,
) -> (Vec<usize>, usize) {
    let e = g.engine();
    let enc = g.encoding();
    let groups = enc.groups();
    let support: HashSet<Var> = e.support(goal).into_iter().collect();
    let mut in_pattern = vec![false; groups.len()];
    let mut order = Vec::new();
    for (i, grp) in groups.iter().enumerate() {
        let (cur, _) = enc.vars_of(grp);
        if cur.iter().any(|v| support.contains(&v)) {
            in_pattern[i] = true;
            order.push(i);
        }
    }
    let goal_groups = order.len();
    let mut group_of = vec![0usize; enc.num_fluents()];
    for (i, grp) in groups.iter().enumerate() {
        for &f in grp {
            group_of[f] = i;
        }
    }
    let mut legal_reads = HashSet::new();
    for &l in game.legal.iter().flatten() {
        fluents_read(game, l, &mut legal_reads);
    }
    // deps[f]: groups the next value of fluent f depends on.
    let deps: Vec<HashSet<usize>> = (0..enc.num_fluents())
        .map(|f| {
            let mut reads = legal_reads.clone();
            fluents_read(game, game.next[f], &mut reads);
            reads.into_iter().map(|x| group_of[x]).collect()
        })
        .collect();
    loop {
        let mut weight = vec![0usize; groups.len()];
        for &p in &order {
            for &f in &groups[p] {
                for &d in &deps[f] {
                    if !in_pattern[d] {
                        weight[d] += 1;
                    }
                }
            }
        }
        // Most readers first; ties by group index (the variable order).
        let best = (0..groups.len())
            .filter(|&i| weight[i] > 0)
            .max_by_key(|&i| (weight[i], std::cmp::Reverse(i)));
        match best {
            Some(i) => {
                in_pattern[i] = true;
                order.push(i);
            }
            None => break,
        }
    }
    (order, goal_groups)
}

/// Chooses a pattern automatically: the longest prefix of [`pattern_order`] whose pattern
/// database stays within `max_nodes` BDD nodes per abstract set (found by bisection to within
/// a sixteenth of the order, each try stopped as soon as it exceeds the budget), and builds
/// it.
pub fn select_pattern<E: BddEngine>(
    game: &GroundGame,
    g: &SymbolicGame<'_, E>,
    costs: &Costs,
    goal: &E::Bdd,
    max_nodes: usize,
    limits: &Limits,
) -> Result<Result<Selection<E>, StopReason>, PlanError> {
    let (order, _) = pattern_order(game, g, goal);
    let started = Instant::now();
    let budget = Limits {
        max_nodes: Some(
            limits
                .max_nodes
                .map_or(max_nodes as u64, |m| m.min(max_nodes as u64)),
        ),
        ..limits.clone()
    };
    let mut tried = Vec::new();
    let mut best: Option<PatternDatabase<E>> = None;
    // Invariant: the prefix of length lo fits (lo = 0 trivially), prefixes longer than hi do
    // not. The bisection stops within a sixteenth of the order: each try costs a database.
    let (mut lo, mut hi) = (0usize, order.len());
    let close = (order.len() / 16).max(1);
    while lo < hi && (best.is_none() || hi - lo >= close) {
        // Try the full order first: small games fit entirely.
        let k = if best.is_none() && tried.is_empty() {
            hi
        } else {
            lo + (hi - lo).div_ceil(2)
        };
        match pattern_database(g, costs, goal, &order[..k], &remaining(&budget, started))? {
            Ok(pdb) => {
                tried.push((k, true));
                lo = k;
                best = Some(pdb);
            }
            Err(StopReason::NodeLimit) => {
                tried.push((k, false));
                hi = k - 1;
            }
            Err(why) => return Ok(Err(why)),
        }
    }
    Ok(Ok(Selection {
        database: best,
        tried,
    }))
}

/// The result of [`select_pattern`].
pub struct Selection<E: BddEngine> {
    /// The database of the chosen pattern (`None` if not even one group fits the budget).
    pub database: Option<PatternDatabase<E>>,
    /// The tries: (number of groups, within the budget).
    pub tried: Vec<(usize, bool)>,
}
