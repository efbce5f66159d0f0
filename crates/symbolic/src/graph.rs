//! A game built from its explicit graph: when compiling a game once over all states is too
//! large (a move-independent condition over its budget, too many joint moves, the set-up past
//! its share of the time) but its reachable set is small, the explicit reasoner expands every
//! reachable state and the game's predicates and relations are built from that graph, as BDDs
//! over the same encoding (`ExplicitGraph`, `SymbolicGame::build_from_graph`).
//!
//! Every predicate is then exact on the reachable states and false elsewhere (the legal moves
//! on the non-terminal ones, the goals on the terminal ones, where the searches read them):
//! `legal[r][m]` is the reachable non-terminal states where move `m` of role `r` is legal, the
//! terminal part is the reachable terminal states, each goal condition the reachable terminal
//! states with that goal value, and the partition of a joint move relates each reachable
//! non-terminal state where it is legal to its successor, constraining only the bits that some
//! of its edges change (the others keep their value, the frame by omission of [`Partition`]).
//! Searches start from the initial state and solvers work inside the reachable set, so they
//! get the same answers as on the compiled game; the BDDs come from sorted codes
//! (`codes_bdd`), with no BDD operation, within a node budget.

use std::collections::{BTreeMap, HashMap};
use std::time::Instant;

use symgame_bdd::{BddEngine, BddResult, Var};
use symgame_explicit::{for_each_joint_move, Reasoner, State};
use symgame_ground::GroundGame;

use crate::codes::{code_bit, codes_bdd, state_code};
use crate::compile::JointMove;
use crate::encoding::Encoding;
use crate::formula::Formula;
use crate::options::GraphBudget;
use crate::partition::Partition;

/// How the set-up log's note of a game built from its explicit graph begins (the graph's size
/// follows), for reports that say so.
pub const EXPLICIT_GRAPH_NOTE: &str = "built from the explicit graph: ";

/// Every reachable state of a game with its legal moves, goal values and successors.
pub(crate) struct ExplicitGraph {
    /// The states in breadth-first order (state `i` has id `i`; 0 is the initial state).
    pub(crate) states: Vec<State>,
    /// The terminal states.
    pub(crate) terminal: Vec<u32>,
    /// `legal[r][m]`: the non-terminal states where move `m` of role `r` is legal.
    pub(crate) legal: Vec<Vec<Vec<u32>>>,
    /// Per role: per goal value, the terminal states with that value (goals are read in
    /// terminal states only).
    pub(crate) goals: Vec<BTreeMap<u8, Vec<u32>>>,
    /// Per joint move: its edges (state, successor) from non-terminal states.
    pub(crate) edges: BTreeMap<JointMove, Vec<(u32, u32)>>,
    /// The number of edges.
    pub(crate) num_edges: usize,
}

impl ExplicitGraph {
    /// Expands every reachable state of `game` breadth first; `Err` (saying which bound)
    /// when the graph is larger than `budget` or `deadline` passes first.
    pub(crate) fn explore(
        game: &GroundGame,
        budget: &GraphBudget,
        deadline: Option<Instant>,
    ) -> Result<ExplicitGraph, String> {
        let started = Instant::now();
        let deadline = match (started.checked_add(budget.max_time), deadline) {
            (Some(own), Some(d)) => Some(own.min(d)),
            (own, d) => own.or(d),
        };
        let r = Reasoner::new(game);
        let roles = r.num_roles();
        let mut g = ExplicitGraph {
            states: vec![r.initial_state()],
            terminal: Vec::new(),
            legal: game
                .legal
                .iter()
                .map(|ms| vec![Vec::new(); ms.len()])
                .collect(),
            goals: vec![BTreeMap::new(); roles],
            edges: BTreeMap::new(),
            num_edges: 0,
        };
        let mut ids: HashMap<State, u32> = HashMap::new();
        ids.insert(g.states[0].clone(), 0);
        let mut per_role: Vec<Vec<usize>> = vec![Vec::new(); roles];
        let mut next = 0usize;
        while next < g.states.len() {
            if next.is_multiple_of(256) && deadline.is_some_and(|d| Instant::now() >= d) {
                return Err(format!(
                    "the explicit graph was not complete after {:.1} s ({} states)",
                    started.elapsed().as_secs_f64(),
                    g.states.len()
                ));
            }
            let id = next as u32;
            let s = g.states[next].clone();
            next += 1;
            if r.is_terminal(&s) {
                g.terminal.push(id);
                for (role, goals) in g.goals.iter_mut().enumerate() {
                    if let Some(v) = r.goal(&s, role) {
                        goals.entry(v).or_default().push(id);
                    }
                }
                continue;
            }
            for (role, moves) in per_role.iter_mut().enumerate() {
                r.legal_moves_into(&s, role, moves);
                for &m in moves.iter() {
                    g.legal[role][m].push(id);
                }
            }
            let count: usize = per_role.iter().map(Vec::len).product();
            g.num_edges += count;
            if g.num_edges > budget.max_edges {
                return Err(format!(
                    "the explicit graph has more than {} edges",
                    budget.max_edges
                ));
            }
            for_each_joint_move(&per_role, |joint| {
                let t = r.next_state(&s, joint);
                let len = ids.len() as u32;
                let to = *ids.entry(t).or_insert_with_key(|t| {
                    g.states.push(t.clone());
                    len
                });
                g.edges.entry(joint.to_vec()).or_default().push((id, to));
                true
            });
            if g.states.len() > budget.max_states {
                return Err(format!(
                    "the explicit graph has more than {} states",
                    budget.max_states
                ));
            }
        }
        Ok(g)
    }

