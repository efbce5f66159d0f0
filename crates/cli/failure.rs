//! How a command fails: one [`Failure`] type, the exit codes, and the one mapping from every
//! library error to them, the same in every command.
//!
//! | exit code | [`Kind`] | what |
//! |---|---|---|
//! | 0 | – | success |
//! | 1 | [`Kind::Internal`] | a bug: an invariant broken, a plan that does not replay |
//! | 2 | [`Kind::Input`] | bad input: unreadable or foreign file, GDL error, bad argument, a game outside what the command handles |
//! | 3 | [`Kind::Limit`] | a resource limit (time, nodes, states, the BDD engine's node table), Ctrl-C or SIGTERM |
//! | 4 | [`Kind::Disagreement`] | `verify`: the symbolic and the explicit side disagree |
//!
//! Each library error type has a classification ([`Classify`]) by its kind, a pure function
//! tested below, and a `From` impl built on it, so commands use `?` and
//! [`Context::about`] (which prefixes the file or flag the error is about).

use std::fmt;
use symgame_bdd::BddError;
use symgame_limits::StopReason;
use symgame_symbolic::{FileError, PlanError, SolveError, SymbolicError};

/// The kind of a failure, which decides its exit code: the discriminant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Kind {
    /// A bug (exit code 1).
    Internal = 1,
    /// Bad input (exit code 2).
    Input = 2,
    /// A resource limit or a signal stopped the run (exit code 3); what finished was printed.
    Limit = 3,
    /// The symbolic and the explicit side disagree (exit code 4).
    Disagreement = 4,
}

/// Exit code of a successful run.
pub const EXIT_OK: u8 = 0;
/// Exit code of a run stopped by a resource limit, Ctrl-C or SIGTERM.
pub const EXIT_LIMIT: u8 = Kind::Limit.exit_code();

impl Kind {
    /// The process exit code.
    pub const fn exit_code(self) -> u8 {
        self as u8
    }

    /// The word that starts the message on stderr.
    fn label(self) -> &'static str {
        match self {
            Kind::Internal => "internal error",
            Kind::Input => "error",
            Kind::Limit => "stopped",
            Kind::Disagreement => "disagreement",
        }
    }
}

/// How a command failed: a kind and a message stating the fact.
#[derive(Debug)]
pub struct Failure {
    /// The kind, which decides the exit code.
    pub kind: Kind,
    /// The message, without the kind's label.
    pub message: String,
}

impl Failure {
    /// A failure of `kind`.
    pub fn new(kind: Kind, message: impl Into<String>) -> Self {
        Failure {
            kind,
            message: message.into(),
        }
    }

    /// Bad input (exit code 2).
    pub fn input(message: impl Into<String>) -> Self {
        Failure::new(Kind::Input, message)
    }

    /// A limit stopped the run (exit code 3).
    pub fn limit(message: impl Into<String>) -> Self {
        Failure::new(Kind::Limit, message)
    }

    /// A bug (exit code 1).
    pub fn internal(message: impl Into<String>) -> Self {
        Failure::new(Kind::Internal, message)
    }

    /// A disagreement found by `verify` (exit code 4).
    pub fn disagreement(message: impl Into<String>) -> Self {
        Failure::new(Kind::Disagreement, message)
    }

    /// The process exit code.
    pub fn exit_code(&self) -> u8 {
        self.kind.exit_code()
    }

    /// The same failure about `what` (a file, a flag): `what: message`.
    pub fn about(self, what: impl fmt::Display) -> Self {
        Failure::new(self.kind, format!("{what}: {}", self.message))
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind.label(), self.message)
    }
}

/// `?` with the file or flag an error is about.
pub trait Context<T> {
    /// The error as a [`Failure`] whose message starts with `what: `.
    fn about(self, what: impl fmt::Display) -> Result<T, Failure>;
}

impl<T, E> Context<T> for Result<T, E>
where
    Failure: From<E>,
{
    fn about(self, what: impl fmt::Display) -> Result<T, Failure> {
        self.map_err(|e| Failure::from(e).about(what))
    }
}

/// The kind of failure a library error is: one classification per error type.
pub trait Classify {
    /// The kind.
    fn kind(&self) -> Kind;
}

