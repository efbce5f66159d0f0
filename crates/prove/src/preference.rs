//! The preference rule: the order in which a role prefers outcomes (reward vectors), the one
//! definition shared by the explicit [`maxn_values`](crate::maxn_values) and the symbolic
//! solver.

/// The order in which role `p` prefers `outcomes` (one reward per role each), best first, as
/// indexes into `outcomes`.
///
/// Each outcome gets a key from its number of rewards `n`; larger keys come first, and equal
/// keys keep their index order (ascending):
///
/// * `n == 1` (a single role): its own reward.
/// * `n == 2`: (own reward − the other role's reward, own reward). For constant-sum games this
///   is minimax; in general-sum games a role prefers beating the other to scoring high alone.
/// * `n >= 3`: max^n, (own reward, −(sum of the other roles' rewards)): a role maximises its
///   own reward and, among outcomes equal for it, prefers the ones worst for the others
///   together (the paranoid tie-break).
///
/// A reward the outcome lacks (`p >= n`) counts as 0; a role outside every outcome thus keeps
/// the order of the outcomes' other components.
///
/// ```
/// use symgame_prove::preference;
///
/// // Two roles: the difference first, then the own reward.
/// let two = [vec![50, 50], vec![100, 0], vec![60, 40], vec![0, 0]];
/// assert_eq!(preference(&two, 0), vec![1, 2, 0, 3]);
/// // Three roles: the own reward first, then the others' sum, smaller first.
/// let three = [vec![50, 50, 0], vec![50, 0, 0], vec![100, 100, 100], vec![0, 0, 0]];
/// assert_eq!(preference(&three, 0), vec![2, 1, 0, 3]);
/// ```
pub fn preference(outcomes: &[Vec<u8>], p: usize) -> Vec<usize> {
    best_first(outcomes, |o| {
        let own = o.get(p).map_or(0, |&v| i32::from(v));
        let others = others_sum(o, p);
        match o.len() {
            0 | 1 => (own, own),
            2 => (own - others, own),
            _ => (own, -others),
        }
    })
}

/// The sum of the rewards of the roles other than `p` in the outcome `o`.
fn others_sum(o: &[u8], p: usize) -> i32 {
    o.iter()
        .enumerate()
        .filter(|&(r, _)| r != p)
        .map(|(_, &v)| i32::from(v))
        .sum()
}

/// The indexes of `outcomes`, the largest `key` first (equal keys in index order).
fn best_first(outcomes: &[Vec<u8>], key: impl Fn(&[u8]) -> (i32, i32)) -> Vec<usize> {
    let mut order: Vec<usize> = (0..outcomes.len()).collect();
    order.sort_by(|&a, &b| key(&outcomes[b]).cmp(&key(&outcomes[a])).then(a.cmp(&b)));
    order
}

#[cfg(test)]
mod tests {
    use super::{best_first, others_sum, preference};

    /// The rule before it moved here from the symbolic crate, for one and two roles.
    fn old_rule(outcomes: &[Vec<u8>], p: usize) -> Vec<usize> {
        best_first(outcomes, |o| {
            let own = i32::from(o[p]);
            let other = others_sum(o, p);
            if o.len() == 1 {
                (own, own)
            } else {
                (own - other, own)
            }
        })
    }

    #[test]
    fn one_and_two_roles_keep_the_old_order() {
        let values = [0u8, 25, 50, 75, 100, 30];
        let two: Vec<Vec<u8>> = values
            .iter()
            .flat_map(|&a| values.iter().map(move |&b| vec![a, b]))
            .collect();
        for p in 0..2 {
            assert_eq!(preference(&two, p), old_rule(&two, p));
        }
        let one: Vec<Vec<u8>> = values.iter().map(|&v| vec![v]).collect();
        assert_eq!(preference(&one, 0), old_rule(&one, 0));
        assert_eq!(preference(&one, 0), vec![4, 3, 2, 5, 1, 0]);
    }

    #[test]
    fn two_roles_prefer_the_difference_then_the_own_reward() {
        let outcomes = [vec![50, 50], vec![100, 100], vec![0, 100], vec![60, 0]];
        // Role 0: 60-0 = 60, then 50-50 = 0 and 100-100 = 0 (own 100 first), then -100.
        assert_eq!(preference(&outcomes, 0), vec![3, 1, 0, 2]);
        assert_eq!(preference(&outcomes, 1), vec![2, 1, 0, 3]);
    }

    #[test]
    fn three_roles_follow_maxn_with_the_paranoid_tie_break() {
        let outcomes = [
            vec![50, 50, 50],
            vec![50, 0, 100],
            vec![50, 100, 0],
            vec![100, 100, 100],
            vec![50, 0, 0],
        ];
        // Own reward first: 100 (index 3); then own 50 with others' sums 0, then 100 three
        // times (index order).
        assert_eq!(preference(&outcomes, 0), vec![3, 4, 0, 1, 2]);
        // Role 1: own 100 twice (others 100 and 200), own 50, own 0 twice (others 150, 50).
        assert_eq!(preference(&outcomes, 1), vec![2, 3, 0, 4, 1]);
        // The old difference rule would have put [50, 0, 0] before [100, 100, 100] for role 0.
        assert_eq!(old_rule(&outcomes, 0)[0], 4);
    }

    #[test]
    fn ties_keep_the_index_order() {
        let outcomes = [vec![0, 100, 0], vec![0, 0, 100], vec![0, 100, 0]];
        assert_eq!(preference(&outcomes, 0), vec![0, 1, 2]);
        assert_eq!(preference(&[], 0), Vec::<usize>::new());
    }

    #[test]
    fn a_missing_reward_counts_as_zero() {
        let outcomes = [vec![100], vec![]];
        assert_eq!(preference(&outcomes, 3), vec![0, 1]);
        assert_eq!(preference(&[vec![20, 10], vec![30, 20]], 5), vec![0, 1]);
    }
}
