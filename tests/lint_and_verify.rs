//! `readout lint` and the abstract's self-check on
//! texts with very many pairs, very long lines and pairs written with other digits, spaces
//! and percent signs; `readout verify` on folders whose files were replaced, added or turned
//! into links, devices and pipes. Run through the real binary; docs/BAD-INPUT.md.

use std::path::{Path, PathBuf};

use crate::common::{readout, readout_command, root, Outcome};

/// `readout lint FILE` of `text` written to a file in `dir`.
fn lint(dir: &Path, text: &str) -> Outcome {
    let file = dir.join("abstract.txt");
    std::fs::write(&file, text).expect("write");
    let run = readout(&["lint", file.to_str().expect("path")]);
    run.assert_no_panic();
    run
}

/// The longest line of `text`, in characters.
fn longest_line(text: &str) -> usize {
    text.lines().map(|l| l.chars().count()).max().unwrap_or(0)
}

/// 100,000 wrong pairs, one every other line: the first 20 are listed with their own line
/// numbers (counted on from pair to pair; they were recounted from the start, 58 s), and the
/// rest are counted in one line.
#[test]
fn lint_of_100000_pairs_lists_the_first_20_with_their_lines() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let run = lint(
        tmp.path(),
        &"Heading\nIn the cohort, 1/3 (5%) responded.\n".repeat(100_000),
    );
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 21, "{}", run.stdout);
    for (i, line) in lines[..20].iter().enumerate() {
        assert!(
            line.ends_with(&format!(
                "abstract.txt: line {}: \"1/3 (5%)\": 1/3 is 33.33%, not 5%, in: In the \
                 cohort, 1/3 (5%) responded.",
                2 * i + 2
            )),
            "{line}"
        );
    }
    assert!(
        lines[20].ends_with(
            "abstract.txt: and 99980 more pair(s) that disagree (the first 20 are listed)"
        ),
        "{}",
        lines[20]
    );
    assert!(
        run.stderr.contains("100000 count(s) disagree"),
        "{}",
        run.stderr
    );
}

/// One line of 1 MB holding 111,111 wrong pairs (it took 3.9 GB and aborted: each pair
/// quoted the whole line): 20 listed, each with an excerpt of at most 100 characters either
/// side of the pair, cut with an ellipsis.
#[test]
fn lint_of_a_1_mb_line_quotes_a_bounded_excerpt() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let line = "1/3 (5%) ".repeat(111_111);
    let run = lint(tmp.path(), &format!("{line}\n"));
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 21, "{}", run.stdout);
    assert!(lines[20].contains("and 111091 more"), "{}", lines[20]);
    assert!(longest_line(&run.stdout) < 400, "{}", run.stdout);
    // Pair 20 is at characters 171..179: quoted from 100 before to 100 after, cut both ways.
    let last = lines[19];
    let quoted = &last[last.find(", in: ").expect("in") + 6..];
    assert_eq!(quoted, format!("\u{2026}{}\u{2026}", &line[71..279]));
}

