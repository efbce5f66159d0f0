//! A fast hasher and the bounded transposition table of df-pn and alpha-beta.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hash, Hasher};

use crate::model::{Expander, GameModel};
use crate::search::{Budget, Limits, Stats, StopReason};

/// The multiply-rotate hash of rustc (FxHash) with a final mix, so that high bits are usable.
#[derive(Clone, Copy, Default)]
pub(crate) struct FxHasher {
    hash: u64,
}

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            self.add(u64::from_le_bytes(chunk.try_into().expect("8 bytes")));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word) ^ ((rest.len() as u64) << 59));
        }
    }

    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }

    fn write_u16(&mut self, n: u16) {
        self.add(u64::from(n));
    }

    fn write_u32(&mut self, n: u32) {
        self.add(u64::from(n));
    }

    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    fn finish(&self) -> u64 {
        // splitmix64's finaliser: every input bit reaches the high bits used for bucket indexes.
        let mut z = self.hash;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// Builds [`FxHasher`]s.
pub(crate) type FxBuild = BuildHasherDefault<FxHasher>;
/// A hash map with [`FxHasher`].
pub(crate) type FxHashMap<K, V> = HashMap<K, V, FxBuild>;
/// A hash set with [`FxHasher`].
pub(crate) type FxHashSet<K> = HashSet<K, FxBuild>;

fn hash_of<S: Hash>(state: &S) -> u64 {
    let mut hasher = FxHasher::default();
    state.hash(&mut hasher);
    hasher.finish()
}

struct Slot<S, V> {
    state: S,
    work: u64,
    value: V,
}

/// Entries per bucket: a new entry evicts the entry of its bucket with the least work.
const WAYS: usize = 4;

/// A transposition table holding at most `capacity` entries, keyed by state.
///
/// Set-associative: a state hashes to a bucket of up to [`WAYS`] slots; when the bucket is full,
/// a new entry replaces the one with the smallest `work` (the smallest searched subtree). The
/// slot array starts small and doubles (when a bucket overflows) up to the capacity, so small
/// searches stay cheap.
pub(crate) struct Table<S, V> {
    slots: Vec<Option<Slot<S, V>>>,
    ways: usize,
    buckets: usize,
    max_buckets: usize,
    len: usize,
}

impl<S: Hash + Eq, V: Copy> Table<S, V> {
    /// A table of at most `capacity` entries (at least 1).
    pub(crate) fn new(capacity: usize) -> Self {
        let ways = WAYS.min(capacity.max(1));
        let max_buckets = (capacity / ways).max(1);
        let buckets = max_buckets.min(256);
        let mut slots = Vec::new();
        slots.resize_with(buckets * ways, || None);
        Table {
            slots,
            ways,
            buckets,
            max_buckets,
            len: 0,
        }
    }

    /// The approximate size in bytes of one slot.
    pub(crate) fn slot_bytes() -> usize {
        std::mem::size_of::<Option<Slot<S, V>>>()
    }

    /// The number of entries.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The approximate memory of the slot array in bytes.
    pub(crate) fn bytes(&self) -> usize {
        self.slots.len() * Self::slot_bytes()
    }

    fn bucket(&self, hash: u64) -> std::ops::Range<usize> {
        let bucket = ((u128::from(hash) * self.buckets as u128) >> 64) as usize;
        bucket * self.ways..(bucket + 1) * self.ways
    }

    /// The value and work stored for `state`.
    pub(crate) fn get(&self, state: &S) -> Option<(V, u64)> {
        let range = self.bucket(hash_of(state));
        self.slots[range]
            .iter()
            .flatten()
            .find(|slot| slot.state == *state)
            .map(|slot| (slot.value, slot.work))
    }

    /// Stores `value` for `state`, replacing its old entry. A full bucket doubles the table
    /// while below capacity, and otherwise loses its least-work entry.
    pub(crate) fn store(&mut self, state: S, work: u64, value: V) {
        let hash = hash_of(&state);
        let mut new = Slot { state, work, value };
        while self.buckets < self.max_buckets {
            match self.insert(hash, new) {
                Ok(()) => return,
                Err(back) => {
                    new = back;
                    self.grow();
                }
            }
        }
        if let Err(new) = self.insert(hash, new) {
            self.evict(hash, new);
        }
    }

    /// Puts `new` in its bucket if it is there already or a slot is free.
    fn insert(&mut self, hash: u64, new: Slot<S, V>) -> Result<(), Slot<S, V>> {
        let range = self.bucket(hash);
        let bucket = &mut self.slots[range];
        if let Some(slot) = bucket
            .iter_mut()
            .flatten()
            .find(|slot| slot.state == new.state)
        {
            *slot = new;
            return Ok(());
        }
        match bucket.iter_mut().find(|slot| slot.is_none()) {
            Some(empty) => {
                *empty = Some(new);
                self.len += 1;
                Ok(())
            }
            None => Err(new),
        }
    }

    /// Replaces the least-work entry of the full bucket of `hash` by `new`.
    fn evict(&mut self, hash: u64, new: Slot<S, V>) {
        let range = self.bucket(hash);
        let victim = self.slots[range]
            .iter_mut()
            .min_by_key(|slot| slot.as_ref().map_or(0, |slot| slot.work))
            .expect("buckets are not empty");
        *victim = Some(new);
    }

    fn grow(&mut self) {
        self.buckets = (self.buckets * 2).min(self.max_buckets);
        let mut slots = Vec::new();
        slots.resize_with(self.buckets * self.ways, || None);
        let old = std::mem::replace(&mut self.slots, slots);
        self.len = 0;
        for slot in old.into_iter().flatten() {
            let hash = hash_of(&slot.state);
            if let Err(slot) = self.insert(hash, slot) {
                self.evict(hash, slot);
            }
        }
    }
}

/// What the depth-first searches with a transposition table (df-pn, alpha-beta) share: the
/// game and its expander, the table, the states on the current path (a repetition is scored,
/// never searched), the budget, and why the search stopped early.
pub(crate) struct TableSearch<'a, M: GameModel, V> {
    /// The game.
    pub(crate) model: &'a M,
    /// Legal joint moves and successors of a state.
    pub(crate) expander: Expander<'a, M>,
    /// The transposition table.
    pub(crate) table: Table<M::State, V>,
    /// The states on the current path from the root.
    pub(crate) path: FxHashSet<M::State>,
    /// Expansions, peak memory and the limits.
    pub(crate) budget: Budget<'a>,
    /// Set when a limit stopped the search.
    pub(crate) stop: Option<StopReason>,
}

