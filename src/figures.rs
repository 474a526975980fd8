//! Adapts a cohort's analysis to the figure functions of [`crate::plots`] and names the files.

use crate::config::{Analysis, Format};
use crate::endpoints::CohortAnalysis;
use crate::error::Result;
use crate::render::Figure;
use crate::write::OutputFile;

/// A cohort's figures: files to write, SVGs to inline, and notes on figures skipped.
#[derive(Debug, Default)]
pub struct CohortFigures {
    /// `figures/*.svg` (and `*.png` when asked for).
    pub files: Vec<OutputFile>,
    /// The SVGs for the HTML documents.
    pub inline: Vec<Figure>,
    /// Why a figure was not drawn.
    pub notes: Vec<String>,
}

/// Draws every figure of a cohort.
pub fn cohort_figures(
    _analysis: &CohortAnalysis,
    _settings: &Analysis,
    _formats: &[Format],
) -> Result<CohortFigures> {
    Ok(CohortFigures::default())
}
