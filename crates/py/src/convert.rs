//! Python values to the core's settings types and back.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyString};

use shardscope_attribution::attribution::{AttributionConfig, OverrideValue, Preset, OVERRIDES};

/// One Python value as an override value: what stormlog's `replace(config, **overrides)`
/// would store (bools before ints: `True` is an int in Python too).
fn override_value(value: &Bound<'_, PyAny>) -> PyResult<OverrideValue> {
    if value.is_none() {
        return Ok(OverrideValue::Null);
    }
    if let Ok(b) = value.cast::<PyBool>() {
        return Ok(OverrideValue::Bool(b.is_true()));
    }
    if value.cast::<PyInt>().is_ok() {
        return Ok(match value.extract::<i64>() {
            Ok(v) => OverrideValue::Int(v),
            // Beyond 64 bits: a float, which an integer field refuses by name.
            Err(_) => OverrideValue::Float(value.extract::<f64>()?),
        });
    }
    if let Ok(f) = value.cast::<PyFloat>() {
        return Ok(OverrideValue::Float(f.value()));
    }
    if let Ok(s) = value.cast::<PyString>() {
        return Ok(OverrideValue::Text(s.to_string()));
    }
    Ok(OverrideValue::Text(value.str()?.to_string()))
}

/// A mapping of override fields to values, in its order.
pub fn overrides(mapping: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<(String, OverrideValue)>> {
    let Some(mapping) = mapping.filter(|m| !m.is_none()) else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for item in mapping.call_method0("items")?.try_iter()? {
        let (key, value): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item?.extract()?;
        out.push((key.str()?.to_string(), override_value(&value)?));
    }
    Ok(out)
}

/// The config's fields by stormlog's names (`preset` first).
pub fn config_dict<'py>(
    py: Python<'py>,
    config: &AttributionConfig,
) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    out.set_item("preset", config.preset.as_str())?;
    for field in &OVERRIDES {
        match field.value(config) {
            OverrideValue::Int(v) => out.set_item(field.name, v)?,
            OverrideValue::Float(v) => out.set_item(field.name, v)?,
            _ => {}
        }
    }
    Ok(out)
}

/// A config given whole (a dict of stormlog's fields), taken as it is: stormlog does not
/// validate a config it is handed. Absent fields keep the named preset's values.
pub fn config_from(fields: &Bound<'_, PyAny>) -> PyResult<AttributionConfig> {
    let preset_name: String = match fields.get_item("preset") {
        Ok(v) if !v.is_none() => v.str()?.to_string(),
        _ => "medium".to_string(),
    };
    let mut config = AttributionConfig::preset(Preset::parse(&preset_name).unwrap_or_default());
    for field in &OVERRIDES {
        let Ok(value) = fields.get_item(field.name) else {
            continue;
        };
        let value = override_value(&value)?;
        if !field.set_unchecked(&mut config, &value) {
            return Err(PyTypeError::new_err(format!(
                "config field {} must be a number",
                field.name
            )));
        }
    }
    Ok(config)
}
