//! The joint moves of a game that can be legal together (each with the states where they
//! are), built role by role from each role's legal conditions: over all states for a game
//! compiled once ([`joint_moves`], [`joint_moves_capped`]), or within a layer
//! ([`joint_moves_where`], with the moves tried per role and a test of each condition).

use symgame_bdd::{BddEngine, BddError, BiodivineEngine, EngineConfig};
use symgame_limits::StopReason;

use crate::compile::JointMove;
use crate::error::SymbolicError;

/// The joint moves whose moves can be legal together in a state of `domain`, with the
/// states where they are (`legal[r][m]` per role and move), role by role. Stops with
/// [`SymbolicError::Stopped`] (time limit) as soon as `expired()` says so.
pub(crate) fn joint_moves<E: BddEngine>(
    e: &E,
    legal: &[Vec<E::Bdd>],
    domain: &E::Bdd,
    limit: usize,
    expired: &dyn Fn() -> bool,
) -> Result<Vec<(JointMove, E::Bdd)>, SymbolicError> {
    let all: Vec<Vec<usize>> = legal.iter().map(|ls| (0..ls.len()).collect()).collect();
    let meets = |c: &E::Bdd| Ok(!e.is_false(c));
    joint_moves_where(e, legal, &all, domain.clone(), limit, expired, meets, None)
}

/// [`joint_moves`], where no joint move's condition may have more than `max_nodes` nodes:
/// a conjunction whose operands' node counts multiply past 100 times `max_nodes` is first built
/// on a biodivine engine with that cap and `deadline` (stopped inside, see
/// [`BiodivineEngine::with_budget`]), and fails with [`BddError::Budget`] where it does not
/// fit. (A conjunction has at most the product of its operands' nodes; up to 100 times the
/// cap it is built without the check, which costs two exports and a conjunction more.) The
/// main engine's conjunction cannot be stopped once started: racer's first moves of its two
/// roles (46,645 and 28,436 nodes, over interleaved variables) were conjoined for minutes.
/// `num_vars`: the encoding's variables.
pub(crate) fn joint_moves_capped<E: BddEngine>(
    (e, num_vars): (&E, u32),
    legal: &[Vec<E::Bdd>],
    domain: &E::Bdd,
    limit: usize,
    (max_nodes, deadline): (usize, Option<std::time::Instant>),
    expired: &dyn Fn() -> bool,
) -> Result<Vec<(JointMove, E::Bdd)>, SymbolicError> {
    let check = BiodivineEngine::new(num_vars, &EngineConfig::small())?
        .with_budget(deadline, Some(max_nodes));
    let sizes: Vec<Vec<usize>> = (legal.iter())
        .map(|ls| ls.iter().map(|l| e.node_count(l)).collect())
        .collect();
    let fits = |cond: &E::Bdd, cond_nodes: usize, r: usize, m: usize| {
        if cond_nodes as f64 * sizes[r][m] as f64 <= 100.0 * max_nodes as f64 {
            return Ok(());
        }
        let a = check.import(&e.export(cond))?;
        let b = check.import(&e.export(&legal[r][m]))?;
        match check.and(&a, &b) {
            Ok(_) => Ok(()),
            Err(BddError::Budget(why)) => Err(SymbolicError::Bdd(BddError::Budget(format!(
                "a joint move's legal condition: {why}"
            )))),
            Err(err) => Err(err.into()),
        }
    };
    let all: Vec<Vec<usize>> = legal.iter().map(|ls| (0..ls.len()).collect()).collect();
    let meets = |c: &E::Bdd| Ok(!e.is_false(c));
    let start = domain.clone();
    joint_moves_where(e, legal, &all, start, limit, expired, meets, Some(&fits))
}

/// A check of `cond AND legal[role][move]` before it is built: `(cond, its node count, role,
/// move)` ([`joint_moves_capped`]).
pub(crate) type JointCheck<'a, B> =
    &'a dyn Fn(&B, usize, usize, usize) -> Result<(), SymbolicError>;

