//! The temporary paths a run may leave behind when it is ended at once (a second interrupt,
//! SIGKILL): the libraries name them `PREFIX-PID-NANOS` (the spill directory
//! `symgame-layers-PID-*` in the system's temporary directory, `export`'s working directory
//! `.NAME.solve-PID-*` and the database writer's `.NAME.tmp-PID-*` beside `--out`). A run
//! registers the places and prefixes it uses; a second interrupt removes this run's paths
//! there, and at start a run removes those whose process is gone.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The registered (directory, name prefix without the PID) pairs.
static PLACES: Mutex<Vec<(PathBuf, String)>> = Mutex::new(Vec::new());

/// Registers the temporary paths named `PREFIX-PID-*` in `dir`, and removes those left there by
/// processes that no longer exist.
pub fn register(dir: &Path, prefix: &str) {
    clean_stale(dir, prefix, process_alive);
    if let Ok(mut places) = PLACES.lock() {
        places.push((dir.to_path_buf(), prefix.to_string()));
    }
}

/// Paths a run creates whole (an output directory that did not exist before it).
static CREATED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Registers `path`, if it does not exist yet: the run creates it, and a second interrupt
/// removes it with everything in it (an unfinished `solve --out` directory).
pub fn register_if_new(path: &Path) {
    if !path.exists() {
        if let Ok(mut created) = CREATED.lock() {
            created.push(path.to_path_buf());
        }
    }
}

/// Registers the spill directories of the layered solver (`symgame-layers-PID-*`).
pub fn register_spill() {
    register(&std::env::temp_dir(), "symgame-layers");
}

/// Registers the working directory and temporary file the export writes beside `out`.
pub fn register_beside(out: &Path) {
    let Some(name) = out.file_name() else { return };
    let dir = match out.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = name.to_string_lossy();
    register(&dir, &format!(".{name}.solve"));
    register(&dir, &format!(".{name}.tmp"));
}

/// Removes this process's registered temporary paths (called on the second interrupt).
pub fn remove_own() {
    let pid = std::process::id();
    // try_lock: the handler must not wait for a thread interrupted while registering.
    if let Ok(places) = PLACES.try_lock() {
        for (dir, prefix) in places.iter() {
            remove_matching(dir, prefix, |p| p == pid);
        }
    }
    if let Ok(created) = CREATED.try_lock() {
        for path in created.iter() {
            let _ = std::fs::remove_dir_all(path);
        }
    }
}

/// Removes the paths `PREFIX-PID-*` in `dir` whose PID is not `alive`.
fn clean_stale(dir: &Path, prefix: &str, alive: impl Fn(u32) -> bool) {
    remove_matching(dir, prefix, |pid| !alive(pid));
}

fn remove_matching(dir: &Path, prefix: &str, pick: impl Fn(u32) -> bool) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = owner(&name.to_string_lossy(), prefix) else {
            continue;
        };
        if pick(pid) {
            let path = entry.path();
            let _ = if path.is_dir() && !path.is_symlink() {
                std::fs::remove_dir_all(&path)
            } else {
                std::fs::remove_file(&path)
            };
        }
    }
}

/// The PID in a name `PREFIX-PID-NANOS`, if the name has that form.
fn owner(name: &str, prefix: &str) -> Option<u32> {
    let rest = name.strip_prefix(prefix)?.strip_prefix('-')?;
    let (pid, nanos) = rest.split_once('-')?;
    if nanos.is_empty() || !nanos.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    pid.parse().ok()
}

/// Whether process `pid` exists; without `/proc` (not Linux) every process counts as alive,
/// so nothing is removed.
fn process_alive(pid: u32) -> bool {
    !Path::new("/proc/self").exists() || Path::new(&format!("/proc/{pid}")).exists()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_of_the_pattern_only() {
        assert_eq!(owner("symgame-layers-12-345", "symgame-layers"), Some(12));
        assert_eq!(owner(".a.db.solve-7-1", ".a.db.solve"), Some(7));
        assert_eq!(owner("symgame-layers-12", "symgame-layers"), None);
        assert_eq!(owner("symgame-layers-x-1", "symgame-layers"), None);
        assert_eq!(owner("other-12-345", "symgame-layers"), None);
    }

    #[test]
    fn stale_paths_of_dead_processes_are_removed() {
        let dir =
            std::env::temp_dir().join(format!("symgame-tempfiles-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        // A PID above Linux's maximum (2^22) never exists.
        let dead = dir.join(".x.db.solve-99999999-1");
        let live = dir.join(format!(".x.db.solve-{}-1", std::process::id()));
        let other = dir.join("x.db");
        for d in [&dead, &live] {
            std::fs::create_dir_all(d.join("spill")).unwrap();
        }
        std::fs::write(&other, "keep").unwrap();
        clean_stale(&dir, ".x.db.solve", process_alive);
        assert!(!dead.exists() || !Path::new("/proc/self").exists());
        assert!(live.exists() && other.exists());
        remove_matching(&dir, ".x.db.solve", |p| p == std::process::id());
        assert!(!live.exists() && other.exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
