//! Depth-first proof-number search (Nagai) with a bounded transposition table.
//!
//! `mid(n, th_pn, th_dn)` expands `n` and repeatedly descends into its most-proving child until
//! `pn(n) >= th_pn` or `dn(n) >= th_dn`. At an OR node (child `c1` with the least pn, `pn2` the
//! second least): `th_pn(c1) = min(th_pn, pn2 + 1)`, `th_dn(c1) = th_dn - (dn(n) - dn(c1))`;
//! AND nodes swap pn and dn. This is the negamax rule `th_phi(c1) = th_delta(n) + phi(c1) -
//! delta(n)`, `th_delta(c1) = min(th_phi(n), delta(c2) + 1)` written for OR/AND nodes, which do
//! not need to alternate. With weak proof numbers the summed number is `max + (k - 1)` over the
//! `k` non-zero terms, and the child's threshold becomes `th - (k - 1)`. The root is searched
//! with thresholds (∞, ∞).
//!
//! The table stores (pn, dn, solution size) with the work (expansions) spent below the entry;
//! a full bucket drops its least-work entry. Each `mid` frame also keeps its children's last
//! numbers, so evicted children fall back to what this frame learnt rather than to (1, 1).
//!
//! Graph history interaction: a child on the current path is a repetition, disproved for this
//! visit and never stored; values that depended on it are stored anyway. This is exact for
//! acyclic games (GDL games normally are) and a pragmatic approximation for cyclic ones.

use crate::model::{check_roles, GameModel, Unsupported};
use crate::question::Question;
use crate::search::{
    add, combine, solution_size, Budget, Config, Init, Outcome, SearchResult, StopReason, INF,
};
use crate::table::{Table, TableSearch};

#[derive(Clone, Copy)]
struct Entry {
    pn: u64,
    dn: u64,
    size: u64,
}

struct Child<S> {
    state: S,
    pn: u64,
    dn: u64,
    size: u64,
    /// Terminal or repetition: never looked up in the table.
    fixed: bool,
}

struct DfPn<'a, M: GameModel, Q> {
    core: TableSearch<'a, M, Entry>,
    question: &'a Q,
    config: &'a Config,
    attacker: usize,
}

impl<'a, M: GameModel, Q: Question<M>> DfPn<'a, M, Q> {
    /// The current numbers of the successor `state` of a node being expanded.
    fn child(&mut self, state: M::State) -> Result<Child<M::State>, Unsupported> {
        let (pn, dn, size, fixed) = if self.core.model.is_terminal(&state) {
            if self.question.holds(self.core.model, &state) {
                (0, INF, 1, true)
            } else {
                (INF, 0, 1, true)
            }
        } else if self.core.path.contains(&state) {
            (INF, 0, 1, true)
        } else if let Some((entry, _)) = self.core.table.get(&state) {
            (entry.pn, entry.dn, entry.size, false)
        } else {
            let (pn, dn) = match self.config.init {
                Init::Unit => (1, 1),
                Init::Mobility => {
                    let (control, moves) = self.core.expander.mobility(&state)?;
                    if control.is_and(self.attacker) {
                        (moves as u64, 1)
                    } else {
                        (1, moves as u64)
                    }
                }
            };
            (pn, dn, 0, false)
        };
        Ok(Child {
            state,
            pn,
            dn,
            size,
            fixed,
        })
    }

    /// The threshold just above `second` (Nagai's `+1`, or the 1+ε trick).
    fn above(&self, second: u64) -> u64 {
        let plus_one = add(second, 1);
        if self.config.epsilon > 0.0 && second < INF {
            let scaled = (second as f64 * (1.0 + self.config.epsilon)).ceil();
            plus_one.max((scaled as u64).min(INF))
        } else {
            plus_one
        }
    }

