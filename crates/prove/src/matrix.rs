//! Two-player zero-sum matrix games in mixed strategies, by linear programming: the stage game
//! of a state where both roles of a constant-sum game choose at once. Shared by the explicit
//! induction ([`InductionRule::Mixed`](crate::InductionRule::Mixed)) and the symbolic solver, so
//! both sides solve the same LP on the same matrix.
//!
//! For a payoff matrix `A` (rows: the maximiser's moves, columns: the minimiser's), the value is
//!
//! ```text
//! v = max_x min_j sum_i x_i A_ij  =  min_y max_i sum_j A_ij y_j     (x, y probability vectors)
//! ```
//!
//! found by the LP `max v  s.t.  sum_i x_i A_ij >= v for every column j, sum_i x_i = 1, x >= 0`
//! and its mirror for `y` ([`microlp`]'s simplex).

use std::fmt;

use microlp::{ComparisonOp, OptimizationDirection, Problem};

/// Values are rounded to this many parts per unit, so that the same stage game gives the same
/// value on both sides of a cross-check whatever order the LP saw the moves in.
pub const VALUE_SCALE: f64 = 1e6;

/// `v` rounded to [`VALUE_SCALE`].
pub fn round_value(v: f64) -> f64 {
    (v * VALUE_SCALE).round() / VALUE_SCALE
}

/// The solution of a matrix game.
#[derive(Clone, Debug, PartialEq)]
pub struct MixedSolution {
    /// The value for the row player (the maximiser), rounded by [`round_value`].
    pub value: f64,
    /// An optimal mixed strategy of each player, the row player's (one probability per row)
    /// first, then the column player's (one per column).
    pub strategies: [Vec<f64>; 2],
}

/// Why a matrix game has no solution.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MatrixError {
    /// No rows, no columns, or rows of different lengths.
    Shape,
    /// The LP solver failed (it should not on a well-formed matrix game).
    Solver(String),
}

impl fmt::Display for MatrixError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MatrixError::Shape => f.write_str("a matrix game needs a non-empty rectangular matrix"),
            MatrixError::Solver(why) => write!(f, "the LP of a matrix game failed: {why}"),
        }
    }
}

impl std::error::Error for MatrixError {}

/// The value and optimal mixed strategies of the matrix game `payoff` (`payoff[i][j]`: the row
/// player's payoff when it plays row `i` and the column player column `j`).
///
/// ```
/// use symgame_prove::solve_matrix_game;
///
/// // Matching pennies: 50 on average, each side playing half and half.
/// let s = solve_matrix_game(&[vec![100.0, 0.0], vec![0.0, 100.0]]).unwrap();
/// assert_eq!(s.value, 50.0);
/// assert!((s.strategies[0][0] - 0.5).abs() < 1e-9 && (s.strategies[1][1] - 0.5).abs() < 1e-9);
/// ```
pub fn solve_matrix_game(payoff: &[Vec<f64>]) -> Result<MixedSolution, MatrixError> {
    let rows = payoff.len();
    let columns = payoff.first().map_or(0, Vec::len);
    if rows == 0 || columns == 0 || payoff.iter().any(|r| r.len() != columns) {
        return Err(MatrixError::Shape);
    }
    // A pure saddle point needs no LP (and one role with a single move always has one).
    let lower = (0..rows)
        .map(|i| payoff[i].iter().copied().fold(f64::INFINITY, f64::min))
        .fold(f64::NEG_INFINITY, f64::max);
    let upper = (0..columns)
        .map(|j| {
            (0..rows)
                .map(|i| payoff[i][j])
                .fold(f64::NEG_INFINITY, f64::max)
        })
        .fold(f64::INFINITY, f64::min);
    if lower == upper {
        let best_row = (0..rows)
            .position(|i| payoff[i].iter().all(|&x| x >= lower))
            .unwrap_or(0);
        let best_column = (0..columns)
            .position(|j| (0..rows).all(|i| payoff[i][j] <= upper))
            .unwrap_or(0);
        return Ok(MixedSolution {
            value: round_value(lower),
            strategies: [unit(rows, best_row), unit(columns, best_column)],
        });
    }
    let (value, row) = maximin(rows, columns, |i, j| payoff[i][j])?;
    // The column player's problem is the row player's on the negated transpose.
    let (_, column) = maximin(columns, rows, |j, i| -payoff[i][j])?;
    Ok(MixedSolution {
        value: round_value(value),
        strategies: [row, column],
    })
}

