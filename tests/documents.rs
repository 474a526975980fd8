//! Documents end to end on the fixture study `tests/fixtures/documents/` (one cohort, every
//! format, hostile data strings): snapshots of every built-in template's output, the HTML
//! parsed as HTML5, the Word files opened as zip archives, user template overrides, template
//! errors naming the template and line, and the conference length check with `--strict`.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{build, readout_command, root, Outcome};
use crate::html::{attr, select_in, text, Html};

fn fixture() -> PathBuf {
    root().join("tests/fixtures/documents")
}

/// The fixture config with extra lines under `output:` (e.g. `templates: ...`), written to a
/// temporary folder; data paths point back at the fixture.
fn variant(tmp: &Path, output_extra: &str) -> PathBuf {
    let text = std::fs::read_to_string(fixture().join("study.yaml")).expect("fixture config");
    let text = text
        .replace(
            "\ndata:\n",
            &format!("\ndata:\n  dir: {}\n", fixture().display()),
        )
        .replace(
            "\n  dir: output\n",
            &format!("\n  dir: output\n{output_extra}"),
        );
    let path = tmp.join("study.yaml");
    std::fs::write(&path, text).expect("write config");
    path
}

/// Builds the fixture as it is; returns the temp folder and the cut-off folder.
fn build_fixture() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().expect("temp dir");
    let Outcome {
        code, stderr: err, ..
    } = build(
        &fixture().join("study.yaml"),
        &tmp.path().join("out"),
        &["--quiet"],
    );
    assert_eq!(code, Some(0), "{err}");
    let folder = tmp.path().join("out/DOC-FIXTURE/2021-12-31");
    (tmp, folder)
}

