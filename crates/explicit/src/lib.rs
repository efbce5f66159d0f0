//! The explicit reasoner: a compiled evaluator of a ground game, one state at a time.
//!
//! [`Reasoner`] compiles the [`GroundGame`]'s circuit into two flat programs (the cone of
//! `legal`, `goal` and `terminal`, which reads fluents only, and the cone of `next`, which also
//! reads moves) and evaluates them over a byte per signal. A [`State`] is the set of true
//! fluents as a bit set. [`explore`] enumerates the reachable states breadth first.
//!
//! This crate is the engine of the explicit cross-checks (proof-number search, alpha-beta,
//! replaying plans), so it must stay independent of the symbolic side.
//!
//! Architecture invariant: depends only on `symgame-ground` (and the standard library); never
//! on BDD code.

use std::cell::RefCell;
use std::collections::HashSet;
use std::fmt;
use std::sync::Arc;
use std::time::Instant;
use symgame_ground::{Circuit, Gate, GroundGame, Lit};
use symgame_limits::Guard;
pub use symgame_limits::{Limits, StopReason};

/// A game state: the set of true fluents, as a bit set over fluent indexes.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct State(Box<[u64]>);

impl State {
    /// The empty state over `num_fluents` fluents.
    pub fn empty(num_fluents: usize) -> State {
        State(vec![0; num_fluents.div_ceil(64)].into_boxed_slice())
    }

    /// Whether fluent `f` is true.
    pub fn contains(&self, f: usize) -> bool {
        self.0[f / 64] >> (f % 64) & 1 == 1
    }

    /// Makes fluent `f` true.
    pub fn insert(&mut self, f: usize) {
        self.0[f / 64] |= 1 << (f % 64);
    }

    /// Makes fluent `f` false.
    pub fn remove(&mut self, f: usize) {
        self.0[f / 64] &= !(1 << (f % 64));
    }

    /// The true fluents, ascending.
    pub fn fluents(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().enumerate().flat_map(|(w, &bits)| {
            let mut b = bits;
            std::iter::from_fn(move || {
                if b == 0 {
                    return None;
                }
                let t = b.trailing_zeros() as usize;
                b &= b - 1;
                Some(w * 64 + t)
            })
        })
    }

    /// The raw words (bit `f % 64` of word `f / 64` is fluent `f`).
    pub fn words(&self) -> &[u64] {
        &self.0
    }
}

impl fmt::Debug for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.fluents()).finish()
    }
}

/// One instruction: a gate writing `out` from `len` literal codes starting at `start`.
#[derive(Clone, Copy, Debug)]
struct Instr {
    out: u32,
    start: u32,
    len: u32,
    and: bool,
}

/// A straight-line program; cyclic runs are iterated to their least fixpoint.
#[derive(Clone, Debug, Default)]
struct Program {
    instrs: Vec<Instr>,
    lits: Vec<u32>,
    /// (first instruction, end, cyclic)
    runs: Vec<(u32, u32, bool)>,
}

impl Program {
    fn compile(c: &Circuit, roots: &[Lit]) -> Program {
        let needed = c.cone(roots);
        let mut p = Program::default();
        for b in &c.blocks {
            let first = p.instrs.len() as u32;
            for g in b.start..b.end {
                if !needed[g as usize] {
                    continue;
                }
                let gate = &c.gates[g as usize];
                let start = p.lits.len() as u32;
                p.lits.extend(gate.inputs().iter().map(|l| l.code()));
                p.instrs.push(Instr {
                    out: c.gate_signal(g as usize),
                    start,
                    len: gate.inputs().len() as u32,
                    and: matches!(gate, Gate::And(_)),
                });
            }
            let end = p.instrs.len() as u32;
            if end == first {
                continue;
            }
            match p.runs.last_mut() {
                Some(r) if !r.2 && !b.cyclic => r.1 = end,
                _ => p.runs.push((first, end, b.cyclic)),
            }
        }
        p
    }

    #[inline]
    fn gate(&self, i: &Instr, vals: &[u8]) -> u8 {
        let lits = &self.lits[i.start as usize..(i.start + i.len) as usize];
        if i.and {
            for &l in lits {
                if vals[(l >> 1) as usize] ^ (l & 1) as u8 == 0 {
                    return 0;
                }
            }
            1
        } else {
            for &l in lits {
                if vals[(l >> 1) as usize] ^ (l & 1) as u8 != 0 {
                    return 1;
                }
            }
            0
        }
    }