/// The joint moves of `moves` (per role, the moves tried), built role by role from `start`:
/// each with `start AND` its moves' legal conditions, kept where `meets` accepts that.
/// [`SymbolicError::Stopped`] (time limit) as soon as `expired()` says so, checked per move (a
/// role may have thousands, each an operation that may pass over a whole layer);
/// [`SymbolicError::TooManyJointMoves`] past `limit` of them. `fits`, if given, is asked
/// before each conjunction.
#[allow(clippy::too_many_arguments)]
pub(crate) fn joint_moves_where<E: BddEngine>(
    e: &E,
    legal: &[Vec<E::Bdd>],
    moves: &[Vec<usize>],
    start: E::Bdd,
    limit: usize,
    expired: &dyn Fn() -> bool,
    meets: impl Fn(&E::Bdd) -> Result<bool, SymbolicError>,
    fits: Option<JointCheck<'_, E::Bdd>>,
) -> Result<Vec<(JointMove, E::Bdd)>, SymbolicError> {
    let mut joint: Vec<(JointMove, E::Bdd)> = vec![(Vec::new(), start)];
    for (r, (ls, ms)) in legal.iter().zip(moves).enumerate() {
        let mut next = Vec::new();
        for (j, cond) in &joint {
            let cond_nodes = fits.map_or(0, |_| e.node_count(cond));
            for &m in ms {
                if expired() {
                    return Err(SymbolicError::Stopped(StopReason::TimeLimit));
                }
                if let Some(fits) = fits {
                    fits(cond, cond_nodes, r, m)?;
                }
                let c2 = e.and(cond, &ls[m])?;
                if !meets(&c2)? {
                    continue;
                }
                let mut j2 = j.clone();
                j2.push(m);
                next.push((j2, c2));
                if next.len() > limit {
                    return Err(SymbolicError::TooManyJointMoves { limit });
                }
            }
        }
        joint = next;
    }
    Ok(joint)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compile::Compiler;
    use crate::test_support::{encoded, small_engine};

    /// [`joint_moves_capped`] finds the joint moves [`joint_moves`] finds, with the same
    /// conditions, while every condition fits its cap; a conjunction past the cap, whose
    /// operands' nodes multiply past 100 times it, fails with `BddError::Budget` before the
    /// main engine builds it.
    #[test]
    fn joint_moves_capped_refuse_a_condition_past_the_cap() {
        let (game, enc) = encoded("prisoners_2p");
        let e = small_engine(&enc);
        let (comp, _) = Compiler::prepared(&e, &game, &enc, None).unwrap();
        let legal = comp.legal().unwrap();
        let all = e.constant(true);
        let want = joint_moves(&e, &legal, &all, 1000, &|| false).unwrap();
        let got = joint_moves_capped(
            (&e, enc.num_vars()),
            &legal,
            &all,
            1000,
            (1 << 20, None),
            &|| false,
        )
        .unwrap();
        assert_eq!(got, want);
        // Two roles whose only moves are legal where x0..x5 equal x12..x17, and x6..x11
        // equal x18..x23: over these interleaved variables each is about 2^7 nodes and
        // their conjunction about 2^13.
        let e = symgame_bdd::BiodivineEngine::new(24, &symgame_bdd::EngineConfig::small()).unwrap();
        let pairs = |from: u32| {
            let mut acc = e.constant(true);
            for i in from..from + 6 {
                acc = e
                    .and(&acc, &e.iff(&e.var(i), &e.var(i + 12)).unwrap())
                    .unwrap();
            }
            acc
        };
        let legal = vec![vec![pairs(0)], vec![pairs(6)]];
        let all = e.constant(true);
        let free = joint_moves_capped((&e, 24), &legal, &all, 10, (1 << 20, None), &|| false);
        assert_eq!(free.unwrap().len(), 1);
        let capped = joint_moves_capped((&e, 24), &legal, &all, 10, (100, None), &|| false);
        assert!(
            matches!(capped, Err(SymbolicError::Bdd(BddError::Budget(_)))),
            "{capped:?}"
        );
    }
}
