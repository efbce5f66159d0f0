//! Writing database files atomically: a temporary file in the target's directory, synced,
//! then renamed over the target.

use std::fs::{self, File, OpenOptions};
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use symgame_bdd::BddNodes;

use crate::error::{Error, ErrorKind, Result};
use crate::format::{
    align8, bits_per_value, header, outcome_stride, value_bytes, SectionKind, ENTRY_LEN,
    HEADER_LEN, MAGIC, NODE_LEN, VERSION,
};
use crate::hash::PerfectHash;
use crate::schema::Schema;

/// What a finished file holds, for reports.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WriteSummary {
    /// Size of the file in bytes.
    pub bytes: u64,
    /// States over all layers.
    pub states: u64,
    /// Inner BDD nodes over all layers.
    pub nodes: u64,
    /// Bytes of the node tables (12 a node).
    pub node_bytes: u64,
    /// Bytes of the packed values.
    pub value_bytes: u64,
    /// Bits per packed value.
    pub bits_per_value: u32,
    /// Number of layers.
    pub layers: usize,
}

/// Bytes buffered before a write.
const FLUSH_BYTES: usize = 1 << 16;

/// Packs the values of one layer LSB-first into u64 words: value `r` occupies stream bits
/// `r*b .. r*b+b`, stream bit `j` being bit `j % 64` of word `j / 64`.
struct Packer {
    /// The layer's name in messages.
    name: String,
    bits: u32,
    outcomes: u64,
    /// States of the layer.
    count: u64,
    /// The word being filled, and how many of its bits are.
    word: u64,
    fill: u32,
    /// Values pushed so far.
    n: u64,
    /// Complete words not yet written.
    buf: Vec<u8>,
}

impl Packer {
    fn push(&mut self, v: u32) -> Result<()> {
        if u64::from(v) >= self.outcomes {
            return Err(Error::invalid_input(format!(
                "{}, rank {}: value {v} is not an index into the {} outcomes",
                self.name, self.n, self.outcomes
            )));
        }
        if self.n == self.count {
            return Err(Error::invalid_input(format!(
                "{}: more values than its {} states",
                self.name, self.count
            )));
        }
        self.n += 1;
        if self.bits == 0 {
            return Ok(());
        }
        self.word |= u64::from(v) << self.fill;
        self.fill += self.bits;
        if self.fill >= 64 {
            self.buf.extend_from_slice(&self.word.to_le_bytes());
            self.fill -= 64;
            // The part of v that did not fit (none if it ended exactly at the boundary).
            self.word = if self.fill == 0 {
                0
            } else {
                u64::from(v) >> (self.bits - self.fill)
            };
        }
        Ok(())
    }
}

/// One section table entry.
struct Entry {
    kind: SectionKind,
    index: u32,
    offset: u64,
    length: u64,
    crc: u32,
}

/// Writes a database file section by section; nothing is visible at the target path until
/// [`Writer::finish`] renames the completed, synced file into place. Dropping an unfinished
/// writer (or any error) removes the temporary file.
///
/// ```no_run
/// # use symgame_db::{Writer, Schema, Outcome};
/// # fn demo(schema: &Schema, layer: &symgame_bdd::BddNodes, values: Vec<u32>) -> symgame_db::Result<()> {
/// let mut w = Writer::create("game.db".as_ref(), schema)?;
/// w.add_layer(0, layer, values)?;
/// let summary = w.finish()?;
/// # Ok(()) }
/// ```
pub struct Writer {
    path: PathBuf,
    tmp: PathBuf,
    out: Option<BufWriter<File>>,
    /// Bytes written so far.
    pos: u64,
    /// Checksum of the section being written.
    crc: crc32fast::Hasher,
    entries: Vec<Entry>,
    schema: Schema,
    bits: u32,
    summary: WriteSummary,
}

/// Tells apart the temporary files of several writers in one process.
static TMP_COUNTER: AtomicU64 = AtomicU64::new(0);

