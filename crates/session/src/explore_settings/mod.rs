//! The explore view's settings as typed, and their validation into a sweep request
//! (messages naming the field, in the CLI's words); configuration short keys; the
//! custom model and machine edits. What a permalink and a scenario hold.

use serde::{Deserialize, Serialize};

use crate::custom::{apply_edits, machine_preset_json, model_preset_json, pretty_json, Subject};
use crate::explorer::{
    calibrate, explore, Calibration, EfficiencyMode, ExploreReport, ExplorerError, MachineParams,
    Measured, Measurement, Mode, ModelConfig, Scope, ScoreOptions, Sla, Sweep, SweepRequest,
    TimeScales, TopologyConfig, MAX_BATCH, MAX_DEGREE, MAX_S_KV,
};

mod knob;
mod measurement;

pub use knob::*;
pub use measurement::*;

/// The explore settings as the inputs hold them (numbers as typed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExploreSettings {
    pub model: String,
    pub machine: String,
    pub mode: Mode,
    pub scope: Scope,
    pub efficiency: EfficiencyMode,
    pub s_kv: String,
    pub batch: String,
    pub ep: String,
    /// Milliseconds; empty = no bound.
    pub sla_ttft_ms: String,
    pub sla_tpot_ms: String,
    /// Edits to the model preset's fields (path, value as typed): a custom model.
    pub model_edits: Vec<(String, String)>,
    /// Edits to the machine preset's fields: a custom machine.
    pub machine_edits: Vec<(String, String)>,
    /// Measurements the model is calibrated to, each as `cfg=…,latency_ms=…` (see
    /// [`parse_measurement`]).
    #[serde(default)]
    pub calibration: Vec<String>,
}

impl Default for ExploreSettings {
    fn default() -> Self {
        ExploreSettings {
            model: "llama3.1-70b".into(),
            machine: "h200-hgx".into(),
            mode: Mode::Decode,
            scope: Scope::All,
            efficiency: EfficiencyMode::Seed,
            s_kv: "32768".into(),
            batch: "1".into(),
            ep: "1".into(),
            sla_ttft_ms: String::new(),
            sla_tpot_ms: String::new(),
            model_edits: Vec::new(),
            machine_edits: Vec::new(),
            calibration: Vec::new(),
        }
    }
}

/// A problem with one input: which (`s_kv`, `batch`, `model.layers`, `config`, as the
/// CLI's field names) and why. What the explorer's checks, parsers and jobs return, and
/// what the worker sends the page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{message}")]
pub struct FieldError {
    pub field: String,
    pub message: String,
}

impl FieldError {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> FieldError {
        FieldError {
            field: field.into(),
            message: message.into(),
        }
    }

    /// An explorer error about `whole` (`model`, `machine`, `config`): the field it
    /// names when that is a part of `whole` (`model.layers`) or a setting of its own.
    pub fn from_explorer(e: ExplorerError, whole: &str) -> FieldError {
        let field = match &e {
            ExplorerError::Invalid { field, .. } if field.contains('.') => field.clone(),
            _ => whole.to_string(),
        };
        FieldError::new(field, e.to_string())
    }
}

impl From<ExplorerError> for FieldError {
    /// The field the error names, else `settings`.
    fn from(e: ExplorerError) -> FieldError {
        let field = e.field().unwrap_or("settings").to_string();
        FieldError::new(field, e.to_string())
    }
}

/// The field name of a CLI flag: `s-kv` → `s_kv`.
fn flag_field(flag: &str) -> String {
    flag.replace('-', "_")
}

/// What the worker runs: resolved inputs of one sweep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExploreRequest {
    pub model: ModelConfig,
    pub machine: MachineParams,
    /// With the calibration's scales in `options.scales`.
    pub sweep: SweepRequest,
    /// The fitted calibration, when measurements were given.
    #[serde(default)]
    pub calibration: Option<Calibration>,
}

