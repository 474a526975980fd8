use super::*;
use crate::documents::render::{add_templates, builtin_sources, TemplateSource, BUILTIN_TEMPLATES};

/// Writes the encoding [`Reader`] reads (development time only: the file is made by the test
/// below).
#[derive(Default)]
struct Writer(Vec<u8>);

impl Writer {
    fn u32(&mut self, n: usize) {
        self.0
            .extend_from_slice(&u32::try_from(n).expect("fits").to_le_bytes());
    }

    fn bool(&mut self, b: bool) {
        self.0.push(u8::from(b));
    }

    fn string(&mut self, s: &str) {
        self.u32(s.len());
        self.0.extend_from_slice(s.as_bytes());
    }

    fn ws(&mut self, ws: &WS) {
        self.0.push(u8::from(ws.left) | u8::from(ws.right) << 1);
    }

    /// What [`Reader::option`] reads.
    fn option<T>(
        &mut self,
        value: Option<&T>,
        f: impl FnOnce(&mut Self, &T) -> Option<()>,
    ) -> Option<()> {
        self.bool(value.is_some());
        value.map_or(Some(()), |v| f(self, v))
    }

    /// What [`Reader::list`] reads.
    fn list<T>(
        &mut self,
        items: &[T],
        mut f: impl FnMut(&mut Self, &T) -> Option<()>,
    ) -> Option<()> {
        self.u32(items.len());
        items.iter().try_for_each(|item| f(self, item))
    }

    fn nodes(&mut self, nodes: &[Node]) -> Option<()> {
        self.list(nodes, Self::node)
    }

    fn node(&mut self, node: &Node) -> Option<()> {
        match node {
            Node::Text(s) => {
                self.0.push(0);
                self.string(s);
            }
            Node::VariableBlock(ws, e) => {
                self.0.push(1);
                self.ws(ws);
                self.expr(e)?;
            }
            Node::Include(ws, names, ignore_missing) => {
                self.0.push(2);
                self.ws(ws);
                self.list(names, |w, n| {
                    w.string(n);
                    Some(())
                })?;
                self.bool(*ignore_missing);
            }
            Node::Set(ws, set) => {
                self.0.push(3);
                self.ws(ws);
                self.string(&set.key);
                self.expr(&set.value)?;
                self.bool(set.global);
            }
            Node::Raw(start, text, end) => {
                self.0.push(4);
                self.ws(start);
                self.string(text);
                self.ws(end);
            }
            Node::FilterSection(start, section, end) => {
                self.0.push(5);
                self.ws(start);
                self.call(&section.filter)?;
                self.nodes(&section.body)?;
                self.ws(end);
            }
            Node::Forloop(start, f, end) => {
                self.0.push(6);
                self.ws(start);
                self.option(f.key.as_ref(), |w, key| {
                    w.string(key);
                    Some(())
                })?;
                self.string(&f.value);
                self.expr(&f.container)?;
                self.nodes(&f.body)?;
                self.option(f.empty_body.as_ref(), |w, body| w.nodes(body))?;
                self.ws(end);
            }
            Node::If(i, end) => {
                self.0.push(7);
                self.list(&i.conditions, |w, (ws, e, body)| {
                    w.ws(ws);
                    w.expr(e)?;
                    w.nodes(body)
                })?;
                self.option(i.otherwise.as_ref(), |w, (ws, body)| {
                    w.ws(ws);
                    w.nodes(body)
                })?;
                self.ws(end);
            }
            Node::Break(ws) => {
                self.0.push(8);
                self.ws(ws);
            }
            Node::Continue(ws) => {
                self.0.push(9);
                self.ws(ws);
            }
            Node::Comment(ws, text) => {
                self.0.push(10);
                self.ws(ws);
                self.string(text);
            }
            // Blocks, macros and inheritance need more of Tera's template than its tree.
            Node::Super
            | Node::MacroDefinition(..)
            | Node::Extends(..)
            | Node::ImportMacro(..)
            | Node::Block(..) => return None,
        }
        Some(())
    }

    fn expr(&mut self, e: &Expr) -> Option<()> {
        self.value(&e.val)?;
        self.bool(e.negated);
        self.list(&e.filters, Self::call)
    }

    /// Arguments in the order of their names, so the file is the same from run to run.
    fn args(&mut self, args: &HashMap<String, Expr>) -> Option<()> {
        let mut sorted: Vec<_> = args.iter().collect();
        sorted.sort_by_key(|(name, _)| name.as_str());
        self.list(&sorted, |w, (name, e)| {
            w.string(name);
            w.expr(e)
        })
    }

