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
//!   [`crate::meter`]); `a ~ b` and the value of every `set` are checked against
//!   [`MAX_VALUE_BYTES`] before they are made or kept.
//! - Functions: `range` (at most [`MAX_RANGE`] numbers) and `throw` only; Tera's `get_env`
//!   (registered even without its default features) and anything else that reads the
//!   environment, the clock or files is gone. Filters are wrapped: those whose result can be
//!   many times their input (`replace`, `indent`, `join`, `split`, `concat`, ...) are checked
//!   before they run, every result after.
//! - Rendering ([`render`]): a document of at most [`MAX_DOCUMENT_BYTES`] beyond the figures
//!   it is given to print.

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

/// Checks a template's text before Tera parses it: its size (`max_bytes`), the nesting of
/// block tags and brackets, the words in one tag and the reserved prefix. Comments and
/// `raw` blocks are skipped as Tera skips them; an unclosed tag is left for Tera to report.
pub fn check_source(text: &str, max_bytes: usize) -> Result<(), SourceError> {
    if text.len() > max_bytes {
        return Err(SourceError::whole(format!(
            "{} bytes; a template may have at most {}",
            thousands(text.len() as u64),
            size(max_bytes)
        )));
    }
    let bytes = text.as_bytes();
    let mut line = 1;
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        let rest = &bytes[i..];
        if rest.starts_with(b"{#") {
            let Some(end) = find(bytes, i + 2, b"#}") else {
                return Ok(());
            };
            line += count_lines(&bytes[i..end]);
            i = end + 2;
        } else if rest.starts_with(b"{%") || rest.starts_with(b"{{") {
            let statement = rest.starts_with(b"{%");
            let close: &[u8] = if statement { b"%}" } else { b"}}" };
            let tag_line = line;
            let Some(tag) = scan_tag(bytes, i + 2, close, tag_line)? else {
                return Ok(());
            };
            line += count_lines(&bytes[i..tag.end]);
            i = tag.end;
            if statement {
                match tag.keyword.as_str() {
                    "if" | "for" | "macro" | "block" | "filter" => {
                        depth += 1;
                        if depth > MAX_NESTING {
                            return Err(SourceError::at(
                                tag_line,
                                format!(
                                    "`{}` tags nested more than {MAX_NESTING} deep; the limit \
                                     is {MAX_NESTING}",
                                    tag.keyword
                                ),
                            ));
                        }
                    }
                    "endif" | "endfor" | "endmacro" | "endblock" | "endfilter" => {
                        depth = depth.saturating_sub(1);
                    }
                    "raw" => {
                        // Until `{% endraw %}` (any whitespace control), nothing is a tag.
                        let mut j = i;
                        loop {
                            let Some(open) = find(bytes, j, b"{%") else {
                                return Ok(());
                            };
                            let inner = &text[open + 2..];
                            let word = inner.trim_start_matches('-').trim_start();
                            if word.starts_with("endraw") {
                                line += count_lines(&bytes[i..open]);
                                i = open;
                                break;
                            }
                            j = open + 2;
                        }
                    }
                    _ => {}
                }
            }
        } else {
            if bytes[i] == b'\n' {
                line += 1;
            }
            i += 1;
        }
    }
    if let Some((at, c)) = crate::error::find_refused_control(text) {
        return Err(SourceError::at(
            1 + count_lines(&bytes[..at]),
            format!(
                "the control character U+{:04X}; expected text without control characters (tab \
                 and line breaks are allowed)",
                c as u32
            ),
        ));
    }
    if text.contains(RESERVED) {
        let at = text.find(RESERVED).unwrap_or(0);
        let line = 1 + count_lines(&bytes[..at]);
        return Err(SourceError::at(
            line,
            format!("`{RESERVED}` names are reserved for readout"),
        ));
    }
    Ok(())
}

fn count_lines(bytes: &[u8]) -> usize {
    memchr::memchr_iter(b'\n', bytes).count()
}

fn find(bytes: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(bytes.get(from..)?, needle).map(|k| from + k)
}

/// A tag scanned: where it ends (after its closing delimiter) and its first word.
struct Tag {
    end: usize,
    keyword: String,
}

