//! `readout build`: every config, cut-off and cohort built; the summary table and the
//! abstract lengths printed after.

use super::*;

/// Data files of this many bytes or more (ADSL and ADTTE of a few million subjects) are
/// built with small memory pages.
pub(super) const SMALL_PAGES_FROM_BYTES: u64 = 256 << 20;

/// The bytes of the data files a config names (a file that cannot be read counts 0: loading
/// reports it).
pub(super) fn input_bytes(cfg: &config::LoadedConfig) -> u64 {
    let data = &cfg.config.data;
    [
        Some(&data.adsl),
        data.adrs.as_ref(),
        data.adtte.as_ref(),
        data.adae.as_ref(),
        data.adtr.as_ref(),
    ]
    .into_iter()
    .flatten()
    .map(|f| std::fs::metadata(cfg.data_path(f)).map_or(0, |m| m.len()))
    .sum()
}

/// With large inputs the process stops taking transparent huge pages (Linux; elsewhere
/// nothing). Its large vectors are written once, front to back: a 2 MiB page zeroed at its
/// first touch has left the cache before most of it is written, so every byte goes to memory
/// twice; 4 KiB pages are zeroed just before they are written. Small builds keep huge pages
/// (fewer faults); the threshold and its measurements are in `docs/PERFORMANCE.md` (item 33).
/// Large inputs also make the binary's allocator return freed memory again (item 48).
pub(super) fn pages_for_inputs(cfg: &config::LoadedConfig) {
    if input_bytes(cfg) >= SMALL_PAGES_FROM_BYTES {
        crate::profile::meter::large_inputs();
        #[cfg(target_os = "linux")]
        {
            // A refusal (an old kernel) only costs speed.
            let _ = rustix::thread::disable_transparent_huge_pages(true);
        }
    }
}

pub(super) fn build_command(
    configs: &[PathBuf],
    opts: BuildOptions,
    quiet: bool,
    diff_previous: bool,
) -> Result<ExitCode> {
    use rayon::prelude::*;
    // The pool's threads start while the configs are read, not when the load first needs
    // them (about a millisecond; already started, as in tests, it is left as it is).
    let _ = rayon::ThreadPoolBuilder::new().build_global();
    let parsed = load_configs(configs, &opts)?;
    let loaded: Vec<(PathBuf, Result<crate::study::LoadedStudy>)> = parsed
        .into_par_iter()
        .map(|(path, cfg)| {
            let study = cfg.and_then(|cfg| {
                pages_for_inputs(&cfg);
                crate::study::load_study(cfg)
            });
            (path, study)
        })
        .collect();
    let total: usize = loaded
        .iter()
        .filter_map(|(_, r)| r.as_ref().ok())
        .map(|s| crate::build::planned_cohorts(&s.config, &opts))
        .sum();
    let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
        let bar = indicatif::ProgressBar::new(total as u64);
        if let Ok(style) =
            indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} cohorts {elapsed} {msg}")
        {
            bar.set_style(style);
        }
        bar
    });
    let on_folder = |folder: &crate::build::BuiltFolder| {
        let line = format!(
            "built {} {}: {}{}",
            folder.study,
            folder
                .cutoff
                .map(|d| d.to_string())
                .unwrap_or_else(|| "no-cutoff".into()),
            folder
                .cohorts
                .iter()
                .map(|c| c.id.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            if folder.failures.is_empty() {
                String::new()
            } else {
                format!(" ({} failed)", folder.failures.len())
            }
        );
        match &bar {
            Some(bar) => {
                bar.inc((folder.cohorts.len() + folder.failures.len()) as u64);
                bar.set_message(escape_controls(&line, false).into_owned());
            }
            None if !quiet => errln!("{line}"),
            None => {}
        }
    };
    // Data problems that did not stop the load (an AE without a grade, ...), for the summary.
    let data_warnings: Vec<crate::diagnostic::Diagnostic> = loaded
        .iter()
        .filter_map(|(_, study)| study.as_ref().ok())
        .flat_map(|study| study.data.warnings.iter().cloned())
        .collect();
    let mut folders = Vec::new();
    let mut failures: Vec<String> = Vec::new();
    let results: Vec<(PathBuf, Result<Vec<crate::build::BuiltFolder>>)> = loaded
        .into_par_iter()
        .map(|(path, study)| {
            let built = study.and_then(|s| {
                let folders = crate::build::build_config(&s, &opts, &on_folder)?;
                // Freeing millions of records takes tens of milliseconds that nobody waits
                // for: a thread does it, and the process may end before it is done.
                std::thread::spawn(move || drop(s));
                if diff_previous {
                    for f in folders.iter().filter_map(|f| f.path.as_ref()) {
                        if let (Some(report), false) =
                            (crate::review::diff::diff_with_previous(f)?, quiet)
                        {
                            diff::print_written(&report.written);
                        }
                    }
                }
                Ok(folders)
            });
            (path, built)
        })
        .collect();
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    for (path, result) in results {
        match result {
            Ok(built) => {
                for folder in &built {
                    for f in &folder.failures {
                        failures.push(Error::cohort_line(&path, &f.cohort, &f.error));
                    }
                }
                folders.extend(built);
            }
            Err(e) => failures.push(e.for_config(&path)),
        }
    }
    // No table when nothing was built (every config failed): the errors say why.
    if !quiet && !folders.is_empty() {
        print_summary(&folders);
        print_abstract_lengths(&folders);
    }
    if !quiet {
        print_warnings("", &data_warnings);
        print_folder_warnings(&folders);
    }
    for f in &failures {
        errln!("error: {f}");
    }
    if failures.is_empty() {
        Ok(ExitCode::SUCCESS)
    } else {
        errln!("{} build(s) failed", failures.len());
        Ok(ExitCode::from(2))
    }
}

