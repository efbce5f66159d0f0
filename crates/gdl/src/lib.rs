//! Reading GDL, the Game Description Language of General Game Playing, in KIF syntax.
//!
//! The main entry points are [`parse`] (text to a [`Description`]: rules with interned
//! [`Sym`]bols and source [`Span`]s) and [`check`] (normalisation and static validation, giving a
//! [`CheckedDescription`] of flat [`NormalRule`]s). Every problem is an [`Error`] with an
//! [`ErrorKind`], the file, line and column, and the offending line with a caret.
//!
//! Architecture invariant: this crate knows only text and syntax; it depends on no other symgame
//! crate, and nothing here knows about grounding, states or BDDs.

mod check;
mod error;
mod parse;
mod syntax;

pub use check::{
    check, check_within, CheckedDescription, DependencyGraph, NormalLiteral, NormalRule, Warning,
};
pub use error::{Error, ErrorKind, Source};
pub use parse::{parse, parse_within};
pub use syntax::*;

/// Reads, parses and checks the GDL file at `path`.
pub fn load(path: &std::path::Path) -> Result<CheckedDescription, Error> {
    load_within(path, None)
}

/// [`load`], stopping with [`ErrorKind::TimeLimit`] once `deadline` has passed.
pub fn load_within(
    path: &std::path::Path,
    deadline: Option<std::time::Instant>,
) -> Result<CheckedDescription, Error> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path)
        .map_err(|e| Error::file(ErrorKind::Io, &name, format!("cannot read file: {e}")))?;
    parse::check_clock(deadline, &name, "reading")?;
    check_within(
        parse_within(Source::from_bytes(name, bytes)?, deadline)?,
        deadline,
    )
}
