//! `readout check`: a build in memory; what would fail a build fails the check.

use super::*;

pub(super) fn check_command(configs: &[PathBuf], opts: &BuildOptions) -> Result<ExitCode> {
    let mut failed = false;
    for (path, cfg) in load_configs(configs, opts)? {
        let path = &path;
        let result = cfg.and_then(crate::study::load_study).and_then(|study| {
            // A template that does not parse is reported before anything else (the
            // templates were parsed while the data loaded).
            study.check_templates()?;
            outln!(
                "{}: study {}, {} subjects in ADSL",
                path.display(),
                study.config.config.study.id,
                study.data.subjects.len()
            );
            print_warnings("  ", &study.data.warnings);
            // Every cohort analysed and its documents rendered in memory: what would fail
            // a build (an unknown variable in a user template, ...) fails the check. The
            // folders and cohorts listed are those the build would write.
            let folders = crate::build::dry_build(&study, opts)?;
            for folder in &folders {
                outln!("  would write {}", folder.folder.display());
                for c in &folder.cohorts {
                    outln!("    {:<16} {} subjects", c.id, c.n);
                }
                for f in &folder.failures {
                    outln!("    {:<16} fails (error below)", f.cohort);
                }
            }
            print_folder_warnings(&folders);
            super::build::print_abstract_lengths(&folders);
            for f in folders.iter().flat_map(|f| &f.failures) {
                errln!("error: {}", Error::cohort_line(path, &f.cohort, &f.error));
                failed = true;
            }
            Ok(())
        });
        if let Err(e) = result {
            errln!("error: {}", e.for_config(path));
            failed = true;
        }
    }
    Ok(if failed {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    })
}
