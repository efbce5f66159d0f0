//! The flags several commands share, as clap groups flattened into each command, with the
//! helpers that turn them into library options. A flag means the same in every command that
//! has it; only the BDD engine's defaults depend on the kind of command ([`EngineDefaults`]).

use crate::failure::Failure;
use crate::signals::{cancel_flag, start_watchdog};
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use symgame_bdd::{Backend, EngineConfig};
use symgame_limits::Limits;
use symgame_symbolic::{EncodingKind, LayeredMode, Order, SymbolicOptions};

/// The game a command reads.
#[derive(clap::Args)]
pub struct GameArg {
    /// The game description (GDL, KIF syntax).
    pub game: PathBuf,
}

impl GameArg {
    /// Loads and grounds the game; grounding stops after `time_limit`, if given.
    pub fn load(
        &self,
        time_limit: Option<Duration>,
    ) -> Result<symgame_ground::GroundGame, Failure> {
        load_game(&self.game, time_limit).map(|(_, game)| game)
    }

    /// The path as given, for messages.
    pub fn display(&self) -> std::path::Display<'_> {
        self.game.display()
    }
}

/// Loads and grounds a game; grounding stops after `time_limit`, if given.
pub fn load_game(
    path: &Path,
    time_limit: Option<Duration>,
) -> Result<(symgame_gdl::CheckedDescription, symgame_ground::GroundGame), Failure> {
    let desc = symgame_gdl::load(path)?;
    let opts = symgame_ground::GroundOptions {
        time_limit,
        ..Default::default()
    };
    let game = symgame_ground::ground(&desc, &opts)?;
    Ok((desc, game))
}

/// `--json`.
#[derive(clap::Args)]
pub struct OutputArgs {
    /// Print JSON instead of text (and no progress line).
    #[arg(long)]
    pub json: bool,
}

/// The defaults of the BDD engine flags for one kind of command, chosen by measurement
/// (`docs/benchmarks.md`, "Default BDD engine per command"):
///
/// | kind | commands | engine | threads | node table | cache |
/// |---|---|---|---:|---:|---:|
/// | [`Reaching`] | `reach` | oxidd | one per core | 2^24 | 2^22 |
/// | [`Solving`] | `solve`, `export`, `verify` | oxidd | 1 | 2^27 | 2^23 |
/// | [`Planning`] | `plan` | biodivine | (one per core) | (2^24) | (2^22) |
pub trait EngineDefaults {
    /// `--backend`.
    const BACKEND: &'static str;
    /// `--threads` (0: one per core).
    const THREADS: &'static str;
    /// `--nodes-log2`.
    const NODES_LOG2: &'static str;
    /// `--cache-log2`.
    const CACHE_LOG2: &'static str;
}

/// `reach`: oxidd on every core is the faster engine on big breadth-first searches (Connect
/// Four 6×4: 3.7 s of CPU against biodivine's 6.5 s) and the only one that uses both cores.
pub struct Reaching;

impl EngineDefaults for Reaching {
    const BACKEND: &'static str = "oxidd";
    const THREADS: &'static str = "0";
    const NODES_LOG2: &'static str = "24";
    const CACHE_LOG2: &'static str = "22";
}

/// `solve`, and `export` and `verify`, which solve the game first: oxidd on one thread, sized
/// for solving (a solve keeps two layers' value classes and the relation; a table near full
/// collects garbage often). Connect Four 5×5: 54 s of CPU against biodivine's 90 s, 6×4: 43 s
/// against 88 s; two threads cost 1.6 times the CPU time of one on 6×4 and gained no wall time
/// on the busy 2-core machine (`docs/solving.md`).
pub struct Solving;

impl EngineDefaults for Solving {
    const BACKEND: &'static str = "oxidd";
    const THREADS: &'static str = "1";
    const NODES_LOG2: &'static str = "27";
    const CACHE_LOG2: &'static str = "23";
}

/// `plan`: biodivine. On the bundled planning problems both engines take the same CPU time
/// within the noise of the machine (8-puzzle at distance 31, medians of 8 runs: A* 10.4 s on
/// biodivine, 9.3 s on oxidd, Dijkstra 7.0 s and 6.7 s, each ±20 %), and biodivine needs a
/// fifth to half of the memory and no start-up allocation (Hanoi, toll roads: 0.01 s against
/// up to 0.1 s).
pub struct Planning;

impl EngineDefaults for Planning {
    const BACKEND: &'static str = "biodivine";
    const THREADS: &'static str = "0";
    const NODES_LOG2: &'static str = "24";
    const CACHE_LOG2: &'static str = "22";
}

/// The BDD engine of a symbolic command, with the defaults of its kind `K`.
#[derive(clap::Args)]
pub struct EngineArgs<K: EngineDefaults> {
    /// The BDD engine: oxidd (shared node table, multi-threaded, fastest on big runs) or
    /// biodivine (a node vector per BDD, least memory). The default is measured per command
    /// (docs/benchmarks.md).
    #[arg(long, default_value = K::BACKEND)]
    pub backend: Backend,
    /// Threads for engines that use them (0: one per core).
    #[arg(long, default_value = K::THREADS)]
    pub threads: usize,
    /// oxidd node table capacity as a power of two (2^N nodes, reserved, filled on demand; at
    /// most 32).
    #[arg(long, value_name = "N", default_value = K::NODES_LOG2)]
    pub nodes_log2: u32,
    /// oxidd apply-cache size as a power of two (2^N entries, allocated at start: about
    /// 0.25 GB at 23; at most 32).
    #[arg(long, value_name = "N", default_value = K::CACHE_LOG2)]
    pub cache_log2: u32,
    #[arg(skip)]
    kind: PhantomData<K>,
}

