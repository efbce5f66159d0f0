//! Mixed values state by state, once the stage games outgrow the symbolic split.
//!
//! The symbolic rounds of [`mixed_values`](crate::solve::whole::WholeSet::mixed_values) split
//! the ready states by signature, one BDD operation per group, joint move and bit of the class
//! index. Where a game has many distinct stage games (doubletictactoe: 1,927 signatures in
//! the last round, 63,652 in the one before, 19.7 s, and more each round), that split costs
//! more than expanding the states one at a time. From then on the states still without a
//! value are valued here: each one's successors come from the explicit reasoner, their values
//! from the classes found so far (read into a table of state codes), a state whose successors
//! are all valued gets the value of its stage game (one LP per distinct matrix), in depth-first
//! post-order. A state that can reach a cycle of unvalued states stays unvalued, as in the
//! symbolic rounds (it is never ready). The new values become BDDs built from the sorted codes
//! of their states and join the classes; nothing else changes, so the solution, its files and
//! `verify` read the same classes either way.

use rustc_hash::FxHashMap;
use symgame_bdd::{BddEngine, BddNodes};
use symgame_explicit::{for_each_joint_move, MoveId, Reasoner};
use symgame_ground::GroundGame;
use symgame_prove::solve_matrix_game;

use crate::codes::{codes_states_bdd, for_each_code, u128_words, Code, CodeMap, Coder};
use crate::encoding::Encoding;
use crate::solve::error::{SolveError, SolveOrStop};

/// The most codes the table of one run may hold (every reachable state's code and value):
/// about 32 bytes each, so 3.2 GB at most.
pub(crate) const MAX_STATES: u64 = 100_000_000;

/// A state in the table that is on the depth-first stack.
const ON_STACK: u32 = u32::MAX;
/// A state that can reach a cycle of unvalued states: never valued.
const NEVER: u32 = u32::MAX - 1;

/// A value found, and the codes of the states valued here that have it.
struct Valued {
    value: f64,
    codes: Vec<Code>,
}

/// What the state-by-state rounds found.
pub(crate) struct ExplicitValues<B> {
    /// Per value, the BDD of the states valued here with it.
    pub(crate) classes: Vec<(f64, B)>,
    /// Distinct stage games solved (one LP each).
    pub(crate) stage_games: u64,
    /// States valued here.
    pub(crate) states: u64,
}

/// One state on the depth-first stack: its code, its legal moves per role, and its
/// successors in the order of [`for_each_joint_move`], the next one to look at.
struct Frame {
    code: Code,
    rows: usize,
    cols: usize,
    succ: Vec<Code>,
    next: usize,
}

/// The state-by-state valuation of one game.
pub(crate) struct ExplicitMixed<'a> {
    reasoner: Reasoner,
    coder: Coder<'a>,
    /// Code → index into `values` (or [`ON_STACK`], [`NEVER`]).
    table: CodeMap<u32>,
    values: Vec<Valued>,
    by_key: FxHashMap<i64, u32>,
    /// Stage game (rows, columns, successor value indices row by row) → value index.
    stage: FxHashMap<Vec<u32>, u32>,
    states: u64,
}

impl<'a> ExplicitMixed<'a> {
    /// A valuation of `game` under `enc`, an encoding of at most [`crate::codes::MAX_CODE_BITS`] bits.
    pub(crate) fn new(game: &GroundGame, enc: &'a Encoding) -> Self {
        ExplicitMixed {
            reasoner: Reasoner::new(game),
            coder: Coder::new(enc),
            table: CodeMap::default(),
            values: Vec::new(),
            by_key: FxHashMap::default(),
            stage: FxHashMap::default(),
            states: 0,
        }
    }

    /// Records that every state of `nodes` (a BDD over current-state variables) has `value`,
    /// rounded to `key`.
    pub(crate) fn known(&mut self, value: f64, key: i64, nodes: &BddNodes) {
        let v = self.value_index(value, key);
        let table = &mut self.table;
        for_each_code(nodes, self.coder.num_bits(), &mut |c| {
            table.insert(c, v);
        });
    }

    fn value_index(&mut self, value: f64, key: i64) -> u32 {
        *self.by_key.entry(key).or_insert_with(|| {
            self.values.push(Valued {
                value,
                codes: Vec::new(),
            });
            self.values.len() as u32 - 1
        })
    }

