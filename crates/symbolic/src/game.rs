//! The facade of the crate: [`SymbolicGame`], a ground game compiled to BDDs over an
//! [`Encoding`] — initial state, terminal, legal and goal predicates, and the partitioned
//! transition relation — with `image`, `pre_image`, `strong_pre_image`, state counts and the
//! potential levels that let a search skip duplicate detection.

use std::sync::OnceLock;

use symgame_bdd::{BddEngine, BddError, BddResult};
use symgame_ground::GroundGame;
use symgame_limits::StopReason;

use crate::compile::{conditions_fit, valid_codes, Compiler};
use crate::disjunction::{and_not_all, cluster_parts, or_all};
use crate::encoding::Encoding;
use crate::error::SymbolicError;
use crate::formula::Formula;
use crate::joint_moves::{joint_moves, joint_moves_capped};
use crate::layer_explicit::ExplicitLayers;
use crate::layerwise::Layerwise;
use crate::options::SymbolicOptions;
use crate::partition::{self, Partition};

/// A goal value and its condition as one BDD.
pub type GoalBdd<E> = (u8, <E as BddEngine>::Bdd);

/// A ground game compiled to BDDs over an [`Encoding`], on engine `E`.
pub struct SymbolicGame<'e, E: BddEngine> {
    engine: &'e E,
    encoding: Encoding,
    role_names: Vec<String>,
    init: E::Bdd,
    init_fluents: Vec<usize>,
    terminal_parts: Vec<E::Bdd>,
    /// Whether [`Self::terminal_parts`] are compiled over all states: always in a game compiled
    /// once, and in one compiled within each layer when a phase after the conditions gave up.
    terminal_compiled: bool,
    terminal: OnceLock<E::Bdd>,
    legal: Vec<Vec<E::Bdd>>,
    goal_formulas: Vec<Vec<(u8, Formula<E>)>>,
    goals: OnceLock<Vec<Vec<GoalBdd<E>>>>,
    partitions: Vec<Partition<E>>,
    clusters: Vec<Partition<E>>,
    /// `Some` when the game is compiled within each layer (then there are no partitions,
    /// unless [`Self::terminal_within`]).
    pub(crate) layerwise: Option<Layerwise>,
    /// Whether only the terminal condition was too large to compile over all states: the
    /// relations are compiled once (`partitions`, `clusters`, with no terminal parts), and
    /// each layer's terminal states are cut by compiling the condition within it
    /// ([`Self::layerwise`] is set for that).
    terminal_within: bool,
    has_successor: OnceLock<E::Bdd>,
    potential: OnceLock<Option<Vec<E::Bdd>>>,
    /// Set when a search found an assumed group broken ([`Self::assumption_broken`]).
    broken: std::sync::atomic::AtomicBool,
    /// A state that breaks it, or one with a joint move that does ([`Self::break_witness`]).
    witness: std::sync::Mutex<Option<Vec<usize>>>,
    /// Whether the predicates and relations were built from the explicit graph of the whole
    /// game ([`SymbolicOptions::explicit_graph`]).
    from_graph: bool,
    /// The layers of a game compiled once expanded state by state where that is predicted
    /// cheaper than its images (a game compiled within each layer has its own race).
    explicit: ExplicitLayers,
}

impl<'e, E: BddEngine> SymbolicGame<'e, E> {
    /// Compiles `game` on `engine`, which must have at least `encoding.num_vars()` variables
    /// (build the encoding first, e.g. with [`Encoding::with_options`], then create the
    /// engine).
    ///
    /// Joint moves are enumerated role by role, keeping only those whose moves can be legal
    /// together in some encodable state (the conjunction of their `legal` BDDs is
    /// satisfiable; with the compact encoding the proven mutex groups rule out, e.g., two
    /// roles in control at once). In turn-taking games this is the mover's moves times the
    /// others' single `noop`. Each joint move becomes one [`Partition`]; the moves are
    /// substituted as constants into the `next` circuit, and bits whose next function is the
    /// identity for that joint move are left out of its relation (frame by omission).
    /// Limit: games with a large product of simultaneous moves get one relation per joint move
    /// (see [`SymbolicOptions::max_joint_moves`]).
    pub fn new(
        engine: &'e E,
        game: &GroundGame,
        encoding: Encoding,
        opts: &SymbolicOptions,
    ) -> Result<Self, SymbolicError> {
        Self::build(engine, game, encoding, opts).map_err(|err| match err {
            // The compiler's deadline is the set-up deadline.
            SymbolicError::Bdd(BddError::Budget(_)) if opts.setup_expired().is_err() => {
                SymbolicError::Stopped(symgame_limits::StopReason::TimeLimit)
            }
            other => other,
        })
    }

