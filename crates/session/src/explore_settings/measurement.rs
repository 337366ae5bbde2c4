//! Measurements the model is calibrated to, one text line each (`--calibrate`'s form).

use super::*;

/// One measurement as `--calibrate` and links write it: `cfg=KEY` (a short key
/// `cp2.tp4.…` or the baseline syntax `cp=2,tp=4` is not allowed here: commas separate the
/// items) and `latency_ms=X` or `tok_s=Y`, optionally `batch=B`, `s_kv=S`, `mode=M`
/// (default: the sweep's); `:` may stand for `=`.
pub fn parse_measurement(text: &str, base: &TopologyConfig) -> Result<Measurement, FieldError> {
    let fail = |m: String| FieldError::new("calibrate", m);
    let mut config: Option<TopologyConfig> = None;
    let mut measured: Option<Measured> = None;
    let mut topo = *base;
    for item in text.split(',').map(str::trim).filter(|i| !i.is_empty()) {
        let Some(at) = item.find(['=', ':']) else {
            return Err(fail(format!("`{item}` in a measurement is not key=value")));
        };
        let (key, value) = (item[..at].trim(), item[at + 1..].trim());
        let number = |what: &str| -> Result<f64, FieldError> {
            match value.parse::<f64>() {
                Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
                _ => Err(fail(format!("{what} `{value}` is not a positive number"))),
            }
        };
        match key {
            "cfg" | "config" => config = Some(parse_short_key(value, base).map_err(|e| fail(e.message))?),
            "latency_ms" => measured = Some(Measured::LatencyMs(number("latency_ms")?)),
            "tok_s" => measured = Some(Measured::TokS(number("tok_s")?)),
            "batch" => {
                topo.batch = u32::try_from(parse_count("batch", value, u64::from(MAX_BATCH)).map_err(|e| fail(e.message))?)
                    .unwrap_or(u32::MAX);
            }
            "s_kv" => topo.s_kv = parse_count("s-kv", value, MAX_S_KV).map_err(|e| fail(e.message))?,
            "mode" => topo.mode = value.parse::<Mode>().map_err(|e| fail(e.to_string()))?,
            _ => {
                return Err(fail(format!(
                    "unknown measurement key `{key}` (known: cfg, latency_ms, tok_s, batch, s_kv, mode)"
                )))
            }
        }
    }
    let Some(config) = config else {
        return Err(fail(format!(
            "`{text}`: a measurement names its configuration (cfg=…)"
        )));
    };
    let Some(measured) = measured else {
        return Err(fail(format!(
            "`{text}`: a measurement gives latency_ms=… or tok_s=…"
        )));
    };
    Ok(Measurement {
        config: TopologyConfig {
            batch: topo.batch,
            s_kv: topo.s_kv,
            mode: topo.mode,
            ..config
        },
        measured,
    })
}

/// What a measurement typed on the page gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MeasuredUnit {
    LatencyMs,
    TokS,
}

impl MeasuredUnit {
    /// The measurement's key (`latency_ms`, `tok_s`).
    pub fn key(self) -> &'static str {
        match self {
            MeasuredUnit::LatencyMs => "latency_ms",
            MeasuredUnit::TokS => "tok_s",
        }
    }
}

/// The text of a measurement of `topo` (its knobs, batch, s_kv and mode, so that it
/// keeps meaning the same configuration when the sweep's settings change).
pub fn measurement_text(topo: &TopologyConfig, unit: MeasuredUnit, value: &str) -> String {
    format!(
        "cfg={},{}={},batch={},s_kv={},mode={}",
        short_key(topo),
        unit.key(),
        value.trim(),
        topo.batch,
        topo.s_kv,
        topo.mode
    )
}

impl ExploreSettings {
    /// Calibrate to what `topo` measured (replacing an earlier measurement of the same
    /// configuration in the same unit: a latency and a throughput of one configuration
    /// are both kept); the value is checked as `--calibrate` checks it.
    pub fn add_measurement(
        &mut self,
        topo: &TopologyConfig,
        unit: MeasuredUnit,
        value: &str,
    ) -> Result<(), FieldError> {
        let text = measurement_text(topo, unit, value);
        let m = parse_measurement(&text, topo)?;
        self.calibration
            .retain(|t| parse_measurement(t, topo).map_or(true, |old| !old.same_kind(&m)));
        self.calibration.push(text);
        Ok(())
    }
}
