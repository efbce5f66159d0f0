//! The variable order of the fluent groups: ground terms compared argument by argument
//! ([`Order::Heuristic`]), the FORCE heuristic over the rules' supports ([`Order::Rules`]), and
//! the turn groups that go first. Builds the [`Encoding`] of a ground game from its groups
//! ([`Encoding::new`], [`Encoding::from_groups`]); the encoding itself only lays out groups it
//! is given.

use std::cmp::Ordering;

use symgame_ground::{Circuit, GroundGame, GroundTerm};

use crate::disjunction::disjuncts;
use crate::encoding::{Encoding, FluentGroup};
use crate::options::{EncodingKind, Order};

/// One token of a flattened ground term.
fn flatten<'a>(t: &'a GroundTerm, out: &mut Vec<&'a str>) {
    match t {
        GroundTerm::Const(c) => out.push(c),
        GroundTerm::Func(f, args) => {
            out.push(f);
            for a in args {
                flatten(a, out);
            }
        }
    }
}

/// Numbers compare numerically and come before names; names compare as strings.
fn cmp_token(a: &str, b: &str) -> Ordering {
    match (a.parse::<i64>(), b.parse::<i64>()) {
        (Ok(x), Ok(y)) => x.cmp(&y).then_with(|| a.cmp(b)),
        (Ok(_), Err(_)) => Ordering::Less,
        (Err(_), Ok(_)) => Ordering::Greater,
        (Err(_), Err(_)) => a.cmp(b),
    }
}

fn cmp_terms(a: &GroundTerm, b: &GroundTerm) -> Ordering {
    let (mut ta, mut tb) = (Vec::new(), Vec::new());
    flatten(a, &mut ta);
    flatten(b, &mut tb);
    for (x, y) in ta.iter().zip(&tb) {
        let c = cmp_token(x, y);
        if c != Ordering::Equal {
            return c;
        }
    }
    ta.len().cmp(&tb.len()).then_with(|| a.cmp(b))
}

/// Traces the fluents circuit cones read, within one budget of steps for all of them.
struct ConeTracer<'a> {
    circuit: &'a Circuit,
    num_fluents: usize,
    /// Per signal: the index of the last cone that visited it.
    stamp: Vec<u32>,
    steps: usize,
    budget: usize,
}

impl<'a> ConeTracer<'a> {
    fn new(game: &'a GroundGame, budget: usize) -> Self {
        ConeTracer {
            circuit: &game.circuit,
            num_fluents: game.fluents.len(),
            stamp: vec![u32::MAX; game.circuit.num_signals()],
            steps: 0,
            budget,
        }
    }

    /// Appends to `support` the fluents the cone of `root` reads (each once), as cone number
    /// `k`; `None` once the budget is spent.
    fn trace(&mut self, k: usize, root: u32, support: &mut Vec<usize>) -> Option<()> {
        let c = self.circuit;
        let mut stack = vec![root];
        while let Some(s) = stack.pop() {
            if self.stamp[s as usize] == k as u32 {
                continue;
            }
            self.stamp[s as usize] = k as u32;
            self.steps += 1;
            if self.steps > self.budget {
                return None;
            }
            if s >= 1 && s as usize <= self.num_fluents {
                support.push(s as usize - 1);
            } else if s >= c.num_inputs {
                stack.extend(
                    c.gates[(s - c.num_inputs) as usize]
                        .inputs()
                        .iter()
                        .map(|l| l.signal()),
                );
            }
        }
        Some(())
    }
}

