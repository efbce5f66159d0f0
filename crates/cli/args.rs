//! The flags several commands share, as clap groups flattened into each command, with the
//! helpers that turn them into library options. A flag means the same in every command that
//! has it; only the BDD engine's defaults depend on the kind of command ([`EngineDefaults`]).

use crate::failure::Failure;
use crate::signals::{cancel_flag, start_watchdog};
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::time::{Duration, Instant};
use symgame_bdd::{Backend, EngineConfig};
use symgame_ground::GroundGame;
use symgame_limits::Limits;
use symgame_symbolic::{
    Encoding, EncodingKind, ExplicitPrefix, ExplicitRun, GraphBudget, LayeredMode, Order, Setup,
    SetupLog, SymbolicOptions, ValueRule,
};

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

/// Loads and grounds a game; reading, parsing, checking and grounding together stop at
/// `time_limit`, if given (a limit error: exit 3).
pub fn load_game(
    path: &Path,
    time_limit: Option<Duration>,
) -> Result<(symgame_gdl::CheckedDescription, symgame_ground::GroundGame), Failure> {
    // The time limit counts from here: reading and parsing a huge file stop at it too.
    let deadline = time_limit.and_then(|t| std::time::Instant::now().checked_add(t));
    let desc = symgame_gdl::load_within(path, deadline)?;
    // The watchdog names the rule if one step of grounding outlasts the limit.
    let at_rule = Arc::new(AtomicU64::new(0));
    crate::signals::watch_grounding(at_rule.clone(), desc.description.source.clone());
    let opts = symgame_ground::GroundOptions {
        time_limit: deadline.map(|d| d.saturating_duration_since(std::time::Instant::now())),
        at_rule: Some(at_rule),
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

/// `--progress`, for the commands that report steps as they go (layers, checked states).
#[derive(clap::Args)]
pub struct ProgressArgs {
    /// How to show progress on stderr: `auto` a bar redrawn in place when stderr is a
    /// terminal and the output is not JSON, else nothing; `lines` one plain line per layer
    /// (`verify`: per second of checked states) with the elapsed time and the peak memory, for
    /// a long run whose stderr goes to a log file (also with `--json`, whose report goes to
    /// stdout); `off` nothing
    #[arg(long, value_enum, default_value_t = ProgressMode::Auto, value_name = "MODE")]
    pub progress: ProgressMode,
}

/// The values of `--progress`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ProgressMode {
    Auto,
    Lines,
    Off,
}

/// `--plot`, for the commands that draw their layers.
#[derive(clap::Args)]
pub struct PlotArgs {
    /// Draw the states and BDD nodes of each layer (log scale; for `solve` also the states by
    /// value, stacked) as an SVG picture in this file, written when the run ends (also after a
    /// limit: the finished layers). A path in a missing or unwritable directory is refused
    /// before any work (exit code 2).
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
}

impl PlotArgs {
    /// Refuses (an input error, before any work) a plot path that is the game file itself, a
    /// directory, or in a directory that does not exist or cannot be written (probed with a
    /// hidden file, removed at once).
    pub fn check(&self, game: &Path) -> Result<(), Failure> {
        let Some(p) = &self.plot else {
            return Ok(());
        };
        crate::output::refuse_overwrite("--plot", p, &[game], &[])?;
        if p.is_dir() {
            return Err(Failure::input(format!(
                "--plot {}: is a directory",
                p.display()
            )));
        }
        let dir = match p.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let probe = dir.join(format!(".symgame-plot-check-{}", std::process::id()));
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&probe)
        {
            Ok(_) => {
                let _ = std::fs::remove_file(&probe);
                Ok(())
            }
            Err(e) => Err(Failure::input(format!(
                "--plot {}: cannot write in {}: {e}",
                p.display(),
                dir.display()
            ))),
        }
    }
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
    /// The defaults of `--backend`, `--threads`, `--nodes-log2` and `--cache-log2`.
    const FLAGS: EngineFlags;
}

/// The default values of the BDD engine flags, as the text clap parses.
pub struct EngineFlags {
    /// `--backend`.
    pub backend: &'static str,
    /// `--threads` (0: one per core).
    pub threads: &'static str,
    /// `--nodes-log2`.
    pub nodes_log2: &'static str,
    /// `--cache-log2`.
    pub cache_log2: &'static str,
}

