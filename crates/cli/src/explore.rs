//! `shardscope explore` and `shardscope sensitivity`.
//!
//! Serving options (beyond the seed):
//! - `--batch-sweep 1,2,4,...` scores every configuration at each batch size and reports per
//!   batch the frontier, system throughput (tokens/s across the deployment,
//!   `dp·B·(decode ? 1 : S)/latency`) and throughput per PE.
//! - `--sla-tpot-ms X` keeps configurations whose decode latency at `--s-kv` is ≤ X ms;
//!   `--sla-ttft-ms Y` keeps those whose prefill latency of `--prompt-len` tokens (default:
//!   `--s-kv`) is ≤ Y ms. Both are checked for the same configuration and batch, before the
//!   Pareto step; the other mode is scored on the side when the run's mode is not it.
//!
//! Defaults are the core's (`SweepRequest`, `ScoreOptions`, `ExploreSettings`); values are
//! checked by the same functions the page uses, so messages and fields agree.

use clap::Args;
use shardscope_explorer::{
    batch_sweep, calibrate, explore, explore_csv, explore_json, sensitivity, validate_batches,
    EfficiencyMode, ExplorerError, MachineParams, Measurement, Mode, ModelConfig, Scope,
    ScoreOptions, Sla, SweepRequest, TopologyConfig, DEFAULT_BASELINE, MAX_BATCH, MAX_DEGREE,
    MAX_S_KV,
};
use shardscope_session::explore_settings::{
    parse_count, parse_measurement, parse_ms, ExploreSettings, FieldError,
};
use shardscope_session::scenarios::{self, parse_scenario, Scenario};

use crate::error::CliError;
use crate::explore_text::{
    batch_csv, batch_table, explore_table, scenario_csv, scenario_table, sensitivity_csv,
    sensitivity_table,
};
use crate::Format;

/// The model, machine and sweep settings both commands share.
#[derive(Args)]
pub struct Settings {
    /// A model preset: llama3.1-8b, llama3.1-70b, llama3.1-405b, mixtral-8x7b,
    /// qwen2.5-72b, deepseek-v3.
    #[arg(long, value_name = "PRESET", default_value_t = ExploreSettings::default().model,
          conflicts_with = "model_json")]
    pub model: String,
    /// A custom model as JSON (the preset documents' fields).
    #[arg(long, value_name = "FILE")]
    pub model_json: Option<String>,
    /// A machine preset: h200-hgx, h100-hgx, tile-wafer.
    #[arg(long, value_name = "PRESET", default_value_t = ExploreSettings::default().machine,
          conflicts_with = "machine_json")]
    pub machine: String,
    /// A custom machine as JSON.
    #[arg(long, value_name = "FILE")]
    pub machine_json: Option<String>,
    /// Sequence length S: KV tokens for decode, prompt tokens for prefill.
    #[arg(long, value_name = "N", allow_negative_numbers = true, default_value_t = SweepRequest::default().s_kv,
          value_parser = |v: &str| parse_count("s-kv", v, MAX_S_KV))]
    pub s_kv: u64,
    /// decode or prefill.
    #[arg(long, value_name = "MODE", default_value_t = SweepRequest::default().mode,
          value_parser = parse_enum::<Mode>)]
    pub mode: Mode,
    /// Concurrent requests B.
    #[arg(long, value_name = "N", allow_negative_numbers = true, default_value_t = SweepRequest::default().batch,
          value_parser = |v: &str| parse_count("batch", v, MAX_BATCH.into()).map(to_u32))]
    pub batch: u32,
    /// Expert-parallel degree.
    #[arg(long, value_name = "N", allow_negative_numbers = true, default_value_t = SweepRequest::default().ep,
          value_parser = |v: &str| parse_count("ep", v, MAX_DEGREE.into()).map(to_u32))]
    pub ep: u32,
    /// What is scored: all, attention or ffn.
    #[arg(long, value_name = "SCOPE", default_value_t = ScoreOptions::default().scope,
          value_parser = parse_enum::<Scope>)]
    pub scope: Scope,
    /// The compute-efficiency model: seed or corrected.
    #[arg(long, value_name = "MODE",
          default_value_t = ScoreOptions::default().efficiency,
          value_parser = parse_enum::<EfficiencyMode>)]
    pub efficiency: EfficiencyMode,
    /// Output format.
    #[arg(long, value_enum, ignore_case = true, default_value_t = Format::Table)]
    pub format: Format,
}

