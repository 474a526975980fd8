//! User templates and references, run through the real binary: HTML from user
//! templates goes through the sanitizer, Markdown keeps no live link or raw HTML from config
//! texts, and a Word reference's styles part is read with a cap and checked as XML.
//! The study is the hostile fixture's data (`tests/fixtures/hostile/`) with a config written
//! by each test.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use markup5ever_rcdom::{Handle, NodeData};

use crate::common::{build, files_under, readout};
use crate::html::{attrs, text, Html};

const STUDY: &str = "study:\n  id: PLAIN\ndata:\n  adsl: adsl.csv\n  adrs: adrs.csv\n  adae: adae.csv\ncutoff: 2021-12-31\ncohorts:\n  - id: all\n";

/// The hostile fixture's data and `STUDY` followed by `extra` as `study.yaml` in `dir`;
/// returns the config's path.
fn study(dir: &Path, extra: &str) -> PathBuf {
    for file in ["adsl.csv", "adrs.csv", "adae.csv"] {
        std::fs::copy(
            crate::common::root()
                .join("tests/fixtures/hostile")
                .join(file),
            dir.join(file),
        )
        .expect("copy data");
    }
    let path = dir.join("study.yaml");
    std::fs::write(&path, format!("{STUDY}{extra}")).expect("config");
    path
}

