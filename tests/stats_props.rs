//! Property tests for `readout::stats`: invariants that must hold for any data, and inputs
//! that must give a defined result or a typed error, never a panic.

use proptest::prelude::*;
use readout::stats::{
    clopper_pearson, kaplan_meier, kaplan_meier_split, reverse_km_followup, wilson, CiTransform,
    KaplanMeier, StatsError, TimeTally,
};

/// Survival data with many ties (small integer times) or none (continuous times).
fn survival_data() -> impl Strategy<Value = Vec<(f64, bool)>> {
    let tied = (0u32..15, any::<bool>()).prop_map(|(t, e)| (f64::from(t), e));
    let continuous = (0.0f64..1000.0, any::<bool>());
    prop_oneof![
        prop::collection::vec(tied, 0..60),
        prop::collection::vec(continuous, 0..60),
    ]
}

fn split(data: &[(f64, bool)]) -> (Vec<f64>, Vec<bool>) {
    data.iter().copied().unzip()
}

fn fit(data: &[(f64, bool)]) -> KaplanMeier {
    let (t, e) = split(data);
    kaplan_meier(&t, &e).expect("valid data")
}

fn any_transform() -> impl Strategy<Value = CiTransform> {
    prop::sample::select(CiTransform::ALL.to_vec())
}