/// `readout lint /dev/zero` is refused at once as a device (it read until memory ran out);
/// a regular file over 64 MiB is refused unread, naming the file.
#[cfg(unix)]
#[test]
fn lint_refuses_a_text_without_end() {
    let run = readout(&["lint", "/dev/zero"]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    run.assert_no_panic();
    assert!(
        run.stderr.contains(
            "/dev/zero: cannot read the abstract: is a character device; expected a regular file"
        ),
        "{}",
        run.stderr
    );
    let tmp = tempfile::tempdir().expect("temp dir");
    let big = tmp.path().join("big.txt");
    std::fs::File::create(&big)
        .and_then(|f| f.set_len(65 << 20))
        .expect("a sparse file");
    let run = readout(&["lint", big.to_str().expect("path")]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("big.txt: larger than 64 MiB; expected an abstract's text"),
        "{}",
        run.stderr
    );
}

/// Each way of writing a pair that `readout lint` let through (a no-break, narrow or thin
/// space before `%`, `％`, `﹪`, fullwidth, Arabic-Indic and other digits, a decimal comma):
/// read as the same numbers, each wrong form reported with its line and each right one not.
#[test]
fn lint_reads_pairs_written_with_other_digits_spaces_and_signs() {
    let forms = [
        ("13/38 (35.2\u{a0}%)", "13/38 (34.2\u{a0}%)"),
        ("13/38 (35.2\u{202f}%)", "13/38 (34.2\u{202f}%)"),
        ("13/38 (35.2\u{2009}%)", "13/38 (34.2\u{2009}%)"),
        ("13/38 (35.2％)", "13/38 (34.2％)"),
        ("13/38 (35.2﹪)", "13/38 (34.2﹪)"),
        ("１３/３８ (３５.２%)", "１３/３８ (３４.２%)"),
        ("١٣/٣٨ (٣٥.٢%)", "١٣/٣٨ (٣٤.٢%)"),
        ("٣٥٫٢٪ (١٣/٣٨)", "٣٤٫٢٪ (١٣/٣٨)"),
        ("۱۳/۳۸ (۳۵.۲%)", "۱۳/۳۸ (۳۴.۲%)"),
        ("१३/३८ (३५.२%)", "१३/३८ (३४.२%)"),
        ("13/38 (35,2%)", "13/38 (34,2%)"),
        ("13/38 (35,2 %)", "13/38 (34,2 %)"),
        ("13/38, 35,2%", "13/38, 34,2%"),
    ];
    let tmp = tempfile::tempdir().expect("temp dir");
    let text: String = forms
        .iter()
        .map(|(wrong, right)| format!("Responses {wrong}.\nResponses {right}.\n"))
        .collect();
    let run = lint(tmp.path(), &format!("{text}And 13/38, 34.2% agree.\n"));
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), forms.len(), "{}", run.stdout);
    for (i, ((wrong, _), line)) in forms.iter().zip(&lines).enumerate() {
        assert!(
            line.ends_with(&format!(
                "abstract.txt: line {}: \"{wrong}\": 13/38 is 34.21%, not 35.2%, in: \
                 Responses {wrong}.",
                2 * i + 1
            )),
            "{line}"
        );
    }

    // The build's self-check reads them too.
    let config = study(
        tmp.path(),
        &format!(
            "{STUDY}cohorts:\n  - id: all\n    background: \"Of them, １３/３８ (３５.２\u{a0}％) responded.\"\n"
        ),
    );
    let check = readout(&["check", config.to_str().expect("path")]);
    assert_eq!(check.code, Some(2), "{}", check.stderr);
    assert!(
        check.stderr.contains(
            "\"１３/３８ (３５.２\u{a0}％)\": 13/38 is 34.21%, not 35.2%, in: Background: Of \
             them, １３/３８ (３５.２\u{a0}％) responded."
        ),
        "{}",
        check.stderr
    );
}

/// Writes a small study into `dir`: the hostile fixtures' data and `config` as `study.yaml`;
/// returns the config's path.
fn study(dir: &Path, config: &str) -> PathBuf {
    for file in ["adsl.csv", "adrs.csv", "adae.csv"] {
        std::fs::copy(
            root().join("tests/fixtures/hostile").join(file),
            dir.join(file),
        )
        .expect("copy");
    }
    let path = dir.join("study.yaml");
    std::fs::write(&path, config).expect("config");
    path
}

const STUDY: &str = "study:\n  id: PLAIN\ndata:\n  adsl: adsl.csv\n  adrs: adrs.csv\n  adae: adae.csv\ncutoff: 2021-12-31\n";

