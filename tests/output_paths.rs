//! Paths in and around output trees: ids read back from results.json,
//! links and FIFOs planted where readout writes (diff files, the lock file, `init`), and
//! names that become files. Run through the real binary.

use std::path::{Path, PathBuf};

use crate::common::{files_under, readout_command, root, Run};

/// Builds the hostile link fixture at two cut-offs into `out`; returns both folders.
fn two_cutoffs(out: &Path) -> (PathBuf, PathBuf) {
    readout_command()
        .args([
            "build",
            "--quiet",
            "--cutoff",
            "2021-06-30",
            "--cutoff",
            "2021-12-31",
        ])
        .arg("--out")
        .arg(out)
        .arg("tests/fixtures/hostile/links.yaml")
        .current_dir(root())
        .assert()
        .success();
    let study = out.join("HOSTILE-LINKS");
    (study.join("2021-06-30"), study.join("2021-12-31"))
}

fn diff(a: &Path, b: &Path, cwd: &Path) -> std::process::Output {
    readout_command()
        .arg("diff")
        .arg(a)
        .arg(b)
        .current_dir(cwd)
        .output()
        .expect("readout runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A cohort id edited in results.json to `../../../secret` would have joined another file
/// into `derived/<id>.csv`: it is refused like a config's id, naming the file and key, and
/// the secret's rows are printed nowhere.
#[test]
fn a_crafted_cohort_id_in_results_json_is_refused_by_diff() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let (a, b) = two_cutoffs(&tmp.path().join("out"));
    let secret = tmp.path().join("secret.csv");
    std::fs::write(&secret, "USUBJID,BOR\nSECRET-ROW,CR\n").expect("write");
    let results = b.join("results.json");
    let json = std::fs::read_to_string(&results).expect("results");
    let crafted = json.replacen("\"id\": \"links\"", "\"id\": \"../../../../secret\"", 1);
    assert_ne!(crafted, json, "the cohort id is in results.json");
    std::fs::write(&results, crafted).expect("write");
    let ran = diff(&a, &b, tmp.path());
    let (stdout, stderr) = (text(&ran.stdout), text(&ran.stderr));
    assert_eq!(ran.status.code(), Some(2), "{stdout}{stderr}");
    assert!(
        stderr.contains(
            "results.json: key `cohorts[0].id`: `../../../../secret` is not a valid cohort id"
        ),
        "{stderr}"
    );
    assert!(!stdout.contains("SECRET") && !stderr.contains("SECRET"));
    let written: Vec<PathBuf> = files_under(tmp.path())
        .into_iter()
        .filter(|p| p.to_string_lossy().contains("diff-"))
        .collect();
    assert!(written.is_empty(), "{written:?}");
}

/// A link planted where `diff` puts its temporary file (or its output) is replaced, never
/// written through: the file it points to is left as it was.
#[test]
fn diff_never_writes_through_a_planted_link() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let (a, b) = two_cutoffs(&tmp.path().join("out"));
    let study = b.parent().expect("study folder");
    let victim = tmp.path().join("victim.txt");
    std::fs::write(&victim, "precious").expect("write");
    // The temporary file's old name, and the outputs themselves.
    let stem = "diff-2021-06-30-to-2021-12-31";
    for name in [
        format!("{stem}.tmp"),
        format!("{stem}.md"),
        format!("{stem}.html"),
    ] {
        std::os::unix::fs::symlink(&victim, study.join(name)).expect("symlink");
    }
    let ran = diff(&a, &b, tmp.path());
    assert_eq!(ran.status.code(), Some(0), "{}", text(&ran.stderr));
    assert_eq!(std::fs::read_to_string(&victim).expect("read"), "precious");
    let html = study.join(format!("{stem}.html"));
    let meta = std::fs::symlink_metadata(&html).expect("html written");
    assert!(meta.is_file(), "the link was replaced by the file");
    assert!(std::fs::read_to_string(&html)
        .expect("html")
        .contains("changes from 2021-06-30 to 2021-12-31"));
    assert!(study.join(format!("{stem}.md")).is_file());
}

