//! `--plot`, the progress bar and the JSON report of a stopped run: the pictures hold one point
//! per layer of the run's own report, an unwritable picture is an input error after the report,
//! no progress is drawn when stderr is not a terminal (as here), and a `--json` run that a limit
//! stops still prints its JSON report.

use crate::symgame;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The point lists of the data lines of a picture (the plot draws them 2 pixels wide; axes,
/// ticks and legend samples are 1 pixel wide), each as (x, y) pixels.
fn data_lines(svg: &str) -> Vec<Vec<(f64, f64)>> {
    svg.lines()
        .filter(|l| l.starts_with("<polyline") && l.contains("stroke-width=\"2\""))
        .map(|l| {
            let points = l.split("points=\"").nth(1).expect("a points attribute");
            let points = points.split('"').next().unwrap_or_default();
            points
                .split_whitespace()
                .map(|p| {
                    let (x, y) = p.split_once(',').expect("x,y");
                    (x.parse().expect("x"), y.parse().expect("y"))
                })
                .collect()
        })
        .collect()
}

/// Reads a picture and checks that it is a whole SVG document.
fn read_svg(path: &Path) -> String {
    let svg = std::fs::read_to_string(path).expect("the plot is written");
    assert!(
        svg.starts_with("<svg") || svg.starts_with("<?xml"),
        "{}",
        &svg[..svg.len().min(200)]
    );
    assert!(
        svg.trim_end().ends_with("</svg>"),
        "the document is complete"
    );
    svg
}

/// The run's report as JSON.
fn json(out: &str) -> Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"))
}

/// The per-layer numbers `field` of a JSON report (decimal strings or numbers).
fn per_layer(report: &Value, field: &str) -> Vec<f64> {
    report["layers"]
        .as_array()
        .expect("layers")
        .iter()
        .map(|l| match &l[field] {
            Value::String(s) => s.parse().expect("a decimal string"),
            v => v.as_f64().expect("a number"),
        })
        .collect()
}

/// Whether the pixel heights `ys` of a line order the layers as `values` do (a larger value
/// is drawn higher, at a smaller y; equal values may land on the same pixel).
fn same_order(ys: &[f64], values: &[f64]) -> bool {
    ys.len() == values.len()
        && (0..ys.len()).all(|i| (0..ys.len()).all(|j| values[i] <= values[j] || ys[i] <= ys[j]))
}

/// Runs `symgame` with the arguments of `line` (split at spaces) and `--plot PICTURE` before
/// the last one (the game), the picture `NAME.svg` in the fresh directory `plot/NAME`, and
/// checks its exit code: the picture's path, the JSON report and stderr.
fn plot_run(name: &str, line: &str, code: i32) -> (PathBuf, Value, String) {
    let picture = symgame_testkit::scratch_dir!("plot", name).join(format!("{name}.svg"));
    let args: Vec<&str> = line.split(' ').collect();
    let (game, flags) = args.split_last().expect("a game");
    let mut all = flags.to_vec();
    all.extend(["--plot", picture.to_str().unwrap(), game]);
    let (got, out, err) = symgame(&all);
    assert_eq!(got, code, "{err}");
    (picture, json(&out), err)
}

/// Reads the picture at `path` ([`read_svg`]) and its data lines, which are two: the states and
/// the BDD nodes of each layer.
fn states_and_nodes(path: &Path) -> (String, Vec<Vec<(f64, f64)>>) {
    let svg = read_svg(path);
    let lines = data_lines(&svg);
    assert_eq!(lines.len(), 2, "states and BDD nodes");
    (svg, lines)
}

/// No temporary file of the plot is left beside it.
fn no_temporary_files(dir: &Path) {
    for entry in std::fs::read_dir(dir).expect("the directory") {
        let name = entry.expect("an entry").file_name();
        assert!(
            !name.to_string_lossy().contains(".tmp-"),
            "left behind: {name:?}"
        );
    }
}

#[test]
fn reach_plot_has_the_states_and_nodes_of_every_layer() {
    let (picture, report, _) = plot_run("reach", "reach --json gdl/tictactoe.kif", 0);
    let states = per_layer(&report, "states");
    let nodes = per_layer(&report, "nodes");
    assert_eq!(states.len(), 10, "tic-tac-toe has 10 layers");
    let (_, lines) = states_and_nodes(&picture);
    for (line, values) in lines.iter().zip([&states, &nodes]) {
        assert_eq!(line.len(), values.len(), "one point per layer");
        let ys: Vec<f64> = line.iter().map(|p| p.1).collect();
        assert!(same_order(&ys, values), "{ys:?} against {values:?}");
        assert!(
            line.windows(2).all(|w| w[0].0 < w[1].0),
            "layers left to right"
        );
    }
    no_temporary_files(picture.parent().unwrap());
}

