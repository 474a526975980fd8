//! The `.pptx` package around the slides: content types, relationships, the presentation
//! part, and the template's parts as they are. Zip entries in a fixed order with a fixed
//! time: the same deck for the same results, byte for byte.

use std::fmt::Write as _;

use super::house::ns;
use super::template::{escape, SlideTemplate};

const DECLARATION: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n";
const REL: &str = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
const CT: &str = "application/vnd.openxmlformats-officedocument";

/// One slide as written: its XML, its layout (a path in the package), its pictures.
pub struct SlidePart {
    pub xml: String,
    pub layout: String,
    /// Each picture's file name under `ppt/media/`; `rId{k+2}` in the slide.
    pub pictures: Vec<String>,
}

/// `../slideLayouts/x.xml` from `ppt/slides/`.
fn from_slides(path: &str) -> String {
    format!("../{}", path.trim_start_matches("ppt/"))
}

/// `[Content_Types].xml`: the package's defaults, the template's parts, the deck's own and
/// each of its `slides`.
fn content_types(template: &SlideTemplate, slides: usize) -> String {
    let mut types = format!(
        r#"{DECLARATION}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Default Extension="png" ContentType="image/png"/>"#
    );
    for t in &template.content_types {
        types.push_str(t);
    }
    let _ = write!(
        types,
        r#"<Override PartName="/ppt/presentation.xml" ContentType="{CT}.presentationml.presentation.main+xml"/><Override PartName="/ppt/presProps.xml" ContentType="{CT}.presentationml.presProps+xml"/><Override PartName="/ppt/viewProps.xml" ContentType="{CT}.presentationml.viewProps+xml"/><Override PartName="/ppt/tableStyles.xml" ContentType="{CT}.presentationml.tableStyles+xml"/><Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/><Override PartName="/docProps/app.xml" ContentType="{CT}.extended-properties+xml"/>"#
    );
    for n in 1..=slides {
        let _ = write!(
            types,
            r#"<Override PartName="/ppt/slides/slide{n}.xml" ContentType="{CT}.presentationml.slide+xml"/>"#
        );
    }
    types.push_str("</Types>");
    types
}

