//! Congress-ready abstracts (issue 68; docs/CONFERENCES.md, "Roles and shortening"): the
//! endpoints' roles, blocks pinned or dropped by `output.abstract`, the abstract shortened to
//! the conference limit in the documented order without losing a primary endpoint's estimate
//! or the safety headline, what a congress asks of every abstract, the cumulative incidence at
//! the landmark asked for. The case is the randomised example read as a dual primary phase 3
//! (PFS and OS primary, ORR secondary, a competing endpoint exploratory, RMST asked, ESMO).

use std::path::{Path, PathBuf};

use crate::common::{build, rand_example_config, read_json, refused_by_check, root};

/// The dual primary phase 3 at ESMO's preset: roles, RMST and a competing endpoint, the
/// study's own Methods wording of its endpoints taken out (the roles say them).
fn phase3(text: String) -> String {
    let out = without_key(&text, "  primary_endpoint:", "    ");
    let out = without_key(&out, "  secondary_endpoints:", "    - ");
    out.replace(
        "  id: RAND-EXAMPLE\n",
        "  id: RAND-EXAMPLE\n  registry_id: NCT00000000\n  funding: \"Funded by Example Pharma (synthetic).\"\n",
    )
    .replace(
        "  tte_params: { PFS: PFS, OS: OS }\n",
        "  tte_params:\n    PFS: PFS\n    OS: OS\n    TTP: { paramcd: PFS, label: \"time to progression\", \
         competing: { column: EVNTDESC, values: [death] } }\n  \
         endpoints: { PFS: primary, OS: primary, ORR: secondary, TTP: exploratory }\n  \
         rmst_in_abstract: true\n",
    )
    .replace(
        "  formats: [md, html, docx, pptx, png, xlsx, ard, poster]\n",
        "  formats: [md]\n  conference: esmo\n",
    )
}

/// A build of the randomised example whose config `edit` makes (in a folder of its own, kept
/// while this lives), which must succeed.
struct Built {
    dir: tempfile::TempDir,
    config: PathBuf,
    out: PathBuf,
    stderr: String,
}

