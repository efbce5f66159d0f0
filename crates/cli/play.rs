//! `symgame play`: a game in the terminal between a person (moves read from standard input,
//! one a line) and the engine, or the engine against itself (`--as none`).
//!
//! The engine's knowledge comes from a database (`--db`), a solution directory
//! (`--solution`), or solving the game here within `--solve-time`; without a table it
//! searches each move for `--move-time` seconds.

use crate::args::{load_game, parse_seconds};
use crate::failure::{Context, Failure};
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};
use symgame_explicit::{play_moves, MoveId, State};
use symgame_ground::GroundTerm;
use symgame_player::tables::{open_database, solution_table, solve_table, Keep};
use symgame_player::{board, deadline_in, Analysis, Engine};

#[derive(clap::Args)]
pub struct Args {
    /// The game (GDL, KIF syntax).
    game: PathBuf,
    /// A database of the game (written by `symgame export`): perfect play.
    #[arg(long, value_name = "FILE", conflicts_with = "solution")]
    db: Option<PathBuf>,
    /// A solution directory of the game (written by `symgame solve --out`): perfect play.
    #[arg(long, value_name = "DIR")]
    solution: Option<PathBuf>,
    /// The role you play, or `none` to watch the engine play every role. The default is the
    /// first role.
    #[arg(long = "as", value_name = "ROLE")]
    role: Option<String>,
    /// Start after these moves from the initial state, e.g. "(mark 2 2) (mark 1 2)".
    #[arg(long, value_name = "MOVES")]
    moves: Option<String>,
    /// Without --db or --solution: solve the game first for at most this many seconds
    /// (0: never); a game not solved by then is played by search.
    #[arg(long, value_name = "SECONDS", default_value = "20", value_parser = parse_seconds)]
    solve_time: f64,
    /// Without a table: seconds of search for each of the engine's moves.
    #[arg(long, value_name = "SECONDS", default_value = "5", value_parser = parse_seconds)]
    move_time: f64,
    /// Seed of the engine's choice among equally good moves.
    #[arg(long, default_value = "0")]
    seed: u64,
}

pub fn run(a: Args) -> Result<(), Failure> {
    let (_, game) = load_game(&a.game, None)?;
    let name = a.game.file_name().map_or_else(
        || a.game.display().to_string(),
        |n| n.to_string_lossy().into(),
    );
    let human = match a.role.as_deref() {
        Some("none") => None,
        Some(r) => Some(game.find_role(r).ok_or_else(|| {
            Failure::input(format!(
                "--as {r}: the game has no such role (its roles: {}; or none)",
                role_names(&game)
            ))
        })?),
        None => Some(0),
    };
    let mut engine = if let Some(path) = &a.db {
        println!("table     database {}", path.display());
        Engine::with_table(open_database(path, game).about(path.display())?)
    } else if let Some(dir) = &a.solution {
        println!("table     solution {}", dir.display());
        let db = solution_table(&game, &name, dir)
            .map_err(|e| Failure::input(format!("{}: {e}", dir.display())))?;
        Engine::with_table(db)
    } else {
        solve_or_search(game, &name, a.solve_time, a.move_time)
    };
    engine.seed(a.seed);
    let start = engine.reasoner().initial_state();
    let state = match &a.moves {
        None => start,
        Some(text) => {
            let moves = GroundTerm::parse_sequence(text)
                .map_err(|e| Failure::input(format!("--moves: {e}")))?;
            play_moves(engine.reasoner(), engine.game(), &start, &moves)
                .map_err(|e| Failure::input(format!("--moves: {e}")))?
        }
    };
    let move_time = Duration::from_secs_f64(a.move_time);
    Game {
        engine,
        human,
        move_time,
        ply: 0,
    }
    .run(state)
}