impl ExploreRequest {
    /// `explore` for this request, the report marked with its calibration.
    pub fn explore(&self, include_all: bool) -> Result<(ExploreReport, Sweep), ExplorerError> {
        let (mut report, sweep) = explore(&self.model, &self.machine, &self.sweep, include_all)?;
        report.calibration = self.calibration.clone();
        Ok((report, sweep))
    }
}

/// A positive integer as the CLI reads `--<flag>`, with its message.
pub fn parse_count(flag: &str, text: &str, max: u64) -> Result<u64, FieldError> {
    let fail = |message: String| FieldError::new(flag_field(flag), message);
    let n: u64 = text
        .trim()
        .parse()
        .map_err(|_| fail(format!("--{flag} `{text}` is not a positive integer")))?;
    if n == 0 || n > max {
        return Err(fail(format!("--{flag} ({n}) must be between 1 and {max}")));
    }
    Ok(n)
}

/// A positive number of milliseconds as the CLI reads `--<flag>`, with its message.
pub fn parse_ms(flag: &str, text: &str) -> Result<f64, FieldError> {
    let fail = |message: String| FieldError::new(flag_field(flag), message);
    let x: f64 = text
        .trim()
        .parse()
        .map_err(|_| fail(format!("--{flag} `{text}` is not a number")))?;
    if !(x.is_finite() && x > 0.0) {
        return Err(fail(format!(
            "--{flag} ({text}) must be a positive number of milliseconds"
        )));
    }
    Ok(x)
}

/// Check every input; all problems at once, each naming its field.
pub fn resolve(s: &ExploreSettings) -> Result<ExploreRequest, Vec<FieldError>> {
    let mut errors = Vec::new();
    let mut fail = |e: FieldError| errors.push(e);
    // A problem inside a custom model or machine names its field (`model.layers`).
    let model = resolve_model(s).map_err(|e| fail(FieldError::from_explorer(e, "model")));
    let machine = resolve_machine(s).map_err(|e| fail(FieldError::from_explorer(e, "machine")));
    let s_kv = parse_count("s-kv", &s.s_kv, MAX_S_KV).map_err(&mut fail);
    let batch = parse_count("batch", &s.batch, u64::from(MAX_BATCH)).map_err(&mut fail);
    let ep = parse_count("ep", &s.ep, u64::from(MAX_DEGREE)).map_err(&mut fail);
    let optional_ms = |flag: &str, text: &str| -> Result<Option<f64>, FieldError> {
        if text.trim().is_empty() {
            Ok(None)
        } else {
            parse_ms(flag, text).map(Some)
        }
    };
    let ttft = optional_ms("sla-ttft-ms", &s.sla_ttft_ms).map_err(&mut fail);
    let tpot = optional_ms("sla-tpot-ms", &s.sla_tpot_ms).map_err(&mut fail);
    let (Ok(model), Ok(machine), Ok(s_kv), Ok(batch), Ok(ep), Ok(ttft_max_ms), Ok(tpot_max_ms)) =
        (model, machine, s_kv, batch, ep, ttft, tpot)
    else {
        return Err(errors);
    };
    let sla = Sla {
        tpot_max_ms,
        ttft_max_ms,
        prompt_len: None,
    };
    let sweep = SweepRequest {
        s_kv,
        mode: s.mode,
        batch: u32::try_from(batch).unwrap_or(u32::MAX),
        ep: u32::try_from(ep).unwrap_or(u32::MAX),
        options: ScoreOptions {
            scope: s.scope,
            efficiency: s.efficiency,
            include_overheads: true,
            scales: TimeScales::default(),
        },
        sla: (!sla.is_empty()).then_some(sla),
    };
    let mut sweep = sweep;
    if let Err(e) = sweep.validate() {
        return Err(vec![e.into()]);
    }
    let calibration = if s.calibration.is_empty() {
        None
    } else {
        let base = sweep.base_topology();
        let measurements = s
            .calibration
            .iter()
            .map(|t| parse_measurement(t, &base))
            .collect::<Result<Vec<Measurement>, FieldError>>()
            .map_err(|e| vec![e])?;
        let fit = calibrate(&model, &machine, sweep.options, &measurements)
            .map_err(|e| vec![FieldError::new("calibrate", e.to_string())])?;
        sweep.options.scales = fit.scales;
        Some(fit)
    };
    Ok(ExploreRequest {
        model,
        machine,
        sweep,
        calibration,
    })
}

