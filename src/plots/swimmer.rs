//! Swimmer plot: one horizontal lane per subject, longest on top, the bar coloured by best
//! overall response, with markers for first response, progression and death and an arrow for
//! subjects still on treatment.

use crate::model::ResponseCategory;

use super::axis::TimeAxis;
use super::canvas::{
    draw_axes_and_x_ticks, draw_x_title, draw_y_title, truncate_to_width, y_title_width, Anchor,
    Canvas, Key, Legend, LegendItem, Marker, Scale, VAnchor, TICK_LEN,
};
use super::style::{
    line_height, response_colour, text_width, BLACK, CANVAS_WIDTH, DARK_GREY, LABEL_PX, PAD,
    SMALL_PX, TICK_PX,
};
use super::waterfall::response_legend;
use super::{finite, time_axis_title, PlotError};

/// One subject's lane.
#[derive(Debug, Clone, PartialEq)]
pub struct SwimLane {
    /// Subject id, written beside the lane when lanes are tall enough.
    pub usubjid: String,
    /// End of the lane (end of treatment or last follow-up), in the plot's time unit.
    pub end: f64,
    /// Still on treatment at the data cut-off: an arrow continues the lane.
    pub ongoing: bool,
    /// Best overall response: CR, PR, SD, NON-CR/NON-PD, PD or NE (others shown as given).
    pub response: ResponseCategory,
    /// Time of the first CR/PR.
    pub first_response: Option<f64>,
    /// Time of progression.
    pub progression: Option<f64>,
    /// Time of death.
    pub death: Option<f64>,
}

/// Up to this many subjects, lanes are tall enough to carry their subject id.
const MAX_LABELLED: usize = 50;
const LABELLED_LANE_H: i32 = 22;
/// Height budget for the lanes of a large study (before rounding to whole pixels per lane).
const LARGE_PLOT_H: i32 = 1100;
const ARROW_LEN: i32 = 16;

const FIRST_RESPONSE: Marker = Marker::TriangleUp;
const PROGRESSION: Marker = Marker::Diamond;
const DEATH: Marker = Marker::Cross;

/// Draws a swimmer plot; times are in `time_unit` (e.g. "Months").
///
/// Up to 50 subjects each lane is 22 px and labelled with its subject id; beyond that lanes
/// shrink (to 1 px at worst, the canvas growing to about 1 100 px of lanes) and the ids give
/// way to an axis title "Subjects (n = …)", so labels never overlap.
///
/// Errors: [`PlotError::NoData`] for no lanes; [`PlotError::InvalidInput`] for a non-finite or
/// negative time.
pub fn swimmer(lanes: &[SwimLane], time_unit: &str) -> Result<String, PlotError> {
    swimmer_groups(&[(None, lanes)], time_unit)
}

/// One arm's lanes, for [`swimmer_by_arm`].
#[derive(Debug, Clone, PartialEq)]
pub struct SwimArm {
    /// The arm's name as legends give it (its short name).
    pub arm: String,
    pub lanes: Vec<SwimLane>,
}

/// A swimmer plot of a randomised cohort: the arms one under the other, in the order given,
/// each under a heading "Vd (n = 120)" and its lanes longest on top, on one time axis and one
/// legend, so that the arms are never pooled.
pub fn swimmer_by_arm(arms: &[SwimArm], time_unit: &str) -> Result<String, PlotError> {
    let groups: Vec<(Option<&str>, &[SwimLane])> = arms
        .iter()
        .filter(|a| !a.lanes.is_empty())
        .map(|a| (Some(a.arm.as_str()), a.lanes.as_slice()))
        .collect();
    swimmer_groups(&groups, time_unit)
}

/// The latest time of any lane (1 when all are 0); a time not finite or negative is refused.
fn latest_time(lanes: &[&SwimLane]) -> Result<f64, PlotError> {
    let mut data_max: f64 = 0.0;
    for l in lanes {
        let times = [Some(l.end), l.first_response, l.progression, l.death];
        for t in times.into_iter().flatten() {
            let t = finite(t, || format!("a time of subject '{}'", l.usubjid))?;
            if t < 0.0 {
                return Err(PlotError::InvalidInput(format!(
                    "subject '{}' has a negative time {t}",
                    l.usubjid
                )));
            }
            data_max = data_max.max(t);
        }
    }
    Ok(if data_max > 0.0 { data_max } else { 1.0 })
}

/// Lanes in drawing order, and headings with the lane each comes before.
type SortedLanes<'a> = (Vec<&'a SwimLane>, Vec<(usize, String)>);

/// Each group's lanes longest first, and each named group's heading with the lane it comes
/// before.
fn sorted_lanes<'a>(groups: &[(Option<&str>, &'a [SwimLane])]) -> SortedLanes<'a> {
    let mut sorted: Vec<&SwimLane> = Vec::new();
    let mut headings: Vec<(usize, String)> = Vec::new();
    for (name, group) in groups {
        let mut own: Vec<&SwimLane> = group.iter().collect();
        own.sort_by(|a, b| {
            b.end
                .total_cmp(&a.end)
                .then_with(|| a.usubjid.cmp(&b.usubjid))
        });
        if let Some(name) = name {
            headings.push((sorted.len(), format!("{name} (n = {})", own.len())));
        }
        sorted.extend(own);
    }
    (sorted, headings)
}

