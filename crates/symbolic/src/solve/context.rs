//! The state predicates the solvers share ([`Context`]): who moves, the goal reading, the
//! pre-image inside a domain, and the checks that a game can be solved (turn-taking, a legal
//! move everywhere).

use symgame_bdd::{BddEngine, BddResult, Var};
use symgame_limits::{Guard, Limits};

use crate::disjunction::or_all;
use crate::game::SymbolicGame;
use crate::interrupt::{union_guarded, Interrupt};
use crate::partition::{restrict_conjunct_lists, Partition};
use crate::solve::error::{SolveError, SolveOrStop};
use crate::solve::stats::MoverCounts;
use crate::solve::value::{Outcomes, ValueClass};

/// State predicates the solvers share: who moves, and the goal reading.
pub(crate) struct Context<'g, 'e, E: BddEngine> {
    pub(crate) g: &'g SymbolicGame<'e, E>,
    /// Per role: the states it moves in (a partition of all states; see [`movers`]). Not
    /// restricted to reachable states.
    pub(crate) movers: Vec<E::Bdd>,
    /// States where two or more roles have a choice.
    pub(crate) simultaneous: E::Bdd,
    /// The states where every role has a legal move (with two or more roles, once who moves
    /// is built; within the reachable states if it was deferred).
    live: Option<E::Bdd>,
    /// Whether `movers` and `simultaneous` wait for [`Context::settle`] (too large over all
    /// states; until then `movers` is empty).
    deferred: bool,
    /// Per role, its distinct goal values, descending.
    goal_values: Vec<Vec<u8>>,
    /// The transition partitions, those kept as conjunct lists restricted to the current
    /// universe ([`Context::set_universe`]).
    parts: Vec<Partition<E>>,
    /// The limits of the run.
    pub(crate) guard: Guard<'g>,
    /// The largest BDD tracked so far ([`Context::track`]).
    pub(crate) peak: usize,
    /// The slice every domain lies in ([`Context::cut`]; empty: no slice).
    cube: Vec<(Var, bool)>,
}

impl<'g, 'e, E: BddEngine> Context<'g, 'e, E> {
    /// The context of solving `g` within `limits`; who moves is built over all states unless
    /// a role's "two legal moves" grows past `choice_nodes` nodes (then [`Self::settle`]).
    pub(crate) fn new(
        g: &'g SymbolicGame<'e, E>,
        limits: &'g Limits,
        choice_nodes: usize,
    ) -> BddResult<Self> {
        let e = g.engine();
        let roles = g.role_names().len();
        // Who moves, over all states; with one role it moves everywhere and nothing is
        // simultaneous. Where "two legal moves" is large over all states (most of them
        // unreachable: on crissrace the conjunction of the two roles' choices stuck for
        // minutes), it is left for later, built within the reachable states ([`Self::settle`]).
        let who = if roles == 1 {
            Some((e.constant(false), vec![e.constant(true)], None))
        } else {
            match choices(e, g.legal(), None, Some(choice_nodes))? {
                Some((choice, live)) => {
                    let (simultaneous, movers) = movers(e, g.legal(), &choice)?;
                    Some((simultaneous, movers, Some(live)))
                }
                None => None,
            }
        };
        let deferred = who.is_none();
        let (simultaneous, movers, live) =
            who.unwrap_or_else(|| (e.constant(false), Vec::new(), None));
        let goal_values = g
            .goal_formulas()
            .iter()
            .map(|gs| {
                let mut vals: Vec<u8> = gs.iter().map(|x| x.0).collect();
                vals.sort_unstable_by(|a, b| b.cmp(a));
                vals.dedup();
                vals
            })
            .collect();
        Ok(Context {
            g,
            movers,
            simultaneous,
            live,
            deferred,
            goal_values,
            parts: g.clusters().to_vec(),
            guard: Guard::new(limits),
            peak: 0,
            cube: Vec::new(),
        })
    }

