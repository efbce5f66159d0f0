//! A small reader of KIF s-expressions for protocol messages: atoms and lists with their byte
//! spans, so that a message's rules can be handed to the GDL parser as the text they were.
//!
//! The reader is iterative (a message nested a million levels deep costs memory, never the
//! stack) and refuses nesting deeper than [`MAX_DEPTH`].

use std::fmt;
use std::ops::Range;

/// The deepest nesting of a message (GGP rules nest a few levels; the GDL parser reads the
/// rules again with its own limits).
pub const MAX_DEPTH: usize = 10_000;

/// An s-expression with the bytes of the text it was read from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sexpr {
    /// A word: a constant, a number or a variable.
    Atom(String, Range<usize>),
    /// `( ... )`.
    List(Vec<Sexpr>, Range<usize>),
}

impl Sexpr {
    /// The bytes of the text this expression spans.
    pub fn span(&self) -> Range<usize> {
        match self {
            Sexpr::Atom(_, s) | Sexpr::List(_, s) => s.clone(),
        }
    }

    /// The atom's text, lower-cased; `None` for a list.
    pub fn atom(&self) -> Option<String> {
        match self {
            Sexpr::Atom(a, _) => Some(a.to_ascii_lowercase()),
            Sexpr::List(..) => None,
        }
    }
}

impl fmt::Display for Sexpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Sexpr::Atom(a, _) => f.write_str(a),
            Sexpr::List(items, _) => {
                f.write_str("(")?;
                for (i, x) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" ")?;
                    }
                    write!(f, "{x}")?;
                }
                f.write_str(")")
            }
        }
    }
}

/// Reads exactly one s-expression from `text` (white space and `;` comments around it allowed).
pub fn parse(text: &str) -> Result<Sexpr, String> {
    let b = text.as_bytes();
    let mut i = 0;
    // Open lists: their start offsets and items.
    let mut stack: Vec<(usize, Vec<Sexpr>)> = Vec::new();
    let mut done: Option<Sexpr> = None;
    loop {
        i = skip_blank(b, i);
        if i >= b.len() {
            break;
        }
        if done.is_some() && stack.is_empty() {
            return Err(format!("unexpected text after the message at byte {i}"));
        }
        let item = match b[i] {
            b'(' => {
                if stack.len() >= MAX_DEPTH {
                    return Err(format!("nested deeper than {MAX_DEPTH} levels"));
                }
                stack.push((i, Vec::new()));
                i += 1;
                continue;
            }
            b')' => {
                let (start, items) = stack
                    .pop()
                    .ok_or_else(|| format!("unbalanced `)` at byte {i}"))?;
                i += 1;
                Sexpr::List(items, start..i)
            }
            _ => {
                let start = i;
                while i < b.len() && !is_delimiter(b[i]) {
                    i += 1;
                }
                Sexpr::Atom(text[start..i].to_string(), start..i)
            }
        };
        match stack.last_mut() {
            Some((_, items)) => items.push(item),
            None => done = Some(item),
        }
    }
    if !stack.is_empty() {
        return Err(format!("{} unclosed `(`", stack.len()));
    }
    done.ok_or_else(|| "an empty message".to_string())
}

fn is_delimiter(c: u8) -> bool {
    c.is_ascii_whitespace() || c == b'(' || c == b')' || c == b';'
}

/// The first byte at or after `i` that is neither white space nor in a comment.
fn skip_blank(b: &[u8], mut i: usize) -> usize {
    while i < b.len() {
        if b[i].is_ascii_whitespace() {
            i += 1;
        } else if b[i] == b';' {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else {
            break;
        }
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_atoms_and_spans() {
        let text = " (play m1 ((mark 1 1) noop)) ; comment\n";
        let e = parse(text).unwrap();
        let Sexpr::List(items, span) = &e else {
            panic!("not a list: {e:?}");
        };
        assert_eq!(&text[span.clone()], "(play m1 ((mark 1 1) noop))");
        assert_eq!(items[0].atom().as_deref(), Some("play"));
        assert_eq!(&text[items[2].span()], "((mark 1 1) noop)");
        assert_eq!(items[2].to_string(), "((mark 1 1) noop)");
    }

    #[test]
    fn bad_messages_are_errors() {
        for bad in ["", "   ", "(a", "a)", "(a))", "(a) (b)", "x y"] {
            assert!(parse(bad).is_err(), "{bad:?} parsed");
        }
        let deep = "(".repeat(1_000_000) + &")".repeat(1_000_000);
        assert!(parse(&deep).unwrap_err().contains("nested deeper"));
        assert_eq!(parse("NIL").unwrap().atom().as_deref(), Some("nil"));
    }
}
