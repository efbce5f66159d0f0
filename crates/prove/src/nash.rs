//! Pure-strategy Nash equilibria of one-shot stage games, state by state: the explicit
//! opinion on the symbolic report of the same name.
//!
//! A one-shot stage game is a non-terminal state whose every legal joint move leads to a
//! terminal state: the joint move decides the rewards outright. A joint move is a pure
//! equilibrium when no role can raise its own reward by changing only its own move (to another
//! of its legal moves).

use crate::model::GameModel;

/// The rewards of every pure equilibrium of the one-shot stage game at `state`, in joint-move
/// order (one entry per equilibrium joint move, so equal rewards may repeat); `None` when
/// `state` is terminal or some legal joint move leads to a non-terminal state.
pub fn one_shot_equilibria<G: GameModel>(game: &G, state: &G::State) -> Option<Vec<Vec<u8>>> {
    if game.is_terminal(state) {
        return None;
    }
    let roles = game.num_roles();
    let moves: Vec<Vec<G::Move>> = (0..roles)
        .map(|r| {
            let mut out = Vec::new();
            game.legal_moves(state, r, &mut out);
            out
        })
        .collect();
    if moves.iter().any(Vec::is_empty) {
        return None;
    }
    // rewards[k]: the rewards after joint move k, k read in mixed radix over the roles' moves.
    let total: usize = moves.iter().map(Vec::len).product();
    let mut rewards = Vec::with_capacity(total);
    let mut index = vec![0usize; roles];
    for _ in 0..total {
        let joint: Vec<G::Move> = (0..roles).map(|r| moves[r][index[r]].clone()).collect();
        let next = game.next_state(state, &joint);
        if !game.is_terminal(&next) {
            return None;
        }
        rewards.push((0..roles).map(|r| game.goal(&next, r)).collect::<Vec<u8>>());
        // The last role's move varies fastest.
        for r in (0..roles).rev() {
            index[r] += 1;
            if index[r] < moves[r].len() {
                break;
            }
            index[r] = 0;
        }
    }
    let mut stride = vec![1usize; roles];
    for r in (0..roles.saturating_sub(1)).rev() {
        stride[r] = stride[r + 1] * moves[r + 1].len();
    }
    let mut out = Vec::new();
    for (k, here) in rewards.iter().enumerate() {
        let stable = (0..roles).all(|r| {
            let own = k / stride[r] % moves[r].len();
            let base = k - own * stride[r];
            (0..moves[r].len()).all(|m| rewards[base + m * stride[r]][r] <= here[r])
        });
        if stable {
            out.push(here.clone());
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A one-shot two-role game: each role picks 0 or 1; `pay[a][b]` are the rewards.
    struct Matrix {
        pay: [[[u8; 2]; 2]; 2],
    }

    impl GameModel for Matrix {
        /// `None` before the move, `Some((a, b))` after.
        type State = Option<(usize, usize)>;
        type Move = usize;
        fn num_roles(&self) -> usize {
            2
        }
        fn initial_state(&self) -> Self::State {
            None
        }
        fn is_terminal(&self, s: &Self::State) -> bool {
            s.is_some()
        }
        fn goal(&self, s: &Self::State, role: usize) -> u8 {
            let (a, b) = s.expect("goals are read at terminal states");
            self.pay[a][b][role]
        }
        fn legal_moves(&self, _: &Self::State, _: usize, out: &mut Vec<usize>) {
            out.extend([0, 1]);
        }
        fn next_state(&self, _: &Self::State, joint: &[usize]) -> Self::State {
            Some((joint[0], joint[1]))
        }
    }

    #[test]
    fn the_dilemma_has_one_equilibrium_pennies_none_coordination_two() {
        let dilemma = Matrix {
            pay: [[[60, 60], [0, 100]], [[100, 0], [20, 20]]],
        };
        let pennies = Matrix {
            pay: [[[100, 0], [0, 100]], [[0, 100], [100, 0]]],
        };
        let coordination = Matrix {
            pay: [[[100, 70], [0, 0]], [[0, 0], [70, 100]]],
        };
        assert_eq!(
            one_shot_equilibria(&dilemma, &None),
            Some(vec![vec![20, 20]])
        );
        assert_eq!(one_shot_equilibria(&pennies, &None), Some(vec![]));
        assert_eq!(
            one_shot_equilibria(&coordination, &None),
            Some(vec![vec![100, 70], vec![70, 100]])
        );
        assert_eq!(one_shot_equilibria(&dilemma, &Some((0, 0))), None);
    }
}