/// `readout ARGS` from the repository root: exit code, stdout, stderr.
/// The cut-off folder of `config` built into `out`, which must succeed.
fn built(config: &Path, out: &Path) -> PathBuf {
    let run = build(config, out, &["--quiet"]);
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    out.join("PLAIN/2021-12-31")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A URL a browser would run or render as a document of its own, read as the browser reads
/// it; written here independently of readout's own checks.
fn runs_script(url: &str) -> bool {
    let url: String = url
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let url = url
        .trim_start_matches(|c: char| c <= ' ')
        .to_ascii_lowercase();
    ["javascript:", "vbscript:", "data:", "file:"]
        .iter()
        .any(|scheme| url.starts_with(scheme))
}

/// Panics on anything in `html`, as html5ever parses it, that could run script: a script
/// element, an event handler attribute, a URL attribute with a script target, a `<base>` or
/// a refresh.
fn assert_inert(html: &str, what: &str) {
    let document = Html::parse(html);
    for element in document.elements() {
        let name = name(&element);
        assert!(
            !["script", "base", "iframe", "object", "embed"].contains(&name.as_str()),
            "{what}: <{name}>"
        );
        for (attr, value) in attrs(&element) {
            let attr = attr.to_ascii_lowercase();
            assert!(
                !attr.starts_with("on"),
                "{what}: <{name} {attr}=\"{value}\">"
            );
            assert!(attr != "http-equiv", "{what}: <{name} http-equiv>");
            if ["href", "src", "action", "formaction", "srcset", "data"].contains(&attr.as_str()) {
                assert!(!runs_script(&value), "{what}: live {attr}=\"{value}\"");
            }
        }
    }
}

/// A user `abstract.html` with every finding of issue 28 against the URL filter (numeric
/// references over 8 digits, anchors after `<!-->` and `--!>`, `<svg><style>`), a `<script>`
/// and `onerror=`, a refresh and a `<base>`: none of it is live in the document written,
/// which is still a whole document with its title, style sheet, links and figures.
#[test]
fn a_user_template_cannot_run_script_and_keeps_its_figures() {
    let tmp = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir(tmp.path().join("t")).expect("mkdir");
    std::fs::write(
        tmp.path().join("t/abstract.html"),
        concat!(
            "<!DOCTYPE html>\n<html lang=\"en-GB\">\n<head>\n<meta charset=\"utf-8\">\n",
            "<meta http-equiv=\"refresh\" content=\"0;url=javascript:alert(0)\">\n",
            "<title>{{ text.title }}</title>\n<style>body { color: #123456 }</style>\n",
            "<script>alert('head')</script>\n<base href=\"javascript:alert(9)//\">\n</head>\n",
            "<body class=\"mine\">\n",
            "<a href=\"javascript&#0000000000058;alert(1)\">a</a>\n",
            "<a href=\"javascript&#x0000000003A;alert(2)\">b</a>\n",
            "<!--> <a href=\"javascript:alert(3)\">c</a>\n",
            "<!-- --!> <a href=\"javascript:alert(4)\">d</a>\n",
            "<svg><style><p></p><a href=\"javascript:alert(5)\">e</a></style></svg>\n",
            "<script>alert(6)</script>\n<img src=x onerror=alert(7)>\n",
            "<p><a href=\"https://example.org/\">web</a> <a href=\"mailto:a@example.org\">mail</a> ",
            "<a href=\"figures/km-os.svg\">file</a> <a href=\"#fig-km-os\">here</a></p>\n",
            "{{ body | safe }}\n",
            "{% for f in figures %}<figure id=\"fig-{{ f.name }}\">{{ f.svg | safe }}",
            "<figcaption>{{ f.caption }}</figcaption></figure>\n{% endfor %}",
            "</body>\n</html>\n"
        ),
    )
    .expect("template");
    let config = study(
        tmp.path(),
        "output:\n  formats: [md, html]\n  templates: t\n",
    );
    let folder = built(&config, &tmp.path().join("out"));
    let html = read(&folder.join("all/abstract.html"));
    assert_inert(&html, "abstract.html");
    for path in files_under(&folder) {
        if path.extension().is_some_and(|e| e == "html") {
            assert_inert(&read(&path), &path.display().to_string());
        }
    }
    // The template's own attempts are gone (`alert(1)` is in an AE term, printed as text).
    for n in [0, 2, 3, 4, 5, 6, 7, 9] {
        assert!(
            !html.contains(&format!("alert({n})")),
            "alert({n}) in {html}"
        );
    }

    let document = Html::parse(&html);
    assert!(html.starts_with("<!DOCTYPE html>\n<html lang=\"en-GB\">\n<head>\n"));
    let title = document.select("head title");
    assert_eq!(title.len(), 1);
    assert_eq!(text(&title[0]), "PLAIN: all");
    let style = document.select("head style");
    assert!(text(&style[0]).contains("#123456"), "the style sheet went");
    assert_eq!(
        crate::html::attr(&document.select("body")[0], "class").as_deref(),
        Some("mine")
    );
    let hrefs: Vec<String> = document
        .select("a")
        .iter()
        .filter_map(|a| crate::html::attr(a, "href"))
        .collect();
    assert_eq!(
        hrefs,
        [
            "https://example.org/",
            "mailto:a@example.org",
            "figures/km-os.svg",
            "#fig-km-os"
        ]
    );
    // The abstract's text (Markdown → HTML) and every figure, drawn as in its file.
    assert!(html.contains("<strong>Methods:</strong>"), "{html}");
    let figures: Vec<PathBuf> = files_under(&folder.join("all/figures"));
    assert!(figures.len() >= 3, "{figures:?}");
    for path in figures {
        let name = path
            .file_stem()
            .expect("stem")
            .to_string_lossy()
            .into_owned();
        let drawn = Html::parse(&read(&path));
        let inline = document.select(&format!("#fig-{name} svg"));
        assert_eq!(inline.len(), 1, "figure {name}");
        let inline_elements =
            crate::html::select_in(&inline[0], "rect, polyline, polygon, circle, text");
        let file_elements = drawn.select("rect, polyline, polygon, circle, text");
        assert!(!file_elements.is_empty());
        assert_eq!(inline_elements.len(), file_elements.len(), "figure {name}");
        for (a, b) in inline_elements.iter().zip(&file_elements) {
            assert_eq!(attrs(a), attrs(b), "figure {name}");
        }
    }
}

/// An element's local name.
fn name(node: &Handle) -> String {
    match &node.data {
        NodeData::Element { name, .. } => name.local.to_string(),
        _ => String::new(),
    }
}

/// The text directly in an element, not in its children.
fn own_text(node: &Handle) -> String {
    let mut out = String::new();
    for child in node.children.borrow().iter() {
        if let NodeData::Text { contents } = &child.data {
            out.push_str(&contents.borrow());
        }
    }
    out
}

/// An element as a reader meets it: its name, attributes and the text directly in it.
type Shape = (String, Vec<(String, String)>, String);

/// Every element of `html` in order with its attributes (but the `rel` the sanitizer gives
/// links) and the text directly in it.
fn shape(html: &str) -> Vec<Shape> {
    Html::parse(html)
        .elements()
        .iter()
        .map(|e| {
            let attributes = attrs(e).into_iter().filter(|(n, _)| n != "rel").collect();
            (name(e), attributes, own_text(e))
        })
        .collect()
}

/// With a templates folder (here holding one file no document uses) every HTML document goes
/// through the sanitizer; readout's own documents come out the same to a reader: the same
/// elements, attributes, text, tables, figures and style sheet. Without one they are written
/// as rendered (the recorded hashes of `example_study` hold them to the byte).
#[test]
fn the_built_in_documents_survive_the_sanitizer_whole() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let plain = built(
        &study(tmp.path(), "output:\n  formats: [md, html]\n"),
        &tmp.path().join("plain"),
    );
    std::fs::create_dir(tmp.path().join("t")).expect("mkdir");
    std::fs::write(tmp.path().join("t/unused.html"), "<p>not used</p>").expect("write");
    let sanitized = built(
        &study(
            tmp.path(),
            "output:\n  formats: [md, html]\n  templates: t\n",
        ),
        &tmp.path().join("sanitized"),
    );
    for file in ["all/abstract.html", "all/report.html", "index.html"] {
        let (before, after) = (read(&plain.join(file)), read(&sanitized.join(file)));
        // The sanitizer's marks: links get `rel`, SVG elements an end tag.
        for mark in ["rel=\"noopener", "</polyline>"] {
            assert!(!before.contains(mark), "{file} was sanitized");
        }
        assert!(
            after.contains("rel=\"noopener") || after.contains("</polyline>"),
            "{file} was not sanitized"
        );
        let (before, after) = (shape(&before), shape(&after));
        assert!(before.iter().any(|(n, ..)| n == "polyline") || file == "index.html");
        assert_eq!(before.len(), after.len(), "{file}");
        for (b, a) in before.iter().zip(&after) {
            assert_eq!(b, a, "{file}");
        }
    }
}