impl Writer {
    /// Start a file at `path` with `schema` (checked: see [`Schema`]); writes the metadata,
    /// variables and outcomes sections to a temporary file beside `path`.
    pub fn create(path: &Path, schema: &Schema) -> Result<Writer> {
        schema.check()?;
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = path
            .file_name()
            .ok_or_else(|| Error::invalid_input("the output path has no file name").at(path))?;
        let tmp = dir.join(format!(
            ".{}.tmp-{}-{}",
            name.to_string_lossy(),
            std::process::id(),
            TMP_COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .map_err(|e| Error::io("cannot create the temporary file", e).at(&tmp))?;
        let mut w = Writer {
            path: path.to_path_buf(),
            tmp,
            out: Some(BufWriter::with_capacity(1 << 20, file)),
            pos: 0,
            crc: crc32fast::Hasher::new(),
            entries: Vec::new(),
            schema: schema.clone(),
            bits: bits_per_value(schema.outcomes.len()),
            summary: WriteSummary::default(),
        };
        w.summary.bits_per_value = w.bits;
        let result = w.write_schema();
        w.guard(result)?;
        Ok(w)
    }

    fn write_schema(&mut self) -> Result<()> {
        // The header is written last, once the section table is known.
        self.put(&[0; HEADER_LEN])?;
        let metadata = std::mem::take(&mut self.schema.metadata);
        self.begin()?;
        self.put(&metadata)?;
        self.end(SectionKind::Metadata, 0)?;
        self.schema.metadata = metadata;

        self.begin()?;
        let vars = self.schema.counted.as_slice().to_vec();
        self.put_u32(vars.len() as u32)?;
        self.put_u32(0)?;
        for v in vars {
            self.put_u32(v)?;
        }
        self.end(SectionKind::Variables, 0)?;

        self.begin()?;
        let (roles, distance) = (self.schema.num_roles(), self.schema.has_distance());
        let outcomes = std::mem::take(&mut self.schema.outcomes);
        let stride = outcome_stride(roles, distance);
        self.put_u32(roles as u32)?;
        self.put_u32(u32::from(distance))?;
        self.put_u32(outcomes.len() as u32)?;
        self.put_u32(0)?;
        let mut entry = vec![0u8; stride];
        for o in &outcomes {
            entry.fill(0);
            entry[..roles].copy_from_slice(&o.rewards);
            if let Some(d) = o.distance {
                entry[stride - 4..].copy_from_slice(&d.to_le_bytes());
            }
            self.put(&entry)?;
        }
        self.schema.outcomes = outcomes;
        self.end(SectionKind::Outcomes, 0)
    }

    /// Remove the temporary file if `result` is an error (the writer is then unusable).
    fn guard<T>(&mut self, result: Result<T>) -> Result<T> {
        if result.is_err() {
            self.abandon();
        }
        result
    }

    fn abandon(&mut self) {
        if self.out.take().is_some() {
            let _ = fs::remove_file(&self.tmp);
        }
    }

    fn put(&mut self, bytes: &[u8]) -> Result<()> {
        let out = self
            .out
            .as_mut()
            .ok_or_else(|| Error::invalid_input("the writer failed earlier"))?;
        out.write_all(bytes)
            .map_err(|e| Error::io("cannot write", e).at(&self.tmp))?;
        self.crc.update(bytes);
        self.pos += bytes.len() as u64;
        Ok(())
    }

    fn put_u32(&mut self, v: u32) -> Result<()> {
        self.put(&v.to_le_bytes())
    }

    /// Pad to a multiple of 8 (the padding belongs to no section) and start a section.
    fn begin(&mut self) -> Result<()> {
        let pad = (align8(self.pos) - self.pos) as usize;
        self.put(&[0; 8][..pad])?;
        self.crc = crc32fast::Hasher::new();
        Ok(())
    }

    /// Record the section that started at the last [`Self::begin`].
    fn end(&mut self, kind: SectionKind, index: u32) -> Result<()> {
        let offset = match self.entries.last() {
            Some(e) => align8(e.offset + e.length),
            None => HEADER_LEN as u64,
        };
        let crc = std::mem::take(&mut self.crc).finalize();
        self.entries.push(Entry {
            kind,
            index,
            offset,
            length: self.pos - offset,
            crc,
        });
        Ok(())
    }

    /// Append a layer: the state set `states` (a node table over the schema's variables,
    /// depending only on the counted ones) and one outcome index per state, in rank order.
    /// Layer numbers must increase from call to call. Returns the number of states.
    ///
    /// Errors ([`ErrorKind::InvalidInput`] unless said otherwise): a layer number not above
    /// the previous one; a node table with another number of variables; a malformed table
    /// ([`ErrorKind::MalformedNodes`]); more states than 64 bits count
    /// ([`ErrorKind::TooLarge`]); fewer or more values than states; a value that is not an
    /// index into the outcomes; I/O ([`ErrorKind::Io`]). After an error the writer is
    /// unusable and the temporary file is gone.
    pub fn add_layer(
        &mut self,
        number: u32,
        states: &BddNodes,
        values: impl IntoIterator<Item = u32>,
    ) -> Result<u64> {
        let result = self.write_layer(number, states, |w, _, packer| {
            for v in values {
                packer.push(v)?;
                w.drain(packer, false)?;
            }
            Ok(())
        });
        self.guard(result)
    }

    /// Append a layer whose values are given as classes: each state gets the outcome index
    /// paired with the first of `classes` (state sets over the counted variables, e.g. the
    /// won, drawn and lost states a solver found) that contains it, computed by
    /// [`PerfectHash::classify_each`] and streamed into the file. Returns the number of states.
    ///
    /// Errors: those of [`Self::add_layer`]; [`ErrorKind::InvalidInput`] if a state is in no
    /// class or a class's index is not an outcome; [`ErrorKind::MalformedNodes`] for a
    /// malformed class table.
    pub fn add_layer_by_class(
        &mut self,
        number: u32,
        states: &BddNodes,
        classes: &[(u32, &BddNodes)],
    ) -> Result<u64> {
        let result = self.write_layer(number, states, |w, hash, packer| {
            let mut failed = None;
            hash.classify_each(classes, |tag| {
                let step = match tag {
                    Some(v) => packer.push(v).and_then(|()| w.drain(packer, false)),
                    None => Err(Error::invalid_input(format!(
                        "{}, rank {}: the state is in none of the {} classes",
                        packer.name,
                        packer.n,
                        classes.len()
                    ))),
                };
                step.map_err(|e| failed = Some(e)).is_ok()
            })?;
            failed.map_or(Ok(()), Err)
        });
        self.guard(result)
    }

    /// Write a layer section: header and node table, then the values `fill` pushes into the
    /// packer (which checks their range and number), given the layer's hash.
    fn write_layer(
        &mut self,
        number: u32,
        states: &BddNodes,
        fill: impl FnOnce(&mut Self, &PerfectHash<u64>, &mut Packer) -> Result<()>,
    ) -> Result<u64> {
        if self.out.is_none() {
            return Err(Error::invalid_input("the writer failed earlier"));
        }
        if let Some(last) = self.entries.last().filter(|e| e.kind == SectionKind::Layer) {
            if number <= last.index {
                return Err(Error::invalid_input(format!(
                    "layer {number} added after layer {}: layer numbers must increase",
                    last.index
                )));
            }
        }
        if states.num_vars != self.schema.num_vars {
            return Err(Error::invalid_input(format!(
                "layer {number} has {} variables, the schema {}",
                states.num_vars, self.schema.num_vars
            )));
        }
        let name = format!("layer {number}");
        let hash = PerfectHash::<u64>::new(states, &self.schema.counted)
            .map_err(|e| e.in_section(&name))?;
        let count = *hash.len();
        let node_count = u32::try_from(states.nodes.len())
            .map_err(|_| Error::invalid_input(format!("{name} has more than 2^32 nodes")))?;
        let bytes = value_bytes(count, self.bits).ok_or_else(|| {
            Error::new(
                ErrorKind::TooLarge,
                format!("{name}: {count} values do not fit a file"),
            )
        })?;
        self.begin()?;
        self.put(&count.to_le_bytes())?;
        self.put_u32(node_count)?;
        self.put_u32(states.root)?;
        let mut buf = Vec::with_capacity(FLUSH_BYTES);
        for &(var, low, high) in &states.nodes {
            buf.extend_from_slice(&var.to_le_bytes());
            buf.extend_from_slice(&low.to_le_bytes());
            buf.extend_from_slice(&high.to_le_bytes());
            if buf.len() >= FLUSH_BYTES {
                self.put(&buf)?;
                buf.clear();
            }
        }
        self.put(&buf)?;
        buf.clear();
        let pad = (align8(self.pos) - self.pos) as usize;
        self.put(&[0; 8][..pad])?;

        let mut packer = Packer {
            name,
            bits: self.bits,
            outcomes: self.schema.outcomes.len() as u64,
            count,
            word: 0,
            fill: 0,
            n: 0,
            buf,
        };
        fill(self, &hash, &mut packer)?;
        if packer.n != count {
            return Err(Error::invalid_input(format!(
                "{}: {} values for {count} states",
                packer.name, packer.n
            )));
        }
        self.drain(&mut packer, true)?;
        self.end(SectionKind::Layer, number)?;
        self.summary.layers += 1;
        self.summary.states += count;
        self.summary.nodes += u64::from(node_count);
        self.summary.node_bytes += u64::from(node_count) * NODE_LEN as u64;
        self.summary.value_bytes += bytes;
        Ok(count)
    }

    /// Write the packer's full buffer (or, at the end, everything including the last partial
    /// word).
    fn drain(&mut self, packer: &mut Packer, last: bool) -> Result<()> {
        if last && packer.fill > 0 {
            packer.buf.extend_from_slice(&packer.word.to_le_bytes());
            packer.fill = 0;
        }
        if last || packer.buf.len() >= FLUSH_BYTES {
            let buf = std::mem::take(&mut packer.buf);
            self.put(&buf)?;
            packer.buf = buf;
            packer.buf.clear();
        }
        Ok(())
    }

    /// Write the section table and the header, sync the file, rename it to the target path
    /// and sync the directory.
    pub fn finish(mut self) -> Result<WriteSummary> {
        let result = self.write_end();
        self.guard(result)
    }

    fn write_end(&mut self) -> Result<WriteSummary> {
        let pad = (align8(self.pos) - self.pos) as usize;
        self.put(&[0; 8][..pad])?;
        let table_offset = self.pos;
        let mut table = Vec::with_capacity(self.entries.len() * ENTRY_LEN);
        for e in &self.entries {
            table.extend_from_slice(&(e.kind as u32).to_le_bytes());
            table.extend_from_slice(&e.index.to_le_bytes());
            table.extend_from_slice(&e.offset.to_le_bytes());
            table.extend_from_slice(&e.length.to_le_bytes());
            table.extend_from_slice(&e.crc.to_le_bytes());
            table.extend_from_slice(&0u32.to_le_bytes());
        }
        self.put(&table)?;
        let file_size = self.pos;

        let mut h = [0u8; HEADER_LEN];
        h[..8].copy_from_slice(&MAGIC);
        let mut set = |at: usize, bytes: &[u8]| h[at..at + bytes.len()].copy_from_slice(bytes);
        set(header::VERSION, &VERSION.to_le_bytes());
        set(header::FINGERPRINT, &self.schema.fingerprint);
        set(header::FILE_SIZE, &file_size.to_le_bytes());
        set(header::TABLE_OFFSET, &table_offset.to_le_bytes());
        set(
            header::SECTION_COUNT,
            &(self.entries.len() as u32).to_le_bytes(),
        );
        set(header::TABLE_CRC, &crc32fast::hash(&table).to_le_bytes());
        set(header::NUM_VARS, &self.schema.num_vars.to_le_bytes());
        set(header::BITS_PER_VALUE, &self.bits.to_le_bytes());
        let crc = crate::format::header_crc(&h);
        h[header::CRC..header::CRC + 4].copy_from_slice(&crc.to_le_bytes());

        let out = self.out.as_mut().expect("checked by put");
        let tmp = &self.tmp;
        let io = |what: &'static str| move |e| Error::io(what, e).at(tmp);
        out.flush().map_err(io("cannot write"))?;
        let file = out.get_mut();
        file.seek(SeekFrom::Start(0))
            .map_err(io("cannot seek to the header"))?;
        file.write_all(&h).map_err(io("cannot write the header"))?;
        file.sync_all().map_err(io("cannot sync"))?;
        fs::rename(&self.tmp, &self.path).map_err(|e| {
            Error::io(
                format!("cannot rename {} to the target", self.tmp.display()),
                e,
            )
            .at(&self.path)
        })?;
        // Renamed: nothing left to remove.
        self.out = None;
        // Make the rename itself durable (not possible on every platform: best effort).
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            if let Ok(d) = File::open(dir) {
                let _ = d.sync_all();
            }
        }
        self.summary.bytes = file_size;
        Ok(self.summary.clone())
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        self.abandon();
    }
}

/// Write a whole database at once: `layers` are `(layer number, state set, values in rank
/// order)`. See [`Writer`] for the errors.
pub fn write(
    path: &Path,
    schema: &Schema,
    layers: &[(u32, &BddNodes, &[u32])],
) -> Result<WriteSummary> {
    let mut w = Writer::create(path, schema)?;
    for (index, states, values) in layers {
        w.add_layer(*index, states, values.iter().copied())?;
    }
    w.finish()
}
