//! `symgame verify`: the symbolic solution checked state by state with the explicit solvers.
//!
//! The symbolic side (a fresh solve, or a solution directory) gives every reachable state a
//! value; the explicit side (proof-number search, df-pn, alpha-beta over the explicit reasoner,
//! which shares no code with the BDD side) computes, for each checked state and role, the reward
//! the role can force. Constant-sum and single-player games compare that with the solved
//! outcome; general-sum games with the symbolic security values (the same question as the
//! explicit one). Small games are checked in every reachable state (and the explicit reachable
//! set must have the symbolic size); big games in a seeded uniform sample of reachable states.

use crate::{cancel_flag, load_game, print_json, Failure};
use num_bigint::BigUint;
use serde::Serialize;
use std::collections::{HashSet, VecDeque};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use symgame_bdd::{Backend, BddEngine, EngineConfig, EngineJob};
use symgame_explicit::{Reasoner, State};
use symgame_ground::GroundGame;
use symgame_prove::{solve_value, Algo, Config, Limits, ValueOutcome};
use symgame_symbolic::{
    fingerprint, read_manifest, read_stored, security_values, solve, Encoding, GameKind,
    SolveOptions, SymbolicGame, SymbolicOptions,
};

/// Exit code of a verification that found a disagreement.
pub const EXIT_DISAGREEMENT: u8 = 4;

#[derive(clap::Args)]
pub struct Args {
    /// The game description (GDL, KIF syntax).
    game: PathBuf,
    /// Check the solution in this directory (from `symgame solve --out`) instead of solving now.
    #[arg(long, value_name = "DIR")]
    solution: Option<PathBuf>,
    /// Check every reachable state when there are at most this many; otherwise a sample.
    #[arg(long, value_name = "N", default_value_t = 20_000)]
    all_limit: u64,
    /// Number of reachable states to sample (uniformly, with replacement) in bigger games.
    #[arg(long, value_name = "N", default_value_t = 200)]
    sample: usize,
    /// Seed of the sample.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Explicit algorithms, comma-separated: pn, pn2, dfpn, alphabeta, or all.
    #[arg(long, default_value = "dfpn,alphabeta")]
    algo: String,
    /// Node limit of each explicit search; a search that hits it leaves its state undecided.
    #[arg(long, value_name = "N", default_value_t = 2_000_000)]
    node_limit: u64,
    /// Stop after this many seconds (exit code 3; the states checked so far are reported).
    #[arg(long, value_name = "SECONDS")]
    time_limit: Option<f64>,
    /// The BDD engine of the symbolic side: biodivine or oxidd.
    #[arg(long, default_value = "biodivine")]
    backend: Backend,
    /// Threads for engines that use them (0: one per core).
    #[arg(long, default_value_t = 0)]
    threads: usize,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// A state where the two sides disagree.
#[derive(Clone, Debug, Serialize)]
struct Disagreement {
    state: Vec<String>,
    role: String,
    algo: String,
    symbolic: u8,
    explicit: u8,
}

#[derive(Debug, Default, Serialize)]
struct AlgoTally {
    algo: String,
    agreed: u64,
    undecided: u64,
    disagreed: u64,
    nodes_expanded: u64,
    seconds: f64,
}

#[derive(Debug, Serialize)]
struct Report {
    game: String,
    kind: GameKind,
    /// `all` or `sample`.
    mode: String,
    reachable_states: String,
    /// Explicit enumeration in `all` mode: the number of reachable states it found.
    explicit_states: Option<u64>,
    states_checked: u64,
    algos: Vec<AlgoTally>,
    disagreements: Vec<Disagreement>,
    symbolic_seconds: f64,
    seconds: f64,
    stopped: Option<String>,
}

fn parse_algos(text: &str) -> Result<Vec<Algo>, Failure> {
    if text == "all" {
        return Ok(vec![Algo::Pn, Algo::Pn2, Algo::DfPn, Algo::AlphaBeta]);
    }
    text.split(',')
        .map(|s| {
            s.trim()
                .parse::<Algo>()
                .map_err(|e| Failure::Input(format!("--algo: {e}")))
        })
        .collect()
}

/// SplitMix64: a small seeded generator; the sample only needs to be reproducible.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0), by rejection over the bits of `n`.
    fn below(&mut self, n: &BigUint) -> BigUint {
        let bits = n.bits();
        loop {
            let words = bits.div_ceil(64) as usize;
            let mut digits: Vec<u64> = (0..words).map(|_| self.next()).collect();
            let extra = words as u64 * 64 - bits;
            if let Some(top) = digits.last_mut() {
                *top >>= extra;
            }
            let x = BigUint::from_slice(
                &digits
                    .iter()
                    .flat_map(|d| [*d as u32, (*d >> 32) as u32])
                    .collect::<Vec<_>>(),
            );
            if &x < n {
                return x;
            }
        }
    }
}

