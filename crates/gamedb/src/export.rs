//! Exporting a solved game: the solver's value classes, layer by layer, into a database file.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Instant;

use symgame_bdd::{Backend, BddEngine, BddNodes, EngineConfig, EngineJob};
use symgame_db::{Outcome, Schema, WriteSummary, Writer};
use symgame_ground::GroundGame;
use symgame_symbolic::{
    read_solution, solution_encoding, solve, Encoding, GameKind, LayeredMode, Limits, Solution,
    SolveError, SolveOptions, SolveStats, StopReason, SymbolicError, SymbolicGame, SymbolicOptions,
};

use crate::error::{Error, ErrorKind, Result};
use crate::metadata::{fingerprint_bytes, group_layouts, Layering, Metadata, FORMAT};

/// Options of [`export`].
#[derive(Clone, Debug)]
pub struct ExportOptions {
    /// The BDD engine.
    pub backend: Backend,
    /// Its parameters.
    pub engine: EngineConfig,
    /// How the game is compiled (the variable order is part of the fingerprint).
    pub symbolic: SymbolicOptions,
    /// Layered or whole-set solving (a layered solution gives one database layer per BFS
    /// depth, a whole-set one a single layer).
    pub layered: LayeredMode,
    /// Limits of the solver; a stop is a result ([`Exported::stopped`]), and no file is
    /// written.
    pub limits: Limits,
    /// Write one database layer for the whole reachable set even when the game is solved
    /// layer by layer: a smaller file when the layers share structure (1.9x instead of 3.4x
    /// the 2-bit floor on Connect Four 5×4), and lookups need not find the layer first.
    pub whole_set: bool,
    /// Read this solution directory (written by `symgame solve --out`) instead of solving.
    pub solution: Option<PathBuf>,
    /// The game's name recorded in the metadata (e.g. the file name).
    pub game_name: String,
}

impl Default for ExportOptions {
    /// Solve on biodivine with roomy engine settings, default compilation, no limits.
    fn default() -> Self {
        ExportOptions {
            backend: Backend::Biodivine,
            engine: EngineConfig::default(),
            symbolic: SymbolicOptions::default(),
            layered: LayeredMode::Auto,
            limits: Limits::default(),
            whole_set: false,
            solution: None,
            game_name: String::new(),
        }
    }
}

/// What [`export`] did.
#[derive(Clone, Debug)]
pub struct Exported {
    /// The solver's statistics (from the solution's manifest when one was read).
    pub solve: SolveStats,
    /// Seconds spent solving; `None` when the game was not solved by this call (an existing
    /// solution was read).
    pub solve_seconds: Option<f64>,
    /// The file's figures; `None` when the solver stopped (no file is written then).
    pub written: Option<WriteSummary>,
    /// Seconds spent writing the database (reading the solution, uniting each layer's
    /// classes, ranking every state, packing, syncing).
    pub write_seconds: f64,
    /// The database's layers, in file order.
    pub layers: Vec<ExportedLayer>,
}

/// One layer of a written database.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ExportedLayer {
    /// Its number (the BFS depth, or 0 for the whole reachable set).
    pub number: u32,
    /// Its states.
    pub states: u64,
    /// Inner nodes of its state-set BDD.
    pub nodes: u64,
}

impl Exported {
    /// Why the solver stopped, if it did (then no file was written).
    pub fn stopped(&self) -> Option<StopReason> {
        self.solve.stopped
    }
}

/// Solve `game` (or read the solution in [`ExportOptions::solution`]) and write its database
/// to `out` atomically: one layer per solved layer, each the union of its value classes, with
/// one packed outcome index per state; outcomes are the rewards of every role (and, for
/// single-player games, the distance to the best reward). `progress` sees the solver's
/// statistics after each solved layer.
///
/// Errors: [`ErrorKind::Solve`] (the game cannot be solved: more than two roles,
/// simultaneous moves, ...), [`ErrorKind::Solution`] (an unreadable, incomplete or foreign
/// solution directory), [`ErrorKind::Database`] (writing the file failed),
/// [`ErrorKind::Bdd`], [`ErrorKind::Io`]. A resource limit is not an error: see
/// [`Exported::stopped`].
pub fn export(
    game: &GroundGame,
    out: &Path,
    opts: &ExportOptions,
    progress: impl FnMut(&SolveStats) + Send,
) -> Result<Exported> {
    // A solution's BDDs are over the encoding its manifest records (older manifests: the one
    // the options give, as before).
    let recorded = match &opts.solution {
        Some(dir) => solution_encoding(dir, game),
        None => None,
    };
    let enc = match recorded {
        Some(enc) => enc,
        None => Encoding::with_options(game, &opts.symbolic),
    };
    let n = enc.num_vars();
    opts.backend.run(
        n,
        &opts.engine,
        ExportJob {
            game,
            enc,
            out,
            opts,
            progress,
        },
    )?
}