/// The fluents each rule reads: the supports of every `next`, `legal`, `terminal` and `goal`
/// condition in the circuit (`next` of `f` with `f` itself), as sorted fluent lists with at
/// least two members. `None` when tracing them would take more than `budget` steps.
fn rule_supports(game: &GroundGame, budget: usize) -> Option<Vec<Vec<usize>>> {
    let c = &game.circuit;
    let mut roots: Vec<(u32, Option<usize>)> = Vec::new();
    for (f, l) in game.next.iter().enumerate() {
        roots.push((l.signal(), Some(f)));
    }
    for l in game.legal.iter().flatten() {
        roots.push((l.signal(), None));
    }
    for (_, l) in game.goals.iter().flatten() {
        roots.push((l.signal(), None));
    }
    // The terminal condition by its top-level disjuncts: one rule each.
    let mut term = Vec::new();
    disjuncts(c, game.terminal, &mut term);
    for l in term {
        roots.push((l.signal(), None));
    }
    let mut tracer = ConeTracer::new(game, budget);
    let mut out: Vec<Vec<usize>> = Vec::new();
    for (k, &(root, own)) in roots.iter().enumerate() {
        let mut support: Vec<usize> = own.into_iter().collect();
        tracer.trace(k, root, &mut support)?;
        support.sort_unstable();
        support.dedup();
        if support.len() >= 2 {
            out.push(support);
        }
    }
    out.sort();
    out.dedup();
    Some(out)
}

/// The fluents each `legal` condition reads (one sorted list per move of each role).
/// `None` when tracing them would take more than `budget` steps.
fn legal_supports(game: &GroundGame, budget: usize) -> Option<Vec<Vec<usize>>> {
    let mut tracer = ConeTracer::new(game, budget);
    let mut out = Vec::new();
    for (k, l) in game.legal.iter().flatten().enumerate() {
        let mut support = Vec::new();
        tracer.trace(k, l.signal(), &mut support)?;
        support.sort_unstable();
        out.push(support);
    }
    Some(out)
}

/// FORCE: reorders `order` (group indexes) so that the hyperedges `edges` (sets of group
/// indexes) span fewer positions. Each round moves every group to the mean centre of gravity
/// of its edges and keeps the new order if the total span shrank.
fn force_order(order: &mut Vec<usize>, edges: &[Vec<usize>], rounds: usize) {
    let n = order.len();
    let mut incident: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (k, e) in edges.iter().enumerate() {
        for &g in e {
            incident[g].push(k);
        }
    }
    let span = |pos: &[usize]| -> usize {
        edges
            .iter()
            .map(|e| {
                let (lo, hi) = e.iter().fold((usize::MAX, 0), |(lo, hi), &g| {
                    (lo.min(pos[g]), hi.max(pos[g]))
                });
                hi - lo
            })
            .sum()
    };
    let positions = |order: &[usize]| -> Vec<usize> {
        let mut pos = vec![0; n];
        for (p, &g) in order.iter().enumerate() {
            pos[g] = p;
        }
        pos
    };
    let mut pos = positions(order);
    let mut best = span(&pos);
    for _ in 0..rounds {
        let cog: Vec<f64> = edges
            .iter()
            .map(|e| e.iter().map(|&g| pos[g] as f64).sum::<f64>() / e.len() as f64)
            .collect();
        let target: Vec<f64> = (0..n)
            .map(|g| {
                if incident[g].is_empty() {
                    pos[g] as f64
                } else {
                    incident[g].iter().map(|&k| cog[k]).sum::<f64>() / incident[g].len() as f64
                }
            })
            .collect();
        let mut next = order.clone();
        next.sort_by(|&a, &b| {
            target[a]
                .total_cmp(&target[b])
                .then_with(|| pos[a].cmp(&pos[b]))
        });
        let next_pos = positions(&next);
        let s = span(&next_pos);
        if s >= best {
            break;
        }
        best = s;
        *order = next;
        pos = next_pos;
    }
}

impl Encoding {
    /// The plain encoding of `game`'s fluents (one bit each) in the given order.
    pub fn new(game: &GroundGame, order: Order) -> Encoding {
        let groups = (0..game.fluents.len()).map(FluentGroup::single).collect();
        Encoding::from_groups(game, EncodingKind::Plain, order, groups)
    }

    /// An encoding with the given groups (a partition of the fluents; panics otherwise),
    /// ordered by `order`. The caller vouches that each group is a valid invariant: at most
    /// (or exactly) one of its fluents true in every reachable state.
    pub fn from_groups(
        game: &GroundGame,
        kind: EncodingKind,
        order: Order,
        groups: Vec<FluentGroup>,
    ) -> Encoding {
        Encoding::arranged(game, kind, order, groups, false, None)
    }

