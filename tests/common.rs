//! Helpers every test module uses.

use std::path::{Path, PathBuf};

/// The repository root (fixtures, configs and the shared reference folder beside it).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `../shared/reference/<sub>` beside the repository: reference data from other projects,
/// never committed. A test that reads it is `#[ignore = "needs ../shared/reference/…"]`, so a
/// user's clone shows it as ignored; `.ci/run` runs it with `--include-ignored`, where a
/// missing folder fails it rather than letting it pass.
pub fn shared_reference(sub: &str) -> PathBuf {
    let path = root().join("../shared/reference").join(sub);
    assert!(
        path.exists(),
        "{} is absent: this test needs the shared reference folder",
        path.display()
    );
    path
}

/// Every file under `dir`, at any depth (none when it does not exist).
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
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

/// The `readout` binary cargo built for these tests.
pub fn readout_command() -> std::process::Command {
    std::process::Command::new(env!("CARGO_BIN_EXE_readout"))
}

/// `readout build --quiet --out OUT CONFIG`, run from the repository root to its end.
pub fn build_quietly(out: &Path, config: &Path) -> Ran {
    readout_command()
        .args(["build", "--quiet", "--out"])
        .arg(out)
        .arg(config)
        .current_dir(root())
        .assert()
}

/// What one run of the binary did: its exit code and what it printed (UTF-8, or the test fails).
pub struct Outcome {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Outcome {
    /// Fails the test if the binary panicked (a panic message or the backtrace hint).
    pub fn assert_no_panic(&self) {
        assert!(
            !self.stderr.contains("panicked") && !self.stderr.contains("RUST_BACKTRACE"),
            "panic: {}",
            self.stderr
        );
    }

    /// The same outcome with `folder`'s path written `[OUT]`, so snapshots do not depend on
    /// the machine's temporary folder.
    pub fn hiding(self, folder: &Path) -> Outcome {
        let path = folder.display().to_string();
        Outcome {
            code: self.code,
            stdout: self.stdout.replace(&path, "[OUT]"),
            stderr: self.stderr.replace(&path, "[OUT]"),
        }
    }
}

/// `readout ARGS` at the repository root, without colour, with `env` set.
pub fn readout_with<S: AsRef<std::ffi::OsStr>>(args: &[S], env: &[(&str, &str)]) -> Outcome {
    let mut command = readout_command();
    command.args(args).current_dir(root()).env("NO_COLOR", "1");
    for (key, value) in env {
        command.env(key, value);
    }
    let output = command.output().expect("run readout");
    let text = |bytes: Vec<u8>| String::from_utf8(bytes).expect("utf-8 output");
    Outcome {
        code: output.status.code(),
        stdout: text(output.stdout),
        stderr: text(output.stderr),
    }
}

/// `readout ARGS` at the repository root, without colour.
pub fn readout<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Outcome {
    readout_with(args, &[])
}

/// `readout build CONFIG --out OUT [extra]` at the repository root: the tests' one build.
pub fn build(config: &Path, out: &Path, extra: &[&str]) -> Outcome {
    let mut args: Vec<&std::ffi::OsStr> = vec!["build".as_ref(), config.as_ref()];
    args.extend(["--out".as_ref(), out.as_os_str()]);
    args.extend(extra.iter().map(std::ffi::OsStr::new));
    readout(&args)
}

/// A JSON file's value (results.json, manifest.json).
pub fn read_json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Runs a command and checks how it ended, showing its output when it did not end as expected.
pub trait Run {
    fn assert(&mut self) -> Ran;
}

impl Run for std::process::Command {
    fn assert(&mut self) -> Ran {
        Ran(self.output().expect("the command runs"))
    }
}

/// A finished command's output.
pub struct Ran(std::process::Output);

impl Ran {
    pub fn success(self) -> Ran {
        assert!(self.0.status.success(), "{}", self.describe());
        self
    }

    pub fn code(self, code: i32) -> Ran {
        assert_eq!(self.0.status.code(), Some(code), "{}", self.describe());
        self
    }

    /// What the command printed on stderr.
    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.0.stderr).into_owned()
    }

    pub fn get_output(&self) -> &std::process::Output {
        &self.0
    }

    fn describe(&self) -> String {
        format!(
            "exit {:?}\nstdout:\n{}\nstderr:\n{}",
            self.0.status.code(),
            String::from_utf8_lossy(&self.0.stdout),
            String::from_utf8_lossy(&self.0.stderr)
        )
    }
}

