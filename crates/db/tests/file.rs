//! Database files: round trips on random sets and values, and a reader that rejects every
//! truncated, bit-flipped, foreign, future or inconsistent file with the right error kind.
//!
//! The corruption tests decode the layout with their own code, from the documentation in
//! `docs/formats/database.md`, so they also check that the documentation matches the files.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use proptest::prelude::*;
use symgame_bdd::{BddEngine, BddNodes, BiodivineEngine, EngineConfig, VarSet};
use symgame_db::{
    write, Database, ErrorKind, Fingerprint, Outcome, PerfectHash, Schema, Writer, VERSION,
};

const NUM_VARS: u32 = 12;

fn engine() -> &'static BiodivineEngine {
    static E: OnceLock<BiodivineEngine> = OnceLock::new();
    E.get_or_init(|| BiodivineEngine::new(NUM_VARS, &EngineConfig::small()).unwrap())
}

/// A fresh directory for one test.
fn dir(name: &str) -> PathBuf {
    symgame_testkit::scratch_dir!("db-file-tests", name)
}

fn even_vars() -> VarSet {
    (0..NUM_VARS).step_by(2).collect()
}

/// A small hand-made file: two layers over the even variables, three outcomes (2 bits).
fn sample() -> (Schema, Vec<(u32, BddNodes, Vec<u32>)>) {
    let e = engine();
    let l0 = e.cube(&[(0, true), (2, false)]).unwrap();
    let l1 = e
        .or(&e.var(4), &e.and(&e.var(6), &e.var(10)).unwrap())
        .unwrap();
    let l1 = e.and_not(&l1, &l0).unwrap();
    let schema = Schema {
        fingerprint: [7; 32],
        metadata: br#"{"roles":["x","o"]}"#.to_vec(),
        num_vars: NUM_VARS,
        counted: even_vars(),
        outcomes: vec![
            Outcome::new(vec![100, 0]),
            Outcome::new(vec![50, 50]),
            Outcome::new(vec![0, 100]),
        ],
    };
    let mut layers = Vec::new();
    for (k, f) in [(0u32, l0), (3, l1)] {
        let t = e.export(&f);
        let n = *PerfectHash::<u64>::new(&t, &schema.counted).unwrap().len();
        let values = (0..n).map(|r| (r * 7 % 3) as u32).collect();
        layers.push((k, t, values));
    }
    (schema, layers)
}

fn write_sample(path: &Path) -> Vec<u8> {
    let (schema, layers) = sample();
    let refs: Vec<(u32, &BddNodes, &[u32])> = layers
        .iter()
        .map(|(k, t, v)| (*k, t, v.as_slice()))
        .collect();
    write(path, &schema, &refs).unwrap();
    std::fs::read(path).unwrap()
}

fn le32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

fn le64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

/// One section as the documentation describes it: kind, index, byte range.
struct Section {
    kind: u32,
    index: u32,
    start: usize,
    end: usize,
}

fn sections(b: &[u8]) -> (usize, Vec<Section>) {
    let table = le64(b, 56) as usize;
    let count = le32(b, 64) as usize;
    let secs = (0..count)
        .map(|k| {
            let e = table + 32 * k;
            let start = le64(b, e + 8) as usize;
            Section {
                kind: le32(b, e),
                index: le32(b, e + 4),
                start,
                end: start + le64(b, e + 16) as usize,
            }
        })
        .collect();
    (table, secs)
}

fn section_name(s: &Section) -> String {
    match s.kind {
        1 => "metadata".into(),
        2 => "variables".into(),
        3 => "outcomes".into(),
        4 => format!("layer {}", s.index),
        k => panic!("kind {k}"),
    }
}

/// Recompute every checksum after an edit: sections, section table, header.
fn refresh_checksums(b: &mut [u8]) {
    let (table, secs) = sections(b);
    for (k, s) in secs.iter().enumerate() {
        let crc = crc32fast::hash(&b[s.start..s.end]);
        b[table + 32 * k + 24..table + 32 * k + 28].copy_from_slice(&crc.to_le_bytes());
    }
    let tcrc = crc32fast::hash(&b[table..]);
    b[68..72].copy_from_slice(&tcrc.to_le_bytes());
    b[12..16].fill(0);
    let hcrc = crc32fast::hash(&b[..80]);
    b[12..16].copy_from_slice(&hcrc.to_le_bytes());
}