impl<'a, M: GameModel, V: Copy> TableSearch<'a, M, V> {
    /// A search of `model` with a table of `capacity` entries within `limits` (those beside
    /// the table: [`Config::limits_beside_the_table`](crate::Config)).
    pub(crate) fn new(model: &'a M, capacity: usize, limits: &'a Limits) -> Self {
        TableSearch {
            model,
            expander: Expander::new(model),
            table: Table::new(capacity),
            path: FxHashSet::default(),
            budget: Budget::new(limits),
            stop: None,
        }
    }

    /// The statistics at the end of the search, the table's entries counted in the peak.
    pub(crate) fn stats(&mut self, proof_size: Option<u64>) -> Stats {
        self.budget.peak = self.budget.peak.max(self.table.len() as u64);
        self.budget.stats(proof_size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_keeps_capacity_and_evicts_least_work() {
        let mut table: Table<u32, u32> = Table::new(8);
        for i in 0..1000u32 {
            table.store(i, u64::from(i % 7), i);
            assert!(table.len() <= 8);
        }
        // The latest entry is always present.
        assert_eq!(table.get(&999), Some((999, 999 % 7)));
        let mut one: Table<u32, u32> = Table::new(1);
        one.store(1, 5, 10);
        one.store(2, 1, 20);
        assert_eq!(one.get(&1), None);
        assert_eq!(one.get(&2), Some((20, 1)));
    }

    #[test]
    fn table_grows_without_losing_entries() {
        let mut table: Table<u64, u64> = Table::new(1 << 16);
        for i in 0..10_000 {
            table.store(i, 1, i * 2);
        }
        let found = (0..10_000)
            .filter(|&i| table.get(&i) == Some((i * 2, 1)))
            .count();
        assert!(found > 9_900, "only {found} of 10000 entries kept");
    }
}
