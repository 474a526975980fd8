//! Which characters readout refuses in data, configs and templates, and how any text is
//! escaped before a terminal shows it (docs/BAD-INPUT.md). Below every stage: the loaders,
//! the config, the templates and the error messages use it.

/// Whether `c` is a character readout refuses in data and config values: every C0 control
/// but tab, line feed and carriage return, DEL, and the C1 controls (they make XML, SVG and
/// Word, that does not parse and can drive a terminal); the invisible formatting
/// characters that reorder or hide text ([`is_invisible_format`]); and the private-use
/// characters and noncharacters ([`is_internal_or_noncharacter`]).
pub fn is_refused_control(c: char) -> bool {
    (c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
        || is_invisible_format(c)
        || is_internal_or_noncharacter(c)
}

/// The private-use characters (U+E000–U+F8FF and planes 15 and 16), which readout uses
/// inside its own renders to mark numbers (a value holding one would be taken for a mark),
/// and the noncharacters (U+FDD0–U+FDEF and the last two code points of every plane, such
/// as U+FFFF), which XML and SVG cannot hold.
pub fn is_internal_or_noncharacter(c: char) -> bool {
    matches!(c as u32, 0xE000..=0xF8FF | 0xF_0000..=0x10_FFFF) || is_noncharacter(c)
}

/// U+FDD0–U+FDEF and U+xFFFE, U+xFFFF of every plane.
fn is_noncharacter(c: char) -> bool {
    let u = c as u32;
    (0xFDD0..=0xFDEF).contains(&u) || u & 0xFFFE == 0xFFFE
}

/// The bidirectional controls (embeddings, overrides, isolates, marks: U+061C, U+200E,
/// U+200F, U+202A–U+202E, U+2066–U+2069) and the zero-width characters that are not joiners
/// (U+200B, U+2060–U+2064, U+FEFF): a value holding one displays reversed or differs from
/// what it shows, in documents and on the terminal. The joiners U+200C and U+200D are
/// allowed: scripts and emoji need them.
pub fn is_invisible_format(c: char) -> bool {
    matches!(c,
        '\u{061C}' | '\u{200B}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}'
        | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}')
}

/// A refused character named for a message: "the control character U+001B", or "the
/// invisible formatting character U+202E".
pub fn refused_character(c: char) -> String {
    if is_invisible_format(c) {
        format!(
            "the invisible formatting character U+{:04X} (it reorders or hides text)",
            c as u32
        )
    } else if is_noncharacter(c) {
        format!(
            "the noncharacter U+{:04X} (XML and SVG cannot hold it)",
            c as u32
        )
    } else if is_internal_or_noncharacter(c) {
        format!(
            "the private-use character U+{:04X} (readout marks its own text with these)",
            c as u32
        )
    } else {
        format!("the control character U+{:04X}", c as u32)
    }
}

/// The first refused control character of `text` ([`is_refused_control`]), if any. Quick for
/// the usual text: bytes are looked at one by one, characters only when a byte could start one.
#[inline]
pub fn find_refused_control(text: &str) -> Option<(usize, char)> {
    // C0, DEL, C1 (0xC2 0x80-0x9F), U+061C (0xD8), U+2xxx (0xE2), U+E000-U+FFFF (0xEE,
    // 0xEF), and the planes above the first (0xF0-0xF4: their noncharacters, planes 15-16).
    if !text.bytes().any(|b| {
        b < 0x20 || b == 0x7f || b == 0xc2 || b == 0xd8 || b == 0xe2 || b == 0xee || b >= 0xef
    }) {
        return None;
    }
    text.char_indices().find(|(_, c)| is_refused_control(*c))
}

/// `text` with every control character written as an escape (`\x1B`, `\u{9B}`, `\n`), so that
/// a value quoted in a message cannot move the cursor, clear the screen or set the title of
/// the terminal it is printed on. Tabs stay; line breaks are escaped unless `keep_lines`.
pub fn escape_controls(text: &str, keep_lines: bool) -> std::borrow::Cow<'_, str> {
    let escape = |c: char| {
        (c.is_control() && c != '\t' && !(keep_lines && c == '\n')) || is_invisible_format(c)
    };
    if !text.chars().any(escape) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' if !keep_lines => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if escape(c) && (c as u32) < 0x80 => out.push_str(&format!("\\x{:02X}", c as u32)),
            c if escape(c) => out.push_str(&format!("\\u{{{:X}}}", c as u32)),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// A cell a spreadsheet would run as a formula (text starting with `=`, `+`, `-`, `@`, a tab
/// or a carriage return, unless it is a plain number) with a `'` before it. The rule of every
/// CSV readout writes for people, who open it in a spreadsheet (the numbers sheet, ard.csv);
/// data for programs (the derived CSV, Dataset-JSON) keep their values as read
/// (docs/BAD-INPUT.md, "CSV files and formulas").
pub fn spreadsheet_safe(text: &str) -> std::borrow::Cow<'_, str> {
    let risky = text.starts_with(['=', '+', '-', '@', '\t', '\r']) && text.parse::<f64>().is_err();
    if risky {
        std::borrow::Cow::Owned(format!("'{text}"))
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

/// Whether two texts are equal without case, for any letters (`DÉCÈS` and `décès`, not only
/// ASCII ones), as the config's "compared without case" promises; without allocating.
pub fn eq_without_case(a: &str, b: &str) -> bool {
    if a.is_ascii() && b.is_ascii() {
        a.eq_ignore_ascii_case(b)
    } else {
        // Upper case folds more than lower case does: both Greek sigmas are Σ, ß is SS.
        a.chars()
            .flat_map(char::to_uppercase)
            .eq(b.chars().flat_map(char::to_uppercase))
    }
}

/// `text` escaped for XML content and attributes (Word's and PowerPoint's parts, HTML
/// attributes), leaving out the characters XML 1.0 cannot hold (C0 controls other than tab,
/// line feed and carriage return, U+FFFE, U+FFFF; lone surrogates cannot occur in a `str`).
pub fn escape_xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    escape_xml_into(&mut out, text);
    out
}

/// [`escape_xml`] appended to `out`.
pub fn escape_xml_into(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {}
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn texts_are_compared_without_case_beyond_ascii() {
        use super::eq_without_case;
        assert!(eq_without_case("DÉCÈS", "décès"));
        assert!(eq_without_case("Death", "DEATH"));
        assert!(!eq_without_case("DÉCÈS", "deces"));
        assert!(eq_without_case("ΘΆΝΑΤΟΣ", "θάνατος"));
        assert!(eq_without_case("Straße", "STRASSE"));
    }

    use super::*;

    #[test]
    fn control_characters_are_found_and_escaped() {
        assert_eq!(find_refused_control("Hypertension °C ±"), None);
        assert_eq!(find_refused_control("tab\there\r\n"), None);
        assert_eq!(find_refused_control("a\u{0}b"), Some((1, '\u{0}')));
        assert_eq!(find_refused_control("a\u{b}b"), Some((1, '\u{b}')));
        assert_eq!(find_refused_control("x\u{9b}2J"), Some((1, '\u{9b}')));
        assert_eq!(find_refused_control("\u{7f}"), Some((0, '\u{7f}')));
        // Readout's own marks and the noncharacters; emoji and CJK pass.
        assert_eq!(find_refused_control("7\u{E000}"), Some((1, '\u{E000}')));
        assert_eq!(find_refused_control("a\u{F8FF}"), Some((1, '\u{F8FF}')));
        assert_eq!(find_refused_control("\u{FFFF}"), Some((0, '\u{FFFF}')));
        assert_eq!(find_refused_control("x\u{FDD0}"), Some((1, '\u{FDD0}')));
        assert_eq!(find_refused_control("x\u{1FFFE}"), Some((1, '\u{1FFFE}')));
        assert_eq!(find_refused_control("\u{10FFFD}"), Some((0, '\u{10FFFD}')));
        assert_eq!(find_refused_control("完全缓解 😀 \u{F900} \u{FFFD}"), None);
        assert!(refused_character('\u{E001}').contains("private-use character U+E001"));
        assert!(refused_character('\u{FFFF}').contains("noncharacter U+FFFF"));
        assert_eq!(
            escape_controls("\u{1b}]0;pwned\u{7}\u{1b}[2J\nx\ty\u{9b}", false),
            "\\x1B]0;pwned\\x07\\x1B[2J\\nx\ty\\u{9B}"
        );
        assert_eq!(escape_controls("a\nb\r", true), "a\nb\\r");
        assert!(matches!(
            escape_controls("plain", false),
            std::borrow::Cow::Borrowed(_)
        ));
    }
}
