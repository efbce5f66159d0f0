//! KIF reader: text to [`Description`].
//!
//! Two stages: a tokenizer that tracks line and column, then a recursive reader that builds
//! S-expressions and turns them into rules. `(f)` with no arguments is read as the constant `f`
//! (real files write zero-arity atoms in parentheses, e.g. `(terminal)`).

use crate::error::{Error, ErrorKind, Source};
use crate::syntax::*;
use std::time::Instant;

#[derive(Debug)]
enum Sexp {
    Atom(String, Span),
    List(Vec<Sexp>, Span),
}

impl Sexp {
    fn span(&self) -> Span {
        match self {
            Sexp::Atom(_, s) | Sexp::List(_, s) => *s,
        }
    }
}

struct Reader<'a> {
    src: &'a Source,
    bytes: &'a [u8],
    pos: usize,
    line: u32,
    col: u32,
}

/// Nesting deeper than this is rejected instead of overflowing the stack.
const MAX_DEPTH: usize = 500;

impl<'a> Reader<'a> {
    fn span(&self) -> Span {
        Span {
            line: self.line,
            col: self.col,
            offset: self.pos as u32,
        }
    }

    fn bump(&mut self) {
        let b = self.bytes[self.pos];
        self.pos += 1;
        // `\n`, `\r\n` and a lone `\r` (old Mac files) each end one line
        let line_end = b == b'\n' || (b == b'\r' && self.bytes.get(self.pos) != Some(&b'\n'));
        if line_end {
            self.line += 1;
            self.col = 1;
        } else if b & 0xC0 != 0x80 {
            // count characters, not UTF-8 continuation bytes
            self.col += 1;
        }
    }

    fn skip_space(&mut self) {
        while self.pos < self.bytes.len() {
            match self.bytes[self.pos] {
                b';' => {
                    while self.pos < self.bytes.len()
                        && !matches!(self.bytes[self.pos], b'\n' | b'\r')
                    {
                        self.bump();
                    }
                }
                b if b.is_ascii_whitespace() => self.bump(),
                _ => break,
            }
        }
    }

    fn err(&self, span: Span, msg: impl Into<String>) -> Error {
        Error::at(ErrorKind::Syntax, self.src, span, msg)
    }

    /// Reads one S-expression; the caller has skipped white space and checked for input.
    fn sexp(&mut self, depth: usize) -> Result<Sexp, Error> {
        let start = self.span();
        match self.bytes[self.pos] {
            b'(' => {
                if depth > MAX_DEPTH {
                    return Err(self.err(start, format!("nesting deeper than {MAX_DEPTH} levels")));
                }
                self.bump();
                let mut items = Vec::new();
                loop {
                    self.skip_space();
                    if self.pos >= self.bytes.len() {
                        return Err(
                            self.err(start, "unbalanced parenthesis: this `(` is never closed")
                        );
                    }
                    if self.bytes[self.pos] == b')' {
                        self.bump();
                        return Ok(Sexp::List(items, start));
                    }
                    items.push(self.sexp(depth + 1)?);
                }
            }
            b')' => Err(self.err(start, "unexpected `)`: no matching `(`")),
            _ => {
                let begin = self.pos;
                while self.pos < self.bytes.len() {
                    let b = self.bytes[self.pos];
                    if b == b'(' || b == b')' || b == b';' || b.is_ascii_whitespace() {
                        break;
                    }
                    self.bump();
                }
                let text = &self.src.text()[begin..self.pos];
                Ok(Sexp::Atom(text.to_string(), start))
            }
        }
    }
}

/// Parses GDL text. `source` names the file in diagnostics.
pub fn parse(source: Source) -> Result<Description, Error> {
    parse_within(source, None)
}

/// Top-level forms read between two looks at the clock.
const CLOCK_EVERY: usize = 4096;

/// The error of a reading stopped at `deadline`.
pub(crate) fn past_deadline(file: &str, what: &str) -> Error {
    Error::file(
        ErrorKind::TimeLimit,
        file,
        format!("time limit reached while {what}"),
    )
}

/// Fails once `deadline` has passed.
pub(crate) fn check_clock(deadline: Option<Instant>, file: &str, what: &str) -> Result<(), Error> {
    match deadline {
        Some(d) if Instant::now() >= d => Err(past_deadline(file, what)),
        _ => Ok(()),
    }
}

/// [`parse`], stopping with [`ErrorKind::TimeLimit`] once `deadline` has passed (checked
/// every few thousand top-level forms).
pub fn parse_within(source: Source, deadline: Option<Instant>) -> Result<Description, Error> {
    let mut symbols = Symbols::default();
    let keywords = Keywords::intern(&mut symbols);
    let mut reader = Reader {
        src: &source,
        bytes: source.text().as_bytes(),
        pos: 0,
        line: 1,
        col: 1,
    };
    let mut sexps = Vec::new();
    loop {
        reader.skip_space();
        if reader.pos >= reader.bytes.len() {
            break;
        }
        if sexps.len() % CLOCK_EVERY == CLOCK_EVERY - 1 {
            check_clock(deadline, source.name(), "parsing")?;
        }
        sexps.push(reader.sexp(0)?);
    }
    let mut builder = Builder {
        src: &source,
        symbols: &mut symbols,
        kw: keywords,
    };
    let mut rules = Vec::with_capacity(sexps.len());
    for (i, s) in sexps.iter().enumerate() {
        if i % CLOCK_EVERY == CLOCK_EVERY - 1 {
            check_clock(deadline, source.name(), "parsing")?;
        }
        rules.push(builder.rule(s)?);
    }
    Ok(Description {
        rules,
        symbols,
        keywords,
        source,
    })
}