/// `Classify` for the error types whose every value is of one kind.
macro_rules! classify_as {
    ($($error:ty => $kind:ident;)*) => {
        $(
            impl Classify for $error {
                fn kind(&self) -> Kind {
                    Kind::$kind
                }
            }
        )*
    };
}

classify_as! {
    // A limit or a signal.
    StopReason => Limit;
    // A solution file that could not be read or written.
    FileError => Input;
    // A game or question outside what the explicit searches answer.
    symgame_prove::Unsupported => Input;
}

impl Classify for symgame_gdl::ErrorKind {
    fn kind(&self) -> Kind {
        match self {
            // The grounder's time and size limits (grounding errors are GDL errors).
            symgame_gdl::ErrorKind::ResourceLimit | symgame_gdl::ErrorKind::TimeLimit => {
                Kind::Limit
            }
            _ => Kind::Input,
        }
    }
}

impl Classify for BddError {
    fn kind(&self) -> Kind {
        match self {
            // The engine's node table is full, or the game needs more variables than it has.
            BddError::OutOfMemory { .. }
            | BddError::TooManyVariables { .. }
            | BddError::Budget(_)
            | BddError::Stopped(_) => Kind::Limit,
            // A node table read from a file.
            BddError::InvalidNodes(_) => Kind::Input,
        }
    }
}

impl Classify for SymbolicError {
    fn kind(&self) -> Kind {
        match self {
            SymbolicError::Bdd(e) => e.kind(),
            SymbolicError::Stopped(why) => why.kind(),
            SymbolicError::TooManyJointMoves { .. } => Kind::Limit,
            SymbolicError::UnknownRole(_) => Kind::Input,
            // The encoding's groups are proven invariants: the initial state satisfies them.
            SymbolicError::InitBreaksGroup => Kind::Internal,
        }
    }
}

impl Classify for SolveError {
    fn kind(&self) -> Kind {
        match self {
            SolveError::Symbolic(e) => e.kind(),
            SolveError::Io(e) => e.kind(),
            SolveError::StageGame(_) => Kind::Internal,
            // The commands solve again with proven groups: reaching the user is a fault.
            SolveError::AssumedGroupBroken { .. } => Kind::Internal,
            // The job solved a slice of a layer the solve itself could read: a fault.
            SolveError::Slice { .. } => Kind::Internal,
            // Games outside the solver: no legal move, simultaneous moves in the layered solver.
            _ => Kind::Input,
        }
    }
}

impl Classify for PlanError {
    fn kind(&self) -> Kind {
        match self {
            PlanError::Symbolic(e) => e.kind(),
            // A bad pattern, no role chosen in a game of several.
            _ => Kind::Input,
        }
    }
}

impl Classify for symgame_db::ErrorKind {
    fn kind(&self) -> Kind {
        use symgame_db::ErrorKind as K;
        match self {
            K::TooLarge => Kind::Limit,
            // The caller (this program) passed inconsistent data to a writer or a query.
            K::InvalidInput => Kind::Internal,
            // Unreadable, foreign, truncated, corrupted or mismatched files.
            _ => Kind::Input,
        }
    }
}

impl Classify for symgame_gamedb::ErrorKind {
    fn kind(&self) -> Kind {
        use symgame_gamedb::ErrorKind as K;
        match self {
            K::Database(k) => k.kind(),
            K::Bdd | K::SetupStopped => Kind::Limit,
            // Files, solution directories, fluents, moves, ranks and layers that do not fit.
            _ => Kind::Input,
        }
    }
}

impl Classify for symgame_verify::Error {
    fn kind(&self) -> Kind {
        use symgame_verify::Error as E;
        match self {
            E::Symbolic(e) => e.kind(),
            E::Solve(e) => e.kind(),
            E::Bdd(e) => e.kind(),
            E::Explicit(e) => e.kind(),
            E::Matrix(_) => Kind::Internal,
            E::Sample(e) => e.kind().kind(),
            E::Stopped(why) => why.kind(),
            E::Solution { .. } => Kind::Input,
            // The symbolic solution does not cover a reachable state it should.
            E::NoValue { .. } => Kind::Internal,
            _ => Kind::Input,
        }
    }
}

/// `From` each library error, by its [`Classify`] kind and its message.
macro_rules! from_error {
    ($($error:ty => |$e:ident| $kind:expr;)*) => {
        $(impl From<$error> for Failure {
            fn from($e: $error) -> Self {
                Failure::new($kind, $e.to_string())
            }
        })*
    };
}

