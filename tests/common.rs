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