/// What the symbolic side says about the states to check.
struct Symbolic {
    kind: GameKind,
    reachable: BigUint,
    /// Per checked state (true fluents): the expected explicit value per role.
    expected: Vec<(Vec<usize>, Vec<u8>)>,
    mode: &'static str,
    explicit_states: Option<u64>,
    seconds: f64,
}

/// A value class: the rewards of every role, and the states.
type Class<E> = (Vec<u8>, <E as BddEngine>::Bdd);

struct Job<'a> {
    a: &'a Args,
    game: &'a GroundGame,
    reasoner: &'a Reasoner,
    cancel: Arc<AtomicBool>,
    sym: SymbolicOptions,
    enc: Encoding,
}

impl EngineJob<Result<Symbolic, Failure>> for Job<'_> {
    fn run<E: BddEngine>(self, e: E) -> Result<Symbolic, Failure> {
        let (a, game) = (self.a, self.game);
        let started = Instant::now();
        let input = |m: String| Failure::Input(format!("{}: {m}", a.game.display()));
        let (sym, enc) = (self.sym, self.enc);
        let print = fingerprint(game, &enc);
        let g = SymbolicGame::new(&e, game, enc, &sym).map_err(|x| match x {
            symgame_symbolic::SymbolicError::Stopped(why) => {
                Failure::Limit(format!("{}: {why} while compiling", a.game.display()))
            }
            x => input(x.to_string()),
        })?;
        let limits = Limits {
            time_limit: a.time_limit.map(Duration::from_secs_f64),
            cancel: Some(self.cancel.clone()),
            ..Default::default()
        };
        // Value classes: (outcome rewards, states).
        let (kind, classes): (GameKind, Vec<Class<E>>) = match &a.solution {
            Some(dir) => {
                let m = read_manifest(dir).map_err(|x| Failure::Input(x.to_string()))?;
                if m.fingerprint != print {
                    return Err(Failure::Input(format!(
                        "{}: the solution was made for another game or encoding (fingerprint \
                         {}, this game has {print})",
                        dir.display(),
                        m.fingerprint
                    )));
                }
                if !m.complete {
                    return Err(Failure::Input(format!(
                        "{}: the solution is incomplete (its run was stopped)",
                        dir.display()
                    )));
                }
                let mut classes = Vec::new();
                for (_, file) in &m.files {
                    let layer =
                        read_stored(&dir.join(file)).map_err(|x| Failure::Input(x.to_string()))?;
                    for c in layer.classes {
                        let outcome = m
                            .stats
                            .outcomes
                            .get(c.outcome as usize)
                            .ok_or_else(|| {
                                Failure::Input(format!(
                                    "{}: class with outcome {} not in the manifest",
                                    dir.join(file).display(),
                                    c.outcome
                                ))
                            })?
                            .clone();
                        let b = e.import(&c.nodes).map_err(|x| {
                            Failure::Input(format!("{}: {x}", dir.join(file).display()))
                        })?;
                        classes.push((outcome, b));
                    }
                }
                (m.stats.kind, classes)
            }
            None => {
                let opts = SolveOptions {
                    keep_classes: true,
                    limits: limits.clone(),
                    ..Default::default()
                };
                let s = solve(&g, &opts, |_| {}).map_err(|x| input(x.to_string()))?;
                if let Some(why) = s.stats.stopped {
                    return Err(Failure::Limit(format!("symbolic solving stopped: {why}")));
                }
                let out = s
                    .layers
                    .into_iter()
                    .flat_map(|l| l.classes)
                    .map(|c| (s.stats.outcomes[c.outcome].clone(), c.states))
                    .collect();
                (s.stats.kind, out)
            }
        };
        let oom = |x: symgame_bdd::BddError| Failure::Internal(x.to_string());
        let mut reached = e.constant(false);
        for (_, s) in &classes {
            reached = e.or(&reached, s).map_err(oom)?;
        }
        let reachable = g.count(&reached);
        // Per role: (value, states) for the explicit question "what can the role force".
        let roles = game.roles.len();
        let per_role: Vec<Vec<(u8, E::Bdd)>> = if kind == GameKind::GeneralSum {
            (0..roles)
                .map(|r| {
                    security_values(&g, &reached, r, &limits).map_err(|x| input(x.to_string()))
                })
                .collect::<Result<_, _>>()?
        } else {
            (0..roles)
                .map(|r| {
                    classes
                        .iter()
                        .map(|(o, s)| (o[r], s.clone()))
                        .collect::<Vec<_>>()
                })
                .collect()
        };
        // The states to check.
        let (mode, states, explicit_states) = if reachable <= BigUint::from(a.all_limit) {
            let all = enumerate(self.reasoner);
            let n = all.len() as u64;
            ("all", all, Some(n))
        } else {
            let nodes = e.export(&reached);
            let hash = symgame_db::AnyPerfectHash::new(&nodes, g.encoding().current_vars())
                .map_err(|x| Failure::Internal(x.to_string()))?;
            let mut rng = SplitMix(a.seed);
            let mut out = Vec::with_capacity(a.sample);
            for _ in 0..a.sample {
                let r = rng.below(&reachable);
                let bits = hash
                    .unrank(&r)
                    .ok_or_else(|| Failure::Internal("unrank out of range".into()))?;
                let cube: Vec<(u32, bool)> = g
                    .encoding()
                    .current_vars()
                    .iter()
                    .map(|v| (v, bits[v as usize]))
                    .collect();
                let one = e.cube(&cube).map_err(oom)?;
                out.push(g.pick_state(&one).expect("an unranked state is a state"));
            }
            ("sample", out, None)
        };
        let mut expected = Vec::with_capacity(states.len());
        for fl in states {
            let s = g.state(&fl).map_err(oom)?;
            let mut vals = Vec::with_capacity(roles);
            for classes in &per_role {
                let mut v = None;
                for (x, c) in classes {
                    if !e.is_false(&e.and(c, &s).map_err(oom)?) {
                        v = Some(*x);
                        break;
                    }
                }
                let v = v.ok_or_else(|| {
                    Failure::Internal(format!(
                        "state {} has no symbolic value",
                        fluent_names(game, &fl).join(" ")
                    ))
                })?;
                vals.push(v);
            }
            expected.push((fl, vals));
        }
        Ok(Symbolic {
            kind,
            reachable,
            expected,
            mode,
            explicit_states,
            seconds: started.elapsed().as_secs_f64(),
        })
    }
}

