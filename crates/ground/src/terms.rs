//! Interned ground terms, and printable ground terms for the ground game.

use std::collections::HashMap;
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};

/// The multiply-rotate hash of rustc (FxHash): grounding hashes small integer keys millions of
/// times, where the standard SipHash costs a fifth of the run time.
#[derive(Default, Clone, Copy)]
pub(crate) struct FxHasher {
    hash: u64,
}

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        for &b in chunks.remainder() {
            self.add(b as u64);
        }
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(i as u64);
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(i as u64);
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.hash
    }
}

/// The heads of hash chains: for each hash, the newest entry with that hash (entries keep a
/// link to the previous one themselves). Open addressing over 8-byte slots, so that a lookup
/// in a table of millions of entries costs one cache miss; different hashes that agree on 32
/// bits share a chain, which callers tolerate (they compare the entries).
#[derive(Default, Clone)]
pub(crate) struct ChainHeads {
    /// (hash tag, entry); entry `u32::MAX` marks an empty slot
    slots: Vec<(u32, u32)>,
    len: usize,
    /// number of slots = 1 << bits
    bits: u32,
}

const EMPTY: u32 = u32::MAX;

impl ChainHeads {
    /// The home slot of a tag (Fibonacci hashing).
    fn slot(&self, tag: u32) -> usize {
        ((tag as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - self.bits)) as usize
    }

    fn tag(h: u64) -> u32 {
        (h ^ (h >> 32)) as u32
    }

    /// The slot of `tag`: the one holding it, or else the empty one where it goes.
    #[inline]
    fn probe(&self, tag: u32) -> usize {
        let mask = self.slots.len() - 1;
        let mut i = self.slot(tag);
        while self.slots[i].1 != EMPTY && self.slots[i].0 != tag {
            i = (i + 1) & mask;
        }
        i
    }

    /// The newest entry with hash `h`, if any.
    #[inline]
    pub fn get(&self, h: u64) -> Option<u32> {
        if self.len == 0 {
            return None;
        }
        let (_, e) = self.slots[self.probe(Self::tag(h))];
        (e != EMPTY).then_some(e)
    }

    /// Makes `entry` the newest entry with hash `h`; returns the previous newest.
    #[inline]
    pub fn insert(&mut self, h: u64, entry: u32) -> Option<u32> {
        debug_assert_ne!(entry, EMPTY);
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let tag = Self::tag(h);
        let i = self.probe(tag);
        let (_, prev) = std::mem::replace(&mut self.slots[i], (tag, entry));
        if prev == EMPTY {
            self.len += 1;
            return None;
        }
        Some(prev)
    }

    fn grow(&mut self) {
        let bits = (self.bits + 1).max(4);
        let old = std::mem::replace(&mut self.slots, vec![(0, EMPTY); 1 << bits]);
        self.bits = bits;
        for (t, e) in old {
            if e != EMPTY {
                // tags are unique in the table: the probe ends at an empty slot
                let i = self.probe(t);
                self.slots[i] = (t, e);
            }
        }
    }
}

/// A hash map with [`FxHasher`].
pub(crate) type FxHashMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;
use symgame_gdl::{Sym, Symbols};

/// An interned ground term.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub(crate) struct TermId(pub u32);

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) enum TermNode {
    Const(Sym),
    Func(Sym, Box<[TermId]>),
}

/// Calls `f` with a buffer of `n` term ids, kept on the stack when `n <= N`.
#[inline]
pub(crate) fn with_ids<const N: usize, R>(n: usize, f: impl FnOnce(&mut [TermId]) -> R) -> R {
    let mut small = [TermId(0); N];
    if n <= N {
        f(&mut small[..n])
    } else {
        f(&mut vec![TermId(0); n])
    }
}

/// Hash-consed store of ground terms.
#[derive(Default)]
pub(crate) struct TermStore {
    nodes: Vec<TermNode>,
    /// node hash -> newest node with that hash; `chain[i]` is the previous one
    heads: ChainHeads,
    chain: Vec<u32>,
}

