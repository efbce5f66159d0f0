//! Progress on a terminal: one `indicatif` bar on stderr with the layer, its states and BDD
//! nodes, the elapsed time and the peak memory, redrawn on a timer (so the clock and the memory
//! move while one long BDD operation runs) and cleared before the report is printed. A
//! spinner while the number of steps is unknown (breadth-first layers, set-up), a bar where it
//! is known (the layers of a layered solve, the states `verify` checks). Quiet (a hidden bar:
//! nothing is drawn and no thread started) when stderr is not a terminal or under `--json`, so
//! logs and pipes get the report alone, unless `--progress lines` asks for one plain line per
//! layer (or per second of `verify`'s checked states) for a long run whose stderr goes to a
//! log file.

use crate::args::ProgressMode;
use crate::output::peak_memory_bytes;
use indicatif::{HumanCount, ProgressBar, ProgressState, ProgressStyle};
use num_bigint::BigUint;
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use symgame_explicit::Exploration;
use symgame_symbolic::{PlanStats, ReachStats, SetupLog, SolveStats};

/// How often the bar is redrawn while nothing new is reported.
const TICK: Duration = Duration::from_millis(250);

/// The bar on the terminal now, for the watchdog to clear before it prints its last words.
static SHOWN: Mutex<Option<ProgressBar>> = Mutex::new(None);

/// Clears the bar on the terminal, if any (the watchdog, before it prints and ends the run).
pub fn clear_shown() {
    // try_lock: never wait for a thread stopped while it held the lock.
    if let Ok(mut shown) = SHOWN.try_lock() {
        if let Some(bar) = shown.take() {
            bar.finish_and_clear();
        }
    }
}

/// The progress bar of one command.
pub struct Progress {
    /// The bar; hidden (draws nothing) when progress is off.
    bar: ProgressBar,
    /// Whether the bar shows a known number of steps (else a spinner).
    counted: AtomicBool,
    /// The set-up log whose running phase is shown until the first layer is reported.
    setup: Option<SetupLog>,
    /// Whether a layer (or a checked state) was reported: then the set-up phase is not shown.
    started: Arc<AtomicBool>,
    /// `--progress lines`: when the command began, and when and what the last line was (a
    /// step reported again, as a layer is before and after its image, is not repeated).
    lines: Option<Mutex<(Instant, Option<Instant>, String)>>,
}

/// At most one line a second of checked states under `--progress lines`.
const LINE_EVERY: Duration = Duration::from_secs(1);

impl Progress {
    /// Progress on stderr as `mode` says: under `auto`, a bar when stderr is a terminal and
    /// the output is not JSON.
    pub fn new(mode: ProgressMode, json: bool) -> Self {
        Progress::shown(mode, json, None)
    }

    /// [`Progress::new`] that also shows the running phase of `log` (grounding, compiling the
    /// rules, building the relations) until the first layer is reported.
    pub fn with_setup(mode: ProgressMode, json: bool, log: &SetupLog) -> Self {
        Progress::shown(mode, json, Some(log.clone()))
    }

    /// Progress for `mode`: a bar drawn on stderr, plain lines, or a hidden bar.
    fn shown(mode: ProgressMode, json: bool, setup: Option<SetupLog>) -> Self {
        let on = mode == ProgressMode::Auto && !json && std::io::stderr().is_terminal();
        let lines = (mode == ProgressMode::Lines)
            .then(|| Mutex::new((Instant::now(), None, String::new())));
        let bar = if on {
            ProgressBar::new_spinner()
        } else {
            ProgressBar::hidden()
        };
        let p = Progress {
            bar,
            counted: AtomicBool::new(false),
            setup,
            started: Arc::new(AtomicBool::new(false)),
            lines,
        };
        if on {
            p.bar.set_style(p.style(false));
            p.bar.enable_steady_tick(TICK);
            if let Ok(mut shown) = SHOWN.lock() {
                *shown = Some(p.bar.clone());
            }
        }
        p
    }