/// Links, images, reference definitions and raw HTML in config texts and the study title
/// that pandoc or a static site generator would make live: none is left in abstract.md as
/// CommonMark reads it, nor in the forms other readers take (`<img/src…>`, pandoc's
/// `{=html}` and `{onclick=…}`); web, mail and relative links and emphasis stay. abstract.txt
/// carries no tag and no link syntax, and abstract.html no live link.
#[test]
fn markdown_and_text_carry_no_live_link_or_raw_html() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let config = study(
        tmp.path(),
        concat!(
            "    title: \"Drug X <img src=x onerror=alert(0)> [t](javascript:alert(1))\"\n",
            "    background: |-\n",
            "      Plain [ok](https://example.org/), [mail](mailto:a@example.org), [rel](figures/km-os.svg) and *emphasis* stay;\n",
            "      [p](JaVaScRiPt:alert(2)) ![x](data:text/html;base64,PHNjcmlwdD5hbGVydCgzKTwvc2NyaXB0Pg==)\n",
            "      [q][r] [s](javascript&#00000058;alert(4)) <javascript:alert(5)>\n",
            "      <img src=x onerror=alert(6)> <img/src=x onerror=alert(7)> `<b>`{=html} [y]{onclick=alert(8)}\n",
            "\n",
            "      [r]: javascript:alert(9)\n",
            "    conclusions: \"<script>alert(10)</script> Active.\"\n",
            "output:\n  formats: [md, html]\n",
        ),
    );
    let folder = built(&config, &tmp.path().join("out"));
    let md = read(&folder.join("all/abstract.md"));
    use pulldown_cmark::{Event, Parser, Tag};
    let parser = Parser::new(&md);
    for (_, def) in parser.reference_definitions().iter() {
        assert!(!runs_script(&def.dest), "definition {} in {md}", def.dest);
    }
    let mut links = Vec::new();
    for event in parser {
        match event {
            Event::Html(h) | Event::InlineHtml(h) => panic!("raw HTML {h:?} in {md}"),
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                assert!(!runs_script(&dest_url), "{dest_url} in {md}");
                links.push(dest_url.to_string());
            }
            _ => {}
        }
    }
    assert_eq!(
        links,
        [
            "https://example.org/",
            "mailto:a@example.org",
            "figures/km-os.svg"
        ],
        "{md}"
    );
    // Data values (the AE terms) are printed escaped: `\<script\>`.
    let unescaped = md.replace("\\<", "");
    for gone in [
        "<img",
        "<script",
        "](JaVaScRiPt",
        "](data:",
        "\n[r]:",
        "`{=html}",
        "]{onclick",
    ] {
        assert!(!unescaped.contains(gone), "{gone} in {md}");
    }
    for kept in ["*emphasis*", "[ok](https://example.org/)", "Active."] {
        assert!(md.contains(kept), "{kept} not in {md}");
    }

    // Plain text: what Markdown reads as raw HTML is left out, and no link syntax is left;
    // the rest is text (`<img/src…>` is text to CommonMark, `<script>` in an AE term is data).
    let txt = read(&folder.join("all/abstract.txt"));
    for gone in [
        "<img src",
        "alert(0)",
        "alert(6)",
        "<script>alert(10)",
        "](https",
        "](JaVaScRiPt",
        "]: javascript",
    ] {
        assert!(!txt.contains(gone), "{gone} in {txt}");
    }
    assert!(txt.contains("Conclusions: alert(10) Active."), "{txt}");
    assert!(txt.starts_with("Drug X"), "{txt}");
    assert!(
        txt.contains("Plain ok, mail, rel and emphasis stay"),
        "{txt}"
    );

    let html = read(&folder.join("all/abstract.html"));
    assert_inert(&html, "abstract.html");
}