/// Scans a tag from `start` (after `{%` or `{{`) to `close`, outside string literals:
/// bracket nesting and the number of words and symbols. `None` when it is not closed.
fn scan_tag(
    bytes: &[u8],
    start: usize,
    close: &[u8],
    line: usize,
) -> Result<Option<Tag>, SourceError> {
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80;
    let mut i = start;
    while i < bytes.len() && (bytes[i] == b'-' || bytes[i].is_ascii_whitespace()) {
        i += 1;
    }
    let keyword_end = i + bytes[i..].iter().take_while(|b| word(**b)).count();
    let keyword = String::from_utf8_lossy(&bytes[i..keyword_end]).into_owned();
    let mut brackets = 0usize;
    let mut tokens = 0usize;
    let mut in_word = false;
    while i < bytes.len() {
        let b = bytes[i];
        if bytes[i..].starts_with(close) {
            return Ok(Some(Tag {
                end: i + close.len(),
                keyword,
            }));
        }
        let is_word = word(b);
        if is_word && !in_word || !is_word && !b.is_ascii_whitespace() {
            tokens += 1;
        }
        in_word = is_word;
        match b {
            b'"' | b'\'' | b'`' => {
                // A string literal: one token, skipped to its closing quote.
                match memchr::memchr(b, &bytes[i + 1..]) {
                    Some(k) => i += k + 1,
                    None => return Ok(None),
                }
            }
            b'(' | b'[' | b'{' => {
                brackets += 1;
                if brackets > MAX_NESTING {
                    return Err(SourceError::at(
                        line,
                        format!(
                            "brackets nested more than {MAX_NESTING} deep in one tag; the limit \
                             is {MAX_NESTING}"
                        ),
                    ));
                }
            }
            b')' | b']' | b'}' => brackets = brackets.saturating_sub(1),
            _ => {}
        }
        if tokens > MAX_TAG_TOKENS {
            return Err(SourceError::at(
                line,
                format!(
                    "a tag of more than {MAX_TAG_TOKENS} words and symbols; the limit is \
                     {MAX_TAG_TOKENS}"
                ),
            ));
        }
        i += 1;
    }
    Ok(None)
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

/// Checks the macro calls and includes of every template: no cycle, no chain longer than
/// [`MAX_CALL_DEPTH`]. The error names the template where the chain starts.
pub fn check_calls(tera: &Tera) -> Result<(), (String, SourceError)> {
    // Nodes: templates and (file, macro). Edges: includes, macro calls, extends.
    #[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
    enum Callee {
        Template(String),
        Macro(String, String),
    }
    let describe = |c: &Callee| match c {
        Callee::Template(t) => format!("template `{t}`"),
        Callee::Macro(f, m) => format!("macro `{m}` of `{f}`"),
    };
    let mut edges: BTreeMap<Callee, BTreeSet<Callee>> = BTreeMap::new();
    for (name, template) in &tera.templates {
        let resolve = |call: &MacroCall| -> Vec<Callee> {
            if call.namespace == "self" {
                return vec![Callee::Macro(name.clone(), call.name.clone())];
            }
            // The namespace as this template imports it, else as any template does (Tera
            // resolves imports of parents and includes too): a call may reach any of them.
            let mut files: Vec<&String> = template
                .imported_macro_files
                .iter()
                .filter(|(_, ns)| *ns == call.namespace)
                .map(|(file, _)| file)
                .collect();
            if files.is_empty() {
                files = tera
                    .templates
                    .values()
                    .flat_map(|t| t.imported_macro_files.iter())
                    .filter(|(_, ns)| *ns == call.namespace)
                    .map(|(file, _)| file)
                    .collect();
            }
            files
                .into_iter()
                .map(|f| Callee::Macro(f.clone(), call.name.clone()))
                .collect()
        };
        let callees = |nodes: &[Node]| -> BTreeSet<Callee> {
            let mut out = BTreeSet::new();
            visit_nodes(nodes, &mut |visit| match visit {
                Visit::Include(names) => {
                    out.extend(
                        names
                            .iter()
                            .filter(|n| tera.templates.contains_key(*n))
                            .map(|n| Callee::Template(n.clone())),
                    );
                }
                Visit::Expr(e) => visit_macro_calls(e, &mut |call| out.extend(resolve(call))),
            });
            out
        };
        let mut own = callees(&template.ast);
        if let Some(parent) = &template.parent {
            own.insert(Callee::Template(parent.clone()));
        }
        edges.insert(Callee::Template(name.clone()), own);
        for (macro_name, m) in &template.macros {
            let mut calls = callees(&m.body);
            for default in m.args.values().flatten() {
                visit_macro_calls(default, &mut |call| calls.extend(resolve(call)));
            }
            edges.insert(Callee::Macro(name.clone(), macro_name.clone()), calls);
        }
    }
    // Depth-first without recursion (a template may define thousands of macros): the longest
    // chain below each node, a cycle as soon as a node is met on its own path.
    let mut longest: BTreeMap<Callee, usize> = BTreeMap::new();
    let mut on_path: BTreeSet<Callee> = BTreeSet::new();
    let starts: Vec<Callee> = edges.keys().cloned().collect();
    for start in starts {
        if longest.contains_key(&start) {
            continue;
        }
        let mut stack: Vec<(Callee, Vec<Callee>)> = Vec::new();
        let children = |c: &Callee| -> Vec<Callee> {
            edges
                .get(c)
                .map(|s| s.iter().cloned().collect())
                .unwrap_or_default()
        };
        stack.push((start.clone(), children(&start)));
        on_path.insert(start.clone());
        while let Some((node, pending)) = stack.last_mut() {
            if let Some(next) = pending.pop() {
                if on_path.contains(&next) {
                    let mut chain: Vec<String> = stack
                        .iter()
                        .skip_while(|(n, _)| *n != next)
                        .map(|(n, _)| describe(n))
                        .collect();
                    chain.push(describe(&next));
                    let first = match &next {
                        Callee::Template(t) => t.clone(),
                        Callee::Macro(f, _) => f.clone(),
                    };
                    return Err((
                        first,
                        SourceError::whole(format!(
                            "{} calls itself ({}); readout templates may not recurse",
                            describe(&next),
                            chain.join(" → ")
                        )),
                    ));
                }
                if longest.contains_key(&next) {
                    continue;
                }
                let grandchildren = children(&next);
                on_path.insert(next.clone());
                stack.push((next, grandchildren));
            } else {
                let node = node.clone();
                let depth = children(&node)
                    .iter()
                    .map(|c| longest.get(c).copied().unwrap_or(0) + 1)
                    .max()
                    .unwrap_or(0);
                if depth > MAX_CALL_DEPTH {
                    let first = match &node {
                        Callee::Template(t) => t.clone(),
                        Callee::Macro(f, _) => f.clone(),
                    };
                    return Err((
                        first,
                        SourceError::whole(format!(
                            "{} starts a chain of more than {MAX_CALL_DEPTH} macro calls and \
                             includes; the limit is {MAX_CALL_DEPTH}",
                            describe(&node)
                        )),
                    ));
                }
                longest.insert(node.clone(), depth);
                on_path.remove(&node);
                stack.pop();
            }
        }
    }
    Ok(())
}

/// What the walk over a template's nodes meets.
enum Visit<'a> {
    /// `{% include %}` of these names.
    Include(&'a [String]),
    /// An expression (each once, outermost).
    Expr(&'a Expr),
}

/// Visits every include and outermost expression of `nodes`, including those inside macro
/// definitions' argument defaults only when the caller asks (here: not; macros are their own
/// nodes in [`check_calls`]).
fn visit_nodes<'a>(nodes: &'a [Node], f: &mut impl FnMut(Visit<'a>)) {
    for node in nodes {
        match node {
            Node::VariableBlock(_, e) => f(Visit::Expr(e)),
            Node::Set(_, s) => f(Visit::Expr(&s.value)),
            Node::Include(_, names, _) => f(Visit::Include(names)),
            Node::FilterSection(_, fs, _) => {
                for e in fs.filter.args.values() {
                    f(Visit::Expr(e));
                }
                visit_nodes(&fs.body, f);
            }
            Node::Block(_, b, _) => visit_nodes(&b.body, f),
            Node::Forloop(_, l, _) => {
                f(Visit::Expr(&l.container));
                visit_nodes(&l.body, f);
                if let Some(empty) = &l.empty_body {
                    visit_nodes(empty, f);
                }
            }
            Node::If(i, _) => {
                for (_, e, body) in &i.conditions {
                    f(Visit::Expr(e));
                    visit_nodes(body, f);
                }
                if let Some((_, body)) = &i.otherwise {
                    visit_nodes(body, f);
                }
            }
            // Macro bodies are walked as macros of their own.
            Node::MacroDefinition(..) => {}
            _ => {}
        }
    }
}

/// Every expression of `nodes` and of the macros defined in them.
fn visit_exprs<'a>(nodes: &'a [Node], f: &mut impl FnMut(&'a Expr)) {
    visit_nodes(nodes, &mut |v| {
        if let Visit::Expr(e) = v {
            f(e)
        }
    });
    for node in nodes {
        if let Node::MacroDefinition(_, m, _) = node {
            for e in m.args.values().flatten() {
                f(e);
            }
            visit_exprs(&m.body, f);
        }
    }
}

/// The direct sub-expressions of `e`: operands, arguments, elements, filter arguments.
fn children(e: &Expr) -> Vec<&Expr> {
    let mut out: Vec<&Expr> = Vec::new();
    match &e.val {
        ExprVal::Math(m) => out.extend([&*m.lhs, &*m.rhs]),
        ExprVal::Logic(l) => out.extend([&*l.lhs, &*l.rhs]),
        ExprVal::In(i) => out.extend([&*i.lhs, &*i.rhs]),
        ExprVal::Test(t) => out.extend(t.args.iter()),
        ExprVal::MacroCall(m) => out.extend(m.args.values()),
        ExprVal::FunctionCall(c) => out.extend(c.args.values()),
        ExprVal::Array(a) => out.extend(a.iter()),
        _ => {}
    }
    for filter in &e.filters {
        out.extend(filter.args.values());
    }
    out
}

/// Values in an expression: each literal, name, call and operand, and every part of `a ~ b`.
fn count_values(e: &Expr) -> usize {
    let own = match &e.val {
        ExprVal::StringConcat(c) => c.values.len(),
        _ => 1,
    };
    own + children(e).into_iter().map(count_values).sum::<usize>()
}

/// Calls `f` for every macro call in `e`.
fn visit_macro_calls<'a>(e: &'a Expr, f: &mut impl FnMut(&'a MacroCall)) {
    if let ExprVal::MacroCall(m) = &e.val {
        f(m);
    }
    for c in children(e) {
        visit_macro_calls(c, f);
    }
}

fn call(name: &str, args: HashMap<String, Expr>) -> ExprVal {
    ExprVal::FunctionCall(FunctionCall {
        name: name.to_string(),
        args,
    })
}

fn is_call(e: &Expr, name: &str) -> bool {
    matches!(&e.val, ExprVal::FunctionCall(c) if c.name == name)
}

fn tick() -> Node {
    Node::VariableBlock(WS::default(), Expr::new(call(TICK, HashMap::new())))
}

fn instrument_macro(m: &mut tera::ast::MacroDefinition) {
    for e in m.args.values_mut().flatten() {
        instrument_expr(e);
    }
    instrument(&mut m.body, true);
}

/// Rewrites `nodes` in place: a step first when `counted` (loop and macro bodies), every
/// `~` through the size-checked concatenation, every `set` value through the size check.
fn instrument(nodes: &mut Vec<Node>, counted: bool) {
    let ticked = matches!(nodes.first(), Some(Node::VariableBlock(_, e)) if is_call(e, TICK));
    if counted && !ticked {
        nodes.insert(0, tick());
    }
    for node in nodes.iter_mut() {
        match node {
            Node::VariableBlock(_, e) => instrument_expr(e),
            Node::Set(_, s) => {
                instrument_expr(&mut s.value);
                if !is_call(&s.value, KEEP) {
                    let value = std::mem::replace(&mut s.value, Expr::new(ExprVal::Bool(false)));
                    s.value = Expr::new(call(KEEP, HashMap::from([("v".to_string(), value)])));
                }
            }
            Node::MacroDefinition(_, m, _) => instrument_macro(m),
            Node::FilterSection(_, fs, _) => {
                for e in fs.filter.args.values_mut() {
                    instrument_expr(e);
                }
                instrument(&mut fs.body, false);
            }
            Node::Block(_, b, _) => instrument(&mut b.body, false),
            Node::Forloop(_, l, _) => {
                instrument_expr(&mut l.container);
                instrument(&mut l.body, true);
                if let Some(empty) = &mut l.empty_body {
                    instrument(empty, false);
                }
            }
            Node::If(i, _) => {
                for (_, e, body) in i.conditions.iter_mut() {
                    instrument_expr(e);
                    instrument(body, false);
                }
                if let Some((_, body)) = &mut i.otherwise {
                    instrument(body, false);
                }
            }
            _ => {}
        }
    }
}

/// Rewrites `a ~ b ~ ...` in `e` (and below) as the size-checked concatenation.
fn instrument_expr(e: &mut Expr) {
    if let ExprVal::StringConcat(c) = &mut e.val {
        let args = std::mem::take(&mut c.values)
            .into_iter()
            .enumerate()
            .map(|(i, v)| (i.to_string(), Expr::new(v)))
            .collect();
        e.val = call(CONCAT, args);
    }
    match &mut e.val {
        ExprVal::Math(m) => {
            instrument_expr(&mut m.lhs);
            instrument_expr(&mut m.rhs);
        }
        ExprVal::Logic(l) => {
            instrument_expr(&mut l.lhs);
            instrument_expr(&mut l.rhs);
        }
        ExprVal::In(i) => {
            instrument_expr(&mut i.lhs);
            instrument_expr(&mut i.rhs);
        }
        ExprVal::Test(t) => t.args.iter_mut().for_each(instrument_expr),
        ExprVal::MacroCall(m) => m.args.values_mut().for_each(instrument_expr),
        ExprVal::FunctionCall(c) => c.args.values_mut().for_each(instrument_expr),
        ExprVal::Array(a) => a.iter_mut().for_each(instrument_expr),
        _ => {}
    }
    for filter in e.filters.iter_mut() {
        filter.args.values_mut().for_each(instrument_expr);
    }
}

/// The state of the render on this thread.
struct Budget {
    steps: u64,
    live_at_start: isize,
    /// The first limit the render ran into.
    exceeded: Option<String>,
}

thread_local! {
    static BUDGET: RefCell<Option<Budget>> = const { RefCell::new(None) };
}

/// Records that a limit was hit (the first one is reported) and returns Tera's error for it.
fn exceeded(message: String) -> tera::Error {
    BUDGET.with(|b| {
        if let Some(budget) = b.borrow_mut().as_mut() {
            budget.exceeded.get_or_insert_with(|| message.clone());
        }
    });
    tera::Error::msg(message)
}

/// The bytes a value takes as text, counted until `limit` is passed.
fn value_size(v: &Value, limit: usize) -> usize {
    let mut total = 0usize;
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        total += match v {
            Value::String(s) => s.len() + 2,
            Value::Array(a) => {
                stack.extend(a.iter());
                2 + a.len()
            }
            Value::Object(o) => {
                for (k, v) in o {
                    total += k.len() + 4;
                    stack.push(v);
                }
                2
            }
            _ => 8,
        };
        if total > limit {
            break;
        }
    }
    total
}

fn check_value(v: &Value, what: &str) -> tera::Result<()> {
    if value_size(v, MAX_VALUE_BYTES) > MAX_VALUE_BYTES {
        return Err(exceeded(value_limit(what)));
    }
    Ok(())
}

fn value_limit(what: &str) -> String {
    format!(
        "{what} would make a value larger than {}, the limit for a value made in a template",
        size(MAX_VALUE_BYTES)
    )
}

/// A step: a loop iteration or a macro call. Counts towards [`MAX_STEPS`] and checks the
/// memory the render holds.
struct Tick;

impl tera::Function for Tick {
    fn call(&self, _: &HashMap<String, Value>) -> tera::Result<Value> {
        let over = BUDGET.with(|b| {
            let mut b = b.borrow_mut();
            let budget = b.as_mut()?;
            budget.steps += 1;
            if budget.steps > MAX_STEPS {
                return Some(format!(
                    "stopped after {} loop iterations and macro calls, the limit for one \
                     document; a loop without end, or loops nested over far too much",
                    thousands(MAX_STEPS)
                ));
            }
            let held = crate::meter::thread_live_bytes() - budget.live_at_start;
            (held > MAX_RENDER_MEMORY as isize).then(|| {
                format!(
                    "stopped holding more than {} of memory, the limit for rendering one \
                     document; a value that grows in a loop",
                    size(MAX_RENDER_MEMORY)
                )
            })
        });
        match over {
            Some(message) => Err(exceeded(message)),
            None => Ok(Value::String(String::new())),
        }
    }
}

/// `a ~ b ~ ...`, as Tera makes it, after checking the length of the result.
struct Concat;

impl tera::Function for Concat {
    fn call(&self, args: &HashMap<String, Value>) -> tera::Result<Value> {
        let mut parts: Vec<(usize, &Value)> = args
            .iter()
            .filter_map(|(k, v)| k.parse::<usize>().ok().map(|i| (i, v)))
            .collect();
        parts.sort_by_key(|(i, _)| *i);
        let mut texts = Vec::with_capacity(parts.len());
        for (_, v) in parts {
            texts.push(match v {
                Value::String(s) => std::borrow::Cow::Borrowed(s.as_str()),
                Value::Number(n) => std::borrow::Cow::Owned(n.to_string()),
                other => {
                    return Err(tera::Error::msg(format!(
                        "Tried to concat a value that is not a string or a number: {other}"
                    )))
                }
            });
        }
        let total: usize = texts.iter().map(|t| t.len()).sum();
        if total > MAX_VALUE_BYTES {
            return Err(exceeded(value_limit("`~`")));
        }
        Ok(Value::String(texts.concat()))
    }
}

/// The value of a `set`, kept only when it is within [`MAX_VALUE_BYTES`].
struct Keep;

impl tera::Function for Keep {
    fn call(&self, args: &HashMap<String, Value>) -> tera::Result<Value> {
        let value = args.get("v").cloned().unwrap_or(Value::Null);
        check_value(&value, "`set`")?;
        Ok(value)
    }
}

/// Tera's `range`, refusing more than [`MAX_RANGE`] numbers (Tera's own allocated them all
/// and aborted the process at 10^10) and a step of 0 (which panicked).
struct BoundedRange(Arc<dyn tera::Function>);

impl tera::Function for BoundedRange {
    fn call(&self, args: &HashMap<String, Value>) -> tera::Result<Value> {
        let number = |key: &str, default: u64| args.get(key).map_or(Some(default), Value::as_u64);
        if let (Some(start), Some(end), Some(step)) = (
            number("start", 0),
            args.get("end").and_then(Value::as_u64),
            number("step_by", 1),
        ) {
            if step == 0 {
                return Err(tera::Error::msg(
                    "`range` with step_by=0 never ends; expected a step of 1 or more",
                ));
            }
            let count = end.saturating_sub(start).div_ceil(step);
            if count > MAX_RANGE as u64 {
                return Err(exceeded(format!(
                    "`range` of {} numbers; the limit is {}",
                    thousands(count),
                    thousands(MAX_RANGE as u64)
                )));
            }
        }
        self.0.call(args)
    }

    fn is_safe(&self) -> bool {
        self.0.is_safe()
    }
}

/// A filter with size checks: before it runs when its result can be many times its input,
/// and on every result.
struct Guarded {
    name: String,
    inner: Arc<dyn tera::Filter>,
}

fn str_arg<'a>(args: &'a HashMap<String, Value>, key: &str) -> Option<&'a str> {
    args.get(key).and_then(Value::as_str)
}