    fn call(&mut self, f: &FunctionCall) -> Option<()> {
        self.string(&f.name);
        self.args(&f.args)
    }

    fn value(&mut self, v: &ExprVal) -> Option<()> {
        match v {
            ExprVal::String(s) => {
                self.0.push(0);
                self.string(s);
            }
            ExprVal::Int(i) => {
                self.0.push(1);
                self.0.extend_from_slice(&i.to_le_bytes());
            }
            ExprVal::Float(f) => {
                self.0.push(2);
                self.0.extend_from_slice(&f.to_bits().to_le_bytes());
            }
            ExprVal::Bool(b) => {
                self.0.push(3);
                self.bool(*b);
            }
            ExprVal::Ident(s) => {
                self.0.push(4);
                self.string(s);
            }
            ExprVal::Math(m) => {
                self.0.push(5);
                self.expr(&m.lhs)?;
                self.expr(&m.rhs)?;
                self.0
                    .push(MATH.iter().position(|o| *o == m.operator)? as u8);
            }
            ExprVal::Logic(l) => {
                self.0.push(6);
                self.expr(&l.lhs)?;
                self.expr(&l.rhs)?;
                self.0
                    .push(LOGIC.iter().position(|o| *o == l.operator)? as u8);
            }
            ExprVal::Test(t) => {
                self.0.push(7);
                self.string(&t.ident);
                self.bool(t.negated);
                self.string(&t.name);
                self.list(&t.args, Self::expr)?;
            }
            ExprVal::MacroCall(m) => {
                self.0.push(8);
                self.string(&m.namespace);
                self.string(&m.name);
                self.args(&m.args)?;
            }
            ExprVal::FunctionCall(f) => {
                self.0.push(9);
                self.call(f)?;
            }
            ExprVal::Array(items) => {
                self.0.push(10);
                self.list(items, Self::expr)?;
            }
            ExprVal::StringConcat(c) => {
                self.0.push(11);
                self.list(&c.values, Self::value)?;
            }
            ExprVal::In(i) => {
                self.0.push(12);
                self.expr(&i.lhs)?;
                self.expr(&i.rhs)?;
                self.bool(i.negated);
            }
        }
        Some(())
    }
}

/// The file for `templates` (name, text): each one Tera parses and whose tree can be encoded.
fn encode_all(templates: &[(&str, &str)]) -> Vec<u8> {
    let mut entries = Vec::new();
    for (name, text) in templates {
        let parsed = tera::Template::new(name, None, text).expect("the template parses");
        let mut body = Writer::default();
        if body.nodes(&parsed.ast).is_some() {
            entries.push((name, text_hash(text), body.0));
        }
    }
    let mut file = Writer(MAGIC.to_vec());
    file.u32(entries.len());
    for (name, hash, body) in entries {
        file.string(name);
        file.0.extend_from_slice(&hash.to_le_bytes());
        file.u32(body.len());
        file.0.extend_from_slice(&body);
    }
    file.0
}

/// Tera's tree of `text`, as `Template::new` leaves it.
fn parsed(name: &str, text: &str) -> Vec<Node> {
    tera::Template::new(name, None, text)
        .expect("the template parses")
        .ast
}

#[test]
fn every_built_in_is_read_as_tera_parses_it() {
    let current = encode_all(BUILTIN_TEMPLATES);
    if current != ENCODED {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/src/documents/render/builtin-templates.ast"
        );
        if std::env::var_os("READOUT_BLESS_GOLDEN").is_some() {
            std::fs::write(path, &current).expect("write the encoded templates");
        }
        panic!(
            "{path} is not the built-in templates' trees (a template changed?): \
             `READOUT_BLESS_GOLDEN=1 cargo test --release ahead` writes it again"
        );
    }
    for (name, text) in BUILTIN_TEMPLATES {
        let read = template(name, text).unwrap_or_else(|| panic!("{name} is not encoded"));
        assert_eq!(read.ast, parsed(name, text), "{name}");
        assert_eq!(read.name, *name);
    }
}

