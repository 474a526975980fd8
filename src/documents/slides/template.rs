//! The deck's template: readout's house master, layouts and theme (16:9), or those of a
//! company's `.pptx` (`output.pptx_reference`, docs/OUTPUTS.md): its slide masters and every
//! part they reach through their relationships (layouts, theme, pictures), its content types
//! for them, its slide size, and the layouts a title slide and a content slide take.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{Cursor, Read};

/// The largest reference read (`output.pptx_reference`); templates with fonts and pictures
/// are a few MiB.
pub const MAX_REFERENCE_BYTES: u64 = 64 << 20;

/// The most bytes the parts taken from a reference may decompress to, together.
const MAX_PARTS_BYTES: u64 = 128 << 20;

/// What a deck is built on.
#[derive(Debug, Clone, PartialEq)]
pub struct SlideTemplate {
    /// Parts copied as they are (path in the package, bytes): masters, layouts, themes,
    /// their pictures.
    pub parts: Vec<(String, Vec<u8>)>,
    /// `Default` and `Override` elements of `[Content_Types].xml` for those parts.
    pub content_types: Vec<String>,
    /// The slide masters, as paths in the package (`ppt/slideMasters/slideMaster1.xml`).
    pub masters: Vec<String>,
    /// The theme the presentation names, if any (`ppt/theme/theme1.xml`).
    pub theme: Option<String>,
    /// The layout of the title slide and of the others.
    pub title_layout: String,
    /// The type of the title slide layout's title placeholder (`ctrTitle`, else `title`).
    pub title_placeholder: &'static str,
    /// The layout of content slides ("Title and Content", else "Title Only", else the first).
    pub content_layout: String,
    /// Slide width and height in EMU.
    pub size: (u64, u64),
}

const PRESENTATION: &str = "ppt/presentation.xml";
const RELATIONSHIP_SLIDE_MASTER: &str =
    "http://schemas.openxmlformats.org/officeDocument/2006/relationships/slideMaster";
const RELATIONSHIP_THEME: &str =
    "http://schemas.openxmlformats.org/officeDocument/2006/relationships/theme";

impl SlideTemplate {
    /// readout's own: one master, a title and a title-and-content layout, a plain theme.
    pub fn house() -> SlideTemplate {
        let part = |path: &str, text: &str| (path.to_string(), text.as_bytes().to_vec());
        let ct = "application/vnd.openxmlformats-officedocument";
        SlideTemplate {
            parts: vec![
                part("ppt/slideMasters/slideMaster1.xml", super::house::MASTER),
                part(
                    "ppt/slideMasters/_rels/slideMaster1.xml.rels",
                    super::house::MASTER_RELS,
                ),
                part(
                    "ppt/slideLayouts/slideLayout1.xml",
                    super::house::TITLE_LAYOUT,
                ),
                part(
                    "ppt/slideLayouts/_rels/slideLayout1.xml.rels",
                    super::house::LAYOUT_RELS,
                ),
                part(
                    "ppt/slideLayouts/slideLayout2.xml",
                    super::house::CONTENT_LAYOUT,
                ),
                part(
                    "ppt/slideLayouts/_rels/slideLayout2.xml.rels",
                    super::house::LAYOUT_RELS,
                ),
                part("ppt/theme/theme1.xml", super::house::THEME),
            ],
            content_types: vec![
                format!(
                    r#"<Override PartName="/ppt/slideMasters/slideMaster1.xml" ContentType="{ct}.presentationml.slideMaster+xml"/>"#
                ),
                format!(
                    r#"<Override PartName="/ppt/slideLayouts/slideLayout1.xml" ContentType="{ct}.presentationml.slideLayout+xml"/>"#
                ),
                format!(
                    r#"<Override PartName="/ppt/slideLayouts/slideLayout2.xml" ContentType="{ct}.presentationml.slideLayout+xml"/>"#
                ),
                format!(
                    r#"<Override PartName="/ppt/theme/theme1.xml" ContentType="{ct}.theme+xml"/>"#
                ),
            ],
            masters: vec!["ppt/slideMasters/slideMaster1.xml".to_string()],
            theme: Some("ppt/theme/theme1.xml".to_string()),
            title_layout: "ppt/slideLayouts/slideLayout1.xml".to_string(),
            title_placeholder: "ctrTitle",
            content_layout: "ppt/slideLayouts/slideLayout2.xml".to_string(),
            size: (12_192_000, 6_858_000),
        }
    }

