//! Hostile input, fifth round (issue 66; docs/BAD-INPUT.md, "fifth round"): competing
//! events in edge data, keys inside mappings, arm names, adverse-event dictionaries at scale,
//! unmatched groups and horizons, the ADSL filter, formulas in ard.csv, `readout diff`'s
//! records, the poster's limits, Excel's cell limit and `null`. Each test runs the binary on
//! the user's input and checks the safe outcome. Most start from a copy of the synthetic
//! randomised example (`data/rand-example`).

use std::path::{Path, PathBuf};

use crate::common::{build, read_json, readout, root};

/// The randomised example's data copied into `dir` (each file through `edit`, by name) and
/// `config` written beside them; the config's path.
fn rand_study(dir: &Path, edit: &dyn Fn(&str, String) -> String, config: &str) -> PathBuf {
    for file in ["adsl.csv", "adrs.csv", "adtte.csv", "adae.csv"] {
        let text = std::fs::read_to_string(root().join("data/rand-example").join(file))
            .expect("example data");
        std::fs::write(dir.join(file), edit(file, text)).expect("write data");
    }
    let path = dir.join("study.yaml");
    std::fs::write(&path, config).expect("write config");
    path
}

/// No edit.
fn as_is(_: &str, text: String) -> String {
    text
}

/// The example's study, data and arms, then `rest` (more top-level keys).
fn rand_config(analysis: &str, cohort: &str, rest: &str) -> String {
    format!(
        "study: {{ id: R5 }}\ndata: {{ adsl: adsl.csv, adrs: adrs.csv, adtte: adtte.csv, adae: adae.csv }}\n\
         analysis:\n  tte_params: {{ PFS: PFS, OS: OS }}\n{analysis}\
         cohorts:\n  - id: itt\n    arms: {{ column: ARM, reference: \"Placebo + chemo\" }}\n{cohort}{rest}"
    )
}

/// Rows of a CSV text as maps by header.
fn rows(text: &str) -> Vec<std::collections::BTreeMap<String, String>> {
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let header: Vec<String> = reader
        .headers()
        .expect("header")
        .iter()
        .map(str::to_string)
        .collect();
    reader
        .records()
        .map(|r| {
            header
                .iter()
                .cloned()
                .zip(r.expect("row").iter().map(str::to_string))
                .collect()
        })
        .collect()
}

/// A CSV text with `column` of the rows `pick` chooses set to `value`.
fn set_column(
    text: &str,
    column: &str,
    pick: &dyn Fn(&std::collections::BTreeMap<String, String>) -> bool,
    value: &str,
) -> String {
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let header: Vec<String> = reader
        .headers()
        .expect("header")
        .iter()
        .map(str::to_string)
        .collect();
    let at = header.iter().position(|h| h == column).expect("column");
    let mut out = csv::Writer::from_writer(Vec::new());
    out.write_record(&header).expect("header");
    for record in reader.records() {
        let mut cells: Vec<String> = record.expect("row").iter().map(str::to_string).collect();
        let row = header.iter().cloned().zip(cells.iter().cloned()).collect();
        if pick(&row) {
            cells[at] = value.to_string();
        }
        out.write_record(&cells).expect("row");
    }
    String::from_utf8(out.into_inner().expect("csv")).expect("utf-8")
}

/// The subjects of ADSL's arm `arm`.
fn subjects_of(arm: &str) -> std::collections::BTreeSet<String> {
    let adsl = std::fs::read_to_string(root().join("data/rand-example/adsl.csv")).expect("adsl");
    rows(&adsl)
        .into_iter()
        .filter(|r| r["ARM"] == arm)
        .map(|r| r["USUBJID"].clone())
        .collect()
}

/// `readout check CONFIG`: its exit code and stderr.
fn check(config: &Path) -> (Option<i32>, String) {
    let run = readout(&["check", config.to_str().expect("path")]);
    run.assert_no_panic();
    (run.code, run.stderr)
}

const TTP: &str = "  tte_params: { PFS: PFS, OS: OS, TTP: { paramcd: PFS, label: \"time to progression\", competing: { column: EVNTDESC, values: [VALUES] } } }\n";