from_error! {
    symgame_gdl::Error => |e| e.kind().kind();
    BddError => |e| e.kind();
    StopReason => |e| e.kind();
    SymbolicError => |e| e.kind();
    FileError => |e| e.kind();
    SolveError => |e| e.kind();
    PlanError => |e| e.kind();
    symgame_prove::Unsupported => |e| e.kind();
    symgame_prove::ParseAlgoError => |e| Kind::Input;
    symgame_verify::Error => |e| e.kind();
    std::io::Error => |e| Kind::Input;
    // Only printing a report as JSON fails this way.
    serde_json::Error => |e| Kind::Internal;
}

/// The message of a database error: a truncated file says so first (the reader states where
/// the file ends).
fn database_message(kind: &symgame_db::ErrorKind, e: &dyn fmt::Display) -> String {
    match kind {
        symgame_db::ErrorKind::Truncated => format!("the database file is truncated: {e}"),
        _ => e.to_string(),
    }
}

impl From<symgame_db::Error> for Failure {
    fn from(e: symgame_db::Error) -> Self {
        Failure::new(e.kind().kind(), database_message(e.kind(), &e))
    }
}

impl From<symgame_gamedb::Error> for Failure {
    fn from(e: symgame_gamedb::Error) -> Self {
        let message = match e.kind() {
            symgame_gamedb::ErrorKind::Database(k) => database_message(k, &e),
            _ => e.to_string(),
        };
        Failure::new(e.kind().kind(), message)
    }
}

#[cfg(test)]
mod tests {
    //! The table of every library error kind and its exit code.

    use super::*;
    use symgame_bdd::Backend;
    use symgame_symbolic::FileError;

    /// The exit codes the documentation gives: 1 for a bug, 2 for bad input, 3 for a limit
    /// (checked as numbers, not as `Kind`'s discriminants).
    const EXIT_INTERNAL: u8 = 1;
    const EXIT_INPUT: u8 = 2;
    const EXIT_LIMIT: u8 = 3;

    /// `(what, failure, exit code)`: the check.
    fn check(cases: Vec<(&str, Failure, u8)>) {
        for (what, failure, code) in cases {
            assert_eq!(failure.exit_code(), code, "{what}: {failure}");
        }
    }

    fn oom() -> BddError {
        BddError::OutOfMemory {
            backend: Backend::Oxidd,
            node_capacity: 16,
        }
    }

    fn file_error() -> FileError {
        FileError {
            path: "manifest.json".into(),
            message: "no such file".into(),
        }
    }

    #[test]
    fn gdl_and_grounding_errors() {
        use symgame_gdl::ErrorKind as K;
        let e = |k| symgame_gdl::Error::file(k, "game.kif", "message");
        check(vec![
            ("io", e(K::Io).into(), EXIT_INPUT),
            ("syntax", e(K::Syntax).into(), EXIT_INPUT),
            ("keyword arity", e(K::KeywordArity).into(), EXIT_INPUT),
            (
                "keyword placement",
                e(K::KeywordPlacement).into(),
                EXIT_INPUT,
            ),
            ("arity", e(K::ArityMismatch).into(), EXIT_INPUT),
            ("unsafe", e(K::UnsafeRule).into(), EXIT_INPUT),
            (
                "stratification",
                e(K::UnstratifiedNegation).into(),
                EXIT_INPUT,
            ),
            ("recursion", e(K::RecursionRestriction).into(), EXIT_INPUT),
            ("does", e(K::DependsOnDoes).into(), EXIT_INPUT),
            ("goal value", e(K::BadGoalValue).into(), EXIT_INPUT),
            ("cost", e(K::BadCost).into(), EXIT_INPUT),
            ("role", e(K::BadRole).into(), EXIT_INPUT),
            ("game", e(K::BadGame).into(), EXIT_INPUT),
            ("grounding limit", e(K::ResourceLimit).into(), EXIT_LIMIT),
            ("reading time limit", e(K::TimeLimit).into(), EXIT_LIMIT),
        ]);
    }