impl<K: EngineDefaults> EngineArgs<K> {
    /// The engine parameters.
    pub fn config(&self) -> Result<EngineConfig, Failure> {
        if self.nodes_log2 > 32 || self.cache_log2 > 32 {
            return Err(Failure::input(
                "--nodes-log2 and --cache-log2 must be at most 32",
            ));
        }
        Ok(EngineConfig {
            threads: self.threads,
            node_capacity: 1usize << self.nodes_log2,
            cache_capacity: 1usize << self.cache_log2,
        })
    }
}

/// `--encoding` and `--order`: how states become BDD variables.
#[derive(clap::Args)]
pub struct EncodingArgs {
    /// State encoding: compact (proven mutex groups as binary numbers) or plain (a bit per
    /// fluent). Plan patterns keep whole groups: tile patterns of a sliding puzzle need the
    /// plain encoding, since the compact one groups its fluents by cell.
    #[arg(long, default_value = "compact", value_parser = parse_encoding)]
    pub encoding: EncodingKind,
    /// Variable order: heuristic (ground terms sorted, turn first), rules (FORCE on rule
    /// supports) or given (ground order).
    #[arg(long, default_value = "heuristic", value_parser = parse_order)]
    pub order: Order,
}

impl EncodingArgs {
    /// The symbolic options of these flags; set-up stops at the deadline of `clock`.
    pub fn options(&self, clock: &Clock) -> SymbolicOptions {
        SymbolicOptions {
            encoding: self.encoding,
            order: self.order,
            ..symbolic_options(clock)
        }
    }
}

/// The default symbolic options (the encoding solution files and databases are made with);
/// set-up stops at the deadline of `clock`.
pub fn symbolic_options(clock: &Clock) -> SymbolicOptions {
    SymbolicOptions {
        setup_deadline: clock.deadline(),
        ..SymbolicOptions::default()
    }
}

fn parse_encoding(s: &str) -> Result<EncodingKind, String> {
    match s {
        "compact" => Ok(EncodingKind::Compact),
        "plain" => Ok(EncodingKind::Plain),
        _ => Err(format!(
            "unknown encoding {s:?} (expected \"compact\" or \"plain\")"
        )),
    }
}

fn parse_order(s: &str) -> Result<Order, String> {
    match s {
        "heuristic" => Ok(Order::Heuristic),
        "rules" => Ok(Order::Rules),
        "given" => Ok(Order::Given),
        _ => Err(format!(
            "unknown order {s:?} (expected \"heuristic\", \"rules\" or \"given\")"
        )),
    }
}

/// `--layered`, for the commands that solve.
#[derive(clap::Args)]
pub struct LayeredArgs {
    /// Layered solving when every move goes from BFS layer k to k + 1 (auto: also one database
    /// layer per BFS depth), or never (the whole reachable set at once).
    #[arg(long, default_value = "auto", value_parser = parse_layered)]
    pub layered: LayeredMode,
}

fn parse_layered(s: &str) -> Result<LayeredMode, String> {
    match s {
        "auto" => Ok(LayeredMode::Auto),
        "never" => Ok(LayeredMode::Never),
        _ => Err(format!("expected auto or never, not {s:?}")),
    }
}

/// `--time-limit`.
#[derive(clap::Args)]
pub struct TimeLimitArgs {
    /// Stop after this many seconds (exit code 3). Limits are checked between BDD operations
    /// and search steps; what finished is reported (finished layers, the states checked so
    /// far; `solve --out` keeps the finished layers and marks the solution incomplete; `export`
    /// writes no file).
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub time_limit: Option<f64>,
}

fn parse_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(t) if t >= 0.0 && t.is_finite() => Ok(t),
        _ => Err(format!("expected a number of seconds, not {s:?}")),
    }
}

impl TimeLimitArgs {
    /// Starts the run's clock now, and with it the watchdog that ends a run stuck in one BDD
    /// operation past its limit (exit code 3).
    pub fn start(&self) -> Clock {
        let limit = self.time_limit.map(Duration::from_secs_f64);
        if let Some(limit) = limit {
            start_watchdog(limit);
        }
        Clock {
            deadline: limit.map(|t| Instant::now() + t),
        }
    }

    /// Limits with the time left on `clock` and the Ctrl-C flag.
    pub fn limits(&self, clock: &Clock) -> Limits {
        Limits {
            time_limit: clock.time_left(),
            cancel: Some(cancel_flag()),
            ..Limits::default()
        }
    }
}

/// `--node-limit` and `--time-limit`.
#[derive(clap::Args)]
pub struct LimitArgs {
    /// Stop when a search passes this many nodes: BDD nodes of one set in symbolic searches,
    /// expanded nodes in explicit ones (exit code 3; what finished is reported).
    #[arg(long, value_name = "N")]
    pub node_limit: Option<u64>,
    #[command(flatten)]
    pub time: TimeLimitArgs,
}

impl LimitArgs {
    /// Starts the run's clock now (see [`TimeLimitArgs::start`]).
    pub fn start(&self) -> Clock {
        self.time.start()
    }

    /// Limits with the node limit, the time left on `clock` and the Ctrl-C flag.
    pub fn limits(&self, clock: &Clock) -> Limits {
        Limits {
            max_nodes: self.node_limit,
            ..self.time.limits(clock)
        }
    }
}

/// When a run's `--time-limit` ends.
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    deadline: Option<Instant>,
}

impl Clock {
    /// The instant the time limit ends, if there is one; set-up (encoding, compilation) stops
    /// there too.
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// The time left (zero once the limit has passed), if there is a limit.
    pub fn time_left(&self) -> Option<Duration> {
        self.deadline
            .map(|d| d.saturating_duration_since(Instant::now()))
    }
}
