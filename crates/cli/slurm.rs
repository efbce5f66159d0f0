//! `solve --slurm`: the slice jobs as Slurm job arrays, one array a layer, each array
//! depending (`afterok`) on the array of the layer after it, so that the whole backward pass
//! waits in the queue at once and a layer's jobs start as soon as the deeper layer's finish.
//! Every job is `symgame solve-slice`, reading and writing only the solve's directory, which
//! every node must see. This process stays as the driver: it submits the arrays, waits for
//! each layer's slice records, and merges the layers into the solution as they come.
//!
//! `reach --slurm`: a forward layer's jobs read the layer, which the merge of the layer before
//! makes, so the driver queues one array a layer when the search reaches it (no chain).

use crate::failure::Failure;
use crate::slices::{absolute, log_path};
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use symgame_symbolic::{SliceFailure, SlicePass, SliceRunner, SliceTask, StopReason};

use crate::args::Clock;

/// Submits and watches the job arrays of a sliced solve.
pub struct SlurmRunner {
    /// The job's command line up to `--layer` ([`crate::slices::JobSpec::command`]).
    args: Vec<OsString>,
    /// Backward (the arrays of all layers chained at once) or forward (one array at a time).
    pass: SlicePass,
    dir: PathBuf,
    /// Further `sbatch` options, as given (`--partition=...`, `--mem=...`, `--time=...`).
    options: Vec<String>,
    clock: Clock,
    cancel: Arc<AtomicBool>,
    /// The array submitted for each layer, by depth.
    arrays: Mutex<BTreeMap<usize, String>>,
}

/// How often the driver looks at the queue and the directory.
const POLL: Duration = Duration::from_millis(500);

impl SlurmRunner {
    /// A runner of the jobs `args` (up to `--layer`) writing into `dir`; `sbatch` must be on
    /// the path.
    pub fn new(
        args: Vec<OsString>,
        pass: SlicePass,
        dir: &Path,
        options: Vec<String>,
        clock: &Clock,
    ) -> Result<SlurmRunner, Failure> {
        let found = Command::new("sbatch").arg("--version").output();
        if !found.is_ok_and(|o| o.status.success()) {
            return Err(Failure::input(
                "--slurm needs Slurm's sbatch on the path (scripts/slurm_single_node.sh sets up \
                 a one-machine Slurm)",
            ));
        }
        Ok(SlurmRunner {
            args,
            pass,
            dir: absolute(dir),
            options,
            clock: *clock,
            cancel: crate::signals::cancel_flag(),
            arrays: Mutex::new(BTreeMap::new()),
        })
    }

    /// The batch script of layer `depth`'s array of `count` slices.
    fn script(&self, depth: usize, count: u32) -> String {
        let quote = |a: &OsString| format!("'{}'", a.to_string_lossy().replace('\'', r"'\''"));
        let command: Vec<String> = self.args.iter().map(quote).collect();
        let limit = match self.clock.time_left() {
            Some(t) => format!(" --time-limit {:.0}", t.as_secs_f64().max(1.0)),
            None => String::new(),
        };
        format!(
            "#!/bin/sh\n# symgame: the slices of layer {depth} (one array task a slice).\n\
             exec {} --layer {depth} --slice \"$SLURM_ARRAY_TASK_ID/{count}\"{limit}\n",
            command.join(" ")
        )
    }

