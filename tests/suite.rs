//! The integration tests, one module per file, in one test binary: each file used to be a
//! binary of its own that linked the library and every dependency again.
//!
//! Run one area with a filter, e.g. `cargo test --test suite invalid_inputs::`.

mod common;

mod adtte_cutoff;
mod analysis_results;
mod batch;
mod bor_reference;
mod cdisc_pilot;
mod cli;
mod comparative_reference;
mod comparisons_edge;
mod congress_ready;
mod criteria;
mod csr_tables;
mod dataset_json;
mod derive_edge_cases;
mod disposition;
mod documents;
mod example_study;
mod hostile_fifth;
mod html;
mod interaction_reference;
mod invalid_inputs;
mod lint_and_verify;
mod lymphoma_example;
mod myeloma_example;
mod numbers;
mod output_paths;
mod plots;
mod poster;
mod properties;
mod randomised_example;
mod row_filters;
mod safety;
mod sap_conventions;
mod sas7bdat;
mod slides;
mod stats_props;
mod stats_reference;
mod survival_beyond;
mod tables_xlsx;
mod untrusted_input;
mod user_templates;
mod xpt;
