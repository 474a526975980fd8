//! Any text as an HTML document through the sanitizer that documents a user template took
//! part in go through (`readout::documents::render::html::sanitize_document`, then the URL filter as
//! documents are written): never a panic or a hang; the result, read by html5ever as a
//! browser reads it, holds no script element, no event handler attribute and no URL
//! attribute with a script target; sanitizing it again changes nothing (what is written is
//! what was checked).
#![no_main]

use libfuzzer_sys::fuzz_target;
use readout::documents::render::html::{remove_unsafe_urls, sanitize_document};

/// A URL a browser would run: tabs and line breaks dropped, leading controls and spaces
/// trimmed, any case.
fn runs_script(url: &str) -> bool {
    let url: String = url
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let url = url
        .trim_start_matches(|c: char| c <= ' ')
        .to_ascii_lowercase();
    ["javascript:", "vbscript:", "data:"]
        .iter()
        .any(|s| url.starts_with(s))
}

/// Panics on anything in `html` that could run script, as html5ever parses it.
fn check(html: &str) {
    let document = scraper::Html::parse_document(html);
    for node in document.root_element().descendants() {
        let Some(element) = scraper::ElementRef::wrap(node) else {
            continue;
        };
        let name = element.value().name();
        assert!(
            !["script", "iframe", "object", "embed", "base", "link"].contains(&name),
            "<{name}> in {html:?}"
        );
        for (attr, value) in element.value().attrs() {
            let attr = attr.to_ascii_lowercase();
            assert!(!attr.starts_with("on"), "{attr}= in {html:?}");
            assert!(attr != "http-equiv", "http-equiv in {html:?}");
            if ["href", "src", "xlink:href", "action", "formaction", "data"].contains(&attr.as_str())
            {
                assert!(!runs_script(value), "live {attr}={value:?} in {html:?}");
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let clean = sanitize_document(text);
    check(&clean);
    assert_eq!(sanitize_document(&clean), clean, "not stable");
    check(&remove_unsafe_urls(&clean));
});
