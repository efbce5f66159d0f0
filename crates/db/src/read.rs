//! Reading database files: validated on open, then answered in place from a memory map.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use symgame_bdd::{BddNodes, VarSet};

use crate::error::{Error, ErrorKind, Result};
use crate::format::{
    align8, bits_per_value, header, header_crc, outcome_stride, value_bytes, Fingerprint,
    SectionKind, ENTRY_LEN, HEADER_LEN, LAYER_HEAD_LEN, MAGIC, MAX_REWARD, MAX_VARS, NODE_LEN,
    OUTCOMES_HEAD_LEN, VARIABLES_HEAD_LEN, VERSION,
};
use crate::hash::PerfectHash;
use crate::map::Mapped;
use crate::schema::{Outcome, Schema};

/// Sizes of one layer of a database.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LayerInfo {
    /// The layer number the writer gave (e.g. the BFS depth).
    pub number: u32,
    /// Number of states (and values).
    pub states: u64,
    /// Inner nodes of its BDD.
    pub nodes: u32,
}

/// A state found in a database.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hit<'a> {
    /// Position of its layer in [`Database::layers`].
    pub layer: usize,
    /// The number of its layer ([`LayerInfo::number`], e.g. the BFS depth).
    pub layer_number: u32,
    /// Its rank within the layer.
    pub rank: u64,
    /// Its rank over the whole file: the states of earlier layers come first.
    pub global_rank: u64,
    /// Index of its value in [`Schema::outcomes`].
    pub outcome_index: u32,
    /// Its value.
    pub outcome: &'a Outcome,
}

struct Layer {
    info: LayerInfo,
    hash: PerfectHash<u64>,
    /// Byte offset of the node table in the file.
    nodes_at: usize,
    /// Byte offset of the value words in the file.
    values_at: usize,
    /// States of the layers before this one.
    first: u64,
}

enum Storage {
    Mapped(Mapped),
    Owned(Vec<u8>),
}

impl Storage {
    fn bytes(&self) -> &[u8] {
        match self {
            Storage::Mapped(m) => m.bytes(),
            Storage::Owned(v) => v,
        }
    }
}

/// An open database file: validated completely on open (magic bytes, version, fingerprint,
/// bounds, every checksum, every node table, every value), then read in place from a memory
/// map. Node tables are turned into [`PerfectHash`]es (one pass each); the values stay in the
/// map.
pub struct Database {
    storage: Storage,
    schema: Schema,
    bits: u32,
    layers: Vec<Layer>,
    states: u64,
}

fn le_u32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

fn le_u64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

fn truncated(message: impl Into<String>) -> Error {
    Error::new(ErrorKind::Truncated, message)
}

fn checksum(section: String) -> Error {
    Error::new(
        ErrorKind::ChecksumMismatch {
            section: section.clone(),
        },
        format!("checksum mismatch in {section}: the file is corrupted"),
    )
}

/// A section table entry.
struct Entry {
    kind: SectionKind,
    index: u32,
    offset: usize,
    length: usize,
    crc: u32,
}

impl Entry {
    fn name(&self) -> String {
        self.kind.name(self.index)
    }

    fn bytes<'a>(&self, b: &'a [u8]) -> &'a [u8] {
        &b[self.offset..self.offset + self.length]
    }
}

impl Database {
    /// Open and validate the database at `path`; with `expected`, a file made for another
    /// fingerprint is rejected ([`ErrorKind::FingerprintMismatch`]).
    ///
    /// Errors, by kind: [`ErrorKind::Io`], [`ErrorKind::Foreign`] (not a database),
    /// [`ErrorKind::Truncated`], [`ErrorKind::VersionMismatch`],
    /// [`ErrorKind::ChecksumMismatch`] (naming the section), [`ErrorKind::FingerprintMismatch`],
    /// [`ErrorKind::MalformedNodes`], [`ErrorKind::Malformed`]. Each names the file.
    pub fn open(path: &Path, expected: Option<&Fingerprint>) -> Result<Database> {
        Database::open_file(path, expected).map_err(|e| e.at(path))
    }

