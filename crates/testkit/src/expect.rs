//! The `.expect` fixtures beside the games in `gdl/`: one `key value…` line per figure
//! (`layers 1 9 72`, `states 5478`, `value xplayer 50`, `outcome 100/0 2936`), `#` comments.

use std::path::{Path, PathBuf};

use num_bigint::BigUint;

/// A game's `.expect` fixture: its lines as (key, rest of the line), comments left out.
#[derive(Clone, Debug)]
pub struct Expect {
    path: PathBuf,
    lines: Vec<(String, String)>,
}

impl Expect {
    /// The fixture of the game `name` in `gdl/` (`name` with or without `.kif`); panics if it
    /// cannot be read.
    pub fn of(name: &str) -> Expect {
        Expect::read(&crate::gdl_path(name).with_extension("expect"))
    }

    /// The fixture at `path`; panics if it cannot be read.
    pub fn read(path: &Path) -> Expect {
        let text =
            std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let lines = text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .map(|l| {
                let (k, v) = l.split_once(' ').unwrap_or((l, ""));
                (k.to_string(), v.trim().to_string())
            })
            .collect();
        Expect {
            path: path.to_path_buf(),
            lines,
        }
    }

    /// The rest of the first line with this key.
    pub fn get<'a>(&'a self, key: &'a str) -> Option<&'a str> {
        self.all(key).next()
    }

    /// The rest of every line with this key, in file order.
    pub fn all<'a>(&'a self, key: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.lines
            .iter()
            .filter(move |(k, _)| k.as_str() == key)
            .map(|(_, v)| v.as_str())
    }

    /// The numbers of the first line with this key (`layers 1 9 72`); panics on a word that is
    /// not a number.
    pub fn numbers(&self, key: &str) -> Option<Vec<u64>> {
        let line = self.get(key)?;
        Some(
            line.split_whitespace()
                .map(|w| {
                    w.replace(',', "")
                        .parse()
                        .unwrap_or_else(|e| panic!("{}: {key} {line}: {e}", self.path.display()))
                })
                .collect(),
        )
    }

    /// The single number of the first line with this key (`states 5478`).
    pub fn number(&self, key: &str) -> Option<u64> {
        self.numbers(key)?.first().copied()
    }

    /// The `value ROLE V` lines: each role's value of the initial state.
    pub fn values(&self) -> Vec<(String, u8)> {
        self.all("value")
            .filter_map(|l| {
                let mut w = l.split_whitespace();
                Some((w.next()?.to_string(), w.next()?.parse().ok()?))
            })
            .collect()
    }

    /// The `outcome R1/R2 N` lines: how many reachable states have each solved outcome.
    pub fn outcomes(&self) -> Vec<(Vec<u8>, BigUint)> {
        self.all("outcome")
            .map(|l| {
                let parsed = l.split_once(' ').and_then(|(o, n)| {
                    let rewards: Option<Vec<u8>> = o.split('/').map(|x| x.parse().ok()).collect();
                    Some((rewards?, n.trim().parse::<BigUint>().ok()?))
                });
                parsed.unwrap_or_else(|| panic!("{}: outcome {l}", self.path.display()))
            })
            .collect()
    }
}
