//! Treatment-emergent adverse events by system organ class and preferred term, as clinical
//! study reports table them (docs/OUTPUTS.md, "safety"): subjects counted once per class and
//! per term, events as records, and each subject's highest grade per class and term.

use rustc_hash::FxHashMap;

use crate::config::AeSort;
use crate::model::AdverseEvent;
use crate::results::{SocCount, SocGrades, TermEvents, TermGrades};

/// The class of an event with an empty `AEBODSYS`.
pub const NOT_CODED: &str = "Not coded";

/// A class or a term: its name as first written, its records, its subjects and how many of
/// them have each highest grade (index 0: no grade; 1 to 5).
struct Tally<'a> {
    name: &'a str,
    events: usize,
    subjects: usize,
    grades: [usize; 6],
}

impl<'a> Tally<'a> {
    fn new(name: &'a str) -> Tally<'a> {
        Tally {
            name,
            events: 0,
            subjects: 0,
            grades: [0; 6],
        }
    }

    /// Subjects by highest grade 1 to 5, and those with no grade.
    fn grades(&self) -> (Vec<usize>, usize) {
        (self.grades[1..].to_vec(), self.grades[0])
    }
}

/// A class: its tally and its terms'.
struct Class<'a> {
    tally: Tally<'a>,
    terms: Vec<Tally<'a>>,
}

/// The key two spellings of one name share: trimmed, upper case.
fn key(name: &str) -> String {
    name.trim().to_uppercase()
}

/// Counts subjects once per group: `keys` are (group, subject, grade); `add(group, worst)` is
/// called once per distinct subject of a group with its highest grade there.
fn count_subjects(keys: &mut [(u32, u32, u8)], mut add: impl FnMut(u32, u8)) {
    keys.sort_unstable();
    let mut i = 0;
    while i < keys.len() {
        let (group, subject, _) = keys[i];
        let mut j = i;
        let mut worst = 0u8;
        while j < keys.len() && keys[j].0 == group && keys[j].1 == subject {
            worst = worst.max(keys[j].2);
            j += 1;
        }
        add(group, worst);
        i = j;
    }
}

impl Tally<'_> {
    fn add_subject(&mut self, worst: u8) {
        self.subjects += 1;
        self.grades[usize::from(worst)] += 1;
    }
}

/// The classes of `events` (already treatment-emergent and in the safety population). Names
/// and subjects are interned once per distinct text; subjects are then counted by sorting.
fn classes<'a>(events: impl Iterator<Item = &'a AdverseEvent>) -> Vec<Class<'a>> {
    let mut class_of_text: FxHashMap<&'a str, u32> = FxHashMap::default();
    let mut class_of_key: FxHashMap<String, u32> = FxHashMap::default();
    let mut term_of_text: FxHashMap<(u32, &'a str), u32> = FxHashMap::default();
    let mut term_of_key: FxHashMap<(u32, String), u32> = FxHashMap::default();
    let mut subject_of: FxHashMap<&'a str, u32> = FxHashMap::default();
    let mut out: Vec<Class<'a>> = Vec::new();
    // Every term of every class, in one list: (class, index within the class).
    let mut terms: Vec<(u32, u32)> = Vec::new();
    let (mut by_class, mut by_term) = (Vec::new(), Vec::new());
    for e in events {
        let text = e.soc.as_deref().unwrap_or("");
        let class = match class_of_text.get(text) {
            Some(&c) => c,
            None => {
                let shown = Some(text.trim())
                    .filter(|s| !s.is_empty())
                    .unwrap_or(NOT_CODED);
                let c = *class_of_key.entry(key(shown)).or_insert_with(|| {
                    out.push(Class {
                        tally: Tally::new(shown),
                        terms: Vec::new(),
                    });
                    (out.len() - 1) as u32
                });
                class_of_text.insert(text, c);
                c
            }
        };
        let term = match term_of_text.get(&(class, e.term.as_str())) {
            Some(&t) => t,
            None => {
                let t = *term_of_key.entry((class, key(&e.term))).or_insert_with(|| {
                    let c = &mut out[class as usize];
                    c.terms.push(Tally::new(e.term.trim()));
                    terms.push((class, (c.terms.len() - 1) as u32));
                    (terms.len() - 1) as u32
                });
                term_of_text.insert((class, e.term.as_str()), t);
                t
            }
        };
        let next = subject_of.len() as u32;
        let subject = *subject_of.entry(e.usubjid.as_str()).or_insert(next);
        let grade = e.grade.unwrap_or(0).min(5);
        out[class as usize].tally.events += 1;
        let (c, k) = terms[term as usize];
        out[c as usize].terms[k as usize].events += 1;
        by_class.push((class, subject, grade));
        by_term.push((term, subject, grade));
    }
    count_subjects(&mut by_class, |c, worst| {
        out[c as usize].tally.add_subject(worst)
    });
    count_subjects(&mut by_term, |t, worst| {
        let (c, k) = terms[t as usize];
        out[c as usize].terms[k as usize].add_subject(worst)
    });
    out
}