impl Guarded {
    /// The size of the result, where it can be known cheaply before the filter runs and may
    /// be far larger than the input.
    fn planned(&self, value: &Value, args: &HashMap<String, Value>) -> Option<usize> {
        let text = value.as_str();
        match self.name.as_str() {
            "replace" => {
                let (text, from, to) = (text?, str_arg(args, "from")?, str_arg(args, "to")?);
                let matches = if from.is_empty() {
                    text.chars().count() + 1
                } else {
                    memchr::memmem::find_iter(text.as_bytes(), from.as_bytes()).count()
                };
                Some(text.len() + matches.saturating_mul(to.len()))
            }
            "indent" => {
                let prefix = str_arg(args, "prefix").map_or(4, str::len);
                let text = text?;
                Some(text.len() + (count_lines(text.as_bytes()) + 1).saturating_mul(prefix))
            }
            "linebreaksbr" => {
                let text = text?;
                Some(text.len() + count_lines(text.as_bytes()).saturating_mul(5))
            }
            "join" => {
                let items = value.as_array()?;
                let sep = str_arg(args, "sep").map_or(0, str::len);
                let parts: usize = items
                    .iter()
                    .map(|v| value_size(v, MAX_VALUE_BYTES))
                    .fold(0, usize::saturating_add);
                Some(parts.saturating_add(items.len().saturating_mul(sep)))
            }
            "concat" => {
                let with = args.get("with")?;
                Some(
                    value_size(value, MAX_VALUE_BYTES)
                        .saturating_add(value_size(with, MAX_VALUE_BYTES)),
                )
            }
            _ => None,
        }
    }
}