fn built(edit: &dyn Fn(String) -> String) -> Built {
    let dir = tempfile::tempdir().expect("tempdir");
    let config = rand_example_config(dir.path(), edit);
    let out = dir.path().join("out");
    let run = build(&config, &out, &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    Built {
        dir,
        config,
        out,
        stderr: run.stderr,
    }
}

/// `text` without the line starting `key` and the lines after it starting `continued`.
fn without_key(text: &str, key: &str, continued: &str) -> String {
    let mut out = String::new();
    let mut skipping = false;
    for line in text.lines() {
        if line.starts_with(key) {
            skipping = true;
            continue;
        }
        if skipping && line.starts_with(continued) {
            continue;
        }
        skipping = false;
        out.push_str(line);
        out.push('\n');
    }
    out
}

fn cohort_dir(out: &Path) -> PathBuf {
    out.join("RAND-EXAMPLE/2023-09-29/itt")
}

/// x to `d` decimals as documents print them (half away from zero on the printed digits).
fn fixed(x: f64, d: usize) -> String {
    format!("{:.*}", d, x)
}

/// Characters other than white space: ESMO's count, title included.
fn chars_no_spaces(text: &str) -> usize {
    text.chars().filter(|c| !c.is_whitespace()).count()
}

#[test]
fn the_dual_primary_esmo_abstract_fits_with_both_primaries_orr_and_safety() {
    let b = built(&phase3);
    let cohort = cohort_dir(&b.out);
    let text = std::fs::read_to_string(cohort.join("abstract.txt")).expect("abstract.txt");
    assert!(
        chars_no_spaces(&text) <= 2000,
        "{}\n{text}",
        chars_no_spaces(&text)
    );
    let results = read_json(&b.out.join("RAND-EXAMPLE/2023-09-29/results.json"));
    let c = &results["cohorts"][0];
    let length = &c["abstract_length"];
    assert_eq!(
        length["count"].as_u64(),
        Some(chars_no_spaces(&text) as u64)
    );
    assert_eq!(length["within_limit"], true);
    // Both primary endpoints' stratified HRs with their CIs, as results.json holds them.
    for name in ["PFS", "OS"] {
        let hr = &c["comparisons"][0]["tte"][name]["stratified"]["hr"];
        let said = format!(
            "stratified HR {}, 95% CI: {}, {}",
            fixed(hr["estimate"].as_f64().expect("hr"), 2),
            fixed(hr["lower"].as_f64().expect("lower"), 2),
            fixed(hr["upper"].as_f64().expect("upper"), 2)
        );
        assert!(text.contains(&said), "{name}: {said}\n{text}");
    }
    assert!(text.contains("The dual primary endpoints were progression-free survival (PFS) and overall survival (OS)."));
    // ORR per arm with n/N, and the safety headline per arm.
    for arm in c["arms"].as_array().expect("arms") {
        let orr = &arm["response"]["orr"];
        let said = format!("({}/{})", orr["n"], orr["N"]);
        assert!(text.contains(&said), "ORR {said}\n{text}");
        let s = &arm["safety"];
        let g3 = format!("{}/{} (", s["trae"]["grade3plus"], s["N"]);
        assert!(text.contains(&g3), "grade ≥3 TRAEs {g3}\n{text}");
    }
    assert!(text.contains("Treatment-related adverse events (TRAEs) occurred in"));
    assert!(text.contains("Clinical trial information: NCT00000000"));
    assert!(text.contains("Funding: Funded by Example Pharma (synthetic)."));
    // The title without the population suffix (one cohort).
    assert!(text.starts_with("Drug X plus chemotherapy versus placebo plus chemotherapy in advanced solid tumours (RAND-EXAMPLE)\n"));
    // What was left out: in results.json, in order, and on the terminal; the report keeps it.
    let left: Vec<&str> = length["left_out"]
        .as_array()
        .expect("left_out")
        .iter()
        .map(|v| v.as_str().expect("text"))
        .collect();
    assert_eq!(
        left.first(),
        Some(&"the Methods' statistics in full (one sentence kept)")
    );
    assert!(left.contains(
        &"the exploratory endpoints, RMST, other response rates and AEs of special interest"
    ));
    assert!(!text.contains("restricted mean") && !text.contains("cumulative incidence"));
    assert!(
        b.stderr
            .contains("to fit it left out: the Methods' statistics in full"),
        "{}",
        b.stderr
    );
    // Every number printed still traces to results.json: the sheet names each HR.
    let sheet = std::fs::read_to_string(cohort.join("abstract-numbers.csv")).expect("sheet");
    assert!(sheet.contains("/comparisons/0/tte/OS/stratified/hr/estimate"));
    assert!(sheet.contains("/comparisons/0/tte/PFS/stratified/hr/upper"));
    let note = sheet.lines().last().expect("rows");
    assert!(
        note.starts_with("Note,0,left out to fit the esmo limit,\"the Methods' statistics in full")
            && note.contains(",/cohorts/0/abstract_length/left_out,,note"),
        "{note}"
    );
}

#[test]
fn pinned_and_dropped_blocks_without_a_template() {
    // Pinned: the baseline and the RMST stay whatever the length; TTP is always dropped.
    let b = built(&|t| {
        phase3(t).replace(
            "  conference: esmo\n",
            "  conference: esmo\n  abstract: { include: [baseline, rmst], exclude: [TTP] }\n",
        )
    });
    let text = std::fs::read_to_string(cohort_dir(&b.out).join("abstract.txt")).expect("abstract");
    assert!(
        text.contains("region Europe/Asia/North America: "),
        "{text}"
    );
    assert!(text.contains("The restricted mean"), "{text}");
    assert!(!text.contains("time to progression") && !text.contains("cumulative incidence"));
    let results = read_json(&b.out.join("RAND-EXAMPLE/2023-09-29/results.json"));
    let left = results["cohorts"][0]["abstract_length"]["left_out"].to_string();
    assert!(!left.contains("baseline"), "{left}");

    // Without a conference nothing is shortened; an excluded block is still left out.
    let b = built(&|t| {
        phase3(t).replace(
            "  conference: esmo\n",
            "  abstract: { exclude: [baseline, OS] }\n",
        )
    });
    let text = std::fs::read_to_string(cohort_dir(&b.out).join("abstract.txt")).expect("abstract");
    assert!(!text.contains("Median overall survival"), "{text}");
    // No baseline phrase between the randomisation and the arms.
    assert!(
        text.contains("North America: 150 to Drug X + chemo"),
        "{text}"
    );
    assert!(text.contains("Median progression-free survival was"));
    // Unshortened: the medians carry their CIs and the competing endpoint its incidence at
    // one year (the default landmark), which the example's landmarks [6, 12, 24] hold.
    assert!(
        text.contains("The 12-month cumulative incidence of progression was"),
        "{text}"
    );
}

#[test]
fn the_cumulative_incidence_at_the_landmark_asked_for() {
    let b = built(&|t| {
        phase3(t)
            .replace("  conference: esmo\n", "")
            .replace("  rmst_in_abstract: true\n", "  cif_landmark: 9\n")
    });
    let text = std::fs::read_to_string(cohort_dir(&b.out).join("abstract.txt")).expect("abstract");
    let results = read_json(&b.out.join("RAND-EXAMPLE/2023-09-29/results.json"));
    let arm = &results["cohorts"][0]["arms"][0];
    let at9: Vec<&serde_json::Value> = arm["tte"]["TTP"]["cif"]["landmarks"]
        .as_array()
        .expect("landmarks")
        .iter()
        .filter(|l| l["time"].as_f64() == Some(9.0))
        .collect();
    assert_eq!(
        at9.len(),
        1,
        "the landmark asked for is estimated beside the others"
    );
    let pct = fixed(100.0 * at9[0]["estimate"].as_f64().expect("estimate"), 1);
    assert!(
        text.contains(&format!(
            "The 9-month cumulative incidence of progression was {pct}%"
        )),
        "{pct}\n{text}"
    );
}

#[test]
fn a_congress_abstract_names_its_registry_and_has_a_background() {
    let b = built(&|t| {
        let kept = without_key(&t, "    background:", "      ");
        kept.replace(
            "  formats: [md, html, docx, pptx, png, xlsx, ard, poster]\n",
            "  formats: [md]\n  conference: esmo\n",
        )
    });
    assert!(
        b.stderr.contains("no trial registry number"),
        "{}",
        b.stderr
    );
    assert!(b.stderr.contains("has no Background"), "{}", b.stderr);
    let strict = build(&b.config, &b.dir.path().join("strict"), &["--strict"]);
    assert_eq!(strict.code, Some(2), "{}", strict.stderr);
    assert!(
        strict.stderr.contains("key `cohorts[0].background`"),
        "{}",
        strict.stderr
    );
    assert!(!b.dir.path().join("strict").join("RAND-EXAMPLE").exists());
}

#[test]
fn roles_and_blocks_are_checked_at_their_keys() {
    for (edit, expected) in [
        (
            ("  tte_params: { PFS: PFS, OS: OS }\n", "  tte_params: { PFS: PFS, OS: OS }\n  endpoints: { PFS: primary, OSS: primary }\n"),
            "key `analysis.endpoints.OSS`: `OSS` is not an endpoint of cohort `itt`; expected one of ORR, DCR, PFS, OS; did you mean `OS`?",
        ),
        (
            ("  tte_params: { PFS: PFS, OS: OS }\n", "  tte_params: { PFS: PFS, OS: OS }\n  endpoints: { PFS: primry }\n"),
            "primry",
        ),
        (
            ("  formats:", "  abstract: { exclude: [basline] }\n  formats:"),
            "key `output.abstract.exclude[0]`: `basline` is not a block of the abstract; expected one of methods",
        ),
        (
            ("  formats:", "  abstract: { include: [rmst], exclude: [rmst] }\n  formats:"),
            "key `output.abstract.exclude[0]`: `rmst` is both included and excluded",
        ),
        (
            ("  formats:", "  abstract: { exclud: [rmst] }\n  formats:"),
            "exclud",
        ),
        (
            ("  tte_params: { PFS: PFS, OS: OS }\n", "  tte_params: { PFS: PFS, OS: OS }\n  cif_landmark: -3\n"),
            "key `analysis.cif_landmark`: -3 is not a time",
        ),
    ] {
        let dir = tempfile::tempdir().expect("tempdir");
        let config = rand_example_config(dir.path(), &|t| {
            assert!(t.contains(edit.0));
            t.replace(edit.0, edit.1)
        });
        let said = refused_by_check(&config);
        assert!(said.contains(expected), "{expected}\n{said}");
    }
}

/// The parts of a .pptx: XML as text, pictures as bytes.
fn pptx(path: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    use std::io::Read;
    let mut archive =
        zip::ZipArchive::new(std::fs::File::open(path).expect("pptx")).expect("a zip archive");
    (0..archive.len())
        .map(|i| {
            let mut part = archive.by_index(i).expect("part");
            let mut bytes = Vec::new();
            part.read_to_end(&mut bytes).expect("bytes");
            (part.name().expect("name").to_string(), bytes)
        })
        .collect()
}

/// Each slide's part name and XML, in the package's order.
fn slide_xmls(parts: &std::collections::BTreeMap<String, Vec<u8>>) -> Vec<(&str, String)> {
    parts
        .iter()
        .filter(|(n, _)| n.starts_with("ppt/slides/slide") && n.ends_with(".xml"))
        .map(|(n, b)| (n.as_str(), String::from_utf8(b.clone()).expect("xml")))
        .collect()
}

/// The XML of the first slide that contains `text`.
fn slide_with(parts: &std::collections::BTreeMap<String, Vec<u8>>, text: &str) -> String {
    slide_xmls(parts)
        .into_iter()
        .map(|(_, xml)| xml)
        .find(|x| x.contains(text))
        .unwrap_or_else(|| panic!("no slide with {text}"))
}

/// A PNG's width in pixels, from its IHDR chunk.
fn png_width(png: &[u8]) -> u32 {
    assert_eq!(&png[1..4], b"PNG");
    u32::from_be_bytes([png[16], png[17], png[18], png[19]])
}

#[test]
fn posters_keep_the_primary_endpoints_comparison_safety_and_conclusions() {
    // ESMO (no size of its own: 48 × 36), ASCO's board, A0 portrait.
    for (conference, size, k) in [
        ("esmo", "", 1),
        ("asco", "", 2),
        ("esmo", "    width: 33.1\n    height: 46.8\n", 1),
    ] {
        let b = built(&|t| {
            phase3(t)
                .replace(
                    "  formats: [md]\n  conference: esmo\n",
                    &format!("  formats: [poster]\n  conference: {conference}\n"),
                )
                .replace("    width: 72\n    height: 48\n", size)
        });
        let parts = pptx(&cohort_dir(&b.out).join("poster.pptx"));
        let slide = String::from_utf8(parts["ppt/slides/slide1.xml"].clone()).expect("xml");
        let doc = roxmltree::Document::parse(&slide).expect("slide");
        let texts: Vec<&str> = doc
            .descendants()
            .filter(|n| n.has_tag_name("t"))
            .filter_map(|n| n.text())
            .collect();
        for heading in ["Comparison of arms", "Safety", "Conclusions"] {
            assert!(
                texts.contains(&heading),
                "{conference} {size}: no {heading}"
            );
        }
        // Both primary endpoints' figures, each printed at 200 dpi or more.
        for figure in ["km-pfs", "km-os"] {
            let pic = doc
                .descendants()
                .filter(|n| n.has_tag_name("pic"))
                .find(|p| {
                    p.descendants()
                        .any(|d| d.has_tag_name("cNvPr") && d.attribute("name") == Some(figure))
                })
                .unwrap_or_else(|| panic!("{conference} {size}: no {figure}"));
            let cx: f64 = pic
                .descendants()
                .find(|d| d.has_tag_name("ext"))
                .and_then(|e| e.attribute("cx"))
                .and_then(|c| c.parse().ok())
                .expect("cx");
            let printed_inches = cx * k as f64 / 914_400.0;
            let png = &parts[&format!("ppt/media/readout-{figure}.png")];
            let dpi = f64::from(png_width(png)) / printed_inches;
            assert!(
                dpi >= 200.0,
                "{conference} {size}: {figure} at {dpi:.0} dpi"
            );
        }
        // The file says how to print it.
        let core = String::from_utf8(parts["docProps/core.xml"].clone()).expect("xml");
        let print = if k == 2 {
            "drawn at 1/2 size: print at 200%"
        } else {
            "print at 100%"
        };
        assert!(core.contains(print), "{core}");
        // And its notes page: "Print at 200% = 95 × 47 in".
        let rels =
            String::from_utf8(parts["ppt/slides/_rels/slide1.xml.rels"].clone()).expect("rels");
        assert!(rels.contains("../notesSlides/notesSlide1.xml"), "{rels}");
        let notes =
            String::from_utf8(parts["ppt/notesSlides/notesSlide1.xml"].clone()).expect("notes");
        let page = if conference == "asco" {
            "95 × 47"
        } else if size.is_empty() {
            "48 × 36"
        } else {
            "33.1 × 46.8"
        };
        assert!(
            notes.contains(&format!("Print at {}% = {page} in", k * 100)),
            "{notes}"
        );
        // What left is named, lowest priority first, never a kept block.
        if b.stderr.contains("poster.pptx leaves out blocks") {
            let line = b
                .stderr
                .lines()
                .find(|l| l.contains("leaves out blocks"))
                .expect("line");
            for kept in [
                "Progression-free survival;",
                "Overall survival;",
                "Safety",
                "Conclusions",
            ] {
                assert!(!line.contains(kept), "{line}");
            }
        }
    }
}

/// The cut-off diff of the dual primary trial: per arm (no pooled efficacy rows), with the RMST
/// difference, the competing endpoint's incidence, SHR and Gray's test beside medians and HRs,
/// and an AE entered after the earlier cut-off named with its subject.
#[test]
fn the_cutoff_diff_of_a_randomised_trial_is_per_arm_with_rmst_and_incidence() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = root().join("data/rand-example");
    // The earlier snapshot lacks one AE that started before its cut-off: entered late.
    let early = dir.path().join("early");
    std::fs::create_dir(&early).expect("dir");
    for file in ["adsl.csv", "adrs.csv", "adtte.csv"] {
        std::fs::copy(data.join(file), early.join(file)).expect("copy");
    }
    let adae = std::fs::read_to_string(data.join("adae.csv")).expect("adae");
    let mut lines: Vec<&str> = adae.lines().collect();
    let header: Vec<&str> = lines[0].split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).expect(name);
    let (start, subject, term) = (col("ASTDT"), col("USUBJID"), col("AEDECOD"));
    let at = lines
        .iter()
        .position(|l| {
            l.split(',')
                .nth(start)
                .is_some_and(|d| d < "2022-06-01" && d > "2022-01-01")
        })
        .expect("an AE before the earlier cut-off");
    let removed: Vec<String> = lines.remove(at).split(',').map(str::to_string).collect();
    std::fs::write(early.join("adae.csv"), lines.join("\n") + "\n").expect("write");
    let config_at = |data: &Path, name: &str| {
        let text = phase3(
            std::fs::read_to_string(root().join("config/rand-example.yaml")).expect("config"),
        )
        .replace(
            "dir: ../data/rand-example",
            &format!("dir: {}", data.display()),
        )
        .replace("dir: ../output", "dir: output");
        let path = dir.path().join(name);
        std::fs::write(&path, text).expect("config");
        path
    };
    let out = dir.path().join("out");
    let first = build(
        &config_at(&early, "early.yaml"),
        &out,
        &["--cutoff", "2022-06-30"],
    );
    assert_eq!(first.code, Some(0), "{}", first.stderr);
    let second = build(&config_at(&data, "late.yaml"), &out, &[]);
    assert_eq!(second.code, Some(0), "{}", second.stderr);
    let study = out.join("RAND-EXAMPLE");
    let diff = crate::common::readout(&[
        "diff".as_ref(),
        study.join("2022-06-30").as_os_str(),
        study.join("2023-09-29").as_os_str(),
    ]);
    assert_eq!(diff.code, Some(0), "{}", diff.stderr);
    let md = diff.stdout;
    // Per arm, never pooled, for the efficacy numbers.
    assert!(md.contains("| Drug X + chemo: PFS median (CI) |"), "{md}");
    assert!(md.contains("| Placebo + chemo: ORR |"), "{md}");
    assert!(
        !md.contains("\n| PFS median (CI) |") && !md.contains("\n| ORR |"),
        "{md}"
    );
    // RMST, incidence, SHR and Gray's test beside medians and HRs.
    for row in [
        "| Drug X + chemo: PFS RMST to ",
        "| Drug X + chemo: TTP cumulative incidence at ",
        "| Placebo + chemo: TTP competing events |",
        "| Drug X + chemo vs Placebo + chemo: PFS RMST difference (CI) |",
        "| Drug X + chemo vs Placebo + chemo: TTP SHR (CI) |",
        "| Drug X + chemo vs Placebo + chemo: TTP Gray's test |",
        "| Drug X + chemo vs Placebo + chemo: OS HR (CI) |",
    ] {
        assert!(md.contains(row), "{row}\n{md}");
    }
    // The late AE, named with its subject and term.
    let late = md
        .split("AEs entered late (started on or before")
        .nth(1)
        .expect("a late-AE list");
    let first_line = late.lines().find(|l| l.starts_with("- ")).expect("a line");
    assert!(
        first_line.contains(&removed[subject]) && first_line.contains(&removed[term]),
        "{first_line} ({removed:?})"
    );
}

