//! The first layers of a breadth-first search expanded state by state with the explicit
//! reasoner, while they are small: [`ExplicitPrefix`].
//!
//! A symbolic layer costs about the same whether it holds ten states or ten thousand: the
//! images of a game compiled within each layer recompile its circuit per layer, and even a
//! compiled relation pays its whole size per image. The first layers of most games hold a few
//! states, which the explicit reasoner expands in microseconds each. So while a layer has at
//! most [`ExplicitPrefix::max_states`] states and its expansion is predicted (from the seconds
//! per state of the layer before) to take at most [`ExplicitPrefix::max_seconds`], it is
//! expanded explicitly: its non-terminal states, and the successors of those, are built as
//! BDDs straight from the state lists (a reduced node table from the sorted codes, imported
//! into the engine), and the search goes on with exactly the sets a symbolic step would have
//! given. Once a layer is too large or too slow, every later layer is expanded symbolically.
//! The explicit reasoner is the same one the cross-checks trust; tests compare the layer
//! counts with and without the prefix.

use std::collections::{HashMap, HashSet};
use std::time::Instant;

use symgame_bdd::{BddEngine, BddNodes, BddResult, Var};
use symgame_explicit::{MoveId, Reasoner, State};
use symgame_ground::GroundGame;
use symgame_limits::Guard;

use crate::encoding::Encoding;
use crate::interrupt::Interrupt;

/// How the first layers of a search are expanded explicitly (see the module documentation).
#[derive(Clone)]
pub struct ExplicitPrefix {
    reasoner: Reasoner,
    /// The largest layer expanded explicitly, in states.
    pub max_states: usize,
    /// The longest predicted (and allowed) explicit expansion of one layer, in seconds; a
    /// layer that runs past it is expanded symbolically instead.
    pub max_seconds: f64,
}

impl ExplicitPrefix {
    /// The explicit prefix of searches on `game`.
    pub fn new(game: &GroundGame, max_states: usize, max_seconds: f64) -> ExplicitPrefix {
        ExplicitPrefix {
            reasoner: Reasoner::new(game),
            max_states,
            max_seconds,
        }
    }

    /// The search's start: the initial state as the only state of the first layer.
    pub(crate) fn start(&self) -> Frontier {
        let init = self.reasoner.initial_state();
        Frontier {
            seen: HashSet::from([init.clone()]),
            states: vec![init],
            seconds_per_state: 0.0,
        }
    }
}

/// The explicit side of a search between layers.
pub(crate) struct Frontier {
    /// The states of the last layer.
    states: Vec<State>,
    /// Every state of the layers so far, the last one included.
    seen: HashSet<State>,
    /// Seconds per state of the last explicit expansion (0 before the first).
    seconds_per_state: f64,
}

/// One layer expanded explicitly.
pub(crate) struct Step<E: BddEngine> {
    /// The non-terminal states of the layer.
    pub(crate) expand: E::Bdd,
    /// Their successors (earlier states included, as an image would give them).
    pub(crate) union: E::Bdd,
    /// The states new in the next layer, if it is still small enough to go on explicitly.
    new: Option<Vec<State>>,
    seconds_per_state: f64,
}

impl Frontier {
    /// The next layer from `self`, expanded explicitly; `Ok(None)` when the layer is too large,
    /// predicted too slow, or ran past the time allowed (then nothing changed).
    pub(crate) fn step<E: BddEngine>(
        &self,
        e: &E,
        enc: &Encoding,
        prefix: &ExplicitPrefix,
        guard: &Guard,
    ) -> Result<Option<Step<E>>, Interrupt> {
        let n = self.states.len();
        // The node table is built recursively, one level a bit.
        const MAX_BITS: u32 = 4096;
        if enc.num_bits() > MAX_BITS
            || n > prefix.max_states
            || self.seconds_per_state * n as f64 > prefix.max_seconds
        {
            return Ok(None);
        }
        let started = Instant::now();
        let r = &prefix.reasoner;
        let mut expand = Vec::new();
        let mut successors: HashSet<State> = HashSet::new();
        let mut legal: Vec<Vec<MoveId>> = vec![Vec::new(); r.num_roles()];
        for (k, s) in self.states.iter().enumerate() {
            if k % 64 == 0 {
                guard.check()?;
                if started.elapsed().as_secs_f64() > prefix.max_seconds {
                    return Ok(None);
                }
            }
            if r.is_terminal(s) {
                continue;
            }
            expand.push(s);
            for (role, l) in legal.iter_mut().enumerate() {
                r.legal_moves_into(s, role, l);
            }
            for_each_joint_move(&legal, |joint| {
                successors.insert(r.next_state(s, joint));
            });
        }
        let (Some(expand), Some(union)) = (
            states_bdd(e, enc, expand.into_iter())?,
            states_bdd(e, enc, successors.iter())?,
        ) else {
            // A state outside the encoding's proven groups: impossible while the reasoner and
            // the mutex proof agree; the symbolic step decides.
            debug_assert!(false, "an explicit state breaks a proven fluent group");
            return Ok(None);
        };
        let new: Vec<State> = successors
            .into_iter()
            .filter(|t| !self.seen.contains(t))
            .collect();
        Ok(Some(Step {
            expand,
            union,
            new: (new.len() <= prefix.max_states).then_some(new),
            seconds_per_state: started.elapsed().as_secs_f64() / n.max(1) as f64,
        }))
    }

