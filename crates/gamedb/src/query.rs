//! Querying a game database with the game at hand: states by their GDL fluents, by moves from
//! the initial state, or by rank; values, and the optimal moves found by looking every
//! successor up.

use std::path::Path;

use serde::Serialize;
use symgame_db::{Database, Hit};
use symgame_explicit::{play_moves, MoveId, Reasoner, State};
use symgame_ground::{GroundGame, GroundTerm};
use symgame_symbolic::{Encoding, SymbolicOptions};

use crate::error::{Error, ErrorKind, Result};
use crate::metadata::{fingerprint, Metadata};

/// The value of one state, as a database stores it: what the state is worth, then where the
/// file keeps it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Value {
    /// The reward of every role under optimal play, in role order.
    pub rewards: Vec<u8>,
    /// Single-player games: moves to the nearest terminal state with that reward.
    pub distance: Option<u32>,
    /// Mixed values: every role's value in mixed strategies (`rewards` are then the pure
    /// security levels).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mixed: Option<Vec<f64>>,
    /// The number of the state's layer (its BFS depth in a layered database, else 0).
    pub layer: u32,
    /// Its rank within the layer.
    pub rank: u64,
    /// Its rank over the whole file (the states of earlier layers first).
    pub global_rank: u64,
}

/// A joint move from a queried state and what it leads to.
#[derive(Clone, Debug, PartialEq)]
pub struct Successor {
    /// One move per role (indexes into each role's moves).
    pub joint: Vec<MoveId>,
    /// The state it leads to.
    pub state: State,
    /// That state's value (`None` if the database does not hold it: an unsolved state of a
    /// game with cycles).
    pub value: Option<Value>,
    /// Whether the move keeps the value: the same rewards, and for single-player games a
    /// distance one less.
    pub optimal: bool,
}

/// Everything a query answers about one state: the position as the game defines it, then what
/// the database says of it and of its moves.
#[derive(Clone, Debug, PartialEq)]
pub struct Answer {
    /// The state.
    pub state: State,
    /// Whether the game is over in it.
    pub terminal: bool,
    /// The role with a choice (at least two legal moves); `None` in terminal and forced
    /// states.
    pub mover: Option<usize>,
    /// Its value, layer and rank.
    pub value: Value,
    /// Every joint move, in the reasoner's order, with its successor's value.
    pub successors: Vec<Successor>,
    /// Mixed values, where both roles choose: an optimal mixed strategy of each role, as
    /// (move, probability) pairs over its legal moves (the stage game's LP, solved on the
    /// successors' values read from the database).
    pub strategies: Option<Strategies>,
}

/// Per role, (move, probability) pairs over its legal moves: an optimal mixed strategy.
pub type Strategies = Vec<Vec<(MoveId, f64)>>;

impl Answer {
    /// The optimal joint moves.
    pub fn optimal(&self) -> impl Iterator<Item = &Successor> {
        self.successors.iter().filter(|s| s.optimal)
    }
}

/// A database file opened for one game: checks on open that the file was made for this
/// ground game and variable order (the fingerprint), then answers queries about its states.
pub struct GameDatabase {
    db: Database,
    game: GroundGame,
    encoding: Encoding,
    reasoner: Reasoner,
    metadata: Metadata,
}

impl GameDatabase {
    /// Open the database at `path` for `game` with the encoding `sym` asks for (the encoding
    /// kind and variable order the export used; `SymbolicOptions::default()` for the CLI's
    /// files). The whole file is validated.
    ///
    /// Errors: [`ErrorKind::FingerprintMismatch`] if the file was made for another game or
    /// order; [`ErrorKind::Database`] with the reader's kind (foreign, truncated, checksum,
    /// ...); [`ErrorKind::Metadata`] if the metadata is not a game database's.
    pub fn open(path: &Path, game: GroundGame, sym: &SymbolicOptions) -> Result<GameDatabase> {
        let db = Database::open(path, None).map_err(Error::from)?;
        let metadata = Metadata::from_bytes(db.metadata())
            .map_err(|e| Error::new(ErrorKind::Metadata, format!("{}: {e}", path.display())))?;
        // The encoding the export used, as the file records it (groups proven, or assumed by
        // the solver and checked on every reachable state); it must fit the game and give the
        // file's fingerprint. Else the one `sym` gives, as for files that do not record it.
        let fits = |enc: &Encoding| fingerprint(&game, enc) == *db.fingerprint();
        let encoding = match metadata.encoding.clone().checked(game.fluents.len()) {
            Ok(enc) if fits(&enc) => enc,
            _ => {
                let enc = Encoding::with_options(&game, sym);
                if !fits(&enc) {
                    return Err(Error::new(
                        ErrorKind::FingerprintMismatch,
                        format!(
                            "{}: the database was made for {}, not for the game given \
                             (fingerprint mismatch: another ground game or variable order)",
                            path.display(),
                            metadata.game
                        ),
                    ));
                }
                enc
            }
        };
        let reasoner = Reasoner::new(&game);
        Ok(GameDatabase {
            db,
            game,
            encoding,
            reasoner,
            metadata,
        })
    }

