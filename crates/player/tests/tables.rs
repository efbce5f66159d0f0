//! Finding a game's table in a directory of databases: by the header fingerprint of the
//! encoding with proven groups, and otherwise by the encoding a file records (a table made on
//! another encoding: assumed groups, or a mutex proof cut short by a deadline).

use symgame_gamedb::{export, ExportOptions, GameDatabase};
use symgame_player::tables::{find_in_dir, game_fingerprint};
use symgame_symbolic::{EncodingKind, SymbolicOptions};

#[test]
fn a_table_on_another_encoding_is_found_by_its_recorded_encoding() {
    let game = symgame_testkit::load_game("tictactoe");
    let dir = symgame_testkit::scratch_dir!("player-tables", "plain");
    // Another game's table first in name order, then tic-tac-toe's in the plain encoding.
    let other = symgame_testkit::load_game("nim_1_2_3");
    let opts = ExportOptions {
        game_name: "nim".to_string(),
        ..Default::default()
    };
    export(&other, &dir.join("a-nim.db"), &opts, |_| {}).expect("exports");
    let plain = dir.join("b-tictactoe-plain.db");
    let opts = ExportOptions {
        game_name: "tictactoe".to_string(),
        symbolic: SymbolicOptions {
            encoding: EncodingKind::Plain,
            ..Default::default()
        },
        ..Default::default()
    };
    export(&game, &plain, &opts, |_| {}).expect("exports");
    // Not the fingerprint of the proven groups' encoding...
    let db = GameDatabase::open(&plain, game.clone(), &opts.symbolic).expect("opens");
    assert_ne!(*db.database().fingerprint(), game_fingerprint(&game));
    // ...yet found, and opened with the default options, by the encoding it records.
    assert_eq!(find_in_dir(&dir, &game), Some(plain.clone()));
    let db = GameDatabase::open(&plain, game.clone(), &SymbolicOptions::default()).expect("opens");
    assert_eq!(db.metadata().states, "5478");
    // A game with no table there finds none.
    let chomp = symgame_testkit::load_game("chomp_4x3");
    assert_eq!(find_in_dir(&dir, &chomp), None);
}
