//! Attribution settings: stormlog's presets, overrides and their validation
//! (`resolve_collective_attribution_config`), with stormlog's messages.

use serde::{Deserialize, Serialize};

use crate::py::py_repr_str;

/// A preset name (stormlog's default is `medium`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Preset {
    Low,
    #[default]
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

impl SettingsError {
    /// Python's own `TypeError` message where stormlog would raise one (a value of the
    /// wrong type compared with a number: see `type_error`), else `None`.
    pub fn python_type_error(&self) -> Option<&str> {
        let inner = self.message.strip_suffix(')')?;
        let (_, python) = inner.split_once(" (")?;
        python
            .contains("not supported between instances of")
            .then_some(python)
    }
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
        Some(OverrideField::named(field)?.text(self))
    }

    /// `resolve_collective_attribution_config(preset, overrides)`.
    pub fn resolve(
        preset: Preset,
        overrides: &[(String, OverrideValue)],
    ) -> Result<AttributionConfig, SettingsError> {
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
        // Validation in stormlog's order (the table's); a value of the wrong type fails
        // where Python's comparison would.
        for field in &OVERRIDES {
            field.apply(value_of(field.name), &mut config)?;
        }
        Ok(config)
    }
}

/// How an override field's value is held — an integer (Python compares it exactly) or a
/// float — with its accessors on [`AttributionConfig`] and stormlog's check once set.
#[derive(Debug, Clone, Copy)]
pub enum FieldKind {
    /// `value < min` fails.
    Int {
        get: fn(&AttributionConfig) -> i64,
        set: fn(&mut AttributionConfig, i64),
        min: i64,
    },
    Float {
        get: fn(&AttributionConfig) -> f64,
        set: fn(&mut AttributionConfig, f64),
        rule: FloatRule,
    },
}

/// stormlog's check of a float field; its comparison decides the wording of a type
/// error (`'<' not supported between ...`, and which operand comes first).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FloatRule {
    /// `value < 0.0` fails (NaN passes, as in Python).
    NonNegative,
    /// `value <= 0.0` fails (NaN passes).
    Positive,
    /// `not (0.0 <= value <= 1.0)` fails (NaN fails).
    UnitInterval,
}

/// One field an override may set: its name, how it is held and checked, and how the
/// page presents it. [`OVERRIDES`] is the only list of them: validation, the page's
/// inputs, explanations and permalinks all read it.
#[derive(Debug, Clone, Copy)]
pub struct OverrideField {
    pub name: &'static str,
    pub kind: FieldKind,
    /// stormlog's message when the rule fails.
    pub message: &'static str,
    /// The page's label, the unit of the number typed, and one sentence of help.
    pub label: &'static str,
    pub unit: &'static str,
    pub help: &'static str,
}

macro_rules! override_field {
    ($name:ident, $kind:ident, $ty:ty, $check:ident: $rule:expr, $message:literal, $label:literal, $unit:literal, $help:literal) => {
        OverrideField {
            name: stringify!($name),
            kind: FieldKind::$kind {
                $check: $rule,
                get: {
                    fn get(c: &AttributionConfig) -> $ty {
                        c.$name
                    }
                    get
                },
                set: {
                    fn set(c: &mut AttributionConfig, v: $ty) {
                        c.$name = v;
                    }
                    set
                },
            },
            message: $message,
            label: $label,
            unit: $unit,
            help: $help,
        }
    };
}

/// The fields stormlog lets an override set, in its order of validation.
pub const OVERRIDES: [OverrideField; 9] = [
    override_field!(
        min_samples_per_rank,
        Int,
        i64,
        min: 3,
        "min_samples_per_rank must be >= 3",
        "Min samples per rank",
        "samples",
        "Ranks with fewer memory samples are not analysed."
    ),
    override_field!(
        min_gap_bytes,
        Int,
        i64,
        min: 0,
        "min_gap_bytes must be >= 0",
        "Min gap",
        "bytes",
        "Smallest hidden-memory gap (device used − allocator reserved) that counts as a spike."
    ),
    override_field!(
        min_gap_ratio,
        Float,
        f64,
        rule: FloatRule::NonNegative,
        "min_gap_ratio must be >= 0",
        "Min gap ratio",
        "of device total",
        "The gap must also be this fraction of the device's memory."
    ),
    override_field!(
        robust_zscore_threshold,
        Float,
        f64,
        rule: FloatRule::Positive,
        "robust_zscore_threshold must be > 0",
        "Outlier z-score",
        "MAD z",
        "How far above the rank's median gap a sample must be to be an outlier."
    ),
    override_field!(
        marker_window_ns,
        Int,
        i64,
        min: 0,
        "marker_window_ns must be >= 0",
        "Marker window",
        "ns",
        "How close a collective marker must be to a spike to support it."
    ),
    override_field!(
        interval_padding_ns,
        Int,
        i64,
        min: 0,
        "interval_padding_ns must be >= 0",
        "Interval padding",
        "ns",
        "Added before and after each spike when intervals are formed."
    ),
    override_field!(
        synchrony_window_ns,
        Int,
        i64,
        min: 0,
        "synchrony_window_ns must be >= 0",
        "Synchrony window",
        "ns",
        "Spikes on other ranks within this distance count as simultaneous."
    ),
    override_field!(
        min_synchrony_ratio,
        Float,
        f64,
        rule: FloatRule::UnitInterval,
        "min_synchrony_ratio must be in [0, 1]",
        "Min synchrony ratio",
        "of ranks",
        "Fraction of ranks that must spike together for the synchrony signal."
    ),
    override_field!(
        min_confidence,
        Float,
        f64,
        rule: FloatRule::UnitInterval,
        "min_confidence must be in [0, 1]",
        "Min confidence",
        "0–1",
        "Intervals below this confidence are not reported."
    ),
];

