//! Batch builds: several cut-offs in one command, diffs between them, failures isolated,
//! folders written whole, manifests verifiable, output independent of the thread count.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};

use crate::common::{build_quietly, readout_command, root, Run};

fn readout() -> Command {
    let mut cmd = readout_command();
    cmd.current_dir(root());
    cmd
}

fn results(folder: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(folder.join("results.json")).expect("read"))
        .expect("json")
}

/// Every file under `dir`, relative path → bytes.
fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("dir").flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).expect("prefix").display().to_string();
                out.insert(rel, std::fs::read(&p).expect("file"));
            }
        }
    }
    out
}

#[test]
fn three_cutoffs_of_the_example_study_in_one_command() {
    let out = tempfile::tempdir().expect("temp");
    readout()
        .args(["build", "config/altn-ak105-ii-01.yaml", "--quiet"])
        .args([
            "--cutoff",
            "2021-01-25",
            "--cutoff",
            "2022-01-06",
            "--cutoff",
            "2022-10-20",
        ])
        .arg("--out")
        .arg(out.path())
        .assert()
        .success();
    let study = out.path().join("ALTN-AK105-II-01");
    let mut enrolled = Vec::new();
    for cutoff in ["2021-01-25", "2022-01-06", "2022-10-20"] {
        let r = results(&study.join(cutoff));
        assert_eq!(r["cutoff"], cutoff);
        let cohorts = r["cohorts"].as_array().expect("cohorts");
        assert_eq!(cohorts.len(), 3, "every cohort at every cut-off");
        let c1 = cohorts
            .iter()
            .find(|c| c["id"] == "cohort-1")
            .expect("cohort-1");
        enrolled.push(c1["n"]["enrolled"].as_u64().expect("n"));
    }
    // All cohorts of a cut-off side by side, with one shared number-at-risk table.
    let km =
        std::fs::read_to_string(study.join("2022-10-20/figures/km-pfs.svg")).expect("study KM");
    for label in ["R/M HNSCC", "R/M non-SCCHN", "SCLC", "Number at risk"] {
        assert!(km.contains(label), "study-level KM lacks {label}");
    }
    // Described for screen readers: a title, and each cohort with its median.
    let head = &km[..km.find("<rect").unwrap_or(km.len())];
    assert!(head.contains(" role=\"img\"><title>Progression-free survival: all cohorts</title><desc>Kaplan–Meier curves of progression-free survival in 3 cohorts: "), "{head}");
    assert_eq!(head.matches(", median ").count(), 3, "{head}");
    // Cohort 1 enrolled until 2021-11-22: fewer subjects at the earliest cut-off.
    assert!(
        enrolled[0] < 38 && enrolled[1] == 38 && enrolled[2] == 38,
        "{enrolled:?}"
    );

    // A later build of another cut-off leaves the earlier folders untouched.
    let before = tree(&study.join("2021-01-25"));
    readout()
        .args([
            "build",
            "config/altn-ak105-ii-01.yaml",
            "--quiet",
            "--cutoff",
            "2022-06-30",
        ])
        .arg("--out")
        .arg(out.path())
        .assert()
        .success();
    assert_eq!(tree(&study.join("2021-01-25")), before);
    assert!(study.join("2022-06-30/results.json").is_file());
}