fn read(folder: &Path, file: &str) -> String {
    std::fs::read_to_string(folder.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

/// The SVG figures are snapshotted by tests/plots.rs; here they are reduced to a marker.
fn without_svg(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(start) = rest.find("<svg") {
        out.push_str(&rest[..start]);
        match rest[start..].find("</svg>") {
            Some(end) => {
                out.push_str("<svg><!-- figure --></svg>");
                rest = &rest[start + end + "</svg>".len()..];
            }
            None => {
                rest = &rest[start..];
                break;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Parses as an HTML5 document and fails on any parse error (html5ever's error list).
fn parse_html5(name: &str, html: &str) -> Html {
    let doc = Html::parse(html);
    assert!(
        doc.errors().is_empty(),
        "{name} is not clean HTML5: {:?}",
        doc.errors()
    );
    doc
}

/// `word/document.xml` of a .docx, and the names of its parts.
pub(crate) fn docx_parts(path: &Path) -> (String, Vec<String>) {
    let file = std::fs::File::open(path).expect("docx");
    let mut archive = zip::ZipArchive::new(file).expect("a .docx is a zip archive");
    let names: Vec<String> = archive
        .file_names()
        .map(|n| n.expect("name").to_string())
        .collect();
    let mut xml = String::new();
    std::io::Read::read_to_string(
        &mut archive.by_name("word/document.xml").expect("document.xml"),
        &mut xml,
    )
    .expect("utf-8");
    (xml, names)
}

/// A Word run's text as a reader sees it: the no-break spaces, word joiners and no-break
/// hyphens that keep a number cell on one line read as the space and hyphen they stand for.
pub(crate) fn as_read(text: &str) -> String {
    text.replace('\u{a0}', " ")
        .replace('\u{2060}', "")
        .replace('\u{2011}', "-")
}

/// The text of every `<w:t>` run, joined by spaces (paragraph and cell boundaries included).
fn docx_text(xml: &str) -> String {
    let doc = roxmltree::Document::parse(xml).expect("document.xml is XML");
    doc.descendants()
        .filter(|n| n.tag_name().name() == "t")
        .filter_map(|n| n.text())
        .map(as_read)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Every table's rows as cell texts, empty cells left out: from report.html's `<table>`s.
pub(crate) fn html_tables(html: &str) -> Vec<Vec<Vec<String>>> {
    let doc = Html::parse(html);
    doc.select("table")
        .iter()
        .map(|table| {
            select_in(table, "tr")
                .iter()
                .map(|row| {
                    select_in(row, "th, td")
                        .iter()
                        .map(text)
                        .filter(|t| !t.is_empty())
                        .collect()
                })
                .collect()
        })
        .collect()
}

/// The same from a Word file's `<w:tbl>`s (a cell's runs joined; merged-over cells are empty).
pub(crate) fn docx_tables(xml: &str) -> Vec<Vec<Vec<String>>> {
    let doc = roxmltree::Document::parse(xml).expect("document.xml is XML");
    let named =
        |n: &roxmltree::Node<'_, '_>, name: &str| n.is_element() && n.tag_name().name() == name;
    doc.descendants()
        .filter(|n| named(n, "tbl"))
        .map(|table| {
            table
                .children()
                .filter(|n| named(n, "tr"))
                .map(|row| {
                    row.children()
                        .filter(|n| named(n, "tc"))
                        .map(|cell| {
                            as_read(
                                &cell
                                    .descendants()
                                    .filter(|n| named(n, "t"))
                                    .filter_map(|n| n.text())
                                    .collect::<String>(),
                            )
                        })
                        .filter(|t| !t.is_empty())
                        .collect()
                })
                .collect()
        })
        .collect()
}

/// report.docx is written from the same document model as report.html: the same tables, row
/// by row and cell by cell (BOR, time-to-event, landmarks, AE summary and terms with spanning
/// headers), the same section headings in the same order, and a three-line house style.
#[test]
fn word_and_html_reports_have_the_same_tables_and_sections() {
    let (_tmp, folder) = build_fixture();
    let html = read(&folder, "cohort-a/report.html");
    let (xml, _) = docx_parts(&folder.join("cohort-a/report.docx"));
    let from_html = html_tables(&html);
    assert!(from_html.len() >= 6, "{from_html:?}");
    assert_eq!(docx_tables(&xml), from_html);
    let terms = from_html
        .iter()
        .find(|t| t[0].get(1).is_some_and(|c| c == "System organ class"))
        .expect("the table of terms");
    assert_eq!(
        terms[0],
        [
            "Preferred term",
            "System organ class",
            "TEAE, n (%)",
            "TRAE, n (%)"
        ]
    );
    assert_eq!(terms[1], ["Any grade", "Grade ≥3", "Any grade", "Grade ≥3"]);
    let doc = Html::parse(&html);
    let headings: Vec<String> = doc.select("h2, h3").iter().map(text).collect();
    let words = docx_text(&xml);
    let mut at = 0;
    for heading in &headings {
        let found = words[at..].find(heading.as_str());
        assert!(
            found.is_some(),
            "`{heading}` missing or out of order in report.docx"
        );
        at += found.unwrap_or(0);
    }
    // House style: the tables name the `Table` style and carry their own rules (top, bottom,
    // under the header), with a spanning header over two columns and a merged one below.
    assert!(
        xml.contains(r#"<w:tblStyle w:val="Table" />"#),
        "no table style"
    );
    assert!(
        xml.contains("<w:gridSpan w:val=\"2\" />"),
        "no spanning header"
    );
    assert!(
        xml.contains("<w:vMerge w:val=\"restart\" />"),
        "no merged header"
    );
    assert!(xml.contains("<w:tblBorders>"), "no rules");
}

#[test]
fn every_built_in_template_snapshot() {
    let (_tmp, folder) = build_fixture();
    insta::assert_snapshot!("abstract.md", read(&folder, "cohort-a/abstract.md"));
    insta::assert_snapshot!("abstract.txt", read(&folder, "cohort-a/abstract.txt"));
    insta::assert_snapshot!(
        "abstract.html",
        without_svg(&read(&folder, "cohort-a/abstract.html"))
    );
    insta::assert_snapshot!(
        "report.html",
        without_svg(&read(&folder, "cohort-a/report.html"))
    );
    insta::assert_snapshot!("index.html", read(&folder, "index.html"));
}

#[test]
fn abstract_txt_is_plain_text_and_its_length_is_in_results() {
    let (_tmp, folder) = build_fixture();
    let text = read(&folder, "cohort-a/abstract.txt");
    for markup in ["**", "# ", "*X*", "<p>", "&lt;", "&amp;"] {
        assert!(!text.contains(markup), "markup {markup:?} in abstract.txt");
    }
    assert!(text.contains("grade ≥3 TRAEs in 3 (37.5%)"), "{text}");
    assert!(
        // One decimal rule per sentence: every percentage is whole, so none has decimals.
        text.contains("(median age 59.5 years [range 47–73]; male/female: 50%/50%;"),
        "{text}"
    );
    assert!(text.contains("Drug X is an oral inhibitor. We report the 8 pts"));
    assert!(text.contains("Conclusions: Drug X showed activity with"));
    // Data strings are as in the data, not escaped: this is not HTML.
    assert!(text.contains("pleura & <other> 2/8 [25%]"), "{text}");

    // The fixture's rule: 400 words, title not counted. Count independently.
    let (_title, body) = text.split_once("\n\n").expect("title paragraph");
    let words = body.split_whitespace().count();
    let results: Value = serde_json::from_str(&read(&folder, "results.json")).expect("json");
    let length = &results["cohorts"][0]["abstract_length"];
    assert_eq!(length["count"], words);
    assert_eq!(length["limit"], 400);
    assert_eq!(length["unit"], "words");
    assert_eq!(length["title_counted"], false);
    assert_eq!(length["within_limit"], true);
}

#[test]
fn html_documents_parse_as_html5_and_escape_data_strings() {
    let (_tmp, folder) = build_fixture();
    for file in [
        "cohort-a/abstract.html",
        "cohort-a/report.html",
        "index.html",
    ] {
        let html = read(&folder, file);
        let doc = parse_html5(file, &html);
        assert!(
            doc.select("script").is_empty(),
            "{file}: a data string became a <script> element"
        );
        assert!(!html.contains("<script>"), "{file}: unescaped <script>");
        assert!(
            !html.contains("<link") && !html.contains("src=\"http"),
            "{file}: not self-contained"
        );
    }

    let html = read(&folder, "cohort-a/report.html");
    let doc = parse_html5("report.html", &html);
    // The hostile AE term is shown as text, in its table row, with its counts.
    let rows: Vec<String> = doc
        .select("#safety table.terms tbody tr")
        .iter()
        .map(text)
        .collect();
    let hostile = rows
        .iter()
        .find(|r| r.contains("<script>alert(1)</script>"))
        .expect("the AE term is shown as text");
    assert!(hostile.contains("Investigations & <tests>"), "{hostile}");
    assert!(hostile.contains("1 (12.5%)"), "{hostile}");
    let hypertension = rows
        .iter()
        .find(|r| r.starts_with("Hypertension"))
        .expect("hypertension row");
    // TEAE any 3/8, grade ≥3 2/8; TRAE the same (all related).
    assert!(
        hypertension.contains("3 (37.5%)2 (25.0%)3 (37.5%)2 (25.0%)"),
        "{hypertension}"
    );

    // Tables: baseline n (%), response with ORR/DCR CIs, time to event, landmarks.
    let cells = |css: &str| -> Vec<String> { doc.select(css).iter().map(text).collect() };
    let baseline = cells("#baseline tbody th, #baseline tbody td").join("|");
    assert!(
        baseline.contains("Age, years, median (range)|59.5 (47–73)"),
        "{baseline}"
    );
    assert!(
        baseline.contains("Pleura & <other>|2 (25.0%)"),
        "{baseline}"
    );
    let response = cells("#response tbody th, #response tbody td").join("|");
    assert!(
        response.contains("Complete response (CR)|1 (12.5%)"),
        "{response}"
    );
    assert!(
        response.contains("Objective response rate (CR + PR)|3 (37.5%)|8.5%, 75.5%"),
        "{response}"
    );
    assert!(
        response.contains("Disease control rate|6 (75.0%)|34.9%, 96.8%"),
        "{response}"
    );
    let tte = cells("#time-to-event tbody th, #time-to-event tbody td").join("|");
    assert!(tte.contains("OS|8|2 (25.0%)|NR (5.0, NE)"), "{tte}");
    assert!(tte.contains("OS|6 months|"), "{tte}");
    assert!(tte.contains("87.5%|38.7%, 98.1%"), "{tte}");
    assert_eq!(
        doc.select("#figures figure svg").len(),
        7,
        "every figure inline"
    );
    let title = doc.select("h1").first().map(text).unwrap_or_default();
    // One cohort: the study's title without the population suffix.
    assert_eq!(title, "Drug X in advanced thoracic tumours");

    // index.html links every document of the cohort, and the study files.
    let index = read(&folder, "index.html");
    let doc = parse_html5("index.html", &index);
    let links: Vec<String> = doc
        .select("a")
        .iter()
        .filter_map(|a| attr(a, "href"))
        .collect();
    for href in [
        "cohort-a/abstract.html",
        "cohort-a/report.html",
        "cohort-a/abstract.txt",
        "cohort-a/abstract.md",
        "cohort-a/abstract.docx",
        "cohort-a/report.docx",
        "cohort-a/figures/km-os.svg",
        "results.json",
        "manifest.json",
        "derived/cohort-a.csv",
    ] {
        assert!(
            links.iter().any(|l| l == href),
            "index.html lacks {href}: {links:?}"
        );
        assert!(folder.join(href).is_file(), "{href} linked but missing");
    }
}

#[test]
fn word_documents_have_the_numbers_real_tables_and_figures() {
    let (_tmp, folder) = build_fixture();
    let (xml, parts) = docx_parts(&folder.join("cohort-a/abstract.docx"));
    let text = docx_text(&xml);
    assert!(
        text.contains("Drug X in advanced thoracic tumours Background:"),
        "{text}"
    );
    assert!(
        text.contains("the confirmed ORR was 37.5% (3/8; 95% CI: 8.5%, 75.5%)"),
        "{text}"
    );
    assert!(
        text.contains("Results:"),
        "the section label is a run of its own"
    );
    assert!(parts.iter().any(|p| p == "word/styles.xml"));

    let (xml, parts) = docx_parts(&folder.join("cohort-a/report.docx"));
    let text = docx_text(&xml);
    for expected in [
        "Objective response rate (CR + PR)",
        "3 (37.5%)",
        "8.5%, 75.5%",
        "NR (5.0, NE)",
        "<script>alert(1)</script>",
        "Pleura & <other>",
        "59.5 (47–73)",
        "Kaplan–Meier",
    ] {
        assert!(
            text.contains(expected),
            "report.docx lacks {expected:?}:\n{text}"
        );
    }
    let tables = xml.matches("<w:tbl>").count();
    assert!(tables >= 6, "{tables} tables");
    let images = parts
        .iter()
        .filter(|p| p.starts_with("word/media/") && p.ends_with(".png"))
        .count();
    assert_eq!(images, 7, "one PNG per figure: {parts:?}");
    assert!(xml.contains("w:val=\"Heading1\""), "real headings");
    // Three-line tables: a rule above and below each table and under its header row, no grid.
    let doc = roxmltree::Document::parse(&xml).expect("document.xml is XML");
    for borders in doc
        .descendants()
        .filter(|n| n.tag_name().name() == "tblBorders")
    {
        let sides: Vec<&str> = borders
            .children()
            .filter(|n| n.is_element())
            .map(|n| n.tag_name().name())
            .collect();
        assert_eq!(sides, ["top", "bottom"], "table rules");
    }
    for borders in doc
        .descendants()
        .filter(|n| n.tag_name().name() == "tcBorders")
    {
        let sides: Vec<&str> = borders
            .children()
            .filter(|n| n.is_element())
            .map(|n| n.tag_name().name())
            .collect();
        assert_eq!(
            sides,
            ["bottom"],
            "only the header row has a rule of its own"
        );
    }
}

#[test]
fn word_documents_are_byte_identical_between_builds() {
    let (_a, first) = build_fixture();
    let (_b, second) = build_fixture();
    for file in [
        "cohort-a/abstract.docx",
        "cohort-a/report.docx",
        "cohort-a/report.html",
        "index.html",
    ] {
        let x = std::fs::read(first.join(file)).expect("first");
        let y = std::fs::read(second.join(file)).expect("second");
        assert!(x == y, "{file} differs between two builds");
    }
}

#[test]
fn a_user_template_overrides_one_template_and_the_rest_stay_built_in() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let templates = fixture().join("templates-override");
    let config = variant(
        tmp.path(),
        &format!("  templates: {}\n", templates.display()),
    );
    let Outcome {
        code, stderr: err, ..
    } = build(&config, &tmp.path().join("out"), &["--quiet"]);
    assert_eq!(code, Some(0), "{err}");
    let folder = tmp.path().join("out/DOC-FIXTURE/2021-12-31");
    let md = read(&folder, "cohort-a/abstract.md");
    assert_eq!(
        md,
        // A `.md` template escapes what it prints for Markdown, as `.html` ones do for HTML
        // (the built-in marks the config's own Markdown texts `safe`; this one does not).
        "# House style: Drug X in advanced thoracic tumours: Thoracic \\<A\\>\n\nThe confirmed ORR was 38% (3/8 (37.5%)).\n"
    );
    // Not overridden: the built-in abstract.txt and report.html.
    assert!(read(&folder, "cohort-a/abstract.txt").starts_with("Drug X in advanced"));
    assert!(read(&folder, "cohort-a/report.html").contains("Best overall response (confirmed"));
}

/// A user template writes prose with the same filters as the built-in ones: baseline phrases
/// (decoded, natural order, compact or listed), counts in words, plurals, terms with counts.
#[test]
fn a_user_template_uses_the_prose_filters() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let templates = tmp.path().join("templates");
    std::fs::create_dir_all(&templates).expect("dir");
    std::fs::write(
        templates.join("abstract.txt"),
        "{% for b in cohort.baseline %}{{ b | baseline_phrase | sentence }}.\n{% endfor %}\
         {{ cohort.n.enrolled | spell(capital=true) }} {{ cohort.n.enrolled | plural(one=\"pt\") }}, \
         {{ 1 | spell }} {{ 1 | plural(one=\"responder\") }}: {{ trae_grade3_terms | counted_terms }}.\n",
    )
    .expect("template");
    let config = variant(
        tmp.path(),
        &format!("  templates: {}\n", templates.display()),
    );
    let Outcome {
        code, stderr: err, ..
    } = build(&config, &tmp.path().join("out"), &["--quiet"]);
    assert_eq!(code, Some(0), "{err}");
    let text = read(
        &tmp.path().join("out/DOC-FIXTURE/2021-12-31"),
        "cohort-a/abstract.txt",
    );
    assert_eq!(
        text,
        "Median age 59.5 years (range 47–73).\n\
         Male/female: 50.0%/50.0%.\n\
         Primary site: lung 6/8 (75.0%), pleura & <other> 2/8 (25.0%).\n\
         Eight pts, one responder: hypertension in 2; <script>alert(1)</script> in 1.\n"
    );
}

/// The error of a build with a template folder, paths replaced by placeholders.
fn template_error(folder: &str) -> String {
    let tmp = tempfile::tempdir().expect("temp dir");
    let templates = fixture().join(folder);
    let config = variant(
        tmp.path(),
        &format!("  templates: {}\n", templates.display()),
    );
    let out = tmp.path().join("out");
    let Outcome {
        code,
        stdout,
        stderr: err,
    } = build(&config, &out, &["--quiet"]);
    assert_eq!(code, Some(2), "{folder}: exit code; stdout {stdout}");
    assert!(
        !out.join("DOC-FIXTURE").exists(),
        "{folder}: nothing written"
    );
    // The error line itself; the build's closing tally is the command line's business.
    err.lines()
        .filter(|l| l.starts_with("error:"))
        .collect::<Vec<_>>()
        .join("\n")
        .replace(&root().display().to_string(), "[ROOT]")
        .replace(&tmp.path().display().to_string(), "[TMP]")
}

#[test]
fn a_template_syntax_error_names_the_file_line_and_column() {
    let err = template_error("templates-syntax-error");
    assert!(err.contains("template `abstract.md`"), "{err}");
    assert!(err.contains("templates-syntax-error/abstract.md"), "{err}");
    assert!(err.contains("line 4, column 43"), "{err}");
    insta::assert_snapshot!(err);
}

#[test]
fn an_unknown_variable_names_the_included_template_and_line() {
    let err = template_error("templates-unknown-variable");
    assert!(err.contains("template `abstract-results.txt`"), "{err}");
    assert!(err.contains("line 3:"), "{err}");
    assert!(err.contains("cohort.respons.orr.rate"), "{err}");
    insta::assert_snapshot!(err);
}

#[test]
fn strict_makes_an_overrun_an_error_and_writes_nothing() {
    let tmp = tempfile::tempdir().expect("temp dir");
    // Replace the fixture's 400-word rule by one the abstract cannot meet.
    let config = variant(tmp.path(), "");
    let text = std::fs::read_to_string(&config).expect("config").replace(
        "conference: { limit: 400, counts: words, title: false }",
        "conference: { limit: 100, counts: chars_no_spaces }",
    );
    std::fs::write(&config, text).expect("write");
    let out = tmp.path().join("out");

    let Outcome {
        code,
        stdout,
        stderr: err,
    } = build(&config, &out, &["--strict"]);
    assert_eq!(code, Some(2), "{stdout}{err}");
    assert!(!out.exists(), "--strict wrote something");
    assert!(err.contains("--strict"), "{err}");
    assert!(
        err.contains("cohort-a (2021-12-31): ")
            && err.contains("/100 characters excluding spaces (custom, title counted)"),
        "{err}"
    );

    // Without --strict the build succeeds and says by how much the abstract is over.
    let Outcome {
        code,
        stdout,
        stderr: err,
    } = build(&config, &out, &[]);
    assert_eq!(code, Some(0), "{err}");
    let line = stdout
        .lines()
        .find(|l| l.starts_with("abstract DOC-FIXTURE 2021-12-31 cohort-a:"))
        .unwrap_or_else(|| panic!("no abstract length line:\n{stdout}"));
    assert!(line.contains("OVER the limit by"), "{line}");
}

#[test]
fn conference_names_and_rules_are_checked_in_the_config() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let config = variant(tmp.path(), "");
    let original = std::fs::read_to_string(&config).expect("config");
    let check = |conference: &str| {
        let text = original.replace(
            "conference: { limit: 400, counts: words, title: false }",
            conference,
        );
        std::fs::write(&config, text).expect("write");
        let output = readout_command()
            .arg("check")
            .arg(&config)
            .output()
            .expect("run");
        (
            output.status.code(),
            String::from_utf8(output.stderr)
                .expect("utf-8")
                .replace(&tmp.path().display().to_string(), "[TMP]"),
        )
    };
    for ok in [
        "conference: asco",
        "conference: WCLC",
        "conference: { limit: 3000 }",
    ] {
        let (code, err) = check(ok);
        assert_eq!(code, Some(0), "{ok}: {err}");
    }
    let (code, err) = check("conference: asco2024");
    assert_eq!(code, Some(2));
    assert!(err.contains("unknown conference `asco2024`"), "{err}");
    insta::assert_snapshot!("unknown_conference", err);
    let (code, err) = check("conference: { limit: 10, count: words }");
    assert_eq!(code, Some(2));
    assert!(err.contains("count"), "{err}");
}

/// Opens `report.html` in headless Chromium, takes a screenshot, and fails on any console
/// message (the report has no script, so any message is a fault) or a blank page. Ignored
/// unless run with `--include-ignored`: it needs Debian's chromium, which `.ci/run` installs.
#[test]
#[ignore = "needs /usr/bin/chromium (Debian's chromium)"]
fn report_renders_in_headless_chromium() {
    let chromium = Path::new("/usr/bin/chromium");
    assert!(chromium.exists(), "/usr/bin/chromium is not installed");
    let (tmp, folder) = build_fixture();
    let report = folder.join("cohort-a/report.html");
    let shot = tmp.path().join("report.png");
    let output = std::process::Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--enable-logging=stderr",
            "--v=0",
            "--window-size=1100,1600",
        ])
        .arg(format!(
            "--user-data-dir={}",
            tmp.path().join("profile").display()
        ))
        .arg(format!("--screenshot={}", shot.display()))
        .arg(format!("file://{}", report.display()))
        .output()
        .expect("run chromium");
    let log = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "chromium failed: {log}");
    let console: Vec<&str> = log.lines().filter(|l| l.contains(":CONSOLE")).collect();
    assert!(console.is_empty(), "console messages: {console:#?}");

    let png = std::fs::read(&shot).expect("screenshot written");
    let pixmap = resvg::tiny_skia::Pixmap::decode_png(&png).expect("a PNG");
    assert_eq!((pixmap.width(), pixmap.height()), (1100, 1600));
    let pixels = pixmap.pixels();
    let inked = pixels
        .iter()
        .filter(|p| p.red() < 200 || p.green() < 200 || p.blue() < 200)
        .count();
    let share = inked as f64 / pixels.len() as f64;
    assert!(
        share > 0.01,
        "the page looks blank: {:.2}% of pixels carry ink",
        share * 100.0
    );
}

/// Two cohorts of the same data with different number settings in one build: each abstract
/// uses its own (the renderer keeps one template instance per set of settings).
#[test]
fn cohorts_with_different_decimals_in_one_build_each_use_their_own() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let config = variant(tmp.path(), "");
    let text = std::fs::read_to_string(&config).expect("config");
    let second = "  - id: cohort-b\n    where: { COHORT: A }\n    analysis: { percent_decimals: 2, time_decimals: 3, ci_level: 0.9 }\noutput:\n";
    std::fs::write(&config, text.replacen("output:\n", second, 1)).expect("write config");
    let Outcome {
        code, stderr: err, ..
    } = build(&config, &tmp.path().join("out"), &["--quiet"]);
    assert_eq!(code, Some(0), "{err}");
    let folder = tmp.path().join("out/DOC-FIXTURE/2021-12-31");
    let a = read(&folder, "cohort-a/abstract.txt");
    let b = read(&folder, "cohort-b/abstract.txt");
    assert!(
        a.contains("the confirmed ORR was 37.5% (3/8; 95% CI: 8.5%, 75.5%)"),
        "{a}"
    );
    assert!(
        b.contains("the confirmed ORR was 37.50% (3/8; 90% CI: "),
        "{b}"
    );
    assert!(a.contains("median follow-up was 9.7 months"), "{a}");
    assert!(
        b.contains("median follow-up was 9.") && !b.contains("was 9.7 months"),
        "{b}"
    );
}

/// Within the limit, `--strict` writes the same folder as a build without it (each cut-off is
/// built once and written after every abstract was measured).
#[test]
fn strict_within_the_limit_writes_what_a_plain_build_writes() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let config = variant(tmp.path(), "");
    let (strict, plain) = (tmp.path().join("strict"), tmp.path().join("plain"));
    let Outcome {
        code, stderr: err, ..
    } = build(&config, &strict, &["--strict", "--quiet"]);
    assert_eq!(code, Some(0), "{err}");
    let Outcome {
        code, stderr: err, ..
    } = build(&config, &plain, &["--quiet"]);
    assert_eq!(code, Some(0), "{err}");
    let folder = "DOC-FIXTURE/2021-12-31";
    for file in [
        "results.json",
        "manifest.json",
        "cohort-a/abstract.md",
        "cohort-a/report.html",
        "cohort-a/abstract.docx",
    ] {
        let a = std::fs::read(strict.join(folder).join(file)).expect("strict file");
        let b = std::fs::read(plain.join(folder).join(file)).expect("plain file");
        assert!(a == b, "{file} differs between --strict and a plain build");
    }
}

/// The PNGs inside a .docx, by part name.
fn docx_images(path: &Path) -> Vec<Vec<u8>> {
    let file = std::fs::File::open(path).expect("docx");
    let mut archive = zip::ZipArchive::new(file).expect("a .docx is a zip archive");
    let names: Vec<String> = archive
        .file_names()
        .map(|n| n.expect("name").to_string())
        .filter(|n| n.starts_with("word/media/") && n.ends_with(".png"))
        .collect();
    let mut images = Vec::new();
    for name in names {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut archive.by_name(&name).expect("part"), &mut bytes)
            .expect("read");
        images.push(bytes);
    }
    images.sort();
    images
}

