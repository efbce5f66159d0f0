//! Proof-number search over an explicit DAG, and its two-level form PN².
//!
//! One node per state (a hash map from state to arena slot); a node may have several parents,
//! and all of them are updated when its numbers change. Terminal children are evaluated
//! immediately. Solved nodes are final: their children are released (a child whose last parent
//! goes is freed with its whole unshared subtree) and they are never recomputed.
//!
//! Cycles: a child state that is the node itself or one of its ancestors in the DAG becomes a
//! fresh, unshared "repetition" leaf that is disproved (endless play is a failure for the
//! attacker). This keeps the node graph acyclic, so descent and updates always terminate. The
//! value of such a leaf depends on the path (graph history interaction); answers are exact on
//! acyclic games, which GDL games normally are.

use crate::model::{check_roles, Control, Expander, GameModel, Unsupported};
use crate::question::Question;
use crate::search::{
    combine, solution_size, Budget, Config, Init, Outcome, SearchResult, StopReason, INF,
};
use crate::table::{FxHashMap, FxHashSet};
use std::mem;

type Id = u32;

struct Node<S> {
    state: S,
    pn: u64,
    dn: u64,
    /// Solution size, once solved.
    size: u64,
    /// The opponent of the attacker chooses here.
    and: bool,
    expanded: bool,
    /// In the state index (repetition leaves are not).
    indexed: bool,
    children: Vec<Id>,
    parents: Vec<Id>,
}

impl<S> Node<S> {
    fn solved(&self) -> bool {
        self.pn == 0 || self.dn == 0
    }
}

/// Numbers of a child computed elsewhere (by a second-level search): pn, dn, solution size.
type Preset = (u64, u64, u64);

/// How a search of one tree ended.
enum Run {
    Solved,
    /// The tree reached its own node limit (second level only).
    Full,
    Stopped(StopReason),
}

/// One proof-number tree (the first or a second level).
struct Tree<'a, M: GameModel, Q> {
    model: &'a M,
    question: &'a Q,
    config: &'a Config,
    attacker: usize,
    expander: Expander<'a, M>,
    nodes: Vec<Option<Node<M::State>>>,
    free: Vec<Id>,
    live: usize,
    edges: usize,
    index: FxHashMap<M::State, Id>,
    root: Id,
    /// States on the path above this tree's root (a second-level tree's first-level path).
    outer: FxHashSet<M::State>,
    path: Vec<Id>,
    pending: Vec<Id>,
    successors: Vec<M::State>,
    marks: Vec<u32>,
    epoch: u32,
}

impl<'a, M: GameModel, Q: Question<M>> Tree<'a, M, Q> {
    fn new(
        model: &'a M,
        question: &'a Q,
        config: &'a Config,
        root: &M::State,
        outer: FxHashSet<M::State>,
    ) -> Result<Self, Unsupported> {
        let mut tree = Tree {
            model,
            question,
            config,
            attacker: question.attacker(),
            expander: Expander::new(model),
            nodes: Vec::new(),
            free: Vec::new(),
            live: 0,
            edges: 0,
            index: FxHashMap::default(),
            root: 0,
            outer,
            path: Vec::new(),
            pending: Vec::new(),
            successors: Vec::new(),
            marks: Vec::new(),
            epoch: 0,
        };
        let (pn, dn) = tree.evaluate(root)?;
        tree.root = tree.alloc(root.clone(), pn, dn, true);
        Ok(tree)
    }

    fn node(&self, id: Id) -> &Node<M::State> {
        self.nodes[id as usize].as_ref().expect("live node")
    }

    fn node_mut(&mut self, id: Id) -> &mut Node<M::State> {
        self.nodes[id as usize].as_mut().expect("live node")
    }

    /// Approximate bytes held: arena, index entries and edges (both directions).
    fn bytes(&self) -> usize {
        self.nodes.len() * mem::size_of::<Option<Node<M::State>>>()
            + self.live * (mem::size_of::<M::State>() + 2 * mem::size_of::<Id>())
            + self.edges * 2 * mem::size_of::<Id>()
    }

