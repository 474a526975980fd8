//! A config's study as loaded once and shared by its cut-offs: the config (fitted to the data
//! it names), the tables, the templates parsed alongside, the Word reference styles.

pub mod fits;

use std::path::PathBuf;

use crate::config::LoadedConfig;
use crate::documents::render::Renderer;
use crate::error::{Error, Result};
use crate::load::{self, StudyData};
use crate::profile::timing;

/// Data loaded once per config, shared by its cut-offs.
pub struct LoadedStudy {
    /// The config.
    pub config: LoadedConfig,
    /// The tables as read.
    pub data: StudyData,
    /// How a cut-off treats the tables (from the config, once).
    pub cut_rules: crate::cut::CutRules,
    /// The output formats of `output.formats`.
    pub formats: crate::documents::formats::Formats,
    /// The company's Word and PowerPoint references.
    pub assets: crate::documents::Assets,
    /// The templates: a user's parsed while the data loaded, the built-ins alone in the
    /// background while the first cohorts are analysed and drawn.
    templates: Templates,
}

/// The study's templates, parsed while the data load.
///
/// Parsed by the loading thread while another takes the data load (docs/PERFORMANCE.md): the
/// built-ins' trees are read as parsed ahead, then sandboxed, in about a millisecond, less than
/// the load, and a thread of their own would cost its start and its own fresh memory. A
/// config's own templates (`output.templates`) are parsed the same way, and a build stops on
/// their error before it writes anything.
struct Templates {
    /// The templates folder, to parse again and report the error of templates that failed.
    dir: Option<PathBuf>,
    /// Built-ins the config's documents cannot reach, left unparsed.
    skip: Vec<&'static str>,
    /// The parsed templates (`None`: they did not parse).
    parsed: Option<Renderer>,
}

impl Templates {
    /// Parses the templates of `dir`, or with no folder the built-ins.
    fn parse(dir: Option<PathBuf>, skip: Vec<&'static str>) -> Templates {
        let parsed = timing::stage("templates", || {
            Renderer::without(dir.as_deref(), &skip).ok()
        });
        Templates { dir, skip, parsed }
    }

    /// The parsed templates, or the error they give when parsed again.
    fn get(&self) -> Result<&Renderer> {
        match &self.parsed {
            Some(renderer) => Ok(renderer),
            None => Err(Renderer::without(self.dir.as_deref(), &self.skip)
                .err()
                .unwrap_or_else(|| {
                    Error::Internal("the templates parsed, then failed to parse".to_string())
                })),
        }
    }
}

/// The error of a reference file at its config key.
fn reference_error(
    config: &LoadedConfig,
    key: &str,
    path: &std::path::Path,
    message: String,
) -> Error {
    Error::Config {
        file: config.path.clone(),
        location: format!("key `output.{key}`: "),
        message: format!("{}: {message}", path.display()),
    }
}

/// A reference file's bytes, read through a cap of `max` bytes.
fn read_reference(
    config: &LoadedConfig,
    path: &std::path::Path,
    key: &str,
    what: &str,
    max: u64,
) -> Result<Vec<u8>> {
    crate::files::read(path, max)
        .map_err(|e| reference_error(config, key, path, format!("cannot read: {e}")))?
        .ok_or_else(|| {
            reference_error(
                config,
                key,
                path,
                format!(
                    "larger than {} MiB; expected a {what} of at most that",
                    max >> 20
                ),
            )
        })
}

/// Loads the config's data files, and parses the templates alongside (so that parsing them
/// does not wait for the data).
pub fn load_study(mut config: LoadedConfig) -> Result<LoadedStudy> {
    let mut assets = crate::documents::Assets {
        poster: crate::documents::slides::poster::PosterSpec::of(&config.config.output),
        ..crate::documents::Assets::default()
    };
    // The templates on this thread (a worker of the build's pool), the data load left for
    // the other to take.
    let (templates, data) = rayon::join(
        || {
            let skip = crate::documents::render::unreachable_builtins(&config.config);
            Templates::parse(template_dir(&config), skip)
        },
        || timing::stage("load", || load::load_study(&config)),
    );
    let mut data = data?;
    let cut_rules = timing::stage("config fitted to the data", || {
        crate::study::fits::fit_to_data(&mut config, &data)?;
        let unmatched = crate::study::fits::special_interest_unmatched(&config, &data);
        data.warnings.extend(unmatched);
        let origin = crate::study::fits::fit_origin(&mut config, &data)?;
        data.warnings.extend(origin);
        crate::study::fits::cut_rules(&config, &data)
    })?;
    if let Some(reference) = &config.config.output.docx_reference {
        let path = config.base_dir().join(reference);
        let refused = |message: String| reference_error(&config, "docx_reference", &path, message);
        // Read through a cap: a reference is a few MiB at most.
        let bytes = read_reference(
            &config,
            &path,
            "docx_reference",
            "Word document",
            crate::documents::docx::MAX_REFERENCE_BYTES,
        )?;
        let styles = crate::documents::docx::reference_styles(&bytes).map_err(&refused)?;
        let (header, footer) =
            crate::documents::docx::reference_running(&bytes).map_err(&refused)?;
        assets.docx_running = [header.map(Into::into), footer.map(Into::into)];
        // The reference shapes the Word files: its hash is in the manifest with the data's.
        data.inputs.push(load::InputFile {
            path: path.display().to_string(),
            sha256: load::sha256_hex(&bytes),
        });
        assets.docx_styles = Some(styles.into());
    }
    if let Some(reference) = &config.config.output.pptx_reference {
        let path = config.base_dir().join(reference);
        let bytes = read_reference(
            &config,
            &path,
            "pptx_reference",
            "PowerPoint file",
            crate::documents::slides::template::MAX_REFERENCE_BYTES,
        )?;
        let template = crate::documents::slides::SlideTemplate::from_reference(&bytes)
            .map_err(|message| reference_error(&config, "pptx_reference", &path, message))?;
        // The template shapes the decks: its hash is in the manifest with the data's.
        data.inputs.push(load::InputFile {
            path: path.display().to_string(),
            sha256: load::sha256_hex(&bytes),
        });
        assets.pptx_template = Some(template.into());
    }
    let formats = crate::documents::formats::Formats::of(&config.config.output.formats);
    Ok(LoadedStudy {
        config,
        data,
        cut_rules,
        formats,
        assets,
        templates,
    })
}

impl LoadedStudy {
    /// The error a build would give for the study's templates, if any (they are parsed with
    /// the data, so a build stops on it before writing anything).
    pub fn check_templates(&self) -> Result<()> {
        self.renderer().map(|_| ())
    }

    /// The study's templates; when they did not parse, the error they give.
    pub fn renderer(&self) -> Result<&Renderer> {
        self.templates.get()
    }
}

/// The config's own templates folder, if it names one.
fn template_dir(cfg: &LoadedConfig) -> Option<PathBuf> {
    cfg.config
        .output
        .templates
        .as_ref()
        .map(|t| cfg.base_dir().join(t))
}
