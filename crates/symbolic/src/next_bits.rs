//! What the current joint move of a [`Compiler`] does to the encoded state: the next function
//! of every bit it touches ([`next_bit_functions`]) and, for assumed groups, the states where it
//! breaks one ([`group_violation`]).

use symgame_bdd::{BddEngine, BddResult};
use symgame_ground::GroundGame;

use crate::compile::Compiler;
use crate::disjunction::{reduce_balanced, SizeWatch};
use crate::encoding::Encoding;

/// The next function of every bit the current joint move of `comp` touches (whose next value
/// is not its current value), ascending by bit. A group's bit `i` is next true iff a fluent
/// whose code has bit `i` set is next true (at most one is, by the group invariant).
pub(crate) fn next_bit_functions<E: BddEngine>(
    e: &E,
    enc: &Encoding,
    comp: &Compiler<'_, E>,
    game: &GroundGame,
) -> BddResult<Vec<(u32, E::Bdd)>> {
    let mut out = Vec::new();
    for (g, group) in enc.fluent_groups().iter().enumerate() {
        if !group.fluents.iter().any(|&f| comp.next_may_change(f)) {
            continue;
        }
        comp.check_deadline()?;
        let mut nfs = Vec::with_capacity(group.fluents.len());
        let mut changed = false;
        for &f in &group.fluents {
            let nf = comp.lit(game.next[f])?;
            changed |= !comp.same(&nf, comp.fluent(f));
            nfs.push(nf);
        }
        if !changed {
            continue;
        }
        let bits = enc.group_bits(g);
        let width = bits.len() as u32;
        for (i, b) in bits.enumerate() {
            let mask = 1u32 << (width - 1 - i as u32);
            let set: Vec<E::Bdd> = nfs
                .iter()
                .enumerate()
                .filter(|(k, _)| group.code(*k) & mask != 0)
                .map(|(_, nf)| nf.clone())
                .collect();
            // Cut to the care set where large, as the gates are: a group's next values over
            // all states can be far larger than within a layer (wargame03's locations).
            let step = |a: &E::Bdd, b: &E::Bdd| comp.cut_large(e.or(a, b)?);
            let nb = reduce_balanced(set, step, |_| false)?.unwrap_or_else(|| e.constant(false));
            if !comp.same(&nb, &e.var(Encoding::current_bit_var(b))) {
                out.push((b, nb));
            }
        }
    }
    Ok(out)
}

/// For an encoding whose groups are assumed ([`Encoding::assumed`]): the states where the
/// current joint move of `comp` breaks a group (two of its fluents true next, or none of an
/// exactly-one group). `None` for proven groups. A compiler within a care set gives them
/// within that set only ([`Compiler::care`]).
pub(crate) fn group_violation<E: BddEngine>(
    e: &E,
    enc: &Encoding,
    comp: &Compiler<'_, E>,
    game: &GroundGame,
) -> BddResult<Option<E::Bdd>> {
    group_violation_of(e, enc, comp, game, |_| true)
}

/// [`group_violation`] failing with [`symgame_bdd::BddError::Budget`] where a group's check
/// passes `cap` nodes (if given): over all
/// states "two of these next values" can run out of nodes on a game whose layers are tiny
/// (wargame03 filled 16 M nodes in 20 s), where a game compiled within each layer checks it
/// within the layer.
pub(crate) fn group_violation_capped<E: BddEngine>(
    e: &E,
    enc: &Encoding,
    comp: &Compiler<'_, E>,
    game: &GroundGame,
    cap: Option<usize>,
) -> BddResult<Option<E::Bdd>> {
    violation(
        e,
        enc,
        comp,
        game,
        &|_| true,
        cap.map(SizeWatch::new).as_ref(),
    )
}

/// [`group_violation`] for the groups `g` with `which(g)` only.
pub(crate) fn group_violation_of<E: BddEngine>(
    e: &E,
    enc: &Encoding,
    comp: &Compiler<'_, E>,
    game: &GroundGame,
    which: impl Fn(usize) -> bool,
) -> BddResult<Option<E::Bdd>> {
    violation(e, enc, comp, game, &which, None)
}

/// [`group_violation_of`], with an optional node cap on each group's check.
fn violation<E: BddEngine>(
    e: &E,
    enc: &Encoding,
    comp: &Compiler<'_, E>,
    game: &GroundGame,
    which: &dyn Fn(usize) -> bool,
    cap: Option<&SizeWatch>,
) -> BddResult<Option<E::Bdd>> {
    if !enc.assumed() {
        return Ok(None);
    }
    let mut broken = e.constant(false);
    for (g, group) in enc.fluent_groups().iter().enumerate() {
        if !which(g)
            || group.fluents.len() < 2
            || !group.fluents.iter().any(|&f| comp.next_may_change(f))
        {
            continue;
        }
        // A joint move may touch hundreds of groups, each some operations on its next values.
        comp.check_deadline()?;
        let nfs = group
            .fluents
            .iter()
            .map(|&f| comp.lit(game.next[f]))
            .collect::<BddResult<Vec<_>>>()?;
        // Next values that are the current ones break nothing the state does not break already
        // (and the states checked are reached under these checks, from an initial state that
        // meets every group).
        let kept = group.fluents.iter().zip(&nfs);
        if kept
            .into_iter()
            .all(|(&f, nf)| comp.same(nf, comp.fluent(f)))
        {
            continue;
        }
        // Within the compiler's care set, if any: the callers use the result only there.
        let (two, none) =
            crate::disjunction::two_and_none_within(e, &nfs, (comp.care(), cap), &|| {
                comp.check_deadline()
            })?;
        broken = e.or(&broken, &two)?;
        if group.exactly_one {
            broken = e.or(&broken, &none)?;
        }
    }
    Ok(Some(broken))
}
