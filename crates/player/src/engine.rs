//! The engine: what a position is worth, what each move leads to, and the move to play, from
//! a solved table (perfect play) or, without one, from a search within a time per move.

use std::time::{Duration, Instant};

use symgame_explicit::{MoveId, Reasoner, State};
use symgame_gamedb::{Answer, GameDatabase, Value};
use symgame_ground::GroundGame;

use crate::depth::Depths;
use crate::position::{Analysis, Assessment, Choice, EngineError};
use crate::search;

/// Where the engine's knowledge comes from.
enum Knowledge {
    /// A solved table: perfect play.
    Table(Box<GameDatabase>),
    /// A search per move.
    Search {
        game: Box<GroundGame>,
        reasoner: Box<Reasoner>,
    },
}

/// The engine of one game.
pub struct Engine {
    knowledge: Knowledge,
    depths: Depths,
    /// The last analysis (searches are costly: showing a position and then choosing in it
    /// searches once).
    last: Option<Analysis>,
    rng: u64,
}

impl Engine {
    /// Perfect play from a solved table.
    pub fn with_table(db: GameDatabase) -> Engine {
        Engine::new(Knowledge::Table(Box::new(db)))
    }

    /// Play by searching each position within the time given.
    pub fn searching(game: GroundGame) -> Engine {
        let reasoner = Box::new(Reasoner::new(&game));
        Engine::new(Knowledge::Search {
            game: Box::new(game),
            reasoner,
        })
    }

    fn new(knowledge: Knowledge) -> Engine {
        Engine {
            knowledge,
            depths: Depths::default(),
            last: None,
            rng: 0x9E37_79B9_7F4A_7C15,
        }
    }

    /// Seeds the choice among equally good moves (and of mixed strategies).
    pub fn seed(&mut self, seed: u64) {
        self.rng = seed ^ 0x9E37_79B9_7F4A_7C15;
    }

    /// From now on, perfect play from `db` (a table that became ready during the game).
    pub fn set_table(&mut self, db: GameDatabase) {
        self.knowledge = Knowledge::Table(Box::new(db));
        self.last = None;
    }

    /// Whether moves come from a solved table.
    pub fn has_table(&self) -> bool {
        matches!(self.knowledge, Knowledge::Table(_))
    }

    /// The ground game.
    pub fn game(&self) -> &GroundGame {
        match &self.knowledge {
            Knowledge::Table(db) => db.game(),
            Knowledge::Search { game, .. } => game,
        }
    }

    /// The explicit reasoner that plays the moves.
    pub fn reasoner(&self) -> &Reasoner {
        match &self.knowledge {
            Knowledge::Table(db) => db.reasoner(),
            Knowledge::Search { reasoner, .. } => reasoner,
        }
    }

    /// The moves of `joint` as text: the mover's move, or every role's.
    pub fn move_text(&self, joint: &[MoveId], mover: Option<usize>) -> String {
        move_text(self.game(), joint, mover)
    }

    /// The position `state`: its value and every move's (searching until `deadline` when
    /// there is no table, or the table does not hold the state).
    ///
    /// Errors: none today; the `Result` is kept for tables that can fail to read.
    pub fn analyse(&mut self, state: &State, deadline: Instant) -> Result<Analysis, EngineError> {
        if let Some(a) = self.last.as_ref().filter(|a| &a.state == state) {
            return Ok(a.clone());
        }
        let analysis = match &self.knowledge {
            // A state the table does not hold (one left unsolved in a game with cycles) is
            // searched.
            Knowledge::Table(db) => match db.answer(state) {
                Ok(answer) => table_analysis(db, &mut self.depths, &answer, deadline),
                Err(_) => searched(db.reasoner(), state, deadline),
            },
            Knowledge::Search { reasoner, .. } => searched(reasoner, state, deadline),
        };
        self.last = Some(analysis.clone());
        Ok(analysis)
    }

    /// The move `role` plays in `state`: a perfect one from a table (the shortest win, the
    /// longest loss), else the best the search found by `deadline`.
    ///
    /// Errors: those of [`Engine::analyse`]; a terminal state; a role without a legal move.
    pub fn choose(
        &mut self,
        state: &State,
        role: usize,
        deadline: Instant,
    ) -> Result<MoveId, EngineError> {
        let legal = self.reasoner().legal_moves(state, role);
        match legal.len() {
            0 => {
                return Err(EngineError(format!(
                    "role {} has no legal move here",
                    self.game().roles[role].name
                )))
            }
            1 => return Ok(legal[0]),
            _ => {}
        }
        let a = self.analyse(state, deadline)?;
        if a.terminal {
            return Err(EngineError("the game is over".to_string()));
        }
        // Where both roles choose in a table of mixed values: the role's optimal strategy.
        if let Some(strategy) = a.strategies.as_ref().and_then(|s| s.get(role)) {
            return Ok(self.sample(strategy));
        }
        let mut best: Option<(Key, Vec<MoveId>)> = None;
        for &m in &legal {
            let key = move_key(&a, role, m);
            if best.as_ref().is_none_or(|(b, _)| key > *b) {
                best = Some((key, vec![m]));
            } else if let Some((b, ms)) = best.as_mut() {
                if key == *b {
                    ms.push(m);
                }
            }
        }
        let ms = best.map(|(_, ms)| ms).unwrap_or(legal);
        let i = (self.next_random() % ms.len() as u64) as usize;
        Ok(ms[i])
    }