#[test]
fn word_report_takes_the_figures_png_files_when_both_are_asked_for() {
    // With PNG files asked for, report.docx embeds those very files; without, it rasterises
    // the figures itself, to the same bytes (compared as sets: the order is the report's).
    let tmp = tempfile::tempdir().expect("temp dir");
    let config = variant(tmp.path(), "");
    let text = std::fs::read_to_string(&config).expect("config");
    assert!(text.contains("formats: [md, html, docx]"));
    let with_png = tmp.path().join("with-png.yaml");
    std::fs::write(
        &with_png,
        text.replace(
            "formats: [md, html, docx]",
            "formats: [md, html, png, docx]",
        ),
    )
    .expect("write");
    let Outcome {
        code, stderr: err, ..
    } = build(&with_png, &tmp.path().join("a"), &["--quiet"]);
    assert_eq!(code, Some(0), "{err}");
    let Outcome {
        code, stderr: err, ..
    } = build(&config, &tmp.path().join("b"), &["--quiet"]);
    assert_eq!(code, Some(0), "{err}");
    let folder = tmp.path().join("a/DOC-FIXTURE/2021-12-31/cohort-a");
    let mut files: Vec<Vec<u8>> = std::fs::read_dir(folder.join("figures"))
        .expect("figures")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "png"))
        .map(|p| std::fs::read(p).expect("png"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 7);
    assert_eq!(docx_images(&folder.join("report.docx")), files);
    let alone = tmp
        .path()
        .join("b/DOC-FIXTURE/2021-12-31/cohort-a/report.docx");
    assert_eq!(docx_images(&alone), files);
}