/// `readout diff ../A .` from inside the later cut-off folder names both folders by their
/// own names and writes beside them (it wrote `diff-A-to-..md` into the cut-off folder).
#[test]
fn diff_of_dot_names_the_folder_and_writes_beside_it() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let (_, b) = two_cutoffs(&tmp.path().join("out"));
    let ran = diff(Path::new("../2021-06-30"), Path::new("."), &b);
    assert_eq!(ran.status.code(), Some(0), "{}", text(&ran.stderr));
    let study = b.parent().expect("study");
    assert!(study.join("diff-2021-06-30-to-2021-12-31.md").is_file());
    let stray: Vec<PathBuf> = files_under(&b)
        .into_iter()
        .filter(|p| p.to_string_lossy().contains("diff-"))
        .collect();
    assert!(stray.is_empty(), "{stray:?}");
}

/// The lock file beside a cut-off folder is never followed nor waited on: a dangling link
/// there made every build create the file it points to, a FIFO made every build hang. Both
/// are refused with the path and what was expected; nothing is created.
#[test]
fn a_link_or_fifo_at_the_lock_path_is_refused() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let out = tmp.path().join("out");
    let study = out.join("HOSTILE-LINKS");
    std::fs::create_dir_all(&study).expect("mkdir");
    let lock = study.join(".2021-12-31.lock");
    let pointed = tmp.path().join("created-by-link");
    std::os::unix::fs::symlink(&pointed, &lock).expect("symlink");
    let build = || {
        readout_command()
            .args(["build", "--quiet", "--out"])
            .arg(&out)
            .arg("tests/fixtures/hostile/links.yaml")
            .current_dir(root())
            .output()
            .expect("readout runs")
    };
    let ran = build();
    assert_eq!(ran.status.code(), Some(2));
    let stderr = text(&ran.stderr);
    assert!(
        stderr.contains(".2021-12-31.lock: is a symbolic link; expected the lock file"),
        "{stderr}"
    );
    assert!(!pointed.exists(), "the link's target was created");
    std::fs::remove_file(&lock).expect("rm");
    let made = std::process::Command::new("mkfifo")
        .arg(&lock)
        .status()
        .expect("mkfifo");
    assert!(made.success());
    // A hang here would stop the test suite: the build must end by itself.
    let ran = build();
    assert_eq!(ran.status.code(), Some(2));
    let stderr = text(&ran.stderr);
    assert!(stderr.contains("is not a regular file"), "{stderr}");
    assert!(!study.join("2021-12-31").exists());
}

/// `readout init` writes only new files: a dangling link where a starter file goes is
/// refused, and the file it points to is not created.
#[test]
fn init_never_writes_through_a_dangling_link() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path().join("study");
    std::fs::create_dir_all(dir.join("data")).expect("mkdir");
    let pointed = tmp.path().join("elsewhere.csv");
    std::os::unix::fs::symlink(&pointed, dir.join("data/adrs.csv")).expect("symlink");
    let ran = readout_command()
        .arg("init")
        .arg(&dir)
        .output()
        .expect("readout runs");
    assert_eq!(ran.status.code(), Some(2));
    assert!(
        text(&ran.stderr).contains("adrs.csv: is a symbolic link"),
        "{}",
        text(&ran.stderr)
    );
    assert!(!pointed.exists());
    std::fs::remove_file(dir.join("data/adrs.csv")).expect("rm");
    let pointed = tmp.path().join("config-elsewhere.yaml");
    std::os::unix::fs::symlink(&pointed, dir.join("study.yaml")).expect("symlink");
    let ran = readout_command()
        .arg("init")
        .arg(&dir)
        .output()
        .expect("readout runs");
    assert_eq!(ran.status.code(), Some(2));
    assert!(text(&ran.stderr).contains("already exists"));
    assert!(!pointed.exists());
}

