//! `readout init DIR`: a commented starter config and empty ADaM files.

use super::*;

pub(super) const STARTER_CONFIG: &str = include_str!("../../templates/init/study.yaml");

/// ADaM files written by `init`, with the columns readout reads.
pub(super) const STARTER_DATA: &[(&str, &str)] = &[
    (
        "adsl.csv",
        "USUBJID,SITEID,COHORT,ARM,AGE,SEX,TRTSDT,TRTEDT,ENRLDT,RANDDT,DTHDT,LSTALVDT,SAFFL,EFFFL\n",
    ),
    ("adrs.csv", "USUBJID,PARAMCD,AVISIT,ADT,AVALC\n"),
    (
        "adae.csv",
        "USUBJID,AEDECOD,AEBODSYS,ATOXGR,AEREL,ASTDT,TRTEMFL,AESER,AEOUT\n",
    ),
    ("adtr.csv", "USUBJID,PARAMCD,ADT,AVAL,BASE,PCHG\n"),
    (
        "adtte.csv",
        "USUBJID,PARAMCD,PARAM,AVAL,AVALU,CNSR,STARTDT,ADT,EVNTDESC\n",
    ),
];

pub(super) fn init_command(dir: &Path) -> Result<()> {
    let config_path = dir.join("study.yaml");
    if std::fs::symlink_metadata(&config_path).is_ok() {
        return Err(Error::Other(format!(
            "{}: already exists; `readout init` does not overwrite a study",
            config_path.display()
        )));
    }
    let data_dir = dir.join("data");
    std::fs::create_dir_all(&data_dir)
        .map_err(|e| Error::io(&data_dir, "cannot create folder", e))?;
    // Only new files: an existing one is kept, and a link (dangling or not) is never written
    // through (`write::create_new`).
    let write_new = |path: &Path, text: &str| {
        use std::io::Write;
        crate::write::create_new(path)
            .and_then(|mut f| f.write_all(text.as_bytes()))
            .map_err(|e| Error::io(path, "cannot write", e))
    };
    for (name, header) in STARTER_DATA {
        let path = data_dir.join(name);
        match std::fs::symlink_metadata(&path) {
            Err(_) => write_new(&path, header)?,
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(Error::Other(format!(
                    "{}: is a symbolic link; `readout init` writes only new files (remove it \
                     or choose another folder)",
                    path.display()
                )))
            }
            Ok(_) => {}
        }
    }
    write_new(&config_path, STARTER_CONFIG)?;
    outln!(
        "wrote {} and empty ADaM files in {}; fill in the data, then run: readout check {}",
        config_path.display(),
        data_dir.display(),
        config_path.display()
    );
    Ok(())
}
