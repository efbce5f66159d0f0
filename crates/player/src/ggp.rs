//! The General Game Playing communication protocol, without the HTTP around it: a [`Player`]
//! answers the text of each message (`info`, `preview`, `start`, `play`, `stop`, `abort`)
//! with the text of its reply, for any number of matches at once.
//!
//! * `(info)`: `available`, or `busy` when [`PlayerConfig::max_matches`] matches are running.
//! * `(preview RULES CLOCK)`: `ready` once the rules are checked; with a database directory,
//!   the game is then solved in the background until the clock is nearly over and kept there
//!   for the match to come (at most two previews at once).
//! * `(start ID ROLE RULES STARTCLOCK PLAYCLOCK)`: the rules are parsed, checked and grounded
//!   in a thread of the match; then a database of the same game (by fingerprint) is looked for
//!   in [`PlayerConfig::db_dir`], else the game is solved, until the start clock is nearly
//!   over (and kept in that directory, when there is one). The reply is `ready` when grounding
//!   is done and the table is ready or the time is up; rules that do not read or ground are
//!   an error. A table that comes later is used from the next move on.
//! * `(play ID MOVES)`: MOVES is `nil` the first time, then the last joint move in role
//!   order; the reply is the move to play, perfect from a table, else the best a search
//!   found before the play clock (less a margin) runs out.
//! * `(stop ID MOVES)`, `(abort ID)`: `done`; the match is forgotten.
//!
//! Every malformed or out-of-order message (not an s-expression, an unknown kind, a match
//! that does not exist or already exists, an unknown or illegal move, rules that are not GDL)
//! is a [`ProtocolError`]; the player goes on serving the other matches.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use symgame_explicit::{MoveId, State};
use symgame_gamedb::GameDatabase;
use symgame_ground::{GroundGame, GroundOptions, GroundTerm};

use crate::engine::{deadline_in, Engine};
use crate::sexpr::{self, Sexpr};
use crate::tables::{solve_table, table_in_dir, Keep};

/// What a player is set up with.
#[derive(Clone, Debug)]
pub struct PlayerConfig {
    /// Where stored databases are looked for by fingerprint, and where games solved during a
    /// start clock are kept.
    pub db_dir: Option<PathBuf>,
    /// Matches at once; `info` answers `busy` at this many, and `start` is refused past it.
    pub max_matches: usize,
}

impl Default for PlayerConfig {
    fn default() -> Self {
        PlayerConfig {
            db_dir: None,
            max_matches: 16,
        }
    }
}

/// A message the player cannot answer, with the HTTP status that says so.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProtocolError {
    /// 400 (malformed or out of order), 404 (no such match), 409 (the match exists), 500
    /// (the player failed), 503 (too many matches).
    pub status: u16,
    /// What was wrong.
    pub message: String,
}

impl std::fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.message, self.status)
    }
}

impl std::error::Error for ProtocolError {}

fn bad(message: impl Into<String>) -> ProtocolError {
    ProtocolError {
        status: 400,
        message: message.into(),
    }
}

/// What the preparing thread of a match reports.
enum Phase {
    /// The rules are grounded.
    Grounded(Box<GroundGame>),
    /// The rules are not a playable game.
    Failed(String),
    /// The table, or why there is none.
    Table(Result<Box<GameDatabase>, String>),
}

/// One match.
struct Match {
    role_name: String,
    role: Option<usize>,
    play_clock: f64,
    engine: Option<Engine>,
    state: Option<State>,
    /// Whether a `play` has been answered (then `nil` is out of order).
    started: bool,
    /// When the last message about the match came (a match the game server forgot, with no
    /// `stop` or `abort`, is dropped once idle for long, see [`Match::forgotten`]).
    last_seen: Instant,
    phases: Option<Receiver<Phase>>,
    /// Why there is no table, once that is known.
    no_table: Option<String>,
}

impl Match {
    /// Whether the match has been idle so long that the game server must have forgotten it:
    /// ten play clocks, and at least ten minutes.
    fn forgotten(&self, now: Instant) -> bool {
        let idle = Duration::from_secs_f64((self.play_clock * 10.0).clamp(600.0, 1e6));
        now.saturating_duration_since(self.last_seen) > idle
    }

