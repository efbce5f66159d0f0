//! Limits and stop reasons shared by every search in symgame.
//!
//! Every long computation (explicit enumeration, proof-number search, symbolic BFS, retrograde
//! solving, planning) takes [`Limits`] and, when one is hit, ends with a [`StopReason`] instead of
//! an error or a panic: a limit is a result. A [`Guard`] holds the limits and the start time of
//! one run and answers "may I go on?".
//!
//! Architecture invariant: this crate depends on no other symgame crate, so every crate that stops
//! can share it, the explicit side and the symbolic side alike.

use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

/// Why a search stopped before it finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum StopReason {
    /// [`Limits::max_nodes`] was exceeded: BDD nodes of a set (symbolic searches) or node
    /// expansions (explicit searches).
    NodeLimit,
    /// [`Limits::max_states`] states were stored (explicit enumeration).
    StateLimit,
    /// [`Limits::time_limit`] passed.
    TimeLimit,
    /// [`Limits::max_memory_bytes`] would be exceeded.
    MemoryLimit,
    /// The BDD engine ran out of nodes (its node table is full).
    OutOfMemory,
    /// [`Limits::cancel`] was raised (Ctrl-C, SIGTERM).
    Cancelled,
}

impl fmt::Display for StopReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            StopReason::NodeLimit => "node limit reached",
            StopReason::StateLimit => "state limit reached",
            StopReason::TimeLimit => "time limit reached",
            StopReason::MemoryLimit => "memory limit reached",
            StopReason::OutOfMemory => "BDD engine out of nodes",
            StopReason::Cancelled => "cancelled",
        })
    }
}

/// Resource limits of one run. `None` means unlimited; [`Limits::default`] has none.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// The most nodes: BDD nodes of one set (symbolic searches) or node expansions (explicit
    /// searches).
    pub max_nodes: Option<u64>,
    /// The most states stored (explicit enumeration).
    pub max_states: Option<u64>,
    /// The most memory for a search's own structures, in bytes.
    pub max_memory_bytes: Option<usize>,
    /// The most resident memory of the whole process, in bytes (`--memory`): checked by
    /// [`Guard::check_resident`] between the steps of a symbolic search, whose BDD engine's
    /// tables are sized to stay below it.
    pub max_resident_bytes: Option<u64>,
    /// The longest wall-clock time.
    pub time_limit: Option<Duration>,
    /// The instant [`Limits::time_limit`] counts from (`None`: when a [`Guard`] is made of
    /// these limits). A command that computes its time left before a set-up it does not
    /// measure itself (a symbolic search compiles its game first) sets it, so that the search's
    /// guard does not give that set-up's time again.
    pub time_from: Option<Instant>,
    /// Set to `true` from another thread (a signal handler) to stop the run.
    pub cancel: Option<Arc<AtomicBool>>,
}

impl Limits {
    /// Whether the cancel flag is raised.
    pub fn cancelled(&self) -> bool {
        self.cancel
            .as_ref()
            .is_some_and(|c| c.load(Ordering::Relaxed))
    }
}

/// A run's limits asked from inside long operations: `Some(reason)` once the run must stop
/// ([`Guard::stop_check`]; a BDD engine asks it every few tens of thousands of nodes an
/// operation creates, also from its worker threads, so it must be cheap).
pub type StopCheck = Arc<dyn Fn() -> Option<StopReason> + Send + Sync>;

/// The limits of one run with the instant it started: answers whether the run may go on.
#[derive(Clone, Debug)]
pub struct Guard<'a> {
    /// The limits.
    pub limits: &'a Limits,
    /// When the run started: what [`Guard::elapsed`] counts from (a search's own seconds).
    pub started: Instant,
    /// What the time limit counts from: [`Limits::time_from`], else `started`.
    time_from: Instant,
}

impl<'a> Guard<'a> {
    /// A guard whose run starts now, its time limit at [`Limits::time_from`] if set.
    pub fn new(limits: &'a Limits) -> Self {
        Guard::since(limits, Instant::now())
    }