/// Every number of the poster's and the slides' text (tables included) is a number of
/// results.json as documents print it, or one of the config's own texts: read by an
/// independent reader, not by readout's tracer.
#[test]
fn every_number_on_the_poster_and_slides_comes_from_the_results() {
    let b = built(&|t| phase3(t).replace("  formats: [md]\n", "  formats: [md, pptx, poster]\n"));
    let results = read_json(&b.out.join("RAND-EXAMPLE/2023-09-29/results.json"));
    // The printed forms of every number results.json holds, at the decimals documents use:
    // counts as they are; times, rates and ratios at 1 or 2 decimals and as percentages at 1;
    // p-values at 3.
    let mut printed = std::collections::BTreeSet::new();
    fn walk(v: &serde_json::Value, key: &str, out: &mut std::collections::BTreeSet<String>) {
        match v {
            serde_json::Value::Number(n) => {
                if let Some(i) = n.as_u64() {
                    out.insert(i.to_string());
                }
                let x = n.as_f64().expect("number");
                out.insert(fixed(x, 1));
                out.insert(fixed(x, 2));
                out.insert(fixed(x * 100.0, 1));
                if key == "p" || key.starts_with("p_") {
                    out.insert(fixed(x, 3));
                }
            }
            serde_json::Value::Array(items) => items.iter().for_each(|i| walk(i, key, out)),
            serde_json::Value::Object(map) => map.iter().for_each(|(k, i)| walk(i, k, out)),
            serde_json::Value::String(s) => {
                // Dates and labels carry numbers of their own ("2023-09-29", ">=65").
                for w in s.split(|c: char| !c.is_ascii_digit() && c != '.') {
                    out.insert(w.trim_matches('.').to_string());
                }
            }
            _ => {}
        }
    }
    walk(&results["cohorts"][0], "", &mut printed);
    // The config's own words (regimen, Methods, dates) and the CI level.
    let text = std::fs::read_to_string(&b.config).expect("config");
    for w in text.split(|c: char| !c.is_ascii_digit() && c != '.') {
        printed.insert(w.trim_matches('.').to_string());
    }
    // The CI level and the bound p-values print under ("p < 0.001").
    printed.insert("95".into());
    printed.insert("0.001".into());
    // Percentages of counts as the documents compute them (n/N to one decimal): each count
    // of results.json over each population size it holds (`N`, `enrolled`, `efficacy`,
    // `safety`).
    let (mut counts, mut sizes) = (
        std::collections::BTreeSet::new(),
        std::collections::BTreeSet::new(),
    );
    fn integers(
        v: &serde_json::Value,
        key: &str,
        counts: &mut std::collections::BTreeSet<u64>,
        sizes: &mut std::collections::BTreeSet<u64>,
    ) {
        match v {
            serde_json::Value::Number(n) => {
                if let Some(i) = n.as_u64() {
                    counts.insert(i);
                    if ["N", "enrolled", "efficacy", "safety"].contains(&key) && i > 0 {
                        sizes.insert(i);
                    }
                }
            }
            serde_json::Value::Array(items) => {
                items.iter().for_each(|i| integers(i, key, counts, sizes))
            }
            serde_json::Value::Object(map) => {
                map.iter().for_each(|(k, i)| integers(i, k, counts, sizes))
            }
            _ => {}
        }
    }
    integers(&results["cohorts"][0], "", &mut counts, &mut sizes);
    for n in &counts {
        for d in &sizes {
            if n <= d {
                printed.insert(crate::common::percent_text(*n, *d));
            }
        }
    }
    for file in ["slides.pptx", "poster.pptx"] {
        let parts = pptx(&cohort_dir(&b.out).join(file));
        let mut unaccounted = std::collections::BTreeSet::new();
        for (_, xml) in slide_xmls(&parts) {
            let doc = roxmltree::Document::parse(&xml).expect("slide");
            for t in doc.descendants().filter(|n| n.has_tag_name("t")) {
                let text = t.text().unwrap_or("");
                for w in text.split(|c: char| !c.is_ascii_digit() && c != '.') {
                    let w = w.trim_matches('.');
                    if !w.is_empty() && !printed.contains(w) {
                        unaccounted.insert(format!("{w} in {text:?}"));
                    }
                }
            }
        }
        assert!(unaccounted.is_empty(), "{file}: {unaccounted:#?}");
    }
}

