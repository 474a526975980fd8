//! The built-in templates parsed ahead: their Tera syntax trees, encoded once at development
//! time into `builtin-templates.ast` beside this file, so a build does not parse them again
//! (parsing was 6% of the example build's CPU; docs/PERFORMANCE.md, item 52).
//!
//! Each entry names a built-in and carries a hash of the text it was made from: a template
//! whose text is not the built-in's (a user's file of other text), or a built-in edited since
//! the file was made, is parsed by Tera as before. A test compares every decoded tree with
//! Tera's parse of the built-in's text and rewrites the file when `READOUT_BLESS_GOLDEN` is
//! set. Templates with blocks, macros or `extends` are not encoded (none of the built-ins has
//! them), so a template here needs nothing of Tera's but its tree.

use std::collections::HashMap;

use tera::ast::{
    Expr, ExprVal, FilterSection, Forloop, FunctionCall, If, In, LogicExpr, LogicOperator,
    MacroCall, MathExpr, MathOperator, Node, Set, StringConcat, Test, WS,
};

/// The encoded trees of the built-in templates.
const ENCODED: &[u8] = include_bytes!("builtin-templates.ast");

/// The first bytes of the file, with the encoding's version.
const MAGIC: &[u8] = b"readout templates 1\n";

/// FNV-1a of a template's text: tells the text an entry was made from.
fn text_hash(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The tree of built-in `name` when `text` is that built-in's text and the one it was encoded
/// from (else `None`, and the caller parses `text`), ready for Tera as `Template::new` would
/// make it.
pub(super) fn template(name: &str, text: &str) -> Option<tera::Template> {
    // The text itself compared (a user's file of the same name may hold anything), then the
    // encoded entry's hash (the file may predate an edit of the built-in).
    if !super::BUILTIN_TEMPLATES.contains(&(name, text)) {
        return None;
    }
    let ast = tree(ENCODED, name, text)?;
    Some(tera::Template {
        name: name.to_string(),
        path: None,
        ast,
        from_extend: false,
        macros: HashMap::new(),
        imported_macro_files: Vec::new(),
        parent: None,
        blocks: HashMap::new(),
        parents: Vec::new(),
        blocks_definitions: HashMap::new(),
    })
}

/// The tree `encoded` holds for `name` made from `text`.
fn tree(encoded: &[u8], name: &str, text: &str) -> Option<Vec<Node>> {
    let mut r = Reader(encoded.strip_prefix(MAGIC)?);
    let hash = text_hash(text);
    for _ in 0..r.u32()? {
        let (entry, entry_hash, len) = (r.string()?, r.u64()?, r.u32()? as usize);
        let bytes = r.take(len)?;
        if entry == name && entry_hash == hash {
            let mut body = Reader(bytes);
            let nodes = body.nodes()?;
            return body.0.is_empty().then_some(nodes);
        }
    }
    None
}

/// Reads the encoding; every method gives `None` at malformed or truncated input.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, rest) = self.0.split_at_checked(n)?;
        self.0 = rest;
        Some(head)
    }

    fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    fn bool(&mut self) -> Option<bool> {
        match self.u8()? {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        }
    }

    fn string(&mut self) -> Option<String> {
        let len = self.u32()? as usize;
        String::from_utf8(self.take(len)?.to_vec()).ok()
    }

    fn option<T>(&mut self, f: impl FnOnce(&mut Self) -> Option<T>) -> Option<Option<T>> {
        if self.bool()? {
            f(self).map(Some)
        } else {
            Some(None)
        }
    }

    fn list<T>(&mut self, mut f: impl FnMut(&mut Self) -> Option<T>) -> Option<Vec<T>> {
        let n = self.u32()? as usize;
        // Each item takes at least a byte: a count larger than the rest is malformed.
        if n > self.0.len() {
            return None;
        }
        (0..n).map(|_| f(self)).collect()
    }

    fn ws(&mut self) -> Option<WS> {
        let bits = self.u8()?;
        (bits < 4).then_some(WS {
            left: bits & 1 != 0,
            right: bits & 2 != 0,
        })
    }

    fn nodes(&mut self) -> Option<Vec<Node>> {
        self.list(Self::node)
    }

    fn node(&mut self) -> Option<Node> {
        Some(match self.u8()? {
            0 => Node::Text(self.string()?),
            1 => Node::VariableBlock(self.ws()?, self.expr()?),
            2 => Node::Include(self.ws()?, self.list(Self::string)?, self.bool()?),
            3 => Node::Set(
                self.ws()?,
                Set {
                    key: self.string()?,
                    value: self.expr()?,
                    global: self.bool()?,
                },
            ),
            4 => Node::Raw(self.ws()?, self.string()?, self.ws()?),
            5 => Node::FilterSection(
                self.ws()?,
                FilterSection {
                    filter: self.call()?,
                    body: self.nodes()?,
                },
                self.ws()?,
            ),
            6 => Node::Forloop(
                self.ws()?,
                Forloop {
                    key: self.option(Self::string)?,
                    value: self.string()?,
                    container: self.expr()?,
                    body: self.nodes()?,
                    empty_body: self.option(Self::nodes)?,
                },
                self.ws()?,
            ),
            7 => Node::If(
                If {
                    conditions: self.list(|r| Some((r.ws()?, r.expr()?, r.nodes()?)))?,
                    otherwise: self.option(|r| Some((r.ws()?, r.nodes()?)))?,
                },
                self.ws()?,
            ),
            8 => Node::Break(self.ws()?),
            9 => Node::Continue(self.ws()?),
            10 => Node::Comment(self.ws()?, self.string()?),
            _ => return None,
        })
    }

    fn expr(&mut self) -> Option<Expr> {
        Some(Expr {
            val: self.value()?,
            negated: self.bool()?,
            filters: self.list(Self::call)?,
        })
    }

    fn boxed(&mut self) -> Option<Box<Expr>> {
        self.expr().map(Box::new)
    }

    fn args(&mut self) -> Option<HashMap<String, Expr>> {
        Some(
            self.list(|r| Some((r.string()?, r.expr()?)))?
                .into_iter()
                .collect(),
        )
    }

    fn call(&mut self) -> Option<FunctionCall> {
        Some(FunctionCall {
            name: self.string()?,
            args: self.args()?,
        })
    }

    fn value(&mut self) -> Option<ExprVal> {
        Some(match self.u8()? {
            0 => ExprVal::String(self.string()?),
            1 => ExprVal::Int(self.u64()? as i64),
            2 => ExprVal::Float(f64::from_bits(self.u64()?)),
            3 => ExprVal::Bool(self.bool()?),
            4 => ExprVal::Ident(self.string()?),
            5 => ExprVal::Math(MathExpr {
                lhs: self.boxed()?,
                rhs: self.boxed()?,
                operator: *MATH.get(usize::from(self.u8()?))?,
            }),
            6 => ExprVal::Logic(LogicExpr {
                lhs: self.boxed()?,
                rhs: self.boxed()?,
                operator: *LOGIC.get(usize::from(self.u8()?))?,
            }),
            7 => ExprVal::Test(Test {
                ident: self.string()?,
                negated: self.bool()?,
                name: self.string()?,
                args: self.list(Self::expr)?,
            }),
            8 => ExprVal::MacroCall(MacroCall {
                namespace: self.string()?,
                name: self.string()?,
                args: self.args()?,
            }),
            9 => ExprVal::FunctionCall(self.call()?),
            10 => ExprVal::Array(self.list(Self::expr)?),
            11 => ExprVal::StringConcat(StringConcat {
                values: self.list(Self::value)?,
            }),
            12 => ExprVal::In(In {
                lhs: self.boxed()?,
                rhs: self.boxed()?,
                negated: self.bool()?,
            }),
            _ => return None,
        })
    }
}

/// The operators by their number in the encoding.
const MATH: [MathOperator; 5] = [
    MathOperator::Add,
    MathOperator::Sub,
    MathOperator::Mul,
    MathOperator::Div,
    MathOperator::Modulo,
];
const LOGIC: [LogicOperator; 8] = [
    LogicOperator::Gt,
    LogicOperator::Gte,
    LogicOperator::Lt,
    LogicOperator::Lte,
    LogicOperator::Eq,
    LogicOperator::NotEq,
    LogicOperator::And,
    LogicOperator::Or,
];

#[cfg(test)]
mod tests;
