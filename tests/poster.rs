//! `poster.pptx`: one slide at the poster's size (the config's, the congress's or 48 × 36
//! inches), its text never under 22 pt printed (the figures' text too), its shapes inside the
//! poster and apart, every picture described; blocks that cannot fit are left out with a
//! warning naming them.

use std::io::Read;
use std::path::Path;

use crate::common::{build_quietly, root};

/// The parts of a .pptx by name.
fn parts(path: &Path) -> std::collections::BTreeMap<String, String> {
    let mut archive =
        zip::ZipArchive::new(std::fs::File::open(path).expect("pptx")).expect("a zip archive");
    let mut out = std::collections::BTreeMap::new();
    for i in 0..archive.len() {
        let mut part = archive.by_index(i).expect("part");
        let name = part.name().expect("name").to_string();
        if name.ends_with(".xml") || name.ends_with(".rels") {
            let mut text = String::new();
            part.read_to_string(&mut text).expect("xml");
            out.insert(name, text);
        }
    }
    out
}

/// The randomised example's config with its `output.poster` block replaced by `poster` (and
/// `extra` output lines after it), written into `out`.
fn config_with(out: &Path, poster: &str) -> std::path::PathBuf {
    let original =
        std::fs::read_to_string(root().join("config/rand-example.yaml")).expect("config");
    let start = original.find("  poster:\n").expect("the poster block");
    let end = start + original[start..].find("]\n").expect("its references") + 2;
    let config = format!("{}{poster}{}", &original[..start], &original[end..]).replace(
        "dir: ../data/rand-example",
        &format!("dir: {}", root().join("data/rand-example").display()),
    );
    let path = out.join("study.yaml");
    std::fs::write(&path, config).expect("config");
    path
}

/// Every shape's rectangle (x, y, cx, cy) on the slide, in EMU.
fn rectangles(slide: &str) -> Vec<(String, [u64; 4])> {
    let doc = roxmltree::Document::parse(slide).expect("slide");
    doc.descendants()
        .filter(|n| n.has_tag_name("off"))
        .filter(|n| n.parent().is_some_and(|p| p.has_tag_name("xfrm")))
        .filter_map(|off| {
            let ext = off.next_sibling_element()?;
            let shape = off.ancestors().find(|a| {
                a.has_tag_name("sp") || a.has_tag_name("pic") || a.has_tag_name("graphicFrame")
            })?;
            let name = shape
                .descendants()
                .find(|d| d.has_tag_name("cNvPr"))?
                .attribute("name")?
                .to_string();
            let n = |node: roxmltree::Node<'_, '_>, a: &str| -> u64 {
                node.attribute(a).expect("attribute").parse().expect("EMU")
            };
            Some((name, [n(off, "x"), n(off, "y"), n(ext, "cx"), n(ext, "cy")]))
        })
        .collect()
}

