//! ISO 8601 dates as the data hold them, parsed once per cell: the loaders read every date
//! cell through [`parse_iso_date`], and the derivations read kept ADSL date columns with it.

use super::Date;

/// Whether `b` is the time part of an ISO 8601 datetime after its date: `T` (or a space)
/// and `hh`, `hh:mm` or `hh:mm:ss` (with a fraction), optionally `Z` or an offset `±hh:mm`.
fn is_iso_time(b: &[u8]) -> bool {
    let two = |at: usize, max: u8| -> bool {
        matches!(b.get(at..at + 2), Some([h, l]) if h.is_ascii_digit() && l.is_ascii_digit()
            && (h - b'0') * 10 + (l - b'0') <= max)
    };
    if !matches!(b.first(), Some(b'T' | b' ')) || !two(1, 23) {
        return false;
    }
    let mut i = 3;
    for max in [59, 60] {
        if b.get(i) == Some(&b':') && two(i + 1, max) {
            i += 3;
        } else {
            break;
        }
    }
    if i == 9 && matches!(b.get(i), Some(b'.' | b',')) {
        i += 1;
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == start {
            return false;
        }
    }
    match &b[i..] {
        [] | [b'Z'] => true,
        [b'+' | b'-', rest @ ..] => {
            let zone = |r: &[u8]| matches!(r, [a, b2] if a.is_ascii_digit() && b2.is_ascii_digit());
            match rest {
                [h @ .., b':', m1, m2] => zone(h) && zone(&[*m1, *m2]),
                [h1, h2, m1, m2] => zone(&[*h1, *h2]) && zone(&[*m1, *m2]),
                h => zone(h),
            }
        }
        _ => false,
    }
}

/// `YYYY-MM-DD`, optionally followed by an ISO 8601 time (`is_iso_time`; a datetime whose
/// date is taken). Hand-written because it runs once per date cell: chrono's format parser is
/// ten times slower.
pub fn parse_iso_date(text: &str) -> Option<Date> {
    let b = text.as_bytes();
    if b.len() < 10 || (b.len() > 10 && !is_iso_time(&b[10..])) {
        return None;
    }
    let digits = |range: std::ops::Range<usize>| -> Option<u32> {
        let part = b.get(range)?;
        if part.iter().all(u8::is_ascii_digit) {
            Some(part.iter().fold(0, |acc, d| acc * 10 + u32::from(d - b'0')))
        } else {
            None
        }
    };
    if b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let (year, month, day) = (digits(0..4)?, digits(5..7)?, digits(8..10)?);
    if month > 12 || day > 31 {
        return None;
    }
    // A thread's recent dates, by (year, month, day): a study's dates fall on a few thousand
    // days, and chrono's calendar arithmetic was most of the time spent on a date cell.
    let key = (year << 9) | (month << 5) | day;
    let slot = (key as usize) % DATE_CACHE_SLOTS;
    if let Some(date) = DATE_CACHE.with(|cache| {
        cache
            .get(slot)
            .map(std::cell::Cell::get)
            .and_then(|(k, date)| (k == key + 1).then_some(date))
    }) {
        return Some(date);
    }
    let date = Date::from_ymd_opt(i32::try_from(year).ok()?, month, day)?;
    DATE_CACHE.with(|cache| {
        if let Some(cell) = cache.get(slot) {
            cell.set((key + 1, date));
        }
    });
    Some(date)
}

/// Slots of [`DATE_CACHE`]: eight years of days without two sharing a slot.
const DATE_CACHE_SLOTS: usize = 4096;

thread_local! {
    /// Valid dates parsed on this thread, as (key + 1, date); key 0 is an empty slot.
    static DATE_CACHE: [std::cell::Cell<(u32, Date)>; DATE_CACHE_SLOTS] =
        const { [const { std::cell::Cell::new((0, Date::MIN)) }; DATE_CACHE_SLOTS] };
}