    /// A joint move where the engine plays every role (`--as none`).
    pub fn choose_joint(
        &mut self,
        state: &State,
        deadline: Instant,
    ) -> Result<Vec<MoveId>, EngineError> {
        (0..self.reasoner().num_roles())
            .map(|p| self.choose(state, p, deadline))
            .collect()
    }

    fn sample(&mut self, strategy: &[(MoveId, f64)]) -> MoveId {
        let x = (self.next_random() >> 11) as f64 / (1u64 << 53) as f64;
        let mut acc = 0.0;
        for &(m, p) in strategy {
            acc += p;
            if x < acc {
                return m;
            }
        }
        strategy.last().map_or(0, |&(m, _)| m)
    }

    /// SplitMix64.
    fn next_random(&mut self) -> u64 {
        self.rng = self.rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// How good a move is for a role, larger is better: optimal first, then the worst reward
/// margin over the other roles' moves, then the length (short when winning, long when not).
type Key = (bool, i32, i64);

fn move_key(a: &Analysis, role: usize, m: MoveId) -> Key {
    let mut worst: Option<Key> = None;
    for c in a.choices.iter().filter(|c| c.joint[role] == m) {
        let key = match &c.value {
            None => (false, -1000, 0),
            Some(v) => {
                let other = v.best_other(role).unwrap_or(0);
                let d = i64::from(v.depth.unwrap_or(u32::MAX / 2));
                let length = if v.rewards[role] >= other { -d } else { d };
                // One role: its reward alone; several: the margin over the best other role.
                (c.optimal || a.mover != Some(role), v.margin(role), length)
            }
        };
        worst = Some(worst.map_or(key, |w| w.min(key)));
    }
    worst.unwrap_or((false, -1000, 0))
}

/// The only role with more than one legal move.
pub(crate) fn sole_mover(r: &Reasoner, state: &State) -> Option<usize> {
    let choosers: Vec<usize> = (0..r.num_roles())
        .filter(|&p| r.legal_moves(state, p).len() > 1)
        .collect();
    match choosers[..] {
        [p] => Some(p),
        _ => None,
    }
}

fn move_text(g: &GroundGame, joint: &[MoveId], mover: Option<usize>) -> String {
    match mover {
        Some(p) => g.roles[p].moves[joint[p]].to_string(),
        None => joint
            .iter()
            .enumerate()
            .map(|(p, &m)| format!("{}: {}", g.roles[p].name, g.roles[p].moves[m]))
            .collect::<Vec<_>>()
            .join(", "),
    }
}

/// The analysis of `state` by search until `deadline`.
fn searched(r: &Reasoner, state: &State, deadline: Instant) -> Analysis {
    search::analyse(r, state, sole_mover(r, state), deadline)
}

fn table_analysis(
    db: &GameDatabase,
    depths: &mut Depths,
    answer: &Answer,
    deadline: Instant,
) -> Analysis {
    let mut assess = |state: &State, v: &Value| Assessment {
        rewards: v.rewards.clone(),
        depth: depths.depth(db, state, v, deadline),
        mixed: v.mixed.clone(),
    };
    let value = assess(&answer.state, &answer.value);
    let mover = sole_mover(db.reasoner(), &answer.state);
    let choices = answer
        .successors
        .iter()
        .map(|s| {
            // A move's length counts the move itself.
            let v = s.value.as_ref().map(|v| {
                let a = assess(&s.state, v);
                Assessment {
                    depth: a.depth.map(|d| d + 1),
                    ..a
                }
            });
            // Among the moves that keep the value, the perfect ones also keep the length:
            // the shortest win, the longest loss.
            let length_kept = match (value.depth, v.as_ref().and_then(|v| v.depth)) {
                (Some(d), Some(e)) => e == d,
                _ => true,
            };
            Choice {
                joint: s.joint.clone(),
                value: v,
                optimal: s.optimal && length_kept,
            }
        })
        .collect();
    Analysis {
        state: answer.state.clone(),
        terminal: answer.terminal,
        mover,
        value: Some(value),
        choices,
        strategies: answer.strategies.clone(),
    }
}

/// A deadline `d` from now, saturating.
pub fn deadline_in(d: Duration) -> Instant {
    let now = Instant::now();
    now.checked_add(d)
        .unwrap_or_else(|| now + Duration::from_secs(86_400 * 365))
}