#[derive(Args)]
pub struct ExploreArgs {
    #[command(flatten)]
    pub settings: Settings,
    /// Score every configuration at each of these batch sizes (instead of --batch).
    #[arg(long, value_name = "N,N,...", conflicts_with_all = ["batch", "all"],
          value_parser = parse_batches)]
    pub batch_sweep: Option<Batches>,
    /// Keep configurations whose decode latency (at --s-kv) is at most this.
    #[arg(long, value_name = "MS", allow_negative_numbers = true, value_parser = |v: &str| parse_ms("sla-tpot-ms", v))]
    pub sla_tpot_ms: Option<f64>,
    /// Keep configurations whose prefill latency of --prompt-len tokens is at most this.
    #[arg(long, value_name = "MS", allow_negative_numbers = true, value_parser = |v: &str| parse_ms("sla-ttft-ms", v))]
    pub sla_ttft_ms: Option<f64>,
    /// The prompt length for --sla-ttft-ms [default: --s-kv].
    #[arg(long, value_name = "N", allow_negative_numbers = true,
          value_parser = |v: &str| parse_count("prompt-len", v, MAX_S_KV))]
    pub prompt_len: Option<u64>,
    /// List every configuration, not only the frontier.
    #[arg(long)]
    pub all: bool,
    /// A scenario to compare, as KEY=VALUE pairs over this command's settings (model,
    /// machine, mode, scope, efficiency, s_kv, batch, ep, sla_ttft_ms, sla_tpot_ms,
    /// model.FIELD, machine.FIELD, name). Given 1–4 times: each is swept and their
    /// frontiers compared.
    #[arg(long, value_name = "KEY=VALUE,...",
          conflicts_with_all = ["batch_sweep", "all", "model_json", "machine_json", "prompt_len"])]
    pub scenario: Vec<String>,
    /// A measurement to calibrate the model to (repeatable): cfg=SHORT_KEY (as
    /// cp2.tp4.pp1.dp1.split.TP+CP.pe.pe.qoml) and latency_ms=X or tok_s=Y, optionally
    /// batch=, s_kv=, mode= (default: this command's). The compute, memory and network
    /// times are scaled (one common factor for one or two measurements, three for more).
    #[arg(long, value_name = "cfg=KEY,latency_ms=X", conflicts_with = "scenario")]
    pub calibrate: Vec<String>,
}

#[derive(Args)]
pub struct SensitivityArgs {
    #[command(flatten)]
    pub settings: Settings,
    /// The configuration to vary, as KNOB=VALUE pairs (also ep= and batch=, which
    /// override --ep/--batch); absent knobs keep the default baseline's values.
    #[arg(long, value_name = "KNOBS", default_value = DEFAULT_BASELINE)]
    pub baseline: String,
}

fn to_u32(v: u64) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX)
}

/// A core enum from its name, with the core's message.
fn parse_enum<T: std::str::FromStr<Err = ExplorerError>>(v: &str) -> Result<T, String> {
    v.parse::<T>().map_err(|e| match e {
        ExplorerError::Invalid { message, .. } => message,
        other => other.to_string(),
    })
}

/// The batch sizes of `--batch-sweep`.
#[derive(Debug, Clone)]
pub struct Batches(Vec<u32>);

fn parse_batches(value: &str) -> Result<Batches, String> {
    let mut list = Vec::new();
    for part in value.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        list.push(to_u32(
            parse_count("batch-sweep", part, MAX_BATCH.into()).map_err(|e| e.message)?,
        ));
    }
    validate_batches(&list).map_err(|e| e.to_string())?;
    Ok(Batches(list))
}

fn read_file(path: &str) -> Result<String, CliError> {
    std::fs::read_to_string(path).map_err(|e| CliError {
        message: format!("cannot read {path}: {e}"),
        file: Some(path.to_string()),
        ..CliError::default()
    })
}

fn load_model(s: &Settings) -> Result<ModelConfig, CliError> {
    match &s.model_json {
        Some(path) => {
            let text = read_file(path)?;
            ModelConfig::from_json(&text).map_err(|e| CliError::explorer(e, Some(path)))
        }
        None => ModelConfig::preset(&s.model).map_err(|e| CliError::explorer(e, None)),
    }
}

fn load_machine(s: &Settings) -> Result<MachineParams, CliError> {
    match &s.machine_json {
        Some(path) => {
            let text = read_file(path)?;
            MachineParams::from_json(&text).map_err(|e| CliError::explorer(e, Some(path)))
        }
        None => MachineParams::preset(&s.machine).map_err(|e| CliError::explorer(e, None)),
    }
}

fn options(s: &Settings) -> ScoreOptions {
    ScoreOptions {
        scope: s.scope,
        efficiency: s.efficiency,
        ..ScoreOptions::default()
    }
}

fn to_json<T: serde::Serialize>(v: &T) -> Result<String, CliError> {
    serde_json::to_string(v)
        .map(|mut s| {
            s.push('\n');
            s
        })
        .map_err(|e| CliError {
            message: format!("cannot write JSON: {e}"),
            ..CliError::default()
        })
}

