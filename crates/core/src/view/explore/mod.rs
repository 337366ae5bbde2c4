//! The explore view's logic, platform-free: the settings as typed and their validation
//! into a sweep request (messages naming the field), every configuration as compact
//! columns for the scatter (packed to bytes for the worker's answer), config keys, and
//! the efficiency colour ramp.

use serde::{Deserialize, Serialize};
use std::collections::HashMap;

use crate::explorer::DEFAULT_BASELINE;
use crate::explorer::{
    calibrate, explore, Calibration, CalibrationRow, ExploreReport, Measured, Measurement,
};
use crate::explorer::{
    ConfigScore, EfficiencyMode, Evaluation, ExplorerError, FfnShardScope, KvShardMode,
    MachineParams, Mode, ModelConfig, PlacementKind, RingVariant, Scope, ScoreOptions, Sla,
    StageGroup, Sweep, SweepRequest, TimeScales, TopologyConfig, CP_OPTIONS, DP_OPTIONS, MAX_BATCH,
    MAX_DEGREE, MAX_S_KV, PP_OPTIONS, TP_OPTIONS,
};
use crate::pack::{Malformed, Reader, Writer};

use super::custom::{apply_edits, machine_preset_json, model_preset_json, pretty_json, Subject};
use super::format::plain_decimal;
use super::scene::Rgba;
use super::table::escape;

mod bars;
mod calibration;
mod frontier;
mod points;

