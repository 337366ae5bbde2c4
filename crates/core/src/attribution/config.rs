//! Attribution settings: stormlog's presets, overrides and their validation
//! (`resolve_collective_attribution_config`), with stormlog's messages.

use serde::{Deserialize, Serialize};

use crate::py::py_repr_str;

/// A preset name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Preset {
    Low,
    Medium,
    High,
}

impl Preset {
    pub const ALL: [Preset; 3] = [Preset::Low, Preset::Medium, Preset::High];

    pub fn as_str(self) -> &'static str {
        match self {
            Preset::Low => "low",
            Preset::Medium => "medium",
            Preset::High => "high",
        }
    }

    /// stormlog's preset lookup: `(preset or "medium").strip().lower()`.
    pub fn parse(name: &str) -> Result<Preset, SettingsError> {
        let normalized = if name.is_empty() {
            "medium".to_string()
        } else {
            crate::json::py_strip(name).to_lowercase()
        };
        match normalized.as_str() {
            "low" => Ok(Preset::Low),
            "medium" => Ok(Preset::Medium),
            "high" => Ok(Preset::High),
            _ => Err(SettingsError {
                field: Some("preset".to_string()),
                message: format!(
                    "Unknown collective attribution preset: {} (known: high, low, medium)",
                    py_repr_str(name)
                ),
            }),
        }
    }
}

/// A settings problem, with stormlog's message where it has one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[error("{message}")]
pub struct SettingsError {
    pub field: Option<String>,
    pub message: String,
}

/// stormlog's `CollectiveAttributionConfig`. Integer knobs stay integers (Python
/// compares them exactly); ratio knobs are floats.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttributionConfig {
    pub preset: Preset,
    pub min_samples_per_rank: i64,
    pub min_gap_bytes: i64,
    pub min_gap_ratio: f64,
    pub robust_zscore_threshold: f64,
    pub marker_window_ns: i64,
    pub interval_padding_ns: i64,
    pub synchrony_window_ns: i64,
    pub min_synchrony_ratio: f64,
    pub min_confidence: f64,
}

impl AttributionConfig {
    /// A preset's values.
    pub fn preset(preset: Preset) -> AttributionConfig {
        match preset {
            Preset::Low => AttributionConfig {
                preset,
                min_samples_per_rank: 8,
                min_gap_bytes: 256 * 1024 * 1024,
                min_gap_ratio: 0.06,
                robust_zscore_threshold: 3.0,
                marker_window_ns: 120_000_000,
                interval_padding_ns: 100_000_000,
                synchrony_window_ns: 100_000_000,
                min_synchrony_ratio: 0.6,
                min_confidence: 0.7,
            },
            Preset::Medium => AttributionConfig {
                preset,
                min_samples_per_rank: 6,
                min_gap_bytes: 128 * 1024 * 1024,
                min_gap_ratio: 0.04,
                robust_zscore_threshold: 2.5,
                marker_window_ns: 150_000_000,
                interval_padding_ns: 120_000_000,
                synchrony_window_ns: 120_000_000,
                min_synchrony_ratio: 0.5,
                min_confidence: 0.5,
            },
            Preset::High => AttributionConfig {
                preset,
                min_samples_per_rank: 5,
                min_gap_bytes: 64 * 1024 * 1024,
                min_gap_ratio: 0.025,
                robust_zscore_threshold: 1.8,
                marker_window_ns: 180_000_000,
                interval_padding_ns: 160_000_000,
                synchrony_window_ns: 180_000_000,
                min_synchrony_ratio: 0.34,
                min_confidence: 0.35,
            },
        }
    }

    /// An override field's value, as a number input shows it (`0.5`, `134217728`);
    /// `None` for a name that is not an override field.
    pub fn field_text(&self, field: &str) -> Option<String> {
        let int = |v: i64| Some(v.to_string());
        let float = |v: f64| Some(crate::format::plain_decimal(v));
        match field {
            "min_samples_per_rank" => int(self.min_samples_per_rank),
            "min_gap_bytes" => int(self.min_gap_bytes),
            "min_gap_ratio" => float(self.min_gap_ratio),
            "robust_zscore_threshold" => float(self.robust_zscore_threshold),
            "marker_window_ns" => int(self.marker_window_ns),
            "interval_padding_ns" => int(self.interval_padding_ns),
            "synchrony_window_ns" => int(self.synchrony_window_ns),
            "min_synchrony_ratio" => float(self.min_synchrony_ratio),
            "min_confidence" => float(self.min_confidence),
            _ => None,
        }
    }

