//! The report's document model: sections of facts, paragraphs, tables (every cell as
//! printed, with spans), lists and the figures' place.

use serde::Serialize;

/// A cohort report.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The line above the title ("Cohort report · study (registry id)").
    pub kicker: String,
    /// The facts under the title (cohort, cut-off, design, regimen).
    pub facts: Vec<Fact>,
    /// The sections, in order.
    pub sections: Vec<Section>,
    /// Each figure's number (`3`, `14.2.1`), in the order of the figures.
    pub figure_numbers: Vec<String>,
    /// How tables and figures are numbered (`output.numbering`).
    pub numbering: crate::config::Numbering,
}

/// A label and its value, under the title.
#[derive(Debug, Clone, Serialize)]
pub struct Fact {
    /// "Cohort", "Data cut-off", ...
    pub label: String,
    /// Its value, as printed.
    pub value: String,
}

/// A section: a heading and its blocks.
#[derive(Debug, Clone, Serialize)]
pub struct Section {
    /// Anchor (`populations`, `baseline`, `response`, ...).
    pub id: &'static str,
    /// The heading.
    pub heading: String,
    /// What follows the heading.
    pub blocks: Vec<Block>,
}

/// A part of a section.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Block {
    /// A table.
    Table(Table),
    /// A heading below the section's.
    Subheading {
        /// Its text.
        text: String,
    },
    /// A paragraph.
    Paragraph {
        /// Its text.
        text: String,
    },
    /// A table's number and title, above it ("Table 3. Treatment-emergent adverse events by
    /// system organ class and preferred term, safety population"); numbered by
    /// `output.numbering` when the report is assembled.
    Caption {
        /// Its text: "Table", the number and the title.
        text: String,
        /// The number alone (`3`, `14.3.1.2`); empty until numbered.
        number: String,
        /// The title alone.
        title: String,
    },
    /// A note in small print (abbreviations, how the data were graded).
    Note {
        /// Its text.
        text: String,
    },
    /// A bulleted list.
    List {
        /// Its items.
        items: Vec<String>,
    },
    /// The cohort's figures, with their captions, numbered in order.
    Figures,
}

/// A table: header rows and body rows.
#[derive(Debug, Clone, Serialize)]
pub struct Table {
    /// Layout class (`wide`: many numeric columns; `terms`: a long list of terms).
    pub class: Option<&'static str>,
    /// Its caption's text ("Table 3. ..."), once numbered: HTML's `<caption>`.
    pub caption: Option<String>,
    /// Header rows.
    pub head: Vec<Row>,
    /// Body rows.
    pub body: Vec<Row>,
}

/// A table row.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// `group` (a characteristic's name above its levels) or `total` (a summary line).
    pub class: Option<&'static str>,
    /// Its cells.
    pub cells: Vec<Cell>,
}

/// A table cell, its text as printed.
#[derive(Debug, Clone, Serialize)]
pub struct Cell {
    /// The text.
    pub text: String,
    /// A number (right-aligned).
    pub num: bool,
    /// A level under a group row (indented).
    pub level: bool,
    /// Columns spanned.
    pub colspan: u32,
    /// Rows spanned.
    pub rowspan: u32,
}

impl Block {
    /// A table's caption, `title` until the report is numbered.
    pub(super) fn caption(title: impl Into<String>) -> Block {
        let title = title.into();
        Block::Caption {
            text: title.clone(),
            number: String::new(),
            title,
        }
    }
}

impl Cell {
    /// A text cell.
    pub(super) fn text(text: impl Into<String>) -> Cell {
        Cell {
            text: text.into(),
            num: false,
            level: false,
            colspan: 1,
            rowspan: 1,
        }
    }

    /// A number cell.
    pub(super) fn num(text: impl Into<String>) -> Cell {
        Cell {
            num: true,
            ..Cell::text(text)
        }
    }

    /// A level under a group row.
    pub(super) fn level(text: impl Into<String>) -> Cell {
        Cell {
            level: true,
            ..Cell::text(text)
        }
    }

    pub(super) fn span(self, colspan: u32, rowspan: u32) -> Cell {
        Cell {
            colspan,
            rowspan,
            ..self
        }
    }
}

impl Row {
    pub(super) fn of(cells: Vec<Cell>) -> Row {
        Row { class: None, cells }
    }

    pub(super) fn with_class(class: &'static str, cells: Vec<Cell>) -> Row {
        Row {
            class: Some(class),
            cells,
        }
    }
}
