use super::*;

fn row(label: &str, group: Option<&str>, hr: Option<(f64, f64, f64)>) -> ForestRow {
    ForestRow {
        label: label.to_string(),
        group: group.map(str::to_string),
        n: 57,
        n_reference: 55,
        events: 30,
        events_reference: 38,
        hr,
        group_note: None,
    }
}

/// Overall, then two groups of two levels; one level not estimable, one interval past
/// the axis.
fn typical() -> Vec<ForestRow> {
    vec![
        row("All subjects", None, Some((0.66, 0.42, 1.03))),
        ForestRow {
            n: 30,
            n_reference: 28,
            events: 12,
            events_reference: 20,
            ..row("Female", Some("Sex"), Some((0.55, 0.27, 1.12)))
        },
        ForestRow {
            n: 27,
            n_reference: 27,
            events: 18,
            events_reference: 18,
            ..row("Male", Some("Sex"), Some((0.81, 0.42, 1.56)))
        },
        ForestRow {
            n: 3,
            n_reference: 2,
            events: 0,
            events_reference: 0,
            ..row("\u{2265}75 years", Some("Age group"), None)
        },
        ForestRow {
            n: 54,
            n_reference: 53,
            events: 4,
            events_reference: 1,
            ..row("<75 years", Some("Age group"), Some((3.9, 0.44, 140.0)))
        },
    ]
}

fn svg_texts(svg: &str) -> Vec<String> {
    let doc = roxmltree::Document::parse(svg).expect("SVG parses as XML");
    doc.descendants()
        .filter(|n| n.has_tag_name("text"))
        .map(|n| n.text().unwrap_or("").trim().to_string())
        .collect()
}

fn width_of(svg: &str) -> f64 {
    let doc = roxmltree::Document::parse(svg).expect("SVG parses as XML");
    let w = doc.root_element().attribute("width").unwrap_or("0");
    w.parse().unwrap_or(0.0)
}

#[test]
fn a_typical_plot_parses_and_writes_every_estimate() {
    let rows = typical();
    let svg = forest(
        &rows,
        "Drug X",
        "Placebo",
        "95",
        Some("Progression-free survival"),
    )
    .unwrap();
    let texts = svg_texts(&svg);
    for r in &rows {
        let h = hr_text(r.hr);
        assert!(texts.contains(&h), "{h} missing");
    }
    for t in [
        "0.66 (0.42\u{2013}1.03)",
        "NE",
        "30/57",
        "38/55",
        "0/3",
        "Subgroup",
        "HR (95% CI)",
        "Hazard ratio (95% CI)",
        "Favours Drug X",
        "Favours Placebo",
        "Progression-free survival",
        "events/n",
    ] {
        assert!(texts.iter().any(|x| x == t), "{t} missing from {texts:?}");
    }
    // One heading per group, above its levels.
    let at = |t: &str| texts.iter().position(|x| x == t).unwrap();
    assert_eq!(texts.iter().filter(|t| *t == "Sex").count(), 1);
    assert_eq!(texts.iter().filter(|t| *t == "Age group").count(), 1);
    assert!(at("Sex") < at("Female") && at("Female") < at("Male"));
    assert!(at("Male") < at("Age group"));
    // The upper limit 140 is past the axis's end at 100 but written in full.
    assert!(texts.iter().any(|t| t == "3.90 (0.44\u{2013}140.00)"));
    assert!(texts.iter().any(|t| t == "100"));
    assert_eq!(width_of(&svg), f64::from(WIDTH));
}

#[test]
fn the_overall_row_is_a_diamond_and_the_others_squares_with_arrows_past_the_axis() {
    let svg = forest(&typical(), "Drug X", "Placebo", "95", None).unwrap();
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let blue = |n: &roxmltree::Node<'_, '_>| n.attribute("fill") == Some("#0072B2");
    let black = |n: &roxmltree::Node<'_, '_>| n.attribute("fill") == Some("#000000");
    // Squares for the three estimable subgroup levels, none for the NE row.
    let squares = doc
        .descendants()
        .filter(|n| n.has_tag_name("rect") && blue(n))
        .count();
    assert_eq!(squares, 3);
    let polygons: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("polygon"))
        .collect();
    // The overall diamond (4 points) in black; one blue arrowhead where 140 runs off
    // the axis; and the two arrows of "Favours".
    let diamonds = polygons
        .iter()
        .filter(|n| black(n) && n.attribute("points").unwrap().split_whitespace().count() == 4)
        .count();
    assert_eq!(diamonds, 1);
    assert_eq!(polygons.iter().filter(|n| blue(n)).count(), 1);
    assert_eq!(polygons.len(), 4);
}