    /// The frontier after `step` (its new layer), or `None` when it ends the explicit prefix.
    pub(crate) fn advance<E: BddEngine>(mut self, step: Step<E>) -> Option<Frontier> {
        let new = step.new?;
        self.seen.extend(new.iter().cloned());
        Some(Frontier {
            states: new,
            seen: self.seen,
            seconds_per_state: step.seconds_per_state,
        })
    }
}

/// Calls `f` with every joint move of `legal` (one move per role), the last role fastest;
/// none if a role has no legal move.
fn for_each_joint_move(legal: &[Vec<MoveId>], mut f: impl FnMut(&[MoveId])) {
    if legal.iter().any(|l| l.is_empty()) {
        return;
    }
    let mut idx = vec![0usize; legal.len()];
    let mut joint: Vec<MoveId> = legal.iter().map(|l| l[0]).collect();
    loop {
        f(&joint);
        let mut pos = legal.len();
        loop {
            if pos == 0 {
                return;
            }
            pos -= 1;
            idx[pos] += 1;
            if idx[pos] < legal[pos].len() {
                joint[pos] = legal[pos][idx[pos]];
                break;
            }
            idx[pos] = 0;
            joint[pos] = legal[pos][0];
        }
    }
}

/// The BDD (over the current-state variables of `enc`) of a set of explicit states, built as
/// a reduced node table from their sorted codes and imported: linear in states times bits,
/// with no BDD operation. `Ok(None)` if a state breaks a group of the encoding.
pub(crate) fn states_bdd<'a, E: BddEngine>(
    e: &E,
    enc: &Encoding,
    states: impl Iterator<Item = &'a State>,
) -> BddResult<Option<E::Bdd>> {
    let bits = enc.num_bits() as usize;
    let words = bits.div_ceil(64).max(1);
    // Bit `b` of a code is bit `63 - b % 64` of word `b / 64`, so that comparing the words
    // compares the codes in variable order.
    let mut codes: Vec<Box<[u64]>> = Vec::new();
    for s in states {
        let fluents: Vec<usize> = s.fluents().collect();
        let Some(lits) = enc.encode(&fluents) else {
            return Ok(None);
        };
        let mut code = vec![0u64; words].into_boxed_slice();
        for (var, value) in lits {
            let b = (var / 2) as usize;
            if value {
                code[b / 64] |= 1 << (63 - b % 64);
            }
        }
        codes.push(code);
    }
    codes.sort_unstable();
    codes.dedup();
    let mut table = NodeTable::default();
    let root = table.build(&codes, 0, bits);
    let nodes = BddNodes {
        num_vars: e.num_vars(),
        nodes: table.nodes,
        root,
    };
    e.import(&nodes).map(Some)
}

/// A reduced node table under construction: references as in [`BddNodes`].
#[derive(Default)]
struct NodeTable {
    nodes: Vec<(Var, u32, u32)>,
    unique: HashMap<(Var, u32, u32), u32>,
}

impl NodeTable {
    /// The reference of the set of `codes` (sorted, distinct, equal in the bits before `b`)
    /// over the bits from `b` to `bits`.
    fn build(&mut self, codes: &[Box<[u64]>], b: usize, bits: usize) -> u32 {
        if codes.is_empty() {
            return 0;
        }
        if b == bits {
            return 1;
        }
        let bit = |c: &[u64]| c[b / 64] >> (63 - b % 64) & 1 == 1;
        let split = codes.partition_point(|c| !bit(c));
        let low = self.build(&codes[..split], b + 1, bits);
        let high = self.build(&codes[split..], b + 1, bits);
        if low == high {
            return low;
        }
        let key = (Encoding::current_bit_var(b as u32), low, high);
        if let Some(&r) = self.unique.get(&key) {
            return r;
        }
        self.nodes.push(key);
        let r = self.nodes.len() as u32 + 1;
        self.unique.insert(key, r);
        r
    }
}
