//! Playing a GDL game with what is solved: a position's value and every move's ("wins in
//! 7", "draw", "loses in 5"), the move to play, and the GGP communication protocol.
//!
//! * [`Engine`]: perfect play from a solved table (a [`symgame_gamedb::GameDatabase`]: the
//!   shortest win, the longest loss, the lengths computed over the optimal moves, [`depth`]),
//!   or, without a table, the best move alpha-beta (`symgame-prove`) finds within a deadline;
//!   [`Engine::analyse`] gives an [`Analysis`] of a position, [`Engine::choose`] a move.
//! * [`tables`]: a table from a database file, a solution directory, a directory of databases
//!   searched by fingerprint, or solving the game within a time limit.
//! * [`ggp`]: a [`Player`] answering the messages of the GGP protocol (`start`, `play`,
//!   `stop`, ...) for several matches at once; the HTTP around it is the command line's.
//! * [`board`]: a text picture of `(cell X Y V)` boards; [`sexpr`]: the message reader.
//!
//! Architecture invariant: no HTTP, terminal or command-line code here (the `symgame play`
//! and `symgame serve` commands own those); no BDD code either: tables are read through
//! `symgame-gamedb` and made by its `export`.

pub mod board;
pub mod depth;
mod engine;
pub mod ggp;
mod position;
mod search;
pub mod sexpr;
pub mod tables;

pub use engine::{deadline_in, Engine};
pub use ggp::{answer_time, Player, PlayerConfig, ProtocolError};
pub use position::{Analysis, Assessment, Choice, EngineError};
