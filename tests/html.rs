//! Reading the HTML documents as a browser does (html5ever's tree builder) and finding elements
//! by the few CSS selectors the tests need: `tag`, `#id`, `.class` and their compounds, joined by
//! descendant spaces, alternatives by commas.

use html5ever::tendril::TendrilSink;
use markup5ever_rcdom::{Handle, NodeData, RcDom};

pub(crate) struct Html {
    dom: RcDom,
}

impl Html {
    /// The document as parsed by the HTML5 algorithm, parse errors kept in `errors()`.
    pub(crate) fn parse(html: &str) -> Html {
        let dom = html5ever::parse_document(RcDom::default(), Default::default()).one(html);
        Html { dom }
    }

    pub(crate) fn errors(&self) -> Vec<String> {
        self.dom
            .errors
            .borrow()
            .iter()
            .map(|e| e.to_string())
            .collect()
    }

    /// Every element in document order, template contents included.
    pub(crate) fn elements(&self) -> Vec<Handle> {
        let mut out = Vec::new();
        walk(&self.dom.document, &mut out);
        out
    }

    /// The elements matching `css`, in document order.
    pub(crate) fn select(&self, css: &str) -> Vec<Handle> {
        select_in(&self.dom.document, css)
    }
}

/// The elements under `node` matching `css` (not `node` itself), in document order.
pub(crate) fn select_in(node: &Handle, css: &str) -> Vec<Handle> {
    let alternatives = parse_selector(css);
    let mut all = Vec::new();
    for child in node.children.borrow().iter() {
        walk(child, &mut all);
    }
    all.into_iter()
        .filter(|e| {
            alternatives
                .iter()
                .any(|chain| matches_chain(e, chain, node))
        })
        .collect()
}

/// The text of an element and all its descendants, joined without separators.
pub(crate) fn text(node: &Handle) -> String {
    let mut out = String::new();
    collect_text(node, &mut out);
    out
}

/// An attribute's value by its local name (`href` also finds `xlink:href`).
pub(crate) fn attr(node: &Handle, name: &str) -> Option<String> {
    attrs(node)
        .into_iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v)
}

/// Every attribute of an element as (local name, value), character references decoded.
pub(crate) fn attrs(node: &Handle) -> Vec<(String, String)> {
    match &node.data {
        NodeData::Element { attrs, .. } => attrs
            .borrow()
            .iter()
            .map(|a| (a.name.local.to_string(), a.value.to_string()))
            .collect(),
        _ => Vec::new(),
    }
}

fn walk(node: &Handle, out: &mut Vec<Handle>) {
    if let NodeData::Element {
        template_contents, ..
    } = &node.data
    {
        out.push(node.clone());
        if let Some(contents) = template_contents.borrow().as_ref() {
            walk(contents, out);
        }
    }
    for child in node.children.borrow().iter() {
        walk(child, out);
    }
}

fn collect_text(node: &Handle, out: &mut String) {
    if let NodeData::Text { contents } = &node.data {
        out.push_str(&contents.borrow());
    }
    for child in node.children.borrow().iter() {
        collect_text(child, out);
    }
}

/// One compound selector: an optional tag name, ids and classes, all of which must hold.
#[derive(Debug, Default)]
struct Compound {
    tag: Option<String>,
    id: Option<String>,
    classes: Vec<String>,
}

fn parse_selector(css: &str) -> Vec<Vec<Compound>> {
    css.split(',')
        .map(|chain| {
            chain
                .split_whitespace()
                .map(parse_compound)
                .collect::<Vec<_>>()
        })
        .inspect(|chain| assert!(!chain.is_empty(), "empty selector in `{css}`"))
        .collect()
}