/// ASH asks for title lettering of at least 1.5 inches: the poster's title is set at 151 pt
/// printed or more (capitals of 108 pt), whatever else its band holds; other congresses keep
/// the 88 pt title.
#[test]
fn the_ash_poster_title_meets_its_lettering_rule() {
    for (conference, least) in [("ash", 151.0), ("asco", 88.0)] {
        let b = built(&|t| {
            phase3(t).replace(
                "  formats: [md]\n  conference: esmo\n",
                &format!("  formats: [poster]\n  conference: {conference}\n"),
            )
        });
        let parts = pptx(&cohort_dir(&b.out).join("poster.pptx"));
        let slide = String::from_utf8(parts["ppt/slides/slide1.xml"].clone()).expect("xml");
        let doc = roxmltree::Document::parse(&slide).expect("slide");
        let band = doc
            .descendants()
            .find(|n| n.has_tag_name("cNvPr") && n.attribute("name") == Some("Title band"))
            .and_then(|n| n.ancestors().find(|a| a.has_tag_name("sp")))
            .expect("the title band");
        let size: f64 = band
            .descendants()
            .find(|n| n.has_tag_name("rPr"))
            .and_then(|r| r.attribute("sz"))
            .and_then(|s| s.parse().ok())
            .expect("the title's size");
        let presentation = String::from_utf8(parts["ppt/presentation.xml"].clone()).expect("xml");
        let drawn_in: f64 = presentation
            .split("sldSz cx=\"")
            .nth(1)
            .and_then(|s| s.split('"').next())
            .and_then(|s| s.parse::<f64>().ok())
            .expect("slide width")
            / 914_400.0;
        // The printed size: the drawn one times the print scale (the example's poster is 72
        // inches wide, `output.poster`).
        let printed_pt = size / 100.0 * 72.0 / drawn_in;
        assert!(printed_pt >= least - 0.5, "{conference}: {printed_pt} pt");
        if conference == "asco" {
            assert!(printed_pt < 100.0, "{printed_pt}");
        }
    }
}

