//! Signals and the last resort behind `--time-limit`: Ctrl-C and SIGTERM raise a flag the
//! searches poll (a second one ends the process), SIGPIPE ends a run whose reader is gone, and
//! a watchdog ends a run stuck in one BDD operation past its limit.

use crate::failure::EXIT_LIMIT;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A flag raised by Ctrl-C, SIGTERM or SIGHUP; long runs poll it and stop, keeping what they
/// finished.
pub fn cancel_flag() -> Arc<AtomicBool> {
    static FLAG: std::sync::OnceLock<Arc<AtomicBool>> = std::sync::OnceLock::new();
    FLAG.get_or_init(|| {
        let flag = Arc::new(AtomicBool::new(false));
        let f = flag.clone();
        // A second interrupt ends the process at once: the first is only seen between BDD
        // operations, and one operation can run for minutes. Installing can only fail if a
        // handler is already installed, and this is the only place that installs one.
        let _ = ctrlc::set_handler(move || {
            if f.swap(true, Ordering::Relaxed) {
                crate::tempfiles::remove_own();
                eprintln!("symgame: stopped: interrupted twice; nothing more is reported");
                std::process::exit(EXIT_LIMIT.into());
            }
        });
        flag
    })
    .clone()
}

/// Restores the default action of SIGPIPE (terminate quietly), which Rust programs ignore: then
/// a reader that closes the pipe early (`symgame solve ... | head`) ends symgame like any other
/// Unix tool, instead of `println!` panicking on a broken pipe.
pub fn restore_sigpipe() {
    #[cfg(unix)]
    #[allow(unsafe_code)] // the one libc call that has no safe wrapper in our dependencies
    // SAFETY: called once at the start of main, before any thread is spawned; setting a signal's
    // disposition to SIG_DFL has no other precondition.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// What the watchdog prints before it ends a run: registered by a command that can say how far
/// it got (the finished layers, the set-up's phases).
type LastWords = Box<dyn Fn() + Send>;

fn last_words() -> &'static std::sync::Mutex<Option<LastWords>> {
    static LAST: std::sync::OnceLock<std::sync::Mutex<Option<LastWords>>> =
        std::sync::OnceLock::new();
    LAST.get_or_init(|| std::sync::Mutex::new(None))
}

/// Where grounding is (`GroundOptions::at_rule`) in which source, for the watchdog to name the
/// rule a run is stuck in.
type Grounding = (Arc<AtomicU64>, symgame_gdl::Source);

fn grounding() -> &'static Mutex<Option<Grounding>> {
    static AT: std::sync::OnceLock<Mutex<Option<Grounding>>> = std::sync::OnceLock::new();
    AT.get_or_init(|| Mutex::new(None))
}

/// Lets the watchdog name the rule a grounding of `source` is at (`at`: the byte offset of the
/// rule plus one, 0 outside the evaluation of rules).
pub fn watch_grounding(at: Arc<AtomicU64>, source: symgame_gdl::Source) {
    *grounding().lock().unwrap_or_else(|e| e.into_inner()) = Some((at, source));
}

/// The watchdog's message when the run is stuck evaluating one rule: located at the rule, as
/// the grounder's own stop at its deadline is.
fn grounding_message(limit: f64, grace: f64) -> Option<String> {
    let slot = grounding().lock().unwrap_or_else(|e| e.into_inner());
    let (at, source) = slot.as_ref()?;
    let offset = at.load(Ordering::Relaxed).checked_sub(1)?;
    let span = source.span_at(u32::try_from(offset).unwrap_or(u32::MAX));
    let message = format!(
        "grounding stopped: time limit of {limit:.1} s reached while grounding this rule, in \
         one step that had not returned {grace:.0} s later"
    );
    let kind = symgame_gdl::ErrorKind::ResourceLimit;
    Some(symgame_gdl::Error::at(kind, source, span, message).to_string())
}

/// What the watchdog says a run past its limit is stuck inside: "one BDD operation" unless
/// the command says otherwise ([`watch_inside`]).
fn inside() -> &'static Mutex<&'static str> {
    static INSIDE: Mutex<&'static str> = Mutex::new("one BDD operation");
    &INSIDE
}