    fn build(
        engine: &'e E,
        game: &GroundGame,
        encoding: Encoding,
        opts: &SymbolicOptions,
    ) -> Result<Self, SymbolicError> {
        let e = engine;
        let enc = &encoding;
        let live = || e.stats().live_nodes;
        let init = match enc.encode(&game.init) {
            Some(lits) => e.cube(&lits)?,
            None => return Err(SymbolicError::InitBreaksGroup),
        };
        let mut g = SymbolicGame {
            engine,
            role_names: game.roles.iter().map(|r| r.name.to_string()).collect(),
            init,
            init_fluents: game.init.clone(),
            terminal_parts: Vec::new(),
            terminal_compiled: false,
            terminal: OnceLock::new(),
            legal: Vec::new(),
            goal_formulas: Vec::new(),
            goals: OnceLock::new(),
            partitions: Vec::new(),
            clusters: Vec::new(),
            layerwise: None,
            terminal_within: false,
            encoding,
            has_successor: OnceLock::new(),
            potential: OnceLock::new(),
            broken: Default::default(),
            witness: Default::default(),
            from_graph: false,
            explicit: ExplicitLayers::symbolic_first(opts.explicit_layers),
        };
        if opts.layerwise_fallback && opts.layerwise_only {
            opts.phase("layerwise");
            opts.phase_note("compiled within each layer: nothing is left to expand".to_string());
            opts.phase_done(live());
            g.layerwise = Some(Layerwise::new(game, &g.encoding, e.num_vars(), opts));
            return Ok(g);
        }
        // Where the explicit prefix expanded the whole game, its graph is small: compiling gets
        // a short while before the game is built from that graph instead.
        let first_try;
        let compiling = match opts.prefer_graph.filter(|_| opts.explicit_graph.is_some()) {
            Some(share) => {
                let soon = std::time::Instant::now() + share;
                first_try = SymbolicOptions {
                    setup_deadline: Some(opts.setup_deadline.map_or(soon, |d| d.min(soon))),
                    ..opts.clone()
                };
                &first_try
            }
            None => opts,
        };
        let capped = opts.layerwise_fallback || opts.explicit_graph.is_some();
        let err = match g.compile(game, compiling, capped) {
            Ok(()) if g.terminal_within => {
                g.layerwise = Some(Layerwise::new(game, &g.encoding, e.num_vars(), opts));
                return Ok(g);
            }
            Ok(()) => return Ok(g),
            Err(err) if capped && opts.setup_expired().is_ok() => err,
            Err(err) => return Err(err),
        };
        let why = match err {
            SymbolicError::Bdd(BddError::Budget(why)) => why,
            SymbolicError::Stopped(StopReason::TimeLimit) => {
                "past its share of the set-up time".to_string()
            }
            SymbolicError::TooManyJointMoves { limit } => format!("more than {limit} joint moves"),
            SymbolicError::Bdd(e @ BddError::OutOfMemory { .. }) => e.to_string(),
            other => return Err(other),
        };
        // Too large to compile once over all states: collect what the attempt left behind.
        e.gc();
        if opts.explicit_graph.is_some() {
            opts.phase_note(format!("gave up ({why})"));
            opts.phase_done(live());
            opts.phase("explicit_graph");
            if g.try_explicit_graph(game, opts) {
                return Ok(g);
            }
        }
        if !opts.layerwise_fallback {
            // Compiled once over all states after all, with the set-up time left.
            g.compile(game, opts, false)?;
            return Ok(g);
        }
        // Compiled within each layer.
        if opts.explicit_graph.is_none() {
            opts.phase_note(format!("gave up ({why}): compiled within each layer"));
        } else {
            opts.phase("layerwise");
            opts.phase_note("compiled within each layer".to_string());
        }
        opts.phase_done(live());
        g.layerwise = Some(Layerwise::new(game, &g.encoding, e.num_vars(), opts));
        Ok(g)
    }

