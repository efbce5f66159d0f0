//! The symbolic side: the value classes (solved now or read from a solution directory), the
//! states to check, and the value each role should get in each of them.

use crate::enumerate::{fluent_names, reachable_states};
use crate::{Error, Mode, VerifyOptions};
use num_bigint::BigUint;
use std::path::Path;
use std::time::Instant;
use symgame_bdd::{BddEngine, BddError, EngineJob};
use symgame_explicit::Reasoner;
use symgame_ground::GroundGame;
use symgame_limits::{Guard, Limits};
use symgame_symbolic::{
    fingerprint, security_values, solution_encoding, solve_with, Encoding, ExplicitPrefix,
    ExplicitRun, GameKind, NashStats, SolveError, SolveOptions, SymbolicGame, SymbolicOptions,
    PREFER_GRAPH_COMPILE,
};

/// What the symbolic side says about the states to check.
pub(crate) struct SymbolicSide {
    /// The kind of game.
    pub kind: GameKind,
    /// The states of the solution.
    pub reachable: BigUint,
    /// Per state to check (its true fluents): the value the explicit side should find, per role.
    pub expected: Vec<(Vec<usize>, Vec<u8>)>,
    /// [`GameKind::MixedValues`]: role 0's mixed value per state of `expected` (else empty).
    pub mixed: Vec<Option<f64>>,
    /// Every reachable state, or a sample.
    pub mode: Mode,
    /// In [`Mode::All`]: the number of states the explicit enumeration reached.
    pub explicit_states: Option<u64>,
    /// The symbolic report of the one-shot stage games' pure equilibria, if the solution has
    /// one.
    pub nash: Option<NashStats>,
    /// Seconds spent.
    pub seconds: f64,
}

/// A value class: the rewards of every role, and the states.
type Class<E> = (Vec<u8>, <E as BddEngine>::Bdd);

/// A solution's kind, its value classes, and for mixed values role 0's value per class.
type Classes<E> = (GameKind, Vec<Class<E>>, Vec<(f64, <E as BddEngine>::Bdd)>);

/// One role's values: each value with the states where the role gets it.
type RoleValues<E> = Vec<(u8, <E as BddEngine>::Bdd)>;

/// Runs the symbolic side on the engine of `opts.backend`.
pub(crate) fn symbolic_side(
    game: &GroundGame,
    reasoner: &Reasoner,
    opts: &VerifyOptions,
    guard: &Guard<'_>,
) -> Result<SymbolicSide, Error> {
    let side = |enc: Encoding, explicit: Option<ExplicitRun>| {
        let job = Job {
            game,
            // A clone of its own (the reasoner's scratch space is per clone): the job runs
            // on the engine's worker thread.
            reasoner: reasoner.clone(),
            opts,
            guard,
            enc: enc.clone(),
            explicit,
        };
        opts.backend.run(enc.num_vars(), &opts.engine, job)?
    };
    // A solution's BDDs are over the encoding its manifest records (older manifests: the one
    // the options give).
    if let Some(dir) = &opts.solution {
        return match solution_encoding(dir, game) {
            Some(enc) => side(enc, None),
            None => side(Encoding::with_options(game, &opts.symbolic), None),
        };
    }
    // Solving here, as `solve` does: the first layers state by state (their states also drop
    // the mutex candidates they break), and where the mutex proof gives up, the groups
    // playouts did not break are assumed and checked on every reachable state; if one breaks,
    // again with proven groups only.
    let prefix = || ExplicitPrefix::new(game, PREFIX_STATES, PREFIX_SECONDS).run(&opts.limits);
    let run = prefix();
    let (known, all) = run.known();
    let assuming = SymbolicOptions {
        assume_groups: true,
        known_states: Some(known),
        known_states_all: all,
        ..opts.symbolic.clone()
    };
    let enc = Encoding::with_options(game, &assuming);
    if enc.assumed() {
        match side(enc, Some(run)) {
            Err(Error::Solve(SolveError::AssumedGroupBroken { .. })) => {}
            r => return r,
        }
    } else {
        return side(enc, Some(run));
    }
    side(Encoding::with_options(game, &opts.symbolic), Some(prefix()))
}

