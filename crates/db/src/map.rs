//! The read-only memory map of a database file: the crate's only `unsafe` code.

#![allow(unsafe_code)]

use std::fs::File;
use std::io;

/// A whole file mapped read-only.
pub(crate) struct Mapped {
    map: memmap2::Mmap,
}

impl Mapped {
    /// Map `file` (opened for reading) read-only.
    pub(crate) fn new(file: &File) -> io::Result<Mapped> {
        // SAFETY: `Mmap::map` is unsafe because the bytes behind the returned slice change (or
        // vanish, raising SIGBUS) if the file is modified or truncated while it is mapped. This
        // crate never modifies a database file in place: `Writer` writes a temporary file and
        // renames it over the target, so a reader keeps the old, unchanged inode. The mapping is
        // read-only and private to this struct, which hands out only `&[u8]` borrows tied to
        // its lifetime. Another program writing into the file while it is open is outside what
        // we can prevent; the file format documentation says database files are immutable.
        let map = unsafe { memmap2::Mmap::map(file)? };
        Ok(Mapped { map })
    }

    /// The file's bytes.
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.map
    }
}
