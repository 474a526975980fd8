//! Hostile configs, templates and data (issue 18), run through the real binary: nothing that
//! reaches a reader's browser can run script, nothing reads the environment, and nothing
//! crashes, hangs or exhausts the build; a failing cohort is named and the others are built.
//! Fixtures: `tests/fixtures/hostile/`.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn hostile(file: &str) -> String {
    format!("tests/fixtures/hostile/{file}")
}

/// What one run of the binary did.
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs `readout ARGS` at the repository root with `env` set.
fn readout(args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut command = Command::cargo_bin("readout").expect("binary");
    command.args(args).current_dir(root()).env("NO_COLOR", "1");
    for (key, value) in env {
        command.env(key, value);
    }
    let output = command.output().expect("run readout");
    let text = |bytes: Vec<u8>| String::from_utf8(bytes).expect("utf-8 output");
    Run {
        code: output.status.code(),
        stdout: text(output.stdout),
        stderr: text(output.stderr),
    }
}

fn assert_no_panic(run: &Run) {
    assert!(
        !run.stderr.contains("panicked") && !run.stderr.contains("RUST_BACKTRACE"),
        "panic: {}",
        run.stderr
    );
}

/// Every file under `dir`.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                found.push(path);
            }
        }
    }
    found
}

/// A URL a browser would run or render as a document of its own: read as the browser reads
/// it (tabs and line breaks dropped, control characters and spaces in front trimmed, any
/// case). Written here independently of readout's own check.
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

/// Every URL attribute of every element of an HTML document, by scraper's (html5ever's)
/// reading, with character references decoded.
fn url_attributes(html: &str) -> Vec<(String, String)> {
    let document = scraper::Html::parse_document(html);
    let mut found = Vec::new();
    for element in document.root_element().descendants_with_self_elements() {
        for (name, value) in element.value().attrs() {
            if [
                "href",
                "src",
                "xlink:href",
                "action",
                "formaction",
                "srcset",
            ]
            .contains(&name.to_ascii_lowercase().as_str())
            {
                found.push((name.to_string(), value.to_string()));
            }
        }
    }
    found
}

trait Descendants {
    fn descendants_with_self_elements(&self) -> Vec<scraper::ElementRef<'_>>;
}

impl Descendants for scraper::ElementRef<'_> {
    fn descendants_with_self_elements(&self) -> Vec<scraper::ElementRef<'_>> {
        self.descendants()
            .filter_map(scraper::ElementRef::wrap)
            .collect()
    }
}

/// Asserts that no HTML file under `dir` holds a URL attribute that runs script; returns the
/// number of HTML files looked at.
fn assert_no_live_script_link(dir: &Path) -> usize {
    let mut html_files = 0;
    for path in files_under(dir) {
        if path.extension().is_some_and(|e| e == "html") {
            html_files += 1;
            let html = std::fs::read_to_string(&path).expect("html");
            for (name, value) in url_attributes(&html) {
                assert!(
                    !runs_script(&value),
                    "{}: live {name}=\"{value}\"",
                    path.display()
                );
            }
            assert!(!html.contains("<script"), "{}: <script>", path.display());
        }
    }
    html_files
}

/// Links and images in config texts and in data (mixed case, character references, a tab in
/// the scheme, autolinks, reference links, raw HTML) come out as text in the abstract, the
/// report and the index; web and mail links stay links.
#[test]
fn no_live_script_link_reaches_any_html_from_config_texts_or_data() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let out = tmp.path().join("out");
    let run = readout(
        &[
            "build",
            &hostile("links.yaml"),
            "--out",
            out.to_str().expect("path"),
        ],
        &[],
    );
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    let folder = out.join("HOSTILE-LINKS/2021-12-31");
    assert_eq!(assert_no_live_script_link(&folder), 3);
    let abstract_html =
        std::fs::read_to_string(folder.join("links/abstract.html")).expect("abstract");
    let urls: Vec<String> = url_attributes(&abstract_html)
        .into_iter()
        .map(|(_, v)| v)
        .collect();
    assert!(
        urls.contains(&"https://example.org/".to_string()),
        "{urls:?}"
    );
    assert!(
        urls.contains(&"mailto:a@example.org".to_string()),
        "{urls:?}"
    );
    // The data value is printed as written, as text.
    assert!(
        abstract_html.contains("[Hypertension](javascript:alert(1))"),
        "the AE term is not shown as text"
    );
    // The link texts stay as the words they were.
    for words in ["title", "Drug <em>X</em> is active"] {
        assert!(abstract_html.contains(words), "{words}");
    }
}