fn check_poster(path: &Path, inches: (f64, f64), k: u64) {
    let parts = parts(path);
    let presentation = &parts["ppt/presentation.xml"];
    let (cx, cy) = (
        (inches.0 / k as f64 * 914_400.0).round() as u64,
        (inches.1 / k as f64 * 914_400.0).round() as u64,
    );
    assert!(
        presentation.contains(&format!(r#"<p:sldSz cx="{cx}" cy="{cy}"/>"#)),
        "{presentation}"
    );
    let slides: Vec<&String> = parts
        .iter()
        .filter(|(n, _)| n.starts_with("ppt/slides/slide") && n.ends_with(".xml"))
        .map(|(_, x)| x)
        .collect();
    assert_eq!(slides.len(), 1, "one slide");
    let slide = slides[0];
    // No text under 22 pt printed: 2200 hundredths of a point divided by the drawing's scale.
    let sizes: Vec<u64> = slide
        .split(" sz=\"")
        .skip(1)
        .map(|s| s[..s.find('"').expect("quote")].parse().expect("size"))
        .collect();
    assert!(sizes.len() > 50, "{}", sizes.len());
    let least = sizes.iter().min().copied().unwrap_or(0);
    assert!(
        least * k >= 2200,
        "text of {least} (×{k}) hundredths of a point"
    );
    // Every shape inside the poster, and no two overlapping.
    let rects = rectangles(slide);
    assert!(rects.len() > 10, "{rects:?}");
    for (name, [x, y, w, h]) in &rects {
        assert!(x + w <= cx && y + h <= cy, "{name} outside the poster");
    }
    for (i, (a, ra)) in rects.iter().enumerate() {
        for (b, rb) in &rects[i + 1..] {
            let apart = ra[0] + ra[2] <= rb[0]
                || rb[0] + rb[2] <= ra[0]
                || ra[1] + ra[3] <= rb[1]
                || rb[1] + rb[3] <= ra[1];
            assert!(apart, "{a} {ra:?} overlaps {b} {rb:?}");
        }
    }
    // Every picture described with its numbers.
    let doc = roxmltree::Document::parse(slide).expect("slide");
    let pictures: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("pic"))
        .map(|p| {
            p.descendants()
                .find(|d| d.has_tag_name("cNvPr"))
                .and_then(|c| c.attribute("descr"))
                .unwrap_or("")
        })
        .collect();
    assert!(pictures.len() >= 2, "{pictures:?}");
    for descr in &pictures {
        assert!(descr.chars().any(|c| c.is_ascii_digit()), "{descr}");
    }
    // Every picture wide enough that its figure's smallest text prints at 22 pt or more.
    let figures = path.parent().expect("cohort folder").join("figures");
    for pic in doc.descendants().filter(|n| n.has_tag_name("pic")) {
        let name = pic
            .descendants()
            .find(|d| d.has_tag_name("cNvPr"))
            .and_then(|c| c.attribute("name"))
            .expect("name");
        let cx: f64 = pic
            .descendants()
            .find(|d| d.has_tag_name("ext"))
            .and_then(|e| e.attribute("cx"))
            .expect("cx")
            .parse()
            .expect("EMU");
        let svg = std::fs::read_to_string(figures.join(format!("{name}.svg"))).expect("svg");
        let number = |text: &str| -> f64 { text.split('"').next().unwrap().parse().unwrap() };
        let width = number(&svg[svg.find("width=\"").unwrap() + 7..]);
        let smallest = svg
            .split("font-size=\"")
            .skip(1)
            .map(number)
            .fold(f64::INFINITY, f64::min);
        let printed_pt = smallest / width * (cx * k as f64 / 914_400.0) * 72.0;
        assert!(
            printed_pt >= 21.99,
            "{name}: smallest text {printed_pt:.1} pt printed"
        );
    }
    // The title band names the authors and their affiliations.
    assert!(slide.contains("A. Fictional, B. Example, C. Synthetic"));
    assert!(slide.contains(
        "1. Department of Oncology, Example University Hospital; 2. Example Cancer Centre"
    ));
    // The references come last, numbered; the tables are PowerPoint tables.
    assert!(slide.contains("1. Synthetic data (examples/make_randomised_example.rs)"));
    assert!(slide.contains("<a:tbl>"));
}

#[test]
fn the_example_poster_is_72_by_48_inches_drawn_at_half_with_nothing_under_22_pt() {
    let out = tempfile::tempdir().expect("tmp");
    build_quietly(out.path(), &root().join("config/rand-example.yaml")).success();
    check_poster(
        &out.path().join("RAND-EXAMPLE/2023-09-29/itt/poster.pptx"),
        (72.0, 48.0),
        2,
    );
}

#[test]
fn an_asco_poster_is_drawn_at_half_its_size_and_a_small_one_leaves_blocks_out() {
    let out = tempfile::tempdir().expect("tmp");
    let references = "    references: [\"Synthetic data (examples/make_randomised_example.rs): no real trial is described.\"]\n";
    let config = config_with(
        out.path(),
        &format!("  conference: asco\n  poster:\n{references}"),
    );
    build_quietly(&out.path().join("built"), &config).success();
    check_poster(
        &out.path()
            .join("built/RAND-EXAMPLE/2023-09-29/itt/poster.pptx"),
        (95.0, 47.0),
        2,
    );
    // A poster of 12 × 10 inches cannot hold every block: those that do not fit are left
    // out, named in a warning; the rest is still a poster within its bounds.
    let small = tempfile::tempdir().expect("tmp");
    let config = config_with(small.path(), "  poster: { width: 12, height: 10 }\n");
    build_quietly(&small.path().join("built"), &config).success();
    let folder = small.path().join("built/RAND-EXAMPLE/2023-09-29");
    let results = crate::common::read_json(&folder.join("results.json"));
    let warnings = results["cohorts"][0]["warnings"].to_string();
    assert!(
        warnings.contains("poster.pptx leaves out") && warnings.contains("12 × 10 inch poster"),
        "{warnings}"
    );
    let slide = &parts(&folder.join("itt/poster.pptx"))["ppt/slides/slide1.xml"];
    for (name, [x, y, w, h]) in rectangles(slide) {
        assert!(
            x + w <= 12 * 914_400 && y + h <= 10 * 914_400,
            "{name} outside"
        );
    }
    // A size out of range is a config error at its key.
    let bad = tempfile::tempdir().expect("tmp");
    let config = config_with(bad.path(), "  poster: { width: 200 }\n");
    let ran = build_quietly(&bad.path().join("built"), &config).code(2);
    assert!(
        ran.stderr()
            .contains("key `output.poster.width`: 200 is not a poster size"),
        "{}",
        ran.stderr()
    );
}
