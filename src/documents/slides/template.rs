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
/// The relationships namespace, and the start of every relationship type a deck takes.
const RELATIONSHIPS: &str = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
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

    /// A company template's masters, layouts and theme, read as an allow-list: only the parts
    /// a deck needs (the presentation's slide masters and theme, the masters' layouts and
    /// themes, their pictures), each checked before it is taken; the error says what is
    /// wrong with it (docs/CONFIG.md, `output.pptx_reference`).
    pub fn from_reference(pptx: &[u8]) -> Result<SlideTemplate, String> {
        let mut package = Package::open(pptx)?;
        let presentation = package.xml(PRESENTATION, Role::Presentation)?;
        let size = slide_size(&presentation)?;
        let presentation_rels = rels_of(PRESENTATION);
        let rels_text = package
            .read(&presentation_rels)?
            .ok_or_else(|| format!("no {presentation_rels} in it"))?;
        // Only the masters and the theme are followed from the presentation: its slides,
        // notes, macros and anything else it holds are never read.
        let mut masters = Vec::new();
        let mut theme = None;
        for r in parse_relationships(&utf8(&rels_text, &presentation_rels)?, &presentation_rels)? {
            let Target::Internal(path) = &r.target else {
                continue;
            };
            match r.kind.as_str() {
                RELATIONSHIP_SLIDE_MASTER => masters.push(package.canonical(path)),
                RELATIONSHIP_THEME if theme.is_none() => theme = Some(package.canonical(path)),
                _ => {}
            }
        }
        if masters.is_empty() {
            return Err(format!(
                "its {PRESENTATION} names no slide master; expected a PowerPoint template"
            ));
        }
        // Every part the masters and theme reach, each in the role its relationship gives it.
        let mut taken: BTreeMap<String, (Role, Vec<u8>)> = BTreeMap::new();
        let mut queue: Vec<(String, Role)> =
            masters.iter().map(|m| (m.clone(), Role::Master)).collect();
        queue.extend(theme.iter().map(|t| (t.clone(), Role::Theme)));
        while let Some((path, role)) = queue.pop() {
            if let Some((seen, _)) = taken.get(&path) {
                if *seen != role {
                    return Err(format!(
                        "{path} is reached both as {} and as {}; expected one part per role",
                        seen.name(),
                        role.name()
                    ));
                }
                continue;
            }
            if taken.len() >= MAX_PARTS {
                return Err(format!(
                    "its masters reach more than {MAX_PARTS} parts; expected a template of fewer"
                ));
            }
            if role == Role::Master && !masters.contains(&path) {
                return Err(format!(
                    "a layout names the slide master {path}, which {PRESENTATION} does not list"
                ));
            }
            check_part_name(&path, role)?;
            let bytes = package
                .read(&path)?
                .ok_or_else(|| format!("it names {path}, which is not in it"))?;
            let ids = match role {
                Role::Picture => {
                    check_picture(&path, &bytes)?;
                    BTreeSet::new()
                }
                _ => relationship_ids(&package.xml_of(&bytes, &path, role)?, &path),
            };
            let rels_path = rels_of(&path);
            let kept = if role == Role::Picture {
                Vec::new()
            } else {
                followed(&mut package, &rels_path, role, &mut queue)?
            };
            // Every relationship a part names must be there: PowerPoint repairs a dangling one.
            if let Some(missing) = ids.iter().find(|id| !kept.iter().any(|k| &k.id == *id)) {
                return Err(format!(
                    "its {path} names the relationship {missing}, which {rels_path} does not hold"
                ));
            }
            if !kept.is_empty() {
                taken.insert(
                    rels_path,
                    (Role::Relationships, write_relationships(&path, &kept)),
                );
            }
            taken.insert(path, (role, bytes));
        }
        let layouts: Vec<Layout> = taken
            .iter()
            .filter(|(_, (role, _))| *role == Role::Layout)
            .filter_map(|(p, (_, bytes))| Layout::read(p, bytes))
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
        let content_types = content_types(&taken);
        Ok(SlideTemplate {
            parts: taken
                .into_iter()
                .map(|(path, (_, bytes))| (path, bytes))
                .collect(),
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

/// The relationships of a part (`rels_path`, when it has one), each checked: internal, and of
/// a kind `role` may reach; each target queued in the role it reaches.
fn followed(
    package: &mut Package<'_>,
    rels_path: &str,
    role: Role,
    queue: &mut Vec<(String, Role)>,
) -> Result<Vec<Kept>, String> {
    let mut kept = Vec::new();
    if let Some(rels) = package.read(rels_path)? {
        for r in parse_relationships(&utf8(&rels, rels_path)?, rels_path)? {
            let target = match &r.target {
                Target::External(to) => {
                    return Err(format!(
                        "its {rels_path} links to {} outside the file; expected a \
                         template whose masters and layouts hold no links \
                         (remove them, or the pictures linked, and save it again)",
                        crate::model::text::escape_controls(to, false)
                    ))
                }
                Target::Internal(to) => package.canonical(to),
            };
            let next = role.reaches(&r.kind).ok_or_else(|| {
                format!(
                    "its {rels_path} holds a relationship of type {} (to {target}); \
                     readout takes only slide masters, layouts, themes and their \
                     pictures, never macros, embedded objects or controls",
                    crate::model::text::escape_controls(&r.kind, false)
                )
            })?;
            kept.push(Kept {
                id: r.id,
                kind: r.kind,
                target: target.clone(),
            });
            queue.push((target, next));
        }
    }
    Ok(kept)
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

/// The most parts taken from a reference (masters, layouts, themes, pictures, relationships).
const MAX_PARTS: usize = 4096;

/// What a part of the template is to the deck, from the relationship that reaches it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Presentation,
    Master,
    Layout,
    Theme,
    Picture,
    /// Name–value pairs add-ins keep on a master or layout (`p:tagLst`): data, nothing runs.
    Tags,
    Relationships,
}

impl Role {
    fn name(self) -> &'static str {
        match self {
            Role::Presentation => "the presentation",
            Role::Master => "a slide master",
            Role::Layout => "a slide layout",
            Role::Theme => "a theme",
            Role::Picture => "a picture",
            Role::Tags => "tags",
            Role::Relationships => "relationships",
        }
    }

    /// The root element of an XML part in this role.
    fn root(self) -> &'static str {
        match self {
            Role::Presentation => "presentation",
            Role::Master => "sldMaster",
            Role::Layout => "sldLayout",
            Role::Theme => "theme",
            Role::Picture => "",
            Role::Tags => "tagLst",
            Role::Relationships => "Relationships",
        }
    }

    /// The role of the part a relationship of type `kind` from this one reaches; `None` for
    /// what a deck does not need (macros, embedded objects, controls, tags, ...).
    fn reaches(self, kind: &str) -> Option<Role> {
        let kind = kind.strip_prefix(RELATIONSHIPS)?;
        match (self, kind) {
            (Role::Master, "/slideLayout") => Some(Role::Layout),
            (Role::Master, "/theme") => Some(Role::Theme),
            (Role::Layout, "/slideMaster") => Some(Role::Master),
            (Role::Master | Role::Layout | Role::Theme, "/image") => Some(Role::Picture),
            (Role::Master | Role::Layout, "/tags") => Some(Role::Tags),
            _ => None,
        }
    }

    /// Its content type in `[Content_Types].xml`, rebuilt by readout.
    fn content_type(self) -> Option<&'static str> {
        match self {
            Role::Master => {
                Some("application/vnd.openxmlformats-officedocument.presentationml.slideMaster+xml")
            }
            Role::Layout => {
                Some("application/vnd.openxmlformats-officedocument.presentationml.slideLayout+xml")
            }
            Role::Theme => Some("application/vnd.openxmlformats-officedocument.theme+xml"),
            Role::Tags => {
                Some("application/vnd.openxmlformats-officedocument.presentationml.tags+xml")
            }
            _ => None,
        }
    }
}