    #[test]
    fn bdd_engine_errors() {
        let too_many = BddError::TooManyVariables {
            backend: Backend::Biodivine,
            requested: 70_000,
            max: 65_535,
        };
        check(vec![
            ("out of nodes", oom().into(), EXIT_LIMIT),
            ("too many variables", too_many.into(), EXIT_LIMIT),
            (
                "invalid nodes",
                BddError::InvalidNodes("bad".into()).into(),
                EXIT_INPUT,
            ),
        ]);
    }

    #[test]
    fn every_stop_reason_is_a_limit() {
        for why in [
            StopReason::NodeLimit,
            StopReason::StateLimit,
            StopReason::TimeLimit,
            StopReason::MemoryLimit,
            StopReason::OutOfMemory,
            StopReason::Cancelled,
        ] {
            check(vec![("stop", why.into(), EXIT_LIMIT)]);
        }
    }

    #[test]
    fn symbolic_solve_and_plan_errors() {
        let sym = |e: SymbolicError| -> Vec<(&str, Failure, u8)> {
            let code = Failure::from(e.clone()).exit_code();
            vec![
                (
                    "symbolic in solve",
                    SolveError::Symbolic(e.clone()).into(),
                    code,
                ),
                ("symbolic in plan", PlanError::Symbolic(e).into(), code),
            ]
        };
        check(vec![
            (
                "engine out of nodes",
                SymbolicError::Bdd(oom()).into(),
                EXIT_LIMIT,
            ),
            (
                "stopped",
                SymbolicError::Stopped(StopReason::TimeLimit).into(),
                EXIT_LIMIT,
            ),
            (
                "joint moves",
                SymbolicError::TooManyJointMoves { limit: 10 }.into(),
                EXIT_LIMIT,
            ),
            (
                "unknown role",
                SymbolicError::UnknownRole("x".into()).into(),
                EXIT_INPUT,
            ),
            ("init", SymbolicError::InitBreaksGroup.into(), EXIT_INTERNAL),
            (
                "simultaneous",
                SolveError::Simultaneous { state: vec![] }.into(),
                EXIT_INPUT,
            ),
            (
                "stage game",
                SolveError::StageGame("the LP failed".into()).into(),
                EXIT_INTERNAL,
            ),
            (
                "no legal move",
                SolveError::NoLegalMove { state: vec![] }.into(),
                EXIT_INPUT,
            ),
            (
                "assumed group broken",
                SolveError::AssumedGroupBroken { witness: None }.into(),
                EXIT_INTERNAL,
            ),
            (
                "slice job",
                SolveError::Slice {
                    depth: 3,
                    message: "killed".into(),
                }
                .into(),
                EXIT_INTERNAL,
            ),
            (
                "solution file",
                SolveError::Io(file_error()).into(),
                EXIT_INPUT,
            ),
            ("file", file_error().into(), EXIT_INPUT),
            (
                "pattern",
                PlanError::BadPattern("x".into()).into(),
                EXIT_INPUT,
            ),
            (
                "not single-player",
                PlanError::NotSinglePlayer { roles: vec![] }.into(),
                EXIT_INPUT,
            ),
        ]);
        for e in [
            SymbolicError::Bdd(oom()),
            SymbolicError::Stopped(StopReason::Cancelled),
            SymbolicError::UnknownRole("x".into()),
            SymbolicError::InitBreaksGroup,
        ] {
            check(sym(e));
        }
    }