    /// Multiple-iterative deepening at the non-terminal `state`, not on the path, until its
    /// numbers reach a threshold. Returns its final (pn, dn, size).
    fn mid(&mut self, state: &M::State, th_pn: u64, th_dn: u64) -> Result<Entry, Unsupported> {
        let previous = self.core.table.get(state);
        if let Some((entry, _)) = previous {
            if entry.pn >= th_pn || entry.dn >= th_dn {
                return Ok(entry);
            }
        }
        let bytes = self.core.table.bytes();
        if let Err(reason) = self.core.budget.check(self.core.table.len() as u64, bytes) {
            self.core.stop = Some(reason);
            return Ok(Entry {
                pn: 1,
                dn: 1,
                size: 0,
            });
        }
        let work_before = self.core.budget.expanded;
        self.core.budget.expanded += 1;
        let mut successors = Vec::new();
        let control = self.core.expander.successors(state, &mut successors)?;
        // On the path before its children are classified, so that a move back to it repeats.
        self.core.path.insert(state.clone());
        let and = control.is_and(self.attacker);
        let mut children = Vec::with_capacity(successors.len());
        for successor in successors {
            children.push(self.child(successor)?);
        }
        let weak = self.config.weak_pn;
        let (mut pn, mut dn);
        loop {
            for child in children.iter_mut().filter(|c| !c.fixed) {
                if let Some((entry, _)) = self.core.table.get(&child.state) {
                    (child.pn, child.dn, child.size) = (entry.pn, entry.dn, entry.size);
                }
            }
            (pn, dn) = combine(and, weak, children.iter().map(|c| (c.pn, c.dn)));
            if pn >= th_pn || dn >= th_dn || self.core.stop.is_some() {
                break;
            }
            // The most-proving child: least pn at OR, least dn at AND; `second` is the runner-up.
            let key = |c: &Child<M::State>| if and { c.dn } else { c.pn };
            let mut best = 0;
            let mut second = INF;
            for (i, child) in children.iter().enumerate().skip(1) {
                let k = key(child);
                if k < key(&children[best]) {
                    second = key(&children[best]);
                    best = i;
                } else if k < second {
                    second = k;
                }
            }
            let best_child = &children[best];
            let (summed, child_summed, th_summed) = if and {
                (pn, best_child.pn, th_pn)
            } else {
                (dn, best_child.dn, th_dn)
            };
            let rest = if weak {
                children
                    .iter()
                    .filter(|c| if and { c.pn > 0 } else { c.dn > 0 })
                    .count()
                    .saturating_sub(1) as u64
            } else {
                summed - child_summed
            };
            let th_child_summed = th_summed - rest;
            let th_child_select = self.above(second).min(if and { th_dn } else { th_pn });
            let (child_th_pn, child_th_dn) = if and {
                (th_child_summed, th_child_select)
            } else {
                (th_child_select, th_child_summed)
            };
            let child_state = best_child.state.clone();
            let entry = self.mid(&child_state, child_th_pn, child_th_dn)?;
            let child = &mut children[best];
            (child.pn, child.dn, child.size) = (entry.pn, entry.dn, entry.size);
        }
        self.core.path.remove(state);
        let size = if pn == 0 || dn == 0 {
            solution_size(and, pn == 0, children.iter().map(|c| (c.pn, c.dn, c.size)))
        } else {
            0
        };
        let entry = Entry { pn, dn, size };
        let work = previous.map_or(0, |(_, work)| work) + (self.core.budget.expanded - work_before);
        self.core.table.store(state.clone(), work, entry);
        Ok(entry)
    }
}

/// Depth-first proof-number search: the same question as proof-number search ([`Algo::Pn`](crate::Algo::Pn)), answered with a
/// transposition table of at most [`Config::tt_capacity`] entries instead of an explicit tree.
///
/// The table is also capped by [`Limits::max_memory_bytes`](crate::Limits::max_memory_bytes):
/// df-pn replaces entries instead of stopping, and stops with
/// [`StopReason::MemoryLimit`] only when not even one entry fits. Recursion depth equals the
/// length of the longest line searched.
pub fn dfpn<M: GameModel, Q: Question<M>>(
    model: &M,
    root: &M::State,
    question: &Q,
    config: &Config,
) -> Result<SearchResult, Unsupported> {
    check_roles(model, question.attacker())?;
    let budget = Budget::new(&config.limits);
    if model.is_terminal(root) {
        let outcome = if question.holds(model, root) {
            Outcome::Proved
        } else {
            Outcome::Disproved
        };
        return Ok(SearchResult {
            outcome,
            stats: budget.stats(Some(1)),
        });
    }
    let Some(capacity) = config.table_capacity(Table::<M::State, Entry>::slot_bytes()) else {
        return Ok(SearchResult {
            outcome: Outcome::Stopped(StopReason::MemoryLimit),
            stats: budget.stats(None),
        });
    };
    let limits = config.limits_beside_the_table();
    let mut search = DfPn {
        core: TableSearch::new(model, capacity, &limits),
        question,
        config,
        attacker: question.attacker(),
    };
    let entry = search.mid(root, INF, INF)?;
    let outcome = if entry.pn == 0 {
        Outcome::Proved
    } else if entry.dn == 0 {
        Outcome::Disproved
    } else {
        Outcome::Stopped(search.core.stop.unwrap_or(StopReason::NodeLimit))
    };
    let proof_size = (entry.pn == 0 || entry.dn == 0).then_some(entry.size);
    Ok(SearchResult {
        outcome,
        stats: search.core.stats(proof_size),
    })
}
