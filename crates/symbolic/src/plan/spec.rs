//! Pattern specifications as users write them: group indexes, relation names, and terms with
//! `?x` wildcards ([`parse_pattern`]).

use std::collections::HashSet;
use std::fmt;

use symgame_ground::{GroundGame, GroundTerm};

use crate::encoding::Encoding;
use crate::plan::problem::PlanError;

/// Resolves a pattern specification to group indexes. The specification is a sequence of
/// items separated by white space: a bare number is a group index; a bare name selects every
/// fluent of that relation (`on` selects `(on 1 left)`, ...); a term selects the fluents it
/// matches, where `?x` matches any argument and missing trailing arguments match anything
/// (`(cell ?r ?c 0)`: every cell fluent with last argument 0; `(cell 1)`: every cell fluent of
/// row 1). A selected fluent brings its whole group.
pub fn parse_pattern(
    game: &GroundGame,
    enc: &Encoding,
    spec: &str,
) -> Result<Vec<usize>, PlanError> {
    let groups = enc.groups();
    let mut group_of = vec![0usize; enc.num_fluents()];
    for (i, grp) in groups.iter().enumerate() {
        for &f in grp {
            group_of[f] = i;
        }
    }
    let items = parse_items(spec).map_err(PlanError::BadPattern)?;
    if items.is_empty() {
        return Err(PlanError::BadPattern("the pattern is empty".into()));
    }
    let mut chosen = HashSet::new();
    for item in &items {
        if let Item::Atom(a) = item {
            if let Ok(i) = a.parse::<usize>() {
                if i >= groups.len() {
                    return Err(PlanError::BadPattern(format!(
                        "group {i} does not exist (the game has {} groups)",
                        groups.len()
                    )));
                }
                chosen.insert(i);
                continue;
            }
        }
        let mut any = false;
        for (f, t) in game.fluents.iter().enumerate() {
            if item.matches_fluent(t) {
                any = true;
                chosen.insert(group_of[f]);
            }
        }
        if !any {
            return Err(PlanError::BadPattern(format!("{item} matches no fluent")));
        }
    }
    let mut out: Vec<usize> = chosen.into_iter().collect();
    out.sort_unstable();
    Ok(out)
}

/// A pattern item: a name or variable, or a compound term.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Item {
    Atom(String),
    Func(String, Vec<Item>),
}

impl fmt::Display for Item {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Item::Atom(a) => write!(f, "{a}"),
            Item::Func(n, args) => {
                write!(f, "({n}")?;
                for a in args {
                    write!(f, " {a}")?;
                }
                write!(f, ")")
            }
        }
    }
}

impl Item {
    /// As a top-level item: a bare name selects a relation, a term matches by argument prefix.
    fn matches_fluent(&self, t: &GroundTerm) -> bool {
        match (self, t) {
            (Item::Atom(a), GroundTerm::Const(c)) => a == c,
            (Item::Atom(a), GroundTerm::Func(n, _)) => a == n,
            (Item::Func(..), _) => self.matches(t),
        }
    }

    /// As an argument: `?x` matches anything; a term matches a term with the same name and
    /// at least as many arguments, argument by argument.
    fn matches(&self, t: &GroundTerm) -> bool {
        match (self, t) {
            (Item::Atom(a), _) if a.starts_with('?') => true,
            (Item::Atom(a), GroundTerm::Const(c)) => a == c,
            (Item::Func(n, args), GroundTerm::Func(m, targs)) => {
                n == m
                    && args.len() <= targs.len()
                    && args.iter().zip(targs).all(|(x, y)| x.matches(y))
            }
            _ => false,
        }
    }
}

fn parse_items(text: &str) -> Result<Vec<Item>, String> {
    let toks: Vec<String> = text
        .replace('(', " ( ")
        .replace(')', " ) ")
        .split_whitespace()
        .map(|s| s.to_ascii_lowercase())
        .collect();
    let mut pos = 0;
    let mut out = Vec::new();
    while pos < toks.len() {
        out.push(parse_item(&toks, &mut pos)?);
    }
    Ok(out)
}

fn parse_item(toks: &[String], pos: &mut usize) -> Result<Item, String> {
    let t = toks.get(*pos).ok_or("unexpected end of the pattern")?;
    *pos += 1;
    match t.as_str() {
        "(" => {
            let name = toks
                .get(*pos)
                .filter(|n| *n != "(" && *n != ")")
                .ok_or("expected a name after `(`")?
                .clone();
            *pos += 1;
            let mut args = Vec::new();
            loop {
                match toks.get(*pos).map(String::as_str) {
                    Some(")") => {
                        *pos += 1;
                        break;
                    }
                    Some(_) => args.push(parse_item(toks, pos)?),
                    None => return Err("unbalanced parenthesis in the pattern".into()),
                }
            }
            Ok(if args.is_empty() {
                Item::Atom(name)
            } else {
                Item::Func(name, args)
            })
        }
        ")" => Err("unexpected `)` in the pattern".into()),
        s => Ok(Item::Atom(s.to_string())),
    }
}