struct ExportJob<'a, F> {
    game: &'a GroundGame,
    enc: Encoding,
    out: &'a Path,
    opts: &'a ExportOptions,
    progress: F,
}

impl<F: FnMut(&SolveStats)> EngineJob<Result<Exported>> for ExportJob<'_, F> {
    fn run<E: BddEngine>(self, engine: E) -> Result<Exported> {
        let fp = symgame_symbolic::fingerprint(self.game, &self.enc);
        if let Some(dir) = &self.opts.solution {
            let t = Instant::now();
            let solution = read_solution(dir, &fp, self.enc.num_vars())?;
            let (summary, layers) = write_solution(
                &engine, self.game, &self.enc, &solution, self.out, self.opts,
            )?;
            return Ok(Exported {
                solve: solution.manifest.stats,
                solve_seconds: None,
                written: Some(summary),
                write_seconds: t.elapsed().as_secs_f64(),
                layers,
            });
        }
        let scratch = Scratch::beside(self.out)?;
        let solution = scratch.dir.join("solution");
        let solve_opts = SolveOptions {
            layered: self.opts.layered,
            values: Default::default(),
            keep_classes: false,
            out_dir: Some(solution.clone()),
            spill_dir: Some(scratch.dir.join("spill")),
            resume: false,
            fingerprint: fp.clone(),
            nash_budget: None,
            limits: self.opts.limits.clone(),
            choice_nodes: None,
            ground: Some(std::sync::Arc::new(self.game.clone())),
            stage_groups: None,
            slicing: None,
        };
        let t = Instant::now();
        let g = SymbolicGame::new(&engine, self.game, self.enc.clone(), &self.opts.symbolic)
            .map_err(|e| solve_error(self.game, &self.opts.game_name, SolveError::Symbolic(e)))?;
        let solved = solve(&g, &solve_opts, self.progress)
            .map_err(|e| solve_error(self.game, &self.opts.game_name, e))?;
        drop(g);
        let solve_seconds = t.elapsed().as_secs_f64();
        if solved.stats.stopped.is_some() {
            return Ok(Exported {
                solve: solved.stats,
                solve_seconds: Some(solve_seconds),
                written: None,
                write_seconds: 0.0,
                layers: Vec::new(),
            });
        }
        let t = Instant::now();
        let solution = read_solution(&solution, &fp, self.enc.num_vars())?;
        let (summary, layers) = write_solution(
            &engine, self.game, &self.enc, &solution, self.out, self.opts,
        )?;
        Ok(Exported {
            solve: solved.stats,
            solve_seconds: Some(solve_seconds),
            written: Some(summary),
            write_seconds: t.elapsed().as_secs_f64(),
            layers,
        })
    }
}

/// A solver error as this crate's error, naming a state when the solver gives one; a BDD
/// engine out of nodes is [`ErrorKind::Bdd`] (a resource limit, not a property of the game).
fn solve_error(game: &GroundGame, name: &str, e: SolveError) -> Error {
    if let SolveError::Symbolic(SymbolicError::Bdd(b)) = &e {
        return Error::new(ErrorKind::Bdd, format!("{name}: {b}"));
    }
    if let SolveError::Symbolic(SymbolicError::Stopped(why)) = &e {
        return Error::new(
            ErrorKind::SetupStopped,
            format!("{name}: {why} while compiling the game; no database was written"),
        );
    }
    let detail = match &e {
        SolveError::Simultaneous { state } | SolveError::NoLegalMove { state } => {
            let fl: Vec<String> = state.iter().map(|&f| game.fluents[f].to_string()).collect();
            format!(" (state: {})", fl.join(" "))
        }
        _ => String::new(),
    };
    Error::new(ErrorKind::Solve, format!("{name}: {e}{detail}"))
}

