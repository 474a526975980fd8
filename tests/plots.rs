//! Figures: snapshots of the SVG for small inputs, and properties every figure must have
//! (valid XML, deterministic, escaped text, labels inside the canvas and apart, a non-blank
//! PNG), plus the number-at-risk table checked against `number_at_risk`.
//!
//! Set `READOUT_PLOTS_DUMP=/some/dir` to also write every fixture figure there as SVG and PNG
//! for review by eye.

use crate::common::{readout_command, Run};
use readout::model::ResponseCategory;
use readout::plots::{
    ae_bars, ae_bars_by_arm, forest, glyph_drawn_texts, km_plot, number_at_risk, spider,
    svg_to_png, swimmer, swimmer_by_arm, waterfall, waterfall_by_arm, AeArm, AeBar, ForestRow,
    KmPlotOptions, KmPoint, KmSeries, PlotError, SpiderLine, SwimArm, SwimLane, WaterfallArm,
    WaterfallBar,
};

// ---------------------------------------------------------------------------------------------
// Fixtures

/// A deterministic pseudo-random sequence in [0, 1) (64-bit LCG), so large fixtures need no
/// extra crate and never change.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A Kaplan–Meier table from (time, event) pairs, as survfit tabulates it (events before
/// censorings at tied times), with a plain Greenwood band clipped to [0, 1]. The fixture
/// only needs plausible numbers; the statistics are tested in `stats`.
fn km_series(label: &str, data: &[(f64, bool)]) -> KmSeries {
    let mut times: Vec<f64> = data.iter().map(|d| d.0).collect();
    times.sort_by(f64::total_cmp);
    times.dedup();
    let n = data.len();
    let (mut surv, mut var_sum) = (1.0_f64, 0.0_f64);
    let mut points = Vec::new();
    let mut median = None;
    for t in times {
        let n_risk = data.iter().filter(|d| d.0 >= t).count();
        let n_event = data.iter().filter(|d| d.0 == t && d.1).count();
        let n_censor = data.iter().filter(|d| d.0 == t && !d.1).count();
        if n_event > 0 {
            surv *= 1.0 - n_event as f64 / n_risk as f64;
            if n_risk > n_event {
                var_sum += n_event as f64 / (n_risk as f64 * (n_risk - n_event) as f64);
            }
        }
        let se = surv * var_sum.sqrt();
        let (lower, upper) = if surv > 0.0 && surv < 1.0 {
            (
                Some((surv - 1.96 * se).max(0.0)),
                Some((surv + 1.96 * se).min(1.0)),
            )
        } else if surv >= 1.0 {
            (Some(1.0), Some(1.0))
        } else {
            (None, None)
        };
        if median.is_none() && surv <= 0.5 {
            median = Some(t);
        }
        points.push(KmPoint {
            time: t,
            surv,
            lower,
            upper,
            n_risk,
            n_event,
            n_censor,
        });
    }
    let median_label = match median {
        Some(m) => format!("median {m:.1} months"),
        None => "median not reached".to_string(),
    };
    KmSeries {
        label: label.to_string(),
        points,
        n,
        median,
        median_label,
        table: Vec::new(),
    }
}

fn two_arms() -> Vec<KmSeries> {
    let a = [
        (1.2, true),
        (2.3, true),
        (2.3, false),
        (3.1, true),
        (4.0, false),
        (5.5, true),
        (6.2, true),
        (7.0, false),
        (8.4, true),
        (9.9, false),
        (11.3, true),
        (13.1, false),
        (14.0, true),
        (16.5, false),
        (18.2, false),
    ];
    let b = [
        (0.9, true),
        (1.5, true),
        (2.0, true),
        (2.8, false),
        (3.3, true),
        (3.9, true),
        (4.6, true),
        (5.1, false),
        (6.0, true),
        (7.7, true),
        (9.0, false),
        (10.4, true),
    ];
    vec![
        km_series("Cohort 1: NSCLC", &a),
        km_series("Cohort 2: SCLC", &b),
    ]
}

fn km_opts() -> KmPlotOptions {
    KmPlotOptions {
        title: "Progression-free survival".to_string(),
        y_label: "Probability of PFS".to_string(),
        time_unit: "Months".to_string(),
        show_ci: true,
        tick_step: None,
        x_max: None,
        note: Vec::new(),
        wide: false,
        kmunicate: false,
        incidence: false,
    }
}

/// 60 subjects followed up to ~10 years.
fn long_follow_up() -> Vec<KmSeries> {
    let mut rng = Lcg(42);
    let data: Vec<(f64, bool)> = (0..60)
        .map(|_| {
            let t = (rng.next() * 120.0 * 10.0).round() / 10.0;
            (t.max(0.1), rng.next() < 0.6)
        })
        .collect();
    vec![km_series("All treated", &data)]
}

fn responses() -> [&'static str; 6] {
    ["CR", "PR", "SD", "NON-CR/NON-PD", "PD", "NE"]
}

fn waterfall_small() -> Vec<WaterfallBar> {
    let rows = [
        ("S-01", -100.0, "CR"),
        ("S-02", -62.5, "PR"),
        ("S-03", -41.0, "PR"),
        ("S-04", -12.0, "SD"),
        ("S-05", 0.0, "SD"),
        ("S-06", 8.3, "NE"),
        ("S-07", 35.0, "PD"),
        ("S-08", 71.4, "PD"),
    ];
    rows.iter()
        .map(|(id, p, r)| WaterfallBar {
            usubjid: id.to_string(),
            best_pchg: *p,
            response: ResponseCategory::parse(r),
        })
        .collect()
}

/// The small waterfall as two arms: the responders in the first.
fn waterfall_arms() -> Vec<WaterfallArm> {
    let bars = waterfall_small();
    vec![
        WaterfallArm {
            arm: "Drug X + chemo".into(),
            bars: bars[..5].to_vec(),
        },
        WaterfallArm {
            arm: "Placebo + chemo".into(),
            bars: bars[5..].to_vec(),
        },
    ]
}

/// The 500 bars of [`waterfall_large`] dealt to three arms named as in the CDISC pilot.
fn waterfall_three_arms() -> Vec<WaterfallArm> {
    let bars = waterfall_large();
    XANOMELINE
        .iter()
        .enumerate()
        .map(|(k, arm)| WaterfallArm {
            arm: arm.to_string(),
            bars: bars.iter().skip(k).step_by(3).cloned().collect(),
        })
        .collect()
}

fn waterfall_large() -> Vec<WaterfallBar> {
    let mut rng = Lcg(7);
    (0..500)
        .map(|i| {
            let p = rng.next() * 180.0 - 100.0;
            let r = if p <= -30.0 {
                "PR"
            } else if p >= 20.0 {
                "PD"
            } else {
                "SD"
            };
            WaterfallBar {
                usubjid: format!("S-{i:04}"),
                best_pchg: p,
                response: ResponseCategory::parse(r),
            }
        })
        .collect()
}

fn swimmer_small() -> Vec<SwimLane> {
    vec![
        SwimLane {
            usubjid: "ALTN-II-01-1001".into(),
            end: 22.4,
            ongoing: true,
            response: ResponseCategory::parse("CR"),
            first_response: Some(2.1),
            progression: None,
            death: None,
        },
        SwimLane {
            usubjid: "ALTN-II-01-1002".into(),
            end: 14.0,
            ongoing: false,
            response: ResponseCategory::parse("PR"),
            first_response: Some(1.4),
            progression: Some(12.9),
            death: None,
        },
        SwimLane {
            usubjid: "ALTN-II-01-1003".into(),
            end: 9.7,
            ongoing: false,
            response: ResponseCategory::parse("SD"),
            first_response: None,
            progression: Some(9.7),
            death: Some(11.5),
        },
        SwimLane {
            usubjid: "ALTN-II-01-1004".into(),
            end: 6.3,
            ongoing: true,
            response: ResponseCategory::parse("SD"),
            first_response: None,
            progression: None,
            death: None,
        },
        SwimLane {
            usubjid: "ALTN-II-01-1005".into(),
            end: 2.0,
            ongoing: false,
            response: ResponseCategory::parse("PD"),
            first_response: None,
            progression: Some(1.9),
            death: Some(3.2),
        },
        SwimLane {
            usubjid: "ALTN-II-01-1006".into(),
            end: 0.7,
            ongoing: false,
            response: ResponseCategory::parse("NE"),
            first_response: None,
            progression: None,
            death: None,
        },
    ]
}

fn swimmer_large() -> Vec<SwimLane> {
    let mut rng = Lcg(11);
    (0..500)
        .map(|i| {
            let end = (rng.next() * 36.0 * 10.0).round() / 10.0;
            let r = responses()[(rng.next() * 6.0) as usize % 6];
            SwimLane {
                usubjid: format!("S-{i:04}"),
                end,
                ongoing: rng.next() < 0.3,
                response: ResponseCategory::parse(r),
                first_response: (r == "CR" || r == "PR").then_some(end * 0.2),
                progression: (rng.next() < 0.5).then_some(end),
                death: None,
            }
        })
        .collect()
}

