//! Untrusted configs, templates and data, run through the real binary: nothing that
//! reaches a reader's browser can run script, nothing reads the environment, and nothing
//! crashes, hangs or exhausts the build; a failing cohort is named and the others are built.
//! Fixtures: `tests/fixtures/hostile/`.

use std::path::{Path, PathBuf};

use crate::common::{build, files_under, readout, readout_command, readout_with, root};

fn hostile(file: &str) -> PathBuf {
    PathBuf::from("tests/fixtures/hostile").join(file)
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

/// Every URL attribute of every element of an HTML document (template contents and SVG
/// `xlink:href` included), as html5ever reads it, with character references decoded.
fn url_attributes(html: &str) -> Vec<(String, String)> {
    let document = crate::html::Html::parse(html);
    let mut found = Vec::new();
    for element in document.elements() {
        for (name, value) in crate::html::attrs(&element) {
            if ["href", "src", "action", "formaction", "srcset"]
                .contains(&name.to_ascii_lowercase().as_str())
            {
                found.push((name, value));
            }
        }
    }
    found
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
    let run = build(&hostile("links.yaml"), &out, &[]);
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
        let run = build(
            &hostile("links.yaml"),
            &out,
            &["--cutoff", cutoff, "--quiet"],
        );
        assert_eq!(run.code, Some(0), "{}", run.stderr);
    }
    let study = out.join("HOSTILE-LINKS");
    let run = readout(&[
        "diff",
        study.join("2021-01-31").to_str().expect("path"),
        study.join("2021-12-31").to_str().expect("path"),
    ]);
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
    let run = readout_with(
        &[
            "build".as_ref(),
            hostile("crashes.yaml").as_os_str(),
            "--out".as_ref(),
            out.as_os_str(),
        ],
        &[secret],
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(60));
    assert_eq!(run.code, Some(2), "{}{}", run.stdout, run.stderr);
    run.assert_no_panic();
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
    let check = readout_with(
        &["check".as_ref(), hostile("crashes.yaml").as_os_str()],
        &[secret],
    );
    assert_eq!(check.code, Some(2));
    assert!(check.stderr.contains("calls itself"), "{}", check.stderr);
}

/// A user template that includes itself is refused before anything is rendered, naming the
/// template and its file; nothing is written.
#[test]
fn a_user_template_that_includes_itself_is_refused() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let out = tmp.path().join("out");
    let run = build(&hostile("recursive-template.yaml"), &out, &[]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    run.assert_no_panic();
    assert!(
        run.stderr.contains("template `abstract.md`: user file ")
            && run.stderr.contains("templates-recursive/abstract.md")
            && run.stderr.contains("calls itself"),
        "{}",
        run.stderr
    );
    assert!(files_under(&out).is_empty());
}

/// Writes a study into `dir`: the hostile fixture's data with `edit` applied to the file it
/// names, and `config` as `study.yaml`; returns the config's path.
fn study_with(
    dir: &Path,
    edit: Option<(&str, &dyn Fn(String) -> String)>,
    config: &str,
) -> PathBuf {
    for file in ["adsl.csv", "adrs.csv", "adae.csv"] {
        let mut text = std::fs::read_to_string(root().join("tests/fixtures/hostile").join(file))
            .expect("data");
        if let Some((name, f)) = &edit {
            if *name == file {
                text = f(text);
            }
        }
        std::fs::write(dir.join(file), text).expect("write");
    }
    let path = dir.join("study.yaml");
    std::fs::write(&path, config).expect("config");
    path
}

const PLAIN_STUDY: &str = "study:\n  id: PLAIN\ndata:\n  adsl: adsl.csv\n  adrs: adrs.csv\n  adae: adae.csv\ncohorts:\n  - id: all\n";

/// `readout check CONFIG` and `readout build CONFIG`, which must both be refused with exit 2
/// and no panic; returns the check's stderr.
fn refused(config: &Path) -> String {
    let check = readout(&["check", config.to_str().expect("path")]);
    assert_eq!(check.code, Some(2), "{}{}", check.stdout, check.stderr);
    check.assert_no_panic();
    let out = tempfile::tempdir().expect("temp dir");
    let build = build(config, out.path(), &[]);
    assert_eq!(build.code, Some(2), "{}{}", build.stdout, build.stderr);
    build.assert_no_panic();
    assert!(files_under(out.path()).is_empty(), "the build wrote files");
    check.stderr
}