/// The explicit prefix of verify's own solve: as `solve`'s defaults (`--explicit-states`,
/// `--explicit-seconds`).
const PREFIX_STATES: usize = 50_000;
const PREFIX_SECONDS: f64 = 3.0;

struct Job<'a> {
    game: &'a GroundGame,
    reasoner: Reasoner,
    opts: &'a VerifyOptions,
    guard: &'a Guard<'a>,
    enc: Encoding,
    /// The first layers expanded explicitly, for the solver's forward search to replay.
    explicit: Option<ExplicitRun>,
}

impl EngineJob<Result<SymbolicSide, Error>> for Job<'_> {
    fn run<E: BddEngine>(self, e: E) -> Result<SymbolicSide, Error> {
        let started = Instant::now();
        let (game, opts) = (self.game, self.opts);
        let print = fingerprint(game, &self.enc);
        // As in `solve`: where the prefix expanded the whole game, its graph is soon preferred.
        let complete = self.explicit.as_ref().is_some_and(ExplicitRun::complete);
        let sym = SymbolicOptions {
            prefer_graph: complete.then_some(PREFER_GRAPH_COMPILE),
            ..opts.symbolic.clone()
        };
        let g = SymbolicGame::new(&e, game, self.enc, &sym)?;
        // The symbolic solve and the security values get the time left.
        let limits = Limits {
            time_limit: self.guard.time_left(),
            time_from: Some(Instant::now()),
            ..opts.limits.clone()
        };
        let ((kind, classes, mixed_classes), nash) = match &opts.solution {
            Some(dir) => read_solution(&e, dir, &print, g.encoding().num_vars())?,
            None => solve_now(&g, game, &limits, self.explicit)?,
        };
        let mut reached = e.constant(false);
        for (_, s) in &classes {
            reached = e.or(&reached, s)?;
        }
        let reachable = g.count(&reached);
        let per_role = values_per_role(&g, kind, &classes, &reached, &limits)?;
        let (mode, states, explicit_states) = if reachable <= BigUint::from(opts.states.all_limit) {
            let all = reachable_states(&self.reasoner);
            let n = all.len() as u64;
            (Mode::All, all, Some(n))
        } else {
            (
                Mode::Sample,
                sample(&e, &g, &reached, &reachable, opts)?,
                None,
            )
        };
        let expected: Vec<(Vec<usize>, Vec<u8>)> = states
            .into_iter()
            .map(|fl| {
                let values = values_of(&e, &g, game, &per_role, &fl)?;
                Ok((fl, values))
            })
            .collect::<Result<_, Error>>()?;
        let mut mixed = Vec::new();
        if !mixed_classes.is_empty() {
            for (fl, _) in &expected {
                let s = g.state(fl)?;
                let mut value = None;
                for (v, c) in &mixed_classes {
                    if !e.is_false(&e.and(c, &s)?) {
                        value = Some(*v);
                        break;
                    }
                }
                mixed.push(value);
            }
        }
        Ok(SymbolicSide {
            kind,
            reachable,
            expected,
            mixed,
            mode,
            explicit_states,
            nash,
            seconds: started.elapsed().as_secs_f64(),
        })
    }
}

/// The value classes of a solution directory made for this game (`print`) and complete, read
/// and checked by the one solution reader ([`symgame_symbolic::read_solution`]).
fn read_solution<E: BddEngine>(
    e: &E,
    dir: &Path,
    print: &str,
    num_vars: u32,
) -> Result<(Classes<E>, Option<NashStats>), Error> {
    let solution = symgame_symbolic::read_solution(dir, print, num_vars)?;
    let outcomes = &solution.manifest.stats.outcomes;
    let mixed_values = &solution.manifest.stats.mixed;
    let mut classes = Vec::new();
    let mut mixed = Vec::new();
    for (i, (_, file)) in solution.files().iter().enumerate() {
        let path = dir.join(file);
        for c in solution.read_layer(i)?.classes {
            let states = e.import(&c.nodes).map_err(|x| match x {
                BddError::InvalidNodes(_) => Error::Solution {
                    path: path.clone(),
                    message: x.to_string(),
                },
                x => Error::Bdd(x),
            })?;
            if let Some(&v) = mixed_values.get(c.outcome as usize).and_then(|m| m.first()) {
                mixed.push((v, states.clone()));
            }
            classes.push((outcomes[c.outcome as usize].clone(), states));
        }
    }
    let nash = solution.manifest.stats.nash.clone();
    Ok(((solution.manifest.stats.kind, classes, mixed), nash))
}

