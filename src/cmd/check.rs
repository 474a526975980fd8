//! `readout check`: a build in memory; what would fail a build fails the check.

use super::*;

pub(super) fn check_command(configs: &[PathBuf], opts: &BuildOptions) -> Result<ExitCode> {
    let mut failed = false;
    for (path, cfg) in load_configs(configs, opts)? {
        let path = &path;
        let result = cfg.and_then(crate::build::load_study).and_then(|study| {
            // A template that does not parse is reported before anything else (the
            // templates were parsed while the data loaded).
            study.check_templates()?;
            let plans = crate::build::plan(&study.config, opts);
            let root = crate::build::output_root(&study.config, opts.out.as_deref());
            outln!(
                "{}: study {}, {} subjects in ADSL",
                path.display(),
                study.config.config.study.id,
                study.data.subjects.len()
            );
            for p in &plans {
                let cut = crate::cut::apply_cutoff(&study.data, p.cutoff)?;
                outln!("  would write {}", root.join(p.folder_name()).display());
                for &i in &p.cohorts {
                    if let Some(cohort) = study.config.config.cohorts.get(i) {
                        let members = crate::build::cohort_members(cohort, &cut.subjects);
                        outln!("    {:<16} {} subjects", cohort.id, members.len());
                    }
                }
            }
            print_warnings("  ", &study.data.warnings);
            // Every cohort analysed and its documents rendered in memory: what would fail
            // a build (an unknown variable in a user template, ...) fails the check.
            let folders = crate::build::dry_build(&study, opts)?;
            print_folder_warnings(&folders);
            for f in folders.iter().flat_map(|f| &f.failures) {
                errln!("error: {}", cohort_failure(path, &f.cohort, &f.error));
                failed = true;
            }
            Ok(())
        });
        if let Err(e) = result {
            errln!("error: {e}");
            failed = true;
        }
    }
    Ok(if failed {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    })
}