/// Slides a presenter shows: every table's text at 14 pt or more, the largest of 20 to 14 pt
/// at which it fits; the RMST difference (asked for) on the PFS and OS slides.
#[test]
fn slide_tables_fill_the_slide_and_the_rmst_is_on_its_slide() {
    let b = built(&|t| phase3(t).replace("  formats: [md]\n", "  formats: [pptx]\n"));
    let results = read_json(&b.out.join("RAND-EXAMPLE/2023-09-29/results.json"));
    let parts = pptx(&cohort_dir(&b.out).join("slides.pptx"));
    let mut tables = 0;
    let mut largest = 0;
    let mut rmst_said = Vec::new();
    for (name, xml) in slide_xmls(&parts) {
        let doc = roxmltree::Document::parse(&xml).expect("slide");
        for tbl in doc.descendants().filter(|n| n.has_tag_name("tbl")) {
            tables += 1;
            for r in tbl.descendants().filter(|n| n.has_tag_name("rPr")) {
                let sz: u32 = r.attribute("sz").and_then(|s| s.parse().ok()).expect("sz");
                assert!(sz >= 1400, "{name}: a table cell at {} pt", sz / 100);
                largest = largest.max(sz);
            }
        }
        let text: String = doc
            .descendants()
            .filter(|n| n.has_tag_name("t"))
            .filter_map(|n| n.text())
            .collect::<Vec<_>>()
            .join(" ");
        if let Some(at) = text.find("RMST difference up to") {
            rmst_said.push(text[at..].chars().take(80).collect::<String>());
        }
    }
    assert!(tables >= 5, "{tables} tables");
    // Each Kaplan–Meier picture takes at least 60% of the slide's width, and its risk table
    // (16 px type in the drawing, rasterised at 2 pixels a px) prints at 12 pt or more.
    let presentation = String::from_utf8(parts["ppt/presentation.xml"].clone()).expect("xml");
    let slide_w: f64 = presentation
        .split("sldSz cx=\"")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .and_then(|s| s.parse().ok())
        .expect("slide width");
    // The competing endpoint's incidence too, in its landscape drawing with KMunicate's table.
    for figure in ["km-pfs", "km-os", "cif-ttp"] {
        let slide = slide_with(&parts, &format!("name=\"{figure}\""));
        let doc = roxmltree::Document::parse(&slide).expect("slide");
        let cx: f64 = doc
            .descendants()
            .filter(|n| n.has_tag_name("pic"))
            .flat_map(|p| p.descendants())
            .find(|d| d.has_tag_name("ext"))
            .and_then(|e| e.attribute("cx"))
            .and_then(|c| c.parse().ok())
            .expect("cx");
        assert!(
            cx / slide_w >= 0.6,
            "{figure}: {:.0}% of the width",
            100.0 * cx / slide_w
        );
        let png = &parts[&format!("ppt/media/readout-{figure}.png")];
        let drawing_px = f64::from(png_width(png)) / 2.0;
        let risk_pt = 16.0 * (cx / 12_700.0) / drawing_px;
        assert!(risk_pt >= 12.0, "{figure}: risk table at {risk_pt:.1} pt");
    }
    assert_eq!(largest, 2000, "short tables are set at 20 pt");
    // A slide of a few words sets them large rather than leave the slide near empty.
    let conclusions = slide_with(&parts, ">Conclusions<");
    let sizes: Vec<u32> = conclusions
        .split("sz=\"")
        .skip(1)
        .filter_map(|s| s.split('"').next()?.parse().ok())
        .collect();
    assert!(
        !sizes.is_empty() && sizes.iter().all(|s| *s >= 2400),
        "{sizes:?}"
    );
    // The PFS and OS slides each give the RMST difference of results.json.
    assert_eq!(rmst_said.len(), 2, "{rmst_said:?}");
    for (said, name) in rmst_said.iter().zip(["PFS", "OS"]) {
        let r = &results["cohorts"][0]["comparisons"][0]["tte"][name]["rmst"];
        let d = fixed(r["difference"]["estimate"].as_f64().expect("estimate"), 1);
        assert!(
            said.contains(&format!("months {d} months (95% CI")),
            "{name}: {said}"
        );
    }
}