    /// A guard whose run started at `started` (its time limit at [`Limits::time_from`] if set).
    pub fn since(limits: &'a Limits, started: Instant) -> Self {
        let time_from = limits.time_from.unwrap_or(started);
        Guard {
            limits,
            started,
            time_from,
        }
    }

    /// Time since the start.
    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// The instant the time limit passes, if there is one.
    pub fn deadline(&self) -> Option<Instant> {
        self.limits
            .time_limit
            .and_then(|t| self.time_from.checked_add(t))
    }

    /// Time left before the time limit (`None` when unlimited).
    pub fn time_left(&self) -> Option<Duration> {
        self.limits
            .time_limit
            .map(|t| t.saturating_sub(self.time_from.elapsed()))
    }

    /// `Err(Cancelled)` when the cancel flag is raised, `Err(TimeLimit)` when the time is up
    /// (a limit of zero is up at once), `Err(MemoryLimit)` when the resident memory passed
    /// [`Limits::max_resident_bytes`] (read at most every 50 ms: see [`Guard::check_resident`]).
    pub fn check(&self) -> Result<(), StopReason> {
        let cancel = self.limits.cancel.as_deref();
        match why_stop(cancel, self.deadline(), self.limits.max_resident_bytes) {
            Some(why) => Err(why),
            None => Ok(()),
        }
    }

    /// What [`Guard::check`] answers, as a check that owns what it reads (the cancel flag, the
    /// deadline, the memory limit), for a BDD engine to ask from inside its operations.
    pub fn stop_check(&self) -> StopCheck {
        let cancel = self.limits.cancel.clone();
        let deadline = self.deadline();
        let max_resident = self.limits.max_resident_bytes;
        Arc::new(move || why_stop(cancel.as_deref(), deadline, max_resident))
    }

    /// `Err(NodeLimit)` when `nodes` exceeds [`Limits::max_nodes`].
    pub fn check_nodes(&self, nodes: u64) -> Result<(), StopReason> {
        match self.limits.max_nodes {
            Some(max) if nodes > max => Err(StopReason::NodeLimit),
            _ => Ok(()),
        }
    }

    /// `Err(StateLimit)` when `states` exceeds [`Limits::max_states`].
    pub fn check_states(&self, states: u64) -> Result<(), StopReason> {
        match self.limits.max_states {
            Some(max) if states > max => Err(StopReason::StateLimit),
            _ => Ok(()),
        }
    }

    /// `Err(MemoryLimit)` when the process's resident memory exceeds
    /// [`Limits::max_resident_bytes`] (read from `/proc/self/status`; never stops where that
    /// cannot be read).
    pub fn check_resident(&self) -> Result<(), StopReason> {
        match self.limits.max_resident_bytes {
            Some(max) if resident_bytes().is_some_and(|now| now > max) => {
                Err(StopReason::MemoryLimit)
            }
            _ => Ok(()),
        }
    }

    /// `Err(MemoryLimit)` when `bytes` exceeds [`Limits::max_memory_bytes`].
    pub fn check_memory(&self, bytes: usize) -> Result<(), StopReason> {
        match self.limits.max_memory_bytes {
            Some(max) if bytes > max => Err(StopReason::MemoryLimit),
            _ => Ok(()),
        }
    }
}

/// A stop check that answers [`StopReason::TimeLimit`] from `at` on (a deadline of a part of a
/// run, such as its set-up, where no [`Guard`] holds it).
pub fn deadline_check(at: Instant) -> StopCheck {
    Arc::new(move || why_stop(None, Some(at), None))
}

/// Why a run with these limits must stop now, if it must: the cancel flag raised, the deadline
/// passed (a limit of zero is up at once), or the resident memory past `max_resident` (read at
/// most every 50 ms).
fn why_stop(
    cancel: Option<&AtomicBool>,
    deadline: Option<Instant>,
    max_resident: Option<u64>,
) -> Option<StopReason> {
    if cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
        return Some(StopReason::Cancelled);
    }
    if deadline.is_some_and(|d| Instant::now() >= d) {
        return Some(StopReason::TimeLimit);
    }
    match max_resident {
        Some(max) if recent_resident_bytes().is_some_and(|now| now > max) => {
            Some(StopReason::MemoryLimit)
        }
        _ => None,
    }
}

