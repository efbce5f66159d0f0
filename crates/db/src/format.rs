//! The database file layout shared by the writer and the reader (documented in
//! `docs/formats/database.md`). All integers are little-endian; sections start at multiples
//! of 8 so that the value words can be read in place from a memory map.

/// The first eight bytes of every database file. The non-ASCII first byte and the final
/// newline catch transfers that strip the eighth bit or translate line ends (as PNG's do).
pub const MAGIC: [u8; 8] = *b"\x89SYMGDB\n";

/// The format version this crate writes and reads.
pub const VERSION: u32 = 1;

/// An opaque 32-byte identity of what a database was made from (the caller's choice, e.g. a
/// hash of the ground game and its variable order); a reader can insist on it.
pub type Fingerprint = [u8; 32];

/// Bytes of the fixed header.
pub(crate) const HEADER_LEN: usize = 80;
/// Bytes of one section table entry.
pub(crate) const ENTRY_LEN: usize = 32;
/// Bytes before the node table in a layer section.
pub(crate) const LAYER_HEAD_LEN: usize = 16;
/// Bytes of one node `(var, low, high)`.
pub(crate) const NODE_LEN: usize = 12;
/// Bytes before the entries of the outcome dictionary.
pub(crate) const OUTCOMES_HEAD_LEN: usize = 16;
/// Bytes before the variables of the variables section.
pub(crate) const VARIABLES_HEAD_LEN: usize = 8;
/// Most variables a file may have (above any engine here: biodivine stops at 2^16); bounds
/// the memory a reader allocates for one assignment.
pub const MAX_VARS: u32 = 1 << 20;
/// Largest reward a role can get (GDL goal values are 0..=100).
pub const MAX_REWARD: u8 = 100;

/// Header field offsets.
pub(crate) mod header {
    pub const VERSION: usize = 8;
    pub const CRC: usize = 12;
    pub const FINGERPRINT: usize = 16;
    pub const FILE_SIZE: usize = 48;
    pub const TABLE_OFFSET: usize = 56;
    pub const SECTION_COUNT: usize = 64;
    pub const TABLE_CRC: usize = 68;
    pub const NUM_VARS: usize = 72;
    pub const BITS_PER_VALUE: usize = 76;
}

/// What a section holds (the `kind` field of its table entry).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SectionKind {
    /// The caller's opaque bytes.
    Metadata = 1,
    /// The counted variables.
    Variables = 2,
    /// The outcome dictionary.
    Outcomes = 3,
    /// One layer: its state set and its packed values.
    Layer = 4,
}

impl SectionKind {
    pub(crate) fn from_u32(k: u32) -> Option<SectionKind> {
        match k {
            1 => Some(SectionKind::Metadata),
            2 => Some(SectionKind::Variables),
            3 => Some(SectionKind::Outcomes),
            4 => Some(SectionKind::Layer),
            _ => None,
        }
    }

    /// The section's name in messages.
    pub(crate) fn name(self, index: u32) -> String {
        match self {
            SectionKind::Metadata => "metadata".into(),
            SectionKind::Variables => "variables".into(),
            SectionKind::Outcomes => "outcomes".into(),
            SectionKind::Layer => format!("layer {index}"),
        }
    }
}

/// `x` rounded up to a multiple of 8.
pub(crate) fn align8(x: u64) -> u64 {
    x.div_ceil(8) * 8
}

/// Bits of one packed value for `n` outcomes: `ceil(log2(n))`, 0 for at most one outcome.
pub fn bits_per_value(n: usize) -> u32 {
    if n <= 1 {
        0
    } else {
        usize::BITS - (n - 1).leading_zeros()
    }
}

/// Bytes of the packed values of `states` states at `bits` bits each (whole u64 words).
pub(crate) fn value_bytes(states: u64, bits: u32) -> Option<u64> {
    let total_bits = u128::from(states) * u128::from(bits);
    u64::try_from(total_bits.div_ceil(64) * 8).ok()
}

/// Stride of one outcome entry: the rewards padded to 4 bytes, then the distance if present.
pub(crate) fn outcome_stride(num_roles: usize, has_distance: bool) -> usize {
    num_roles.div_ceil(4) * 4 + if has_distance { 4 } else { 0 }
}

/// Header bytes with the CRC field zeroed, for computing or checking the header checksum.
pub(crate) fn header_crc(header: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    h.update(&header[..header::CRC]);
    h.update(&[0; 4]);
    h.update(&header[header::CRC + 4..HEADER_LEN]);
    h.finalize()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_widths() {
        assert_eq!(bits_per_value(0), 0);
        assert_eq!(bits_per_value(1), 0);
        assert_eq!(bits_per_value(2), 1);
        assert_eq!(bits_per_value(3), 2);
        assert_eq!(bits_per_value(4), 2);
        assert_eq!(bits_per_value(5), 3);
        assert_eq!(bits_per_value(10201), 14);
        assert_eq!(value_bytes(0, 2), Some(0));
        assert_eq!(value_bytes(32, 2), Some(8));
        assert_eq!(value_bytes(33, 2), Some(16));
        assert_eq!(value_bytes(u64::MAX, 32), None);
    }
}
