//! Where the set-up's time goes: one record per phase (mutex proof, compilation of the
//! conditions, joint moves, relations, clustering, terminal parts) with its seconds and the BDD
//! engine's live nodes at its end. The records live in a shared [`SetupLog`] that the caller
//! keeps, so a run stopped by a limit inside a phase still reports the phases it finished and
//! the one it was in. A leaf: imports nothing else of the crate.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use serde::{Deserialize, Serialize};

/// One phase of the set-up, as reported.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Phase {
    /// What the phase does (`mutex`, `conditions`, `goals`, `joint_moves`, `relations`,
    /// `clustering`, `terminal_parts`; `explicit_graph` and `layerwise` when compiling over
    /// all states gave up).
    pub name: String,
    /// Seconds it took (so far, if it did not finish).
    pub seconds: f64,
    /// Live nodes of the BDD engine at its end (`None` when the engine does not share one node
    /// table, or the phase did not finish).
    pub nodes: Option<usize>,
    /// Whether it finished (`false`: a limit or an error stopped the set-up inside it).
    pub finished: bool,
    /// What the phase came to, where it says more than its time (the mutex proof: the groups
    /// proven, or why it gave up).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

#[derive(Debug)]
struct Record {
    name: &'static str,
    started: Instant,
    seconds: Option<f64>,
    nodes: Option<usize>,
    note: Option<String>,
}

/// The phases of one set-up, shared between the caller and the set-up (clones share the log).
#[derive(Clone, Debug, Default)]
pub struct SetupLog(Arc<Mutex<Vec<Record>>>);

impl SetupLog {
    /// An empty log.
    pub fn new() -> Self {
        SetupLog::default()
    }

    fn records(&self) -> MutexGuard<'_, Vec<Record>> {
        // A panic while holding the lock leaves whole records behind: keep reading them.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The phases so far, in order; an unfinished one with its seconds up to now.
    pub fn phases(&self) -> Vec<Phase> {
        self.records()
            .iter()
            .map(|r| Phase {
                name: r.name.to_string(),
                seconds: r
                    .seconds
                    .unwrap_or_else(|| r.started.elapsed().as_secs_f64()),
                nodes: r.nodes,
                finished: r.seconds.is_some(),
                note: r.note.clone(),
            })
            .collect()
    }

    /// Starts phase `name`; it ends with [`SetupLog::finish`].
    pub fn start(&self, name: &'static str) {
        self.records().push(Record {
            name,
            started: Instant::now(),
            seconds: None,
            nodes: None,
            note: None,
        });
    }

    /// Notes what the last started phase came to.
    pub fn note(&self, note: String) {
        if let Some(r) = self.records().last_mut() {
            r.note = Some(note);
        }
    }

    /// Ends the last started phase, with the engine's live nodes if known.
    pub fn finish(&self, nodes: Option<usize>) {
        if let Some(r) = self
            .records()
            .iter_mut()
            .rev()
            .find(|r| r.seconds.is_none())
        {
            r.seconds = Some(r.started.elapsed().as_secs_f64());
            r.nodes = nodes;
        }
    }
}

/// Two logs never make options differ: the log records, it does not configure.
impl PartialEq for SetupLog {
    fn eq(&self, _: &SetupLog) -> bool {
        true
    }
}

impl Eq for SetupLog {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unfinished_phase_is_reported_as_such() {
        let log = SetupLog::new();
        log.start("mutex");
        log.finish(Some(10));
        log.start("relations");
        let p = log.phases();
        assert_eq!(p.len(), 2);
        assert!(p[0].finished && p[0].nodes == Some(10));
        assert!(!p[1].finished && p[1].name == "relations");
        let shared = log.clone();
        shared.finish(None);
        assert!(log.phases()[1].finished, "clones share the log");
    }
}
