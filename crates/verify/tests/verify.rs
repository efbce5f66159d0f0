//! `verify` on small bundled games: every state, a sample, both engines.

use std::path::PathBuf;
use symgame_bdd::Backend;
use symgame_verify::{verify, Mode, Sampling, VerifyOptions};

fn game(name: &str) -> symgame_ground::GroundGame {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("../../gdl/{name}.kif"));
    symgame_ground::load(&path, &Default::default()).expect("the game grounds")
}

#[test]
fn every_state_agrees_on_both_engines() {
    let nim = game("nim_1_2_3");
    for backend in Backend::ALL {
        let opts = VerifyOptions {
            backend,
            ..VerifyOptions::default()
        };
        let r = verify(&nim, &opts, |_| {}).expect("verify runs");
        assert_eq!(r.mode, Mode::All);
        assert!(!r.disagrees(), "{backend}: {r:?}");
        assert_eq!(r.explicit_states, Some(r.states_checked));
        assert_eq!(r.reachable_states, r.states_checked.into());
        for t in &r.algos {
            // Two roles a state; nothing left undecided in so small a game.
            assert_eq!(t.agreed, 2 * r.states_checked, "{backend}: {t:?}");
        }
    }
}

#[test]
fn a_sample_is_reproducible_and_reported_as_such() {
    let hanoi = game("hanoi_3");
    let opts = VerifyOptions {
        states: Sampling {
            all_limit: 0,
            size: 25,
            seed: 7,
        },
        ..VerifyOptions::default()
    };
    let mut seen = 0;
    let r = verify(&hanoi, &opts, |p| seen = p.states_checked).expect("verify runs");
    assert_eq!(r.mode, Mode::Sample);
    assert_eq!((r.states_checked, seen), (25, 25));
    assert_eq!(r.explicit_states, None);
    assert!(!r.disagrees(), "{r:?}");
    let json = serde_json::to_value(&r).expect("the report serialises");
    assert_eq!(json["mode"], "sample");
    assert_eq!(json["algos"][0]["algo"], "dfpn");
    assert!(json["reachable_states"].is_string(), "{json}");
}
