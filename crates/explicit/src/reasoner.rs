//! [`Reasoner`]: the compiled evaluator of a ground game, with its per-clone scratch space.

use crate::csr::read;
use crate::delta::{DeltaNet, DeltaWork};
use crate::incremental::{Base, NextPlan, Work, BUDGET};
use crate::program::Program;
use crate::State;
use std::cell::RefCell;
use std::sync::Arc;
use symgame_ground::{GroundGame, Lit};

pub(crate) struct Compiled {
    pub(crate) num_fluents: usize,
    num_signals: usize,
    init: State,
    /// The cones of terminal and legal and the gates of `next` that read no move, evaluated
    /// together by change propagation from the state loaded before.
    pub(crate) net: DeltaNet,
    /// The gates of the goal cone outside `net`, evaluated in full when a goal is asked for.
    goal: Program,
    pub(crate) plan: NextPlan,
    legal: Vec<Vec<u32>>,
    pub(crate) goals: Vec<Vec<(u8, u32)>>,
    terminal: u32,
    /// Per role: the index of its first move among all moves (from the first move signal).
    move_offset: Vec<u32>,
}

struct Scratch {
    vals: Vec<u8>,
    /// The state whose fluents are loaded in `vals`.
    loaded: Option<State>,
    /// Whether the base of the `next` cone has been evaluated for `loaded` (the state-only
    /// cones always are).
    next_done: bool,
    /// Whether the gates of the goal cone outside the net have been evaluated for `loaded`.
    goal_done: bool,
    /// The counts of the state-only cones.
    delta: DeltaWork,
    /// The base of the `next` cone for `loaded` (valid when `next_done`).
    base: Base,
    /// The moves of the current joint move, from the first move signal.
    moves: Vec<u32>,
    /// Scratch space of [`NextPlan::next_into`].
    work: Work,
}

impl Scratch {
    fn new(c: &Compiled) -> Scratch {
        let mut vals = vec![0; c.num_signals];
        let base = c.plan.empty_base(c.num_fluents, &mut vals);
        Scratch {
            vals,
            loaded: None,
            next_done: false,
            goal_done: false,
            delta: c.net.empty_work(),
            base,
            moves: Vec::with_capacity(c.move_offset.len()),
            work: c.plan.empty_work(),
        }
    }
}

/// The parts of the circuit evaluated lazily per state: the state-only cones, and the base of
/// the `next` cone (which needs the terminal and legal parts; see [`NextPlan::load_base`]).
#[derive(Clone, Copy)]
enum Part {
    Terminal = 0,
    Legal = 1,
    Goal = 2,
    Next = 3,
}

/// A compiled evaluator of a ground game. Cheap to clone (the programs are shared); each clone
/// has its own scratch space, so give each thread its own clone.
pub struct Reasoner {
    pub(crate) c: Arc<Compiled>,
    scratch: RefCell<Scratch>,
}

impl Clone for Reasoner {
    fn clone(&self) -> Reasoner {
        Reasoner {
            c: self.c.clone(),
            scratch: RefCell::new(Scratch::new(&self.c)),
        }
    }
}

/// A move of one role: an index into that role's move list in the ground game.
pub type MoveId = usize;

impl Reasoner {
    /// Compiles `game`.
    pub fn new(game: &GroundGame) -> Reasoner {
        Reasoner::with_budget(game, BUDGET)
    }

    /// Compiles `game`, with at most `budget` entries in the specializations of the `next` cone
    /// to single moves ([`Reasoner::new`] allows 2^24; 0: none, the fastest to build, for a
    /// short use such as a few thousand random playouts).
    pub fn with_budget(game: &GroundGame, budget: usize) -> Reasoner {
        let nf = game.fluents.len();
        let legal_roots: Vec<Lit> = game.legal.iter().flatten().copied().collect();
        let goal_roots: Vec<Lit> = game.goals.iter().flatten().map(|g| g.1).collect();
        let mut init = State::empty(nf);
        for &f in &game.init {
            init.insert(f);
        }
        let first_move = game.fluents.len() as u32 + 1;
        let move_offset = (0..game.roles.len())
            .map(|r| game.move_signal(r, 0) - first_move)
            .collect();
        // The goal cone apart: it can be larger than the rest (othello counts the discs), and
        // is read in terminal states only.
        let mut roots = legal_roots;
        roots.push(game.terminal);
        let state_cone = game.circuit.cone(&roots);
        let indep = NextPlan::indep_gates(game);
        let plan = NextPlan::new(game, budget);
        let at_base = plan.base_gates(&game.circuit);
        let in_net: Vec<bool> = (0..state_cone.len())
            .map(|g| state_cone[g] || indep[g] || at_base[g])
            .collect();
        let goal_cone = game.circuit.cone(&goal_roots);
        let c = Compiled {
            num_fluents: nf,
            num_signals: game.circuit.num_signals(),
            init,
            net: DeltaNet::new(
                Program::compile_gates(&game.circuit, |g| in_net[g]),
                game.circuit.num_signals(),
                nf,
            ),
            goal: Program::compile_gates(&game.circuit, |g| goal_cone[g] && !in_net[g]),
            plan,
            legal: game
                .legal
                .iter()
                .map(|ls| ls.iter().map(|l| l.code()).collect())
                .collect(),
            goals: game
                .goals
                .iter()
                .map(|gs| gs.iter().map(|&(v, l)| (v, l.code())).collect())
                .collect(),
            terminal: game.terminal.code(),
            move_offset,
        };
        let scratch = RefCell::new(Scratch::new(&c));
        Reasoner {
            c: Arc::new(c),
            scratch,
        }
    }

