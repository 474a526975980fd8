//! Tests of the rendering stage: templates, filters and the documents they write.

use super::*;

#[test]
fn rounding_is_half_away_from_zero() {
    assert_eq!(fixed(0.125, 2), "0.13");
    assert_eq!(fixed(19.047619, 1), "19.0");
    assert_eq!(fixed(34.2105263, 2), "34.21");
    assert_eq!(fixed(-0.04, 1), "0.0");
    assert_eq!(fixed(2.5, 0), "3");
}

#[test]
fn long_dates_read_like_the_abstracts() {
    assert_eq!(long_date("2022-10-20"), "October 20, 2022");
    assert_eq!(long_date("2020-06-01"), "June 1, 2020");
}

use crate::config::AnalysisConfig;
use crate::results::{Enrolment, Populations};

/// Renders `template` with readout's filters over `context` (JSON) under `analysis`.
fn render_with(template: &str, context: serde_json::Value, analysis: &Analysis) -> String {
    let mut tera = Tera::default();
    register_filters(&mut tera, analysis);
    let context = Context::from_value(context).expect("context");
    tera.render_str(template, &context).expect("render")
}

fn defaults() -> Analysis {
    AnalysisConfig::default().resolve(&AnalysisConfig::default())
}

fn render(template: &str, context: serde_json::Value) -> String {
    render_with(template, context, &defaults())
}

#[test]
fn pct_uses_the_configured_decimals_and_ne_for_null() {
    let ctx = serde_json::json!({"r": 0.342105, "none": null});
    assert_eq!(render("{{ r | pct }}", ctx.clone()), "34.2%");
    assert_eq!(render("{{ r | pct(d=2) }}", ctx.clone()), "34.21%");
    assert_eq!(render("{{ none | pct }}", ctx.clone()), "NE");
    let mut two = defaults();
    two.percent_decimals = 2;
    assert_eq!(render_with("{{ r | pct }}", ctx, &two), "34.21%");
}

#[test]
fn counts_with_percentages() {
    let ctx = serde_json::json!({"p": {"n": 13, "N": 38}, "empty": {"n": 0, "N": 0}, "k": 11});
    assert_eq!(render("{{ p | n_pct }}", ctx.clone()), "13/38 (34.2%)");
    assert_eq!(render("{{ empty | n_pct }}", ctx.clone()), "0/0");
    assert_eq!(
        render("{{ k | count_pct(total=38) }}", ctx.clone()),
        "11 (28.9%)"
    );
    assert_eq!(render("{{ k | count_pct(total=0) }}", ctx.clone()), "11");
    assert_eq!(
        render("{{ k | pct_of(total=38, d=2) }}", ctx.clone()),
        "28.95%"
    );
    assert_eq!(render("{{ k | pct_of(total=0) }}", ctx), "NE");
}

#[test]
fn ci_reads_like_the_abstracts() {
    let ctx = serde_json::json!({
        "rate": {"lower": 0.19628, "upper": 0.51348},
        "time": {"lower": 9.0, "upper": null},
        "none": {"lower": null, "upper": null}
    });
    assert_eq!(
        render("{{ rate | ci(percent=true) }}", ctx.clone()),
        "95% CI: 19.6%, 51.3%"
    );
    assert_eq!(
        render("{{ time | ci(d=2) }}", ctx.clone()),
        "95% CI: 9.00, NE"
    );
    assert_eq!(render("{{ time | ci(bare=true) }}", ctx.clone()), "9.0, NE");
    assert_eq!(render("{{ none | ci }}", ctx.clone()), "95% CI: NE, NE");
    let mut ninety = defaults();
    ninety.ci_level = 0.9;
    assert_eq!(
        render_with("{{ time | ci }}", ctx, &ninety),
        "90% CI: 9.0, NE"
    );
}

#[test]
fn times_and_numbers() {
    let ctx = serde_json::json!({"t": 8.4137, "nr": null, "whole": 61.0, "half": 59.5});
    assert_eq!(render("{{ t | time }}", ctx.clone()), "8.4");
    assert_eq!(render("{{ t | time(d=2) }}", ctx.clone()), "8.41");
    assert_eq!(render("{{ nr | time }}", ctx.clone()), "not reached");
    assert_eq!(render("{{ nr | time(missing=\"NR\") }}", ctx.clone()), "NR");
    assert_eq!(render("{{ t | num(d=3) }}", ctx.clone()), "8.414");
    assert_eq!(render("{{ nr | num }}", ctx.clone()), "NE");
    assert_eq!(render("{{ whole | plain }}", ctx.clone()), "61");
    assert_eq!(render("{{ half | plain }}", ctx.clone()), "59.5");
    let mut td = defaults();
    td.time_decimals = 2;
    assert_eq!(render_with("{{ t | time }}", ctx, &td), "8.41");
}

