//! The graph of macro calls and includes, and walks over a parsed template.

use super::*;

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
pub(super) enum Visit<'a> {
    /// `{% include %}` of these names.
    Include(&'a [String]),
    /// An expression (each once, outermost).
    Expr(&'a Expr),
}

/// Visits every include and outermost expression of `nodes`, including those inside macro
/// definitions' argument defaults only when the caller asks (here: not; macros are their own
/// nodes in [`check_calls`]).
pub(super) fn visit_nodes<'a>(nodes: &'a [Node], f: &mut impl FnMut(Visit<'a>)) {
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
pub(super) fn visit_exprs<'a>(nodes: &'a [Node], f: &mut impl FnMut(&'a Expr)) {
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
pub(super) fn children(e: &Expr) -> Vec<&Expr> {
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
pub(super) fn count_values(e: &Expr) -> usize {
    let own = match &e.val {
        ExprVal::StringConcat(c) => c.values.len(),
        _ => 1,
    };
    own + children(e).into_iter().map(count_values).sum::<usize>()
}

/// Calls `f` for every macro call in `e`.
pub(super) fn visit_macro_calls<'a>(e: &'a Expr, f: &mut impl FnMut(&'a MacroCall)) {
    if let ExprVal::MacroCall(m) = &e.val {
        f(m);
    }
    for c in children(e) {
        visit_macro_calls(c, f);
    }
}