/// A study built from tiny data written here: ADSL, ADTTE with OS only and no death, ADAE with
/// `grading` columns. Returns the temp folder and the cohort folder.
fn truthful_study(ae_header: &str, ae_rows: &[&str]) -> (tempfile::TempDir, PathBuf) {
    truthful_study_with(
        "USUBJID,SITEID,TRTSDT,LSTALVDT,SAFFL\nS-1,01,2021-01-04,2021-12-01,Y\n\
         S-2,01,2021-02-01,2021-12-01,Y\nS-3,02,2021-03-01,2021-12-01,Y\n",
        ae_header,
        ae_rows,
    )
}

/// [`truthful_study`] with its ADSL given.
fn truthful_study_with(
    adsl: &str,
    ae_header: &str,
    ae_rows: &[&str],
) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path();
    std::fs::write(dir.join("adsl.csv"), adsl).expect("adsl");
    std::fs::write(
        dir.join("adtte.csv"),
        "USUBJID,PARAMCD,AVAL,CNSR,AVALU\nS-1,OS,300,1,DAYS\nS-2,OS,280,1,DAYS\nS-3,OS,250,1,DAYS\n",
    )
    .expect("adtte");
    let mut adae = format!("USUBJID,AEDECOD,AEREL,{ae_header}\n");
    for row in ae_rows {
        adae += row;
        adae.push('\n');
    }
    std::fs::write(dir.join("adae.csv"), adae).expect("adae");
    std::fs::write(
        dir.join("study.yaml"),
        "study: { id: TRUE }\ndata: { adsl: adsl.csv, adtte: adtte.csv, adae: adae.csv }\n\
         output: { formats: [md, html, docx] }\ncohorts: [{ id: all }]\n",
    )
    .expect("config");
    let Outcome {
        code, stderr: err, ..
    } = build(&dir.join("study.yaml"), &dir.join("out"), &["--quiet"]);
    assert_eq!(code, Some(0), "{err}");
    let folder = dir.join("out/TRUE/no-cutoff/all");
    (tmp, folder)
}