fn kind_of(bytes: Vec<u8>) -> Option<ErrorKind> {
    Database::from_bytes(bytes, None)
        .err()
        .map(|e| e.kind().clone())
}

#[test]
fn sample_round_trips() {
    let d = dir("sample");
    let path = d.join("sample.db");
    write_sample(&path);
    let (schema, layers) = sample();
    let db = Database::open(&path, Some(&schema.fingerprint)).unwrap();
    assert_eq!(db.schema(), &schema);
    assert_eq!(db.bits_per_value(), 2);
    let infos: Vec<_> = db.layers().collect();
    assert_eq!(infos.len(), 2);
    assert_eq!((infos[0].number, infos[1].number), (0, 3));
    assert_eq!(db.len(), infos[0].states + infos[1].states);
    for (k, (_, table, values)) in layers.iter().enumerate() {
        assert_eq!(db.states(k).as_ref(), Some(table));
        for (r, &v) in values.iter().enumerate() {
            let s = db.unrank(k, r as u64).unwrap();
            let hit = db.lookup(&s).unwrap();
            assert_eq!((hit.layer, hit.rank, hit.outcome_index), (k, r as u64, v));
            assert_eq!(hit.outcome, &schema.outcomes[v as usize]);
            let (s2, hit2) = db.unrank_global(hit.global_rank).unwrap();
            assert_eq!((s2, hit2), (s, hit));
        }
    }
    assert!(db.unrank_global(db.len()).is_none());
    // Directory holds the file only: the temporary file was renamed.
    let names: Vec<_> = std::fs::read_dir(&d)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, vec![std::ffi::OsString::from("sample.db")]);
}

#[test]
fn every_truncation_is_reported_as_truncated() {
    let d = dir("truncated");
    let bytes = write_sample(&d.join("full.db"));
    for len in 0..bytes.len() {
        let kind = kind_of(bytes[..len].to_vec());
        assert_eq!(kind, Some(ErrorKind::Truncated), "length {len}");
    }
    // The same through files, including those too short to map.
    for len in [0, 3, 8, 40, 79, 80, bytes.len() / 2, bytes.len() - 1] {
        let p = d.join(format!("cut{len}.db"));
        std::fs::write(&p, &bytes[..len]).unwrap();
        let e = Database::open(&p, None).err().unwrap();
        assert_eq!(e.kind(), &ErrorKind::Truncated, "length {len}: {e}");
        assert_eq!(e.path(), Some(p.as_path()));
        assert!(e.to_string().contains(&format!("cut{len}.db")), "{e}");
    }
    // A file with trailing bytes is not silently accepted either.
    let mut longer = bytes.clone();
    longer.extend_from_slice(&[0; 8]);
    assert_eq!(kind_of(longer), Some(ErrorKind::Malformed));
}

#[test]
fn every_bit_flip_is_detected_where_it_happens() {
    let d = dir("flips");
    let bytes = write_sample(&d.join("full.db"));
    let (table, secs) = sections(&bytes);
    let expected = |at: usize| -> ErrorKind {
        match at {
            0..8 => ErrorKind::Foreign,
            8..12 => ErrorKind::VersionMismatch {
                found: 0,
                supported: VERSION,
            },
            12..80 => ErrorKind::ChecksumMismatch {
                section: "header".into(),
            },
            _ if at >= table => ErrorKind::ChecksumMismatch {
                section: "section table".into(),
            },
            _ => match secs.iter().find(|s| (s.start..s.end).contains(&at)) {
                Some(s) => ErrorKind::ChecksumMismatch {
                    section: section_name(s),
                },
                None => ErrorKind::Malformed, // padding between sections
            },
        }
    };
    for at in 0..bytes.len() {
        for bit in 0..8 {
            let mut b = bytes.clone();
            b[at] ^= 1 << bit;
            let kind = kind_of(b).unwrap_or_else(|| panic!("flip at {at}.{bit} accepted"));
            match (&kind, expected(at)) {
                (
                    ErrorKind::VersionMismatch { supported, .. },
                    ErrorKind::VersionMismatch { .. },
                ) => {
                    assert_eq!(*supported, VERSION)
                }
                (k, want) => assert_eq!(k, &want, "flip at byte {at} bit {bit}"),
            }
        }
    }
}