    /// `resolve_collective_attribution_config(preset, overrides)`.
    pub fn resolve(
        preset: &str,
        overrides: &[(String, OverrideValue)],
    ) -> Result<AttributionConfig, SettingsError> {
        let preset = Preset::parse(preset)?;
        let mut config = AttributionConfig::preset(preset);
        let mut unknown: Vec<&str> = overrides
            .iter()
            .map(|(k, _)| k.as_str())
            .filter(|k| !OVERRIDE_FIELDS.contains(k))
            .collect();
        if !unknown.is_empty() {
            unknown.sort();
            unknown.dedup();
            return Err(SettingsError {
                field: Some(unknown[0].to_string()),
                message: format!(
                    "Unknown collective attribution override fields: {}",
                    unknown.join(", ")
                ),
            });
        }
        // Python's replace(**overrides) keeps the last value of a repeated key.
        let value_of = |field: &str| {
            overrides
                .iter()
                .rev()
                .find(|(k, _)| k == field)
                .map(|(_, v)| v.clone())
        };
        // Validation in stormlog's order; a value of the wrong type fails where
        // Python's comparison would.
        config.min_samples_per_rank = int_field(
            value_of("min_samples_per_rank"),
            "min_samples_per_rank",
            config.min_samples_per_rank,
        )?;
        if config.min_samples_per_rank < 3 {
            return Err(rule(
                "min_samples_per_rank",
                "min_samples_per_rank must be >= 3",
            ));
        }
        config.min_gap_bytes = int_field(
            value_of("min_gap_bytes"),
            "min_gap_bytes",
            config.min_gap_bytes,
        )?;
        if config.min_gap_bytes < 0 {
            return Err(rule("min_gap_bytes", "min_gap_bytes must be >= 0"));
        }
        config.min_gap_ratio = float_field(
            value_of("min_gap_ratio"),
            "min_gap_ratio",
            config.min_gap_ratio,
            "<",
        )?;
        if config.min_gap_ratio < 0.0 {
            return Err(rule("min_gap_ratio", "min_gap_ratio must be >= 0"));
        }
        config.robust_zscore_threshold = float_field(
            value_of("robust_zscore_threshold"),
            "robust_zscore_threshold",
            config.robust_zscore_threshold,
            "<=",
        )?;
        if config.robust_zscore_threshold <= 0.0 {
            return Err(rule(
                "robust_zscore_threshold",
                "robust_zscore_threshold must be > 0",
            ));
        }
        config.marker_window_ns = int_field(
            value_of("marker_window_ns"),
            "marker_window_ns",
            config.marker_window_ns,
        )?;
        if config.marker_window_ns < 0 {
            return Err(rule("marker_window_ns", "marker_window_ns must be >= 0"));
        }
        config.interval_padding_ns = int_field(
            value_of("interval_padding_ns"),
            "interval_padding_ns",
            config.interval_padding_ns,
        )?;
        if config.interval_padding_ns < 0 {
            return Err(rule(
                "interval_padding_ns",
                "interval_padding_ns must be >= 0",
            ));
        }
        config.synchrony_window_ns = int_field(
            value_of("synchrony_window_ns"),
            "synchrony_window_ns",
            config.synchrony_window_ns,
        )?;
        if config.synchrony_window_ns < 0 {
            return Err(rule(
                "synchrony_window_ns",
                "synchrony_window_ns must be >= 0",
            ));
        }
        config.min_synchrony_ratio = float_field(
            value_of("min_synchrony_ratio"),
            "min_synchrony_ratio",
            config.min_synchrony_ratio,
            "<=",
        )?;
        if !(0.0 <= config.min_synchrony_ratio && config.min_synchrony_ratio <= 1.0) {
            return Err(rule(
                "min_synchrony_ratio",
                "min_synchrony_ratio must be in [0, 1]",
            ));
        }
        config.min_confidence = float_field(
            value_of("min_confidence"),
            "min_confidence",
            config.min_confidence,
            "<=",
        )?;
        if !(0.0 <= config.min_confidence && config.min_confidence <= 1.0) {
            return Err(rule("min_confidence", "min_confidence must be in [0, 1]"));
        }
        Ok(config)
    }
}

/// The fields stormlog lets an override set.
pub const OVERRIDE_FIELDS: [&str; 9] = [
    "min_samples_per_rank",
    "min_gap_bytes",
    "min_gap_ratio",
    "robust_zscore_threshold",
    "marker_window_ns",
    "interval_padding_ns",
    "synchrony_window_ns",
    "min_synchrony_ratio",
    "min_confidence",
];

/// An override value as given (a JSON value on the command line or in a permalink).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum OverrideValue {
    Int(i64),
    Float(f64),
    Bool(bool),
    Text(String),
    Null,
}

impl OverrideValue {
    /// Reads a command-line value: a JSON number, `true`/`false`/`null`, a JSON
    /// string (`"1"`), or else the bare text as a string.
    pub fn parse_cli(text: &str) -> OverrideValue {
        let t = text.trim();
        if let Ok(v) = t.parse::<i64>() {
            return OverrideValue::Int(v);
        }
        let looks_numeric = !t.is_empty()
            && t.bytes()
                .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'));
        if looks_numeric {
            if let Ok(v) = t.parse::<f64>() {
                return OverrideValue::Float(v);
            }
        }
        match t {
            "true" => return OverrideValue::Bool(true),
            "false" => return OverrideValue::Bool(false),
            "null" => return OverrideValue::Null,
            _ => {}
        }
        if t.len() >= 2 && t.starts_with('"') && t.ends_with('"') {
            if let Ok(s) = serde_json::from_str::<String>(t) {
                return OverrideValue::Text(s);
            }
        }
        OverrideValue::Text(text.to_string())
    }

