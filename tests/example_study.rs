//! The example study built end to end with the real binary: `results.json` against the counts
//! published in the three abstracts (`../shared/seeds/`), the abstracts' sentences, snapshots.
//!
//! The expected numbers below are the abstracts' own counts, not readout output. Where an
//! abstract contradicts itself the data follow its counts (docs/EXAMPLE-DATA.md):
//! cohort 1's DCR is 27/38 (13 PR + 14 SD), not the printed 76.32%; cohort 2's grade ≥3
//! hypertension is 3/21 (14.3%), the nearest count to the printed 15.0%.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{readout_command, root, Run};

/// Builds the example study once per test into its own temporary folder.
fn build_example() -> (tempfile::TempDir, PathBuf) {
    let out = tempfile::tempdir().expect("temp dir");
    readout_command()
        .args(["build", "config/altn-ak105-ii-01.yaml", "--quiet", "--out"])
        .arg(out.path())
        .current_dir(root())
        .assert()
        .success();
    let study = out.path().join("ALTN-AK105-II-01");
    (out, study)
}

fn results(study: &Path, cutoff: &str) -> Value {
    let text = std::fs::read_to_string(study.join(cutoff).join("results.json")).expect("results");
    serde_json::from_str(&text).expect("json")
}

fn cohort<'a>(results: &'a Value, id: &str) -> &'a Value {
    results["cohorts"]
        .as_array()
        .expect("cohorts")
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("cohort {id} missing"))
}

/// A cohort's abstract.md, its escaped brackets read as the brackets they show.
fn abstract_md(study: &Path, cutoff: &str, id: &str) -> String {
    std::fs::read_to_string(study.join(cutoff).join(id).join("abstract.md"))
        .expect("abstract")
        .replace("\\[", "[")
        .replace("\\]", "]")
}

fn term<'a>(c: &'a Value, name: &str) -> &'a Value {
    c["safety"]["by_term"]
        .as_array()
        .expect("by_term")
        .iter()
        .find(|t| t["term"] == name)
        .unwrap_or_else(|| panic!("term {name} missing"))
}

fn level(c: &Value, column: &str, value: &str) -> u64 {
    c["baseline"]
        .as_array()
        .expect("baseline")
        .iter()
        .find(|b| b["column"] == column)
        .and_then(|b| b["levels"].as_array())
        .and_then(|l| l.iter().find(|x| x["value"] == value))
        .and_then(|x| x["n"].as_u64())
        .unwrap_or(0)
}