#[test]
fn foreign_files_are_rejected() {
    let d = dir("foreign");
    let p = d.join("game.kif");
    std::fs::write(&p, "(role xplayer)\n(role oplayer)\n".repeat(10)).unwrap();
    let e = Database::open(&p, None).err().unwrap();
    assert_eq!(e.kind(), &ErrorKind::Foreign);
    assert!(e.to_string().contains("not a symgame database"), "{e}");
    let png = b"\x89PNG\r\n\x1a\n".repeat(20);
    assert_eq!(kind_of(png), Some(ErrorKind::Foreign));
    assert_eq!(kind_of(b"\x89SYMGDX".to_vec()), Some(ErrorKind::Foreign));
    let e = Database::open(&d.join("missing.db"), None).err().unwrap();
    assert_eq!(e.kind(), &ErrorKind::Io);
}

#[test]
fn future_version_and_other_fingerprint_are_rejected() {
    let d = dir("version");
    let bytes = write_sample(&d.join("full.db"));
    let mut future = bytes.clone();
    future[8..12].copy_from_slice(&(VERSION + 1).to_le_bytes());
    refresh_checksums(&mut future);
    assert_eq!(
        kind_of(future),
        Some(ErrorKind::VersionMismatch {
            found: VERSION + 1,
            supported: VERSION
        })
    );
    let other: Fingerprint = [8; 32];
    let e = Database::from_bytes(bytes.clone(), Some(&other))
        .err()
        .unwrap();
    assert_eq!(e.kind(), &ErrorKind::FingerprintMismatch);
    let (schema, _) = sample();
    assert!(Database::from_bytes(bytes, Some(&schema.fingerprint)).is_ok());
}

#[test]
fn consistent_checksums_do_not_hide_bad_contents() {
    let d = dir("contents");
    let bytes = write_sample(&d.join("full.db"));
    let (_, secs) = sections(&bytes);
    let layer = secs.iter().find(|s| s.kind == 4 && s.index == 3).unwrap();
    let nodes = le32(&bytes, layer.start + 8) as usize;
    assert!(nodes >= 2);

    // A node whose low child is a later node.
    let mut b = bytes.clone();
    let node0 = layer.start + 16;
    b[node0 + 4..node0 + 8].copy_from_slice(&3u32.to_le_bytes());
    refresh_checksums(&mut b);
    assert_eq!(
        kind_of(b),
        Some(ErrorKind::MalformedNodes {
            section: Some("layer 3".into())
        })
    );

    // A node testing an uncounted (odd) variable.
    let mut b = bytes.clone();
    let var = le32(&b, node0);
    b[node0..node0 + 4].copy_from_slice(&(var + 1).to_le_bytes());
    refresh_checksums(&mut b);
    assert!(matches!(kind_of(b), Some(ErrorKind::MalformedNodes { .. })));

    // A state count that disagrees with the BDD.
    let mut b = bytes.clone();
    let states = le64(&b, layer.start);
    b[layer.start..layer.start + 8].copy_from_slice(&(states - 1).to_le_bytes());
    refresh_checksums(&mut b);
    assert_eq!(kind_of(b), Some(ErrorKind::Malformed));

    // A value that indexes no outcome (3 outcomes in 2 bits: pattern 3 is unused).
    let mut b = bytes.clone();
    let values = layer.start + (16 + 12 * nodes).div_ceil(8) * 8;
    b[values] |= 0b1100;
    refresh_checksums(&mut b);
    let e = Database::from_bytes(b, None).err().unwrap();
    assert_eq!(e.kind(), &ErrorKind::Malformed);
    assert!(e.to_string().contains("rank 1 "), "{e}");

    // A reward above 100 in the dictionary.
    let mut b = bytes.clone();
    let outcomes = secs.iter().find(|s| s.kind == 3).unwrap();
    b[outcomes.start + 16] = 101;
    refresh_checksums(&mut b);
    assert_eq!(kind_of(b), Some(ErrorKind::Malformed));

    // Sections swapped in the table.
    let mut b = bytes.clone();
    let (table, _) = sections(&b);
    let (e0, e1) = (table, table + 32);
    let first: Vec<u8> = b[e0..e0 + 32].to_vec();
    b.copy_within(e1..e1 + 32, e0);
    b[e1..e1 + 32].copy_from_slice(&first);
    refresh_checksums(&mut b);
    assert_eq!(kind_of(b), Some(ErrorKind::Malformed));

    // The unchanged bytes with refreshed checksums are still fine (the helper is right).
    let mut b = bytes.clone();
    refresh_checksums(&mut b);
    assert_eq!(b, bytes);
}