/// A config text printing 20,000 wrong pairs into the abstract: `check` and `build` fail
/// that cohort with exit 2 and a message of a few kB (it was 3.6 GB, and `check` aborted
/// where memory was short); the other cohort is built.
#[test]
fn a_config_text_printing_20000_wrong_pairs_fails_with_a_bounded_message() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let config = study(
        tmp.path(),
        &format!(
            "{STUDY}cohorts:\n  - id: all\n    background: \"{{% for i in range(end=20000) %}}1/3 (5%) {{% endfor %}}\"\n  - id: ok\n"
        ),
    );
    let check = readout(&["check", config.to_str().expect("path")]);
    assert_eq!(check.code, Some(2), "{}", check.stderr);
    check.assert_no_panic();
    assert!(
        check.stderr.contains(
            "cohort `all`: abstract.txt disagrees with itself (nothing written for this cohort):\n  \
             line 3: \"1/3 (5%)\": 1/3 is 33.33%, not 5%, in: Background: 1/3 (5%) 1/3 (5%)"
        ),
        "{}",
        check.stderr
    );
    assert!(
        check
            .stderr
            .contains("and 19980 more pair(s) that disagree (the first 20 are listed)"),
        "{}",
        check.stderr
    );
    assert!(check.stderr.len() < 10_000, "{} bytes", check.stderr.len());
    assert!(longest_line(&check.stderr) < 400, "{}", check.stderr);

    let out = tmp.path().join("out");
    let build = readout(&[
        "build",
        config.to_str().expect("path"),
        "--out",
        out.to_str().expect("path"),
    ]);
    assert_eq!(build.code, Some(2), "{}", build.stderr);
    build.assert_no_panic();
    assert!(build.stderr.contains("and 19980 more"), "{}", build.stderr);
    assert!(build.stderr.len() < 10_000, "{} bytes", build.stderr.len());
    let folder = out.join("PLAIN/2021-12-31");
    assert!(folder.join("ok/abstract.txt").is_file());
    assert!(!folder.join("all").exists());
    // results.json keeps the failure, bounded too.
    let results = std::fs::read_to_string(folder.join("results.json")).expect("results");
    assert!(results.contains("and 19980 more"));
    assert!(results.len() < 100_000, "{} bytes", results.len());
}

/// `readout build` of the small batch study into `out`; returns its 2021-04-30 folder, which
/// verifies clean.
fn built_folder(out: &Path) -> PathBuf {
    crate::common::build_quietly(out, &root().join("tests/fixtures/batch/study.yaml")).success();
    let folder = out.join("TINY/2021-04-30");
    let run = verify(&folder);
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout
            .contains("every file matches manifest.json, and it lists every file"),
        "{}",
        run.stdout
    );
    folder
}

/// `readout verify FOLDER`, killed and failed after 60 s (it read `/dev/zero` until memory
/// ran out and waited on a FIFO for ever).
fn verify(folder: &Path) -> Outcome {
    let mut child = readout_command()
        .arg("verify")
        .arg(folder)
        .current_dir(root())
        .env("NO_COLOR", "1")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    let started = std::time::Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if started.elapsed() > std::time::Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("readout verify {} did not end in 60 s", folder.display());
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let output = child.wait_with_output().expect("output");
    let run = Outcome {
        code: output.status.code(),
        stdout: String::from_utf8(output.stdout).expect("utf-8"),
        stderr: String::from_utf8(output.stderr).expect("utf-8"),
    };
    run.assert_no_panic();
    run
}

/// Asserts that `verify` of `folder` fails (exit 1, never "every file matches") and that
/// its report holds each of `expected`; returns the report.
fn verify_fails(folder: &Path, expected: &[&str]) -> String {
    let run = verify(folder);
    assert_eq!(run.code, Some(1), "{}{}", run.stdout, run.stderr);
    assert!(!run.stdout.contains("every file matches"), "{}", run.stdout);
    for text in expected {
        assert!(
            run.stdout.contains(text),
            "{text:?} not in:\n{}",
            run.stdout
        );
    }
    assert!(
        run.stderr
            .contains("the folder is not as the build wrote it"),
        "{}",
        run.stderr
    );
    run.stdout
}