    /// Initial numbers of a new node: exact at terminal states, else per [`Init`].
    fn evaluate(&mut self, state: &M::State) -> Result<(u64, u64), Unsupported> {
        if self.model.is_terminal(state) {
            return Ok(if self.question.holds(self.model, state) {
                (0, INF)
            } else {
                (INF, 0)
            });
        }
        Ok(match self.config.init {
            Init::Unit => (1, 1),
            Init::Mobility => {
                let (control, moves) = self.expander.mobility(state)?;
                let moves = moves as u64;
                if control.is_and(self.attacker) {
                    (moves, 1)
                } else {
                    (1, moves)
                }
            }
        })
    }

    fn alloc(&mut self, state: M::State, pn: u64, dn: u64, indexed: bool) -> Id {
        let node = Node {
            state,
            pn,
            dn,
            size: 1,
            and: false,
            expanded: false,
            indexed,
            children: Vec::new(),
            parents: Vec::new(),
        };
        self.live += 1;
        let id = match self.free.pop() {
            Some(id) => {
                self.nodes[id as usize] = Some(node);
                id
            }
            None => {
                self.nodes.push(Some(node));
                (self.nodes.len() - 1) as Id
            }
        };
        if indexed {
            let state = self.node(id).state.clone();
            self.index.insert(state, id);
        }
        id
    }

    fn link(&mut self, parent: Id, child: Id) {
        self.node_mut(parent).children.push(child);
        self.node_mut(child).parents.push(parent);
        self.edges += 1;
    }