/// A working directory beside the output file (same file system, so large solutions do not
/// fill the system's temporary directory), removed when dropped.
struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    fn beside(out: &Path) -> Result<Scratch> {
        let parent = match out.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = out.file_name().ok_or_else(|| {
            Error::new(
                ErrorKind::Io,
                format!("{}: the output path has no file name", out.display()),
            )
        })?;
        let dir = parent.join(format!(
            ".{}.solve-{}-{}",
            name.to_string_lossy(),
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|t| t.as_nanos())
                .unwrap_or(0)
        ));
        std::fs::create_dir(&dir).map_err(|e| {
            Error::new(
                ErrorKind::Io,
                format!("{}: cannot create a working directory: {e}", dir.display()),
            )
        })?;
        Ok(Scratch { dir })
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Write the database of the complete, checked `solution` to `out`. Returns the file's
/// figures and its layers.
fn write_solution<E: BddEngine>(
    engine: &E,
    game: &GroundGame,
    enc: &Encoding,
    solution: &Solution,
    out: &Path,
    opts: &ExportOptions,
) -> Result<(WriteSummary, Vec<ExportedLayer>)> {
    let fp = &solution.manifest.fingerprint;
    let stats = &solution.manifest.stats;
    let layering = if solution.layered() {
        Layering::BfsDepth
    } else {
        Layering::WholeSet
    };
    let layering_out = if opts.whole_set {
        Layering::WholeSet
    } else {
        layering
    };
    let (pairs, outcomes) = value_dictionary(solution)?;
    let metadata = solution_metadata(game, enc, fp, stats, layering_out, opts);
    let schema = Schema {
        fingerprint: fingerprint_bytes(fp),
        metadata: metadata.to_bytes(),
        num_vars: enc.num_vars(),
        counted: enc.current_vars().clone(),
        outcomes,
    };
    let files = solution.files();
    let read_layer = |i: usize| read_classes(solution, &pairs, i);
    let mut w = Writer::create(out, &schema)?;
    let mut layers = Vec::with_capacity(files.len());
    if opts.whole_set && layering == Layering::BfsDepth {
        // Unite each outcome's classes over all layers, one layer file at a time.
        let mut acc = vec![engine.constant(false); pairs.len()];
        for i in 0..files.len() {
            check_cancelled(&opts.limits, out)?;
            for (tag, nodes) in read_layer(i)? {
                let a = &mut acc[tag as usize];
                *a = engine.or(a, &engine.import(&nodes)?)?;
            }
        }
        let classes: Vec<(u32, BddNodes)> = acc
            .iter()
            .enumerate()
            .filter(|(_, b)| !engine.is_false(b))
            .map(|(tag, b)| (tag as u32, engine.export(b)))
            .collect();
        drop(acc);
        layers.push(write_layer(engine, &mut w, 0, &classes)?);
    } else {
        for (i, (depth, _)) in files.iter().enumerate() {
            check_cancelled(&opts.limits, out)?;
            let classes = read_layer(i)?;
            layers.push(write_layer(engine, &mut w, depth.unwrap_or(0), &classes)?);
        }
    }
    check_cancelled(&opts.limits, out)?;
    Ok((w.finish()?, layers))
}

/// Stops the write phase once the cancel flag of `limits` is raised (the unfinished
/// temporary file is removed when its writer is dropped).
fn check_cancelled(limits: &Limits, out: &Path) -> Result<()> {
    if limits.cancelled() {
        return Err(Error::new(
            ErrorKind::SetupStopped,
            format!(
                "{}: interrupted while writing; no database was written",
                out.display()
            ),
        ));
    }
    Ok(())
}

/// The database's value dictionary: (solver outcome, distance) pairs, sorted.
type Dictionary = Vec<(u32, Option<u32>)>;

