//! What the commands print besides their own tables: JSON, and the time and memory a run
//! used.

use crate::failure::Failure;
use serde::Serialize;
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
fn peak_memory_bytes() -> Option<u64> {
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