#[test]
fn words_dates_and_markdown() {
    let ctx = serde_json::json!({
        "one": 1, "two": 2, "date": "2022-01-06",
        "md": "Drug *X* is **new**.\nSecond line with `code`.",
        "html": "a <b>bold</b> claim"
    });
    assert_eq!(
        render(
            "{{ one }} {{ one | pts }}, {{ two }} {{ two | pts }}",
            ctx.clone()
        ),
        "1 pt, 2 pts"
    );
    assert_eq!(
        render("{{ date | long_date }}", ctx.clone()),
        "January 6, 2022"
    );
    assert_eq!(
        render("{{ md | markdown(inline=true) }}", ctx.clone()),
        "Drug <em>X</em> is <strong>new</strong>.\nSecond line with <code>code</code>."
    );
    assert_eq!(
        render("{{ md | md_text }}", ctx.clone()),
        "Drug X is new. Second line with code."
    );
    assert_eq!(
        render("{{ html | markdown(inline=true) }}", ctx),
        "a &lt;b&gt;bold&lt;/b&gt; claim"
    );
}

#[test]
fn markdown_to_text_keeps_paragraphs_and_items() {
    assert_eq!(
        markdown_to_text("# Head\n\nOne *two*.\n\n- a\n- b\n"),
        "Head\n\nOne two.\n\n- a\n- b"
    );
}

/// Raw HTML is markup: left out of the text, the words between tags kept; what CommonMark
/// reads as text (an escaped tag, `<` before a digit or space) stays.
#[test]
fn markdown_to_text_leaves_raw_html_out() {
    assert_eq!(
        markdown_to_text("a <img src=x onerror=alert(1)> H<sub>2</sub>O <!-- c --> \\<b\\> p<0.05"),
        "a  H2O  <b> p<0.05"
    );
    assert_eq!(
        markdown_to_text("<div class=\"x\"\n  id=y>\nkept\n<!--\nhidden\n-->\n</div>\n\nnext"),
        "kept\n\nnext"
    );
}

#[test]
fn error_locations_are_found() {
    assert_eq!(
        parse_location("Failed to parse 'x'\n --> 4:43\n  |"),
        Some((4, Some(43)))
    );
    assert_eq!(parse_location("no location"), None);
    let source = "line one\n{{ cohort.n }}\n{{ cohort.respons.orr }}\n";
    assert_eq!(
        find_named_line(source, "Variable `cohort.respons.orr` not found"),
        Some((3, None))
    );
    assert_eq!(
        active_template(
            "Failed to render 'a.md'\nVariable `x` not found in context while rendering 'b.txt'"
        ),
        Some("b.txt".to_string())
    );
    assert_eq!(
        tidy_message("Failed to parse 'a.md'\n --> 4:43\n  |\n4 | {{ x | pct( }}\n  |   ^---\n  |\n  = expected an identifier"),
        "Failed to parse 'a.md': expected an identifier"
    );
}

/// `text` rendered as cohort `a`'s background of study `S`, with the default settings.
fn background(renderer: &Renderer, text: &str) -> Result<String> {
    let study: Study = serde_json::from_value(serde_json::json!({"id": "S"})).expect("study");
    let context = TextContext::new(&study, &dummy_cohort(), &defaults());
    renderer.render_text("cohorts.a.background", text, &context, &defaults())
}

#[test]
fn a_render_error_in_a_built_in_names_the_template_and_line() {
    let renderer = Renderer::new(None).expect("built-ins parse");
    let err = background(&renderer, "ok\n{{ cohort.nope }}").expect_err("unknown variable");
    let text = err.to_string();
    assert!(
        text.starts_with("template `cohorts.a.background`: line 2: "),
        "{text}"
    );
    assert!(text.contains("cohort.nope"), "{text}");
}