/// The model: the preset, or the preset with the edits (validated as a `--model-json`).
pub fn resolve_model(s: &ExploreSettings) -> Result<ModelConfig, ExplorerError> {
    if s.model_edits.is_empty() {
        return ModelConfig::preset(&s.model);
    }
    let base = model_preset_json(&s.model).ok_or_else(|| {
        ModelConfig::preset(&s.model)
            .err()
            .unwrap_or_else(|| ExplorerError::invalid("model", "unknown model preset"))
    })?;
    ModelConfig::from_json(&apply_edits(base, &s.model_edits).to_string())
}

/// The machine: the preset, or the preset with the edits (as a `--machine-json`).
pub fn resolve_machine(s: &ExploreSettings) -> Result<MachineParams, ExplorerError> {
    if s.machine_edits.is_empty() {
        return MachineParams::preset(&s.machine);
    }
    let base = machine_preset_json(&s.machine).ok_or_else(|| {
        MachineParams::preset(&s.machine)
            .err()
            .unwrap_or_else(|| ExplorerError::invalid("machine", "unknown machine preset"))
    })?;
    MachineParams::from_json(&apply_edits(base, &s.machine_edits).to_string())
}

/// What the custom model and machine editors change in the settings.
impl ExploreSettings {
    /// The preset the editor of `kind` starts from.
    pub fn preset(&self, kind: Subject) -> &str {
        match kind {
            Subject::Model => &self.model,
            Subject::Machine => &self.machine,
        }
    }

    /// The edits to that preset (path, value as typed).
    pub fn edits(&self, kind: Subject) -> &[(String, String)] {
        match kind {
            Subject::Model => &self.model_edits,
            Subject::Machine => &self.machine_edits,
        }
    }

    fn edits_mut(&mut self, kind: Subject) -> &mut Vec<(String, String)> {
        match kind {
            Subject::Model => &mut self.model_edits,
            Subject::Machine => &mut self.machine_edits,
        }
    }

    /// Field `path` typed as `text`: an edit unless it (trimmed) equals the preset's
    /// value `preset_value`, which drops the edit. The field's earlier edit is replaced.
    pub fn set_edit(&mut self, kind: Subject, path: &str, text: &str, preset_value: &str) {
        let text = text.trim();
        let edits = self.edits_mut(kind);
        edits.retain(|(p, _)| p != path);
        if text != preset_value {
            edits.push((path.to_string(), text.to_string()));
        }
    }

    /// Every field back to the preset.
    pub fn clear_edits(&mut self, kind: Subject) {
        self.edits_mut(kind).clear();
    }

    /// An imported `--model-json` / `--machine-json` file, as [`Subject::import`] reads
    /// it: the preset it names (or the current one) and its differences as edits.
    pub fn import(&mut self, kind: Subject, text: &str) -> Result<(), String> {
        let (preset, edits) = kind.import(text, self.preset(kind))?;
        match kind {
            Subject::Model => self.model = preset,
            Subject::Machine => self.machine = preset,
        }
        *self.edits_mut(kind) = edits;
        Ok(())
    }

    /// The edited model or machine as the CLI's `--model-json` / `--machine-json` file:
    /// (file name, pretty JSON).
    pub fn export(&self, kind: Subject) -> Result<(String, String), ExplorerError> {
        let (name, text) = match kind {
            Subject::Model => resolve_model(self).map(|m| (m.name.clone(), pretty_json(&m)))?,
            Subject::Machine => resolve_machine(self).map(|m| (m.name.clone(), pretty_json(&m)))?,
        };
        Ok((format!("{name}.json"), text))
    }
}