/// A YAML config nested 100,000 levels deep is refused at once, naming the line.
#[test]
fn deeply_nested_yaml_is_refused_at_once() {
    let tmp = tempfile::tempdir().expect("temp dir");
    for (name, nested) in [
        (
            "flow-maps",
            format!("{}1{}", "{a: ".repeat(100_000), "}".repeat(100_000)),
        ),
        (
            "flow-lists",
            format!("{}1{}", "[".repeat(100_000), "]".repeat(100_000)),
        ),
    ] {
        let config = study_with(
            tmp.path(),
            None,
            &format!("{PLAIN_STUDY}output:\n  conference: {nested}\n"),
        );
        let started = std::time::Instant::now();
        let err = refused(&config);
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "{name}"
        );
        assert!(
            err.contains("line 10: the YAML is nested more than 64 levels deep"),
            "{name}: {err}"
        );
    }
    let block: String = (0..2_000)
        .map(|i| format!("{}k{i}:\n", " ".repeat(i)))
        .collect();
    let config = study_with(tmp.path(), None, &format!("{PLAIN_STUDY}extra:\n{block}"));
    let err = refused(&config);
    assert!(err.contains("nested more than 64 levels deep"), "{err}");
}

/// NUL, vertical tab, ESC and C1 controls in data are refused at load with the file, line,
/// column and the value escaped (they made SVG and report.docx that do not parse); a value
/// meant for the terminal (`ESC]0;pwned BEL ESC[2J`) reaches it escaped.
#[test]
fn control_characters_in_data_are_refused_and_never_reach_the_terminal() {
    let tmp = tempfile::tempdir().expect("temp dir");
    for (file, from, to, column) in [
        ("adae.csv", "Fatigue", "Fat\u{0}igue", "AEDECOD"),
        ("adae.csv", "Fatigue", "Fat\u{b}igue", "AEDECOD"),
        ("adae.csv", "Fatigue", "Fat\u{9b}2Jigue", "AEDECOD"),
        ("adsl.csv", "S-01,01,A", "S-\u{1b}[2J01,01,A", "USUBJID"),
        (
            "adsl.csv",
            "2021-01-04",
            "2021-01-04\u{1b}]0;pwned\u{7}\u{1b}[2J",
            "TRTSDT",
        ),
        ("adsl.csv", "TRTSDT", "TRT\u{1b}SDT", "TRT"),
    ] {
        let edit = |text: String| text.replacen(from, to, 1);
        let config = study_with(tmp.path(), Some((file, &edit)), PLAIN_STUDY);
        let err = refused(&config);
        assert!(
            !err.contains('\u{1b}') && !err.contains('\u{7}') && !err.contains('\u{0}'),
            "{err:?}"
        );
        assert!(err.contains(file) && err.contains(column), "{to:?}: {err}");
        assert!(err.contains("control character U+"), "{to:?}: {err}");
    }
    let edit =
        |text: String| text.replacen("2021-01-04", "2021-01-04\u{1b}]0;pwned\u{7}\u{1b}[2J", 1);
    let config = study_with(tmp.path(), Some(("adsl.csv", &edit)), PLAIN_STUDY);
    let err = refused(&config);
    assert!(err.contains("\\x1B]0;pwned\\x07\\x1B[2J"), "{err}");
    assert!(err.contains("line 2, column `TRTSDT`"), "{err}");
}

