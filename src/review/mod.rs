//! After a build: `readout diff` (what changed between two cut-off folders) and `readout
//! verify` (a cut-off folder against its manifest). Both read finished folders, which may
//! have been edited or tampered with (docs/BAD-INPUT.md).

pub mod diff;
pub mod records;
pub mod redline;
pub mod verify;