/// A `tte_params` endpoint name becomes figure file names: one of 300 characters is refused
/// by `check` (it passed `check` and failed `build` with "File name too long").
#[test]
fn check_refuses_an_endpoint_name_too_long_for_a_file_name() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let long = "E".repeat(300);
    let config = format!(
        "study:\n  id: LONG\ndata:\n  dir: {}\n  adsl: adsl.csv\n  adrs: adrs.csv\nanalysis:\n  tte_params: {{ {long}: PFS }}\ncohorts:\n  - id: all\n",
        root().join("tests/fixtures/hostile").display()
    );
    let path = tmp.path().join("study.yaml");
    std::fs::write(&path, config).expect("write");
    let ran = readout_command()
        .arg("check")
        .arg(&path)
        .output()
        .expect("readout runs");
    assert_eq!(ran.status.code(), Some(2));
    let stderr = text(&ran.stderr);
    assert!(
        stderr.contains("key `analysis.tte_params`: endpoint name `EEEEEEEEEEEEEEEEEEEE…` (300 characters); expected 1 to 64"),
        "{stderr}"
    );
}

/// A FIFO given as any file readout reads (the config, a data file, a Word or PowerPoint
/// reference, a user template) is refused at once with the key and the path, never waited
/// on: `check` used to hang on each.
#[cfg(unix)]
#[test]
fn a_fifo_as_any_input_is_refused_without_waiting() {
    let data = root().join("tests/fixtures/tiny");
    let config = |extra_data: &str, output: &str| {
        format!(
            "study:\n  id: FIFO\ndata:\n  dir: {}\n  adsl: adsl.csv\n  adrs: adrs.csv\n{extra_data}\
             cohorts:\n  - id: all\noutput:\n  formats: [md, docx, pptx]\n{output}",
            data.display()
        )
    };
    let cases = [
        (
            "data.adae",
            config("  adae: FIFO_PATH\n", ""),
            "key `data.adae`",
        ),
        (
            "data.adsl",
            config("", "").replace("adsl.csv", "FIFO_PATH"),
            "key `data.adsl`",
        ),
        (
            "docx_reference",
            config("", "  docx_reference: FIFO_PATH\n"),
            "key `output.docx_reference`",
        ),
        (
            "pptx_reference",
            config("", "  pptx_reference: FIFO_PATH\n"),
            "key `output.pptx_reference`",
        ),
        (
            "templates",
            config("", "  templates: TEMPLATES\n"),
            "slides.txt",
        ),
        ("config", String::new(), "study.yaml"),
    ];
    for (what, text, said) in cases {
        let tmp = tempfile::tempdir().expect("temp");
        let fifo = tmp.path().join("fifo");
        let templates = tmp.path().join("t");
        std::fs::create_dir(&templates).expect("dir");
        let made = |path: &Path| {
            std::process::Command::new("mkfifo")
                .arg(path)
                .status()
                .expect("mkfifo")
                .success()
        };
        assert!(made(&fifo) && made(&templates.join("slides.txt")));
        let path = tmp.path().join("study.yaml");
        if what == "config" {
            assert!(made(&path));
        } else {
            let text = text
                .replace("FIFO_PATH", &fifo.display().to_string())
                .replace("TEMPLATES", &templates.display().to_string());
            std::fs::write(&path, text).expect("config");
        }
        let mut child = readout_command()
            .arg("check")
            .arg(&path)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("readout runs");
        let started = std::time::Instant::now();
        while child.try_wait().expect("wait").is_none() {
            if started.elapsed() > std::time::Duration::from_secs(60) {
                child.kill().expect("kill");
                panic!("{what}: readout waited on the FIFO");
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let out = child.wait_with_output().expect("output");
        let stderr = text_of(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{what}: {stderr}");
        assert!(
            stderr.contains(said) && stderr.contains("FIFO (named pipe)"),
            "{what}: {stderr}"
        );
    }
}

fn text_of(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}
