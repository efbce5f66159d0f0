//! Layer slices as separate processes: `symgame solve-slice` (one slice of one layer, reading
//! and writing only files of the solve's directory), the flags that ask for them
//! ([`JobsArgs`], shared with `reach --jobs N`, whose jobs are `symgame reach-slice`) and the
//! local process pool that runs them ([`LocalPool`]).

use crate::args::{
    share_beside, symbolic_options, Clock, EngineArgs, EngineDefaults, GameArg, LimitArgs,
    OutputArgs, Solving,
};
use crate::failure::Failure;
use crate::output::print_json;
use crate::slurm::SlurmRunner;
use std::ffi::OsString;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use symgame_symbolic::{
    fingerprint, resumable_encoding, SliceFailure, SliceJob, SlicePass, SliceRunner, SliceTask,
    Slicing, SolveError, SolveOptions, StopReason, SymbolicError, MAX_SLICE_BITS,
};

/// `symgame solve-slice`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    game: GameArg,
    /// The solve's directory (`solve --jobs N` with --out or --resume): its finished forward
    /// search and the solution of every deeper layer.
    #[arg(long, value_name = "DIR")]
    dir: PathBuf,
    /// The layer (BFS depth) to solve a slice of.
    #[arg(long, value_name = "K")]
    layer: usize,
    /// Which slice, as I/N: N a power of two up to 256, I below N.
    #[arg(long, value_name = "I/N", value_parser = parse_slice)]
    slice: (u32, u32),
    #[command(flatten)]
    engine: EngineArgs<Solving>,
    /// The game is compiled as `solve` compiles it: too large to compile over all states but
    /// small enough to expand, from its explicit graph.
    #[command(flatten)]
    explicit: crate::args::ExplicitArgs,
    #[command(flatten)]
    limits: LimitArgs,
    #[command(flatten)]
    output: OutputArgs,
}

/// `--slice I/N`.
pub(crate) fn parse_slice(s: &str) -> Result<(u32, u32), String> {
    let bad = || format!("expected I/N (slice I of N, N a power of two up to 256), not {s:?}");
    let (i, n) = s.split_once('/').ok_or_else(bad)?;
    let (i, n): (u32, u32) = (
        i.trim().parse().map_err(|_| bad())?,
        n.trim().parse().map_err(|_| bad())?,
    );
    if !n.is_power_of_two() || n > 1 << MAX_SLICE_BITS || i >= n {
        return Err(bad());
    }
    Ok((i, n))
}

/// What a job that stopped at a limit prints under `--json`: the pool reads the reason.
#[derive(serde::Serialize, serde::Deserialize)]
struct Stopped {
    stopped: StopReason,
}

pub fn run(a: Args) -> Result<(), Failure> {
    let clock = a.limits.start();
    let game = Arc::new(a.game.load(clock.time_left())?);
    let encoding = resumable_encoding(&a.dir, &game).ok_or_else(|| {
        Failure::input(format!(
            "{} holds no solve of {} to take a slice of (run solve --jobs N --out DIR first)",
            a.dir.display(),
            a.game.display()
        ))
    })?;
    let opts = SolveOptions {
        out_dir: Some(a.dir.clone()),
        resume: true,
        fingerprint: fingerprint(&game, &encoding),
        limits: a.engine.bound(a.limits.limits(&clock)),
        ground: Some(game.clone()),
        ..SolveOptions::default()
    };
    let config = a.engine.config()?;
    let sym = symgame_symbolic::SymbolicOptions {
        explicit_graph: a.explicit.graph_budget(&clock),
        ..symbolic_options(&clock)
    };
    let task = SliceTask {
        pass: SlicePass::Backward,
        depth: a.layer,
        index: a.slice.0,
        count: a.slice.1,
    };
    let setup = a.engine.setup(&game, encoding, &config, &sym);
    let result = setup.run(SliceJob {
        settings: &opts,
        task,
    });
    job_outcome(result, &task, a.output.json, a.game.display(), |r| {
        format!(
            "solved in {:.3} s, peak BDD {} nodes",
            r.solve_seconds, r.peak_nodes
        )
    })
}