    fn run(&self, vals: &mut [u8]) {
        for &(a, b, cyclic) in &self.runs {
            let instrs = &self.instrs[a as usize..b as usize];
            if !cyclic {
                for i in instrs {
                    vals[i.out as usize] = self.gate(i, vals);
                }
                continue;
            }
            for i in instrs {
                vals[i.out as usize] = 0;
            }
            loop {
                let mut changed = false;
                for i in instrs {
                    let v = self.gate(i, vals);
                    if v != vals[i.out as usize] {
                        vals[i.out as usize] = v;
                        changed = true;
                    }
                }
                if !changed {
                    break;
                }
            }
        }
    }
}

struct Compiled {
    num_fluents: usize,
    num_signals: usize,
    init: State,
    /// programs for the cones of terminal, legal and goal (in this order; see `Part`)
    parts: [Program; 3],
    next_prog: Program,
    legal: Vec<Vec<u32>>,
    goals: Vec<Vec<(u8, u32)>>,
    terminal: u32,
    next: Vec<u32>,
    move_base: Vec<u32>,
    num_moves: usize,
}

struct Scratch {
    vals: Vec<u8>,
    /// The state whose fluents are loaded in `vals`.
    loaded: Option<State>,
    /// Which of the parts (terminal, legal, goal) have been evaluated for `loaded`.
    done: [bool; 3],
}

/// The state-only parts of the circuit, evaluated lazily per state.
#[derive(Clone, Copy)]
enum Part {
    Terminal = 0,
    Legal = 1,
    Goal = 2,
}

/// A compiled evaluator of a ground game. Cheap to clone (the programs are shared); each clone
/// has its own scratch space, so give each thread its own clone.
pub struct Reasoner {
    c: Arc<Compiled>,
    scratch: RefCell<Scratch>,
}

impl Clone for Reasoner {
    fn clone(&self) -> Reasoner {
        Reasoner {
            c: self.c.clone(),
            scratch: RefCell::new(Scratch {
                vals: vec![0; self.c.num_signals],
                loaded: None,
                done: [false; 3],
            }),
        }
    }
}

/// A move of one role: an index into that role's move list in the ground game.
pub type MoveId = usize;

