//! readout: oncology trial abstracts and reports from a YAML study config and CDISC ADaM data.
//!
//! The pipeline (`docs/ARCHITECTURE.md`), a module per stage: [`config`] → [`study`] (the
//! data [`load`]ed once) → [`cut`] → [`cohort`] ([`mod@derive`] → [`endpoints`] → [`compare`]
//! → [`figures`]/[`plots`] → [`documents`]) → [`mod@write`]; every stage below the cohort
//! stage reads and fills the types of [`results`]; [`stats`] is pure math; [`build`] runs the
//! stages and [`cmd`] is the command line.

// Bad input ends in an `Error`, never a panic (`docs/BAD-INPUT.md`): no unwrap/expect in library code.
// Tests (unit tests here, and the integration tests, examples and benches, which are crates of
// their own) may unwrap.
#![cfg_attr(not(test), warn(clippy::unwrap_used, clippy::expect_used))]

pub mod build;
pub mod cmd;
pub mod cohort;
pub mod compare;
pub mod config;
pub mod criteria;
pub mod cut;
pub mod derive;
pub mod diagnostic;
pub mod documents;
pub mod endpoints;
pub mod error;
pub mod figures;
pub mod files;
pub mod format;
pub mod load;
pub mod model;
pub mod plots;
pub mod profile;
pub mod results;
pub mod review;
pub mod stats;
pub mod study;
pub mod write;

pub use error::{Error, Result};
