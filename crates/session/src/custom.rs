//! Custom models and machines for the explore view: a preset plus edits to its fields.
//!
//! Every field of the preset's JSON (as `--model-json` / `--machine-json` files hold it)
//! is a leaf with a dotted path (`layers`, `mla.r_kv`, `l1.bw_bytes_per_s`); an edit
//! replaces one leaf's value. The edits are what the page's editor holds and what a link
//! carries (`m.layers=96`), so a custom model costs a few dozen characters of link.

use serde_json::Value;

use crate::explorer::{MachineParams, ModelConfig};

/// One field of a model or machine: its dotted path and its value.
#[derive(Debug, Clone, PartialEq)]
pub struct Leaf {
    pub path: String,
    pub value: Value,
}

/// The leaves of `v` in document order (objects are walked; anything else is a leaf).
pub fn leaves(v: &Value) -> Vec<Leaf> {
    fn walk(prefix: &str, v: &Value, out: &mut Vec<Leaf>) {
        match v {
            Value::Object(map) => {
                for (k, child) in map {
                    let path = if prefix.is_empty() {
                        k.clone()
                    } else {
                        format!("{prefix}.{k}")
                    };
                    walk(&path, child, out);
                }
            }
            other => out.push(Leaf {
                path: prefix.to_string(),
                value: other.clone(),
            }),
        }
    }
    let mut out = Vec::new();
    walk("", v, &mut out);
    out
}

/// A value as typed: JSON when it parses (`96`, `2.5e12`, `true`, `null`, `{…}`),
/// otherwise the text as a string (names).
pub fn parse_value(text: &str) -> Value {
    serde_json::from_str(text.trim()).unwrap_or_else(|_| Value::String(text.to_string()))
}

/// A value as an input shows it (strings without quotes).
pub fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Replace the leaf at `path`; `false` when `v` has no such leaf.
pub fn set_leaf(v: &mut Value, path: &str, value: Value) -> bool {
    let mut node = v;
    for key in path.split('.') {
        match node {
            Value::Object(map) => match map.get_mut(key) {
                Some(child) => node = child,
                None => return false,
            },
            _ => return false,
        }
    }
    if node.is_object() {
        return false;
    }
    *node = value;
    true
}

/// The JSON document of a model preset (`None` for an unknown name).
pub fn model_preset_json(name: &str) -> Option<Value> {
    serde_json::to_value(ModelConfig::preset(name).ok()?).ok()
}

/// The JSON document of a machine preset (`None` for an unknown name).
pub fn machine_preset_json(name: &str) -> Option<Value> {
    serde_json::to_value(MachineParams::preset(name).ok()?).ok()
}

/// `base` with `edits` applied (edits to paths it lacks are skipped).
pub fn apply_edits(mut base: Value, edits: &[(String, String)]) -> Value {
    for (path, text) in edits {
        set_leaf(&mut base, path, parse_value(text));
    }
    base
}

/// A model or machine as a `--model-json` / `--machine-json` file (pretty JSON).
pub fn pretty_json<T: serde::Serialize>(v: &T) -> String {
    let mut text = serde_json::to_string_pretty(v).unwrap_or_default();
    text.push('\n');
    text
}

/// The edits that turn `base` into `edited`: one per leaf whose value differs.
pub fn edits_between(base: &Value, edited: &Value) -> Vec<(String, String)> {
    let before = leaves(base);
    leaves(edited)
        .into_iter()
        .filter(|leaf| {
            before
                .iter()
                .find(|b| b.path == leaf.path)
                .is_none_or(|b| b.value != leaf.value)
        })
        .map(|leaf| {
            let text = value_text(&leaf.value);
            (leaf.path, text)
        })
        .collect()
}

/// What an editor edits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Subject {
    Model,
    Machine,
}

/// One input of an editor: the field's path, its value and the preset's value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    pub path: String,
    pub value: String,
    pub preset: String,
}