    /// The codes of the states under `enc`; if a state breaks a group of `enc`, its true
    /// fluents instead.
    pub(crate) fn codes(&self, enc: &Encoding) -> Result<Vec<Box<[u64]>>, Vec<usize>> {
        self.states
            .iter()
            .map(|s| state_code(enc, s).ok_or_else(|| s.fluents().collect()))
            .collect()
    }
}

/// The game's predicates and per-joint-move partitions built from `graph` (see the module
/// documentation); `codes` are the states' codes under `enc`.
pub(crate) struct GraphBdds<E: BddEngine> {
    pub(crate) terminal_parts: Vec<E::Bdd>,
    pub(crate) legal: Vec<Vec<E::Bdd>>,
    pub(crate) goal_formulas: Vec<Vec<(u8, Formula<E>)>>,
    pub(crate) partitions: Vec<Partition<E>>,
}

/// Builds [`GraphBdds`] from `graph` on `e`, in at most `max_nodes` nodes in all; the legal
/// moves and goals only `with_goals` (solving needs them, reachability does not).
pub(crate) fn graph_bdds<E: BddEngine>(
    e: &E,
    enc: &Encoding,
    graph: &ExplicitGraph,
    codes: &[Box<[u64]>],
    with_goals: bool,
    max_nodes: usize,
) -> BddResult<GraphBdds<E>> {
    let table = e.stats().node_capacity.map_or(usize::MAX, |c| c / 3);
    let budget = std::cell::Cell::new(max_nodes.min(table));
    let within = |vars: &[Var], codes: Vec<Box<[u64]>>| {
        let mut left = budget.get();
        let r = codes_bdd(e, vars, codes, &mut left);
        budget.set(left);
        r
    };
    let cur: Vec<Var> = (0..enc.num_bits()).map(Encoding::current_bit_var).collect();
    let set = |ids: &[u32]| -> BddResult<E::Bdd> {
        within(
            &cur,
            ids.iter().map(|&i| codes[i as usize].clone()).collect(),
        )
    };
    let terminal = set(&graph.terminal)?;
    let terminal_parts = if e.is_false(&terminal) {
        Vec::new()
    } else {
        vec![terminal]
    };
    let (legal, goal_formulas) = if with_goals {
        let legal = graph
            .legal
            .iter()
            .map(|ms| ms.iter().map(|ids| set(ids)).collect())
            .collect::<BddResult<_>>()?;
        let goals = graph
            .goals
            .iter()
            .map(|vs| {
                vs.iter()
                    .map(|(&v, ids)| Ok((v, Formula::Leaf(set(ids)?))))
                    .collect()
            })
            .collect::<BddResult<_>>()?;
        (legal, goals)
    } else {
        (Vec::new(), Vec::new())
    };
    let bits = enc.num_bits() as usize;
    let mut partitions = Vec::with_capacity(graph.edges.len());
    for (joint, edges) in &graph.edges {
        // The bits some edge changes; the relation constrains only their next values.
        let mut touched = vec![false; bits];
        for &(s, t) in edges {
            let (a, b) = (&codes[s as usize], &codes[t as usize]);
            for (w, (x, y)) in a.iter().zip(b.iter()).enumerate() {
                let mut diff = x ^ y;
                while diff != 0 {
                    let k = diff.leading_zeros() as usize;
                    touched[w * 64 + k] = true;
                    diff &= !(1u64 << (63 - k));
                }
            }
        }
        let touched_bits: Vec<u32> = (0..bits as u32).filter(|&b| touched[b as usize]).collect();
        // Positions: every current bit, each touched one followed by its next bit.
        let mut vars = Vec::with_capacity(bits + touched_bits.len());
        let mut layout = Vec::with_capacity(bits + touched_bits.len());
        for (b, &t) in touched.iter().enumerate() {
            vars.push(Encoding::current_bit_var(b as u32));
            layout.push((false, b));
            if t {
                vars.push(Encoding::next_bit_var(b as u32));
                layout.push((true, b));
            }
        }
        let words = layout.len().div_ceil(64).max(1);
        let pairs = edges
            .iter()
            .map(|&(s, t)| {
                let (a, b) = (&codes[s as usize], &codes[t as usize]);
                let mut code = vec![0u64; words].into_boxed_slice();
                for (p, &(next, bit)) in layout.iter().enumerate() {
                    if code_bit(if next { b } else { a }, bit) {
                        code[p / 64] |= 1 << (63 - p % 64);
                    }
                }
                code
            })
            .collect();
        let relation = within(&vars, pairs)?;
        partitions.push(Partition::new(
            enc,
            vec![joint.clone()],
            relation,
            Vec::new(),
            touched_bits,
        ));
    }
    Ok(GraphBdds {
        terminal_parts,
        legal,
        goal_formulas,
        partitions,
    })
}