/// Bidirectional controls and zero-width characters (issue 28) reorder or hide text: an AE
/// term with U+202E displayed reversed in the abstract and on the terminal, a USUBJID with
/// U+200B differed from the one it showed. They are refused at load, named by code point,
/// and never printed raw; the joiners U+200C/U+200D (scripts, emoji) are allowed.
#[test]
fn bidi_and_zero_width_characters_in_data_are_refused() {
    let tmp = tempfile::tempdir().expect("temp dir");
    for (file, from, to, column, code) in [
        (
            "adae.csv",
            "Fatigue",
            "Fat\u{202e}eugi",
            "AEDECOD",
            "U+202E",
        ),
        (
            "adae.csv",
            "Fatigue",
            "Fati\u{2067}gue",
            "AEDECOD",
            "U+2067",
        ),
        (
            "adsl.csv",
            "S-01,01,A",
            "S-0\u{200b}1,01,A",
            "USUBJID",
            "U+200B",
        ),
        (
            "adsl.csv",
            "S-01,01,A",
            "S-01\u{feff},01,A",
            "USUBJID",
            "U+FEFF",
        ),
        (
            "adae.csv",
            "Fatigue",
            "Fatigue\u{200f}",
            "AEDECOD",
            "U+200F",
        ),
    ] {
        let edit = |text: String| text.replacen(from, to, 1);
        let config = study_with(tmp.path(), Some((file, &edit)), PLAIN_STUDY);
        let err = refused(&config);
        assert!(
            !err.contains(|c: char| readout::error::is_invisible_format(c)),
            "{err:?}"
        );
        assert!(err.contains(file) && err.contains(column), "{to:?}: {err}");
        assert!(
            err.contains(&format!("the invisible formatting character {code}")),
            "{to:?}: {err}"
        );
    }
    let edit = |text: String| text.replacen("Fatigue", "Fati\u{200d}gue", 1);
    let config = study_with(tmp.path(), Some(("adae.csv", &edit)), PLAIN_STUDY);
    let check = readout(&["check", config.to_str().expect("path")]);
    assert_eq!(check.code, Some(0), "{}", check.stderr);
}

/// Config texts with control characters (YAML's `"\e"` escapes make them) are refused with
/// their key; a user template with one is refused with its line.
#[test]
fn control_characters_in_configs_and_templates_are_refused() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let config = study_with(
        tmp.path(),
        None,
        &format!("{PLAIN_STUDY}    label: \"A \\e[2J cohort\"\n"),
    );
    let err = refused(&config);
    assert!(err.contains("key `cohorts[0].label`"), "{err}");
    assert!(
        err.contains("`A \\x1B[2J cohort` holds the control character U+001B"),
        "{err}"
    );
    std::fs::create_dir_all(tmp.path().join("t")).expect("mkdir");
    std::fs::write(
        tmp.path().join("t/abstract.md"),
        "# Title\n\nline \u{0} two\n",
    )
    .expect("write");
    let config = study_with(
        tmp.path(),
        None,
        &format!("{PLAIN_STUDY}output:\n  templates: t\n"),
    );
    let err = refused(&config);
    assert!(
        err.contains("template `abstract.md`")
            && err.contains("line 3: the control character U+0000"),
        "{err}"
    );
}

