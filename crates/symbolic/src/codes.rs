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
    let codes: Vec<Box<[u64]>> = states.iter().filter_map(|f| fluents_code(enc, f)).collect();
    let vars: Vec<Var> = (0..enc.num_bits()).map(Encoding::current_bit_var).collect();
    NodeTable::of_codes(codes, &vars).0.nodes.len()
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
    codes: Vec<Box<[u64]>>,
    budget: &mut usize,
) -> BddResult<E::Bdd> {
    let (table, root) = NodeTable::of_codes(codes, vars);
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

/// The shortest part of a chain (positions within one word of a code) that
/// [`NodeTable::chain`] looks up whole.
const CHAIN_LOOKUP_BITS: usize = 32;

/// A reduced node table under construction: references as in [`BddNodes`] (0 false, 1 true,
/// `k + 2` the node `nodes[k]`).
#[derive(Default)]
struct NodeTable {
    nodes: Vec<(Var, u32, u32)>,
    unique: FxHashMap<(Var, u32, u32), u32>,
    /// While building: the chains made, by their positions, the node below them and their
    /// bits ([`Self::chain`]).
    chains: FxHashMap<(u32, u32, u32, u64), u32>,
    /// The lookups of [`Self::chains`] so far, and how many found their chain.
    chain_lookups: usize,
    chain_hits: usize,
}

impl NodeTable {
    /// The table of the set of `codes` over `vars` (position `p` being variable `vars[p]`),
    /// and its root.
    ///
    /// The walk over the sorted codes makes a node per position of each code below its last
    /// split from the others, so its long chains are looked up a word at a time
    /// ([`Self::chain`]): the explicit graph of pancakes6 (26,225 states, 152,826 edges over
    /// 726 bits) went from 14.1 s to 1.6 s.
    fn of_codes(mut codes: Vec<Box<[u64]>>, vars: &[Var]) -> (NodeTable, u32) {
        codes.sort_unstable();
        codes.dedup();
        // One flat array: the walk below reads codes by binary search, and boxes scattered
        // over the heap made each read a cache miss.
        let words = codes.first().map_or(1, |c| c.len());
        let mut flat = Vec::with_capacity(codes.len() * words);
        for c in codes {
            flat.extend_from_slice(&c);
        }
        let mut table = NodeTable::default();
        // Positions, not variables, until the end.
        let root = table.build(&flat, words, 0, vars.len());
        for node in &mut table.nodes {
            node.0 = vars[node.0 as usize];
        }
        (table, root)
    }

    /// The reference of the set of `codes` (sorted, distinct, `words` words each, equal in
    /// the positions before `b`) over the positions from `b` on (before `end`).
    ///
    /// The positions where the first and the last code agree are shared by every code between
    /// them (they are sorted): such a run becomes a chain of nodes over the set below it, with
    /// no search; a single code is one such run.
    fn build(&mut self, codes: &[u64], words: usize, b: usize, end: usize) -> u32 {
        let n = codes.len() / words;
        if n == 0 {
            return 0;
        }
        if b == end {
            return 1;
        }
        let first = &codes[..words];
        let last = &codes[(n - 1) * words..];
        let d = first_difference(first, last, b, end);
        if d > b {
            let below = self.build(codes, words, d, end);
            return self.chain(first, b, d, below);
        }
        // The first code has a 0 at `b`, the last a 1: the first with a 1 splits them.
        let (mut lo, mut hi) = (1, n - 1);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if code_bit(&codes[mid * words..], b) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        let low = self.build(&codes[..lo * words], words, b + 1, end);
        let high = self.build(&codes[lo * words..], words, b + 1, end);
        self.node(b as Var, low, high)
    }

    /// The reference of the chain of nodes over the positions from `b` to `d` (before `d`),
    /// each taking its value in `code`, above `below`.
    ///
    /// The chains of a set share their long runs (the codes of pancakes6 have 720 one-hot
    /// bits, each run of zeros below its one a chain of hundreds of nodes, made by every code
    /// whose last split lies above it): each part of a chain within one word of the code is
    /// looked up whole, by its bits and the node below it, and only a new one is made node by
    /// node. A part of fewer than [`CHAIN_LOOKUP_BITS`] positions is made node by node at once,
    /// and so is every part once fewer than one lookup in eight has found its chain: looking
    /// parts up and keeping them cost more than they save where chains are not shared
    /// (queens08lg's 139,218 known states, as sets for the automatic order: 0.35 s node by
    /// node, 0.7 s with every part looked up).
    fn chain(&mut self, code: &[u64], b: usize, d: usize, below: u32) -> u32 {
        let mut r = below;
        let mut top = d;
        while top > b {
            let lo = b.max((top - 1) / 64 * 64);
            let w = lo / 64;
            // The part's bits of `code`, the others zero.
            let width = top - lo;
            let shift = 64 - (lo % 64) - width;
            let mask = (u64::MAX >> (64 - width)) << shift;
            let key = (lo as u32, top as u32, r, code[w] & mask);
            // Looked up while lookups pay: a set whose chains are not shared stops soon.
            let lookup = width >= CHAIN_LOOKUP_BITS
                && (self.chain_lookups < 4096 || self.chain_hits * 8 >= self.chain_lookups);
            let known = match lookup {
                false => None,
                true => {
                    self.chain_lookups += 1;
                    let known = self.chains.get(&key).copied();
                    self.chain_hits += usize::from(known.is_some());
                    known
                }
            };
            r = match known {
                Some(known) => known,
                None => {
                    let mut made = r;
                    for p in (lo..top).rev() {
                        made = match code_bit(code, p) {
                            true => self.node(p as Var, 0, made),
                            false => self.node(p as Var, made, 0),
                        };
                    }
                    if lookup {
                        self.chains.insert(key, made);
                    }
                    made
                }
            };
            top = lo;
        }
        r
    }

    /// The reference of the node `(var, low, high)`, made if new (reduced: none when `low`
    /// and `high` are the same).
    fn node(&mut self, var: Var, low: u32, high: u32) -> u32 {
        if low == high {
            return low;
        }
        let nodes = &mut self.nodes;
        *self.unique.entry((var, low, high)).or_insert_with(|| {
            nodes.push((var, low, high));
            nodes.len() as u32 + 1
        })
    }
}

/// The first position from `b` on (before `end`) where codes `a` and `z` differ; `end` if none.
fn first_difference(a: &[u64], z: &[u64], b: usize, end: usize) -> usize {
    let mut i = b / 64;
    let mut x = (a[i] ^ z[i]) & (u64::MAX >> (b % 64));
    loop {
        if x != 0 {
            return (i * 64 + x.leading_zeros() as usize).min(end);
        }
        i += 1;
        if i >= a.len() || i * 64 >= end {
            return end;
        }
        x = a[i] ^ z[i];
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
    /// Per fluent, its group and the encoding bits its group's code sets (for
    /// [`Self::words_of`]).
    fluent_bits: Vec<(u32, Box<[u32]>)>,
    /// Per group, whether it is an exactly-one group; and how many there are.
    exactly_one: Vec<bool>,
    num_exactly_one: usize,
    /// Scratch of [`Self::words_of`]: per group, the call that last set it.
    stamp: Vec<u32>,
    call: u32,
}

impl<'a> Coder<'a> {
    pub(crate) fn new(enc: &'a Encoding) -> Self {
        let fluent_bits: Vec<(u32, Box<[u32]>)> = (0..enc.num_fluents())
            .map(|f| {
                let bits = enc
                    .fluent_literals(f)
                    .into_iter()
                    .filter(|&(_, value)| value)
                    .map(|(var, _)| var / 2)
                    .collect();
                (enc.group_of_fluent(f).0 as u32, bits)
            })
            .collect();
        // Single-word codes only: an encoding wider than that decodes words alone.
        let mask = match enc.num_bits() <= MAX_CODE_BITS {
            true => (fluent_bits.iter())
                .map(|(_, bits)| bits.iter().fold(0, |acc, &b| acc | bit(b)))
                .collect(),
            false => Vec::new(),
        };
        let exactly_one: Vec<bool> = enc.fluent_groups().iter().map(|g| g.exactly_one).collect();
        Coder {
            enc,
            mask,
            values: vec![false; enc.num_vars() as usize],
            fluent_bits,
            num_exactly_one: exactly_one.iter().filter(|&&x| x).count(),
            stamp: vec![0; exactly_one.len()],
            exactly_one,
            call: 0,
        }
    }

    /// [`state_code`] of `s`, without building its literals: the bits of each true fluent's
    /// group code set directly.
    pub(crate) fn words_of(&mut self, s: &State) -> Option<Box<[u64]>> {
        self.call = self.call.wrapping_add(1);
        if self.call == 0 {
            self.stamp.fill(0);
            self.call = 1;
        }
        let words = (self.enc.num_bits() as usize).div_ceil(64).max(1);
        let mut code = vec![0u64; words].into_boxed_slice();
        let mut hit = 0;
        for f in s.fluents() {
            let (g, bits) = &self.fluent_bits[f];
            let g = *g as usize;
            // Two true fluents of one group: no code.
            if self.stamp[g] == self.call {
                return None;
            }
            self.stamp[g] = self.call;
            hit += usize::from(self.exactly_one[g]);
            for &b in bits.iter() {
                code[b as usize / 64] |= 1 << (63 - b % 64);
            }
        }
        (hit == self.num_exactly_one).then_some(code)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::encoded;
    use symgame_explicit::{for_each_joint_move, MoveId, Reasoner};

    /// The BDD built from codes is the union of their cubes, node for node: random sets of
    /// codes over 1 to 3 words (runs of shared bits, single codes, splits across words, most
    /// positions constant, one-hot like codes), at positions that are every variable or every
    /// other one.
    #[test]
    fn codes_bdd_is_the_union_of_the_cubes() {
        use symgame_bdd::{BddEngine, BiodivineEngine, EngineConfig};
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for round in 0..90 {
            let bits = [5usize, 64, 70, 130, 150][round % 5];
            let words = bits.div_ceil(64);
            let e = BiodivineEngine::new(2 * bits as u32 + 1, &EngineConfig::small()).unwrap();
            let vars: Vec<Var> = match round % 2 {
                0 => (0..bits as u32).collect(),
                _ => (0..bits as u32).map(|b| 2 * b + 1).collect(),
            };
            // Codes near a random base: most bits shared, a few flipped; or (every third
            // round) near zero, one-hot like, so that long runs of zeros cross words.
            let base: Vec<u64> = match round % 3 {
                2 => vec![0; words],
                _ => (0..words).map(|_| next()).collect(),
            };
            let n = 1 + next() as usize % 40;
            let mut codes = Vec::new();
            for _ in 0..n {
                let mut c = base.clone();
                for _ in 0..(next() % 6) {
                    let b = next() as usize % bits;
                    c[b / 64] ^= 1 << (63 - b % 64);
                }
                // Bits past the last position are zero in every code.
                if !bits.is_multiple_of(64) {
                    c[words - 1] &= !(u64::MAX >> (bits % 64));
                }
                codes.push(c.into_boxed_slice());
            }
            let mut unbounded = usize::MAX;
            let built = codes_bdd(&e, &vars, codes.clone(), &mut unbounded).unwrap();
            let mut union = e.constant(false);
            for c in &codes {
                let lits: Vec<(Var, bool)> = (0..bits).map(|b| (vars[b], code_bit(c, b))).collect();
                union = e.or(&union, &e.cube(&lits).unwrap()).unwrap();
            }
            assert_eq!(built, union, "round {round}");
            assert_eq!(e.node_count(&built), e.node_count(&union), "round {round}");
        }
    }

    /// [`Coder::words_of`] gives the code [`state_code`] gives: on the states of random
    /// playouts, and on sets that break a group (two fluents of one group, or a state missing
    /// an exactly-one group's fluent), which have none.
    #[test]
    fn words_of_agrees_with_state_code() {
        for name in ["tictactoe", "connect4_5x4", "eight_puzzle", "prisoners_2p"] {
            let game = encoded(name).0;
            let enc = Encoding::compact(&game, crate::options::Order::Heuristic);
            let grouped = enc.fluent_groups().iter().filter(|g| g.fluents.len() > 1);
            assert!(grouped.count() > 0, "{name}: no group to break");
            let mut coder = Coder::new(&enc);
            let r = Reasoner::new(&game);
            let mut seed = 0x9e37_79b9_7f4a_7c15u64;
            let mut checked = 0;
            for _ in 0..20 {
                let mut s = r.initial_state();
                for _ in 0..40 {
                    if r.is_terminal(&s) {
                        break;
                    }
                    assert_eq!(coder.words_of(&s), state_code(&enc, &s), "{name}");
                    checked += 1;
                    // Every fluent toggled once: broken or not, both agree.
                    for f in 0..enc.num_fluents() {
                        let mut t = s.clone();
                        if t.contains(f) {
                            t.remove(f);
                        } else {
                            t.insert(f);
                        }
                        assert_eq!(coder.words_of(&t), state_code(&enc, &t), "{name} {f}");
                    }
                    let mut legal: Vec<Vec<MoveId>> = vec![Vec::new(); r.num_roles()];
                    for (role, l) in legal.iter_mut().enumerate() {
                        r.legal_moves_into(&s, role, l);
                    }
                    let mut joints = Vec::new();
                    for_each_joint_move(&legal, |j| {
                        joints.push(j.to_vec());
                        true
                    });
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    s = r.next_state(&s, &joints[seed as usize % joints.len()]);
                }
            }
            assert!(checked > 20, "{name}");
        }
    }
}
