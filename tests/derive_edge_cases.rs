//! Hand-built subjects, one rule per test: best overall response (RECIST 1.1 / admiralonco) and
//! PFS, OS, DoR censoring (FDA 2018). Dates are chosen so that the day counts are easy to check.

use readout::derive::{
    best_overall_response, best_overall_response_to_first_pd, confirmed_response, derive_subject,
    derive_subjects, duration_of_response, overall_survival, progression_free_survival,
    BestResponse, BorOptions, DeriveError, DeriveOptions, PfsOptions,
};
use readout::model::{Assessment, Date, Response, Status, Subject};

const START: &str = "2021-01-01";

fn d(s: &str) -> Date {
    s.parse().unwrap()
}

/// Date `n` days after START.
fn day(n: i64) -> Date {
    d(START) + chrono::TimeDelta::days(n)
}

/// An assessment `n` days after START.
fn at(n: i64, avalc: &str) -> Assessment {
    Assessment::recist("S1", day(n), Response::from_avalc(avalc).unwrap())
}

fn subject() -> Subject {
    Subject {
        usubjid: "S1".into(),
        site: None,
        trt_start: Some(d(START)),
        trt_end: None,
        enrolled: None,
        death: None,
        last_alive: Some(day(365)),
        safety: true,
        efficacy: true,
        treated_past_cutoff: false,
        columns: Default::default(),
    }
}

fn confirmed() -> BorOptions {
    BorOptions::default()
}

fn unconfirmed() -> BorOptions {
    BorOptions {
        confirmed: false,
        ..BorOptions::default()
    }
}

fn bor(assessments: &[Assessment], opts: &BorOptions) -> (BestResponse, Option<Date>) {
    let out = best_overall_response(Some(d(START)), assessments, opts).unwrap();
    (out.bor, out.date)
}

// ------------------------------------------------------------------------------------------
// Defaults

#[test]
fn defaults_are_28_day_confirmation_and_42_day_sd_window() {
    let o = BorOptions::default();
    assert!(o.confirmed);
    assert_eq!(o.confirmation_days, 28);
    assert_eq!(o.sd_min_days, 42);
    assert_eq!(o.max_nr_ne, 1);
    assert!(!o.accept_sd);
    assert!(!o.missing_as_ne);
    assert_eq!(PfsOptions::default().missed_visit_days, Some(91));
}

// ------------------------------------------------------------------------------------------
// Confirmation

#[test]
fn cr_confirmed_by_cr_exactly_confirmation_days_later() {
    let out =
        best_overall_response(Some(d(START)), &[at(42, "CR"), at(70, "CR")], &confirmed()).unwrap();
    assert_eq!(out.bor, BestResponse::CompleteResponse);
    assert_eq!(out.date, Some(day(42)));
    assert_eq!(out.first_response_date, Some(day(42)));
    assert_eq!(
        out.reason,
        "CR on 2021-02-12 confirmed by CR on 2021-03-12, 28 days later"
    );
}

#[test]
fn cr_confirmation_one_day_short_is_not_confirmed() {
    let out =
        best_overall_response(Some(d(START)), &[at(42, "CR"), at(69, "CR")], &confirmed()).unwrap();
    assert_eq!(out.bor, BestResponse::StableDisease);
    assert_eq!(out.date, Some(day(42)));
    assert_eq!(out.first_response_date, None);
    assert!(
        out.reason
            .contains("CR on 2021-02-12 not confirmed: no later CR at least 28 days after it"),
        "{}",
        out.reason
    );
}

#[test]
fn pr_then_cr_confirms_the_pr_not_a_cr() {
    assert_eq!(
        bor(&[at(42, "PR"), at(84, "CR")], &confirmed()),
        (BestResponse::PartialResponse, Some(day(42)))
    );
}

