//! Mutation fuzzing of the GDL front end: seed files (the games of `gdl/` and some corpus
//! games) are mutated with a tiny deterministic PRNG (token and byte edits, inserted
//! parentheses, variables, `not`, `or`, line ends and non-UTF-8 bytes, truncation) and each
//! mutant is decoded, parsed, checked and grounded in-process under small limits. A mutant
//! *fails* when the front end panics or returns an error with no location that is not a limit
//! (or the one whole-file error, a description without a role).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::Duration;

use symgame_gdl::{ErrorKind, Source};
use symgame_ground::GroundOptions;

/// The corpus games the default (quick) fuzz test mutates when the corpus is present.
pub const QUICK_CORPUS_GAMES: [&str; 4] = ["ticTacToe.kif", "nim1.kif", "buttons.kif", "maze.kif"];

/// The command line of a fuzz harness (`examples/fuzz_*.rs`): `--seed S`, `--iterations N`
/// and the harness's own switches.
#[derive(Clone, Debug)]
pub struct HarnessArgs {
    /// The PRNG seed (default 1).
    pub seed: u64,
    /// How many mutants to run.
    pub iterations: usize,
    /// The switches given, from those the harness accepts.
    pub switches: Vec<&'static str>,
}

impl HarnessArgs {
    /// Reads the process's arguments for the harness `name`, which runs `iterations` mutants
    /// unless told otherwise and accepts `switches` besides `--seed` and `--iterations`. A bad
    /// command line prints the usage and exits with code 2.
    pub fn parse(name: &str, iterations: usize, switches: &[&'static str]) -> HarnessArgs {
        let mut out = HarnessArgs {
            seed: 1,
            iterations,
            switches: Vec::new(),
        };
        let mut args = std::env::args().skip(1);
        while let Some(a) = args.next() {
            let mut value = || {
                args.next()
                    .and_then(|v| v.parse::<u64>().ok())
                    .unwrap_or_else(|| {
                        harness_usage(name, switches, &format!("{a} needs a number"))
                    })
            };
            match a.as_str() {
                "--seed" => out.seed = value(),
                "--iterations" => out.iterations = value() as usize,
                s => match switches.iter().find(|&&w| w == s) {
                    Some(w) => out.switches.push(w),
                    None => harness_usage(name, switches, &format!("unknown argument `{a}`")),
                },
            }
        }
        out
    }

    /// Whether `switch` was given.
    pub fn has(&self, switch: &str) -> bool {
        self.switches.contains(&switch)
    }
}

/// Prints what is wrong with a harness's command line and its usage; exits with code 2.
fn harness_usage(name: &str, switches: &[&str], msg: &str) -> ! {
    let optional: String = switches.iter().map(|s| format!(" [{s}]")).collect();
    eprintln!("{name}: {msg}\nusage: {name} [--seed S] [--iterations N]{optional}");
    std::process::exit(2);
}

/// SplitMix64: a tiny, deterministic pseudo-random generator (same seed, same mutants).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator started from `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// The seed inputs: every `gdl/*.kif`, and the corpus games named in `corpus_games` that exist
/// (all corpus games when it is `None`), as (name, bytes), sorted by name.
pub fn seeds(corpus_games: Option<&[&str]>) -> Vec<(String, Vec<u8>)> {
    let mut paths = kif_files(&crate::root().join("gdl"));
    if let Some(corpus) = crate::corpus() {
        match corpus_games {
            Some(names) => paths.extend(names.iter().map(|n| corpus.join(n))),
            None => paths.extend(kif_files(&corpus)),
        }
    }
    paths
        .into_iter()
        .filter_map(|p| Some((p.display().to_string(), std::fs::read(&p).ok()?)))
        .collect()
}

fn kif_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| Some(e.ok()?.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "kif"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// Splits text into tokens: `(`, `)`, runs of white space, and runs of anything else.
fn tokens(input: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < input.len() {
        let class = |b: u8| match b {
            b'(' | b')' => 0,
            b if b.is_ascii_whitespace() => 1,
            _ => 2,
        };
        let c = class(input[i]);
        let mut j = i + 1;
        if c != 0 {
            while j < input.len() && class(input[j]) == c {
                j += 1;
            }
        }
        out.push(&input[i..j]);
        i = j;
    }
    out
}

/// What a mutation may insert.
const INSERTS: [&[u8]; 12] = [
    b"(",
    b")",
    b" ?x ",
    b" not ",
    b" or ",
    b"(not ",
    b"(or ",
    b"\xff",
    b"\r",
    b";",
    b" (true ?x) ",
    b"\xc3",
];

/// One to three random edits of `input`.
pub fn mutate(input: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut out = input.to_vec();
    for _ in 0..1 + rng.below(3) {
        out = mutate_once(&out, rng);
    }
    out
}

fn mutate_once(input: &[u8], rng: &mut Rng) -> Vec<u8> {
    let toks = tokens(input);
    if toks.is_empty() {
        return INSERTS[rng.below(INSERTS.len())].to_vec();
    }
    let t = rng.below(toks.len());
    let mut toks: Vec<Vec<u8>> = toks.into_iter().map(<[u8]>::to_vec).collect();
    match rng.below(8) {
        0 => {
            toks.remove(t);
        }
        1 => {
            let copy = toks[t].clone();
            toks.insert(t, copy);
        }
        2 => {
            let u = rng.below(toks.len());
            toks.swap(t, u);
        }
        3 | 4 => toks.insert(t, INSERTS[rng.below(INSERTS.len())].to_vec()),
        5 => toks.truncate(t),
        6 => {
            // one byte of the token replaced by a random byte
            let k = rng.below(toks[t].len());
            toks[t][k] = rng.next_u64() as u8;
        }
        _ => {
            // one byte deleted
            let k = rng.below(toks[t].len());
            toks[t].remove(k);
        }
    }
    toks.concat()
}

/// The grounding limits each mutant runs under.
pub fn limits() -> GroundOptions {
    GroundOptions {
        time_limit: Some(Duration::from_millis(500)),
        max_size: 200_000,
        ..GroundOptions::default()
    }
}

/// Decodes, parses, checks and grounds `bytes` (named `name`) under `opts`: `Err` says how
/// the front end failed (a panic, or an unlocated error that is not a limit); `Ok` has the
/// kind of error the mutant was refused with, `None` when it grounded.
pub fn run(name: &str, bytes: Vec<u8>, opts: &GroundOptions) -> Result<Option<ErrorKind>, String> {
    let result = catch_unwind(AssertUnwindSafe(|| {
        let source = Source::from_bytes(name, bytes)?;
        let checked = symgame_gdl::check(symgame_gdl::parse(source)?)?;
        symgame_ground::ground(&checked, opts).map(|_| ())
    }));
    match result {
        Err(panic) => {
            let msg = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            Err(format!("panic: {msg}"))
        }
        Ok(Ok(())) => Ok(None),
        Ok(Err(e)) => {
            let whole_file = matches!(e.kind(), ErrorKind::ResourceLimit | ErrorKind::BadRole);
            if e.position().is_some() || whole_file {
                Ok(Some(e.kind()))
            } else {
                Err(format!("error without a location: {e}"))
            }
        }
    }
}

/// A failing mutant: its seed file, the mutant's bytes, and how it failed.
#[derive(Clone, Debug)]
pub struct Failure {
    /// The name of the seed file it was made from.
    pub seed: String,
    /// The mutant.
    pub input: Vec<u8>,
    /// How the front end failed.
    pub problem: String,
}

/// What a campaign found: the failures, and how many mutants ended how (`grounded` or the
/// error kind).
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// The failing mutants.
    pub failures: Vec<Failure>,
    /// Mutants per outcome.
    pub outcomes: std::collections::BTreeMap<String, usize>,
}

/// Runs `iterations` mutants of `seeds` (taken in turn) made from PRNG seed `seed`.
pub fn campaign(
    seeds: &[(String, Vec<u8>)],
    seed: u64,
    iterations: usize,
    opts: &GroundOptions,
) -> Report {
    let mut rng = Rng::new(seed);
    let mut report = Report::default();
    if seeds.is_empty() {
        return report;
    }
    for i in 0..iterations {
        let (name, text) = &seeds[i % seeds.len()];
        let input = mutate(text, &mut rng);
        let outcome = match run("mutant.kif", input.clone(), opts) {
            Ok(None) => "grounded".to_string(),
            Ok(Some(kind)) => format!("{kind:?}"),
            Err(problem) => {
                report.failures.push(Failure {
                    seed: name.clone(),
                    input,
                    problem,
                });
                "failed".to_string()
            }
        };
        *report.outcomes.entry(outcome).or_default() += 1;
    }
    report
}
