//! A protocol's tumour-assessment schedule (`analysis.assessment_schedule`, docs/CONFIG.md):
//! assessments every so many days from the origin, the interval changing at given days ("every
//! 6 weeks to week 48, then every 12 weeks"). The missed-visit rule of PFS (FDA 2018, "event
//! after two or more missed assessments") is judged against it: an event later than the second
//! scheduled assessment after the last adequate one, plus that visit's window, came after two
//! missed assessments.

use serde::Serialize;

/// One stretch of the schedule: an interval, up to a day (the last stretch has none).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Stretch {
    /// Days between assessments.
    pub every: i64,
    /// The day (from the origin) the stretch ends; `None` for the last.
    pub until: Option<i64>,
    /// The visit window in days either side of a scheduled day.
    pub window: i64,
}

/// A schedule: its stretches in order (each but the last with an end, ends increasing).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Schedule {
    stretches: Vec<Stretch>,
}

/// Most scheduled days looked at (100 years of weekly scans).
const MAX_VISITS: usize = 5_300;

impl Schedule {
    /// A schedule of `stretches`; `None` when they are empty, an interval is not positive, or
    /// the ends do not increase (the config check refuses those first).
    pub fn new(stretches: Vec<Stretch>) -> Option<Schedule> {
        // Each stretch but the last ends, after the one before it.
        let ends_increase = stretches
            .windows(2)
            .all(|w| match (w[0].until, w[1].until) {
                (Some(a), Some(b)) => b > a,
                (Some(_), None) => true,
                (None, _) => false,
            });
        let ok = !stretches.is_empty()
            && stretches.iter().all(|s| s.every > 0 && s.window >= 0)
            && ends_increase;
        ok.then_some(Schedule { stretches })
    }

    /// The scheduled days from the origin (day 0 the baseline), each with its window, up to
    /// and including the first past `horizon`.
    fn visits(&self, horizon: i64) -> Vec<(i64, i64)> {
        let mut out = vec![(0, 0)];
        let mut day = 0;
        for (k, s) in self.stretches.iter().enumerate() {
            let last = k + 1 == self.stretches.len();
            loop {
                if out.len() > MAX_VISITS || day > horizon {
                    return out;
                }
                let next = day + s.every;
                if !last && s.until.is_some_and(|u| next > u) {
                    break;
                }
                day = next;
                out.push((day, s.window));
            }
        }
        out
    }

    /// The last day (from the origin) an event may come after an adequate assessment on day
    /// `anchor` without two scheduled assessments missed: the second scheduled day after the
    /// anchor's own (the scheduled day nearest it), plus that day's window.
    pub fn latest_without_two_missed(&self, anchor: i64) -> i64 {
        let visits = self.visits(anchor.max(0) + 4 * self.longest());
        let own = visits
            .iter()
            .enumerate()
            .min_by_key(|(_, (day, _))| (day - anchor).abs())
            .map_or(0, |(i, _)| i);
        match visits.get(own + 2) {
            Some(&(day, window)) => day + window,
            None => anchor + 2 * self.longest() + self.stretches.last().map_or(0, |s| s.window),
        }
    }

    fn longest(&self) -> i64 {
        self.stretches.iter().map(|s| s.every).max().unwrap_or(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q6_then_q12() -> Schedule {
        Schedule::new(vec![
            Stretch {
                every: 42,
                until: Some(336),
                window: 7,
            },
            Stretch {
                every: 84,
                until: None,
                window: 14,
            },
        ])
        .unwrap()
    }

    #[test]
    fn the_second_scheduled_assessment_after_the_anchor_with_its_window() {
        let s = q6_then_q12();
        // From the origin (no adequate assessment): scans on days 42 and 84, then 84 + 7.
        assert_eq!(s.latest_without_two_missed(0), 91);
        // A scan on day 44 (the day-42 visit, late): missed 84 and 126: 126 + 7.
        assert_eq!(s.latest_without_two_missed(44), 133);
        // Early for day 42 (day 38) is still that visit.
        assert_eq!(s.latest_without_two_missed(38), 133);
        // The week-48 scan (day 336): next 420 and 504, every 12 weeks with ±14 days.
        assert_eq!(s.latest_without_two_missed(336), 518);
        // Day 294 (week 42): missed 336 (q6w) and 420 (q12w): 420 + 14.
        assert_eq!(s.latest_without_two_missed(294), 434);
        // One interval throughout gives the uniform rule: anchor + 2 × 42 + 7.
        let q6 = Schedule::new(vec![Stretch {
            every: 42,
            until: None,
            window: 7,
        }])
        .unwrap();
        assert_eq!(q6.latest_without_two_missed(126), 126 + 91);
    }

    #[test]
    fn schedules_that_cannot_be_followed_are_none() {
        assert!(Schedule::new(Vec::new()).is_none());
        assert!(Schedule::new(vec![Stretch {
            every: 0,
            until: None,
            window: 7
        }])
        .is_none());
        assert!(Schedule::new(vec![
            Stretch {
                every: 42,
                until: Some(336),
                window: 7
            },
            Stretch {
                every: 84,
                until: Some(300),
                window: 7
            },
        ])
        .is_none());
    }
}
