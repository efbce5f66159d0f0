//! `symgame plan` on the bundled single-player games against their fixtures (`best`,
//! `plan_length`, `plan_cost`), and its output, errors and exit codes.

use crate::{symgame, symgame_line};
use symgame_testkit::expected_games;

fn plan_json(args: &[&str]) -> serde_json::Value {
    let mut all = vec!["plan", "--json"];
    all.extend_from_slice(args);
    let (code, out, err) = symgame(&all);
    assert_eq!(code, 0, "{args:?}: {err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: {e}: {out}"))
}

/// Every single-player game of `gdl/` with `best` and `plan_length` in its fixture and at most
/// 10,000 states (the 8-puzzle at distance 31 has its own test in crates/symbolic): BFS finds
/// `plan_length` moves, Dijkstra and A* cost `plan_cost` (= `plan_length` without costs).
#[test]
fn bundled_single_player_games_have_their_fixture_plans() {
    let mut checked = Vec::new();
    for (f, expect) in expected_games() {
        let get = |key: &str| expect.number(key);
        let (Some(best), Some(length)) = (get("best"), get("plan_length")) else {
            continue;
        };
        if get("states").is_none_or(|n| n > 10_000) {
            continue;
        }
        let cost = get("plan_cost").unwrap_or(length);
        let game = f.to_str().expect("utf-8 path");
        let goal = best.to_string();
        for algo in ["bfs", "bidir", "dijkstra", "astar"] {
            // A small pattern budget keeps the 8-puzzle's automatic selection to a second.
            let v = plan_json(&[
                "--algo",
                algo,
                "--goal",
                &goal,
                "--pattern-nodes",
                "3000",
                game,
            ]);
            let plan = &v["plan"];
            assert!(plan["replay"].as_str().unwrap().starts_with("legal"), "{v}");
            if algo == "bfs" || algo == "bidir" {
                assert_eq!(plan["length"], length, "{game} {algo}");
                assert_eq!(v["optimises"], "moves");
            } else {
                assert_eq!(plan["cost"], cost, "{game} {algo}");
                assert_eq!(v["optimises"], "cost");
            }
            assert_eq!(
                plan["moves"].as_array().unwrap().len(),
                plan["length"].as_u64().unwrap() as usize
            );
        }
        checked.push(f.file_stem().unwrap().to_string_lossy().to_string());
    }
    for must in [
        "hanoi_3",
        "hanoi_5",
        "eight_puzzle_easy",
        "toll_roads",
        "climb_rewards",
    ] {
        assert!(checked.iter().any(|c| c == must), "{must}: {checked:?}");
    }
}

#[test]
fn plan_prints_gdl_moves_with_costs_and_the_layers() {
    let (code, out, err) = symgame(&["plan", "--algo", "dijkstra", "gdl/toll_roads.kif"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("plan        4 moves, cost 5"), "{out}");
    let moves: Vec<&str> = out.lines().filter(|l| l.starts_with("(drive")).collect();
    assert_eq!(
        moves,
        [
            "(drive home birch) 1",
            "(drive birch cedar) 1",
            "(drive cedar dock) 2",
            "(drive dock port) 1"
        ],
        "{out}"
    );
    assert!(out.contains("BDD nodes"), "{out}");
    // A* shows its heuristic and the f, g, h of each bucket.
    let (code, out, err) = symgame(&["plan", "gdl/hanoi_3.kif"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("h(initial state) = 7"), "{out}");
    assert_eq!(out.lines().filter(|l| l.starts_with("(move")).count(), 7);
}

#[test]
fn plan_json_has_layers_and_heuristic() {
    let v = plan_json(&["--pattern", "(on 1)", "--pattern", "on", "gdl/hanoi_4.kif"]);
    let stats = &v["stats"];
    assert_eq!(stats["algorithm"], "astar");
    assert_eq!(stats["heuristic"]["patterns"].as_array().unwrap().len(), 2);
    assert_eq!(stats["heuristic"]["h_init"], 15);
    let layers = stats["layers"].as_array().unwrap();
    assert!(layers
        .iter()
        .all(|l| l["h"].is_u64() && l["states"].is_string()));
    assert_eq!(v["plan"]["cost"], 15);
}

#[test]
fn plan_errors_and_limits_have_their_exit_codes() {
    // (command line, exit code, text of stdout when it is 0, else of stderr)
    for (line, code, needle) in [
        // Several roles without --role: an input error naming them.
        ("plan gdl/tictactoe.kif", 2, "xplayer, oplayer"),
        (
            "plan --role xplayer --algo bfs gdl/tictactoe.kif",
            0,
            "xplayer (mark",
        ),
        // A pattern that matches nothing.
        (
            "plan --pattern '(nothing ?x)' gdl/hanoi_3.kif",
            2,
            "matches no fluent",
        ),
        // A time limit stops the search: exit code 3 with the reason.
        (
            "plan --algo bfs --time-limit 0 gdl/hanoi_5.kif",
            3,
            "time limit",
        ),
        // An unreachable goal is an answer, not an error.
        ("plan --goal 50 gdl/hanoi_3.kif", 0, "plan        none"),
    ] {
        let (got, out, err) = symgame_line(line);
        assert_eq!(got, code, "{line}: {err}");
        let text = if code == 0 { out } else { err };
        assert!(text.contains(needle), "{line}: {text}");
    }
}