#[test]
fn cr_then_pr_warns_and_confirms_neither() {
    // admiralonco cbor_t1 subject 6: PR, CR 10 days later, PR 43 days after that.
    let out = best_overall_response(
        Some(d(START)),
        &[at(42, "PR"), at(52, "CR"), at(95, "PR")],
        &confirmed(),
    )
    .unwrap();
    assert_eq!(out.bor, BestResponse::StableDisease);
    assert_eq!(out.date, Some(day(42)));
    assert_eq!(
        out.warnings
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
        ["CR on 2021-02-22 followed by PR on 2021-04-06"]
    );
    assert!(
        out.reason
            .contains("the confirming PR on 2021-04-06 follows CR on 2021-02-22"),
        "{}",
        out.reason
    );
}

#[test]
fn cr_then_pr_warning_is_not_given_without_confirmation() {
    // derive_param_bor does not check for it.
    let out = best_overall_response(
        Some(d(START)),
        &[at(42, "CR"), at(84, "PR")],
        &unconfirmed(),
    )
    .unwrap();
    assert!(out.warnings.is_empty());
}

#[test]
fn ne_between_response_and_confirmation_is_allowed_once() {
    assert_eq!(
        bor(&[at(42, "PR"), at(63, "NE"), at(84, "PR")], &confirmed()),
        (BestResponse::PartialResponse, Some(day(42)))
    );
}

#[test]
fn two_ne_between_response_and_confirmation_break_it() {
    let out = best_overall_response(
        Some(d(START)),
        &[at(42, "PR"), at(56, "NE"), at(63, "NE"), at(84, "PR")],
        &confirmed(),
    )
    .unwrap();
    assert_eq!(out.bor, BestResponse::StableDisease);
    assert!(out.reason.contains("2 NE assessments"), "{}", out.reason);
    // Raising max_nr_ne lets it through.
    let opts = BorOptions {
        max_nr_ne: 2,
        ..confirmed()
    };
    assert_eq!(
        bor(
            &[at(42, "PR"), at(56, "NE"), at(63, "NE"), at(84, "PR")],
            &opts
        )
        .0,
        BestResponse::PartialResponse
    );
}

#[test]
fn sd_between_pr_and_confirmation_breaks_it_unless_accept_sd() {
    let visits = [at(42, "PR"), at(63, "SD"), at(84, "PR")];
    assert_eq!(bor(&visits, &confirmed()).0, BestResponse::StableDisease);
    let accept = BorOptions {
        accept_sd: true,
        ..confirmed()
    };
    assert_eq!(bor(&visits, &accept).0, BestResponse::PartialResponse);
    // accept_sd allows one SD, not two.
    let two = [at(42, "PR"), at(56, "SD"), at(63, "SD"), at(84, "PR")];
    assert_eq!(bor(&two, &accept).0, BestResponse::StableDisease);
}

#[test]
fn sd_between_cr_and_confirmation_breaks_it_even_with_accept_sd() {
    let accept = BorOptions {
        accept_sd: true,
        ..confirmed()
    };
    assert_eq!(
        bor(&[at(42, "CR"), at(63, "SD"), at(84, "CR")], &accept).0,
        BestResponse::StableDisease
    );
}

#[test]
fn pd_between_response_and_confirmation_breaks_it() {
    // admiralonco crsp_t4 subject 2: CR, PD, CR.
    let visits = [at(42, "CR"), at(56, "PD"), at(84, "CR")];
    assert_eq!(bor(&visits, &confirmed()).0, BestResponse::StableDisease);
    assert!(!confirmed_response(&visits, &confirmed()).unwrap().responder);
}

#[test]
fn nd_or_non_cr_non_pd_between_response_and_confirmation_break_it() {
    for between in ["ND", "NON-CR/NON-PD"] {
        assert_eq!(
            bor(&[at(42, "PR"), at(63, between), at(84, "PR")], &confirmed()).0,
            BestResponse::StableDisease,
            "{between}"
        );
    }
}