#[test]
fn cohort_1_hnscc_reproduces_the_abstract_counts() {
    let (_tmp, study) = build_example();
    let r = results(&study, "2022-01-06");
    let c = cohort(&r, "cohort-1");
    assert_eq!(c["cutoff"], "2022-01-06");
    assert_eq!(c["n"]["enrolled"], 38);
    assert_eq!(c["enrolment"]["first"], "2020-06-01");
    assert_eq!(c["enrolment"]["last"], "2021-11-22");
    assert_eq!(c["enrolment"]["centres"], 8);
    for (site, n) in [
        ("Oral cavity", 15),
        ("Oropharynx", 6),
        ("Hypopharynx", 4),
        ("Larynx", 10),
        ("Other", 3),
    ] {
        assert_eq!(level(c, "PRIMSITE", site), n, "{site}");
    }
    let bor = &c["response"]["bor"];
    assert_eq!(
        (bor["CR"].as_u64(), bor["PR"].as_u64(), bor["SD"].as_u64()),
        (Some(0), Some(13), Some(14))
    );
    assert_eq!(c["response"]["orr"]["n"], 13);
    assert_eq!(c["response"]["dcr"]["n"], 27);
    assert_eq!(c["tte"]["PFS"]["events"], 17);
    assert_eq!(c["tte"]["OS"]["events"], 9);
    assert!(
        c["tte"]["OS"]["median"]["estimate"].is_null(),
        "median OS not reached"
    );
    assert!(
        c["tte"]["DOR"]["median"]["estimate"].is_null(),
        "median DoR not reached"
    );
    assert_eq!(c["safety"]["trae"]["any"], 34);
    assert_eq!(c["safety"]["trae"]["grade3plus"], 15);
    assert_eq!(term(c, "Hypertension")["trae_any"], 11);
    assert_eq!(term(c, "Hypothyroidism")["trae_any"], 11);
    let max_other = c["safety"]["by_term"]
        .as_array()
        .expect("terms")
        .iter()
        .filter(|t| t["term"] != "Hypertension" && t["term"] != "Hypothyroidism")
        .filter_map(|t| t["trae_any"].as_u64())
        .max();
    assert!(
        max_other < Some(11),
        "hypertension and hypothyroidism are the most common TRAEs"
    );

    let text = abstract_md(&study, "2022-01-06", "cohort-1");
    for sentence in [
        "From June 1, 2020 to November 22, 2021, 38 pts were enrolled in 8 centers in China (",
        "primary tumor site: oral cavity 15/38 [39.47%], larynx 10/38 [26.32%]",
        "13 pts achieved confirmed partial response; the confirmed ORR was 34.21% (13/38;",
        "Stable disease was observed in 14 pts, giving a DCR of 71.05% (27/38;",
        "Nine pts (23.68%) died and the median OS was not reached",
        "Seventeen PFS events (44.74%) occurred",
        "occurred in 34 pts (89.47%) and grade ≥3 TRAEs in 15 (39.47%)",
        "hypertension (11/38, 28.95%) and hypothyroidism (11/38, 28.95%)",
        "Clinical trial information:** NCT04203719",
    ] {
        assert!(
            text.contains(sentence),
            "cohort 1 abstract lacks {sentence:?}:\n{text}"
        );
    }
}

#[test]
fn cohort_2_non_scchn_reproduces_the_abstract_counts() {
    let (_tmp, study) = build_example();
    let r = results(&study, "2022-10-20");
    let c = cohort(&r, "cohort-2");
    assert_eq!(c["n"]["enrolled"], 21);
    assert_eq!(c["enrolment"]["first"], "2020-05-21");
    assert_eq!(c["enrolment"]["last"], "2020-10-14");
    assert_eq!(c["enrolment"]["centres"], 7);
    assert_eq!(level(c, "PRIMSITE", "Salivary gland"), 15);
    assert_eq!(level(c, "HISTOL", "Adenoid cystic carcinoma"), 7);
    assert_eq!(level(c, "HISTOL", "Duct carcinoma"), 4);
    assert_eq!(level(c, "METAST", "Y"), 15);
    assert_eq!(level(c, "PRIORCHEMO", "Y"), 12);
    let bor = &c["response"]["bor"];
    assert_eq!(
        (bor["PR"].as_u64(), bor["SD"].as_u64()),
        (Some(4), Some(17))
    );
    assert_eq!(c["response"]["orr"]["n"], 4);
    assert_eq!(c["response"]["dcr"]["n"], 21);
    assert_eq!(c["response"]["dcr"]["rate"], 1.0);
    assert_eq!(c["tte"]["PFS"]["events"], 9);
    assert_eq!(c["followup"]["param"], "PFS");
    // Collett CIs are symmetric around the estimate unless truncated at 0.
    let m = &c["tte"]["PFS"]["median"];
    let (est, lo, hi) = (
        m["estimate"].as_f64().expect("median"),
        m["lower"].as_f64().expect("lower"),
        m["upper"].as_f64().expect("upper"),
    );
    assert!(lo == 0.0 || ((est - lo) - (hi - est)).abs() < 1e-9, "{m}");
    assert_eq!(c["safety"]["trae"]["grade3plus"], 14);
    assert_eq!(c["safety"]["trae"]["fatal"], 0);
    assert_eq!(term(c, "Hypertension")["trae_grade3plus"], 3);

    let text = abstract_md(&study, "2022-10-20", "cohort-2");
    for sentence in [
        "From May 21, 2020 to October 14, 2020, 21 pts were enrolled in 7 centers in China (",
        "primary tumor site: salivary gland 15/21 [71.4%]",
        "pathological type: adenoid cystic carcinoma 7/21 [33.3%], duct carcinoma 4/21 [19.0%]",
        "distant metastases 15/21 [71.4%]; prior chemotherapy 12/21 [57.1%]",
        "4 pts achieved confirmed partial response; the confirmed ORR was 19.0% (4/21;",
        "observed in 17 pts, giving a DCR of 100.0% (21/21;",
        "The median follow-up for PFS was",
        "Nine PFS events (42.9%) occurred",
        "grade ≥3 TRAEs in 14 (66.7%)",
        "The most common grade ≥3 TRAE was hypertension (3/21, 14.3%).",
        // The seed says no treatment-related death; no grade 4 or 5 TRAE says more.
        "No grade 4 or 5 TRAE occurred.",
    ] {
        assert!(
            text.contains(sentence),
            "cohort 2 abstract lacks {sentence:?}:\n{text}"
        );
    }
}

