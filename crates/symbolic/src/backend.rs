//! Running a search on the BDD engine a [`Backend`] names: the one place that creates the
//! engine, compiles the game in it ([`SymbolicGame::new`]) and hands the compiled game to the
//! search ([`GameJob`]). The `*_with_backend` entry points of the searches go through it.

use symgame_bdd::{Backend, BddEngine, EngineConfig, EngineJob};
use symgame_ground::GroundGame;

use crate::encoding::Encoding;
use crate::error::SymbolicError;
use crate::game::SymbolicGame;
use crate::options::SymbolicOptions;

/// A search to run on a compiled game, on whichever engine the backend creates.
pub(crate) trait GameJob {
    /// What the search returns.
    type Output;
    /// Its error, which a failed compilation (or engine creation) converts into.
    type Error: From<SymbolicError>;

    /// Runs the search on `g`.
    fn run<E: BddEngine>(self, g: &SymbolicGame<'_, E>) -> Result<Self::Output, Self::Error>;
}

/// The engine job: compile `game` with `encoding`, then run `job` on it.
struct Compiled<'a, J> {
    game: &'a GroundGame,
    encoding: Encoding,
    opts: &'a SymbolicOptions,
    job: J,
}

impl<J: GameJob> EngineJob<Result<J::Output, J::Error>> for Compiled<'_, J> {
    fn run<E: BddEngine>(self, engine: E) -> Result<J::Output, J::Error> {
        let g = SymbolicGame::new(&engine, self.game, self.encoding, self.opts)?;
        self.job.run(&g)
    }
}

/// Creates an engine of `backend` with the encoding's variables, compiles `game` in it and
/// runs `job`.
pub(crate) fn run_compiled<J: GameJob>(
    game: &GroundGame,
    encoding: Encoding,
    backend: Backend,
    config: &EngineConfig,
    opts: &SymbolicOptions,
    job: J,
) -> Result<J::Output, J::Error> {
    let n = encoding.num_vars();
    let job = Compiled {
        game,
        encoding,
        opts,
        job,
    };
    backend.run(n, config, job).map_err(SymbolicError::from)?
}