/// What `check` passed and `build` then failed on, and messages that did not say what was
/// wrong: ids too long for a folder name, a confidence level labelled "100%", an impossible
/// cut-off, a missing TRTSDT column, circular `extends`.
#[test]
fn check_catches_what_build_would_fail_on_and_says_what_is_wrong() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let long = "x".repeat(300);
    for (config, expected) in [
        (
            PLAIN_STUDY.replace("id: PLAIN", &format!("id: {long}")),
            "key `study.id`: `xxxxxxxxxxxxxxxxxxxx…` is 300 characters long; expected at most 64",
        ),
        (
            PLAIN_STUDY.replace("id: all", &format!("id: {long}")),
            "key `cohorts[0].id`: `xxxxxxxxxxxxxxxxxxxx…` is 300 characters long",
        ),
        (
            format!("{PLAIN_STUDY}analysis:\n  ci_level: 0.9999999999999999\n"),
            "key `analysis.ci_level`: 0.9999999999999999 is not a confidence level readout can label; expected 0.5 to 0.999",
        ),
        (
            format!("{PLAIN_STUDY}analysis:\n  ci_level: 0.2\n"),
            "0.2 is not a confidence level",
        ),
        (
            format!("{PLAIN_STUDY}cutoff: 2022-02-30\n"),
            "line 9, column 9: key `cutoff`: `2022-02-30` is not a date: February 2022 has 28 days",
        ),
        (
            format!("{PLAIN_STUDY}cutoffs: [2022-01-31, 2022-13-01]\n"),
            "key `cutoffs[1]`: `2022-13-01` is not a date: there is no month 13",
        ),
    ] {
        let path = study_with(tmp.path(), None, &config);
        let err = refused(&path);
        assert!(err.contains(expected), "{err}");
    }
    // A confidence level of three decimals is labelled exactly.
    let path = study_with(
        tmp.path(),
        None,
        &format!("{PLAIN_STUDY}cutoff: 2021-12-31\nanalysis:\n  ci_level: 0.975\n"),
    );
    let out = tmp.path().join("out");
    let run = build(&path, &out, &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let text =
        std::fs::read_to_string(out.join("PLAIN/2021-12-31/all/abstract.txt")).expect("abstract");
    assert!(text.contains("97.5% CI"), "{text}");

    // On the command line.
    let path = study_with(tmp.path(), None, PLAIN_STUDY);
    let run = readout(&[
        "check",
        path.to_str().expect("path"),
        "--cutoff",
        "2022-02-30",
    ]);
    assert_eq!(run.code, Some(2));
    assert!(
        run.stderr
            .contains("`2022-02-30` is not a date: February 2022 has 28 days"),
        "{}",
        run.stderr
    );
    let run = readout(&[
        "check",
        path.to_str().expect("path"),
        "--cutoff",
        "2022-02-2\u{1b}[2J",
    ]);
    assert_eq!(run.code, Some(2));
    assert!(!run.stderr.contains('\u{1b}'), "{:?}", run.stderr);

    // A missing TRTSDT column: one error naming the file and the column.
    let drop_trtsdt = |text: String| {
        text.lines()
            .map(|line| {
                let mut cells: Vec<&str> = line.split(',').collect();
                cells.remove(6);
                cells.join(",")
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    let path = study_with(tmp.path(), Some(("adsl.csv", &drop_trtsdt)), PLAIN_STUDY);
    let err = refused(&path);
    assert!(
        err.contains("adsl.csv: line 1: column `TRTSDT` is missing"),
        "{err}"
    );
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");

    // Circular `extends` names the template.
    std::fs::create_dir_all(tmp.path().join("t")).expect("mkdir");
    std::fs::write(tmp.path().join("t/a.html"), "{% extends \"b.html\" %}").expect("write");
    std::fs::write(tmp.path().join("t/b.html"), "{% extends \"a.html\" %}").expect("write");
    let path = study_with(
        tmp.path(),
        None,
        &format!("{PLAIN_STUDY}output:\n  templates: t\n"),
    );
    let err = refused(&path);
    // Tera finds the cycle from whichever of the two it checks first.
    assert!(
        (err.contains("template `a.html`: user file ")
            || err.contains("template `b.html`: user file "))
            && err.contains("Circular extend"),
        "{err}"
    );
}

/// Two builds of one cut-off folder at once both succeed (they take turns; the later one
/// failed with "Directory not empty"), and the folder is whole.
#[test]
fn concurrent_builds_of_one_folder_both_succeed() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let out = tmp.path().join("out");
    for _ in 0..3 {
        let spawn = || {
            readout_command()
                .arg("build")
                .arg(hostile("links.yaml"))
                .args(["--out", out.to_str().expect("path"), "--quiet"])
                .current_dir(root())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("spawn")
        };
        let (a, b) = (spawn(), spawn());
        for child in [a, b] {
            let output = child.wait_with_output().expect("wait");
            assert!(
                output.status.success(),
                "{}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        let folder = out.join("HOSTILE-LINKS/2021-12-31");
        let verify = readout(&["verify", folder.to_str().expect("path")]);
        assert_eq!(verify.code, Some(0), "{}{}", verify.stdout, verify.stderr);
        let leftovers: Vec<PathBuf> = std::fs::read_dir(out.join("HOSTILE-LINKS"))
            .expect("list")
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.file_name().is_some_and(|n| {
                    n.to_string_lossy().starts_with(".tmp-")
                        || n.to_string_lossy().starts_with(".old-")
                })
            })
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
    }
}

/// A cut-off path that is a user's file is refused before anything is moved, and the file is
/// left as it was; so is a folder that no build wrote.
#[test]
fn a_users_file_or_folder_at_the_cutoff_path_is_left_alone() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let out = tmp.path().join("out");
    let study = out.join("HOSTILE-LINKS");
    std::fs::create_dir_all(&study).expect("mkdir");
    let target = study.join("2021-12-31");
    std::fs::write(&target, "my notes").expect("write");
    for what in ["is a file", "holds no manifest.json"] {
        let run = build(&hostile("links.yaml"), &out, &[]);
        assert_eq!(run.code, Some(2), "{}", run.stderr);
        assert!(run.stderr.contains(what), "{}", run.stderr);
        let names: Vec<String> = std::fs::read_dir(&study)
            .expect("list")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().to_string())
            .filter(|n| !n.ends_with(".lock"))
            .collect();
        assert_eq!(names, ["2021-12-31"], "{what}");
        if what == "is a file" {
            assert_eq!(std::fs::read_to_string(&target).expect("read"), "my notes");
            std::fs::remove_file(&target).expect("rm");
            std::fs::create_dir_all(&target).expect("mkdir");
            std::fs::write(target.join("notes.txt"), "mine").expect("write");
        } else {
            assert_eq!(
                std::fs::read_to_string(target.join("notes.txt")).expect("read"),
                "mine"
            );
        }
    }
}