    /// Takes the phases that arrived, waiting for more until `until` while `wait` holds.
    fn absorb(
        &mut self,
        until: Option<Instant>,
        wait: impl Fn(&Match) -> bool,
    ) -> Result<(), ProtocolError> {
        while let Some(rx) = &self.phases {
            let phase = match until {
                Some(t) if wait(self) => {
                    match rx.recv_timeout(t.saturating_duration_since(Instant::now())) {
                        Ok(p) => p,
                        Err(RecvTimeoutError::Timeout) => return Ok(()),
                        Err(RecvTimeoutError::Disconnected) => {
                            self.phases = None;
                            return Ok(());
                        }
                    }
                }
                _ => match rx.try_recv() {
                    Ok(p) => p,
                    Err(std::sync::mpsc::TryRecvError::Empty) => return Ok(()),
                    Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                        self.phases = None;
                        return Ok(());
                    }
                },
            };
            match phase {
                Phase::Grounded(game) => {
                    let role = game.find_role(&self.role_name).ok_or_else(|| {
                        bad(format!(
                            "the game has no role {} (its roles: {})",
                            self.role_name,
                            game.roles
                                .iter()
                                .map(|r| r.name.to_string())
                                .collect::<Vec<_>>()
                                .join(", ")
                        ))
                    })?;
                    self.role = Some(role);
                    let engine = Engine::searching(*game);
                    self.state = Some(engine.reasoner().initial_state());
                    self.engine = Some(engine);
                }
                Phase::Failed(why) => {
                    return Err(bad(format!("the rules are not a playable game: {why}")))
                }
                Phase::Table(Ok(db)) => {
                    if let Some(e) = self.engine.as_mut() {
                        e.set_table(*db);
                    }
                    self.phases = None;
                }
                Phase::Table(Err(why)) => {
                    self.no_table = Some(why);
                    self.phases = None;
                }
            }
        }
        Ok(())
    }
}

/// A GGP player serving several matches.
pub struct Player {
    config: PlayerConfig,
    matches: Mutex<HashMap<String, Arc<Mutex<Match>>>>,
    /// Previews being solved (at most [`MAX_PREVIEWS`] at once).
    previews: Arc<AtomicUsize>,
}

/// Games solved for previews at once; more previews are only checked.
const MAX_PREVIEWS: usize = 2;