/// Severity-only adverse events are reported as "severe", in words, tables and Methods; CTCAE
/// grades as "grade ≥3". With no response data, Methods says nothing of RECIST; with no death,
/// the abstract says so instead of a median not reached.
#[test]
fn words_follow_the_data_severity_grades_and_endpoints() {
    let (_tmp, folder) = truthful_study(
        "AESEV",
        &[
            "S-1,NAUSEA,Y,SEVERE",
            "S-2,NAUSEA,Y,MILD",
            "S-3,RASH,N,MODERATE",
        ],
    );
    let text = read(&folder, "abstract.txt");
    assert!(
        text.contains("TRAEs) occurred in 2 pts (66.7%) and severe TRAEs in 1 (33.3%)"),
        "{text}"
    );
    // Few severe terms: listed by term with their counts.
    assert!(
        text.contains("and severe TRAEs in 1 (33.3%): nausea in 1."),
        "{text}"
    );
    assert!(
        text.contains(
            "Adverse events were graded by severity (mild, moderate, severe), not per CTCAE."
        ),
        "{text}"
    );
    assert!(text.contains("No deaths occurred."), "{text}");
    assert!(
        text.contains("The most common TRAE was nausea (2/3, 66.7%)."),
        "{text}"
    );
    for absent in [
        "grade ≥",
        "RECIST",
        "ORR",
        "not reached",
        "0 pts",
        "Methods:  ",
    ] {
        assert!(!text.contains(absent), "`{absent}` in {text}");
    }
    let report = read(&folder, "report.html");
    assert!(
        report.contains("<th scope=\"row\">Severe</th>")
            && report.contains("<th scope=\"row\">Fatal</th>")
    );
    assert!(
        !report.contains("Grade ≥") && !report.contains("grade 5"),
        "{report}"
    );
    let (xml, _) = docx_parts(&folder.join("report.docx"));
    let words = docx_text(&xml);
    assert!(
        words.contains("Severe") && words.contains("Any severity"),
        "{words}"
    );
    assert!(
        !words.contains("Grade ≥") && !words.contains("grade 5"),
        "{words}"
    );

    let (_tmp, folder) = truthful_study(
        "ATOXGR",
        &["S-1,NAUSEA,Y,3", "S-2,NAUSEA,Y,1", "S-3,RASH,N,2"],
    );
    let text = read(&folder, "abstract.txt");
    assert!(text.contains("and grade ≥3 TRAEs in 1 (33.3%)"), "{text}");
    assert!(
        text.contains("Adverse events were graded per CTCAE."),
        "{text}"
    );
    assert!(!text.contains("severe"), "{text}");
    let report = read(&folder, "report.html");
    assert!(
        report.contains("<th scope=\"row\">Grade ≥3</th>") && report.contains("Fatal (grade 5)")
    );
}

