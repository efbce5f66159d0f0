//! Stopping an operation from inside ([`BddEngine::set_stop_check`]): an oxidd operation that
//! creates many nodes fails with [`BddError::Stopped`] once the check answers a reason, the
//! engine stays usable, and the same operation without the check gives the right function.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use num_bigint::BigUint;
use symgame_bdd::{
    arm_stop, BddEngine, BddError, BiodivineEngine, EngineConfig, OxiddEngine, StopCheck,
    StopReason,
};

/// Pairs `x_i, y_i` with every `x` above every `y`: `OR_i (x_i AND y_i)` then has about
/// `2^(N+1)` nodes, and its last disjunction creates far more than the 64 Ki nodes after which
/// a worker takes new node slots (where the check is asked).
const N: u32 = 18;

fn engine() -> OxiddEngine {
    let config = EngineConfig {
        threads: 1,
        node_capacity: 1 << 22,
        cache_capacity: 1 << 16,
    };
    OxiddEngine::new(2 * N, &config).unwrap()
}

/// `OR_{i < N-1} (x_i AND y_i)` and the last term `x_{N-1} AND y_{N-1}`.
fn operands<E: BddEngine>(e: &E) -> (E::Bdd, E::Bdd) {
    let term = |i: u32| e.and(&e.var(i), &e.var(N + i)).unwrap();
    let mut most = e.constant(false);
    for i in 0..N - 1 {
        most = e.or(&most, &term(i)).unwrap();
    }
    (most, term(N - 1))
}

/// The check that counts how often it was asked and answers `answer`.
fn counting(answer: Option<StopReason>) -> (StopCheck, Arc<AtomicUsize>) {
    let asked = Arc::new(AtomicUsize::new(0));
    let count = asked.clone();
    let check: StopCheck = Arc::new(move || {
        count.fetch_add(1, Ordering::Relaxed);
        answer
    });
    (check, asked)
}

/// The models of `OR_i (x_i AND y_i)` over `2N` variables: all assignments but those where no
/// pair is true, `4^N - 3^N`.
fn models() -> BigUint {
    BigUint::from(4u32).pow(N) - BigUint::from(3u32).pow(N)
}

#[test]
fn a_stop_check_stops_an_oxidd_operation_from_inside_and_the_engine_goes_on() {
    let e = engine();
    let (most, last) = operands(&e);
    let (check, asked) = counting(Some(StopReason::TimeLimit));
    {
        let _armed = arm_stop(&e, check);
        assert_eq!(
            e.or(&most, &last),
            Err(BddError::Stopped(StopReason::TimeLimit))
        );
    }
    assert!(
        asked.load(Ordering::Relaxed) > 0,
        "the check was never asked"
    );
    // Disarmed: the same operation finishes and gives the function.
    let f = e.or(&most, &last).unwrap();
    assert_eq!(e.sat_count(&f, 2 * N), models());
    assert!(e.node_count(&f) > 1 << 18, "{} nodes", e.node_count(&f));
}

#[test]
fn a_check_that_does_not_stop_changes_no_result() {
    let e = engine();
    let (most, last) = operands(&e);
    let (check, asked) = counting(None);
    let _armed = arm_stop(&e, check);
    let f = e.or(&most, &last).unwrap();
    assert!(
        asked.load(Ordering::Relaxed) > 0,
        "the check was never asked"
    );
    assert_eq!(e.sat_count(&f, 2 * N), models());
}

#[test]
fn an_armed_check_is_replaced_and_put_back() {
    let e = engine();
    let (outer, _) = counting(Some(StopReason::Cancelled));
    let (inner, _) = counting(None);
    let armed = arm_stop(&e, outer);
    {
        let _inner = arm_stop(&e, inner);
        // The inner check does not stop: a large operation finishes.
        let (most, last) = operands(&e);
        assert!(e.or(&most, &last).is_ok());
    }
    // The outer one is back: the next large function (another than the one above, whose nodes
    // are still in the table) stops with its reason.
    let mut f = e.constant(false);
    let stopped = (0..N).try_for_each(|i| {
        let t = e.and(&e.var(i), &e.nvar(N + i))?;
        f = e.or(&f, &t)?;
        Ok::<(), BddError>(())
    });
    assert_eq!(stopped, Err(BddError::Stopped(StopReason::Cancelled)));
    drop(armed);
    assert!(e.set_stop_check(None).is_none(), "nothing left installed");
}

#[test]
fn biodivine_ignores_a_stop_check() {
    let e = BiodivineEngine::new(2 * N, &EngineConfig::small()).unwrap();
    let (check, _) = counting(Some(StopReason::TimeLimit));
    let _armed = arm_stop(&e, check);
    let (most, last) = operands(&e);
    let f = e.or(&most, &last).unwrap();
    assert_eq!(e.sat_count(&f, 2 * N), models());
}
