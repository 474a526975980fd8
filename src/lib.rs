//! readout: oncology trial abstracts and reports from a YAML study config and CDISC ADaM data.
//!
//! The pipeline (SPEC §1, `docs/ARCHITECTURE.md`), one module per stage:
//! [`config`] → [`load`] → [`cut`] → [`derive`] → [`endpoints`] (using [`stats`]) →
//! [`plots`] (via [`figures`]) → [`render`] → [`write`]; [`build`] runs them in order and
//! [`cmd`] is the command line.

pub mod build;
pub mod cmd;
pub mod conference;
pub mod config;
pub mod cut;
pub mod derive;
pub mod diff;
pub mod documents;
pub mod docx;
pub mod endpoints;
pub mod error;
pub mod figures;
pub mod load;
pub mod model;
pub mod plots;
pub mod render;
pub mod sas7bdat;
pub mod stats;
pub mod timing;
pub mod verify;
pub mod write;
pub mod xpt;

pub use error::{Error, Result};