/// Populations that differ from the enrolled set are named with their flag: efficacy numbers
/// over EFFFL = Y, safety percentages over the safety population.
#[test]
fn the_population_of_each_number_is_named() {
    let (_tmp, folder) = truthful_study_with(
        "USUBJID,SITEID,TRTSDT,LSTALVDT,SAFFL,EFFFL\nS-1,01,2021-01-04,2021-12-01,Y,Y\n\
         S-2,01,2021-02-01,2021-12-01,N,Y\nS-3,02,2021-03-01,2021-12-01,Y,N\n",
        "ATOXGR",
        &["S-1,NAUSEA,Y,3", "S-3,RASH,Y,1"],
    );
    let text = read(&folder, "abstract.txt");
    assert!(
        text.contains(
            "3 pts were enrolled in 2 centers. Efficacy was evaluated in 2 pts (efficacy population)."
        ),
        "{text}"
    );
    assert!(
        text.contains("In the 2 pts of the safety population, treatment-related adverse events (TRAEs) occurred in 2 pts (100.0%)"),
        "{text}"
    );
    let report = read(&folder, "report.html");
    assert!(
        report.contains(
            "<th scope=\"row\">Efficacy population (EFFFL = Y)</th><td class=\"num\">2</td>"
        ),
        "{report}"
    );
    assert!(
        report.contains(
            "<th scope=\"row\">Safety population (SAFFL = Y)</th><td class=\"num\">2</td>"
        ),
        "{report}"
    );
}

/// A custom endpoint carries its label into the abstract, the figure's title and caption:
/// never the bare PARAMCD in words.
#[test]
fn a_custom_endpoint_is_named_by_its_label() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path();
    std::fs::write(
        dir.join("adsl.csv"),
        "USUBJID,TRTSDT\nS-1,2021-01-04\nS-2,2021-02-01\nS-3,2021-03-01\n",
    )
    .expect("adsl");
    std::fs::write(
        dir.join("adtte.csv"),
        "USUBJID,PARAMCD,AVAL,CNSR,AVALU\nS-1,TTDE,30,0,DAYS\nS-2,TTDE,60,1,DAYS\nS-3,TTDE,90,0,DAYS\n",
    )
    .expect("adtte");
    std::fs::write(
        dir.join("study.yaml"),
        "study: { id: LABEL }\ndata: { adsl: adsl.csv, adtte: adtte.csv }\n\
         analysis:\n  time_unit: days\n  followup: TTDE\n  tte_params:\n    TTDE: { paramcd: TTDE, label: \"time to first dermatologic event\" }\n\
         output: { formats: [md, html] }\ncohorts: [{ id: all }]\n",
    )
    .expect("config");
    let Outcome {
        code, stderr: err, ..
    } = build(&dir.join("study.yaml"), &dir.join("out"), &["--quiet"]);
    assert_eq!(code, Some(0), "{err}");
    let folder = dir.join("out/LABEL/no-cutoff/all");
    let text = read(&folder, "abstract.txt");
    assert!(
        text.contains(
            "For time to first dermatologic event, 2 events (66.7%) occurred and the median was 90.0 days"
        ),
        "{text}"
    );
    let report = read(&folder, "report.html");
    assert!(
        report.contains("Kaplan–Meier estimate of time to first dermatologic event with pointwise"),
        "{report}"
    );
    let svg = read(&folder, "figures/km-ttde.svg");
    assert!(
        svg.contains("Time to first dermatologic event: all"),
        "title"
    );
    assert!(!text.to_lowercase().contains("ttde"), "{text}");
}

/// A company's reference document as Word saves one, reduced to what readout reads: a styles
/// part setting Georgia, with `extra` styles.
fn write_reference(path: &Path, extra: &str) {
    use std::io::Write;
    let mut zip = zip::ZipWriter::new(std::fs::File::create(path).expect("create"));
    zip.start_file("word/styles.xml", zip::write::SimpleFileOptions::default())
        .expect("part");
    write!(
        zip,
        r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:docDefaults><w:rPrDefault><w:rPr><w:rFonts w:ascii="Georgia" w:hAnsi="Georgia" /></w:rPr></w:rPrDefault></w:docDefaults>{extra}</w:styles>"#
    )
    .expect("write");
    zip.finish().expect("zip");
}

/// `output.docx_reference`: the Word files take the reference document's styles part (its
/// fonts and heading styles), the text is unchanged, and the reference is hashed in the
/// manifest; a file that is not a .docx is an error naming the key.
#[test]
fn word_files_take_the_styles_of_a_reference_document() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let reference = tmp.path().join("house.docx");
    write_reference(&reference, "");
    let config = variant(tmp.path(), "  docx_reference: house.docx\n");
    let out = tmp.path().join("out");
    let Outcome {
        code, stderr: err, ..
    } = build(&config, &out, &["--quiet"]);
    assert_eq!(code, Some(0), "{err}");
    let folder = out.join("DOC-FIXTURE/2021-12-31");
    let styles = |docx: &Path| {
        let mut archive =
            zip::ZipArchive::new(std::fs::File::open(docx).expect("docx")).expect("zip");
        let mut text = String::new();
        std::io::Read::read_to_string(
            &mut archive.by_name("word/styles.xml").expect("styles"),
            &mut text,
        )
        .expect("utf-8");
        text
    };
    for file in ["abstract.docx", "report.docx"] {
        let text = styles(&folder.join("cohort-a").join(file));
        assert!(
            text.contains("Georgia") && !text.contains("Arial"),
            "{file}"
        );
    }
    let (xml, _) = docx_parts(&folder.join("cohort-a/report.docx"));
    assert!(docx_text(&xml).contains("Objective response rate (CR + PR)"));
    // The reference has no table style `Table`: the tables keep the house rules.
    assert!(xml.contains("<w:tcBorders>"), "no rule under the header");
    let manifest = std::fs::read_to_string(folder.join("manifest.json")).expect("manifest");
    assert!(manifest.contains("house.docx"), "{manifest}");

    // A reference with a table style `Table` (as pandoc's reference documents have): the
    // tables are set in it alone, with no lines of their own.
    write_reference(
        &reference,
        r#"<w:style w:type="table" w:styleId="Table"><w:name w:val="Table" /></w:style>"#,
    );
    let out = tmp.path().join("out-styled");
    let Outcome {
        code, stderr: err, ..
    } = build(&config, &out, &["--quiet"]);
    assert_eq!(code, Some(0), "{err}");
    let (xml, _) = docx_parts(&out.join("DOC-FIXTURE/2021-12-31/cohort-a/report.docx"));
    assert!(
        xml.contains(r#"<w:tblStyle w:val="Table" />"#),
        "no table style"
    );
    assert!(!xml.contains("<w:tcBorders>"), "a rule of the table's own");
    assert!(
        !xml.contains("<w:top w:val=\"single\""),
        "a line of the table's own"
    );

    std::fs::write(&reference, "not a zip").expect("write");
    let Outcome {
        code, stderr: err, ..
    } = build(&config, &tmp.path().join("out2"), &["--quiet"]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("key `output.docx_reference`: ") && err.contains("not a .docx"),
        "{err}"
    );
}