/// A zip holding `word/styles.xml` (and a document part), the styles part compressed with
/// `method`.
fn docx(styles: &[u8], method: zip::CompressionMethod) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = |method| zip::write::SimpleFileOptions::default().compression_method(method);
    zip.start_file(
        "word/document.xml",
        options(zip::CompressionMethod::Deflated),
    )
    .expect("start");
    zip.write_all(
        b"<w:document xmlns:w=\"http://schemas.openxmlformats.org/wordprocessingml/2006/main\"/>",
    )
    .expect("write");
    zip.start_file("word/styles.xml", options(method))
        .expect("start");
    zip.write_all(styles).expect("write");
    zip.finish().expect("finish").into_inner()
}

const W: &str = "http://schemas.openxmlformats.org/wordprocessingml/2006/main";

/// `styles` as a stored part whose headers then name bzip2 (method 12), which readout's zip
/// reader does not decompress.
fn docx_bzip2(styles: &[u8]) -> Vec<u8> {
    let mut bytes = docx(styles, zip::CompressionMethod::Stored);
    // The styles entry's local header, and its central directory record.
    for (signature, offset) in [(&b"PK\x03\x04"[..], 8), (&b"PK\x01\x02"[..], 10)] {
        let at = bytes
            .windows(4)
            .enumerate()
            .filter(|(_, w)| *w == signature)
            .map(|(i, _)| i)
            .nth(1)
            .expect("the styles entry");
        bytes[at + offset..at + offset + 2].copy_from_slice(&12u16.to_le_bytes());
    }
    bytes
}