/// The time to answer within a clock of `seconds`: the clock less a margin for the network
/// and the game server (a fifth of it, from 0.2 to 2 seconds).
pub fn answer_time(seconds: f64) -> Duration {
    let c = if seconds.is_finite() {
        seconds.clamp(0.0, 1e6)
    } else {
        0.0
    };
    let margin = (c * 0.2).clamp(0.2, 2.0);
    Duration::from_secs_f64((c - margin).max(0.05))
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A thread that panicked while holding the lock left the data as it was between two
    // messages; serving goes on.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Player {
    /// A player with no match.
    pub fn new(config: PlayerConfig) -> Player {
        Player {
            config,
            matches: Mutex::new(HashMap::new()),
            previews: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// The number of matches in progress.
    pub fn matches(&self) -> usize {
        lock(&self.matches).len()
    }

    /// The reply to the message `body`, received at `received`.
    pub fn handle(&self, body: &str, received: Instant) -> Result<String, ProtocolError> {
        let msg = sexpr::parse(body).map_err(|e| bad(format!("not a message: {e}")))?;
        let (kind, args) = match &msg {
            Sexpr::List(items, _) if !items.is_empty() => match items[0].atom() {
                Some(k) => (k, &items[1..]),
                None => return Err(bad("a message starts with its kind, e.g. (play ...)")),
            },
            Sexpr::Atom(..) => (msg.atom().unwrap_or_default(), &[][..]),
            _ => return Err(bad("an empty message")),
        };
        let arity = |n: usize| {
            if args.len() == n {
                Ok(())
            } else {
                Err(bad(format!(
                    "{kind} takes {n} arguments, not {}",
                    args.len()
                )))
            }
        };
        match kind.as_str() {
            "info" => {
                arity(0)?;
                Ok(if self.matches() >= self.config.max_matches { "busy" } else { "available" }
                    .to_string())
            }
            "preview" => {
                arity(2)?;
                read_rules(body, &args[0], None)?;
                let seconds = clock(&args[1], "preview clock")?;
                self.preview(rules_text(body, &args[0])?, received + answer_time(seconds));
                Ok("ready".to_string())
            }
            "start" => {
                arity(5)?;
                self.start(body, args, received)
            }
            "play" => {
                arity(2)?;
                self.play(&match_id(&args[0])?, &args[1], body, received)
            }
            "stop" => {
                arity(2)?;
                let id = match_id(&args[0])?;
                let m = self.get(&id)?;
                // The last moves are checked, but the match ends whatever they are.
                let _ = apply_moves(&mut lock(&m), &args[1], body);
                lock(&self.matches).remove(&id);
                Ok("done".to_string())
            }
            "abort" => {
                arity(1)?;
                let id = match_id(&args[0])?;
                self.get(&id)?;
                lock(&self.matches).remove(&id);
                Ok("done".to_string())
            }
            other => Err(bad(format!(
                "unknown message kind {other:?} (expected info, preview, start, play, stop or abort)"
            ))),
        }
    }

    /// How match `id` plays: "table" (perfect play), "search: WHY" (no table, and why), or
    /// "preparing"; `None` for no such match.
    pub fn match_info(&self, id: &str) -> Option<String> {
        let m = self.get(id).ok()?;
        let mut m = lock(&m);
        let _ = m.absorb(None, |_| false);
        Some(match (&m.engine, &m.no_table) {
            (Some(e), _) if e.has_table() => "table".to_string(),
            (Some(_), Some(why)) => format!("search: {why}"),
            _ => "preparing".to_string(),
        })
    }

    /// With a database directory: solves the previewed game in the background until
    /// `deadline` (the preview clock less a margin), unless its table is there already, and
    /// keeps it there for the match to come.
    fn preview(&self, rules: String, deadline: Instant) {
        let Some(dir) = self.config.db_dir.clone() else {
            return;
        };
        let running = self.previews.clone();
        if running.fetch_add(1, Ordering::SeqCst) >= MAX_PREVIEWS {
            running.fetch_sub(1, Ordering::SeqCst);
            return;
        }
        std::thread::spawn(move || {
            // The receiver lives until the work is done: `prepare` stops when it is gone.
            let (tx, _rx) = channel();
            prepare(rules, "preview".to_string(), deadline, Some(dir), tx);
            running.fetch_sub(1, Ordering::SeqCst);
        });
    }

    fn get(&self, id: &str) -> Result<Arc<Mutex<Match>>, ProtocolError> {
        lock(&self.matches)
            .get(id)
            .cloned()
            .ok_or_else(|| ProtocolError {
                status: 404,
                message: format!("no match {id} (never started, or already over)"),
            })
    }

    fn start(
        &self,
        body: &str,
        args: &[Sexpr],
        received: Instant,
    ) -> Result<String, ProtocolError> {
        let id = match_id(&args[0])?;
        let role_name = args[1]
            .atom()
            .ok_or_else(|| bad(format!("the role is a name, not {}", args[1])))?;
        let start_clock = clock(&args[3], "start clock")?;
        let play_clock = clock(&args[4], "play clock")?;
        let deadline = received + answer_time(start_clock);
        let rules = rules_text(body, &args[2])?;
        let (tx, rx) = channel();
        let m = Arc::new(Mutex::new(Match {
            role_name,
            role: None,
            play_clock,
            engine: None,
            state: None,
            started: false,
            last_seen: received,
            phases: Some(rx),
            no_table: None,
        }));
        {
            let mut matches = lock(&self.matches);
            if matches.contains_key(&id) {
                return Err(ProtocolError {
                    status: 409,
                    message: format!("match {id} is already being played"),
                });
            }
            if matches.len() >= self.config.max_matches {
                // Make room by dropping the forgotten matches (a busy match is not forgotten:
                // its lock is held).
                matches.retain(|_, m| m.try_lock().map_or(true, |m| !m.forgotten(received)));
            }
            if matches.len() >= self.config.max_matches {
                return Err(ProtocolError {
                    status: 503,
                    message: format!("busy: {} matches at once already", matches.len()),
                });
            }
            matches.insert(id.clone(), m.clone());
        }
        let db_dir = self.config.db_dir.clone();
        let name = format!("match {id}");
        std::thread::spawn(move || prepare(rules, name, deadline, db_dir, tx));
        let mut guard = lock(&m);
        // Wait for the grounding and the table, until the start clock is nearly over.
        let result = guard.absorb(Some(deadline), |m| m.phases.is_some());
        // The preparing thread ended without a game: it failed (a bug in grounding).
        let result = result.and_then(|()| match (&guard.engine, &guard.phases) {
            (None, None) => Err(ProtocolError {
                status: 500,
                message: "the rules could not be prepared".to_string(),
            }),
            _ => Ok(()),
        });
        match result {
            Err(e) => {
                drop(guard);
                lock(&self.matches).remove(&id);
                Err(e)
            }
            Ok(()) => Ok("ready".to_string()),
        }
    }

    fn play(
        &self,
        id: &str,
        moves: &Sexpr,
        body: &str,
        received: Instant,
    ) -> Result<String, ProtocolError> {
        let m = self.get(id)?;
        let mut m = lock(&m);
        m.last_seen = received;
        let deadline = received + answer_time(m.play_clock);
        // Grounding not done by the start clock: wait for it (for nothing else).
        m.absorb(Some(deadline), |m| m.engine.is_none())?;
        if m.engine.is_none() {
            return Err(bad(format!(
                "match {id}: the rules are still being grounded"
            )));
        }
        apply_moves(&mut m, moves, body)?;
        m.started = true;
        let (Some(role), Some(state)) = (m.role, m.state.clone()) else {
            return Err(bad("the match has no state"));
        };
        let engine = m.engine.as_mut().expect("checked above");
        // Whatever goes wrong, a legal move is better than none: the game server would pick
        // one at random.
        let mv = match engine.choose(&state, role, deadline) {
            Ok(mv) => mv,
            Err(e) => match engine.reasoner().legal_moves(&state, role).first() {
                Some(&mv) => mv,
                None => return Err(bad(format!("match {id}: {e}"))),
            },
        };
        Ok(engine.game().roles[role].moves[mv].to_string())
    }
}

/// The match id: an atom.
fn match_id(e: &Sexpr) -> Result<String, ProtocolError> {
    match e {
        Sexpr::Atom(a, _) => Ok(a.clone()),
        _ => Err(bad(format!("a match id is a name, not {e}"))),
    }
}

/// A clock in seconds.
fn clock(e: &Sexpr, what: &str) -> Result<f64, ProtocolError> {
    e.atom()
        .and_then(|a| a.parse::<f64>().ok())
        .filter(|c| c.is_finite() && *c >= 0.0)
        .ok_or_else(|| bad(format!("the {what} is a number of seconds, not {e}")))
}

/// The text of the rules inside the list `e` of the message `body`.
fn rules_text(body: &str, e: &Sexpr) -> Result<String, ProtocolError> {
    match e {
        Sexpr::List(_, span) => Ok(body[span.start + 1..span.end - 1].to_string()),
        _ => Err(bad(format!("the rules are a list of rules, not {e}"))),
    }
}

/// The rules parsed and checked (before `deadline`).
fn read_rules(
    body: &str,
    e: &Sexpr,
    deadline: Option<Instant>,
) -> Result<symgame_gdl::CheckedDescription, ProtocolError> {
    let text = rules_text(body, e)?;
    check_rules(text, "rules", deadline).map_err(|e| bad(format!("the rules are not GDL: {e}")))
}

fn check_rules(
    text: String,
    name: &str,
    deadline: Option<Instant>,
) -> Result<symgame_gdl::CheckedDescription, symgame_gdl::Error> {
    let source = symgame_gdl::Source::from_bytes(name, text.into_bytes())?;
    symgame_gdl::check_within(symgame_gdl::parse_within(source, deadline)?, deadline)
}

/// The match's preparation: ground, then find or make the table.
fn prepare(
    rules: String,
    name: String,
    deadline: Instant,
    db_dir: Option<PathBuf>,
    tx: Sender<Phase>,
) {
    let ground = || -> Result<GroundGame, String> {
        let desc = check_rules(rules, &name, Some(deadline)).map_err(|e| e.to_string())?;
        let opts = GroundOptions {
            time_limit: Some(deadline.saturating_duration_since(Instant::now())),
            ..Default::default()
        };
        symgame_ground::ground(&desc, &opts).map_err(|e| e.to_string())
    };
    let game = match ground() {
        Ok(g) => g,
        Err(why) => {
            let _ = tx.send(Phase::Failed(why));
            return;
        }
    };
    if tx.send(Phase::Grounded(Box::new(game.clone()))).is_err() {
        return;
    }
    let table = find_table(&game, &name, deadline, db_dir.as_deref());
    let _ = tx.send(Phase::Table(table.map(Box::new)));
}

fn find_table(
    game: &GroundGame,
    name: &str,
    deadline: Instant,
    db_dir: Option<&std::path::Path>,
) -> Result<GameDatabase, String> {
    if let Some(dir) = db_dir {
        if let Some((_, db)) = table_in_dir(dir, game) {
            return db.map_err(|e| e.to_string());
        }
    }
    let keep = match db_dir {
        Some(d) => Keep::In(d),
        None => Keep::Nowhere,
    };
    solve_table(game, name, deadline, keep)
}

/// Plays the joint move `moves` (or nothing for `nil`) in the match.
fn apply_moves(m: &mut Match, moves: &Sexpr, body: &str) -> Result<(), ProtocolError> {
    let (Some(engine), Some(state)) = (&m.engine, &m.state) else {
        return Err(bad("the match has no game yet"));
    };
    let items = match moves {
        Sexpr::Atom(..) if moves.atom().as_deref() == Some("nil") => {
            if m.started {
                return Err(bad("nil (no moves yet) after the match has begun"));
            }
            return Ok(());
        }
        Sexpr::List(items, _) => items,
        _ => return Err(bad(format!("the moves are nil or a list, not {moves}"))),
    };
    if !m.started {
        return Err(bad("moves before the first play (which has nil)"));
    }
    let r = engine.reasoner();
    let game = engine.game();
    if r.is_terminal(state) {
        return Err(bad("moves after the game has ended"));
    }
    if items.len() != game.roles.len() {
        return Err(bad(format!(
            "{} moves for {} roles",
            items.len(),
            game.roles.len()
        )));
    }
    let mut joint: Vec<MoveId> = Vec::with_capacity(items.len());
    for (p, item) in items.iter().enumerate() {
        let text = &body[item.span()];
        let term = GroundTerm::parse(text).map_err(|e| bad(format!("move {text}: {e}")))?;
        let legal = r.legal_moves(state, p);
        match game.find_move(p, &term).filter(|m| legal.contains(m)) {
            Some(id) => joint.push(id),
            None => {
                return Err(bad(format!(
                    "{term} is not a legal move of {} (legal: {})",
                    game.roles[p].name,
                    legal
                        .iter()
                        .map(|&m| game.roles[p].moves[m].to_string())
                        .collect::<Vec<_>>()
                        .join(" ")
                )))
            }
        }
    }
    let next = r.next_state(state, &joint);
    m.state = Some(next);
    Ok(())
}

/// A deadline for callers that have none: a year from now.
pub fn far_deadline() -> Instant {
    deadline_in(Duration::from_secs(86_400 * 365))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tictactoe_start(id: &str) -> String {
        let rules = std::fs::read_to_string(symgame_testkit::gdl_path("tictactoe")).unwrap();
        format!("(START {id} OPLAYER ({rules}\n) 30 10)")
    }

    #[test]
    fn answer_time_keeps_a_margin() {
        assert_eq!(answer_time(10.0), Duration::from_secs(8));
        assert_eq!(answer_time(60.0), Duration::from_secs(58));
        assert_eq!(answer_time(1.0), Duration::from_millis(800));
        assert_eq!(answer_time(0.0), Duration::from_millis(50));
        assert_eq!(answer_time(f64::NAN), Duration::from_millis(50));
    }

    #[test]
    fn a_match_in_capitals_and_its_errors() {
        let p = Player::new(PlayerConfig::default());
        let now = Instant::now;
        assert_eq!(p.handle("(INFO)", now()).unwrap(), "available");
        assert_eq!(p.handle(&tictactoe_start("m"), now()).unwrap(), "ready");
        assert_eq!(p.match_info("m").as_deref(), Some("table"));
        // oplayer's first move is xplayer's turn: noop.
        assert_eq!(p.handle("(PLAY m NIL)", now()).unwrap(), "noop");
        let reply = p.handle("(PLAY m ((MARK 2 2) NOOP))", now()).unwrap();
        let corner = ["(mark 1 1)", "(mark 1 3)", "(mark 3 1)", "(mark 3 3)"];
        assert!(
            corner.contains(&reply.as_str()),
            "{reply}: only a corner draws"
        );
        let e = p.handle("(PLAY m ((MARK 2 2) NOOP))", now()).unwrap_err();
        assert_eq!(e.status, 400);
        assert!(e.message.contains("not a legal move of xplayer"), "{e}");
        assert_eq!(p.handle("(ABORT m)", now()).unwrap(), "done");
        assert_eq!(p.handle("(ABORT m)", now()).unwrap_err().status, 404);
        assert_eq!(p.matches(), 0);
    }

    #[test]
    fn forgotten_matches_make_room() {
        let p = Player::new(PlayerConfig {
            db_dir: None,
            max_matches: 1,
        });
        let t0 = Instant::now();
        assert_eq!(p.handle(&tictactoe_start("a"), t0).unwrap(), "ready");
        assert_eq!(p.handle("(info)", t0).unwrap(), "busy");
        assert_eq!(p.handle(&tictactoe_start("b"), t0).unwrap_err().status, 503);
        // An hour later (a play clock of 10 s: forgotten after 10 minutes) there is room.
        let later = t0 + Duration::from_secs(3600);
        assert_eq!(p.handle(&tictactoe_start("b"), later).unwrap(), "ready");
        assert_eq!(p.handle("(abort a)", later).unwrap_err().status, 404);
    }
}