impl EngineFlags {
    /// One row of the table of [`EngineDefaults`], in its column order.
    const fn row(
        backend: &'static str,
        threads: &'static str,
        nodes_log2: &'static str,
        cache_log2: &'static str,
    ) -> EngineFlags {
        EngineFlags {
            backend,
            threads,
            nodes_log2,
            cache_log2,
        }
    }
}

/// `reach`: oxidd on every core is the faster engine on big breadth-first searches (Connect
/// Four 6×4: 3.7 s of CPU against biodivine's 6.5 s) and the only one that uses both cores.
pub struct Reaching;

/// `solve`, and `export` and `verify`, which solve the game first: oxidd on one thread, sized
/// for solving (a solve keeps two layers' value classes and the relation; a table near full
/// collects garbage often). Connect Four 5×5: 54 s of CPU against biodivine's 90 s, 6×4: 43 s
/// against 88 s; two threads cost 1.6 times the CPU time of one on 6×4 and gained no wall time
/// on the busy 2-core machine (`docs/solving.md`).
pub struct Solving;

/// `plan`: biodivine. On the bundled planning problems both engines take the same CPU time
/// within the noise of the machine (8-puzzle at distance 31, medians of 8 runs: A* 10.4 s on
/// biodivine, 9.3 s on oxidd, Dijkstra 7.0 s and 6.7 s, each ±20 %), and biodivine needs a
/// fifth to half of the memory and no start-up allocation (Hanoi, toll roads: 0.01 s against
/// up to 0.1 s).
pub struct Planning;

// The rows of the table of `EngineDefaults`: engine, threads, node table, cache.
impl EngineDefaults for Reaching {
    const FLAGS: EngineFlags = EngineFlags::row("oxidd", "0", "24", "22");
}
impl EngineDefaults for Solving {
    const FLAGS: EngineFlags = EngineFlags::row("oxidd", "1", "27", "23");
}
impl EngineDefaults for Planning {
    const FLAGS: EngineFlags = EngineFlags::row("biodivine", "0", "24", "22");
}

/// The BDD engine of a symbolic command, with the defaults of its kind `K`.
#[derive(clap::Args)]
pub struct EngineArgs<K: EngineDefaults> {
    /// The BDD engine: oxidd (shared node table, multi-threaded, fastest on big runs) or
    /// biodivine (a node vector per BDD, least memory). The default is measured per command
    /// (docs/benchmarks.md).
    #[arg(long, default_value = K::FLAGS.backend)]
    pub backend: Backend,
    /// Threads for engines that use them (0: one per core; at most 4 per core).
    #[arg(long, default_value = K::FLAGS.threads, value_parser = parse_threads)]
    pub threads: usize,
    /// oxidd node table capacity as a power of two (2^N nodes, N from 16 to 32, reserved,
    /// filled on demand, 16 bytes a node: 2 GB at 27; refused if the table does not fit in the
    /// machine's memory).
    #[arg(long, value_name = "N", default_value = K::FLAGS.nodes_log2,
          value_parser = clap::value_parser!(u32).range(NODES_LOG2_MIN as i64..=32))]
    pub nodes_log2: u32,
    /// oxidd apply-cache size as a power of two (2^N entries, N from 8 to 32, allocated at
    /// start, 32 bytes an entry: about 0.25 GB at 23). Default: 22 for `reach`, 23 for the
    /// commands that solve; with --memory, about a tenth of that memory (2^26 entries in 20G),
    /// never less than the default and at most 2^28.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(8..=32))]
    pub cache_log2: Option<u32>,
    /// The most memory the run may use, e.g. 20G, 512M, 3.5G or a number of bytes (K, M, G
    /// and T are powers of 1024). oxidd's node table is sized to fit in it beside its cache
    /// (instead of --nodes-log2), and the run stops with "memory limit reached" (exit code 3,
    /// what finished is reported) once its resident memory passes it. Without it: three
    /// quarters of the machine's memory, and the node table of --nodes-log2.
    #[arg(long, value_name = "SIZE", value_parser = parse_memory, conflicts_with = "nodes_log2")]
    pub memory: Option<u64>,
    #[arg(skip)]
    kind: PhantomData<K>,
}