/// Coded values a congress prints in words: a region coded in capitals ("EUROPE", "REST OF
/// WORLD") reads "Europe", "rest of world" in the abstract's baseline and the report's table;
/// ">=65" reads "≥65" there and in the forest plot.
#[test]
fn coded_values_read_as_words() {
    let dir = tempfile::tempdir().expect("tempdir");
    let data = dir.path().join("data");
    std::fs::create_dir(&data).expect("data dir");
    for entry in std::fs::read_dir(root().join("data/rand-example")).expect("data") {
        let path = entry.expect("entry").path();
        let name = path.file_name().expect("name").to_owned();
        std::fs::copy(&path, data.join(name)).expect("copy");
    }
    let adsl = std::fs::read_to_string(data.join("adsl.csv")).expect("adsl");
    let adsl = adsl
        .replace(",Europe,", ",EUROPE,")
        .replace(",Asia,", ",ASIA,")
        .replace(",North America,", ",REST OF WORLD,");
    std::fs::write(data.join("adsl.csv"), adsl).expect("write adsl");
    let original = root().join("data/rand-example").display().to_string();
    let copy = data.display().to_string();
    let b = built(&|t| {
        t.replace(&original, &copy).replace(
            "  formats: [md, html, docx, pptx, png, xlsx, ard, poster]\n",
            "  formats: [md, html]\n",
        )
    });
    let cohort = cohort_dir(&b.out);
    let text = std::fs::read_to_string(cohort.join("abstract.txt")).expect("abstract");
    assert!(
        text.contains("region Europe/Asia/rest of world: 37.3%/36.3%/26.3%"),
        "{text}"
    );
    assert!(text.contains("age group <65/≥65 years"), "{text}");
    let report = std::fs::read_to_string(cohort.join("report.html")).expect("report");
    for words in ["Rest of world", "Europe", "≥65"] {
        assert!(report.contains(&format!(">{words}<")), "{words}");
    }
    for code in ["REST OF WORLD", "EUROPE", "&gt;=65"] {
        assert!(!report.contains(code), "{code} printed as coded");
    }
    let forest =
        std::fs::read_to_string(cohort.join("figures/forest-pfs.svg")).expect("forest plot");
    assert!(forest.contains("≥65"), "forest");
    assert!(!forest.contains("&gt;=65"), "forest prints >=65");
}