/// Sorts `items` by `sort`: most subjects first then by name, or by name; names compare
/// case-insensitively.
fn order<T>(
    items: &mut [T],
    sort: AeSort,
    subjects: impl Fn(&T) -> usize,
    name: impl Fn(&T) -> &str,
) {
    items.sort_by(|a, b| {
        let by_name = || {
            key(name(a))
                .cmp(&key(name(b)))
                .then_with(|| name(a).cmp(name(b)))
        };
        match sort {
            AeSort::Frequency => subjects(b).cmp(&subjects(a)).then_with(by_name),
            AeSort::Alphabetical => by_name(),
        }
    });
}

/// The classes and terms of `events` with subjects and records, in `sort` order.
pub fn by_soc<'a>(events: impl Iterator<Item = &'a AdverseEvent>, sort: AeSort) -> Vec<SocCount> {
    counts(&classes(events), sort)
}

/// [`by_soc`] and [`by_soc_grade`] of the same events, counted once.
pub fn by_soc_and_grade<'a>(
    events: impl Iterator<Item = &'a AdverseEvent>,
    sort: AeSort,
) -> (Vec<SocCount>, Vec<SocGrades>) {
    let classes = classes(events);
    (counts(&classes, sort), grades(&classes, sort))
}

fn counts(classes: &[Class<'_>], sort: AeSort) -> Vec<SocCount> {
    let mut socs: Vec<SocCount> = classes
        .iter()
        .map(|c| {
            let mut terms: Vec<TermEvents> = c
                .terms
                .iter()
                .map(|t| TermEvents {
                    term: t.name.to_string(),
                    subjects: t.subjects,
                    events: t.events,
                })
                .collect();
            order(&mut terms, sort, |t| t.subjects, |t| &t.term);
            SocCount {
                soc: c.tally.name.to_string(),
                subjects: c.tally.subjects,
                events: c.tally.events,
                terms,
            }
        })
        .collect();
    order(&mut socs, sort, |s| s.subjects, |s| &s.soc);
    socs
}

/// Names `part`'s classes and terms as `whole` writes them (a subset, as the serious events,
/// may first meet a name in another spelling), so every table spells a name one way.
pub fn spell_as(part: &mut [SocCount], whole: &[SocCount]) {
    let names: FxHashMap<String, (&str, FxHashMap<String, &str>)> = whole
        .iter()
        .map(|s| {
            let terms = s
                .terms
                .iter()
                .map(|t| (key(&t.term), t.term.as_str()))
                .collect();
            (key(&s.soc), (s.soc.as_str(), terms))
        })
        .collect();
    for soc in part {
        if let Some((name, terms)) = names.get(&key(&soc.soc)) {
            soc.soc = name.to_string();
            for term in &mut soc.terms {
                if let Some(name) = terms.get(&key(&term.term)) {
                    term.term = name.to_string();
                }
            }
        }
    }
}

/// An arm's classes (and each class's terms) in the order of the cohort's (`whole`): the
/// tables of every arm list "all arms together" (docs/CONFIG.md, `ae_sort`); what the cohort
/// lacks (it has all its arms' events) would come last.
pub fn order_as<T>(part: &mut [T], whole: &[SocCount], name: impl Fn(&T) -> &str) {
    let places: FxHashMap<String, usize> = whole
        .iter()
        .enumerate()
        .map(|(i, s)| (key(&s.soc), i))
        .collect();
    part.sort_by_key(|s| places.get(&key(name(s))).copied().unwrap_or(usize::MAX));
}

/// Each class's terms of an arm in the order of the cohort's terms of that class.
pub fn order_terms_as<T>(terms: &mut [T], whole: Option<&SocCount>, name: impl Fn(&T) -> &str) {
    let Some(whole) = whole else { return };
    let places: FxHashMap<String, usize> = whole
        .terms
        .iter()
        .enumerate()
        .map(|(i, t)| (key(&t.term), i))
        .collect();
    terms.sort_by_key(|t| places.get(&key(name(t))).copied().unwrap_or(usize::MAX));
}

/// An arm's safety tables (by class and term, serious, leading to discontinuation, fatal, by
/// highest grade) each in the order of the cohort's table of its kind (`whole`).
pub fn order_safety_as(arm: &mut crate::results::Safety, whole: &crate::results::Safety) {
    fn lists(list: &mut [SocCount], whole: &[SocCount]) {
        order_as(list, whole, |s| &s.soc);
        for soc in list.iter_mut() {
            let of = whole.iter().find(|s| key(&s.soc) == key(&soc.soc));
            order_terms_as(&mut soc.terms, of, |t| &t.term);
        }
    }
    lists(&mut arm.by_soc, &whole.by_soc);
    for (part, of) in [
        (&mut arm.serious_by_soc, &whole.serious_by_soc),
        (
            &mut arm.discontinuation_by_soc,
            &whole.discontinuation_by_soc,
        ),
        (&mut arm.fatal_by_soc, &whole.fatal_by_soc),
    ] {
        if let (Some(part), Some(of)) = (part.as_mut(), of.as_ref()) {
            lists(part, of);
        }
    }
    if let Some(graded) = arm.by_soc_grade.as_mut() {
        order_as(graded, &whole.by_soc, |s| &s.soc);
        for soc in graded.iter_mut() {
            let of = whole.by_soc.iter().find(|s| key(&s.soc) == key(&soc.soc));
            order_terms_as(&mut soc.terms, of, |t| &t.term);
        }
    }
}

/// The classes and terms of `events` with subjects by highest grade, in `sort` order.
pub fn by_soc_grade<'a>(
    events: impl Iterator<Item = &'a AdverseEvent>,
    sort: AeSort,
) -> Vec<SocGrades> {
    grades(&classes(events), sort)
}

