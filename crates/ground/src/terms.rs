//! Interned ground terms, and printable ground terms for the ground game.

use std::collections::{HashMap, HashSet};
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

/// A hash map with [`FxHasher`].
pub(crate) type FxHashMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;
/// A hash set with [`FxHasher`].
pub(crate) type FxHashSet<K> = HashSet<K, BuildHasherDefault<FxHasher>>;
use symgame_gdl::{Sym, Symbols};

/// An interned ground term.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub(crate) struct TermId(pub u32);

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) enum TermNode {
    Const(Sym),
    Func(Sym, Box<[TermId]>),
}

/// Hash-consed store of ground terms.
#[derive(Default)]
pub(crate) struct TermStore {
    nodes: Vec<TermNode>,
    ids: FxHashMap<TermNode, TermId>,
}

impl TermStore {
    pub fn intern(&mut self, n: TermNode) -> TermId {
        if let Some(&t) = self.ids.get(&n) {
            return t;
        }
        let t = TermId(self.nodes.len() as u32);
        self.nodes.push(n.clone());
        self.ids.insert(n, t);
        t
    }

    /// The id of `n` if it has been interned.
    pub fn lookup(&self, n: &TermNode) -> Option<TermId> {
        self.ids.get(n).copied()
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
        let t = parse_term(&toks, &mut pos)?;
        if pos != toks.len() {
            return Err(format!("unexpected `{}` after the term", toks[pos]));
        }
        Ok(t)
    }

    /// Parses a sequence of ground terms separated by white space, e.g. `(mark 1 1) noop`.
    pub fn parse_sequence(text: &str) -> Result<Vec<GroundTerm>, String> {
        let toks = tokens(text);
        let mut pos = 0;
        let mut out = Vec::new();
        while pos < toks.len() {
            out.push(parse_term(&toks, &mut pos)?);
        }
        Ok(out)
    }
}

fn tokens(text: &str) -> Vec<String> {
    text.replace('(', " ( ")
        .replace(')', " ) ")
        .split_whitespace()
        .map(|s| s.to_ascii_lowercase())
        .collect()
}

fn parse_term(toks: &[String], pos: &mut usize) -> Result<GroundTerm, String> {
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
                    Some(_) => args.push(parse_term(toks, pos)?),
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
        s if s.starts_with('?') => Err(format!("a ground term has no variables, found `{s}`")),
        s => Ok(GroundTerm::Const(s.to_string())),
    }
}
