//! `png`: every figure rasterised beside its SVG (`figures/*.png`), as the figures stage
//! writes them.

use super::{Needs, OutputFormat};

pub(super) struct Png;

impl OutputFormat for Png {
    fn needs(&self) -> Needs {
        Needs {
            png_files: true,
            ..Needs::default()
        }
    }
}