    /// A company template's masters, layouts and theme; the error says what is wrong with it.
    pub fn from_reference(pptx: &[u8]) -> Result<SlideTemplate, String> {
        let mut archive = zip::ZipArchive::new(Cursor::new(pptx))
            .map_err(|e| format!("not a .pptx (a zip archive): {e}"))?;
        let mut budget = MAX_PARTS_BYTES;
        let mut read = |archive: &mut zip::ZipArchive<Cursor<&[u8]>>, name: &str| {
            read_part(archive, name, &mut budget)
        };
        let presentation = read(&mut archive, PRESENTATION)?
            .ok_or_else(|| format!("no {PRESENTATION} in it; expected a PowerPoint file"))?;
        let presentation = xml_text(&presentation, PRESENTATION)?;
        let doc = parse(presentation, PRESENTATION)?;
        let size = doc
            .descendants()
            .find(|n| n.tag_name().name() == "sldSz")
            .and_then(|n| {
                Some((
                    n.attribute("cx")?.parse().ok()?,
                    n.attribute("cy")?.parse().ok()?,
                ))
            })
            .filter(|&(cx, cy): &(u64, u64)| {
                (914_400..=51_206_400).contains(&cx) && (914_400..=51_206_400).contains(&cy)
            })
            .ok_or_else(|| {
                format!("its {PRESENTATION} gives no slide size (p:sldSz) between 1 and 56 inches")
            })?;
        let rels = relationships(&mut read, &mut archive, PRESENTATION)?;
        let masters: Vec<String> = rels
            .iter()
            .filter(|r| r.kind == RELATIONSHIP_SLIDE_MASTER)
            .map(|r| r.target.clone())
            .collect();
        if masters.is_empty() {
            return Err(format!(
                "its {PRESENTATION} names no slide master; expected a PowerPoint template"
            ));
        }
        let theme = rels
            .iter()
            .find(|r| r.kind == RELATIONSHIP_THEME)
            .map(|r| r.target.clone());
        // Every part the masters reach (layouts, themes, pictures), with its relationships.
        let mut parts: BTreeMap<String, Vec<u8>> = BTreeMap::new();
        let mut queue: Vec<String> = masters.clone();
        queue.extend(theme.clone());
        while let Some(path) = queue.pop() {
            if parts.contains_key(&path) {
                continue;
            }
            let Some(bytes) = read(&mut archive, &path)? else {
                return Err(format!("it names {path}, which is not in it"));
            };
            parts.insert(path.clone(), bytes);
            let rels_path = rels_of(&path);
            if let Some(bytes) = read(&mut archive, &rels_path)? {
                let text = xml_text(&bytes, &rels_path)?;
                for r in parse_relationships(text, &rels_path, &path)? {
                    queue.push(r.target);
                }
                parts.insert(rels_path, bytes);
            }
        }
        let layouts: Vec<Layout> = parts
            .iter()
            .filter(|(p, _)| p.starts_with("ppt/slideLayouts/") && p.ends_with(".xml"))
            .filter_map(|(p, bytes)| Layout::read(p, bytes))
            .collect();
        let first = layouts.first().ok_or_else(|| {
            "its slide masters have no layouts; expected a PowerPoint template".to_string()
        })?;
        // Title slides: the layout of type `title`, else one with a centred title or a
        // subtitle (LibreOffice names its own "Title Slide" and types it `tx`).
        let title = layouts.iter().find(|l| l.kind == "title").or_else(|| {
            layouts
                .iter()
                .find(|l| l.has("ctrTitle") || l.has("subTitle"))
        });
        // The others: Title and Content (`obj`), else a title with a body, else title only.
        let content = layouts
            .iter()
            .find(|l| l.kind == "obj")
            .or_else(|| layouts.iter().find(|l| l.has("title") && l.has_body()))
            .or_else(|| {
                layouts
                    .iter()
                    .find(|l| l.kind == "titleOnly" || l.has("title"))
            })
            .unwrap_or(first);
        let title = title.unwrap_or(content);
        let title_layout = title.path.clone();
        let title_placeholder = if title.has("ctrTitle") {
            "ctrTitle"
        } else {
            "title"
        };
        let content_layout = content.path.clone();
        let content_types = content_types(&mut read, &mut archive, &parts)?;
        Ok(SlideTemplate {
            parts: parts.into_iter().collect(),
            content_types,
            masters,
            theme,
            title_layout,
            title_placeholder,
            content_layout,
            size,
        })
    }
}