#[test]
fn later_pr_confirmed_when_an_earlier_pr_fails() {
    // The PR at day 70 is the first CR/PR >= 28 days after day 42; the SD in between breaks the
    // day-42 PR. The day-70 PR is confirmed by the CR 28 days later, and is the BOR date and the
    // start of the response.
    let out = best_overall_response(
        Some(d(START)),
        &[at(42, "PR"), at(56, "SD"), at(70, "PR"), at(98, "CR")],
        &confirmed(),
    )
    .unwrap();
    assert_eq!(out.bor, BestResponse::PartialResponse);
    assert_eq!(out.date, Some(day(70)));
    assert_eq!(out.first_response_date, Some(day(70)));
}

#[test]
fn confirmed_response_before_sd_window_still_counts() {
    assert_eq!(
        bor(&[at(7, "PR"), at(35, "PR")], &confirmed()),
        (BestResponse::PartialResponse, Some(day(7)))
    );
}

#[test]
fn first_response_date_is_the_earliest_confirmed_response_even_when_bor_is_a_later_cr() {
    let out = best_overall_response(
        Some(d(START)),
        &[at(42, "PR"), at(84, "CR"), at(126, "CR")],
        &confirmed(),
    )
    .unwrap();
    assert_eq!(out.bor, BestResponse::CompleteResponse);
    assert_eq!(out.date, Some(day(84)));
    assert_eq!(out.first_response_date, Some(day(42)));
}

#[test]
fn confirmed_response_flag_is_y_with_earliest_confirmed_date() {
    let r = confirmed_response(&[at(42, "PR"), at(84, "CR"), at(126, "CR")], &confirmed()).unwrap();
    assert_eq!((r.code(), r.date), ("Y", Some(day(42))));
    let r = confirmed_response(&[at(42, "PR")], &confirmed()).unwrap();
    assert_eq!((r.code(), r.date), ("N", None));
    let r = confirmed_response(&[], &confirmed()).unwrap();
    assert_eq!(
        (r.code(), r.reason.as_str()),
        ("N", "no CR or PR assessment")
    );
}

// ------------------------------------------------------------------------------------------
// SD window and ranking

#[test]
fn sd_before_window_is_ne() {
    let out = best_overall_response(Some(d(START)), &[at(41, "SD")], &confirmed()).unwrap();
    assert_eq!(
        (out.bor, out.date),
        (BestResponse::NotEvaluable, Some(day(41)))
    );
    assert!(out.reason.contains("before 2021-02-12"), "{}", out.reason);
}

#[test]
fn sd_exactly_on_window_start_counts() {
    assert_eq!(
        bor(&[at(42, "SD")], &confirmed()),
        (BestResponse::StableDisease, Some(day(42)))
    );
}

#[test]
fn sd_date_is_the_first_qualifying_assessment() {
    assert_eq!(
        bor(&[at(21, "SD"), at(42, "PR"), at(63, "SD")], &confirmed()),
        (BestResponse::StableDisease, Some(day(42)))
    );
}

#[test]
fn sd_after_window_outranks_a_later_pd() {
    assert_eq!(
        bor(&[at(42, "SD"), at(84, "PD")], &confirmed()),
        (BestResponse::StableDisease, Some(day(42)))
    );
}

#[test]
fn sd_before_window_then_pd_is_pd() {
    assert_eq!(
        bor(&[at(21, "SD"), at(42, "PD")], &confirmed()),
        (BestResponse::ProgressiveDisease, Some(day(42)))
    );
}

#[test]
fn non_cr_non_pd_never_becomes_sd_and_is_ne_before_the_window() {
    assert_eq!(
        bor(
            &[at(21, "NON-CR/NON-PD"), at(42, "NON-CR/NON-PD")],
            &confirmed()
        ),
        (BestResponse::NonCrNonPd, Some(day(42)))
    );
    assert_eq!(
        bor(&[at(21, "NON-CR/NON-PD")], &confirmed()),
        (BestResponse::NotEvaluable, Some(day(21)))
    );
    // An unconfirmed PR on or after the window (SD) outranks NON-CR/NON-PD.
    assert_eq!(
        bor(&[at(42, "NON-CR/NON-PD"), at(63, "PR")], &confirmed()),
        (BestResponse::StableDisease, Some(day(63)))
    );
}