impl Reasoner {
    /// Compiles `game`.
    pub fn new(game: &GroundGame) -> Reasoner {
        let nf = game.fluents.len();
        let legal_roots: Vec<Lit> = game.legal.iter().flatten().copied().collect();
        let goal_roots: Vec<Lit> = game.goals.iter().flatten().map(|g| g.1).collect();
        let mut init = State::empty(nf);
        for &f in &game.init {
            init.insert(f);
        }
        let move_base = (0..game.roles.len())
            .map(|r| game.move_signal(r, 0))
            .collect();
        let c = Compiled {
            num_fluents: nf,
            num_signals: game.circuit.num_signals(),
            init,
            parts: [
                Program::compile(&game.circuit, &[game.terminal]),
                Program::compile(&game.circuit, &legal_roots),
                Program::compile(&game.circuit, &goal_roots),
            ],
            next_prog: Program::compile(&game.circuit, &game.next),
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
            next: game.next.iter().map(|l| l.code()).collect(),
            move_base,
            num_moves: game.num_moves(),
        };
        let num_signals = c.num_signals;
        Reasoner {
            c: Arc::new(c),
            scratch: RefCell::new(Scratch {
                vals: vec![0; num_signals],
                loaded: None,
                done: [false; 3],
            }),
        }
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

    #[inline]
    fn read(vals: &[u8], code: u32) -> bool {
        vals[(code >> 1) as usize] ^ (code & 1) as u8 != 0
    }

    /// Loads `s` (unless loaded) and evaluates `part` of the circuit (unless done).
    fn with_state<R>(
        &self,
        s: &State,
        part: Part,
        f: impl FnOnce(&Compiled, &mut Vec<u8>) -> R,
    ) -> R {
        let mut sc = self.scratch.borrow_mut();
        let sc = &mut *sc;
        if sc.loaded.as_ref() != Some(s) {
            load_fluents(&mut sc.vals, s, self.c.num_fluents);
            match &mut sc.loaded {
                Some(l) => l.0.copy_from_slice(&s.0),
                None => sc.loaded = Some(s.clone()),
            }
            sc.done = [false; 3];
        }
        if !sc.done[part as usize] {
            self.c.parts[part as usize].run(&mut sc.vals);
            sc.done[part as usize] = true;
        }
        f(&self.c, &mut sc.vals)
    }

    /// Whether `s` is terminal.
    pub fn is_terminal(&self, s: &State) -> bool {
        self.with_state(s, Part::Terminal, |c, v| Self::read(v, c.terminal))
    }

    /// The goal value of `role` in `s`: the highest value whose condition holds, if any.
    pub fn goal(&self, s: &State, role: usize) -> Option<u8> {
        self.with_state(s, Part::Goal, |c, v| {
            c.goals[role]
                .iter()
                .rev()
                .find(|g| Self::read(v, g.1))
                .map(|g| g.0)
        })
    }

    /// The legal moves of `role` in `s`, written into `out` (cleared first).
    pub fn legal_moves_into(&self, s: &State, role: usize, out: &mut Vec<MoveId>) {
        out.clear();
        self.with_state(s, Part::Legal, |c, v| {
            for (m, &l) in c.legal[role].iter().enumerate() {
                if Self::read(v, l) {
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
        let c = &*self.c;
        let mut sc = self.scratch.borrow_mut();
        let sc = &mut *sc;
        if sc.loaded.as_ref() != Some(s) {
            load_fluents(&mut sc.vals, s, c.num_fluents);
            match &mut sc.loaded {
                Some(l) => l.0.copy_from_slice(&s.0),
                None => sc.loaded = Some(s.clone()),
            }
            sc.done = [false; 3];
        }
        let mb = 1 + c.num_fluents;
        sc.vals[mb..mb + c.num_moves].fill(0);
        for (r, &m) in joint.iter().enumerate() {
            sc.vals[(c.move_base[r] as usize) + m] = 1;
        }
        // Gates shared with the state parts read fluents only, so they get the same values
        // again and the parts already evaluated stay valid.
        c.next_prog.run(&mut sc.vals);
        let mut t = State::empty(c.num_fluents);
        for (f, &l) in c.next.iter().enumerate() {
            if Self::read(&sc.vals, l) {
                t.insert(f);
            }
        }
        t
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
}

fn load_fluents(vals: &mut [u8], s: &State, nf: usize) {
    vals[0] = 1;
    for (w, &bits) in s.0.iter().enumerate() {
        let lo = w * 64;
        let hi = (lo + 64).min(nf);
        for (k, v) in vals[1 + lo..1 + hi].iter_mut().enumerate() {
            *v = (bits >> k & 1) as u8;
        }
    }
}

/// One breadth-first layer.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct Layer {
    /// States first reached at this depth.
    pub states: u64,
    /// Of those, the terminal ones.
    pub terminal: u64,
    /// Seconds since the start when the layer was complete.
    pub seconds: f64,
}

/// The result of [`explore`]: complete layers, and why it stopped early if it did.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Exploration {
    /// The complete layers, from the initial state.
    pub layers: Vec<Layer>,
    /// Total states over the complete layers.
    pub states: u64,
    /// Total terminal states over the complete layers.
    pub terminal: u64,
    /// Joint moves applied.
    pub updates: u64,
    /// `Some` when the exploration stopped before the end.
    pub stopped: Option<StopReason>,
}

/// Breadth-first enumeration of the reachable states from the initial state. Terminal states
/// are counted but not expanded. `progress` is called after each layer.
pub fn explore(
    r: &Reasoner,
    limits: &Limits,
    mut progress: impl FnMut(&Exploration),
) -> Exploration {
    let started = Instant::now();
    let mut seen: HashSet<State> = HashSet::new();
    let mut result = Exploration::default();
    let init = r.initial_state();
    seen.insert(init.clone());
    let mut frontier = vec![init];
    let mut legal: Vec<Vec<MoveId>> = vec![Vec::new(); r.num_roles()];
    let mut joint = vec![0; r.num_roles()];
    let guard = Guard::since(limits, started);
    let stop_check =
        |n: u64| -> Option<StopReason> { guard.check_states(n).and_then(|()| guard.check()).err() };
    while !frontier.is_empty() {
        let mut layer = Layer {
            states: frontier.len() as u64,
            ..Layer::default()
        };
        let mut next_frontier = Vec::new();
        for (k, s) in frontier.iter().enumerate() {
            if k % 1024 == 0 {
                if let Some(why) = stop_check(seen.len() as u64) {
                    result.stopped = Some(why);
                    return result;
                }
            }
            if r.is_terminal(s) {
                layer.terminal += 1;
                continue;
            }
            for (role, l) in legal.iter_mut().enumerate() {
                r.legal_moves_into(s, role, l);
            }
            if legal.iter().any(|l| l.is_empty()) {
                continue; // no joint move: a dead end of a faulty description
            }
            // odometer over the joint moves
            let mut idx = vec![0usize; legal.len()];
            loop {
                for (role, &i) in idx.iter().enumerate() {
                    joint[role] = legal[role][i];
                }
                let t = r.next_state(s, &joint);
                result.updates += 1;
                if !seen.contains(&t) {
                    seen.insert(t.clone());
                    next_frontier.push(t);
                }
                let mut pos = 0;
                loop {
                    if pos == idx.len() {
                        break;
                    }
                    idx[pos] += 1;
                    if idx[pos] < legal[pos].len() {
                        break;
                    }
                    idx[pos] = 0;
                    pos += 1;
                }
                if pos == idx.len() {
                    break;
                }
            }
        }
        if let Some(why) = stop_check(seen.len() as u64) {
            result.stopped = Some(why);
            return result;
        }
        layer.seconds = started.elapsed().as_secs_f64();
        result.states += layer.states;
        result.terminal += layer.terminal;
        result.layers.push(layer);
        progress(&result);
        frontier = next_frontier;
    }
    result
}

/// The explicit reasoner as a [`symgame_prove::GameModel`], so that proof-number search and
/// alpha-beta run on ground GDL games. A missing goal value reads as 0.
impl symgame_prove::GameModel for Reasoner {
    type State = State;
    type Move = MoveId;

    fn num_roles(&self) -> usize {
        Reasoner::num_roles(self)
    }

    fn initial_state(&self) -> State {
        Reasoner::initial_state(self)
    }

    fn is_terminal(&self, s: &State) -> bool {
        Reasoner::is_terminal(self, s)
    }

    fn goal(&self, s: &State, role: usize) -> u8 {
        Reasoner::goal(self, s, role).unwrap_or(0)
    }

    fn legal_moves(&self, s: &State, role: usize, out: &mut Vec<MoveId>) {
        self.legal_moves_into(s, role, out)
    }

    fn next_state(&self, s: &State, joint: &[MoveId]) -> State {
        Reasoner::next_state(self, s, joint)
    }

    fn goal_values(&self, role: usize) -> Vec<u8> {
        let mut v: Vec<u8> = self.c.goals[role].iter().map(|g| g.0).collect();
        if !v.contains(&0) {
            v.push(0);
        }
        v.sort_unstable();
        v.dedup();
        v
    }
}

/// Plays `moves` from `start`: each move is played by the role for which it is legal, the other
/// roles playing their only legal move. Returns the state reached, or a message naming the
/// first move that cannot be played.
pub fn play_moves(
    r: &Reasoner,
    game: &GroundGame,
    start: &State,
    moves: &[symgame_ground::GroundTerm],
) -> Result<State, String> {
    let mut s = start.clone();
    for (i, m) in moves.iter().enumerate() {
        if r.is_terminal(&s) {
            return Err(format!(
                "move {} ({m}) comes after the game has ended",
                i + 1
            ));
        }
        let mut joint = Vec::with_capacity(r.num_roles());
        let mut played = false;
        for role in 0..r.num_roles() {
            let legal = r.legal_moves(&s, role);
            match game.find_move(role, m).filter(|id| legal.contains(id)) {
                Some(id) if !played => {
                    joint.push(id);
                    played = true;
                }
                _ if legal.len() == 1 => joint.push(legal[0]),
                _ => {
                    return Err(format!(
                        "move {} ({m}): role {} has {} legal moves and must choose",
                        i + 1,
                        game.roles[role].name,
                        legal.len()
                    ))
                }
            }
        }
        if !played {
            return Err(format!("move {} ({m}) is not legal for any role", i + 1));
        }
        s = r.next_state(&s, &joint);
    }
    Ok(s)
}