/// A slide layout of a template: its path, type and placeholders.
struct Layout {
    path: String,
    /// `type` of `p:sldLayout` (`title`, `obj`, ...; `cust` when not given).
    kind: String,
    /// Its placeholders' types (`body` for one without a type).
    placeholders: Vec<String>,
}

impl Layout {
    fn read(path: &str, bytes: &[u8]) -> Option<Layout> {
        let text = std::str::from_utf8(bytes).ok()?;
        let doc = parse(text, path).ok()?;
        let root = doc.root_element();
        let placeholders = doc
            .descendants()
            .filter(|n| n.tag_name().name() == "ph")
            .map(|n| n.attribute("type").unwrap_or("body").to_string())
            .collect();
        Some(Layout {
            path: path.to_string(),
            kind: root.attribute("type").unwrap_or("cust").to_string(),
            placeholders,
        })
    }

    fn has(&self, kind: &str) -> bool {
        self.placeholders.iter().any(|p| p == kind)
    }

    fn has_body(&self) -> bool {
        self.has("body") || self.has("obj")
    }
}

/// A part of the archive, read through the budget; `None` when it is not there.
fn read_part(
    archive: &mut zip::ZipArchive<Cursor<&[u8]>>,
    name: &str,
    budget: &mut u64,
) -> Result<Option<Vec<u8>>, String> {
    let part = match archive.by_name(name) {
        Ok(part) => part,
        Err(zip::result::ZipError::FileNotFound) => return Ok(None),
        Err(e) => return Err(format!("cannot read its {name}: {e}")),
    };
    let mut bytes = Vec::new();
    part.take(*budget + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read its {name}: {e}"))?;
    if bytes.len() as u64 > *budget {
        return Err(format!(
            "its masters, layouts and pictures decompress to more than {} MiB; expected a \
             template of at most that",
            MAX_PARTS_BYTES >> 20
        ));
    }
    *budget -= bytes.len() as u64;
    Ok(Some(bytes))
}

fn xml_text<'a>(bytes: &'a [u8], name: &str) -> Result<&'a str, String> {
    std::str::from_utf8(bytes)
        .map_err(|e| format!("its {name} is not UTF-8 (byte {})", e.valid_up_to()))
}

fn parse<'a>(text: &'a str, name: &str) -> Result<roxmltree::Document<'a>, String> {
    let options = roxmltree::ParsingOptions {
        // A DTD could declare entities to expand or fetch; PowerPoint never writes one.
        allow_dtd: false,
        ..roxmltree::ParsingOptions::default()
    };
    roxmltree::Document::parse_with_options(text, options)
        .map_err(|e| format!("its {name} is not well-formed XML without a DTD: {e}"))
}

/// The relationships part of a part: `a/b.xml` → `a/_rels/b.xml.rels`.
pub fn rels_of(path: &str) -> String {
    match path.rsplit_once('/') {
        Some((dir, file)) => format!("{dir}/_rels/{file}.rels"),
        None => format!("_rels/{path}.rels"),
    }
}

struct Relationship {
    kind: String,
    /// The target as a path in the package.
    target: String,
}

fn relationships(
    read: &mut impl FnMut(&mut zip::ZipArchive<Cursor<&[u8]>>, &str) -> Result<Option<Vec<u8>>, String>,
    archive: &mut zip::ZipArchive<Cursor<&[u8]>>,
    part: &str,
) -> Result<Vec<Relationship>, String> {
    let path = rels_of(part);
    let bytes = read(archive, &path)?.ok_or_else(|| format!("no {path} in it"))?;
    parse_relationships(xml_text(&bytes, &path)?, &path, part)
}

