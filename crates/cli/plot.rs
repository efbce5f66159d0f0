//! `--plot FILE.svg` of `reach` and `solve`: the states and BDD nodes of each layer on a log
//! scale, and for `solve` below it the layer's states by value, stacked (won / drawn / lost for
//! the role to move in two-player games, else the outcomes). Drawn with `plotters`' SVG backend
//! into memory, then written to a temporary file beside the target and renamed, so a stopped
//! run never leaves half a picture. A run stopped by a limit plots its finished layers and says
//! so in the title.

use crate::failure::Failure;
use num_bigint::BigUint;
use num_traits::ToPrimitive;
use plotters::coord::ranged1d::ValueFormatter;
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::{Path, PathBuf};
use symgame_symbolic::{ReachStats, SolveStats, StopReason};

/// Width of a picture in pixels.
const WIDTH: u32 = 960;
/// Height of the layer-size chart in pixels (the value chart of `solve` adds as much again).
const HEIGHT: u32 = 480;
/// At most this many outcomes get a band of their own in the value chart; the rest are summed
/// as "other".
const MAX_BANDS: usize = 8;

/// One line of the layer-size chart: a name and a value per layer, in layer order.
struct Line {
    name: &'static str,
    color: RGBColor,
    values: Vec<(usize, f64)>,
}

/// The value chart: per layer, the share of its states in each band, bottom first.
struct Bands {
    names: Vec<String>,
    colors: Vec<RGBColor>,
    /// (depth, states per band).
    layers: Vec<(usize, Vec<f64>)>,
    /// What the shares are of.
    what: String,
}

/// Writes the plot of a breadth-first search to `path` (nothing if no layer finished).
pub fn reach(path: &Path, game: &str, stats: &ReachStats) -> Result<(), Failure> {
    if stats.layers.is_empty() {
        not_drawn(Some(path));
        return Ok(());
    }
    let depths = || stats.layers.iter().enumerate();
    let lines = [
        Line {
            name: "states",
            color: BLUE,
            values: depths().map(|(i, l)| (i, float(&l.states))).collect(),
        },
        Line {
            name: "BDD nodes",
            color: RED,
            values: depths().map(|(i, l)| (i, l.nodes as f64)).collect(),
        },
    ];
    let title = format!("{game}: reach{}", stopped(stats.stopped));
    write(path, &draw(&title, &lines, None)?)
}

/// Writes the plot of a solve to `path`: layer sizes, and the states by value below (nothing
/// if no layer was solved).
pub fn solve(path: &Path, game: &str, stats: &SolveStats) -> Result<(), Failure> {
    if stats.layers.is_empty() {
        not_drawn(Some(path));
        return Ok(());
    }
    let mut layers: Vec<_> = stats.layers.iter().collect();
    layers.sort_by_key(|l| l.depth);
    let lines = [
        Line {
            name: "states",
            color: BLUE,
            values: layers.iter().map(|l| (l.depth, float(&l.states))).collect(),
        },
        Line {
            name: "BDD nodes (value classes)",
            color: RED,
            values: layers.iter().map(|l| (l.depth, l.nodes as f64)).collect(),
        },
    ];
    let bands = if layers.iter().any(|l| l.mover.is_some()) {
        Bands {
            names: ["won", "drawn", "lost", "terminal"]
                .map(String::from)
                .to_vec(),
            colors: vec![
                RGBColor(46, 160, 67),
                RGBColor(170, 170, 170),
                RGBColor(214, 39, 40),
                RGBColor(60, 60, 60),
            ],
            layers: layers
                .iter()
                .map(|l| {
                    let m = l.mover.clone().unwrap_or_default();
                    let v = [&m.won, &m.drawn, &m.lost, &l.terminal].map(float);
                    (l.depth, v.to_vec())
                })
                .collect(),
            what: "states by value: won / drawn / lost for the role to move, terminal apart"
                .to_string(),
        }
    } else {
        outcome_bands(stats, &layers)
    };
    let title = format!("{game}: solve{}", stopped(stats.stopped));
    write(path, &draw(&title, &lines, Some(&bands))?)
}

/// The bands of the outcomes, the most frequent first, at most [`MAX_BANDS`] of them.
fn outcome_bands(stats: &SolveStats, layers: &[&symgame_symbolic::SolveLayerStats]) -> Bands {
    let mut order: Vec<usize> = (0..stats.outcomes.len()).collect();
    order.sort_by(|&a, &b| {
        stats.per_outcome[b]
            .cmp(&stats.per_outcome[a])
            .then(a.cmp(&b))
    });
    let shown = order.len().min(MAX_BANDS);
    let other = order.len() > shown;
    let mut names: Vec<String> = order[..shown]
        .iter()
        .map(|&o| {
            let rewards: Vec<String> = stats.outcomes[o].iter().map(|r| r.to_string()).collect();
            rewards.join("/")
        })
        .collect();
    if other {
        names.push("other".to_string());
    }
    let layers = layers
        .iter()
        .map(|l| {
            let get = |o: usize| l.per_outcome.get(o).map_or(0.0, float);
            let mut v: Vec<f64> = order[..shown].iter().map(|&o| get(o)).collect();
            if other {
                v.push(order[shown..].iter().map(|&o| get(o)).sum());
            }
            (l.depth, v)
        })
        .collect();
    let colors = (0..names.len())
        .map(|i| Palette99::pick(i).to_rgba())
        .map(|c| RGBColor(c.0, c.1, c.2))
        .collect();
    Bands {
        names,
        colors,
        layers,
        what: format!("states by outcome (rewards of {})", stats.roles.join("/")),
    }
}