/// The smallest `--nodes-log2`: 2^16 nodes (1 MB), enough for the set-up of any game the
/// engine can encode at all; smaller tables would only fail later, in a different way per
/// command.
const NODES_LOG2_MIN: u32 = 16;
/// Bytes of one oxidd node table slot: `--nodes-log2 32` asked for 68 719 476 704 bytes,
/// (2^32 - 2) × 16.
const NODE_BYTES: u64 = 16;
/// Bytes of one oxidd apply-cache entry, measured: 2^23 entries are about 0.25 GB.
const CACHE_ENTRY_BYTES: u64 = 32;

/// Resident bytes a node of oxidd's table costs when the table is full, with its share of the
/// unique table and of the search's own sets, for the first [`SMALL_TABLE_NODES`] nodes.
/// Measured on Connect Four 7×6 reachability (`docs/solving.md`), each table filled: 211 MiB at
/// 2^21 nodes, 642 MiB at 2^23, 1,099 MiB at 2^24 (56 to 77 bytes a node between sizes).
const NODE_RESIDENT_BYTES: u64 = 64;
/// Tables up to this many nodes cost [`NODE_RESIDENT_BYTES`] a node.
const SMALL_TABLE_NODES: u64 = 1 << 25;
/// Resident bytes a node costs beyond [`SMALL_TABLE_NODES`]: measured 39 (6.1 GiB with a full
/// table of about 156 million nodes against 1,099 MiB at 2^24); 44 leaves room for the layer a
/// run writes, serialised in memory.
const LARGE_TABLE_NODE_BYTES: u64 = 44;
/// Resident bytes of a run besides the node table and the cache: the program, the ground game
/// and the compiled relations of a small game (about 60 MB measured on Connect Four 7×6).
const BASE_RESIDENT_BYTES: u64 = 96 << 20;

/// `--memory`: a number of bytes with an optional K, M, G or T (powers of 1024, an optional
/// `B` or `iB` after it), at least 64M.
pub(crate) fn parse_memory(s: &str) -> Result<u64, String> {
    let bytes = parse_size(s)?;
    if bytes < 64 << 20 {
        return Err(format!("{s:?} is less than 64M, too little for any run"));
    }
    Ok(bytes)
}

/// A number of bytes with an optional K, M, G or T (powers of 1024, an optional `B` or `iB`
/// after it).
pub(crate) fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let upper = t.to_ascii_uppercase();
    let body = upper
        .strip_suffix("IB")
        .or_else(|| upper.strip_suffix('B'))
        .unwrap_or(&upper);
    let (number, shift) = match body.chars().last() {
        Some('K') => (&body[..body.len() - 1], 10),
        Some('M') => (&body[..body.len() - 1], 20),
        Some('G') => (&body[..body.len() - 1], 30),
        Some('T') => (&body[..body.len() - 1], 40),
        _ => (body, 0),
    };
    let bad = || format!("expected a size such as 20G, 512M or 1048576, not {s:?}");
    let value: f64 = number.trim().parse().map_err(|_| bad())?;
    let bytes = value * (1u64 << shift) as f64;
    if !bytes.is_finite() || bytes < 0.0 || bytes >= 2f64.powi(63) {
        return Err(bad());
    }
    Ok(bytes as u64)
}

/// The memory a run may use when `--memory` is not given: three quarters of the machine's,
/// leaving room for the system and a second run.
fn safe_share() -> Option<u64> {
    symgame_limits::machine_memory().map(|m| m / 4 * 3)
}

/// The apply cache (log2 of its entries) of a run in `memory` bytes: about a tenth of them, at
/// least 2^`default` entries and at most 2^28. On Connect Four 7×6 reachability (`--memory 8G`,
/// one thread), ply 21 took 38.8 s with 2^22 entries, 26.9 s with 2^24 and 22.8 s with 2^26:
/// layers of millions of nodes miss a small cache.
fn cache_for_memory(memory: u64, default: u32) -> u32 {
    let entries = memory / 10 / CACHE_ENTRY_BYTES;
    let log2 = entries.checked_ilog2().unwrap_or(0);
    log2.clamp(default, 28.max(default))
}

/// The node table that fits in `memory` bytes beside a cache of 2^`cache_log2` entries.
fn nodes_within(memory: u64, cache_log2: u32) -> Result<usize, String> {
    let cache = CACHE_ENTRY_BYTES << cache_log2;
    let table = memory.saturating_sub(cache + BASE_RESIDENT_BYTES);
    let small = NODE_RESIDENT_BYTES * SMALL_TABLE_NODES;
    let nodes = match table.checked_sub(small) {
        Some(more) => SMALL_TABLE_NODES + more / LARGE_TABLE_NODE_BYTES,
        None => table / NODE_RESIDENT_BYTES,
    };
    let most = (1u64 << 32) - 2;
    if nodes < 1 << NODES_LOG2_MIN {
        return Err(format!(
            "--memory {:.2} GiB leaves no room for a node table beside a cache of 2^{cache_log2} \
             entries ({:.2} GiB); give more memory or a smaller --cache-log2",
            memory as f64 / (1u64 << 30) as f64,
            cache as f64 / (1u64 << 30) as f64
        ));
    }
    Ok(nodes.min(most) as usize)
}