    /// Submits the arrays of layers `depth` down to 0, each after the one before (the slices
    /// `first` of layer `depth`, all of the others): returns nothing until all are queued.
    /// Forward layers: the array of layer `depth` alone.
    fn submit_chain(&self, depth: usize, count: u32, first: &[u32]) -> Result<(), SliceFailure> {
        let mut arrays = self.arrays.lock().unwrap_or_else(|e| e.into_inner());
        let mut after: Option<String> = None;
        let last = match self.pass {
            SlicePass::Backward => 0,
            SlicePass::Forward => depth,
        };
        for d in (last..=depth).rev() {
            let list: Vec<String> = if d == depth {
                first.iter().map(u32::to_string).collect()
            } else {
                (0..count).map(|i| i.to_string()).collect()
            };
            let task = SliceTask {
                pass: self.pass,
                depth: d,
                index: 0,
                count,
            };
            // Named like the slices' files, so it goes with them once the layer is merged.
            let script = task.array_script_path(&self.dir);
            std::fs::write(&script, self.script(d, count)).map_err(|e| {
                SliceFailure::Failed(format!("cannot write {}: {e}", script.display()))
            })?;
            // `%a` is the array task: the same log file the local pool writes.
            let log = log_path(&self.dir, &task)
                .to_string_lossy()
                .replace("-0-of-", "-%a-of-");
            let mut cmd = Command::new("sbatch");
            cmd.arg("--parsable")
                .arg(match self.pass {
                    SlicePass::Backward => format!("--job-name=symgame-{d}"),
                    SlicePass::Forward => format!("--job-name=symgame-reach-{d}"),
                })
                .arg(format!("--array={}", list.join(",")))
                .arg(format!("--output={log}"))
                .args(&self.options);
            if let Some(id) = &after {
                cmd.arg(format!("--dependency=afterok:{id}"));
            }
            let out = cmd
                .arg(&script)
                .output()
                .map_err(|e| SliceFailure::Failed(format!("cannot run sbatch: {e}")))?;
            if !out.status.success() {
                self.cancel_all(&arrays);
                return Err(SliceFailure::Failed(format!(
                    "sbatch refused layer {d}: {}",
                    String::from_utf8_lossy(&out.stderr).trim()
                )));
            }
            let text = String::from_utf8_lossy(&out.stdout);
            let id = text.trim().split(';').next().unwrap_or("").to_string();
            arrays.insert(d, id.clone());
            after = Some(id);
        }
        Ok(())
    }

    /// Cancels every array submitted.
    fn cancel_all(&self, arrays: &BTreeMap<usize, String>) {
        if arrays.is_empty() {
            return;
        }
        let _ = Command::new("scancel").args(arrays.values()).output();
    }

    /// Whether array `id` still has tasks in the queue (pending or running), and whether a
    /// pending one waits for a dependency that can never be met.
    fn queued(id: &str) -> (bool, bool) {
        match Command::new("squeue")
            .args(["-h", "-j", id, "-o", "%T %r"])
            .output()
        {
            Ok(o) if o.status.success() => {
                let text = String::from_utf8_lossy(&o.stdout);
                let never = text.contains("DependencyNeverSatisfied");
                (!text.trim().is_empty(), never)
            }
            // An id the controller has forgotten: the array is long finished.
            _ => (false, false),
        }
    }
}

impl SliceRunner for SlurmRunner {
    fn run(&self, depth: usize, count: u32, slices: &[u32]) -> Result<(), SliceFailure> {
        let submitted = {
            let arrays = self.arrays.lock().unwrap_or_else(|e| e.into_inner());
            arrays.get(&depth).cloned()
        };
        let id = match submitted {
            Some(id) => id,
            None => {
                self.submit_chain(depth, count, slices)?;
                let arrays = self.arrays.lock().unwrap_or_else(|e| e.into_inner());
                arrays.get(&depth).cloned().unwrap_or_default()
            }
        };
        let tasks: Vec<SliceTask> = (0..count)
            .map(|index| SliceTask {
                pass: self.pass,
                depth,
                index,
                count,
            })
            .collect();
        let stop = |reason: StopReason| {
            let arrays = self.arrays.lock().unwrap_or_else(|e| e.into_inner());
            self.cancel_all(&arrays);
            SliceFailure::Stopped(reason)
        };
        loop {
            let finished = |t: &SliceTask| t.record_path(&self.dir).exists();
            if tasks.iter().all(finished) {
                return Ok(());
            }
            if self.cancel.load(Ordering::Relaxed) {
                return Err(stop(StopReason::Cancelled));
            }
            if self.clock.time_left().is_some_and(|t| t.is_zero()) {
                return Err(stop(StopReason::TimeLimit));
            }
            let (queued, never) = SlurmRunner::queued(&id);
            if !queued || never {
                // Gone from the queue: a last look, then the first slice without a record.
                std::thread::sleep(POLL);
                let Some(t) = tasks.iter().find(|t| !finished(t)) else {
                    return Ok(());
                };
                let arrays = self.arrays.lock().unwrap_or_else(|e| e.into_inner());
                self.cancel_all(&arrays);
                let log = log_path(&self.dir, t);
                let text = std::fs::read_to_string(&log).unwrap_or_default();
                if let Some(reason) = crate::slices::stopped_in(&text) {
                    return Err(SliceFailure::Stopped(reason));
                }
                let said: Vec<&str> = text.lines().rev().take(5).collect();
                let said: Vec<&str> = said.into_iter().rev().collect();
                return Err(SliceFailure::Failed(format!(
                    "array {id}, slice {}/{count}: no record; {} (log: {})",
                    t.index,
                    said.join(" / "),
                    log.display()
                )));
            }
            std::thread::sleep(POLL);
        }
    }
}