// 256 cases each by default; PROPTEST_CASES=20000 for a deeper search.
proptest! {
    /// The fit from event and censoring times given apart (in any order, with −0 for 0) is
    /// the fit from times and flags, step for step.
    #[test]
    fn the_fit_from_split_times_is_the_fit_from_times_and_flags(data in survival_data()) {
        let times = |event: bool| -> Vec<f64> {
            // Backwards, and with −0 for an event at 0.
            data.iter()
                .rev()
                .filter(|d| d.1 == event)
                .map(|d| if event && d.0 == 0.0 { -0.0 } else { d.0 })
                .collect()
        };
        let split = kaplan_meier_split(times(true), times(false))
        .expect("valid data");
        let whole = fit(&data);
        prop_assert_eq!((split.n(), split.n_events()), (whole.n(), whole.n_events()));
        prop_assert_eq!(format!("{:?}", split.steps()), format!("{:?}", whole.steps()));
    }

    /// Times counted one by one give the fit from times and flags, step for step, whether
    /// they stay counted or pass the limit of distinct times early or late (and −0 is 0).
    #[test]
    fn the_fit_of_tallied_times_is_the_fit_from_times_and_flags(
        data in survival_data(),
        limit in prop_oneof![Just(None), (0usize..8).prop_map(Some)],
    ) {
        let mut tally = match limit {
            None => TimeTally::new(),
            Some(limit) => TimeTally::with_limit(limit),
        };
        for &(t, e) in &data {
            tally.add(if t == 0.0 { -0.0 } else { t }, e);
        }
        prop_assert_eq!(tally.len(), data.len());
        let tallied = tally.fit().expect("valid data");
        let whole = fit(&data);
        prop_assert_eq!((tallied.n(), tallied.n_events()), (whole.n(), whole.n_events()));
        prop_assert_eq!(format!("{:?}", tallied.steps()), format!("{:?}", whole.steps()));
    }

    #[test]
    fn survival_is_a_non_increasing_probability(data in survival_data()) {
        let km = fit(&data);
        prop_assert_eq!(km.n(), data.len());
        prop_assert_eq!(km.n_events(), data.iter().filter(|d| d.1).count());
        let mut previous_surv = 1.0;
        let mut previous_time = f64::NEG_INFINITY;
        let mut at_risk = data.len();
        for s in km.steps() {
            prop_assert!((0.0..=1.0).contains(&s.surv));
            prop_assert!(s.surv <= previous_surv);
            prop_assert!(s.time > previous_time);
            prop_assert_eq!(s.n_risk, at_risk);
            prop_assert!(s.n_event + s.n_censor > 0);
            at_risk -= s.n_event + s.n_censor;
            previous_surv = s.surv;
            previous_time = s.time;
        }
        prop_assert_eq!(at_risk, 0);
    }

    #[test]
    fn bands_contain_the_curve(data in survival_data(), transform in any_transform(), level in 0.5f64..0.999) {
        let km = fit(&data);
        for (s, b) in km.steps().iter().zip(km.band(level, transform).unwrap()) {
            if let Some(lower) = b.lower {
                prop_assert!((0.0..=s.surv).contains(&lower), "{} lower {} > S {}", transform, lower, s.surv);
            }
            if let Some(upper) = b.upper {
                prop_assert!(upper >= s.surv && upper <= 1.0, "{} upper {} < S {}", transform, upper, s.surv);
            }
            if s.surv == 0.0 {
                prop_assert!(b.lower.is_none() && b.upper.is_none());
            }
        }
    }

    /// R reads each limit off its band curve after sorting the band's values, so for a band that
    /// rises again it can land on either side of the estimate; the log and plain lower bands
    /// never rise, and an upper band cannot cross 1 − p before the curve does.
    #[test]
    fn quantile_limits_bracket_the_estimate(data in survival_data(), transform in any_transform(), p in prop::sample::select(vec![0.25, 0.5, 0.75])) {
        let km = fit(&data);
        let q = km.quantile(p, 0.95, transform).unwrap();
        if let (Some(e), Some(u)) = (q.estimate, q.upper) {
            prop_assert!(e <= u, "{} p={}: estimate {} > upper {}", transform, p, e, u);
        }
        if matches!(transform, CiTransform::Log | CiTransform::Plain) {
            if let (Some(l), Some(e)) = (q.lower, q.estimate) {
                prop_assert!(l <= e, "{} p={}: lower {} > estimate {}", transform, p, l, e);
            }
        }
        let c = km.median_collett(0.95).unwrap();
        if let (Some(l), Some(e), Some(u)) = (c.lower, c.estimate, c.upper) {
            prop_assert!(0.0 <= l && l <= e && e <= u);
        }
    }

    #[test]
    fn results_do_not_depend_on_input_order(
        (data, shuffled) in survival_data().prop_flat_map(|d| (Just(d.clone()), Just(d).prop_shuffle())),
        transform in any_transform(),
    ) {
        let (a, b) = (fit(&data), fit(&shuffled));
        prop_assert_eq!(&a, &b);
        prop_assert_eq!(a.quantile(0.5, 0.95, transform).unwrap(), b.quantile(0.5, 0.95, transform).unwrap());
        let (t1, e1) = split(&data);
        let (t2, e2) = split(&shuffled);
        prop_assert_eq!(
            reverse_km_followup(&t1, &e1, 0.95, transform).unwrap(),
            reverse_km_followup(&t2, &e2, 0.95, transform).unwrap()
        );
    }

    #[test]
    fn without_censoring_survival_is_the_empirical_survival(times in prop::collection::vec(0u32..30, 1..80)) {
        let t: Vec<f64> = times.iter().map(|&x| f64::from(x)).collect();
        let km = kaplan_meier(&t, &vec![true; t.len()]).unwrap();
        let n = t.len() as f64;
        for s in km.steps() {
            let surviving = t.iter().filter(|&&x| x > s.time).count() as f64;
            prop_assert!((s.surv - surviving / n).abs() <= 1e-12, "S({}) = {} vs {}", s.time, s.surv, surviving / n);
        }
    }

    #[test]
    fn landmarks_read_the_curve(data in survival_data(), t in -5.0f64..1100.0, transform in any_transform()) {
        let km = fit(&data);
        match km.landmark(t, 0.95, transform) {
            Err(e) => prop_assert_eq!(e, StatsError::EmptyCurve),
            Ok(l) => {
                prop_assert_eq!(Some(l.surv), km.surv_at(t));
                let at_risk = data.iter().filter(|d| d.0 >= t).count();
                prop_assert_eq!(l.n_risk, at_risk);
                prop_assert_eq!(l.beyond_last_followup, t > km.max_time().unwrap());
                if let (Some(lo), Some(hi)) = (l.lower, l.upper) {
                    prop_assert!(lo <= l.surv && l.surv <= hi);
                }
            }
        }
    }

    /// Arbitrary numbers, including NaN, infinities and negative times: an error or an answer.
    #[test]
    fn arbitrary_input_never_panics(
        raw in prop::collection::vec((any::<f64>(), any::<bool>()), 0..20),
        p in any::<f64>(),
        level in any::<f64>(),
        t in any::<f64>(),
        transform in any_transform(),
    ) {
        let (times, events) = split(&raw);
        let valid = times.iter().all(|x| x.is_finite() && *x >= 0.0);
        match kaplan_meier(&times, &events) {
            Ok(km) => {
                prop_assert!(valid);
                let _ = km.quantile(p, level, transform);
                let _ = km.median_collett(level);
                let _ = km.landmark(t, level, transform);
                let _ = km.band(level, transform);
                let _ = km.surv_at(t);
            }
            Err(e) => {
                prop_assert!(!valid);
                let is_invalid_time = matches!(e, StatsError::InvalidTime { .. });
                prop_assert!(is_invalid_time);
            }
        }
        let _ = reverse_km_followup(&times, &events, level, transform);
    }

    #[test]
    fn proportion_intervals_contain_the_rate(n in 1usize..2000, x_frac in 0.0f64..=1.0, level in 0.5f64..0.999) {
        let x = ((n as f64) * x_frac).round() as usize;
        let rate = x as f64 / n as f64;
        for ci in [clopper_pearson(x, n, level).unwrap(), wilson(x, n, level).unwrap()] {
            prop_assert!(0.0 <= ci.lower && ci.lower <= rate && rate <= ci.upper && ci.upper <= 1.0);
        }
    }
}