    /// The plain encoding of `game` in `order`, except that the fluents of different relations
    /// with the same arguments are next to each other (`(blank a 1)`, `(ecks a 1)`, `(oh a 1)`):
    /// the encoding in which the mutex proof checks such a group, whose "exactly one" BDD
    /// grows with the number of groups when their members are apart.
    pub fn plain_by_arguments(game: &GroundGame, order: Order) -> Encoding {
        let groups = (0..game.fluents.len()).map(FluentGroup::single).collect();
        Encoding::arranged(game, EncodingKind::Plain, order, groups, true, None)
    }

    /// [`Self::from_groups`], with the groups whose first members have the same arguments
    /// moved next to the first of them when `by_arguments`.
    /// The rule supports of [`Order::Rules`] are `supports` when given.
    fn arranged(
        game: &GroundGame,
        kind: EncodingKind,
        order: Order,
        mut groups: Vec<FluentGroup>,
        by_arguments: bool,
        supports: Option<&[Vec<usize>]>,
    ) -> Encoding {
        sort_by_terms(&game.fluents, order, &mut groups);
        if order == Order::Rules {
            let computed;
            let rules = match supports {
                Some(r) => Some(r),
                None => {
                    computed = rule_supports(game, 50_000_000);
                    computed.as_deref()
                }
            };
            if let Some(rules) = rules {
                groups = force_groups(game.fluents.len(), groups, rules);
            }
        }
        if by_arguments {
            groups = together_by_arguments(&game.fluents, groups);
        }
        // A turn group: in a game of two or more roles, every legal condition reads one of
        // its fluents.
        let legal = (game.roles.len() >= 2)
            .then(|| legal_supports(game, 10_000_000))
            .flatten();
        let turn = |g: &FluentGroup| {
            legal.as_ref().is_some_and(|legal| {
                legal
                    .iter()
                    .all(|sup| g.fluents.iter().any(|f| sup.binary_search(f).is_ok()))
            })
        };
        if order != Order::Given {
            // Stable: turn groups first, the rest in their order.
            groups.sort_by_key(|g| !turn(g));
        }
        let turn_group: Vec<bool> = groups.iter().map(turn).collect();
        Encoding::lay_out(game.fluents.len(), kind, order, groups, turn_group)
    }
}

/// Sorts the members of each group, then the groups by their first member: by index
/// ([`Order::Given`]) or by ground term ([`cmp_terms`]).
fn sort_by_terms(terms: &[GroundTerm], order: Order, groups: &mut [FluentGroup]) {
    for g in groups.iter_mut() {
        match order {
            Order::Given => g.fluents.sort_unstable(),
            Order::Heuristic | Order::Rules | Order::Auto => g
                .fluents
                .sort_by(|&a, &b| cmp_terms(&terms[a], &terms[b]).then_with(|| a.cmp(&b))),
        }
    }
    match order {
        Order::Given => groups.sort_by_key(|g| g.fluents[0]),
        Order::Heuristic | Order::Rules | Order::Auto => groups.sort_by(|a, b| {
            cmp_terms(&terms[a.fluents[0]], &terms[b.fluents[0]])
                .then_with(|| a.fluents[0].cmp(&b.fluents[0]))
        }),
    }
}