/// `manifest.json` of `folder` rewritten by `edit`.
fn edit_manifest(folder: &Path, edit: impl FnOnce(&mut serde_json::Value)) {
    let path = folder.join("manifest.json");
    let mut manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("manifest")).expect("json");
    edit(&mut manifest);
    std::fs::write(&path, serde_json::to_vec_pretty(&manifest).expect("json")).expect("write");
}

/// Points the manifest's first output at `path` (with a hash no file has).
fn first_output_at(folder: &Path, path: &str) {
    let path = path.to_string();
    edit_manifest(folder, move |m| {
        m["outputs"][0]["path"] = path.into();
    });
}

/// Outputs the manifest names outside the folder (absolute, `..`) are refused unread; an
/// output or input that is `/dev/zero`, a FIFO, a socket or a link to one is reported and
/// never read (`/dev/zero` ran until memory was gone, a FIFO blocked for ever).
#[cfg(unix)]
#[test]
fn verify_reads_only_regular_files_and_nothing_outside_the_folder() {
    let tmp = tempfile::tempdir().expect("temp dir");

    // Outputs outside the folder.
    for path in [
        "/dev/zero",
        "/etc/passwd",
        "../../TINY/2021-03-01/results.json",
    ] {
        let folder = built_folder(&tmp.path().join("outside"));
        first_output_at(&folder, path);
        verify_fails(
            &folder,
            &[&format!(
                "output path `{path}` is not inside the folder; expected a relative path"
            )],
        );
    }

    // A FIFO, a socket and a link to /dev/zero in the folder, listed as outputs.
    let folder = built_folder(&tmp.path().join("special"));
    let status = std::process::Command::new("mkfifo")
        .arg(folder.join("all/fifo"))
        .status()
        .expect("mkfifo");
    assert!(status.success());
    let _socket =
        std::os::unix::net::UnixListener::bind(folder.join("all/socket")).expect("socket");
    std::os::unix::fs::symlink("/dev/zero", folder.join("all/zero")).expect("symlink");
    edit_manifest(&folder, |m| {
        for (i, name) in ["all/fifo", "all/socket", "all/zero"].iter().enumerate() {
            m["outputs"][i]["path"] = (*name).into();
        }
    });
    let folder_text = folder.display().to_string();
    verify_fails(
        &folder,
        &[
            &format!(
                "output {folder_text}/all/fifo is a FIFO (named pipe); expected the regular file"
            ),
            &format!("output {folder_text}/all/socket is a socket; expected the regular file"),
            &format!(
                "output {folder_text}/all/zero is a symbolic link (to /dev/zero), which is not \
                 followed"
            ),
            // The outputs the manifest no longer names are reported as unlisted.
            &format!("{folder_text}/all/abstract.md is not listed in manifest.json"),
        ],
    );

    // Inputs and config, which live outside the folder: a device, a FIFO, a link to a device.
    let folder = built_folder(&tmp.path().join("inputs"));
    let fifo = tmp.path().join("input-fifo");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo");
    assert!(status.success());
    let link = tmp.path().join("zero-link");
    std::os::unix::fs::symlink("/dev/zero", &link).expect("symlink");
    let (fifo_text, link_text) = (fifo.display().to_string(), link.display().to_string());
    edit_manifest(&folder, |m| {
        m["inputs"][0]["path"] = "/dev/zero".into();
        m["inputs"][1]["path"] = fifo_text.clone().into();
        m["config"]["path"] = link_text.clone().into();
    });
    verify_fails(
        &folder,
        &[
            "input /dev/zero is a character device; expected a regular file",
            &format!("input {fifo_text} is a FIFO (named pipe); expected a regular file"),
            &format!("config {link_text} is a character device; expected a regular file"),
        ],
    );

    // manifest.json itself must be a regular file: a link to /dev/zero is an error (exit 2).
    let folder = built_folder(&tmp.path().join("manifest"));
    std::fs::remove_file(folder.join("manifest.json")).expect("rm");
    std::os::unix::fs::symlink("/dev/zero", folder.join("manifest.json")).expect("symlink");
    let run = verify(&folder);
    assert_eq!(run.code, Some(2), "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr
            .contains("manifest.json: is a symbolic link; expected a regular file"),
        "{}",
        run.stderr
    );
}