/// Every reachable state, by explicit breadth-first search (terminal states not expanded).
fn enumerate(r: &Reasoner) -> Vec<Vec<usize>> {
    let mut seen: HashSet<State> = HashSet::new();
    let mut queue = VecDeque::new();
    let init = r.initial_state();
    seen.insert(init.clone());
    queue.push_back(init);
    let mut out = Vec::new();
    while let Some(s) = queue.pop_front() {
        out.push(s.fluents().collect());
        if r.is_terminal(&s) {
            continue;
        }
        for j in r.joint_moves(&s) {
            let t = r.next_state(&s, &j);
            if seen.insert(t.clone()) {
                queue.push_back(t);
            }
        }
    }
    out
}

fn fluent_names(game: &GroundGame, fluents: &[usize]) -> Vec<String> {
    fluents
        .iter()
        .map(|&f| game.fluents[f].to_string())
        .collect()
}

pub fn run(a: Args) -> Result<u8, Failure> {
    let started = Instant::now();
    let algos = parse_algos(&a.algo)?;
    let (_, game) = load_game(&a.game, None)?;
    if game.roles.len() > 2 {
        return Err(Failure::Input(format!(
            "{}: the game has {} roles: verify supports one or two roles",
            a.game.display(),
            game.roles.len()
        )));
    }
    let reasoner = Reasoner::new(&game);
    let cancel = cancel_flag();
    let config = EngineConfig {
        threads: a.threads,
        ..EngineConfig::default()
    };
    let sym_opts = SymbolicOptions {
        setup_deadline: crate::setup_deadline(a.time_limit),
        ..SymbolicOptions::default()
    };
    let enc = Encoding::with_options(&game, &sym_opts);
    let sym = a
        .backend
        .run(
            enc.num_vars(),
            &config,
            Job {
                a: &a,
                game: &game,
                reasoner: &reasoner,
                cancel: cancel.clone(),
                sym: sym_opts,
                enc,
            },
        )
        .map_err(|x| Failure::Internal(x.to_string()))??;
    let deadline = a.time_limit.map(Duration::from_secs_f64);
    let mut tallies: Vec<AlgoTally> = algos
        .iter()
        .map(|x| AlgoTally {
            algo: x.to_string(),
            ..Default::default()
        })
        .collect();
    let mut disagreements = Vec::new();
    let mut checked = 0u64;
    let mut stopped = None;
    'states: for (fl, want) in &sym.expected {
        let mut state = State::empty(game.fluents.len());
        for &f in fl {
            state.insert(f);
        }
        for (k, &algo) in algos.iter().enumerate() {
            for (role, &expect) in want.iter().enumerate() {
                if deadline.is_some_and(|d| started.elapsed() > d) {
                    stopped = Some("time limit reached".to_string());
                    break 'states;
                }
                if cancel.load(Ordering::Relaxed) {
                    stopped = Some("cancelled".to_string());
                    break 'states;
                }
                let cfg = Config {
                    limits: Limits {
                        max_nodes: Some(a.node_limit),
                        // The time left, so that one long search cannot outlast the limit.
                        time_limit: deadline.map(|d| d.saturating_sub(started.elapsed())),
                        cancel: Some(cancel.clone()),
                        ..Limits::default()
                    },
                    // Many small searches: a small table each.
                    tt_capacity: 1 << 16,
                    ..Config::default()
                };
                let t0 = Instant::now();
                let v = solve_value(&reasoner, &state, role, algo, &cfg)
                    .map_err(|x| Failure::Input(format!("{}: {x}", a.game.display())))?;
                let tally = &mut tallies[k];
                tally.seconds += t0.elapsed().as_secs_f64();
                tally.nodes_expanded += v.stats.nodes_expanded;
                // The explicit answer that contradicts the symbolic value, if any: an exact
                // value that differs, or bounds (after a limit) that exclude it.
                let contradiction = match v.outcome {
                    ValueOutcome::Exact(x) if x == expect => {
                        tally.agreed += 1;
                        None
                    }
                    ValueOutcome::Exact(x) => Some(x),
                    ValueOutcome::Stopped { lower, upper, .. } => {
                        tally.undecided += 1;
                        (expect < lower || expect > upper).then_some(if expect < lower {
                            lower
                        } else {
                            upper
                        })
                    }
                };
                if let Some(explicit) = contradiction {
                    tally.disagreed += 1;
                    disagreements.push(Disagreement {
                        state: fluent_names(&game, fl),
                        role: game.roles[role].name.to_string(),
                        algo: algo.to_string(),
                        symbolic: expect,
                        explicit,
                    });
                }
            }
        }
        checked += 1;
    }
    let report = Report {
        game: a.game.display().to_string(),
        kind: sym.kind,
        mode: sym.mode.to_string(),
        reachable_states: sym.reachable.to_string(),
        explicit_states: sym.explicit_states,
        states_checked: checked,
        algos: tallies,
        disagreements,
        symbolic_seconds: sym.seconds,
        seconds: started.elapsed().as_secs_f64(),
        stopped,
    };
    let size_mismatch = report
        .explicit_states
        .is_some_and(|n| BigUint::from(n) != sym.reachable);
    if a.json {
        print_json(&report)?;
    } else {
        print_text(&report);
    }
    if size_mismatch {
        eprintln!(
            "disagreement: the explicit search reaches {} states, the symbolic solution covers {}",
            report.explicit_states.unwrap_or(0),
            report.reachable_states
        );
    }
    if !report.disagreements.is_empty() || size_mismatch {
        return Ok(EXIT_DISAGREEMENT);
    }
    if let Some(why) = report.stopped {
        return Err(Failure::Limit(format!(
            "{why} after {} checked states; no disagreement so far",
            report.states_checked
        )));
    }
    Ok(crate::EXIT_OK)
}

fn print_text(r: &Report) {
    println!("game: {} ({})", r.game, r.kind);
    println!(
        "checked {} of {} reachable states ({}){}, symbolic side {:.3} s",
        r.states_checked,
        r.reachable_states,
        if r.mode == "all" {
            "all of them".to_string()
        } else {
            "a seeded uniform sample".to_string()
        },
        r.explicit_states
            .map(|n| format!("; explicit search reaches {n}"))
            .unwrap_or_default(),
        r.symbolic_seconds
    );
    println!(
        "{:>10} {:>10} {:>10} {:>10} {:>14} {:>9}",
        "algorithm", "agreed", "undecided", "disagreed", "nodes", "seconds"
    );
    for t in &r.algos {
        println!(
            "{:>10} {:>10} {:>10} {:>10} {:>14} {:>9.3}",
            t.algo, t.agreed, t.undecided, t.disagreed, t.nodes_expanded, t.seconds
        );
    }
    for d in &r.disagreements {
        println!(
            "DISAGREEMENT ({}) role {}: symbolic {}, explicit {} in state {}",
            d.algo,
            d.role,
            d.symbolic,
            d.explicit,
            d.state.join(" ")
        );
    }
    if r.disagreements.is_empty() {
        println!("no disagreement");
    }
}