    /// Whether `ancestor` can reach `node` (walking up the parent links from `node`).
    fn is_ancestor(&mut self, ancestor: Id, node: Id) -> bool {
        if self.marks.len() < self.nodes.len() {
            self.marks.resize(self.nodes.len(), 0);
        }
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.marks.iter_mut().for_each(|mark| *mark = 0);
            self.epoch = 1;
        }
        let mut stack = vec![node];
        self.marks[node as usize] = self.epoch;
        while let Some(id) = stack.pop() {
            if id == ancestor {
                return true;
            }
            for &parent in &self.nodes[id as usize].as_ref().expect("live node").parents {
                if self.marks[parent as usize] != self.epoch {
                    self.marks[parent as usize] = self.epoch;
                    stack.push(parent);
                }
            }
        }
        false
    }

    /// Adds the successor `state` below `parent`: a repetition leaf, a link to the existing
    /// node of the state, or a new node (with `preset` numbers if given).
    fn add_child(
        &mut self,
        parent: Id,
        state: M::State,
        preset: Option<Preset>,
    ) -> Result<(), Unsupported> {
        if self.outer.contains(&state) {
            let leaf = self.alloc(state, INF, 0, false);
            self.link(parent, leaf);
            return Ok(());
        }
        if let Some(&existing) = self.index.get(&state) {
            let node = self.node(existing);
            let open_interior = node.expanded && !node.solved();
            if existing == parent || (open_interior && self.is_ancestor(existing, parent)) {
                let leaf = self.alloc(state, INF, 0, false);
                self.link(parent, leaf);
                return Ok(());
            }
            if self.node(parent).children.contains(&existing) {
                return Ok(());
            }
            self.link(parent, existing);
            // A second-level search may have solved a leaf that the first level only estimated.
            if let Some((pn, dn, size)) = preset {
                let node = self.node_mut(existing);
                if !node.expanded && !node.solved() && (pn == 0 || dn == 0) {
                    (node.pn, node.dn, node.size) = (pn, dn, size);
                    let parents = node.parents.clone();
                    self.pending.extend(parents);
                }
            }
            return Ok(());
        }
        let (pn, dn, size) = match preset {
            Some(preset) if !self.model.is_terminal(&state) => preset,
            _ => {
                let (pn, dn) = self.evaluate(&state)?;
                (pn, dn, 1)
            }
        };
        let child = self.alloc(state, pn, dn, true);
        self.node_mut(child).size = size;
        self.link(parent, child);
        Ok(())
    }

    /// Descends from the root to the most-proving node, recording the path.
    fn select(&mut self) -> Id {
        self.path.clear();
        let mut id = self.root;
        loop {
            self.path.push(id);
            let node = self.node(id);
            if !node.expanded {
                return id;
            }
            let and = node.and;
            id = *node
                .children
                .iter()
                .min_by_key(|&&child| {
                    let child = self.node(child);
                    if and {
                        child.dn
                    } else {
                        child.pn
                    }
                })
                .expect("unsolved expanded nodes have children");
        }
    }

    /// Generates the children of `leaf` directly.
    fn expand(&mut self, leaf: Id) -> Result<(), Unsupported> {
        let state = self.node(leaf).state.clone();
        let mut successors = mem::take(&mut self.successors);
        let control = self.expander.successors(&state, &mut successors)?;
        self.set_expanded(leaf, control);
        for child in successors.drain(..) {
            self.add_child(leaf, child, None)?;
        }
        self.successors = successors;
        Ok(())
    }

    fn set_expanded(&mut self, id: Id, control: Control) {
        let and = control.is_and(self.attacker);
        let node = self.node_mut(id);
        node.and = and;
        node.expanded = true;
    }

    /// Recomputes the nodes in `pending` and, transitively, the parents of every node whose
    /// numbers changed. Solved nodes are final and release their children.
    fn update(&mut self) {
        while let Some(id) = self.pending.pop() {
            let Some(node) = self.nodes[id as usize].as_ref() else {
                continue; // freed by a release earlier in this update
            };
            if node.solved() || !node.expanded {
                continue;
            }
            let and = node.and;
            let (pn, dn) = combine(
                and,
                self.config.weak_pn,
                node.children.iter().map(|&c| {
                    let c = self.node(c);
                    (c.pn, c.dn)
                }),
            );
            if (pn, dn) == (node.pn, node.dn) {
                continue;
            }
            let solved = pn == 0 || dn == 0;
            let size = if solved {
                solution_size(
                    and,
                    pn == 0,
                    node.children.iter().map(|&c| {
                        let c = self.node(c);
                        (c.pn, c.dn, c.size)
                    }),
                )
            } else {
                0
            };
            let node = self.node_mut(id);
            (node.pn, node.dn, node.size) = (pn, dn, size);
            let parents = node.parents.clone();
            self.pending.extend(parents);
            if solved && self.config.delete_solved {
                self.release_children(id);
            }
        }
    }

    /// Detaches the children of `id`, freeing every node left without a parent.
    fn release_children(&mut self, id: Id) {
        let children = mem::take(&mut self.node_mut(id).children);
        let mut stack: Vec<(Id, Id)> = children.into_iter().map(|c| (id, c)).collect();
        while let Some((parent, child)) = stack.pop() {
            self.edges -= 1;
            let node = self.node_mut(child);
            if let Some(at) = node.parents.iter().position(|&p| p == parent) {
                node.parents.swap_remove(at);
            }
            if !node.parents.is_empty() || child == self.root {
                continue;
            }
            let node = self.nodes[child as usize].take().expect("live node");
            self.live -= 1;
            self.free.push(child);
            if node.indexed {
                self.index.remove(&node.state);
            }
            stack.extend(node.children.into_iter().map(|g| (child, g)));
        }
    }

    fn root_node(&self) -> &Node<M::State> {
        self.node(self.root)
    }

    /// Runs until the root is solved, a limit stops the search, or the tree holds `local_limit`
    /// nodes. `base` is the (nodes, bytes) held outside this tree, for the global limits.
    fn run(
        &mut self,
        budget: &mut Budget<'_>,
        local_limit: Option<u64>,
        base: (u64, usize),
        two_level: bool,
    ) -> Result<Run, Unsupported> {
        loop {
            let root = self.root_node();
            if root.solved() {
                return Ok(Run::Solved);
            }
            if root.expanded && local_limit.is_some_and(|limit| self.live as u64 >= limit) {
                return Ok(Run::Full);
            }
            if let Err(reason) = budget.check(base.0 + self.live as u64, base.1 + self.bytes()) {
                return Ok(Run::Stopped(reason));
            }
            let leaf = self.select();
            if two_level {
                if let Some(reason) = self.expand_second_level(leaf, budget, base)? {
                    return Ok(Run::Stopped(reason));
                }
            } else {
                budget.expanded += 1;
                self.expand(leaf)?;
                self.pending.push(leaf);
            }
            self.update();
        }
    }

    /// PN²: evaluates the children of `leaf` by a second-level search rooted at `leaf`, keeps
    /// the second-level root's children (with their numbers) and discards the rest.
    fn expand_second_level(
        &mut self,
        leaf: Id,
        budget: &mut Budget<'_>,
        base: (u64, usize),
    ) -> Result<Option<StopReason>, Unsupported> {
        let limit = self.config.pn2_limit.second_level_nodes(self.live as u64);
        let outer: FxHashSet<M::State> = self
            .path
            .iter()
            .map(|&id| self.node(id).state.clone())
            .chain(self.outer.iter().cloned())
            .collect();
        let state = self.node(leaf).state.clone();
        let mut second = Tree::new(self.model, self.question, self.config, &state, outer)?;
        let held = (base.0 + self.live as u64, base.1 + self.bytes());
        let run = second.run(budget, Some(limit), held, false)?;
        if let Run::Stopped(reason) = run {
            return Ok(Some(reason));
        }
        let root = second.root_node();
        if root.solved() {
            let (pn, dn, size) = (root.pn, root.dn, root.size);
            let node = self.node_mut(leaf);
            (node.pn, node.dn, node.size) = (pn, dn, size);
            node.expanded = true;
            let parents = node.parents.clone();
            self.pending.extend(parents);
            return Ok(None);
        }
        let and = root.and;
        let children: Vec<(M::State, Option<Preset>)> = root
            .children
            .iter()
            .map(|&c| {
                let c = second.node(c);
                let preset = c.indexed.then_some((c.pn, c.dn, c.size));
                (c.state.clone(), preset)
            })
            .collect();
        drop(second);
        let node = self.node_mut(leaf);
        node.and = and;
        node.expanded = true;
        for (state, preset) in children {
            self.add_child(leaf, state, preset)?;
        }
        self.pending.push(leaf);
        Ok(None)
    }
}

