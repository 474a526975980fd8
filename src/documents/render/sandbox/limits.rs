//! The budget of one render and the functions and filters that keep to it.

use super::*;

/// The state of the render on this thread.
pub(super) struct Budget {
    steps: u64,
    live_at_start: isize,
    /// The first limit the render ran into.
    exceeded: Option<String>,
}

thread_local! {
    static BUDGET: RefCell<Option<Budget>> = const { RefCell::new(None) };
}

/// Records that a limit was hit (the first one is reported) and returns Tera's error for it.
pub(super) fn exceeded(message: String) -> tera::Error {
    BUDGET.with(|b| {
        if let Some(budget) = b.borrow_mut().as_mut() {
            budget.exceeded.get_or_insert_with(|| message.clone());
        }
    });
    tera::Error::msg(message)
}

/// The bytes a value takes as text, counted until `limit` is passed.
pub(super) fn value_size(v: &Value, limit: usize) -> usize {
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

pub(super) fn check_value(v: &Value, what: &str) -> tera::Result<()> {
    if value_size(v, MAX_VALUE_BYTES) > MAX_VALUE_BYTES {
        return Err(exceeded(value_limit(what)));
    }
    Ok(())
}

pub(super) fn value_limit(what: &str) -> String {
    format!(
        "{what} would make a value larger than {}, the limit for a value made in a template",
        size(MAX_VALUE_BYTES)
    )
}

/// A step: a loop iteration or a macro call. Counts towards [`MAX_STEPS`] and checks the
/// memory the render holds.
pub(super) struct Tick;

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
            let held = crate::profile::meter::thread_live_bytes() - budget.live_at_start;
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
pub(super) struct Concat;

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
pub(super) struct Keep;

impl tera::Function for Keep {
    fn call(&self, args: &HashMap<String, Value>) -> tera::Result<Value> {
        let value = args.get("v").cloned().unwrap_or(Value::Null);
        check_value(&value, "`set`")?;
        Ok(value)
    }
}

/// Tera's `range`, refusing more than [`MAX_RANGE`] numbers (Tera's own allocated them all
/// and aborted the process at 10^10) and a step of 0 (which panicked).
pub(super) struct BoundedRange(pub(super) Arc<dyn tera::Function>);

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
pub(super) struct Guarded {
    pub(super) name: String,
    pub(super) inner: Arc<dyn tera::Filter>,
}

pub(super) fn str_arg<'a>(args: &'a HashMap<String, Value>, key: &str) -> Option<&'a str> {
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
pub(super) struct Capped {
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

thread_local! {
    /// Set while Tera renders on this thread: a panic there is reported as a template error,
    /// not printed by the panic hook.
    static RENDERING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f` (a Tera render); a panic inside Tera becomes an error in words. Tera panics on
/// some index lookups (`bor[k]` with a key of non-ASCII characters slices the key's text
/// inside a character), so a user template must not be able to end the process.
fn without_panics<T>(f: impl FnOnce() -> T) -> std::result::Result<T, String> {
    static QUIET_HOOK: std::sync::Once = std::sync::Once::new();
    QUIET_HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !RENDERING.with(std::cell::Cell::get) {
                previous(info);
            }
        }));
    });
    RENDERING.with(|r| r.set(true));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    RENDERING.with(|r| r.set(false));
    result.map_err(|payload| {
        let why = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("no reason given");
        format!(
            "Tera, the template engine, failed on it ({}). A likely cause: an index such as \
             `bor[k.code]` whose key holds characters other than ASCII letters and digits, \
             which Tera reads as a path; for response categories use `categories` (each \
             category with its count `n`), docs/OUTPUTS.md",
            crate::model::text::escape_controls(why, false)
        )
    })
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
            live_at_start: crate::profile::meter::thread_live_bytes(),
            exceeded: None,
        })
    });
    let _scope = Scope;
    let mut out = Capped {
        bytes: Vec::new(),
        limit: MAX_DOCUMENT_BYTES.saturating_add(given),
    };
    let result = match without_panics(|| tera.render_to(name, context, &mut out)) {
        Ok(result) => result,
        Err(failed) => return Err(RenderFailure::Limit(failed)),
    };
    let limit = BUDGET.with(|b| b.borrow_mut().as_mut().and_then(|b| b.exceeded.take()));
    match (result, limit) {
        (Err(_), Some(limit)) => Err(RenderFailure::Limit(limit)),
        (Err(e), None) => Err(RenderFailure::Tera(e)),
        // Tera writes only what templates and filters return: UTF-8.
        (Ok(()), _) => String::from_utf8(out.bytes)
            .map_err(|_| RenderFailure::Limit("the document is not UTF-8".to_string())),
    }
}