#[test]
fn cohort_4_sclc_reproduces_the_abstract_counts() {
    let (_tmp, study) = build_example();
    let r = results(&study, "2021-01-25");
    let c = cohort(&r, "cohort-4");
    assert_eq!(c["n"]["enrolled"], 20);
    let age = c["baseline"]
        .as_array()
        .expect("baseline")
        .iter()
        .find(|b| b["column"] == "AGE")
        .expect("age");
    assert_eq!(age["stats"]["median"], 61.0);
    assert_eq!(age["stats"]["min"], 37.0);
    assert_eq!(age["stats"]["max"], 75.0);
    assert_eq!(level(c, "ECOG", "0"), 1);
    assert_eq!(level(c, "ECOG", "1"), 19);
    assert_eq!(level(c, "SEX", "M"), 13);
    assert_eq!(level(c, "SEX", "F"), 7);
    assert_eq!(level(c, "ANLDOSE", "12"), 17);
    assert_eq!(level(c, "ANLDOSE", "10"), 3);
    let bor = &c["response"]["bor"];
    assert_eq!(
        (bor["CR"].as_u64(), bor["PR"].as_u64(), bor["SD"].as_u64()),
        (Some(1), Some(9), Some(5))
    );
    assert_eq!(c["response"]["orr"]["n"], 10);
    assert_eq!(c["response"]["orr"]["rate"], 0.5);
    assert_eq!(c["response"]["dcr"]["n"], 15);
    assert_eq!(c["tte"]["PFS"]["events"], 9);
    assert!(
        c["tte"]["PFS"]["median"]["upper"].is_null(),
        "upper limit not reached"
    );
    assert_eq!(c["safety"]["trae"]["grade3plus"], 6);
    assert_eq!(c["safety"]["trae"]["grade4plus"], 0);
    for (name, n) in [
        ("Hypertension", 2),
        ("Hypertriglyceridaemia", 1),
        ("Gamma-glutamyltransferase increased", 1),
        ("Palmar-plantar erythrodysaesthesia syndrome", 1),
        ("Hyponatraemia", 1),
    ] {
        assert_eq!(term(c, name)["trae_grade3plus"], n, "{name}");
    }
    let text = abstract_md(&study, "2021-01-25", "cohort-4");
    for sentence in [
        // The seed: "median age was 61 [range:37–75] years old, Eastern Cooperative Oncology
        // Group performance status 0/1 [5%/95%], male/female [65%/35%]".
        "20 pts were enrolled in 6 centers in China (median age 61 years [range 37–75]; \
         ECOG performance status 0/1: 5%/95%; male/female: 65%/35%; \
         anlotinib starting dose 10/12 mg: 15%/85%).",
        "1 pt achieved confirmed complete response and 9 pts achieved confirmed partial response; the confirmed ORR was 50.0% (10/20;",
        "giving a DCR of 75.0% (15/20;",
        // The seed: "9 PFS events (45%) had occurred".
        "Nine PFS events (45.0%) occurred",
        "Four pts (20.0%) died",
        // The seed lists the grade 3 TRAEs by term and says no grade 4 or 5 occurred.
        "grade ≥3 TRAEs in 6 (30.0%): hypertension in 2; gamma-glutamyltransferase increased, \
         hypertriglyceridaemia, hyponatraemia and palmar-plantar erythrodysaesthesia syndrome \
         in 1 each.",
        "No grade 4 or 5 TRAE occurred.",
    ] {
        assert!(text.contains(sentence), "cohort 4 abstract lacks {sentence:?}:\n{text}");
    }
    assert!(
        !text.contains("most common grade ≥3"),
        "listed, not the most common:\n{text}"
    );
}

