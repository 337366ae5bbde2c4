//! The trace view's settings as typed in the page → the [`AnalyzeSettings`] to run, plus
//! stormlog's message for each override field it would reject (the trace view's
//! counterpart of [`super::explore::resolve`]). The page only holds the texts.

use std::collections::BTreeMap;

use crate::analysis::AnalyzeSettings;
use crate::attribution::{AttributionConfig, OverrideId, OverrideValue, Preset, SettingsError};

/// The settings column's inputs, as typed.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TraceSettingsInput {
    pub preset: Preset,
    /// Override field → the text in its input (empty or missing: the preset's value).
    pub overrides: BTreeMap<OverrideId, String>,
    pub phases: bool,
    /// `None`: stormlog's default session.
    pub session: Option<String>,
    /// Beyond stormlog: attribute on the reference rank's clock.
    pub align_clocks: bool,
    /// Draw the lanes on the reference rank's clock.
    pub align_lanes: bool,
}

/// What the inputs resolve to.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedTraceSettings {
    /// The settings to run, or the first problem in stormlog's order (a bad override
    /// never starts a run).
    pub settings: Result<AnalyzeSettings, SettingsError>,
    /// stormlog's message for each override it would reject, each checked alone against
    /// the preset, so every input shows its own problem.
    pub field_errors: BTreeMap<OverrideId, SettingsError>,
    /// Whether the worker draws the lanes on the reference clock: when asked, and
    /// always when the attribution is on it (its intervals are on that clock).
    pub lanes_aligned: bool,
}

/// The overrides as the core's named values, in the table's order (the ids' order);
/// empty inputs are left out. A text reads as on the command line (`--override`).
pub fn override_values(overrides: &BTreeMap<OverrideId, String>) -> Vec<(String, OverrideValue)> {
    typed(overrides)
        .into_iter()
        .map(|(id, value)| (id.name().to_string(), value))
        .collect()
}

/// The non-empty inputs read as values, by id.
fn typed(overrides: &BTreeMap<OverrideId, String>) -> Vec<(OverrideId, OverrideValue)> {
    overrides
        .iter()
        .filter(|(_, text)| !text.trim().is_empty())
        .map(|(&id, text)| (id, OverrideValue::parse_cli(text.trim())))
        .collect()
}

/// Resolve the inputs: the run's settings and every field's problem.
pub fn resolve(input: &TraceSettingsInput) -> ResolvedTraceSettings {
    let preset = input.preset;
    let overrides = override_values(&input.overrides);
    let field_errors = typed(&input.overrides)
        .into_iter()
        .filter_map(|(id, value)| {
            let alone = [(id.name().to_string(), value)];
            AttributionConfig::resolve(preset, &alone)
                .err()
                .map(|e| (id, e))
        })
        .collect();
    let settings = AnalyzeSettings {
        preset,
        overrides,
        session_id: input.session.clone(),
        phases: input.phases,
        align_clocks: input.align_clocks,
    };
    let settings =
        AttributionConfig::resolve(settings.preset, &settings.overrides).map(|_| settings);
    ResolvedTraceSettings {
        settings,
        field_errors,
        lanes_aligned: input.align_lanes || input.align_clocks,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(overrides: &[(&str, &str)]) -> TraceSettingsInput {
        TraceSettingsInput {
            preset: Preset::High,
            overrides: overrides
                .iter()
                .map(|(k, v)| (OverrideId::from_name(k).unwrap(), v.to_string()))
                .collect(),
            phases: true,
            session: Some("s1".to_string()),
            ..TraceSettingsInput::default()
        }
    }

    #[test]
    fn aligned_attribution_draws_aligned_lanes() {
        let on = |align_clocks, align_lanes| {
            let r = resolve(&TraceSettingsInput {
                align_clocks,
                align_lanes,
                ..TraceSettingsInput::default()
            });
            (r.settings.map(|s| s.align_clocks).ok(), r.lanes_aligned)
        };
        assert_eq!(on(false, false), (Some(false), false));
        assert_eq!(on(false, true), (Some(false), true));
        assert_eq!(on(true, false), (Some(true), true));
    }

    #[test]
    fn empty_inputs_are_the_preset_and_texts_read_as_on_the_command_line() {
        let r = resolve(&input(&[
            ("min_gap_bytes", "  "),
            ("min_confidence", " 0.5 "),
        ]));
        assert!(r.field_errors.is_empty());
        let settings = r.settings.unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(settings.preset, Preset::High);
        assert_eq!(
            settings.overrides,
            vec![("min_confidence".to_string(), OverrideValue::Float(0.5))]
        );
        assert_eq!(settings.session_id.as_deref(), Some("s1"));
        assert!(settings.phases);
    }

    #[test]
    fn overrides_come_in_the_tables_order() {
        let r = resolve(&input(&[
            ("min_confidence", "0.2"),
            ("min_samples_per_rank", "4"),
        ]));
        let names: Vec<String> = r
            .settings
            .unwrap_or_else(|e| panic!("{e}"))
            .overrides
            .into_iter()
            .map(|(k, _)| k)
            .collect();
        assert_eq!(names, ["min_samples_per_rank", "min_confidence"]);
    }

    #[test]
    fn every_bad_field_has_its_own_message_and_the_run_gets_the_first() {
        let r = resolve(&input(&[
            ("min_confidence", "2"),
            ("min_samples_per_rank", "1"),
            ("min_gap_bytes", "abc"),
        ]));
        let message = |f: &str| {
            let id = OverrideId::from_name(f)?;
            r.field_errors.get(&id).map(|e| e.message.clone())
        };
        assert_eq!(
            message("min_confidence").as_deref(),
            Some("min_confidence must be in [0, 1]")
        );
        assert_eq!(
            message("min_samples_per_rank").as_deref(),
            Some("min_samples_per_rank must be >= 3")
        );
        assert_eq!(
            message("min_gap_bytes").as_deref(),
            Some(
                "min_gap_bytes must be a number, got a str \
                 ('<' not supported between instances of 'str' and 'int')"
            )
        );
        assert_eq!(r.field_errors.len(), 3);
        let first = r.settings.err().map(|e| e.message);
        assert_eq!(first.as_deref(), Some("min_samples_per_rank must be >= 3"));
    }

    #[test]
    fn no_preset_is_stormlogs_default() {
        let r = resolve(&TraceSettingsInput::default());
        assert_eq!(r.settings.map(|s| s.preset).ok(), Some(Preset::Medium));
    }
}