/// [`resident_bytes`] read at most every 50 ms (a read of `/proc` costs microseconds, and
/// [`Guard::check`] runs between search steps that can be much shorter); 0 stands for unknown.
fn recent_resident_bytes() -> Option<u64> {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    static READ_AT_MS: AtomicU64 = AtomicU64::new(0);
    static VALUE: AtomicU64 = AtomicU64::new(0);
    let now_ms = EPOCH.get_or_init(Instant::now).elapsed().as_millis() as u64 + 1;
    let value = VALUE.load(Ordering::Relaxed);
    if value != 0 && now_ms.saturating_sub(READ_AT_MS.load(Ordering::Relaxed)) < 50 {
        return Some(value);
    }
    let value = resident_bytes()?;
    VALUE.store(value, Ordering::Relaxed);
    READ_AT_MS.store(now_ms, Ordering::Relaxed);
    Some(value)
}

/// The resident memory of this process now (`VmRSS`), in bytes, where the system says.
pub fn resident_bytes() -> Option<u64> {
    status_bytes("VmRSS:")
}

/// The most resident memory this process has had so far (`VmHWM`), in bytes, where the system
/// says.
pub fn peak_resident_bytes() -> Option<u64> {
    status_bytes("VmHWM:")
}

/// A `kB` line of `/proc/self/status`, in bytes.
fn status_bytes(key: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(key))?;
    let kb: u64 = line[key.len()..].split_whitespace().next()?.parse().ok()?;
    kb.checked_mul(1024)
}

/// The machine's memory (`MemTotal` of `/proc/meminfo`), in bytes, where the system says.
pub fn machine_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kb.checked_mul(1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A guard's stop check answers what its `check` answers, and goes on answering once the
    /// cancel flag is raised; a deadline check answers the time limit from its instant on.
    #[test]
    fn stop_checks_answer_as_the_guard_does() {
        let cancel = Arc::new(AtomicBool::new(false));
        let limits = Limits {
            time_limit: Some(Duration::from_secs(60)),
            cancel: Some(cancel.clone()),
            ..Limits::default()
        };
        let guard = Guard::new(&limits);
        let check = guard.stop_check();
        assert_eq!(check(), None);
        cancel.store(true, Ordering::Relaxed);
        assert_eq!(check(), Some(StopReason::Cancelled));
        assert_eq!(guard.check(), Err(StopReason::Cancelled));
        let up = Limits {
            time_limit: Some(Duration::ZERO),
            ..Limits::default()
        };
        assert_eq!(Guard::new(&up).stop_check()(), Some(StopReason::TimeLimit));
        let past = deadline_check(Instant::now());
        assert_eq!(past(), Some(StopReason::TimeLimit));
        let later = deadline_check(Instant::now() + Duration::from_secs(60));
        assert_eq!(later(), None);
    }

    #[test]
    fn a_coarse_deadline_passes_with_the_precise_one() {
        let far = CoarseDeadline::new(Instant::now() + Duration::from_secs(60));
        assert!(!far.passed(), "not before its time");
        let past = CoarseDeadline::new(Instant::now() - Duration::from_secs(1));
        assert!(past.passed(), "a deadline gone by has passed");
        let near = CoarseDeadline::new(Instant::now() + Duration::from_millis(30));
        std::thread::sleep(Duration::from_millis(60));
        assert!(
            near.passed(),
            "30 ms after it (the coarse clock ticks every few ms)"
        );
    }

    #[test]
    fn unlimited_never_stops() {
        let limits = Limits::default();
        let g = Guard::new(&limits);
        assert_eq!(g.check(), Ok(()));
        assert_eq!(g.check_nodes(u64::MAX), Ok(()));
        assert_eq!(g.check_states(u64::MAX), Ok(()));
        assert_eq!(g.check_memory(usize::MAX), Ok(()));
        assert_eq!(g.check_resident(), Ok(()));
        assert_eq!(g.time_left(), None);
    }

    /// Limits that count from an earlier instant give a guard made later only what is left.
    #[test]
    fn a_guard_counts_from_the_limits_own_start() {
        let earlier = Instant::now() - Duration::from_secs(5);
        let from_then = Limits {
            time_limit: Some(Duration::from_secs(4)),
            time_from: Some(earlier),
            ..Limits::default()
        };
        let late = Guard::new(&from_then);
        assert_eq!(late.check(), Err(StopReason::TimeLimit));
        assert!(
            late.elapsed() < Duration::from_secs(5),
            "its own run starts now"
        );
        let from_now = Limits {
            time_from: None,
            ..from_then.clone()
        };
        assert_eq!(Guard::new(&from_now).check(), Ok(()));
    }

    #[test]
    fn each_limit_gives_its_reason() {
        let cancel = Arc::new(AtomicBool::new(false));
        let limits = Limits {
            max_nodes: Some(10),
            max_states: Some(5),
            max_memory_bytes: Some(100),
            max_resident_bytes: Some(1),
            time_limit: Some(Duration::ZERO),
            time_from: None,
            cancel: Some(cancel.clone()),
        };
        let g = Guard::since(&limits, Instant::now() - Duration::from_millis(1));
        assert_eq!(g.check_nodes(10), Ok(()));
        assert_eq!(g.check_nodes(11), Err(StopReason::NodeLimit));
        assert_eq!(g.check_states(6), Err(StopReason::StateLimit));
        assert_eq!(g.check_memory(101), Err(StopReason::MemoryLimit));
        if resident_bytes().is_some() {
            assert_eq!(g.check_resident(), Err(StopReason::MemoryLimit));
            assert!(peak_resident_bytes() >= Some(1));
        }
        assert_eq!(g.check(), Err(StopReason::TimeLimit));
        cancel.store(true, Ordering::Relaxed);
        assert_eq!(
            g.check(),
            Err(StopReason::Cancelled),
            "cancel wins over time"
        );
    }
}