/// A reference document whose styles part holds a DTD (external entity, entity expansion),
/// text that is not XML or not UTF-8, another root, 17 MiB of decompressed text, or a
/// compression readout cannot read: `check` and `build` refuse it at `output.docx_reference`,
/// naming the file and the problem, and nothing is written.
#[test]
fn a_word_reference_that_is_not_a_plain_styles_part_is_refused() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let styles = |inner: &str| format!("<w:styles xmlns:w=\"{W}\">{inner}</w:styles>");
    let lol = format!(
        "<?xml version=\"1.0\"?><!DOCTYPE w:styles [<!ENTITY a \"aaaaaaaaaa\">{}]>{}",
        (1..10)
            .map(|i| format!(
                "<!ENTITY {} \"{}\">",
                (b'a' + i) as char,
                format!("&{};", (b'a' + i - 1) as char).repeat(10)
            ))
            .collect::<String>(),
        styles("<w:style>&j;</w:style>")
    );
    let mut big = styles("").into_bytes();
    big.splice(big.len() - 11..big.len() - 11, vec![b' '; 17 << 20]);
    let another_root = format!(
        "the root element of its word/styles.xml is <document> in namespace `{W}`; expected <w:styles>"
    );
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "external entity",
            docx(
                format!(
                    "<?xml version=\"1.0\"?><!DOCTYPE w:styles [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>{}",
                    styles("&x;")
                )
                .as_bytes(),
                zip::CompressionMethod::Deflated,
            ),
            "word/styles.xml holds a DTD (<!DOCTYPE>), which could declare entities",
        ),
        (
            "entity expansion",
            docx(lol.as_bytes(), zip::CompressionMethod::Deflated),
            "holds a DTD",
        ),
        (
            "not XML",
            docx(b"these are not styles", zip::CompressionMethod::Deflated),
            "word/styles.xml is not well-formed XML",
        ),
        (
            "not UTF-8",
            docx(b"\xff\xfe<\x00w\x00", zip::CompressionMethod::Deflated),
            "word/styles.xml is not UTF-8 text",
        ),
        (
            "another root",
            docx(
                format!("<w:document xmlns:w=\"{W}\"/>").as_bytes(),
                zip::CompressionMethod::Deflated,
            ),
            &another_root,
        ),
        (
            "too large",
            docx(&big, zip::CompressionMethod::Deflated),
            "word/styles.xml decompresses to more than 16 MiB",
        ),
        (
            "bzip2",
            docx_bzip2(styles("").as_bytes()),
            "word/styles.xml is compressed with bzip2 (method 12), which readout does not read",
        ),
    ];
    for (what, bytes, expected) in &cases {
        std::fs::write(tmp.path().join("ref.docx"), bytes).expect("reference");
        let config = study(
            tmp.path(),
            "output:\n  formats: [md, docx]\n  docx_reference: ref.docx\n",
        );
        let started = std::time::Instant::now();
        let check = readout(&["check".as_ref(), config.as_os_str()]);
        let (code, check) = (check.code, check.stderr);
        assert_eq!(code, Some(2), "{what}: {check}");
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "{what}"
        );
        assert!(
            check.contains("key `output.docx_reference`")
                && check.contains("ref.docx")
                && check.contains(expected),
            "{what}: {check}"
        );
        let out = tmp.path().join("out");
        let run = build(&config, &out, &[]);
        let (code, stderr) = (run.code, run.stderr);
        assert_eq!(code, Some(2), "{what}: {stderr}");
        assert!(stderr.contains(expected), "{what}: {stderr}");
        assert!(
            files_under(&out).is_empty(),
            "{what}: the build wrote files"
        );
    }
}

/// A styles part that is WordprocessingML goes into both Word files as it is.
#[test]
fn a_word_reference_with_a_styles_part_is_copied_into_both_word_files() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let styles = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n<w:styles xmlns:w=\"{W}\"><w:style w:type=\"paragraph\" w:styleId=\"Title\"><w:name w:val=\"Title\"/></w:style></w:styles>"
    );
    std::fs::write(
        tmp.path().join("ref.docx"),
        docx(styles.as_bytes(), zip::CompressionMethod::Deflated),
    )
    .expect("reference");
    let config = study(
        tmp.path(),
        "output:\n  formats: [md, docx]\n  docx_reference: ref.docx\n",
    );
    let folder = built(&config, &tmp.path().join("out"));
    for file in ["abstract.docx", "report.docx"] {
        let bytes = std::fs::read(folder.join("all").join(file)).expect("docx");
        let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).expect("zip");
        let mut part = archive.by_name("word/styles.xml").expect("styles part");
        let mut written = String::new();
        std::io::Read::read_to_string(&mut part, &mut written).expect("read");
        assert_eq!(written, styles, "{file}");
    }
}