/// The picture types a template may hold: extension, content type, how the file starts.
const PICTURES: &[(&str, &str, &[&[u8]])] = &[
    ("png", "image/png", &[b"\x89PNG\r\n\x1a\n"]),
    ("jpg", "image/jpeg", &[b"\xff\xd8\xff"]),
    ("jpeg", "image/jpeg", &[b"\xff\xd8\xff"]),
    ("gif", "image/gif", &[b"GIF87a", b"GIF89a"]),
    ("bmp", "image/bmp", &[b"BM"]),
    ("tif", "image/tiff", &[b"II*\0", b"MM\0*"]),
    ("tiff", "image/tiff", &[b"II*\0", b"MM\0*"]),
    ("emf", "image/x-emf", &[b"\x01\0\0\0"]),
    (
        "wmf",
        "image/x-wmf",
        &[b"\xd7\xcd\xc6\x9a", b"\x01\0\x09\0", b"\x02\0\x09\0"],
    ),
];

/// Part names readout writes itself (compared without case, as OPC compares part names).
fn is_readouts_own(lower: &str) -> bool {
    matches!(
        lower,
        "ppt/presentation.xml" | "ppt/presprops.xml" | "ppt/viewprops.xml" | "ppt/tablestyles.xml"
    ) || lower.starts_with("ppt/slides/")
        || lower.starts_with("ppt/_rels/")
        || lower.starts_with("ppt/media/readout-")
}

