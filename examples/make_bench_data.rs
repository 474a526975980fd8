//! Synthetic data for benchmarks: `cargo run --release --example make_bench_data -- N DIR [C]`
//! writes DIR/adsl.csv (N subjects in C cohorts, default 4; an ARM, A or B, and a STRAT of 4
//! levels each), DIR/adtte.csv (one OS record each), DIR/bench.yaml, and for the arm
//! comparison benchmark (`bench/arms.sh`) DIR/one.yaml (every subject, one cohort) and
//! DIR/arms.yaml (the same cohort with arms A and B, stratified by STRAT). Deterministic (splitmix64, fixed seed; the data of N subjects do
//! not depend on C except for the cohort column). Not real patients. With `--dataset-json`
//! after the other arguments it also writes the same data as Dataset-JSON NDJSON
//! (DIR/adsl.ndjson, DIR/adtte.ndjson, dates as ISO text with `targetDataType: integer`) and
//! DIR/bench-ndjson.yaml, the config of bench.yaml reading them (`bench/dataset-json.sh`).

use std::fmt::Write as _;
use std::io::Write as _;

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args
        .next()
        .and_then(|a| a.parse().ok())
        .expect("usage: make_bench_data N DIR");
    let dir = std::path::PathBuf::from(args.next().expect("usage: make_bench_data N DIR [C]"));
    let rest: Vec<String> = args.collect();
    let cohorts: usize = rest.iter().find_map(|a| a.parse().ok()).unwrap_or(4).max(1);
    let dataset_json = rest.iter().any(|a| a == "--dataset-json");
    std::fs::create_dir_all(&dir).expect("create DIR");
    let mut state: u64 = 20_240_601;
    let mut uniform = move || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    };
    let start = chrono::NaiveDate::from_ymd_opt(2018, 1, 1).expect("date");
    let mut adsl = String::with_capacity(n * 40);
    let mut adtte = String::with_capacity(n * 60);
    // The NDJSON forms of the same rows, when asked for.
    let mut adsl_nd = String::new();
    let mut adtte_nd = String::new();
    if dataset_json {
        adsl_nd.reserve(n * 50);
        adtte_nd.reserve(n * 70);
        adsl_nd.push_str(&ndjson_metadata(
            "ADSL",
            n,
            &[
                ("USUBJID", "string"),
                ("COHORT", "integer"),
                ("ARM", "string"),
                ("STRAT", "integer"),
                ("TRTSDT", "date"),
                ("SAFFL", "string"),
            ],
        ));
        adtte_nd.push_str(&ndjson_metadata(
            "ADTTE",
            n,
            &[
                ("USUBJID", "string"),
                ("PARAMCD", "string"),
                ("AVAL", "double"),
                ("CNSR", "integer"),
                ("STARTDT", "date"),
                ("ADT", "date"),
            ],
        ));
    }
    adsl.push_str("USUBJID,COHORT,ARM,STRAT,TRTSDT,SAFFL\n");
    adtte.push_str("USUBJID,PARAMCD,AVAL,CNSR,STARTDT,ADT\n");
    for i in 0..n {
        let cohort = i % cohorts + 1;
        let entry = (uniform() * 1000.0) as i64;
        let trtsdt = start + chrono::Days::new(entry as u64);
        // Exponential survival, median 300 + 100·cohort days; administrative censoring at day 1400.
        let median = 300.0 + 100.0 * ((cohort - 1) % 4 + 1) as f64;
        let event_day = 1.0 + (-median / std::f64::consts::LN_2 * (1.0 - uniform()).ln()).floor();
        let follow = (1400 - entry) as f64;
        let (aval, cnsr) = if event_day <= follow {
            (event_day, 0)
        } else {
            (follow, 1)
        };
        let adt = trtsdt + chrono::Days::new(aval as u64 - 1);
        // Arms and strata balanced and independent of the cohort (and of the times).
        let arm = ["A", "B"][(i / 4) % 2];
        let stratum = (i / 8) % 4 + 1;
        let _ = writeln!(adsl, "S{i:08},{cohort},{arm},{stratum},{trtsdt},Y");
        let _ = writeln!(adtte, "S{i:08},OS,{aval},{cnsr},{trtsdt},{adt}");
        if dataset_json {
            let _ = writeln!(
                adsl_nd,
                "[\"S{i:08}\",{cohort},\"{arm}\",{stratum},\"{trtsdt}\",\"Y\"]"
            );
            let _ = writeln!(
                adtte_nd,
                "[\"S{i:08}\",\"OS\",{aval},{cnsr},\"{trtsdt}\",\"{adt}\"]"
            );
        }
    }
    std::fs::write(dir.join("adsl.csv"), adsl).expect("adsl");
    std::fs::write(dir.join("adtte.csv"), adtte).expect("adtte");
    if dataset_json {
        std::fs::write(dir.join("adsl.ndjson"), adsl_nd).expect("adsl.ndjson");
        std::fs::write(dir.join("adtte.ndjson"), adtte_nd).expect("adtte.ndjson");
    }
    let mut yaml = std::fs::File::create(dir.join("bench.yaml")).expect("yaml");
    let _ = write!(
        yaml,
        "# Synthetic benchmark study ({n} subjects, {cohorts} cohorts), made by examples/make_bench_data.rs.\n\
         study: {{ id: BENCH }}\n\
         data: {{ adsl: adsl.csv, adtte: adtte.csv }}\n\
         analysis: {{ tte_params: {{ OS: OS }}, followup: OS, landmarks: [6, 12, 24] }}\n\
         output: {{ formats: [md, html] }}\n\
         cohorts:\n"
    );
    for c in 1..=cohorts {
        let _ = writeln!(
            yaml,
            "  - {{ id: cohort-{c}, where: {{ COHORT: \"{c}\" }} }}"
        );
    }
    drop(yaml);
    if dataset_json {
        let csv = std::fs::read_to_string(dir.join("bench.yaml")).expect("bench.yaml");
        let ndjson = csv.replace(
            "data: { adsl: adsl.csv, adtte: adtte.csv }",
            "data: { adsl: adsl.ndjson, adtte: adtte.ndjson }",
        );
        std::fs::write(dir.join("bench-ndjson.yaml"), ndjson).expect("bench-ndjson.yaml");
    }
    for (file, cohort) in [
        ("one.yaml", "  - { id: all }\n"),
        (
            "arms.yaml",
            "  - { id: all, arms: { column: ARM, reference: B }, strata: [STRAT] }\n",
        ),
    ] {
        let text = format!(
            "# Synthetic benchmark study ({n} subjects), made by examples/make_bench_data.rs.\n\
             study: {{ id: BENCH-{} }}\n\
             data: {{ adsl: adsl.csv, adtte: adtte.csv }}\n\
             analysis: {{ tte_params: {{ OS: OS }}, followup: OS, landmarks: [6, 12, 24] }}\n\
             output: {{ formats: [md, html] }}\n\
             cohorts:\n{cohort}",
            file.trim_end_matches(".yaml").to_uppercase()
        );
        std::fs::write(dir.join(file), text).expect(file);
    }
}

/// The first line of a Dataset-JSON v1.1 NDJSON file: its metadata, dates as ADaM has them
/// (ISO 8601 text, `targetDataType: integer`).
fn ndjson_metadata(name: &str, records: usize, columns: &[(&str, &str)]) -> String {
    let columns: Vec<String> = columns
        .iter()
        .map(|(column, data_type)| {
            let date = if *data_type == "date" {
                ",\"targetDataType\":\"integer\",\"displayFormat\":\"E8601DA.\""
            } else {
                ""
            };
            format!(
                "{{\"itemOID\":\"IT.{name}.{column}\",\"name\":\"{column}\",\"label\":\"{column}\",\"dataType\":\"{data_type}\"{date}}}"
            )
        })
        .collect();
    format!(
        "{{\"datasetJSONCreationDateTime\":\"2024-06-01T00:00:00\",\"datasetJSONVersion\":\"1.1.0\",\"itemGroupOID\":\"IG.{name}\",\"records\":{records},\"name\":\"{name}\",\"label\":\"Synthetic {name}\",\"columns\":[{}]}}\n",
        columns.join(",")
    )
}