    fn open_file(path: &Path, expected: Option<&Fingerprint>) -> Result<Database> {
        let mut file = File::open(path).map_err(|e| Error::io("cannot open", e))?;
        let len = file
            .metadata()
            .map_err(|e| Error::io("cannot read the file size", e))?
            .len();
        let storage = if len < HEADER_LEN as u64 {
            // Too short for a header (and for mapping an empty file): the check below says why.
            let mut v = Vec::new();
            file.read_to_end(&mut v)
                .map_err(|e| Error::io("cannot read", e))?;
            Storage::Owned(v)
        } else {
            Storage::Mapped(Mapped::new(&file).map_err(|e| Error::io("cannot map", e))?)
        };
        Database::from_storage(storage, expected)
    }

    /// Validate a database held in memory (the same checks as [`Database::open`]).
    pub fn from_bytes(bytes: Vec<u8>, expected: Option<&Fingerprint>) -> Result<Database> {
        Database::from_storage(Storage::Owned(bytes), expected)
    }

    fn from_storage(storage: Storage, expected: Option<&Fingerprint>) -> Result<Database> {
        let b = storage.bytes();
        let (schema, bits, entries) = parse_frame(b, expected)?;
        let mut layers = Vec::new();
        let mut states = 0u64;
        for e in entries.iter().filter(|e| e.kind == SectionKind::Layer) {
            let layer = parse_layer(b, e, &schema, bits, states)?;
            states = states.checked_add(layer.info.states).ok_or_else(|| {
                Error::malformed("the layers hold more than 2^64 states together")
            })?;
            layers.push(layer);
        }
        Ok(Database {
            storage,
            schema,
            bits,
            layers,
            states,
        })
    }

    /// The fingerprint, metadata, variables and outcomes.
    pub fn schema(&self) -> &Schema {
        &self.schema
    }

    /// The fingerprint the file was written with.
    pub fn fingerprint(&self) -> &Fingerprint {
        &self.schema.fingerprint
    }

    /// The caller's opaque metadata.
    pub fn metadata(&self) -> &[u8] {
        &self.schema.metadata
    }

    /// The outcome dictionary.
    pub fn outcomes(&self) -> &[Outcome] {
        &self.schema.outcomes
    }

    /// Bits per packed value.
    pub fn bits_per_value(&self) -> u32 {
        self.bits
    }