/// A part name as readout takes it: under `ppt/`, segments of ASCII letters, digits, `-`, `_`
/// and `.` (none starting or ending with a dot), not one of readout's own, an XML part named
/// `.xml` and a picture by the extension of a type it may be.
fn check_part_name(path: &str, role: Role) -> Result<(), String> {
    let shown = crate::model::text::escape_controls(path, false);
    let lower = path.to_ascii_lowercase();
    let segments_ok = path.split('/').all(|s| {
        !s.is_empty()
            && !s.starts_with('.')
            && !s.ends_with('.')
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
    });
    if !segments_ok || !lower.starts_with("ppt/") {
        return Err(format!(
            "it names a part {shown}; expected part names under ppt/ of letters, digits, \
             '-', '_' and '.'"
        ));
    }
    if is_readouts_own(&lower) {
        return Err(format!(
            "it holds {shown} as {}, a name readout writes itself in every deck",
            role.name()
        ));
    }
    let extension = lower.rsplit_once('.').map_or("", |(_, e)| e);
    match role {
        Role::Picture if !PICTURES.iter().any(|(e, _, _)| *e == extension) => Err(format!(
            "its picture {shown} is not one of the types readout takes ({}); save it as PNG",
            PICTURES
                .iter()
                .map(|(e, _, _)| *e)
                .collect::<Vec<_>>()
                .join(", ")
        )),
        Role::Picture => Ok(()),
        _ if extension != "xml" => Err(format!(
            "it names {shown} as {}; expected an .xml part",
            role.name()
        )),
        _ => Ok(()),
    }
}

/// A picture whose bytes are what its extension says.
fn check_picture(path: &str, bytes: &[u8]) -> Result<(), String> {
    let extension = path
        .rsplit_once('.')
        .map_or("", |(_, e)| e)
        .to_ascii_lowercase();
    let starts = PICTURES
        .iter()
        .filter(|(e, _, _)| *e == extension)
        .flat_map(|(_, _, starts)| starts.iter());
    let fits = starts.clone().any(|s| bytes.starts_with(s));
    let emf = extension == "emf" && bytes.get(40..44) != Some(b" EMF");
    if !fits || emf {
        return Err(format!(
            "its picture {path} is not a {} file",
            extension.to_ascii_uppercase()
        ));
    }
    Ok(())
}

/// The archive, its part names looked up without case, read through one budget.
struct Package<'a> {
    archive: zip::ZipArchive<Cursor<&'a [u8]>>,
    /// Lower-case part name → the name in the archive.
    names: BTreeMap<String, String>,
    budget: u64,
}