/// A competing-risk endpoint builds when the reference arm has no competing event before
/// the event of interest (its incidence summed to 1.0000000000000004 and the whole cohort
/// failed), when the values match no record, and compares values without case beyond ASCII.
#[test]
fn a_competing_endpoint_builds_on_ordinary_edge_data() {
    let placebo = subjects_of("Placebo + chemo");
    // Placebo's deaths before progression become progressions: no competing event there.
    let no_competing = |file: &str, text: String| {
        if file != "adtte.csv" {
            return text;
        }
        set_column(
            &text,
            "EVNTDESC",
            &|r| {
                r["PARAMCD"] == "PFS" && r["EVNTDESC"] == "DEATH" && placebo.contains(&r["USUBJID"])
            },
            "DISEASE PROGRESSION",
        )
    };
    for (name, values, edit) in [
        (
            "no competing event in one arm",
            "DEATH",
            &no_competing as &dyn Fn(&str, String) -> String,
        ),
        ("values no record holds", "NOSUCH", &as_is),
    ] {
        let tmp = tempfile::tempdir().expect("temp dir");
        let config = rand_config("", "", "");
        let config = config.replace(
            "  tte_params: { PFS: PFS, OS: OS }\n",
            &TTP.replace("VALUES", values),
        );
        let path = rand_study(tmp.path(), edit, &config);
        let out = tmp.path().join("out");
        let run = build(&path, &out, &[]);
        assert_eq!(run.code, Some(0), "{name}: {}", run.stderr);
        let folder = out.join("R5/no-cutoff");
        assert!(folder.join("itt/figures/cif-ttp.svg").is_file(), "{name}");
        let results = read_json(&folder.join("results.json"));
        for arm in results["cohorts"][0]["arms"].as_array().expect("arms") {
            for l in arm["tte"]["TTP"]["cif"]["landmarks"]
                .as_array()
                .expect("cif")
            {
                let e = l["estimate"].as_f64().expect("estimate");
                assert!((0.0..=1.0).contains(&e), "{name}: {e}");
            }
        }
        if values == "NOSUCH" {
            assert!(
                run.stderr
                    .contains("no `PFS` record with CNSR 0 has EVNTDESC `NOSUCH`")
                    && run.stderr.contains("1 − Kaplan–Meier"),
                "{}",
                run.stderr
            );
        }
    }
    // `DÉCÈS` in the config finds `décès` in the data: the cause-specific TTP then has fewer
    // events than PFS, which keeps deaths as events.
    let tmp = tempfile::tempdir().expect("temp dir");
    let french = |file: &str, text: String| {
        if file == "adtte.csv" {
            text.replace(",DEATH,", ",décès,")
        } else {
            text
        }
    };
    let config = rand_config("", "", "").replace(
        "  tte_params: { PFS: PFS, OS: OS }\n",
        &TTP.replace("VALUES", "DÉCÈS"),
    );
    let path = rand_study(tmp.path(), &french, &config);
    let out = tmp.path().join("out");
    let run = build(&path, &out, &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(!run.stderr.contains("no competing event"), "{}", run.stderr);
    let results = read_json(&out.join("R5/no-cutoff/results.json"));
    let tte = &results["cohorts"][0]["tte"];
    let deaths =
        rows(&std::fs::read_to_string(root().join("data/rand-example/adtte.csv")).expect("adtte"))
            .iter()
            .filter(|r| r["PARAMCD"] == "PFS" && r["EVNTDESC"] == "DEATH" && r["CNSR"] == "0")
            .count() as u64;
    assert!(deaths > 0);
    assert_eq!(
        tte["TTP"]["events"].as_u64().expect("TTP events") + deaths,
        tte["PFS"]["events"].as_u64().expect("PFS events")
    );
}

/// A misspelt key inside a mapping is an error at its line with the nearest key, wherever
/// the mapping is (it was dropped, and the endpoint silently lost its competing events or
/// censoring).
#[test]
fn misspelt_keys_inside_mappings_are_errors() {
    let cases = [
        (
            rand_config(
                &TTP.replace("VALUES", "DEATH").replace("competing:", "competting:"),
                "",
                "",
            )
            .replace("  tte_params: { PFS: PFS, OS: OS }\n", ""),
            "analysis.tte_params.TTP.competting",
            Some("competing"),
        ),
        (
            rand_config("  tte_params: { PFS: { paramcd: PFS, cencor: cutoff } }\n", "", "")
                .replacen("  tte_params: { PFS: PFS, OS: OS }\n", "", 1),
            "analysis.tte_params.PFS.cencor",
            Some("censor"),
        ),
        (
            rand_config("  tte_params: { PFS: { paramcd: PFS, lable: progression } }\n", "", "")
                .replacen("  tte_params: { PFS: PFS, OS: OS }\n", "", 1),
            "analysis.tte_params.PFS.lable",
            Some("label"),
        ),
        (
            rand_config("", "", "").replace(
                "reference: \"Placebo + chemo\" }",
                "reference: \"Placebo + chemo\", labels: { \"Drug X + chemo\": { label: Drug X, colour: red } } }",
            ),
            "cohorts[0].arms.labels.Drug X + chemo.colour",
            None,
        ),
        (
            rand_config("", "", "").replace(
                "data: { adsl: adsl.csv,",
                "data: { disposition: { treatment: { status: EOTSTT, reasn: DCTREAS } }, adsl: adsl.csv,",
            ),
            "data.disposition.treatment.reasn",
            Some("reason"),
        ),
        (
            rand_config("", "    subgroups: [ { column: SEX, lable: Sex } ]\n", ""),
            "cohorts[0].subgroups[0].lable",
            Some("label"),
        ),
    ];
    for (config, key, nearest) in cases {
        let tmp = tempfile::tempdir().expect("temp dir");
        let path = rand_study(tmp.path(), &as_is, &config);
        let (code, stderr) = check(&path);
        assert_eq!(code, Some(2), "{key}: {stderr}");
        assert!(stderr.contains(&format!("key `{key}`")), "{key}: {stderr}");
        assert!(stderr.contains("line "), "{key}: {stderr}");
        if let Some(nearest) = nearest {
            assert!(
                stderr.contains(&format!("did you mean `{nearest}`?")),
                "{key}: {stderr}"
            );
        }
    }
}

/// Two arms named alike, or an arm named by a blank, are refused at `arms.labels`.
#[test]
fn arms_named_alike_or_blank_are_refused() {
    for (labels, says) in [
        (
            "{ \"Drug X + chemo\": { label: Drug X, short: Same }, \"Placebo + chemo\": { label: Placebo, short: \" same\" } }",
            "have the same short name \"same\"",
        ),
        (
            "{ \"Drug X + chemo\": \"Placebo + chemo\" }",
            "have the same label \"Placebo + chemo\"",
        ),
        ("{ \"Drug X + chemo\": \"  \" }", "is empty or blank"),
    ] {
        let tmp = tempfile::tempdir().expect("temp dir");
        let config = rand_config("", "", "").replace(
            "reference: \"Placebo + chemo\" }",
            &format!("reference: \"Placebo + chemo\", labels: {labels} }}"),
        );
        let path = rand_study(tmp.path(), &as_is, &config);
        let (code, stderr) = check(&path);
        assert_eq!(code, Some(2), "{labels}: {stderr}");
        assert!(stderr.contains("arms.labels"), "{stderr}");
        assert!(stderr.contains(says), "{labels}: {stderr}");
    }
}

/// An ADAE of `terms` terms, one subject each (the first `terms` subjects of ADSL), all grade 3
/// and related.
fn one_subject_per_term(terms: usize) -> String {
    let adsl = std::fs::read_to_string(root().join("data/rand-example/adsl.csv")).expect("adsl");
    // Safety subjects only: events of others are not counted.
    let subjects: Vec<String> = rows(&adsl)
        .into_iter()
        .filter(|r| r["SAFFL"] == "Y")
        .map(|r| r["USUBJID"].clone())
        .collect();
    let mut text = "USUBJID,AEDECOD,AEBODSYS,ATOXGR,AEREL,TRTEMFL\n".to_string();
    for i in 0..terms {
        text.push_str(&format!(
            "{},Term {i:05},Class {},3,RELATED,Y\n",
            subjects[i % subjects.len()],
            i % 20
        ));
    }
    text
}

/// Sixty grade ≥3 terms of one patient each are not sixty "most common" terms: the abstract
/// says how many there are and in how many patients each.
#[test]
fn tied_terms_are_summarised_not_listed() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let edit = |file: &str, text: String| {
        if file == "adae.csv" {
            one_subject_per_term(60)
        } else {
            text
        }
    };
    let config =
        "study: { id: R5 }\ndata: { adsl: adsl.csv, adae: adae.csv }\ncohorts:\n  - id: all\n";
    let path = rand_study(tmp.path(), &edit, config);
    let out = tmp.path().join("out");
    let run = build(&path, &out, &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let text =
        std::fs::read_to_string(out.join("R5/no-cutoff/all/abstract.txt")).expect("abstract");
    assert!(
        text.contains("60 TRAE terms were the most common, each in 1 pt (0.3%)."),
        "{text}"
    );
    assert!(
        text.contains("60 grade ≥3 TRAE terms were the most common, each in 1 pt (0.3%)."),
        "{text}"
    );
    assert!(!text.contains("term 00059"), "{text}");
    // Every number of the sentence is traced.
    let numbers = std::fs::read_to_string(out.join("R5/no-cutoff/all/abstract-numbers.csv"))
        .expect("numbers");
    assert!(
        numbers.lines().any(|l| l.contains(",0.3%,")
            && l.contains("/cohorts/0/safety/by_term/")
            && l.ends_with(",pct_of")),
        "{numbers}"
    );
}

/// More preferred terms than a table can hold: results.json keeps every term, the documents
/// list the 5,000 most frequent with a warning, and the comparison of two arms is built.
#[test]
fn terms_past_the_listing_limit_are_kept_in_results_and_cut_in_documents() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let edit = |file: &str, text: String| {
        if file == "adae.csv" {
            one_subject_per_term(6_000)
        } else {
            text
        }
    };
    let config = rand_config("", "", "output: { formats: [md, html, xlsx] }\n");
    let path = rand_study(tmp.path(), &edit, &config);
    let out = tmp.path().join("out");
    let run = build(&path, &out, &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("the documents list the 5,000 most frequent of the cohort's 6,000"),
        "{}",
        run.stderr
    );
    let folder = out.join("R5/no-cutoff");
    let results = read_json(&folder.join("results.json"));
    let cohort = &results["cohorts"][0];
    assert_eq!(
        cohort["safety"]["by_term"].as_array().expect("terms").len(),
        6_000
    );
    // The comparison has a row per term (and the kinds before them).
    let rows = cohort["comparisons"][0]["safety"]["rows"]
        .as_array()
        .expect("rows");
    assert_eq!(rows.iter().filter(|r| r["term"].is_string()).count(), 6_000);
    let report = std::fs::read_to_string(folder.join("itt/report.html")).expect("report");
    let listed = (0..6_000)
        .filter(|i| report.contains(&format!("Term {i:05}<")))
        .count();
    assert_eq!(listed, 5_000);
}

