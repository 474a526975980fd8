//! `slides.pptx` (docs/OUTPUTS.md): a package whose every part parses and whose every
//! relationship resolves, native tables and pictures, the same bytes from the same results, a
//! company template's master and size taken (and a bad one refused at its key), and the
//! slides' words replaceable by a user template.

use std::collections::BTreeMap;
use std::io::{Cursor, Read, Write};
use std::path::{Path, PathBuf};

use crate::common::{build_quietly, files_under, read_json, readout_command, Run};

/// Every part of a `.pptx`, by name.
pub(crate) fn parts(bytes: &[u8]) -> BTreeMap<String, Vec<u8>> {
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes)).expect("zip");
    let mut parts = BTreeMap::new();
    for i in 0..archive.len() {
        let mut file = archive.by_index(i).expect("entry");
        let mut data = Vec::new();
        file.read_to_end(&mut data).expect("read");
        parts.insert(file.name().expect("a readable part name").to_string(), data);
    }
    parts
}

fn text(parts: &BTreeMap<String, Vec<u8>>, name: &str) -> String {
    String::from_utf8(
        parts
            .get(name)
            .unwrap_or_else(|| panic!("{name} missing"))
            .clone(),
    )
    .expect("utf-8")
}

/// The package opens without repair: every XML part parses, every internal relationship
/// points at a part of the package, every part has a content type, the presentation lists
/// every slide. Returns the slides' XML in order.
fn check_package(bytes: &[u8]) -> Vec<String> {
    let parts = parts(bytes);
    let types = text(&parts, "[Content_Types].xml");
    let types = roxmltree::Document::parse(&types).expect("content types parse");
    let defaults: Vec<String> = types
        .descendants()
        .filter_map(|n| n.attribute("Extension").map(str::to_ascii_lowercase))
        .collect();
    let overrides: Vec<&str> = types
        .descendants()
        .filter_map(|n| n.attribute("PartName"))
        .collect();
    for (name, data) in &parts {
        if name.ends_with(".xml") || name.ends_with(".rels") {
            let xml = std::str::from_utf8(data).expect("utf-8 part");
            roxmltree::Document::parse(xml).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        if name != "[Content_Types].xml" {
            let ext = name.rsplit('.').next().unwrap_or("").to_ascii_lowercase();
            assert!(
                overrides.contains(&format!("/{name}").as_str()) || defaults.contains(&ext),
                "{name} has no content type"
            );
        }
        if let Some((dir, file)) = name.rsplit_once("_rels/") {
            let source_dir = dir.trim_end_matches('/');
            let _ = file;
            let rels = roxmltree::Document::parse(std::str::from_utf8(data).expect("utf-8"))
                .expect("rels");
            for r in rels
                .descendants()
                .filter(|n| n.has_tag_name("Relationship"))
            {
                if r.attribute("TargetMode") == Some("External") {
                    continue;
                }
                let target = r.attribute("Target").expect("target");
                let mut path: Vec<&str> = if target.starts_with('/') {
                    Vec::new()
                } else {
                    source_dir.split('/').filter(|p| !p.is_empty()).collect()
                };
                for piece in target.split('/').filter(|p| !p.is_empty()) {
                    if piece == ".." {
                        path.pop();
                    } else {
                        path.push(piece);
                    }
                }
                let resolved = path.join("/");
                assert!(
                    parts.contains_key(&resolved),
                    "{name}: {target} ({resolved}) is not in the package"
                );
            }
        }
    }
    let presentation = text(&parts, "ppt/presentation.xml");
    let count = presentation.matches("<p:sldId ").count();
    assert!(count > 0);
    (1..=count)
        .map(|n| text(&parts, &format!("ppt/slides/slide{n}.xml")))
        .collect()
}

fn decks(out: &Path) -> Vec<PathBuf> {
    files_under(out)
        .into_iter()
        .filter(|p| p.ends_with("slides.pptx"))
        .collect()
}

#[test]
fn both_examples_write_decks_that_open_without_repair() {
    for (config, tables, pictures) in [
        ("config/rand-example.yaml", 4, 4),
        ("config/altn-ak105-ii-01.yaml", 3, 3),
    ] {
        let out = tempfile::tempdir().expect("temp");
        build_quietly(out.path(), Path::new(config)).success();
        let decks = decks(out.path());
        assert!(!decks.is_empty(), "{config}: no deck");
        for deck in decks {
            let bytes = std::fs::read(&deck).expect("deck");
            let slides = check_package(&bytes);
            let all = slides.join("\n");
            assert!(
                all.matches("<a:tbl>").count() >= tables,
                "{}: native tables",
                deck.display()
            );
            assert!(
                all.matches("<p:pic>").count() >= pictures,
                "{}: pictures",
                deck.display()
            );
            // Text is text: the title slide's words and a KM slide's median are runs.
            assert!(slides[0].contains("<p:ph type=\"ctrTitle\"/>"));
            assert!(all.contains("Data cut-off: "), "{}", deck.display());
            assert!(all.contains("<a:t>Conclusions</a:t>"));
            let presentation = text(&parts(&bytes), "ppt/presentation.xml");
            assert!(
                presentation.contains(r#"<p:sldSz cx="12192000" cy="6858000"/>"#),
                "16:9"
            );
        }
    }
    // The randomised deck has the hazard ratio as text beside the KM picture and a forest plot.
    let out = tempfile::tempdir().expect("temp");
    build_quietly(out.path(), Path::new("config/rand-example.yaml")).success();
    let deck = std::fs::read(&decks(out.path())[0]).expect("deck");
    let all = check_package(&deck).join("\n");
    assert!(
        all.contains("stratified HR 0.59 (95% CI: 0.45, 0.76); stratified log-rank p &lt; 0.001"),
        "the HR as in the abstract"
    );
    assert!(all.contains("name=\"forest-pfs\""));
    assert!(all.contains("<a:t>Any TRAE</a:t>"));
    // Built again, the same bytes.
    let again = tempfile::tempdir().expect("temp");
    build_quietly(again.path(), Path::new("config/rand-example.yaml")).success();
    assert_eq!(deck, std::fs::read(&decks(again.path())[0]).expect("deck"));
}

/// A config over the tiny fixture writing decks, with `output` lines added.
fn tiny(dir: &Path, output: &str) -> PathBuf {
    let data = Path::new("tests/fixtures/tiny")
        .canonicalize()
        .expect("fixture");
    let config = format!(
        "study:\n  id: DECK\ndata:\n  dir: {}\n  adsl: adsl.csv\n  adrs: adrs.csv\ncutoff: 2021-04-30\n\
         cohorts:\n  - id: all\noutput:\n  formats: [pptx]\n{output}",
        data.display()
    );
    let path = dir.join("study.yaml");
    std::fs::write(&path, config).expect("config");
    path
}

/// A company template made from a deck: 4:3, its own accent colour and layout name, and a
/// slide of its own that must not be copied.
fn company_template(deck: &[u8]) -> Vec<u8> {
    let mut out = zip::ZipWriter::new(Cursor::new(Vec::new()));
    for (name, data) in parts(deck) {
        let data = match name.as_str() {
            "ppt/presentation.xml" => String::from_utf8(data)
                .expect("utf-8")
                .replace(
                    r#"<p:sldSz cx="12192000" cy="6858000"/>"#,
                    r#"<p:sldSz cx="9144000" cy="6858000" type="screen4x3"/>"#,
                )
                .into_bytes(),
            "ppt/theme/theme1.xml" => String::from_utf8(data)
                .expect("utf-8")
                .replace("1F77B4", "C00000")
                .into_bytes(),
            "ppt/slides/slide1.xml" => String::from_utf8(data)
                .expect("utf-8")
                .replace("<a:t>", "<a:t>COMPANY SAMPLE ")
                .into_bytes(),
            _ => data,
        };
        out.start_file(name, zip::write::SimpleFileOptions::default())
            .expect("entry");
        out.write_all(&data).expect("write");
    }
    out.finish().expect("zip").into_inner()
}

#[test]
fn a_company_template_gives_its_master_theme_and_size() {
    let tmp = tempfile::tempdir().expect("temp");
    let house = tmp.path().join("house");
    std::fs::create_dir(&house).expect("dir");
    build_quietly(&house.join("out"), &tiny(&house, "")).success();
    let deck = std::fs::read(&decks(&house)[0]).expect("deck");
    let company = tmp.path().join("company");
    std::fs::create_dir(&company).expect("dir");
    std::fs::write(company.join("brand.pptx"), company_template(&deck)).expect("template");
    let config = tiny(&company, "  pptx_reference: brand.pptx\n");
    build_quietly(&company.join("out"), &config).success();
    let made = decks(&company);
    let bytes = std::fs::read(&made[0]).expect("deck");
    check_package(&bytes);
    let parts = parts(&bytes);
    assert!(
        text(&parts, "ppt/presentation.xml").contains(r#"<p:sldSz cx="9144000" cy="6858000"/>"#)
    );
    assert!(text(&parts, "ppt/theme/theme1.xml").contains("C00000"));
    assert!(!parts
        .values()
        .any(|p| String::from_utf8_lossy(p).contains("COMPANY SAMPLE")));
    // The template is an input: its hash is in the manifest.
    let folder = made[0].parent().and_then(Path::parent).expect("folder");
    let manifest = read_json(&folder.join("manifest.json"));
    assert!(manifest["inputs"]
        .as_array()
        .expect("inputs")
        .iter()
        .any(|i| i["path"]
            .as_str()
            .is_some_and(|p| p.ends_with("brand.pptx"))));

    // Not a PowerPoint file: an error at the key, naming the file, nothing built.
    std::fs::write(company.join("brand.pptx"), b"not a zip").expect("write");
    let ran = readout_command()
        .args(["build", "--out"])
        .arg(company.join("out2"))
        .arg(&config)
        .assert()
        .code(2);
    let said = ran.stderr();
    assert!(
        said.contains("key `output.pptx_reference`")
            && said.contains("brand.pptx")
            && said.contains("not a .pptx"),
        "{said}"
    );
}

#[test]
fn a_user_template_replaces_the_slides_words() {
    let tmp = tempfile::tempdir().expect("temp");
    std::fs::create_dir(tmp.path().join("t")).expect("templates");
    std::fs::write(
        tmp.path().join("t/slides.txt"),
        "[title]\nOur own title\nORR {{ cohort.response.orr.rate | pct }}\n[efficacy]\nResponse\n- {{ cohort.n.enrolled }} pts\n",
    )
    .expect("template");
    let config = tiny(tmp.path(), "  templates: t\n");
    build_quietly(&tmp.path().join("out"), &config).success();
    let bytes = std::fs::read(&decks(tmp.path())[0]).expect("deck");
    let slides = check_package(&bytes);
    assert_eq!(slides.len(), 2);
    assert!(
        slides[0].contains("<a:t>Our own title</a:t>")
            && slides[0].contains("<a:t>ORR 33.3%</a:t>")
    );
    assert!(slides[1].contains("<a:t>3 pts</a:t>") && slides[1].contains("<a:tbl>"));
}

/// Words longer than a slide holds are continued on slides of their own, each bullet once and
/// in order, rather than shrunk until they cannot be read.
#[test]
fn long_words_continue_on_further_slides() {
    let tmp = tempfile::tempdir().expect("temp");
    std::fs::create_dir(tmp.path().join("t")).expect("templates");
    std::fs::write(
        tmp.path().join("t/slides.txt"),
        "[notes]\nNotes\n{% for i in range(end=30) %}- Point {{ i }}: a sentence long enough to \
         take most of the width of a slide at the house's twenty points\n{% endfor %}",
    )
    .expect("template");
    let config = tiny(tmp.path(), "  templates: t\n");
    build_quietly(&tmp.path().join("out"), &config).success();
    let bytes = std::fs::read(&decks(tmp.path())[0]).expect("deck");
    let slides = check_package(&bytes);
    assert!(slides.len() >= 3, "{}", slides.len());
    assert!(slides[0].contains("<a:t>Notes</a:t>"));
    for slide in &slides[1..] {
        assert!(slide.contains("<a:t>Notes (continued)</a:t>"), "{slide}");
    }
    let all: String = slides.concat();
    let mut at = 0;
    for i in 0..30 {
        let point = format!("<a:t>Point {i}: ");
        assert_eq!(all.matches(&point).count(), 1, "{point}");
        let found = all.find(&point).expect("point");
        assert!(found > at, "Point {i} out of order");
        at = found;
    }
}

/// A `slides.txt` that repeats a figure slide in a loop stores the picture once (it was
/// rasterised and stored for each slide: 1,000 slides took 10 s and 404 MB, 10,000 aborted);
/// a deck of more than `MAX_SLIDES` slides (30,000 `[safety]` slides aborted) is refused,
/// naming the template, and nothing of the cohort is written.
#[test]
fn a_slides_template_that_repeats_slides_is_bounded() {
    let tmp = tempfile::tempdir().expect("temp");
    std::fs::create_dir(tmp.path().join("t")).expect("templates");
    let many = |n: usize, key: &str| {
        format!("{{% for i in range(end={n}) %}}\n[{key}]\nSlide {{{{ i }}}}\n{{% endfor %}}\n")
    };
    std::fs::write(tmp.path().join("t/slides.txt"), many(400, "km-pfs")).expect("template");
    let data = Path::new("tests/fixtures/tiny")
        .canonicalize()
        .expect("fixture");
    let config = tmp.path().join("study.yaml");
    std::fs::write(
        &config,
        format!(
            "study:\n  id: DECK\ndata:\n  dir: {}\n  adsl: adsl.csv\n  adrs: adrs.csv\ncutoff: 2021-04-30\n\
             cohorts:\n  - id: all\noutput:\n  formats: [pptx]\n  templates: t\n",
            data.display()
        ),
    )
    .expect("config");
    build_quietly(&tmp.path().join("out"), &config).success();
    let bytes = std::fs::read(&decks(tmp.path())[0]).expect("deck");
    let slides = check_package(&bytes);
    assert_eq!(slides.len(), 400);
    let parts = parts(&bytes);
    let media: Vec<&String> = parts
        .keys()
        .filter(|k| k.starts_with("ppt/media/"))
        .collect();
    assert_eq!(media, ["ppt/media/readout-km-pfs.png"]);
    assert!(bytes.len() < 2 << 20, "{} bytes", bytes.len());

    for key in ["km-pfs", "safety", "notes"] {
        std::fs::write(tmp.path().join("t/slides.txt"), many(1001, key)).expect("template");
        let out = tmp.path().join(format!("out-{key}"));
        let ran = readout_command()
            .args(["build", "--quiet", "--out"])
            .arg(&out)
            .arg(&config)
            .assert()
            .code(2);
        let said = ran.stderr();
        assert!(
            said.contains("slides.txt") && said.contains("more than 1000 slides"),
            "{key}: {said}"
        );
        assert!(decks(&out).is_empty());
    }
}