    /// Whether the predicates and relations were built from the explicit graph of the whole
    /// game ([`SymbolicOptions::explicit_graph`]): exact on the reachable states, empty
    /// elsewhere.
    pub fn is_from_graph(&self) -> bool {
        self.from_graph
    }

    /// Compiles the conditions, the goals and the partitioned relation of `game` once over all
    /// states. When `capped` (with a fallback to go to), a move-independent condition over
    /// [`SymbolicOptions::max_condition_nodes`] nodes, or the compilation running past its share
    /// of the set-up time, fails with [`BddError::Budget`].
    fn compile(
        &mut self,
        game: &GroundGame,
        opts: &SymbolicOptions,
        capped: bool,
    ) -> Result<(), SymbolicError> {
        let e = self.engine;
        let enc = &self.encoding;
        let live = || e.stats().live_nodes;
        // With the fallback, compiling once gets half the set-up time left (the rest is for
        // compiling within the first layers) and a cap on the conditions' size; the
        // clustering stops merging then, and the terminal parts, once the relations are built,
        // get at least a second more.
        let full = opts;
        let capped_opts;
        let (opts, gate_nodes) = if capped {
            capped_opts = SymbolicOptions {
                setup_deadline: opts.setup_deadline.map(|d| {
                    let now = std::time::Instant::now();
                    now + d.saturating_duration_since(now) / 2
                }),
                ..opts.clone()
            };
            (&capped_opts, Some(opts.max_condition_nodes))
        } else {
            (opts, None)
        };
        opts.phase("conditions");
        // The sizes are checked on a budgeted engine first (one operation of the main engine
        // cannot be stopped), with the gates of a first joint move; both engines build the
        // same BDDs, so the main compilation of the conditions needs no check of its own.
        // Where only the terminal condition is over the cap, the rest is compiled once and
        // the terminal states are cut within each layer (`terminal_within`).
        let started = std::time::Instant::now();
        let terminal_within = match gate_nodes {
            Some(cap) => match conditions_fit(game, enc, opts.setup_deadline, cap)? {
                true => false,
                // Only a search compiled within each layer can cut the terminal states there
                // (`solve` needs them over all states: its fallback is the explicit graph).
                false if opts.layerwise_fallback => true,
                false => {
                    let why = format!("a terminal condition of more than {cap} nodes");
                    return Err(BddError::Budget(why).into());
                }
            },
            None => false,
        };
        // That way is a second try, which gets at most the time the trial took (at least a
        // second): where its joint moves or relations give up too (atariGo_7x7's relations
        // ran 3.8 s to the deadline), the game is compiled within each layer after all.
        let within_opts;
        let opts = match terminal_within {
            true => {
                let spent = started.elapsed().max(std::time::Duration::from_secs(1));
                let soon = std::time::Instant::now() + spent;
                within_opts = SymbolicOptions {
                    setup_deadline: opts.setup_deadline.map(|d| d.min(soon)),
                    ..opts.clone()
                };
                &within_opts
            }
            false => opts,
        };
        let deadline = opts.setup_deadline;
        let (mut comp, term_leaves) =
            Compiler::prepared_cones(e, game, enc, deadline, None, !terminal_within)?;
        let raw_terminal_parts = match terminal_within {
            true => Vec::new(),
            false => comp.terminal_parts(&term_leaves)?,
        };
        if !terminal_within {
            // Kept if a later phase gives up: compiled within each layer, the game cuts the
            // terminal states of a layer with them instead of compiling the condition again.
            self.terminal_parts =
                cluster_parts(e, raw_terminal_parts.clone(), opts.terminal_cluster_nodes)?;
            self.terminal_compiled = true;
        }
        let legal = comp.legal()?;
        if terminal_within {
            opts.phase_note(format!(
                "the terminal condition is over {} nodes over all states: cut within each \
                 layer, the rest compiled once",
                opts.max_condition_nodes
            ));
        }
        opts.phase_done(live());
        // Goals as formulas (see `Compiler::goal_formulas`).
        opts.phase("goals");
        let goal_formulas = if opts.goals {
            comp.goal_formulas(opts.formula_leaf_nodes)?
        } else {
            Vec::new()
        };
        opts.phase_done(live());

        // Joint moves that can be legal together.
        opts.phase("joint_moves");
        let valid = valid_codes(e, enc)?;
        opts.setup_expired().map_err(SymbolicError::Stopped)?;
        let expired = || opts.setup_expired().is_err();
        let joint = match gate_nodes {
            // With a fallback to go to: no joint move's condition over the conditions' cap.
            Some(cap) => joint_moves_capped(
                (e, enc.num_vars()),
                &legal,
                &valid,
                opts.max_joint_moves,
                (cap, opts.setup_deadline),
                &expired,
            )?,
            None => joint_moves(e, &legal, &valid, opts.max_joint_moves, &expired)?,
        };
        opts.phase_done(live());
        // One relation per joint move, then clusters with their terminal parts.
        opts.phase("relations");
        let partitions = partition::per_joint_move(e, enc, &mut comp, game, joint, opts, capped)?;
        drop(comp);
        opts.phase_done(live());
        opts.phase("clustering");
        let mut clusters =
            partition::cluster(e, enc, &partitions, opts.cluster_nodes, opts.setup_deadline)?;
        opts.phase_done(live());
        if terminal_within {
            self.legal = legal;
            self.goal_formulas = goal_formulas;
            self.partitions = partitions;
            self.clusters = clusters;
            self.terminal_within = true;
            return Ok(());
        }
        opts.phase("terminal_parts");
        // Once the relations are built, the terminal parts get at least a second more.
        let soon = std::time::Instant::now() + std::time::Duration::from_secs(1);
        let terminal_opts = SymbolicOptions {
            setup_deadline: opts
                .setup_deadline
                .map(|d| d.max(soon))
                .map(|d| full.setup_deadline.map_or(d, |f| d.min(f))),
            ..opts.clone()
        };
        partition::attach_terminal_parts(e, &mut clusters, &raw_terminal_parts, &terminal_opts)?;
        opts.phase_done(live());
        self.legal = legal;
        self.goal_formulas = goal_formulas;
        self.partitions = partitions;
        self.clusters = clusters;
        Ok(())
    }

