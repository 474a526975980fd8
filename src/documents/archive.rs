//! The zip archive of an Office Open XML package (a Word file, a deck): its XML parts deflated,
//! each on a pool task of its own (a deck's tens of small parts took a millisecond on one
//! thread, at the end of a build), then its pictures stored, PNGs being compressed already.
//! Every entry has a fixed time and comes in the order given: the same file for the same parts,
//! byte for byte, whichever thread deflated which part.

use std::io::{Cursor, Write};

use zip::result::ZipResult;
use zip::write::{PreparedZipFile, SimpleFileOptions, ZipFileBuilder};
use zip::{CompressionMethod, DateTime, ZipWriter};

/// An XML part: its path in the package and its bytes, in pieces written one after another.
pub(crate) type Part<'a> = (&'a str, Vec<&'a [u8]>);

/// The archive of `parts` (deflated) then `pictures` (stored), each a path and its bytes.
pub(crate) fn archive(parts: &[Part<'_>], pictures: &[(String, &[u8])]) -> ZipResult<Vec<u8>> {
    use rayon::prelude::*;
    let options = |method| {
        SimpleFileOptions::default()
            .compression_method(method)
            .last_modified_time(DateTime::default())
    };
    let deflated: Vec<ZipResult<PreparedZipFile>> = parts
        .par_iter()
        .map(|(name, pieces)| {
            let mut file = ZipFileBuilder::new(name, options(CompressionMethod::Deflated))?;
            for piece in pieces {
                file.write_all(piece)?;
            }
            file.finish()
        })
        .collect();
    let mut out = ZipWriter::new(Cursor::new(Vec::with_capacity(capacity(
        parts
            .iter()
            .map(|(_, pieces)| pieces.iter().map(|p| p.len()).sum()),
        pictures.iter().map(|(_, png)| png.len()),
    ))));
    for file in deflated {
        out.add_prepared_file(file?)?;
    }
    for (name, png) in pictures {
        out.start_file(name.as_str(), options(CompressionMethod::Stored))?;
        out.write_all(png)?;
    }
    Ok(out.finish()?.into_inner())
}

/// Room for a zip archive of parts deflated (at most their size, as XML is) and pictures
/// stored, with each entry's headers: the archive is then written without being grown and
/// copied as it goes, a copy of every picture each time.
fn capacity(deflated: impl Iterator<Item = usize>, stored: impl Iterator<Item = usize>) -> usize {
    // A local header and a central directory entry, with the name: well under 256 bytes.
    const ENTRY: usize = 256;
    deflated.chain(stored).map(|n| n + ENTRY).sum::<usize>() + ENTRY
}
