//! State counts (`BigUint`) as decimal strings in serialised statistics, the one place for it:
//! `#[serde(with = "decimal")]` for a count, `decimal::optional` for an optional one and
//! `decimal::list` for a list of them. JSON numbers lose precision past 2^53; strings do not. A
//! leaf.

use num_bigint::BigUint;
use serde::{Deserialize, Deserializer, Serializer};

/// The decimal digits of `v`.
fn to_decimal(v: &BigUint) -> String {
    v.to_str_radix(10)
}

/// The number written in decimal in `s`.
fn from_decimal<E: serde::de::Error>(s: &str) -> Result<BigUint, E> {
    s.parse().map_err(E::custom)
}

/// Serialises a count as a decimal string.
pub fn serialize<S: Serializer>(v: &BigUint, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&to_decimal(v))
}

/// Reads a count written as a decimal string.
pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<BigUint, D::Error> {
    from_decimal(&String::deserialize(d)?)
}

/// An optional count as a decimal string or null.
pub mod optional {
    use num_bigint::BigUint;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    /// Serialises an optional count as a decimal string or null.
    pub fn serialize<S: Serializer>(v: &Option<BigUint>, s: S) -> Result<S::Ok, S::Error> {
        v.as_ref().map(super::to_decimal).serialize(s)
    }

    /// Reads an optional count written as a decimal string or null.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<BigUint>, D::Error> {
        Option::<String>::deserialize(d)?
            .map(|x| super::from_decimal(&x))
            .transpose()
    }
}

/// A list of counts as a list of decimal strings.
pub mod list {
    use num_bigint::BigUint;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    /// Serialises counts as a list of decimal strings.
    pub fn serialize<S: Serializer>(v: &[BigUint], s: S) -> Result<S::Ok, S::Error> {
        v.iter()
            .map(super::to_decimal)
            .collect::<Vec<_>>()
            .serialize(s)
    }

    /// Reads counts written as a list of decimal strings.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<BigUint>, D::Error> {
        Vec::<String>::deserialize(d)?
            .iter()
            .map(|x| super::from_decimal(x))
            .collect()
    }
}