#[test]
fn every_kind_of_node_and_value_reads_back() {
    let text = r#"Text {#- a comment -#} {{ a.b | f(x=1, y="s") | g }}{%- set x = -1.5 * (2 + n) / 4 % 3 - k -%}
{% set_global y = [1, "two", true, false, a ~ "b" ~ c] %}{% raw %}{{ not parsed }}{% endraw %}
{% filter upper(n=2) %}in {{ x }}{% endfilter %}{% for k, v in map | items %}{% if loop.first %}{% break %}{% elif v is divisibleby(3) and not v is odd %}{% continue %}{% else %}{{ k }}{% endif %}{% else %}empty{% endfor %}
{% for v in [1, 2] %}{{ v }}{% endfor %}{% include "a.txt" %}{% include ["b.txt", "c.txt"] ignore missing %}
{{ x in [1] }}{{ "s" not in y }}{{ f(a=not b, c=d >= e or e < f and g != h and g == i and j > k and l <= m) }}{{ m::call(n=1) }}{{ -3 }}"#;
    let encoded = encode_all(&[("kinds.txt", text)]);
    let read = tree(&encoded, "kinds.txt", text).expect("encoded");
    assert_eq!(read, parsed("kinds.txt", text));
    // Every tag of the encoding appears.
    let debug = format!("{read:?}");
    for kind in [
        "Text(",
        "VariableBlock(",
        "Include(",
        "Set(",
        "Raw(",
        "FilterSection(",
        "Forloop(",
        "If(",
        "Break(",
        "Continue(",
        "Comment(",
        "String(",
        "Int(",
        "Float(",
        "Bool(",
        "Ident(",
        "Math(",
        "Logic(",
        "Test(",
        "MacroCall(",
        "FunctionCall(",
        "Array(",
        "StringConcat(",
        "In(",
        "Modulo",
        "NotEq",
        "Gte",
        "Lte",
    ] {
        assert!(debug.contains(kind), "{kind} missing from {debug}");
    }
}

#[test]
fn other_text_or_structure_is_left_to_tera() {
    let (name, text) = BUILTIN_TEMPLATES[0];
    assert!(template(name, text).is_some());
    assert!(template(name, &format!("{text} ")).is_none());
    assert!(template("other.txt", text).is_none());
    // A template with a macro or a parent is not encoded.
    let macros = "{% macro m(a) %}{{ a }}{% endmacro m %}";
    let child = r#"{% extends "base.html" %}{% block b %}x{% endblock b %}"#;
    let encoded = encode_all(&[
        ("m.txt", macros),
        ("base.html", "{% block b %}{% endblock b %}"),
        ("c.html", child),
    ]);
    assert!(tree(&encoded, "m.txt", macros).is_none());
    assert!(tree(&encoded, "c.html", child).is_none());
}

#[test]
fn a_damaged_file_is_refused_never_a_panic() {
    let (name, text) = BUILTIN_TEMPLATES
        .iter()
        .find(|(n, _)| *n == "abstract-results.txt")
        .expect("a built-in");
    let encoded = encode_all(&[(name, text)]);
    assert!(tree(&encoded, name, text).is_some());
    // Cut anywhere: refused.
    for len in (0..encoded.len()).step_by(97) {
        assert_eq!(tree(&encoded[..len], name, text), None, "cut at {len}");
    }
    // The magic, the entry's name or its text's hash changed: refused.
    let hash_at = MAGIC.len() + 4 + 4 + name.len();
    for i in (0..MAGIC.len()).chain(MAGIC.len() + 8..hash_at + 8) {
        let mut damaged = encoded.clone();
        damaged[i] ^= 0x20;
        assert_eq!(tree(&damaged, name, text), None, "byte {i} changed");
    }
    // Any byte changed: read as some tree or refused, never a panic.
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    for _ in 0..2_000 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let mut damaged = encoded.clone();
        let i = (state >> 8) as usize % damaged.len();
        damaged[i] ^= 1 << (state % 8);
        let _ = tree(&damaged, name, text);
    }
}

#[test]
fn the_built_ins_are_added_without_parsing_and_others_parsed() {
    let mut sources = builtin_sources(&[]);
    let mut tera = tera::Tera::default();
    assert_eq!(add_templates(&mut tera, &sources).expect("added"), 0);
    assert_eq!(tera.templates.len(), BUILTIN_TEMPLATES.len());
    sources.get_mut("abstract.md").expect("built-in").text = "Mine {{ cohort.id }}".into();
    sources.insert(
        "extra.txt".into(),
        TemplateSource {
            path: None,
            text: r#"{% include "abstract.md" %}"#.into(),
        },
    );
    let mut tera = tera::Tera::default();
    assert_eq!(add_templates(&mut tera, &sources).expect("added"), 2);
    assert_eq!(
        tera.templates["abstract.md"].ast,
        parsed("abstract.md", "Mine {{ cohort.id }}")
    );
}
