//! fdeflate's fast compressor, its stream bit for bit, over PNG rows Sub-filtered as they are
//! compressed.
//!
//! The PNG rows are Sub-filtered, so a figure's flat colours become zeros: 95% of the example
//! study's 8-byte chunks are zero, and fdeflate looks at them one by one (its loop keeps the
//! run's length in memory between chunks), which was most of encoding a PNG. This module is
//! fdeflate 0.3's `Compressor` (MIT OR Apache-2.0; its fixed Huffman table and its rules for
//! literals and runs) taking a row of pixels: each chunk is filtered in a register, a zero
//! chunk is found by comparing the pixels with themselves one pixel on (32 bytes at a time),
//! Adler-32 is summed a chunk at a time, and a row drawn on a plain background is read only
//! where something was drawn. Tests compare its output with fdeflate's byte for byte, so the
//! PNG files do not change.

use std::ops::Range;

/// The code lengths of fdeflate's fixed Huffman table (literals 0-255, end of block, lengths).
const LENGTHS: [u8; 286] = [
    2, 3, 4, 5, 5, 6, 6, 7, 7, 7, 8, 8, 8, 8, 8, 9, 9, 9, 9, 9, 9, 9, 10, 10, 10, 10, 10, 10, 10,
    10, 10, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12,
    12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12,
    12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12,
    12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12,
    12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12,
    12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12,
    12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12,
    12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 11, 11, 11, 11, 11, 11, 11,
    11, 11, 11, 10, 11, 10, 10, 10, 10, 10, 10, 10, 10, 10, 9, 9, 9, 9, 9, 8, 9, 8, 8, 8, 8, 8, 7,
    7, 7, 6, 6, 6, 5, 4, 3, 12, 12, 12, 9, 9, 11, 10, 11, 11, 10, 11, 11, 11, 11, 11, 11, 12, 11,
    12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 9,
];

/// The canonical codes of [`LENGTHS`], bit-reversed as deflate writes them.
const CODES: [u16; 286] = {
    let mut codes = [0u16; 286];
    let mut code = 0u32;
    let mut len = 1;
    while len <= 16 {
        let mut i = 0;
        while i < 286 {
            if LENGTHS[i] == len {
                codes[i] = (code as u16).reverse_bits() >> (16 - len);
                code += 1;
            }
            i += 1;
        }
        code <<= 1;
        len += 1;
    }
    assert!(code == 2 << 16, "LENGTHS is a complete code");
    codes
};

/// The zlib header and the dynamic block header declaring [`LENGTHS`] (the last 5 bits of
/// the last byte belong to it).
const HEADER: [u8; 54] = [
    120, 1, 237, 192, 3, 160, 36, 89, 150, 198, 241, 255, 119, 238, 141, 200, 204, 167, 114, 75,
    99, 174, 109, 219, 182, 109, 219, 182, 109, 219, 182, 109, 105, 140, 158, 150, 74, 175, 158,
    50, 51, 34, 238, 249, 118, 183, 106, 122, 166, 135, 59, 107, 213, 15,
];

/// The length symbol (257-285) and its number of extra bits for each match length 3-258
/// (index `length - 3`), per deflate.
const LENGTH_SYMBOLS: [(u16, u8); 256] = {
    const BASES: [u32; 29] = [
        3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115,
        131, 163, 195, 227, 258,
    ];
    const EXTRA: [u8; 29] = [
        0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
    ];
    let mut table = [(0u16, 0u8); 256];
    let mut i = 0;
    let mut length = 3;
    while length <= 258 {
        if i + 1 < 29 && length >= BASES[i + 1] {
            i += 1;
        }
        table[length as usize - 3] = (257 + i as u16, EXTRA[i]);
        length += 1;
    }
    table
};

/// PNG's filter type 1, Sub: the byte before each row [`Compressor::write_sub_row`] writes.
const SUB_FILTER: u8 = 1;

/// Adler-32's modulus.
const ADLER_MOD: u64 = 65_521;