/// `--threads`: 0 (one per core) up to 4 per core. More threads than that only slow oxidd
/// down (tic-tac-toe takes a minute on 1000 threads) and millions of them never start.
fn parse_threads(s: &str) -> Result<usize, String> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let max = 4 * cores;
    match s.parse::<usize>() {
        Ok(n) if n <= max => Ok(n),
        Ok(_) => Err(format!(
            "at most {max} threads (4 per core, {cores} cores); 0 uses one per core"
        )),
        Err(_) => Err(format!("expected a number of threads, not {s:?}")),
    }
}

/// Whether an oxidd table of 2^`nodes_log2` nodes and 2^`cache_log2` cache entries fits in
/// `memory` bytes; if not, the message names the largest `--nodes-log2` that does.
fn check_table_fits(nodes_log2: u32, cache_log2: u32, memory: u64) -> Result<(), String> {
    let bytes = |nodes: u32| (NODE_BYTES << nodes) + (CACHE_ENTRY_BYTES << cache_log2);
    if bytes(nodes_log2) <= memory {
        return Ok(());
    }
    let gb = |b: u64| b as f64 / 1e9;
    let hint = match (NODES_LOG2_MIN..nodes_log2)
        .rev()
        .find(|&n| bytes(n) <= memory)
    {
        Some(n) => format!("the largest --nodes-log2 that fits is {n}"),
        None => format!("--cache-log2 {cache_log2} alone does not fit; lower it"),
    };
    Err(format!(
        "--nodes-log2 {nodes_log2} with --cache-log2 {cache_log2} needs {:.1} GB, more than \
         this machine's {:.1} GB of memory; {hint}",
        gb(bytes(nodes_log2)),
        gb(memory)
    ))
}

impl<K: EngineDefaults> EngineArgs<K> {
    /// `--cache-log2` as given, else with `--memory` on oxidd the cache for that memory
    /// ([`cache_for_memory`]), else the command's default.
    pub fn cache_log2(&self) -> u32 {
        let default = K::FLAGS.cache_log2.parse().unwrap_or(22);
        match (self.cache_log2, self.memory) {
            (Some(n), _) => n,
            (None, Some(m)) if self.backend == Backend::Oxidd => cache_for_memory(m, default),
            (None, _) => default,
        }
    }

    /// The engine parameters; refused (exit code 2) if oxidd's tables do not fit in the
    /// machine's memory.
    pub fn config(&self) -> Result<EngineConfig, Failure> {
        let node_capacity = match self.memory {
            Some(memory) if self.backend == Backend::Oxidd => {
                nodes_within(memory, self.cache_log2()).map_err(Failure::input)?
            }
            _ => {
                if self.backend == Backend::Oxidd {
                    if let Some(memory) = symgame_limits::machine_memory() {
                        check_table_fits(self.nodes_log2, self.cache_log2(), memory)
                            .map_err(Failure::input)?;
                    }
                }
                1usize << self.nodes_log2
            }
        };
        Ok(EngineConfig {
            threads: self.threads,
            node_capacity,
            cache_capacity: 1usize << self.cache_log2(),
        })
    }

    /// `limits` with the run's memory ceiling: `--memory`, else the safe share of the machine.
    pub fn bound(&self, limits: Limits) -> Limits {
        Limits {
            max_resident_bytes: self.memory.or_else(safe_share),
            ..limits
        }
    }

    /// A 1/`jobs` share of the run's memory (`--memory`, else the safe share of the
    /// machine), for each of `jobs` processes; `None` if the machine's memory is unknown.
    pub fn memory_share(&self, jobs: u32) -> Option<u64> {
        Some(share_beside(self.memory.or_else(safe_share)?, 0, jobs))
    }

    /// The run's memory (`--memory`, else the safe share of the machine), if known.
    pub fn memory_total(&self) -> Option<u64> {
        self.memory.or_else(safe_share)
    }