/// Prose as a medical writer writes it, in every example abstract (the randomised one too): no
/// sentence opens with a numeral, no raw code of a decoded column reaches the text, and a count
/// of one takes the singular.
#[test]
fn abstract_sentences_open_with_words() {
    let (_tmp, study) = build_example();
    let mut texts: Vec<String> = [
        ("2022-01-06", "cohort-1"),
        ("2022-10-20", "cohort-2"),
        ("2021-01-25", "cohort-4"),
    ]
    .iter()
    .map(|(cutoff, id)| {
        std::fs::read_to_string(study.join(cutoff).join(id).join("abstract.txt")).expect("txt")
    })
    .collect();
    let out = tempfile::tempdir().expect("temp dir");
    readout_command()
        .args(["build", "config/rand-example.yaml", "--quiet", "--out"])
        .arg(out.path())
        .current_dir(root())
        .assert()
        .success();
    texts.push(
        std::fs::read_to_string(out.path().join("RAND-EXAMPLE/2023-09-29/itt/abstract.txt"))
            .expect("txt"),
    );
    for text in &texts {
        let body = readout::documents::conference::split_title(text).1;
        for sentence in readout::documents::conference::sentences(body) {
            let first = sentence.trim_start_matches(|c: char| !c.is_alphanumeric());
            assert!(
                !first.starts_with(|c: char| c.is_ascii_digit()),
                "a sentence opens with a numeral: {sentence:?}"
            );
        }
        for raw in [" M 13/", " F 7/", "Sex: M", " 1 pt were", " 1 pts"] {
            assert!(!text.contains(raw), "{raw:?} in:\n{text}");
        }
    }
}

#[test]
fn abstracts_snapshots() {
    let (_tmp, study) = build_example();
    for (cutoff, id) in [
        ("2022-01-06", "cohort-1"),
        ("2022-10-20", "cohort-2"),
        ("2021-01-25", "cohort-4"),
    ] {
        insta::assert_snapshot!(format!("abstract-{id}"), abstract_md(&study, cutoff, id));
    }
}

#[test]
fn outputs_follow_the_spec_layout() {
    let (_tmp, study) = build_example();
    let folder = study.join("2022-01-06");
    for file in [
        "results.json",
        "manifest.json",
        "derived/cohort-1.csv",
        "cohort-1/abstract.md",
        "cohort-1/abstract.html",
        "cohort-1/figures/km-pfs.svg",
        "cohort-1/figures/km-os.svg",
        "cohort-1/figures/waterfall.svg",
        "cohort-1/figures/km-pfs.png",
    ] {
        assert!(folder.join(file).is_file(), "{file} missing");
    }
    let html = std::fs::read_to_string(folder.join("cohort-1/abstract.html")).expect("html");
    assert!(html.contains("<svg"), "the PFS figure is inline");
    assert!(
        !html.contains("<link") && !html.contains("src=\"http"),
        "self-contained"
    );
    let derived = std::fs::read_to_string(folder.join("derived/cohort-1.csv")).expect("derived");
    let header = derived.lines().next().expect("header");
    assert!(
        header.starts_with("USUBJID,BOR,PFS_AVAL,PFS_CNSR,OS_AVAL,OS_CNSR,DOR_AVAL,DOR_CNSR"),
        "{header}"
    );
    assert_eq!(derived.lines().count(), 39, "one row per subject");
    // The abstract's counts come from these rows.
    let pr = derived
        .lines()
        .filter(|l| l.split(',').nth(1) == Some("PR"))
        .count();
    assert_eq!(pr, 13);
    // Manifest: every output listed with its hash.
    let manifest: Value = serde_json::from_str(
        &std::fs::read_to_string(folder.join("manifest.json")).expect("manifest"),
    )
    .expect("json");
    let outputs = manifest["outputs"].as_array().expect("outputs");
    assert!(outputs.iter().any(|o| o["path"] == "cohort-1/abstract.md"));
    assert!(outputs
        .iter()
        .all(|o| o["sha256"].as_str().map(str::len) == Some(64)));
}