    /// The file's metadata.
    pub fn metadata(&self) -> &Metadata {
        &self.metadata
    }

    /// The database file.
    pub fn database(&self) -> &Database {
        &self.db
    }

    /// The ground game.
    pub fn game(&self) -> &GroundGame {
        &self.game
    }

    /// The variable layout.
    pub fn encoding(&self) -> &Encoding {
        &self.encoding
    }

    /// The explicit reasoner the successors come from.
    pub fn reasoner(&self) -> &Reasoner {
        &self.reasoner
    }

    /// The state whose true fluents are `fluents` (the others false).
    ///
    /// Errors: [`ErrorKind::UnknownFluent`] for a term that is not a fluent of the game.
    pub fn state_of(&self, fluents: &[GroundTerm]) -> Result<State> {
        let mut s = State::empty(self.game.fluents.len());
        for t in fluents {
            let f = self.game.find_fluent(t).ok_or_else(|| {
                Error::new(
                    ErrorKind::UnknownFluent,
                    format!(
                        "{t} is not a fluent of the game (it has {} fluents, e.g. {})",
                        self.game.fluents.len(),
                        self.game
                            .fluents
                            .first()
                            .map_or("none".to_string(), |f| f.to_string())
                    ),
                )
            })?;
            s.insert(f);
        }
        Ok(s)
    }

    /// The state after `moves` from the initial state (each move played by the role for which
    /// it is legal, the others playing their only legal move).
    ///
    /// Errors: [`ErrorKind::IllegalMove`] naming the first move that cannot be played.
    pub fn play(&self, moves: &[GroundTerm]) -> Result<State> {
        let r = &self.reasoner;
        play_moves(r, &self.game, &r.initial_state(), moves)
            .map_err(|m| Error::new(ErrorKind::IllegalMove, m))
    }

    /// The true fluents of `state` as GDL terms.
    pub fn fluent_terms(&self, state: &State) -> Vec<String> {
        state
            .fluents()
            .map(|f| self.game.fluents[f].to_string())
            .collect()
    }

    /// The value of `state`, or `None` if the database does not hold it.
    pub fn lookup(&self, state: &State) -> Option<Value> {
        // A state that breaks a proven group of exclusive fluents is not reachable.
        let a = self.encoding.assignment(state.fluents())?;
        let mixed = &self.metadata.mixed;
        self.db.lookup(&a).map(|hit| value_of(hit, mixed))
    }

    /// The value of `state`.
    ///
    /// Errors: [`ErrorKind::NotInDatabase`] if the state is not there (not reachable, or not
    /// solved).
    pub fn value(&self, state: &State) -> Result<Value> {
        self.lookup(state).ok_or_else(|| {
            Error::new(
                ErrorKind::NotInDatabase,
                format!(
                    "the state {} is not in the database: it is not reachable from the initial \
                     state (or was left unsolved)",
                    self.fluent_terms(state).join(" ")
                ),
            )
        })
    }

    /// The value of `state`, whether the game is over, who moves, and every joint move with
    /// its successor's value, the optimal ones marked.
    ///
    /// Errors: those of [`Self::value`].
    pub fn answer(&self, state: &State) -> Result<Answer> {
        let value = self.value(state)?;
        let r = &self.reasoner;
        let terminal = r.is_terminal(state);
        let (mover, successors) = if terminal {
            (None, Vec::new())
        } else {
            let mover = (0..r.num_roles()).find(|&p| r.legal_moves(state, p).len() > 1);
            let successors = r
                .joint_moves(state)
                .into_iter()
                .map(|joint| {
                    let next = r.next_state(state, &joint);
                    let v = self.lookup(&next);
                    let optimal = v.as_ref().is_some_and(|v| keeps_value(&value, v));
                    Successor {
                        joint,
                        state: next,
                        value: v,
                        optimal,
                    }
                })
                .collect();
            (mover, successors)
        };
        let strategies = match (&value.mixed, terminal) {
            (Some(_), false) => self.mixed_strategies(state, &successors)?,
            _ => None,
        };
        Ok(Answer {
            state: state.clone(),
            terminal,
            mover,
            value,
            successors,
            strategies,
        })
    }