    /// `--threads` for each of `jobs` processes on this machine: as given, or where it is 0
    /// (one per core), the cores shared among the jobs (at least one each). Two jobs of
    /// `reach` with two threads each on two cores took 1.11× the wall time of two with one
    /// thread each (docs/distributed.md, "Forward layers").
    pub fn threads_share(&self, jobs: u32) -> usize {
        if self.threads != 0 {
            return self.threads;
        }
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        (cores / jobs.max(1) as usize).max(1)
    }

    /// The set-up of a search of `game` with `encoding` on this engine.
    pub fn setup<'a>(
        &self,
        game: &'a GroundGame,
        encoding: Encoding,
        config: &'a EngineConfig,
        opts: &'a SymbolicOptions,
    ) -> Setup<'a> {
        Setup {
            game,
            encoding,
            backend: self.backend,
            config,
            opts,
        }
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
    /// supports), given (ground order), or auto: whichever of the three gives the states the
    /// explicit prefix found the smallest BDD (another than heuristic must be a third of
    /// its size, and given is not taken where heuristic needs under 2,000 nodes; heuristic
    /// where no states are known). `reach` defaults to auto, `plan` to heuristic.
    #[arg(long, value_parser = parse_order)]
    pub order: Option<Order>,
    #[command(flatten)]
    pub mutex: MutexArgs,
}

/// `--mutex-seconds`: the mutex proof's time.
#[derive(clap::Args)]
pub struct MutexArgs {
    /// The longest the mutex proof of the compact encoding may take, in seconds (it also takes
    /// at most a fifth of the time left, and 20 s). 0 skips it: `reach` and `solve` then assume
    /// the groups that random playouts do not break and check them on every reachable state
    /// (setting up again without a group that breaks); other commands use the plain encoding.
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub mutex_seconds: Option<f64>,
}

impl MutexArgs {
    /// `--mutex-seconds` as a duration, if given.
    pub fn duration(&self) -> Option<std::time::Duration> {
        self.mutex_seconds.map(std::time::Duration::from_secs_f64)
    }
}

impl EncodingArgs {
    /// The symbolic options of these flags; set-up stops at the deadline of `clock`.
    pub fn options(&self, clock: &Clock) -> SymbolicOptions {
        SymbolicOptions {
            encoding: self.encoding,
            order: self.order(),
            mutex_seconds: self.mutex.duration(),
            ..symbolic_options(clock)
        }
    }
}

impl EncodingArgs {
    /// The order asked for; by default heuristic.
    pub fn order(&self) -> Order {
        self.order.unwrap_or(Order::Heuristic)
    }

