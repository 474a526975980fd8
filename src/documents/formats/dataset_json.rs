//! `dataset-json`: each cohort's derived dataset also as CDISC Dataset-JSON v1.1
//! (`derived/<cohort>.json`), streamed by the build beside the derived CSV
//! (`write::outputs`).

use super::{Needs, OutputFormat};

pub(super) struct DatasetJson;

impl OutputFormat for DatasetJson {
    fn needs(&self) -> Needs {
        Needs {
            derived_dataset_json: true,
            ..Needs::default()
        }
    }
}