/// What a slice job prints and how it exits: its record (`--json`) or `done`'s line; a limit,
/// or the engine out of nodes, as `{"stopped": ...}` under `--json` and exit code 3 (the pool
/// reads the reason), any other error as itself.
pub(crate) fn job_outcome<T: serde::Serialize>(
    result: Result<T, SolveError>,
    task: &SliceTask,
    json: bool,
    game: impl std::fmt::Display,
    done: impl FnOnce(&T) -> String,
) -> Result<(), Failure> {
    let not_done = |r: StopReason| {
        Failure::limit(format!(
            "{r}: slice {}/{} of layer {} not finished",
            task.index, task.count, task.depth
        ))
    };
    let stopped = match result {
        Ok(record) if json => return print_json(&record),
        Ok(record) => {
            println!(
                "slice {}/{} of layer {}: {}",
                task.index,
                task.count,
                task.depth,
                done(&record)
            );
            return Ok(());
        }
        Err(SolveError::Symbolic(SymbolicError::Bdd(_))) if json => StopReason::OutOfMemory,
        Err(SolveError::Symbolic(SymbolicError::Stopped(r))) => r,
        Err(e) => return Err(Failure::from(e).about(game)),
    };
    if json {
        print_json(&Stopped { stopped })?;
    }
    Err(not_done(stopped))
}

/// `--jobs`, `--slices` and `--slice-min-bytes` of `solve` and `reach`.
#[derive(clap::Args)]
pub struct JobsArgs {
    /// Solve (solve) or expand (reach) each large layer in slices, N processes at once
    /// (`symgame solve-slice` or `symgame reach-slice`, each with its own BDD engine, a 1/N
    /// share of the memory this process leaves when the job starts and, unless --threads is
    /// given, of the cores), with a directory (solve: --out or --resume; reach: --resume): the
    /// jobs share its files. 1: every layer in this process.
    #[arg(long, value_name = "N", default_value_t = 1,
          value_parser = clap::value_parser!(u32).range(1..=256))]
    pub jobs: u32,
    /// Slices per layer (a power of two up to 256; default: --jobs rounded up to one).
    #[arg(long, value_name = "N", value_parser = parse_slices)]
    pub slices: Option<u32>,
    /// Layers whose forward file is smaller than this are solved (expanded) in this process (a
    /// job's set-up would cost more than the slice saves); 0 slices every layer.
    #[arg(long, value_name = "SIZE", default_value = "256K", value_parser = parse_bytes)]
    pub slice_min_bytes: u64,
    /// Run the slice jobs as Slurm job arrays (sbatch), one array a layer (solve: all queued
    /// at once, each after the deeper layer's; reach: each queued when the search reaches its
    /// layer); every layer is sliced (--slices, default 2). The directory must be shared by
    /// the nodes; this process waits and merges. See docs/distributed.md.
    #[arg(long, conflicts_with = "jobs")]
    pub slurm: bool,
    /// A further option for sbatch, such as --sbatch=--partition=long or --sbatch=--mem=16G
    /// (repeatable).
    #[arg(
        long,
        value_name = "OPTION",
        requires = "slurm",
        allow_hyphen_values = true
    )]
    pub sbatch: Vec<String>,
}

fn parse_slices(s: &str) -> Result<u32, String> {
    match s.parse::<u32>() {
        Ok(n) if n.is_power_of_two() && n <= 1 << MAX_SLICE_BITS => Ok(n),
        _ => Err(format!("expected a power of two up to 256, not {s:?}")),
    }
}

/// A size as `--memory` takes it, or 0.
fn parse_bytes(s: &str) -> Result<u64, String> {
    match s.trim() {
        "0" => Ok(0),
        _ => crate::args::parse_size(s),
    }
}

impl JobsArgs {
    /// Whether more than one job or slice is asked for (which needs a directory).
    pub fn asked(&self) -> bool {
        self.slurm || self.jobs > 1 || self.slices.is_some_and(|n| n > 1)
    }

    /// The slicing of a run whose jobs are `spec`, if more than one job or slice is asked for.
    pub fn slicing<K: EngineDefaults>(
        &self,
        spec: &JobSpec<'_, K>,
        clock: &Clock,
    ) -> Result<Option<Slicing>, Failure> {
        if self.slurm {
            // A cluster's machines are the jobs' own: `--threads` as given.
            let args = spec.command(spec.engine.memory, spec.engine.threads)?;
            let runner = SlurmRunner::new(args, spec.pass, spec.dir, self.sbatch.clone(), clock)?;
            return Ok(Some(Slicing {
                bits: self.slices.unwrap_or(2).trailing_zeros(),
                // Every layer: the arrays are queued at once, each reading the one before.
                min_bytes: 0,
                runner: Arc::new(runner),
                split: None,
            }));
        }
        let slices = self.slices.unwrap_or(self.jobs.next_power_of_two());
        if slices <= 1 && self.jobs <= 1 {
            return Ok(None);
        }
        let pool = LocalPool::new(spec, self.jobs, clock)?;
        Ok(Some(Slicing {
            bits: slices.trailing_zeros(),
            min_bytes: self.slice_min_bytes,
            runner: Arc::new(pool),
            split: None,
        }))
    }
}

