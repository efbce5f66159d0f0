//! Progress on a terminal: one line on stderr, rewritten in place (`\r`) after each layer,
//! bucket or checked state, and cleared before the report is printed. Quiet when stderr is not
//! a terminal or under `--json`, so logs and pipes get the report alone.

use std::cell::Cell;
use std::fmt;
use std::io::IsTerminal;
use symgame_explicit::Exploration;
use symgame_symbolic::{PlanStats, ReachStats, SolveStats};

/// The progress line of one command.
pub struct Progress {
    /// Whether lines are shown at all.
    on: bool,
    /// Whether a line is on the terminal now.
    shown: Cell<bool>,
}

impl Progress {
    /// Progress on stderr when it is a terminal and the output is not JSON.
    pub fn new(json: bool) -> Self {
        Progress {
            on: !json && std::io::stderr().is_terminal(),
            shown: Cell::new(false),
        }
    }

    fn show(&self, line: fmt::Arguments<'_>) {
        if self.on {
            eprint!("\r{line}   ");
            self.shown.set(true);
        }
    }

    /// Clears the line, before the report is printed (and when the command ends).
    pub fn clear(&self) {
        if self.shown.replace(false) {
            eprint!("\r{:80}\r", "");
        }
    }

    /// After a layer of the explicit enumeration.
    pub fn explore(&self, e: &Exploration) {
        if let Some(l) = e.layers.last() {
            self.show(format_args!(
                "layer {:>4}: {:>12} states ({:.1} s)",
                e.layers.len() - 1,
                l.states,
                l.seconds
            ));
        }
    }

    /// After a layer of the symbolic breadth-first search.
    pub fn reach(&self, s: &ReachStats) {
        if let Some(l) = s.layers.last() {
            self.show(format_args!(
                "layer {:>4}: {:>20} states, {:>10} nodes ({:.1} s)",
                s.layers.len() - 1,
                l.states,
                l.nodes,
                l.seconds
            ));
        }
    }

    /// After a solved layer.
    pub fn solve(&self, s: &SolveStats) {
        if let Some(l) = s.layers.last() {
            self.show(format_args!(
                "solved layer {:>4}: {:>20} states, {:>10} nodes ({:.1} s)",
                l.depth, l.states, l.nodes, l.seconds
            ));
        }
    }

    /// After an expanded layer or bucket of a planning search.
    pub fn plan(&self, s: &PlanStats) {
        if let Some(l) = s.layers.last() {
            self.show(format_args!(
                "layer g {:>5} h {:>5}: {:>16} states, {:>9} nodes ({:.1} s)",
                l.g,
                l.h.map_or("-".into(), |h| h.to_string()),
                l.states,
                l.nodes,
                l.seconds
            ));
        }
    }

    /// After a state checked by the explicit solvers.
    pub fn verify(&self, p: &symgame_verify::Progress) {
        self.show(format_args!(
            "checked {:>8} of {:>8} states, {} disagreements",
            p.states_checked, p.states_to_check, p.disagreements
        ));
    }
}

impl Drop for Progress {
    /// A command that fails half-way leaves no stale line before its error message.
    fn drop(&mut self) {
        self.clear();
    }
}
