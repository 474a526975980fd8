//! The template sandbox: what config texts and user templates may do, and the limits that
//! stop a hostile or mistaken one from crashing, hanging or exhausting a build. Every limit
//! is listed in `docs/BAD-INPUT.md`; a template over one fails its cohort with a message
//! naming the template (or config key) and the limit, and the other cohorts are built.
//!
//! - Before parsing ([`check_source`]): the size of the text, tags and brackets nested at most
//!   [`MAX_NESTING`] deep (Tera's parser recurses and overflowed the stack at ~1,000 levels),
//!   at most [`MAX_TAG_TOKENS`] words and symbols in one tag, no `__readout` names.
//! - After parsing ([`secure`], [`secure_template`]): no recursion (a macro that reaches itself
//!   through any chain of calls, a template that includes itself), chains of macro calls and
//!   includes at most [`MAX_CALL_DEPTH`] long, at most [`MAX_EXPRESSION_VALUES`] values in one
//!   expression.
//! - Rewritten: every loop and macro body starts with a step that counts towards
//!   [`MAX_STEPS`] and checks the memory the render holds ([`MAX_RENDER_MEMORY`], through
//!   [`crate::profile::meter`]); `a ~ b` and the value of every `set` but a plain name are
//!   checked against [`MAX_VALUE_BYTES`] before they are made or kept.
//! - Functions: `range` (at most [`MAX_RANGE`] numbers) and `throw` only; Tera's `get_env`
//!   (registered even without its default features) and anything else that reads the
//!   environment, the clock or files is gone. Filters are wrapped: those whose result can be
//!   many times their input (`replace`, `indent`, `join`, `split`, `concat`, ...) are checked
//!   before they run, every result after.
//! - Rendering ([`render`]): a document of at most [`MAX_DOCUMENT_BYTES`] beyond the figures
//!   it is given to print.

mod calls;
mod limits;
mod rewrite;
mod source;

pub use calls::check_calls;
pub use limits::{render, RenderFailure};
pub use source::check_source;

use calls::*;
use limits::*;
use rewrite::*;

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use serde_json::Value;
use tera::ast::{Expr, ExprVal, FunctionCall, MacroCall, Node, WS};
use tera::{Context, Tera};

/// Largest user template file.
pub const MAX_TEMPLATE_BYTES: usize = 1 << 20;
/// Largest config text (title, background, methods, conclusions).
pub const MAX_TEXT_BYTES: usize = 64 << 10;
/// Deepest nesting of block tags (`if`, `for`, `macro`, `block`, `filter`) and of brackets.
pub const MAX_NESTING: usize = 32;
/// Most words, numbers and symbols in one `{{ }}` or `{% %}` tag.
pub const MAX_TAG_TOKENS: usize = 512;
/// Most values (literals, names, calls, arguments) in one expression.
pub const MAX_EXPRESSION_VALUES: usize = 256;
/// Longest chain of macro calls and includes.
pub const MAX_CALL_DEPTH: usize = 32;
/// Most loop iterations and macro calls while rendering one document.
pub const MAX_STEPS: u64 = 1_000_000;
/// Most numbers `range` makes, and most pieces `split` makes.
pub const MAX_RANGE: usize = 100_000;
/// Largest value a template makes (a string, or an array or object in all).
pub const MAX_VALUE_BYTES: usize = 16 << 20;
/// Most memory rendering one document may hold (where the binary meters it).
pub const MAX_RENDER_MEMORY: usize = 512 << 20;
/// Largest document.
pub const MAX_DOCUMENT_BYTES: usize = 64 << 20;

/// The names of the sandbox's own functions (no template may use the prefix).
const RESERVED: &str = "__readout";
const TICK: &str = "__readout_tick";
const CONCAT: &str = "__readout_concat";
const KEEP: &str = "__readout_value";

/// Functions a template may call; every other Tera function is removed.
const FUNCTIONS: [&str; 2] = ["range", "throw"];

/// Tera's functions that read the environment, the clock or chance: each is replaced by one
/// that says why it is not there (documents depend on the data and the config alone).
const REFUSED: [&str; 3] = ["get_env", "now", "get_random"];

/// A function a template may not call.
struct Refused(&'static str);

impl tera::Function for Refused {
    fn call(&self, _: &HashMap<String, Value>) -> tera::Result<Value> {
        Err(tera::Error::msg(format!(
            "`{}` is not available: templates and config texts see the results and the config, \
             never the environment, the clock or chance",
            self.0
        )))
    }
}

/// A problem found in a template's text before or after parsing: the line when known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceError {
    /// 1-based line, when the problem has one.
    pub line: Option<usize>,
    /// What is wrong and the limit.
    pub message: String,
}

impl SourceError {
    fn at(line: usize, message: String) -> SourceError {
        SourceError {
            line: Some(line),
            message,
        }
    }

    fn whole(message: String) -> SourceError {
        SourceError {
            line: None,
            message,
        }
    }
}

/// `1,000,000`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `16 MiB`, `64 KiB`, `100 bytes`.
fn size(bytes: usize) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else if bytes >= 1 << 10 && bytes.is_multiple_of(1 << 10) {
        format!("{} KiB", bytes >> 10)
    } else {
        format!("{} bytes", thousands(bytes as u64))
    }
}