/// A configuration's knobs in one dotted word for links and labels:
/// `cp2.tp4.pp1.dp1.split.TP+CP.pe.pe.qoml` (ep and batch are the sweep's).
pub fn short_key(t: &TopologyConfig) -> String {
    format!(
        "cp{}.tp{}.pp{}.dp{}.{}.{}.{}.{}.{}",
        t.cp,
        t.tp,
        t.pp,
        t.dp,
        t.kv_shard_mode,
        t.ffn_shard_scope,
        t.tp_placement,
        t.cp_placement,
        t.cp_ring_variant
    )
}

/// A configuration's knobs for people: `cp2 tp4 pp1 dp1 · split · TP+CP · pe/pe · qoml`.
pub fn knobs_text(t: &TopologyConfig) -> String {
    format!(
        "cp{} tp{} pp{} dp{} · {} · {} · {}/{} · {}",
        t.cp,
        t.tp,
        t.pp,
        t.dp,
        t.kv_shard_mode,
        t.ffn_shard_scope,
        t.tp_placement,
        t.cp_placement,
        t.cp_ring_variant
    )
}

/// Read a [`short_key`] onto `base` (which supplies ep, batch, s_kv, mode).
pub fn parse_short_key(text: &str, base: &TopologyConfig) -> Result<TopologyConfig, FieldError> {
    let fail = |message: String| FieldError::new("config", message);
    let parts: Vec<&str> = text.trim().split('.').collect();
    let [cp, tp, pp, dp, kv, ffn, tpp, cpp, ring] = parts.as_slice() else {
        return Err(fail(format!(
            "`{text}` is not cpN.tpN.ppN.dpN.kv.ffn.tpp.cpp.ring"
        )));
    };
    let degree = |part: &str, prefix: &str| -> Result<String, FieldError> {
        part.strip_prefix(prefix)
            .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
            .map(str::to_string)
            .ok_or_else(|| fail(format!("`{part}` is not {prefix}N")))
    };
    let spec = format!(
        "cp={},tp={},pp={},dp={},kv={kv},ffn={ffn},tpp={tpp},cpp={cpp},ring={ring}",
        degree(cp, "cp")?,
        degree(tp, "tp")?,
        degree(pp, "pp")?,
        degree(dp, "dp")?
    );
    base.with_baseline(&spec)
        .map_err(|e| FieldError::from_explorer(e, "config"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measurements_parse_and_calibrate_the_whole_sweep() {
        let base = TopologyConfig::default();
        let key = "cp1.tp8.pp1.dp1.split.TP.pe.cube.kv";
        let m = parse_measurement(
            &format!("cfg:{key}, latency_ms:8,batch=4,mode=prefill,s_kv=2048"),
            &base,
        )
        .unwrap();
        assert_eq!((m.config.tp, m.config.batch, m.config.s_kv), (8, 4, 2048));
        assert_eq!(m.config.mode, Mode::Prefill);
        assert_eq!(m.measured, Measured::LatencyMs(8.0));
        for (bad, says) in [
            ("latency_ms=8", "names its configuration"),
            (&format!("cfg={key}") as &str, "latency_ms=… or tok_s=…"),
            (&format!("cfg={key},latency_ms=-1"), "not a positive number"),
            (&format!("cfg={key},tok_s=x"), "not a positive number"),
            (
                &format!("cfg={key},gpu=1,latency_ms=3"),
                "unknown measurement key `gpu`",
            ),
            ("cfg=cp3,latency_ms=3", "not cpN"),
            (&format!("cfg={key},latency_ms=3,batch=0"), "--batch (0)"),
        ] {
            let e = parse_measurement(bad, &base).unwrap_err();
            assert_eq!(e.field, "calibrate");
            assert!(e.message.contains(says), "{bad}: {}", e.message);
        }
        // Calibrated settings: the fit's scales in the request, every latency × the factor.
        let plain = resolve(&ExploreSettings::default()).unwrap();
        let (before, _) = plain.explore(false).unwrap();
        assert!(before.calibration.is_none());
        let first = &before.pareto[0];
        let mut settings = ExploreSettings::default();
        let topo = first.as_topology(32768, Mode::Decode);
        assert!(settings
            .add_measurement(&topo, MeasuredUnit::LatencyMs, "-2")
            .is_err());
        settings
            .add_measurement(&topo, MeasuredUnit::TokS, "5")
            .unwrap();
        // A latency of the same configuration is kept beside its throughput; a second
        // latency replaces the first.
        settings
            .add_measurement(&topo, MeasuredUnit::LatencyMs, "1000")
            .unwrap();
        assert_eq!(settings.calibration.len(), 2);
        let three_times = format!("{}", first.latency_ms() * 3.0);
        settings
            .add_measurement(&topo, MeasuredUnit::LatencyMs, &three_times)
            .unwrap();
        assert_eq!(settings.calibration.len(), 2);
        assert!(settings.calibration[0].contains(",tok_s=5,"));
        settings.calibration.remove(0);
        assert!(settings.calibration[0].starts_with(&format!("cfg={key},latency_ms=")));
        assert!(settings.calibration[0].ends_with(",batch=1,s_kv=32768,mode=decode"));
        let req = resolve(&settings).unwrap();
        let fit = req.calibration.clone().unwrap();
        assert!((fit.scales.compute - 3.0).abs() < 1e-9);
        assert_eq!(req.sweep.options.scales, fit.scales);
        let (after, _) = req.explore(false).unwrap();
        assert_eq!(after.calibration.as_ref(), Some(&fit));
        assert_eq!(after.pareto.len(), before.pareto.len());
        for (a, b) in after.pareto.iter().zip(&before.pareto) {
            assert!((a.total_latency_ns / b.total_latency_ns - 3.0).abs() < 1e-9);
        }
        let bad = ExploreSettings {
            calibration: vec!["cfg=cp1".into()],
            ..ExploreSettings::default()
        };
        assert_eq!(resolve(&bad).unwrap_err()[0].field, "calibrate");
    }

    #[test]
    fn defaults_resolve_and_bad_inputs_name_their_field() {
        let req = resolve(&ExploreSettings::default()).unwrap();
        assert_eq!(req.sweep.s_kv, 32768);
        assert_eq!(req.model.name, "llama3.1-70b");
        let bad = ExploreSettings {
            s_kv: "lots".into(),
            batch: "0".into(),
            sla_tpot_ms: "-3".into(),
            model: "gpt-9".into(),
            ..ExploreSettings::default()
        };
        let errors = resolve(&bad).unwrap_err();
        let fields: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(fields, ["model", "s_kv", "batch", "sla_tpot_ms"]);
        assert_eq!(errors[1].message, "--s-kv `lots` is not a positive integer");
        assert_eq!(
            errors[2].message,
            "--batch (0) must be between 1 and 16777216"
        );
        assert!(errors[0].message.contains("gpt-9"), "{}", errors[0].message);
    }

    #[test]
    fn custom_models_resolve_and_their_problems_name_the_field() {
        let custom = ExploreSettings {
            model_edits: vec![
                ("layers".into(), "40".into()),
                ("name".into(), "half-70b".into()),
            ],
            ..ExploreSettings::default()
        };
        let req = resolve(&custom).unwrap();
        assert_eq!(
            (req.model.layers, req.model.name.as_str()),
            (40, "half-70b")
        );
        let bad = ExploreSettings {
            model_edits: vec![("h_q".into(), "0".into())],
            machine_edits: vec![("hbm_usable_frac".into(), "7".into())],
            ..ExploreSettings::default()
        };
        let errors = resolve(&bad).unwrap_err();
        let fields: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(
            fields,
            ["model.h_q", "machine.hbm_usable_frac"],
            "{errors:?}"
        );
    }

    #[test]
    fn short_keys_round_trip() {
        let base = TopologyConfig::default();
        let t = base
            .with_baseline("cp=2,tp=4,pp=1,dp=2,kv=replicate,ffn=TP+CP,tpp=cube,cpp=pe,ring=kv")
            .unwrap();
        let key = short_key(&t);
        assert_eq!(key, "cp2.tp4.pp1.dp2.replicate.TP+CP.cube.pe.kv");
        assert_eq!(parse_short_key(&key, &base), Ok(t));
        assert!(parse_short_key("cp2.tp4", &base).is_err());
        assert!(parse_short_key("cpx.tp4.pp1.dp2.split.TP.pe.pe.kv", &base).is_err());
        assert!(parse_short_key("cp2.tp4.pp1.dp2.sideways.TP.pe.pe.kv", &base).is_err());
    }

    #[test]
    fn editors_edit_import_and_export_the_settings() {
        let mut s = ExploreSettings::default();
        s.set_edit(Subject::Model, "layers", " 96 ", "80");
        s.set_edit(Subject::Model, "layers", "90", "80");
        assert_eq!(
            s.edits(Subject::Model),
            [("layers".to_string(), "90".to_string())]
        );
        assert!(s.edits(Subject::Machine).is_empty());
        let (file, text) = s.export(Subject::Model).unwrap();
        assert_eq!(file, "llama3.1-70b.json");
        assert_eq!(ModelConfig::from_json(&text).unwrap().layers, 90);
        s.set_edit(Subject::Model, "layers", "80 ", "80");
        assert!(
            s.edits(Subject::Model).is_empty(),
            "the preset's value drops the edit"
        );
        let mut m = ModelConfig::preset("mixtral-8x7b").unwrap();
        m.top_k = 1;
        s.import(Subject::Model, &pretty_json(&m)).unwrap();
        assert_eq!(s.preset(Subject::Model), "mixtral-8x7b");
        assert_eq!(
            s.edits(Subject::Model),
            [("top_k".to_string(), "1".to_string())]
        );
        assert!(s.import(Subject::Model, "{").is_err());
        assert_eq!(
            s.preset(Subject::Model),
            "mixtral-8x7b",
            "a bad file changes nothing"
        );
        s.clear_edits(Subject::Model);
        assert!(s.edits(Subject::Model).is_empty());
        s.set_edit(Subject::Machine, "pes_per_cube", "x", "8");
        assert!(s.export(Subject::Machine).is_err());
    }

    #[test]
    fn parse_errors_name_their_field_with_the_clis_words() {
        assert_eq!(
            parse_count("s-kv", "0", 8),
            Err(FieldError::new(
                "s_kv",
                "--s-kv (0) must be between 1 and 8"
            ))
        );
        assert_eq!(
            parse_ms("sla-ttft-ms", "x"),
            Err(FieldError::new(
                "sla_ttft_ms",
                "--sla-ttft-ms `x` is not a number"
            ))
        );
        let req = resolve(&ExploreSettings::default()).unwrap();
        let base = req.sweep.base_topology();
        let bad = parse_short_key("cp2.tp4", &base).unwrap_err();
        assert_eq!(bad.field, "config");
        assert_eq!(
            bad.message,
            "`cp2.tp4` is not cpN.tpN.ppN.dpN.kv.ffn.tpp.cpp.ring"
        );
        assert_eq!(
            parse_short_key("cpx.tp4.pp1.dp2.split.TP.pe.pe.kv", &base)
                .unwrap_err()
                .message,
            "`cpx` is not cpN"
        );
        let sweep = crate::explorer::SweepRequest::default();
        let e: FieldError = sweep
            .validate()
            .err()
            .map(FieldError::from)
            .unwrap_or_else(|| FieldError::new("s_kv", "--s-kv must be positive"));
        assert!(!e.field.is_empty() && !e.message.is_empty());
        assert_eq!(e.to_string(), e.message, "Display is the message alone");
    }
}
