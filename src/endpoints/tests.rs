use super::*;
use crate::model::endpoint::{DOR, OS, PFS};

fn counts(values: &[(&str, usize)]) -> Vec<LevelCount> {
    values
        .iter()
        .map(|(v, n)| LevelCount {
            value: v.to_string(),
            label: v.to_string(),
            n: *n,
            total: 20,
            rate: *n as f64 / 20.0,
        })
        .collect()
}

/// Words for codes from the config, else CDISC's; levels in the config's order, else the
/// terminology's, else ascending numbers, else as given (most frequent first).
#[test]
fn coded_values_are_decoded_and_put_in_their_own_order() {
    let item = |yaml: &str| -> BaselineItem { serde_yaml::from_str(yaml).unwrap() };
    let ecog =
        item("{ column: ECOG, kind: categorical, labels: { 0: fully active, \"1\": restricted } }");
    assert_eq!(decode(&ecog, "0"), "fully active");
    assert_eq!(decode(&ecog, "1"), "restricted");
    assert_eq!(decode(&ecog, "2"), "2");
    let levels = counts(&[("1", 19), ("10", 0), ("0", 1)]);
    assert_eq!(natural_order(&ecog, &levels), ["0", "1", "10"]);
    let sex = item("{ column: SEX, kind: categorical }");
    assert_eq!(decode(&sex, "F"), "female");
    assert_eq!(
        natural_order(&sex, &counts(&[("F", 12), ("M", 8)])),
        ["M", "F"]
    );
    let race = item("{ column: RACE, kind: categorical }");
    assert_eq!(
        decode(&race, "BLACK OR AFRICAN AMERICAN"),
        "Black or African American"
    );
    let site = item("{ column: SITE, kind: categorical, order: [Other, Lung] }");
    assert_eq!(
        natural_order(&site, &counts(&[("Lung", 9), ("Liver", 6), ("Other", 5)])),
        ["Other", "Lung", "Liver"]
    );
    let dose = item("{ column: DOSE, kind: categorical }");
    assert_eq!(
        natural_order(&dose, &counts(&[("12", 17), ("10", 3)])),
        ["10", "12"]
    );
}

#[test]
fn a_tte_value_holds_a_time_its_censoring_or_nothing() {
    for (time, censored) in [(0.0, false), (0.0, true), (12.5, false), (730.5, true)] {
        assert_eq!(TteValue::new(time, censored).get(), Some((time, censored)));
    }
    let zero = TteValue::new(-0.0, false).get().unwrap();
    assert_eq!((zero.0.to_bits(), zero.1), (0.0f64.to_bits(), false));
    assert_eq!(TteValue::NONE.get(), None);
    assert_eq!(std::mem::size_of::<TteValue>(), 8);
}

#[test]
fn the_tte_index_finds_each_subjects_record_of_a_parameter() {
    let record = |subject: u32, param: u32, days: f64| TteRecord {
        subject,
        param,
        days,
        ..TteRecord::placeholder()
    };
    let table = TteTable {
        params: vec![OS.into(), PFS.into(), "TTR".into()],
        records: vec![
            record(2, 1, 20.0),
            record(0, 0, 1.0),
            record(2, 0, 3.0),
            record(1, 1, 11.0),
        ],
    };
    let index = TteIndex::new(&table, 4);
    let days = |paramcd: &str| -> Vec<Option<f64>> {
        let column = index.param(paramcd).unwrap();
        (0..5).map(|i| column.get(i).map(|r| r.days)).collect()
    };
    assert_eq!(days(OS), [Some(1.0), None, Some(3.0), None, None]);
    assert_eq!(days(PFS), [None, Some(11.0), Some(20.0), None, None]);
    // A parameter no record has, and one the table does not know.
    assert!(index.param("TTR").unwrap().get(0).is_none());
    assert!(index.param(DOR).is_none());
}