/// Special-interest groups naming what no record holds say so; two groups of one label and
/// an RMST horizon of an endpoint the cohort lacks are refused at their keys.
#[test]
fn unmatched_groups_and_horizons_are_said_or_refused() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let config = rand_config(
        "  ae_special_interest:\n    - { label: Infections, terms: [Pnuemonia] }\n    - { label: Eyes, body_system: \"Eye disordrs\" }\n",
        "",
        "",
    );
    let path = rand_study(tmp.path(), &as_is, &config);
    let out = tmp.path().join("out");
    let run = build(&path, &out, &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    for said in [
        "adverse events of special interest `Infections`: no ADAE record has AEDECOD `Pnuemonia`",
        "adverse events of special interest `Eyes`: no ADAE record has AEBODSYS `Eye disordrs`",
    ] {
        assert!(run.stderr.contains(said), "{}", run.stderr);
    }
    for (analysis, key, says) in [
        (
            "  ae_special_interest:\n    - { label: Infections, terms: [Pneumonia] }\n    - { label: infections, terms: [Sepsis] }\n",
            "analysis.ae_special_interest[1]",
            "is also group 0's",
        ),
        ("  rmst_tau: { XYZ: 12 }\n", "analysis.rmst_tau.XYZ", "is not an endpoint of cohort `itt`"),
        ("  rmst_tau: { pfs: 12 }\n", "analysis.rmst_tau.pfs", "did you mean `PFS`?"),
        ("  rmst_tau: 1e-300\n", "analysis.rmst_tau", "prints as 0"),
    ] {
        let tmp = tempfile::tempdir().expect("temp dir");
        let path = rand_study(tmp.path(), &as_is, &rand_config(analysis, "", ""));
        let (code, stderr) = check(&path);
        assert_eq!(code, Some(2), "{key}: {stderr}");
        assert!(stderr.contains(&format!("key `{key}`")) && stderr.contains(says), "{key}: {stderr}");
    }
    // A competing endpoint has no restricted mean.
    let tmp = tempfile::tempdir().expect("temp dir");
    let config = rand_config("  rmst_tau: { TTP: 12 }\n", "", "").replace(
        "  tte_params: { PFS: PFS, OS: OS }\n",
        &TTP.replace("VALUES", "DEATH"),
    );
    let path = rand_study(tmp.path(), &as_is, &config);
    let (code, stderr) = check(&path);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("`TTP` has competing events"), "{stderr}");
}

