//! Every type results.json is made of (docs/OUTPUTS.md; its JSON Schema is
//! docs/results.schema.json), in one place below the stages: the endpoints and the
//! comparisons fill them, the build writes them, and the figures, documents, `diff` and
//! `verify` read them. A number is named once, here.

mod arms;
mod cohort;
mod record;
mod safety;

pub use arms::{
    AeComparison, AeRisk, AeRiskKind, ArmResults, Comparison, Contrast, CoxResults, Difference,
    DifferenceMethod, FineGrayResults, GrayResults, LogrankResults, ProportionDifference,
    ResponseComparison, RmstComparison, StratifiedComparison, SubgroupHr, SubgroupInteraction,
    TestUsed, TteComparison,
};
pub use cohort::{
    BaselineSummary, CategoryUsed, CifLandmark, CifResults, CifRiskRow, CohortResults,
    ContinuousSummary, CriteriaUsed, Enrolment, Estimate, FollowUp, LandmarkRate, LevelCount,
    Populations, Proportion, ResponseResults, RiskTableRow, RmstResult, RowsKept, TimeRange,
    TimeToResponse, TteResults,
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

    /// results.json writes an adverse-event row's kind as the documents name it, and reads
    /// it back (an earlier cut-off's file, for the diff).
    #[test]
    fn ae_risk_kinds_are_written_as_labelled() {
        for kind in AeRiskKind::KINDS.into_iter().chain([AeRiskKind::Term]) {
            let json = serde_json::to_value(kind).unwrap();
            assert_eq!(json, serde_json::json!(kind.label()));
            assert_eq!(serde_json::from_value::<AeRiskKind>(json).unwrap(), kind);
        }
        assert_eq!(AeRiskKind::GradeThreeOrHigher.to_string(), "grade ≥3 TEAE");
        assert!(serde_json::from_value::<AeRiskKind>(serde_json::json!("any AE")).is_err());
    }

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