/// Makes a Tera instance safe to render user templates with: removes every function but
/// `range` (bounded) and `throw`, wraps every filter with size checks, registers the
/// sandbox's own functions, then checks and rewrites every template ([`secure_template`]).
pub fn secure(tera: &mut Tera) -> Result<(), (String, SourceError)> {
    let range = tera.functions.get("range").cloned();
    tera.functions
        .retain(|name, _| FUNCTIONS.contains(&name.as_str()));
    if let Some(range) = range {
        tera.register_function("range", BoundedRange(range));
    }
    for name in REFUSED {
        tera.register_function(name, Refused(name));
    }
    tera.register_function(TICK, Tick);
    tera.register_function(CONCAT, Concat);
    tera.register_function(KEEP, Keep);
    let filters: Vec<(String, Arc<dyn tera::Filter>)> = tera
        .filters
        .iter()
        .map(|(name, f)| (name.clone(), f.clone()))
        .collect();
    for (name, inner) in filters {
        tera.register_filter(
            &name,
            Guarded {
                name: name.clone(),
                inner,
            },
        );
    }
    let names: Vec<String> = tera.templates.keys().cloned().collect();
    for name in &names {
        secure_template(tera, name).map_err(|e| (name.clone(), e))?;
    }
    check_calls(tera)
}

/// A copy of a [`secure`]d instance for the traced render of documents already rendered
/// plainly (`documents::trace`): see `rewrite::trace_nodes`.
pub fn traced(tera: &Tera) -> Tera {
    let mut tera = tera.clone();
    for template in tera.templates.values_mut() {
        trace_nodes(&mut template.ast);
        for m in template.macros.values_mut() {
            trace_nodes(&mut m.body);
        }
        for b in template.blocks.values_mut() {
            trace_nodes(&mut b.body);
        }
        for defs in template.blocks_definitions.values_mut() {
            for (_, b) in defs.iter_mut() {
                trace_nodes(&mut b.body);
            }
        }
    }
    tera
}

/// The line breaks in `bytes`.
fn count_lines(bytes: &[u8]) -> usize {
    memchr::memchr_iter(b'\n', bytes).count()
}

