//! Running a search on the BDD engine a [`Backend`] names: the one place that creates the
//! engine, compiles the game in it ([`SymbolicGame::new`]) and hands the compiled game to the
//! search ([`GameJob`]). Every search that picks its engine at run time goes through
//! [`Setup::run`].

use symgame_bdd::{Backend, BddEngine, EngineConfig, EngineJob};
use symgame_ground::GroundGame;

use crate::encoding::Encoding;
use crate::error::SymbolicError;
use crate::game::SymbolicGame;
use crate::options::SymbolicOptions;
use crate::prefix::ExplicitRun;

/// A search to run on a compiled game, on whichever engine the backend creates, returning `T`
/// or the error `Er` (which a failed compilation or engine creation converts into): e.g.
/// [`ReachJob`](crate::ReachJob) or [`SolveJob`](crate::SolveJob).
pub trait GameJob<T, Er> {
    /// Runs the search on `g`.
    fn run<E: BddEngine>(self, g: &SymbolicGame<'_, E>) -> Result<T, Er>;
}

/// A layer-by-layer search as a [`GameJob`]: [`ReachJob`](crate::ReachJob) (`S` is the
/// [`Limits`](symgame_limits::Limits)) or [`SolveJob`](crate::SolveJob) (`S` is the
/// [`SolveOptions`](crate::SolveOptions)).
pub struct LayerJob<'a, S, F> {
    /// What the search takes: its limits, or what to solve and keep with the limits.
    pub settings: &'a S,
    /// The first layers, expanded explicitly ([`ExplicitPrefix::run`](crate::ExplicitPrefix::run))
    /// before the set-up, replayed by the forward search (`None`: every layer symbolically).
    /// The results are the same either way.
    pub explicit: Option<ExplicitRun>,
    /// Called after each layer (searched or solved).
    pub progress: F,
}

/// The set-up of a search on an engine chosen at run time: the game, its encoding, the BDD
/// engine and how the game is compiled.
pub struct Setup<'a> {
    /// The ground game.
    pub game: &'a GroundGame,
    /// Its encoding (the caller may need it too, e.g. for the fingerprint of solution files).
    pub encoding: Encoding,
    /// The BDD engine.
    pub backend: Backend,
    /// The engine's parameters.
    pub config: &'a EngineConfig,
    /// How the game is compiled.
    pub opts: &'a SymbolicOptions,
}

impl<'a> Setup<'a> {
    /// The set-up with the encoding `opts` asks for ([`Encoding::with_options`]).
    pub fn new(
        game: &'a GroundGame,
        backend: Backend,
        config: &'a EngineConfig,
        opts: &'a SymbolicOptions,
    ) -> Setup<'a> {
        Setup {
            game,
            encoding: Encoding::with_options(game, opts),
            backend,
            config,
            opts,
        }
    }

    /// Creates an engine of the backend with the encoding's variables (and after them the
    /// move variables, with [`SymbolicOptions::move_vars`]), compiles the game in it and runs
    /// `job`.
    pub fn run<T: Send, Er: From<SymbolicError> + Send>(
        self,
        job: impl GameJob<T, Er> + Send,
    ) -> Result<T, Er> {
        let mut n = self.encoding.num_vars();
        if self.opts.move_vars && self.opts.layerwise_fallback {
            n += crate::move_vars::MoveVars::count(self.game);
        }
        let (backend, config) = (self.backend, self.config);
        let job = Compiled { setup: self, job };
        backend.run(n, config, job).map_err(SymbolicError::from)?
    }
}

/// The engine job: compile the game, then run `job` on it.
struct Compiled<'a, J> {
    setup: Setup<'a>,
    job: J,
}

impl<T, Er, J: GameJob<T, Er>> EngineJob<Result<T, Er>> for Compiled<'_, J>
where
    Er: From<SymbolicError>,
{
    fn run<E: BddEngine>(self, engine: E) -> Result<T, Er> {
        let Setup {
            game,
            encoding,
            opts,
            ..
        } = self.setup;
        // The compilation's operations stop from inside at the set-up's deadline (the run's):
        // one relation could run far past it (snakeParallel's ran until the watchdog).
        let armed = (opts.setup_deadline)
            .map(|at| symgame_bdd::arm_stop(&engine, symgame_limits::deadline_check(at)));
        let g = SymbolicGame::new(&engine, game, encoding, opts);
        drop(armed);
        self.job.run(&g?)
    }
}
