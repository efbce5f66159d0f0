//! [`explore`]: breadth-first enumeration of the reachable states; [`Reachable`]: the same
//! states one at a time.

use crate::{MoveId, Reasoner, State};
use std::collections::{HashSet, VecDeque};
use std::time::Instant;
use symgame_limits::{Guard, Limits, StopReason};

/// One breadth-first layer.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct Layer {
    /// States first reached at this depth.
    pub states: u64,
    /// Of those, the terminal ones.
    pub terminal: u64,
    /// Seconds since the start when the layer was complete.
    pub seconds: f64,
}

/// The result of [`explore`]: complete layers, and why it stopped early if it did.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Exploration {
    /// The complete layers, from the initial state.
    pub layers: Vec<Layer>,
    /// Total states over the complete layers.
    pub states: u64,
    /// Total terminal states over the complete layers.
    pub terminal: u64,
    /// Joint moves applied.
    pub updates: u64,
    /// `Some` when the exploration stopped before the end.
    pub stopped: Option<StopReason>,
}

/// The states seen, stored flat in the order they were found (state `i` is
/// `words[i * w..(i + 1) * w]`, so a BFS layer is a range of indexes), with a hash table of
/// their indexes: open addressing, linear probing, each slot the 32 high bits of the state's
/// hash and its index plus one (0 for an empty slot). The slot of a hash is given by its high
/// bits, so the table grows without rehashing a state.
struct Seen {
    w: usize,
    words: Vec<u64>,
    slots: Vec<u64>,
    /// log2 of the number of slots.
    bits: u32,
    len: usize,
}

impl Seen {
    fn new(w: usize) -> Seen {
        Seen {
            w,
            words: Vec::new(),
            slots: vec![0; 1 << 10],
            bits: 10,
            len: 0,
        }
    }

    /// The 32 high bits of a hash of `s`.
    fn tag(s: &[u64]) -> u32 {
        const K: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut h = K ^ s.len() as u64;
        for &x in s {
            h = (h ^ x).wrapping_mul(K);
            h ^= h >> 29;
        }
        h = (h ^ (h >> 32)).wrapping_mul(0xD6E8_FEB8_6659_FD93);
        (h >> 32) as u32
    }

    fn state(&self, i: usize) -> &[u64] {
        &self.words[i * self.w..(i + 1) * self.w]
    }

    /// Adds `s` unless seen; whether it was new.
    fn insert(&mut self, s: &[u64]) -> bool {
        let tag = Self::tag(s);
        let mask = self.slots.len() - 1;
        let mut p = (tag >> (32 - self.bits)) as usize;
        loop {
            let slot = self.slots[p];
            if slot == 0 {
                break;
            }
            if (slot >> 32) as u32 == tag && self.state((slot as u32 - 1) as usize) == s {
                return false;
            }
            p = (p + 1) & mask;
        }
        let index = u32::try_from(self.len + 1).expect("fewer than 2^32 states");
        self.slots[p] = (tag as u64) << 32 | index as u64;
        self.words.extend_from_slice(s);
        self.len += 1;
        if self.len * 3 > self.slots.len() * 2 {
            self.grow();
        }
        true
    }

    fn grow(&mut self) {
        self.bits += 1;
        let old = std::mem::replace(&mut self.slots, vec![0; 1 << self.bits]);
        let mask = self.slots.len() - 1;
        for slot in old.into_iter().filter(|&s| s != 0) {
            let mut p = ((slot >> 32) as u32 >> (32 - self.bits)) as usize;
            while self.slots[p] != 0 {
                p = (p + 1) & mask;
            }
            self.slots[p] = slot;
        }
    }
}

/// Advances the odometer `idx` over the joint moves (`idx[role]` indexes `legal[role]`);
/// false when it wrapped around.
fn next_joint(idx: &mut [usize], legal: &[Vec<MoveId>]) -> bool {
    for (i, l) in idx.iter_mut().zip(legal) {
        *i += 1;
        if *i < l.len() {
            return true;
        }
        *i = 0;
    }
    false
}