/// `readout diff` writes its HTML from Markdown holding data values (AE terms, subject ids):
/// they are text there too, and its tables are tables.
#[test]
fn the_diff_html_has_no_live_link_and_real_tables() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let out = tmp.path().join("out");
    for cutoff in ["2021-01-31", "2021-12-31"] {
        let run = readout(
            &[
                "build",
                &hostile("links.yaml"),
                "--cutoff",
                cutoff,
                "--out",
                out.to_str().expect("path"),
                "--quiet",
            ],
            &[],
        );
        assert_eq!(run.code, Some(0), "{}", run.stderr);
    }
    let study = out.join("HOSTILE-LINKS");
    let run = readout(
        &[
            "diff",
            study.join("2021-01-31").to_str().expect("path"),
            study.join("2021-12-31").to_str().expect("path"),
        ],
        &[],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let html = std::fs::read_to_string(study.join("diff-2021-01-31-to-2021-12-31.html"))
        .expect("diff html");
    assert!(
        html.contains("[Hypertension](javascript:alert(1))"),
        "{html}"
    );
    assert!(html.contains("<table>"), "{html}");
    assert!(!html.contains("| N enrolled |"), "raw pipes: {html}");
    assert_no_live_script_link(&study);
}

/// Config texts that crashed (stack overflow, allocation abort), hung or read the
/// environment: each cohort fails alone with its key and the limit, the plain cohort is
/// built, the secret is nowhere, and it all takes well under a minute.
#[test]
fn hostile_config_texts_fail_alone_naming_key_and_limit() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let out = tmp.path().join("out");
    let secret = ("READOUT_TEST_SECRET", "hunter2-b2c4");
    let started = std::time::Instant::now();
    let run = readout(
        &[
            "build",
            &hostile("crashes.yaml"),
            "--out",
            out.to_str().expect("path"),
        ],
        &[secret],
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(60));
    assert_eq!(run.code, Some(2), "{}{}", run.stdout, run.stderr);
    assert_no_panic(&run);
    for (cohort, key, message) in [
        ("env", "background", "`get_env` is not available"),
        ("macro", "background", "calls itself"),
        (
            "range",
            "methods",
            "`range` of 10,000,000,000 numbers; the limit is 100,000",
        ),
        ("loops", "methods", "1,000,000 loop iterations"),
        ("doubling", "conclusions", "larger than 16 MiB"),
        (
            "replace",
            "conclusions",
            "the filter `replace` would make a value larger",
        ),
        (
            "deep",
            "title",
            "line 1: `if` tags nested more than 32 deep",
        ),
    ] {
        let line = run
            .stderr
            .lines()
            .find(|l| l.contains(&format!("cohort `{cohort}`")))
            .unwrap_or_else(|| panic!("{cohort}: no error line in {}", run.stderr));
        assert!(
            line.contains(&format!("template `cohorts.{cohort}.{key}`")) && line.contains(message),
            "{cohort}: {line}"
        );
    }
    let folder = out.join("HOSTILE-TEXTS/2021-12-31");
    assert!(folder.join("ok/abstract.md").is_file());
    for path in files_under(&out) {
        let bytes = std::fs::read(&path).expect("read");
        assert!(
            !String::from_utf8_lossy(&bytes).contains(secret.1),
            "{} holds the environment value",
            path.display()
        );
    }
    assert!(!run.stdout.contains(secret.1) && !run.stderr.contains(secret.1));

    // `check` finds the same.
    let check = readout(&["check", &hostile("crashes.yaml")], &[secret]);
    assert_eq!(check.code, Some(2));
    assert!(check.stderr.contains("calls itself"), "{}", check.stderr);
}

/// A user template that includes itself is refused before anything is rendered, naming the
/// template and its file; nothing is written.
#[test]
fn a_user_template_that_includes_itself_is_refused() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let out = tmp.path().join("out");
    let run = readout(
        &[
            "build",
            &hostile("recursive-template.yaml"),
            "--out",
            out.to_str().expect("path"),
        ],
        &[],
    );
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert_no_panic(&run);
    assert!(
        run.stderr.contains("template `abstract.md`: user file ")
            && run.stderr.contains("templates-recursive/abstract.md")
            && run.stderr.contains("calls itself"),
        "{}",
        run.stderr
    );
    assert!(files_under(&out).is_empty());
}