/// `ppt/presentation.xml` (masters, slides, size) and its relationships, for `slides` slides.
fn presentation(template: &SlideTemplate, slides: usize) -> (String, String) {
    let mut rels = String::new();
    let mut masters = String::new();
    let mut k = 0;
    for (i, master) in template.masters.iter().enumerate() {
        k += 1;
        let _ = write!(
            rels,
            r#"<Relationship Id="rId{k}" Type="{REL}/slideMaster" Target="{}"/>"#,
            escape(master.trim_start_matches("ppt/"))
        );
        let _ = write!(
            masters,
            r#"<p:sldMasterId id="{}" r:id="rId{k}"/>"#,
            2_147_483_648u64 + 1000 * i as u64
        );
    }
    let mut list = String::new();
    for n in 1..=slides {
        k += 1;
        let _ = write!(
            rels,
            r#"<Relationship Id="rId{k}" Type="{REL}/slide" Target="slides/slide{n}.xml"/>"#
        );
        let _ = write!(list, r#"<p:sldId id="{}" r:id="rId{k}"/>"#, 255 + n);
    }
    if let Some(theme) = &template.theme {
        k += 1;
        let _ = write!(
            rels,
            r#"<Relationship Id="rId{k}" Type="{REL}/theme" Target="{}"/>"#,
            escape(theme.trim_start_matches("ppt/"))
        );
    }
    for (kind, target) in [
        ("presProps", "presProps.xml"),
        ("viewProps", "viewProps.xml"),
        ("tableStyles", "tableStyles.xml"),
    ] {
        k += 1;
        let _ = write!(
            rels,
            r#"<Relationship Id="rId{k}" Type="{REL}/{kind}" Target="{target}"/>"#
        );
    }
    let (cx, cy) = template.size;
    (
        format!(
            r#"{DECLARATION}<p:presentation {} saveSubsetFonts="1"><p:sldMasterIdLst>{masters}</p:sldMasterIdLst><p:sldIdLst>{list}</p:sldIdLst><p:sldSz cx="{cx}" cy="{cy}"/><p:notesSz cx="6858000" cy="9144000"/></p:presentation>"#,
            ns!()
        ),
        format!(
            r#"{DECLARATION}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">{rels}</Relationships>"#
        ),
    )
}

/// The deck as a `.pptx`'s bytes.
pub fn package(
    slides: &[SlidePart],
    media: &[(String, crate::figures::Png)],
    template: &SlideTemplate,
    (title, description): (&str, Option<&str>),
) -> zip::result::ZipResult<Vec<u8>> {
    let mut parts: Vec<(String, Vec<u8>)> = Vec::new();
    let text = |s: String| s.into_bytes();

    let types = content_types(template, slides.len());
    parts.push(("[Content_Types].xml".into(), text(types)));

    parts.push((
        "_rels/.rels".into(),
        text(format!(
            r#"{DECLARATION}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="{REL}/officeDocument" Target="ppt/presentation.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/><Relationship Id="rId3" Type="{REL}/extended-properties" Target="docProps/app.xml"/></Relationships>"#
        )),
    ));
    parts.push((
        "docProps/core.xml".into(),
        text(format!(
            r#"{DECLARATION}<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>{}</dc:title>{}<dc:creator>readout</dc:creator></cp:coreProperties>"#,
            escape(title),
            description.map_or(String::new(), |d| format!(
                "<dc:description>{}</dc:description>",
                escape(d)
            ))
        )),
    ));
    parts.push((
        "docProps/app.xml".into(),
        text(format!(
            r#"{DECLARATION}<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties"><Application>readout</Application><Slides>{}</Slides></Properties>"#,
            slides.len()
        )),
    ));

    let (presentation, rels) = presentation(template, slides.len());
    parts.push(("ppt/presentation.xml".into(), text(presentation)));
    parts.push(("ppt/_rels/presentation.xml.rels".into(), text(rels)));
    parts.push((
        "ppt/presProps.xml".into(),
        text(format!(r#"{DECLARATION}<p:presentationPr {}/>"#, ns!())),
    ));
    parts.push((
        "ppt/viewProps.xml".into(),
        text(format!(r#"{DECLARATION}<p:viewPr {}/>"#, ns!())),
    ));
    parts.push((
        "ppt/tableStyles.xml".into(),
        text(format!(
            r#"{DECLARATION}<a:tblStyleLst xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" def="{{5C22544A-7EE6-4342-B048-85BDC9FD1C3A}}"/>"#
        )),
    ));
    // The template's parts (masters, layouts, themes, their pictures) go here, read in place.
    let template_at = parts.len();
    for (n, slide) in slides.iter().enumerate() {
        let n = n + 1;
        parts.push((
            format!("ppt/slides/slide{n}.xml"),
            text(format!("{DECLARATION}{}", slide.xml)),
        ));
        let mut rels = format!(
            r#"{DECLARATION}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="{REL}/slideLayout" Target="{}"/>"#,
            escape(&from_slides(&slide.layout))
        );
        for (i, name) in slide.pictures.iter().enumerate() {
            let _ = write!(
                rels,
                r#"<Relationship Id="rId{}" Type="{REL}/image" Target="../media/{}"/>"#,
                i + 2,
                escape(name)
            );
        }
        rels.push_str("</Relationships>");
        parts.push((format!("ppt/slides/_rels/slide{n}.xml.rels"), text(rels)));
    }

    let (before, after) = parts.split_at(template_at);
    let parts: Vec<crate::documents::archive::Part<'_>> = before
        .iter()
        .chain(&template.parts)
        .chain(after)
        .map(|(name, bytes)| (name.as_str(), vec![&bytes[..]]))
        .collect();
    let media: Vec<(String, &[u8])> = media
        .iter()
        .map(|(name, png)| (format!("ppt/media/{name}"), &png[..]))
        .collect();
    crate::documents::archive::archive(&parts, &media)
}