/// The override fields' names, in [`OVERRIDES`]' order.
pub const OVERRIDE_FIELDS: [&str; 9] = {
    let mut names = [""; 9];
    let mut i = 0;
    while i < names.len() {
        names[i] = OVERRIDES[i].name;
        i += 1;
    }
    names
};

/// One of the [`OVERRIDES`], by place: what the app's own inputs (the page's fields, a
/// link's `o.` keys) hold, so a name that is not a field cannot be kept. Names typed by
/// a person (`--override`, Python's `overrides=`) stay names until
/// [`AttributionConfig::resolve`] reports the unknown ones as stormlog does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OverrideId {
    MinSamplesPerRank,
    MinGapBytes,
    MinGapRatio,
    RobustZscoreThreshold,
    MarkerWindowNs,
    IntervalPaddingNs,
    SynchronyWindowNs,
    MinSynchronyRatio,
    MinConfidence,
}

impl OverrideId {
    /// Every id, in [`OVERRIDES`]' order (stormlog's order of validation).
    pub const ALL: [OverrideId; 9] = [
        OverrideId::MinSamplesPerRank,
        OverrideId::MinGapBytes,
        OverrideId::MinGapRatio,
        OverrideId::RobustZscoreThreshold,
        OverrideId::MarkerWindowNs,
        OverrideId::IntervalPaddingNs,
        OverrideId::SynchronyWindowNs,
        OverrideId::MinSynchronyRatio,
        OverrideId::MinConfidence,
    ];

    /// Its field in [`OVERRIDES`].
    pub fn field(self) -> &'static OverrideField {
        &OVERRIDES[self as usize]
    }

    /// stormlog's name of the field (`min_confidence`).
    pub fn name(self) -> &'static str {
        self.field().name
    }

    /// The id of the field called `name`, if overrides may set it.
    pub fn from_name(name: &str) -> Option<OverrideId> {
        OverrideId::ALL.into_iter().find(|id| id.name() == name)
    }
}