    /// The order asked for; by default auto (for `reach`, whose results are counts, not files
    /// checked against an order).
    pub fn order_or_auto(&self) -> Order {
        self.order.unwrap_or(Order::Auto)
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

pub(crate) fn parse_order(s: &str) -> Result<Order, String> {
    match s {
        "heuristic" => Ok(Order::Heuristic),
        "rules" => Ok(Order::Rules),
        "given" => Ok(Order::Given),
        "auto" => Ok(Order::Auto),
        _ => Err(format!(
            "unknown order {s:?} (expected \"heuristic\", \"rules\", \"given\" or \"auto\")"
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

/// `--values` of `solve`.
#[derive(clap::Args)]
pub struct ValuesArgs {
    /// Which values to compute: auto (the best reward for one role, minimax for two roles with
    /// constant sum, the role to move's preference for general rewards, max^n for three or more
    /// roles taking turns; where roles move simultaneously, the values in mixed strategies for
    /// two roles with constant sum, else the security levels) or security
    /// (every role's security level: the most it can guarantee in pure strategies whatever the
    /// others do, for any game).
    #[arg(long, default_value = "auto", value_parser = parse_values)]
    pub values: ValueRule,
}

fn parse_values(s: &str) -> Result<ValueRule, String> {
    match s {
        "auto" => Ok(ValueRule::Auto),
        "security" => Ok(ValueRule::Security),
        _ => Err(format!("expected auto or security, not {s:?}")),
    }
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
    /// Stop after this many seconds, from 0 to 1e9 (about 31 years; exit code 3). Limits are
    /// checked between BDD operations and search steps; what finished is reported (finished
    /// layers, the states checked so far; `solve --out` keeps the finished layers and marks the
    /// solution incomplete; `export` writes no file).
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub time_limit: Option<f64>,
}

/// The largest `--time-limit`, in seconds (about 31 years): far from where `Instant` and
/// `Duration` arithmetic overflows.
const MAX_SECONDS: f64 = 1e9;

pub(crate) fn parse_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(t) if (0.0..=MAX_SECONDS).contains(&t) => Ok(t),
        Ok(t) if t.is_finite() => Err(format!(
            "expected a number of seconds from 0 to {MAX_SECONDS:e} (about 31 years), not {s}"
        )),
        _ => Err(format!(
            "expected a finite number of seconds from 0 to {MAX_SECONDS:e}, not {s:?}"
        )),
    }
}

impl TimeLimitArgs {
    /// Starts the run's clock now, and with it the watchdog that ends a run stuck in one BDD
    /// operation past its limit (exit code 3).
    pub fn start(&self) -> Clock {
        // The parser keeps the seconds in range; `try_from` and `checked_add` make sure a
        // limit too far away means no deadline rather than a panic.
        let limit = self
            .time_limit
            .and_then(|t| Duration::try_from_secs_f64(t).ok());
        if let Some(limit) = limit {
            start_watchdog(limit);
        }
        Clock {
            deadline: limit.and_then(|t| Instant::now().checked_add(t)),
        }
    }

    /// Limits with the time left on `clock` (counted from now, not from when a search's guard
    /// is made after its set-up) and the Ctrl-C flag.
    pub fn limits(&self, clock: &Clock) -> Limits {
        Limits {
            time_limit: clock.time_left(),
            time_from: Some(Instant::now()),
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

/// A 1/`jobs` share of what `total` bytes leave beside the `own` resident bytes of the process
/// that starts the jobs (a solve merging one layer while the jobs of the next run holds its
/// classes), and at least 64 MiB.
pub fn share_beside(total: u64, own: u64, jobs: u32) -> u64 {
    (total.saturating_sub(own) / u64::from(jobs.max(1))).max(64 << 20)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Jobs share what the run's memory leaves beside the process that starts them; never
    /// less than 64 MiB each.
    #[test]
    fn jobs_share_the_memory_left_beside_their_parent() {
        let g = 1u64 << 30;
        assert_eq!(share_beside(19 * g, 0, 2), 19 * g / 2);
        assert_eq!(share_beside(19 * g, 5 * g, 2), 7 * g);
        assert_eq!(share_beside(19 * g, 5 * g, 0), 14 * g);
        assert_eq!(share_beside(4 * g, 5 * g, 2), 64 << 20);
    }

    #[test]
    fn seconds_in_range_only() {
        // (text, accepted): the ends of the range, then what lies outside it or is no number.
        let cases = [
            ("0", true),
            ("1e9", true),
            ("inf", false),
            ("nan", false),
            ("1e20", false),
            ("1e309", false),
            ("18446744073709551616", false),
            ("-1", false),
            ("x", false),
        ];
        for (text, accepted) in cases {
            let parsed = parse_seconds(text);
            assert_eq!(parsed.is_ok(), accepted, "{text}: {parsed:?}");
            if accepted {
                assert_eq!(parsed, text.parse::<f64>().map_err(|e| e.to_string()));
            }
        }
    }

    #[test]
    fn table_must_fit_in_memory() {
        let gib = 1u64 << 30;
        assert!(check_table_fits(27, 23, 24 * gib).is_ok());
        let e = check_table_fits(32, 22, 24 * gib).unwrap_err();
        assert!(
            e.contains("the largest --nodes-log2 that fits is 30"),
            "{e}"
        );
        let e = check_table_fits(20, 32, gib).unwrap_err();
        assert!(e.contains("lower it"), "{e}");
    }

    #[test]
    fn memory_sizes() {
        let gib = 1u64 << 30;
        assert_eq!(parse_memory("20G"), Ok(20 * gib));
        assert_eq!(parse_memory("20GiB"), Ok(20 * gib));
        assert_eq!(parse_memory("1.5g"), Ok(3 * gib / 2));
        assert_eq!(parse_memory("512M"), Ok(512 << 20));
        assert_eq!(parse_memory("134217728"), Ok(128 << 20));
        for bad in ["", "G", "-1G", "20X", "1e30G", "inf", "nan", "1M"] {
            assert!(parse_memory(bad).is_err(), "{bad:?}");
        }
        // The cache --memory gives: a tenth of it, within 2^default and 2^28.
        assert_eq!(cache_for_memory(20 * gib, 22), 26);
        assert_eq!(cache_for_memory(8 * gib, 22), 24);
        assert_eq!(cache_for_memory(gib, 22), 22);
        assert_eq!(cache_for_memory(1 << 40, 23), 28);
        // 20 GiB with a 2^23 cache: about 465 M nodes; the cache alone can take it all.
        let nodes = nodes_within(20 * gib, 23).unwrap();
        assert!((460_000_000..470_000_000).contains(&nodes), "{nodes}");
        // 1 GiB: a full table of 2^24 nodes was 1,099 MiB resident, so fewer.
        let nodes = nodes_within(gib, 22).unwrap();
        assert!((12_000_000..(1 << 24)).contains(&nodes), "{nodes}");
        assert!(nodes_within(128 << 20, 23).unwrap_err().contains("no room"));
    }

    #[test]
    fn threads_capped_per_core() {
        assert_eq!(parse_threads("0"), Ok(0));
        assert!(parse_threads("99999999").is_err());
    }
}

/// The first layers of a search expanded state by state before the symbolic set-up
/// ([`ExplicitPrefix`]): `reach` and `solve`.
#[derive(clap::Args)]
pub struct ExplicitArgs {
    /// Before the symbolic set-up, expand the first layers state by state with the explicit
    /// reasoner while a layer has at most N states (and at most 8 N successors, predicted from
    /// the layer before) and fits in --explicit-seconds (0: every
    /// layer symbolically, and no game built from its explicit graph); a game then compiled
    /// within each layer goes on explicitly up to 4 N states, in as long again. The first
    /// layers of most games are tiny, and a symbolic layer costs about the same whatever its
    /// size; the results are the same either way.
    #[arg(long, value_name = "N", default_value_t = 50_000)]
    pub explicit_states: usize,
    /// The longest the explicit expansion of the first layers may take in all, in seconds (at
    /// most a third of the time left; see --explicit-states).
    #[arg(long, value_name = "SECONDS", default_value_t = 3.0, value_parser = parse_seconds)]
    pub explicit_seconds: f64,
}

impl ExplicitArgs {
    /// The first layers expanded explicitly, in at most `--explicit-seconds` and a third of the
    /// time left, logged as the set-up phase "explicit"; `None` when off.
    pub fn run(
        &self,
        game: &GroundGame,
        clock: &Clock,
        limits: &Limits,
        log: &SetupLog,
    ) -> Option<ExplicitRun> {
        if self.explicit_states == 0 {
            return None;
        }
        log.start("explicit");
        let third = clock
            .time_left()
            .map_or(f64::INFINITY, |t| t.as_secs_f64() / 3.0);
        let prefix =
            ExplicitPrefix::new(game, self.explicit_states, self.explicit_seconds.min(third));
        let run = prefix.run(limits);
        log.note(format!("{} layers", run.layers.len()));
        log.finish(None);
        Some(run)
    }

    /// How large an explicit graph of the whole game may be built when compiling the game over
    /// all states gives up (a quarter of the time left, at most 2 minutes); `None` with
    /// `--explicit-states 0`, so that every relation is compiled from the rules.
    pub fn graph_budget(&self, clock: &Clock) -> Option<GraphBudget> {
        if self.explicit_states == 0 {
            return None;
        }
        let default = GraphBudget::default();
        Some(GraphBudget {
            max_time: clock
                .time_left()
                .map_or(default.max_time, |t| (t / 4).min(default.max_time)),
            ..default
        })
    }
}

/// The flags of the commands that run a layered search and can draw it, `reach` and `solve`,
/// in their order on the command line: the explicit first layers, the limits, the plot and
/// the output.
#[derive(clap::Args)]
pub struct LayerRunArgs {
    #[command(flatten)]
    pub explicit: ExplicitArgs,
    #[command(flatten)]
    pub limits: LimitArgs,
    #[command(flatten)]
    pub plot: PlotArgs,
    #[command(flatten)]
    pub progress: ProgressArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}

impl LayerRunArgs {
    /// The first layers expanded explicitly within the run's limits ([`ExplicitArgs::run`]).
    pub fn explicit_run(
        &self,
        game: &GroundGame,
        clock: &Clock,
        log: &SetupLog,
    ) -> Option<ExplicitRun> {
        self.explicit
            .run(game, clock, &self.limits.limits(clock), log)
    }
}