#[test]
fn the_same_inputs_give_byte_identical_outputs() {
    let (_a, first) = build_example();
    let (_b, second) = build_example();
    for file in [
        "results.json",
        "cohort-1/abstract.html",
        "cohort-1/figures/km-pfs.svg",
        "derived/cohort-1.csv",
    ] {
        let x = std::fs::read(first.join("2022-01-06").join(file)).expect("first");
        let y = std::fs::read(second.join("2022-01-06").join(file)).expect("second");
        assert!(x == y, "{file} differs between two builds");
    }
}

/// The SHA-256 of every file the example study writes, against
/// `tests/reference/example-outputs.sha256` ([`crate::common::assert_golden`]): a change that
/// is meant to leave the outputs alone (a refactoring) must leave every byte.
#[test]
fn outputs_match_the_recorded_hashes() {
    let (_out, study) = build_example();
    crate::common::assert_golden(&study, "example-outputs.sha256");
}

/// Every text of every figure the build writes (with its title, description and `role`) is
/// drawn from glyph masks in its PNG, and every bar, grid line, tick, step curve and
/// confidence band (each rectangle but the background, each polyline or polygon of horizontal
/// and vertical sides) is filled straight into the pixels, and every figure but the spider
/// plot is drawn a band of rows at a time: nothing added to a written figure may send them
/// back to usvg's slow path (the accessibility attributes once did, unnoticed).
#[test]
fn written_figures_keep_their_text_on_the_glyph_path() {
    let (_out, study) = build_example();
    let mut figures = 0;
    for path in crate::common::files_under(&study) {
        if path.extension().is_none_or(|e| e != "svg") {
            continue;
        }
        let svg = std::fs::read_to_string(&path).expect("read");
        assert!(svg.contains("role=\"img\""), "{}", path.display());
        let texts = svg.matches("<text").count();
        assert!(texts > 0, "{}", path.display());
        assert_eq!(
            readout::plots::glyph_drawn_texts(&svg),
            texts,
            "{}",
            path.display()
        );
        // Elements of a kind whose sides are all horizontal or vertical (a polygon's closing
        // side too).
        let aligned = |tag: &str, closed: bool| {
            svg.split(tag)
                .skip(1)
                .filter(|e| {
                    let points = e.split("points=\"").nth(1).expect("points");
                    let mut xy: Vec<(&str, &str)> = points[..points.find('"').expect("end")]
                        .split_whitespace()
                        .map(|p| p.split_once(',').expect("x,y"))
                        .collect();
                    if closed {
                        xy.push(xy[0]);
                    }
                    xy.windows(2).all(|w| w[0].0 == w[1].0 || w[0].1 == w[1].1)
                })
                .count()
        };
        let shapes = svg.matches("<rect").count() - 1
            + aligned("<polyline", false)
            + aligned("<polygon", true);
        assert!(shapes > 0, "{}", path.display());
        assert_eq!(
            readout::plots::pixel_filled_shapes(&svg),
            shapes,
            "{}",
            path.display()
        );
        // Drawn a band of rows at a time, the swimmer plot's markers as well; the spider
        // plot's lines reach across it, so it is drawn whole.
        let spider = path.file_stem().is_some_and(|s| s == "spider");
        assert_eq!(
            readout::plots::drawn_in_bands(&svg),
            !spider,
            "{}",
            path.display()
        );
        figures += 1;
    }
    assert_eq!(figures, 21);
}