/// A group's note is written once, on its heading's line at the estimates' left edge,
/// and widens the estimates column when it is the widest text there.
#[test]
fn group_notes_are_written_beside_their_headings() {
    let mut rows = typical();
    let plain = forest(&rows, "A", "B", "95", None).unwrap();
    rows[1].group_note = Some("Interaction p = 0.32".to_string());
    // Only a group's first row carries its note.
    rows[2].group_note = Some("ignored".to_string());
    let svg = forest(&rows, "A", "B", "95", None).unwrap();
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let at = |t: &str| {
        doc.descendants()
            .find(|n| n.has_tag_name("text") && n.text().map(str::trim) == Some(t))
            .map(|n| {
                let f = |a: &str| n.attribute(a).unwrap().parse::<f64>().unwrap();
                (f("x"), f("y"))
            })
    };
    let note = at("Interaction p = 0.32").unwrap();
    let heading = at("Sex").unwrap();
    let estimate = at("0.55 (0.27\u{2013}1.12)").unwrap();
    assert!((note.1 - heading.1).abs() < 1.0, "{note:?} {heading:?}");
    assert!((note.0 - estimate.0).abs() < 1.0, "{note:?} {estimate:?}");
    assert_eq!(at("ignored"), None);
    assert_ne!(plain, svg);
    assert_eq!(
        svg_texts(&svg)
            .iter()
            .filter(|t| t.starts_with("Interaction"))
            .count(),
        1
    );
}

#[test]
fn no_title_unless_given() {
    let rows = typical();
    let with = forest(&rows, "A", "B", "95", Some("A title")).unwrap();
    let without = forest(&rows, "A", "B", "95", None).unwrap();
    assert!(svg_texts(&with).iter().any(|t| t == "A title"));
    assert!(!svg_texts(&without).iter().any(|t| t == "A title"));
    // A trailing per cent sign in the level is not doubled.
    let svg = forest(&rows, "A", "B", "90%", None).unwrap();
    assert!(svg_texts(&svg).iter().any(|t| t == "HR (90% CI)"));
}

#[test]
fn rasterises() {
    let svg = forest(&typical(), "Drug X", "Placebo", "95", None).unwrap();
    let png = crate::plots::figure_png(&svg).unwrap();
    let pixmap = resvg::tiny_skia::Pixmap::decode_png(&png).unwrap();
    assert_eq!(pixmap.width(), 2 * WIDTH as u32);
    assert!(pixmap.pixels().iter().any(|p| p.red() < 50));
}

#[test]
fn drawn_twice_is_identical() {
    let a = forest(&typical(), "Drug X", "Placebo", "95", None).unwrap();
    let b = forest(&typical(), "Drug X", "Placebo", "95", None).unwrap();
    assert_eq!(a, b);
}

#[test]
fn no_rows_is_no_data() {
    assert_eq!(forest(&[], "A", "B", "95", None), Err(PlotError::NoData));
}

#[test]
fn impossible_rows_are_refused_naming_the_row() {
    let bad = [
        Some((f64::NAN, 0.5, 1.0)),
        Some((0.7, 0.5, f64::INFINITY)),
        Some((0.0, 0.0, 1.0)),
        Some((0.7, -0.1, 1.0)),
        Some((0.4, 0.5, 1.0)),
        Some((1.2, 0.5, 1.0)),
    ];
    for hr in bad {
        let mut rows = typical();
        rows[2].hr = hr;
        match forest(&rows, "A", "B", "95", None) {
            Err(PlotError::InvalidInput(m)) => assert!(m.contains("'Male' (Sex)"), "{m}"),
            other => panic!("{hr:?}: {other:?}"),
        }
    }
    let mut rows = typical();
    rows[1].events = 31;
    assert!(matches!(
        forest(&rows, "A", "B", "95", None),
        Err(PlotError::InvalidInput(m)) if m.contains("'Female'")
    ));
    let mut rows = typical();
    rows[0].events_reference = 56;
    assert!(matches!(
        forest(&rows, "A", "B", "95", None),
        Err(PlotError::InvalidInput(m)) if m.contains("'All subjects'")
    ));
}