#[test]
fn diff_between_two_cutoffs_shows_the_known_changes() {
    let out = tempfile::tempdir().expect("temp");
    readout()
        .args([
            "build",
            "tests/fixtures/batch/study.yaml",
            "--quiet",
            "--diff-previous",
        ])
        .arg("--out")
        .arg(out.path())
        .assert()
        .success();
    let study = out.path().join("TINY");
    // Worked out by hand from tests/fixtures/tiny: at 2021-03-01, S-001 has one PR (not yet
    // confirmed; SD, being past day 42), S-002 and S-003 have no assessment (NE). By
    // 2021-04-30, S-001's PR is confirmed 42 days later, S-002 had SD then PD (SD), S-003 SD.
    let early = results(&study.join("2021-03-01"));
    let late = results(&study.join("2021-04-30"));
    let bor = |r: &Value, k: &str| r["cohorts"][0]["response"]["bor"][k].as_u64();
    assert_eq!(
        (bor(&early, "PR"), bor(&early, "SD"), bor(&early, "NE")),
        (Some(0), Some(1), Some(2))
    );
    assert_eq!(
        (bor(&late, "PR"), bor(&late, "SD"), bor(&late, "NE")),
        (Some(1), Some(2), Some(0))
    );
    assert_eq!(early["cohorts"][0]["tte"]["PFS"]["events"], 0);
    assert_eq!(late["cohorts"][0]["tte"]["PFS"]["events"], 1);

    let written = study.join("diff-2021-03-01-to-2021-04-30.md");
    let md = std::fs::read_to_string(&written).expect("diff written by --diff-previous");
    for line in [
        "- S-001: SD → PR",
        "- S-002: NE → SD",
        "- S-003: NE → SD",
        "| PFS events | 0 | 1 | **changed**",
    ] {
        assert!(md.contains(line), "diff lacks {line:?}:\n{md}");
    }
    assert!(study.join("diff-2021-03-01-to-2021-04-30.html").is_file());
    // The early cut-off's note on subjects without a response is kept whole in results.json,
    // and the diff says by kind that the later cut-off no longer gives it.
    let note = &early["cohorts"][0]["diagnostics"][0];
    assert_eq!(
        (&note["kind"], &note["severity"], &note["location"]),
        (&json!("endpoint-subjects"), &json!("note"), &Value::Null)
    );
    assert_eq!(note["message"], early["cohorts"][0]["warnings"][0]);
    assert_eq!(late["cohorts"][0]["diagnostics"], json!([]));
    assert!(
        md.contains(
            "Warnings no longer given (1):\n\n- `endpoint-subjects`: 2 efficacy subject(s) have \
             no assessment that gives a response"
        ),
        "{md}"
    );

    // The diff command prints the same report.
    let output = readout()
        .arg("diff")
        .arg(study.join("2021-03-01"))
        .arg(study.join("2021-04-30"))
        .output()
        .expect("run");
    assert!(output.status.success());
    assert_eq!(String::from_utf8(output.stdout).expect("utf-8"), md);
    let err = String::from_utf8(output.stderr).expect("utf-8");
    assert!(
        err.contains("diff written to ") && err.contains("diff-2021-03-01-to-2021-04-30.html"),
        "{err}"
    );

    // The later cut-off first is refused, naming the order to use.
    let output = readout()
        .arg("diff")
        .arg(study.join("2021-04-30"))
        .arg(study.join("2021-03-01"))
        .output()
        .expect("run");
    assert_eq!(output.status.code(), Some(2));
    let err = String::from_utf8(output.stderr).expect("utf-8");
    assert!(
        err.contains("(cut-off 2021-04-30) is later than")
            && err.contains("give the earlier cut-off first"),
        "{err}"
    );
}

#[test]
fn a_failing_cohort_does_not_stop_the_others() {
    let out = tempfile::tempdir().expect("temp");
    let output = readout()
        .args([
            "build",
            "tests/fixtures/batch/failing-cohort.yaml",
            "tests/fixtures/invalid/missing-file/study.yaml",
            "config/altn-ak105-ii-01.yaml",
        ])
        .arg("--out")
        .arg(out.path())
        .output()
        .expect("run");
    assert_eq!(output.status.code(), Some(2));
    let err = String::from_utf8(output.stderr).expect("utf-8");
    assert!(
        err.contains(
            "error: tests/fixtures/batch/failing-cohort.yaml: cohort `broken`: key \
             `cohorts[1].where.NO_SUCH_COLUMN`: ADSL has no column `NO_SUCH_COLUMN`"
        ),
        "{err}"
    );
    assert!(err.contains("no-such-file.csv"), "{err}");
    let stdout = String::from_utf8(output.stdout).expect("utf-8");
    assert!(
        stdout.contains("broken") && stdout.contains("FAILED"),
        "{stdout}"
    );
    // The passing cohort of the same config and the other study are built.
    let tiny = results(&out.path().join("TINY-FAIL/2021-04-30"));
    assert_eq!(tiny["cohorts"].as_array().map(Vec::len), Some(1));
    assert_eq!(tiny["failures"][0]["cohort"], "broken");
    assert!(out
        .path()
        .join("ALTN-AK105-II-01/2022-10-20/results.json")
        .is_file());
}