    /// The layers' numbers and sizes, in file order.
    pub fn layers(&self) -> impl ExactSizeIterator<Item = LayerInfo> + '_ {
        self.layers.iter().map(|l| l.info)
    }

    /// Number of layers.
    pub fn num_layers(&self) -> usize {
        self.layers.len()
    }

    /// Number of states over all layers.
    pub fn len(&self) -> u64 {
        self.states
    }

    /// Whether the file holds no state.
    pub fn is_empty(&self) -> bool {
        self.states == 0
    }

    /// Size of the file in bytes.
    pub fn file_size(&self) -> usize {
        self.storage.bytes().len()
    }

    /// The perfect hash of layer `layer` (a position in [`Self::layers`]); `None` if out of
    /// range.
    pub fn hash(&self, layer: usize) -> Option<&PerfectHash<u64>> {
        self.layers.get(layer).map(|l| &l.hash)
    }

    /// The state set of layer `layer` as a node table (e.g. to import it into a BDD engine).
    pub fn states(&self, layer: usize) -> Option<BddNodes> {
        let l = self.layers.get(layer)?;
        let b = self.storage.bytes();
        let at = l.nodes_at;
        let nodes = (0..l.info.nodes as usize)
            .map(|k| {
                let o = at + k * NODE_LEN;
                (le_u32(b, o), le_u32(b, o + 4), le_u32(b, o + 8))
            })
            .collect();
        let root = le_u32(b, at - 4);
        Some(BddNodes {
            num_vars: self.schema.num_vars,
            nodes,
            root,
        })
    }

    /// The outcome index stored for rank `rank` of `layer`.
    fn value_at(&self, l: &Layer, rank: u64) -> u32 {
        value_in(self.storage.bytes(), l.values_at, self.bits, rank)
    }

    fn hit(&self, layer: usize, rank: u64) -> Hit<'_> {
        let l = &self.layers[layer];
        let outcome_index = self.value_at(l, rank);
        Hit {
            layer,
            layer_number: l.info.number,
            rank,
            global_rank: l.first + rank,
            outcome_index,
            outcome: &self.schema.outcomes[outcome_index as usize],
        }
    }

    /// Find `state` (an assignment indexed by variable; see [`PerfectHash`]) in the first layer
    /// that holds it. O(layers × counted variables).
    pub fn lookup(&self, state: &[bool]) -> Option<Hit<'_>> {
        (0..self.layers.len()).find_map(|k| self.lookup_in(k, state))
    }

    /// Find `state` in layer `layer` only (when the caller knows the layer, e.g. from the
    /// number of pieces on the board). O(counted variables).
    pub fn lookup_in(&self, layer: usize, state: &[bool]) -> Option<Hit<'_>> {
        let rank = self.layers.get(layer)?.hash.rank(state)?;
        Some(self.hit(layer, rank))
    }

    /// The rank of `state` in layer `layer`, or `None` if it is not there.
    pub fn rank(&self, layer: usize, state: &[bool]) -> Option<u64> {
        self.layers.get(layer)?.hash.rank(state)
    }

    /// The state of rank `rank` in layer `layer` (an assignment of all variables, those not
    /// counted false), or `None` if out of range.
    pub fn unrank(&self, layer: usize, rank: u64) -> Option<Vec<bool>> {
        self.layers.get(layer)?.hash.unrank(&rank)
    }

    /// The value of rank `rank` in layer `layer`.
    pub fn value(&self, layer: usize, rank: u64) -> Option<Hit<'_>> {
        let l = self.layers.get(layer)?;
        (rank < l.info.states).then(|| self.hit(layer, rank))
    }

    /// The state of global rank `global_rank` (see [`Hit::global_rank`]) with its value, or
    /// `None` if out of range.
    pub fn unrank_global(&self, global_rank: u64) -> Option<(Vec<bool>, Hit<'_>)> {
        let k = self
            .layers
            .partition_point(|l| l.first + l.info.states <= global_rank);
        let l = self.layers.get(k)?;
        let rank = global_rank - l.first;
        Some((l.hash.unrank(&rank)?, self.hit(k, rank)))
    }
}

/// Value `rank` of the packed words starting at byte `at`: stream bits `rank*bits ..` where
/// stream bit `j` is bit `j % 64` of word `j / 64`.
fn value_in(b: &[u8], at: usize, bits: u32, rank: u64) -> u32 {
    if bits == 0 {
        return 0;
    }
    let bit = rank * u64::from(bits);
    let (w, s) = ((bit / 64) as usize, (bit % 64) as u32);
    let mut v = le_u64(b, at + 8 * w) >> s;
    if s + bits > 64 {
        v |= le_u64(b, at + 8 * (w + 1)) << (64 - s);
    }
    (v & ((1u64 << bits) - 1)) as u32
}

/// The first rank whose value is `>= outcomes`, if any.
fn first_bad_value(b: &[u8], at: usize, bits: u32, states: u64, outcomes: u64) -> Option<u64> {
    if bits == 2 && outcomes == 3 {
        // Win/draw/loss: the one bad pattern is 0b11; test 32 values a word at once (the unused
        // bits of the last word are zero).
        const LOW: u64 = 0x5555_5555_5555_5555;
        let words = states.div_ceil(32) as usize;
        let w = (0..words).find(|&i| {
            let w = le_u64(b, at + 8 * i);
            w & (w >> 1) & LOW != 0
        })?;
        let from = w as u64 * 32;
        return (from..states.min(from + 32)).find(|&r| value_in(b, at, bits, r) == 3);
    }
    (0..states).find(|&r| u64::from(value_in(b, at, bits, r)) >= outcomes)
}

