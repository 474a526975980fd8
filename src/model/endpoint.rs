//! The endpoints readout knows by name (docs/CONFIG.md, "`tte_params` in detail"): the three
//! it derives from ADSL and ADRS, which are judged at tumour assessments, and their words.
//! Every other module names them through these constants; any other PARAMCD is the config's.

/// Progression-free survival.
pub const PFS: &str = "PFS";
/// Overall survival.
pub const OS: &str = "OS";
/// Duration of response.
pub const DOR: &str = "DOR";

/// The endpoints derived from ADSL and ADRS when there is no ADTTE, and analysed when the
/// config names none, in the derived CSV's order.
pub const DERIVED: [&str; 3] = [PFS, OS, DOR];

/// The endpoint names judged at tumour assessments unless their entry says otherwise.
pub const ASSESSMENT_JUDGED: [&str; 4] = [PFS, DOR, "TTP", "EFS"];

/// Whether endpoint `name` is measured among responders (duration of response: `DOR`, or a
/// name starting `DOR_`, such as `DOR_IRC`).
pub fn among_responders(name: &str) -> bool {
    name == DOR
        || name
            .strip_prefix(DOR)
            .is_some_and(|rest| rest.starts_with('_'))
}

/// How tables and sentences abbreviate a known endpoint ("DoR" for `DOR`), if `name` is one.
pub fn abbreviation(name: &str) -> Option<&'static str> {
    match name {
        PFS => Some("PFS"),
        OS => Some("OS"),
        DOR => Some("DoR"),
        _ => None,
    }
}

/// The words for a known endpoint ("progression-free survival"), if `name` is one.
pub fn words(name: &str) -> Option<&'static str> {
    match name {
        PFS => Some("progression-free survival"),
        OS => Some("overall survival"),
        DOR => Some("duration of response"),
        _ => None,
    }
}
