//! The page's kept scenarios: at most [`MAX_SCENARIOS`], each with whether its frontier
//! shows on the scatter. One type keeps the two in step (adding, removing, renaming,
//! showing), so the page holds one signal and never matches two vectors by hand.

use crate::explore_settings::ExploreSettings;
use crate::explorer::MAX_SCENARIOS;
use crate::scenarios::{clean_name, names, Scenario, ScenarioReport};

/// The kept scenarios in the order they were added, each shown or hidden.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ScenarioList {
    kept: Vec<(Scenario, bool)>,
}

impl ScenarioList {
    /// A link's scenarios, every one shown (at most [`MAX_SCENARIOS`] are kept).
    pub fn new(scenarios: Vec<Scenario>) -> ScenarioList {
        ScenarioList {
            kept: scenarios
                .into_iter()
                .take(MAX_SCENARIOS)
                .map(|s| (s, true))
                .collect(),
        }
    }

    pub fn len(&self) -> usize {
        self.kept.len()
    }

    pub fn is_empty(&self) -> bool {
        self.kept.is_empty()
    }

    /// No room for another.
    pub fn is_full(&self) -> bool {
        self.kept.len() >= MAX_SCENARIOS
    }

    /// The scenarios, what is swept and what a link keeps.
    pub fn scenarios(&self) -> Vec<Scenario> {
        self.kept.iter().map(|(s, _)| s.clone()).collect()
    }

    pub fn get(&self, i: usize) -> Option<&Scenario> {
        self.kept.get(i).map(|(s, _)| s)
    }

    /// Whether each scenario's frontier shows, in list order.
    pub fn shown(&self) -> Vec<bool> {
        self.kept.iter().map(|&(_, on)| on).collect()
    }

    /// Each scenario's name as shown ([`names`]: its own, else what sets it apart).
    pub fn names(&self) -> Vec<String> {
        names(&self.scenarios())
    }

    /// Keep `settings` as a new, shown, unnamed scenario; false when the list is full.
    /// A scenario is the uncalibrated model: its text, its link and `--scenario` carry
    /// no measurements, so the settings' calibration is dropped.
    pub fn add(&mut self, settings: &ExploreSettings) -> bool {
        if self.is_full() {
            return false;
        }
        let settings = ExploreSettings {
            calibration: Vec::new(),
            ..settings.clone()
        };
        self.kept.push((
            Scenario {
                name: String::new(),
                settings,
            },
            true,
        ));
        true
    }

    /// Drop scenario `i` (out of range: nothing).
    pub fn remove(&mut self, i: usize) {
        if i < self.kept.len() {
            self.kept.remove(i);
        }
    }

    /// Name scenario `i` as typed ([`clean_name`]; empty: named automatically again).
    pub fn rename(&mut self, i: usize, text: &str) {
        if let Some((s, _)) = self.kept.get_mut(i) {
            s.name = clean_name(text);
        }
    }

    /// Show or hide scenario `i`'s frontier.
    pub fn set_shown(&mut self, i: usize, on: bool) {
        if let Some((_, shown)) = self.kept.get_mut(i) {
            *shown = on;
        }
    }

    /// Scenario `i`'s frontier size in `report`, when the report is of this very list
    /// (the same names in the same order): a report of an earlier list says nothing.
    pub fn frontier_size(&self, i: usize, report: &ScenarioReport) -> Option<usize> {
        let names = self.names();
        let same = report.scenarios.len() == names.len()
            && report
                .scenarios
                .iter()
                .zip(&names)
                .all(|(s, n)| s.name == *n);
        if !same {
            return None;
        }
        report.comparison.rows.get(i).map(|row| row.frontier_size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenarios::{parse_scenario, run_scenarios};

    fn settings(text: &str) -> ExploreSettings {
        parse_scenario(text, &ExploreSettings::default())
            .unwrap()
            .settings
    }

    #[test]
    fn adding_keeps_the_uncalibrated_settings_shown_up_to_the_limit() {
        let mut list = ScenarioList::default();
        assert!(list.is_empty());
        let calibrated = ExploreSettings {
            calibration: vec!["cfg=cp1.tp8.pp1.dp1.split.TP.pe.cube.kv,latency_ms=8".into()],
            ..settings("batch=8")
        };
        assert!(list.add(&calibrated));
        assert_eq!(list.len(), 1);
        assert!(!list.is_empty());
        let kept = list.get(0).unwrap();
        assert!(kept.settings.calibration.is_empty());
        assert_eq!(kept.settings.batch, "8");
        assert_eq!(kept.name, "");
        assert_eq!(list.shown(), [true]);
        for _ in 1..MAX_SCENARIOS {
            assert!(list.add(&ExploreSettings::default()));
        }
        assert!(list.is_full());
        assert!(
            !list.add(&ExploreSettings::default()),
            "a full list refuses"
        );
        assert_eq!(list.len(), MAX_SCENARIOS);
        let five = vec![Scenario::default(); MAX_SCENARIOS + 1];
        assert_eq!(ScenarioList::new(five).len(), MAX_SCENARIOS);
    }

    #[test]
    fn removing_hiding_and_renaming_keep_each_row_with_its_scenario() {
        let mut list = ScenarioList::new(vec![
            Scenario {
                name: String::new(),
                settings: settings("machine=h100-hgx"),
            },
            Scenario::default(),
            Scenario {
                name: String::new(),
                settings: settings("batch=8"),
            },
        ]);
        assert_eq!(list.shown(), [true, true, true]);
        list.set_shown(2, false);
        list.set_shown(9, false);
        assert_eq!(list.shown(), [true, true, false]);
        list.remove(0);
        list.remove(7);
        list.remove(2);
        // The hidden one stays hidden after the rows above it go.
        assert_eq!(list.shown(), [true, false]);
        assert_eq!(list.get(1).unwrap().settings.batch, "8");
        assert_eq!(list.names(), ["h200-hgx", "B=8"]);
        list.rename(1, "  big, batch ");
        list.rename(5, "nobody");
        assert_eq!(list.names(), ["h200-hgx", "big  batch"]);
        list.rename(1, "");
        assert_eq!(list.names(), ["h200-hgx", "B=8"]);
    }

    #[test]
    fn frontier_sizes_come_only_from_a_report_of_this_list() {
        let mut list = ScenarioList::default();
        list.add(&settings("machine=h100-hgx"));
        list.add(&ExploreSettings::default());
        let report = run_scenarios(&list.scenarios()).unwrap();
        let first = report.scenarios[0].report.pareto.len();
        assert_eq!(list.frontier_size(0, &report), Some(first));
        assert_eq!(list.frontier_size(2, &report), None);
        list.rename(0, "renamed");
        assert_eq!(
            list.frontier_size(0, &report),
            None,
            "an older list's report"
        );
        list.rename(0, "");
        list.add(&settings("batch=8"));
        assert_eq!(list.frontier_size(0, &report), None);
    }
}
