//! Pattern specifications as users write them: group indexes, relation names, and terms with
//! `?x` wildcards ([`parse_pattern`]).

use std::collections::HashSet;

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
    let items = GroundTerm::parse_pattern_sequence(spec).map_err(PlanError::BadPattern)?;
    if items.is_empty() {
        return Err(PlanError::BadPattern("the pattern is empty".into()));
    }
    let mut chosen = HashSet::new();
    for item in &items {
        if let GroundTerm::Const(a) = item {
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
            if matches_fluent(item, t) {
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

/// Whether the pattern item `item` selects the fluent `t`: a bare name selects a relation, a
/// term matches by argument prefix ([`matches`]).
fn matches_fluent(item: &GroundTerm, t: &GroundTerm) -> bool {
    match (item, t) {
        (GroundTerm::Const(a), GroundTerm::Const(c)) => a == c,
        (GroundTerm::Const(a), GroundTerm::Func(n, _)) => a == n,
        (GroundTerm::Func(..), _) => matches(item, t),
    }
}

/// Whether the pattern argument `item` matches `t`: `?x` matches anything; a term matches a
/// term with the same name and at least as many arguments, argument by argument.
fn matches(item: &GroundTerm, t: &GroundTerm) -> bool {
    match (item, t) {
        (GroundTerm::Const(a), _) if a.starts_with('?') => true,
        (GroundTerm::Const(a), GroundTerm::Const(c)) => a == c,
        (GroundTerm::Func(n, args), GroundTerm::Func(m, targs)) => {
            n == m
                && args.len() <= targs.len()
                && args.iter().zip(targs).all(|(x, y)| matches(x, y))
        }
        _ => false,
    }
}