fn grades(classes: &[Class<'_>], sort: AeSort) -> Vec<SocGrades> {
    let mut socs: Vec<(usize, SocGrades)> = classes
        .iter()
        .map(|c| {
            let mut terms: Vec<(usize, TermGrades)> = c
                .terms
                .iter()
                .map(|t| {
                    let (grades, not_graded) = t.grades();
                    (
                        t.subjects,
                        TermGrades {
                            term: t.name.to_string(),
                            grades,
                            not_graded,
                        },
                    )
                })
                .collect();
            order(&mut terms, sort, |t| t.0, |t| &t.1.term);
            let (grades, not_graded) = c.tally.grades();
            (
                c.tally.subjects,
                SocGrades {
                    soc: c.tally.name.to_string(),
                    grades,
                    not_graded,
                    terms: terms.into_iter().map(|t| t.1).collect(),
                },
            )
        })
        .collect();
    order(&mut socs, sort, |s| s.0, |s| &s.1.soc);
    socs.into_iter().map(|s| s.1).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ae(subject: &str, soc: Option<&str>, term: &str, grade: Option<u8>) -> AdverseEvent {
        AdverseEvent {
            usubjid: subject.into(),
            term: term.into(),
            soc: soc.map(String::from),
            grade,
            by_severity: false,
            related: false,
            start: None,
            emergent: true,
            serious: false,
            fatal: false,
            action: crate::model::AeAction::Other,
        }
    }

    /// Subjects once per class and term, events as records; case differences one name; the
    /// highest grade per term and per class; an empty class "Not coded".
    #[test]
    fn subjects_once_events_each_and_highest_grades() {
        let events = [
            ae("S1", Some("Cardiac disorders"), "Palpitations", Some(1)),
            ae("S1", Some("CARDIAC DISORDERS"), "palpitations", Some(2)),
            ae("S1", Some("Cardiac disorders"), "Tachycardia", Some(3)),
            ae("S2", Some("Cardiac disorders"), "Tachycardia", Some(1)),
            ae("S2", None, "Odd term", None),
            ae("S3", Some(" "), "Odd term", Some(2)),
            ae("S3", Some("Eye disorders"), "Dry eye", Some(1)),
        ];
        let socs = by_soc(events.iter(), AeSort::Frequency);
        let names: Vec<&str> = socs.iter().map(|s| s.soc.as_str()).collect();
        assert_eq!(names, ["Cardiac disorders", "Not coded", "Eye disorders"]);
        let cardiac = &socs[0];
        assert_eq!((cardiac.subjects, cardiac.events), (2, 4));
        let terms: Vec<(&str, usize, usize)> = cardiac
            .terms
            .iter()
            .map(|t| (t.term.as_str(), t.subjects, t.events))
            .collect();
        assert_eq!(terms, [("Tachycardia", 2, 2), ("Palpitations", 1, 2)]);
        assert_eq!((socs[1].subjects, socs[1].events), (2, 2));

        let graded = by_soc_grade(events.iter(), AeSort::Frequency);
        assert_eq!(graded[0].grades, [1, 0, 1, 0, 0], "S2 at 1, S1 at 3");
        assert_eq!(
            graded[0].terms[1].grades,
            [0, 1, 0, 0, 0],
            "S1's palpitations at 2"
        );
        assert_eq!(
            (graded[1].grades.clone(), graded[1].not_graded),
            (vec![0, 1, 0, 0, 0], 1)
        );

        // Alphabetically, case-insensitive.
        let socs = by_soc(events.iter(), AeSort::Alphabetical);
        let names: Vec<&str> = socs.iter().map(|s| s.soc.as_str()).collect();
        assert_eq!(names, ["Cardiac disorders", "Eye disorders", "Not coded"]);
        assert_eq!(socs[0].terms[0].term, "Palpitations");
        assert!(by_soc(std::iter::empty(), AeSort::Frequency).is_empty());
    }
}