impl Subject {
    /// `model` / `machine` (test hooks, error fields, file names).
    pub fn name(self) -> &'static str {
        match self {
            Subject::Model => "model",
            Subject::Machine => "machine",
        }
    }

    fn presets(self) -> &'static [&'static str] {
        match self {
            Subject::Model => crate::explorer::MODEL_PRESETS,
            Subject::Machine => crate::explorer::MACHINE_PRESETS,
        }
    }

    /// The preset's JSON document.
    pub fn preset_json(self, preset: &str) -> Option<Value> {
        match self {
            Subject::Model => model_preset_json(preset),
            Subject::Machine => machine_preset_json(preset),
        }
    }

    /// The editor's inputs: every field of `preset` with `edits` applied.
    pub fn fields(self, preset: &str, edits: &[(String, String)]) -> Vec<Field> {
        let Some(base) = self.preset_json(preset) else {
            return Vec::new();
        };
        let before = leaves(&base);
        leaves(&apply_edits(base.clone(), edits))
            .into_iter()
            .map(|leaf| Field {
                preset: before
                    .iter()
                    .find(|b| b.path == leaf.path)
                    .map(|b| value_text(&b.value))
                    .unwrap_or_default(),
                value: value_text(&leaf.value),
                path: leaf.path,
            })
            .collect()
    }

    /// An imported `--model-json` / `--machine-json` file as (preset, edits): its own
    /// name when that is a preset, else `current`; the core's message when it is invalid.
    pub fn import(
        self,
        text: &str,
        current: &str,
    ) -> Result<(String, Vec<(String, String)>), String> {
        let (name, value) = match self {
            Subject::Model => {
                let m = ModelConfig::from_json(text).map_err(|e| e.to_string())?;
                (
                    m.name.clone(),
                    serde_json::to_value(m).map_err(|e| e.to_string())?,
                )
            }
            Subject::Machine => {
                let m = MachineParams::from_json(text).map_err(|e| e.to_string())?;
                (
                    m.name.clone(),
                    serde_json::to_value(m).map_err(|e| e.to_string())?,
                )
            }
        };
        let preset = if self.presets().contains(&name.as_str()) {
            name
        } else {
            current.to_string()
        };
        let base = self
            .preset_json(&preset)
            .ok_or_else(|| format!("unknown {} preset `{preset}`", self.name()))?;
        Ok((preset, edits_between(&base, &value)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_flatten_edit_and_diff() {
        let base = model_preset_json("deepseek-v3").unwrap();
        let paths: Vec<String> = leaves(&base).into_iter().map(|l| l.path).collect();
        assert!(paths.contains(&"layers".to_string()));
        assert!(paths.contains(&"mla.r_kv".to_string()));
        let edits = vec![
            ("layers".to_string(), "96".to_string()),
            ("mla.r_kv".to_string(), "1024".to_string()),
            ("name".to_string(), "my-model".to_string()),
            ("nope".to_string(), "1".to_string()),
        ];
        let edited = apply_edits(base.clone(), &edits);
        let model: ModelConfig = serde_json::from_value(edited.clone()).unwrap();
        assert_eq!(model.layers, 96);
        assert_eq!(model.mla.unwrap().r_kv, 1024);
        assert_eq!(model.name, "my-model");
        assert_eq!(edits_between(&base, &edited), edits[..3].to_vec());
        let machine = machine_preset_json("h200-hgx").unwrap();
        assert!(leaves(&machine)
            .iter()
            .any(|l| l.path == "l1.bw_bytes_per_s"));
        assert!(
            !set_leaf(&mut machine.clone(), "l1", Value::Null),
            "objects are not leaves"
        );
        assert_eq!(parse_value("2.5e12"), serde_json::json!(2.5e12));
        assert_eq!(value_text(&Value::String("x".into())), "x");
    }

    #[test]
    fn editors_list_fields_and_import_files() {
        let fields = Subject::Model.fields("llama3.1-8b", &[("layers".into(), "16".into())]);
        let layers = fields.iter().find(|f| f.path == "layers").unwrap();
        assert_eq!(
            (layers.value.as_str(), layers.preset.as_str()),
            ("16", "32")
        );
        let mut m = ModelConfig::preset("mixtral-8x7b").unwrap();
        m.top_k = 1;
        let (preset, edits) = Subject::Model
            .import(&pretty_json(&m), "llama3.1-8b")
            .unwrap();
        assert_eq!(preset, "mixtral-8x7b");
        assert_eq!(edits, vec![("top_k".to_string(), "1".to_string())]);
        m.name = "mine".into();
        let (preset, edits) = Subject::Model
            .import(&pretty_json(&m), "mixtral-8x7b")
            .unwrap();
        assert_eq!(preset, "mixtral-8x7b");
        assert!(edits.contains(&("name".to_string(), "mine".to_string())));
        assert!(Subject::Machine
            .import("{\"nope\": 1}", "h200-hgx")
            .is_err());
    }
}