/// The texts of an SVG drawing by line: (y, texts in x order), top to bottom.
fn svg_lines(svg: &str) -> Vec<(i64, Vec<String>)> {
    let doc = roxmltree::Document::parse(svg).expect("svg");
    let mut lines: std::collections::BTreeMap<i64, Vec<(i64, String)>> = Default::default();
    for t in doc.descendants().filter(|n| n.has_tag_name("text")) {
        let at = |name| {
            t.attribute(name)
                .and_then(|v| v.parse::<f64>().ok())
                .map_or(0, |v| v.round() as i64)
        };
        let text: String = t
            .descendants()
            .filter(|d| d.is_text())
            .filter_map(|d| d.text())
            .collect();
        lines
            .entry(at("y"))
            .or_default()
            .push((at("x"), text.trim().to_string()));
    }
    lines
        .into_iter()
        .map(|(y, mut texts)| {
            texts.sort();
            (y, texts.into_iter().map(|t| t.1).collect())
        })
        .collect()
}

/// Morris et al. (2019): a band on each arm's curve; the cumulative incidence in KMunicate's
/// form, its table's counts (competing events in a row of their own) those of results.json.
#[test]
fn each_arm_has_its_band_and_the_incidence_its_kmunicate_table() {
    let b = built(&phase3);
    let figures = cohort_dir(&b.out).join("figures");
    for figure in ["km-pfs.svg", "km-os.svg", "cif-ttp.svg"] {
        let svg = std::fs::read_to_string(figures.join(figure)).expect("figure");
        for colour in ["#0072B2", "#D55E00"] {
            assert!(
                svg.contains(&format!("<polygon fill-opacity=\"0.18\" fill=\"{colour}\"")),
                "{figure}: no band in {colour}"
            );
        }
    }
    let results = read_json(&b.out.join("RAND-EXAMPLE/2023-09-29/results.json"));
    let svg = std::fs::read_to_string(figures.join("cif-ttp.svg")).expect("figure");
    let lines = svg_lines(&svg);
    for (name, pick) in [
        ("At risk", "at_risk"),
        ("Censored", "censored"),
        ("Events", "events"),
        ("Competing", "competing"),
    ] {
        let drawn: Vec<&Vec<String>> = lines
            .iter()
            // A row of the table: its name and numbers (the legend's "Censored" has none).
            .filter(|(_, t)| t.len() > 1 && t.first().map(String::as_str) == Some(name))
            .map(|(_, t)| t)
            .collect();
        assert_eq!(drawn.len(), 2, "{name}: a row per arm");
        for (row, arm) in drawn.iter().zip(0..) {
            let table = results["cohorts"][0]["arms"][arm]["tte"]["TTP"]["cif"]["risk_table"]
                .as_array()
                .expect("the incidence's risk table");
            let expected: Vec<String> = table
                .iter()
                .map(|r| r[pick].as_u64().expect("count").to_string())
                .collect();
            assert_eq!(row[1..].to_vec(), expected, "{name} of arm {arm}");
        }
    }
    // Competing events so far plus censored so far are the Kaplan–Meier table's censored.
    let arm = &results["cohorts"][0]["arms"][1]["tte"]["TTP"];
    for (cif, km) in arm["cif"]["risk_table"]
        .as_array()
        .expect("cif")
        .iter()
        .zip(arm["risk_table"].as_array().expect("km"))
    {
        assert_eq!(
            cif["competing"].as_u64().unwrap() + cif["censored"].as_u64().unwrap(),
            km["censored"].as_u64().unwrap()
        );
        assert_eq!(cif["at_risk"], km["at_risk"]);
    }
}

