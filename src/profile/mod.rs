//! Measuring a build: stage timings (`READOUT_PROFILE=1`) and each thread's live bytes (the
//! template sandbox's memory limit reads them).

pub mod meter;
pub mod timing;
