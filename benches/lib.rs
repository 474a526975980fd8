//! Empty: the package holds the benchmarks in `km.rs` and `pipeline.rs`.