fn role_names(game: &symgame_ground::GroundGame) -> String {
    game.roles
        .iter()
        .map(|r| r.name.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// A table from solving within `solve_time` seconds, else an engine that searches.
fn solve_or_search(
    game: symgame_ground::GroundGame,
    name: &str,
    solve_time: f64,
    move_time: f64,
) -> Engine {
    if solve_time > 0.0 {
        let started = Instant::now();
        let deadline = deadline_in(Duration::from_secs_f64(solve_time));
        match solve_table(&game, name, deadline, Keep::Nowhere) {
            Ok(db) => {
                println!(
                    "table     solved here in {:.2} s",
                    started.elapsed().as_secs_f64()
                );
                return Engine::with_table(db);
            }
            Err(why) => println!("table     none ({why})"),
        }
    }
    println!("engine    searches {move_time} s a move (alpha-beta)");
    Engine::searching(game)
}

/// A game in progress.
struct Game {
    engine: Engine,
    human: Option<usize>,
    move_time: Duration,
    ply: u32,
}

impl Game {
    fn run(mut self, mut state: State) -> Result<(), Failure> {
        let stdin = std::io::stdin();
        let mut lines = stdin.lock().lines();
        loop {
            let a = self.analyse(&state)?;
            self.show(&a);
            if a.terminal {
                let r = self.engine.reasoner();
                let g = self.engine.game();
                let goals: Vec<String> = (0..r.num_roles())
                    .map(|p| format!("{} {}", g.roles[p].name, r.goal(&state, p).unwrap_or(0)))
                    .collect();
                println!("game over: {}", goals.join(", "));
                return Ok(());
            }
            let Some(joint) = self.joint_move(&state, &a, &mut lines)? else {
                println!("input ended; the game stops here");
                return Ok(());
            };
            self.ply += 1;
            state = self.engine.reasoner().next_state(&state, &joint);
        }
    }

    fn analyse(&mut self, state: &State) -> Result<Analysis, Failure> {
        self.engine
            .analyse(state, deadline_in(self.move_time))
            .map_err(|e| Failure::input(e.to_string()))
    }

    fn show(&self, a: &Analysis) {
        let g = self.engine.game();
        println!();
        if let Some(p) = board::picture(g, &a.state) {
            print!("{p}");
        }
        let fluents: Vec<String> = a
            .state
            .fluents()
            .map(|f| g.fluents[f].to_string())
            .collect();
        println!("state     {}", fluents.join(" "));
        if let Some(v) = &a.value {
            let per_role: Vec<String> = g
                .roles
                .iter()
                .enumerate()
                .map(|(p, r)| format!("{}: {}", r.name, v.describe(p)))
                .collect();
            println!("value     {}", per_role.join("; "));
        } else {
            println!("value     unknown (the search did not finish)");
        }
    }

    /// Everyone's move: the person's from `lines`, the engine's for the others; `None` when
    /// the input ended.
    fn joint_move(
        &mut self,
        state: &State,
        a: &Analysis,
        lines: &mut impl Iterator<Item = std::io::Result<String>>,
    ) -> Result<Option<Vec<MoveId>>, Failure> {
        let roles = self.engine.reasoner().num_roles();
        let mut joint = Vec::with_capacity(roles);
        for p in 0..roles {
            let legal = self.engine.reasoner().legal_moves(state, p);
            let m = if legal.len() == 1 {
                legal[0]
            } else if self.human == Some(p) {
                match self.ask(p, &legal, a, lines) {
                    Some(m) => m,
                    None => return Ok(None),
                }
            } else {
                self.list_moves("moves", p, &legal, a);
                let m = self
                    .engine
                    .choose(state, p, deadline_in(self.move_time))
                    .map_err(|e| Failure::input(e.to_string()))?;
                let value = self.value_of(a, p, m);
                println!(
                    "move {}: {} plays {} (engine{value})",
                    self.ply + 1,
                    self.engine.game().roles[p].name,
                    self.engine.game().roles[p].moves[m]
                );
                m
            };
            joint.push(m);
        }
        if a.mover.is_none()
            && (0..roles).all(|p| self.engine.reasoner().legal_moves(state, p).len() == 1)
        {
            // Nobody chose: the move is still a move of the game.
            println!(
                "move {}: {} (the only legal moves)",
                self.ply + 1,
                self.engine.move_text(&joint, None)
            );
        }
        Ok(Some(joint))
    }

    /// ": wins in 3 (100/0)" for role `p`'s move `m`, when a single role moves.
    fn value_of(&self, a: &Analysis, p: usize, m: MoveId) -> String {
        if a.mover != Some(p) {
            return String::new();
        }
        a.choices
            .iter()
            .find(|c| c.joint[p] == m)
            .and_then(|c| c.value.as_ref())
            .map_or(String::new(), |v| format!(": {}", v.describe(p)))
    }

    /// Role `p`'s legal moves, each with its value when it alone chooses, the perfect ones
    /// starred.
    fn list_moves(&self, heading: &str, p: usize, legal: &[MoveId], a: &Analysis) {
        let role = &self.engine.game().roles[p];
        println!("{heading} ({}):", role.name);
        for &m in legal {
            let choice = a
                .choices
                .iter()
                .find(|c| c.joint[p] == m && a.mover == Some(p));
            let probability = a
                .strategies
                .as_ref()
                .and_then(|s| s.get(p)?.iter().find(|&&(n, _)| n == m));
            let (star, value) = match choice.and_then(|c| Some((c.optimal, c.value.as_ref()?))) {
                Some((optimal, v)) => (if optimal { "*" } else { " " }, v.describe(p)),
                None => match probability {
                    Some((_, x)) => (
                        if *x > 0.0 { "*" } else { " " },
                        format!("probability {x:.3} in an optimal mixed strategy"),
                    ),
                    None => (" ", String::new()),
                },
            };
            println!("  {star} {:24} {value}", role.moves[m].to_string());
        }
    }

    /// Asks the person for role `p`'s move until a legal one comes; `None` at the end of input.
    fn ask(
        &self,
        p: usize,
        legal: &[MoveId],
        a: &Analysis,
        lines: &mut impl Iterator<Item = std::io::Result<String>>,
    ) -> Option<MoveId> {
        let g = self.engine.game();
        let role = &g.roles[p];
        self.list_moves("your moves", p, legal, a);
        let mut errors = 0;
        loop {
            print!("your move ({})> ", role.name);
            let _ = std::io::stdout().flush();
            let line = match lines.next()? {
                Ok(l) => l,
                // A line that is not UTF-8 is refused; an input that keeps failing ends.
                Err(e) if errors < 10 => {
                    errors += 1;
                    println!("\ncould not read the line ({e}); try again");
                    continue;
                }
                Err(_) => return None,
            };
            let text = line.trim();
            if text.is_empty() {
                continue;
            }
            let found = GroundTerm::parse(text)
                .ok()
                .and_then(|t| g.find_move(p, &t))
                .filter(|m| legal.contains(m));
            match found {
                Some(m) => {
                    println!(
                        "move {}: {} plays {}",
                        self.ply + 1,
                        role.name,
                        role.moves[m]
                    );
                    return Some(m);
                }
                None => {
                    let moves: Vec<String> =
                        legal.iter().map(|&m| role.moves[m].to_string()).collect();
                    println!(
                        "refused: {text} is not a legal move; legal moves: {}",
                        moves.join(" ")
                    );
                }
            }
        }
    }
}