/// Validate everything but the layers: header, section table, checksums, metadata,
/// variables, outcomes.
fn parse_frame(b: &[u8], expected: Option<&Fingerprint>) -> Result<(Schema, u32, Vec<Entry>)> {
    let h = parse_header(b, expected)?;
    let entries = parse_section_table(b, &h)?;
    let metadata = entries[0].bytes(b).to_vec();
    let counted = parse_variables(entries[1].bytes(b), h.num_vars)?;
    let outcomes = parse_outcomes(entries[2].bytes(b))?;
    if h.bits != bits_per_value(outcomes.len()) {
        return Err(Error::malformed(format!(
            "{} bits per value for {} outcomes",
            h.bits,
            outcomes.len()
        )));
    }
    let schema = Schema {
        fingerprint: h.fingerprint,
        metadata,
        num_vars: h.num_vars,
        counted,
        outcomes,
    };
    Ok((schema, h.bits, entries))
}

/// The fields of a valid header.
struct Header {
    fingerprint: Fingerprint,
    table_offset: u64,
    section_count: u64,
    num_vars: u32,
    bits: u32,
}

/// Validate the header: magic, version, its checksum, the fingerprint (against `expected`),
/// the file size, the place and checksum of the section table, the number of variables.
fn parse_header(b: &[u8], expected: Option<&Fingerprint>) -> Result<Header> {
    let len = b.len();
    if b[..len.min(8)] != MAGIC[..len.min(8)] {
        return Err(Error::new(
            ErrorKind::Foreign,
            "not a symgame database (wrong magic bytes)",
        ));
    }
    if len < header::VERSION + 4 {
        return Err(truncated(format!(
            "the file ends after {len} bytes, inside the header"
        )));
    }
    let version = le_u32(b, header::VERSION);
    if version != VERSION {
        return Err(Error::new(
            ErrorKind::VersionMismatch {
                found: version,
                supported: VERSION,
            },
            format!("database format version {version}, but this program reads version {VERSION}"),
        ));
    }
    if len < HEADER_LEN {
        return Err(truncated(format!(
            "the file ends after {len} bytes, inside the {HEADER_LEN}-byte header"
        )));
    }
    let h = &b[..HEADER_LEN];
    if le_u32(h, header::CRC) != header_crc(h) {
        return Err(checksum("header".into()));
    }
    let mut fingerprint = [0u8; 32];
    fingerprint.copy_from_slice(&h[header::FINGERPRINT..header::FINGERPRINT + 32]);
    if let Some(want) = expected {
        if *want != fingerprint {
            return Err(Error::new(
                ErrorKind::FingerprintMismatch,
                "the database was made for another game or variable order (fingerprint mismatch)",
            ));
        }
    }
    let file_size = le_u64(h, header::FILE_SIZE);
    if (len as u64) < file_size {
        return Err(truncated(format!(
            "the file has {len} bytes, its header announces {file_size}"
        )));
    }
    if (len as u64) > file_size {
        return Err(Error::malformed(format!(
            "{} bytes after the end the header announces ({file_size} bytes)",
            len as u64 - file_size
        )));
    }
    let table_offset = le_u64(h, header::TABLE_OFFSET);
    let count = le_u32(h, header::SECTION_COUNT) as u64;
    if table_offset < HEADER_LEN as u64
        || table_offset.checked_add(count * ENTRY_LEN as u64) != Some(file_size)
    {
        return Err(Error::malformed(format!(
            "the section table ({count} entries at offset {table_offset}) does not end the file"
        )));
    }
    if crc32fast::hash(&b[table_offset as usize..]) != le_u32(h, header::TABLE_CRC) {
        return Err(checksum("section table".into()));
    }
    let num_vars = le_u32(h, header::NUM_VARS);
    if num_vars > MAX_VARS {
        return Err(Error::malformed(format!(
            "{num_vars} variables, more than the {MAX_VARS} a file may have"
        )));
    }
    Ok(Header {
        fingerprint,
        table_offset,
        section_count: count,
        num_vars,
        bits: le_u32(h, header::BITS_PER_VALUE),
    })
}