/// A poster short of room shows the baseline table in its short form (a line a
/// characteristic, as the abstract phrases it) before leaving it out, and says so.
#[test]
fn a_full_poster_shortens_the_baseline_before_it_leaves() {
    let b = built(&|t| {
        phase3(t)
            .replace("  formats: [md]\n", "  formats: [poster]\n")
            .replace(
                "    width: 72\n    height: 48\n",
                "    width: 42\n    height: 48\n",
            )
    });
    assert!(
        b.stderr
            .contains("poster.pptx shows Patients in short form"),
        "{}",
        b.stderr
    );
    let results = read_json(&b.out.join("RAND-EXAMPLE/2023-09-29/results.json"));
    let sex = results["cohorts"][0]["baseline"]
        .as_array()
        .expect("baseline")
        .iter()
        .find(|x| x["column"] == "SEX")
        .expect("SEX")
        .clone();
    let rate = |value: &str| {
        let level = sex["levels"]
            .as_array()
            .expect("levels")
            .iter()
            .find(|l| l["value"] == value)
            .expect("level");
        fixed(100.0 * level["rate"].as_f64().expect("rate"), 1)
    };
    let parts = pptx(&cohort_dir(&b.out).join("poster.pptx"));
    let slide = String::from_utf8(parts["ppt/slides/slide1.xml"].clone()).expect("xml");
    let line = format!("Male/female: {}%/{}%", rate("M"), rate("F"));
    assert!(slide.contains(&line), "{line}");
    assert!(slide.contains(">Patients<"), "the block keeps its heading");
    assert!(
        !slide.contains(">Characteristic<"),
        "the full table is not drawn"
    );
}

/// results.json keeps every warning whole beside its words: `diagnostics[]` has one entry per
/// `warnings[]` entry, in order, with its kind, severity, place and hints (docs/OUTPUTS.md).
#[test]
fn warnings_keep_their_kind_place_and_hint_in_the_results() {
    // A competing value no record has: a warning at the endpoint's key, with a hint.
    let run = built(&|text| phase3(text).replace("values: [death]", "values: [no such event]"));
    let results: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(cohort_dir(&run.out).join("../results.json")).expect("results"),
    )
    .expect("json");
    let mut lists = vec![&results];
    lists.extend(results["cohorts"].as_array().expect("cohorts"));
    let mut kinds = Vec::new();
    for list in lists {
        let words = list["warnings"].as_array().expect("warnings");
        let whole = list["diagnostics"].as_array().expect("diagnostics");
        assert_eq!(words.len(), whole.len(), "{list}");
        for (text, d) in words.iter().zip(whole) {
            assert_eq!(&d["message"], text);
            assert!(["warning", "note"].contains(&d["severity"].as_str().expect("severity")));
            kinds.push(d["kind"].as_str().expect("kind").to_string());
        }
    }
    assert!(!kinds.iter().any(|k| k == "recorded"), "{kinds:?}");
    let competing = results["diagnostics"]
        .as_array()
        .expect("study diagnostics")
        .iter()
        .find(|d| d["kind"] == "rule-not-applied")
        .expect("the competing rule's warning");
    assert_eq!(
        competing["location"],
        serde_json::json!({ "key": "analysis.tte_params.TTP.competing" })
    );
    assert!(
        competing["hints"][0].as_str().is_some_and(
            |h| h.starts_with("check `competing.values` against the values of EVNTDESC")
        ),
        "{competing}"
    );
}