/// Chunks after which a row's Adler-32 sums are reduced: with at most 2^19 bytes of 255
/// between reductions, `a` stays under 2^28 and `b` under 2^48.
const REDUCE_CHUNKS: usize = 1 << 16;

/// A zlib stream of one dynamic block, written to `out`.
pub(super) struct Compressor<'a> {
    out: &'a mut Vec<u8>,
    /// Adler-32's two sums, reduced modulo 65521 at least once a row.
    adler: (u64, u64),
    /// The stream's last bits, fewer than a byte (`nbits` of them), lowest first.
    buffer: u64,
    nbits: u8,
}

impl<'a> Compressor<'a> {
    pub fn new(out: &'a mut Vec<u8>) -> Compressor<'a> {
        let mut c = Compressor {
            out,
            adler: (1, 0),
            buffer: 0,
            nbits: 0,
        };
        c.out.extend_from_slice(&HEADER[..53]);
        c.write_bits(u64::from(HEADER[53]), 5);
        c
    }

    /// Appends the low `nbits` (at most 56) of `bits`. The whole buffer is stored every time
    /// and the output keeps its complete bytes: no branch on when the buffer fills, which
    /// varies from write to write and was mispredicted.
    #[inline(always)]
    fn write_bits(&mut self, bits: u64, nbits: u8) {
        debug_assert!(nbits <= 56 && self.nbits < 8);
        self.buffer |= bits << self.nbits;
        self.nbits += nbits;
        let len = self.out.len();
        self.out.extend_from_slice(&self.buffer.to_le_bytes());
        let whole = self.nbits / 8;
        self.out.truncate(len + usize::from(whole));
        self.buffer >>= 8 * whole;
        self.nbits %= 8;
    }

    #[inline(always)]
    fn literal(&mut self, b: u8) {
        self.write_bits(u64::from(CODES[b as usize]), LENGTHS[b as usize]);
    }

    /// A run of `run` zero bytes: a literal zero, then matches at distance 1.
    fn write_run(&mut self, mut run: u32) {
        self.literal(0);
        run -= 1;
        while run >= 258 {
            self.write_bits(u64::from(CODES[285]), LENGTHS[285] + 1);
            run -= 258;
        }
        if run > 4 {
            let (symbol, extra_bits) = LENGTH_SYMBOLS[run as usize - 3];
            let symbol = usize::from(symbol);
            self.write_bits(u64::from(CODES[symbol]), LENGTHS[symbol]);
            let extra = u64::from((run - 3) & ((1 << extra_bits) - 1));
            // The extra bits, then the distance code (one 0 bit).
            self.write_bits(extra, extra_bits + 1);
        } else {
            self.write_bits(0, run as u8 * LENGTHS[0]);
        }
    }

    /// The bytes `from..to` of `word` (first byte lowest) as literals, in two writes of at most
    /// 48 bits, with no branch on where they start or end (a chunk's zero bytes at either end
    /// vary from chunk to chunk, which a loop over them mispredicted).
    #[inline(always)]
    fn literals(&mut self, word: u64, from: u32, to: u32) {
        let bytes = word.to_le_bytes();
        for (half, four) in bytes.as_chunks::<4>().0.iter().enumerate() {
            let (mut bits, mut n) = (0u64, 0u8);
            for (j, &b) in (4 * half as u32..).zip(four) {
                let keep = (from..to).contains(&j);
                let b = usize::from(b);
                bits |= u64::from(if keep { CODES[b] } else { 0 }) << n;
                n += if keep { LENGTHS[b] } else { 0 };
            }
            self.write_bits(bits, n);
        }
    }

    /// Compresses `data` as fdeflate's `write_data` does (a run still open at its end is
    /// written, so the stream depends on how the data is cut into calls, as fdeflate's does).
    /// The readable form of [`Self::write_sub_row`], which tests compare with it.
    #[cfg(test)]
    pub fn write_data(&mut self, data: &[u8]) {
        for &d in data {
            self.adler.0 += u64::from(d);
            self.adler.1 += self.adler.0;
            self.adler = (self.adler.0 % ADLER_MOD, self.adler.1 % ADLER_MOD);
        }
        let (chunks, rest) = data.as_chunks::<8>();
        let mut run = 0u32;
        let mut i = 0;
        while i < chunks.len() {
            let chunk = &chunks[i];
            let word = u64::from_le_bytes(*chunk);
            if word == 0 {
                let zeros = chunks[i..]
                    .iter()
                    .take_while(|c| u64::from_le_bytes(**c) == 0)
                    .count();
                run += 8 * zeros as u32;
                i += zeros;
                continue;
            }
            i += 1;
            if run > 0 {
                let run_extra = word.trailing_zeros() / 8;
                self.write_run(run + run_extra);
                run = 0;
                if run_extra > 0 {
                    run = word.leading_zeros() / 8;
                    for &b in &chunk[run_extra as usize..8 - run as usize] {
                        self.literal(b);
                    }
                    continue;
                }
            }
            let run_start = word.leading_zeros() / 8;
            if run_start > 0 {
                for &b in &chunk[..8 - run_start as usize] {
                    self.literal(b);
                }
                run = run_start;
                continue;
            }
            self.literals(word, 0, 8);
        }
        if run > 0 {
            self.write_run(run);
        }
        for &b in rest {
            self.literal(b);
        }
    }

    /// Compresses one PNG row of RGBA pixels `line`, Sub-filtered: the stream and checksum
    /// of `write_data` given [`SUB_FILTER`] and each byte less the same byte of the pixel to
    /// its left, computed here chunk by chunk instead of written out and read twice more
    /// (filter, checksum, compressor). A chunk is zero where the pixels repeat, so runs are
    /// found by comparing the line with itself four bytes on, 32 bytes at a time.
    pub fn write_sub_row(&mut self, line: &[u8]) {
        self.write_sub_row_where(line, std::slice::from_ref(&(0..line.len())));
    }

    /// [`Self::write_sub_row`] of a line known to repeat its pixels outside `changes` (sorted,
    /// disjoint ranges of its bytes: every byte outside them, from the fifth on, equals the
    /// byte four before it), whose bytes there are not read.
    pub fn write_sub_row_where(&mut self, line: &[u8], changes: &[Range<usize>]) {
        let n = line.len() + 1;
        let chunks = n / 8;
        // Byte `r` of the filtered row, for the first chunk and the bytes after the last.
        let byte = |r: usize| match r {
            0 => SUB_FILTER,
            1..=4 => line[r - 1],
            _ => line[r - 1].wrapping_sub(line[r - 5]),
        };
        let load = |m: usize| word_at(line, m);
        // The chunks that may not be zero: line byte `j` is the row's byte `j + 1`.
        let mut spans = changes.iter().map(|r| {
            (
                ((r.start + 1) / 8).min(chunks),
                ((r.end + 8) / 8).min(chunks),
            )
        });
        let mut span = (0, 1.min(chunks));
        let (mut a, mut b) = self.adler;
        let mut run = 0u32;
        let mut reduce_at = REDUCE_CHUNKS;
        let mut i = 0;
        while i < chunks {
            if i >= reduce_at {
                (a, b) = (a % ADLER_MOD, b % ADLER_MOD);
                reduce_at = i + REDUCE_CHUNKS;
            }
            if i >= span.1 {
                span = spans.find(|s| s.1 > i).unwrap_or((chunks, chunks));
            }
            // Chunk `i` is the row's bytes 8i..8i+8: line bytes from 8i - 1, less those 4 before.
            let word = if i == 0 {
                u64::from_le_bytes(std::array::from_fn(byte))
            } else {
                let m = 8 * i - 1;
                let zeros = if i < span.0 {
                    span.0 - i
                } else if load(m) == load(m - 4) {
                    repeating_chunks(line, i, span.1)
                } else {
                    0
                };
                if zeros > 0 {
                    run += 8 * zeros as u32;
                    b += 8 * zeros as u64 * a;
                    i += zeros;
                    continue;
                }
                sub_bytes(load(m), load(m - 4))
            };
            b += 8 * a + weighted_sum(word);
            a += byte_sum(word);
            i += 1;
            // write_data's rules in one: a run open before the chunk takes its first zero
            // bytes; the chunk's last zero bytes open the next run; literals in between.
            let first = if run > 0 {
                let extra = word.trailing_zeros() / 8;
                self.write_run(run + extra);
                extra
            } else {
                0
            };
            run = word.leading_zeros() / 8;
            self.literals(word, first, 8 - run);
        }
        if run > 0 {
            self.write_run(run);
        }
        for r in 8 * chunks..n {
            let c = byte(r);
            a += u64::from(c);
            b += a;
            self.literal(c);
        }
        self.adler = (a % ADLER_MOD, b % ADLER_MOD);
    }

    /// Ends the block and the stream (the Adler-32 of the data).
    pub fn finish(mut self) {
        self.write_bits(u64::from(CODES[256]), LENGTHS[256]);
        // The last byte's unused bits are zero.
        if self.nbits > 0 {
            self.out.push(self.buffer as u8);
        }
        let (a, b) = self.adler;
        let checksum = ((b as u32) << 16) | a as u32;
        self.out.extend_from_slice(&checksum.to_be_bytes());
    }
}

/// The 8 bytes of `line` from `m`, as a word, first byte lowest.
#[inline(always)]
fn word_at(line: &[u8], m: usize) -> u64 {
    let mut word = [0; 8];
    word.copy_from_slice(&line[m..m + 8]);
    u64::from_le_bytes(word)
}

/// Each byte of `x` less the same byte of `y`, wrapping, with no borrow between bytes.
#[inline(always)]
fn sub_bytes(x: u64, y: u64) -> u64 {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    ((x | HIGH) - (y & !HIGH)) ^ ((x ^ !y) & HIGH)
}

/// The sum of a word's eight bytes (at most 2040): Adler-32's `a` gains it.
#[inline(always)]
fn byte_sum(word: u64) -> u64 {
    const EVEN: u64 = 0x00ff_00ff_00ff_00ff;
    // Four 16-bit lanes of byte pairs; the multiply adds them into the top lane.
    let pairs = (word & EVEN) + ((word >> 8) & EVEN);
    pairs.wrapping_mul(0x0001_0001_0001_0001) >> 48
}

/// The sum of a word's bytes weighted 8, 7, ..., 1 from its first (at most 9180): what
/// Adler-32's `b` gains over eight bytes besides eight times `a`.
#[inline(always)]
fn weighted_sum(word: u64) -> u64 {
    const EVEN: u64 = 0x00ff_00ff_00ff_00ff;
    // Bytes 0, 2, 4, 6 and 1, 3, 5, 7 as 16-bit lanes; each multiply gathers its lanes times
    // their weights in the top lane (no lane below exceeds 16 bits, so nothing carries in).
    let even = (word & EVEN).wrapping_mul(0x0008_0006_0004_0002) >> 48;
    let odd = ((word >> 8) & EVEN).wrapping_mul(0x0007_0005_0003_0001) >> 48;
    even + odd
}

/// How many chunks from `i` (at least 1) of the Sub-filtered row of `line` are zero before the
/// first that is not, or before `end`, whichever comes first: chunk `k` is zero when the
/// line's 8 bytes from `8k - 1` equal those 4 bytes before. Four chunks at a time while it can.
#[inline(always)]
fn repeating_chunks(line: &[u8], i: usize, end: usize) -> usize {
    // Chunk k's bytes and those 4 before, for chunks i..end (the line's bytes to 8 end - 1).
    let (here, before) = (&line[8 * i - 1..8 * end - 1], &line[8 * i - 5..8 * end - 5]);
    let (here, before) = (here.as_chunks::<32>().0, before.as_chunks::<32>().0);
    let mut same = 0;
    while same < here.len() && here[same] == before[same] {
        same += 1;
    }
    let load = |m: usize| word_at(line, m);
    let mut k = i + 4 * same;
    while k < end && load(8 * k - 1) == load(8 * k - 5) {
        k += 1;
    }
    k - i
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Our stream and fdeflate's for the same calls.
    fn both(calls: &[Vec<u8>]) -> (Vec<u8>, Vec<u8>) {
        let mut ours = Vec::new();
        let mut c = Compressor::new(&mut ours);
        for data in calls {
            c.write_data(data);
        }
        c.finish();
        let mut theirs = fdeflate::Compressor::new(Vec::new()).unwrap();
        for data in calls {
            theirs.write_data(data).unwrap();
        }
        (ours, theirs.finish().unwrap())
    }

    /// A line's row as PNG's Sub filter writes it: the filter type, then each byte less the
    /// same byte of the pixel to its left.
    fn sub_filtered(line: &[u8]) -> Vec<u8> {
        let mut row = vec![SUB_FILTER];
        row.extend(line.iter().enumerate().map(|(i, &b)| match i {
            0..4 => b,
            _ => b.wrapping_sub(line[i - 4]),
        }));
        row
    }

    #[test]
    fn rows_filtered_as_compressed_give_fdeflates_stream_of_the_filtered_rows() {
        let mut random = super::super::test_random(0x9e37_79b9_7f4a_7c15);
        let mut next = |n: u64| random() % n;
        for case in 0..500 {
            let width = 1 + next(if case % 3 == 0 { 12 } else { 400 }) as usize;
            let mut lines = Vec::new();
            for _ in 0..1 + next(5) {
                // Stretches of one pixel repeated (flat colours), of pixels that differ in one
                // byte or all, and rows repeated: what a figure's rows are made of.
                let mut line: Vec<u8> = Vec::with_capacity(width * 4);
                while line.len() < width * 4 {
                    let pixel: [u8; 4] = match next(4) {
                        0 => [255; 4],
                        1 => [0, 0, 0, 255],
                        _ => std::array::from_fn(|_| next(256) as u8),
                    };
                    let longest = if next(2) == 0 { 4 } else { 90 };
                    for _ in 0..1 + next(longest) {
                        let mut p = pixel;
                        if next(5) == 0 {
                            p[next(4) as usize] ^= 1 << next(8);
                        }
                        line.extend(p);
                    }
                }
                line.truncate(width * 4);
                if next(4) == 0 {
                    if let Some(last) = lines.last() {
                        line.clone_from(last);
                    }
                }
                lines.push(line);
            }
            let mut ours = Vec::new();
            let mut c = Compressor::new(&mut ours);
            let mut theirs = fdeflate::Compressor::new(Vec::new()).unwrap();
            for line in &lines {
                c.write_sub_row(line);
                theirs.write_data(&sub_filtered(line)).unwrap();
            }
            c.finish();
            assert!(
                ours == theirs.finish().unwrap(),
                "case {case}, width {width}"
            );
        }
    }

    #[test]
    fn rows_read_only_where_they_change_give_fdeflates_stream() {
        // Lines of one background pixel with stretches drawn over it; each is read only in
        // the byte ranges given: the stretches with the pixel after each (as the banded
        // figures give them), sometimes merged into wider ones, or none at all.
        let mut random = super::super::test_random(0x5851_f42d_4c95_7f2d);
        let mut next = |n: u64| random() % n;
        for case in 0..600 {
            let width = 1 + next(if case % 3 == 0 { 12 } else { 500 }) as usize;
            let background: [u8; 4] = std::array::from_fn(|_| next(256) as u8);
            let mut ours = Vec::new();
            let mut c = Compressor::new(&mut ours);
            let mut theirs = fdeflate::Compressor::new(Vec::new()).unwrap();
            for _ in 0..1 + next(4) {
                let mut line: Vec<u8> = background.repeat(width);
                let mut changes: Vec<Range<usize>> = Vec::new();
                let mut x = next(width as u64 / 2 + 1) as usize;
                while x < width && next(8) != 0 {
                    let to = (x + 1 + next(40) as usize).min(width);
                    for pixel in line[4 * x..4 * to].chunks_exact_mut(4) {
                        if next(3) != 0 {
                            pixel.copy_from_slice(&[next(256) as u8, 0, 9, 255]);
                        }
                    }
                    let bytes = 4 * x..4 * (to + 1).min(width);
                    match changes.last_mut() {
                        Some(last) if bytes.start <= last.end || next(4) == 0 => {
                            last.end = bytes.end
                        }
                        _ => changes.push(bytes),
                    }
                    x = to + next(60) as usize;
                }
                c.write_sub_row_where(&line, &changes);
                theirs.write_data(&sub_filtered(&line)).unwrap();
            }
            c.finish();
            assert!(
                ours == theirs.finish().unwrap(),
                "case {case}, width {width}"
            );
        }
    }

    #[test]
    fn a_row_past_the_checksums_reduction_gives_fdeflates_stream() {
        // 2^17 pixels: twice the chunks between reductions, every byte 255 in the second half
        // of each pixel row (the largest sums), and a long run of zeros.
        let mut line: Vec<u8> = (0..1u32 << 19)
            .map(|i| if i % 7 < 3 { 255 } else { (i % 251) as u8 })
            .collect();
        line[100_000..300_000].fill(255);
        let mut ours = Vec::new();
        let mut c = Compressor::new(&mut ours);
        c.write_sub_row(&line);
        c.write_sub_row(&line);
        c.finish();
        let mut theirs = fdeflate::Compressor::new(Vec::new()).unwrap();
        theirs.write_data(&sub_filtered(&line)).unwrap();
        theirs.write_data(&sub_filtered(&line)).unwrap();
        assert!(ours == theirs.finish().unwrap());
    }

    #[test]
    fn words_are_subtracted_and_summed_byte_by_byte() {
        let mut random = super::super::test_random(0x2545_f491_4f6c_dd1d);
        for x in 0..=255u8 {
            for y in 0..=255u8 {
                let lane = (random() % 8) as usize;
                let mut xs = random().to_le_bytes();
                let mut ys = random().to_le_bytes();
                (xs[lane], ys[lane]) = (x, y);
                let got = sub_bytes(u64::from_le_bytes(xs), u64::from_le_bytes(ys)).to_le_bytes();
                let want: [u8; 8] = std::array::from_fn(|i| xs[i].wrapping_sub(ys[i]));
                assert_eq!(got, want, "{xs:?} - {ys:?}");
            }
        }
        for case in 0..20_000 {
            let bytes = match case {
                0 => [255; 8],
                1 => [0; 8],
                _ => random().to_le_bytes(),
            };
            let word = u64::from_le_bytes(bytes);
            let sum: u64 = bytes.iter().map(|&b| u64::from(b)).sum();
            let weighted: u64 = (0..8).map(|i| (8 - i as u64) * u64::from(bytes[i])).sum();
            assert_eq!(
                (byte_sum(word), weighted_sum(word)),
                (sum, weighted),
                "{bytes:?}"
            );
        }
    }

    #[test]
    fn the_stream_is_fdeflates_byte_for_byte() {
        let mut random = super::super::test_random(0x2545_f491_4f6c_dd1d);
        let mut next = |n: u64| random() % n;
        for case in 0..400 {
            let mut calls = Vec::new();
            for _ in 0..1 + next(6) {
                let mut data = Vec::new();
                let len = next(if case % 4 == 0 { 20 } else { 3000 }) as usize;
                while data.len() < len {
                    // Runs of zeros of every length (past 258 too), and stretches of literals.
                    if next(2) == 0 {
                        data.extend(std::iter::repeat_n(0, next(700) as usize));
                    } else {
                        for _ in 0..next(12) {
                            data.push(if next(3) == 0 { 0 } else { next(256) as u8 });
                        }
                    }
                }
                data.truncate(len);
                calls.push(data);
            }
            let (ours, theirs) = both(&calls);
            assert!(ours == theirs, "case {case}");
        }
        // No data, and data of zeros only.
        assert_eq!(both(&[]).0, both(&[]).1);
        let zeros = both(&[vec![0; 100_000]]);
        assert_eq!(zeros.0, zeros.1);
    }
}