/// An ADSL filter defines the population: the other tables' rows of the subjects it left out
/// are left out with them and counted, not refused as subjects "not in ADSL".
#[test]
fn an_adsl_filter_leaves_the_other_tables_rows_of_its_subjects_out() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let config = rand_config("", "", "").replace(
        "adae: adae.csv }",
        "adae: adae.csv, where: { adsl: { SEX: M } } }",
    );
    let path = rand_study(tmp.path(), &as_is, &config);
    let out = tmp.path().join("out");
    let run = build(&path, &out, &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    // Counted by hand from the files.
    let adsl = rows(&std::fs::read_to_string(tmp.path().join("adsl.csv")).expect("adsl"));
    let women: std::collections::BTreeSet<String> = adsl
        .iter()
        .filter(|r| r["SEX"] != "M")
        .map(|r| r["USUBJID"].clone())
        .collect();
    let of_women = |file: &str| {
        rows(&std::fs::read_to_string(tmp.path().join(file)).expect("data"))
            .iter()
            .filter(|r| women.contains(&r["USUBJID"]))
            .count() as u64
    };
    let results = read_json(&out.join("R5/no-cutoff/results.json"));
    let cohort = &results["cohorts"][0];
    assert_eq!(
        cohort["n"]["enrolled"].as_u64(),
        Some((adsl.len() - women.len()) as u64)
    );
    for kept in cohort["row_filters"].as_array().expect("row filters") {
        let dataset = kept["dataset"].as_str().expect("dataset");
        if dataset == "adsl" {
            assert_eq!(kept["dropped"].as_u64(), Some(women.len() as u64));
        } else {
            assert_eq!(
                kept["of_subjects_left_out"].as_u64(),
                Some(of_women(&format!("{dataset}.csv"))),
                "{dataset}"
            );
        }
    }
}

