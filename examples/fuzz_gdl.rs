//! The long mutation fuzz harness of the GDL front end (the quick one is a test in
//! `tests/hardening_gdl.rs`):
//!
//!     cargo run --release --example fuzz_gdl -- --seed S --iterations N [--all-corpus]
//!
//! mutates the games of `gdl/` (and the corpus games the quick test uses, or with
//! `--all-corpus` every corpus game) and runs each mutant through decoding, parsing, checking
//! and grounding in-process. Every mutant that panics or ends with an unlocated error is
//! written to `tests/fuzz-crashes/` (a regression fixture from then on); exit code 1 if any.

use symgame_testkit::fuzz;

fn main() {
    let args = fuzz::HarnessArgs::parse("fuzz_gdl", 100_000, &["--all-corpus"]);
    let (seed, iterations) = (args.seed, args.iterations);
    let all = args.has("--all-corpus");
    let seeds = fuzz::seeds((!all).then_some(&fuzz::QUICK_CORPUS_GAMES[..]));
    eprintln!(
        "{} seed files, seed {seed}, {iterations} mutants",
        seeds.len()
    );
    // a panic is caught and reported once below, not printed by the hook
    std::panic::set_hook(Box::new(|_| {}));
    let started = std::time::Instant::now();
    let report = fuzz::campaign(&seeds, seed, iterations, &fuzz::limits());
    let failures = &report.failures;
    let dir = symgame_testkit::root().join("tests/fuzz-crashes");
    for (i, f) in failures.iter().enumerate() {
        let path = dir.join(format!("seed{seed}-{i}.kif"));
        std::fs::create_dir_all(&dir).expect("the crash directory");
        std::fs::write(&path, &f.input).expect("the crash file");
        println!("{}: from {}: {}", path.display(), f.seed, f.problem);
    }
    eprintln!("outcomes: {:?}", report.outcomes);
    eprintln!(
        "{} failures in {:.1} s",
        failures.len(),
        started.elapsed().as_secs_f64()
    );
    std::process::exit(i32::from(!failures.is_empty()));
}
