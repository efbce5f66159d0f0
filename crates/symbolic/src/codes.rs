//! Sets of explicit states (and of pairs of them) as BDDs, built as reduced node tables from
//! their sorted codes and imported: linear in states times bits, with no BDD operation. Used
//! by the explicit prefix ([`crate::prefix`]) and the game built from its explicit graph.

use rustc_hash::FxHashMap;

use symgame_bdd::{BddEngine, BddError, BddNodes, BddResult, Var};
use symgame_explicit::State;

use crate::encoding::Encoding;

/// The BDD (over the current-state variables of `enc`) of a set of explicit states, built as
/// a reduced node table from their sorted codes and imported: linear in states times bits,
/// with no BDD operation. `Ok(None)` if a state breaks a group of the encoding.
pub(crate) fn states_bdd<'a, E: BddEngine>(
    e: &E,
    enc: &Encoding,
    states: impl Iterator<Item = &'a State>,
) -> BddResult<Option<E::Bdd>> {
    match states_codes(enc, states) {
        Some(codes) => codes_states_bdd(e, enc, codes).map(Some),
        None => Ok(None),
    }
}

/// The codes of `states` under `enc` ([`state_code`]); `None` if a state breaks a group of the
/// encoding.
pub(crate) fn states_codes<'a>(
    enc: &Encoding,
    states: impl Iterator<Item = &'a State>,
) -> Option<Vec<Box<[u64]>>> {
    states.map(|s| state_code(enc, s)).collect()
}

/// The BDD (over the current-state variables of `enc`) of the states of `codes`
/// ([`states_codes`]).
pub(crate) fn codes_states_bdd<E: BddEngine>(
    e: &E,
    enc: &Encoding,
    codes: Vec<Box<[u64]>>,
) -> BddResult<E::Bdd> {
    let vars: Vec<Var> = (0..enc.num_bits()).map(Encoding::current_bit_var).collect();
    let mut unbounded = usize::MAX;
    codes_bdd(e, &vars, codes, &mut unbounded)
}

/// The code of explicit state `s` under `enc`, bit `b` as bit `63 - b % 64` of word `b / 64`
/// (so that comparing the words compares the codes in variable order); `None` if `s` breaks a
/// group of the encoding.
pub(crate) fn state_code(enc: &Encoding, s: &State) -> Option<Box<[u64]>> {
    let fluents: Vec<usize> = s.fluents().collect();
    fluents_code(enc, &fluents)
}

/// [`state_code`] of the state whose true fluents are `fluents`.
fn fluents_code(enc: &Encoding, fluents: &[usize]) -> Option<Box<[u64]>> {
    let words = (enc.num_bits() as usize).div_ceil(64).max(1);
    let lits = enc.encode(fluents)?;
    let mut code = vec![0u64; words].into_boxed_slice();
    for (var, value) in lits {
        let b = (var / 2) as usize;
        if value {
            code[b / 64] |= 1 << (63 - b % 64);
        }
    }
    Some(code)
}

/// The number of nodes of the BDD (over the current-state variables of `enc`) of the states
/// whose true fluents are `states` (those that break a group of `enc` left out): the size of
/// the set under the encoding's order, with no engine.
pub(crate) fn fluent_sets_nodes(enc: &Encoding, states: &[&[usize]]) -> usize {
    let mut codes: Vec<Box<[u64]>> = states.iter().filter_map(|f| fluents_code(enc, f)).collect();
    codes.sort_unstable();
    codes.dedup();
    let vars: Vec<Var> = (0..enc.num_bits()).map(Encoding::current_bit_var).collect();
    let mut table = NodeTable::default();
    table.build(&codes, 0, &vars);
    table.nodes.len()
}

/// Bit `b` of a code laid out as by [`state_code`].
pub(crate) fn code_bit(code: &[u64], b: usize) -> bool {
    code[b / 64] >> (63 - b % 64) & 1 == 1
}

/// The BDD of a set of codes whose position `p` is variable `vars[p]` (ascending), built as a
/// reduced node table from the sorted codes and imported: no BDD operation. Its nodes are
/// taken from `budget`; [`BddError::Budget`] (nothing imported) if there are more.
pub(crate) fn codes_bdd<E: BddEngine>(
    e: &E,
    vars: &[Var],
    mut codes: Vec<Box<[u64]>>,
    budget: &mut usize,
) -> BddResult<E::Bdd> {
    codes.sort_unstable();
    codes.dedup();
    let mut table = NodeTable::default();
    let root = table.build(&codes, 0, vars);
    *budget = budget.checked_sub(table.nodes.len()).ok_or_else(|| {
        BddError::Budget("the BDDs built from explicit states are over their node budget".into())
    })?;
    let nodes = BddNodes {
        num_vars: e.num_vars(),
        nodes: table.nodes,
        root,
    };
    e.import(&nodes)
}

/// A reduced node table under construction: references as in [`BddNodes`].
#[derive(Default)]
struct NodeTable {
    nodes: Vec<(Var, u32, u32)>,
    unique: FxHashMap<(Var, u32, u32), u32>,
}

impl NodeTable {
    /// The reference of the set of `codes` (sorted, distinct, equal in the positions before
    /// `b`) over the positions from `b` on, position `p` being variable `vars[p]`.
    fn build(&mut self, codes: &[Box<[u64]>], b: usize, vars: &[Var]) -> u32 {
        if codes.is_empty() {
            return 0;
        }
        if b == vars.len() {
            return 1;
        }
        let split = codes.partition_point(|c| !code_bit(c, b));
        let low = self.build(&codes[..split], b + 1, vars);
        let high = self.build(&codes[split..], b + 1, vars);
        if low == high {
            return low;
        }
        let key = (vars[b], low, high);
        if let Some(&r) = self.unique.get(&key) {
            return r;
        }
        self.nodes.push(key);
        let r = self.nodes.len() as u32 + 1;
        self.unique.insert(key, r);
        r
    }
}
