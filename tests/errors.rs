//! Every file in `tests/errors/` is a faulty description whose first line says what must go
//! wrong: `; expect: KIND LINE:COL TEXT` (or `-` for no position); the error must have that
//! kind and position, and its message must contain TEXT.

use symgame_testkit::root;

fn check(path: &std::path::Path) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let spec = text
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("; expect: "))
        .ok_or("first line must be `; expect: KIND LINE:COL TEXT`")?;
    let mut parts = spec.splitn(3, ' ');
    let kind = parts.next().unwrap_or_default();
    let pos = parts.next().unwrap_or_default();
    let needle = parts.next().unwrap_or_default();
    let result = symgame_gdl::load(path)
        .and_then(|d| symgame_ground::ground(&d, &Default::default()).map(|_| ()));
    let err = match result {
        Ok(()) => return Err("no error".into()),
        Err(e) => e,
    };
    let got_pos = match err.position() {
        Some((l, c)) => format!("{l}:{c}"),
        None => "-".into(),
    };
    let got_kind = format!("{:?}", err.kind());
    if got_kind != kind || got_pos != pos || !err.message().contains(needle) {
        return Err(format!(
            "expected {kind} at {pos} containing {needle:?}, got {got_kind} at {got_pos}: {}",
            err.message()
        ));
    }
    // The display names the file and shows the line with a caret.
    let shown = err.to_string();
    if pos != "-" && !(shown.contains(&format!(":{pos}: ")) && shown.contains('^')) {
        return Err(format!("display lacks location or caret:\n{shown}"));
    }
    Ok(())
}

#[test]
fn each_error_fixture_gives_its_error_at_its_place() {
    let dir = root().join("tests/errors");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/errors exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "kif"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 15,
        "expected the error fixtures, found {}",
        files.len()
    );
    let failures: Vec<String> = files
        .iter()
        .filter_map(|f| check(f).err().map(|e| format!("{}: {e}", f.display())))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_error_kind_has_a_fixture() {
    let dir = root().join("tests/errors");
    let mut kinds = std::collections::BTreeSet::new();
    for e in std::fs::read_dir(dir).expect("tests/errors exists") {
        let text = std::fs::read_to_string(e.expect("entry").path()).unwrap_or_default();
        if let Some(spec) = text
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("; expect: "))
        {
            kinds.insert(spec.split(' ').next().unwrap_or_default().to_string());
        }
    }
    for k in [
        "Syntax",
        "KeywordArity",
        "KeywordPlacement",
        "ArityMismatch",
        "UnsafeRule",
        "UnstratifiedNegation",
        "RecursionRestriction",
        "DependsOnDoes",
        "BadGoalValue",
        "BadCost",
        "BadRole",
    ] {
        assert!(kinds.contains(k), "no fixture for {k}");
    }
}

#[test]
fn a_missing_file_is_an_io_error_naming_it() {
    let err = symgame_gdl::load(std::path::Path::new("no/such/game.kif")).unwrap_err();
    assert_eq!(err.kind(), symgame_gdl::ErrorKind::Io);
    assert!(err.to_string().contains("no/such/game.kif"), "{err}");
}