/// Proof-number search ([`Algo::Pn`](crate::Algo::Pn)): can `question.attacker()` force a
/// terminal state where the question holds, starting from `root`?
///
/// Keeps the whole explicit DAG (one node per state) in memory, descends to the most-proving
/// node, expands it, evaluates terminal children at once and updates all ancestors, stopping
/// early where the numbers do not change.
///
/// With `two_level`, PN² ([`Algo::Pn2`](crate::Algo::Pn2)): the leaves are evaluated by a
/// second-level proof-number search of at most [`Config::pn2_limit`] nodes, and only the
/// second-level root's children are kept. That uses far less memory for a few times more
/// expansions.
pub(crate) fn proof_number_search<M: GameModel, Q: Question<M>>(
    model: &M,
    root: &M::State,
    question: &Q,
    config: &Config,
    two_level: bool,
) -> Result<SearchResult, Unsupported> {
    check_roles(model, question.attacker())?;
    let mut budget = Budget::new(&config.limits);
    let mut tree = Tree::new(model, question, config, root, FxHashSet::default())?;
    let run = tree.run(&mut budget, None, (0, 0), two_level)?;
    budget.peak = budget.peak.max(tree.live as u64);
    let root = tree.root_node();
    Ok(match run {
        Run::Solved | Run::Full => SearchResult {
            outcome: if root.pn == 0 {
                Outcome::Proved
            } else {
                Outcome::Disproved
            },
            stats: budget.stats(Some(root.size)),
        },
        Run::Stopped(reason) => SearchResult {
            outcome: Outcome::Stopped(reason),
            stats: budget.stats(None),
        },
    })
}