/// ard.csv is for people to open: no cell a spreadsheet would run as a formula.
#[test]
fn ard_csv_holds_no_live_formula() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let edit = |file: &str, text: String| {
        if file == "adae.csv" {
            set_column(&text, "AEDECOD", &|r| r["AEDECOD"] == "Cough", "=1+1")
        } else {
            text
        }
    };
    let config = rand_config("", "", "output: { formats: [md, ard] }\n");
    let path = rand_study(tmp.path(), &edit, &config);
    let out = tmp.path().join("out");
    let run = build(&path, &out, &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let ard = std::fs::read_to_string(out.join("R5/no-cutoff/itt/ard.csv")).expect("ard");
    let mut reader = csv::Reader::from_reader(ard.as_bytes());
    let mut neutralised = 0;
    for record in reader.records() {
        for cell in record.expect("row").iter() {
            let live =
                cell.starts_with(['=', '+', '-', '@', '\t', '\r']) && cell.parse::<f64>().is_err();
            assert!(!live, "a live formula: {cell}");
            neutralised += usize::from(cell == "'=1+1");
        }
    }
    assert!(neutralised > 0, "the term is not in ard.csv");
}

/// `readout diff` reads its records files by their header, refuses control characters in
/// them and compares no times of two units.
#[test]
fn diff_trusts_no_records_file_and_no_unit() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let path = rand_study(
        tmp.path(),
        &as_is,
        &rand_config("", "", "output: { formats: [md] }\n"),
    );
    let out = tmp.path().join("out");
    for cutoff in ["2023-03-31", "2023-09-29"] {
        let run = build(&path, &out, &["--cutoff", cutoff]);
        assert_eq!(run.code, Some(0), "{}", run.stderr);
    }
    let study = out.join("R5");
    let (a, b) = (study.join("2023-03-31"), study.join("2023-09-29"));
    let diff = |b: &Path| {
        let run = readout(&["diff", a.to_str().expect("a"), b.to_str().expect("b")]);
        run.assert_no_panic();
        run
    };
    assert_eq!(diff(&b).code, Some(0));
    let records = |folder: &Path| folder.join("derived/records/itt.csv");
    let original = std::fs::read_to_string(records(&b)).expect("records");
    let copy = |name: &str, records_text: &str| {
        let c = study.join(name);
        let _ = std::fs::remove_dir_all(&c);
        std::fs::create_dir_all(c.join("derived/records")).expect("mkdir");
        for file in ["results.json", "manifest.json", "derived/itt.csv"] {
            std::fs::copy(b.join(file), c.join(file)).expect("copy");
        }
        std::fs::write(records(&c), records_text).expect("write records");
        c
    };
    // The same columns in another order.
    let swapped: String = original
        .lines()
        .map(|l| {
            let mut cells: Vec<&str> = l.split(',').collect();
            cells.swap(4, 5);
            cells.join(",") + "\n"
        })
        .collect();
    let run = diff(&copy("swapped", &swapped));
    assert_eq!(run.code, Some(2), "{}", run.stdout);
    assert!(
        run.stderr
            .contains("its header is `USUBJID,ARM,DATASET,DATE,VALUE,ITEM"),
        "{}",
        run.stderr
    );
    // An escape character in a term.
    let escaped: String = original
        .lines()
        .enumerate()
        .map(|(i, l)| {
            if i == 1 {
                format!("{l}\u{1b}[31m\n")
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    let run = diff(&copy("escaped", &escaped));
    assert_eq!(run.code, Some(2), "{}", run.stdout);
    assert!(run.stderr.contains("U+001B"), "{}", run.stderr);
    // A later folder in days.
    let days = copy("days", &original);
    let json = std::fs::read_to_string(days.join("results.json")).expect("results");
    std::fs::write(
        days.join("results.json"),
        json.replacen("\"time_unit\": \"months\"", "\"time_unit\": \"days\"", 1),
    )
    .expect("write");
    let run = diff(&days);
    assert_eq!(run.code, Some(2), "{}", run.stdout);
    assert!(
        run.stderr.contains("gives times in months") && run.stderr.contains("in days"),
        "{}",
        run.stderr
    );
}

/// A poster.txt of 30,000 blocks is refused at once; 800 authors and 200 affiliations make a
/// title band that stays on the poster, naming the first that fit.
#[test]
fn the_poster_bounds_its_blocks_and_title_band() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let templates = tmp.path().join("templates");
    std::fs::create_dir_all(&templates).expect("mkdir");
    std::fs::write(
        templates.join("poster.txt"),
        "[title]\nT\n{% for i in range(end=30000) %}[b{{ i }}]\nBlock\n- text\n{% endfor %}",
    )
    .expect("template");
    let config = rand_config(
        "",
        "",
        "output: { formats: [md, poster], templates: templates }\n",
    );
    let path = rand_study(tmp.path(), &as_is, &config);
    let started = std::time::Instant::now();
    let run = build(&path, &tmp.path().join("out"), &[]);
    assert_ne!(run.code, Some(0));
    assert!(
        run.stderr.contains("poster.txt") && run.stderr.contains("more than the 200"),
        "{}",
        run.stderr
    );
    assert!(
        started.elapsed().as_secs() < 60,
        "took {:?}",
        started.elapsed()
    );

    let tmp = tempfile::tempdir().expect("temp dir");
    let authors: Vec<String> = (0..800).map(|i| format!("\"A. Author{i}\"")).collect();
    let affiliations: Vec<String> = (0..200)
        .map(|i| format!("\"Department {i}, Hospital {i}, City {i}\""))
        .collect();
    let config = rand_config(
        "",
        "",
        "output: { formats: [md, poster], poster: { width: 48, height: 36 } }\n",
    )
    .replace(
        "study: { id: R5 }",
        &format!(
            "study: {{ id: R5, authors: [{}], affiliations: [{}] }}",
            authors.join(", "),
            affiliations.join(", ")
        ),
    );
    let path = rand_study(tmp.path(), &as_is, &config);
    let out = tmp.path().join("out");
    let run = build(&path, &out, &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        run.stderr.contains("the title band names the first")
            && run.stderr.contains("of 800 authors"),
        "{}",
        run.stderr
    );
    // The band inside the poster's height: its shape's offset and extent in the slide.
    let poster = out.join("R5/no-cutoff/itt/poster.pptx");
    let file = std::fs::File::open(&poster).expect("poster");
    let mut zip = zip::ZipArchive::new(file).expect("zip");
    let mut slide = String::new();
    std::io::Read::read_to_string(
        &mut zip.by_name("ppt/slides/slide1.xml").expect("slide"),
        &mut slide,
    )
    .expect("read");
    let band = slide.find("name=\"Title band\"").expect("band");
    let ext = &slide[band..];
    let cy: u64 = ext[ext.find("cy=\"").expect("cy") + 4..]
        .split('"')
        .next()
        .and_then(|v| v.parse().ok())
        .expect("height");
    // Drawn at 1/1 (48 in is under 56): a quarter of 36 inches in EMU.
    assert!(cy <= 36 * 914_400 / 4, "band {cy} EMU");
}

/// A 40,000-character term (longer than an Excel cell) builds: the report keeps it, the
/// workbook cuts it with a warning naming the table.
#[test]
fn a_term_longer_than_a_cell_builds_with_a_warning() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let term = "T".repeat(40_000);
    let edit = |file: &str, text: String| {
        if file == "adae.csv" {
            text.replacen("Decreased appetite", &term, 1)
        } else {
            text
        }
    };
    let config = rand_config("", "", "output: { formats: [md, html, xlsx] }\n");
    let path = rand_study(tmp.path(), &edit, &config);
    let out = tmp.path().join("out");
    let run = build(&path, &out, &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("tables.xlsx: a text of more than 32,767 characters"),
        "{}",
        run.stderr
    );
    let report = std::fs::read_to_string(out.join("R5/no-cutoff/itt/report.html")).expect("report");
    assert!(report.contains(&term));
}

