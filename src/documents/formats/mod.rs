//! The output formats of a build, as one registry (docs/ARCHITECTURE.md, "Output formats"):
//! each format of `output.formats` is one file here that says what it needs (the figures as
//! PNG, the cut-off's index) and writes a cohort's files from its rendered documents
//! ([`CohortDocs`]). [`Formats::of`] is the only place that maps the config's `Format` to
//! them: a new format is a file implementing [`OutputFormat`] and one line there.

mod ard;
mod dataset_json;
mod html;
mod markdown;
mod png;
mod poster;
mod slides;
mod word;
mod xlsx;

use crate::config::Format;
use crate::error::Result;
use crate::files::OutputFile;

use super::numbers::NumbersSheet;
use super::render::{DocumentContext, Renderer};
use super::Assets;

/// What a format needs from the stages before it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Needs {
    /// The figures rasterised, and their PNG bytes kept for the format to embed (Word, decks).
    pub pngs: bool,
    /// The figures' PNG copies written beside their SVGs.
    pub png_files: bool,
    /// The cut-off folder's `index.html`.
    pub index: bool,
    /// Each cohort's derived dataset as Dataset-JSON (`derived/<cohort>.json`).
    pub derived_dataset_json: bool,
    /// Figures drawn also in landscape, for slides.
    pub wide_figures: bool,
}

impl Needs {
    fn or(self, other: Needs) -> Needs {
        Needs {
            pngs: self.pngs || other.pngs,
            png_files: self.png_files || other.png_files,
            index: self.index || other.index,
            derived_dataset_json: self.derived_dataset_json || other.derived_dataset_json,
            wide_figures: self.wide_figures || other.wide_figures,
        }
    }
}

/// A cohort's documents as rendered, for the formats to write from.
pub struct CohortDocs<'a> {
    /// The cohort's folder (its id).
    pub dir: &'a str,
    /// The template context (results, texts, report, figures).
    pub ctx: DocumentContext<'a>,
    /// The templates.
    pub renderer: &'a Renderer,
    /// The company's Word and PowerPoint references, when given.
    pub assets: &'a Assets,
    /// `abstract.md` as written.
    pub markdown: String,
    /// `abstract.txt` as written.
    pub plain: String,
    /// The numbers sheet and the traced `abstract.html`, written at the end of the stage.
    pub numbers: NumbersSheet,
    /// Warnings for the cohort.
    pub warnings: Vec<crate::diagnostic::Diagnostic>,
}

/// One output format.
pub trait OutputFormat: Send + Sync {
    /// What it needs (the default: nothing).
    fn needs(&self) -> Needs {
        Needs::default()
    }

    /// Its files for one cohort (the default: none; e.g. PNG copies are the figures').
    fn cohort_files(&self, docs: &mut CohortDocs<'_>) -> Result<Vec<OutputFile>> {
        let _ = docs;
        Ok(Vec::new())
    }
}

/// How the registry makes a format, from all the formats asked for.
type MakeFormat = fn(&[Format]) -> Box<dyn OutputFormat>;

/// The formats of a build, in the order they write.
pub struct Formats {
    formats: Vec<Box<dyn OutputFormat>>,
    needs: Needs,
}

impl Formats {
    /// The formats `output.formats` names (each once, in a fixed order).
    pub fn of(config: &[Format]) -> Formats {
        let all: [(Format, MakeFormat); 9] = [
            (Format::Md, |_| Box::new(markdown::Markdown)),
            (Format::Html, |_| Box::new(html::Html)),
            (Format::Pptx, |_| Box::new(slides::Slides)),
            (Format::Docx, |_| Box::new(word::Word)),
            (Format::Png, |_| Box::new(png::Png)),
            (Format::DatasetJson, |_| Box::new(dataset_json::DatasetJson)),
            (Format::Xlsx, |_| Box::new(xlsx::Xlsx)),
            (Format::Ard, |all| {
                Box::new(ard::Ard {
                    dataset_json: all.contains(&Format::DatasetJson),
                })
            }),
            (Format::Poster, |_| Box::new(poster::Poster)),
        ];
        let formats: Vec<Box<dyn OutputFormat>> = all
            .iter()
            .filter(|(format, _)| config.contains(format))
            .map(|(_, make)| make(config))
            .collect();
        let needs = formats
            .iter()
            .fold(Needs::default(), |needs, f| needs.or(f.needs()));
        Formats { formats, needs }
    }

    /// What the formats need together.
    pub fn needs(&self) -> Needs {
        self.needs
    }

    /// Each format's files for one cohort, in order, from the `from`-th format on; with
    /// `before_pngs`, only those before the first format that embeds the figures' PNGs.
    /// Also how many formats have written (the next one to write).
    pub fn cohort_files(
        &self,
        docs: &mut CohortDocs<'_>,
        from: usize,
        before_pngs: bool,
    ) -> Result<(Vec<OutputFile>, usize)> {
        let mut files = Vec::new();
        for (i, format) in self.formats.iter().enumerate().skip(from) {
            if before_pngs && format.needs().pngs {
                return Ok((files, i));
            }
            files.extend(format.cohort_files(docs)?);
        }
        Ok((files, self.formats.len()))
    }
}