    pub(crate) fn e(&self) -> &'e E {
        self.g.engine()
    }

    /// Whether who moves waits for the reachable states ([`Context::settle`]).
    pub(crate) fn deferred(&self) -> bool {
        self.deferred
    }

    /// Builds `movers` and `simultaneous` within `reached` (a set closed under successors) if
    /// they were left for later; afterwards they are exact on `reached`.
    pub(crate) fn settle(&mut self, reached: &E::Bdd) -> BddResult<()> {
        if !self.deferred {
            return Ok(());
        }
        let e = self.e();
        let legal = within(e, self.g.legal(), reached)?;
        let (choice, live) = choices(e, &legal, None, None)?.expect("no size bound");
        (self.simultaneous, self.movers) = movers(e, &legal, &choice)?;
        self.live = Some(live);
        self.deferred = false;
        Ok(())
    }

    /// Whether two or more roles have a choice in some state of `s`.
    pub(crate) fn any_simultaneous(&self, s: &E::Bdd) -> BddResult<bool> {
        let e = self.e();
        if !self.deferred {
            return Ok(!e.is_false(&e.and(s, &self.simultaneous)?));
        }
        let (choice, _) = choices(e, self.g.legal(), Some(s), None)?.expect("no size bound");
        let mut any = e.constant(false);
        for c in &choice {
            if !e.is_false(&e.and(&any, c)?) {
                return Ok(true);
            }
            any = e.or(&any, c)?;
        }
        Ok(false)
    }

    /// Records the size of `b` for the peak statistic and checks the node limit.
    pub(crate) fn track(&mut self, b: &E::Bdd) -> Result<(), Interrupt> {
        self.track_nodes(self.e().node_count(b))
    }

    /// [`Context::track`] of a BDD of `n` nodes, counted already (with its states:
    /// [`SymbolicGame::count_and_nodes`], one pass for both).
    pub(crate) fn track_nodes(&mut self, n: usize) -> Result<(), Interrupt> {
        self.peak = self.peak.max(n);
        Ok(self.guard.check_nodes(n as u64)?)
    }

    /// Splits the terminal states `t` by outcome (a missing goal value reads as 0, the same
    /// reading as the explicit reasoner).
    pub(crate) fn terminal_classes(
        &self,
        t: &E::Bdd,
        outcomes: &mut Outcomes,
    ) -> BddResult<Vec<(usize, E::Bdd)>> {
        let e = self.e();
        let mut parts: Vec<(Vec<u8>, E::Bdd)> = Vec::new();
        if !e.is_false(t) {
            parts.push((Vec::new(), t.clone()));
        }
        for (role, values) in self.goal_values.iter().enumerate() {
            let mut next: Vec<(Vec<u8>, E::Bdd)> = Vec::new();
            for (o, s) in parts {
                let mut rest = s;
                let push = |v: u8, set: E::Bdd, next: &mut Vec<(Vec<u8>, E::Bdd)>| {
                    let mut o2 = o.clone();
                    o2.push(v);
                    match next.iter_mut().find(|x| x.0 == o2) {
                        Some(x) => x.1 = e.or(&x.1, &set)?,
                        None => next.push((o2, set)),
                    }
                    BddResult::Ok(())
                };
                for &v in values {
                    if e.is_false(&rest) {
                        break;
                    }
                    // The goal conditions are formulas: conjoined piece by piece with the set.
                    let hit = self.g.and_goal(&rest, role, v)?;
                    if !e.is_false(&hit) {
                        rest = e.and_not(&rest, &hit)?;
                        push(v, hit, &mut next)?;
                    }
                }
                if !e.is_false(&rest) {
                    push(0, rest, &mut next)?;
                }
            }
            parts = next;
        }
        Ok(parts
            .into_iter()
            .map(|(o, s)| (outcomes.index(&o), s))
            .collect())
    }

    /// Restricts the partitions kept as conjunct lists to `universe`, a superset of every
    /// domain that [`Context::pre_in`] will be asked about: such relations are huge over all
    /// states (most unreachable) but small over the universe.
    pub(crate) fn set_universe(&mut self, universe: &E::Bdd) -> BddResult<()> {
        self.parts = restrict_conjunct_lists(self.e(), self.g.clusters(), universe)?;
        Ok(())
    }

    /// Cofactors the partitions by `cube` (after [`Context::set_universe`]): every domain
    /// [`Context::pre_in`] is asked about from now on lies within the cube (a slice of a layer).
    pub(crate) fn cut(&mut self, cube: &[(Var, bool)]) -> BddResult<()> {
        let e = self.e();
        self.parts = self
            .parts
            .iter()
            .map(|p| p.cofactor(e, cube))
            .collect::<BddResult<_>>()?;
        self.cube = cube.to_vec();
        Ok(())
    }

    /// Predecessors of `target` inside `domain` (non-terminal states with a joint move into
    /// `target`).
    pub(crate) fn pre_in(&self, target: &E::Bdd, domain: &E::Bdd) -> Result<E::Bdd, Interrupt> {
        self.pre_within(target, domain, false)
    }

    /// [`Context::pre_in`] where `domain` lies in one BFS layer and `target` in the next:
    /// each part's relation meets the domain before its relational product
    /// ([`Partition::pre_image_cut`]).
    pub(crate) fn pre_in_layer(
        &self,
        target: &E::Bdd,
        domain: &E::Bdd,
    ) -> Result<E::Bdd, Interrupt> {
        self.pre_within(target, domain, true)
    }

    fn pre_within(
        &self,
        target: &E::Bdd,
        domain: &E::Bdd,
        domain_first: bool,
    ) -> Result<E::Bdd, Interrupt> {
        let e = self.e();
        if e.is_false(target) || e.is_false(domain) {
            return Ok(e.constant(false));
        }
        union_guarded(e, &self.parts, &self.guard, |p| {
            p.pre_image_cut(e, target, Some(domain), &self.cube, domain_first)
        })
    }

    /// The states of `domain` where some role has no legal move (restricted to `domain` as it
    /// is built: over all states the disjunction of the legal conditions can be large).
    pub(crate) fn without_legal_move(&self, domain: &E::Bdd) -> BddResult<E::Bdd> {
        let e = self.e();
        if let Some(live) = &self.live {
            return e.and_not(domain, live);
        }
        let mut dead = e.constant(false);
        for ls in self.g.legal() {
            let within = ls
                .iter()
                .map(|l| e.and(l, domain))
                .collect::<BddResult<Vec<_>>>()?;
            dead = e.or(&dead, &e.and_not(domain, &or_all(e, within)?)?)?;
        }
        Ok(dead)
    }

    /// Fails if two roles are in control of a state of `nonterminal`.
    pub(crate) fn check_simultaneous(&self, nonterminal: &E::Bdd) -> Result<(), SolveOrStop> {
        let both = self.e().and(nonterminal, &self.simultaneous)?;
        match self.g.pick_state(&both) {
            Some(state) => Err(SolveOrStop::Error(SolveError::Simultaneous { state })),
            None => Ok(()),
        }
    }

    /// Fails if two roles are in control of a state of `nonterminal` (unless `simultaneous`
    /// allows it), or if a state of it has no successor in `successors` (a superset of the
    /// successors of `nonterminal`: the reachable set, or the next layer; restricting the
    /// pre-image to it keeps it small).
    pub(crate) fn check_states(
        &self,
        nonterminal: &E::Bdd,
        successors: &E::Bdd,
        simultaneous: bool,
    ) -> Result<(), SolveOrStop> {
        let e = self.e();
        let g = self.g;
        if !simultaneous {
            self.check_simultaneous(nonterminal)?;
        }
        let live = self.pre_in(successors, nonterminal)?;
        let dead = e.and_not(nonterminal, &live)?;
        if let Some(state) = g.pick_state(&dead) {
            return Err(SolveOrStop::Error(SolveError::NoLegalMove { state }));
        }
        Ok(())
    }

    /// Counts of `layer`'s non-terminal states won/drawn/lost for the role to move.
    pub(crate) fn mover_counts(
        &self,
        classes: &[ValueClass<E>],
        outcomes: &[Vec<u8>],
        terminal: &E::Bdd,
    ) -> BddResult<Option<MoverCounts>> {
        if self.movers.len() != 2 {
            return Ok(None);
        }
        let e = self.e();
        let mut m = MoverCounts::default();
        for c in classes {
            let o = &outcomes[c.outcome];
            let inner = e.and_not(&c.states, terminal)?;
            if e.is_false(&inner) {
                continue;
            }
            for (p, mv) in self.movers.iter().enumerate() {
                m.add(o, p, self.g.count(&e.and(&inner, mv)?));
            }
        }
        Ok(Some(m))
    }
}