impl OverrideField {
    /// The field called `name`, if overrides may set it.
    pub fn named(name: &str) -> Option<&'static OverrideField> {
        OVERRIDES.iter().find(|f| f.name == name)
    }

    /// Whether the field holds an integer.
    pub fn is_int(&self) -> bool {
        matches!(self.kind, FieldKind::Int { .. })
    }

    /// The field's value in `config`, as a number input shows it.
    pub fn text(&self, config: &AttributionConfig) -> String {
        match self.kind {
            FieldKind::Int { get, .. } => get(config).to_string(),
            FieldKind::Float { get, .. } => crate::format::plain_decimal(get(config)),
        }
    }

    /// The field's value in `config`, as the number it holds.
    pub fn value(&self, config: &AttributionConfig) -> OverrideValue {
        match self.kind {
            FieldKind::Int { get, .. } => OverrideValue::Int(get(config)),
            FieldKind::Float { get, .. } => OverrideValue::Float(get(config)),
        }
    }

    /// Set the field to `value` without stormlog's check (a config handed over whole,
    /// which stormlog uses as it is). `false`, and nothing set, for a value the field
    /// cannot hold (a string, `None`, a float in an integer field).
    pub fn set_unchecked(&self, config: &mut AttributionConfig, value: &OverrideValue) -> bool {
        match (self.kind, value) {
            (FieldKind::Int { set, .. }, OverrideValue::Int(v)) => set(config, *v),
            (FieldKind::Int { set, .. }, OverrideValue::Bool(b)) => set(config, i64::from(*b)),
            (FieldKind::Float { set, .. }, OverrideValue::Int(v)) => set(config, *v as f64),
            (FieldKind::Float { set, .. }, OverrideValue::Float(v)) => set(config, *v),
            (FieldKind::Float { set, .. }, OverrideValue::Bool(b)) => {
                set(config, f64::from(u8::from(*b)))
            }
            _ => return false,
        }
        true
    }

    /// Set the field from `value` (`None`: keep the preset's) and check it, as stormlog
    /// does, with its messages.
    fn apply(
        &self,
        value: Option<OverrideValue>,
        config: &mut AttributionConfig,
    ) -> Result<(), SettingsError> {
        let failed = match self.kind {
            FieldKind::Int { get, set, min } => {
                let v = int_field(value, self.name, get(config))?;
                set(config, v);
                v < min
            }
            FieldKind::Float { get, set, rule } => {
                // The comparison stormlog makes, and whether the number is its left operand.
                let (op, number_first) = match rule {
                    FloatRule::NonNegative => ("<", false),
                    FloatRule::Positive => ("<=", false),
                    FloatRule::UnitInterval => ("<=", true),
                };
                let v = float_field(value, self.name, get(config), op, number_first)?;
                set(config, v);
                match rule {
                    FloatRule::NonNegative => v < 0.0,
                    FloatRule::Positive => v <= 0.0,
                    FloatRule::UnitInterval => !(0.0..=1.0).contains(&v),
                }
            }
        };
        if failed {
            Err(rule(self.name, self.message))
        } else {
            Ok(())
        }
    }
}

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

    /// The text [`parse_cli`](Self::parse_cli) reads back as this value (what a link or
    /// the page's override field holds): a string that would read as something else, or
    /// has spaces around it, is written as a JSON string.
    pub fn link_text(&self) -> String {
        match self {
            OverrideValue::Int(v) => v.to_string(),
            OverrideValue::Float(v) => format!("{v:?}"),
            OverrideValue::Bool(b) => b.to_string(),
            OverrideValue::Null => "null".to_string(),
            OverrideValue::Text(s) => {
                let plain = s.trim() == s
                    && !s.is_empty()
                    && OverrideValue::parse_cli(s) == OverrideValue::Text(s.clone());
                if plain {
                    s.clone()
                } else {
                    serde_json::to_string(s).unwrap_or_default()
                }
            }
        }
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
    number_first: bool,
) -> Result<f64, SettingsError> {
    match value {
        None => Ok(default),
        Some(OverrideValue::Int(v)) => Ok(v as f64),
        Some(OverrideValue::Float(v)) => Ok(v),
        Some(OverrideValue::Bool(b)) => Ok(f64::from(u8::from(b))),
        Some(other) => Err(type_error(field, &other, op, number_first)),
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
    fn link_texts_read_back_as_the_same_value() {
        let values = [
            OverrideValue::Int(-7),
            OverrideValue::Float(1.0),
            OverrideValue::Float(0.65),
            OverrideValue::Float(1e300),
            OverrideValue::Bool(true),
            OverrideValue::Null,
            OverrideValue::Text("abc".into()),
            OverrideValue::Text("12".into()),
            OverrideValue::Text("true".into()),
            OverrideValue::Text(" x".into()),
            OverrideValue::Text(String::new()),
            OverrideValue::Text("\"q\"".into()),
        ];
        for v in values {
            assert_eq!(
                OverrideValue::parse_cli(&v.link_text()),
                v,
                "{}",
                v.link_text()
            );
        }
        assert_eq!(OverrideValue::Float(1.0).link_text(), "1.0");
        assert_eq!(OverrideValue::Text("12".into()).link_text(), "\"12\"");
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
    fn override_ids_are_the_tables_places_and_serialise_as_its_names() {
        for (i, id) in OverrideId::ALL.into_iter().enumerate() {
            assert_eq!(id.name(), OVERRIDES[i].name);
            assert_eq!(OverrideId::from_name(id.name()), Some(id));
            assert_eq!(
                serde_json::to_string(&id).unwrap(),
                format!("\"{}\"", id.name())
            );
        }
        assert_eq!(OverrideId::from_name("min_confidence "), None);
        assert_eq!(OverrideId::from_name("preset"), None);
    }

    #[test]
    fn overrides_are_validated_with_stormlog_messages() {
        let ovr = |k: &str, v: OverrideValue| vec![(k.to_string(), v)];
        let msg = |r: Result<AttributionConfig, SettingsError>| {
            r.err().map(|e| e.message).unwrap_or_default()
        };
        assert_eq!(
            msg(AttributionConfig::resolve(
                Preset::Medium,
                &ovr("unknown_knob", OverrideValue::Int(1))
            )),
            "Unknown collective attribution override fields: unknown_knob"
        );
        assert_eq!(
            msg(AttributionConfig::resolve(
                Preset::Medium,
                &ovr("min_samples_per_rank", OverrideValue::Int(2))
            )),
            "min_samples_per_rank must be >= 3"
        );
        assert!(msg(AttributionConfig::resolve(
            Preset::Medium,
            &ovr("min_gap_bytes", OverrideValue::Text("1".into()))
        ))
        .contains("'<' not supported between instances of 'str' and 'int'"));
        let typed = AttributionConfig::resolve(
            Preset::Medium,
            &ovr("min_gap_bytes", OverrideValue::Text("1".into())),
        );
        assert_eq!(
            typed
                .as_ref()
                .err()
                .and_then(SettingsError::python_type_error),
            Some("'<' not supported between instances of 'str' and 'int'")
        );
        let ranged = AttributionConfig::resolve(
            Preset::Medium,
            &ovr("min_gap_bytes", OverrideValue::Int(-1)),
        );
        assert_eq!(
            ranged
                .as_ref()
                .err()
                .and_then(SettingsError::python_type_error),
            None
        );
        assert_eq!(
            msg(AttributionConfig::resolve(
                Preset::Low,
                &ovr("min_confidence", OverrideValue::Float(1.5))
            )),
            "min_confidence must be in [0, 1]"
        );
        let ok = AttributionConfig::resolve(
            Preset::Low,
            &ovr("min_confidence", OverrideValue::Float(0.41)),
        );
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
        // Rust reads these as floats; JSON has no such numbers, so they stay text (and
        // stormlog's comparison then fails on a str).
        for word in ["nan", "inf", "-inf", "infinity", "NaN"] {
            assert_eq!(
                OverrideValue::parse_cli(word),
                OverrideValue::Text(word.into())
            );
        }
        assert_eq!(
            OverrideValue::parse_cli("1e3"),
            OverrideValue::Float(1000.0)
        );
        assert_eq!(
            OverrideValue::parse_cli(" "),
            OverrideValue::Text(" ".into())
        );
        // JSON's literals, trimmed; anything else spelt like them is text.
        for (text, want) in [
            ("null", OverrideValue::Null),
            (" true", OverrideValue::Bool(true)),
            ("false ", OverrideValue::Bool(false)),
            ("True", OverrideValue::Text("True".into())),
            ("\"null\"", OverrideValue::Text("null".into())),
        ] {
            assert_eq!(OverrideValue::parse_cli(text), want, "{text}");
        }
    }

    #[test]
    fn a_config_handed_over_whole_sets_numbers_as_they_are_and_refuses_the_rest() {
        let int = OverrideId::MinGapBytes.field();
        let float = OverrideId::MinConfidence.field();
        let mut config = AttributionConfig::preset(Preset::Medium);
        // Unchecked: stormlog uses a whole config as it is, negative values too.
        assert!(int.set_unchecked(&mut config, &OverrideValue::Int(-5)));
        assert_eq!(config.min_gap_bytes, -5);
        assert!(int.set_unchecked(&mut config, &OverrideValue::Bool(true)));
        assert_eq!(config.min_gap_bytes, 1);
        assert!(float.set_unchecked(&mut config, &OverrideValue::Int(2)));
        assert_eq!(config.min_confidence, 2.0);
        assert!(float.set_unchecked(&mut config, &OverrideValue::Float(0.25)));
        assert_eq!(config.min_confidence, 0.25);
        assert!(float.set_unchecked(&mut config, &OverrideValue::Bool(true)));
        assert_eq!(config.min_confidence, 1.0);
        // What a field cannot hold leaves it as it was.
        let before = config.clone();
        for (field, value) in [
            (int, OverrideValue::Float(1.5)),
            (int, OverrideValue::Text("1".into())),
            (int, OverrideValue::Null),
            (float, OverrideValue::Text("0.5".into())),
            (float, OverrideValue::Null),
        ] {
            assert!(!field.set_unchecked(&mut config, &value), "{value:?}");
        }
        assert_eq!(config, before);
    }

    #[test]
    fn only_the_integer_knobs_are_integers() {
        let ints: Vec<&str> = OVERRIDES
            .iter()
            .filter(|f| f.is_int())
            .map(|f| f.name)
            .collect();
        assert_eq!(
            ints,
            [
                "min_samples_per_rank",
                "min_gap_bytes",
                "marker_window_ns",
                "interval_padding_ns",
                "synchrony_window_ns"
            ]
        );
    }

    #[test]
    fn link_texts_quote_only_what_would_read_back_as_something_else() {
        let text = |s: &str| OverrideValue::Text(s.into()).link_text();
        assert_eq!(text("abc"), "abc");
        assert_eq!(text("a b"), "a b");
        for (s, quoted) in [
            ("", r#""""#),
            (" abc", r#"" abc""#),
            ("abc ", r#""abc ""#),
            ("1", r#""1""#),
            ("null", r#""null""#),
        ] {
            assert_eq!(text(s), quoted, "{s:?}");
        }
    }
}