/// What the jobs of a sliced run are: the pass (`solve-slice` or `reach-slice`), the game,
/// the directory, the engine and limits, and further flags of the job.
pub struct JobSpec<'a, K: EngineDefaults> {
    /// Which command the jobs run, and how their files are named.
    pub pass: SlicePass,
    /// The game file.
    pub game: &'a Path,
    /// The run's directory.
    pub dir: &'a Path,
    /// The engine flags the jobs take over.
    pub engine: &'a EngineArgs<K>,
    /// The node limit the jobs take over.
    pub limits: &'a LimitArgs,
    /// Further flags of the job (`reach`'s clustering).
    pub extra: Vec<OsString>,
}

impl<K: EngineDefaults> JobSpec<'_, K> {
    /// The command line of a job, up to `--layer` and `--slice`: `symgame solve-slice GAME
    /// --dir DIR` (or `reach-slice`), the engine flags (with `threads`), `--memory` if given, the node limit,
    /// the further flags, `--json`. Paths are made absolute, so that a job started elsewhere
    /// (a batch scheduler) finds them.
    pub(crate) fn command(
        &self,
        memory: Option<u64>,
        threads: usize,
    ) -> Result<Vec<OsString>, Failure> {
        let exe = std::env::current_exe()
            .map_err(|e| Failure::internal(format!("cannot find the symgame program: {e}")))?;
        let sub = match self.pass {
            SlicePass::Backward => "solve-slice",
            SlicePass::Forward => "reach-slice",
        };
        let mut args: Vec<OsString> = vec![exe.into(), sub.into(), absolute(self.game).into()];
        args.extend(["--dir".into(), absolute(self.dir).into()]);
        let engine = self.engine;
        for (flag, value) in [
            ("--backend", engine.backend.to_string()),
            ("--threads", threads.to_string()),
            ("--cache-log2", engine.cache_log2().to_string()),
        ] {
            args.extend([flag.into(), value.into()]);
        }
        match memory {
            Some(m) => args.extend(["--memory".into(), m.to_string().into()]),
            None => args.extend(["--nodes-log2".into(), engine.nodes_log2.to_string().into()]),
        }
        if let Some(n) = self.limits.node_limit {
            args.extend(["--node-limit".into(), n.to_string().into()]);
        }
        args.extend(self.extra.iter().cloned());
        args.push("--json".into());
        Ok(args)
    }
}

/// Runs slice jobs as child processes of this one, at most `jobs` at once. Each job's output
/// goes to `slice-DDDD-I-of-N.log` in the directory (removed with the slice's files once the
/// layer is merged, kept when the job fails). On Ctrl-C the running jobs are killed: their
/// files are written atomically, so a rerun solves those slices again.
pub struct LocalPool {
    /// The job's command line up to `--layer` ([`JobSpec::command`]).
    args: Vec<OsString>,
    /// The run's memory and where the jobs' share of it stands in `args`: each job gets its
    /// share of what this process leaves when the job starts ([`share_beside`]).
    memory: Option<(u64, usize)>,
    pass: SlicePass,
    dir: PathBuf,
    jobs: usize,
    clock: Clock,
    cancel: Arc<AtomicBool>,
}

/// `p` as an absolute path (as given if that fails).
pub(crate) fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

impl LocalPool {
    fn new<K: EngineDefaults>(
        spec: &JobSpec<'_, K>,
        jobs: u32,
        clock: &Clock,
    ) -> Result<LocalPool, Failure> {
        let args = spec.command(
            spec.engine.memory_share(jobs),
            spec.engine.threads_share(jobs),
        )?;
        let at = args.iter().position(|a| a == "--memory").map(|i| i + 1);
        let memory = spec.engine.memory_total().zip(at);
        Ok(LocalPool {
            args,
            memory,
            pass: spec.pass,
            dir: absolute(spec.dir),
            jobs: jobs as usize,
            clock: *clock,
            cancel: crate::signals::cancel_flag(),
        })
    }