/// The internal relationships of `part`, targets resolved to package paths; a target outside
/// the package is refused.
fn parse_relationships(text: &str, name: &str, part: &str) -> Result<Vec<Relationship>, String> {
    let doc = parse(text, name)?;
    let base = part.rsplit_once('/').map_or("", |(dir, _)| dir);
    let mut found = Vec::new();
    for r in doc
        .descendants()
        .filter(|n| n.tag_name().name() == "Relationship")
    {
        if r.attribute("TargetMode") == Some("External") {
            continue;
        }
        let (Some(kind), Some(target)) = (r.attribute("Type"), r.attribute("Target")) else {
            continue;
        };
        let resolved = resolve(base, target)
            .ok_or_else(|| format!("its {name} points outside the package ({target})"))?;
        found.push(Relationship {
            kind: kind.to_string(),
            target: resolved,
        });
    }
    Ok(found)
}

/// `target` relative to the folder `base` (or absolute from the package root), `..` resolved.
fn resolve(base: &str, target: &str) -> Option<String> {
    let mut parts: Vec<&str> = if target.starts_with('/') {
        Vec::new()
    } else {
        base.split('/').filter(|p| !p.is_empty()).collect()
    };
    for piece in target.split('/') {
        match piece {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// The reference's `Default` elements and the `Override`s of the parts taken.
fn content_types(
    read: &mut impl FnMut(&mut zip::ZipArchive<Cursor<&[u8]>>, &str) -> Result<Option<Vec<u8>>, String>,
    archive: &mut zip::ZipArchive<Cursor<&[u8]>>,
    parts: &BTreeMap<String, Vec<u8>>,
) -> Result<Vec<String>, String> {
    let name = "[Content_Types].xml";
    let bytes = read(archive, name)?.ok_or_else(|| format!("no {name} in it"))?;
    let text = xml_text(&bytes, name)?;
    let doc = parse(text, name)?;
    let taken: BTreeSet<String> = parts.keys().map(|p| format!("/{p}")).collect();
    let mut out = Vec::new();
    for n in doc.root_element().children().filter(|n| n.is_element()) {
        let ct = n.attribute("ContentType").unwrap_or("");
        match (
            n.tag_name().name(),
            n.attribute("Extension"),
            n.attribute("PartName"),
        ) {
            ("Default", Some(ext), _)
                if !matches!(ext.to_ascii_lowercase().as_str(), "xml" | "rels" | "png") =>
            {
                out.push(format!(
                    r#"<Default Extension="{}" ContentType="{}"/>"#,
                    escape(ext),
                    escape(ct)
                ));
            }
            ("Override", _, Some(part)) if taken.contains(part) => {
                out.push(format!(
                    r#"<Override PartName="{}" ContentType="{}"/>"#,
                    escape(part),
                    escape(ct)
                ));
            }
            _ => {}
        }
    }
    Ok(out)
}

/// Text for XML content and attribute values.
pub fn escape(text: &str) -> String {
    crate::model::text::escape_xml(text)
}

#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_resolve_within_the_package() {
        assert_eq!(
            resolve("ppt/slideMasters", "../slideLayouts/slideLayout1.xml").unwrap(),
            "ppt/slideLayouts/slideLayout1.xml"
        );
        assert_eq!(
            resolve("ppt", "/ppt/theme/theme1.xml").unwrap(),
            "ppt/theme/theme1.xml"
        );
        assert_eq!(resolve("ppt", "../../etc/passwd"), None);
        assert_eq!(
            rels_of("ppt/presentation.xml"),
            "ppt/_rels/presentation.xml.rels"
        );
    }

    #[test]
    fn a_file_that_is_not_a_template_is_refused_with_the_reason() {
        assert!(SlideTemplate::from_reference(b"plain text")
            .unwrap_err()
            .contains("not a .pptx"));
        let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
        zip.start_file(
            "word/document.xml",
            zip::write::SimpleFileOptions::default(),
        )
        .unwrap();
        let bytes = zip.finish().unwrap().into_inner();
        let e = SlideTemplate::from_reference(&bytes).unwrap_err();
        assert!(e.contains("no ppt/presentation.xml"), "{e}");
    }

    /// A package of the house template's parts with `presentation.xml` and its relationships,
    /// one part replaced.
    fn package_with(name: &str, text: &str) -> Vec<u8> {
        package_replacing(&[(name, text)])
    }

    /// [`package_with`] with several parts replaced.
    fn package_replacing(replaced: &[(&str, &str)]) -> Vec<u8> {
        let house = SlideTemplate::house();
        let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let options = zip::write::SimpleFileOptions::default();
        let mut files: Vec<(String, Vec<u8>)> = house.parts.clone();
        files.push((
            PRESENTATION.to_string(),
            br#"<p:presentation xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"><p:sldSz cx="9144000" cy="6858000"/></p:presentation>"#.to_vec(),
        ));
        files.push((
            "ppt/_rels/presentation.xml.rels".to_string(),
            br#"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/slideMaster" Target="slideMasters/slideMaster1.xml"/></Relationships>"#.to_vec(),
        ));
        files.push((
            "[Content_Types].xml".to_string(),
            br#"<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>"#
                .to_vec(),
        ));
        for (path, bytes) in files {
            let bytes = match replaced.iter().find(|(name, _)| *name == path) {
                Some((_, text)) => text.as_bytes().to_vec(),
                None => bytes,
            };
            zip.start_file(path, options).unwrap();
            std::io::Write::write_all(&mut zip, &bytes).unwrap();
        }
        zip.finish().unwrap().into_inner()
    }

    /// LibreOffice's own templates: its title layout is typed `tx` and holds a title and a
    /// subtitle; the blank layout first is never taken.
    #[test]
    fn layouts_are_chosen_by_their_placeholders_when_their_types_say_nothing() {
        let layout = |kind: &str, placeholders: &str| {
            format!(
                r#"<p:sldLayout xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" type="{kind}"><p:cSld><p:spTree>{placeholders}</p:spTree></p:cSld></p:sldLayout>"#
            )
        };
        let blank = layout("blank", "");
        let title = layout("tx", r#"<p:ph type="title"/><p:ph type="subTitle"/>"#);
        let bytes = package_replacing(&[
            ("ppt/slideLayouts/slideLayout1.xml", &blank),
            ("ppt/slideLayouts/slideLayout2.xml", &title),
        ]);
        let t = SlideTemplate::from_reference(&bytes).unwrap();
        assert_eq!(t.title_layout, "ppt/slideLayouts/slideLayout2.xml");
        assert_eq!(t.title_placeholder, "title");
        assert_eq!(t.content_layout, "ppt/slideLayouts/slideLayout2.xml");
        let content = layout("cust", r#"<p:ph type="title"/><p:ph idx="1"/>"#);
        let bytes = package_replacing(&[
            ("ppt/slideLayouts/slideLayout1.xml", &content),
            ("ppt/slideLayouts/slideLayout2.xml", &title),
        ]);
        let t = SlideTemplate::from_reference(&bytes).unwrap();
        assert_eq!(t.content_layout, "ppt/slideLayouts/slideLayout1.xml");
        assert_eq!(t.title_layout, "ppt/slideLayouts/slideLayout2.xml");
    }

    #[test]
    fn a_template_is_read_and_hostile_parts_are_refused() {
        let good = SlideTemplate::from_reference(&package_with("", "")).unwrap();
        assert_eq!(good.size, (9_144_000, 6_858_000));
        assert_eq!(good.title_layout, "ppt/slideLayouts/slideLayout1.xml");
        assert_eq!(good.content_layout, "ppt/slideLayouts/slideLayout2.xml");
        assert_eq!(
            good.parts.len(),
            7,
            "master, two layouts, their three relationships, the theme"
        );
        let master_rels = "ppt/slideMasters/_rels/slideMaster1.xml.rels";
        let outside = r#"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="x" Target="../../../etc/passwd"/></Relationships>"#;
        let e = SlideTemplate::from_reference(&package_with(master_rels, outside)).unwrap_err();
        assert!(e.contains("points outside the package"), "{e}");
        let dtd = r#"<!DOCTYPE r [<!ENTITY a "aaaa">]><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">&a;</Relationships>"#;
        let e = SlideTemplate::from_reference(&package_with(master_rels, dtd)).unwrap_err();
        assert!(e.contains("without a DTD"), "{e}");
        let missing = r#"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="x" Target="../slideLayouts/gone.xml"/></Relationships>"#;
        let e = SlideTemplate::from_reference(&package_with(master_rels, missing)).unwrap_err();
        assert!(e.contains("gone.xml, which is not in it"), "{e}");
    }
}