impl tera::Filter for Guarded {
    fn filter(&self, value: &Value, args: &HashMap<String, Value>) -> tera::Result<Value> {
        let what = format!("the filter `{}`", self.name);
        if let Some(planned) = self.planned(value, args) {
            if planned > MAX_VALUE_BYTES {
                return Err(exceeded(value_limit(&what)));
            }
        }
        if self.name == "split" {
            if let (Some(text), Some(pat)) = (value.as_str(), str_arg(args, "pat")) {
                let pieces = if pat.is_empty() {
                    text.chars().count() + 2
                } else {
                    memchr::memmem::find_iter(text.as_bytes(), pat.as_bytes()).count() + 1
                };
                if pieces > MAX_RANGE {
                    return Err(exceeded(format!(
                        "the filter `split` would make {} pieces; the limit is {}",
                        thousands(pieces as u64),
                        thousands(MAX_RANGE as u64)
                    )));
                }
            }
        }
        let result = self.inner.filter(value, args)?;
        check_value(&result, &what)?;
        Ok(result)
    }

    fn is_safe(&self) -> bool {
        self.inner.is_safe()
    }
}

/// Why a render failed.
#[derive(Debug)]
pub enum RenderFailure {
    /// Tera's error (a missing variable, a failed filter, ...).
    Tera(tera::Error),
    /// A sandbox limit, in words.
    Limit(String),
}

