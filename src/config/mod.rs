//! The study config (its keys: README "Config reference", `templates/init/study.yaml`):
//! YAML → [`StudyConfig`], then checks that serde cannot make.
//!
//! serde_yaml is deprecated upstream; it is used in `read.rs` only, so moving to a maintained
//! fork is a change there and nowhere else. Every struct denies unknown keys, and errors name
//! the file, the line and column, and the key path (`cohorts[1].analysis.km_ci`).

mod analysis;
mod check;
mod conference;
mod criteria;
mod nesting;
mod read;
mod schema;
mod written;

pub use analysis::*;
pub use check::{cohort_id_problem, study_id_problem, MAX_AE_TOP_N, MAX_ID_CHARS};
pub use conference::{
    Conference, ConferenceSpec, CountUnit, CustomLimit, LengthRule, SectionNames,
};
pub use criteria::{CriteriaConfig, OwnConfirmation, OwnCriteria};
pub use nesting::MAX_YAML_DEPTH;
pub use read::{load, parse, LoadedConfig};
pub use schema::*;