/// The SHA-256 of every file a build wrote under `study` (lock files apart), against the list
/// `tests/reference/<list>`: a change meant to leave the outputs alone must leave every byte.
/// `manifest.json` is hashed with its input and config paths cut to their file names (they
/// start at the output folder, a temporary one). After a change meant to change outputs,
/// review them and write the lists anew with
/// `READOUT_BLESS_GOLDEN=1 cargo test --release outputs_match`.
pub fn assert_golden(study: &Path, list: &str) {
    let mut lines: Vec<String> = files_under(study)
        .into_iter()
        .filter(|path| {
            path.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| !n.starts_with('.'))
        })
        .map(|path| {
            let mut bytes = std::fs::read(&path).expect("read");
            if path.file_name().is_some_and(|n| n == "manifest.json") {
                bytes = manifest_without_locations(&bytes);
            }
            let name = path
                .strip_prefix(study)
                .expect("inside")
                .display()
                .to_string();
            format!("{}  {name}", readout::load::sha256_hex(&bytes))
        })
        .collect();
    lines.sort_by(|a, b| a[66..].cmp(&b[66..]));
    let actual = lines.join("\n") + "\n";
    let recorded = root().join("tests/reference").join(list);
    if std::env::var_os("READOUT_BLESS_GOLDEN").is_some() {
        std::fs::write(&recorded, &actual).expect("write the list");
        return;
    }
    let expected = std::fs::read_to_string(&recorded).expect("the recorded list");
    let differ: Vec<&str> = actual
        .lines()
        .filter(|l| !expected.lines().any(|e| e == *l))
        .chain(
            expected
                .lines()
                .filter(|e| !actual.lines().any(|l| l == *e)),
        )
        .collect();
    assert!(
        differ.is_empty(),
        "outputs differ from tests/reference/{list} (lines on one side only):\n{}",
        differ.join("\n")
    );
}

/// A manifest with each input's and the config's path cut to its file name.
fn manifest_without_locations(bytes: &[u8]) -> Vec<u8> {
    let mut manifest: serde_json::Value = serde_json::from_slice(bytes).expect("manifest");
    let cut = |entry: &mut serde_json::Value| {
        let name = entry["path"]
            .as_str()
            .and_then(|p| p.rsplit('/').next())
            .expect("a path")
            .to_string();
        entry["path"] = name.into();
    };
    cut(&mut manifest["config"]);
    for input in manifest["inputs"].as_array_mut().expect("inputs") {
        cut(input);
    }
    serde_json::to_vec_pretty(&manifest).expect("JSON")
}

/// A CSV file (quoted fields too) as rows of column → value.
pub fn csv_rows(path: &Path) -> Vec<std::collections::BTreeMap<String, String>> {
    let mut reader =
        csv::Reader::from_path(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let header = reader.headers().expect("header").clone();
    reader
        .records()
        .map(|row| {
            let row = row.unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            header
                .iter()
                .zip(row.iter())
                .map(|(h, v)| (h.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

/// `n` of `total` in percent to one decimal, halves rounded up, as documents print it.
pub fn percent_text(n: u64, total: u64) -> String {
    let tenths = (n * 2000 + total) / (2 * total);
    format!("{}.{}", tenths / 10, tenths % 10)
}

/// What `readout check` says of a config it refuses (exit code 2).
pub fn refused_by_check(config: &Path) -> String {
    readout_command()
        .arg("check")
        .arg(config)
        .assert()
        .code(2)
        .stderr()
}

/// The randomised example's config with `edit` applied to its text, in `dir`.
pub fn rand_example_config(dir: &Path, edit: &dyn Fn(String) -> String) -> PathBuf {
    let text = std::fs::read_to_string(root().join("config/rand-example.yaml")).expect("config");
    let data = root().join("data/rand-example");
    let text = text
        .replace(
            "dir: ../data/rand-example",
            &format!("dir: {}", data.display()),
        )
        .replace("dir: ../output", "dir: output");
    let path = dir.join("study.yaml");
    std::fs::write(&path, edit(text)).expect("write config");
    path
}