/// A build killed between the two renames of the swap left the earlier build renamed aside
/// and a staging folder: `check` touches neither, and the next build puts the earlier build
/// back before it starts, then replaces it whole.
#[test]
fn a_build_killed_during_the_swap_loses_nothing() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let out = tmp.path().join("out");
    let build = || build(&hostile("links.yaml"), &out, &["--quiet"]);
    assert_eq!(build().code, Some(0));
    let study = out.join("HOSTILE-LINKS");
    let target = study.join("2021-12-31");
    let aside = study.join(format!(".old-2021-12-31-{}", u32::MAX));
    std::fs::rename(&target, &aside).expect("rename");
    std::fs::create_dir_all(study.join(format!(".tmp-2021-12-31-{}", u32::MAX - 1)))
        .expect("mkdir");
    let run = build();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(target.join("manifest.json").is_file());
    let names: Vec<String> = std::fs::read_dir(&study)
        .expect("list")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| !n.ends_with(".lock"))
        .collect();
    assert_eq!(names, ["2021-12-31"]);
}

/// Values as long as the row limit allows are drawn shortened with an ellipsis (a 5 kB AE
/// term without spaces took 71 s in the figures, a 20 kB USUBJID 13 s, a 5 kB cohort label
/// 108 s: label layout was quadratic); tables and results keep the full text.
#[test]
fn very_long_values_are_shortened_in_figures_and_kept_whole_in_tables() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let term = "T".repeat(5_000);
    let id = format!("S-{}", "9".repeat(20_000));
    let label = "L".repeat(5_000);
    let edit_ae = |text: String| text.replace("Fatigue", &term);
    let config = study_with(
        tmp.path(),
        Some(("adae.csv", &edit_ae)),
        &format!(
            "{}    label: {label}\n  - id: two\n    label: {label}2\ncutoff: 2021-12-31\noutput:\n  formats: [md, html, png]\n",
            PLAIN_STUDY
        ),
    );
    // The long id in ADSL and everywhere it is used.
    for file in ["adsl.csv", "adrs.csv", "adae.csv"] {
        let path = tmp.path().join(file);
        let text = std::fs::read_to_string(&path).expect("read");
        std::fs::write(&path, text.replace("S-01,", &format!("{id},"))).expect("write");
    }
    let out = tmp.path().join("out");
    let run = build(&config, &out, &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let folder = out.join("PLAIN/2021-12-31");
    let ae = std::fs::read_to_string(folder.join("all/figures/ae-trae.svg")).expect("ae");
    assert!(
        ae.contains('\u{2026}') && !ae.contains(&term),
        "the term is not shortened"
    );
    assert!(folder.join("all/figures/ae-trae.png").is_file());
    let report = std::fs::read_to_string(folder.join("all/report.html")).expect("report");
    assert!(
        report.contains(&term),
        "the report's table lost the full term"
    );
    let derived = std::fs::read_to_string(folder.join("derived/all.csv")).expect("derived");
    assert!(derived.contains(&id));
    // The cohort labels in the study's KM figure of both cohorts.
    let km = std::fs::read_to_string(folder.join("figures/km-os.svg")).expect("study km");
    assert!(km.contains('\u{2026}') && !km.contains(&label));
}