/// The encoding of `game` with `groups` (see [`Encoding::from_groups`]) in the order
/// [`Order::Auto`] stands for, given the true fluents of reachable `states`: the order among
/// [`Order::Heuristic`], [`Order::Rules`] and [`Order::Given`] whose encoding lays them out in
/// the smallest BDD, where it is at most a third of the heuristic order's, else
/// the heuristic order ([`pick_order`]); with the sizes measured (the heuristic order's
/// first; none without two states to measure). `states.1`: whether they are every reachable
/// state.
pub fn auto_encoding(
    game: &GroundGame,
    kind: EncodingKind,
    groups: Vec<FluentGroup>,
    (states, all): (&[Vec<usize>], bool),
) -> (Encoding, Vec<(Order, usize)>) {
    // A sample keeps the choice cheap: at most this many fluent bits looked at per order. It
    // must not be much smaller: a sparse sample of a layer loses the structure the orders
    // differ on.
    const MAX_BITS: usize = 5_000_000;
    let heuristic = Encoding::from_groups(game, kind, Order::Heuristic, groups.clone());
    if states.len() < 2 {
        return (heuristic, Vec::new());
    }
    let step = states.len().div_ceil(MAX_BITS / game.fluents.len().max(1));
    let sample: Vec<&[usize]> = states.iter().step_by(step).map(Vec::as_slice).collect();
    let nodes = |enc: &Encoding| crate::codes::fluent_sets_nodes(enc, &sample);
    let mut sizes = vec![(Order::Heuristic, nodes(&heuristic))];
    let mut encodings = vec![heuristic];
    // A smaller budget than the order itself gets: a game whose supports take longer to
    // trace is rarely one where the rules' order pays.
    let supports = rule_supports(game, 5_000_000);
    let mut others = vec![Order::Given];
    if supports.is_some() {
        others.insert(0, Order::Rules);
    }
    for order in others {
        let enc = Encoding::arranged(
            game,
            kind,
            order,
            groups.clone(),
            false,
            supports.as_deref(),
        );
        sizes.push((order, nodes(&enc)));
        encodings.push(enc);
    }
    let best = pick_order(&sizes, all);
    (encodings.swap_remove(best), sizes)
}

/// Below this many nodes in the heuristic order the first layers say too little about the
/// layers to come for the ground order to be taken on them (see [`pick_order`]).
const INFORMATIVE_NODES: usize = 2_000;

/// Which of the measured orders [`auto_encoding`] takes (an index into `sizes`, whose first
/// entry is the heuristic order's): the smallest where it is at most a third of the heuristic
/// order's, else the heuristic order.
///
/// The known states are the first layers, sparse and few: an order that only shaves a
/// constant off them can be the worse one later (Connect Four's heuristic order, column by
/// column, is 1.8 times the ground order's there and far better deeper; lightsOnSimul4's
/// relations outgrow the set-up in the ground order, 2.0 times smaller on its first layers).
/// An order that cuts them to a third, as one that is linear where another is exponential,
/// is taken.
///
/// Where they are not every reachable state (`all`) and fit in fewer than
/// [`INFORMATIVE_NODES`] nodes in the heuristic order, the ground order ([`Order::Given`], the
/// order of the game's text, which knows nothing of the rules) is not taken at all. On
/// lightsOnSimultaneous and simultaneousWin2 the first two layers (18,633 states) take 190 and
/// 136 nodes in it against 664 and 636 in the others, and then its transition relations take
/// 1.9 M nodes: five layers in 10 s, where the heuristic order finds the whole reachable set
/// (21 and 7 layers) in under a second. The rules' order is still taken on them where it cuts
/// them to a third (doubletictactoe: 338 nodes against 1,059; complete in about a second, as
/// in the ground order, against 9.1 s in the heuristic one).
fn pick_order(sizes: &[(Order, usize)], all: bool) -> usize {
    let heuristic = sizes[0].1;
    let mut best = (0, heuristic / 3 + 1);
    for (i, &(order, n)) in sizes.iter().enumerate().skip(1) {
        if order == Order::Given && heuristic < INFORMATIVE_NODES && !all {
            continue;
        }
        if n < best.1 {
            best = (i, n);
        }
    }
    best.0
}