/// ` (stopped: time limit reached; finished layers only)`, or nothing.
fn stopped(why: Option<StopReason>) -> String {
    why.map(|w| format!(" (stopped: {w}; finished layers only)"))
        .unwrap_or_default()
}

/// A count as a float (exact enough for a picture; counts pass 2^64 on real games).
fn float(n: &BigUint) -> f64 {
    n.to_f64().unwrap_or(f64::MAX)
}

/// Draws the picture as SVG text.
fn draw(title: &str, lines: &[Line], bands: Option<&Bands>) -> Result<String, Failure> {
    let height = if bands.is_some() { 2 * HEIGHT } else { HEIGHT };
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(drawing)?;
        let root = root.titled(title, ("sans-serif", 20)).map_err(drawing)?;
        let (top, bottom) = match bands {
            Some(_) => {
                let (t, b) = root.split_vertically(HEIGHT - 20);
                (t, Some(b))
            }
            None => (root, None),
        };
        draw_sizes(&top, lines)?;
        if let (Some(area), Some(bands)) = (bottom, bands) {
            draw_bands(&area, bands)?;
        }
        top.present().map_err(drawing)?;
    }
    Ok(svg)
}

/// The x range of layers 0 to `last`: a half layer wide on the left, and room for the
/// legend on the right, beside the last layer rather than over it (the same in both charts,
/// so their layers line up).
fn layer_range(last: usize) -> std::ops::Range<f64> {
    -0.5..last as f64 + 0.5 + legend_room(last)
}

/// How many x labels to ask for: one a layer, at most 25.
fn layer_labels(last: usize) -> usize {
    (last + 3 + legend_room(last) as usize).min(25)
}

/// Layers of room for the legend right of the last of `last + 1` bars: about 110 pixels.
fn legend_room(last: usize) -> f64 {
    let per_layer = (WIDTH as f64 - 100.0) / (last as f64 + 1.0);
    (110.0 / per_layer).max(0.5)
}

/// A layer number on the x axis (none between layers nor past the `last`).
fn layer_label(x: f64, last: usize) -> String {
    if x.fract() == 0.0 && x >= 0.0 && x <= last as f64 {
        format!("{x:.0}")
    } else {
        String::new()
    }
}

/// The layer-size chart: one line per [`Line`] on a log scale.
fn draw_sizes<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    lines: &[Line],
) -> Result<(), Failure> {
    let points = || lines.iter().flat_map(|l| l.values.iter());
    let last = points().map(|p| p.0).max().unwrap_or(0);
    let top = points().map(|p| p.1).fold(10.0, f64::max) * 2.0;
    let mut chart = ChartBuilder::on(area)
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(layer_range(last), (1.0..top).log_scale())
        .map_err(drawing)?;
    let y_format = |y: &f64| format!("{y:.0e}");
    draw_layer_mesh(&mut chart, last, "per layer (log scale)", Some(&y_format))?;
    for line in lines {
        let color = line.color;
        // A count of 0 sits on the axis: log scale starts at 1.
        let values = line.values.iter().map(|&(x, y)| (x as f64, y.max(1.0)));
        chart
            .draw_series(LineSeries::new(values, color.stroke_width(2)))
            .map_err(drawing)?
            .label(line.name)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
    }
    // Lower right: the lines of a game's last layers come down towards it, but stay far above
    // the axis (a layer has at least one state).
    draw_legend(&mut chart, SeriesLabelPosition::LowerRight)
}

/// Draws the mesh of a chart over the layers `0..=last`: the x axis labelled by layer, the y
/// axis described by `y_desc`, its labels written by `y_format` (plotters' own where `None`).
fn draw_layer_mesh<DB: DrawingBackend, Y: Ranged<ValueType = f64> + ValueFormatter<f64>>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<RangedCoordf64, Y>>,
    last: usize,
    y_desc: &str,
    y_format: Option<&dyn Fn(&f64) -> String>,
) -> Result<(), Failure> {
    let x_format = |x: &f64| layer_label(*x, last);
    let mut mesh = chart.configure_mesh();
    mesh.x_desc("layer (BFS depth)")
        .y_desc(y_desc)
        .x_labels(layer_labels(last))
        .x_label_formatter(&x_format);
    if let Some(y_format) = y_format {
        mesh.y_label_formatter(y_format);
    }
    mesh.draw().map_err(drawing)
}