fn node_hash(n: &TermNode) -> u64 {
    let mut h = FxHasher::default();
    match n {
        TermNode::Const(c) => {
            h.write_u32(0);
            h.write_u32(c.0);
        }
        TermNode::Func(f, args) => func_hash(&mut h, *f, args),
    }
    h.finish()
}

fn func_hash(h: &mut FxHasher, f: Sym, args: &[TermId]) {
    h.write_u32(1 + args.len() as u32);
    h.write_u32(f.0);
    for a in args {
        h.write_u32(a.0);
    }
}

impl TermStore {
    pub fn intern(&mut self, n: TermNode) -> TermId {
        let h = node_hash(&n);
        if let Some(t) = self.find(h, |m| *m == n) {
            return t;
        }
        self.push(h, n)
    }

    fn find(&self, h: u64, same: impl Fn(&TermNode) -> bool) -> Option<TermId> {
        let mut i = self.heads.get(h)?;
        while i != u32::MAX {
            if same(&self.nodes[i as usize]) {
                return Some(TermId(i));
            }
            i = self.chain[i as usize];
        }
        None
    }

    fn push(&mut self, h: u64, n: TermNode) -> TermId {
        let t = self.nodes.len() as u32;
        self.nodes.push(n);
        let prev = self.heads.insert(h, t).unwrap_or(u32::MAX);
        self.chain.push(prev);
        TermId(t)
    }

    /// The id of the function term `f(args)`, interned if new (allocating only then).
    pub fn intern_func(&mut self, f: Sym, args: &[TermId]) -> TermId {
        let (h, found) = self.find_func(f, args);
        match found {
            Some(t) => t,
            None => self.push(h, TermNode::Func(f, args.into())),
        }
    }

    /// The id of the function term `f(args)` if it has been interned.
    pub fn lookup_func(&self, f: Sym, args: &[TermId]) -> Option<TermId> {
        self.find_func(f, args).1
    }

    /// The hash of the function term `f(args)` and its id if it has been interned.
    #[inline]
    fn find_func(&self, f: Sym, args: &[TermId]) -> (u64, Option<TermId>) {
        let mut h = FxHasher::default();
        func_hash(&mut h, f, args);
        let h = h.finish();
        let found = self.find(
            h,
            |m| matches!(m, TermNode::Func(g, xs) if *g == f && **xs == *args),
        );
        (h, found)
    }

    pub fn node(&self, t: TermId) -> &TermNode {
        &self.nodes[t.0 as usize]
    }

    /// The subterm at `path` (argument indexes, outermost first), if the term has that shape.
    pub fn at_path(&self, mut t: TermId, path: &[u8]) -> Option<TermId> {
        for &i in path {
            match self.node(t) {
                TermNode::Func(_, args) if (i as usize) < args.len() => t = args[i as usize],
                _ => return None,
            }
        }
        Some(t)
    }

    /// A printable copy of `t`.
    pub fn to_ground(&self, t: TermId, symbols: &Symbols) -> GroundTerm {
        match self.node(t) {
            TermNode::Const(s) => GroundTerm::Const(symbols.name(*s).to_string()),
            TermNode::Func(f, args) => GroundTerm::Func(
                symbols.name(*f).to_string(),
                args.iter().map(|&a| self.to_ground(a, symbols)).collect(),
            ),
        }
    }

    /// `t` as written in GDL.
    pub fn show(&self, t: TermId, symbols: &Symbols) -> String {
        self.to_ground(t, symbols).to_string()
    }

    /// If `t` is a constant, its symbol.
    pub fn as_const(&self, t: TermId) -> Option<Sym> {
        match self.node(t) {
            TermNode::Const(s) => Some(*s),
            TermNode::Func(..) => None,
        }
    }
}

/// A ground term as written in GDL: a constant or a function applied to ground terms.
#[derive(
    Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug, serde::Serialize, serde::Deserialize,
)]
pub enum GroundTerm {
    /// A constant (names are lower-case).
    Const(String),
    /// A compound term `(f t1 ... tn)`.
    Func(String, Vec<GroundTerm>),
}

