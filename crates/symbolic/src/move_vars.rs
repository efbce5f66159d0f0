//! Moves as BDD variables, for layers whose joint moves are too many to take one at a time.
//!
//! Each role `r` gets `ceil(log2 |M_r|)` variables after the state variables (below them in
//! the order), and its move `m` is the cube of `m`'s binary code over them. The `next` cone of
//! the circuit is evaluated once with every `does(r, m)` read as that cube
//! ([`Compiler::set_symbolic_moves`]), so a bit's next function `f_b(x, m)` is one BDD over
//! the current and the move variables, and the roles' legal conditions become
//! `L_r(x, m_r) = OR_m (code_r(m) AND legal_r,m(x))`. The image of a layer `S` is then
//!
//! `exists x_T, m. S(x) AND L_1 AND ... AND L_k AND AND_{b in T} (x'_b <-> f_b(x, m))`,
//!
//! renamed from `x'_T` to `x_T`, where `T` are the bits some move changes (the others keep
//! their value and are not quantified). The equations are conjoined from the lowest bit up,
//! and a current or move variable is quantified as soon as no later equation reads it (early
//! quantification). Its cost follows the sizes of these BDDs, not the number of joint moves
//! (10,201 in a sealed-bid game where each score reads both roles' bids, so that the moves
//! cannot be taken one role at a time either).

use symgame_bdd::{BddEngine, BddError, Var, VarSet};
use symgame_ground::GroundGame;
use symgame_limits::StopReason;

use crate::compile::Compiler;
use crate::disjunction::or_all_checked;
use crate::encoding::Encoding;
use crate::error::SymbolicError;
use crate::next_bits::next_bit_functions;

/// A layer with more joint moves than this and than twice its moves (`layerwise::explodes`),
/// whose moves cannot be taken one role at a time, takes its image with the moves as
/// variables, where the engine has them.
pub(crate) const MOVE_VARS_ABOVE: usize = 256;

/// The move variables of a game: per role, its first variable and its number of variables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct MoveVars {
    roles: Vec<(Var, u32)>,
}

impl MoveVars {
    /// The number of variables `game`'s moves need (per role, enough bits for its moves).
    pub(crate) fn count(game: &GroundGame) -> u32 {
        game.roles.iter().map(|r| width(r.moves.len())).sum()
    }

    /// The move variables of `game` after the state variables of `enc`, if an engine of
    /// `num_vars` variables has room for them and the game's joint moves may explode: more
    /// than [`MOVE_VARS_ABOVE`] and than twice the moves, counted over the
    /// ground moves (each layer decides again over the moves legal in it).
    pub(crate) fn fit(num_vars: u32, game: &GroundGame, enc: &Encoding) -> Option<MoveVars> {
        let first = enc.num_vars();
        let joint = game
            .roles
            .iter()
            .try_fold(1usize, |acc, r| acc.checked_mul(r.moves.len()))
            .unwrap_or(usize::MAX);
        let sum: usize = game.roles.iter().map(|r| r.moves.len()).sum();
        let explodes = joint > MOVE_VARS_ABOVE && joint > 2 * sum;
        (explodes && num_vars >= first + Self::count(game)).then(|| Self::lay_out(game, first))
    }

    /// The move variables of `game` from variable `first` on, role after role.
    pub(crate) fn lay_out(game: &GroundGame, first: Var) -> MoveVars {
        let mut next = first;
        let roles = game
            .roles
            .iter()
            .map(|r| {
                let w = width(r.moves.len());
                let at = next;
                next += w;
                (at, w)
            })
            .collect();
        MoveVars { roles }
    }

    /// All the move variables.
    pub(crate) fn all(&self) -> VarSet {
        self.roles
            .iter()
            .flat_map(|&(at, w)| at..at + w)
            .collect::<Vec<_>>()
            .into()
    }

    /// The cube of move `m` of role `r`: its binary code over the role's variables, most
    /// significant bit first.
    fn code<E: BddEngine>(&self, e: &E, r: usize, m: usize) -> symgame_bdd::BddResult<E::Bdd> {
        let (at, w) = self.roles[r];
        let lits: Vec<(Var, bool)> = (0..w)
            .map(|i| (at + i, (m >> (w - 1 - i)) & 1 == 1))
            .collect();
        e.cube(&lits)
    }