    fn python_type(&self) -> &'static str {
        match self {
            OverrideValue::Int(_) => "int",
            OverrideValue::Float(_) => "float",
            OverrideValue::Bool(_) => "bool",
            OverrideValue::Text(_) => "str",
            OverrideValue::Null => "NoneType",
        }
    }
}

fn rule(field: &str, message: &str) -> SettingsError {
    SettingsError {
        field: Some(field.to_string()),
        message: message.to_string(),
    }
}

/// A non-number where Python compares with a number: its TypeError, explained.
fn type_error(field: &str, value: &OverrideValue, op: &str, number_first: bool) -> SettingsError {
    let t = value.python_type();
    let python = if number_first {
        format!("'{op}' not supported between instances of 'int' and '{t}'")
    } else {
        format!("'{op}' not supported between instances of '{t}' and 'int'")
    };
    SettingsError {
        field: Some(field.to_string()),
        message: format!("{field} must be a number, got a {t} ({python})"),
    }
}

fn int_field(
    value: Option<OverrideValue>,
    field: &str,
    default: i64,
) -> Result<i64, SettingsError> {
    match value {
        None => Ok(default),
        Some(OverrideValue::Int(v)) => Ok(v),
        Some(OverrideValue::Bool(b)) => Ok(i64::from(b)),
        Some(OverrideValue::Float(_)) => Err(SettingsError {
            field: Some(field.to_string()),
            message: format!("{field} must be an integer"),
        }),
        Some(other) => Err(type_error(field, &other, "<", false)),
    }
}

fn float_field(
    value: Option<OverrideValue>,
    field: &str,
    default: f64,
    op: &str,
) -> Result<f64, SettingsError> {
    match value {
        None => Ok(default),
        Some(OverrideValue::Int(v)) => Ok(v as f64),
        Some(OverrideValue::Float(v)) => Ok(v),
        Some(OverrideValue::Bool(b)) => Ok(f64::from(u8::from(b))),
        Some(other) => Err(type_error(
            field,
            &other,
            op,
            op == "<=" && field != "robust_zscore_threshold",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_override_field_has_a_text() {
        let c = AttributionConfig::preset(Preset::Medium);
        for f in OVERRIDE_FIELDS {
            assert!(c.field_text(f).is_some(), "{f}");
        }
        assert_eq!(c.field_text("min_gap_bytes").as_deref(), Some("134217728"));
        assert_eq!(
            c.field_text("robust_zscore_threshold").as_deref(),
            Some("2.5")
        );
        assert_eq!(c.field_text("nope"), None);
    }

    #[test]
    fn presets_are_trimmed_and_case_insensitive() {
        assert_eq!(Preset::parse(" HIGH ").ok(), Some(Preset::High));
        assert_eq!(Preset::parse("").ok(), Some(Preset::Medium));
        let err = Preset::parse("extreme").err().map(|e| e.message);
        assert_eq!(
            err.as_deref(),
            Some("Unknown collective attribution preset: 'extreme' (known: high, low, medium)")
        );
    }

    #[test]
    fn overrides_are_validated_with_stormlog_messages() {
        let ovr = |k: &str, v: OverrideValue| vec![(k.to_string(), v)];
        let msg = |r: Result<AttributionConfig, SettingsError>| {
            r.err().map(|e| e.message).unwrap_or_default()
        };
        assert_eq!(
            msg(AttributionConfig::resolve(
                "medium",
                &ovr("unknown_knob", OverrideValue::Int(1))
            )),
            "Unknown collective attribution override fields: unknown_knob"
        );
        assert_eq!(
            msg(AttributionConfig::resolve(
                "medium",
                &ovr("min_samples_per_rank", OverrideValue::Int(2))
            )),
            "min_samples_per_rank must be >= 3"
        );
        assert!(msg(AttributionConfig::resolve(
            "medium",
            &ovr("min_gap_bytes", OverrideValue::Text("1".into()))
        ))
        .contains("'<' not supported between instances of 'str' and 'int'"));
        assert_eq!(
            msg(AttributionConfig::resolve(
                "low",
                &ovr("min_confidence", OverrideValue::Float(1.5))
            )),
            "min_confidence must be in [0, 1]"
        );
        let ok =
            AttributionConfig::resolve("low", &ovr("min_confidence", OverrideValue::Float(0.41)));
        assert_eq!(ok.map(|c| c.min_confidence).ok(), Some(0.41));
    }

    #[test]
    fn cli_values_parse_like_json() {
        assert_eq!(
            OverrideValue::parse_cli("157286400"),
            OverrideValue::Int(157286400)
        );
        assert_eq!(OverrideValue::parse_cli("0.41"), OverrideValue::Float(0.41));
        assert_eq!(
            OverrideValue::parse_cli("\"1\""),
            OverrideValue::Text("1".into())
        );
        assert_eq!(
            OverrideValue::parse_cli("abc"),
            OverrideValue::Text("abc".into())
        );
    }
}