/// A config text renders alone when it reaches no other template, secured as templates are
/// (refused functions refused, the number filters there), and with the templates when
/// it includes one.
#[test]
fn config_texts_render_alone_or_with_the_templates_they_include() {
    let renderer = Renderer::with_templates(&[("note.txt", "Note on {{ cohort.label }}.")])
        .expect("templates parse");
    let text = |t: &str| background(&renderer, t);
    assert_eq!(
        text("{{ cohort.id }} *x* {{ 0.5 | pct }}").expect("alone"),
        "a *x* 50.0%"
    );
    let refused = text("{{ get_env(name='HOME') }}").expect_err("refused");
    assert!(refused.to_string().contains("get_env"), "{refused}");
    assert_eq!(
        text("{% include \"note.txt\" %} More.").expect("with the templates"),
        "Note on A. More."
    );
}

/// Built-ins a config cannot reach are left unparsed: the arms' part without arms, the slides
/// without pptx, the poster without poster. A config text may still include one (it is
/// parsed for the text), and rendering one as a document is an internal error, not a wrong
/// document.
#[test]
fn unreachable_built_ins_are_not_parsed() {
    let config = |formats: &str, arms: &str| -> crate::config::StudyConfig {
        let yaml = format!(
            "study: {{ id: S }}\ndata: {{ dir: d, adsl: adsl.csv }}\noutput: {{ formats: [{formats}] }}\ncohorts:\n  - {{ id: a{arms} }}\n"
        );
        serde_yaml::from_str(&yaml).expect("config")
    };
    assert_eq!(
        unreachable_builtins(&config("md, html", "")),
        ["abstract-results-arms.txt", "slides.txt", "poster.txt"]
    );
    assert_eq!(
        unreachable_builtins(&config(
            "md, pptx, poster",
            ", arms: { column: ARM, reference: A }"
        )),
        Vec::<&str>::new()
    );
    let skip = unreachable_builtins(&config("md", ""));
    let renderer = Renderer::without(None, &skip).expect("built-ins parse");
    let text = background(&renderer, "{% import \"poster.txt\" as poster %}Kept.")
        .expect("the text parses with every built-in");
    assert_eq!(text, "Kept.");
    let context = serde_json::json!({});
    let failed = renderer
        .render_with("slides.txt", &context, &defaults())
        .expect_err("not parsed");
    assert!(matches!(failed, Error::Internal(_)), "{failed}");
}

/// Only a tag reaches another template, not the word in prose.
#[test]
fn a_text_reaches_other_templates_only_through_its_tags() {
    for text in [
        "{% include \"note.txt\" %}",
        "a {%- import \"m.txt\" as m -%} b",
        "{%   extends \"base.html\" %}",
        "{# {% include \"x\" %} #}",
    ] {
        assert!(reaches_other_templates(text), "{text}");
    }
    for text in [
        "Pts were included; imports and extends of {{ cohort.id }}.",
        "{{ 'include' }} {% if x %}import{% endif %}",
        "{% raw %}a{% endraw %}",
        "",
    ] {
        assert!(!reaches_other_templates(text), "{text}");
    }
}

pub(crate) fn dummy_cohort() -> CohortResults {
    CohortResults {
        id: "a".into(),
        label: "A".into(),
        cutoff: None,
        n: Populations {
            enrolled: 0,
            efficacy: 0,
            safety: 0,
            efficacy_flag: None,
            safety_flag: None,
            efficacy_untreated: 0,
        },
        enrolment: Enrolment {
            first: None,
            last: None,
            centres: None,
        },
        baseline: Vec::new(),
        response: None,
        tte: Default::default(),
        followup: None,
        safety: None,
        disposition: None,
        study_disposition: None,
        exposure: None,
        arms: Vec::new(),
        comparisons: Vec::new(),
        factor_labels: Default::default(),
        row_filters: Vec::new(),
        warnings: Vec::new(),
    }
}

#[test]
fn markdown_escape_renders_as_the_same_text() {
    for text in [
        "<script>alert(1)</script>",
        "a*b*_c_ `d` [e](f) &amp; | ~~g~~ # h \\",
        "Grade 3 (x) 71.1% – ≥",
    ] {
        let html = markdown_to_html(&escape_markdown(text), true);
        let expected = text
            .replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;");
        assert_eq!(html, expected, "{text}");
    }
    assert_eq!(escape_markdown("two\nlines"), "two lines");
    assert_eq!(escape_markdown("27 (71.1%)"), "27 (71.1%)");
}