#[test]
fn nd_only() {
    // Confirmed BOR: ND is its own category, below NE.
    assert_eq!(
        bor(&[at(42, "ND"), at(84, "ND")], &confirmed()),
        (BestResponse::NotDone, Some(day(42)))
    );
    // ND with anything else: the other wins.
    assert_eq!(
        bor(&[at(21, "NE"), at(42, "ND")], &confirmed()),
        (BestResponse::NotEvaluable, Some(day(21)))
    );
    // Unconfirmed BOR (derive_param_bor) does not rank ND: like no assessment at all.
    assert_eq!(
        bor(&[at(42, "ND")], &unconfirmed()),
        (BestResponse::Missing, None)
    );
}

#[test]
fn no_post_baseline_assessment() {
    let out = best_overall_response(Some(d(START)), &[], &confirmed()).unwrap();
    assert_eq!((out.bor, out.date), (BestResponse::Missing, None));
    assert_eq!(out.reason, "no post-baseline assessment");
    let as_ne = BorOptions {
        missing_as_ne: true,
        ..confirmed()
    };
    let out = best_overall_response(None, &[], &as_ne).unwrap();
    assert_eq!(out.bor, BestResponse::NotEvaluable);
    // No assessments needs no reference date.
    assert_eq!(
        best_overall_response(None, &[], &confirmed()).unwrap().bor,
        BestResponse::Missing
    );
}

#[test]
fn unconfirmed_cr_and_pr_count_at_any_date() {
    let out = best_overall_response(
        Some(d(START)),
        &[at(7, "PR"), at(14, "CR"), at(21, "PD")],
        &unconfirmed(),
    )
    .unwrap();
    assert_eq!(
        (out.bor, out.date),
        (BestResponse::CompleteResponse, Some(day(14)))
    );
    assert_eq!(out.first_response_date, Some(day(7)));
}

#[test]
fn ties_go_to_the_earliest_assessment() {
    assert_eq!(
        bor(&[at(7, "NE"), at(14, "SD"), at(21, "NE")], &confirmed()),
        (BestResponse::NotEvaluable, Some(day(7)))
    );
}

// ------------------------------------------------------------------------------------------
// PD cut, ordering, bad input

#[test]
fn assessments_after_pd_ignored() {
    // admiralonco cbor_t4 subject 9: without a PD cut an SD after PD outranks the PD.
    let visits = [at(42, "PD"), at(63, "SD")];
    assert_eq!(bor(&visits, &confirmed()).0, BestResponse::StableDisease);
    // readout's pipeline stops the record at the first PD.
    let out = best_overall_response_to_first_pd(Some(d(START)), &visits, &confirmed()).unwrap();
    assert_eq!(
        (out.bor, out.date),
        (BestResponse::ProgressiveDisease, Some(day(42)))
    );
    assert!(
        out.reason
            .ends_with("; 1 assessment after the first PD on 2021-02-12 ignored"),
        "{}",
        out.reason
    );
    let derived = derive_subject(&subject(), &visits, &DeriveOptions::default()).unwrap();
    assert_eq!(derived.bor.bor, BestResponse::ProgressiveDisease);
}

#[test]
fn assessments_in_any_order_are_sorted_by_date() {
    assert_eq!(
        bor(&[at(84, "PR"), at(42, "PR")], &confirmed()),
        (BestResponse::PartialResponse, Some(day(42)))
    );
}