    /// The style: the elapsed time and the peak memory (read from /proc on each redraw), a bar
    /// of `{pos}/{len}` when `counted`, then the set-up phase until the first layer, and the
    /// layer.
    fn style(&self, counted: bool) -> ProgressStyle {
        // `wide_msg` takes the rest of the line and is cut to the terminal's width, so the
        // line never wraps.
        let template = if counted {
            "{spinner} {elapsed_precise} peak {memory} {bar:16} {pos}/{len} {stage}{wide_msg}"
        } else {
            "{spinner} {elapsed_precise} peak {memory} {stage}{wide_msg}"
        };
        // The templates are constants that parse; the default style is only a fallback.
        let style = ProgressStyle::with_template(template)
            .unwrap_or_else(|_| ProgressStyle::default_spinner());
        let (setup, started) = (self.setup.clone(), self.started.clone());
        style
            .with_key(
                "stage",
                move |_: &ProgressState, w: &mut dyn std::fmt::Write| {
                    if let (Some(log), false) = (&setup, started.load(Ordering::Relaxed)) {
                        let _ = w.write_str(&setup_text(log));
                    }
                },
            )
            .with_key(
                "memory",
                |_: &ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = match peak_memory_bytes() {
                        Some(b) => write!(w, "{:.2} GB", b as f64 / 1e9),
                        None => write!(w, "?"),
                    };
                },
            )
    }

    /// Switches between the spinner and the bar of `len` steps (`None`: the spinner).
    fn steps(&self, len: Option<u64>) {
        if self.bar.is_hidden() {
            return;
        }
        if self.counted.swap(len.is_some(), Ordering::Relaxed) != len.is_some() {
            self.bar.set_style(self.style(len.is_some()));
        }
        if let Some(len) = len {
            if self.bar.length() != Some(len) {
                self.bar.set_length(len);
            }
        }
    }

    /// Shows `line`: on the bar, or (`--progress lines`) as a line on stderr, if `throttled`
    /// at most one a second.
    fn show_as(&self, line: String, throttled: bool) {
        if let Some(lines) = &self.lines {
            // A poisoned lock (a thread that panicked while printing) only costs the lines.
            if let Ok(mut state) = lines.lock() {
                let (began, last, said) = &mut *state;
                let now = Instant::now();
                let due = !throttled || last.is_none_or(|t| now - t >= LINE_EVERY);
                if due && *said != line {
                    *last = Some(now);
                    said.clone_from(&line);
                    let peak = peak_memory_bytes()
                        .map_or("?".to_string(), |b| format!("{:.2} GB", b as f64 / 1e9));
                    eprintln!(
                        "[{:>10.1} s, peak {peak}] {line}",
                        (now - *began).as_secs_f64()
                    );
                }
            }
        }
        if !self.bar.is_hidden() {
            self.started.store(true, Ordering::Relaxed);
            self.bar.set_message(line);
        }
    }

    /// [`Progress::show_as`] for a layer: every one is a line.
    fn show(&self, line: String) {
        self.show_as(line, false);
    }

    /// Clears the bar, before the report is printed (and when the command ends).
    pub fn clear(&self) {
        self.bar.finish_and_clear();
    }

    /// After a layer of the explicit enumeration.
    pub fn explore(&self, e: &Exploration) {
        if let Some(l) = e.layers.last() {
            self.show(format!(
                "layer {}: {} states",
                e.layers.len() - 1,
                HumanCount(l.states)
            ));
        }
    }

    /// After a layer of the symbolic breadth-first search.
    pub fn reach(&self, s: &ReachStats) {
        if let Some(l) = s.layers.last() {
            self.show(format!(
                "layer {}: {} states ({} in all), {} nodes",
                s.layers.len() - 1,
                count(&l.states),
                count(&s.states),
                HumanCount(l.nodes as u64)
            ));
        }
    }

    /// After a layer of the forward search, until a layer is solved, and after a solved layer.
    /// A layered solve goes from the deepest layer down to the initial one, so its first
    /// report tells the number of layers: from then on a bar.
    pub fn solve(&self, s: &SolveStats) {
        if s.layers.is_empty() && s.forward_layers > 0 {
            self.show(format!(
                "forward search, layer {}: {} states in all",
                s.forward_layers - 1,
                count(&s.states)
            ));
        }
        if let (Some(first), Some(l)) = (s.layers.first(), s.layers.last()) {
            if s.layered {
                self.steps(Some(first.depth as u64 + 1));
                self.bar.set_position(s.layers.len() as u64);
            }
            self.show(format!(
                "solved layer {}: {} states, {} nodes",
                l.depth,
                count(&l.states),
                HumanCount(l.nodes as u64)
            ));
        }
    }

    /// After an expanded layer or bucket of a planning search.
    pub fn plan(&self, s: &PlanStats) {
        if let Some(l) = s.layers.last() {
            self.show(format!(
                "layer g {} h {}: {} states, {} nodes",
                l.g,
                l.h.map_or("-".into(), |h| h.to_string()),
                count(&l.states),
                HumanCount(l.nodes as u64)
            ));
        }
    }

    /// After a state checked by the explicit solvers.
    pub fn verify(&self, p: &symgame_verify::Progress) {
        self.steps(Some(p.states_to_check));
        self.bar.set_position(p.states_checked);
        let line = format!("states checked, {} disagreements", p.disagreements);
        if self.lines.is_some() {
            // A log line has no bar beside it to give the count.
            let counted = format!("{}/{} {line}", p.states_checked, p.states_to_check);
            self.show_as(counted, true);
        } else {
            self.show_as(line, true);
        }
    }
}

impl Drop for Progress {
    /// A command that fails half-way leaves no stale bar before its error message.
    fn drop(&mut self) {
        self.clear();
    }
}

/// The running (unfinished) phase of a set-up, as the bar's message.
fn setup_text(log: &SetupLog) -> String {
    match log.phases().last() {
        Some(p) if !p.finished => format!("set-up: {} ({:.1} s)", p.name, p.seconds),
        _ => "set-up".to_string(),
    }
}

/// A state count for the bar: with thousands separators up to 10^12, else `1.234e15`.
fn count(n: &BigUint) -> String {
    match u64::try_from(n) {
        Ok(small) if small < 1_000_000_000_000 => HumanCount(small).to_string(),
        _ => {
            let digits = n.to_string();
            format!("{}.{}e{}", &digits[..1], &digits[1..4], digits.len() - 1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_short() {
        assert_eq!(count(&BigUint::from(0u32)), "0");
        assert_eq!(count(&BigUint::from(1_234_567u32)), "1,234,567");
        assert_eq!(count(&BigUint::from(4_531_985_219_092u64)), "4.531e12");
        let big: BigUint = "123456789012345678901234".parse().unwrap();
        assert_eq!(count(&big), "1.234e23");
    }

    #[test]
    fn hidden_when_not_a_terminal() {
        // The tests run with stderr captured or redirected: never a terminal.
        let p = Progress::new(ProgressMode::Auto, false);
        assert!(p.bar.is_hidden() || std::io::stderr().is_terminal());
        assert!(Progress::new(ProgressMode::Auto, true).bar.is_hidden());
        assert!(Progress::new(ProgressMode::Off, false).bar.is_hidden());
        let lines = Progress::new(ProgressMode::Lines, false);
        assert!(lines.bar.is_hidden() && lines.lines.is_some());
    }
}