/// Subject id, best response, assessments.
type SpiderRow = (&'static str, &'static str, &'static [(f64, f64)]);

fn spider_small() -> Vec<SpiderLine> {
    let rows: [SpiderRow; 5] = [
        (
            "S-01",
            "CR",
            &[(1.4, -35.0), (2.8, -70.0), (4.2, -100.0), (8.3, -100.0)],
        ),
        (
            "S-02",
            "PR",
            &[(1.4, -20.0), (2.8, -38.0), (4.2, -45.0), (5.6, -31.0)],
        ),
        ("S-03", "SD", &[(1.4, -5.0), (2.8, 4.0), (4.2, 12.0)]),
        ("S-04", "PD", &[(1.4, 15.0), (2.8, 28.0)]),
        ("S-05", "NE", &[]),
    ];
    rows.iter()
        .map(|(id, r, pts)| SpiderLine {
            usubjid: id.to_string(),
            points: pts.to_vec(),
            response: ResponseCategory::parse(r),
        })
        .collect()
}

fn spider_large() -> Vec<SpiderLine> {
    let mut rng = Lcg(5);
    (0..500)
        .map(|i| {
            let slope = rng.next() * 30.0 - 20.0;
            let visits = 1 + (rng.next() * 8.0) as usize;
            let points = (1..=visits)
                .map(|v| {
                    let t = v as f64 * 1.4;
                    (t, (slope * t).clamp(-100.0, 150.0))
                })
                .collect();
            let r = if slope < -8.0 {
                "PR"
            } else if slope > 6.0 {
                "PD"
            } else {
                "SD"
            };
            SpiderLine {
                usubjid: format!("S-{i:04}"),
                points,
                response: ResponseCategory::parse(r),
            }
        })
        .collect()
}

fn ae_small() -> Vec<AeBar> {
    vec![
        AeBar {
            term: "Hypertension".into(),
            any_grade: 12,
            grade3plus: Some(4),
        },
        AeBar {
            term: "Hand-foot skin reaction".into(),
            any_grade: 9,
            grade3plus: Some(1),
        },
        AeBar {
            term: "Gamma-glutamyltransferase increased".into(),
            any_grade: 7,
            grade3plus: Some(2),
        },
        AeBar {
            term: "Immune-mediated hypothyroidism requiring hormone replacement".into(),
            any_grade: 5,
            grade3plus: Some(0),
        },
        AeBar {
            term: "Fatigue".into(),
            any_grade: 21,
            grade3plus: Some(21),
        },
    ]
}

/// Two arms' counts of three terms, over different safety populations.
fn ae_arms() -> Vec<AeArm> {
    let bar = |term: &str, any_grade, grade3plus| AeBar {
        term: term.into(),
        any_grade,
        grade3plus: Some(grade3plus),
    };
    vec![
        AeArm {
            arm: "Drug X + chemo".into(),
            n_subjects: 21,
            terms: vec![
                bar("Hypertension", 12, 4),
                bar("Gamma-glutamyltransferase increased", 9, 1),
                bar("Diarrhoea", 7, 2),
            ],
        },
        AeArm {
            arm: "Placebo + chemo".into(),
            n_subjects: 20,
            terms: vec![
                bar("Hypertension", 3, 0),
                bar("Gamma-glutamyltransferase increased", 6, 1),
                bar("Diarrhoea", 0, 0),
            ],
        },
    ]
}

/// The arms of the CDISC pilot study (ARM of its ADSL).
const XANOMELINE: [&str; 3] = ["Xanomeline Low Dose", "Xanomeline High Dose", "Placebo"];

/// Three arms of 40 subjects followed up to two years, named as in the CDISC pilot.
fn xanomeline_arms() -> Vec<KmSeries> {
    let mut rng = Lcg(11);
    XANOMELINE
        .iter()
        .map(|arm| {
            let data: Vec<(f64, bool)> = (0..40)
                .map(|_| {
                    let t = (rng.next() * 24.0 * 10.0).round() / 10.0;
                    (t.max(0.1), rng.next() < 0.6)
                })
                .collect();
            km_series(arm, &data)
        })
        .collect()
}

fn forest_row(
    label: &str,
    group: Option<&str>,
    (events, n): (usize, usize),
    (events_reference, n_reference): (usize, usize),
    hr: Option<(f64, f64, f64)>,
) -> ForestRow {
    ForestRow {
        label: label.to_string(),
        group: group.map(str::to_string),
        n,
        n_reference,
        events,
        events_reference,
        hr,
        group_note: None,
    }
}

/// The overall estimate, then two groups of two levels: one level not estimable, one with an
/// interval past the axis's end at 100.
fn forest_small() -> Vec<ForestRow> {
    vec![
        forest_row(
            "All subjects",
            None,
            (30, 57),
            (38, 55),
            Some((0.66, 0.42, 1.03)),
        ),
        forest_row(
            "Female",
            Some("Sex"),
            (12, 30),
            (20, 28),
            Some((0.55, 0.27, 1.12)),
        ),
        forest_row(
            "Male",
            Some("Sex"),
            (18, 27),
            (18, 27),
            Some((0.81, 0.42, 1.56)),
        ),
        forest_row("\u{2265}75 years", Some("Age group"), (0, 3), (0, 2), None),
        forest_row(
            "<75 years",
            Some("Age group"),
            (4, 54),
            (1, 53),
            Some((3.9, 0.44, 140.0)),
        ),
    ]
}

/// A phase 3 trial's subgroups: long group names that wrap, one level named at length.
fn forest_trial() -> Vec<ForestRow> {
    /// Label, group, subjects and events in the experimental arm, hazard ratio.
    type Level = (
        &'static str,
        Option<&'static str>,
        usize,
        usize,
        (f64, f64, f64),
    );
    let levels: [Level; 12] = [
        ("Overall", None, 305, 180, (0.71, 0.58, 0.87)),
        ("<65 years", Some("Age"), 180, 100, (0.65, 0.50, 0.85)),
        ("\u{2265}65 years", Some("Age"), 125, 80, (0.80, 0.58, 1.10)),
        ("Male", Some("Sex"), 200, 120, (0.74, 0.57, 0.96)),
        ("Female", Some("Sex"), 105, 60, (0.66, 0.45, 0.97)),
        (
            "0",
            Some("ECOG performance status"),
            150,
            80,
            (0.60, 0.44, 0.82),
        ),
        (
            "1",
            Some("ECOG performance status"),
            155,
            100,
            (0.82, 0.62, 1.08),
        ),
        (
            "East Asia",
            Some("Geographic region"),
            60,
            30,
            (0.52, 0.30, 0.90),
        ),
        (
            "Europe and North America",
            Some("Geographic region"),
            200,
            120,
            (0.77, 0.60, 0.99),
        ),
        (
            "Rest of the world",
            Some("Geographic region"),
            45,
            30,
            (0.90, 0.50, 1.62),
        ),
        (
            "\u{2265}50%",
            Some("PD-L1 tumour proportion score"),
            120,
            60,
            (0.50, 0.35, 0.71),
        ),
        (
            "1\u{2013}49%",
            Some("PD-L1 tumour proportion score"),
            185,
            120,
            (0.88, 0.68, 1.14),
        ),
    ];
    let mut previous = None;
    levels
        .into_iter()
        .map(|(label, group, n, events, hr)| {
            let mut row = forest_row(label, group, (events, n), (events + 5, n + 3), Some(hr));
            // Each group's first row carries its interaction p.
            if group.is_some() && group != previous {
                row.group_note = Some(format!("Interaction p = 0.{}", 10 + n % 80));
            }
            previous = group;
            row
        })
        .collect()
}

/// [`forest_small`] with a level and a group named at length, and every interval past one end of
/// the axis or the other.
fn forest_long_names() -> Vec<ForestRow> {
    let mut rows = forest_small();
    rows[1].label = "A remarkably long subgroup level that cannot possibly fit ".repeat(3);
    rows[3].group = Some("Age group at randomisation, as recorded by the investigator".into());
    rows[4].group = rows[3].group.clone();
    rows[2].hr = Some((0.004, 0.001, 0.02));
    rows[1].group_note = Some("Interaction p < 0.001".into());
    rows[3].group_note = Some("Interaction p = NE".into());
    rows
}

/// Eight arms with long names, cut at 6 months with a requested 1-month step.
fn many_arms() -> Vec<KmSeries> {
    let mut rng = Lcg(3);
    (0..8)
        .map(|i| {
            let data: Vec<(f64, bool)> = (0..25)
                .map(|_| ((rng.next() * 14.0 * 10.0).round() / 10.0, rng.next() < 0.7))
                .collect();
            km_series(
                &format!("Arm {i}: a rather long description of the regimen"),
                &data,
            )
        })
        .collect()
}

/// Every fixture figure, named.
fn all_figures() -> Vec<(&'static str, String)> {
    let cut_opts = KmPlotOptions {
        tick_step: Some(1.0),
        x_max: Some(6.0),
        ..km_opts()
    };
    let mut big_growth = waterfall_small();
    big_growth[7].best_pchg = 480.0;
    big_growth[6].response = ResponseCategory::parse("Unconfirmed PR");
    let many_terms: Vec<AeBar> = (0..30)
        .map(|i| AeBar {
            term: format!("Preferred term number {i}"),
            any_grade: 30 - i,
            grade3plus: Some(i % 4),
        })
        .collect();
    let one_subject = vec![km_series("Single subject", &[(4.2, true)])];
    let no_events = vec![km_series(
        "No events",
        &[(2.0, false), (5.5, false), (9.1, false)],
    )];
    vec![
        ("km_two_arms", km_plot(&two_arms(), &km_opts()).unwrap()),
        ("km_one_subject", km_plot(&one_subject, &km_opts()).unwrap()),
        (
            "km_no_events",
            km_plot(&no_events, &KmPlotOptions::default()).unwrap(),
        ),
        (
            "km_long_follow_up",
            km_plot(&long_follow_up(), &km_opts()).unwrap(),
        ),
        ("waterfall_small", waterfall(&waterfall_small()).unwrap()),
        (
            "waterfall_one",
            waterfall(&waterfall_small()[1..2]).unwrap(),
        ),
        ("waterfall_500", waterfall(&waterfall_large()).unwrap()),
        (
            "swimmer_small",
            swimmer(&swimmer_small(), "Months").unwrap(),
        ),
        (
            "swimmer_one",
            swimmer(&swimmer_small()[..1], "Months").unwrap(),
        ),
        ("swimmer_500", swimmer(&swimmer_large(), "Months").unwrap()),
        ("spider_small", spider(&spider_small(), "Months").unwrap()),
        ("spider_500", spider(&spider_large(), "Months").unwrap()),
        (
            "ae_small",
            ae_bars(&ae_small(), 21, "Treatment-emergent adverse events").unwrap(),
        ),
        (
            "km_many_arms_cut",
            km_plot(&many_arms(), &cut_opts).unwrap(),
        ),
        ("waterfall_big_growth", waterfall(&big_growth).unwrap()),
        ("spider_one", spider(&spider_small()[..1], "Weeks").unwrap()),
        ("ae_30_terms", ae_bars(&many_terms, 40, "").unwrap()),
        (
            "km_three_arms",
            km_plot(
                &xanomeline_arms(),
                &KmPlotOptions {
                    title: String::new(),
                    show_ci: false,
                    note: vec![
                        "Xanomeline Low Dose vs Placebo: HR 1.12 (95% CI 0.70\u{2013}1.80)"
                            .to_string(),
                        "Log-rank p = 0.63".to_string(),
                    ],
                    ..km_opts()
                },
            )
            .unwrap(),
        ),
        (
            "waterfall_by_arm",
            waterfall_by_arm(&waterfall_arms()).unwrap(),
        ),
        (
            "waterfall_three_arms",
            waterfall_by_arm(&waterfall_three_arms()).unwrap(),
        ),
        (
            "ae_by_arm",
            ae_bars_by_arm(
                &ae_arms(),
                "Treatment-related adverse events",
                ("Any grade", "Grade \u{2265}3"),
            )
            .unwrap(),
        ),
        (
            "forest_small",
            forest(&forest_small(), "Drug X", "Placebo", "95", None).unwrap(),
        ),
        (
            "forest_trial",
            forest(
                &forest_trial(),
                "Pembrolizumab",
                "Chemotherapy",
                "95",
                Some("Overall survival by subgroup"),
            )
            .unwrap(),
        ),
        (
            "forest_long_names",
            forest(
                &forest_long_names(),
                "Pembrolizumab plus platinum-based chemotherapy followed by maintenance",
                "Placebo plus platinum-based chemotherapy",
                "90",
                None,
            )
            .unwrap(),
        ),
    ]
}

// ---------------------------------------------------------------------------------------------
// Reading the SVG back

#[derive(Debug, Clone)]
struct SvgText {
    x: f64,
    y: f64,
    dy: String,
    anchor: String,
    size: f64,
    rotated: bool,
    fill: String,
    text: String,
}

fn attr_f64(node: roxmltree::Node<'_, '_>, name: &str) -> f64 {
    node.attribute(name)
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.0)
}