#[test]
fn same_date_same_response_counted_once_with_warning() {
    let out = best_overall_response(
        Some(d(START)),
        &[at(42, "PR"), at(42, "PR"), at(84, "PR")],
        &confirmed(),
    )
    .unwrap();
    assert_eq!(out.bor, BestResponse::PartialResponse);
    assert_eq!(
        out.warnings
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
        ["two PR assessments on 2021-02-12; counted once"]
    );
}

#[test]
fn same_date_different_responses_is_an_error() {
    let err = best_overall_response(Some(d(START)), &[at(42, "PR"), at(42, "SD")], &confirmed())
        .unwrap_err();
    assert_eq!(
        err,
        DeriveError::ConflictingAssessments {
            usubjid: "S1".into(),
            date: day(42),
            first: "PR".to_string(),
            second: "SD".to_string()
        }
    );
    assert_eq!(
        err.to_string(),
        "subject S1: two different overall responses on 2021-02-12 (PR and SD); expected at \
         most one assessment per date"
    );
}

#[test]
fn sd_without_reference_date_is_an_error_naming_the_subject() {
    let err = best_overall_response(None, &[at(42, "SD")], &confirmed()).unwrap_err();
    assert!(matches!(err, DeriveError::MissingReferenceDate { .. }));
    assert!(
        err.to_string()
            .starts_with("subject S1: the SD assessment on 2021-02-12 needs a reference date"),
        "{err}"
    );
    // PD alone, or a confirmed response, does not need the window.
    assert_eq!(
        best_overall_response(None, &[at(42, "PD")], &confirmed())
            .unwrap()
            .bor,
        BestResponse::ProgressiveDisease
    );
    assert_eq!(
        best_overall_response(None, &[at(42, "CR"), at(84, "CR")], &confirmed())
            .unwrap()
            .bor,
        BestResponse::CompleteResponse
    );
}

#[test]
fn invalid_response_value_is_an_error_naming_subject_and_value() {
    let err = readout::derive::parse_response("S7", "iCR").unwrap_err();
    assert_eq!(
        err.to_string(),
        "subject S7: overall response \"iCR\" is not one of CR, PR, SD, NON-CR/NON-PD, PD, NE, ND"
    );
}

#[test]
fn assessments_of_two_subjects_is_an_error() {
    let mut other = at(42, "SD");
    other.usubjid = "S2".into();
    let err =
        best_overall_response(Some(d(START)), &[at(21, "SD"), other], &confirmed()).unwrap_err();
    assert!(matches!(err, DeriveError::MixedSubjects { .. }), "{err}");
}

// ------------------------------------------------------------------------------------------
// PFS

fn pfs(s: &Subject, visits: &[Assessment]) -> readout::derive::TimeToEvent {
    progression_free_survival(s, visits, &PfsOptions::default())
        .unwrap()
        .unwrap()
}

#[test]
fn pfs_event_at_first_pd_counting_the_start_as_day_one() {
    let t = pfs(&subject(), &[at(42, "SD"), at(84, "PD"), at(126, "PD")]);
    assert_eq!(
        (t.days, t.status, t.cnsr, t.date),
        (85.0, Status::Event, 0, day(84))
    );
    assert_eq!(t.reason, "PD on 2021-03-26");
}

#[test]
fn pfs_death_before_pd_is_the_event() {
    let s = Subject {
        death: Some(day(60)),
        ..subject()
    };
    let t = pfs(&s, &[at(42, "SD"), at(84, "PD")]);
    assert_eq!((t.days, t.status), (61.0, Status::Event));
    assert_eq!(t.reason, "death on 2021-03-02");
}

#[test]
fn pfs_pd_and_death_on_the_same_day_is_one_event() {
    let s = Subject {
        death: Some(day(84)),
        ..subject()
    };
    let t = pfs(&s, &[at(42, "SD"), at(84, "PD")]);
    assert_eq!((t.days, t.status), (85.0, Status::Event));
    assert_eq!(t.reason, "PD and death on 2021-03-26");
}