/// Checks the values per expression of template `name`, and rewrites it: steps at the start
/// of every loop and macro body, `~` and `set` values through size checks. Rewriting twice
/// changes nothing.
pub fn secure_template(tera: &mut Tera, name: &str) -> Result<(), SourceError> {
    let Some(template) = tera.templates.get_mut(name) else {
        return Ok(());
    };
    let mut too_many = None;
    visit_exprs(&template.ast, &mut |e| {
        if too_many.is_none() && count_values(e) > MAX_EXPRESSION_VALUES {
            too_many = Some(());
        }
    });
    if too_many.is_some() {
        return Err(SourceError::whole(format!(
            "an expression of more than {MAX_EXPRESSION_VALUES} values; the limit is \
             {MAX_EXPRESSION_VALUES}"
        )));
    }
    instrument(&mut template.ast, false);
    for m in template.macros.values_mut() {
        instrument_macro(m);
    }
    for b in template.blocks.values_mut() {
        instrument(&mut b.body, false);
    }
    for defs in template.blocks_definitions.values_mut() {
        for (_, b) in defs.iter_mut() {
            instrument(&mut b.body, false);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secured(templates: &[(&str, &str)]) -> Result<Tera, (String, SourceError)> {
        let mut tera = Tera::default();
        for (name, text) in templates {
            check_source(text, MAX_TEMPLATE_BYTES).map_err(|e| (name.to_string(), e))?;
        }
        tera.add_raw_templates(templates.to_vec())
            .map_err(|e| ("".to_string(), SourceError::whole(e.to_string())))?;
        secure(&mut tera)?;
        Ok(tera)
    }

    fn run(template: &str) -> Result<String, String> {
        let tera = secured(&[("t", template)]).map_err(|(_, e)| e.message)?;
        render(&tera, "t", &Context::new(), 0).map_err(|e| match e {
            RenderFailure::Limit(m) => m,
            RenderFailure::Tera(e) => format!("{e:?}"),
        })
    }

    #[test]
    fn ordinary_templates_render_as_before() {
        assert_eq!(
            run("{% for i in range(end=3) %}{{ i }}{% endfor %}").unwrap(),
            "012"
        );
        assert_eq!(run("{{ 'a' ~ 1 ~ 'b' }}").unwrap(), "a1b");
        assert_eq!(run("{% set x = 'ab' | upper %}{{ x }}").unwrap(), "AB");
        assert_eq!(
            run("{% macro m(n) %}<{{ n }}>{% endmacro %}{{ self::m(n=2) }}").unwrap(),
            "<2>"
        );
        assert_eq!(
            run("{% set_global s = '' %}{% for i in range(end=4) %}{% set_global s = s ~ i %}{% endfor %}{{ s }}")
                .unwrap(),
            "0123"
        );
    }

    #[test]
    fn the_environment_is_out_of_reach() {
        let err = run("{{ get_env(name='HOME') }}").unwrap_err();
        assert!(err.contains("get_env"), "{err}");
        let err = run("{{ __readout_tick() }}").unwrap_err();
        assert!(err.contains("reserved"), "{err}");
    }

    #[test]
    fn loops_ranges_and_growth_stop_at_their_limits() {
        let err = run("{% for i in range(end=10000000000) %}{% endfor %}").unwrap_err();
        assert!(err.contains("`range` of 10,000,000,000 numbers"), "{err}");
        let err = run("{{ range(end=5, step_by=0) }}").unwrap_err();
        assert!(err.contains("step_by=0"), "{err}");
        let err = run(
            "{% for i in range(end=100000) %}{% for j in range(end=100000) %}{% endfor %}{% endfor %}",
        )
        .unwrap_err();
        assert!(err.contains("1,000,000 loop iterations"), "{err}");
        let err = run(
            "{% set_global s = 'x' %}{% for i in range(end=100) %}{% set_global s = s ~ s %}{% endfor %}",
        )
        .unwrap_err();
        assert!(
            err.contains("would make a value larger than 16 MiB"),
            "{err}"
        );
        let err = run(
            "{% set_global s = 'xx' %}{% for i in range(end=100) %}{% set_global s = s | replace(from='x', to=s) %}{% endfor %}",
        )
        .unwrap_err();
        assert!(err.contains("`replace`"), "{err}");
        let err = run(
            "{% set_global a = [1] %}{% for i in range(end=100) %}{% set_global a = a | concat(with=a) %}{% endfor %}",
        )
        .unwrap_err();
        assert!(err.contains("`concat`"), "{err}");
    }

    /// `set` of a plain name keeps a reference to the context's value: a value over the limit
    /// (which a template did not make) can be named, and naming it in a long loop holds no
    /// copies; a value made from it is still checked.
    #[test]
    fn a_plain_name_set_is_not_a_value_made() {
        let tera = secured(&[
            (
                "named",
                "{% for i in range(end=1000) %}{% set_global c = big %}{% endfor %}{{ c | length }}",
            ),
            ("made", "{% set c = big ~ 'x' %}{{ c | length }}"),
        ])
        .unwrap();
        let mut context = Context::new();
        context.insert("big", &"y".repeat(MAX_VALUE_BYTES + 1));
        let text = render(&tera, "named", &context, 0).unwrap();
        assert_eq!(text, (MAX_VALUE_BYTES + 1).to_string());
        let Err(RenderFailure::Limit(err)) = render(&tera, "made", &context, 0) else {
            panic!("a value made from the big one renders");
        };
        assert!(err.contains("larger than 16 MiB"), "{err}");
    }

    #[test]
    fn documents_stop_at_their_limit() {
        let template = format!(
            "{{% for i in range(end=100000) %}}{}{{% endfor %}}",
            "x".repeat(1000)
        );
        let err = run(&template).unwrap_err();
        assert!(err.contains("stopped at 64 MiB"), "{err}");
        let tera = secured(&[(
            "t",
            "{% for i in range(end=1000) %}{{ big | safe }}{% endfor %}",
        )])
        .unwrap();
        let mut context = Context::new();
        context.insert("big", &"y".repeat(10_000));
        let html = render(&tera, "t", &context, 0).unwrap();
        assert_eq!(html.len(), 10_000_000);
    }

    #[test]
    fn recursion_is_refused_before_rendering() {
        let err = run("{% macro m() %}{{ self::m() }}{% endmacro %}{{ self::m() }}").unwrap_err();
        assert!(err.contains("calls itself"), "{err}");
        let (_, err) = secured(&[("a", "{% include 'b' %}"), ("b", "{% include 'a' %}")])
            .err()
            .unwrap();
        assert!(err.message.contains("template `a`"), "{err:?}");
        assert!(err.message.contains("calls itself"), "{err:?}");
    }

    #[test]
    fn deep_nesting_is_refused_before_parsing() {
        let deep = format!(
            "{}x{}",
            "{% if true %}".repeat(40),
            "{% endif %}".repeat(40)
        );
        let err = check_source(&deep, MAX_TEMPLATE_BYTES).unwrap_err();
        assert_eq!(err.line, Some(1));
        assert!(err.message.contains("nested more than 32"), "{err:?}");
        let brackets = format!("{{{{ {}1{} }}}}", "(".repeat(40), ")".repeat(40));
        assert!(check_source(&brackets, MAX_TEMPLATE_BYTES).is_err());
        let long = format!("{{{{ 1 {} }}}}", "+ 1 ".repeat(400));
        assert!(check_source(&long, MAX_TEMPLATE_BYTES).is_err());
        // Inside comments, strings and raw blocks nothing counts.
        let quiet = format!(
            "{{# {} #}}{{{{ '{}' }}}}{{% raw %}}{}{{% endraw %}}",
            "{% if %}".repeat(50),
            "(".repeat(50),
            "{% if %}".repeat(50)
        );
        assert_eq!(check_source(&quiet, MAX_TEMPLATE_BYTES), Ok(()));
    }
}