/// `max v s.t. sum_i x_i a(i, j) >= v for all j, sum x = 1, x >= 0`: (v, x).
fn maximin(
    rows: usize,
    columns: usize,
    a: impl Fn(usize, usize) -> f64,
) -> Result<(f64, Vec<f64>), MatrixError> {
    let mut lp = Problem::new(OptimizationDirection::Maximize);
    let v = lp.add_var(1.0, (f64::NEG_INFINITY, f64::INFINITY));
    let x: Vec<_> = (0..rows).map(|_| lp.add_var(0.0, (0.0, 1.0))).collect();
    for j in 0..columns {
        let mut terms: Vec<_> = x
            .iter()
            .enumerate()
            .map(|(i, &xi)| (xi, a(i, j)))
            .filter(|(_, c)| *c != 0.0)
            .collect();
        terms.push((v, -1.0));
        lp.add_constraint(terms.as_slice(), ComparisonOp::Ge, 0.0);
    }
    let ones: Vec<_> = x.iter().map(|&xi| (xi, 1.0)).collect();
    lp.add_constraint(ones.as_slice(), ComparisonOp::Eq, 1.0);
    let solution = lp.solve().map_err(|e| MatrixError::Solver(e.to_string()))?;
    let strategy = x
        .iter()
        .map(|&xi| solution.var_value(xi).max(0.0))
        .collect();
    Ok((solution.objective(), strategy))
}

/// The pure strategy `at` among `n`.
fn unit(n: usize, at: usize) -> Vec<f64> {
    (0..n).map(|i| if i == at { 1.0 } else { 0.0 }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rock_paper_scissors_is_worth_half_with_uniform_play() {
        let (w, d, l) = (100.0, 50.0, 0.0);
        let s = solve_matrix_game(&[vec![d, l, w], vec![w, d, l], vec![l, w, d]]).unwrap();
        assert_eq!(s.value, 50.0);
        for p in s.strategies.iter().flatten() {
            assert!((p - 1.0 / 3.0).abs() < 1e-6, "{s:?}");
        }
    }

    #[test]
    fn values_need_not_be_multiples_of_fifty() {
        // The kicker scores against a wrong guess, and half the time against a right one on
        // the left: value 200/3 with the kicker shooting left 2/3 of the time.
        let s = solve_matrix_game(&[vec![50.0, 100.0], vec![100.0, 0.0]]).unwrap();
        assert_eq!(s.value, round_value(200.0 / 3.0));
        assert!((s.strategies[0][0] - 2.0 / 3.0).abs() < 1e-6, "{s:?}");
        assert!((s.strategies[1][0] - 2.0 / 3.0).abs() < 1e-6, "{s:?}");
    }

    #[test]
    fn saddle_points_and_single_moves_are_pure() {
        let s = solve_matrix_game(&[vec![30.0, 70.0], vec![10.0, 0.0]]).unwrap();
        assert_eq!(
            (s.value, s.strategies),
            (30.0, [vec![1.0, 0.0], vec![1.0, 0.0]])
        );
        let one = solve_matrix_game(&[vec![20.0, 60.0, 40.0]]).unwrap();
        assert_eq!(one.value, 20.0);
        assert_eq!(solve_matrix_game(&[]), Err(MatrixError::Shape));
        assert_eq!(
            solve_matrix_game(&[vec![1.0], vec![]]),
            Err(MatrixError::Shape)
        );
    }
}
