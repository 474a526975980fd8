//! Any text as a config text and as a user template, rendered to HTML through readout's
//! template sandbox as a build renders it: never a panic, a hang or unbounded memory, never
//! a live script link in the HTML, never the value of an environment variable.
//!
//! The first byte chooses the role of the rest: even, a config text (background) rendered,
//! then turned into HTML as abstract.html does; odd, the user template `abstract.html`
//! (with `report.html` including it), rendered and cleaned as documents are (through the
//! sanitizer, as every document of a build with user templates).
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

/// The allocator the binary uses for its memory limit ([`readout::profile::meter`]), over the system's
/// (which the sanitizer intercepts).
#[global_allocator]
static GLOBAL: readout::profile::meter::Metered<std::alloc::System> =
    readout::profile::meter::Metered(std::alloc::System);
use readout::config::{AnalysisConfig, Study};
use readout::results::{AeCounts, CohortResults, Enrolment, Populations, Safety, TermCounts};
use readout::documents::render::{self, CohortTexts, DocumentContext, Renderer};

/// An environment variable set to one of two values: a document must not depend on which.
/// (Searching the output for the value instead gave false alarms: the fuzzer learns the value
/// from the comparison and writes it into the template.)
const SECRET: &str = "READOUT_FUZZ_SECRET";
const VALUES: [&str; 2] = ["fuzz-secret-one", "fuzz-secret-two"];

/// `render` run with each value of the secret: the same document both times, or none.
fn same_under_both_secrets<T: PartialEq + std::fmt::Debug>(render: impl Fn() -> T) -> T {
    std::env::set_var(SECRET, VALUES[0]);
    let first = render();
    std::env::set_var(SECRET, VALUES[1]);
    let second = render();
    assert_eq!(first, second, "the environment reached the document");
    first
}

/// The cohort every input is rendered over: data values that try to be links and markup.
fn cohort() -> CohortResults {
    let term = |t: &str| TermCounts {
        term: t.to_string(),
        soc: Some("[soc](javascript:alert(2))".to_string()),
        teae_any: 2,
        teae_grade3plus: Some(1),
        trae_any: 2,
        trae_grade3plus: Some(1),
    };
    let counts = AeCounts {
        any: 3,
        grade3plus: Some(1),
        grade4plus: Some(0),
        serious: Some(0),
        fatal: Some(0),
        discontinued: None,
        reduced: None,
        interrupted: None,
    };
    CohortResults {
        id: "fuzz".into(),
        label: "<a href=javascript:alert(3)>label</a>".into(),
        cutoff: None,
        n: Populations {
            enrolled: 3,
            efficacy: 3,
            safety: 3,
            efficacy_flag: None,
            safety_flag: None,
        },
        enrolment: Enrolment {
            first: None,
            last: None,
            centres: Some(1),
        },
        baseline: Vec::new(),
        response: None,
        tte: Default::default(),
        followup: None,
        safety: Some(Safety {
            total: 3,
            teae: counts.clone(),
            trae: counts,
            by_term: vec![
                term("[Hypertension](javascript:alert(1))"),
                term("<script>alert(1)</script>"),
                term("![x](data:text/html,x)"),
            ],
            grading: readout::results::AeGrading::Ctcae,
        }),
        warnings: vec![readout::diagnostic::Diagnostic::warning(
            readout::diagnostic::Kind::NotEstimable,
            "<javascript:alert(4)>",
        )],
        arms: Vec::new(),
        comparisons: Vec::new(),
        factor_labels: Default::default(),
        disposition: None,
        study_disposition: None,
        exposure: None,
    }
}

struct Fixture {
    renderer: Renderer,
    study: Study,
    cohort: CohortResults,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let study: Study = serde_json::from_value(serde_json::json!({
            "id": "FUZZ",
            "title": "[t](javascript:alert(5))"
        }))
        .expect("study");
        Fixture {
            renderer: Renderer::new(None).expect("built-in templates"),
            study,
            cohort: cohort(),
        }
    })
}

/// A URL a browser would run: tabs and line breaks dropped, leading controls and spaces
/// trimmed, any case.
fn runs_script(url: &str) -> bool {
    let url: String = url
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let url = url
        .trim_start_matches(|c: char| c <= ' ')
        .to_ascii_lowercase();
    ["javascript:", "vbscript:", "data:"]
        .iter()
        .any(|s| url.starts_with(s))
}

/// Panics on a live script link in `html` (read by html5ever, as a browser).
fn check(html: &str) {
    let document = scraper::Html::parse_document(html);
    for node in document.root_element().descendants() {
        let Some(element) = scraper::ElementRef::wrap(node) else {
            continue;
        };
        for (name, value) in element.value().attrs() {
            let name = name.to_ascii_lowercase();
            if ["href", "src", "xlink:href", "action", "formaction"].contains(&name.as_str()) {
                assert!(!runs_script(value), "live {name}={value:?}");
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&role, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let f = fixture();
    let analysis = AnalysisConfig::default().resolve(&AnalysisConfig::default());
    if role % 2 == 0 {
        let md = same_under_both_secrets(|| {
            f.renderer
                .render_text(
                    "cohorts.fuzz.background",
                    text,
                    &f.study,
                    &f.cohort,
                    &analysis,
                )
                .ok()
        });
        if let Some(md) = md {
            check(&render::markdown_to_html(&md, false));
            // The Markdown as abstract.md is written: it ends.
            let _ = render::markdown::neutralise(&md);
        }
        return;
    }
    let Ok(renderer) = Renderer::with_templates(&[("abstract.html", text)]) else {
        return;
    };
    let ctx = DocumentContext {
        study: &f.study,
        cohort: &f.cohort,
        analysis: &analysis,
        text: CohortTexts {
            title: "[t](javascript:alert(6))".to_string(),
            title_markdown: "[t](javascript:alert(6))".to_string(),
            ..CohortTexts::default()
        },
        methods_statistics: String::new(),
        ci_percent: "95".to_string(),
        figures: Vec::new(),
        top_trae: Vec::new(),
        top_trae_grade3: Vec::new(),
        trae_grade3_terms: Vec::new(),
        body: render::markdown_to_html("[b](javascript:alert(7))", false),
        report: readout::documents::report::cohort_report(&f.study, &f.cohort, &analysis, "", false),
        arms_compared: render::arms_compared(&f.cohort),
        categories: render::category_counts(&f.cohort),
        sentences: Default::default(),
    };
    for name in ["abstract.html", "report.html"] {
        if let Some(html) = same_under_both_secrets(|| renderer.render(name, &ctx).ok()) {
            check(&renderer.finish_html(html));
        }
    }
});
