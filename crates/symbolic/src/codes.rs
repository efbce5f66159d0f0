//! Sets of explicit states (and of pairs of them) as BDDs, built as reduced node tables from
//! their sorted codes and imported: linear in states times bits, with no BDD operation. Used
//! by the explicit prefix ([`crate::prefix`]) and the game built from its explicit graph.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

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

/// The widest encoding whose states fit one [`Code`].
pub(crate) const MAX_CODE_BITS: u32 = 128;

/// A state as a code: bit `b` of the encoding is bit `127 - b` (so that the high word, then
/// the low word, is the word layout of [`state_code`]); for encodings of at most
/// [`MAX_CODE_BITS`] bits.
pub(crate) type Code = u128;

/// A hash of codes that mixes every bit into the low ones: `FxHash` of a code of 38 bits
/// (all in the high word, the low bits zero) put most codes in one bucket, and inserting
/// 7.6 M took minutes.
#[derive(Default)]
pub(crate) struct CodeHasher(u64);

impl Hasher for CodeHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
    }

    fn write_u128(&mut self, v: u128) {
        self.0 ^= (v >> 64) as u64 ^ (v as u64).rotate_left(29);
    }

    fn finish(&self) -> u64 {
        // The finaliser of SplitMix64.
        let mut z = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// A map keyed by codes.
pub(crate) type CodeMap<V> = HashMap<Code, V, BuildHasherDefault<CodeHasher>>;

/// A set of codes of any width, in the word layout of [`state_code`].
pub(crate) type WordCodeSet = HashSet<Box<[u64]>, BuildHasherDefault<CodeHasher>>;

/// Reads and writes state codes of one encoding.
pub(crate) struct Coder<'a> {
    enc: &'a Encoding,
    /// Per fluent, the bits its group's code sets when it is the group's true fluent.
    mask: Vec<Code>,
    /// Scratch: an assignment indexed by variable.
    values: Vec<bool>,
}

impl<'a> Coder<'a> {
    pub(crate) fn new(enc: &'a Encoding) -> Self {
        // Single-word codes only: an encoding wider than that decodes words alone.
        let width = if enc.num_bits() <= MAX_CODE_BITS {
            enc.num_fluents()
        } else {
            0
        };
        let mask = (0..width)
            .map(|f| {
                enc.fluent_literals(f)
                    .into_iter()
                    .filter(|&(_, value)| value)
                    .fold(0, |acc, (var, _)| acc | bit(var / 2))
            })
            .collect();
        Coder {
            enc,
            mask,
            values: vec![false; enc.num_vars() as usize],
        }
    }

    /// The code of explicit state `s` (a reachable state: no group broken), for encodings of
    /// at most [`MAX_CODE_BITS`] bits.
    pub(crate) fn code(&self, s: &State) -> Code {
        s.fluents().fold(0, |acc, f| acc | self.mask[f])
    }

    /// The encoding's width in bits.
    pub(crate) fn num_bits(&self) -> u32 {
        self.enc.num_bits()
    }

    /// The encoding.
    pub(crate) fn encoding(&self) -> &'a Encoding {
        self.enc
    }

    /// The explicit state of a code in the word layout of [`state_code`].
    pub(crate) fn state_of_words(&mut self, words: &[u64]) -> State {
        for b in 0..self.enc.num_bits() {
            self.values[2 * b as usize] = code_bit(words, b as usize);
        }
        self.decoded()
    }

    /// The explicit state of `code`.
    pub(crate) fn state(&mut self, code: Code) -> State {
        self.state_of_words(&[(code >> 64) as u64, code as u64])
    }

    /// The state in `values`.
    fn decoded(&self) -> State {
        let mut s = State::empty(self.enc.num_fluents());
        for f in self.enc.decode(&self.values) {
            s.insert(f);
        }
        s
    }
}

/// The code bit of encoding bit `b`.
fn bit(b: u32) -> Code {
    1 << (127 - b)
}

/// The code in the word layout of [`state_code`].
pub(crate) fn u128_words(code: Code, num_bits: u32) -> Box<[u64]> {
    let w = [(code >> 64) as u64, code as u64];
    w[..(num_bits as usize).div_ceil(64).max(1)].into()
}

/// Calls `f` with the code of every state of `nodes`, a BDD over the current-state
/// variables of an encoding of at most [`MAX_CODE_BITS`] bits.
pub(crate) fn for_each_code(nodes: &BddNodes, num_bits: u32, f: &mut impl FnMut(Code)) {
    for_each_word_code(nodes, num_bits, &mut |w| {
        f(Code::from(w[0]) << 64 | w.get(1).map_or(0, |&x| Code::from(x)))
    });
}

/// Calls `f` with the code (in the word layout of [`state_code`]) of every state of `nodes`, a
/// BDD over the current-state variables of an encoding of `num_bits` bits.
pub(crate) fn for_each_word_code(nodes: &BddNodes, num_bits: u32, f: &mut impl FnMut(&[u64])) {
    fn set(code: &mut [u64], b: u32, value: bool) {
        let (w, m) = (b as usize / 64, 1u64 << (63 - b % 64));
        if value {
            code[w] |= m;
        } else {
            code[w] &= !m;
        }
    }
    fn walk(
        nodes: &BddNodes,
        r: u32,
        b: u32,
        n: u32,
        code: &mut [u64],
        f: &mut impl FnMut(&[u64]),
    ) {
        if r == 0 {
            return;
        }
        if b == n {
            f(code);
            return;
        }
        let (var, low, high) = if r == 1 {
            (Var::MAX, r, r)
        } else {
            nodes.nodes[r as usize - 2]
        };
        let (low, high) = if var / 2 == b { (low, high) } else { (r, r) };
        set(code, b, false);
        walk(nodes, low, b + 1, n, code, f);
        set(code, b, true);
        walk(nodes, high, b + 1, n, code, f);
        set(code, b, false);
    }
    let mut code = vec![0u64; (num_bits as usize).div_ceil(64).max(1)];
    walk(nodes, nodes.root, 0, num_bits, &mut code, f);
}