/// `groups` in their order, except that a group whose first member has the same arguments as
/// the first member of an earlier group (a different relation: `(ecks a 1)` after
/// `(blank a 1)`) moves right after the last such group.
fn together_by_arguments(terms: &[GroundTerm], groups: Vec<FluentGroup>) -> Vec<FluentGroup> {
    use std::collections::HashMap;
    let mut slots: Vec<Vec<FluentGroup>> = Vec::new();
    let mut slot_of: HashMap<&[GroundTerm], usize> = HashMap::new();
    for g in groups {
        let key = match &terms[g.fluents[0]] {
            GroundTerm::Func(_, args) => Some(&args[..]),
            GroundTerm::Const(_) => None,
        };
        match key.and_then(|k| slot_of.get(k).copied()) {
            Some(i) => slots[i].push(g),
            None => {
                if let Some(k) = key {
                    slot_of.insert(k, slots.len());
                }
                slots.push(vec![g]);
            }
        }
    }
    slots.into_iter().flatten().collect()
}

/// The groups reordered by FORCE so that the rules (fluent supports, see [`rule_supports`])
/// span fewer groups.
fn force_groups(
    num_fluents: usize,
    groups: Vec<FluentGroup>,
    rules: &[Vec<usize>],
) -> Vec<FluentGroup> {
    let mut group_of = vec![0; num_fluents];
    for (i, g) in groups.iter().enumerate() {
        for &f in &g.fluents {
            group_of[f] = i;
        }
    }
    let mut edges: Vec<Vec<usize>> = rules
        .iter()
        .map(|r| {
            let mut e: Vec<usize> = r.iter().map(|&f| group_of[f]).collect();
            e.sort_unstable();
            e.dedup();
            e
        })
        .filter(|e| e.len() >= 2)
        .collect();
    edges.sort();
    edges.dedup();
    let mut idx: Vec<usize> = (0..groups.len()).collect();
    force_order(&mut idx, &edges, 50);
    let mut old: Vec<Option<FluentGroup>> = groups.into_iter().map(Some).collect();
    idx.into_iter()
        .map(|i| old[i].take().expect("a permutation"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ground_order_is_not_taken_on_a_few_hundred_nodes_of_the_first_layers() {
        use Order::{Given, Heuristic, Rules};
        // lightsOnSimultaneous: the ground order shaves a few hundred nodes.
        let light = [(Heuristic, 664), (Rules, 664), (Given, 190)];
        assert_eq!(pick_order(&light, false), 0);
        // On every reachable state (pick_log) the sizes are the reachable set's own.
        assert_eq!(pick_order(&light, true), 2);
        // doubletictactoe: the rules' order still cuts it to a third.
        let double = [(Heuristic, 1059), (Rules, 338), (Given, 286)];
        assert_eq!(pick_order(&double, false), 1);
        // firefighter: on many nodes the ground order is taken.
        let fire = [(Heuristic, 895_490), (Rules, 999_902), (Given, 30_060)];
        assert_eq!(pick_order(&fire, false), 2);
        // Not a third: the heuristic order.
        assert_eq!(pick_order(&[(Heuristic, 9_000), (Given, 3_001)], true), 0);
    }

    #[test]
    fn numeric_tokens_compare_numerically() {
        let t = |s: &str| GroundTerm::parse(s).unwrap();
        for (a, b) in [
            ("(cell 2 9 x)", "(cell 2 10 x)"),
            ("(cell 1 1 x)", "(cell 1 a x)"),
            ("(cell 1 1 o)", "(cell 1 1 x)"),
            ("(cell 1 1)", "(cell 1 1 x)"),
        ] {
            assert_eq!(cmp_terms(&t(a), &t(b)), Ordering::Less, "{a} < {b}");
        }
    }

    #[test]
    fn force_shortens_spans() {
        // A chain 0-3-1-4-2 laid out as 0 1 2 3 4: FORCE pulls chain neighbours together.
        let edges = vec![vec![0, 3], vec![3, 1], vec![1, 4], vec![4, 2]];
        let mut order: Vec<usize> = (0..5).collect();
        force_order(&mut order, &edges, 20);
        let mut pos = [0; 5];
        for (p, &g) in order.iter().enumerate() {
            pos[g] = p;
        }
        let span: usize = edges.iter().map(|e| pos[e[0]].abs_diff(pos[e[1]])).sum();
        assert!(span < 2 + 2 + 3 + 2, "span {span}, order {order:?}");
    }
}