/// A categorical baseline item of 60,000 levels (a free-text column) took 27 s: its phrase,
/// natural order and report rows looked each level up in a list of all of them. Now by
/// value: the build is done in a few seconds and every level is in results, phrase and table.
#[test]
fn a_baseline_item_of_60000_levels_is_summarised_whole() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let n = 60_000;
    let mut adsl = String::from("USUBJID,TRTSDT,X\n");
    for i in 0..n {
        adsl.push_str(&format!("S{i},2021-01-01,V{i}\n"));
    }
    std::fs::write(tmp.path().join("adsl.csv"), adsl).expect("write");
    let config = tmp.path().join("study.yaml");
    std::fs::write(
        &config,
        "study: { id: LEVELS }\ndata: { adsl: adsl.csv }\ncohorts:\n  - id: all\n    baseline:\n      - { column: X, kind: categorical, label: \"Free text\" }\n",
    )
    .expect("config");
    let out = tmp.path().join("out");
    let run = build(&config, &out, &["--quiet"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let folder = out.join("LEVELS/no-cutoff");
    let results: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(folder.join("results.json")).expect("results"),
    )
    .expect("JSON");
    let item = &results["cohorts"][0]["baseline"][0];
    assert_eq!(item["levels"].as_array().map(Vec::len), Some(n));
    assert_eq!(item["natural_order"].as_array().map(Vec::len), Some(n));
    let text = std::fs::read_to_string(folder.join("all/abstract.txt")).expect("abstract");
    // Every percentage of the sentence is 0.0 at one decimal: none is printed with decimals.
    assert!(text.contains("V59999 1/60000 [0%]"), "{}", &text[..300]);
    let report = std::fs::read_to_string(folder.join("all/report.html")).expect("report");
    assert_eq!(
        report.matches("<th scope=\"row\" class=\"level\">").count(),
        n
    );
}

/// The private-use characters readout marks its own numbers with (U+E000–U+E002) truncated
/// abstract.html and emptied the numbers sheet; U+FFFF made SVG no browser opens. Both kinds
/// are refused at load, in data (file, line, column), config (key) and templates (line).
#[test]
fn private_use_characters_and_noncharacters_are_refused() {
    let tmp = tempfile::tempdir().expect("temp dir");
    for (file, from, to, column, said) in [
        (
            "adae.csv",
            "Fatigue",
            "Fatigue\u{e000}",
            "AEDECOD",
            "the private-use character U+E000",
        ),
        (
            "adae.csv",
            "Fatigue",
            "Fati\u{e002}gue",
            "AEDECOD",
            "the private-use character U+E002",
        ),
        (
            "adsl.csv",
            "S-01,01,A",
            "S-01\u{f8ff},01,A",
            "USUBJID",
            "the private-use character U+F8FF",
        ),
        (
            "adae.csv",
            "Fatigue",
            "Fatigue\u{ffff}",
            "AEDECOD",
            "the noncharacter U+FFFF",
        ),
        (
            "adae.csv",
            "Fatigue",
            "Fatigue\u{fdd0}",
            "AEDECOD",
            "the noncharacter U+FDD0",
        ),
    ] {
        let edit = |text: String| text.replacen(from, to, 1);
        let config = study_with(tmp.path(), Some((file, &edit)), PLAIN_STUDY);
        let err = refused(&config);
        assert!(
            err.contains(file)
                && err.contains(column)
                && err.contains("line ")
                && err.contains(said),
            "{to:?}: {err}"
        );
    }
    let config = study_with(
        tmp.path(),
        None,
        &format!("{PLAIN_STUDY}    label: \"Cohort \\uE001 A\"\n"),
    );
    let err = refused(&config);
    assert!(
        err.contains("key `cohorts[0].label`") && err.contains("private-use character U+E001"),
        "{err}"
    );
    std::fs::create_dir_all(tmp.path().join("t")).expect("mkdir");
    std::fs::write(
        tmp.path().join("t/abstract.md"),
        "# Title\n\nline \u{e000} two\n",
    )
    .expect("write");
    let config = study_with(
        tmp.path(),
        None,
        &format!("{PLAIN_STUDY}output:\n  templates: t\n"),
    );
    let err = refused(&config);
    assert!(
        err.contains("template `abstract.md`")
            && err.contains("line 3: the private-use character U+E000"),
        "{err}"
    );
}

