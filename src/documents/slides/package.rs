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
    /// The slide's notes (the poster's print scale), a paragraph a line; `None` for none.
    pub notes: Option<String>,
}

/// The notes master and its theme (readout's own), when a slide has notes.
const NOTES_MASTER: &str = "ppt/notesMasters/notesMaster1.xml";
const NOTES_THEME: &str = "ppt/theme/themeReadoutNotes.xml";

/// The notes master: the slide's picture above, the notes' body below, on a portrait page.
fn notes_master() -> String {
    format!(
        r#"{DECLARATION}<p:notesMaster {}><p:cSld><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/><p:sp><p:nvSpPr><p:cNvPr id="2" name="Slide Image Placeholder 1"/><p:cNvSpPr><a:spLocks noGrp="1" noRot="1" noChangeAspect="1"/></p:cNvSpPr><p:nvPr><p:ph type="sldImg" idx="2"/></p:nvPr></p:nvSpPr><p:spPr><a:xfrm><a:off x="685800" y="685800"/><a:ext cx="5486400" cy="3429000"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom><a:noFill/></p:spPr></p:sp><p:sp><p:nvSpPr><p:cNvPr id="3" name="Notes Placeholder 2"/><p:cNvSpPr><a:spLocks noGrp="1"/></p:cNvSpPr><p:nvPr><p:ph type="body" sz="quarter" idx="1"/></p:nvPr></p:nvSpPr><p:spPr><a:xfrm><a:off x="685800" y="4400550"/><a:ext cx="5486400" cy="3600450"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></p:spPr><p:txBody><a:bodyPr/><a:lstStyle/><a:p><a:endParaRPr lang="en-GB"/></a:p></p:txBody></p:sp></p:spTree></p:cSld><p:clrMap bg1="lt1" tx1="dk1" bg2="lt2" tx2="dk2" accent1="accent1" accent2="accent2" accent3="accent3" accent4="accent4" accent5="accent5" accent6="accent6" hlink="hlink" folHlink="folHlink"/><p:notesStyle><a:lvl1pPr marL="0" algn="l"><a:defRPr sz="1200"><a:solidFill><a:schemeClr val="tx1"/></a:solidFill><a:latin typeface="+mn-lt"/></a:defRPr></a:lvl1pPr></p:notesStyle></p:notesMaster>"#,
        ns!()
    )
}

/// A slide's notes page: its picture and the notes, a paragraph a line.
fn notes_slide(notes: &str) -> String {
    let mut paragraphs = String::new();
    for line in notes.lines() {
        let _ = write!(
            paragraphs,
            r#"<a:p><a:r><a:rPr lang="en-GB" dirty="0"/><a:t>{}</a:t></a:r></a:p>"#,
            escape(line)
        );
    }
    format!(
        r#"{DECLARATION}<p:notes {}><p:cSld><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr/><p:sp><p:nvSpPr><p:cNvPr id="2" name="Slide Image Placeholder 1"/><p:cNvSpPr><a:spLocks noGrp="1" noRot="1" noChangeAspect="1"/></p:cNvSpPr><p:nvPr><p:ph type="sldImg"/></p:nvPr></p:nvSpPr><p:spPr/></p:sp><p:sp><p:nvSpPr><p:cNvPr id="3" name="Notes Placeholder 2"/><p:cNvSpPr><a:spLocks noGrp="1"/></p:cNvSpPr><p:nvPr><p:ph type="body" idx="1"/></p:nvPr></p:nvSpPr><p:spPr/><p:txBody><a:bodyPr/><a:lstStyle/>{paragraphs}</p:txBody></p:sp></p:spTree></p:cSld><p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr></p:notes>"#,
        ns!()
    )
}

/// `../slideLayouts/x.xml` from `ppt/slides/`.
fn from_slides(path: &str) -> String {
    format!("../{}", path.trim_start_matches("ppt/"))
}

/// `[Content_Types].xml`: the package's defaults, the template's parts, the deck's own and
/// each of its `slides`.
fn content_types(template: &SlideTemplate, slides: usize, notes: &[usize]) -> String {
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
    if !notes.is_empty() {
        let _ = write!(
            types,
            r#"<Override PartName="/{NOTES_MASTER}" ContentType="{CT}.presentationml.notesMaster+xml"/><Override PartName="/{NOTES_THEME}" ContentType="{CT}.theme+xml"/>"#
        );
    }
    for n in notes {
        let _ = write!(
            types,
            r#"<Override PartName="/ppt/notesSlides/notesSlide{n}.xml" ContentType="{CT}.presentationml.notesSlide+xml"/>"#
        );
    }
    types.push_str("</Types>");
    types
}

/// `ppt/presentation.xml` (masters, slides, size) and its relationships, for `slides` slides.
fn presentation(template: &SlideTemplate, slides: usize, notes: bool) -> (String, String) {
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
    let mut notes_masters = String::new();
    if notes {
        k += 1;
        let _ = write!(
            rels,
            r#"<Relationship Id="rId{k}" Type="{REL}/notesMaster" Target="{}"/>"#,
            NOTES_MASTER.trim_start_matches("ppt/")
        );
        let _ = write!(
            notes_masters,
            r#"<p:notesMasterIdLst><p:notesMasterId r:id="rId{k}"/></p:notesMasterIdLst>"#
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
            r#"{DECLARATION}<p:presentation {} saveSubsetFonts="1"><p:sldMasterIdLst>{masters}</p:sldMasterIdLst>{notes_masters}<p:sldIdLst>{list}</p:sldIdLst><p:sldSz cx="{cx}" cy="{cy}"/><p:notesSz cx="6858000" cy="9144000"/></p:presentation>"#,
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

    let noted: Vec<usize> = (1..=slides.len())
        .filter(|n| slides[n - 1].notes.is_some())
        .collect();
    let types = content_types(template, slides.len(), &noted);
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

    let (presentation, rels) = presentation(template, slides.len(), !noted.is_empty());
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
        if let Some(notes) = &slide.notes {
            let _ = write!(
                rels,
                r#"<Relationship Id="rId{}" Type="{REL}/notesSlide" Target="../notesSlides/notesSlide{n}.xml"/>"#,
                slide.pictures.len() + 2
            );
            parts.push((
                format!("ppt/notesSlides/notesSlide{n}.xml"),
                text(notes_slide(notes)),
            ));
            parts.push((
                format!("ppt/notesSlides/_rels/notesSlide{n}.xml.rels"),
                text(format!(
                    r#"{DECLARATION}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="{REL}/notesMaster" Target="../notesMasters/notesMaster1.xml"/><Relationship Id="rId2" Type="{REL}/slide" Target="../slides/slide{n}.xml"/></Relationships>"#
                )),
            ));
        }
        rels.push_str("</Relationships>");
        parts.push((format!("ppt/slides/_rels/slide{n}.xml.rels"), text(rels)));
    }
    if !noted.is_empty() {
        parts.push((NOTES_MASTER.into(), text(notes_master())));
        parts.push((
            "ppt/notesMasters/_rels/notesMaster1.xml.rels".into(),
            text(format!(
                r#"{DECLARATION}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="{REL}/theme" Target="../theme/themeReadoutNotes.xml"/></Relationships>"#
            )),
        ));
        parts.push((NOTES_THEME.into(), text(super::house::THEME.to_string())));
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
