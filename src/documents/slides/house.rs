//! readout's house slide master, layouts and theme: 16:9, white, Arial, dark blue titles.

/// The namespaces every PresentationML part here declares.
macro_rules! ns {
    () => {
        r#"xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main""#
    };
}
pub(super) use ns;

/// A placeholder shape at a position (EMU) with an empty body.
macro_rules! placeholder {
    ($id:literal, $name:literal, $ph:literal, $x:literal, $y:literal, $cx:literal, $cy:literal) => {
        concat!(
            r#"<p:sp><p:nvSpPr><p:cNvPr id=""#, $id, r#"" name=""#, $name, r#""/><p:cNvSpPr><a:spLocks noGrp="1"/></p:cNvSpPr><p:nvPr>"#,
            $ph,
            r#"</p:nvPr></p:nvSpPr><p:spPr><a:xfrm><a:off x=""#, $x, r#"" y=""#, $y, r#""/><a:ext cx=""#, $cx, r#"" cy=""#, $cy,
            r#""/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></p:spPr><p:txBody><a:bodyPr/><a:lstStyle/><a:p><a:endParaRPr lang="en-GB"/></a:p></p:txBody></p:sp>"#
        )
    };
}

const TREE_START: &str = r#"<p:cSld><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="0" cy="0"/><a:chOff x="0" y="0"/><a:chExt cx="0" cy="0"/></a:xfrm></p:grpSpPr>"#;

/// The slide master: title at the top, body below, text styles.
pub const MASTER: &str = concat!(
    r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"#,
    "\n<p:sldMaster ",
    ns!(),
    r#"><p:cSld><p:bg><p:bgRef idx="1001"><a:schemeClr val="bg1"/></p:bgRef></p:bg><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="0" cy="0"/><a:chOff x="0" y="0"/><a:chExt cx="0" cy="0"/></a:xfrm></p:grpSpPr>"#,
    placeholder!(
        "2",
        "Title Placeholder 1",
        r#"<p:ph type="title"/>"#,
        "457200",
        "274320",
        "11277600",
        "914400"
    ),
    placeholder!(
        "3",
        "Text Placeholder 2",
        r#"<p:ph type="body" idx="1"/>"#,
        "457200",
        "1371600",
        "11277600",
        "4937760"
    ),
    r#"</p:spTree></p:cSld><p:clrMap bg1="lt1" tx1="dk1" bg2="lt2" tx2="dk2" accent1="accent1" accent2="accent2" accent3="accent3" accent4="accent4" accent5="accent5" accent6="accent6" hlink="hlink" folHlink="folHlink"/>"#,
    r#"<p:sldLayoutIdLst><p:sldLayoutId id="2147483649" r:id="rId1"/><p:sldLayoutId id="2147483650" r:id="rId2"/></p:sldLayoutIdLst>"#,
    r#"<p:txStyles><p:titleStyle><a:lvl1pPr algn="l"><a:defRPr sz="2800" b="1"><a:solidFill><a:schemeClr val="tx2"/></a:solidFill><a:latin typeface="+mj-lt"/></a:defRPr></a:lvl1pPr></p:titleStyle>"#,
    r#"<p:bodyStyle><a:lvl1pPr marL="285750" indent="-285750"><a:spcBef><a:spcPts val="600"/></a:spcBef><a:buFont typeface="Arial"/><a:buChar char="&#8226;"/><a:defRPr sz="2000"><a:solidFill><a:schemeClr val="tx1"/></a:solidFill><a:latin typeface="+mn-lt"/></a:defRPr></a:lvl1pPr>"#,
    r#"<a:lvl2pPr marL="742950" indent="-285750"><a:spcBef><a:spcPts val="300"/></a:spcBef><a:buFont typeface="Arial"/><a:buChar char="&#8211;"/><a:defRPr sz="1800"><a:solidFill><a:schemeClr val="tx1"/></a:solidFill><a:latin typeface="+mn-lt"/></a:defRPr></a:lvl2pPr></p:bodyStyle>"#,
    r#"<p:otherStyle><a:lvl1pPr><a:defRPr sz="1800"><a:solidFill><a:schemeClr val="tx1"/></a:solidFill><a:latin typeface="+mn-lt"/></a:defRPr></a:lvl1pPr></p:otherStyle></p:txStyles></p:sldMaster>"#
);

/// The master's relationships: its two layouts and the theme.
pub const MASTER_RELS: &str = concat!(
    r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"#,
    "\n",
    r#"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/slideLayout" Target="../slideLayouts/slideLayout1.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/slideLayout" Target="../slideLayouts/slideLayout2.xml"/><Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/theme" Target="../theme/theme1.xml"/></Relationships>"#
);

/// A layout's relationship to the master.
pub const LAYOUT_RELS: &str = concat!(
    r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"#,
    "\n",
    r#"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/slideMaster" Target="../slideMasters/slideMaster1.xml"/></Relationships>"#
);