fn parse_compound(part: &str) -> Compound {
    let mut compound = Compound::default();
    // Split before every `#` or `.`, keeping the marker with its name.
    let mut pieces = Vec::new();
    let mut start = 0;
    for (i, c) in part.char_indices() {
        if (c == '#' || c == '.') && i > start {
            pieces.push(&part[start..i]);
            start = i;
        }
    }
    pieces.push(&part[start..]);
    for piece in pieces {
        assert!(
            piece
                .trim_start_matches(['#', '.'])
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
                && piece.len() > usize::from(piece.starts_with(['#', '.'])),
            "unsupported selector `{part}`"
        );
        if let Some(id) = piece.strip_prefix('#') {
            compound.id = Some(id.to_string());
        } else if let Some(class) = piece.strip_prefix('.') {
            compound.classes.push(class.to_string());
        } else {
            compound.tag = Some(piece.to_ascii_lowercase());
        }
    }
    compound
}

fn matches_compound(node: &Handle, compound: &Compound) -> bool {
    let NodeData::Element { name, .. } = &node.data else {
        return false;
    };
    if compound.tag.as_deref().is_some_and(|t| *name.local != *t) {
        return false;
    }
    if let Some(id) = &compound.id {
        if attr(node, "id").as_deref() != Some(id.as_str()) {
            return false;
        }
    }
    let classes = attr(node, "class").unwrap_or_default();
    compound
        .classes
        .iter()
        .all(|c| classes.split_ascii_whitespace().any(|have| have == c))
}

fn parent(node: &Handle) -> Option<Handle> {
    let weak = node.parent.take();
    let parent = weak.as_ref().and_then(|w| w.upgrade());
    node.parent.set(weak);
    parent
}

/// The last compound matches `node` and the others match ancestors in order, right to left,
/// below `scope`.
fn matches_chain(node: &Handle, chain: &[Compound], scope: &Handle) -> bool {
    let Some((last, rest)) = chain.split_last() else {
        return true;
    };
    if !matches_compound(node, last) {
        return false;
    }
    let mut ancestor = parent(node);
    let mut rest = rest;
    while let Some((wanted, before)) = rest.split_last() {
        match ancestor {
            Some(a) if std::rc::Rc::ptr_eq(scope, &a) => return false,
            Some(a) => {
                if matches_compound(&a, wanted) {
                    rest = before;
                }
                ancestor = parent(&a);
            }
            None => return false,
        }
    }
    true
}

#[test]
fn selectors_find_what_a_browser_would() {
    let doc = Html::parse(
        "<!DOCTYPE html><html><head><title>t</title></head><body>\
         <section id=\"safety\"><table class=\"terms wide\"><tbody>\
         <tr><td>A &amp; B</td><td>1</td></tr><tr><td>C</td></tr></tbody></table></section>\
         <table><tr><th>x</th></tr></table>\
         <svg><a xlink:href=\"javascript:1\">s</a></svg>\
         <template><a href=\"data:x\">t</a></template></body></html>",
    );
    assert!(doc.errors().is_empty(), "{:?}", doc.errors());
    let rows: Vec<String> = doc
        .select("#safety table.terms tbody tr")
        .iter()
        .map(text)
        .collect();
    assert_eq!(rows, ["A & B1", "C"]);
    assert_eq!(doc.select("table").len(), 2);
    assert_eq!(doc.select("table.wide, th").len(), 2);
    assert_eq!(doc.select("section table.other").len(), 0);
    let first = &doc.select("table")[0];
    let cells: Vec<String> = select_in(first, "tr td").iter().map(text).collect();
    assert_eq!(cells, ["A & B", "1", "C"]);
    // `section` is outside the scope, so it cannot satisfy the chain.
    assert!(select_in(first, "section td").is_empty());
    let links: Vec<Option<String>> = doc.select("a").iter().map(|a| attr(a, "href")).collect();
    assert_eq!(
        links,
        [Some("javascript:1".to_string()), Some("data:x".to_string())]
    );
    let broken = Html::parse("<!DOCTYPE html><p><table></p>");
    assert!(!broken.errors().is_empty());
}