#[test]
fn outputs_are_byte_identical_at_one_and_two_threads() {
    let mut trees = Vec::new();
    let dirs: Vec<_> = (0..2).map(|_| tempfile::tempdir().expect("temp")).collect();
    for (threads, dir) in ["1", "2"].iter().zip(&dirs) {
        readout()
            .env("RAYON_NUM_THREADS", threads)
            .args([
                "build",
                "config/altn-ak105-ii-01.yaml",
                "--quiet",
                "--cutoff",
                "2021-06-30",
                "--cutoff",
                "2022-10-20",
            ])
            .arg("--out")
            .arg(dir.path())
            .assert()
            .success();
        trees.push(tree(dir.path()));
    }
    assert!(trees[0].len() > 20, "{} files", trees[0].len());
    assert_eq!(
        trees[0].keys().collect::<Vec<_>>(),
        trees[1].keys().collect::<Vec<_>>()
    );
    for (path, bytes) in &trees[0] {
        assert!(
            trees[1].get(path) == Some(bytes),
            "{path} differs between 1 and 2 threads"
        );
    }
}

#[test]
fn verify_reports_a_changed_output() {
    let out = tempfile::tempdir().expect("temp");
    readout()
        .args(["build", "tests/fixtures/batch/study.yaml", "--quiet"])
        .arg("--out")
        .arg(out.path())
        .assert()
        .success();
    let folder = out.path().join("TINY/2021-04-30");
    readout().arg("verify").arg(&folder).assert().success();
    // From any folder: the manifest's input and config paths start at the cut-off folder.
    readout()
        .arg("verify")
        .arg(&folder)
        .current_dir(out.path())
        .assert()
        .success();
    // A build from another folder, naming the config by its absolute path, writes the same
    // manifest.
    let manifest = || {
        let text = std::fs::read_to_string(folder.join("manifest.json")).expect("manifest");
        let mut m: Value = serde_json::from_str(&text).expect("json");
        m["outputs"] = Value::Null;
        m
    };
    let first = manifest();
    let other = tempfile::tempdir().expect("temp");
    readout()
        .args(["build", "--quiet", "--out"])
        .arg(out.path())
        .arg(root().join("tests/fixtures/batch/study.yaml"))
        .current_dir(other.path())
        .assert()
        .success();
    assert_eq!(first, manifest());
    readout()
        .arg("verify")
        .arg(&folder)
        .current_dir("/")
        .assert()
        .success();
    std::fs::write(folder.join("all/abstract.md"), "edited by hand\n").expect("edit");
    let output = readout().arg("verify").arg(&folder).output().expect("run");
    assert_eq!(output.status.code(), Some(1));
    let text = String::from_utf8(output.stdout).expect("utf-8");
    assert!(text.contains("all/abstract.md changed"), "{text}");
}