/// The title slide: a centred title and subtitle.
pub const TITLE_LAYOUT: &str = concat!(
    r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"#,
    "\n<p:sldLayout ",
    ns!(),
    r#" type="title" preserve="1">"#,
    r#"<p:cSld name="Title Slide"><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="0" cy="0"/><a:chOff x="0" y="0"/><a:chExt cx="0" cy="0"/></a:xfrm></p:grpSpPr>"#,
    placeholder!(
        "2",
        "Title 1",
        r#"<p:ph type="ctrTitle"/>"#,
        "914400",
        "1600200",
        "10363200",
        "1828800"
    ),
    placeholder!(
        "3",
        "Subtitle 2",
        r#"<p:ph type="subTitle" idx="1"/>"#,
        "914400",
        "3657600",
        "10363200",
        "1371600"
    ),
    r#"</p:spTree></p:cSld><p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr></p:sldLayout>"#
);

/// Title and content.
pub const CONTENT_LAYOUT: &str = concat!(
    r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"#,
    "\n<p:sldLayout ",
    ns!(),
    r#" type="obj" preserve="1">"#,
    r#"<p:cSld name="Title and Content"><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="0" cy="0"/><a:chOff x="0" y="0"/><a:chExt cx="0" cy="0"/></a:xfrm></p:grpSpPr>"#,
    placeholder!(
        "2",
        "Title 1",
        r#"<p:ph type="title"/>"#,
        "457200",
        "274320",
        "11277600",
        "914400"
    ),
    placeholder!(
        "3",
        "Content Placeholder 2",
        r#"<p:ph idx="1"/>"#,
        "457200",
        "1371600",
        "11277600",
        "4937760"
    ),
    r#"</p:spTree></p:cSld><p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr></p:sldLayout>"#
);

/// The start of a slide's shape tree.
pub fn tree_start() -> &'static str {
    TREE_START
}

/// Colours, fonts (Arial) and the minimal formatting scheme a theme must have.
pub const THEME: &str = concat!(
    r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"#,
    "\n",
    r#"<a:theme xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" name="readout"><a:themeElements>"#,
    r#"<a:clrScheme name="readout"><a:dk1><a:srgbClr val="1F1F1F"/></a:dk1><a:lt1><a:srgbClr val="FFFFFF"/></a:lt1><a:dk2><a:srgbClr val="1F3A5F"/></a:dk2><a:lt2><a:srgbClr val="EEF1F5"/></a:lt2>"#,
    r#"<a:accent1><a:srgbClr val="1F77B4"/></a:accent1><a:accent2><a:srgbClr val="D62728"/></a:accent2><a:accent3><a:srgbClr val="2CA02C"/></a:accent3><a:accent4><a:srgbClr val="FF7F0E"/></a:accent4><a:accent5><a:srgbClr val="9467BD"/></a:accent5><a:accent6><a:srgbClr val="8C564B"/></a:accent6>"#,
    r#"<a:hlink><a:srgbClr val="1F77B4"/></a:hlink><a:folHlink><a:srgbClr val="9467BD"/></a:folHlink></a:clrScheme>"#,
    r#"<a:fontScheme name="readout"><a:majorFont><a:latin typeface="Arial"/><a:ea typeface=""/><a:cs typeface=""/></a:majorFont><a:minorFont><a:latin typeface="Arial"/><a:ea typeface=""/><a:cs typeface=""/></a:minorFont></a:fontScheme>"#,
    r#"<a:fmtScheme name="readout"><a:fillStyleLst><a:solidFill><a:schemeClr val="phClr"/></a:solidFill><a:solidFill><a:schemeClr val="phClr"/></a:solidFill><a:solidFill><a:schemeClr val="phClr"/></a:solidFill></a:fillStyleLst>"#,
    r#"<a:lnStyleLst><a:ln w="9525"><a:solidFill><a:schemeClr val="phClr"/></a:solidFill></a:ln><a:ln w="12700"><a:solidFill><a:schemeClr val="phClr"/></a:solidFill></a:ln><a:ln w="19050"><a:solidFill><a:schemeClr val="phClr"/></a:solidFill></a:ln></a:lnStyleLst>"#,
    r#"<a:effectStyleLst><a:effectStyle><a:effectLst/></a:effectStyle><a:effectStyle><a:effectLst/></a:effectStyle><a:effectStyle><a:effectLst/></a:effectStyle></a:effectStyleLst>"#,
    r#"<a:bgFillStyleLst><a:solidFill><a:schemeClr val="phClr"/></a:solidFill><a:solidFill><a:schemeClr val="phClr"/></a:solidFill><a:solidFill><a:schemeClr val="phClr"/></a:solidFill></a:bgFillStyleLst></a:fmtScheme>"#,
    r#"</a:themeElements><a:objectDefaults/><a:extraClrSchemeLst/></a:theme>"#
);