    /// The potential of states: `levels[k]` is the set of states in which exactly `k` of the
    /// "at most one" groups hold a fluent (e.g. Connect Four cells with a disc). `None` if
    /// there is no such group or more than 200. Built on first use.
    pub fn potential_levels(&self) -> BddResult<Option<&[E::Bdd]>> {
        const MAX_GROUPS: usize = 200;
        if let Some(p) = self.potential.get() {
            return Ok(p.as_deref());
        }
        let e = self.engine;
        let enc = &self.encoding;
        let groups: Vec<usize> = (0..enc.fluent_groups().len())
            .filter(|&g| !enc.fluent_groups()[g].exactly_one)
            .collect();
        let levels = if groups.is_empty() || groups.len() > MAX_GROUPS {
            None
        } else {
            // A group holds a fluent iff one of its bits is set (code 0 = none).
            let holds = groups
                .iter()
                .map(|&g| {
                    let bits = enc
                        .group_bits(g)
                        .map(|b| e.var(Encoding::current_bit_var(b)))
                        .collect();
                    or_all(e, bits)
                })
                .collect::<BddResult<Vec<_>>>()?;
            Some(exactly(e, &holds)?)
        };
        Ok(self.potential.get_or_init(|| levels).as_deref())
    }

    /// The engine.
    pub fn engine(&self) -> &'e E {
        self.engine
    }

    /// The encoding.
    pub fn encoding(&self) -> &Encoding {
        &self.encoding
    }

    /// The roles' names.
    pub fn role_names(&self) -> &[String] {
        &self.role_names
    }

    /// The initial state (a single state).
    pub fn init(&self) -> &E::Bdd {
        &self.init
    }

    /// The fluents true in the initial state.
    pub fn init_fluents(&self) -> &[usize] {
        &self.init_fluents
    }

    /// The terminal states (built on first use from [`Self::terminal_parts`]; on games like
    /// Connect Four this BDD is large, prefer [`Self::and_not_terminal`]).
    pub fn terminal(&self) -> BddResult<E::Bdd> {
        self.whole_relation()?;
        if let Some(b) = self.terminal.get() {
            return Ok(b.clone());
        }
        let b = or_all(self.engine, self.terminal_parts.clone())?;
        Ok(self.terminal.get_or_init(|| b).clone())
    }

    /// The terminal condition as a disjunction of parts (the inputs of the top `or` of the
    /// `terminal` circuit, flattened).
    pub fn terminal_parts(&self) -> &[E::Bdd] {
        &self.terminal_parts
    }

    /// `s AND NOT terminal`, removing one terminal part at a time (compiling the terminal
    /// condition within `s` when the game is compiled within each layer and it was not
    /// compiled over all states).
    pub fn and_not_terminal(&self, s: &E::Bdd) -> BddResult<E::Bdd> {
        match &self.layerwise {
            Some(lw) if !self.terminal_compiled => lw
                .and_not_terminal(self.engine, &self.encoding, s)
                .map_err(layerwise_error),
            _ => and_not_all(self.engine, s, &self.terminal_parts),
        }
    }

    /// The parts of the terminal condition compiled over all states, if they are (in a game
    /// compiled within each layer, where a phase after the conditions gave up).
    pub(crate) fn terminal_over_all(&self) -> Option<&[E::Bdd]> {
        self.terminal_compiled
            .then_some(self.terminal_parts.as_slice())
    }

    /// Whether the game is compiled anew within each layer ([`SymbolicOptions::layerwise_fallback`]):
    /// then only [`Self::image`] and [`Self::and_not_terminal`] answer; it has no partitions,
    /// legal or terminal BDDs, and the pre-images fail.
    pub fn is_layerwise(&self) -> bool {
        self.layerwise.is_some()
    }

    /// Whether a search found a group of an assumed encoding ([`Encoding::assumed`]) broken:
    /// some legal joint move of a state it expanded makes two fluents of a group true (or none
    /// of an exactly-one group). The images from then on are not to be trusted; `reach` stops
    /// and its caller runs again with proven groups only.
    pub fn assumption_broken(&self) -> bool {
        use std::sync::atomic::Ordering::Relaxed;
        self.broken.load(Relaxed)
            || self
                .layerwise
                .as_ref()
                .is_some_and(|lw| lw.broken.load(Relaxed))
    }

    /// Records that an assumed group is broken ([`Self::assumption_broken`]).
    pub(crate) fn mark_broken(&self) {
        self.broken
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// Records that a joint move legal in some state of `states` (reachable states about to
    /// be expanded) breaks an assumed group: the assumption is broken, and one of them is
    /// kept as the witness ([`Self::break_witness`]) unless one is already.
    pub(crate) fn mark_broken_at(&self, states: &E::Bdd) {
        if let Some(s) = self.pick_state(states) {
            self.note_witness(s);
        }
        self.mark_broken();
    }

    fn note_witness(&self, fluents: Vec<usize>) {
        if let Ok(mut w) = self.witness.lock() {
            w.get_or_insert(fluents);
        }
    }

    /// With [`Self::assumption_broken`]: the true fluents of a reachable state that breaks an
    /// assumed group, or where a legal joint move leads to one that does, if the place that
    /// found the break knows one (the images of a game compiled once or within each layer,
    /// and the explicit graph do; a search split into slices does not). The mutex proof's
    /// known states ([`SymbolicOptions::known_states`]) with this state and its successors
    /// drop the group that broke.
    pub fn break_witness(&self) -> Option<Vec<usize>> {
        let own = self.witness.lock().ok().and_then(|w| w.clone());
        own.or_else(|| {
            self.layerwise
                .as_ref()
                .and_then(|lw| lw.witness.lock().ok().and_then(|w| w.clone()))
        })
    }

    /// Whether the relations are compiled once and only the terminal condition within each
    /// layer (a game that [`Self::is_layerwise`] but has its clusters).
    pub fn is_terminal_within(&self) -> bool {
        self.terminal_within
    }

    /// The game compiled within each layer, if it is.
    pub(crate) fn layerwise(&self) -> Option<&Layerwise> {
        self.layerwise.as_ref()
    }

    /// The race of explicit against symbolic expansion of the layers of a search: the
    /// within-layer compilation's, or the one of the game compiled once.
    pub(crate) fn explicit_layers(&self) -> &ExplicitLayers {
        match &self.layerwise {
            Some(lw) => &lw.explicit,
            None => &self.explicit,
        }
    }

    /// Fails when the game is compiled within each layer (it has no relation over all states).
    fn whole_relation(&self) -> BddResult<()> {
        match self.layerwise {
            Some(_) => Err(BddError::Budget(
                "the game is compiled within each layer: no pre-image or terminal set over all \
                 states"
                    .into(),
            )),
            None => Ok(()),
        }
    }

    /// `legal[r][m]`: states where role `r` may play move `m`.
    pub fn legal(&self) -> &[Vec<E::Bdd>] {
        &self.legal
    }

    /// `goals[r]`: `(value, condition)` pairs as in the ground game, each condition as one BDD
    /// (built from [`Self::goal_formulas`] on first use: on big games these BDDs are huge, use
    /// [`Self::and_goal`] instead).
    pub fn goals(&self) -> BddResult<&[Vec<GoalBdd<E>>]> {
        if let Some(g) = self.goals.get() {
            return Ok(g);
        }
        let e = self.engine;
        let built = self
            .goal_formulas
            .iter()
            .map(|gs| {
                gs.iter()
                    .map(|(v, f)| Ok((*v, f.to_bdd(e)?)))
                    .collect::<BddResult<Vec<_>>>()
            })
            .collect::<BddResult<Vec<_>>>()?;
        Ok(self.goals.get_or_init(|| built))
    }

    /// `goal_formulas[r]`: `(value, condition)` pairs as in the ground game, each condition a
    /// [`Formula`] over small BDDs.
    pub fn goal_formulas(&self) -> &[Vec<(u8, Formula<E>)>] {
        &self.goal_formulas
    }

    /// `set AND (some goal condition of `role` with `value` holds)`, without building the
    /// conditions as whole BDDs (higher values are not excluded: see
    /// [`Self::goal_value_states`]).
    pub fn and_goal(&self, set: &E::Bdd, role: usize, value: u8) -> BddResult<E::Bdd> {
        let parts = self.goal_formulas[role]
            .iter()
            .filter(|(v, _)| *v == value)
            .map(|(_, f)| f.and_with(self.engine, set))
            .collect::<BddResult<Vec<_>>>()?;
        or_all(self.engine, parts)
    }

    /// States where the goal value of `role` is exactly `value`: its condition holds and no
    /// higher value's does (the same reading as the explicit reasoner).
    pub fn goal_value_states(&self, role: usize, value: u8) -> BddResult<E::Bdd> {
        let e = self.engine;
        let mut acc = e.constant(false);
        for (v, cond) in &self.goals()?[role] {
            if *v == value {
                acc = cond.clone();
            } else if *v > value {
                acc = e.and_not(&acc, cond)?;
            }
        }
        Ok(acc)
    }

    /// The per-joint-move partitions (used for path extraction).
    pub fn partitions(&self) -> &[Partition<E>] {
        &self.partitions
    }

    /// The clustered partitions used by [`Self::image`] and [`Self::pre_image`] (the same as
    /// [`Self::partitions`] without clustering).
    pub fn clusters(&self) -> &[Partition<E>] {
        &self.clusters
    }

    /// Successors of the states in `s`: `(EXISTS x . S(x) AND T(x, x'))[x'/x]`. Terminal states
    /// have no successors.
    pub fn image(&self, s: &E::Bdd) -> BddResult<E::Bdd> {
        if let Some(lw) = &self.layerwise {
            let terminal = self.terminal_over_all();
            return lw
                .expand_and_image(
                    self.engine,
                    &self.encoding,
                    (s, terminal),
                    None,
                    &mut |_| {},
                )
                .map(|(_, image)| image)
                .map_err(layerwise_error);
        }
        let s = self.and_not_terminal(s)?;
        let parts = self
            .clusters
            .iter()
            .map(|p| p.image(self.engine, &s))
            .collect::<BddResult<Vec<_>>>()?;
        or_all(self.engine, parts)
    }

    /// Predecessors of the states in `s`: `EXISTS x' . T(x, x') AND S(x')` (non-terminal states
    /// with some joint move leading into `s`).
    pub fn pre_image(&self, s: &E::Bdd) -> BddResult<E::Bdd> {
        self.whole_relation()?;
        let parts = self
            .clusters
            .iter()
            .map(|p| p.pre_image(self.engine, s))
            .collect::<BddResult<Vec<_>>>()?;
        self.and_not_terminal(&or_all(self.engine, parts)?)
    }

    /// States with at least one successor (non-terminal, some legal joint move); cached.
    pub fn has_successor(&self) -> BddResult<E::Bdd> {
        if let Some(b) = self.has_successor.get() {
            return Ok(b.clone());
        }
        let b = self.pre_image(&self.engine.constant(true))?;
        Ok(self.has_successor.get_or_init(|| b).clone())
    }

    /// Strong pre-image: states that have at least one successor and all of whose successors
    /// lie in `s` (`pre_image(TRUE) AND NOT pre_image(NOT s)`); terminal states never qualify.
    pub fn strong_pre_image(&self, s: &E::Bdd) -> BddResult<E::Bdd> {
        let e = self.engine;
        let bad = self.pre_image(&e.not(s)?)?;
        e.and_not(&self.has_successor()?, &bad)
    }

    /// The number of states in `s` (a BDD over current variables).
    pub fn count(&self, s: &E::Bdd) -> num_bigint::BigUint {
        self.engine.sat_count_over(s, self.encoding.current_vars())
    }

    /// The number of states in `s` and the BDD node count of `s`, in one pass.
    pub fn count_and_nodes(&self, s: &E::Bdd) -> (num_bigint::BigUint, usize) {
        self.engine
            .sat_count_and_nodes(s, self.encoding.current_vars())
    }

    /// The single state whose true fluents are `fluents`; the empty set if that fluent set
    /// breaks a group of the encoding (then it is not a reachable state).
    pub fn state(&self, fluents: &[usize]) -> BddResult<E::Bdd> {
        match self.encoding.encode(fluents) {
            Some(lits) => self.engine.cube(&lits),
            None => Ok(self.engine.constant(false)),
        }
    }

    /// One state of `s` (the smallest in the variable order), as its true fluents, ascending;
    /// `None` if `s` is empty.
    pub fn pick_state(&self, s: &E::Bdd) -> Option<Vec<usize>> {
        let m = self.engine.pick_minterm(s)?;
        Some(self.encoding.decode(&m))
    }
}

