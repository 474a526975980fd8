//! Tables and Word files a medical writer files (issue 70; docs/OUTPUTS.md, "Numbering and
//! captions"): tables and figures numbered in order or by ICH E3 section 14, captions as Word
//! SEQ fields with a List of Tables and a List of Figures after the Contents, notes under
//! tables in a style of their own, the Word files' title and language, and HTML tables with
//! their `<caption>` and `<th scope>`. Read from the written files (XML and HTML parsed) of the
//! randomised example.

use std::path::{Path, PathBuf};

use crate::common::{build, rand_example_config, read_json, root};
use crate::html::{attr, select_in, text, Html};
use markup5ever_rcdom::Handle;

/// The randomised example built into `dir` with `output.formats: [html, docx]` and the extra
/// `output` keys `extra`; the cohort's folder.
fn built(dir: &Path, extra: &str) -> PathBuf {
    let config = rand_example_config(dir, &|text| {
        text.replace(
            "  formats: [md, html, docx, pptx, png, xlsx, ard, poster]\n",
            &format!("  formats: [html, docx]\n{extra}"),
        )
    });
    let out = dir.join("out");
    let run = build(&config, &out, &["--quiet"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    out.join("RAND-EXAMPLE/2023-09-29/itt")
}

/// A study of `files` (name, text) and `config` written into `dir` and built (it must
/// succeed); the output folder.
fn built_study<const N: usize>(dir: &Path, files: [(&str, String); N], config: &str) -> PathBuf {
    for (name, text) in files {
        std::fs::write(dir.join(name), text).expect("data");
    }
    let path = dir.join("study.yaml");
    std::fs::write(&path, config).expect("config");
    let out = dir.join("out");
    let run = build(&path, &out, &["--quiet"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    out
}

/// The table of report.html whose caption holds `title`.
fn captioned(doc: &Html, title: &str) -> Handle {
    doc.select("table")
        .into_iter()
        .find(|t| {
            select_in(t, "caption")
                .first()
                .is_some_and(|c| text(c).contains(title))
        })
        .unwrap_or_else(|| panic!("no table captioned {title}"))
}

/// A part of a Word file, as text.
fn part(docx: &Path, name: &str) -> String {
    let file = std::fs::File::open(docx).expect("a .docx");
    let mut archive = zip::ZipArchive::new(file).expect("zip");
    let mut xml = String::new();
    std::io::Read::read_to_string(&mut archive.by_name(name).expect(name), &mut xml).expect("xml");
    xml
}

const W: &str = "http://schemas.openxmlformats.org/wordprocessingml/2006/main";

/// A paragraph of document.xml: its style, its text (fields' results included), and the
/// instructions of its simple fields.
#[derive(Debug)]
struct Para {
    style: String,
    text: String,
    fields: Vec<String>,
    /// A complex field's instruction (`TOC ...`) that begins in it.
    begins: Option<String>,
}

fn paragraphs(xml: &str) -> Vec<Para> {
    let doc = roxmltree::Document::parse(xml).expect("document.xml is XML");
    doc.descendants()
        .filter(|n| n.has_tag_name((W, "p")))
        .map(|p| {
            let style = p
                .descendants()
                .find(|n| n.has_tag_name((W, "pStyle")))
                .and_then(|n| n.attribute((W, "val")))
                .unwrap_or("")
                .to_string();
            let text = p
                .descendants()
                .filter(|n| n.has_tag_name((W, "t")))
                .filter_map(|n| n.text())
                .collect();
            let fields = p
                .descendants()
                .filter(|n| n.has_tag_name((W, "fldSimple")))
                .filter_map(|n| n.attribute((W, "instr")).map(str::to_string))
                .collect();
            let begins = p
                .descendants()
                .find(|n| n.has_tag_name((W, "instrText")))
                .and_then(|n| n.text().map(str::to_string));
            Para {
                style,
                text,
                fields,
                begins,
            }
        })
        .collect()
}

/// The entries of the list headed `heading` (a TOC field over the captions of `label`).
fn list_entries<'p>(paras: &'p [Para], heading: &str, label: &str) -> Vec<&'p str> {
    let at = paras
        .iter()
        .position(|p| p.style == "TOCHeading" && p.text == heading)
        .unwrap_or_else(|| panic!("no {heading}"));
    let first = &paras[at + 1];
    assert_eq!(
        first.begins.as_deref(),
        Some(format!(" TOC \\h \\z \\c \"{label}\" ").as_str())
    );
    paras[at + 1..]
        .iter()
        .take_while(|p| p.style == "TableofFigures")
        .map(|p| p.text.as_str())
        .collect()
}

#[test]
fn word_captions_are_seq_fields_listed_after_the_contents() {
    let dir = tempfile::tempdir().expect("tmp");
    let folder = built(dir.path(), "");
    let docx = folder.join("report.docx");
    let paras = paragraphs(&part(&docx, "word/document.xml"));
    let captions: Vec<&Para> = paras.iter().filter(|p| p.style == "Caption").collect();
    let tables: Vec<&&Para> = captions
        .iter()
        .filter(|p| p.text.starts_with("Table "))
        .collect();
    let figures: Vec<&&Para> = captions
        .iter()
        .filter(|p| p.text.starts_with("Figure "))
        .collect();
    assert!(tables.len() > 10 && figures.len() > 5);
    // Only captions in the Caption style: a table's notes have their own.
    assert_eq!(tables.len() + figures.len(), captions.len());
    assert!(paras
        .iter()
        .any(|p| p.style == "TableNote" && p.text.starts_with("Efficacy population (N = ")));
    // Each caption's number is a SEQ field counted in order.
    for (label, list) in [("Table", &tables), ("Figure", &figures)] {
        for (i, p) in list.iter().enumerate() {
            assert_eq!(p.fields, [format!(" SEQ {label} \\* ARABIC ")], "{p:?}");
            assert!(p.text.starts_with(&format!("{label} {}. ", i + 1)), "{p:?}");
        }
    }
    // The lists after the contents hold every caption, in order.
    let contents = paras
        .iter()
        .position(|p| p.text == "Contents")
        .expect("contents");
    let list_at = paras
        .iter()
        .position(|p| p.text == "List of Tables")
        .expect("list of tables");
    assert!(contents < list_at);
    let listed = list_entries(&paras, "List of Tables", "Table");
    let table_texts: Vec<&str> = tables.iter().map(|p| p.text.as_str()).collect();
    assert_eq!(listed, table_texts);
    let listed = list_entries(&paras, "List of Figures", "Figure");
    let figure_texts: Vec<&str> = figures.iter().map(|p| p.text.as_str()).collect();
    assert_eq!(listed, figure_texts);

    // The title and language, as the decks declare theirs.
    let core = part(&docx, "docProps/core.xml");
    let core = roxmltree::Document::parse(&core).expect("core.xml");
    let dc = |name: &str| {
        core.descendants()
            .find(|n| n.has_tag_name(("http://purl.org/dc/elements/1.1/", name)))
            .and_then(|n| n.text())
            .map(str::to_string)
    };
    let html = std::fs::read_to_string(folder.join("report.html")).expect("report.html");
    let h1 = text(&Html::parse(&html).select("h1")[0]);
    assert_eq!(dc("title").as_deref(), Some(h1.as_str()));
    assert_eq!(dc("language").as_deref(), Some("en-GB"));
    let styles = part(&docx, "word/styles.xml");
    assert!(
        styles.contains("<w:rPrDefault><w:rPr>") && styles.contains("<w:lang w:val=\"en-GB\" />")
    );
    let abstract_core = part(&folder.join("abstract.docx"), "docProps/core.xml");
    let abstract_txt = std::fs::read_to_string(folder.join("abstract.txt")).expect("abstract");
    let first = abstract_txt
        .split("\n\n")
        .next()
        .expect("title")
        .replace('\n', " ");
    assert!(
        abstract_core.contains(&format!("<dc:title>{}</dc:title>", first.trim())),
        "{abstract_core}"
    );
}

#[test]
fn html_tables_have_their_caption_and_header_scopes() {
    let dir = tempfile::tempdir().expect("tmp");
    let folder = built(dir.path(), "");
    let html = std::fs::read_to_string(folder.join("report.html")).expect("report.html");
    let doc = Html::parse(&html);
    let tables = doc.select("table");
    assert!(tables.len() > 10);
    for (i, table) in tables.iter().enumerate() {
        let caption = select_in(table, "caption");
        assert_eq!(caption.len(), 1, "table {i}");
        assert!(
            text(&caption[0]).starts_with(&format!("Table {}. ", i + 1)),
            "{}",
            text(&caption[0])
        );
        for th in select_in(table, "thead th") {
            assert_eq!(attr(&th, "scope").as_deref(), Some("col"));
        }
        for row in select_in(table, "tbody tr") {
            let cells = select_in(&row, "th, td");
            assert_eq!(attr(&cells[0], "scope").as_deref(), Some("row"));
            assert!(cells[1..].iter().all(|c| attr(c, "scope").is_none()));
        }
    }
    // No caption printed twice beside its table.
    assert!(!html.contains("<p class=\"caption\">"));
}

#[test]
fn csr_numbering_numbers_by_ich_e3_section() {
    let dir = tempfile::tempdir().expect("tmp");
    let folder = built(dir.path(), "  numbering: csr\n");
    let html = std::fs::read_to_string(folder.join("report.html")).expect("report.html");
    let doc = Html::parse(&html);
    let captions: Vec<String> = doc.select("caption").iter().map(text).collect();
    let number_of = |title: &str| -> String {
        let caption = captions
            .iter()
            .find(|c| c.contains(title))
            .unwrap_or_else(|| panic!("{title}: {captions:?}"));
        caption["Table ".len()..]
            .split_once(". ")
            .expect("number")
            .0
            .to_string()
    };
    assert!(number_of("Baseline characteristics").starts_with("14.1."));
    assert!(number_of("Best overall response").starts_with("14.2."));
    assert!(number_of("Hazard ratios by subgroup").starts_with("14.2."));
    assert!(number_of("Exposure-adjusted incidence rates").starts_with("14.3.1."));
    assert!(
        number_of("Treatment-emergent adverse events by system organ class").starts_with("14.3.1.")
    );
    assert!(number_of("Serious treatment-emergent adverse events").starts_with("14.3.2."));
    // Within each section, 1, 2, 3 in report order.
    let mut seen: std::collections::BTreeMap<String, Vec<usize>> = Default::default();
    for c in &captions {
        let number = c["Table ".len()..].split_once(". ").expect("number").0;
        let (section, n) = number.rsplit_once('.').expect("a section number");
        seen.entry(section.to_string())
            .or_default()
            .push(n.parse().expect("a count"));
    }
    assert!(seen
        .keys()
        .all(|s| ["14.1", "14.2", "14.3.1", "14.3.2"].contains(&s.as_str())));
    for counts in seen.values() {
        assert_eq!(*counts, (1..=counts.len()).collect::<Vec<_>>(), "{seen:?}");
    }
    let figures: Vec<String> = doc.select("figcaption").iter().map(text).collect();
    assert!(
        figures.iter().any(|f| f.starts_with("Figure 14.2.1. ")),
        "{figures:?}"
    );
    assert!(
        figures.iter().any(|f| f.starts_with("Figure 14.3.1.1. ")),
        "{figures:?}"
    );
    // In Word the number is written out, a hidden SEQ field beside it for the lists.
    let paras = paragraphs(&part(&folder.join("report.docx"), "word/document.xml"));
    let first = paras
        .iter()
        .find(|p| p.style == "Caption" && p.text.starts_with("Table 14."))
        .expect("a CSR caption");
    assert_eq!(first.fields, [" SEQ Table \\h "]);
    let listed = list_entries(&paras, "List of Tables", "Table");
    assert_eq!(listed.len(), captions.len());
    assert!(listed.iter().zip(&captions).all(|(a, b)| a == b));
}

/// Each table of report.html with its caption, header cells and the notes that follow it (up
/// to the next table).
fn tables_with_notes(html: &str) -> Vec<(String, Vec<String>, String)> {
    let doc = Html::parse(html);
    let mut out: Vec<(String, Vec<String>, String)> = Vec::new();
    for element in doc.select("div.table, p.note") {
        if attr(&element, "class").as_deref() == Some("table") {
            let caption = select_in(&element, "caption")
                .first()
                .map(text)
                .unwrap_or_default();
            let head = select_in(&element, "thead th").iter().map(text).collect();
            out.push((caption, head, String::new()));
        } else if let Some(last) = out.last_mut() {
            last.2.push_str(&text(&element));
            last.2.push(' ');
        }
    }
    out
}

#[test]
fn every_table_says_its_population_source_and_each_arm_its_n() {
    let dir = tempfile::tempdir().expect("tmp");
    let folder = built(dir.path(), "");
    let html = std::fs::read_to_string(folder.join("report.html")).expect("report.html");
    let results = read_json(&folder.join("../results.json"));
    let cohort = &results["cohorts"][0];
    let arms: Vec<&str> = cohort["arms"]
        .as_array()
        .expect("arms")
        .iter()
        .map(|a| a["arm_short"].as_str().expect("short"))
        .collect();
    let tables = tables_with_notes(&html);
    assert!(tables.len() > 10);
    let version = env!("CARGO_PKG_VERSION");
    for (caption, head, notes) in &tables {
        let ae = ["adverse event", "TEAE", "TRAE", "incidence rate"]
            .iter()
            .any(|w| caption.to_lowercase().contains(&w.to_lowercase()));
        // Its source: the datasets, the version, the config, the cut-off.
        let datasets = if ae { "ADAE, ADSL" } else { "" };
        assert!(
            notes.contains(&format!(
                "ADSL; readout {version}, study.yaml, cut-off 2023-09-29."
            )) && notes.contains(&format!("Source: {datasets}")),
            "{caption}: {notes}"
        );
        // Its population, but for the table of the populations.
        if !caption.ends_with(". Populations") {
            let population = if ae {
                format!("Safety population (N = {}).", cohort["n"]["safety"])
            } else {
                "population (N = ".to_string()
            };
            assert!(
                notes.contains(&population) || notes.contains("All enrolled subjects (N = "),
                "{caption}: {notes}"
            );
        }
        // Every arm that heads columns says its N.
        for cell in head {
            if arms.iter().any(|a| cell.contains(a)) {
                assert!(cell.contains("(N = "), "{caption}: `{cell}`");
            }
        }
    }
    // The TEAE and TRAE tables by term, the EAIR and the subgroups name each arm with its N.
    for title in [
        "TEAEs by preferred term",
        "TRAEs by preferred term",
        "Exposure-adjusted incidence rates",
        "Hazard ratios by subgroup",
    ] {
        let (_, head, _) = tables
            .iter()
            .find(|(c, _, _)| c.contains(title))
            .unwrap_or_else(|| panic!("{title}"));
        for arm in &arms {
            assert!(
                head.iter().any(|h| h.contains(arm) && h.contains("(N = ")),
                "{title}: {head:?}"
            );
        }
    }
    // Notes where they belong: the risk difference and EAIR under the adverse-event tables,
    // the interaction test under the subgroups, neither elsewhere.
    let notes_of = |title: &str| {
        &tables
            .iter()
            .find(|(c, _, _)| c.contains(title))
            .unwrap_or_else(|| panic!("{title}"))
            .2
    };
    assert!(notes_of("Exposure-adjusted incidence rates").contains("EAIR: exposure-adjusted"));
    let subgroups = notes_of("Hazard ratios by subgroup");
    assert!(subgroups.contains("Interaction p:") && !subgroups.contains("EAIR"));
    let eair_notes = tables
        .iter()
        .filter(|(_, _, n)| n.contains("EAIR: exposure-adjusted"))
        .count();
    assert_eq!(eair_notes, 1);
}

/// The leading count of "12 (8.1%)".
fn count(cell: &str) -> usize {
    cell.split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

#[test]
fn term_tables_sort_by_their_own_counts_arms_together() {
    let dir = tempfile::tempdir().expect("tmp");
    let folder = built(dir.path(), "");
    let html = std::fs::read_to_string(folder.join("report.html")).expect("report.html");
    let doc = Html::parse(&html);
    for title in ["TEAEs by preferred term", "TRAEs by preferred term"] {
        let table = captioned(&doc, title);
        // Term, class, then each arm's any-grade and severe counts: the arms' any summed.
        let rows: Vec<(usize, String)> = select_in(&table, "tbody tr")
            .iter()
            .map(|row| {
                let cells: Vec<String> = select_in(row, "th, td").iter().map(text).collect();
                let total = cells[2..].iter().step_by(2).map(|c| count(c)).sum();
                (total, cells[0].clone())
            })
            .collect();
        assert!(rows.len() > 5, "{title}");
        for pair in rows.windows(2) {
            assert!(
                pair[0].0 > pair[1].0 || (pair[0].0 == pair[1].0 && pair[0].1 <= pair[1].1),
                "{title}: {pair:?}"
            );
        }
    }
}

/// The captions of a report.html, without their numbers.
fn titles(html: &str) -> Vec<String> {
    Html::parse(html)
        .select("caption, figcaption")
        .iter()
        .map(|c| {
            let caption = text(c);
            caption
                .split_once(". ")
                .map_or(caption.clone(), |(_, t)| t.to_string())
        })
        .collect()
}

#[test]
fn every_title_is_unique_in_the_report() {
    // Three arms: each comparison's tables repeat, each told apart by its pair of arms.
    let tmp = tempfile::tempdir().expect("temp dir");
    let arms = ["Drug X", "Drug Y", "Placebo"];
    let mut adsl = String::from("USUBJID,ARM,TRTSDT,SAFFL,SEX\n");
    let mut adtte = String::from("USUBJID,PARAMCD,AVAL,CNSR\n");
    let mut adae = String::from("USUBJID,AEBODSYS,AEDECOD,AETOXGR,AESER,AEREL\n");
    for i in 0..90 {
        let date = format!("2021-{:02}-{:02}", 1 + i % 12, 1 + i % 27);
        adsl.push_str(&format!(
            "S{i},{},{date},Y,{}\n",
            arms[i % 3],
            ["M", "F"][i % 2]
        ));
        adtte.push_str(&format!("S{i},OS,{},{}\n", 10 + (i * 37) % 890, i % 2));
        adae.push_str(&format!("S{i},Blood,Anaemia,{},N,Y\n", 1 + i % 4));
    }
    let out = built_study(
        tmp.path(),
        [("adsl.csv", adsl), ("adtte.csv", adtte), ("adae.csv", adae)],
        "study: { id: T3 }\ndata: { adsl: adsl.csv, adtte: adtte.csv, adae: adae.csv }\n\
         analysis: { tte_params: { OS: OS }, followup: OS }\ncohorts:\n  - id: all\n    \
         arms: { column: ARM, reference: Placebo }\n    subgroups: [SEX]\n\
         output: { formats: [html] }\n",
    );
    let three = std::fs::read_to_string(out.join("T3/no-cutoff/all/report.html")).expect("html");
    // A study with both a disposition and an exposure table.
    let myeloma = tmp.path().join("mm");
    let run = build(
        &root().join("config/myeloma-example.yaml"),
        &myeloma,
        &["--quiet"],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let mm = std::fs::read_to_string(myeloma.join("MM-EXAMPLE/2024-06-28/itt/report.html"))
        .expect("html");
    for (html, at_least) in [(&three, 8), (&mm, 10)] {
        let titles = titles(html);
        assert!(titles.len() >= at_least, "{titles:?}");
        let unique: std::collections::BTreeSet<&String> = titles.iter().collect();
        assert_eq!(unique.len(), titles.len(), "{titles:?}");
    }
    let three = titles(&three);
    assert!(
        three
            .iter()
            .any(|t| t.starts_with("Adverse events, Drug Y vs Placebo")),
        "{three:?}"
    );
    let mm = titles(&mm);
    assert!(mm.contains(&"Disposition".to_string()) && mm.contains(&"Exposure".to_string()));
}

#[test]
fn word_class_and_total_rows_are_bold_and_terms_are_not() {
    let dir = tempfile::tempdir().expect("tmp");
    let folder = built(dir.path(), "");
    let results = read_json(&folder.join("../results.json"));
    let soc = &results["cohorts"][0]["safety"]["by_soc"][0];
    let (class, term) = (
        soc["soc"].as_str().expect("class"),
        soc["terms"][0]["term"].as_str().expect("term"),
    );
    let xml = part(&folder.join("report.docx"), "word/document.xml");
    let doc = roxmltree::Document::parse(&xml).expect("xml");
    let table = doc
        .descendants()
        .filter(|n| n.has_tag_name((W, "tbl")))
        .find(|t| {
            t.descendants()
                .find(|n| n.has_tag_name((W, "tblCaption")))
                .and_then(|n| n.attribute((W, "val")))
                .is_some_and(|c| c.contains(". Treatment-emergent adverse events by system organ"))
        })
        .expect("the TEAE table by class and term");
    // Each body row's first cell: its text, and whether every run of the row is bold.
    let rows: Vec<(String, bool)> = table
        .children()
        .filter(|n| n.has_tag_name((W, "tr")))
        .filter(|r| !r.descendants().any(|n| n.has_tag_name((W, "tblHeader"))))
        .map(|r| {
            let first: String = r
                .descendants()
                .find(|n| n.has_tag_name((W, "tc")))
                .map(|c| {
                    c.descendants()
                        .filter(|n| n.has_tag_name((W, "t")))
                        .filter_map(|n| n.text())
                        .collect()
                })
                .unwrap_or_default();
            let runs: Vec<_> = r
                .descendants()
                .filter(|n| n.has_tag_name((W, "r")))
                .collect();
            let bold = !runs.is_empty()
                && runs
                    .iter()
                    .all(|run| run.descendants().any(|n| n.has_tag_name((W, "b"))));
            (first, bold)
        })
        .collect();
    let row = |label: &str| {
        rows.iter()
            .find(|(first, _)| first == label)
            .unwrap_or_else(|| panic!("{label}: {rows:?}"))
            .1
    };
    assert!(row("Any TEAE"), "the total row");
    assert!(row(class), "{class}");
    assert!(!row(term), "{term}");
}

#[test]
fn class_and_term_rows_agree_with_hand_counts() {
    // A MedDRA-shaped ADAE counted by hand: arm A (S1–S3), arm B (S4–S6), every subject in
    // the safety population. S1: Anaemia twice, Nausea; S2: Anaemia, Neutropenia; S4: Nausea,
    // Vomiting twice; S5: Anaemia.
    let tmp = tempfile::tempdir().expect("temp dir");
    let mut adsl = String::from("USUBJID,ARM,TRTSDT,SAFFL\n");
    let mut adtte = String::from("USUBJID,PARAMCD,AVAL,CNSR\n");
    for i in 1..=6 {
        let arm = if i <= 3 { "A" } else { "B" };
        adsl.push_str(&format!("S{i},{arm},2021-01-0{i},Y\n"));
        adtte.push_str(&format!("S{i},OS,{},{}\n", 100 * i, i % 2));
    }
    let blood = "Blood and lymphatic system disorders";
    let gastro = "Gastrointestinal disorders";
    let mut adae = String::from("USUBJID,AEBODSYS,AEDECOD,AETOXGR,AESER,AEREL\n");
    for (subject, class, term) in [
        ("S1", blood, "Anaemia"),
        ("S1", blood, "Anaemia"),
        ("S1", gastro, "Nausea"),
        ("S2", blood, "Anaemia"),
        ("S2", blood, "Neutropenia"),
        ("S4", gastro, "Nausea"),
        ("S4", gastro, "Vomiting"),
        ("S4", gastro, "Vomiting"),
        ("S5", blood, "Anaemia"),
    ] {
        adae.push_str(&format!("{subject},{class},{term},1,N,Y\n"));
    }
    let out = built_study(
        tmp.path(),
        [("adsl.csv", adsl), ("adtte.csv", adtte), ("adae.csv", adae)],
        "study: { id: AE6 }\ndata: { adsl: adsl.csv, adtte: adtte.csv, adae: adae.csv }\n\
         analysis: { tte_params: { OS: OS }, followup: OS, ae_events: true }\ncohorts:\n  \
         - id: all\n    arms: { column: ARM, reference: B }\noutput: { formats: [html] }\n",
    );
    let folder = out.join("AE6/no-cutoff");
    let results = read_json(&folder.join("results.json"));
    let cohort = &results["cohorts"][0];
    // (class or term, subjects, events) of a by_soc list, in its order.
    let listed = |safety: &serde_json::Value| -> Vec<(String, u64, u64)> {
        let mut out = Vec::new();
        for soc in safety["by_soc"].as_array().expect("by_soc") {
            out.push((
                soc["soc"].as_str().expect("soc").to_string(),
                soc["subjects"].as_u64().expect("n"),
                soc["events"].as_u64().expect("events"),
            ));
            for t in soc["terms"].as_array().expect("terms") {
                out.push((
                    t["term"].as_str().expect("term").to_string(),
                    t["subjects"].as_u64().expect("n"),
                    t["events"].as_u64().expect("events"),
                ));
            }
        }
        out
    };
    let row = |name: &str, n: u64, e: u64| (name.to_string(), n, e);
    assert_eq!(
        listed(&cohort["safety"]),
        [
            row(blood, 3, 5),
            row("Anaemia", 3, 4),
            row("Neutropenia", 1, 1),
            row(gastro, 2, 4),
            row("Nausea", 2, 2),
            row("Vomiting", 1, 2),
        ]
    );
    let arm = |name: &str| {
        cohort["arms"]
            .as_array()
            .expect("arms")
            .iter()
            .find(|a| a["arm"] == name)
            .expect("arm")["safety"]
            .clone()
    };
    assert_eq!(
        listed(&arm("A")),
        [
            row(blood, 2, 4),
            row("Anaemia", 2, 3),
            row("Neutropenia", 1, 1),
            row(gastro, 1, 1),
            row("Nausea", 1, 1),
        ]
    );
    assert_eq!(
        listed(&arm("B")),
        [
            row(blood, 1, 1),
            row("Anaemia", 1, 1),
            row(gastro, 1, 3),
            row("Nausea", 1, 1),
            row("Vomiting", 1, 2),
        ]
    );
    // The report's table: each arm's and the total's "n (%) [events]", N = 3, 3 and 6.
    let html = std::fs::read_to_string(folder.join("all/report.html")).expect("report");
    let doc = Html::parse(&html);
    let table = captioned(&doc, ". Treatment-emergent adverse events by system");
    let rows: Vec<Vec<String>> = select_in(&table, "tbody tr")
        .iter()
        .map(|r| select_in(r, "th, td").iter().map(text).collect())
        .collect();
    let cells = |label: &str| -> Vec<String> {
        rows.iter()
            .find(|r| r[0] == label)
            .unwrap_or_else(|| panic!("{label}: {rows:?}"))[1..]
            .to_vec()
    };
    assert_eq!(
        cells("Any TEAE"),
        ["2 (66.7%) [5]", "2 (66.7%) [4]", "4 (66.7%) [9]"]
    );
    assert_eq!(
        cells(blood),
        ["2 (66.7%) [4]", "1 (33.3%) [1]", "3 (50.0%) [5]"]
    );
    assert_eq!(
        cells("Anaemia"),
        ["2 (66.7%) [3]", "1 (33.3%) [1]", "3 (50.0%) [4]"]
    );
    assert_eq!(
        cells("Vomiting"),
        ["0 (0.0%)", "1 (33.3%) [2]", "1 (16.7%) [2]"]
    );
}
