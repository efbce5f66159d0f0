//! Located errors: every diagnostic names the file, line and column, and shows the line.

use crate::syntax::Span;
use std::fmt;
use std::sync::Arc;

/// A source file: its name as given by the user, and its text.
#[derive(Clone, Debug)]
pub struct Source {
    name: Arc<str>,
    text: Arc<str>,
}

impl Source {
    /// A source named `name` (usually the path) with contents `text`.
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Source {
        Source {
            name: Arc::from(name.into()),
            text: Arc::from(text.into()),
        }
    }

    /// A source named `name` read from `bytes`, which must be UTF-8: an invalid byte is a
    /// [`ErrorKind::Syntax`] error at its line and column (never decoded lossily, which could
    /// merge two distinct names into one).
    pub fn from_bytes(name: impl Into<String>, bytes: Vec<u8>) -> Result<Source, Error> {
        match String::from_utf8(bytes) {
            Ok(text) => Ok(Source::new(name, text)),
            Err(e) => {
                let bytes = e.as_bytes();
                let at = e.utf8_error().valid_up_to();
                let prefix = std::str::from_utf8(&bytes[..at]).unwrap_or_default();
                let (line, col) = end_position(prefix);
                let source = Source::new(name, String::from_utf8_lossy(bytes).into_owned());
                let span = Span {
                    line,
                    col,
                    offset: at as u32,
                };
                let message = format!("invalid UTF-8 byte 0x{:02X}", bytes[at]);
                Err(Error::at(ErrorKind::Syntax, &source, span, message))
            }
        }
    }

    /// The name (path) of the source.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The full text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The span that starts at byte `offset` (clamped to the text, and back to a character
    /// boundary), with its line and column.
    pub fn span_at(&self, offset: u32) -> Span {
        let mut at = (offset as usize).min(self.text.len());
        while !self.text.is_char_boundary(at) {
            at -= 1;
        }
        let (line, col) = end_position(&self.text[..at]);
        Span {
            line,
            col,
            offset: at as u32,
        }
    }

    /// The text of the line that contains `span`, without its line ending.
    pub fn line_text(&self, span: Span) -> &str {
        let start = self.text[..(span.offset as usize).min(self.text.len())]
            .rfind(['\n', '\r'])
            .map_or(0, |i| i + 1);
        let rest = &self.text[start..];
        let end = rest.find(['\n', '\r']).unwrap_or(rest.len());
        &rest[..end]
    }
}

/// The 1-based (line, column) just after `text`: `\n`, `\r\n` and a lone `\r` each end a
/// line, and columns count characters.
fn end_position(text: &str) -> (u32, u32) {
    let (mut line, mut col) = (1u32, 1u32);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\n' || (c == '\r' && chars.peek() != Some(&'\n')) {
            line += 1;
            col = 1;
        } else {
            col += 1;
        }
    }
    (line, col)
}

/// What went wrong, as a closed set of kinds that tests and callers can match on.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The file could not be read.
    Io,
    /// Malformed KIF: unbalanced parentheses, a misplaced token.
    Syntax,
    /// A GDL keyword used with the wrong number of arguments.
    KeywordArity,
    /// A keyword in a place where GDL forbids it (`true` in a head, `next` in a body, ...).
    KeywordPlacement,
    /// A relation used with different arities.
    ArityMismatch,
    /// A variable of the head, of a `not` or of a `distinct` that no positive body literal binds.
    UnsafeRule,
    /// Negation through recursion.
    UnstratifiedNegation,
    /// A recursive rule that violates the GDL recursion restriction.
    RecursionRestriction,
    /// `legal`, `goal`, `terminal` or `init` depending on `does`.
    DependsOnDoes,
    /// `init` depending on `true`, `legal`, `next`, `goal` or `terminal`: the initial state
    /// must not depend on any state.
    InitDependsOnState,
    /// A goal value that is not an integer in 0..=100.
    BadGoalValue,
    /// A bad `(cost ?role ?move ?n)` relation: a cost that is not a positive integer, that
    /// depends on `true`/`does`, or two different costs for one move.
    BadCost,
    /// No role, or a role that is not a ground fact.
    BadRole,
    /// The game is not playable as described (no legal move, missing goal, ...).
    BadGame,
    /// The grounder exceeded a resource limit.
    ResourceLimit,
    /// The time limit passed while reading, parsing or checking ([`crate::load_within`]).
    TimeLimit,
}