/// A document in memory that refuses to grow past its limit.
struct Capped {
    bytes: Vec<u8>,
    limit: usize,
}

impl std::io::Write for Capped {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.bytes.len() + buf.len() > self.limit {
            let message = format!(
                "stopped at {}, the limit for one document (beyond the figures it is given)",
                size(MAX_DOCUMENT_BYTES)
            );
            let _ = exceeded(message.clone());
            return Err(std::io::Error::other(message));
        }
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Renders template `name` of a [`secure`]d instance within the limits; the document may be
/// `given` bytes longer than [`MAX_DOCUMENT_BYTES`] (what the context hands the template to
/// print whole: figures, a rendered body).
pub fn render(
    tera: &Tera,
    name: &str,
    context: &Context,
    given: usize,
) -> Result<String, RenderFailure> {
    /// Clears the budget however the render ends.
    struct Scope;
    impl Drop for Scope {
        fn drop(&mut self) {
            BUDGET.with(|b| *b.borrow_mut() = None);
        }
    }
    BUDGET.with(|b| {
        *b.borrow_mut() = Some(Budget {
            steps: 0,
            live_at_start: crate::meter::thread_live_bytes(),
            exceeded: None,
        })
    });
    let _scope = Scope;
    let mut out = Capped {
        bytes: Vec::new(),
        limit: MAX_DOCUMENT_BYTES.saturating_add(given),
    };
    let result = tera.render_to(name, context, &mut out);
    let limit = BUDGET.with(|b| b.borrow_mut().as_mut().and_then(|b| b.exceeded.take()));
    match (result, limit) {
        (Err(_), Some(limit)) => Err(RenderFailure::Limit(limit)),
        (Err(e), None) => Err(RenderFailure::Tera(e)),
        // Tera writes only what templates and filters return: UTF-8.
        (Ok(()), _) => String::from_utf8(out.bytes)
            .map_err(|_| RenderFailure::Limit("the document is not UTF-8".to_string())),
    }
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