/// What `verify` said "every file matches" to: results.json changed and its entry removed
/// from the manifest, an HTML file with a script link added, an output replaced by a link
/// to a file outside the folder; and a listed file deleted, a cohort's folder replaced by a
/// link. Each is reported, naming the file.
#[cfg(unix)]
#[test]
fn verify_reports_every_file_the_manifest_does_not_list_and_every_link() {
    let tmp = tempfile::tempdir().expect("temp dir");

    // (a) results.json changed, its entry removed from the manifest.
    let folder = built_folder(&tmp.path().join("a"));
    std::fs::write(folder.join("results.json"), "{\"cohorts\": []}\n").expect("write");
    edit_manifest(&folder, |m| {
        let outputs = m["outputs"].as_array_mut().expect("outputs");
        outputs.retain(|o| o["path"] != "results.json");
    });
    let report = verify_fails(
        &folder,
        &[&format!(
            "{}/results.json is not listed in manifest.json; expected only the files the build \
             wrote",
            folder.display()
        )],
    );
    assert_eq!(report.lines().count(), 1, "{report}");

    // (b) an unlisted HTML file with a script link, in a new folder.
    let folder = built_folder(&tmp.path().join("b"));
    std::fs::create_dir_all(folder.join("extra")).expect("mkdir");
    std::fs::write(
        folder.join("extra/index.html"),
        "<a href=\"javascript:alert(1)\">results</a>",
    )
    .expect("write");
    let report = verify_fails(
        &folder,
        &[&format!(
            "{}/extra/index.html is not listed in manifest.json",
            folder.display()
        )],
    );
    assert_eq!(report.lines().count(), 1, "{report}");

    // (c) an output replaced by a link to a file outside the folder with the same bytes.
    let folder = built_folder(&tmp.path().join("c"));
    let outside = tmp.path().join("abstract.md");
    std::fs::copy(folder.join("all/abstract.md"), &outside).expect("copy");
    std::fs::remove_file(folder.join("all/abstract.md")).expect("rm");
    std::os::unix::fs::symlink(&outside, folder.join("all/abstract.md")).expect("symlink");
    let report = verify_fails(
        &folder,
        &[&format!(
            "output {}/all/abstract.md is a symbolic link (to {}), which is not followed; \
             expected the regular file the build wrote",
            folder.display(),
            outside.display()
        )],
    );
    assert_eq!(report.lines().count(), 1, "{report}");

    // A listed file deleted; an unlisted link added.
    let folder = built_folder(&tmp.path().join("d"));
    std::fs::remove_file(folder.join("all/abstract.txt")).expect("rm");
    std::os::unix::fs::symlink("/etc/passwd", folder.join("passwd")).expect("symlink");
    verify_fails(
        &folder,
        &[
            &format!(
                "output {}/all/abstract.txt is missing; manifest.json lists it",
                folder.display()
            ),
            &format!(
                "{}/passwd is a symbolic link (to /etc/passwd) that manifest.json does not list",
                folder.display()
            ),
        ],
    );

    // A cohort's folder replaced by a link to a copy outside: not followed.
    let folder = built_folder(&tmp.path().join("e"));
    let copy = tmp.path().join("all-copy");
    std::fs::rename(folder.join("all"), &copy).expect("move");
    std::os::unix::fs::symlink(&copy, folder.join("all")).expect("symlink");
    verify_fails(
        &folder,
        &[
            &format!(
                "output {}/all/abstract.md cannot be reached: {}/all on its way is a symbolic \
                 link (to {}), which is not followed; expected a folder",
                folder.display(),
                folder.display(),
                copy.display()
            ),
            &format!(
                "{}/all is a symbolic link (to {}) that manifest.json does not list",
                folder.display(),
                copy.display()
            ),
        ],
    );
}
