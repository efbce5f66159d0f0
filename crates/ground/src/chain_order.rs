//! The order in which a projection chain (`decompose.rs`) joins a rule's positive literals,
//! chosen by a cost model of its joins.
//!
//! After each joined literal the chain keeps only the variables still needed (by the head, a
//! literal not yet joined, or a constraint not yet decidable). A join's cost is modelled as
//! [`DOMAIN_GUESS`] to the power of the number of variables it binds: what is known before
//! grounding is which variables a join binds, not how many values each takes. The cheapest
//! order under this model is found exactly, by dynamic programming over the sets of joined
//! literals, for bodies of up to [`EXACT_MAX_LITERALS`] positive literals.
//!
//! Example (`gt_attrition`): `next(score xn) <= true(score x), does(w, bid x1), does(b, bid
//! y1), min(x1, y1, m), w1(s), sum(x2, m, x), sum(x2, s, xn)`. The greedy order (the score,
//! then the `sum` that shares its variable, then `min`) binds `x2`, `m`, `x1` and `y1` in one
//! join (about 100^3 ground rules); joining the bids and `min` first leaves `m` alone, then
//! `sum` and `true` leave `x2` alone: at most three variables bound in any join.

/// The guessed number of values of a variable.
const DOMAIN_GUESS: f64 = 16.0;
/// Bodies with more positive literals keep the greedy order (2^n sets of literals).
pub(crate) const EXACT_MAX_LITERALS: usize = 12;

/// Variables as bits (a rule's variables are numbered from 0; rules with more than 128 keep
/// the greedy order).
pub(crate) type VarSet = u128;

/// The joins of a rule body as the cost model sees them.
pub(crate) struct Joins {
    /// The variables of each positive literal.
    pub pos: Vec<VarSet>,
    /// The variables of each constraint (negative literal, `distinct`) that is attached to the
    /// chain once all of them are bound.
    pub constraints: Vec<VarSet>,
    /// Variables needed to the end: the head's and those of `=` constraints.
    pub always: VarSet,
}

impl Joins {
    /// The variables still needed after joining the literals in `joined` (a set of literal
    /// indices as bits).
    fn live(&self, joined: u32) -> VarSet {
        let mut bound: VarSet = 0;
        let mut later: VarSet = self.always;
        for (k, &v) in self.pos.iter().enumerate() {
            if joined & (1 << k) != 0 {
                bound |= v;
            } else {
                later |= v;
            }
        }
        for &c in &self.constraints {
            if c & !bound != 0 {
                later |= c;
            }
        }
        bound & later
    }

    /// The modelled cost of joining the literals in `order`.
    #[cfg(test)]
    pub fn cost(&self, order: &[usize]) -> f64 {
        let mut joined = 0u32;
        let mut total = 0.0;
        for &k in order {
            let width = (self.live(joined) | self.pos[k]).count_ones();
            total += DOMAIN_GUESS.powi(width as i32);
            joined |= 1 << k;
        }
        total
    }

    /// The most variables any join of `order` binds.
    pub fn max_width(&self, order: &[usize]) -> u32 {
        let mut joined = 0u32;
        let mut most = 0;
        for &k in order {
            most = most.max((self.live(joined) | self.pos[k]).count_ones());
            joined |= 1 << k;
        }
        most
    }

    /// The cheapest order under the model, or `None` for bodies over
    /// [`EXACT_MAX_LITERALS`] literals. Ties keep the literals in source order as far as they can (the order a description is written in often follows its data flow, which demand restriction exploits).
    pub fn cheapest(&self) -> Option<Vec<usize>> {
        let n = self.pos.len();
        if n > EXACT_MAX_LITERALS {
            return None;
        }
        let full = (1u32 << n) - 1;
        let live: Vec<VarSet> = (0..=full).map(|s| self.live(s)).collect();
        let mut best = vec![f64::INFINITY; full as usize + 1];
        let mut last = vec![usize::MAX; full as usize + 1];
        best[0] = 0.0;
        for s in 1..=full {
            for k in 0..n {
                if s & (1 << k) == 0 {
                    continue;
                }
                let before = s & !(1 << k);
                let width = (live[before as usize] | self.pos[k]).count_ones();
                let c = best[before as usize] + DOMAIN_GUESS.powi(width as i32);
                if c <= best[s as usize] * (1.0 + 1e-9) {
                    best[s as usize] = c;
                    last[s as usize] = k;
                }
            }
        }
        let mut order = Vec::with_capacity(n);
        let mut s = full;
        while s != 0 {
            let k = last[s as usize];
            order.push(k);
            s &= !(1 << k);
        }
        order.reverse();
        Some(order)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(vs: &[u32]) -> VarSet {
        vs.iter().fold(0, |a, &v| a | 1 << v)
    }

    #[test]
    fn bids_are_joined_before_the_score() {
        // vars: xn 0, x 1, x1 2, y1 3, m 4, s 5, x2 6
        let j = Joins {
            pos: vec![
                set(&[1]),
                set(&[2]),
                set(&[3]),
                set(&[2, 3, 4]),
                set(&[5]),
                set(&[6, 4, 1]),
                set(&[6, 5, 0]),
            ],
            constraints: vec![],
            always: set(&[0]),
        };
        let order = j.cheapest().unwrap();
        let greedy = [0, 5, 3, 1, 2, 4, 6];
        assert!(j.cost(&order) < j.cost(&greedy), "{order:?}");
        // no join binds more than three variables
        let mut joined = 0u32;
        for &k in &order {
            assert!((j.live(joined) | j.pos[k]).count_ones() <= 3, "{order:?}");
            joined |= 1 << k;
        }
    }

    #[test]
    fn a_constraint_keeps_its_variables_until_it_can_be_decided() {
        // p(a, b), q(b, c), not r(a, c), head h(c)
        let j = Joins {
            pos: vec![set(&[0, 1]), set(&[1, 2])],
            constraints: vec![set(&[0, 2])],
            always: set(&[2]),
        };
        assert_eq!(j.live(0b01), set(&[0, 1]));
        assert_eq!(j.live(0b11), set(&[2]));
    }
}