/// The goal set: terminal states where `role` gets exactly `value`.
pub fn goal_states<E: BddEngine>(
    g: &SymbolicGame<'_, E>,
    role: usize,
    value: u8,
) -> BddResult<E::Bdd> {
    g.engine()
        .and(&g.terminal()?, &g.goal_value_states(role, value)?)
}

/// Exactly-`k` functions of `indicators` for `k = 0..=n` (the count of true indicators).
fn exactly<E: BddEngine>(e: &E, indicators: &[E::Bdd]) -> BddResult<Vec<E::Bdd>> {
    let mut cnt = vec![e.constant(true)];
    for ind in indicators.iter().rev() {
        let mut next = Vec::with_capacity(cnt.len() + 1);
        for k in 0..=cnt.len() {
            let stay = match cnt.get(k) {
                Some(c) => e.and_not(c, ind)?,
                None => e.constant(false),
            };
            let up = match k.checked_sub(1).and_then(|j| cnt.get(j)) {
                Some(c) => e.and(c, ind)?,
                None => e.constant(false),
            };
            next.push(e.or(&stay, &up)?);
        }
        cnt = next;
    }
    Ok(cnt)
}

/// A failure of compiling within a layer as a BDD error (the public image and terminal test
/// answer in BDD errors).
fn layerwise_error(err: SymbolicError) -> BddError {
    match err {
        SymbolicError::Bdd(e) => e,
        other => BddError::Budget(other.to_string()),
    }
}

mod from_graph;
#[cfg(test)]
mod tests;