/// Breadth-first enumeration of the reachable states from the initial state. Terminal states
/// are counted but not expanded. `progress` is called after each layer.
pub fn explore(
    r: &Reasoner,
    limits: &Limits,
    mut progress: impl FnMut(&Exploration),
) -> Exploration {
    let started = Instant::now();
    let mut result = Exploration::default();
    let init = r.initial_state();
    let mut seen = Seen::new(init.0.len());
    seen.insert(&init.0);
    let (mut s, mut t) = (init.clone(), init);
    let mut legal: Vec<Vec<MoveId>> = vec![Vec::new(); r.num_roles()];
    let mut joint = vec![0; r.num_roles()];
    let mut idx = vec![0usize; r.num_roles()];
    let guard = Guard::since(limits, started);
    let stop_check =
        |n: u64| -> Option<StopReason> { guard.check_states(n).and_then(|()| guard.check()).err() };
    // the current layer: the states from `first` to `end`
    let (mut first, mut end) = (0, 1);
    while first < end {
        let mut layer = Layer {
            states: (end - first) as u64,
            ..Layer::default()
        };
        for k in first..end {
            if (k - first) % 1024 == 0 {
                if let Some(why) = stop_check(seen.len as u64) {
                    result.stopped = Some(why);
                    return result;
                }
            }
            s.0.copy_from_slice(seen.state(k));
            if r.is_terminal(&s) {
                layer.terminal += 1;
                continue;
            }
            for (role, l) in legal.iter_mut().enumerate() {
                r.legal_moves_into(&s, role, l);
            }
            if legal.iter().any(|l| l.is_empty()) {
                continue; // no joint move: a dead end of a faulty description
            }
            idx.fill(0);
            loop {
                for (role, &i) in idx.iter().enumerate() {
                    joint[role] = legal[role][i];
                }
                r.next_state_into(&s, &joint, &mut t);
                result.updates += 1;
                seen.insert(&t.0);
                // Also within a state: one of four roles with a hundred moves each has 10^8
                // joint moves (knightwar ran 5 s past its limit in one state).
                if result.updates.is_multiple_of(1 << 16) {
                    if let Some(why) = stop_check(seen.len as u64) {
                        result.stopped = Some(why);
                        return result;
                    }
                }
                if !next_joint(&mut idx, &legal) {
                    break;
                }
            }
        }
        if let Some(why) = stop_check(seen.len as u64) {
            result.stopped = Some(why);
            return result;
        }
        layer.seconds = started.elapsed().as_secs_f64();
        result.states += layer.states;
        result.terminal += layer.terminal;
        result.layers.push(layer);
        progress(&result);
        (first, end) = (end, seen.len);
    }
    result
}

/// The states reachable from the initial state, one at a time in breadth-first order (terminal
/// states are not expanded); a state is expanded when it is yielded. [`explore`] counts the
/// same states much faster; this is for walking them.
pub struct Reachable<'r> {
    r: &'r Reasoner,
    seen: HashSet<State>,
    queue: VecDeque<State>,
}

impl<'r> Reachable<'r> {
    /// The walk over the reachable states of `r`'s game, from its initial state.
    pub fn new(r: &'r Reasoner) -> Reachable<'r> {
        let init = r.initial_state();
        Reachable {
            r,
            seen: HashSet::from([init.clone()]),
            queue: VecDeque::from([init]),
        }
    }
}

impl Iterator for Reachable<'_> {
    type Item = State;

    fn next(&mut self) -> Option<State> {
        let s = self.queue.pop_front()?;
        if !self.r.is_terminal(&s) {
            for t in self.r.successors(&s) {
                if self.seen.insert(t.clone()) {
                    self.queue.push_back(t);
                }
            }
        }
        Some(s)
    }
}