    /// Starts the job of slice `task`.
    fn spawn(&self, task: &SliceTask) -> Result<Child, SliceFailure> {
        let log = log_path(&self.dir, task);
        let out = File::create(&log)
            .map_err(|e| SliceFailure::Failed(format!("cannot create {}: {e}", log.display())))?;
        let err = out
            .try_clone()
            .map_err(|e| SliceFailure::Failed(format!("{}: {e}", log.display())))?;
        let mut args = self.args.clone();
        if let Some((total, at)) = self.memory {
            let own = symgame_limits::resident_bytes().unwrap_or(0);
            args[at] = share_beside(total, own, self.jobs as u32)
                .to_string()
                .into();
        }
        let mut cmd = Command::new(&args[0]);
        cmd.args(&args[1..])
            .arg("--layer")
            .arg(task.depth.to_string())
            .arg("--slice")
            .arg(format!("{}/{}", task.index, task.count))
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err);
        if let Some(left) = self.clock.time_left() {
            cmd.arg("--time-limit")
                .arg(format!("{:.3}", left.as_secs_f64()));
        }
        cmd.spawn().map_err(|e| {
            let exe = self.args[0].to_string_lossy();
            SliceFailure::Failed(format!("cannot start {exe}: {e}"))
        })
    }
}

/// Where the output of slice `task`'s job goes.
pub(crate) fn log_path(dir: &Path, task: &SliceTask) -> PathBuf {
    let mut p = task.record_path(dir);
    p.set_extension("log");
    p
}

/// The limit a job's output (`--json`) says it stopped at, if it did. The JSON object is read
/// alone: the job's stderr (its last words, "stopped: ...") follows it in the same log.
pub(crate) fn stopped_in(text: &str) -> Option<StopReason> {
    let at = text.find("{\n  \"stopped\"")?;
    serde_json::Deserializer::from_str(&text[at..])
        .into_iter::<Stopped>()
        .next()?
        .ok()
        .map(|s| s.stopped)
}

/// Why a finished job failed, from its exit status and its log: a limit (exit code 3, the
/// reason its JSON names) or an error (the last lines it wrote).
fn job_failure(status: std::process::ExitStatus, log: &Path, task: &SliceTask) -> SliceFailure {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    if status.code() == Some(i32::from(crate::failure::EXIT_LIMIT)) {
        return SliceFailure::Stopped(stopped_in(&text).unwrap_or(StopReason::TimeLimit));
    }
    let tail: Vec<&str> = text.lines().rev().take(5).collect();
    let said: Vec<&str> = tail.into_iter().rev().collect();
    SliceFailure::Failed(format!(
        "slice {}/{} ({status}): {} (log: {})",
        task.index,
        task.count,
        said.join(" / "),
        log.display()
    ))
}

impl SliceRunner for LocalPool {
    fn run(&self, depth: usize, count: u32, slices: &[u32]) -> Result<(), SliceFailure> {
        let mut queue = slices.iter().map(|&index| SliceTask {
            pass: self.pass,
            depth,
            index,
            count,
        });
        let mut running: Vec<(SliceTask, Child)> = Vec::new();
        let mut failed: Option<SliceFailure> = None;
        loop {
            while failed.is_none() && running.len() < self.jobs {
                let Some(task) = queue.next() else { break };
                match self.spawn(&task) {
                    Ok(child) => running.push((task, child)),
                    Err(f) => failed = Some(f),
                }
            }
            if running.is_empty() {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
            if self.cancel.load(Ordering::Relaxed) {
                for (_, child) in &mut running {
                    let _ = child.kill();
                    let _ = child.wait();
                }
                return Err(SliceFailure::Stopped(StopReason::Cancelled));
            }
            let mut i = 0;
            while i < running.len() {
                match running[i].1.try_wait() {
                    Ok(Some(status)) => {
                        let (task, _) = running.swap_remove(i);
                        if !status.success() && failed.is_none() {
                            failed = Some(job_failure(status, &log_path(&self.dir, &task), &task));
                        }
                    }
                    Ok(None) => i += 1,
                    Err(e) => {
                        let (task, _) = running.swap_remove(i);
                        failed = failed.or(Some(SliceFailure::Failed(format!(
                            "slice {}/{}: {e}",
                            task.index, task.count
                        ))));
                    }
                }
            }
        }
        failed.map_or(Ok(()), Err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_jobs_stop_reason_is_read_with_its_last_words_after_it() {
        // The log of a slice job that ran out of nodes, as the 6x6 solve's jobs wrote it: read
        // as a whole document, the words after the JSON made the reason unreadable, and the
        // solve reported a time limit.
        let log = "{\n  \"stopped\": \"OutOfMemory\"\n}\nstopped: BDD engine out of nodes: \
                   slice 0/4 of layer 28 not finished\n";
        assert_eq!(stopped_in(log), Some(StopReason::OutOfMemory));
        let alone = "{\n  \"stopped\": \"MemoryLimit\"\n}";
        assert_eq!(stopped_in(alone), Some(StopReason::MemoryLimit));
        assert_eq!(stopped_in("error: no such file\n"), None);
    }
}