impl<'a> Package<'a> {
    fn open(pptx: &'a [u8]) -> Result<Package<'a>, String> {
        let archive = zip::ZipArchive::new(Cursor::new(pptx))
            .map_err(|e| format!("not a .pptx (a zip archive): {e}"))?;
        let mut names: BTreeMap<String, String> = BTreeMap::new();
        for name in archive.file_names() {
            let name = name.map_err(|e| format!("a part name cannot be read: {e}"))?;
            let name: &str = &name;
            if let Some(other) = names.insert(name.to_ascii_lowercase(), name.to_string()) {
                return Err(format!(
                    "its parts {} and {} differ only in case; a package's part names are \
                     compared without case, so it is not a valid PowerPoint file",
                    crate::model::text::escape_controls(&other, false),
                    crate::model::text::escape_controls(name, false)
                ));
            }
        }
        Ok(Package {
            archive,
            names,
            budget: MAX_PARTS_BYTES,
        })
    }

    /// The archive's own spelling of a part name (as the name given when it is not there).
    fn canonical(&self, path: &str) -> String {
        self.names
            .get(&path.to_ascii_lowercase())
            .cloned()
            .unwrap_or_else(|| path.to_string())
    }

    /// A part's bytes through the budget; `None` when it is not there.
    fn read(&mut self, name: &str) -> Result<Option<Vec<u8>>, String> {
        let Some(stored) = self.names.get(&name.to_ascii_lowercase()) else {
            return Ok(None);
        };
        let part = self
            .archive
            .by_name(stored)
            .map_err(|e| format!("cannot read its {name}: {e}"))?;
        let mut bytes = Vec::new();
        part.take(self.budget + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| format!("cannot read its {name}: {e}"))?;
        if bytes.len() as u64 > self.budget {
            return Err(format!(
                "its masters, layouts and pictures decompress to more than {} MiB; expected a \
                 template of at most that",
                MAX_PARTS_BYTES >> 20
            ));
        }
        self.budget -= bytes.len() as u64;
        Ok(Some(bytes))
    }

    /// An XML part read and checked ([`checked_xml`]), as text.
    fn xml(&mut self, name: &str, role: Role) -> Result<String, String> {
        let bytes = self
            .read(name)?
            .ok_or_else(|| format!("no {name} in it; expected a PowerPoint file"))?;
        self.xml_of(&bytes, name, role)
    }

    fn xml_of(&self, bytes: &[u8], name: &str, role: Role) -> Result<String, String> {
        let text = utf8(bytes, name)?;
        checked_xml(&text, name, role)?;
        Ok(text)
    }
}

/// A part's text: UTF-8, and declared so when it declares an encoding.
fn utf8(bytes: &[u8], name: &str) -> Result<String, String> {
    let text = std::str::from_utf8(bytes)
        .map_err(|e| format!("its {name} is not UTF-8 (byte {})", e.valid_up_to()))?;
    let declared = text
        .trim_start_matches('\u{feff}')
        .strip_prefix("<?xml")
        .and_then(|d| d.split_once("?>"))
        .and_then(|(d, _)| d.split_once("encoding=").map(|(_, e)| e))
        .and_then(|e| {
            let quote = e.chars().next()?;
            e.get(1..)?.split(quote).next()
        });
    if let Some(encoding) = declared {
        if !encoding.eq_ignore_ascii_case("utf-8") {
            return Err(format!(
                "its {name} declares the encoding {}; expected UTF-8",
                crate::model::text::escape_controls(encoding, false)
            ));
        }
    }
    Ok(text.to_string())
}

/// Well-formed XML without a DTD whose root element is the one of its role.
fn checked_xml(text: &str, name: &str, role: Role) -> Result<(), String> {
    let doc = parse(text, name)?;
    let root = doc.root_element().tag_name().name();
    if root != role.root() {
        return Err(format!(
            "its {name} is not {} (its root element is <{}>, expected <{}>)",
            role.name(),
            crate::model::text::escape_controls(root, false),
            role.root()
        ));
    }
    Ok(())
}

/// The relationship ids an XML part names (`r:id`, `r:embed`, `r:link`, ...).
fn relationship_ids(text: &str, name: &str) -> BTreeSet<String> {
    parse(text, name)
        .map(|doc| {
            doc.descendants()
                .flat_map(|n| n.attributes())
                .filter(|a| a.namespace() == Some(RELATIONSHIPS))
                .map(|a| a.value().to_string())
                .collect()
        })
        .unwrap_or_default()
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

/// The presentation's slide size (`p:sldSz`), 1 to 56 inches each way.
fn slide_size(presentation: &str) -> Result<(u64, u64), String> {
    let doc = parse(presentation, PRESENTATION)?;
    doc.descendants()
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
        })
}