    /// The BDD of every move signal of `game`, in signal order (role after role).
    pub(crate) fn move_bdds<E: BddEngine>(
        &self,
        e: &E,
        game: &GroundGame,
    ) -> symgame_bdd::BddResult<Vec<E::Bdd>> {
        let mut out = Vec::with_capacity(game.num_moves());
        for (r, role) in game.roles.iter().enumerate() {
            for m in 0..role.moves.len() {
                out.push(self.code(e, r, m)?);
            }
        }
        Ok(out)
    }

    /// `L_r(x, m_r) = OR_m (code_r(m) AND legal[r][m] AND within)` over the moves
    /// `moves[r]` (the others are legal nowhere in the layer), per role. Within the layer: over
    /// all states the relation maps each state to its set of legal moves, which the move
    /// variables below the state variables would spell out state by state.
    fn legal<E: BddEngine>(
        &self,
        e: &E,
        legal: &[Vec<E::Bdd>],
        moves: &[Vec<usize>],
        within: &E::Bdd,
        stop: &dyn Fn() -> Result<(), StopReason>,
    ) -> Result<Vec<E::Bdd>, SymbolicError> {
        let mut out = Vec::with_capacity(legal.len());
        for (r, ms) in moves.iter().enumerate() {
            let mut parts = Vec::with_capacity(ms.len());
            for &m in ms {
                stop().map_err(SymbolicError::Stopped)?;
                parts.push(e.and(&self.code(e, r, m)?, &e.and(&legal[r][m], within)?)?);
            }
            let check = || stop().map_err(|why| BddError::Budget(why.to_string()));
            out.push(or_all_checked(e, parts, &check)?);
        }
        Ok(out)
    }
}

/// The variables for `n` choices: `ceil(log2 n)` (0 for a single move).
fn width(n: usize) -> u32 {
    if n <= 1 {
        0
    } else {
        usize::BITS - (n - 1).leading_zeros()
    }
}

/// What [`image`] found besides the image: the states of the layer where a legal joint move
/// breaks an assumed group (`None`: none, or the groups are proven).
pub(crate) struct MoveVarImage<E: BddEngine> {
    /// The successors of the layer.
    pub(crate) image: E::Bdd,
    /// States of the layer where a legal joint move breaks an assumed group.
    pub(crate) broken_at: Option<E::Bdd>,
}

/// The successors of `expand` (non-terminal states) with the moves as variables (see the
/// module): `comp` is compiled within the layer, `legal` are its legal conditions and `moves`
/// per role the moves legal somewhere in `expand`. `stop` is checked between operations.
#[allow(clippy::too_many_arguments)]
pub(crate) fn image<E: BddEngine>(
    e: &E,
    enc: &Encoding,
    game: &GroundGame,
    vars: &MoveVars,
    comp: &mut Compiler<'_, E>,
    legal: &[Vec<E::Bdd>],
    moves: &[Vec<usize>],
    expand: &E::Bdd,
    stop: &dyn Fn() -> Result<(), StopReason>,
) -> Result<MoveVarImage<E>, SymbolicError> {
    let stopped = SymbolicError::Stopped;
    comp.set_symbolic_moves(vars.move_bdds(e, game)?)?;
    let mut acc = expand.clone();
    for l in vars.legal(e, legal, moves, expand, stop)? {
        stop().map_err(stopped)?;
        acc = e.and(&acc, &l)?;
    }
    let broken_at = violation_within(e, enc, game, comp, &acc, stop)?
        .map(|at| e.exists(&at, &vars.all()))
        .transpose()?
        .filter(|at| !e.is_false(at));
    stop().map_err(stopped)?;
    let fns = next_bit_functions(e, enc, comp, game)?;
    let image = Chain::new(e, vars, &fns)?.image(e, acc, stop)?;
    Ok(MoveVarImage { image, broken_at })
}