    /// Both roles' optimal mixed strategies in the stage game of `state`, from its
    /// successors' mixed values; `None` where at most one role has a choice.
    fn mixed_strategies(
        &self,
        state: &State,
        successors: &[Successor],
    ) -> Result<Option<Strategies>> {
        let r = &self.reasoner;
        let rows = r.legal_moves(state, 0);
        let columns = r.legal_moves(state, 1);
        if rows.len() < 2 || columns.len() < 2 {
            return Ok(None);
        }
        let mut payoff = vec![vec![f64::NAN; columns.len()]; rows.len()];
        for s in successors {
            let i = rows.iter().position(|&m| m == s.joint[0]);
            let j = columns.iter().position(|&m| m == s.joint[1]);
            let v = s
                .value
                .as_ref()
                .and_then(|v| v.mixed.as_ref()?.first().copied());
            if let (Some(i), Some(j), Some(v)) = (i, j, v) {
                payoff[i][j] = v;
            }
        }
        if payoff.iter().flatten().any(|x| x.is_nan()) {
            return Err(Error::new(
                ErrorKind::NotInDatabase,
                "a successor of a simultaneous state has no mixed value in the database"
                    .to_string(),
            ));
        }
        let s = symgame_prove::solve_matrix_game(&payoff)
            .map_err(|e| Error::new(ErrorKind::Solve, e.to_string()))?;
        Ok(Some(
            [rows, columns]
                .into_iter()
                .zip(s.strategies)
                .map(|(legal, probabilities)| legal.into_iter().zip(probabilities).collect())
                .collect(),
        ))
    }

    /// The state of rank `rank`: within the layer numbered `layer`, or over the whole file
    /// (global rank) when `layer` is `None`.
    ///
    /// Errors: [`ErrorKind::NoSuchLayer`], [`ErrorKind::RankOutOfRange`].
    pub fn unrank(&self, rank: u64, layer: Option<u32>) -> Result<State> {
        let a = match layer {
            Some(k) => {
                let (pos, info) = self
                    .db
                    .layers()
                    .enumerate()
                    .find(|(_, l)| l.number == k)
                    .ok_or_else(|| {
                        let numbers: Vec<u32> = self.db.layers().map(|l| l.number).collect();
                        Error::new(
                            ErrorKind::NoSuchLayer,
                            format!(
                                "the database has no layer {k} (its layers are {})",
                                ranges(&numbers)
                            ),
                        )
                    })?;
                self.db.unrank(pos, rank).ok_or_else(|| {
                    Error::new(
                        ErrorKind::RankOutOfRange,
                        format!(
                            "rank {rank} is out of range: layer {k} has {} states (ranks 0..{})",
                            info.states,
                            info.states.saturating_sub(1)
                        ),
                    )
                })?
            }
            None => {
                self.db
                    .unrank_global(rank)
                    .ok_or_else(|| {
                        Error::new(
                            ErrorKind::RankOutOfRange,
                            format!(
                                "rank {rank} is out of range: the database has {} states (ranks \
                                 0..{})",
                                self.db.len(),
                                self.db.len().saturating_sub(1)
                            ),
                        )
                    })?
                    .0
            }
        };
        let mut s = State::empty(self.game.fluents.len());
        for f in self.encoding.fluents_of(&a) {
            s.insert(f);
        }
        Ok(s)
    }

    /// The moves of `joint` as text: the mover's move when one role has a choice, else every
    /// role's move (`role: move`, comma-separated).
    pub fn move_text(&self, joint: &[MoveId], mover: Option<usize>) -> String {
        match mover {
            Some(p) => self.game.roles[p].moves[joint[p]].to_string(),
            None => joint
                .iter()
                .enumerate()
                .map(|(p, &m)| {
                    format!(
                        "{}: {}",
                        self.game.roles[p].name, self.game.roles[p].moves[m]
                    )
                })
                .collect::<Vec<_>>()
                .join(", "),
        }
    }
}

fn value_of(hit: Hit<'_>, mixed: &[Vec<f64>]) -> Value {
    Value {
        rewards: hit.outcome.rewards.clone(),
        distance: hit.outcome.distance,
        mixed: mixed.get(hit.outcome_index as usize).cloned(),
        layer: hit.layer_number,
        rank: hit.rank,
        global_rank: hit.global_rank,
    }
}

/// Whether moving from a state of value `from` to one of value `to` is optimal.
fn keeps_value(from: &Value, to: &Value) -> bool {
    if let (Some(a), Some(b)) = (&from.mixed, &to.mixed) {
        return a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-6);
    }
    from.rewards == to.rewards
        && match (from.distance, to.distance) {
            (Some(d), Some(e)) => d == e + 1,
            (None, None) => true,
            _ => false,
        }
}

/// `0..20` for consecutive numbers, else a list.
fn ranges(numbers: &[u32]) -> String {
    match numbers {
        [] => "none".to_string(),
        [a] => a.to_string(),
        [a, .., b] if (*b - *a) as usize + 1 == numbers.len() => format!("{a}..={b}"),
        _ => numbers
            .iter()
            .map(|n| n.to_string())
            .collect::<Vec<_>>()
            .join(", "),
    }
}