#[test]
fn values_outside_a_five_outcome_dictionary_are_found() {
    // 5 outcomes at 3 bits: patterns 5, 6 and 7 index nothing; values straddle words.
    let (mut schema, layers) = sample();
    schema.outcomes = (0..5)
        .map(|i| Outcome::new(vec![i * 20, 100 - i * 20]))
        .collect();
    let (_, t, _) = &layers[1];
    let n = *PerfectHash::<u64>::new(t, &schema.counted).unwrap().len();
    assert!(n > 22, "the layer spans more than one word");
    let values: Vec<u32> = (0..n as u32).map(|r| r % 5).collect();
    let d = dir("five");
    let path = d.join("five.db");
    write(&path, &schema, &[(0, t, &values)]).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let db = Database::from_bytes(bytes.clone(), None).unwrap();
    assert_eq!(db.bits_per_value(), 3);
    for (r, &v) in values.iter().enumerate() {
        assert_eq!(db.value(0, r as u64).unwrap().outcome_index, v);
    }
    let (_, secs) = sections(&bytes);
    let layer = &secs[3];
    let nodes = le32(&bytes, layer.start + 8) as usize;
    let at = layer.start + (16 + 12 * nodes).div_ceil(8) * 8;
    // Rank 21 occupies stream bits 63..66: bit 63 of word 0 and bits 0..2 of word 1.
    let mut b = bytes.clone();
    b[at + 7] |= 0x80;
    b[at + 8] |= 0b11;
    refresh_checksums(&mut b);
    let e = Database::from_bytes(b, None).err().unwrap();
    assert_eq!(e.kind(), &ErrorKind::Malformed);
    assert!(e.to_string().contains("rank 21"), "{e}");
}

#[test]
fn writer_rejects_bad_input_and_leaves_no_file() {
    let d = dir("writer");
    let path = d.join("out.db");
    let (schema, layers) = sample();
    let (_, t0, v0) = &layers[0];
    let check = |result: symgame_db::Result<()>, what: &str| {
        let e = result.err().unwrap_or_else(|| panic!("{what} accepted"));
        assert_eq!(e.kind(), &ErrorKind::InvalidInput, "{what}: {e}");
        let left: Vec<_> = std::fs::read_dir(&d).unwrap().collect();
        assert!(left.is_empty(), "{what} left files behind");
    };
    check(
        write(&path, &schema, &[(0, t0, &v0[1..])]).map(drop),
        "too few values",
    );
    let mut more = v0.clone();
    more.push(0);
    check(
        write(&path, &schema, &[(0, t0, &more)]).map(drop),
        "too many values",
    );
    let mut bad = v0.clone();
    bad[0] = 3;
    check(
        write(&path, &schema, &[(0, t0, &bad)]).map(drop),
        "value out of range",
    );
    check(
        write(&path, &schema, &[(2, t0, v0), (2, t0, v0)]).map(drop),
        "repeated layer number",
    );
    let mut s = schema.clone();
    s.outcomes[0].rewards[0] = 101;
    check(write(&path, &s, &[]).map(drop), "reward 101");
    let mut s = schema.clone();
    s.outcomes[1] = s.outcomes[0].clone();
    check(write(&path, &s, &[]).map(drop), "repeated outcome");
    let mut s = schema.clone();
    s.outcomes[1].distance = Some(3);
    check(
        write(&path, &s, &[]).map(drop),
        "distance on one outcome only",
    );
    let mut s = schema.clone();
    s.counted.insert(NUM_VARS);
    check(
        write(&path, &s, &[]).map(drop),
        "counted variable out of range",
    );
    // A dropped, unfinished writer removes its temporary file.
    let mut w = Writer::create(&path, &schema).unwrap();
    w.add_layer(0, t0, v0.iter().copied()).unwrap();
    drop(w);
    assert!(
        std::fs::read_dir(&d).unwrap().next().is_none(),
        "a dropped writer left files behind"
    );
}