/// The database's dictionary of values: the (solver outcome, distance) pairs, sorted, and the
/// outcome each stands for. Only single-player solutions have distances, and they are solved
/// on the whole set: one file to read twice at most.
fn value_dictionary(solution: &Solution) -> Result<(Dictionary, Vec<Outcome>)> {
    let stats = &solution.manifest.stats;
    let distance = stats.kind == GameKind::SinglePlayer;
    let pairs: Dictionary = if distance {
        let mut set = BTreeSet::new();
        for i in 0..solution.files().len() {
            for c in solution.read_layer(i)?.classes {
                set.insert((c.outcome, c.distance));
            }
        }
        set.into_iter().collect()
    } else {
        (0..stats.outcomes.len() as u32)
            .map(|o| (o, None))
            .collect()
    };
    // The reader checked every class's outcome index and distance against the manifest.
    let outcomes = pairs
        .iter()
        .map(|&(o, d)| Outcome {
            rewards: stats.outcomes[o as usize].clone(),
            distance: d,
        })
        .collect();
    Ok((pairs, outcomes))
}

/// The metadata section of a database of `game` solved as `stats`, layered as `layers`.
fn solution_metadata(
    game: &GroundGame,
    enc: &Encoding,
    fp: &str,
    stats: &SolveStats,
    layers: Layering,
    opts: &ExportOptions,
) -> Metadata {
    let distance = stats.kind == GameKind::SinglePlayer;
    Metadata {
        format: FORMAT.to_string(),
        version: crate::metadata::METADATA_VERSION,
        game: opts.game_name.clone(),
        fingerprint: fp.to_string(),
        roles: stats.roles.clone(),
        kind: stats.kind,
        layers,
        values: match stats.kind {
            GameKind::SinglePlayer => "the best reward reachable".to_string(),
            GameKind::MaxN => "the max^n outcome: the role to move picks the successor by its \
                               own reward, ties against the others' sum"
                .to_string(),
            GameKind::SecurityLevels => "each role's security level: the largest reward it can \
                                         guarantee in pure strategies, choosing without seeing \
                                         the moves of the same step"
                .to_string(),
            GameKind::MixedValues => "each role's pure security level; `mixed` holds the value \
                                      in mixed strategies (each simultaneous step a matrix \
                                      game)"
                .to_string(),
            _ => "the rewards of every role under optimal play (the role to move maximises its \
                  reward minus the other's, ties by its own reward; minimax for zero-sum games)"
                .to_string(),
        },
        distance: distance.then(|| "moves to the nearest terminal state with that reward".into()),
        states: stats.states.to_string(),
        unsolved: stats.unsolved.to_string(),
        groups: group_layouts(game, enc),
        encoding: enc.clone(),
        // Indexed like the outcome dictionary, which keeps the solver's outcome order for
        // every kind but single-player.
        mixed: stats.mixed.clone(),
    }
}

/// The classes of the `i`-th file of `solution`, as (dictionary index, states); every class
/// is in the dictionary `pairs` (the reader checked the outcomes, `pairs` has them all).
fn read_classes(
    solution: &Solution,
    pairs: &[(u32, Option<u32>)],
    i: usize,
) -> Result<Vec<(u32, BddNodes)>> {
    let stored = solution.read_layer(i)?;
    stored
        .classes
        .into_iter()
        .map(|c| match pairs.binary_search(&(c.outcome, c.distance)) {
            Ok(tag) => Ok((tag as u32, c.nodes)),
            Err(_) => Err(Error::new(
                ErrorKind::Solution,
                format!(
                    "{}: a class has outcome {} (distance {:?}), not in the manifest",
                    solution.dir.join(&solution.files()[i].1).display(),
                    c.outcome,
                    c.distance
                ),
            )),
        })
        .collect()
}

/// Write one database layer: its state set is the union of `classes`, each state's value the
/// tag of the class holding it.
fn write_layer<E: BddEngine>(
    engine: &E,
    w: &mut Writer,
    number: u32,
    classes: &[(u32, BddNodes)],
) -> Result<ExportedLayer> {
    let mut union = engine.constant(false);
    for (_, nodes) in classes {
        union = engine.or(&union, &engine.import(nodes)?)?;
    }
    let states = engine.export(&union);
    drop(union);
    let tagged: Vec<(u32, &BddNodes)> = classes.iter().map(|(t, n)| (*t, n)).collect();
    let count = w.add_layer_by_class(number, &states, &tagged)?;
    Ok(ExportedLayer {
        number,
        states: count,
        nodes: states.nodes.len() as u64,
    })
}