/// Names what a run past its limit is stuck inside, for the watchdog's message: `explore`
/// uses no BDD, so its one long step is the explicit reasoner's.
pub fn watch_inside(what: &'static str) {
    *inside().lock().unwrap_or_else(|e| e.into_inner()) = what;
}

/// The watchdog's message when the run is stuck past its limit in one step (not grounding),
/// naming the step ([`watch_inside`]) and what was reported (`more`).
fn stuck_message(limit: f64, grace: f64, more: &str) -> String {
    let what = *inside().lock().unwrap_or_else(|e| e.into_inner());
    format!(
        "symgame: stopped: time limit of {limit} s reached inside {what}, which had not \
         returned {grace:.0} s later; {more}"
    )
}

/// Registers (replacing any earlier one) what the watchdog prints before it ends the run.
pub fn on_watchdog(f: impl Fn() + Send + 'static) {
    let mut slot = last_words().lock().unwrap_or_else(|e| e.into_inner());
    *slot = Some(Box::new(f));
}

/// Starts (once per process) the last resort behind `--time-limit`. Limits are checked between
/// BDD operations, and one operation (a relational product, or compiling a large GDL
/// condition) cannot be interrupted; on some games a single one runs for minutes. If the run is
/// still going a grace period after its limit (a quarter of the limit, at least 5 s), this
/// thread ends the process with the limit's exit code. Output files are written to a temporary
/// name and renamed, so none is left half-written.
pub fn start_watchdog(limit: Duration) {
    static STARTED: std::sync::Once = std::sync::Once::new();
    STARTED.call_once(|| {
        let limit = limit.as_secs_f64();
        let grace = (limit * 0.25).max(5.0);
        std::thread::spawn(move || {
            std::thread::sleep(Duration::try_from_secs_f64(limit + grace).unwrap_or(Duration::MAX));
            crate::progress::clear_shown();
            if let Some(message) = grounding_message(limit, grace) {
                eprintln!("stopped: {message}");
                std::process::exit(EXIT_LIMIT.into());
            }
            let _out = std::io::stdout().lock();
            let words = last_words().lock().unwrap_or_else(|e| e.into_inner());
            if let Some(say) = words.as_ref() {
                say();
            }
            let more = if words.is_some() {
                "what finished is reported above"
            } else {
                "nothing more is reported"
            };
            eprintln!("{}", stuck_message(limit, grace, more));
            std::process::exit(EXIT_LIMIT.into());
        });
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_watchdog_names_the_step_the_command_is_inside() {
        let message = stuck_message(10.0, 5.0, "nothing more is reported");
        assert!(message.contains("inside one BDD operation"), "{message}");
        watch_inside("one step of the explicit reasoner");
        let message = stuck_message(10.0, 5.0, "nothing more is reported");
        watch_inside("one BDD operation");
        assert_eq!(
            message,
            "symgame: stopped: time limit of 10 s reached inside one step of the explicit \
             reasoner, which had not returned 5 s later; nothing more is reported"
        );
    }

    #[test]
    fn the_watchdog_names_the_rule_grounding_is_stuck_in() {
        let source = symgame_gdl::Source::new("g.kif", "(role p)\n  (<= (big ?a) (n ?a))\n");
        let at = Arc::new(AtomicU64::new(0));
        watch_grounding(at.clone(), source);
        assert_eq!(
            grounding_message(10.0, 5.0),
            None,
            "outside the rules: no rule named"
        );
        at.store(12, Ordering::Relaxed); // offset 11 plus one: the `(<=` on line 2
        let message = grounding_message(10.0, 5.0).expect("a rule is named");
        assert!(
            message.starts_with("g.kif:2:3: grounding stopped: time limit of 10.0 s reached"),
            "{message}"
        );
        assert!(message.contains("(<= (big ?a) (n ?a))"), "{message}");
        *grounding().lock().unwrap_or_else(|e| e.into_inner()) = None;
    }
}