    /// Values every state of `open` (non-terminal states without a value, whose successors
    /// are in `open` or recorded by [`Self::known`]) that reaches no cycle within `open`;
    /// `key_of` rounds a value, `check` is called every few thousand states (a limit).
    pub(crate) fn value_all(
        &mut self,
        open: &BddNodes,
        key_of: impl Fn(f64) -> i64,
        mut check: impl FnMut() -> Result<(), SolveOrStop>,
    ) -> Result<(), SolveOrStop> {
        let mut roots = Vec::new();
        for_each_code(open, self.coder.num_bits(), &mut |c| roots.push(c));
        let mut stack: Vec<Frame> = Vec::new();
        let mut legal: Vec<Vec<MoveId>> = vec![Vec::new(); 2];
        for root in roots {
            if self.table.contains_key(&root) {
                continue;
            }
            stack.push(self.frame(root, &mut legal)?);
            while let Some(top) = stack.last_mut() {
                let mut child = None;
                let mut never = false;
                while top.next < top.succ.len() {
                    match self.table.get(&top.succ[top.next]) {
                        None => {
                            child = Some(top.succ[top.next]);
                            break;
                        }
                        Some(&ON_STACK) | Some(&NEVER) => {
                            never = true;
                            break;
                        }
                        Some(_) => top.next += 1,
                    }
                }
                if let Some(c) = child {
                    let f = self.frame(c, &mut legal)?;
                    stack.push(f);
                    continue;
                }
                let Some(done) = stack.pop() else { break };
                let v = if never {
                    NEVER
                } else {
                    self.stage_value(&done, &key_of)?
                };
                self.table.insert(done.code, v);
                if v != NEVER {
                    self.values[v as usize].codes.push(done.code);
                    self.states += 1;
                    if self.states.is_multiple_of(4096) {
                        check()?;
                    }
                }
            }
        }
        Ok(())
    }

    /// The frame of `code`, which goes on the stack (marked in the table).
    fn frame(&mut self, code: Code, legal: &mut [Vec<MoveId>]) -> Result<Frame, SolveOrStop> {
        let s = self.coder.state(code);
        for (r, l) in legal.iter_mut().enumerate() {
            self.reasoner.legal_moves_into(&s, r, l);
        }
        if legal.iter().any(Vec::is_empty) {
            return Err(SolveOrStop::Error(SolveError::StageGame(
                "a non-terminal state has a role with no legal move".to_string(),
            )));
        }
        let mut succ = Vec::with_capacity(legal[0].len() * legal[1].len());
        for_each_joint_move(legal, |j| {
            succ.push(self.coder.code(&self.reasoner.next_state(&s, j)));
            true
        });
        self.table.insert(code, ON_STACK);
        Ok(Frame {
            code,
            rows: legal[0].len(),
            cols: legal[1].len(),
            succ,
            next: 0,
        })
    }

    /// The value index of `f`'s stage game, its successors all valued.
    fn stage_value(&mut self, f: &Frame, key_of: &impl Fn(f64) -> i64) -> Result<u32, SolveOrStop> {
        let mut sig = Vec::with_capacity(f.succ.len() + 2);
        sig.push(f.rows as u32);
        sig.push(f.cols as u32);
        sig.extend(f.succ.iter().map(|c| self.table[c]));
        if let Some(&v) = self.stage.get(&sig) {
            return Ok(v);
        }
        // Joint moves come role 1 fastest: row-major.
        let payoff: Vec<Vec<f64>> = sig[2..]
            .chunks(f.cols)
            .map(|row| row.iter().map(|&v| self.values[v as usize].value).collect())
            .collect();
        let value = solve_matrix_game(&payoff)
            .map(|s| s.value)
            .map_err(|e| SolveOrStop::Error(SolveError::StageGame(e.to_string())))?;
        let v = self.value_index(value, key_of(value));
        self.stage.insert(sig, v);
        Ok(v)
    }

    /// The values found, as BDDs of the states valued here (built from their codes).
    pub(crate) fn finish<E: BddEngine>(self, e: &E) -> Result<ExplicitValues<E::Bdd>, SolveOrStop> {
        let num_bits = self.coder.num_bits();
        let mut classes = Vec::new();
        for v in self.values {
            if v.codes.is_empty() {
                continue;
            }
            let codes = v
                .codes
                .into_iter()
                .map(|c| u128_words(c, num_bits))
                .collect();
            let bdd = codes_states_bdd(e, self.coder.encoding(), codes)?;
            classes.push((v.value, bdd));
        }
        Ok(ExplicitValues {
            classes,
            stage_games: self.stage.len() as u64,
            states: self.states,
        })
    }
}