#[test]
fn pfs_censored_at_last_adequate_assessment_not_at_ne() {
    let t = pfs(
        &subject(),
        &[at(42, "SD"), at(84, "PR"), at(126, "NE"), at(168, "ND")],
    );
    assert_eq!(
        (t.days, t.status, t.cnsr, t.date),
        (85.0, Status::Censored, 1, day(84))
    );
    assert_eq!(
        t.reason,
        "censored at last adequate assessment 2021-03-26 (PR)"
    );
}

#[test]
fn no_post_baseline_assessment_censored_at_trtsdt_day_one() {
    let t = pfs(&subject(), &[]);
    assert_eq!(
        (t.days, t.status, t.date),
        (1.0, Status::Censored, d(START))
    );
    // Only NE: no adequate assessment either.
    let t = pfs(&subject(), &[at(42, "NE")]);
    assert_eq!(
        (t.days, t.status, t.date),
        (1.0, Status::Censored, d(START))
    );
    assert!(
        t.reason.starts_with("no adequate assessment"),
        "{}",
        t.reason
    );
}

#[test]
fn death_after_two_missed_assessments_censored() {
    // Last adequate assessment day 42; death 92 days later (> 91).
    let s = Subject {
        death: Some(day(134)),
        ..subject()
    };
    let t = pfs(&s, &[at(42, "SD")]);
    assert_eq!(
        (t.days, t.status, t.date),
        (43.0, Status::Censored, day(42))
    );
    assert!(
        t.reason.starts_with(
            "death on 2021-05-15 came 92 days after the last adequate assessment 2021-02-12 \
             (SD), more than 91: two or more missed assessments; censored at 2021-02-12"
        ),
        "{}",
        t.reason
    );
}

#[test]
fn death_exactly_at_missed_visit_limit_is_an_event() {
    let s = Subject {
        death: Some(day(133)),
        ..subject()
    };
    let t = pfs(&s, &[at(42, "SD")]);
    assert_eq!((t.days, t.status), (134.0, Status::Event));
}

#[test]
fn pd_after_two_missed_assessments_censored() {
    let t = pfs(&subject(), &[at(42, "SD"), at(63, "NE"), at(140, "PD")]);
    assert_eq!(
        (t.days, t.status, t.date),
        (43.0, Status::Censored, day(42))
    );
    assert!(t.reason.starts_with("PD on"), "{}", t.reason);
}

#[test]
fn death_without_assessments_soon_after_start_is_an_event_late_is_censored() {
    let early = Subject {
        death: Some(day(60)),
        ..subject()
    };
    assert_eq!(pfs(&early, &[]).status, Status::Event);
    let late = Subject {
        death: Some(day(174)),
        ..subject()
    };
    let t = pfs(&late, &[]);
    assert_eq!(
        (t.days, t.status, t.date),
        (1.0, Status::Censored, d(START))
    );
}

#[test]
fn missed_visit_rule_can_be_turned_off() {
    let s = Subject {
        death: Some(day(300)),
        ..subject()
    };
    let off = PfsOptions {
        missed_visit_days: None,
        ..PfsOptions::default()
    };
    let t = progression_free_survival(&s, &[at(42, "SD")], &off)
        .unwrap()
        .unwrap();
    assert_eq!((t.days, t.status), (301.0, Status::Event));
}

#[test]
fn assessments_before_trtsdt_are_ignored_for_pfs() {
    let t = pfs(&subject(), &[at(-7, "PD"), at(42, "SD")]);
    assert_eq!((t.status, t.date), (Status::Censored, day(42)));
}

#[test]
fn no_trtsdt_means_no_pfs_os_or_dor() {
    let s = Subject {
        trt_start: None,
        ..subject()
    };
    let o = PfsOptions::default();
    assert_eq!(progression_free_survival(&s, &[], &o).unwrap(), None);
    assert_eq!(
        overall_survival(&s, &[], &PfsOptions::default()).unwrap(),
        None
    );
    let derived = derive_subject(&s, &[], &DeriveOptions::default()).unwrap();
    assert_eq!(derived.bor.bor, BestResponse::Missing);
    assert_eq!((derived.pfs, derived.os, derived.dor), (None, None, None));
}