pub use bars::*;
pub use calibration::*;
pub use frontier::*;
pub use points::*;

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
    use crate::explorer::sweep;

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
        assert_eq!(
            calibration_text(&fit),
            "calibrated to 1 measurement: compute, memory and network ×3.000 (one common factor); \
             fit error 200.0 % → 0.0 %"
        );
        let bad = ExploreSettings {
            calibration: vec!["cfg=cp1".into()],
            ..ExploreSettings::default()
        };
        assert_eq!(resolve(&bad).unwrap_err()[0].field, "calibrate");
    }

    #[test]
    fn a_selected_config_lists_the_configs_it_ties_with() {
        let (report, _) = resolve(&ExploreSettings::default())
            .unwrap()
            .explore(false)
            .unwrap();
        let key = |c: &ConfigScore| short_key(&c.as_topology(0, Mode::Decode));
        let first = key(&report.pareto[0]);
        let others = tied_keys(&report.pareto, &first);
        // The default sweep opens with eight configs at 5.480 ms.
        assert_eq!(others.len(), 7);
        assert!(!others.contains(&first));
        // From a member, the group is the same, the first included.
        let back = tied_keys(&report.pareto, &others[3]);
        assert_eq!(back.len(), 7);
        assert!(back.contains(&first) && !back.contains(&others[3]));
        // Alone in a frontier of one.
        assert!(tied_keys(&report.pareto[..1], &first).is_empty());
        assert!(tied_keys(&report.pareto, "cp1").is_empty());
    }

    #[test]
    fn calibration_figures_are_signed_and_name_the_fit() {
        assert_eq!(signed_pct(12.54), "+12.5 %");
        assert_eq!(signed_pct(-3.0), "−3.0 %");
        assert_eq!(signed_pct(-0.04), "0.0 %");
        assert_eq!(signed_pct(0.0), "0.0 %");
        let row = CalibrationRow {
            config: "cp=2,tp=4".into(),
            measured_latency_ms: 10.0,
            predicted_before_ms: 5.0,
            predicted_after_ms: 10.0,
            error_before_pct: -50.0,
            error_after_pct: 0.0,
        };
        assert_eq!(
            calibration_cells(&row),
            [
                "cp=2, tp=4".to_string(),
                "10.000 ms".into(),
                "5.000 ms".into(),
                "−50.0 %".into(),
                "10.000 ms".into(),
                "0.0 %".into()
            ]
        );
        let mut fit = Calibration {
            scales: TimeScales::uniform(2.0),
            fitted: 1,
            determined: [true; 3],
            rows: vec![row],
            error_before_pct: 50.0,
            error_after_pct: 0.0,
        };
        assert_eq!(calibration_stat(&fit), "×2.00");
        let (mut report, _) = resolve(&ExploreSettings::default())
            .unwrap()
            .explore(false)
            .unwrap();
        assert_eq!(export_stem(None), "shardscope-explore");
        assert_eq!(
            export_stem(Some(&report)),
            "shardscope-explore-llama3.1-70b-h200-hgx"
        );
        report.calibration = Some(fit.clone());
        assert_eq!(
            export_stem(Some(&report)),
            "shardscope-explore-llama3.1-70b-h200-hgx-calibrated"
        );
        fit.fitted = 3;
        assert_eq!(calibration_stat(&fit), "3 factors");
    }

    #[test]
    fn the_objective_figure_says_when_no_objective_is_set() {
        assert_eq!(objective_stat(None), ("–".to_string(), "no objective set"));
        assert_eq!(
            objective_stat(Some(0)),
            ("0".to_string(), "within the objectives")
        );
        assert_eq!(
            objective_stat(Some(1234)),
            ("1234".to_string(), "within the objectives")
        );
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
    fn points_cover_the_sweep_and_survive_packing() {
        let req = resolve(&ExploreSettings::default()).unwrap();
        let sw = sweep(&req.model, &req.machine, &req.sweep).unwrap();
        let points = Points::from_sweep(&sw);
        assert_eq!(points.len(), sw.scores.len());
        let frontier = points.flags.iter().filter(|f| *f & FRONTIER != 0).count();
        assert_eq!(frontier, sw.frontier.len());
        let feasible = points.flags.iter().filter(|f| *f & FEASIBLE != 0).count();
        assert_eq!(feasible, sw.total_feasible);
        for (i, s) in sw.scores.iter().enumerate().step_by(997) {
            assert_eq!(points.topology(i, &req.sweep), Some(s.topo));
        }
        assert_eq!(Points::from_bytes(&points.to_bytes()), Some(points.clone()));
        assert_eq!(Points::from_bytes(&points.to_bytes()[..10]), None);
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
    fn stage_bars_name_the_bottleneck() {
        let req = resolve(&ExploreSettings::default()).unwrap();
        let topo = parse_short_key(
            "cp1.tp8.pp1.dp1.split.TP.pe.pe.kv",
            &req.sweep.base_topology(),
        )
        .unwrap();
        let e =
            crate::explorer::evaluate(&req.model, &req.machine, &topo, req.sweep.options).unwrap();
        let bars = stage_bars(&e);
        assert_eq!(bars.len(), e.stages.len());
        let attention: f64 = bars
            .iter()
            .filter(|b| b.group == StageGroup::Attention)
            .map(|b| b.visible_s)
            .sum();
        assert!(
            (attention - e.attention_s).abs() <= 1e-9 * e.attention_s.max(1.0),
            "{attention} vs {}",
            e.attention_s
        );
        let top = bottleneck(&bars).unwrap();
        assert!(bars.iter().all(|b| b.latency_s <= top.latency_s));
        let total: f64 = bars.iter().map(|b| b.latency_s).sum();
        let latency_s = e.config.total_latency_ns / 1e9;
        assert!(
            (total - latency_s).abs() <= 1e-6 * latency_s,
            "{total} vs {latency_s}"
        );
        assert!(["compute", "memory", "network"].contains(&top.bound));
    }

    #[test]
    fn frontier_rows_that_tie_on_every_objective_are_grouped() {
        let req = resolve(&ExploreSettings::default()).unwrap();
        let (report, _) =
            crate::explorer::explore(&req.model, &req.machine, &req.sweep, false).unwrap();
        let rows = &report.pareto;
        let ties = ties(rows);
        // The default frontier opens with eight configs at 5.480 ms that differ only in
        // KV layout, FFN scope and placement.
        let Tie::First { members } = &ties[0] else {
            panic!("{:?}", ties[0]);
        };
        assert_eq!(members.len(), 8);
        assert_eq!(members[0], 0);
        for (i, tie) in ties.iter().enumerate() {
            let same = |a: &ConfigScore, b: &ConfigScore| {
                a.total_latency_ns == b.total_latency_ns
                    && a.pes_used == b.pes_used
                    && a.efficiency_score == b.efficiency_score
            };
            match tie {
                Tie::Member { first } => {
                    assert!(*first < i && same(&rows[*first], &rows[i]));
                    assert!(matches!(ties[*first], Tie::First { .. }));
                }
                Tie::Alone => assert!(!rows
                    .iter()
                    .enumerate()
                    .any(|(j, r)| j != i && same(r, &rows[i]))),
                Tie::First { members } => {
                    assert_eq!(members[0], i);
                    assert_eq!(
                        rows.iter().filter(|r| same(r, &rows[i])).count(),
                        members.len()
                    )
                }
            }
        }
        let html = pareto_rows_html(rows, None);
        assert!(html.contains("data-ties=\"8\""));
        assert_eq!(
            html.matches("class=\"tied\"").count(),
            7 + members_beyond_first_group(&ties)
        );
        assert!(html.contains("×8"));
        // Every row stays in the table, each with its hooks.
        assert_eq!(
            html.matches("data-testid=\"pareto-row\"").count(),
            rows.len()
        );
    }

    fn members_beyond_first_group(ties: &[Tie]) -> usize {
        ties.iter()
            .filter(|t| matches!(t, Tie::Member { first } if *first != 0))
            .count()
    }

    #[test]
    fn pareto_rows_carry_every_hook() {
        let req = resolve(&ExploreSettings::default()).unwrap();
        let (report, _) =
            crate::explorer::explore(&req.model, &req.machine, &req.sweep, false).unwrap();
        let first = short_key(&report.pareto[0].as_topology(0, Mode::Decode));
        let html = pareto_rows_html(&report.pareto, Some(&first));
        assert_eq!(
            html.matches("data-testid=\"pareto-row\"").count(),
            report.pareto.len()
        );
        assert_eq!(html.matches("aria-selected=\"true\"").count(), 1);
        let chunks = report.pareto.len().div_ceil(PARETO_CHUNK_ROWS);
        assert_eq!(html.matches("<tbody class=\"chunk\"").count(), chunks);
        assert_eq!(html.matches("</tbody>").count(), chunks);
        assert!(html.starts_with("<tbody") && html.ends_with("</tr></tbody>"));
        assert_eq!(pareto_rows_html(&[], None), "");
        for name in [
            "data-cp",
            "data-kv",
            "data-ffn",
            "data-latency-ns",
            "data-pes",
            "data-efficiency",
        ] {
            assert_eq!(
                html.matches(&format!(" {name}=")).count(),
                report.pareto.len(),
                "{name}"
            );
        }
        assert!(html.contains("TP+CP") || html.contains("TP+CP+DP") || html.contains(">TP<"));
        assert!(!html.contains("e-"), "no exponent forms");
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
    fn all_configs_are_listed_fastest_first_and_found_by_search() {
        let req = resolve(&ExploreSettings::default()).unwrap();
        let sw = sweep(&req.model, &req.machine, &req.sweep).unwrap();
        let points = Points::from_sweep(&sw);
        let order = &points.order;
        assert_eq!(order.len(), points.len());
        assert!(order
            .windows(2)
            .all(|w| points.latency_ns[w[0] as usize] <= points.latency_ns[w[1] as usize]));
        let (all, _) =
            crate::explorer::explore(&req.model, &req.machine, &req.sweep, true).unwrap();
        let cli = all.all.unwrap();
        for (k, &i) in order.iter().enumerate().step_by(1999) {
            let t = points.topology(i as usize, &req.sweep).unwrap();
            assert_eq!(
                short_key(&t),
                short_key(&cli[k].as_topology(req.sweep.s_kv, req.sweep.mode)),
                "row {k}"
            );
        }
        let html = all_rows_html(&points, order, 10, 25, &req.sweep, None);
        assert_eq!(html.matches("data-testid=\"config-row\"").count(), 25);
        let i = find_config(
            &points,
            &req.sweep,
            "cp=2,tp=4,pp=1,dp=1,kv=split,ffn=TP+CP,tpp=pe,cpp=pe,ring=qoml",
        )
        .unwrap();
        assert_eq!(
            short_key(&points.topology(i, &req.sweep).unwrap()),
            "cp2.tp4.pp1.dp1.split.TP+CP.pe.pe.qoml"
        );
        assert_eq!(
            find_config(
                &points,
                &req.sweep,
                "cp2.tp4.pp1.dp1.split.TP+CP.pe.pe.qoml"
            ),
            Ok(i)
        );
        assert!(find_config(&points, &req.sweep, "cp=3").is_err());
    }

    #[test]
    fn colours_by_knob_and_reasons_in_a_word() {
        for name in Knob::ALL
            .map(Knob::name)
            .iter()
            .chain(["efficiency"].iter())
        {
            assert_eq!(ColorBy::parse(name).map(ColorBy::name), Some(*name));
        }
        assert_eq!(ColorBy::parse("rainbow"), None);
        assert_eq!(
            ColorBy::Knob(Knob::Tp).labels(),
            ["1", "2", "4", "8", "16", "32"]
        );
        assert_eq!(why_not(FITS_MEMORY | PLACES), None);
        assert_eq!(why_not(PLACES), Some("over the memory budget"));
        assert_ne!(category_color(0), category_color(1));
    }

    #[test]
    fn the_ramp_gets_lighter() {
        let lum =
            |c: Rgba| 0.2126 * f64::from(c.r) + 0.7152 * f64::from(c.g) + 0.0722 * f64::from(c.b);
        let l: Vec<f64> = (0..=10)
            .map(|i| lum(efficiency_color(i as f64 / 10.0)))
            .collect();
        assert!(l.windows(2).all(|w| w[1] > w[0]), "{l:?}");
        assert_eq!(efficiency_color(f64::NAN), efficiency_color(0.0));
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