#[test]
fn layers_by_class_equal_layers_by_value() {
    let e = engine();
    let (schema, layers) = sample();
    // Classes over the even variables: x4 -> outcome 2, then x0 -> outcome 0, else 1.
    let x4 = e.export(&e.var(4));
    let x0 = e.export(&e.var(0));
    let all = e.export(&e.constant(true));
    let classes: Vec<(u32, &BddNodes)> = vec![(2, &x4), (0, &x0), (1, &all)];
    let d = dir("by-class");
    let (a, b) = (d.join("a.db"), d.join("b.db"));
    let mut w = Writer::create(&a, &schema).unwrap();
    let mut expected = Vec::new();
    for (k, t, _) in &layers {
        let h: PerfectHash = PerfectHash::new(t, &schema.counted).unwrap();
        let mut values = Vec::new();
        h.for_each_member(|s| {
            values.push(if s[4] {
                2
            } else if s[0] {
                0
            } else {
                1
            })
        });
        assert_eq!(h.classify(&classes).unwrap(), values);
        w.add_layer(*k, t, values.iter().copied()).unwrap();
        expected.push((*k, t, values));
    }
    w.finish().unwrap();
    let mut w = Writer::create(&b, &schema).unwrap();
    for (k, t, _) in &layers {
        w.add_layer_by_class(*k, t, &classes).unwrap();
    }
    w.finish().unwrap();
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());

    // A state in no class, or a class naming no outcome: rejected, no file left.
    let c = d.join("c.db");
    let mut w = Writer::create(&c, &schema).unwrap();
    let e1 = w
        .add_layer_by_class(0, &layers[1].1, &classes[..2])
        .unwrap_err();
    assert_eq!(e1.kind(), &ErrorKind::InvalidInput);
    assert!(e1.to_string().contains("none of the 2 classes"), "{e1}");
    drop(w);
    let mut w = Writer::create(&c, &schema).unwrap();
    let e2 = w
        .add_layer_by_class(0, &layers[1].1, &[(3, &all)])
        .unwrap_err();
    assert_eq!(e2.kind(), &ErrorKind::InvalidInput);
    drop(w);
    let names: Vec<_> = std::fs::read_dir(&d)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
}

#[test]
fn rewriting_replaces_the_file_atomically() {
    let d = dir("rewrite");
    let path = d.join("db");
    write_sample(&path);
    let (mut schema, layers) = sample();
    schema.metadata = b"second".to_vec();
    let (_, t0, v0) = &layers[0];
    // A failed rewrite leaves the old file as it was.
    let before = std::fs::read(&path).unwrap();
    assert!(write(&path, &schema, &[(0, t0, &v0[1..])]).is_err());
    assert_eq!(std::fs::read(&path).unwrap(), before);
    write(&path, &schema, &[(0, t0, v0)]).unwrap();
    let db = Database::open(&path, None).unwrap();
    assert_eq!(db.metadata(), b"second");
    assert_eq!(db.num_layers(), 1);
}

// ---------------------------------------------------------------------------------------
// Random round trips.

#[derive(Clone, Debug)]
struct Case {
    /// Each layer: the state set as a sum of cubes over the even variables.
    layers: Vec<Vec<Vec<(u32, bool)>>>,
    outcomes: usize,
    roles: usize,
    distance: bool,
    seed: u64,
}