/// Validate the section table after header `h`: the entries, in the one order the writer
/// produces, contiguous up to 8-byte padding, the three required sections, and every
/// section's checksum.
fn parse_section_table(b: &[u8], h: &Header) -> Result<Vec<Entry>> {
    let table = &b[h.table_offset as usize..];
    let mut entries = Vec::with_capacity(h.section_count as usize);
    let mut next = HEADER_LEN as u64;
    for k in 0..h.section_count as usize {
        let e = &table[k * ENTRY_LEN..(k + 1) * ENTRY_LEN];
        let kind = SectionKind::from_u32(le_u32(e, 0)).ok_or_else(|| {
            Error::malformed(format!("section {k} has unknown kind {}", le_u32(e, 0)))
        })?;
        let want = match k {
            0 => SectionKind::Metadata,
            1 => SectionKind::Variables,
            2 => SectionKind::Outcomes,
            _ => SectionKind::Layer,
        };
        let index = le_u32(e, 4);
        let (offset, length) = (le_u64(e, 8), le_u64(e, 16));
        if kind != want || le_u32(e, 28) != 0 || (kind != SectionKind::Layer && index != 0) {
            return Err(Error::malformed(format!(
                "section {k} is a {} section, expected a {} section",
                kind.name(index),
                want.name(index)
            )));
        }
        if let Some(prev) = entries
            .last()
            .filter(|p: &&Entry| p.kind == SectionKind::Layer)
        {
            if index <= prev.index {
                return Err(Error::malformed(format!(
                    "layer {index} follows layer {}: layer numbers must increase",
                    prev.index
                )));
            }
        }
        let end = offset.checked_add(length);
        if offset != next || end.is_none_or(|end| align8(end) > h.table_offset) {
            return Err(Error::malformed(format!(
                "the {} section lies at bytes {offset}..+{length}, expected to start at {next} \
                 and end before the section table",
                kind.name(index)
            )));
        }
        let end = end.expect("checked");
        check_padding(b, end, align8(end))?;
        next = align8(end);
        entries.push(Entry {
            kind,
            index,
            offset: offset as usize,
            length: length as usize,
            crc: le_u32(e, 24),
        });
    }
    if entries.len() < 3 {
        return Err(Error::malformed(format!(
            "{} sections; the metadata, variables and outcomes sections are required",
            entries.len()
        )));
    }
    if next != h.table_offset {
        return Err(Error::malformed(format!(
            "bytes {next}..{} belong to no section",
            h.table_offset
        )));
    }
    for e in &entries {
        if crc32fast::hash(e.bytes(b)) != e.crc {
            return Err(checksum(e.name()));
        }
    }
    Ok(entries)
}

fn check_padding(b: &[u8], from: u64, to: u64) -> Result<()> {
    if b[from as usize..to as usize].iter().any(|&x| x != 0) {
        return Err(Error::malformed(format!(
            "padding bytes {from}..{to} are not zero"
        )));
    }
    Ok(())
}

fn parse_variables(s: &[u8], num_vars: u32) -> Result<VarSet> {
    let bad = |m: String| Error::malformed(format!("variables section: {m}"));
    if s.len() < VARIABLES_HEAD_LEN {
        return Err(bad(format!("{} bytes", s.len())));
    }
    let n = le_u32(s, 0) as usize;
    if le_u32(s, 4) != 0 || Some(s.len()) != n.checked_mul(4).map(|x| x + VARIABLES_HEAD_LEN) {
        return Err(bad(format!("{} bytes for {n} variables", s.len())));
    }
    let vars: Vec<u32> = (0..n)
        .map(|i| le_u32(s, VARIABLES_HEAD_LEN + 4 * i))
        .collect();
    if vars.windows(2).any(|w| w[0] >= w[1]) || vars.last().is_some_and(|&v| v >= num_vars) {
        return Err(bad(format!(
            "the variables are not increasing below {num_vars}"
        )));
    }
    Ok(vars.into())
}

