//! One explicit answer against one symbolic value.

use symgame_prove::ValueOutcome;

/// What an explicit answer says about a symbolic value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The explicit search proved the same value.
    Agreed,
    /// The search stopped at its limit, with bounds that contain the symbolic value.
    Undecided,
    /// The explicit answer contradicts the symbolic value.
    Disagreed {
        /// The exact explicit value, or the bound that excludes the symbolic value.
        explicit: u8,
        /// Whether the search had stopped at its limit (its bounds exclude the value).
        undecided: bool,
    },
}

/// Compares the explicit answer `explicit` with the symbolic value `symbolic` of the same
/// state and role: an exact value that differs contradicts it, and so do bounds (after a limit)
/// that exclude it.
pub fn compare(symbolic: u8, explicit: &ValueOutcome) -> Verdict {
    match *explicit {
        ValueOutcome::Exact(x) if x == symbolic => Verdict::Agreed,
        ValueOutcome::Exact(x) => Verdict::Disagreed {
            explicit: x,
            undecided: false,
        },
        ValueOutcome::Stopped { lower, .. } if symbolic < lower => Verdict::Disagreed {
            explicit: lower,
            undecided: true,
        },
        ValueOutcome::Stopped { upper, .. } if symbolic > upper => Verdict::Disagreed {
            explicit: upper,
            undecided: true,
        },
        ValueOutcome::Stopped { .. } => Verdict::Undecided,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use symgame_limits::StopReason;

    fn stopped(lower: u8, upper: u8) -> ValueOutcome {
        ValueOutcome::Stopped {
            reason: StopReason::NodeLimit,
            lower,
            upper,
        }
    }

    #[test]
    fn exact_values_agree_or_disagree() {
        assert_eq!(compare(50, &ValueOutcome::Exact(50)), Verdict::Agreed);
        assert_eq!(
            compare(50, &ValueOutcome::Exact(100)),
            Verdict::Disagreed {
                explicit: 100,
                undecided: false
            }
        );
    }

    #[test]
    fn bounds_are_undecided_unless_they_exclude_the_value() {
        assert_eq!(compare(50, &stopped(0, 100)), Verdict::Undecided);
        assert_eq!(compare(50, &stopped(50, 50)), Verdict::Undecided);
        assert_eq!(
            compare(0, &stopped(50, 100)),
            Verdict::Disagreed {
                explicit: 50,
                undecided: true
            }
        );
        assert_eq!(
            compare(100, &stopped(0, 50)),
            Verdict::Disagreed {
                explicit: 50,
                undecided: true
            }
        );
    }
}
