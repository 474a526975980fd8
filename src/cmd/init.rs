//! `readout init DIR`: a commented starter config and empty ADaM files.

use super::*;

pub(super) const STARTER_CONFIG: &str = include_str!("../../templates/init/study.yaml");

/// ADaM files written by `init`, with the columns readout reads.
pub(super) const STARTER_DATA: &[(&str, &str)] = &[
    (
        "adsl.csv",
        "USUBJID,SITEID,COHORT,AGE,SEX,TRTSDT,TRTEDT,ENRLDT,DTHDT,LSTALVDT,SAFFL,EFFFL\n",
    ),
    ("adrs.csv", "USUBJID,PARAMCD,AVISIT,ADT,AVALC\n"),
    (
        "adae.csv",
        "USUBJID,AEDECOD,AEBODSYS,ATOXGR,AEREL,ASTDT,TRTEMFL,AESER,AEOUT\n",
    ),
    ("adtr.csv", "USUBJID,PARAMCD,ADT,AVAL,BASE,PCHG\n"),
];

pub(super) fn init_command(dir: &Path) -> Result<()> {
    let config_path = dir.join("study.yaml");
    if config_path.exists() {
        return Err(Error::Other(format!(
            "{}: already exists; `readout init` does not overwrite a study",
            config_path.display()
        )));
    }
    let data_dir = dir.join("data");
    std::fs::create_dir_all(&data_dir)
        .map_err(|e| Error::io(&data_dir, "cannot create folder", e))?;
    for (name, header) in STARTER_DATA {
        let path = data_dir.join(name);
        if !path.exists() {
            std::fs::write(&path, header).map_err(|e| Error::io(&path, "cannot write", e))?;
        }
    }
    std::fs::write(&config_path, STARTER_CONFIG)
        .map_err(|e| Error::io(&config_path, "cannot write", e))?;
    outln!(
        "wrote {} and empty ADaM files in {}; fill in the data, then run: readout check {}",
        config_path.display(),
        data_dir.display(),
        config_path.display()
    );
    Ok(())
}
