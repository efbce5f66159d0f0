//! What a position is worth and what each move leads to: the engine's answers, whether they
//! come from a table or a search.

use symgame_explicit::{MoveId, State};
use symgame_gamedb::Strategies;

/// What the engine knows of a position's value.
#[derive(Clone, Debug, PartialEq)]
pub struct Assessment {
    /// Every role's reward, in role order.
    pub rewards: Vec<u8>,
    /// Moves to the end under perfect play (the winner hurrying, the loser holding out), when
    /// known.
    pub depth: Option<u32>,
    /// A table of values in mixed strategies (simultaneous moves): every role's value (the
    /// rewards are then the pure security levels).
    pub mixed: Option<Vec<f64>>,
}

impl Assessment {
    /// How `role` fares, in words: "wins in 7", "draw", "loses in 5" (two or more roles), or
    /// "reward 100 in 3" (one role).
    pub fn describe(&self, role: usize) -> String {
        if let Some(m) = &self.mixed {
            let all: Vec<String> = m.iter().map(|x| format!("{x:.2}")).collect();
            return format!(
                "{:.2} in mixed strategies ({})",
                m.get(role).copied().unwrap_or(0.0),
                all.join("/")
            );
        }
        let mine = self.rewards.get(role).copied().unwrap_or(0);
        let best_other = self.best_other(role);
        let within = |s: String| match self.depth {
            Some(d) if d > 0 => format!("{s} in {d}"),
            Some(_) => s,
            None => s,
        };
        let text = match best_other {
            None => within(format!("reward {mine}")),
            Some(o) if mine > o => within("wins".to_string()),
            Some(o) if mine < o => within("loses".to_string()),
            Some(_) if self.rewards.iter().all(|&r| r == mine) => "draw".to_string(),
            Some(_) => within("ties".to_string()),
        };
        let rewards: Vec<String> = self.rewards.iter().map(u8::to_string).collect();
        format!("{text} ({})", rewards.join("/"))
    }

    /// The largest reward of the roles other than `role` (`None` when it is the only role).
    pub(crate) fn best_other(&self, role: usize) -> Option<u8> {
        self.rewards
            .iter()
            .enumerate()
            .filter(|&(p, _)| p != role)
            .map(|(_, &r)| r)
            .max()
    }

    /// `role`'s reward less the best other role's ([`Assessment::best_other`]); its reward
    /// alone when it is the only role.
    pub(crate) fn margin(&self, role: usize) -> i32 {
        let mine = i32::from(self.rewards[role]);
        self.best_other(role).map_or(mine, |o| mine - i32::from(o))
    }
}

/// One joint move from a position.
#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    /// One move per role.
    pub joint: Vec<MoveId>,
    /// What the move leads to, when known; its length counts the move itself.
    pub value: Option<Assessment>,
    /// Whether it keeps the position's value (an optimal move).
    pub optimal: bool,
}

/// A position as the engine sees it: the position as the game defines it, then what the engine
/// knows of it and of its moves.
#[derive(Clone, Debug, PartialEq)]
pub struct Analysis {
    /// The state.
    pub state: State,
    /// Whether the game is over.
    pub terminal: bool,
    /// The only role with a choice; `None` in terminal and forced states and where several
    /// roles choose at once.
    pub mover: Option<usize>,
    /// The position's value, when known.
    pub value: Option<Assessment>,
    /// Every joint move with its value (empty in a terminal state).
    pub choices: Vec<Choice>,
    /// A table of values in mixed strategies, where several roles choose: each role's optimal
    /// mixed strategy, (move, probability) over its legal moves.
    pub strategies: Option<Strategies>,
}

/// Why the engine cannot answer.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineError(pub String);

impl std::fmt::Display for EngineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for EngineError {}
