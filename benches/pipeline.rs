//! The hot stages of a build, each on its own: CSV load (ADSL + ADTTE text → typed tables),
//! per-subject derivation (the example study), SVG drawing of a KM figure, and rendering of an
//! abstract. Whole-build timings, against R and Python, are `bench/compare-r.sh`.

use std::fmt::Write as _;
use std::hint::black_box;
use std::path::Path;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use readout::build::{self, BuildOptions};
use readout::load::{read_adsl, read_adtte, CsvTable, KnownSubjects};

/// ADSL and ADTTE text for `n` subjects (deterministic).
fn csv_text(n: usize) -> (String, String) {
    let mut adsl = String::from("USUBJID,COHORT,TRTSDT\n");
    let mut adtte = String::from("USUBJID,PARAMCD,AVAL,CNSR,STARTDT,ADT\n");
    let mut state: u64 = 7;
    for i in 0..n {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let aval = 1 + (state >> 33) % 1400;
        let _ = writeln!(adsl, "S{i:08},{},2019-01-01", i % 4 + 1);
        let _ = writeln!(
            adtte,
            "S{i:08},OS,{aval},{},2019-01-01,2020-01-01",
            (state >> 20) % 2
        );
    }
    (adsl, adtte)
}

fn load(c: &mut Criterion) {
    let mut group = c.benchmark_group("load_csv");
    group.sample_size(10);
    for n in [10_000usize, 100_000] {
        let (adsl, adtte) = csv_text(n);
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| {
                let table = CsvTable::from_bytes(Path::new("adsl.csv"), adsl.as_bytes()).ok();
                let subjects = table
                    .as_ref()
                    .and_then(|t| read_adsl(t, None).ok())
                    .unwrap_or_default();
                let known: KnownSubjects<'_> =
                    subjects.iter().map(|s| s.usubjid.as_ref()).collect();
                let tte = CsvTable::from_bytes(Path::new("adtte.csv"), adtte.as_bytes())
                    .ok()
                    .and_then(|t| read_adtte(&t, &known).ok());
                black_box((subjects.len(), tte.map(|t| t.records.len())))
            })
        });
    }
    group.finish();
}

fn example_study() -> Option<readout::study::LoadedStudy> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("config/altn-ak105-ii-01.yaml");
    readout::config::load(&path)
        .and_then(readout::study::load_study)
        .ok()
}

fn derive_and_analyse(c: &mut Criterion) {
    let Some(study) = example_study() else { return };
    let plans = build::plan(&study.config, &BuildOptions::default());
    let mut group = c.benchmark_group("example_study");
    group.sample_size(20);
    group.bench_function("derive_and_analyse_all_cohorts", |b| {
        b.iter(|| {
            for plan in &plans {
                let Ok(cut) =
                    readout::cut::apply_cutoff(&study.data, plan.cutoff, &study.cut_rules)
                else {
                    continue;
                };
                let at = readout::cohort::CutData::new(&cut, plan.cutoff);
                for &i in &plan.cohorts {
                    if let Some(cohort) = study.config.config.cohorts.get(i) {
                        black_box(readout::cohort::analyse(&study, &at, cohort).ok());
                    }
                }
            }
        })
    });
    group.bench_function(
        "build_all_cutoffs_in_memory_with_figures_and_documents",
        |b| {
            b.iter(|| {
                for plan in &plans {
                    let sink = readout::write::FolderSink::in_memory();
                    black_box(build::build_cutoff(&study, plan, &sink).ok());
                    black_box(sink.into_files());
                }
            })
        },
    );
    group.finish();
}

fn figures(c: &mut Criterion) {
    let Some(study) = example_study() else { return };
    let plans = build::plan(&study.config, &BuildOptions::default());
    let Some(plan) = plans.first() else { return };
    let Ok(cut) = readout::cut::apply_cutoff(&study.data, plan.cutoff, &study.cut_rules) else {
        return;
    };
    let at = readout::cohort::CutData::new(&cut, plan.cutoff);
    let Some(cohort) = plan
        .cohorts
        .first()
        .and_then(|&i| study.config.config.cohorts.get(i))
    else {
        return;
    };
    let Ok(analysis) = readout::cohort::analyse(&study, &at, cohort) else {
        return;
    };
    let settings = study.config.analysis_for(cohort);
    let mut group = c.benchmark_group("figures");
    group.sample_size(20);
    group.bench_function("all_svg_figures_of_a_cohort", |b| {
        b.iter(|| {
            black_box(
                readout::figures::cohort_figures(
                    &analysis,
                    &Default::default(),
                    &settings,
                    &Default::default(),
                    Default::default(),
                )
                .ok(),
            )
        })
    });
    let (Ok(figs), Ok(renderer)) = (
        readout::figures::cohort_figures(
            &analysis,
            &Default::default(),
            &settings,
            &Default::default(),
            Default::default(),
        ),
        readout::documents::render::Renderer::new(None),
    ) else {
        return;
    };
    // Rasterising them at the build's scale, one after another (a build does it in parallel;
    // the glyph masks are cached after the first iteration, as after a build's first figures).
    group.bench_function("all_png_figures_of_a_cohort", |b| {
        b.iter(|| {
            for figure in &figs.inline {
                black_box(readout::plots::svg_to_png(&figure.svg, readout::plots::PNG_SCALE).ok());
            }
        })
    });
    group.finish();

    // Template rendering: a cohort's abstract (md, txt, html) and report.html, with its SVGs.
    let formats = [readout::config::Format::Md, readout::config::Format::Html];
    let mut group = c.benchmark_group("documents");
    group.sample_size(20);
    group.bench_function("abstract_and_report_of_a_cohort", |b| {
        b.iter(|| {
            black_box(
                readout::documents::render_documents(
                    &study.config,
                    (cohort, 0),
                    &analysis.results,
                    &settings,
                    (&figs.inline, &[]),
                    &renderer,
                    &study.assets,
                    &readout::documents::formats::Formats::of(&formats),
                )
                .ok(),
            )
        })
    });
    group.finish();
}

criterion_group!(benches, load, derive_and_analyse, figures);
criterion_main!(benches);
