//! Optimal plans: symbolic BFS, bidirectional BFS, Dijkstra with action costs, and BDDA* with
//! symbolic pattern databases.
//!
//! A planning problem is the initial state, a goal set (terminal states where the planning role
//! gets a given reward) and the partitioned transition relation of a [`SymbolicGame`], with a
//! cost per joint move ([`Costs`]: the sum of the roles' move costs, 1 per move unless the game
//! has a `cost` relation). In a single-player game a joint move is one move; with several roles
//! the plan chooses every role's move (all roles cooperate).
//!
//! * [`Algorithm::Bfs`] and [`Algorithm::Bidir`] are [`reach_until`] and
//!   [`shortest_path_within`]: plans with the fewest moves (optimal only for unit costs).
//! * [`Algorithm::Dijkstra`]: buckets `open[g]` by path cost; `open[g] AND NOT closed` is
//!   expanded by the image of each cost class, its successors go to `open[g + c]`.
//! * [`Algorithm::Astar`] (BDDA*): buckets `open[g][h]` with the heuristic given as a partition
//!   `H_0, H_1, ...` of the states ([`Heuristic`]), expanded by `f = g + h` ascending, then `g`
//!   ascending; successors are split by `H_h`. States in no `H_h` cannot reach the goal and are
//!   pruned. The heuristic is the maximum of [`PatternDatabase`]s.
//!
//! A pattern database keeps a set of fluent groups ([`Encoding::groups`]) and quantifies the
//! other groups' variables out of the initial state, the goal and every partition's relation;
//! every concrete transition is then an abstract one, so abstract goal distances (a backward
//! Dijkstra in the abstraction, restricted to the abstract states reachable from the abstract
//! initial state) are admissible and consistent. [`select_pattern`] chooses a pattern
//! automatically (see there).
//!
//! Modules: [`problem`] (what to plan), [`outcome`] (what a run returns), [`breadth_first`]
//! (BFS and bidirectional BFS), [`best_first`] (Dijkstra and BDDA*), [`heuristic`],
//! [`pdb`] (pattern databases), [`select`] (the automatic pattern) and [`spec`] (patterns as
//! users write them). This module holds the entry points, [`plan`] and [`plan_with_backend`].

pub(crate) mod best_first;
pub(crate) mod breadth_first;
pub(crate) mod heuristic;
pub(crate) mod outcome;
pub(crate) mod pdb;
pub(crate) mod problem;
pub(crate) mod select;
pub(crate) mod spec;

use std::time::Instant;

use symgame_bdd::{Backend, BddEngine, EngineConfig};
use symgame_ground::GroundGame;
use symgame_limits::{Guard, Limits};

use crate::backend::{GameJob, Setup};
use crate::error::SymbolicError;
use crate::game::{goal_states, SymbolicGame};
use crate::options::SymbolicOptions;
use crate::plan::best_first::best_first;
use crate::plan::breadth_first::{plan_bfs, plan_bidir};
use crate::plan::heuristic::{build_heuristic, Heuristic};
use crate::plan::outcome::{PlanOutcome, PlanStats};
use crate::plan::problem::{remaining, Algorithm, Costs, PlanError, PlanOptions};

/// Plans on the symbolic game `g` from its initial state to `goal` (a state set, usually
/// [`goal_states`]). `heuristic` is used by [`Algorithm::Astar`] (`None`: h = 0). `progress` is
/// called after each expanded layer (not by the bidirectional search).
pub fn plan<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    costs: &Costs,
    goal: &E::Bdd,
    algorithm: Algorithm,
    heuristic: Option<&Heuristic<E>>,
    limits: &Limits,
    progress: impl FnMut(&PlanStats),
) -> Result<PlanOutcome, PlanError> {
    let started = Instant::now();
    let mut out = match algorithm {
        Algorithm::Bfs => plan_bfs(g, costs, goal, limits, progress)?,
        Algorithm::Bidir => plan_bidir(g, costs, goal, limits)?,
        Algorithm::Dijkstra | Algorithm::Astar => {
            let guard = Guard::since(limits, started);
            let h = if algorithm == Algorithm::Astar {
                heuristic
            } else {
                None
            };
            best_first(g, costs, goal, h, &guard, algorithm, progress)?
        }
    };
    out.stats.seconds = started.elapsed().as_secs_f64();
    Ok(out)
}

/// Plans on `game` with the engine `backend`: compiles the game, builds the goal set and (for
/// A*) the heuristic, and runs the search. `progress` is called after each expanded layer.
pub fn plan_with_backend(
    game: &GroundGame,
    backend: Backend,
    config: &EngineConfig,
    opts: &SymbolicOptions,
    plan: &PlanOptions,
    limits: &Limits,
    progress: impl FnMut(&PlanStats) + Send,
) -> Result<PlanOutcome, PlanError> {
    let role = match plan.role {
        None if game.roles.len() == 1 => 0,
        Some(r) if r < game.roles.len() => r,
        Some(r) => {
            return Err(PlanError::Symbolic(SymbolicError::UnknownRole(format!(
                "#{r} (the game has {} roles)",
                game.roles.len()
            ))))
        }
        None => {
            return Err(PlanError::NotSinglePlayer {
                roles: game.roles.iter().map(|r| r.name.to_string()).collect(),
            })
        }
    };
    let opts = SymbolicOptions {
        goals: true,
        ..opts.clone()
    };
    let job = PlanJob {
        game,
        plan,
        role,
        limits,
        progress,
    };
    Setup::new(game, backend, config, &opts).run(job)
}

/// The goal set, the heuristic (for A*) and the search, as a job for [`Setup::run`].
struct PlanJob<'a, F> {
    game: &'a GroundGame,
    plan: &'a PlanOptions,
    role: usize,
    limits: &'a Limits,
    progress: F,
}

impl<F: FnMut(&PlanStats)> GameJob<PlanOutcome, PlanError> for PlanJob<'_, F> {
    fn run<E: BddEngine>(self, g: &SymbolicGame<'_, E>) -> Result<PlanOutcome, PlanError> {
        let costs = Costs::of(self.game);
        let goal = goal_states(g, self.role, self.plan.goal)?;
        let started = Instant::now();
        let mut heuristic = None;
        let mut hstats = None;
        if self.plan.algorithm == Algorithm::Astar {
            match build_heuristic(
                self.game,
                g,
                &costs,
                &goal,
                &self.plan.patterns,
                self.limits,
            )? {
                Ok((h, s)) => {
                    heuristic = Some(h);
                    hstats = Some(s);
                }
                Err(why) => {
                    let mut stats = PlanStats::new(Algorithm::Astar);
                    stats.stopped = Some(why);
                    stats.seconds = started.elapsed().as_secs_f64();
                    return Ok(PlanOutcome { plan: None, stats });
                }
            }
        }
        // The search gets what is left of the time limit.
        let limits = remaining(self.limits, started);
        let mut out = plan(
            g,
            &costs,
            &goal,
            self.plan.algorithm,
            heuristic.as_ref(),
            &limits,
            self.progress,
        )?;
        out.stats.heuristic = hstats;
        Ok(out)
    }
}
