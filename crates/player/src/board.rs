//! A text picture of a board, for games whose fluents look like `(cell X Y V)`.
//!
//! Any three-argument fluent named `cell`, `square` or `board` counts: the first argument is
//! the column, the second the row (numeric rows grow upwards, so row 1 is at the bottom as in
//! Connect Four), the third what is there. The columns and rows are those of every such
//! fluent of the game, so empty squares show as `.`; so do the values `b`, `blank` and
//! `empty`.

use std::cmp::Ordering;

use symgame_explicit::State;
use symgame_ground::{GroundGame, GroundTerm};

const NAMES: [&str; 3] = ["cell", "square", "board"];

/// The three arguments of a board fluent.
fn square(t: &GroundTerm) -> Option<(&GroundTerm, &GroundTerm, &GroundTerm)> {
    match t {
        GroundTerm::Func(f, args) if args.len() == 3 && NAMES.contains(&f.as_str()) => {
            Some((&args[0], &args[1], &args[2]))
        }
        _ => None,
    }
}

/// Numbers in numeric order, then other names in text order.
fn order(a: &String, b: &String) -> Ordering {
    match (a.parse::<i64>(), b.parse::<i64>()) {
        (Ok(x), Ok(y)) => x.cmp(&y),
        (Ok(_), Err(_)) => Ordering::Less,
        (Err(_), Ok(_)) => Ordering::Greater,
        _ => a.cmp(b),
    }
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort_by(order);
    v.dedup();
    v
}

/// The board of `state`, or `None` when the game has no board fluents.
pub fn picture(game: &GroundGame, state: &State) -> Option<String> {
    let all: Vec<(String, String)> = game
        .fluents
        .iter()
        .filter_map(square)
        .map(|(x, y, _)| (x.to_string(), y.to_string()))
        .collect();
    if all.is_empty() {
        return None;
    }
    let columns = sorted(all.iter().map(|(x, _)| x.clone()).collect());
    let mut rows = sorted(all.iter().map(|(_, y)| y.clone()).collect());
    if rows.iter().all(|r| r.parse::<i64>().is_ok()) {
        rows.reverse();
    }
    let mut grid = vec![vec![".".to_string(); columns.len()]; rows.len()];
    for f in state.fluents() {
        let Some((x, y, v)) = square(&game.fluents[f]) else {
            continue;
        };
        let (x, y, v) = (x.to_string(), y.to_string(), v.to_string());
        if matches!(v.as_str(), "b" | "blank" | "empty") {
            continue;
        }
        let c = columns.iter().position(|c| *c == x)?;
        let r = rows.iter().position(|r| *r == y)?;
        grid[r][c] = v;
    }
    let width = grid
        .iter()
        .flatten()
        .chain(&columns)
        .map(|s| s.chars().count())
        .max()
        .unwrap_or(1);
    let label = rows.iter().map(|r| r.chars().count()).max().unwrap_or(1);
    let mut out = String::new();
    for (r, row) in rows.iter().zip(&grid) {
        out.push_str(&format!("{r:>label$} |"));
        for v in row {
            out.push_str(&format!(" {v:^width$}"));
        }
        out.push('\n');
    }
    out.push_str(&format!("{:>label$} +", ""));
    out.push_str(&"-".repeat((width + 1) * columns.len()));
    out.push('\n');
    out.push_str(&format!("{:>label$}  ", ""));
    for c in &columns {
        out.push_str(&format!(" {c:^width$}"));
    }
    out.push('\n');
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use symgame_explicit::Reasoner;

    #[test]
    fn tictactoe_board() {
        let game = symgame_testkit::load_game("tictactoe");
        let r = Reasoner::new(&game);
        let s = r.initial_state();
        let p = picture(&game, &s).expect("tic-tac-toe has a board");
        assert_eq!(p.lines().count(), 5, "{p}");
        assert!(p.lines().next().unwrap().starts_with("3 | . . ."), "{p}");
        let nim = symgame_testkit::load_game("nim_1_2_3");
        assert!(picture(&nim, &Reasoner::new(&nim).initial_state()).is_none());
    }
}