/// Per role, the states where it has two or more legal moves; the states where every role has
/// a legal move.
type Choices<E> = (Vec<<E as BddEngine>::Bdd>, <E as BddEngine>::Bdd);

/// Per role, the states (within `domain`, if given) where it has two or more legal moves, and
/// the states where every role has a legal move; `None` if one of them grows past `max_nodes`.
fn choices<E: BddEngine>(
    e: &E,
    legal: &[Vec<E::Bdd>],
    domain: Option<&E::Bdd>,
    max_nodes: Option<usize>,
) -> BddResult<Option<Choices<E>>> {
    let mut choice = Vec::with_capacity(legal.len());
    let mut live = e.constant(true);
    for ls in legal {
        let mut one = e.constant(false);
        let mut two = e.constant(false);
        for l in ls {
            let l = match domain {
                Some(d) => e.and(l, d)?,
                None => l.clone(),
            };
            two = e.or(&two, &e.and(&one, &l)?)?;
            one = e.or(&one, &l)?;
            if max_nodes
                .is_some_and(|m| e.node_count_exceeds(&one, m) || e.node_count_exceeds(&two, m))
            {
                return Ok(None);
            }
        }
        choice.push(two);
        live = e.and(&live, &one)?;
    }
    Ok(Some((choice, live)))
}

