//! Integration tests of symgame-prove: every algorithm is checked against an independent
//! brute-force minimax written here, over the games of `symgame_prove::games` and a few
//! test-only games (cycles, simultaneous moves, three roles).

mod checks;
mod errors;
mod limits;
mod nim;
mod oracle;
mod puzzles;
mod tictactoe;