fn svg_size(svg: &str) -> (f64, f64) {
    let doc = roxmltree::Document::parse(svg).expect("SVG parses as XML");
    let root = doc.root_element();
    (attr_f64(root, "width"), attr_f64(root, "height"))
}

fn texts(svg: &str) -> Vec<SvgText> {
    let doc = roxmltree::Document::parse(svg).expect("SVG parses as XML");
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| SvgText {
            x: attr_f64(n, "x"),
            y: attr_f64(n, "y"),
            dy: n.attribute("dy").unwrap_or("").to_string(),
            anchor: n.attribute("text-anchor").unwrap_or("start").to_string(),
            size: attr_f64(n, "font-size"),
            rotated: n.attribute("transform").is_some(),
            fill: n.attribute("fill").unwrap_or("").to_string(),
            text: n.text().unwrap_or("").trim().to_string(),
        })
        .collect()
}

/// A text's box, estimated from the font size. DejaVu Sans averages ~0.6 em per character;
/// 0.55 em keeps the estimate on the small side so the checks only flag real problems.
/// Vertically, plotters anchors text at its top (`dy="0.76em"`), centre (`0.5ex`) or bottom
/// (`-0.5ex`); glyphs span about 0.9 em.
fn text_box(t: &SvgText) -> (f64, f64, f64, f64) {
    let w = t.text.chars().count() as f64 * t.size * 0.55;
    let (x0, x1) = match t.anchor.as_str() {
        "end" => (t.x - w, t.x),
        "middle" => (t.x - w / 2.0, t.x + w / 2.0),
        _ => (t.x, t.x + w),
    };
    let h = t.size * 0.9;
    let (y0, y1) = match t.dy.as_str() {
        "0.76em" => (t.y, t.y + h),
        "-0.5ex" => (t.y - h, t.y),
        _ => (t.y - h / 2.0, t.y + h / 2.0),
    };
    (x0, x1, y0, y1)
}