#[test]
fn a_killed_build_leaves_no_partial_folder() {
    let out = tempfile::tempdir().expect("temp");
    // Many cohorts with PNG figures make the build long enough to be killed in the middle.
    let config = out.path().join("many.yaml");
    let data = root().join("data/altn-ak105-ii-01");
    let mut yaml = format!(
        "study: {{ id: MANY }}\ndata: {{ dir: {}, adsl: adsl.csv, adrs: adrs.csv, adae: adae.csv, adtr: adtr.csv }}\ncutoffs: [2021-06-30, 2022-01-06, 2022-10-20]\noutput: {{ formats: [md, html, png] }}\ncohorts:\n",
        data.display()
    );
    for i in 0..9 {
        yaml.push_str(&format!(
            "  - {{ id: c{i}, where: {{ COHORT: \"{}\" }} }}\n",
            [1, 2, 4][i % 3]
        ));
    }
    std::fs::write(&config, yaml).expect("config");
    let bin = env!("CARGO_BIN_EXE_readout");
    let mut child = std::process::Command::new(bin)
        .args(["build", "--quiet", "--out"])
        .arg(out.path())
        .arg(&config)
        .spawn()
        .expect("spawn");
    std::thread::sleep(std::time::Duration::from_millis(400));
    let _ = child.kill();
    let _ = child.wait();
    let study = out.path().join("MANY");
    // Whatever was finished is complete and verifies; nothing else is visible.
    if let Ok(entries) = std::fs::read_dir(&study) {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().to_string();
            if name.starts_with('.') {
                continue; // a staging folder, removed by the next build
            }
            readout().arg("verify").arg(entry.path()).assert().success();
        }
    }
    // The next build cleans up and writes every folder.
    build_quietly(out.path(), &config).success();
    // Each cut-off folder keeps its lock file (`.NAME.lock`, which builds of it take turns
    // on); no staging or set-aside folder is left.
    let names: Vec<String> = std::fs::read_dir(&study)
        .expect("study")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| !(n.starts_with('.') && n.ends_with(".lock")))
        .collect();
    assert!(names.iter().all(|n| !n.starts_with('.')), "{names:?}");
    assert_eq!(names.len(), 3, "{names:?}");
}

/// A small config of the example study's data with the given study id and cut-offs.
fn example_config(dir: &Path, file: &str, id: &str, cutoffs: &str) -> PathBuf {
    let data = root().join("data/altn-ak105-ii-01");
    let yaml = format!(
        "study: {{ id: {id} }}\ndata: {{ dir: {}, adsl: adsl.csv, adrs: adrs.csv }}\ncutoffs: [{cutoffs}]\ncohorts:\n  - {{ id: cohort-1, where: {{ COHORT: \"1\" }} }}\n",
        data.display()
    );
    let path = dir.join(file);
    std::fs::write(&path, yaml).expect("config");
    path
}

#[test]
fn two_configs_making_one_folder_are_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().expect("temp");
    let out = dir.path().join("out");
    let a = example_config(dir.path(), "a.yaml", "STUDY-A", "2022-01-06");
    let twin = example_config(dir.path(), "twin.yaml", "STUDY-A", "2021-06-30, 2022-01-06");
    let lower = example_config(dir.path(), "lower.yaml", "study-a", "2022-01-06");
    let cases: [(&[&Path], &str); 3] = [
        (
            &[&a, &twin],
            "twin.yaml: key `study.id`: `STUDY-A` makes the folder",
        ),
        (
            &[&a, &lower],
            "as study `STUDY-A` (ids differing only in case",
        ),
        (&[&a, &a], "a.yaml: the config is given twice"),
    ];
    for (configs, message) in cases {
        let output = readout()
            .arg("build")
            .args(configs)
            .arg("--out")
            .arg(&out)
            .output()
            .expect("run");
        assert_eq!(output.status.code(), Some(2), "{configs:?}");
        let err = String::from_utf8(output.stderr).expect("utf-8");
        assert!(err.contains(message), "{err}");
        assert!(
            err.contains("given twice")
                || (err.to_lowercase().contains("study-a/2022-01-06")
                    && err.contains("with --out every config writes under that folder")),
            "the folder and the remedy are named: {err}"
        );
        assert!(!out.exists(), "nothing is written: {configs:?}");
        // What refuses the build refuses the check.
        let check = readout().arg("check").args(configs).output().expect("run");
        assert_eq!(check.status.code(), Some(2), "check {configs:?}");
        let err = String::from_utf8(check.stderr).expect("utf-8");
        assert!(err.contains(message), "check: {err}");
    }
    // The same study at different cut-offs, or under another id, is one build.
    let later = example_config(dir.path(), "later.yaml", "STUDY-A", "2022-10-20");
    let other = example_config(dir.path(), "other.yaml", "STUDY-B", "2022-01-06");
    readout()
        .arg("build")
        .args([&a, &later, &other])
        .arg("--quiet")
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    for folder in [
        "STUDY-A/2022-01-06",
        "STUDY-A/2022-10-20",
        "STUDY-B/2022-01-06",
    ] {
        assert!(out.join(folder).join("results.json").is_file(), "{folder}");
    }
}