/// The relationships part of a part: `a/b.xml` → `a/_rels/b.xml.rels`.
pub fn rels_of(path: &str) -> String {
    match path.rsplit_once('/') {
        Some((dir, file)) => format!("{dir}/_rels/{file}.rels"),
        None => format!("_rels/{path}.rels"),
    }
}

/// The part a relationships part belongs to: `a/_rels/b.xml.rels` → `a/b.xml`.
fn source_of(rels: &str) -> String {
    let (dir, file) = rels.rsplit_once("_rels/").unwrap_or(("", rels));
    format!("{dir}{}", file.strip_suffix(".rels").unwrap_or(file))
}

/// Where a relationship points.
enum Target {
    /// A part of the package, as a path from its root.
    Internal(String),
    /// Anything outside it (`TargetMode="External"`), as written.
    External(String),
}

struct Relationship {
    id: String,
    kind: String,
    target: Target,
}

/// A relationship kept, its target the part's name in the archive.
struct Kept {
    id: String,
    kind: String,
    target: String,
}

/// The relationships of a relationships part, internal targets resolved to package paths;
/// a target outside the package, a duplicate id or an element that is not a relationship is
/// refused.
fn parse_relationships(text: &str, name: &str) -> Result<Vec<Relationship>, String> {
    checked_xml(text, name, Role::Relationships)?;
    let doc = parse(text, name)?;
    let part = source_of(name);
    let base = part.rsplit_once('/').map_or("", |(dir, _)| dir);
    let mut found: Vec<Relationship> = Vec::new();
    for r in doc.root_element().children().filter(|n| n.is_element()) {
        let (Some(id), Some(kind), Some(target)) = (
            r.attribute("Id"),
            r.attribute("Type"),
            r.attribute("Target"),
        ) else {
            return Err(format!(
                "its {name} holds a <{}> that is not a relationship with an Id, Type and Target",
                r.tag_name().name()
            ));
        };
        if found.iter().any(|f| f.id == id) {
            return Err(format!("its {name} holds the relationship id {id} twice"));
        }
        let target = if r.attribute("TargetMode") == Some("External") {
            Target::External(target.to_string())
        } else {
            Target::Internal(resolve(base, target).ok_or_else(|| {
                format!(
                    "its {name} points outside the package ({})",
                    crate::model::text::escape_controls(target, false)
                )
            })?)
        };
        found.push(Relationship {
            id: id.to_string(),
            kind: kind.to_string(),
            target,
        });
    }
    Ok(found)
}

/// A relationships part written anew from the relationships kept.
fn write_relationships(part: &str, kept: &[Kept]) -> Vec<u8> {
    let base = part.rsplit_once('/').map_or("", |(dir, _)| dir);
    let mut out = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n<Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\">",
    );
    for k in kept {
        out.push_str(&format!(
            r#"<Relationship Id="{}" Type="{}" Target="{}"/>"#,
            escape(&k.id),
            escape(&k.kind),
            escape(&relative(base, &k.target))
        ));
    }
    out.push_str("</Relationships>");
    out.into_bytes()
}