/// A deadline for checks in hot loops (the compiler asks before every gate): read from the
/// coarse monotonic clock, a few nanoseconds a read against some 25-50 for [`Instant::now`],
/// at the cost of a few milliseconds of resolution (a tick of the kernel's clock). Where there
/// is no coarse clock it reads [`Instant::now`].
#[derive(Clone, Copy, Debug)]
pub struct CoarseDeadline {
    /// The deadline on the coarse clock, if it could be read.
    at_ns: Option<u64>,
    at: Instant,
}

impl CoarseDeadline {
    /// The deadline `deadline` (an instant of the precise clock).
    pub fn new(deadline: Instant) -> CoarseDeadline {
        let left = deadline.saturating_duration_since(Instant::now());
        let left = u64::try_from(left.as_nanos()).unwrap_or(u64::MAX);
        CoarseDeadline {
            at_ns: coarse_now_ns().map(|now| now.saturating_add(left)),
            at: deadline,
        }
    }

    /// Whether the deadline has passed (up to the coarse clock's resolution).
    #[inline]
    pub fn passed(&self) -> bool {
        match (self.at_ns, self.at_ns.and_then(|_| coarse_now_ns())) {
            (Some(at), Some(now)) => now >= at,
            _ => Instant::now() >= self.at,
        }
    }
}

/// The coarse monotonic clock in nanoseconds, where there is one.
#[inline]
fn coarse_now_ns() -> Option<u64> {
    #[cfg(target_os = "linux")]
    {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        #[allow(unsafe_code)] // the one clock read that has no safe wrapper in our dependencies
        // SAFETY: `ts` is a valid, writable timespec, the only memory clock_gettime writes.
        let rc = unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC_COARSE, &mut ts) };
        let secs = u64::try_from(ts.tv_sec).ok()?;
        let nanos = u64::try_from(ts.tv_nsec).ok()?;
        (rc == 0).then(|| secs.saturating_mul(1_000_000_000).saturating_add(nanos))
    }
    #[cfg(not(target_os = "linux"))]
    None
}