fn case() -> impl Strategy<Value = Case> {
    let cube = proptest::collection::vec((0..NUM_VARS / 2, any::<bool>()), 0..4)
        .prop_map(|c| c.into_iter().map(|(v, b)| (2 * v, b)).collect::<Vec<_>>());
    let layer = proptest::collection::vec(cube, 0..4);
    (
        proptest::collection::vec(layer, 0..4),
        1usize..40,
        0usize..4,
        any::<bool>(),
        any::<u64>(),
    )
        .prop_map(|(layers, outcomes, roles, distance, seed)| Case {
            layers,
            outcomes,
            roles,
            distance,
            seed,
        })
}

fn splitmix(x: &mut u64) -> u64 {
    *x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *x;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_databases_round_trip(c in case()) {
        let e = engine();
        let mut rng = c.seed;
        // Outcomes: distinct by construction (the index is spread over rewards and distance).
        let outcomes: Vec<Outcome> = (0..c.outcomes)
            .map(|i| Outcome {
                rewards: (0..c.roles).map(|r| ((i * 37 + r * 11) % 101) as u8).collect(),
                distance: c.distance.then_some(i as u32),
            })
            .map(|mut o| {
                if c.roles == 0 && !c.distance {
                    o.distance = None;
                }
                o
            })
            .collect();
        // Without rewards or distances, only one outcome is distinct.
        let outcomes = if c.roles == 0 && !c.distance { outcomes[..1].to_vec() } else { outcomes };
        let schema = Schema {
            fingerprint: [c.seed as u8; 32],
            metadata: c.seed.to_le_bytes().to_vec(),
            num_vars: NUM_VARS,
            counted: even_vars(),
            outcomes,
        };
        let mut layers = Vec::new();
        for (k, cubes) in c.layers.iter().enumerate() {
            let mut f = e.constant(false);
            for cube in cubes {
                f = e.or(&f, &e.cube(cube).unwrap()).unwrap();
            }
            let t = e.export(&f);
            let n = *PerfectHash::<u64>::new(&t, &schema.counted).unwrap().len();
            let values: Vec<u32> = (0..n)
                .map(|_| (splitmix(&mut rng) % schema.outcomes.len() as u64) as u32)
                .collect();
            layers.push((2 * k as u32 + 1, f, t, values));
        }
        let d = dir(&format!("random-{}", c.seed));
        let path = d.join("r.db");
        let refs: Vec<(u32, &BddNodes, &[u32])> =
            layers.iter().map(|(k, _, t, v)| (*k, t, v.as_slice())).collect();
        let summary = write(&path, &schema, &refs).unwrap();
        let db = Database::open(&path, Some(&schema.fingerprint)).unwrap();
        prop_assert_eq!(summary.bytes, db.file_size() as u64);
        prop_assert_eq!(db.schema(), &schema);
        prop_assert_eq!(db.num_layers(), layers.len());
        // Every assignment of the counted variables: its first layer and value, or nothing.
        for a in 0..1u32 << (NUM_VARS / 2) {
            let s: Vec<bool> = (0..NUM_VARS).map(|v| v % 2 == 0 && a >> (v / 2) & 1 == 1).collect();
            let first = layers.iter().position(|(_, f, _, _)| e.eval(f, &s));
            let hit = db.lookup(&s);
            prop_assert_eq!(hit.map(|h| h.layer), first);
            if let Some(h) = hit {
                let values = &layers[h.layer].3;
                prop_assert_eq!(h.outcome_index, values[h.rank as usize]);
                prop_assert_eq!(db.unrank(h.layer, h.rank), Some(s.clone()));
            }
            for (k, (_, f, _, _)) in layers.iter().enumerate() {
                prop_assert_eq!(db.rank(k, &s).is_some(), e.eval(f, &s));
            }
        }
        for (k, (_, _, t, values)) in layers.iter().enumerate() {
            prop_assert_eq!(db.states(k), Some(t.clone()));
            prop_assert_eq!(db.layers().nth(k).unwrap().states, values.len() as u64);
            for (r, &v) in values.iter().enumerate() {
                prop_assert_eq!(db.value(k, r as u64).unwrap().outcome_index, v);
            }
            prop_assert!(db.value(k, values.len() as u64).is_none());
        }
        drop(db);
        std::fs::remove_dir_all(&d).unwrap();
    }
}