/// A reference with its own default header and footer (its company line, its page field)
/// gives report.docx those parts; one whose header has a picture of its own (a relationship)
/// leaves readout's header; a header that is not XML is an error at the key.
#[test]
fn the_report_takes_a_reference_documents_own_header_and_footer() {
    use std::io::Write;
    let write = |path: &Path, header: &str, header_rels: Option<&str>| {
        let mut zip = zip::ZipWriter::new(std::fs::File::create(path).expect("create"));
        let options = zip::write::SimpleFileOptions::default();
        let w = r#"xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main""#;
        let mut part = |name: &str, text: &str| {
            zip.start_file(name, options).expect("part");
            zip.write_all(text.as_bytes()).expect("write");
        };
        part("word/styles.xml", &format!("<w:styles {w}></w:styles>"));
        part(
            "word/document.xml",
            &format!(
                r#"<w:document {w} xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><w:body><w:p /><w:sectPr><w:headerReference w:type="default" r:id="rId8" /><w:footerReference w:type="default" r:id="rId9" /></w:sectPr></w:body></w:document>"#
            ),
        );
        part(
            "word/_rels/document.xml.rels",
            r#"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId8" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/header" Target="header2.xml"/><Relationship Id="rId9" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/footer" Target="footer3.xml"/></Relationships>"#,
        );
        part("word/header2.xml", &header.replace("{w}", w));
        part(
            "word/footer3.xml",
            &format!(
                r#"<w:ftr {w}><w:p><w:r><w:t>ACME page </w:t></w:r><w:fldSimple w:instr=" PAGE "><w:r><w:t>1</w:t></w:r></w:fldSimple></w:p></w:ftr>"#
            ),
        );
        if let Some(rels) = header_rels {
            part("word/_rels/header2.xml.rels", rels);
        }
        zip.finish().expect("zip");
    };
    let header =
        r#"<w:hdr {w}><w:p><w:r><w:t>ACME Oncology · Confidential</w:t></w:r></w:p></w:hdr>"#;
    let tmp = tempfile::tempdir().expect("temp dir");
    let reference = tmp.path().join("house.docx");
    write(&reference, header, None);
    let config = variant(tmp.path(), "  docx_reference: house.docx\n");
    let part = |out: &Path, name: &str| {
        let docx = out.join("DOC-FIXTURE/2021-12-31/cohort-a/report.docx");
        let mut archive =
            zip::ZipArchive::new(std::fs::File::open(docx).expect("docx")).expect("zip");
        let mut text = String::new();
        std::io::Read::read_to_string(&mut archive.by_name(name).expect("part"), &mut text)
            .expect("utf-8");
        text
    };
    let out = tmp.path().join("out");
    let Outcome {
        code, stderr: err, ..
    } = build(&config, &out, &["--quiet"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(part(&out, "word/header1.xml").contains("ACME Oncology · Confidential"));
    let footer = part(&out, "word/footer1.xml");
    assert!(
        footer.contains("ACME page") && footer.contains(r#"w:instr=" PAGE ""#),
        "{footer}"
    );
    // abstract.docx has no running header, whatever the reference.
    let abstract_docx = out.join("DOC-FIXTURE/2021-12-31/cohort-a/abstract.docx");
    let archive =
        zip::ZipArchive::new(std::fs::File::open(abstract_docx).expect("docx")).expect("zip");
    assert!(!archive
        .file_names()
        .any(|n| n.is_ok_and(|n| n.contains("header"))));

    // A header with a picture of its own: readout's header, the reference's footer.
    write(
        &reference,
        header,
        Some(
            r#"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="media/logo.png"/></Relationships>"#,
        ),
    );
    let out = tmp.path().join("out-logo");
    let Outcome {
        code, stderr: err, ..
    } = build(&config, &out, &["--quiet"]);
    assert_eq!(code, Some(0), "{err}");
    let own = part(&out, "word/header1.xml");
    assert!(
        !own.contains("ACME") && own.contains("DOC-FIXTURE"),
        "{own}"
    );
    assert!(part(&out, "word/footer1.xml").contains("ACME page"));

    // A header that is not XML: an error at the key, naming the part.
    write(&reference, "<w:hdr {w}><w:p>", None);
    let Outcome {
        code, stderr: err, ..
    } = build(&config, &tmp.path().join("out-bad"), &["--quiet"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("key `output.docx_reference`: ")
            && err.contains("word/header2.xml is not well-formed XML"),
        "{err}"
    );
}

/// Word tables set as a report needs them on paper: each header row repeats atop every page
/// the table spans (`w:tblHeader`), no row splits across pages (`w:cantSplit`), a number cell
/// ("148 (100.0%)", "0.59 (0.45–0.76)") never breaks (no-break spaces, a word joiner after
/// the dash), and each number column is at least as wide as its widest cell. (Checked by eye
/// in LibreOffice too: docs/OUTPUTS.md.)
#[test]
fn word_tables_repeat_their_header_and_keep_numbers_whole() {
    let (_tmp, folder) = build_fixture();
    let (xml, _) = docx_parts(&folder.join("cohort-a/report.docx"));
    let doc = roxmltree::Document::parse(&xml).expect("XML");
    let named =
        |n: &roxmltree::Node<'_, '_>, name: &str| n.is_element() && n.tag_name().name() == name;
    let mut checked = 0;
    for table in doc.descendants().filter(|n| named(n, "tbl")) {
        let widths: Vec<usize> = table
            .descendants()
            .filter(|n| named(n, "gridCol"))
            .filter_map(|n| {
                n.attributes()
                    .find(|a| a.name() == "w")
                    .and_then(|a| a.value().parse().ok())
            })
            .collect();
        let rows: Vec<_> = table.children().filter(|n| named(n, "tr")).collect();
        let header_rows = rows
            .iter()
            .take_while(|r| r.descendants().any(|n| named(&n, "tblHeader")))
            .count();
        assert!(header_rows >= 1, "a table without a repeated header row");
        for row in &rows {
            assert!(row.descendants().any(|n| named(&n, "cantSplit")));
        }
        for row in rows.iter().skip(header_rows) {
            let mut column = 0;
            for cell in row.children().filter(|n| named(n, "tc")) {
                let span: usize = cell
                    .descendants()
                    .find(|n| named(n, "gridSpan"))
                    .and_then(|n| n.attributes().find(|a| a.name() == "val"))
                    .and_then(|a| a.value().parse().ok())
                    .unwrap_or(1);
                let right = cell
                    .descendants()
                    .any(|n| named(&n, "jc") && n.attributes().any(|a| a.value() == "right"));
                let text: String = cell
                    .descendants()
                    .filter(|n| named(n, "t"))
                    .filter_map(|n| n.text())
                    .collect();
                let chars = text.chars().filter(|c| *c != '\u{2060}').count();
                if right && span == 1 && !text.is_empty() && chars <= 24 {
                    assert!(!text.contains(' '), "`{text}` can break");
                    assert!(
                        widths[column] >= chars * 100 + 240,
                        "`{text}` is wider than its column ({} twips)",
                        widths[column]
                    );
                    checked += 1;
                }
                column += span;
            }
        }
    }
    assert!(checked > 20, "{checked} number cells checked");
}

/// report.html of a cohort with four arms (long names) and a Total column fits a 1,200-pixel
/// window in headless Chromium: the document is no wider than the window and no table needs
/// scrolling (the populations table was 1,728 pixels wide: its header cells and date ranges
/// did not wrap), the CSR adverse-event tables with their [events] and long MedDRA names too. Ignored unless run with `--include-ignored`: it needs Debian's chromium.
#[test]
#[ignore = "needs /usr/bin/chromium (Debian's chromium)"]
fn a_report_of_four_arms_fits_1200_pixels_in_chromium() {
    let chromium = Path::new("/usr/bin/chromium");
    assert!(chromium.exists(), "/usr/bin/chromium is not installed");
    let tmp = tempfile::tempdir().expect("temp dir");
    let arms = [
        "Drug X 10 mg/kg + chemotherapy",
        "Drug X 20 mg/kg + chemotherapy",
        "Drug Y 5 mg + chemotherapy",
        "Placebo + chemotherapy",
    ];
    let mut adsl = String::from("USUBJID,ARM,TRTSDT,RANDDT,SITEID,EFFFL,SAFFL,SEX\n");
    let mut adtte = String::from("USUBJID,PARAMCD,AVAL,CNSR\n");
    for i in 0..200 {
        let date = format!("2021-{:02}-{:02}", 1 + i % 12, 1 + i % 27);
        adsl.push_str(&format!(
            "S{i},{},{date},{date},{},Y,Y,{}\n",
            arms[i % 4],
            i % 7,
            ["M", "F"][i % 2]
        ));
        adtte.push_str(&format!("S{i},OS,{},{}\n", 10 + (i * 37) % 890, i % 2));
    }
    std::fs::write(tmp.path().join("adsl.csv"), adsl).expect("adsl");
    std::fs::write(tmp.path().join("adtte.csv"), adtte).expect("adtte");
    // Adverse events with MedDRA's longest names, for the CSR tables with their [events].
    let mut adae = String::from("USUBJID,AEBODSYS,AEDECOD,AETOXGR,AESER,AEREL\n");
    for i in 0..400 {
        let (soc, term) = [
            (
                "General disorders and administration site conditions",
                "Application site hypersensitivity",
            ),
            (
                "Neoplasms benign, malignant and unspecified (incl cysts and polyps)",
                "Tumour associated fever",
            ),
            (
                "Injury, poisoning and procedural complications",
                "Infusion related hypersensitivity reaction",
            ),
        ][i % 3];
        adae.push_str(&format!(
            "S{},\"{soc}\",{term},{},N,Y\n",
            i % 200,
            1 + i % 4
        ));
    }
    std::fs::write(tmp.path().join("adae.csv"), adae).expect("adae");
    let config = tmp.path().join("study.yaml");
    std::fs::write(
        &config,
        "study: { id: W4 }\ndata: { adsl: adsl.csv, adtte: adtte.csv, adae: adae.csv }\n\
         analysis: { tte_params: { OS: OS }, followup: OS, ae_events: true }\ncohorts:\n  - id: all\n    \
         arms: { column: ARM, reference: \"Placebo + chemotherapy\" }\n    baseline:\n      \
         - { column: SEX, kind: categorical, label: \"Sex\" }\noutput: { formats: [md, html] }\n",
    )
    .expect("config");
    let out = tmp.path().join("out");
    crate::common::build_quietly(&out, &config).success();
    let report = std::fs::read_to_string(out.join("W4/no-cutoff/all/report.html")).expect("report");
    // The page measures itself into an attribute that --dump-dom shows.
    let probe = report.replace(
        "</body>",
        "<script>var m=0;document.querySelectorAll('div.table').forEach(function(d){\
         m=Math.max(m,d.scrollWidth-d.clientWidth)});document.body.setAttribute('data-width',\
         document.documentElement.scrollWidth);document.body.setAttribute('data-overflow',m)\
         </script></body>",
    );
    let page = tmp.path().join("probe.html");
    std::fs::write(&page, probe).expect("probe");
    let output = std::process::Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--window-size=1200,900",
            "--dump-dom",
        ])
        .arg(format!(
            "--user-data-dir={}",
            tmp.path().join("profile").display()
        ))
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs");
    let dom = String::from_utf8_lossy(&output.stdout);
    let attribute = |name: &str| -> u32 {
        let at = dom
            .find(&format!("{name}=\""))
            .unwrap_or_else(|| panic!("no {name} in {dom}"));
        dom[at + name.len() + 2..]
            .split('"')
            .next()
            .and_then(|v| v.parse().ok())
            .expect("a number")
    };
    assert!(
        attribute("data-width") <= 1200,
        "{}",
        attribute("data-width")
    );
    assert_eq!(attribute("data-overflow"), 0);
}

/// A figure left out for want of data is a warning of the cohort: listed in the report
/// (rendered before the entry is made) and in `results.json` (the entry made once, at the
/// end, with every stage's warnings), once each.
#[test]
fn a_figure_left_out_is_in_the_report_and_in_results_json() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let data = tmp.path().join("data");
    std::fs::create_dir(&data).expect("data dir");
    for file in ["adsl.csv", "adrs.csv", "adtr.csv"] {
        std::fs::copy(fixture().join(file), data.join(file)).expect("copy");
    }
    // No adverse event related to treatment: no bar to draw in ae-trae.
    let adae = std::fs::read_to_string(fixture().join("adae.csv")).expect("adae");
    let unrelated = adae
        .replace(",RELATED,", ",NOT RELATED,")
        .replace(",POSSIBLE,", ",NOT RELATED,");
    std::fs::write(data.join("adae.csv"), unrelated).expect("write adae");
    let config = variant(tmp.path(), "");
    let text = std::fs::read_to_string(&config).expect("config");
    let text = text.replace(
        &format!("dir: {}", fixture().display()),
        &format!("dir: {}", data.display()),
    );
    std::fs::write(&config, text).expect("config");
    let out = tmp.path().join("out");
    let Outcome { code, stderr, .. } = build(&config, &out, &["--quiet"]);
    assert_eq!(code, Some(0), "{stderr}");
    let folder = out.join("DOC-FIXTURE/2021-12-31");
    let note = "figure ae-trae skipped: no data to draw";
    let results: Value = serde_json::from_str(&read(&folder, "results.json")).expect("json");
    let warnings: Vec<&str> = results["cohorts"][0]["warnings"]
        .as_array()
        .expect("warnings")
        .iter()
        .filter_map(Value::as_str)
        .filter(|m| *m == note)
        .collect();
    assert_eq!(warnings, [note]);
    let cohort = results["cohorts"][0]["id"].as_str().expect("id");
    let report = read(&folder, &format!("{cohort}/report.html"));
    assert_eq!(report.matches(note).count(), 1, "{}", without_svg(&report));
}
