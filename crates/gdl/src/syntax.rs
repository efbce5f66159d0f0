//! Abstract syntax of a GDL description, with interned symbols and source locations.

use std::collections::HashMap;
use std::fmt;

/// An interned, lower-cased symbol (constant, function, relation or variable name).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Sym(pub u32);

/// The symbol table of one description: GDL symbols are case-insensitive, so names are stored
/// lower-cased.
#[derive(Clone, Debug, Default)]
pub struct Symbols {
    names: Vec<String>,
    ids: HashMap<String, Sym>,
}

impl Symbols {
    /// Interns `name` (lower-cased) and returns its symbol.
    pub fn intern(&mut self, name: &str) -> Sym {
        let lower = name.to_ascii_lowercase();
        if let Some(&s) = self.ids.get(&lower) {
            return s;
        }
        let s = Sym(self.names.len() as u32);
        self.names.push(lower.clone());
        self.ids.insert(lower, s);
        s
    }

    /// Looks up `name` without interning it.
    pub fn get(&self, name: &str) -> Option<Sym> {
        self.ids.get(&name.to_ascii_lowercase()).copied()
    }

    /// The (lower-cased) name of a symbol.
    pub fn name(&self, s: Sym) -> &str {
        &self.names[s.0 as usize]
    }

    /// Number of interned symbols.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// True if no symbol is interned.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

/// A position in a source file: 1-based line and column (in characters), and byte offset.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Span {
    /// 1-based line.
    pub line: u32,
    /// 1-based column, counted in characters.
    pub col: u32,
    /// Byte offset of the start.
    pub offset: u32,
}

/// A term: a variable, a constant or a function applied to terms.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Term {
    /// A variable `?x` (the symbol holds the name without `?`).
    Var(Sym, Span),
    /// A constant (an object constant or a number, both symbols in GDL).
    Const(Sym, Span),
    /// A compound term `(f t1 ... tn)` with n >= 1.
    Func(Sym, Vec<Term>, Span),
}

impl Term {
    /// Where the term starts.
    pub fn span(&self) -> Span {
        match self {
            Term::Var(_, s) | Term::Const(_, s) | Term::Func(_, _, s) => *s,
        }
    }

    /// Calls `f` on every variable occurrence of the term.
    pub fn for_each_var(&self, f: &mut impl FnMut(Sym, Span)) {
        match self {
            Term::Var(v, s) => f(*v, *s),
            Term::Const(..) => {}
            Term::Func(_, args, _) => args.iter().for_each(|a| a.for_each_var(f)),
        }
    }

    /// True if the term contains no variable.
    pub fn is_ground(&self) -> bool {
        let mut ground = true;
        self.for_each_var(&mut |_, _| ground = false);
        ground
    }
}

/// An atomic sentence `(r t1 ... tn)` or a proposition `r` (n = 0).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Atom {
    /// The relation symbol.
    pub pred: Sym,
    /// The arguments.
    pub args: Vec<Term>,
    /// Where the atom starts.
    pub span: Span,
}

impl Atom {
    /// Calls `f` on every variable occurrence of the atom.
    pub fn for_each_var(&self, f: &mut impl FnMut(Sym, Span)) {
        self.args.iter().for_each(|a| a.for_each_var(f));
    }
}

/// A body literal as written.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Literal {
    /// A positive atom.
    Pos(Atom),
    /// `(not L)`.
    Not(Box<Literal>, Span),
    /// `(distinct t1 t2)`.
    Distinct(Term, Term, Span),
    /// `(or L1 ... Ln)`.
    Or(Vec<Literal>, Span),
    /// `(and L1 ... Ln)`, accepted inside `or` and `not`.
    And(Vec<Literal>, Span),
}

impl Literal {
    /// Where the literal starts.
    pub fn span(&self) -> Span {
        match self {
            Literal::Pos(a) => a.span,
            Literal::Not(_, s) | Literal::Distinct(_, _, s) | Literal::Or(_, s) => *s,
            Literal::And(_, s) => *s,
        }
    }
}

/// A fact (empty body) or a rule `(<= head body...)`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Rule {
    /// The head atom.
    pub head: Atom,
    /// The body literals (a conjunction).
    pub body: Vec<Literal>,
    /// Where the rule starts.
    pub span: Span,
}

/// The GDL keywords, interned in every description at fixed positions.
#[derive(Clone, Copy, Debug)]
pub struct Keywords {
    /// `role`
    pub role: Sym,
    /// `init`
    pub init: Sym,
    /// `true`
    pub true_: Sym,
    /// `next`
    pub next: Sym,
    /// `legal`
    pub legal: Sym,
    /// `does`
    pub does: Sym,
    /// `goal`
    pub goal: Sym,
    /// `terminal`
    pub terminal: Sym,
    /// `base`
    pub base: Sym,
    /// `input`
    pub input: Sym,
    /// `distinct`
    pub distinct: Sym,
    /// `not`
    pub not: Sym,
    /// `or`
    pub or: Sym,
    /// `and`
    pub and: Sym,
    /// `<=`
    pub implies: Sym,
}

impl Keywords {
    /// Interns the keywords into `symbols`.
    pub fn intern(symbols: &mut Symbols) -> Keywords {
        Keywords {
            role: symbols.intern("role"),
            init: symbols.intern("init"),
            true_: symbols.intern("true"),
            next: symbols.intern("next"),
            legal: symbols.intern("legal"),
            does: symbols.intern("does"),
            goal: symbols.intern("goal"),
            terminal: symbols.intern("terminal"),
            base: symbols.intern("base"),
            input: symbols.intern("input"),
            distinct: symbols.intern("distinct"),
            not: symbols.intern("not"),
            or: symbols.intern("or"),
            and: symbols.intern("and"),
            implies: symbols.intern("<="),
        }
    }

    /// The keyword relations with their arities: `role`, `init`, `true`, `next`, `legal`,
    /// `does`, `goal`, `terminal`, `base` and `input`.
    pub fn relations(&self) -> [(Sym, usize); 10] {
        [
            (self.role, 1),
            (self.init, 1),
            (self.true_, 1),
            (self.next, 1),
            (self.legal, 2),
            (self.does, 2),
            (self.goal, 2),
            (self.terminal, 0),
            (self.base, 1),
            (self.input, 2),
        ]
    }
}

/// A parsed GDL description: its rules, symbols and source text (kept for error messages).
#[derive(Clone, Debug)]
pub struct Description {
    /// Facts and rules in file order.
    pub rules: Vec<Rule>,
    /// The symbol table.
    pub symbols: Symbols,
    /// The keyword symbols.
    pub keywords: Keywords,
    /// The source, for locating diagnostics.
    pub source: crate::Source,
}

/// Displays a term with the description's symbol names, in KIF syntax.
pub struct TermDisplay<'a>(pub &'a Term, pub &'a Symbols);

impl fmt::Display for TermDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Term::Var(v, _) => write!(f, "?{}", self.1.name(*v)),
            Term::Const(c, _) => write!(f, "{}", self.1.name(*c)),
            Term::Func(g, args, _) => {
                write!(f, "({}", self.1.name(*g))?;
                for a in args {
                    write!(f, " {}", TermDisplay(a, self.1))?;
                }
                write!(f, ")")
            }
        }
    }
}