/// `target` (a path from the package root) as a path relative to the folder `base`.
fn relative(base: &str, target: &str) -> String {
    let from: Vec<&str> = base.split('/').filter(|s| !s.is_empty()).collect();
    let to: Vec<&str> = target.split('/').collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<&str> = vec![".."; from.len() - common];
    parts.extend(to.get(common..).unwrap_or_default());
    parts.join("/")
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

/// `[Content_Types].xml` entries of the parts taken, decided by readout from their roles: an
/// `Override` per master, layout and theme, a `Default` per picture extension but PNG (which
/// readout's own figures give already).
fn content_types(taken: &BTreeMap<String, (Role, Vec<u8>)>) -> Vec<String> {
    let mut defaults = BTreeSet::new();
    let mut out = Vec::new();
    for (path, (role, _)) in taken {
        if let Some(ct) = role.content_type() {
            out.push(format!(
                r#"<Override PartName="/{}" ContentType="{ct}"/>"#,
                escape(path)
            ));
        } else if *role == Role::Picture {
            let extension = path
                .rsplit_once('.')
                .map_or("", |(_, e)| e)
                .to_ascii_lowercase();
            if let Some((e, ct, _)) = PICTURES.iter().find(|(e, _, _)| *e == extension) {
                if *e != "png" {
                    defaults.insert(format!(r#"<Default Extension="{e}" ContentType="{ct}"/>"#));
                }
            }
        }
    }
    defaults.into_iter().chain(out).collect()
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

    /// [`package_with`] with several parts replaced (or added).
    fn package_replacing(replaced: &[(&str, &str)]) -> Vec<u8> {
        let replaced: Vec<(&str, &[u8])> =
            replaced.iter().map(|(n, t)| (*n, t.as_bytes())).collect();
        package_of(&replaced)
    }

    /// The house parts, presentation and content types, with `replaced` parts replaced or
    /// added; a part replaced by `b"-"` is left out.
    fn package_of(replaced: &[(&str, &[u8])]) -> Vec<u8> {
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
        for (name, bytes) in replaced {
            if !name.is_empty() && !files.iter().any(|(path, _)| path == name) {
                files.push((name.to_string(), bytes.to_vec()));
            }
        }
        for (path, bytes) in files {
            let bytes = match replaced.iter().find(|(name, _)| *name == path) {
                Some((_, b"-")) => continue,
                Some((_, bytes)) => bytes.to_vec(),
                None => bytes,
            };
            zip.start_file(path, options).unwrap();
            std::io::Write::write_all(&mut zip, &bytes).unwrap();
        }
        zip.finish().unwrap().into_inner()
    }

    const MASTER: &str = "ppt/slideMasters/slideMaster1.xml";
    const MASTER_RELS: &str = "ppt/slideMasters/_rels/slideMaster1.xml.rels";
    const LAYOUT: &str = "ppt/slideLayouts/slideLayout2.xml";

    /// The master's relationships with one more.
    fn master_rels_with(extra: &str) -> String {
        super::super::house::MASTER_RELS
            .replace("</Relationships>", &format!("{extra}</Relationships>"))
    }

    /// The error of a template whose master has one more relationship.
    fn refused_with_relationship(extra: &str) -> String {
        SlideTemplate::from_reference(&package_with(MASTER_RELS, &master_rels_with(extra)))
            .unwrap_err()
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
        let missing = &super::super::house::MASTER_RELS.replace("slideLayout1.xml", "gone.xml");
        let e = SlideTemplate::from_reference(&package_with(master_rels, missing)).unwrap_err();
        assert!(e.contains("gone.xml, which is not in it"), "{e}");
    }

    /// Links outside the file (hyperlinks, linked pictures, linked objects) on a master are
    /// refused at the key: a deck must not carry them.
    #[test]
    fn external_relationships_are_refused() {
        for (kind, target) in [
            ("hyperlink", "file:///etc/passwd"),
            ("hyperlink", "javascript:alert(1)"),
            ("image", r"\\host\share\x.png"),
            ("oleObject", "file:///C:/x.xlsx"),
        ] {
            let e = refused_with_relationship(&format!(
                r#"<Relationship Id="rId9" Type="{RELATIONSHIPS}/{kind}" Target="{target}" TargetMode="External"/>"#
            ));
            assert!(
                e.contains("outside the file") && e.contains("rels"),
                "{kind}: {e}"
            );
        }
    }

    /// Macros, embedded objects, controls and workbooks reached from a master are refused,
    /// whatever their content type says.
    #[test]
    fn active_content_is_refused() {
        for (kind, target) in [
            (
                "http://schemas.microsoft.com/office/2006/relationships/vbaProject",
                "../vbaProject.bin",
            ),
            (
                "http://schemas.openxmlformats.org/officeDocument/2006/relationships/oleObject",
                "../embeddings/oleObject1.bin",
            ),
            (
                "http://schemas.openxmlformats.org/officeDocument/2006/relationships/control",
                "../activeX/activeX1.xml",
            ),
            (
                "http://schemas.openxmlformats.org/officeDocument/2006/relationships/package",
                "../embeddings/Book1.xlsm",
            ),
            (
                "http://schemas.openxmlformats.org/officeDocument/2006/relationships/slide",
                "../slides/slide1.xml",
            ),
        ] {
            let e = refused_with_relationship(&format!(
                r#"<Relationship Id="rId9" Type="{kind}" Target="{target}"/>"#
            ));
            assert!(
                e.contains("holds a relationship of type") && e.contains("never macros"),
                "{kind}: {e}"
            );
        }
    }

    /// Every part taken is parsed: a DTD, text that is not XML, bytes that are not UTF-8, a
    /// declared encoding other than UTF-8, or a part that is not what its relationship says.
    #[test]
    fn every_part_taken_is_checked_xml() {
        let cases: [(&str, &[u8], &str); 6] = [
            (
                MASTER,
                br#"<!DOCTYPE p:sldMaster [<!ENTITY x SYSTEM "file:///etc/passwd">]><p:sldMaster xmlns:p="p">&x;</p:sldMaster>"#,
                "without a DTD",
            ),
            (LAYOUT, b"this is not XML", "not well-formed"),
            ("ppt/theme/theme1.xml", b"<a:theme xmlns:a=\"a\" name=\"Caf\xe9\"/>", "not UTF-8"),
            (
                "ppt/theme/theme1.xml",
                b"<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><a:theme xmlns:a=\"a\"/>",
                "declares the encoding ISO-8859-1",
            ),
            (LAYOUT, b"<html/>", "is not a slide layout"),
            (MASTER_RELS, b"<Types/>", "is not relationships"),
        ];
        for (name, bytes, said) in cases {
            let e = SlideTemplate::from_reference(&package_of(&[(name, bytes)])).unwrap_err();
            assert!(e.contains(said) && e.contains(name), "{name}: {e}");
        }
    }

    /// Part names are compared without case: two that differ only so make an invalid
    /// package; a relationship spelled in another case finds its part under its own name.
    #[test]
    fn part_names_are_compared_without_case() {
        for (twin, of) in [
            ("[content_types].xml", "[Content_Types].xml"),
            ("ppt/SlideMasters/SlideMaster1.xml", MASTER),
            ("_RELS/.rels", "_rels/.rels"),
        ] {
            let mut parts: Vec<(&str, &[u8])> = vec![(twin, b"<x/>")];
            if of == "_rels/.rels" {
                parts.push((of, b"<x/>"));
            }
            let e = SlideTemplate::from_reference(&package_of(&parts)).unwrap_err();
            assert!(e.contains("differ only in case"), "{twin}: {e}");
        }
        let rels = super::super::house::MASTER_RELS.replace("slideLayout1.xml", "SLIDELAYOUT1.XML");
        let t = SlideTemplate::from_reference(&package_with(MASTER_RELS, &rels)).unwrap();
        let names: Vec<&str> = t.parts.iter().map(|(p, _)| p.as_str()).collect();
        assert!(
            names.contains(&"ppt/slideLayouts/slideLayout1.xml"),
            "{names:?}"
        );
        assert!(!names.iter().any(|n| n.contains("SLIDELAYOUT")));
        let written = t.parts.iter().find(|(p, _)| p == MASTER_RELS).unwrap();
        assert!(String::from_utf8_lossy(&written.1).contains("../slideLayouts/slideLayout1.xml"));
    }

    /// A part with readout's own name, or a name that is not a clean part name, is refused;
    /// pictures are of image types and are what their extension says.
    #[test]
    fn part_names_and_pictures_are_checked() {
        let image = |target: &str| {
            format!(r#"<Relationship Id="rId9" Type="{RELATIONSHIPS}/image" Target="{target}"/>"#)
        };
        let png = b"\x89PNG\r\n\x1a\nrest";
        let cases: [(&str, &str, &[u8], &str); 5] = [
            (
                "../slides/slide1.png",
                "ppt/slides/slide1.png",
                png,
                "a name readout writes itself",
            ),
            (
                "../media/readout-km-pfs.png",
                "ppt/media/readout-km-pfs.png",
                png,
                "a name readout writes itself",
            ),
            (r"..\media\x.png", "", png, "expected part names under ppt/"),
            (
                "../media/logo.svg",
                "ppt/media/logo.svg",
                b"<svg/>",
                "not one of the types",
            ),
            (
                "../media/logo.png",
                "ppt/media/logo.png",
                b"GIF89a",
                "is not a PNG file",
            ),
        ];
        for (target, part, bytes, said) in cases {
            let rels = master_rels_with(&image(target));
            let e = SlideTemplate::from_reference(&package_of(&[
                (MASTER_RELS, rels.as_bytes()),
                (part, bytes),
            ]))
            .unwrap_err();
            assert!(e.contains(said), "{target}: {e}");
        }
        // Tags (add-ins' data) are taken as data.
        let rels = master_rels_with(&format!(
            r#"<Relationship Id="rId9" Type="{RELATIONSHIPS}/tags" Target="../tags/tag1.xml"/>"#
        ));
        let t = SlideTemplate::from_reference(&package_of(&[
            (MASTER_RELS, rels.as_bytes()),
            (
                "ppt/tags/tag1.xml",
                br#"<p:tagLst xmlns:p="p"><p:tag name="A" val="1"/></p:tagLst>"#,
            ),
        ]))
        .unwrap();
        assert!(t
            .content_types
            .iter()
            .any(|c| c.contains("/ppt/tags/tag1.xml")));
        // A good picture is taken with its content type decided by readout.
        let rels = master_rels_with(&image("../media/logo.jpeg"));
        let t = SlideTemplate::from_reference(&package_of(&[
            (MASTER_RELS, rels.as_bytes()),
            ("ppt/media/logo.jpeg", b"\xff\xd8\xff\xe0 jpeg"),
        ]))
        .unwrap();
        assert!(t.parts.iter().any(|(p, _)| p == "ppt/media/logo.jpeg"));
        assert!(t
            .content_types
            .contains(&r#"<Default Extension="jpeg" ContentType="image/jpeg"/>"#.to_string()));
    }

    /// Content types are readout's, whatever the reference's `[Content_Types].xml` says (or
    /// whether it says anything); a part naming a relationship its relationships lack, or a
    /// layout naming a master the presentation does not list, is refused.
    #[test]
    fn content_types_are_rebuilt_and_references_resolve() {
        let t =
            SlideTemplate::from_reference(&package_of(&[("[Content_Types].xml", b"-")])).unwrap();
        let ct = |part: &str, kind: &str| {
            format!(
                r#"<Override PartName="/{part}" ContentType="application/vnd.openxmlformats-officedocument.{kind}"/>"#
            )
        };
        for (part, kind) in [
            (MASTER, "presentationml.slideMaster+xml"),
            (LAYOUT, "presentationml.slideLayout+xml"),
            ("ppt/theme/theme1.xml", "theme+xml"),
        ] {
            assert!(
                t.content_types.contains(&ct(part, kind)),
                "{part}: {:?}",
                t.content_types
            );
        }
        let master = super::super::house::MASTER.replace(r#"r:id="rId2""#, r#"r:id="rId7""#);
        let e = SlideTemplate::from_reference(&package_with(MASTER, &master)).unwrap_err();
        assert!(e.contains("names the relationship rId7"), "{e}");
        let layout_rels =
            super::super::house::LAYOUT_RELS.replace("slideMaster1.xml", "slideMaster2.xml");
        let e = SlideTemplate::from_reference(&package_replacing(&[
            ("ppt/slideLayouts/_rels/slideLayout2.xml.rels", &layout_rels),
            (
                "ppt/slideMasters/slideMaster2.xml",
                super::super::house::MASTER,
            ),
        ]))
        .unwrap_err();
        assert!(e.contains("does not list"), "{e}");
    }
}