/// The value chart: per layer a bar of 100 %, cut into the shares of its bands.
fn draw_bands<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    bands: &Bands,
) -> Result<(), Failure> {
    let last = bands.layers.iter().map(|l| l.0).max().unwrap_or(0);
    let mut chart = ChartBuilder::on(area)
        .margin(10)
        .caption(&bands.what, ("sans-serif", 16))
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(layer_range(last), 0.0..100.0)
        .map_err(drawing)?;
    draw_layer_mesh(&mut chart, last, "share of the layer's states (%)", None)?;
    for (band, name) in bands.names.iter().enumerate() {
        let color = bands.colors[band];
        let bars = bands.layers.iter().filter_map(|(depth, values)| {
            let total: f64 = values.iter().sum();
            // An empty band has no segment (not one of no height).
            if total <= 0.0 || values[band] <= 0.0 {
                return None;
            }
            let below: f64 = values[..band].iter().sum();
            let (y0, y1) = (
                below / total * 100.0,
                (below + values[band]) / total * 100.0,
            );
            let x = *depth as f64;
            Some(Rectangle::new(
                [(x - 0.4, y0), (x + 0.4, y1)],
                color.filled(),
            ))
        });
        chart
            .draw_series(bars)
            .map_err(drawing)?
            .label(name.as_str())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled()));
    }
    draw_legend(&mut chart, SeriesLabelPosition::UpperRight)
}

/// The legend of a chart's series, in a framed, mostly opaque box at `position`.
fn draw_legend<'a, DB: DrawingBackend + 'a, CT: CoordTranslate>(
    chart: &mut ChartContext<'a, DB, CT>,
    position: SeriesLabelPosition,
) -> Result<(), Failure> {
    chart
        .configure_series_labels()
        .position(position)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(drawing)
}

/// A drawing error: drawing into memory fails only on a bug.
fn drawing<E: std::error::Error>(e: E) -> Failure {
    Failure::internal(format!("drawing the plot: {e}"))
}

/// Writes `text` to `path` through a temporary file beside it (`.NAME.tmp-PID-NANOS`, removed
/// on failure), renamed when complete. Failure is an input error naming the path.
fn write(path: &Path, text: &str) -> Result<(), Failure> {
    let fail = |what: &str, e: std::io::Error| {
        Failure::input(format!("--plot {}: {what}: {e}", path.display()))
    };
    let name = path
        .file_name()
        .ok_or_else(|| Failure::input(format!("--plot {}: not a file name", path.display())))?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let prefix = format!(".{}.tmp", name.to_string_lossy());
    crate::tempfiles::register(&dir, &prefix);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let tmp = dir.join(format!("{prefix}-{}-{nanos}", std::process::id()));
    if let Err(e) = std::fs::write(&tmp, text) {
        let _ = std::fs::remove_file(&tmp);
        return Err(fail("cannot write the plot", e));
    }
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        fail("cannot write the plot (renaming the temporary file)", e)
    })
}

/// Says on stderr that the picture at `path` (if asked for) is not drawn: the run stopped
/// before its first layer (no empty chart is written).
pub fn not_drawn(path: Option<&Path>) {
    if let Some(p) = path {
        eprintln!(
            "--plot {}: not written: the run stopped before its first layer",
            p.display()
        );
    }
}

/// How a run with `--plot` ends: its own result, unless the plot could not be written; then
/// the run's own stop (if any) is printed and the plot's input error decides the exit code.
pub fn outcome(plot: Result<(), Failure>, run: Result<(), Failure>) -> Result<(), Failure> {
    match (plot, run) {
        (Ok(()), run) => run,
        (Err(p), Ok(())) => Err(p),
        (Err(p), Err(r)) => {
            eprintln!("{r}");
            Err(p)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layer_labels_only_on_layers() {
        assert_eq!(layer_label(3.0, 9), "3");
        assert_eq!(layer_label(2.5, 9), "");
        assert_eq!(layer_label(-0.5, 9), "");
        assert_eq!(layer_label(10.0, 9), "");
    }

    #[test]
    fn a_plot_of_two_layers_has_its_points() {
        let lines = [Line {
            name: "states",
            color: BLUE,
            values: vec![(0, 1.0), (1, 9.0), (2, 72.0)],
        }];
        let svg = draw("t", &lines, None).unwrap();
        assert!(svg.starts_with("<svg"), "{svg}");
        let polyline = svg
            .lines()
            .find(|l| l.contains("<polyline") && l.contains("stroke-width=\"2\""))
            .unwrap();
        let points = polyline.split("points=\"").nth(1).unwrap();
        assert_eq!(
            points.split('"').next().unwrap().split_whitespace().count(),
            3
        );
    }
}