#[test]
fn axis_ticks_cover_the_intervals() {
    let a = LogAxis::choose(0.42, 1.03, 300).unwrap();
    assert_eq!(a.ticks, vec![0.25, 0.5, 1.0, 2.0]);
    let a = LogAxis::choose(0.9, 1.1, 300).unwrap();
    assert_eq!((a.lo, a.hi), (0.5, 2.0));
    let a = LogAxis::choose(0.05, 12.0, 300).unwrap();
    assert!(a.lo <= 0.05 && a.hi >= 12.0 && a.ticks.contains(&1.0));
    // 0.2 to 100 in 1–2–5 steps would be 9 ticks: decades instead.
    let a = LogAxis::choose(0.27, 140.0, 300).unwrap();
    assert_eq!(a.ticks, vec![0.1, 1.0, 10.0, 100.0]);
    let a = LogAxis::choose(1e-6, 1e6, MIN_PLOT_W).unwrap();
    assert_eq!((a.lo, a.hi), (0.01, 100.0));
    assert!(a.fits(MIN_PLOT_W).unwrap());
    assert_eq!(tick_label(0.125), "0.125");
    assert_eq!(tick_label(1.0), "1");
    assert_eq!(tick_label(0.02), "0.02");
}

#[test]
fn estimates_are_written_with_two_decimals() {
    assert_eq!(
        hr_text(Some((0.664, 0.421, 1.0349))),
        "0.66 (0.42\u{2013}1.03)"
    );
    assert_eq!(
        hr_text(Some((0.01, 0.001, 2000.0))),
        "0.01 (<0.01\u{2013}>999.99)"
    );
    assert_eq!(hr_text(None), "NE");
}

#[test]
fn intervals_wholly_past_the_axis_and_all_rows_not_estimable_still_draw() {
    let mut rows = typical();
    rows[1].hr = Some((150.0, 120.0, 400.0));
    rows[2].hr = Some((1e-4, 1e-5, 1e-3));
    let svg = forest(&rows, "A", "B", "95", None).unwrap();
    assert!(svg_texts(&svg)
        .iter()
        .any(|t| t == ">999.99" || t.contains("150.00")));
    for r in &mut rows {
        r.hr = None;
    }
    let svg = forest(&rows, "A", "B", "95", None).unwrap();
    let texts = svg_texts(&svg);
    assert_eq!(texts.iter().filter(|t| *t == "NE").count(), rows.len());
    assert!(texts.iter().any(|t| t == "0.5") && texts.iter().any(|t| t == "2"));
}

#[test]
fn long_labels_wrap_then_are_shortened_and_the_canvas_stays_reasonable() {
    let mut rows = typical();
    rows[1].label = "A remarkably long subgroup level that cannot possibly fit".repeat(3);
    let arm = "Pembrolizumab plus platinum-based chemotherapy followed by maintenance";
    let svg = forest(
        &rows,
        arm,
        &arm.replace("Pembrolizumab", "Placebo"),
        "95",
        None,
    )
    .unwrap();
    let texts = svg_texts(&svg);
    let label: Vec<&String> = texts
        .iter()
        .skip_while(|t| !t.starts_with("A remarkably"))
        .take(MAX_LABEL_LINES)
        .collect();
    assert_eq!(label.len(), MAX_LABEL_LINES);
    assert!(
        label[MAX_LABEL_LINES - 1].ends_with('\u{2026}'),
        "{label:?}"
    );
    for l in label {
        assert!(
            text_width(l, TABLE_PX).unwrap() <= LABEL_MAX_W - INDENT,
            "{l}"
        );
    }
    assert!(texts.iter().any(|t| t == "Pembrolizumab"));
    assert!(width_of(&svg) <= 820.0, "{}", width_of(&svg));
}

#[test]
fn wrapping_at_most_keeps_the_rest_on_the_last_line() {
    let lines = wrap_at_most("alpha beta gamma delta epsilon", TABLE_PX, 60, 2).unwrap();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0], "alpha");
    assert!(lines[1].starts_with("beta") && lines[1].ends_with('\u{2026}'));
    assert_eq!(
        wrap_at_most("short", TABLE_PX, 60, 2).unwrap(),
        vec!["short".to_string()]
    );
}