#[test]
fn only_web_and_mail_links_stay_links() {
    for url in [
        "https://example.org/a?b#c",
        "http://x",
        "HTTPS://X",
        "mailto:a@b.org",
        "relative/path.html",
        "#fragment",
        "?q=1",
        "/abs/path",
        "a/b:c",
    ] {
        assert!(safe_url(url), "{url}");
    }
    for url in [
        "javascript:alert(1)",
        "JaVaScRiPt:alert(1)",
        " javascript:alert(1)",
        "\u{1}javascript:alert(1)",
        "java\tscript:alert(1)",
        "java\nscript:alert(1)",
        "vbscript:msgbox",
        "data:text/html,<script>alert(1)</script>",
        "file:///etc/passwd",
        "java\u{fffd}script:x",
        "\u{3000}javascript:x",
    ] {
        assert!(!safe_url(url), "{url:?}");
    }
    for md in [
        "[x](javascript:alert(1))",
        "[x](JAVASCRIPT:alert(1))",
        "[x](&#106;avascript:alert(1))",
        "[x](&#x6A;avascript&#58;alert(1))",
        "[x](java&#9;script:alert(1))",
        "[x](<javascript:alert(1)>)",
        "[x]( javascript:alert(1) )",
        "![x](javascript:alert(1))",
        "![x](data:text/html;base64,PHNjcmlwdD4=)",
        "[x](vbscript:msgbox)",
        "<javascript:alert(1)>",
        "[x][r]\n\n[r]: javascript:alert(1)",
        "[![i](javascript:a)](javascript:b)",
    ] {
        let html = markdown_to_html(md, false);
        assert!(!html.contains("<a"), "{md}: {html}");
        assert!(!html.contains("<img"), "{md}: {html}");
        assert!(
            html.contains('x') || html.contains('i') || html.contains("alert"),
            "{md}: {html}"
        );
    }
    assert_eq!(
        markdown_to_html(
            "[Hypertension](javascript:alert(1)) and [site](https://a.org)",
            true
        ),
        "Hypertension and <a href=\"https://a.org\">site</a>"
    );
}

#[test]
fn raw_html_in_markdown_is_escaped() {
    let html = markdown_to_html("a <script>alert(1)</script> b", true);
    assert!(!html.contains("<script>"), "{html}");
}

/// The built-in Results sentence on disease control names stable disease and non-CR/non-PD
/// only when some pt had them ("Stable disease was observed in 0 pts" read oddly).
#[test]
fn disease_control_names_only_what_was_observed() {
    let results = |sd: u64, ncnp: u64| {
        let mut cohort = serde_json::to_value(dummy_cohort()).expect("json");
        let dcr = 2 + sd + ncnp;
        cohort["n"]["enrolled"] = 10.into();
        cohort["n"]["efficacy"] = 10.into();
        cohort["response"] = serde_json::json!({
            "confirmed": true,
            "bor": {"CR": 0, "PR": 2, "SD": sd, "NON-CR/NON-PD": ncnp, "PD": 8 - sd - ncnp, "NE": 0},
            "orr": {"rate": 0.2, "n": 2, "N": 10, "lower": 0.025, "upper": 0.556},
            "dcr": {"rate": dcr as f64 / 10.0, "n": dcr, "N": 10, "lower": 0.1, "upper": 0.9},
        });
        let typed: CohortResults = serde_json::from_value(cohort.clone()).expect("results");
        let show = crate::documents::shorten::Shown::new(&typed, &defaults(), &Default::default());
        let context = serde_json::json!({
            "cohort": cohort,
            "study": {},
            "analysis": serde_json::to_value(defaults()).expect("analysis"),
            "show": show,
        });
        render(
            include_str!("../../../templates/abstract-results.txt"),
            context,
        )
    };
    let none = results(0, 0);
    assert!(
        none.contains("(2/10; 95% CI: 2.5%, 55.6%). The DCR was 20.0% (2/10;"),
        "{none}"
    );
    assert!(
        !none.contains("Stable disease") && !none.contains("0 pts"),
        "{none}"
    );
    let some = results(3, 0);
    assert!(
        some.contains("Stable disease was observed in 3 pts, giving a DCR of 50.0%"),
        "{some}"
    );
    let other = results(0, 1);
    assert!(
        other.contains("Non-CR/non-PD was observed in 1 pt, giving a DCR of 30.0%"),
        "{other}"
    );
}