/// For an assumed encoding ([`Encoding::assumed`]): the pairs of a state and a joint move of
/// `within` (over current and move variables) after which a group is broken (two of its
/// fluents true next, or none of an exactly-one group). Each group's next functions are cut
/// to `within` first: over all states, with the moves as variables below the state ones,
/// "two of them true" spells out state by state which moves break the group.
fn violation_within<E: BddEngine>(
    e: &E,
    enc: &Encoding,
    game: &GroundGame,
    comp: &Compiler<'_, E>,
    within: &E::Bdd,
    stop: &dyn Fn() -> Result<(), StopReason>,
) -> Result<Option<E::Bdd>, SymbolicError> {
    if !enc.assumed() {
        return Ok(None);
    }
    let check = || stop().map_err(|why| BddError::Budget(why.to_string()));
    let mut broken = e.constant(false);
    for group in enc.fluent_groups() {
        if group.fluents.len() < 2 {
            continue;
        }
        check()?;
        let nfs = group
            .fluents
            .iter()
            .map(|&f| comp.lit(game.next[f]))
            .collect::<symgame_bdd::BddResult<Vec<_>>>()?;
        // Next values that are the current ones break nothing the state does not break.
        if group
            .fluents
            .iter()
            .zip(&nfs)
            .all(|(&f, nf)| comp.same(nf, comp.fluent(f)))
        {
            continue;
        }
        let (two, none) =
            crate::disjunction::two_and_none_within(e, &nfs, (Some(within), None), &check)?;
        broken = e.or(&broken, &two)?;
        if group.exactly_one {
            broken = e.or(&broken, &none)?;
        }
    }
    Ok(Some(broken))
}

/// The bits' equations of an image with the moves as variables, in the order they are
/// conjoined (lowest bit first), with the variables quantified after each.
struct Chain<E: BddEngine> {
    /// Per equation: `x'_b <-> f_b(x, m)`, and the variables no later equation reads.
    steps: Vec<(E::Bdd, VarSet)>,
    /// The touched bits' next variables renamed to current ones at the end.
    to_cur: Vec<(Var, Var)>,
}

impl<E: BddEngine> Chain<E> {
    /// The chain of the next functions `fns` (touched bits and their functions).
    fn new(e: &E, vars: &MoveVars, fns: &[(u32, E::Bdd)]) -> symgame_bdd::BddResult<Chain<E>> {
        let mut order: Vec<&(u32, E::Bdd)> = fns.iter().collect();
        order.sort_by_key(|(b, _)| *b);
        let supports: Vec<Vec<Var>> = order.iter().map(|(_, f)| e.support(f)).collect();
        let mut last_read: std::collections::HashMap<Var, usize> = Default::default();
        for (i, s) in supports.iter().enumerate() {
            for &v in s {
                last_read.insert(v, i);
            }
        }
        // A touched bit's current variable and the move variables go once no later equation
        // reads them (the layer and the legal relations are conjoined before the first).
        let mut pending: Vec<Var> = order
            .iter()
            .map(|(b, _)| Encoding::current_bit_var(*b))
            .chain(vars.all().iter())
            .collect();
        let mut steps: Vec<(E::Bdd, VarSet)> = Vec::with_capacity(order.len() + 1);
        for (i, (b, f)) in order.iter().enumerate() {
            let eq = e.iff(&e.var(Encoding::next_bit_var(*b)), f)?;
            let now: Vec<Var> = pending
                .iter()
                .copied()
                .filter(|v| last_read.get(v).is_none_or(|&j| j <= i))
                .collect();
            pending.retain(|v| !now.contains(v));
            steps.push((eq, now.into()));
        }
        // What no equation reads is gone after the first step; what is left, after the last.
        match steps.last_mut() {
            Some(last) => {
                let mut q: Vec<Var> = last.1.iter().collect();
                q.extend(pending);
                last.1 = q.into();
            }
            None => steps.push((e.constant(true), pending.into())),
        }
        let to_cur = order
            .iter()
            .map(|(b, _)| (Encoding::next_bit_var(*b), Encoding::current_bit_var(*b)))
            .collect();
        Ok(Chain { steps, to_cur })
    }

