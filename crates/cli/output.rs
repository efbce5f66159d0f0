//! What the commands print besides their own tables: JSON, and the time and memory a run
//! used.

use crate::failure::Failure;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Prints `value` as pretty JSON on stdout.
pub fn print_json<T: Serialize>(value: &T) -> Result<(), Failure> {
    println!("{}", serde_json::to_string_pretty(value)?);
    Ok(())
}

/// The time and memory a run used, measured when it is built.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Usage {
    /// Wall-clock seconds of the whole command.
    pub wall_seconds: f64,
    /// CPU seconds (user + system, all threads) of the process, from /proc/self/stat.
    pub cpu_seconds: Option<f64>,
    /// Peak resident memory in bytes (VmHWM from /proc/self/status).
    pub peak_memory_bytes: Option<u64>,
}

impl Usage {
    /// The usage of a command that started at `started`, now.
    pub fn since(started: Instant) -> Self {
        Usage {
            wall_seconds: started.elapsed().as_secs_f64(),
            cpu_seconds: cpu_seconds(),
            peak_memory_bytes: peak_memory_bytes(),
        }
    }

    /// `wall 1.23 s, CPU 2.0 s, peak memory 0.31 GB` (`?` where not measured).
    pub fn text(&self) -> String {
        let cpu = self
            .cpu_seconds
            .map_or("?".to_string(), |c| format!("{c:.1} s"));
        let mem = self
            .peak_memory_bytes
            .map_or("?".to_string(), |b| format!("{:.2} GB", b as f64 / 1e9));
        format!(
            "wall {:.2} s, CPU {cpu}, peak memory {mem}",
            self.wall_seconds
        )
    }
}

/// Peak resident memory (VmHWM) in bytes, on Linux.
pub fn peak_memory_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// CPU time (user + system, all threads) in seconds, on Linux (clock ticks of 1/100 s).
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which may contain spaces) start at ") ".
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the full line, 12 and 13 here.
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) / 100.0)
}

/// Refuses (an input error) an output path `out` (named by the flag `flag`) that would
/// overwrite an input before any work is done: `out` is the same file as one of `files` (by
/// canonical path, or device and inode on unix, so hard links count), or `out` lies inside
/// one of `dirs` (or is one of them).
pub fn refuse_overwrite(
    flag: &str,
    out: &Path,
    files: &[&Path],
    dirs: &[&Path],
) -> Result<(), Failure> {
    let refuse = |what: String| {
        Err(Failure::input(format!(
            "{flag} {}: {what}; refusing to overwrite an input",
            out.display()
        )))
    };
    let target = resolve(out);
    for f in files {
        if same_file(out, f) || (target.is_some() && target == resolve(f)) {
            return refuse(format!("it is the input file {}", f.display()));
        }
    }
    for d in dirs {
        if let (Some(t), Some(d2)) = (&target, resolve(d)) {
            if t.starts_with(&d2) {
                return refuse(format!(
                    "it lies inside the input directory {}",
                    d.display()
                ));
            }
        }
    }
    Ok(())
}

/// `p` made absolute with symbolic links resolved; for a path that does not exist yet, its
/// parent resolved and its name appended.
fn resolve(p: &Path) -> Option<PathBuf> {
    if let Ok(c) = p.canonicalize() {
        return Some(c);
    }
    let parent = match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    Some(resolve(parent)?.join(p.file_name()?))
}

/// Whether `a` and `b` exist and are the same file (device and inode).
#[cfg(unix)]
fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_file(_: &Path, _: &Path) -> bool {
    false
}

/// Refuses (an input error) an output directory `out` (named by the flag `flag`) that holds
/// the input file `input`: the run would clean the directory of its own earlier files.
pub fn refuse_input_inside(flag: &str, out: &Path, input: &Path) -> Result<(), Failure> {
    if let (Some(d), Some(f)) = (resolve(out), resolve(input)) {
        if f.starts_with(&d) {
            return Err(Failure::input(format!(
                "{flag} {}: the directory holds the input file {}; write the solution to \
                 another directory",
                out.display(),
                input.display()
            )));
        }
    }
    Ok(())
}