    /// Makes this clone take every joint move with a specialized move by its specialization
    /// (no measurement of change propagation), to test both ways.
    #[cfg(test)]
    pub(crate) fn always_specialized(&self) {
        self.scratch.borrow_mut().work.always_specialized = true;
    }

    /// The number of roles.
    pub fn num_roles(&self) -> usize {
        self.c.legal.len()
    }

    /// The number of fluents.
    pub fn num_fluents(&self) -> usize {
        self.c.num_fluents
    }

    /// The initial state.
    pub fn initial_state(&self) -> State {
        self.c.init.clone()
    }

    /// Loads `s` into `sc` (unless loaded), which evaluates the terminal and legal cones, and
    /// the rest of the goal cone or the base of the `next` cone if `part` asks for it (unless
    /// done).
    fn prepare(c: &Compiled, sc: &mut Scratch, s: &State, part: Part) {
        if sc.loaded.as_ref() != Some(s) {
            c.net.load(&mut sc.vals, s, &mut sc.delta);
            match &mut sc.loaded {
                Some(l) => l.0.copy_from_slice(&s.0),
                None => sc.loaded = Some(s.clone()),
            }
            sc.next_done = false;
            sc.goal_done = false;
        }
        if let Part::Goal = part {
            if !sc.goal_done {
                c.goal.run(&mut sc.vals);
                sc.goal_done = true;
            }
        }
        if let Part::Next = part {
            if !sc.next_done {
                c.plan.load_base(&sc.vals, &mut sc.base);
                sc.next_done = true;
            }
        }
    }

    /// Loads `s` (unless loaded) and evaluates `part` of the circuit (unless done).
    fn with_state<R>(&self, s: &State, part: Part, f: impl FnOnce(&Compiled, &[u8]) -> R) -> R {
        let mut sc = self.scratch.borrow_mut();
        Self::prepare(&self.c, &mut sc, s, part);
        f(&self.c, &sc.vals)
    }

    /// Whether `s` is terminal.
    pub fn is_terminal(&self, s: &State) -> bool {
        self.with_state(s, Part::Terminal, |c, v| read(v, c.terminal))
    }

    /// The goal value of `role` in `s`: the highest value whose condition holds, if any.
    pub fn goal(&self, s: &State, role: usize) -> Option<u8> {
        self.with_state(s, Part::Goal, |c, v| {
            c.goals[role]
                .iter()
                .rev()
                .find(|g| read(v, g.1))
                .map(|g| g.0)
        })
    }

    /// The legal moves of `role` in `s`, written into `out` (cleared first).
    pub fn legal_moves_into(&self, s: &State, role: usize, out: &mut Vec<MoveId>) {
        out.clear();
        self.with_state(s, Part::Legal, |c, v| {
            for (m, &l) in c.legal[role].iter().enumerate() {
                if read(v, l) {
                    out.push(m);
                }
            }
        })
    }

    /// The legal moves of `role` in `s`.
    pub fn legal_moves(&self, s: &State, role: usize) -> Vec<MoveId> {
        let mut out = Vec::new();
        self.legal_moves_into(s, role, &mut out);
        out
    }

    /// The state after every role plays its move of `joint` (one per role) in `s`.
    pub fn next_state(&self, s: &State, joint: &[MoveId]) -> State {
        let mut t = State::empty(self.c.num_fluents);
        self.next_state_into(s, joint, &mut t);
        t
    }

    /// [`Self::next_state`] written into `out` (a state over this game's fluents).
    pub(crate) fn next_state_into(&self, s: &State, joint: &[MoveId], out: &mut State) {
        let c = &*self.c;
        let mut sc = self.scratch.borrow_mut();
        let sc = &mut *sc;
        Self::prepare(c, sc, s, Part::Next);
        sc.moves.clear();
        sc.moves.extend(
            joint
                .iter()
                .zip(&c.move_offset)
                .map(|(&m, &o)| o + m as u32),
        );
        c.plan
            .next_into(s, &mut sc.vals, &mut sc.base, &mut sc.work, &sc.moves, out);
    }

    /// All joint moves in `s` (the Cartesian product of the roles' legal moves), in
    /// lexicographic order.
    pub fn joint_moves(&self, s: &State) -> Vec<Vec<MoveId>> {
        let per_role: Vec<Vec<MoveId>> = (0..self.num_roles())
            .map(|r| self.legal_moves(s, r))
            .collect();
        let mut out = vec![Vec::new()];
        for ms in &per_role {
            let mut next = Vec::with_capacity(out.len() * ms.len());
            for j in &out {
                for &m in ms {
                    let mut k = j.clone();
                    k.push(m);
                    next.push(k);
                }
            }
            out = next;
        }
        out
    }

    /// The state after each joint move in `s`, in the order of [`Reasoner::joint_moves`] (a
    /// state reached by two joint moves appears twice).
    pub fn successors(&self, s: &State) -> Vec<State> {
        self.joint_moves(s)
            .iter()
            .map(|j| self.next_state(s, j))
            .collect()
    }
}