fn check_layout(name: &str, svg: &str) {
    let (w, h) = svg_size(svg);
    let texts = texts(svg);
    let flat: Vec<&SvgText> = texts.iter().filter(|t| !t.rotated).collect();
    for t in &flat {
        let (x0, x1, y0, y1) = text_box(t);
        assert!(
            x0 >= 0.0 && x1 <= w && y0 >= 0.0 && y1 <= h,
            "{name}: '{}' at ({}, {}) leaves the {w} x {h} canvas",
            t.text,
            t.x,
            t.y
        );
    }
    for (i, a) in flat.iter().enumerate() {
        for b in flat.iter().skip(i + 1) {
            let (a0, a1, ay0, ay1) = text_box(a);
            let (b0, b1, by0, by1) = text_box(b);
            let overlap = a0 < b1 && b0 < a1 && ay0 < by1 && by0 < ay1;
            assert!(!overlap, "{name}: '{}' overlaps '{}'", a.text, b.text);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Tests

#[test]
fn snapshots_of_small_figures() {
    let figures = all_figures();
    let small = [
        "km_two_arms",
        "km_one_subject",
        "km_no_events",
        "waterfall_small",
        "waterfall_one",
        "swimmer_small",
        "swimmer_one",
        "spider_small",
        "ae_small",
        "forest_small",
        "waterfall_by_arm",
        "ae_by_arm",
    ];
    for (name, svg) in figures.iter().filter(|(n, _)| small.contains(n)) {
        insta::assert_snapshot!(*name, svg);
    }
}

#[test]
fn every_figure_is_valid_xml_with_labels_inside_and_apart() {
    for (name, svg) in all_figures() {
        roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("{name}: {e}"));
        check_layout(name, &svg);
    }
}

#[test]
fn every_figure_rasterises_to_a_non_blank_png() {
    let dump = std::env::var_os("READOUT_PLOTS_DUMP").map(std::path::PathBuf::from);
    for (name, svg) in all_figures() {
        let png = svg_to_png(&svg, 2.0).unwrap_or_else(|e| panic!("{name}: {e}"));
        let pixmap = resvg::tiny_skia::Pixmap::decode_png(&png).expect("a PNG");
        let (w, h) = svg_size(&svg);
        assert_eq!(pixmap.width(), (w * 2.0) as u32, "{name}");
        assert_eq!(pixmap.height(), (h * 2.0) as u32, "{name}");
        let background = pixmap.pixels().first().copied().expect("pixels");
        let ink = pixmap.pixels().iter().filter(|p| **p != background).count();
        assert!(
            ink > 1000,
            "{name}: only {ink} pixels differ from the background"
        );
        if let Some(dir) = &dump {
            std::fs::create_dir_all(dir).unwrap();
            std::fs::write(dir.join(format!("{name}.svg")), &svg).unwrap();
            std::fs::write(dir.join(format!("{name}.png")), &png).unwrap();
        }
    }
}

/// The SVG drawn by resvg alone, every text laid out by usvg with the embedded font: the
/// reference for `svg_to_png`, which draws plain text from cached glyph masks.
fn resvg_reference(svg: &str, scale: f32) -> resvg::tiny_skia::Pixmap {
    use resvg::usvg::{fontdb, Options, Tree};
    let mut db = fontdb::Database::new();
    let font = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/fonts/DejaVuSans.ttf");
    db.load_font_data(std::fs::read(font).expect("the embedded font"));
    db.set_sans_serif_family("DejaVu Sans");
    db.set_serif_family("DejaVu Sans");
    let options = Options {
        font_family: "DejaVu Sans".to_string(),
        fontdb: std::sync::Arc::new(db),
        ..Options::default()
    };
    let tree = Tree::from_str(svg, &options).expect("the SVG parses");
    let size = tree.size();
    let mut pixmap = resvg::tiny_skia::Pixmap::new(
        (size.width() * scale).ceil() as u32,
        (size.height() * scale).ceil() as u32,
    )
    .expect("a pixmap");
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::from_scale(scale, scale),
        &mut pixmap.as_mut(),
    );
    pixmap
}

/// How far two images of one size are apart: the largest difference of a channel, the
/// number of pixels with a channel more than 32 apart, and the mean channel difference.
fn pixel_difference(
    a: &resvg::tiny_skia::Pixmap,
    b: &resvg::tiny_skia::Pixmap,
) -> (u8, usize, f64) {
    assert_eq!((a.width(), a.height()), (b.width(), b.height()));
    let (mut max, mut far, mut sum) = (0u8, 0, 0u64);
    for (p, q) in a.pixels().iter().zip(b.pixels()) {
        let d = [
            p.red().abs_diff(q.red()),
            p.green().abs_diff(q.green()),
            p.blue().abs_diff(q.blue()),
            p.alpha().abs_diff(q.alpha()),
        ];
        let worst = d.into_iter().max().unwrap_or(0);
        max = max.max(worst);
        far += usize::from(worst > 32);
        sum += d.iter().map(|&x| u64::from(x)).sum::<u64>();
    }
    (max, far, sum as f64 / (a.data().len() as f64))
}

#[test]
fn png_text_matches_what_resvg_draws() {
    // Glyph origins are rounded to an eighth of a device pixel and each glyph is blended on
    // its own, so edge pixels of letters differ a little (about 30 pixels a text by more than
    // 32 levels); a glyph misplaced by half a pixel, a wrong size, anchor or baseline, or a
    // text missing or drawn in the wrong order differ on many more.
    for (name, svg) in all_figures() {
        let png = svg_to_png(&svg, 2.0).unwrap_or_else(|e| panic!("{name}: {e}"));
        let ours = resvg::tiny_skia::Pixmap::decode_png(&png).expect("a PNG");
        let reference = resvg_reference(&svg, 2.0);
        let (max, far, mean) = pixel_difference(&ours, &reference);
        let texts = texts(&svg).len();
        // Every text of a figure is drawn from glyph masks (none left to resvg).
        assert_eq!(glyph_drawn_texts(&svg), texts, "{name}");
        // No text missing or doubled, however light its colour: as many pixels inked.
        let inked = |p: &resvg::tiny_skia::Pixmap| {
            let white = p
                .pixels()
                .iter()
                .filter(|q| q.red().min(q.green()).min(q.blue()) >= 250);
            p.pixels().len() - white.count()
        };
        let (a, b) = (inked(&ours), inked(&reference));
        assert!(
            a.abs_diff(b) * 100 <= b,
            "{name}: {a} pixels inked against resvg's {b}"
        );
        println!("{name}: {texts} texts, max {max}, {far} pixels > 32, mean {mean:.4}");
        assert!(max <= 96, "{name}: a channel {max} apart");
        assert!(
            far <= 48 * texts.max(1) + 50,
            "{name}: {far} pixels more than 32 apart for {texts} texts"
        );
        assert!(mean < 0.15, "{name}: mean difference {mean}");
    }
}

#[test]
fn text_is_set_in_the_embedded_font_by_name() {
    for (name, svg) in all_figures() {
        let doc = roxmltree::Document::parse(&svg).unwrap();
        for t in doc.descendants().filter(|n| n.has_tag_name("text")) {
            assert_eq!(
                t.attribute("font-family"),
                Some("DejaVu Sans, Arial, sans-serif"),
                "{name}"
            );
        }
    }
}

#[test]
fn figures_are_byte_identical_when_drawn_twice() {
    let first = all_figures();
    let second = all_figures();
    for ((name, a), (_, b)) in first.iter().zip(&second) {
        assert!(a == b, "{name} differs between two renderings");
    }
    let (_, svg) = &first[0];
    assert_eq!(svg_to_png(svg, 1.0).unwrap(), svg_to_png(svg, 1.0).unwrap());
}

/// The risk table: one row per series under "Number at risk", each number centred under a
/// tick label (same x) and equal to `number_at_risk` at that tick's time.
fn check_risk_table(series: &[KmSeries], svg: &str) {
    let texts = texts(svg);
    let heading = texts
        .iter()
        .find(|t| t.text == "Number at risk")
        .expect("a number-at-risk heading");
    // Tick labels: numeric texts centred above the heading, on the lowest such row.
    let numeric = |t: &&SvgText| t.anchor == "middle" && t.text.parse::<f64>().is_ok();
    let tick_y = texts
        .iter()
        .filter(numeric)
        .filter(|t| t.y < heading.y)
        .map(|t| t.y)
        .fold(f64::MIN, f64::max);
    let ticks: Vec<(f64, f64)> = texts
        .iter()
        .filter(numeric)
        .filter(|t| t.y == tick_y)
        .map(|t| (t.x, t.text.parse::<f64>().unwrap()))
        .collect();
    assert!(ticks.len() >= 3, "too few ticks: {ticks:?}");

    let mut row_ys: Vec<f64> = texts
        .iter()
        .filter(|t| t.y > heading.y)
        .map(|t| t.y)
        .collect();
    row_ys.sort_by(f64::total_cmp);
    row_ys.dedup();
    assert_eq!(row_ys.len(), series.len(), "one row per series");

    for (s, y) in series.iter().zip(&row_ys) {
        let row: Vec<&SvgText> = texts.iter().filter(|t| t.y == *y).collect();
        let label = row.iter().find(|t| t.anchor == "end").expect("a row label");
        assert!(s.label.starts_with(label.text.trim_end_matches('\u{2026}')));
        let numbers: Vec<&&SvgText> = row.iter().filter(|t| t.anchor == "middle").collect();
        assert_eq!(numbers.len(), ticks.len(), "a number under every tick");
        for n in numbers {
            assert_eq!(n.fill, label.fill, "row coloured like its label");
            let (_, t) = ticks
                .iter()
                .find(|(x, _)| *x == n.x)
                .unwrap_or_else(|| panic!("number at x = {} is not under a tick", n.x));
            let shown: usize = n.text.parse().unwrap();
            assert_eq!(shown, number_at_risk(s, *t), "{} at t = {t}", s.label);
        }
    }
}

#[test]
fn risk_table_numbers_match_number_at_risk_at_the_ticks() {
    let arms = two_arms();
    check_risk_table(&arms, &km_plot(&arms, &km_opts()).unwrap());
    let long = long_follow_up();
    check_risk_table(&long, &km_plot(&long, &km_opts()).unwrap());
    let opts = KmPlotOptions {
        tick_step: Some(2.5),
        x_max: Some(15.0),
        ..km_opts()
    };
    check_risk_table(&arms, &km_plot(&arms, &opts).unwrap());
    let many = many_arms();
    let opts = KmPlotOptions {
        tick_step: Some(1.0),
        x_max: Some(6.0),
        ..km_opts()
    };
    check_risk_table(&many, &km_plot(&many, &opts).unwrap());
    // The first column is everyone.
    assert_eq!(number_at_risk(&arms[0], 0.0), 15);
    assert_eq!(number_at_risk(&arms[1], 0.0), 12);
}

#[test]
fn long_follow_up_gets_yearly_ticks() {
    let svg = km_plot(&long_follow_up(), &km_opts()).unwrap();
    let labels: Vec<String> = texts(&svg).into_iter().map(|t| t.text).collect();
    for t in ["0", "12", "24", "60", "120"] {
        assert!(labels.iter().any(|l| l == t), "tick {t} missing");
    }
}

#[test]
fn a_requested_tick_step_too_fine_for_the_numbers_is_widened() {
    let opts = KmPlotOptions {
        tick_step: Some(0.5),
        ..km_opts()
    };
    let svg = km_plot(&long_follow_up(), &opts).unwrap();
    check_layout("km_fine_step", &svg);
    check_risk_table(&long_follow_up(), &svg);
}

#[test]
fn hostile_text_is_escaped() {
    let evil = "<script>alert(1)</script> & \"quotes\"";
    let mut arms = two_arms();
    arms[0].label = evil.to_string();
    arms[0].median_label = evil.to_string();
    let opts = KmPlotOptions {
        title: evil.to_string(),
        y_label: evil.to_string(),
        ..km_opts()
    };
    let mut lanes = swimmer_small();
    lanes[0].usubjid = evil.to_string();
    lanes[1].response = ResponseCategory::parse(evil);
    let mut terms = ae_small();
    terms[0].term = evil.to_string();
    let mut bars = waterfall_small();
    bars[0].response = ResponseCategory::parse(evil);
    let mut subgroups = forest_small();
    subgroups[0].label = evil.to_string();
    subgroups[1].group = Some(evil.to_string());
    subgroups[2].group = Some(evil.to_string());
    let figures = [
        km_plot(&arms, &opts).unwrap(),
        swimmer(&lanes, "<b>Months</b>").unwrap(),
        ae_bars(&terms, 21, evil).unwrap(),
        waterfall(&bars).unwrap(),
        forest(&subgroups, evil, "<b>Placebo</b>", "95", Some(evil)).unwrap(),
    ];
    for svg in figures {
        assert!(!svg.contains("<script"), "unescaped markup in:\n{svg}");
        assert!(!svg.contains("<b>"));
        assert!(svg.contains("&lt;script&gt;"));
        let texts = texts(&svg);
        assert!(
            texts.iter().any(|t| t.text.contains("<script>")),
            "text survives escaping"
        );
    }
}

#[test]
fn empty_input_is_no_data() {
    assert_eq!(km_plot(&[], &km_opts()), Err(PlotError::NoData));
    let empty_series = km_series("Empty", &[]);
    assert_eq!(km_plot(&[empty_series], &km_opts()), Err(PlotError::NoData));
    assert_eq!(waterfall(&[]), Err(PlotError::NoData));
    assert_eq!(swimmer(&[], "Months"), Err(PlotError::NoData));
    assert_eq!(spider(&[], "Months"), Err(PlotError::NoData));
    assert_eq!(
        spider(&spider_small()[4..], "Months"),
        Err(PlotError::NoData)
    );
    assert_eq!(ae_bars(&[], 10, "AEs"), Err(PlotError::NoData));
    assert_eq!(waterfall_by_arm(&[]), Err(PlotError::NoData));
    let no_bars = WaterfallArm {
        arm: "Placebo".into(),
        bars: Vec::new(),
    };
    assert_eq!(waterfall_by_arm(&[no_bars]), Err(PlotError::NoData));
    assert_eq!(ae_bars_by_arm(&[], "", ("a", "b")), Err(PlotError::NoData));
    assert_eq!(
        forest(&[], "Drug X", "Placebo", "95", None),
        Err(PlotError::NoData)
    );
}

#[test]
fn impossible_input_is_an_error_not_a_picture() {
    let mut arms = two_arms();
    arms[0].points[0].surv = 1.5;
    assert!(matches!(
        km_plot(&arms, &km_opts()),
        Err(PlotError::InvalidInput(_))
    ));
    let mut arms = two_arms();
    arms[1].points[2].time = f64::NAN;
    assert!(matches!(
        km_plot(&arms, &km_opts()),
        Err(PlotError::InvalidInput(_))
    ));
    let bad_step = KmPlotOptions {
        tick_step: Some(0.0),
        ..km_opts()
    };
    assert!(matches!(
        km_plot(&two_arms(), &bad_step),
        Err(PlotError::InvalidInput(_))
    ));
    let mut bars = waterfall_small();
    bars[3].best_pchg = f64::INFINITY;
    assert!(matches!(waterfall(&bars), Err(PlotError::InvalidInput(_))));
    let mut lanes = swimmer_small();
    lanes[2].death = Some(-1.0);
    assert!(matches!(
        swimmer(&lanes, "Months"),
        Err(PlotError::InvalidInput(_))
    ));
    assert!(matches!(
        ae_bars(&ae_small(), 0, ""),
        Err(PlotError::InvalidInput(_))
    ));
    assert!(matches!(
        ae_bars(&ae_small(), 20, ""),
        Err(PlotError::InvalidInput(_))
    ));
    let labels = ("Any grade", "Grade \u{2265}3");
    let mut arms = ae_arms();
    arms[1].n_subjects = 0;
    assert!(matches!(
        ae_bars_by_arm(&arms, "", labels),
        Err(PlotError::InvalidInput(m)) if m.contains("Placebo + chemo")
    ));
    let mut arms = ae_arms();
    arms[1].terms[2].term = "Nausea".into();
    assert!(matches!(
        ae_bars_by_arm(&arms, "", labels),
        Err(PlotError::InvalidInput(_))
    ));
    let mut arms = ae_arms();
    arms[0].terms[0].any_grade = 22;
    assert!(matches!(
        ae_bars_by_arm(&arms, "", labels),
        Err(PlotError::InvalidInput(m)) if m.contains("Hypertension")
    ));
    let mut arms = waterfall_arms();
    arms[1].bars[0].best_pchg = f64::NAN;
    assert!(matches!(
        waterfall_by_arm(&arms),
        Err(PlotError::InvalidInput(_))
    ));
    let bad_forest = [
        (1, Some((f64::NAN, 0.3, 1.1))),
        (2, Some((0.8, 0.0, 1.5))),
        (2, Some((-0.8, -1.0, 1.5))),
        (4, Some((3.9, 4.0, 140.0))),
        (4, Some((3.9, 0.44, 3.0))),
    ];
    for (i, hr) in bad_forest {
        let mut rows = forest_small();
        rows[i].hr = hr;
        let name = format!("'{}'", rows[i].label);
        match forest(&rows, "Drug X", "Placebo", "95", None) {
            Err(PlotError::InvalidInput(m)) => assert!(m.contains(&name), "{m}"),
            other => panic!("{hr:?}: {other:?}"),
        }
    }
    let mut rows = forest_small();
    rows[3].events_reference = 3;
    assert!(matches!(
        forest(&rows, "Drug X", "Placebo", "95", None),
        Err(PlotError::InvalidInput(m)) if m.contains("years")
    ));
}

#[test]
fn large_studies_scale_without_per_subject_labels() {
    let bars = waterfall_large();
    let svg = waterfall(&bars).unwrap();
    let doc = roxmltree::Document::parse(&svg).unwrap();
    // One rectangle per bar, plus the background and the legend swatches.
    let rects = doc.descendants().filter(|n| n.has_tag_name("rect")).count();
    assert!(rects > bars.len());
    assert!(svg_size(&svg).0 >= 500.0, "one pixel per bar at least");

    let svg = swimmer(&swimmer_large(), "Months").unwrap();
    let texts = texts(&svg);
    assert!(
        texts.iter().all(|t| !t.text.starts_with("S-")),
        "no ids on 1-2 px lanes"
    );
    assert!(texts.iter().any(|t| t.text == "Subjects (n = 500)"));
    let small = swimmer(&swimmer_small(), "Months").unwrap();
    assert!(self::texts(&small)
        .iter()
        .any(|t| t.text == "ALTN-II-01-1003"));
}

/// A randomised cohort's swimmer (issue 42): each arm under its heading, in the order given,
/// its own lanes only, longest first; one legend in the criteria's order.
#[test]
fn a_swimmer_by_arm_keeps_the_arms_apart() {
    let lanes = swimmer_small();
    let arms = [
        SwimArm {
            arm: "Vd".into(),
            lanes: vec![lanes[4].clone(), lanes[0].clone()],
        },
        SwimArm {
            arm: "Pd".into(),
            lanes: lanes[1..4].to_vec(),
        },
        SwimArm {
            arm: "Empty".into(),
            lanes: Vec::new(),
        },
    ];
    let svg = swimmer_by_arm(&arms, "Months").unwrap();
    let texts = texts(&svg);
    let y = |label: &str| {
        texts
            .iter()
            .find(|t| t.text == label)
            .unwrap_or_else(|| panic!("{label} not drawn"))
            .y
    };
    // Vd's heading, its lanes (longest first), then Pd's heading and its lanes.
    assert!(y("Vd (n = 2)") < y("ALTN-II-01-1001"));
    assert!(y("ALTN-II-01-1001") < y("ALTN-II-01-1005"));
    assert!(y("ALTN-II-01-1005") < y("Pd (n = 3)"));
    assert!(y("Pd (n = 3)") < y("ALTN-II-01-1002"));
    assert!(!texts.iter().any(|t| t.text.starts_with("Empty")));
    assert!(
        !texts.iter().any(|t| t.text == "ALTN-II-01-1006"),
        "only the arms' lanes"
    );
    let legend: Vec<&str> = texts
        .iter()
        .filter(|t| {
            t.text.contains("(n = ") && !t.text.starts_with("Vd") && !t.text.starts_with("Pd")
        })
        .map(|t| t.text.as_str())
        .collect();
    assert_eq!(
        legend,
        ["CR (n = 1)", "PR (n = 1)", "SD (n = 2)", "PD (n = 1)"]
    );
    assert_eq!(swimmer_by_arm(&arms[2..], "Months"), Err(PlotError::NoData));
}

#[test]
fn km_without_events_stays_at_one() {
    let series = vec![km_series(
        "No events",
        &[(2.0, false), (5.5, false), (9.1, false)],
    )];
    let svg = km_plot(
        &series,
        &KmPlotOptions {
            show_ci: false,
            ..km_opts()
        },
    )
    .unwrap();
    let doc = roxmltree::Document::parse(&svg).unwrap();
    // The curve is the polyline in the series colour: every vertex at the same height.
    let curve = doc
        .descendants()
        .filter(|n| n.has_tag_name("polyline") && n.attribute("stroke") == Some("#0072B2"))
        .max_by_key(|n| n.attribute("points").map_or(0, str::len))
        .expect("a curve");
    let ys: Vec<&str> = curve
        .attribute("points")
        .unwrap()
        .split_whitespace()
        .map(|p| p.split(',').nth(1).unwrap())
        .collect();
    assert!(ys.len() >= 2 && ys.iter().all(|y| *y == ys[0]), "{ys:?}");
}

/// Every row of a forest plot on one line: its label, both counts and its estimate ("NE" when
/// not estimable) at the same height, in the input's order, with each group's heading once
/// above its levels.
#[test]
fn forest_rows_line_up_with_their_counts_and_estimates() {
    for rows in [forest_small(), forest_trial()] {
        let svg = forest(&rows, "Drug X", "Placebo", "95", None).unwrap();
        let texts = texts(&svg);
        let mut last_y = f64::MIN;
        let mut last_group: Option<&str> = None;
        for r in &rows {
            let estimate = match r.hr {
                Some((e, l, u)) => format!("{e:.2} ({l:.2}\u{2013}{u:.2})"),
                None => "NE".to_string(),
            };
            let arm = format!("{}/{}", r.events, r.n);
            let reference = format!("{}/{}", r.events_reference, r.n_reference);
            // The first text of the estimate below the previous row.
            let hr = texts
                .iter()
                .find(|t| t.text == estimate && t.y > last_y)
                .unwrap_or_else(|| panic!("{estimate} missing below y = {last_y}"));
            for want in [&arm, &reference] {
                assert!(
                    texts.iter().any(|t| &t.text == want && t.y == hr.y),
                    "{want} not level with {estimate}"
                );
            }
            // The label's first line (a long one wraps), left of everything else.
            let in_label_column = |t: &&SvgText| t.anchor == "start" && t.x <= 30.0;
            let label = texts
                .iter()
                .filter(in_label_column)
                .find(|t| !t.text.is_empty() && r.label.starts_with(&t.text) && t.y > last_y)
                .unwrap_or_else(|| panic!("label {} missing", r.label));
            // A label on two lines starts half a line above the row's middle.
            assert!(
                (label.y - hr.y).abs() <= 10.0,
                "{} at {}, its estimate at {}",
                r.label,
                label.y,
                hr.y
            );
            if let Some(g) = r.group.as_deref() {
                if last_group != Some(g) {
                    let heading: Vec<&SvgText> = texts
                        .iter()
                        .filter(in_label_column)
                        .filter(|t| g.starts_with(&t.text) && t.y > last_y && t.y < label.y)
                        .collect();
                    assert!(!heading.is_empty(), "no heading {g} above {}", r.label);
                    assert_eq!(heading[0].text.split(' ').next(), g.split(' ').next());
                } else {
                    assert!(
                        !texts
                            .iter()
                            .filter(in_label_column)
                            .any(|t| t.text == g && t.y > last_y && t.y < label.y),
                        "heading {g} repeated"
                    );
                }
            }
            last_group = r.group.as_deref();
            last_y = hr.y;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Arms: risk-table labels, plot width, titles, waterfall and adverse events by arm

/// A two-point line of the SVG: its ends, stroke colour and width.
#[derive(Debug, Clone, PartialEq)]
struct SvgLine {
    a: (f64, f64),
    b: (f64, f64),
    stroke: String,
    width: f64,
}

fn lines(svg: &str) -> Vec<SvgLine> {
    let doc = roxmltree::Document::parse(svg).expect("SVG parses as XML");
    doc.descendants()
        .filter(|n| n.has_tag_name("polyline"))
        .filter_map(|n| {
            let points: Vec<(f64, f64)> = n
                .attribute("points")?
                .split_whitespace()
                .filter_map(|p| {
                    let (x, y) = p.split_once(',')?;
                    Some((x.parse().ok()?, y.parse().ok()?))
                })
                .collect();
            let [a, b] = points.as_slice() else {
                return None;
            };
            Some(SvgLine {
                a: *a,
                b: *b,
                stroke: n.attribute("stroke").unwrap_or("").to_string(),
                width: attr_f64(n, "stroke-width"),
            })
        })
        .collect()
}

/// The x axis of a figure: the longest horizontal axis-coloured line, as (left, right).
fn x_axis(svg: &str) -> (f64, f64) {
    lines(svg)
        .into_iter()
        .filter(|l| l.a.1 == l.b.1 && l.stroke == "#4D4D4D" && l.width == 1.0)
        .map(|l| (l.a.0.min(l.b.0), l.a.0.max(l.b.0)))
        .max_by(|p, q| (p.1 - p.0).total_cmp(&(q.1 - q.0)))
        .expect("an x axis")
}

/// A filled rectangle of the SVG.
#[derive(Debug, Clone)]
struct SvgRect {
    x: f64,
    y: f64,
    w: f64,
    h: f64,
    fill: String,
}

fn rects(svg: &str) -> Vec<SvgRect> {
    let doc = roxmltree::Document::parse(svg).expect("SVG parses as XML");
    doc.descendants()
        .filter(|n| n.has_tag_name("rect"))
        .map(|n| SvgRect {
            x: attr_f64(n, "x"),
            y: attr_f64(n, "y"),
            w: attr_f64(n, "width"),
            h: attr_f64(n, "height"),
            fill: n.attribute("fill").unwrap_or("").to_string(),
        })
        .collect()
}

/// The rows of the number-at-risk table: each row's label (the text anchored at its end).
fn risk_labels(svg: &str) -> Vec<SvgText> {
    let texts = texts(svg);
    let heading = texts
        .iter()
        .find(|t| t.text == "Number at risk")
        .expect("a number-at-risk heading");
    texts
        .iter()
        .filter(|t| t.y > heading.y && t.anchor == "end")
        .cloned()
        .collect()
}

/// The texts drawn at the title size (20 px).
fn title_texts(svg: &str) -> Vec<String> {
    texts(svg)
        .into_iter()
        .filter(|t| t.size == 20.0)
        .map(|t| t.text)
        .collect()
}

/// Arm names that fit in half the canvas are written whole in the risk table, and the
/// canvas widens by what they take beyond the labels' budget, so nothing leaves it.
#[test]
fn risk_table_labels_are_whole_when_they_fit() {
    let arms = xanomeline_arms();
    let svg = km_plot(&arms, &km_opts()).unwrap();
    let labels: Vec<String> = risk_labels(&svg).into_iter().map(|t| t.text).collect();
    assert_eq!(labels, XANOMELINE);
    check_layout("km_three_arms", &svg);
    check_risk_table(&arms, &svg);
    let (w, _) = svg_size(&svg);
    assert!(w > 560.0, "the canvas widens for the labels: {w}");
    assert!(w < 640.0, "and by no more than they need: {w}");

    // A name wider than half the canvas is cut with an ellipsis; the canvas stops growing.
    let mut long = xanomeline_arms();
    long[1].label = format!("{} with a loading dose and a long taper", XANOMELINE[1]);
    let svg = km_plot(&long, &km_opts()).unwrap();
    let labels = risk_labels(&svg);
    assert!(labels[1].text.ends_with('\u{2026}'), "{}", labels[1].text);
    assert!(long[1]
        .label
        .starts_with(labels[1].text.trim_end_matches('\u{2026}')));
    assert_eq!(labels[0].text, XANOMELINE[0]);
    check_layout("km_long_arm_name", &svg);
    assert!(svg_size(&svg).0 <= 560.0 * 1.25, "{}", svg_size(&svg).0);
}

/// Writing the arm names whole costs the plot no width: it is at least as wide as with the
/// names cut as they were at 32% of the canvas ("Xanomeline Low D…"), and wider than that
/// budget alone would leave.
#[test]
fn long_arm_names_keep_the_plot_as_wide_as_cut_ones() {
    let whole = xanomeline_arms();
    let mut cut = xanomeline_arms();
    cut[0].label = "Xanomeline Low D\u{2026}".into();
    cut[1].label = "Xanomeline High\u{2026}".into();
    let (l0, r0) = x_axis(&km_plot(&cut, &km_opts()).unwrap());
    let (l1, r1) = x_axis(&km_plot(&whole, &km_opts()).unwrap());
    assert!(r1 - l1 >= r0 - l0, "{} < {}", r1 - l1, r0 - l0);
    assert!(r1 - l1 >= 300.0, "plot {} px wide", r1 - l1);
    // The one-line y title leaves more room than the former two-line one.
    let two_lines = KmPlotOptions {
        y_label: "Progression-free survival (probability)".into(),
        ..km_opts()
    };
    let mut single = vec![whole[2].clone()];
    single[0].label = "All".into();
    let (a0, b0) = x_axis(&km_plot(&single, &two_lines).unwrap());
    let (a1, b1) = x_axis(&km_plot(&single, &km_opts()).unwrap());
    assert!(b1 - a1 > b0 - a0, "{} <= {}", b1 - a1, b0 - a0);
    let y_titles: Vec<String> = texts(&km_plot(&single, &km_opts()).unwrap())
        .into_iter()
        .filter(|t| t.rotated)
        .map(|t| t.text)
        .collect();
    assert_eq!(y_titles, ["Probability of PFS"]);
}

/// The legend sits above the plot: however long its entries and notes, the plot keeps its
/// left and right edges.
#[test]
fn the_legend_never_narrows_the_plot() {
    let plain = KmPlotOptions {
        note: Vec::new(),
        ..km_opts()
    };
    let mut arms = xanomeline_arms();
    let bare = x_axis(&km_plot(&arms, &plain).unwrap());
    for a in &mut arms {
        a.median_label = "median not reached (95% CI 12.4, not estimable), 3-year rate 61%".into();
    }
    let noted = KmPlotOptions {
        note: vec![
            "Xanomeline High Dose vs Placebo: HR 0.57 (95% CI 0.41\u{2013}0.80)".into(),
            "Stratified log-rank p < 0.001".into(),
        ],
        ..plain
    };
    let svg = km_plot(&arms, &noted).unwrap();
    assert_eq!(x_axis(&svg), bare);
    check_layout("km_long_legend", &svg);
}

/// With no title asked for (`output.figure_titles: false`), no text is drawn at the title
/// size and the figure starts with its legend.
#[test]
fn no_title_is_drawn_when_none_is_asked_for() {
    let titled = km_plot(&two_arms(), &km_opts()).unwrap();
    assert_eq!(title_texts(&titled), ["Progression-free survival"]);
    let untitled = KmPlotOptions {
        title: String::new(),
        ..km_opts()
    };
    let svg = km_plot(&two_arms(), &untitled).unwrap();
    assert!(title_texts(&svg).is_empty());
    assert!(svg_size(&svg).1 < svg_size(&titled).1);
    let labels = ("Any grade", "Grade \u{2265}3");
    for svg in [
        ae_bars(&ae_small(), 21, "").unwrap(),
        ae_bars_by_arm(&ae_arms(), "", labels).unwrap(),
    ] {
        assert!(title_texts(&svg).is_empty());
        let first = texts(&svg)
            .into_iter()
            .map(|t| t.y)
            .fold(f64::MAX, f64::min);
        assert!(first <= 40.0, "the legend moves up to the top: {first}");
    }
    let svg = ae_bars_by_arm(&ae_arms(), "Treatment-related adverse events", labels).unwrap();
    assert_eq!(title_texts(&svg), ["Treatment-related adverse events"]);
}

/// The panels of a waterfall: each one's zero line, as (left, right), left to right.
fn panels(svg: &str) -> Vec<(f64, f64)> {
    let mut zero_lines: Vec<(f64, f64)> = lines(svg)
        .into_iter()
        .filter(|l| l.a.1 == l.b.1 && l.stroke == "#4D4D4D" && (l.b.0 - l.a.0).abs() > 50.0)
        .map(|l| (l.a.0.min(l.b.0), l.a.0.max(l.b.0)))
        .collect();
    zero_lines.sort_by(|p, q| p.0.total_cmp(&q.0));
    zero_lines
}

/// A waterfall by arm: a panel per arm, in order and of equal widths, headed by the arm and
/// its n, holding just its subjects' bars (worst to best, coloured by response); the legend
/// names the responses, without counts pooled over arms.
#[test]
fn waterfall_by_arm_has_a_panel_per_arm() {
    for arms in [waterfall_arms(), waterfall_three_arms()] {
        let svg = waterfall_by_arm(&arms).unwrap();
        check_layout("waterfall_by_arm", &svg);
        let texts = texts(&svg);
        let panels = panels(&svg);
        assert_eq!(panels.len(), arms.len(), "{panels:?}");
        let width = panels[0].1 - panels[0].0;
        for (arm, (left, right)) in arms.iter().zip(&panels) {
            assert_eq!(right - left, width, "panels of equal width");
            let heading = format!("{} (n = {})", arm.arm, arm.bars.len());
            // A heading too wide for its panel wraps: its first line starts it, centred.
            let first_line = texts
                .iter()
                .find(|t| {
                    t.anchor == "middle" && !t.text.is_empty() && heading.starts_with(&t.text)
                })
                .unwrap_or_else(|| panic!("no heading {heading}"));
            assert!(
                ((left + right) / 2.0 - first_line.x).abs() <= 1.0,
                "{heading}"
            );
            let mut bars: Vec<SvgRect> = rects(&svg)
                .into_iter()
                .filter(|r| r.y > first_line.y && r.x >= *left && r.x + r.w <= *right)
                .collect();
            assert_eq!(bars.len(), arm.bars.len(), "{heading}");
            let top = bars.iter().map(|r| r.y).fold(f64::MAX, f64::min);
            let lines: Vec<&str> = texts
                .iter()
                .filter(|t| t.anchor == "middle" && t.x == first_line.x && t.y < top)
                .map(|t| t.text.as_str())
                .collect();
            assert_eq!(lines.join(" "), heading);
            assert!(lines
                .last()
                .unwrap()
                .ends_with(&format!("(n = {})", arm.bars.len())));
            let mut sorted = arm.bars.clone();
            sorted.sort_by(|a, b| {
                b.best_pchg
                    .total_cmp(&a.best_pchg)
                    .then(a.usubjid.cmp(&b.usubjid))
            });
            let expected: Vec<&str> = sorted
                .iter()
                .map(|b| response_colour(&b.response.label()))
                .collect();
            bars.sort_by(|a, b| a.x.total_cmp(&b.x));
            let drawn: Vec<&str> = bars.iter().map(|r| r.fill.as_str()).collect();
            assert_eq!(
                drawn, expected,
                "{heading}: worst to best in response colours"
            );
        }
        for label in ["CR", "PR", "SD", "PD"] {
            let in_legend = texts.iter().any(|t| t.text == label);
            let present = arms
                .iter()
                .flat_map(|a| &a.bars)
                .any(|b| b.response.label() == label);
            assert_eq!(in_legend, present, "legend entry {label}");
        }
        assert!(!texts.iter().any(|t| t.text.starts_with("PR (n =")));
    }
}

/// The fill plotters writes for a response's colour (`ResponseKey::colour`).
fn response_colour(response: &str) -> &'static str {
    match response {
        "CR" => "#0072B2",
        "PR" => "#56B4E9",
        "SD" => "#E69F00",
        "PD" => "#D55E00",
        "NE" => "#999999",
        other => panic!("no colour for {other}"),
    }
}

/// Adverse events by arm: each arm's percentages are its own counts over its own N, written
/// after its bar ("57.1 (19.0)" for 12 and 4 of 21), the bar as long as the any-grade
/// percentage on the axis and its darker part as long as the grade ≥3 one; arms in order
/// within each term, each in its own colour, named in the legend with N.
#[test]
fn adverse_events_by_arm_are_percentages_of_each_arm() {
    let arms = ae_arms();
    let svg = ae_bars_by_arm(&arms, "", ("Any grade", "Grade \u{2265}3")).unwrap();
    check_layout("ae_by_arm", &svg);
    let texts = texts(&svg);
    for legend in ["Drug X + chemo (N = 21)", "Placebo + chemo (N = 20)"] {
        assert!(texts.iter().any(|t| t.text == legend), "{legend}");
    }
    // 12/21 = 57.14%, 4/21 = 19.05%, 9/21 = 42.86%, 1/21 = 4.76%, 7/21 = 33.33%,
    // 2/21 = 9.52%; 3/20 = 15%, 6/20 = 30%, 1/20 = 5%.
    let expected = [
        [(57.142857, 19.047619), (15.0, 0.0)],
        [(42.857143, 4.761905), (30.0, 5.0)],
        [(33.333333, 9.523810), (0.0, 0.0)],
    ];
    let written = [
        ["57.1 (19.0)", "15.0 (0.0)"],
        ["42.9 (4.8)", "30.0 (5.0)"],
        ["33.3 (9.5)", "0.0 (0.0)"],
    ];
    // The axis: x of the tick labels 0 and 60.
    let tick_x = |label: &str| {
        texts
            .iter()
            .find(|t| t.text == label && t.anchor == "middle")
            .unwrap_or_else(|| panic!("tick {label}"))
            .x
    };
    let (x0, x60) = (tick_x("0"), tick_x("60"));
    let at = |pct: f64| x0 + pct / 60.0 * (x60 - x0);
    let bars = rects(&svg);
    let mut last_y = f64::MIN;
    let mut fills: [std::collections::BTreeSet<String>; 2] = Default::default();
    for (term, (want, shown)) in expected.iter().zip(&written).enumerate() {
        for (arm, ((any, severe), label)) in want.iter().zip(shown).enumerate() {
            let text = texts
                .iter()
                .find(|t| t.text == *label && t.y > last_y)
                .unwrap_or_else(|| panic!("{label} (term {term}, arm {arm}) below {last_y}"));
            assert!(
                (text.x - 4.0 - at(*any)).abs() <= 1.0,
                "{label} after its bar"
            );
            let on_row: Vec<&SvgRect> = bars
                .iter()
                .filter(|r| r.x == x0 && r.y <= text.y && r.y + r.h >= text.y)
                .collect();
            let widths: Vec<f64> = on_row.iter().map(|r| r.w).collect();
            let drawn = usize::from(*any > 0.0) + usize::from(*severe > 0.0);
            assert_eq!(on_row.len(), drawn, "{label}: {widths:?}");
            if let Some(light) = on_row.first() {
                assert!(
                    (x0 + light.w - at(*any)).abs() <= 1.0,
                    "{label}: {widths:?}"
                );
            }
            if let Some(dark) = on_row.get(1) {
                assert!(
                    (x0 + dark.w - at(*severe)).abs() <= 1.0,
                    "{label}: {widths:?}"
                );
            }
            fills[arm].extend(on_row.iter().map(|r| r.fill.clone()));
            last_y = text.y;
        }
    }
    // Each arm in a light and a dark shade of its own colour.
    assert_eq!(fills[0].len(), 2, "{fills:?}");
    assert_eq!(fills[1].len(), 2, "{fills:?}");
    assert!(fills[0].is_disjoint(&fills[1]), "{fills:?}");
}

/// Builds cohort 1 of the single-arm example study (which has ADTR) at its cut-off with the
/// `output` and `arms` given, into a temporary folder; returns it and the cohort's folder.
fn build_example_cohort(output: &str, arms: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().expect("temp dir");
    let data = crate::common::root().join("data/altn-ak105-ii-01");
    let config = dir.path().join("study.yaml");
    std::fs::write(
        &config,
        format!(
            "study: {{ id: FIGS }}\n\
             data: {{ dir: {data:?}, adsl: adsl.csv, adrs: adrs.csv, adae: adae.csv, adtr: adtr.csv }}\n\
             cutoff: 2022-01-06\n\
             output: {output}\n\
             cohorts:\n  - id: c1\n    label: \"R/M HNSCC\"\n    where: {{ COHORT: \"1\" }}\n{arms}",
        ),
    )
    .expect("config");
    readout_command()
        .args(["build"])
        .arg(&config)
        .assert()
        .success();
    let cohort = dir.path().join("output/FIGS/2022-01-06/c1");
    (dir, cohort)
}

/// The pipeline draws a cohort with arms by arm, titles as `output.figure_titles` says: the
/// example's cohort split by sex has a waterfall panel per sex holding all the cohort's bars,
/// and adverse-event bars per sex over each one's safety N; KM figures have the short y title,
/// and no title with `figure_titles: false`.
#[test]
fn a_cohort_with_arms_is_drawn_by_arm_with_titles_as_configured() {
    let read = |dir: &std::path::Path, file: &str| {
        std::fs::read_to_string(dir.join("figures").join(file)).expect(file)
    };
    let (_pooled_dir, pooled) = build_example_cohort("{ formats: [md] }", "");
    let km = read(&pooled, "km-pfs.svg");
    assert_eq!(title_texts(&km), ["Progression-free survival: R/M HNSCC"]);
    let y_titles: Vec<String> = texts(&km)
        .into_iter()
        .filter(|t| t.rotated)
        .map(|t| t.text)
        .collect();
    assert_eq!(y_titles, ["Probability of PFS"]);
    let subjects = texts(&read(&pooled, "waterfall.svg"))
        .into_iter()
        .find_map(|t| {
            t.text
                .strip_prefix("Subjects (n = ")
                .and_then(|n| n.trim_end_matches(')').parse::<usize>().ok())
        })
        .expect("the pooled waterfall's n");

    let (_dir, by_sex) = build_example_cohort(
        "{ formats: [md], figure_titles: false }",
        "    arms: { column: SEX, reference: F }\n",
    );
    for file in ["km-pfs.svg", "km-os.svg", "ae-trae.svg", "waterfall.svg"] {
        assert!(title_texts(&read(&by_sex, file)).is_empty(), "{file}");
    }
    let results: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(by_sex.join("../results.json")).expect("results.json"),
    )
    .expect("json");
    let arms = results["cohorts"][0]["arms"].as_array().expect("arms");
    let names: Vec<&str> = arms.iter().map(|a| a["arm"].as_str().unwrap()).collect();
    assert_eq!(names, ["M", "F"], "the reference last");

    let waterfall = texts(&read(&by_sex, "waterfall.svg"));
    let mut in_panels = 0;
    for arm in &names {
        let n: usize = waterfall
            .iter()
            .find_map(|t| {
                t.text
                    .strip_prefix(&format!("{arm} (n = "))
                    .and_then(|n| n.trim_end_matches(')').parse().ok())
            })
            .unwrap_or_else(|| panic!("no panel for {arm}"));
        in_panels += n;
    }
    assert_eq!(in_panels, subjects, "every subject in their sex's panel");

    let ae = texts(&read(&by_sex, "ae-trae.svg"));
    for a in arms {
        let legend = format!("{} (N = {})", a["arm"].as_str().unwrap(), a["safety"]["N"]);
        assert!(ae.iter().any(|t| t.text == legend), "{legend}");
    }
}

/// The y positions of the "1.0" and "0.0" tick labels: the plot's top and bottom.
fn plot_span(svg: &str) -> (f64, f64) {
    let texts = texts(svg);
    let at = |label: &str| {
        texts
            .iter()
            .find(|t| t.text == label && t.anchor == "end")
            .map(|t| t.y)
            .unwrap_or_else(|| panic!("no {label} tick"))
    };
    (at("1.0"), at("0.0"))
}

/// Four arms with three comparisons' notes: the curves keep at least 60% of the figure's
/// height (the legend and HR text above the plot took about 60% of it), the legend going
/// beside the plot; a single series keeps its legend above.
#[test]
fn km_curves_keep_60_percent_of_the_figure_for_any_number_of_arms() {
    let mut all = xanomeline_arms();
    for k in 0..5 {
        let t = f64::from(k);
        all.push(km_series(
            &format!("Placebo + best supportive care, cohort {}", k + 1),
            &[(3.0 + t, true), (5.0 + t, false), (8.0 + t, true)],
        ));
    }
    for n in 1..=all.len() {
        let series = all[..n].to_vec();
        let mut opts = km_opts();
        // Each arm but the reference has its comparison in the note, as a build writes it.
        for s in &series[..n - 1] {
            opts.note.push(format!("{} vs Placebo:", s.label));
            opts.note
                .push("Stratified HR 0.82 (95% CI 0.48–1.42)".to_string());
            opts.note.push("Stratified log-rank p = 0.48".to_string());
        }
        let svg = km_plot(&series, &opts).unwrap();
        let (_, height) = svg_size(&svg);
        let (top, bottom) = plot_span(&svg);
        assert!(
            (bottom - top) / height >= 0.6,
            "{n} series: plot {:.0} of {height:.0}",
            bottom - top
        );
        check_layout("km_many_arms", &svg);
    }
}

/// Censoring marks at least 4 pixels apart along a curve: 4,000 censorings drew a solid band.
#[test]
fn censoring_marks_are_thinned_by_pixel() {
    let data: Vec<(f64, bool)> = (0..4000)
        .map(|i| (f64::from(i) / 200.0, i % 10 == 0))
        .collect();
    let svg = km_plot(&[km_series("Many", &data)], &km_opts()).unwrap();
    let doc = roxmltree::Document::parse(&svg).expect("SVG");
    // A plus mark is a horizontal and a vertical two-point polyline of 10 px; take the
    // vertical ones.
    let marks: Vec<(f64, f64)> = doc
        .descendants()
        .filter(|n| n.has_tag_name("polyline"))
        .filter_map(|n| {
            let points: Vec<(f64, f64)> = n
                .attribute("points")?
                .split_whitespace()
                .filter_map(|p| {
                    let (x, y) = p.split_once(',')?;
                    Some((x.parse().ok()?, y.parse().ok()?))
                })
                .collect();
            match points.as_slice() {
                [a, b] if a.0 == b.0 && (b.1 - a.1).abs() == 10.0 => Some((a.0, (a.1 + b.1) / 2.0)),
                _ => None,
            }
        })
        .collect();
    assert!(
        marks.len() > 20 && marks.len() < 400,
        "{} marks",
        marks.len()
    );
    for pair in marks.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        assert!(
            (b.0 - a.0).abs() >= 4.0 || (b.1 - a.1).abs() >= 4.0,
            "marks {a:?} and {b:?} overlap"
        );
    }
}

/// A day axis of 15 years ticks at round numbers of days (it ticked at 1825, 3650, 5475).
#[test]
fn day_axes_tick_at_round_numbers() {
    let data: Vec<(f64, bool)> = (0..60).map(|i| (f64::from(i) * 92.0, i % 3 == 0)).collect();
    let mut opts = km_opts();
    opts.time_unit = "Days".to_string();
    let svg = km_plot(&[km_series("Long", &data)], &opts).unwrap();
    let ticks: Vec<f64> = texts(&svg)
        .iter()
        .filter(|t| t.anchor == "middle" && t.text.chars().all(|c| c.is_ascii_digit()))
        .filter_map(|t| t.text.parse().ok())
        .collect();
    let step = ticks
        .windows(2)
        .map(|w| w[1] - w[0])
        .find(|s| *s > 0.0)
        .expect("ticks");
    assert!(
        [250.0, 500.0, 1000.0, 2000.0].contains(&step),
        "step {step}: {ticks:?}"
    );
}

#[test]
fn ae_dot_plot_draws_each_term_and_refuses_bad_input() {
    let row = |term: &str, pct: f64, pct_reference: f64| readout::plots::AeDotRow {
        term: term.to_string(),
        pct,
        pct_reference,
        difference: (
            pct - pct_reference,
            pct - pct_reference - 9.0,
            pct - pct_reference + 9.0,
        ),
    };
    let rows = vec![row("Nausea", 37.2, 29.3), row("Rash", 20.3, 6.7)];
    let svg = readout::plots::ae_dot(&rows, "Drug X", "Placebo", "95").unwrap();
    assert_eq!(
        svg,
        readout::plots::ae_dot(&rows, "Drug X", "Placebo", "95").unwrap()
    );
    for text in [
        "Nausea",
        "Rash",
        "Drug X",
        "Placebo",
        "Risk difference, % (95% CI)",
    ] {
        assert!(svg.contains(text), "{text}");
    }
    assert!(matches!(
        readout::plots::ae_dot(&[], "A", "B", "95"),
        Err(readout::plots::PlotError::NoData)
    ));
    for bad in [row("X", 120.0, 1.0), row("X", f64::NAN, 1.0)] {
        assert!(matches!(
            readout::plots::ae_dot(&[bad], "A", "B", "95"),
            Err(readout::plots::PlotError::InvalidInput(_))
        ));
    }
}

/// The polylines of `svg` drawn in `stroke`, each as its points.
fn polylines_in(svg: &str, stroke: &str) -> Vec<Vec<(f64, f64)>> {
    let doc = roxmltree::Document::parse(svg).expect("svg");
    doc.descendants()
        .filter(|n| n.has_tag_name("polyline") && n.attribute("stroke") == Some(stroke))
        .map(|n| {
            n.attribute("points")
                .unwrap_or("")
                .split_whitespace()
                .filter_map(|p| {
                    let (x, y) = p.split_once(',')?;
                    Some((x.parse().ok()?, y.parse().ok()?))
                })
                .collect()
        })
        .collect()
}

/// Eight or more curves are told apart by colour and line together: the eighth takes the
/// first one's colour dashed (legend key and curve), so no two of 20 curves look alike.
#[test]
fn curves_past_the_seventh_colour_are_dashed() {
    let eight = many_arms();
    let svg = km_plot(&eight, &km_opts()).unwrap();
    // The first colour (Okabe–Ito blue): one curve solid, one cut into dashes of 8 px.
    let blue = polylines_in(&svg, "#0072B2");
    let length = |line: &Vec<(f64, f64)>| {
        line.windows(2)
            .map(|w| (w[1].0 - w[0].0).hypot(w[1].1 - w[0].1))
            .sum::<f64>()
    };
    // Dashes are 8 px (the median's drop lines, 6 px; censoring marks, 10 px).
    let dash = |l: &&Vec<(f64, f64)>| (length(l) - 8.0).abs() < 0.5;
    let dashes = blue.iter().filter(dash).count();
    assert!(dashes >= 10, "{dashes} dashes in the first colour");
    // Seven curves: every one solid.
    let seven = km_plot(&eight[..7], &km_opts()).unwrap();
    assert_eq!(
        polylines_in(&seven, "#0072B2").iter().filter(dash).count(),
        0
    );
}