impl fmt::Display for GroundTerm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GroundTerm::Const(c) => write!(f, "{c}"),
            GroundTerm::Func(g, args) => {
                write!(f, "({g}")?;
                for a in args {
                    write!(f, " {a}")?;
                }
                write!(f, ")")
            }
        }
    }
}

impl GroundTerm {
    /// Parses a ground term in KIF syntax (case-insensitive), e.g. `(cell 1 1 x)`.
    pub fn parse(text: &str) -> Result<GroundTerm, String> {
        let toks = tokens(text);
        let mut pos = 0;
        let t = parse_term(&toks, &mut pos, Variables::Refused)?;
        if pos != toks.len() {
            return Err(format!("unexpected `{}` after the term", toks[pos]));
        }
        Ok(t)
    }

    /// Parses a sequence of ground terms separated by white space, e.g. `(mark 1 1) noop`.
    pub fn parse_sequence(text: &str) -> Result<Vec<GroundTerm>, String> {
        parse_terms(text, Variables::Refused)
    }

    /// Parses a sequence of terms that may hold variables, e.g. `(cell ?r ?c 0) step`, as
    /// patterns are written: a variable is kept as the constant of its name (`?r`).
    pub fn parse_pattern_sequence(text: &str) -> Result<Vec<GroundTerm>, String> {
        parse_terms(text, Variables::AsConstants)
    }
}

/// Whether a term being parsed may hold variables (`?x`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Variables {
    /// A ground term: a variable is an error.
    Refused,
    /// A pattern: a variable is kept as a constant of its name.
    AsConstants,
}

fn parse_terms(text: &str, variables: Variables) -> Result<Vec<GroundTerm>, String> {
    let toks = tokens(text);
    let mut pos = 0;
    let mut out = Vec::new();
    while pos < toks.len() {
        out.push(parse_term(&toks, &mut pos, variables)?);
    }
    Ok(out)
}

fn tokens(text: &str) -> Vec<String> {
    text.replace('(', " ( ")
        .replace(')', " ) ")
        .split_whitespace()
        .map(|s| s.to_ascii_lowercase())
        .collect()
}

fn parse_term(
    toks: &[String],
    pos: &mut usize,
    variables: Variables,
) -> Result<GroundTerm, String> {
    let Some(t) = toks.get(*pos) else {
        return Err("expected a term, found the end of the text".into());
    };
    *pos += 1;
    match t.as_str() {
        "(" => {
            let Some(name) = toks.get(*pos) else {
                return Err("expected a function name after `(`".into());
            };
            if name == "(" || name == ")" {
                return Err(format!("expected a function name, found `{name}`"));
            }
            *pos += 1;
            let mut args = Vec::new();
            loop {
                match toks.get(*pos).map(String::as_str) {
                    Some(")") => {
                        *pos += 1;
                        break;
                    }
                    Some(_) => args.push(parse_term(toks, pos, variables)?),
                    None => return Err("unbalanced parenthesis".into()),
                }
            }
            Ok(if args.is_empty() {
                GroundTerm::Const(name.clone())
            } else {
                GroundTerm::Func(name.clone(), args)
            })
        }
        ")" => Err("unexpected `)`".into()),
        s if s.starts_with('?') && variables == Variables::Refused => {
            Err(format!("a ground term has no variables, found `{s}`"))
        }
        s => Ok(GroundTerm::Const(s.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::GroundTerm;

    #[test]
    fn variables_only_in_patterns() {
        let text = "(cell ?r 1) step";
        assert!(GroundTerm::parse_sequence(text).is_err());
        let terms = GroundTerm::parse_pattern_sequence(text).unwrap();
        let shown: Vec<String> = terms.iter().map(|t| t.to_string()).collect();
        assert_eq!(shown, ["(cell ?r 1)", "step"]);
    }
}
