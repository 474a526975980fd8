//! The rewriting of a parsed template: steps in loop and macro bodies, checked values.

use super::*;

pub(super) fn call(name: &str, args: HashMap<String, Expr>) -> ExprVal {
    ExprVal::FunctionCall(FunctionCall {
        name: name.to_string(),
        args,
    })
}

pub(super) fn is_call(e: &Expr, name: &str) -> bool {
    matches!(&e.val, ExprVal::FunctionCall(c) if c.name == name)
}

pub(super) fn tick() -> Node {
    Node::VariableBlock(WS::default(), Expr::new(call(TICK, HashMap::new())))
}

pub(super) fn instrument_macro(m: &mut tera::ast::MacroDefinition) {
    for e in m.args.values_mut().flatten() {
        instrument_expr(e);
    }
    instrument(&mut m.body, true);
}

/// Rewrites `nodes` in place: a step first when `counted` (loop and macro bodies), every
/// `~` through the size-checked concatenation, every `set` value through the size check.
pub(super) fn instrument(nodes: &mut Vec<Node>, counted: bool) {
    let ticked = matches!(nodes.first(), Some(Node::VariableBlock(_, e)) if is_call(e, TICK));
    if counted && !ticked {
        nodes.insert(0, tick());
    }
    for node in nodes.iter_mut() {
        match node {
            Node::VariableBlock(_, e) => instrument_expr(e),
            Node::Set(_, s) => {
                instrument_expr(&mut s.value);
                // A plain name (`set c = cohort`) makes no value: Tera keeps a reference to
                // the one it names, which the check would copy (the whole cohort, per render).
                let names = matches!(s.value.val, ExprVal::Ident(_)) && s.value.filters.is_empty();
                if !names && !is_call(&s.value, KEEP) {
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
pub(super) fn instrument_expr(e: &mut Expr) {
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

/// The traced render's rewrite of a secured template (`documents::trace`): `set` keeps the
/// value itself rather than the size-checked copy (a filter then sees the context's value, by
/// which it finds its source), and a variable printed without a filter ends with
/// `__traced`. The plain render, with every check, has run first.
pub(super) fn trace_nodes(nodes: &mut [Node]) {
    for node in nodes.iter_mut() {
        match node {
            Node::VariableBlock(_, e)
                if matches!(e.val, ExprVal::Ident(_)) && e.filters.is_empty() =>
            {
                e.filters.push(FunctionCall {
                    name: crate::documents::render::TRACED.to_string(),
                    args: HashMap::new(),
                });
            }
            Node::Set(_, s) => {
                if let ExprVal::FunctionCall(c) = &mut s.value.val {
                    if c.name == KEEP {
                        if let Some(value) = c.args.remove("v") {
                            s.value = value;
                        }
                    }
                }
            }
            Node::MacroDefinition(_, m, _) => trace_nodes(&mut m.body),
            Node::FilterSection(_, fs, _) => trace_nodes(&mut fs.body),
            Node::Block(_, b, _) => trace_nodes(&mut b.body),
            Node::Forloop(_, l, _) => {
                trace_nodes(&mut l.body);
                if let Some(empty) = &mut l.empty_body {
                    trace_nodes(empty);
                }
            }
            Node::If(i, _) => {
                for (_, _, body) in i.conditions.iter_mut() {
                    trace_nodes(body);
                }
                if let Some((_, body)) = &mut i.otherwise {
                    trace_nodes(body);
                }
            }
            _ => {}
        }
    }
}