    #[test]
    fn database_errors() {
        use symgame_db::ErrorKind as K;
        let db = |k: K| Failure::new(k.kind(), "db");
        let game = |k: symgame_gamedb::ErrorKind| Failure::new(k.kind(), "gamedb");
        let mut cases = vec![
            ("db io", db(K::Io), EXIT_INPUT),
            ("foreign", db(K::Foreign), EXIT_INPUT),
            ("truncated", db(K::Truncated), EXIT_INPUT),
            (
                "checksum",
                db(K::ChecksumMismatch {
                    section: "header".into(),
                }),
                EXIT_INPUT,
            ),
            (
                "version",
                db(K::VersionMismatch {
                    found: 9,
                    supported: 1,
                }),
                EXIT_INPUT,
            ),
            ("fingerprint", db(K::FingerprintMismatch), EXIT_INPUT),
            (
                "malformed nodes",
                db(K::MalformedNodes { section: None }),
                EXIT_INPUT,
            ),
            ("malformed", db(K::Malformed), EXIT_INPUT),
            ("too large", db(K::TooLarge), EXIT_LIMIT),
            ("invalid input", db(K::InvalidInput), EXIT_INTERNAL),
        ];
        use symgame_gamedb::ErrorKind as G;
        cases.extend([
            ("database", game(G::Database(K::Truncated)), EXIT_INPUT),
            (
                "database bug",
                game(G::Database(K::InvalidInput)),
                EXIT_INTERNAL,
            ),
            ("game fingerprint", game(G::FingerprintMismatch), EXIT_INPUT),
            ("metadata", game(G::Metadata), EXIT_INPUT),
            ("solution", game(G::Solution), EXIT_INPUT),
            ("solve", game(G::Solve), EXIT_INPUT),
            ("bdd", game(G::Bdd), EXIT_LIMIT),
            ("set-up stopped", game(G::SetupStopped), EXIT_LIMIT),
            ("io", game(G::Io), EXIT_INPUT),
            ("fluent", game(G::UnknownFluent), EXIT_INPUT),
            ("move", game(G::IllegalMove), EXIT_INPUT),
            ("not in database", game(G::NotInDatabase), EXIT_INPUT),
            ("rank", game(G::RankOutOfRange), EXIT_INPUT),
            ("layer", game(G::NoSuchLayer), EXIT_INPUT),
        ]);
        check(cases);
        // A real one: a file that is not a database.
        let cargo = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
        let Err(e) = symgame_db::Database::open(std::path::Path::new(cargo), None) else {
            panic!("Cargo.toml opened as a database");
        };
        assert_eq!(e.kind(), &K::Foreign);
        check(vec![("foreign file", e.into(), EXIT_INPUT)]);
    }

    #[test]
    fn explicit_and_verify_errors() {
        use symgame_prove::Unsupported;
        use symgame_verify::Error as V;
        check(vec![
            (
                "explicit roles",
                Unsupported::Roles { count: 3 }.into(),
                EXIT_INPUT,
            ),
            (
                "algo",
                "nope".parse::<symgame_prove::Algo>().unwrap_err().into(),
                EXIT_INPUT,
            ),
            (
                "verify compile stopped",
                V::Symbolic(SymbolicError::Stopped(StopReason::TimeLimit)).into(),
                EXIT_LIMIT,
            ),
            (
                "verify solve",
                V::Solve(SolveError::NoLegalMove { state: vec![] }).into(),
                EXIT_INPUT,
            ),
            (
                "verify stage game LP",
                V::Matrix(symgame_prove::MatrixError::Shape).into(),
                EXIT_INTERNAL,
            ),
            (
                "verify engine out of nodes",
                V::Bdd(oom()).into(),
                EXIT_LIMIT,
            ),
            (
                "verify solution",
                V::Solution {
                    path: "dir".into(),
                    message: "made for another game".into(),
                }
                .into(),
                EXIT_INPUT,
            ),
            (
                "verify explicit",
                V::Explicit(Unsupported::NoLegalMoves { role: 0 }).into(),
                EXIT_INPUT,
            ),
            (
                "verify stopped",
                V::Stopped(StopReason::Cancelled).into(),
                EXIT_LIMIT,
            ),
            (
                "verify no value",
                V::NoValue { state: vec![] }.into(),
                EXIT_INTERNAL,
            ),
        ]);
    }

    #[test]
    fn io_json_and_context() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "gone");
        let json = serde_json::from_str::<u8>("x").unwrap_err();
        check(vec![
            ("io", io.into(), EXIT_INPUT),
            ("json", json.into(), EXIT_INTERNAL),
        ]);
        let f: Result<(), BddError> = Err(oom());
        let f = f.about("game.kif").unwrap_err();
        assert_eq!(f.kind, Kind::Limit);
        assert!(f
            .message
            .starts_with("game.kif: oxidd BDD engine ran out of nodes"));
        assert!(f.to_string().starts_with("stopped: game.kif: "));
    }

    #[test]
    fn exit_codes_are_the_documented_ones() {
        assert_eq!(
            [
                EXIT_OK,
                Kind::Internal.exit_code(),
                Kind::Input.exit_code(),
                Kind::Limit.exit_code(),
                Kind::Disagreement.exit_code()
            ],
            [0, 1, 2, 3, 4]
        );
    }
}
