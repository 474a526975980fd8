//! Axis ranges and tick steps: time axes with conventional steps (every 3, 6, 12 months...)
//! spaced so their labels never touch, and value axes for percentages.

use super::canvas::{decimals_for, format_tick, nice_step, ticks};
use super::style::{text_width, TICK_PX};
use super::PlotError;
use crate::format::time_steps;

/// At most this many intervals on a time axis.
const MAX_INTERVALS: f64 = 10.0;
/// Room kept between neighbouring tick labels (or numbers written under the ticks).
pub(crate) const LABEL_GAP: i32 = 8;

/// A time axis from 0: its end, tick step and ticks.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TimeAxis {
    pub max: f64,
    pub step: f64,
    pub ticks: Vec<f64>,
    pub decimals: usize,
}

impl TimeAxis {
    fn for_step(data_max: f64, x_max: Option<f64>, step: f64) -> TimeAxis {
        let max = match x_max {
            Some(m) => m,
            None => (data_max / step - 1e-9).ceil().max(1.0) * step,
        };
        TimeAxis {
            max,
            step,
            ticks: ticks(0.0, max, step),
            decimals: decimals_for(step),
        }
    }

    /// The axis at the given ticks (ascending, from 0: a risk table's times), to the last
    /// tick or `data_max`, whichever is further.
    pub(crate) fn given(ticks: &[f64], data_max: f64) -> TimeAxis {
        let last = ticks.last().copied().unwrap_or(0.0);
        let step = ticks
            .windows(2)
            .map(|w| w[1] - w[0])
            .fold(f64::INFINITY, f64::min);
        let step = if step.is_finite() && step > 0.0 {
            step
        } else {
            data_max.max(1.0)
        };
        TimeAxis {
            max: last.max(data_max).max(f64::MIN_POSITIVE),
            step,
            ticks: ticks.to_vec(),
            decimals: decimals_for(step),
        }
    }

    /// The widest tick label, or `min_label_w` if wider (numbers written under the ticks).
    pub(crate) fn label_width(&self, min_label_w: i32) -> Result<i32, PlotError> {
        let mut w = min_label_w;
        for t in &self.ticks {
            w = w.max(text_width(&format_tick(*t, self.decimals), TICK_PX)?);
        }
        Ok(w)
    }

    fn fits(&self, plot_w: i32, min_label_w: i32) -> Result<bool, PlotError> {
        let spacing = f64::from(plot_w) * self.step / self.max;
        Ok(spacing >= f64::from(self.label_width(min_label_w)? + LABEL_GAP))
    }

    /// The axis for data up to `data_max` (> 0) drawn `plot_w` pixels wide: the smallest
    /// conventional step with at most 10 intervals whose labels (each at least `min_label_w`
    /// wide) do not touch. A requested `tick_step` is kept, or widened to the smallest
    /// multiple of itself that fits. `x_max` fixes the end of the axis.
    pub(crate) fn choose(
        data_max: f64,
        x_max: Option<f64>,
        tick_step: Option<f64>,
        time_unit: &str,
        plot_w: i32,
        min_label_w: i32,
    ) -> Result<TimeAxis, PlotError> {
        let range = x_max.unwrap_or(data_max);
        if let Some(step) = tick_step {
            // Start near the answer so that a tiny step does not mean millions of tries.
            let min_px = f64::from(min_label_w + LABEL_GAP);
            let mut k = (min_px * range / (f64::from(plot_w.max(1)) * step))
                .floor()
                .max(1.0);
            for _ in 0..1000 {
                let axis = TimeAxis::for_step(data_max, x_max, step * k);
                if axis.fits(plot_w, min_label_w)? || axis.step >= range {
                    return Ok(axis);
                }
                k += 1.0;
            }
            return Ok(TimeAxis::for_step(data_max, x_max, range));
        }
        for step in time_steps(time_unit) {
            if range / step > MAX_INTERVALS {
                continue;
            }
            let axis = TimeAxis::for_step(data_max, x_max, step);
            if axis.fits(plot_w, min_label_w)? {
                return Ok(axis);
            }
        }
        Ok(TimeAxis::for_step(data_max, x_max, range))
    }
}

/// A value axis (percentages) spanning `[lo, hi]` at least, ends on multiples of the step.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ValueAxis {
    pub lo: f64,
    pub hi: f64,
    pub ticks: Vec<f64>,
    pub decimals: usize,
}

impl ValueAxis {
    pub(crate) fn nice(lo: f64, hi: f64, max_intervals: f64) -> ValueAxis {
        let step = nice_step(hi - lo, max_intervals);
        let lo = (lo / step + 1e-9).floor() * step;
        let hi = (hi / step - 1e-9).ceil() * step;
        ValueAxis {
            lo,
            hi,
            ticks: ticks(lo, hi, step),
            decimals: decimals_for(step),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_follow_up_gets_a_conventional_step() {
        let axis = TimeAxis::choose(118.0, None, None, "Months", 450, 30).unwrap();
        assert_eq!((axis.step, axis.max), (12.0, 120.0));
        let axis = TimeAxis::choose(20.3, None, None, "Months", 450, 20).unwrap();
        assert_eq!((axis.step, axis.max), (3.0, 21.0));
        let axis = TimeAxis::choose(0.4, None, None, "Months", 450, 10).unwrap();
        assert!(axis.step < 0.4);
    }

    #[test]
    fn too_small_a_requested_step_is_widened_to_a_multiple() {
        let axis = TimeAxis::choose(60.0, None, Some(1.0), "Months", 450, 40).unwrap();
        assert!(axis.step > 1.0 && axis.step.fract() == 0.0);
        assert!(axis.fits(450, 40).unwrap());
        let axis = TimeAxis::choose(60.0, None, Some(1e-9), "Months", 450, 40).unwrap();
        assert!(axis.fits(450, 40).unwrap());
    }

    #[test]
    fn value_axis_covers_the_reference_lines() {
        let a = ValueAxis::nice(-100.0, 40.0, 8.0);
        assert_eq!((a.lo, a.hi), (-100.0, 40.0));
        assert!(a.ticks.contains(&0.0));
    }
}