// ------------------------------------------------------------------------------------------
// OS

#[test]
fn os_death_is_the_event() {
    let s = Subject {
        death: Some(day(99)),
        ..subject()
    };
    let t = overall_survival(&s, &[], &PfsOptions::default())
        .unwrap()
        .unwrap();
    assert_eq!((t.days, t.status, t.cnsr), (100.0, Status::Event, 0));
}

#[test]
fn os_censored_at_last_known_alive_date() {
    let t = overall_survival(&subject(), &[], &PfsOptions::default())
        .unwrap()
        .unwrap();
    assert_eq!(
        (t.days, t.status, t.date),
        (366.0, Status::Censored, day(365))
    );
    assert_eq!(
        t.reason,
        "alive: censored at the last date known alive 2022-01-01"
    );
}

#[test]
fn os_lstalvdt_before_trtsdt_censored_at_trtsdt() {
    // Two pharmaverse subjects have this.
    let s = Subject {
        last_alive: Some(day(-5)),
        ..subject()
    };
    let t = overall_survival(&s, &[], &PfsOptions::default())
        .unwrap()
        .unwrap();
    assert_eq!(
        (t.days, t.status, t.date),
        (1.0, Status::Censored, d(START))
    );
}

#[test]
fn os_missing_lstalvdt_uses_latest_known_date() {
    let s = Subject {
        last_alive: None,
        trt_end: Some(day(100)),
        ..subject()
    };
    let t = overall_survival(&s, &[at(42, "SD"), at(126, "NE")], &PfsOptions::default())
        .unwrap()
        .unwrap();
    assert_eq!((t.days, t.date), (127.0, day(126)));
    assert!(t.reason.ends_with("(last assessment)"), "{}", t.reason);
    let t = overall_survival(&s, &[at(42, "SD")], &PfsOptions::default())
        .unwrap()
        .unwrap();
    assert_eq!((t.days, t.date), (101.0, day(100)));
}

#[test]
fn death_before_trtsdt_is_an_error() {
    let s = Subject {
        death: Some(day(-1)),
        ..subject()
    };
    let err = overall_survival(&s, &[], &PfsOptions::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "subject S1: death (DTHDT) 2020-12-31 is before the OS origin 2021-01-01"
    );
}

// ------------------------------------------------------------------------------------------
// DoR and the whole subject

#[test]
fn dor_none_for_non_responder() {
    let derived = derive_subject(
        &subject(),
        &[at(42, "PR"), at(63, "SD")],
        &DeriveOptions::default(),
    )
    .unwrap();
    assert_eq!(derived.bor.bor, BestResponse::StableDisease);
    assert_eq!(derived.dor, None);
}

#[test]
fn dor_from_first_confirmed_response_to_pd() {
    let visits = [at(42, "PR"), at(84, "PR"), at(126, "CR"), at(168, "PD")];
    let derived = derive_subject(&subject(), &visits, &DeriveOptions::default()).unwrap();
    let dor = derived.dor.unwrap();
    assert_eq!(
        (dor.days, dor.status, dor.date),
        (127.0, Status::Event, day(168))
    );
    let pfs = derived.pfs.unwrap();
    assert_eq!((pfs.days, pfs.status), (169.0, Status::Event));
}

#[test]
fn dor_censored_at_last_adequate_assessment() {
    let t = duration_of_response(
        &subject(),
        &[at(42, "PR"), at(84, "PR"), at(126, "NE")],
        Some(day(42)),
        &PfsOptions::default(),
    )
    .unwrap()
    .unwrap();
    assert_eq!(
        (t.days, t.status, t.date),
        (43.0, Status::Censored, day(84))
    );
}