/// `text` (a CSV) with a column added: `name` in the header, `value` on the first data row,
/// empty on the others.
fn with_column(text: &str, name: &str, value: &str) -> String {
    text.lines()
        .enumerate()
        .map(|(i, line)| match i {
            0 => format!("{line},{name}\n"),
            1 => format!("{line},{value}\n"),
            _ => format!("{line},\n"),
        })
        .collect()
}

/// Exposure data that changed numbers without a word (issue 39): a treatment end before the
/// first dose (exposure −399 days, EAIR changed), durations that are not numbers or negative
/// (the dates were used instead), negative or absurd doses (a cumulative dose of 1e308
/// printed "inf"), an ADEX with none of the parameters readout reads (no dose, no reason).
/// Each is refused naming file, line, column and subject.
#[test]
fn exposure_dates_and_values_are_checked() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let end = |text: String| text.replacen("2021-09-20", "2020-01-01", 1);
    let config = study_with(tmp.path(), Some(("adsl.csv", &end)), PLAIN_STUDY);
    let err = refused(&config);
    assert!(
        err.contains("adsl.csv")
            && err.contains("line 3, column `TRTEDT`")
            && err.contains("subject `S-02`: treatment end on 2020-01-01 is before the first dose (TRTSDT 2021-01-18)"),
        "{err}"
    );
    for (column, value, said) in [
        ("TRTDURD", "abc", "`abc` is not a number"),
        ("TRTDURD", "NaN", "`NaN` is not a number"),
        ("TRTDURD", "inf", "`inf` is not a number"),
        ("TRTDURD", "-5", "-5 is not a treatment duration in days"),
        (
            "TRTDUR",
            "1e9",
            "1000000000 is not a treatment duration in days",
        ),
        (
            "CUMDOSE",
            "1e308",
            "1e308 is not a dose; expected 0 to 1e15",
        ),
        ("AVGDD", "-3", "-3 is not a dose"),
        ("RDI", "Infinity", "`Infinity` is not a number"),
    ] {
        let edit = |text: String| with_column(&text, column, value);
        let config = study_with(tmp.path(), Some(("adsl.csv", &edit)), PLAIN_STUDY);
        let err = refused(&config);
        assert!(
            err.contains("adsl.csv")
                && err.contains(&format!("line 2, column `{column}`"))
                && err.contains(said),
            "{column} {value}: {err}"
        );
    }
    let with_adex =
        PLAIN_STUDY.replace("  adae: adae.csv\n", "  adae: adae.csv\n  adex: adex.csv\n");
    for (adex, said) in [
        (
            "USUBJID,PARAMCD,AVAL\nS-01,DOSE1,100\nS-02,DOSE2,80\n",
            "none of its parameters is a dose summary readout reads",
        ),
        (
            "USUBJID,PARAMCD,AVAL\nS-01,TDOSE,-100\n",
            "subject `S-01`: TDOSE -100 is not a dose",
        ),
        (
            "USUBJID,PARAMCD,AVAL\nS-01,TDOSE,2e300\n",
            "subject `S-01`: TDOSE 2e300 is not a dose",
        ),
    ] {
        std::fs::write(tmp.path().join("adex.csv"), adex).expect("adex");
        let config = study_with(tmp.path(), None, &with_adex);
        let err = refused(&config);
        assert!(
            err.contains("adex.csv") && err.contains(said),
            "{adex}: {err}"
        );
    }
    // In range, the dose summary prints plain numbers.
    let edit = |text: String| with_column(&text, "CUMDOSE", "999999999999999");
    let config = study_with(tmp.path(), Some(("adsl.csv", &edit)), PLAIN_STUDY);
    let out = tmp.path().join("out");
    let build = build(&config, &out, &[]);
    assert_eq!(build.code, Some(0), "{}", build.stderr);
    let report = files_under(&out)
        .into_iter()
        .find(|p| p.ends_with("report.html"))
        .expect("report");
    let report = std::fs::read_to_string(report).expect("report");
    assert!(
        report.contains("999999999999999.0 (999999999999999.0–999999999999999.0)"),
        "the cumulative dose as given, its own digits"
    );
}

