//! fdeflate's fast compressor, its stream bit for bit, with runs of zero bytes skipped
//! 32 at a time.
//!
//! The PNG rows are Sub-filtered, so a figure's flat colours become zeros: 95% of the example
//! study's 8-byte chunks are zero, and fdeflate looks at them one by one (its loop keeps the
//! run's length in memory between chunks), which was most of encoding a PNG. This module is
//! fdeflate 0.3's `Compressor` (MIT OR Apache-2.0; its fixed Huffman table and its rules for
//! literals and runs) with a faster way over zero chunks; a test compares its output with
//! fdeflate's byte for byte, so the PNG files do not change.

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

/// A zlib stream of one dynamic block, written to `out`.
pub(super) struct Compressor<'a> {
    out: &'a mut Vec<u8>,
    checksum: simd_adler32::Adler32,
    buffer: u64,
    nbits: u8,
}

impl<'a> Compressor<'a> {
    pub fn new(out: &'a mut Vec<u8>) -> Compressor<'a> {
        let mut c = Compressor {
            out,
            checksum: simd_adler32::Adler32::new(),
            buffer: 0,
            nbits: 0,
        };
        c.out.extend_from_slice(&HEADER[..53]);
        c.write_bits(u64::from(HEADER[53]), 5);
        c
    }

    #[inline(always)]
    fn write_bits(&mut self, bits: u64, nbits: u8) {
        self.buffer |= bits << self.nbits;
        self.nbits += nbits;
        if self.nbits >= 64 {
            self.out.extend_from_slice(&self.buffer.to_le_bytes());
            self.nbits -= 64;
            self.buffer = bits.checked_shr(u32::from(nbits - self.nbits)).unwrap_or(0);
        }
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

    /// Compresses `data` as fdeflate's `write_data` does (a run still open at its end is
    /// written, so the stream depends on how the data is cut into calls, as fdeflate's does).
    pub fn write_data(&mut self, data: &[u8]) {
        self.checksum.write(data);
        let (chunks, rest) = data.as_chunks::<8>();
        let mut run = 0u32;
        let mut i = 0;
        while i < chunks.len() {
            let chunk = &chunks[i];
            let word = u64::from_le_bytes(*chunk);
            if word == 0 {
                let zeros = zero_chunks(&chunks[i..]);
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
            // Eight literals in two writes of at most 48 bits.
            for half in [&chunk[..4], &chunk[4..]] {
                let (mut bits, mut n) = (0u64, 0u8);
                for &b in half {
                    bits |= u64::from(CODES[b as usize]) << n;
                    n += LENGTHS[b as usize];
                }
                self.write_bits(bits, n);
            }
        }
        if run > 0 {
            self.write_run(run);
        }
        for &b in rest {
            self.literal(b);
        }
    }

    /// Ends the block and the stream (the Adler-32 of the data).
    pub fn finish(mut self) {
        self.write_bits(u64::from(CODES[256]), LENGTHS[256]);
        if !self.nbits.is_multiple_of(8) {
            self.write_bits(0, 8 - self.nbits % 8);
        }
        if self.nbits > 0 {
            let n = usize::from(self.nbits / 8);
            self.out.extend_from_slice(&self.buffer.to_le_bytes()[..n]);
        }
        let checksum = self.checksum.finish();
        self.out.extend_from_slice(&checksum.to_be_bytes());
    }
}

/// How many of `chunks` are zero before the first that is not, four at a time while it can.
#[inline(always)]
fn zero_chunks(chunks: &[[u8; 8]]) -> usize {
    let mut n = 0;
    for four in chunks.as_chunks::<4>().0 {
        let any = four
            .iter()
            .fold(0u64, |acc, c| acc | u64::from_le_bytes(*c));
        if any != 0 {
            break;
        }
        n += 4;
    }
    n + chunks[n..]
        .iter()
        .take_while(|c| u64::from_le_bytes(**c) == 0)
        .count()
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