#[test]
fn derive_subject_rejects_other_subjects_assessments() {
    let mut other = at(42, "SD");
    other.usubjid = "S2".into();
    let err = derive_subject(&subject(), &[other], &DeriveOptions::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "subject S1: an assessment of subject S2 was passed with it; the derivations take one \
         subject's assessments at a time"
    );
}

#[test]
fn derive_subjects_picks_each_subjects_own_assessments() {
    let s2 = Subject {
        usubjid: "S2".into(),
        ..subject()
    };
    let mut pd = at(42, "PD");
    pd.usubjid = "S2".into();
    let mut stray = at(42, "CR");
    stray.usubjid = "S9".into();
    let out = derive_subjects(
        &[subject(), s2],
        &[at(42, "SD"), pd, stray],
        &DeriveOptions::default(),
    )
    .unwrap();
    let bors: Vec<(&str, BestResponse)> = out
        .iter()
        .map(|d| (d.usubjid.as_ref(), d.bor.bor))
        .collect();
    assert_eq!(
        bors,
        [
            ("S1", BestResponse::StableDisease),
            ("S2", BestResponse::ProgressiveDisease)
        ]
    );
}

#[test]
fn derived_subject_serialises_codes_and_dates() {
    let derived = derive_subject(&subject(), &[at(42, "SD")], &DeriveOptions::default()).unwrap();
    let json = serde_json::to_value(&derived).unwrap();
    assert_eq!(json["bor"]["bor"], "SD");
    assert_eq!(json["bor"]["date"], "2021-02-12");
    assert_eq!(json["pfs"]["cnsr"], 1);
}

/// The missed-visit rule is counted, per endpoint, in results.json
/// (`tte.<E>.censored_missed_visits`) and in a warning on the terminal (issue 40): S1's PD comes
/// 120 days after its last SD (censored at the SD), S2's 56 days after (an event); with
/// `missed_visit_days: 150` neither is censored by it.
#[test]
fn the_missed_visit_rule_says_how_many_events_it_censored() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::write(
        p.join("adsl.csv"),
        "USUBJID,TRTSDT,LSTALVDT\nS1,2021-01-01,2021-12-31\nS2,2021-01-01,2021-12-31\n",
    )
    .unwrap();
    std::fs::write(
        p.join("adrs.csv"),
        "USUBJID,PARAMCD,ADT,AVALC\n\
         S1,OVR,2021-02-26,SD\nS1,OVR,2021-06-26,PD\n\
         S2,OVR,2021-02-26,SD\nS2,OVR,2021-04-23,PD\n",
    )
    .unwrap();
    for (window, censored) in [("", 1), (", missed_visit_days: 150", 0)] {
        std::fs::write(
            p.join("study.yaml"),
            format!(
                "study: {{ id: MV }}\ndata: {{ adsl: adsl.csv, adrs: adrs.csv }}\n\
                 analysis: {{ tte_params: {{ PFS: PFS }}, followup: PFS{window} }}\ncohorts: [{{ id: all }}]\n"
            ),
        )
        .unwrap();
        let out = p.join(format!("out{censored}"));
        let ran = crate::common::readout_command()
            .args(["build", "--out"])
            .arg(&out)
            .arg(p.join("study.yaml"))
            .output()
            .unwrap();
        assert!(ran.status.success());
        let said = String::from_utf8_lossy(&ran.stderr);
        assert_eq!(
            said.contains("endpoint `PFS`: 1 progression(s) or death(s) came more than 91 days after the last adequate assessment"),
            censored == 1,
            "{said}"
        );
        let results: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(out.join("MV/no-cutoff/results.json")).unwrap(),
        )
        .unwrap();
        let pfs = &results["cohorts"][0]["tte"]["PFS"];
        assert_eq!(pfs["censored_missed_visits"], censored, "{pfs}");
        assert_eq!(pfs["events"], 2 - censored, "{pfs}");
    }
}
