//! ADSL's subject ids for the other tables, and the checks every reader shares (a
//! subject known to ADSL, an ADaM Y/N flag).

use super::*;

/// The subject ids of ADSL in file order, for checking that other tables name only known
/// subjects and for finding a record's subject. ADSL is usually sorted by `USUBJID`; then
/// the ids are found by binary search and cannot repeat, and no hash table is built.
#[derive(Debug, Default)]
pub struct KnownSubjects<'a> {
    pub(super) ids: Ids<'a>,
    /// Positions by id, when the ids are not strictly increasing.
    pub(super) index: Option<FxHashMap<&'a str, usize>>,
}

/// Where [`KnownSubjects`] reads its ids: the subjects themselves (no copy of 16 bytes a
/// subject), or a list.
#[derive(Debug)]
pub(super) enum Ids<'a> {
    Subjects(&'a [Subject]),
    Listed(Vec<&'a str>),
}

impl Default for Ids<'_> {
    fn default() -> Self {
        Ids::Listed(Vec::new())
    }
}

impl<'a> Ids<'a> {
    pub(super) fn len(&self) -> usize {
        match self {
            Ids::Subjects(subjects) => subjects.len(),
            Ids::Listed(ids) => ids.len(),
        }
    }

    #[inline]
    pub(super) fn get(&self, position: usize) -> Option<&'a str> {
        match self {
            Ids::Subjects(subjects) => subjects.get(position).map(|s| s.usubjid.as_str()),
            Ids::Listed(ids) => ids.get(position).copied(),
        }
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = &'a str> + '_ {
        (0..self.len()).filter_map(|i| self.get(i))
    }

    pub(super) fn binary_search(&self, id: &str) -> Option<usize> {
        match self {
            Ids::Subjects(subjects) => subjects.binary_search_by(|s| (*s.usubjid).cmp(id)),
            Ids::Listed(ids) => ids.binary_search(&id),
        }
        .ok()
    }
}

impl<'a> KnownSubjects<'a> {
    /// The subjects the ids are read from (none when they are a list of ids).
    pub(super) fn subjects(&self) -> &'a [Subject] {
        match self.ids {
            Ids::Subjects(subjects) => subjects,
            Ids::Listed(_) => &[],
        }
    }
}

impl<'a> FromIterator<&'a str> for KnownSubjects<'a> {
    /// The ids in order; an id given twice is found at its last position.
    fn from_iter<I: IntoIterator<Item = &'a str>>(iter: I) -> Self {
        let ids = Ids::Listed(iter.into_iter().collect());
        KnownSubjects::of(ids).unwrap_or_else(|(ids, _)| {
            let mut index = FxHashMap::with_capacity_and_hasher(ids.len(), Default::default());
            index.extend(ids.iter().enumerate().map(|(i, id)| (id, i)));
            KnownSubjects {
                ids,
                index: Some(index),
            }
        })
    }
}

/// The positions of an id that appears twice: its first and its second.
pub type Repeat = (usize, usize);

impl<'a> KnownSubjects<'a> {
    /// The ids of `subjects` (in ADSL order), or the positions of the first id that appears
    /// twice.
    pub fn of_subjects(subjects: &'a [Subject]) -> std::result::Result<Self, Repeat> {
        KnownSubjects::of(Ids::Subjects(subjects)).map_err(|(_, repeat)| repeat)
    }

    /// The subjects of `ids` (in ADSL order), or the positions of the first id that appears
    /// twice.
    pub fn new(ids: Vec<&'a str>) -> std::result::Result<Self, Repeat> {
        KnownSubjects::of(Ids::Listed(ids)).map_err(|(_, repeat)| repeat)
    }

    pub(super) fn of(ids: Ids<'a>) -> std::result::Result<Self, (Ids<'a>, Repeat)> {
        // Strictly increasing: sorted, and no id twice.
        if ids.iter().is_sorted_by(|a, b| a < b) {
            return Ok(KnownSubjects { ids, index: None });
        }
        let mut index = FxHashMap::with_capacity_and_hasher(ids.len(), Default::default());
        let repeat = ids
            .iter()
            .enumerate()
            .find_map(|(i, id)| index.insert(id, i).map(|first| (first, i)));
        if let Some(repeat) = repeat {
            return Err((ids, repeat));
        }
        Ok(KnownSubjects {
            ids,
            index: Some(index),
        })
    }

    /// Number of subjects.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether there are no subjects.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The id of the subject at `position` (empty when out of range).
    pub fn id(&self, position: usize) -> &'a str {
        self.ids.get(position).unwrap_or_default()
    }

    /// Whether the subject is in ADSL.
    pub fn contains(&self, id: &str) -> bool {
        self.find(id, &mut 0).is_some()
    }

    /// The subject's position in ADSL. Tables are usually sorted like ADSL, so the subject
    /// of the previous row (`hint`) and the next one are tried before the look-up.
    pub fn find(&self, id: &str, hint: &mut usize) -> Option<usize> {
        for candidate in [*hint, *hint + 1] {
            if self.ids.get(candidate) == Some(id) {
                *hint = candidate;
                return Some(candidate);
            }
        }
        let found = match &self.index {
            Some(index) => index.get(id).copied()?,
            None => self.ids.binary_search(id)?,
        };
        *hint = found;
        Some(found)
    }
}

/// The ADSL position of a row's subject, or an error naming the row.
pub(super) fn require_subject(
    row: &Row<'_, '_>,
    col: usize,
    usubjid: &str,
    known: &KnownSubjects<'_>,
    hint: &mut usize,
) -> Result<usize> {
    if usubjid.is_empty() {
        return Err(row.error(col, "USUBJID is empty; expected a subject id"));
    }
    known.find(usubjid, hint).ok_or_else(|| {
        row.error(
            col,
            format!(
                "subject `{usubjid}` is not in ADSL; expected every subject to have an ADSL row"
            ),
        )
    })
}

/// An ADaM flag: `Y` is yes, `N` or empty no (either case), `absent` when the file has no
/// such column. Any other value (`Yes`, `1`) is an error: read as "no", it would drop the
/// subject or the event without a word.
pub(super) fn flag(row: &Row<'_, '_>, column: Option<usize>, absent: bool) -> Result<bool> {
    let Some(c) = column else {
        return Ok(absent);
    };
    match row.text(column)? {
        t if t.eq_ignore_ascii_case("Y") => Ok(true),
        t if t.is_empty() || t.eq_ignore_ascii_case("N") => Ok(false),
        t => Err(row.error(c, format!("`{t}` is not a flag; expected Y, N or empty"))),
    }
}