/// Numbers in a config that failed later or were misnamed (issue 39): a landmark of 1e308
/// failed the cohort without naming the key; a window of 2^64 − 1 days was "not a whole
/// number"; one of 10^15 days would overflow date arithmetic.
#[test]
fn out_of_range_config_numbers_name_their_key() {
    let tmp = tempfile::tempdir().expect("temp dir");
    for (analysis, said) in [
        (
            "landmarks: [6, 1e308]",
            "key `analysis.landmarks`: 1e308 is not a time; expected numbers from 0 to 365250",
        ),
        (
            "{ time_unit: years, landmarks: [2000] }",
            "key `analysis.landmarks`: 2000 is not a time; expected numbers from 0 to 1000",
        ),
        (
            "confirmation_days: 18446744073709551615",
            "key `analysis.confirmation_days`: 18446744073709551615 is out of range; expected a whole number",
        ),
        (
            "sd_min_days: 1000000000000000",
            "key `analysis.sd_min_days`: 1000000000000000 days; expected 0 to 36525",
        ),
        (
            "iupd_confirmation_days: [28, 99999999]",
            "key `analysis.iupd_confirmation_days`",
        ),
    ] {
        let analysis = if analysis.starts_with('{') {
            format!("analysis: {analysis}\n")
        } else {
            format!("analysis: {{ {analysis} }}\n")
        };
        let config = study_with(tmp.path(), None, &format!("{PLAIN_STUDY}{analysis}"));
        let err = refused(&config);
        assert!(err.contains(said), "{analysis}: {err}");
    }
}

/// **Decision** (issue 39): the derived CSV is data for SAS and R, so a value that starts
/// with `=`, `+`, `-` or `@` is written as the input has it (a changed USUBJID would no longer
/// join with ADSL); the numbers sheet, made for people, neutralises its text cells instead
/// (docs/BAD-INPUT.md).
#[test]
fn derived_data_keep_values_that_look_like_formulas() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let edit = |text: String| text.replace("S-01,", "=HYPERLINK(\"x\"),");
    let config = study_with(tmp.path(), None, PLAIN_STUDY);
    for file in ["adsl.csv", "adrs.csv", "adae.csv"] {
        let path = tmp.path().join(file);
        let text = std::fs::read_to_string(&path).expect("data");
        let text = edit(text).replace("=HYPERLINK(\"x\")", "\"=HYPERLINK(\"\"x\"\")\"");
        std::fs::write(&path, text).expect("data");
    }
    let out = tmp.path().join("out");
    let build = build(&config, &out, &[]);
    assert_eq!(build.code, Some(0), "{}", build.stderr);
    let derived =
        std::fs::read_to_string(out.join("PLAIN/no-cutoff/derived/all.csv")).expect("derived");
    assert!(
        derived
            .lines()
            .any(|l| l.starts_with("\"=HYPERLINK(\"\"x\"\")\",")),
        "{derived}"
    );
}