/// `null` is the same as leaving a key out; what checks nothing, or starts a risk table
/// after 0, is refused; a censoring code from 2^31 says why it is refused.
#[test]
fn null_means_absent_and_empty_rules_are_refused() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let config = rand_config(
        "",
        "",
        "output: { poster: null, formats: null, dir: null }\n",
    )
    .replace(
        "reference: \"Placebo + chemo\" }",
        "reference: \"Placebo + chemo\", labels: null }",
    )
    .replace("adae: adae.csv }", "adae: adae.csv, where: null }");
    let path = rand_study(tmp.path(), &as_is, &config);
    let (code, stderr) = check(&path);
    assert_eq!(code, Some(0), "{stderr}");
    let config = rand_config("", "", "output: { poster: { references: null } }\n");
    let path = rand_study(tmp.path(), &as_is, &config);
    let (code, stderr) = check(&path);
    assert_eq!(code, Some(0), "{stderr}");
    for (rest, key, says) in [
        (
            "output: { conference: {} }\n",
            "output.conference",
            "checks nothing",
        ),
        ("", "analysis.km_table_times", "start at 0"),
    ] {
        let analysis = if rest.is_empty() {
            "  km_table_times: [6, 12]\n"
        } else {
            ""
        };
        let path = rand_study(tmp.path(), &as_is, &rand_config(analysis, "", rest));
        let (code, stderr) = check(&path);
        assert_eq!(code, Some(2), "{key}: {stderr}");
        assert!(
            stderr.contains(&format!("key `{key}`")) && stderr.contains(says),
            "{stderr}"
        );
    }
    let edit = |file: &str, text: String| {
        if file == "adtte.csv" {
            text.replacen(
                ",PFS,Progression-Free Survival (days),82,DAYS,1,",
                ",PFS,Progression-Free Survival (days),82,DAYS,2147483648,",
                1,
            )
        } else {
            text
        }
    };
    let path = rand_study(tmp.path(), &edit, &rand_config("", "", ""));
    let run = build(&path, &tmp.path().join("out"), &[]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stderr.contains("adtte.csv: line 2") && run.stderr.contains("2^31 or more"),
        "{}",
        run.stderr
    );
}
