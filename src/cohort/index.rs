//! The tables at one cut-off with the look-ups every cohort needs, built once per cut-off:
//! each subject's assessments, ADTTE by parameter and subject, and subjects by the values of
//! the columns cohorts filter on (docs/PERFORMANCE.md).

use std::collections::{BTreeSet, HashMap};

use rustc_hash::FxHashMap;

use crate::config::CohortConfig;
use crate::endpoints::Members;
use crate::load::StudyData;
use crate::model::{Assessment, Date, Subject};

/// The subjects of a cohort (positions in `subjects`, as [`crate::endpoints::Members`]): every
/// `where` filter must hold.
pub fn cohort_members(cohort: &CohortConfig, subjects: &[Subject]) -> Vec<u32> {
    let filters = Filters::of(cohort.filter.iter());
    (0u32..)
        .zip(subjects)
        .filter(|(_, s)| filters.hold(s))
        .map(|(i, _)| i)
        .collect()
}

/// `where` filters (column = value) as text, to test subjects against.
struct Filters<'c>(Vec<(&'c str, String)>);

impl<'c> Filters<'c> {
    fn of(filters: impl Iterator<Item = (&'c String, &'c crate::config::Scalar)>) -> Filters<'c> {
        Filters(filters.map(|(k, v)| (k.as_str(), v.as_text())).collect())
    }

    /// Whether every filter holds for the subject.
    fn hold(&self, s: &Subject) -> bool {
        self.0
            .iter()
            .all(|(col, value)| s.columns.get(col).is_some_and(|v| v == value.as_str()))
    }
}

/// The tables at one cut-off, with the look-ups every cohort needs, built once.
pub struct CutData<'a> {
    /// The tables as of the cut-off.
    pub data: &'a StudyData,
    /// Each subject's OVR assessments.
    pub by_subject: HashMap<&'a str, Vec<Assessment>>,
    /// ADTTE by (PARAMCD, USUBJID), when ADTTE is given.
    pub tte_index: Option<crate::endpoints::TteIndex<'a>>,
    /// Subjects by the values of the columns cohorts filter on.
    pub members: MemberIndex<'a>,
    /// The cut-off.
    pub cutoff: Option<Date>,
}

/// Subjects (positions) by the value of each column a cohort filters on, built once per
/// cut-off: finding a cohort's members then costs the cohort's size, not the study's
/// (docs/PERFORMANCE.md).
#[derive(Default)]
pub struct MemberIndex<'a> {
    /// Subject positions by column and value, as `u32` (4 bytes per subject; an ADSL file of
    /// at most 1 GiB has fewer than 2^32 rows).
    by_column: FxHashMap<&'a str, FxHashMap<&'a str, Vec<u32>>>,
}

impl<'a> MemberIndex<'a> {
    /// Indexes `subjects` by each of `columns`.
    pub fn new(columns: &BTreeSet<&'a str>, subjects: &'a [Subject]) -> MemberIndex<'a> {
        let by_column = columns
            .iter()
            .map(|&column| {
                // Subjects share their column lists (a handful of distinct lists in a study of
                // millions): the value is looked up once per list, the subject's position
                // pushed to that value's list.
                let mut lists: Vec<(&str, Vec<u32>)> = Vec::new();
                let mut by_value: FxHashMap<&str, usize> = FxHashMap::default();
                let mut by_list: FxHashMap<usize, Option<usize>> = FxHashMap::default();
                for (i, s) in (0u32..).zip(subjects) {
                    let slot = *by_list.entry(s.columns.list_id()).or_insert_with(|| {
                        let v = s.columns.get(column)?;
                        Some(*by_value.entry(v).or_insert_with(|| {
                            lists.push((v, Vec::new()));
                            lists.len() - 1
                        }))
                    });
                    if let Some((_, list)) = slot.and_then(|k| lists.get_mut(k)) {
                        list.push(i);
                    }
                }
                (column, lists.into_iter().collect())
            })
            .collect();
        MemberIndex { by_column }
    }

    /// The cohort's subjects, in ADSL order: as [`cohort_members`], from the index when the
    /// cohort's first filter column is indexed.
    pub fn members(&self, cohort: &CohortConfig, subjects: &[Subject]) -> Members<'_> {
        let mut filters = cohort.filter.iter();
        let Some((column, value)) = filters.next() else {
            return Members::Owned(cohort_members(cohort, subjects));
        };
        let Some(by_value) = self.by_column.get(column.as_str()) else {
            return Members::Owned(cohort_members(cohort, subjects));
        };
        let rest = Filters::of(filters);
        let Some(list) = by_value.get(value.as_text().as_str()) else {
            return Members::Owned(Vec::new());
        };
        if rest.0.is_empty() {
            // One filter (the usual case): the list is the cohort, borrowed as it is; its
            // subjects are not touched (a cache miss each in a study of millions).
            return Members::Borrowed(list);
        }
        Members::Owned(
            list.iter()
                .copied()
                .filter(|&i| subjects.get(i as usize).is_some_and(|s| rest.hold(s)))
                .collect(),
        )
    }
}

