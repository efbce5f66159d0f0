//! Regression tests for the GDL front end's failures found by fault injection (issue 16):
//! each runs the real input through the binary and checks the message, its location and exit
//! code 2; and the seeded mutation fuzz test of the front end (`symgame_testkit::fuzz`).

use std::path::PathBuf;

use crate::symgame;
use symgame_testkit::{fuzz, gdl_path, root, scratch_dir};

/// Writes `bytes` to `name` in the scratch directory of test `test`.
fn input(test: &str, name: &str, bytes: &[u8]) -> PathBuf {
    let path = scratch_dir!("hardening_gdl", test).join(name);
    std::fs::write(&path, bytes).expect("the input is written");
    path
}

/// Writes `bytes` to `name` (as [`input`]), runs `symgame info` on it and checks that it exits
/// with `code` and that stderr holds `want`; returns stderr.
fn info_fails(test: &str, name: &str, bytes: &[u8], code: i32, want: &str) -> String {
    let path = input(test, name, bytes);
    let (got, _, err) = symgame(&["info", path.to_str().expect("a UTF-8 path")]);
    assert_eq!(got, code, "{err}");
    assert!(err.contains(want), "expected {want:?} in:\n{err}");
    err
}

fn tictactoe() -> String {
    std::fs::read_to_string(gdl_path("tictactoe")).expect("the fixture game")
}

#[test]
fn f4_the_time_limit_holds_while_parsing() {
    // Two million facts (about 30 MB) take seconds to parse and check; a limit of 0.2 s must
    // stop the reading with a limit error (exit 3), not after it.
    let mut text = tictactoe();
    for i in 0..2_000_000 {
        text.push_str(&format!("(fact {i} {})\n", i % 7));
    }
    let path = input("f4", "huge.kif", text.as_bytes());
    let started = std::time::Instant::now();
    let (code, _, err) = symgame(&[
        "info",
        "--time-limit",
        "0.2",
        path.to_str().expect("a UTF-8 path"),
    ]);
    let took = started.elapsed();
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("time limit reached while"), "{err}");
    assert!(err.contains("huge.kif"), "{err}");
    // Reading the file is not interrupted; what follows stops at the next look at the clock.
    assert!(took < std::time::Duration::from_secs(20), "{took:?}");
}

#[test]
fn f12_invalid_utf8_is_a_located_error() {
    let text = tictactoe();
    let line = text
        .lines()
        .position(|l| l.contains("(role"))
        .expect("a role")
        + 1;
    let bytes = text
        .into_bytes()
        .split(|&b| b == b'\n')
        .enumerate()
        .map(|(i, l)| match i + 1 == line {
            true => b"(role a\xff)".to_vec(),
            false => l.to_vec(),
        })
        .collect::<Vec<_>>()
        .join(&b'\n');
    let want = format!("bad_utf8.kif:{line}:8: invalid UTF-8 byte 0xFF");
    info_fails("f12", "bad_utf8.kif", &bytes, 2, &want);
}

#[test]
fn f13_init_depending_on_true_is_a_located_error() {
    let text = format!(
        "{}\n(<= (init (extra)) (true (control xplayer)))\n",
        tictactoe()
    );
    let line = text.lines().count();
    let want = format!("init_true.kif:{line}:20: `init` depends on `true`");
    info_fails("f13", "init_true.kif", text.as_bytes(), 2, &want);
    // through another relation, and on `legal`
    let text = format!(
        "{}\n(<= (init (extra)) (helper))\n(<= (helper) (legal xplayer noop))\n",
        tictactoe()
    );
    let want = "`init` depends on `legal` (through `helper`)";
    info_fails("f13", "init_legal.kif", text.as_bytes(), 2, want);
}

#[test]
fn f14_deep_nesting_shows_a_short_line() {
    let deep = "(".repeat(1_000_000);
    let want = "deep.kif:1:502: nesting deeper than 500 levels";
    let err = info_fails("f14", "deep.kif", deep.as_bytes(), 2, want);
    assert!(err.len() < 1000, "{} bytes of stderr", err.len());
    assert!(err.contains('…') && err.contains('^'), "{err}");
}

#[test]
fn f15_plain_rules_are_not_limited_as_or_expansion() {
    // 1.1 M plain rules: checked in-process (the binary would also ground them all)
    let mut text = tictactoe();
    for i in 0..1_100_000 {
        text.push_str(&format!("(filler {i})\n"));
    }
    let checked = symgame_testkit::check_text("plain.kif", &text).expect("plain rules are fine");
    assert!(checked.rules.len() > 1_100_000);
    // an `or` that expands into 2^21 rules is refused, and the message says so
    let ors = "(or (a ?x) (b ?x)) ".repeat(21);
    let text = format!("{}\n(<= (p ?x) (and {ors}))\n(a 1)\n(b 1)\n", tictactoe());
    let line = text.lines().count() - 2;
    let want = format!("or.kif:{line}:1: expanding `or` adds more than 1000000 rules");
    // a limit: exit code 3
    info_fails("f15", "or.kif", text.as_bytes(), 3, &want);
}

#[test]
fn f17_cr_line_ends_end_comments_and_count_lines() {
    let text = format!("; a comment\n{}\n(bad\n", tictactoe());
    let line = text.lines().count();
    let want = format!("mac.kif:{line}:1: unbalanced parenthesis");
    info_fails(
        "f17",
        "mac.kif",
        text.replace('\n', "\r").as_bytes(),
        2,
        &want,
    );
    // the game itself reads the same with CR, CRLF and LF line ends
    for (name, text) in [
        ("cr.kif", tictactoe().replace('\n', "\r")),
        ("crlf.kif", tictactoe().replace('\n', "\r\n")),
    ] {
        let (code, out, err) = symgame(&[
            "info",
            input("f17", name, text.as_bytes()).to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{name}: {err}");
        assert!(out.contains("roles          2"), "{name}: {out}");
    }
}

#[test]
fn fuzz_mutants_never_panic_and_errors_are_located() {
    let seeds = fuzz::seeds(Some(&fuzz::QUICK_CORPUS_GAMES));
    assert!(seeds.len() >= 19, "the fixture games are seeds");
    let started = std::time::Instant::now();
    let failures = fuzz::campaign(&seeds, 16, 400, &fuzz::limits()).failures;
    let report: Vec<String> = failures
        .iter()
        .map(|f| {
            format!(
                "{} mutant: {}\n{}",
                f.seed,
                f.problem,
                String::from_utf8_lossy(&f.input)
            )
        })
        .collect();
    assert!(report.is_empty(), "{}", report.join("\n\n"));
    assert!(
        started.elapsed().as_secs() < 30,
        "took {:?}",
        started.elapsed()
    );
}

#[test]
fn fuzz_crash_fixtures_stay_fixed() {
    // inputs the long fuzz harness once found failing (`examples/fuzz_gdl.rs`)
    let dir = root().join("tests/fuzz-crashes");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|es| es.filter_map(|e| Some(e.ok()?.path())).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|x| x == "kif"));
    files.sort();
    for f in files {
        let bytes = std::fs::read(&f).expect("a fixture");
        if let Err(problem) = fuzz::run(&f.display().to_string(), bytes, &fuzz::limits()) {
            panic!("{}: {problem}", f.display());
        }
    }
}
