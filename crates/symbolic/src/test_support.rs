//! Set-up shared by the unit tests: a fixture game with its encoding, and a small engine for
//! it.

use symgame_bdd::{BddEngine, BiodivineEngine, EngineConfig};
use symgame_ground::GroundGame;
use symgame_testkit::load_game;

use crate::encoding::Encoding;
use crate::options::{Order, SymbolicOptions};

/// The fixture game `name` of `gdl/` and its encoding in the heuristic order.
pub(crate) fn encoded(name: &str) -> (GroundGame, Encoding) {
    let game = load_game(name);
    let enc = Encoding::new(&game, Order::Heuristic);
    (game, enc)
}

/// A biodivine engine of the small configuration with the variables of `enc`.
pub(crate) fn small_engine(enc: &Encoding) -> BiodivineEngine {
    BiodivineEngine::new(enc.num_vars(), &EngineConfig::small()).unwrap()
}

/// Options that compile a game within each layer: no condition over all states (a budget of 0
/// nodes), so every compilation falls back to the layer at hand.
pub(crate) fn forced_layerwise() -> SymbolicOptions {
    SymbolicOptions {
        layerwise_fallback: true,
        max_condition_nodes: 0,
        ..Default::default()
    }
}