fn parse_outcomes(s: &[u8]) -> Result<Vec<Outcome>> {
    let bad = |m: String| Error::malformed(format!("outcomes section: {m}"));
    if s.len() < OUTCOMES_HEAD_LEN {
        return Err(bad(format!("{} bytes", s.len())));
    }
    let roles = le_u32(s, 0) as usize;
    let distance = match le_u32(s, 4) {
        0 => false,
        1 => true,
        d => return Err(bad(format!("distance flag {d}"))),
    };
    let n = le_u32(s, 8) as usize;
    if le_u32(s, 12) != 0 {
        return Err(bad("reserved field is not zero".into()));
    }
    let stride = outcome_stride(roles, distance);
    if n.checked_mul(stride)
        .and_then(|x| x.checked_add(OUTCOMES_HEAD_LEN))
        != Some(s.len())
    {
        return Err(bad(format!(
            "{} bytes for {n} outcomes of {roles} roles",
            s.len()
        )));
    }
    let mut outcomes = Vec::with_capacity(n);
    for i in 0..n {
        let e = &s[OUTCOMES_HEAD_LEN + i * stride..OUTCOMES_HEAD_LEN + (i + 1) * stride];
        let rewards = e[..roles].to_vec();
        let pad_end = if distance { stride - 4 } else { stride };
        if rewards.iter().any(|&r| r > MAX_REWARD) || e[roles..pad_end].iter().any(|&x| x != 0) {
            return Err(bad(format!("outcome {i} is out of range")));
        }
        outcomes.push(Outcome {
            rewards,
            distance: distance.then(|| le_u32(e, stride - 4)),
        });
    }
    let mut sorted = outcomes.clone();
    sorted.sort();
    if sorted.windows(2).any(|w| w[0] == w[1]) {
        return Err(bad("an outcome is listed twice".into()));
    }
    Ok(outcomes)
}

fn parse_layer(b: &[u8], e: &Entry, schema: &Schema, bits: u32, first: u64) -> Result<Layer> {
    let name = e.name();
    let bad = |m: String| Error::malformed(format!("{name}: {m}"));
    let s = e.bytes(b);
    if s.len() < LAYER_HEAD_LEN {
        return Err(bad(format!("{} bytes", s.len())));
    }
    let states = le_u64(s, 0);
    let node_count = le_u32(s, 8);
    let root = le_u32(s, 12);
    let nodes_end = LAYER_HEAD_LEN as u64 + u64::from(node_count) * NODE_LEN as u64;
    let values_start = align8(nodes_end);
    let expected = value_bytes(states, bits).and_then(|v| values_start.checked_add(v));
    if expected != Some(s.len() as u64) {
        return Err(bad(format!(
            "{} bytes, but {states} states and {node_count} nodes need {}",
            s.len(),
            expected.map_or("more than 2^64".into(), |x| x.to_string())
        )));
    }
    check_padding(s, nodes_end, values_start).map_err(|_| bad("padding is not zero".into()))?;
    let table = BddNodes {
        num_vars: schema.num_vars,
        nodes: (0..node_count as usize)
            .map(|k| {
                let o = LAYER_HEAD_LEN + k * NODE_LEN;
                (le_u32(s, o), le_u32(s, o + 4), le_u32(s, o + 8))
            })
            .collect(),
        root,
    };
    let hash =
        PerfectHash::<u64>::new(&table, &schema.counted).map_err(|err| match err.kind() {
            ErrorKind::TooLarge => bad("its BDD has more than 2^64 states".into()),
            _ => err.in_section(&name),
        })?;
    if *hash.len() != states {
        return Err(bad(format!(
            "its BDD has {} states, its header says {states}",
            hash.len()
        )));
    }
    let values_at = e.offset + values_start as usize;
    let outcomes = schema.outcomes.len() as u64;
    if states > 0 && outcomes == 0 {
        return Err(bad("states but no outcomes".into()));
    }
    // With a dictionary whose size is not a power of two, some bit patterns index nothing.
    if bits > 0 && outcomes < 1 << bits {
        if let Some(r) = first_bad_value(b, values_at, bits, states, outcomes) {
            return Err(bad(format!(
                "the value of rank {r} is not an index into the {outcomes} outcomes"
            )));
        }
    }
    Ok(Layer {
        info: LayerInfo {
            number: e.index,
            states,
            nodes: node_count,
        },
        hash,
        nodes_at: e.offset + LAYER_HEAD_LEN,
        values_at,
        first,
    })
}