#[cfg(unix)]
#[test]
fn configs_reached_through_symbolic_links_are_compared_where_they_lead() {
    let dir = tempfile::tempdir().expect("temp");
    let real = dir.path().join("real");
    let other = dir.path().join("other");
    std::fs::create_dir_all(&real).expect("dir");
    std::fs::create_dir_all(&other).expect("dir");
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&real, &link).expect("symlink");
    let a = example_config(&real, "a.yaml", "STUDY-L", "2022-01-06");
    // The same file by two names.
    let output = readout()
        .arg("build")
        .arg(&a)
        .arg(link.join("a.yaml"))
        .output()
        .expect("run");
    assert_eq!(output.status.code(), Some(2));
    let err = String::from_utf8(output.stderr).expect("utf-8");
    assert!(err.contains("the config is given twice"), "{err}");
    // Another config whose output folder names real/output through the link.
    let b = example_config(&other, "b.yaml", "STUDY-L", "2022-01-06");
    let text = std::fs::read_to_string(&b).expect("config");
    std::fs::write(&b, format!("{text}output: {{ dir: ../link/output }}\n")).expect("write");
    let output = readout()
        .arg("build")
        .arg(&a)
        .arg(&b)
        .output()
        .expect("run");
    assert_eq!(output.status.code(), Some(2));
    let err = String::from_utf8(output.stderr).expect("utf-8");
    assert!(
        err.contains("b.yaml: key `study.id`: `STUDY-L` makes the folder")
            && err.contains("(`output.dir`)"),
        "{err}"
    );
    assert!(!real.join("output").exists(), "nothing is written");
}

/// The text of a tracked-changes document.xml after Accept All (`accept`) or Reject All:
/// paragraphs joined by blank lines.
fn resolved_docx(xml: &str, accept: bool) -> String {
    let drop = if accept { "w:del" } else { "w:ins" };
    // Per paragraph: its text once the dropped runs are gone, and whether its mark is dropped
    // too (a paragraph inserted or deleted whole), which joins it to the next one, as Word does.
    let mut out: Vec<String> = Vec::new();
    let mut joined = String::new();
    let body = xml.split("<w:body>").nth(1).expect("a body");
    for para in body.split("<w:p>").skip(1) {
        let para = para.split("</w:p>").next().expect("closed");
        let (props, mut runs) = match para.split_once("</w:pPr>") {
            Some((props, runs)) => (props, runs.to_string()),
            None => ("", para.to_string()),
        };
        while let Some(start) = runs.find(&format!("<{drop} ")) {
            let end = runs[start..].find(&format!("</{drop}>")).expect("closed") + start;
            runs.replace_range(start..end + drop.len() + 3, "");
        }
        let mut rest = runs.as_str();
        while let Some(i) = rest.find("xml:space=\"preserve\">") {
            let after = &rest[i + 21..];
            let j = after.find("</w:").expect("text closed");
            joined.push_str(
                &after[..j]
                    .replace("&amp;", "&")
                    .replace("&lt;", "<")
                    .replace("&gt;", ">"),
            );
            rest = &after[j..];
        }
        if !props.contains(&format!("<{drop} ")) {
            out.push(std::mem::take(&mut joined));
        }
    }
    if !joined.is_empty() {
        out.push(joined);
    }
    // No paragraph is left empty by accepting or rejecting.
    assert!(
        out.iter().all(|p| !p.is_empty()),
        "an empty paragraph: {out:?}"
    );
    out.join("\n\n")
}