/// The value classes of a fresh solve.
fn solve_now<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    game: &GroundGame,
    limits: &Limits,
    explicit: Option<ExplicitRun>,
) -> Result<(Classes<E>, Option<NashStats>), Error> {
    let opts = SolveOptions {
        keep_classes: true,
        limits: limits.clone(),
        ground: Some(std::sync::Arc::new(game.clone())),
        ..Default::default()
    };
    let s = solve_with(g, &opts, explicit, |_| {})?;
    if let Some(why) = s.stats.stopped {
        return Err(Error::Stopped(why));
    }
    let outcomes = &s.stats.outcomes;
    let mixed_values = &s.stats.mixed;
    let mut mixed = Vec::new();
    let mut classes = Vec::new();
    for c in s.layers.into_iter().flat_map(|l| l.classes) {
        if let Some(&v) = mixed_values.get(c.outcome).and_then(|m| m.first()) {
            mixed.push((v, c.states.clone()));
        }
        classes.push((outcomes[c.outcome].clone(), c.states));
    }
    Ok(((s.stats.kind, classes, mixed), s.stats.nash))
}

/// Per role: (value, states) for the explicit question "what can the role force": the solved
/// outcome, or in general-sum games the security values.
fn values_per_role<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    kind: GameKind,
    classes: &[Class<E>],
    reached: &E::Bdd,
    limits: &Limits,
) -> Result<Vec<RoleValues<E>>, Error> {
    let roles = g.role_names().len();
    if kind == GameKind::GeneralSum {
        return (0..roles)
            .map(|r| Ok(security_values(g, reached, r, limits)?))
            .collect();
    }
    Ok((0..roles)
        .map(|r| classes.iter().map(|(o, s)| (o[r], s.clone())).collect())
        .collect())
}

/// A seeded uniform sample of the reachable set: random ranks of its perfect hash, unranked.
fn sample<E: BddEngine>(
    e: &E,
    g: &SymbolicGame<'_, E>,
    reached: &E::Bdd,
    reachable: &BigUint,
    opts: &VerifyOptions,
) -> Result<Vec<Vec<usize>>, Error> {
    let vars = g.encoding().current_vars();
    let hash = symgame_db::AnyPerfectHash::new(&e.export(reached), vars).map_err(Error::Sample)?;
    let mut out = Vec::with_capacity(opts.states.size);
    for rank in crate::sample::ranks(reachable, opts.states.size, opts.states.seed) {
        let bits = hash
            .unrank(&rank)
            .expect("a rank below the set's size unranks");
        let cube: Vec<(u32, bool)> = vars.iter().map(|v| (v, bits[v as usize])).collect();
        let one = e.cube(&cube)?;
        out.push(g.pick_state(&one).expect("an unranked state is a state"));
    }
    Ok(out)
}

/// The value of each role in the state with true fluents `fluents`.
fn values_of<E: BddEngine>(
    e: &E,
    g: &SymbolicGame<'_, E>,
    game: &GroundGame,
    per_role: &[RoleValues<E>],
    fluents: &[usize],
) -> Result<Vec<u8>, Error> {
    let s = g.state(fluents)?;
    let mut values = Vec::with_capacity(per_role.len());
    for classes in per_role {
        let mut value = None;
        for (v, c) in classes {
            if !e.is_false(&e.and(c, &s)?) {
                value = Some(*v);
                break;
            }
        }
        let value = value.ok_or_else(|| Error::NoValue {
            state: fluent_names(game, fluents),
        })?;
        values.push(value);
    }
    Ok(values)
}
