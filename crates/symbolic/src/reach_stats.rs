//! The statistics of a breadth-first search: per layer and for the whole run, as `reach`
//! reports them (text and `--json`) and a reachability directory keeps them
//! ([`ReachManifest`](crate::ReachManifest)).

use num_bigint::BigUint;
use serde::{Deserialize, Serialize};
use symgame_limits::StopReason;

use crate::decimal;
use crate::solve::stats::SlicedStats;

/// One breadth-first layer.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LayerStats {
    /// States first reached at this depth (serialised as a decimal string).
    #[serde(with = "decimal")]
    pub states: BigUint,
    /// Of those, the terminal ones (decimal string).
    #[serde(with = "decimal")]
    pub terminal: BigUint,
    /// BDD nodes of the layer.
    pub nodes: usize,
    /// Seconds since the start when the layer was complete.
    pub seconds: f64,
    /// Nodes in the engine's shared table then, dead ones not yet collected included (oxidd;
    /// `None` for engines without one).
    #[serde(default)]
    pub engine_nodes: Option<usize>,
    /// The process's peak resident memory then, in bytes (`None` where the system does not
    /// say).
    #[serde(default)]
    pub peak_resident: Option<u64>,
    /// When the layer's successors were found in slices by separate jobs (`reach --jobs N`):
    /// how the jobs went (their `solve_seconds` are the seconds of their images).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sliced: Option<SlicedStats>,
}

/// The statistics of a reachability run: complete layers, totals, and why it stopped early.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ReachStats {
    /// The complete layers, from the initial state.
    pub layers: Vec<LayerStats>,
    /// Total states over the complete layers (decimal string).
    #[serde(with = "decimal")]
    pub states: BigUint,
    /// Total terminal states over the complete layers (decimal string).
    #[serde(with = "decimal")]
    pub terminal: BigUint,
    /// BDD nodes of the reached set, taken at the end of the run (0 when the reached set was
    /// not kept, see [`reach_count`](crate::reach_count)).
    pub reached_nodes: usize,
    /// Number of transition partitions used by the image.
    pub partitions: usize,
    /// How the transition relation is split: `"per joint move"` (one partition per joint
    /// move, clustered) or `"within each layer"` (the game compiled anew within each layer,
    /// see [`SymbolicOptions::layerwise_fallback`](crate::SymbolicOptions::layerwise_fallback)).
    #[serde(default)]
    pub partitioning: String,
    /// How many of the first layers were expanded state by state with the explicit reasoner
    /// ([`ExplicitPrefix`](crate::ExplicitPrefix)); the later ones symbolically.
    #[serde(default)]
    pub explicit_layers: usize,
    /// Of the later layers, how many were expanded state by state, where the measured rates
    /// predicted that cheaper than the symbolic way (the images of the game compiled once, or
    /// compiling the game within the layer).
    #[serde(default)]
    pub explicit_later: usize,
    /// Seconds of the whole run.
    pub seconds: f64,
    /// `Some` when the run stopped before the end.
    pub stopped: Option<StopReason>,
    /// Why a time limit stopped the run before it was up, if so: the next layer's images
    /// were predicted to take longer than the time left (see `ImagePace::hopeless`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_note: Option<String>,
    /// The encoding's groups were assumed and a state about to be expanded breaks one
    /// ([`SymbolicGame::assumption_broken`](crate::SymbolicGame::assumption_broken)): the layers
    /// before it are exact, the search stopped there, and the caller should run again with
    /// proven groups.
    #[serde(default)]
    pub assumption_broken: bool,
    /// With [`Self::assumption_broken`]: the true fluents of a state the search was about to
    /// expand (a reachable state) where a legal joint move breaks an assumed group, when the
    /// place that found the break knows one
    /// ([`SymbolicGame::break_witness`](crate::SymbolicGame::break_witness)). Its successors
    /// show which group: a caller can assume the groups again without it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub break_witness: Option<Vec<usize>>,
    /// How many sittings the search took: 1, or more when it was resumed from a directory
    /// ([`ReachStore`](crate::ReachStore)); its seconds count over all of them.
    #[serde(default = "one")]
    pub sittings: u32,
    /// Set when the directory that keeps the layers could not be read or written: the search
    /// stopped there (the layers before are exact and kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub store_error: Option<String>,
    /// Set when the job of a slice of a layer failed (`reach --jobs N`): what it said. The
    /// search stopped there (the layers before are exact and kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slice_error: Option<String>,
}

impl ReachStats {
    /// For a search its limits stopped: adds the layers of `known` (states and terminal states
    /// of each, counted explicitly) past those it has, with no BDD nodes (none was built for
    /// them), since they are exact layers it did not report itself.
    pub(crate) fn add_known_layers(&mut self, known: &[(u64, u64)], seconds: f64) {
        if self.stopped.is_none() || known.len() <= self.layers.len() {
            return;
        }
        let had = self.layers.len();
        for &(states, terminal) in &known[had..] {
            self.states += BigUint::from(states);
            self.terminal += BigUint::from(terminal);
            self.layers.push(LayerStats {
                states: states.into(),
                terminal: terminal.into(),
                nodes: 0,
                seconds,
                engine_nodes: None,
                peak_resident: None,
                sliced: None,
            });
        }
        self.explicit_layers = self.explicit_layers.max(known.len());
        self.seconds = seconds;
    }
}

fn one() -> u32 {
    1
}