#[test]
fn solve_plot_stacks_won_drawn_lost_per_layer() {
    let (picture, report, _) = plot_run("solve", "solve --json gdl/tictactoe.kif", 0);
    let (svg, lines) = states_and_nodes(&picture);
    assert!(lines.iter().all(|l| l.len() == 10), "{lines:?}");
    // One bar segment per layer that has won (lost) states, in the band's colour; the legend
    // adds one sample of each colour.
    let layers = report["layers"].as_array().expect("layers");
    for (field, colour) in [("won", "#2EA043"), ("lost", "#D62728")] {
        let with = layers
            .iter()
            .filter(|l| l["mover"][field].as_str().is_some_and(|n| n != "0"))
            .count();
        let fill = format!("fill=\"{colour}\"");
        let drawn = svg
            .lines()
            .filter(|l| l.starts_with("<rect") && l.contains(&fill))
            .count();
        assert!(with > 0, "tic-tac-toe has {field} states");
        assert_eq!(drawn, with + 1, "{field}: {with} layers and the legend");
    }
}

#[test]
fn a_plot_of_a_stopped_run_has_its_finished_layers() {
    let limited = "reach --json --node-limit 100 --explicit-states 0 gdl/tictactoe.kif";
    let (picture, report, _) = plot_run("stopped", limited, 3);
    assert_eq!(report["stopped"], "NodeLimit", "{report}");
    let finished = per_layer(&report, "states").len();
    assert!((1..10).contains(&finished), "{report}");
    let (svg, lines) = states_and_nodes(&picture);
    assert!(svg.contains("stopped"), "the title says the run stopped");
    assert!(lines.iter().all(|l| l.len() == finished), "{lines:?}");
}

#[test]
fn an_unwritable_plot_is_refused_before_any_work() {
    let dir = symgame_testkit::scratch_dir!("plot", "unwritable");
    let missing = dir.join("no-such-directory").join("x.svg");
    let missing = missing.to_str().unwrap();
    for command in ["reach", "solve"] {
        let (code, out, err) = symgame(&[command, "--plot", missing, "gdl/tictactoe.kif"]);
        assert_eq!(code, 2, "{command}: {err}");
        assert!(err.contains(missing), "{command}: {err}");
        assert!(err.contains("cannot write in"), "{command}: {err}");
        assert!(out.is_empty(), "{command}: refused before any work: {out}");
    }
    // A directory is not a file either.
    let (code, out, err) = symgame(&[
        "reach",
        "--plot",
        dir.to_str().unwrap(),
        "gdl/tictactoe.kif",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty() && err.contains("is a directory"), "{err}");
    // Nor is the game itself: refused before any work.
    let (code, out, err) = symgame(&["solve", "--plot", "gdl/tictactoe.kif", "gdl/tictactoe.kif"]);
    assert_eq!(code, 2, "{err}");
    assert!(out.is_empty() && err.contains("--plot"), "{err}");
    no_temporary_files(&dir);
}

#[test]
fn no_progress_is_drawn_when_stderr_is_not_a_terminal() {
    // The tests' stderr is a pipe: neither the text nor the JSON run draws a bar (no carriage
    // returns, no escape sequences, nothing at all on a successful run).
    for args in [
        &["reach", "gdl/connect4_4x4.kif"][..],
        &["reach", "--json", "gdl/connect4_4x4.kif"],
        &["solve", "gdl/tictactoe.kif"],
        &["solve", "--json", "gdl/tictactoe.kif"],
    ] {
        let (code, out, err) = symgame(args);
        assert_eq!(code, 0, "{args:?}: {err}");
        assert!(err.is_empty(), "{args:?}: {err:?}");
        assert!(!out.contains('\r') && !out.contains('\x1b'), "{args:?}");
    }
}

#[test]
fn a_json_run_stopped_by_a_limit_prints_its_report() {
    // Stopped at once: reach in grounding, solve while compiling the game.
    for command in ["reach", "solve"] {
        let (code, out, err) = symgame(&[
            command,
            "--json",
            "--time-limit",
            "0",
            "gdl/connect4_5x4.kif",
        ]);
        assert_eq!(code, 3, "{command}: {err}");
        let report = json(&out);
        let why = report["stopped"].as_str().unwrap_or_default();
        assert!(why.contains("time limit"), "{command}: {out}");
        assert!(report["setup_phases"].is_array(), "{command}: {out}");
    }
    // Stopped after the forward search, before a layer was solved: the report and the reason;
    // no picture of nothing.
    let limited = "solve --json --node-limit 2000 gdl/connect4_4x4.kif";
    let (picture, report, err) = plot_run("json-stopped", limited, 3);
    assert_eq!(report["stopped"], "NodeLimit", "{report}");
    assert!(!picture.exists() && err.contains("not written"), "{err}");
}
