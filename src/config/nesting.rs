//! How deeply a YAML text nests, found before the YAML parser reads it: a config nested
//! 100,000 levels deep kept the parser busy for minutes. Block nesting is read from the
//! indentation (and `- ` / `? ` entries opening on one line), flow nesting from brackets
//! outside quoted scalars and comments; block scalars (`|`, `>`) are text.

/// Deepest nesting a study config may have (one needs fewer than ten levels).
pub const MAX_YAML_DEPTH: usize = 64;

/// The first line (1-based) where `text` nests deeper than [`MAX_YAML_DEPTH`], if any.
pub fn too_deep(text: &str) -> Option<usize> {
    // Indentation of the open block levels.
    let mut indents: Vec<usize> = Vec::new();
    let mut flow = 0usize;
    // Inside a block scalar: lines indented more than this are its text.
    let mut block_scalar: Option<usize> = None;
    // Inside a quoted scalar spanning lines: its quote.
    let mut quote: Option<u8> = None;
    for (number, line) in text.lines().enumerate() {
        let bytes = line.as_bytes();
        let indent = bytes.iter().take_while(|b| **b == b' ').count();
        let content = &bytes[indent..];
        if let Some(parent) = block_scalar {
            if content.is_empty() || indent > parent {
                continue;
            }
            block_scalar = None;
        }
        let mut i = indent;
        if quote.is_none() && flow == 0 {
            if content.is_empty() || content[0] == b'#' {
                continue;
            }
            while indents.last().is_some_and(|top| *top > indent) {
                indents.pop();
            }
            if indents.last() != Some(&indent) {
                indents.push(indent);
            }
            // `- - - x` and `? ` open a level each.
            let mut entries = 0;
            while i + 1 < bytes.len() && matches!(bytes[i], b'-' | b'?') && bytes[i + 1] == b' ' {
                entries += 1;
                i += 2;
                while i < bytes.len() && bytes[i] == b' ' {
                    i += 1;
                }
            }
            if indents.len() + entries > MAX_YAML_DEPTH {
                return Some(number + 1);
            }
        }
        // Flow brackets and quotes on the rest of the line.
        let mut previous = b' ';
        while i < bytes.len() {
            let b = bytes[i];
            match quote {
                Some(q) => {
                    if b == b'\\' && q == b'"' {
                        i += 1;
                    } else if b == q {
                        if q == b'\'' && bytes.get(i + 1) == Some(&b'\'') {
                            i += 1;
                        } else {
                            quote = None;
                        }
                    }
                }
                None => match b {
                    b'"' | b'\'' if matches!(previous, b' ' | b':' | b',' | b'[' | b'{' | b'-') => {
                        quote = Some(b)
                    }
                    b'#' if previous == b' ' => break,
                    b'[' | b'{' => {
                        flow += 1;
                        if indents.len() + flow > MAX_YAML_DEPTH {
                            return Some(number + 1);
                        }
                    }
                    b']' | b'}' => flow = flow.saturating_sub(1),
                    _ => {}
                },
            }
            previous = b;
            i += 1;
        }
        if quote.is_none() && flow == 0 {
            let trimmed = line.split(" #").next().unwrap_or("").trim_end();
            let indicator = trimmed
                .trim_end_matches(|c: char| c == '+' || c == '-' || c.is_ascii_digit())
                .ends_with(['|', '>']);
            if indicator
                && (trimmed.contains(": ") || trimmed.starts_with("- ") || trimmed.len() < 4)
            {
                block_scalar = Some(indent);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_configs_are_shallow_and_deep_ones_are_found_on_their_line() {
        let ordinary = "study:\n  id: S # a comment [\n  title: \"a [b\"\ncohorts:\n  - id: a\n    where: { COHORT: [1, 2] }\n    background: |\n      text [[[[ {{{{ \n        more\n    baseline:\n      - { column: AGE, kind: continuous }\n";
        assert_eq!(too_deep(ordinary), None);
        let flow = format!("study:\n  id: {}x{}\n", "[".repeat(70), "]".repeat(70));
        assert_eq!(too_deep(&flow), Some(2));
        let maps = format!("a: {}1{}\n", "{b: ".repeat(100_000), "}".repeat(100_000));
        assert_eq!(too_deep(&maps), Some(1));
        let dashes = format!("a:\n  {}x\n", "- ".repeat(70));
        assert_eq!(too_deep(&dashes), Some(2));
        let indented: String = (0..100)
            .map(|i| format!("{}k{i}:\n", " ".repeat(i)))
            .collect();
        assert_eq!(too_deep(&indented), Some(65));
        // Apostrophes inside plain text do not start quotes.
        let plain = format!("a: don't [x]\nb: {}\n", "[".repeat(10));
        assert_eq!(too_deep(&plain), None);
    }
}