impl<'a> CutData<'a> {
    /// Indexes the cut tables.
    pub fn new(data: &'a StudyData, cutoff: Option<Date>) -> CutData<'a> {
        CutData::for_cohorts(data, cutoff, &[])
    }

    /// Indexes the cut tables, and the subjects by the columns `cohorts` filter on.
    pub fn for_cohorts(
        data: &'a StudyData,
        cutoff: Option<Date>,
        cohorts: &[&'a CohortConfig],
    ) -> CutData<'a> {
        let columns: BTreeSet<&str> = cohorts
            .iter()
            .filter_map(|c| c.filter.keys().next().map(String::as_str))
            .collect();
        // Three independent indexes, built side by side.
        let (by_subject, (tte_index, members)) = rayon::join(
            || {
                let mut by_subject: HashMap<&str, Vec<Assessment>> = HashMap::new();
                for a in &data.assessments {
                    by_subject
                        .entry(a.usubjid.as_str())
                        .or_default()
                        .push(a.clone());
                }
                by_subject
            },
            || {
                rayon::join(
                    || {
                        data.has_adtte.then(|| {
                            crate::endpoints::TteIndex::new(&data.tte, data.subjects.len())
                        })
                    },
                    || MemberIndex::new(&columns, &data.subjects),
                )
            },
        );
        CutData {
            data,
            by_subject,
            tte_index,
            members,
            cutoff,
        }
    }
}

#[allow(clippy::unwrap_used)]
#[cfg(test)]
mod tests {
    use super::*;

    /// The index gives the same members as scanning every subject, for one filter, two
    /// filters, a value nobody has, a column nobody has, and no filter; subjects with lists
    /// of their own and subjects sharing lists (as loaded subjects do).
    #[test]
    fn indexed_members_equal_scanned_members() {
        let mut subjects: Vec<Subject> = (0..500)
            .map(|i| {
                let mut s = Subject::placeholder();
                s.usubjid = format!("S{i:03}").into();
                if i % 7 != 0 {
                    s.columns.insert("ARM".into(), ["A", "B", "C"][i % 3]);
                }
                s.columns.insert("SEX".into(), ["F", "M"][i % 2]);
                s
            })
            .collect();
        // The second half shares the lists of the first 42 subjects, in a shuffled order.
        for i in 250..500 {
            subjects[i].columns = subjects[(i * 17) % 42].columns.clone();
        }
        let cohorts: Vec<CohortConfig> = [
            r#"{"id": "a", "where": {"ARM": "A"}}"#,
            r#"{"id": "b", "where": {"ARM": "B", "SEX": "F"}}"#,
            r#"{"id": "c", "where": {"SEX": "M", "ARM": "C"}}"#,
            r#"{"id": "d", "where": {"ARM": "Z"}}"#,
            r#"{"id": "e", "where": {"AGE": "60"}}"#,
            r#"{"id": "f"}"#,
        ]
        .iter()
        .map(|json| serde_json::from_str(json).unwrap())
        .collect();
        let columns: BTreeSet<&str> = ["ARM", "SEX"].into_iter().collect();
        let index = MemberIndex::new(&columns, &subjects);
        for cohort in &cohorts {
            let scanned = cohort_members(cohort, &subjects);
            assert_eq!(index.members(cohort, &subjects), scanned, "{}", cohort.id);
        }
        assert_eq!(cohort_members(&cohorts[0], &subjects).len(), 143);
        // A cohort of one indexed filter is the index's list, not a copy.
        assert!(matches!(
            index.members(&cohorts[0], &subjects),
            Members::Borrowed(_)
        ));
        assert!(matches!(
            index.members(&cohorts[1], &subjects),
            Members::Owned(_)
        ));
        assert_eq!(index.members(&cohorts[5], &subjects).len(), 500);
    }
}