#[test]
fn diff_writes_each_cohorts_abstract_redlined_in_word_and_html() {
    let out = tempfile::tempdir().expect("temp");
    readout()
        .args(["build", "tests/fixtures/batch/study.yaml", "--quiet"])
        .arg("--out")
        .arg(out.path())
        .assert()
        .success();
    let study = out.path().join("TINY");
    // The earlier abstract with a paragraph the later one lacks (deleted whole) and without
    // the later one's Methods (inserted whole).
    let early_path = study.join("2021-03-01/all/abstract.txt");
    let text = std::fs::read_to_string(&early_path).unwrap();
    let kept: Vec<&str> = text
        .split("\n\n")
        .filter(|p| !p.starts_with("Methods:"))
        .collect();
    let text = format!(
        "{}\n\nBackground: A paragraph only the earlier abstract has.\n\n{}",
        kept[0],
        kept[1..].join("\n\n")
    );
    std::fs::write(&early_path, text).unwrap();
    let output = readout()
        .arg("diff")
        .arg(study.join("2021-03-01"))
        .arg(study.join("2021-04-30"))
        .output()
        .expect("run");
    assert!(output.status.success());
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(
        err.contains("diff-2021-03-01-to-2021-04-30-all.docx"),
        "{err}"
    );
    let paragraphs = |t: &str| {
        t.split("\n\n")
            .map(|p| p.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|p| !p.is_empty())
            .collect::<Vec<_>>()
            .join("\n\n")
    };
    let early =
        paragraphs(&std::fs::read_to_string(study.join("2021-03-01/all/abstract.txt")).unwrap());
    let late =
        paragraphs(&std::fs::read_to_string(study.join("2021-04-30/all/abstract.txt")).unwrap());
    assert_ne!(early, late);
    let file = std::fs::File::open(study.join("diff-2021-03-01-to-2021-04-30-all.docx")).unwrap();
    let mut archive = zip::ZipArchive::new(file).expect("a .docx is a zip archive");
    let mut xml = String::new();
    std::io::Read::read_to_string(&mut archive.by_name("word/document.xml").unwrap(), &mut xml)
        .unwrap();
    assert!(xml.contains("w:author=\"readout\" w:date=\"2021-04-30T00:00:00Z\""));
    // Both whole paragraphs carry their mark's change (else Accept All or Reject All leaves
    // an empty paragraph, which `resolved_docx` refuses).
    assert!(xml.contains("<w:pPr><w:rPr><w:del w:id="), "{xml}");
    assert!(xml.contains("<w:pPr><w:rPr><w:ins w:id="), "{xml}");
    assert_eq!(resolved_docx(&xml, true), late, "Accept All");
    assert_eq!(resolved_docx(&xml, false), early, "Reject All");
    let html =
        std::fs::read_to_string(study.join("diff-2021-03-01-to-2021-04-30-all.html")).unwrap();
    assert!(html.contains("<ins>") && html.contains("<del>"));
}

#[test]
fn a_cohort_added_is_all_inserted_and_one_removed_is_said_gone() {
    let out = tempfile::tempdir().expect("temp");
    readout()
        .args(["build", "tests/fixtures/batch/study.yaml", "--quiet"])
        .arg("--out")
        .arg(out.path())
        .assert()
        .success();
    let study = out.path().join("TINY");
    // A cohort `old` only in the earlier folder, `new` only in the later one (copies of `all`).
    for (cut, id) in [("2021-03-01", "old"), ("2021-04-30", "new")] {
        let folder = study.join(cut);
        std::fs::create_dir(folder.join(id)).unwrap();
        std::fs::copy(
            folder.join("all/abstract.txt"),
            folder.join(id).join("abstract.txt"),
        )
        .unwrap();
        let mut results: Value = crate::common::read_json(&folder.join("results.json"));
        let mut copy = results["cohorts"][0].clone();
        copy["id"] = id.into();
        results["cohorts"].as_array_mut().unwrap().push(copy);
        std::fs::write(folder.join("results.json"), results.to_string()).unwrap();
    }
    let output = readout()
        .arg("diff")
        .arg(study.join("2021-03-01"))
        .arg(study.join("2021-04-30"))
        .output()
        .expect("run");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let html = |id: &str| {
        std::fs::read_to_string(study.join(format!("diff-2021-03-01-to-2021-04-30-{id}.html")))
            .unwrap()
    };
    let new = html("new");
    assert!(new.contains("<ins>") && !new.contains("<del>"), "{new}");
    let old = html("old");
    assert!(
        old.contains("<ins>Cohort old is not in 2021-04-30: it was in 2021-03-01"),
        "{old}"
    );
    assert!(study
        .join("diff-2021-03-01-to-2021-04-30-old.docx")
        .is_file());
}