/// Pieces of HTML that parsers disagree on or that carry script, joined at random.
const PIECES: &[&str] = &[
    "<a href=\"javascript&#0000000000058;alert(1)\">",
    "<a href=javascript&#x0000000003A;alert(1)>",
    "<a href=\"java&Tab;script:x\">",
    "<a href=\"https://example.org/\">",
    "<img src=x onerror=alert(1)>",
    "<img/src=x/onerror=alert(1)>",
    "<svg>",
    "</svg>",
    "<math>",
    "<mtext>",
    "<mglyph>",
    "<style>",
    "</style>",
    "<title>",
    "</title>",
    "<textarea>",
    "<noscript>",
    "<template>",
    "<table>",
    "<p>",
    "</p>",
    "<!-->",
    "<!--->",
    "<!--",
    "--!>",
    "-->",
    "<script>alert(1)</script>",
    "<head>",
    "<body onload=alert(1)>",
    "<base href=javascript:x//>",
    "<meta http-equiv=refresh content=\"0;url=javascript:x\">",
    "<foreignObject>",
    "<a xlink:href=\"javascript:x\">",
    "<form action=javascript:x>",
    "\"",
    "'",
    ">",
    "text",
    "&lt;",
    "&",
];

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 512, ..Default::default() })]

    /// The sanitizer on any mix of those pieces: nothing live as html5ever reads the result,
    /// and the result sanitized again is the same (what is written is what was checked).
    #[test]
    fn the_sanitizer_leaves_nothing_live_and_is_stable(
        pieces in proptest::collection::vec(proptest::sample::select(PIECES), 0..40)
    ) {
        let clean = readout::documents::render::html::sanitize_document(&pieces.concat());
        assert_inert(&clean, &clean);
        proptest::prop_assert_eq!(readout::documents::render::html::sanitize_document(&clean), clean);
    }

    /// The Markdown pass on any mix of Markdown pieces: no raw HTML and no unsafe target left
    /// as CommonMark reads the result, and the pass again changes nothing.
    #[test]
    fn the_markdown_pass_leaves_nothing_live_and_is_stable(
        pieces in proptest::collection::vec(proptest::sample::select(MD_PIECES), 0..40)
    ) {
        let md = pieces.concat();
        let once = readout::documents::render::markdown::neutralise(&md).into_owned();
        let parser = pulldown_cmark::Parser::new(&once);
        for (_, def) in parser.reference_definitions().iter() {
            proptest::prop_assert!(!runs_script(&def.dest), "{once:?}");
        }
        for event in parser {
            match event {
                pulldown_cmark::Event::Html(_) | pulldown_cmark::Event::InlineHtml(_) => {
                    proptest::prop_assert!(false, "raw HTML in {once:?}")
                }
                pulldown_cmark::Event::Start(
                    pulldown_cmark::Tag::Link { dest_url, .. }
                    | pulldown_cmark::Tag::Image { dest_url, .. },
                ) => proptest::prop_assert!(!runs_script(&dest_url), "{once:?}"),
                _ => {}
            }
        }
        proptest::prop_assert_eq!(readout::documents::render::markdown::neutralise(&once).into_owned(), once);
    }
}

/// Pieces of Markdown with links, images, definitions and raw HTML, joined at random.
const MD_PIECES: &[&str] = &[
    "[",
    "]",
    "(",
    ")",
    "![",
    "](javascript:alert(1))",
    "](https://example.org/)",
    "](<javascript:x>)",
    "[r]",
    "[r]: javascript:alert(1)\n",
    "[r]: https://example.org/\n",
    "<javascript:alert(1)>",
    "<https://example.org/>",
    "<img src=x onerror=alert(1)>",
    "<div>\n",
    "</div>\n",
    "<!--",
    "-->",
    "`",
    "```\n",
    "{=html}",
    "{onclick=x}",
    "\\",
    "*",
    "\n",
    "\n\n",
    "    ",
    "> ",
    "- ",
    "text ",
    "&#106;",
    "&lt;",
];
