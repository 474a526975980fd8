//! One cohort built whole in memory as one arm and as two arms stratified by a factor of 4
//! levels (10^5 subjects, each with its own first-dose date and a time to death): the extra
//! cost of comparing arms, and the derived CSV every build writes. At 10^7 the same comparison
//! is `bench/arms.sh` (docs/PERFORMANCE.md, "Arms at 10^7 again").

use std::fmt::Write as _;
use std::hint::black_box;
use std::path::{Path, PathBuf};

use criterion::{criterion_group, criterion_main, Criterion};
use readout::build::{self, BuildOptions};

/// ADSL, ADTTE and the two configs for `n` subjects in `dir` (deterministic).
fn write_study(dir: &Path, n: usize) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let mut adsl = String::from("USUBJID,ARM,STRAT,TRTSDT,SAFFL\n");
    let mut adtte = String::from("USUBJID,PARAMCD,AVAL,CNSR,STARTDT,ADT\n");
    let mut state: u64 = 11;
    for i in 0..n {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let arm = if (state >> 40) % 2 == 0 { "A" } else { "B" };
        let stratum = (state >> 44) % 4 + 1;
        // A first dose on one of 365 days, as a trial's enrolment gives them.
        let start = 17_897 + (state >> 24) % 365;
        let aval = 1 + (state >> 33) % 1400;
        let date = |days: u64| {
            let (y, m, d) = civil(days as i64);
            format!("{y:04}-{m:02}-{d:02}")
        };
        let _ = writeln!(adsl, "S{i:08},{arm},{stratum},{},Y", date(start));
        let _ = writeln!(
            adtte,
            "S{i:08},OS,{aval},{},{},{}",
            (state >> 20) % 2,
            date(start),
            date(start + aval - 1)
        );
    }
    std::fs::write(dir.join("adsl.csv"), adsl)?;
    std::fs::write(dir.join("adtte.csv"), adtte)?;
    for (name, cohort) in [
        ("one", "{ id: all }"),
        (
            "arms",
            "{ id: all, arms: { column: ARM, reference: B }, strata: [STRAT] }",
        ),
    ] {
        std::fs::write(
            dir.join(format!("{name}.yaml")),
            format!(
                "study: {{ id: BENCH-{} }}\ndata: {{ adsl: adsl.csv, adtte: adtte.csv }}\n\
                 analysis: {{ tte_params: {{ OS: OS }}, followup: OS, landmarks: [6, 12, 24] }}\n\
                 output: {{ formats: [md] }}\ncohorts:\n  - {cohort}\n",
                name.to_uppercase()
            ),
        )?;
    }
    Ok(())
}

/// Year, month and day of `days` since 1970-01-01 (Howard Hinnant's civil-from-days).
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

fn arms(c: &mut Criterion) {
    let dir: PathBuf = std::env::temp_dir().join("readout-bench-arms-100000");
    if write_study(&dir, 100_000).is_err() {
        return;
    }
    let mut group = c.benchmark_group("arms_100000");
    group.sample_size(10);
    for name in ["one", "arms"] {
        let Ok(study) = readout::config::load(&dir.join(format!("{name}.yaml")))
            .and_then(readout::study::load_study)
        else {
            continue;
        };
        let plans = build::plan(&study.config, &BuildOptions::default());
        group.bench_function(format!("{name}_build_in_memory"), |b| {
            b.iter(|| {
                for plan in &plans {
                    let sink = readout::write::FolderSink::in_memory();
                    black_box(build::build_cutoff(&study, plan, &sink).ok());
                    black_box(sink.into_files());
                }
            })
        });
    }
    group.finish();
}

criterion_group!(benches, arms);
criterion_main!(benches);