/// `shardscope explore`.
pub fn run_explore(a: &ExploreArgs) -> Result<String, CliError> {
    let s = &a.settings;
    if a.prompt_len.is_some() && a.sla_ttft_ms.is_none() {
        return Err(CliError::field(
            "prompt_len",
            "--prompt-len is only used with --sla-ttft-ms",
        ));
    }
    if !a.scenario.is_empty() {
        return run_scenarios(a);
    }
    let model = load_model(s)?;
    let machine = load_machine(s)?;
    let sla = Sla {
        tpot_max_ms: a.sla_tpot_ms,
        ttft_max_ms: a.sla_ttft_ms,
        prompt_len: a.prompt_len,
    };
    let req = SweepRequest {
        s_kv: s.s_kv,
        mode: s.mode,
        batch: s.batch,
        ep: s.ep,
        options: options(s),
        sla: (!sla.is_empty()).then_some(sla),
    };
    let calibration = if a.calibrate.is_empty() {
        None
    } else {
        let base = req.base_topology();
        let measurements = a
            .calibrate
            .iter()
            .map(|t| parse_measurement(t, &base))
            .collect::<Result<Vec<Measurement>, FieldError>>()
            .map_err(|e| CliError::field(&e.field, e.message))?;
        let fit = calibrate(&model, &machine, req.options, &measurements)
            .map_err(|e| CliError::explorer(e, None))?;
        Some(fit)
    };
    let req = SweepRequest {
        options: ScoreOptions {
            scales: calibration
                .as_ref()
                .map_or_else(Default::default, |c| c.scales),
            ..req.options
        },
        ..req
    };
    if let Some(Batches(batches)) = &a.batch_sweep {
        let rep = batch_sweep(&model, &machine, &req, batches)
            .map_err(|e| CliError::explorer(e, None))?;
        return match s.format {
            Format::Json => to_json(&rep),
            Format::Table => Ok(batch_table(&rep)),
            Format::Csv => Ok(batch_csv(&rep)),
        };
    }
    let (mut rep, _) =
        explore(&model, &machine, &req, a.all).map_err(|e| CliError::explorer(e, None))?;
    rep.calibration = calibration;
    Ok(match s.format {
        Format::Json => explore_json(&rep),
        Format::Table => explore_table(&rep),
        Format::Csv => explore_csv(&rep),
    })
}

/// This command's settings as the page's typed settings: what each `--scenario` starts
/// from.
fn base_settings(a: &ExploreArgs) -> ExploreSettings {
    let s = &a.settings;
    let ms = |v: Option<f64>| v.map(|v| v.to_string()).unwrap_or_default();
    ExploreSettings {
        model: s.model.clone(),
        machine: s.machine.clone(),
        mode: s.mode,
        scope: s.scope,
        efficiency: s.efficiency,
        s_kv: s.s_kv.to_string(),
        batch: s.batch.to_string(),
        ep: s.ep.to_string(),
        sla_ttft_ms: ms(a.sla_ttft_ms),
        sla_tpot_ms: ms(a.sla_tpot_ms),
        model_edits: Vec::new(),
        machine_edits: Vec::new(),
        calibration: Vec::new(),
    }
}

/// `shardscope explore --scenario … [--scenario …]`.
fn run_scenarios(a: &ExploreArgs) -> Result<String, CliError> {
    let base = base_settings(a);
    let as_cli = |e: FieldError| CliError::field(&e.field, e.message);
    let list = a
        .scenario
        .iter()
        .map(|text| parse_scenario(text, &base))
        .collect::<Result<Vec<Scenario>, FieldError>>()
        .map_err(as_cli)?;
    let rep = scenarios::run_scenarios(&list).map_err(as_cli)?;
    Ok(match a.settings.format {
        Format::Json => to_json(&rep)?,
        Format::Table => scenario_table(&rep),
        Format::Csv => scenario_csv(&rep),
    })
}

/// `shardscope sensitivity`.
pub fn run_sensitivity(a: &SensitivityArgs) -> Result<String, CliError> {
    let s = &a.settings;
    let model = load_model(s)?;
    let machine = load_machine(s)?;
    let start = TopologyConfig {
        s_kv: s.s_kv,
        mode: s.mode,
        batch: s.batch,
        ep: s.ep,
        ..TopologyConfig::default()
    };
    let with_default = start
        .with_baseline(DEFAULT_BASELINE)
        .map_err(|e| CliError::explorer(e, None))?;
    let baseline = with_default
        .with_baseline(&a.baseline)
        .map_err(|e| CliError::explorer(e, None))?;
    let rep = sensitivity(&model, &machine, &baseline, options(s))
        .map_err(|e| CliError::explorer(e, None))?;
    match s.format {
        Format::Json => to_json(&rep),
        Format::Table => Ok(sensitivity_table(&rep)),
        Format::Csv => Ok(sensitivity_csv(&rep)),
    }
}

// ── Rendering ───────────────────────────────────────────────────────────────────────────
