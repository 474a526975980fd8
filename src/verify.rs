//! `readout verify DIR`: recomputes the SHA-256 of every file a cut-off folder's
//! `manifest.json` lists (outputs, inputs, config) and reports any that changed or vanished.

use std::path::Path;

use crate::error::{Error, Result};
use crate::load::sha256_hex;
use crate::outputs::Manifest;

fn check(label: &str, path: &Path, expected: &str, problems: &mut Vec<String>) {
    match std::fs::read(path) {
        Ok(bytes) => {
            let actual = sha256_hex(&bytes);
            if actual != expected {
                problems.push(format!(
                    "{label} {} changed: SHA-256 {actual}, manifest has {expected}",
                    path.display()
                ));
            }
        }
        Err(e) => problems.push(format!("{label} {} cannot be read: {e}", path.display())),
    }
}

/// Returns one line per file that no longer matches the manifest (empty: all match). Input
/// and config paths are relative to the folder (older manifests: to where the build ran).
pub fn verify_folder(dir: &Path) -> Result<Vec<String>> {
    let path = dir.join("manifest.json");
    let text =
        std::fs::read_to_string(&path).map_err(|e| Error::io(&path, "cannot read manifest", e))?;
    let manifest: Manifest = serde_json::from_str(&text).map_err(|e| {
        Error::data_file(
            &path,
            format!("not a readout manifest ({e}); expected the output of `readout build`"),
        )
    })?;
    let mut problems = Vec::new();
    for entry in &manifest.outputs {
        if entry
            .path
            .split('/')
            .any(|part| part == ".." || part.is_empty())
        {
            problems.push(format!(
                "output path `{}` is not inside the folder",
                entry.path
            ));
            continue;
        }
        check(
            "output",
            &dir.join(&entry.path),
            &entry.sha256,
            &mut problems,
        );
    }
    let source = |path: &str| match manifest.paths_relative_to.as_deref() {
        Some(_) => dir.join(path),
        None => Path::new(path).to_path_buf(),
    };
    for entry in &manifest.inputs {
        check("input", &source(&entry.path), &entry.sha256, &mut problems);
    }
    check(
        "config",
        &source(&manifest.config.path),
        &manifest.config.sha256,
        &mut problems,
    );
    Ok(problems)
}