    /// `exists x_T, m. acc AND AND_b (x'_b <-> f_b)`, renamed to the current variables.
    fn image(
        &self,
        e: &E,
        mut acc: E::Bdd,
        stop: &dyn Fn() -> Result<(), StopReason>,
    ) -> Result<E::Bdd, SymbolicError> {
        for (eq, q) in &self.steps {
            stop().map_err(SymbolicError::Stopped)?;
            acc = if q.is_empty() {
                e.and(&acc, eq)?
            } else {
                e.and_exists(&acc, eq, q)?
            };
        }
        Ok(e.rename(&acc, &self.to_cur)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::SymbolicOptions;
    use crate::test_support::{encoded, forced_layerwise};
    use crate::SymbolicGame;
    use symgame_bdd::{BiodivineEngine, EngineConfig};

    /// Compares `layers` images of `game` compiled within each layer, with move variables
    /// given and taken above `above` joint moves (0: every layer), to those of the game compiled
    /// once; returns whether an image took the moves as variables.
    fn images_within(
        name: &str,
        (game, enc): (&GroundGame, &Encoding),
        above: usize,
        layers: usize,
    ) -> bool {
        let n = enc.num_vars() + MoveVars::count(game);
        let e = BiodivineEngine::new(n, &EngineConfig::small()).unwrap();
        let once = SymbolicGame::new(&e, game, enc.clone(), &SymbolicOptions::default()).unwrap();
        let layerwise = forced_layerwise();
        let mut within = SymbolicGame::new(&e, game, enc.clone(), &layerwise).unwrap();
        let lw = within
            .layerwise
            .as_mut()
            .expect("compiled within each layer");
        lw.move_vars = Some(MoveVars::lay_out(game, enc.num_vars()));
        lw.move_vars_above = above;
        let mut layer = once.init().clone();
        for k in 0..layers {
            let next = once.image(&layer).unwrap();
            assert_eq!(within.image(&layer).unwrap(), next, "{name}, layer {k}");
            layer = next;
        }
        let lw = within.layerwise().unwrap();
        lw.with_move_vars.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Compiled within each layer with the moves as variables (forced on every layer), the
    /// images of games whose moves cannot be taken one role at a time (a score that reads
    /// both roles' moves) and of one whose moves could be are those of the game compiled once.
    #[test]
    fn images_with_move_variables_match_the_compiled_relation() {
        for (name, layers) in [("penalty_kick", 3), ("prisoners_2p", 3)] {
            let (game, enc) = encoded(name);
            // Too few joint moves to be given move variables unless forced.
            assert!(
                images_within(name, (&game, &enc), 0, layers),
                "{name}: the images took the moves as variables"
            );
        }
    }

    /// A turn-taking game whose first layer holds states of both roles' turns: 20 moves each,
    /// so the roles' legal moves multiply to 441 joint moves, but only 40 are legal together.
    const MIXED_TURNS: &str = "
        (role a) (role b)
        (init (control a)) (init (step 0))
        (num 1) (num 2) (num 3) (num 4) (num 5) (num 6) (num 7) (num 8) (num 9) (num 10)
        (num 11) (num 12) (num 13) (num 14) (num 15) (num 16) (num 17) (num 18) (num 19)
        (num 20)
        (even 2) (even 4) (even 6) (even 8) (even 10) (even 12) (even 14) (even 16) (even 18)
        (even 20)
        (succ 0 1) (succ 1 2) (succ 2 3)
        (<= (legal ?r (pick ?n)) (true (control ?r)) (num ?n) (not (true (taken ?r ?n))))
        (<= (legal a noop) (true (control b)))
        (<= (legal b noop) (true (control a)))
        (<= (next (taken ?r ?n)) (does ?r (pick ?n)))
        (<= (next (taken ?r ?n)) (true (taken ?r ?n)))
        (<= (next (control a)) (does a (pick ?n)) (even ?n))
        (<= (next (control b)) (does a (pick ?n)) (not (even ?n)))
        (<= (next (control a)) (does b (pick ?n)))
        (<= (next (step ?y)) (true (step ?x)) (succ ?x ?y))
        (<= terminal (true (step 3)))
        (goal a 50) (goal b 50)
    ";

    /// Where a layer mixes the roles' turns, its joint moves are counted by turn before the
    /// moves are taken as variables: the product of the moves legal in the layer (441) would
    /// call them explosive, the 40 legal together are not, and the layer goes one joint move
    /// at a time (with the images of the game compiled once).
    #[test]
    fn joint_moves_counted_by_turn_do_not_take_the_moves_as_variables() {
        let game = symgame_testkit::from_text(MIXED_TURNS);
        let enc = Encoding::compact(&game, crate::options::Order::Heuristic);
        assert!(
            MoveVars::fit(u32::MAX, &game, &enc).is_some(),
            "ground moves explode"
        );
        assert!(
            !images_within("mixed turns", (&game, &enc), MOVE_VARS_ABOVE, 3),
            "the layers' joint moves were taken one at a time"
        );
    }

    #[test]
    fn widths_are_enough_bits_for_the_moves() {
        assert_eq!(width(1), 0);
        assert_eq!(width(2), 1);
        assert_eq!(width(3), 2);
        assert_eq!(width(4), 2);
        assert_eq!(width(5), 3);
        assert_eq!(width(101), 7);
    }
}