/// The legal conditions conjoined with `domain`.
fn within<E: BddEngine>(
    e: &E,
    legal: &[Vec<E::Bdd>],
    domain: &E::Bdd,
) -> BddResult<Vec<Vec<E::Bdd>>> {
    legal
        .iter()
        .map(|ls| ls.iter().map(|l| e.and(l, domain)).collect())
        .collect()
}

/// The states where two or more roles have a choice, and per role the states it moves in, from
/// the legal conditions and `choice` (per role, the states where it has two or more legal
/// moves). A role moves where it has a choice; a state where no role has one (forced) is
/// attributed to the first role with an *active* legal move there (a move never legal where
/// another role has a choice, i.e. not a pass move), else to role 0; a state where several roles
/// have a choice, to the last of them. The movers partition all states.
fn movers<E: BddEngine>(
    e: &E,
    legal: &[Vec<E::Bdd>],
    choice: &[E::Bdd],
) -> BddResult<(E::Bdd, Vec<E::Bdd>)> {
    let roles = legal.len();
    let (mut any, mut two) = (e.constant(false), e.constant(false));
    for c in choice {
        two = e.or(&two, &e.and(&any, c)?)?;
        any = e.or(&any, c)?;
    }
    if roles == 1 {
        return Ok((two, vec![e.constant(true)]));
    }
    // Per role: the states where one of its active moves is legal.
    let mut active = Vec::with_capacity(roles);
    for (r, ls) in legal.iter().enumerate() {
        let mut others = e.constant(false);
        for (q, c) in choice.iter().enumerate() {
            if q != r {
                others = e.or(&others, c)?;
            }
        }
        let mut acc = e.constant(false);
        for l in ls {
            if e.is_false(&e.and(l, &others)?) {
                acc = e.or(&acc, l)?;
            }
        }
        active.push(acc);
    }
    let forced = e.not(&any)?;
    let mut movers = vec![e.constant(false); roles];
    let mut taken = e.constant(false);
    // Roles 1.. from the last, so that a state where several have a choice goes to the last.
    for r in (1..roles).rev() {
        let mut earlier_active = e.constant(false);
        for a in &active[..r] {
            earlier_active = e.or(&earlier_active, a)?;
        }
        let forced_r = e.and_not(&e.and(&forced, &active[r])?, &earlier_active)?;
        let mine = e.and_not(&e.or(&choice[r], &forced_r)?, &taken)?;
        taken = e.or(&taken, &mine)?;
        movers[r] = mine;
    }
    movers[0] = e.not(&taken)?;
    Ok((two, movers))
}

/// The terminal part of `s`.
pub(crate) fn terminal_of<E: BddEngine>(g: &SymbolicGame<'_, E>, s: &E::Bdd) -> BddResult<E::Bdd> {
    g.engine().and_not(s, &g.and_not_terminal(s)?)
}