/// The legend's event markers, each only when some lane has it.
fn event_legend(lanes: &[&SwimLane]) -> Vec<LegendItem> {
    let has = |f: fn(&SwimLane) -> bool| lanes.iter().any(|l| f(l));
    let mut items = Vec::new();
    if has(|l| l.first_response.is_some()) {
        items.push(LegendItem {
            key: Key::Marker(FIRST_RESPONSE, BLACK),
            label: "First response".to_string(),
        });
    }
    if has(|l| l.progression.is_some()) {
        items.push(LegendItem {
            key: Key::Marker(PROGRESSION, BLACK),
            label: "Progression".to_string(),
        });
    }
    if has(|l| l.death.is_some()) {
        items.push(LegendItem {
            key: Key::Marker(DEATH, BLACK),
            label: "Death".to_string(),
        });
    }
    if has(|l| l.ongoing) {
        items.push(LegendItem {
            key: Key::Arrow,
            label: "On treatment".to_string(),
        });
    }
    items
}

fn swimmer_groups(
    groups: &[(Option<&str>, &[SwimLane])],
    time_unit: &str,
) -> Result<String, PlotError> {
    let lanes: Vec<&SwimLane> = groups.iter().flat_map(|(_, l)| l.iter()).collect();
    if lanes.is_empty() {
        return Err(PlotError::NoData);
    }
    let data_max = latest_time(&lanes)?;
    let (sorted, headings) = sorted_lanes(groups);
    let heading_h = line_height(LABEL_PX) + 8;

    let n = i32::try_from(sorted.len()).unwrap_or(i32::MAX);
    let labelled = sorted.len() <= MAX_LABELLED;
    let lane_h = if labelled {
        LABELLED_LANE_H
    } else {
        (LARGE_PLOT_H / n).max(1)
    };
    let bar_h = if lane_h >= 5 {
        (lane_h * 3 / 5).max(1)
    } else {
        lane_h
    };
    let marker_r = (lane_h * 3 / 10).clamp(2, 6);

    let w = CANVAS_WIDTH;
    let mut ids = Vec::new();
    let y_title = vec![format!("Subjects (n = {})", sorted.len())];
    let left = if labelled {
        let mut id_w = 0;
        for l in &sorted {
            let id = truncate_to_width(&l.usubjid, SMALL_PX, w * 35 / 100)?;
            id_w = id_w.max(text_width(&id, SMALL_PX)?);
            ids.push(id);
        }
        PAD + id_w + 8
    } else {
        PAD + y_title_width(&y_title) + 8
    };

    let mut right_margin = PAD + ARROW_LEN + 4;
    let choose = |plot_w| TimeAxis::choose(data_max, None, None, time_unit, plot_w, 0);
    let mut axis = choose(w - left - right_margin)?;
    let needed = PAD + axis.label_width(0)? / 2 + 2;
    if needed > right_margin {
        right_margin = needed;
        axis = choose(w - left - right_margin)?;
    }
    let right = w - right_margin;

    let responses = response_legend(sorted.iter().map(|l| &l.response));
    let legend = Legend::flow_groups(vec![responses, event_legend(&sorted)], w - 2 * PAD)?;
    let legend_top = PAD;
    let plot_top = legend_top + legend.height() + 12;
    // The top of lane `i`: the lanes and the heading bands before it.
    let lane_top = |i: usize| {
        let bands = headings.iter().filter(|(at, _)| *at <= i).count();
        plot_top + lane_h * i32::try_from(i).unwrap_or(0) + heading_h * bands as i32
    };
    let plot_bottom = lane_top(sorted.len());
    let tick_label_top = plot_bottom + TICK_LEN + 4;
    let x_title_top = tick_label_top + line_height(TICK_PX) + 2;
    let height = x_title_top + line_height(LABEL_PX) + PAD;

    let xs = Scale::new(0.0, axis.max, left, right);

    let mut svg = String::new();
    {
        let c = Canvas::new(&mut svg, w, height)?;
        legend.draw(&c, (PAD, legend_top))?;

        for (at, heading) in &headings {
            c.text(
                heading,
                (left, lane_top(*at) - heading_h / 2),
                LABEL_PX,
                BLACK,
                Anchor::Start,
                VAnchor::Center,
            )?;
        }
        for (i, l) in sorted.iter().enumerate() {
            let top = lane_top(i);
            let cy = top + lane_h / 2;
            let x_end = xs.at(l.end);
            let colour = response_colour(&l.response);
            c.fill_rect(
                (left, cy - bar_h / 2),
                (x_end.max(left + 1), cy - bar_h / 2 + bar_h),
                colour,
            )?;
            if l.ongoing {
                let head = (bar_h + 2).clamp(3, 9);
                c.arrow_right((x_end + 2, cy), ARROW_LEN.min(head * 2), head, BLACK)?;
            }
            for (t, m) in [
                (l.first_response, FIRST_RESPONSE),
                (l.progression, PROGRESSION),
                (l.death, DEATH),
            ] {
                if let Some(t) = t {
                    c.marker(m, (xs.at(t), cy), marker_r, BLACK)?;
                }
            }
            if let Some(id) = ids.get(i) {
                c.text(
                    id,
                    (left - 8, cy),
                    SMALL_PX,
                    DARK_GREY,
                    Anchor::End,
                    VAnchor::Center,
                )?;
            }
        }

        draw_axes_and_x_ticks(
            &c,
            &xs,
            (&axis.ticks, axis.decimals),
            (left, right),
            (plot_top, plot_bottom),
            tick_label_top,
        )?;
        if !labelled {
            draw_y_title(&c, &y_title, PAD, (plot_top + plot_bottom) / 2)?;
        }
        draw_x_title(&c, &time_axis_title(time_unit), (left, right), x_title_top)?;
        c.finish()?;
    }
    Ok(svg)
}
