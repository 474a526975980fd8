//! Every type results.json is made of (docs/OUTPUTS.md; its JSON Schema is
//! docs/results.schema.json), in one place below the stages: the endpoints and the
//! comparisons fill them, the build writes them, and the figures, documents, `diff` and
//! `verify` read them. A number is named once, here.

mod arms;
mod cohort;
mod record;
mod safety;

pub use arms::{
    AeComparison, AeRisk, ArmResults, Comparison, Contrast, CoxResults, Difference,
    DifferenceMethod, FineGrayResults, GrayResults, LogrankResults, ProportionDifference,
    ResponseComparison, RmstComparison, StratifiedComparison, SubgroupHr, SubgroupInteraction,
    TestUsed, TteComparison,
};
pub use cohort::{
    BaselineSummary, CategoryUsed, CifLandmark, CifResults, CohortResults, ContinuousSummary,
    CriteriaUsed, Enrolment, Estimate, FollowUp, LandmarkRate, LevelCount, Populations, Proportion,
    ResponseResults, RiskTableRow, RmstResult, RowsKept, TimeRange, TimeToResponse, TteResults,
};
pub use record::{
    AbstractLength, CohortFailure, CohortRecord, Decimals, SentenceLength, StudyHeader,
    StudyResults,
};
pub use safety::{
    AeCounts, AeGrading, Disposition, EventCounts, Exposure, ReasonCount, Safety, SocCount,
    SocGrades, SpecialInterestCounts, TermCounts, TermEvents, TermGrades,
};

#[allow(clippy::unwrap_used)]
#[cfg(test)]
mod tests {
    use super::*;

    /// `docs/results.schema.json` is the JSON Schema of results.json as the types write it;
    /// `READOUT_BLESS_SCHEMA=1` rewrites it after a change to the types.
    #[test]
    fn the_results_schema_in_docs_is_current() {
        let schema = schemars::schema_for!(StudyResults<'static>);
        let text = serde_json::to_string_pretty(&schema).unwrap() + "\n";
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/results.schema.json");
        if std::env::var_os("READOUT_BLESS_SCHEMA").is_some() {
            std::fs::write(&path, &text).unwrap();
            return;
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == text,
            "docs/results.schema.json is not the schema of the results types; review the \
             change and rewrite it with READOUT_BLESS_SCHEMA=1 cargo test --release --lib schema"
        );
    }
}