/// A diagnostic with a location in a GDL source.
#[derive(Clone, Debug)]
pub struct Error {
    kind: ErrorKind,
    message: String,
    file: String,
    span: Option<Span>,
    line_text: String,
}

impl Error {
    /// An error of `kind` at `span` in `source`.
    pub fn at(kind: ErrorKind, source: &Source, span: Span, message: impl Into<String>) -> Error {
        Error {
            kind,
            message: message.into(),
            file: source.name().to_string(),
            span: Some(span),
            line_text: source.line_text(span).to_string(),
        }
    }

    /// The error for keyword `name` at `span` used with `found` arguments instead of
    /// `expected`.
    pub(crate) fn keyword_arity(
        source: &Source,
        span: Span,
        name: &str,
        expected: usize,
        found: usize,
    ) -> Error {
        let s = if expected == 1 { "" } else { "s" };
        let message = format!("`{name}` takes {expected} argument{s}, found {found}");
        Error::at(ErrorKind::KeywordArity, source, span, message)
    }

    /// An error about a whole file (no position), e.g. it could not be read.
    pub fn file(kind: ErrorKind, file: &str, message: impl Into<String>) -> Error {
        Error {
            kind,
            message: message.into(),
            file: file.to_string(),
            span: None,
            line_text: String::new(),
        }
    }

    /// The kind of error.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The message without location.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The file the error is in.
    pub fn file_name(&self) -> &str {
        &self.file
    }

    /// 1-based (line, column), if the error has a position.
    pub fn position(&self) -> Option<(u32, u32)> {
        self.span.map(|s| (s.line, s.col))
    }

    /// One line: `file:line:col: message`.
    pub fn headline(&self) -> String {
        match self.span {
            Some(s) => format!("{}:{}:{}: {}", self.file, s.line, s.col, self.message),
            None => format!("{}: {}", self.file, self.message),
        }
    }
}

/// At most this many characters of the offending line are shown, around the column.
const LINE_WINDOW: usize = 120;

/// The part of `line` shown under a diagnostic for 1-based column `col`: at most
/// [`LINE_WINDOW`] characters around it, with `…` where the line is cut, and the padding that
/// puts the caret under the column (tabs kept so that it lines up).
fn line_window(line: &str, col: u32) -> (String, String) {
    let caret = col.saturating_sub(1) as usize;
    let len = line.chars().count();
    let (start, end) = if len <= LINE_WINDOW {
        (0, len)
    } else {
        let start = caret.saturating_sub(LINE_WINDOW / 2).min(len - LINE_WINDOW);
        (start, start + LINE_WINDOW)
    };
    let mut shown = String::new();
    let mut pad = String::new();
    if start > 0 {
        shown.push('…');
        pad.push(' ');
    }
    for (i, c) in line.chars().enumerate().skip(start).take(end - start) {
        shown.push(c);
        if i < caret {
            pad.push(if c == '\t' { '\t' } else { ' ' });
        }
    }
    if end < len {
        shown.push('…');
    }
    (shown, pad)
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.headline())?;
        if let Some(s) = self.span {
            let gutter = s.line.to_string().len();
            let (shown, caret_pad) = line_window(&self.line_text, s.col);
            write!(
                f,
                "\n{:gutter$} |\n{} | {}\n{:gutter$} | {}^",
                "", s.line, shown, "", caret_pad
            )?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}