struct Builder<'a> {
    src: &'a Source,
    symbols: &'a mut Symbols,
    kw: Keywords,
}

impl Builder<'_> {
    fn err(&self, span: Span, msg: impl Into<String>) -> Error {
        Error::at(ErrorKind::Syntax, self.src, span, msg)
    }

    fn is_var(name: &str) -> bool {
        name.starts_with('?')
    }

    fn rule(&mut self, s: &Sexp) -> Result<Rule, Error> {
        if let Sexp::List(items, span) = s {
            if let Some(Sexp::Atom(head, _)) = items.first() {
                if head == "<=" {
                    let Some(h) = items.get(1) else {
                        return Err(self.err(*span, "expected a rule head after `<=`"));
                    };
                    let head = self.atom(h, "rule head")?;
                    let body = items[2..]
                        .iter()
                        .map(|b| self.literal(b))
                        .collect::<Result<Vec<_>, _>>()?;
                    return Ok(Rule {
                        head,
                        body,
                        span: *span,
                    });
                }
            }
        }
        let head = self.atom(s, "fact")?;
        Ok(Rule {
            span: head.span,
            head,
            body: Vec::new(),
        })
    }

    /// Reads a relation name; rejects variables, keywords of the rule language and `<=`.
    fn relation_name(&mut self, name: &str, span: Span, what: &str) -> Result<Sym, Error> {
        if Self::is_var(name) {
            return Err(self.err(
                span,
                format!("expected a relation name in {what}, found variable `{name}`"),
            ));
        }
        let s = self.symbols.intern(name);
        if s == self.kw.implies {
            return Err(self.err(
                span,
                format!("`<=` may only start a top-level rule, not {what}"),
            ));
        }
        Ok(s)
    }

    fn atom(&mut self, s: &Sexp, what: &str) -> Result<Atom, Error> {
        match s {
            Sexp::Atom(name, span) => {
                let pred = self.relation_name(name, *span, what)?;
                Ok(Atom {
                    pred,
                    args: Vec::new(),
                    span: *span,
                })
            }
            Sexp::List(items, span) => {
                let Some(first) = items.first() else {
                    return Err(self.err(*span, format!("expected an atom in {what}, found `()`")));
                };
                let Sexp::Atom(name, nspan) = first else {
                    return Err(self.err(
                        first.span(),
                        format!("expected a relation name in {what}, found a list"),
                    ));
                };
                let pred = self.relation_name(name, *nspan, what)?;
                for (k, word) in [
                    (self.kw.not, "not"),
                    (self.kw.or, "or"),
                    (self.kw.and, "and"),
                    (self.kw.distinct, "distinct"),
                ] {
                    if pred == k {
                        return Err(Error::at(
                            ErrorKind::KeywordPlacement,
                            self.src,
                            *span,
                            format!("`{word}` may not be used as {what}"),
                        ));
                    }
                }
                let args = items[1..]
                    .iter()
                    .map(|a| self.term(a))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(Atom {
                    pred,
                    args,
                    span: *span,
                })
            }
        }
    }

    fn term(&mut self, s: &Sexp) -> Result<Term, Error> {
        match s {
            Sexp::Atom(name, span) => {
                if let Some(v) = name.strip_prefix('?') {
                    if v.is_empty() {
                        return Err(self.err(*span, "expected a variable name after `?`"));
                    }
                    Ok(Term::Var(self.symbols.intern(v), *span))
                } else {
                    Ok(Term::Const(self.symbols.intern(name), *span))
                }
            }
            Sexp::List(items, span) => {
                let Some(first) = items.first() else {
                    return Err(self.err(*span, "expected a term, found `()`"));
                };
                let Sexp::Atom(name, nspan) = first else {
                    return Err(self.err(first.span(), "expected a function name, found a list"));
                };
                if Self::is_var(name) {
                    return Err(self.err(
                        *nspan,
                        format!("expected a function name, found variable `{name}`"),
                    ));
                }
                let f = self.symbols.intern(name);
                if items.len() == 1 {
                    return Ok(Term::Const(f, *span));
                }
                let args = items[1..]
                    .iter()
                    .map(|a| self.term(a))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(Term::Func(f, args, *span))
            }
        }
    }

    fn literal(&mut self, s: &Sexp) -> Result<Literal, Error> {
        if let Sexp::List(items, span) = s {
            if let Some(Sexp::Atom(name, _)) = items.first() {
                let sym = self.symbols.get(name);
                let args = &items[1..];
                let arity = |name: &str, n: usize| match args.len() {
                    found if found == n => Ok(()),
                    found => Err(Error::keyword_arity(self.src, *span, name, n, found)),
                };
                if sym == Some(self.kw.not) {
                    arity("not", 1)?;
                    return Ok(Literal::Not(Box::new(self.literal(&args[0])?), *span));
                }
                if sym == Some(self.kw.distinct) {
                    arity("distinct", 2)?;
                    let a = self.term(&args[0])?;
                    let b = self.term(&args[1])?;
                    return Ok(Literal::Distinct(a, b, *span));
                }
                if sym == Some(self.kw.or) || sym == Some(self.kw.and) {
                    let parts = args
                        .iter()
                        .map(|a| self.literal(a))
                        .collect::<Result<Vec<_>, _>>()?;
                    return Ok(if sym == Some(self.kw.or) {
                        Literal::Or(parts, *span)
                    } else {
                        Literal::And(parts, *span)
                    });
                }
            }
        }
        Ok(Literal::Pos(self.atom(s, "a rule body")?))
    }
}