/// Each cohort's abstract length against the conference limit (`output.conference`).
pub(super) fn print_abstract_lengths(folders: &[crate::build::BuiltFolder]) {
    for folder in folders {
        let cutoff = folder
            .cutoff
            .map(|d| d.to_string())
            .unwrap_or_else(|| "none".into());
        for c in &folder.cohorts {
            if let Some(length) = &c.abstract_length {
                let verdict = if length.within_limit {
                    "within the limit".to_string()
                } else {
                    format!(
                        "OVER the limit by {} (use --strict to make this an error)",
                        length.count.saturating_sub(length.limit)
                    )
                };
                outln!(
                    "abstract {} {} {}: {length}, {verdict}",
                    folder.study,
                    cutoff,
                    c.id
                );
                for s in &length.longest_sentences {
                    outln!("  {} {}: {}", s.count, length.unit.describe(), s.text);
                }
            }
        }
    }
}

/// The end-of-build table: one line per study, cut-off and cohort. ORR, median PFS and the
/// abstract length have a column only when some cohort has them (an endpoint not analysed is
/// not "NR"); the median is printed as the documents print it, with its unit.
pub(super) fn print_summary(folders: &[crate::build::BuiltFolder]) {
    let cohorts = || folders.iter().flat_map(|f| &f.cohorts);
    let arm_rows = || cohorts().flat_map(|c| &c.arms);
    let with_orr = cohorts().any(|c| c.orr.is_some()) || arm_rows().any(|a| a.orr.is_some());
    let with_pfs =
        cohorts().any(|c| c.median_pfs.is_some()) || arm_rows().any(|a| a.median_pfs.is_some());
    let with_hr = arm_rows().any(|a| a.hr_pfs.is_some());
    let with_length = cohorts().any(|c| c.abstract_length.is_some());
    let with_endpoints = cohorts().any(|c| !c.endpoints.is_empty());
    // Only a build with other response criteria than RECIST 1.1 names them.
    let with_criteria = cohorts().any(|c| c.criteria.as_deref().is_some_and(|n| n != "RECIST 1.1"));
    // (text, right-aligned) per cell; the header first.
    let mut rows: Vec<Vec<(String, bool)>> = Vec::new();
    let mut header = vec![
        ("study", false),
        ("cut-off", false),
        ("cohort", false),
        ("N", true),
    ];
    if with_criteria {
        header.push(("criteria", false));
    }
    if with_orr {
        header.push(("ORR", true));
    }
    if with_pfs {
        header.push(("median PFS", true));
    }
    if with_hr {
        header.push(("HR PFS (CI)", true));
    }
    if with_endpoints {
        header.push(("endpoints", false));
    }
    if with_length {
        header.push(("abstract", true));
    }
    header.extend([("warnings", true), ("output", false)]);
    rows.push(header.iter().map(|(t, r)| (t.to_string(), *r)).collect());
    for folder in folders {
        let cutoff = folder
            .cutoff
            .map(|d| d.to_string())
            .unwrap_or_else(|| "none".into());
        let path = folder
            .path
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| "(not written)".into());
        for c in &folder.cohorts {
            let mut row = vec![
                (folder.study.clone(), false),
                (cutoff.clone(), false),
                (c.id.clone(), false),
                (c.n.to_string(), true),
            ];
            if with_criteria {
                row.push((c.criteria.clone().unwrap_or_else(|| "-".into()), false));
            }
            if with_orr {
                row.push((c.orr.clone().unwrap_or_else(|| "-".into()), true));
            }
            if with_pfs {
                row.push((c.median_pfs.clone().unwrap_or_else(|| "-".into()), true));
            }
            if with_hr {
                row.push(("-".into(), true));
            }
            if with_endpoints {
                let names = if c.endpoints.is_empty() {
                    "-".to_string()
                } else {
                    c.endpoints.join(" ")
                };
                row.push((names, false));
            }
            if with_length {
                let length = c.abstract_length.as_ref().map(|l| {
                    let over = if l.within_limit { "" } else { "!" };
                    format!("{}/{}{over}", l.count, l.limit)
                });
                row.push((length.unwrap_or_else(|| "-".into()), true));
            }
            row.extend([(c.warnings.len().to_string(), true), (path.clone(), false)]);
            rows.push(row);
            // A randomised cohort: its arms' numbers, a line each, under it.
            for a in &c.arms {
                let mut row = vec![
                    (String::new(), false),
                    (String::new(), false),
                    (format!("  {}", a.arm), false),
                    (a.n.to_string(), true),
                ];
                if with_orr {
                    row.push((a.orr.clone().unwrap_or_else(|| "-".into()), true));
                }
                if with_pfs {
                    row.push((a.median_pfs.clone().unwrap_or_else(|| "-".into()), true));
                }
                if with_hr {
                    row.push((a.hr_pfs.clone().unwrap_or_else(|| "reference".into()), true));
                }
                // The cohort's other columns stay blank on its arms' lines.
                row.resize(header.len(), (String::new(), false));
                rows.push(row);
            }
        }
        for f in &folder.failures {
            let mut row = vec![
                (folder.study.clone(), false),
                (cutoff.clone(), false),
                (f.cohort.clone(), false),
            ];
            row.push(("FAILED (error below)".to_string(), false));
            rows.push(row);
        }
    }
    let columns = rows.first().map_or(0, Vec::len);
    let widths: Vec<usize> = (0..columns)
        .map(|i| {
            rows.iter()
                .filter(|r| r.len() == columns)
                .filter_map(|r| r.get(i))
                .map(|(t, _)| t.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for row in &rows {
        let cells: Vec<String> = row
            .iter()
            .zip(&widths)
            .enumerate()
            .map(
                |(i, ((text, right), width))| match (right, i + 1 == row.len()) {
                    (_, true) => text.clone(),
                    (true, false) => format!("{text:>width$}"),
                    (false, false) => format!("{text:<width$}"),
                },
            )
            .collect();
        outln!("{}", cells.join("  ").trim_end());
    }
}