#[test]
fn degenerate_inputs_have_defined_answers() {
    // Empty: an empty curve, nothing reached, no landmark.
    let km = kaplan_meier(&[], &[]).unwrap();
    assert_eq!(km.n(), 0);
    assert_eq!(
        km.quantile(0.5, 0.95, CiTransform::LogLog)
            .unwrap()
            .estimate,
        None
    );
    assert_eq!(km.median_collett(0.95).unwrap().estimate, None);
    assert_eq!(
        km.landmark(1.0, 0.95, CiTransform::Log),
        Err(StatsError::EmptyCurve)
    );

    // One subject with an event: S drops to 0, the median is that time, no band at S = 0.
    let km = kaplan_meier(&[3.0], &[true]).unwrap();
    let q = km.quantile(0.5, 0.95, CiTransform::LogLog).unwrap();
    assert_eq!(q.estimate, Some(3.0));
    assert_eq!(km.band(0.95, CiTransform::Plain).unwrap()[0].upper, None);

    // One censored subject, and all censored: S stays 1, nothing is reached.
    for (t, e) in [
        (vec![3.0], vec![false]),
        (vec![1.0, 2.0, 2.0, 5.0], vec![false; 4]),
    ] {
        let km = kaplan_meier(&t, &e).unwrap();
        assert!(km.steps().iter().all(|s| s.surv == 1.0));
        for transform in CiTransform::ALL {
            let q = km.quantile(0.5, 0.95, transform).unwrap();
            assert_eq!((q.estimate, q.lower, q.upper), (None, None, None));
        }
        // The reverse KM of all-censored data is all events.
        let f = reverse_km_followup(&t, &e, 0.95, CiTransform::LogLog).unwrap();
        assert!(f.estimate.is_some());
    }

    // All tied at one time, mixed flags: one step, events before censorings.
    let km = kaplan_meier(&[4.0; 5], &[true, false, true, false, false]).unwrap();
    assert_eq!(km.steps().len(), 1);
    let s = &km.steps()[0];
    assert_eq!((s.n_risk, s.n_event, s.n_censor), (5, 2, 3));
    assert!((s.surv - 0.6).abs() < 1e-15);

    // Invalid times and lengths are typed errors.
    assert!(matches!(
        kaplan_meier(&[1.0, f64::NAN], &[true, false]),
        Err(StatsError::InvalidTime { index: 1, .. })
    ));
    assert!(matches!(
        kaplan_meier(&[-1.0], &[true]),
        Err(StatsError::InvalidTime { index: 0, .. })
    ));
    // The first invalid time in input order, whether an event or a censoring.
    assert!(matches!(
        kaplan_meier(&[2.0, -1.0, f64::INFINITY], &[false, false, true]),
        Err(StatsError::InvalidTime { index: 1, value }) if value == -1.0
    ));
    // Tallied: by position among the times given.
    let mut tally = TimeTally::new();
    for (t, e) in [(1.0, true), (2.0, false), (f64::NAN, true), (-1.0, false)] {
        tally.add(t, e);
    }
    assert!(matches!(
        tally.fit(),
        Err(StatsError::InvalidTime { index: 2, .. })
    ));
    assert!(TimeTally::new().fit().expect("empty").steps().is_empty());
    // Split: by position among the event times, then the censoring times.
    assert!(matches!(
        kaplan_meier_split(vec![1.0, 2.0], vec![3.0, f64::NAN]),
        Err(StatsError::InvalidTime { index: 3, .. })
    ));
    assert!(matches!(
        kaplan_meier(&[1.0], &[true, false]),
        Err(StatsError::LengthMismatch {
            times: 1,
            events: 2
        })
    ));
    assert!(matches!(
        km.quantile(1.5, 0.95, CiTransform::Log),
        Err(StatsError::InvalidProbability(_))
    ));
    assert!(matches!(
        km.quantile(0.5, 95.0, CiTransform::Log),
        Err(StatsError::InvalidLevel(_))
    ));
}
