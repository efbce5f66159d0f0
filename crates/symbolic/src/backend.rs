//! Running a search on the BDD engine a [`Backend`] names: the one place that creates the
//! engine, compiles the game in it ([`SymbolicGame::new`]) and hands the compiled game to the
//! search ([`GameJob`]). The `*_with_backend` entry points of the searches go through it.

use symgame_bdd::{Backend, BddEngine, EngineConfig, EngineJob};
use symgame_ground::GroundGame;

use crate::encoding::Encoding;
use crate::error::SymbolicError;
use crate::game::SymbolicGame;
use crate::options::SymbolicOptions;

/// A search to run on a compiled game, on whichever engine the backend creates, returning `T`
/// or the error `Er` (which a failed compilation or engine creation converts into).
pub(crate) trait GameJob<T, Er> {
    /// Runs the search on `g`.
    fn run<E: BddEngine>(self, g: &SymbolicGame<'_, E>) -> Result<T, Er>;
}

/// The job of a search that takes its parameters and a progress callback (reachability,
/// solving): each search implements [`GameJob`] for its own parameter type `P`.
pub(crate) struct WithProgress<'a, P, F> {
    /// The search's parameters.
    pub(crate) params: &'a P,
    /// Called as the search goes on.
    pub(crate) progress: F,
}

/// The engine job: compile `game` with `encoding`, then run `job` on it.
struct Compiled<'a, J> {
    game: &'a GroundGame,
    encoding: Encoding,
    opts: &'a SymbolicOptions,
    job: J,
}

impl<T, Er, J: GameJob<T, Er>> EngineJob<Result<T, Er>> for Compiled<'_, J>
where
    Er: From<SymbolicError>,
{
    fn run<E: BddEngine>(self, engine: E) -> Result<T, Er> {
        let g = SymbolicGame::new(&engine, self.game, self.encoding, self.opts)?;
        self.job.run(&g)
    }
}

/// Creates an engine of `backend` with the encoding's variables, compiles `game` in it and
/// runs `job`.
pub(crate) fn run_compiled<T, Er: From<SymbolicError>>(
    game: &GroundGame,
    encoding: Encoding,
    backend: Backend,
    config: &EngineConfig,
    opts: &SymbolicOptions,
    job: impl GameJob<T, Er>,
) -> Result<T, Er> {
    let n = encoding.num_vars();
    let job = Compiled {
        game,
        encoding,
        opts,
        job,
    };
    backend.run(n, config, job).map_err(SymbolicError::from)?
}
