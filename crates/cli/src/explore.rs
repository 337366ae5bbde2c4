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

use std::fmt::Write as _;

use clap::Args;
use shardscope_core::csv_text::CsvText;
use shardscope_core::explorer::{
    batch_sweep, calibrate, csv_config, explore, explore_csv, explore_json, sensitivity,
    validate_batches, BatchSweepReport, Calibration, ConfigScore, EfficiencyMode, ExploreReport,
    ExplorerError, MachineParams, Measurement, Mode, ModelConfig, Scope, ScoreOptions,
    SensitivityReport, ServingScore, Sla, SweepRequest, TopologyConfig, CSV_HEADER,
    DEFAULT_BASELINE, MAX_BATCH, MAX_DEGREE, MAX_S_KV,
};
use shardscope_core::view::explore::{
    calibration_text, parse_count, parse_measurement, parse_ms, ExploreSettings, FieldError,
};
use shardscope_core::view::scenarios::{self, parse_scenario, Scenario, ScenarioReport};

use crate::error::CliError;
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

#[derive(Clone, Copy, PartialEq, Eq)]
enum Align {
    Left,
    Right,
}

/// Columns padded to their widest cell, separated by two spaces.
fn render_table(headers: &[(&str, Align)], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = headers.iter().map(|(h, _)| h.chars().count()).collect();
    for r in rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let mut out = String::new();
    let line = |cells: &mut dyn Iterator<Item = &str>, out: &mut String| {
        let mut parts: Vec<String> = Vec::new();
        for ((cell, (_, align)), w) in cells.zip(headers).zip(&widths) {
            let pad = w.saturating_sub(cell.chars().count());
            parts.push(match align {
                Align::Left => format!("{cell}{}", " ".repeat(pad)),
                Align::Right => format!("{}{cell}", " ".repeat(pad)),
            });
        }
        out.push_str(parts.join("  ").trim_end());
        out.push('\n');
    };
    line(&mut headers.iter().map(|(h, _)| *h), &mut out);
    let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
    out.push_str(&rule.join("  "));
    out.push('\n');
    for r in rows {
        line(&mut r.iter().map(String::as_str), &mut out);
    }
    out
}

fn feasible_cell(c: &ConfigScore) -> String {
    if c.feasible() {
        "yes".to_string()
    } else {
        format!("no: {}", c.reason)
    }
}

const CONFIG_HEADERS: [(&str, Align); 18] = [
    ("latency (ms)", Align::Right),
    ("tok/s", Align::Right),
    ("efficiency", Align::Right),
    ("PEs", Align::Right),
    ("SIPs", Align::Right),
    ("cp", Align::Right),
    ("tp", Align::Right),
    ("pp", Align::Right),
    ("dp", Align::Right),
    ("ep", Align::Right),
    ("kv", Align::Left),
    ("ffn", Align::Left),
    ("tp on", Align::Left),
    ("cp on", Align::Left),
    ("ring", Align::Left),
    ("HBM (%)", Align::Right),
    ("weights (GB)", Align::Right),
    ("KV (GB)", Align::Right),
];

fn config_cells(c: &ConfigScore) -> Vec<String> {
    vec![
        format!("{:.3}", c.latency_ms()),
        format!("{:.1}", c.throughput_tok_s),
        format!("{:.4}", c.efficiency_score),
        c.pes_used.to_string(),
        c.sips_used.to_string(),
        c.cp.to_string(),
        c.tp.to_string(),
        c.pp.to_string(),
        c.dp.to_string(),
        c.ep.to_string(),
        c.kv_shard_mode.to_string(),
        c.ffn_shard_scope.to_string(),
        c.tp_placement.to_string(),
        c.cp_placement.to_string(),
        c.cp_ring_variant.to_string(),
        format!("{:.1}", c.hbm_utilization * 100.0),
        format!("{:.2}", c.weights_gb),
        format!("{:.2}", c.kv_gb),
    ]
}

/// What a report's first line names: the settings it was made with.
struct Headline<'r> {
    model: &'r str,
    machine: &'r str,
    mode: Mode,
    s_kv: u64,
    /// `None` for the batch sweep, whose rows each have their own.
    batch: Option<u32>,
    ep: u32,
    scope: Scope,
    efficiency: EfficiencyMode,
}

fn headline(h: Headline<'_>) -> String {
    let Headline {
        model,
        machine,
        mode,
        s_kv,
        batch,
        ep,
        scope,
        efficiency,
    } = h;
    let batch = batch.map(|b| format!(" · batch {b}")).unwrap_or_default();
    format!(
        "{model} on {machine} · {mode} · s_kv {s_kv}{batch} · ep {ep} · scope {scope} · efficiency {efficiency}\n"
    )
}

fn sla_line(sla: &Option<Sla>, s_kv: u64) -> String {
    let Some(sla) = sla else {
        return String::new();
    };
    let mut parts = Vec::new();
    if let Some(t) = sla.tpot_max_ms {
        parts.push(format!("TPOT ≤ {t} ms (decode at s_kv {s_kv})"));
    }
    if let Some(t) = sla.ttft_max_ms {
        parts.push(format!(
            "TTFT ≤ {t} ms (prefill of {} tokens)",
            sla.prompt_len.unwrap_or(s_kv)
        ));
    }
    format!("SLA: {}\n", parts.join(", "))
}

fn calibration_line(c: &Calibration) -> String {
    format!("{}\n", calibration_text(c))
}

fn explore_table(r: &ExploreReport) -> String {
    let mut out = headline(Headline {
        model: &r.model,
        machine: &r.machine,
        mode: r.mode,
        s_kv: r.s_kv,
        batch: Some(r.batch),
        ep: r.ep,
        scope: r.scope,
        efficiency: r.efficiency,
    });
    out.push_str(&sla_line(&r.sla, r.s_kv));
    if let Some(c) = &r.calibration {
        out.push_str(&calibration_line(c));
    }
    let _ = write!(
        out,
        "{} configs enumerated, {} feasible",
        r.total_enumerated, r.total_feasible
    );
    if let Some(w) = r.total_within_sla {
        let _ = write!(out, ", {w} within the SLA");
    }
    let _ = writeln!(out, ", {} on the Pareto frontier\n", r.pareto.len());
    let mut headers: Vec<(&str, Align)> = vec![("#", Align::Right)];
    headers.extend_from_slice(&CONFIG_HEADERS);
    let (list, title) = match &r.all {
        Some(all) => (all, "every configuration, by latency (* = on the frontier)"),
        None => (
            &r.pareto,
            "Pareto frontier (latency ↓, PEs ↓, efficiency ↑), by latency",
        ),
    };
    if r.all.is_some() {
        headers.push(("pareto", Align::Left));
    }
    headers.push(("feasible", Align::Left));
    let rows: Vec<Vec<String>> = list
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let mut row = vec![(i + 1).to_string()];
            row.extend(config_cells(c));
            if r.all.is_some() {
                row.push(if r.pareto.contains(c) { "*" } else { "" }.to_string());
            }
            row.push(feasible_cell(c));
            row
        })
        .collect();
    let _ = writeln!(out, "{title}:");
    out.push_str(&render_table(&headers, &rows));
    out
}

fn short_config(c: &ConfigScore) -> String {
    format!(
        "cp{} tp{} pp{} dp{} ep{} {}/{}/{}/{}/{}",
        c.cp,
        c.tp,
        c.pp,
        c.dp,
        c.ep,
        c.kv_shard_mode,
        c.ffn_shard_scope,
        c.tp_placement,
        c.cp_placement,
        c.cp_ring_variant
    )
}

fn batch_table(r: &BatchSweepReport) -> String {
    let mut out = headline(Headline {
        model: &r.model,
        machine: &r.machine,
        mode: r.mode,
        s_kv: r.s_kv,
        batch: None,
        ep: r.ep,
        scope: r.scope,
        efficiency: r.efficiency,
    });
    out.push_str(&sla_line(&r.sla, r.s_kv));
    out.push_str("system throughput = tokens/s across the deployment (dp·B per step); per PE = that / PEs\n\n");
    let headers = [
        ("batch", Align::Right),
        ("feasible", Align::Right),
        ("within SLA", Align::Right),
        ("frontier", Align::Right),
        ("fastest (ms)", Align::Right),
        ("best system tok/s", Align::Right),
        ("with", Align::Left),
        ("best tok/s/PE", Align::Right),
        ("with", Align::Left),
    ];
    let none = || "-".to_string();
    let rows: Vec<Vec<String>> = r
        .batches
        .iter()
        .map(|b| {
            vec![
                b.batch.to_string(),
                b.total_feasible.to_string(),
                b.total_within_sla.map_or_else(none, |w| w.to_string()),
                b.pareto.len().to_string(),
                b.pareto
                    .first()
                    .map_or_else(none, |p| format!("{:.3}", p.config.latency_ms())),
                b.best_system_throughput
                    .as_ref()
                    .map_or_else(none, |p| format!("{:.1}", p.system_throughput_tok_s)),
                b.best_system_throughput
                    .as_ref()
                    .map_or_else(none, |p| short_config(&p.config)),
                b.best_throughput_per_pe
                    .as_ref()
                    .map_or_else(none, |p| format!("{:.2}", p.throughput_per_pe_tok_s)),
                b.best_throughput_per_pe
                    .as_ref()
                    .map_or_else(none, |p| short_config(&p.config)),
            ]
        })
        .collect();
    out.push_str(&render_table(&headers, &rows));
    let mut fheaders: Vec<(&str, Align)> = vec![("#", Align::Right)];
    fheaders.extend_from_slice(&CONFIG_HEADERS);
    fheaders.push(("system tok/s", Align::Right));
    fheaders.push(("tok/s/PE", Align::Right));
    for b in &r.batches {
        let _ = writeln!(
            out,
            "\nbatch {}: Pareto frontier (latency ↓, PEs ↓, efficiency ↑), by latency:",
            b.batch
        );
        let rows: Vec<Vec<String>> = b
            .pareto
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let mut row = vec![(i + 1).to_string()];
                row.extend(config_cells(&p.config));
                row.push(format!("{:.1}", p.system_throughput_tok_s));
                row.push(format!("{:.2}", p.throughput_per_pe_tok_s));
                row
            })
            .collect();
        out.push_str(&render_table(&fheaders, &rows));
    }
    out
}

fn batch_csv(r: &BatchSweepReport) -> String {
    let mut out = CsvText::new();
    out.row(
        ["role"]
            .into_iter()
            .chain(CSV_HEADER.split(','))
            .chain(["system_throughput_tok_s", "throughput_per_pe_tok_s"]),
    );
    let mut row = |role: &str, p: &ServingScore| {
        let mut fields = vec![role.to_string()];
        fields.extend(csv_config(&p.config));
        fields.push(p.system_throughput_tok_s.to_string());
        fields.push(p.throughput_per_pe_tok_s.to_string());
        out.row(fields);
    };
    for b in &r.batches {
        for p in &b.pareto {
            row("pareto", p);
        }
        if let Some(p) = &b.best_system_throughput {
            row("best_system_throughput", p);
        }
        if let Some(p) = &b.best_throughput_per_pe {
            row("best_throughput_per_pe", p);
        }
    }
    out.finish()
}

fn scenario_table(r: &ScenarioReport) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{} scenarios compared\n", r.scenarios.len());
    for (i, s) in r.scenarios.iter().enumerate() {
        let settings = if s.settings.is_empty() {
            "(these settings)"
        } else {
            &s.settings
        };
        let _ = writeln!(out, "{}. {}: {settings}", i + 1, s.name);
        let rep = &s.report;
        out.push_str("   ");
        out.push_str(&headline(Headline {
            model: &rep.model,
            machine: &rep.machine,
            mode: rep.mode,
            s_kv: rep.s_kv,
            batch: Some(rep.batch),
            ep: rep.ep,
            scope: rep.scope,
            efficiency: rep.efficiency,
        }));
        let sla = sla_line(&rep.sla, rep.s_kv);
        if !sla.is_empty() {
            out.push_str("   ");
            out.push_str(&sla);
        }
    }
    out.push('\n');
    let header = scenarios::table_header();
    let headers: Vec<(&str, Align)> = header
        .iter()
        .enumerate()
        .map(|(i, h)| (h.as_str(), if i == 0 { Align::Left } else { Align::Right }))
        .collect();
    out.push_str(&render_table(
        &headers,
        &scenarios::table_cells(&r.comparison),
    ));
    out.push('\n');
    for line in &r.comparison.summary {
        let _ = writeln!(out, "{line}");
    }
    out
}

fn scenario_csv(r: &ScenarioReport) -> String {
    let mut out = CsvText::new();
    let budgets = r.comparison.budgets_pes.iter();
    out.row(
        [
            "scenario",
            "settings",
            "frontier_size",
            "min_pes",
            "best_latency_ms",
        ]
        .into_iter()
        .map(str::to_string)
        .chain(budgets.map(|b| format!("best_latency_ms_within_{b}_pes"))),
    );
    let num = |v: Option<f64>| v.map(|v| v.to_string()).unwrap_or_default();
    for (s, row) in r.scenarios.iter().zip(&r.comparison.rows) {
        let mut fields = vec![
            s.name.clone(),
            s.settings.clone(),
            row.frontier_size.to_string(),
            row.min_pes.map(|p| p.to_string()).unwrap_or_default(),
            num(row.best_latency_ms),
        ];
        fields.extend(row.best_latency_ms_within.iter().map(|&v| num(v)));
        out.row(fields);
    }
    out.finish()
}

fn sensitivity_table(r: &SensitivityReport) -> String {
    let mut out = headline(Headline {
        model: &r.model,
        machine: &r.machine,
        mode: r.mode,
        s_kv: r.s_kv,
        batch: Some(r.batch),
        ep: r.ep,
        scope: r.scope,
        efficiency: r.efficiency,
    });
    let b = &r.baseline;
    let _ = writeln!(
        out,
        "baseline: {} → {:.3} ms, {}\n",
        short_config(b),
        b.latency_ms(),
        if b.feasible() {
            "feasible".to_string()
        } else {
            format!("infeasible: {}", b.reason)
        }
    );
    let headers = [
        ("knob", Align::Left),
        ("value", Align::Right),
        ("latency (ms)", Align::Right),
        ("vs baseline", Align::Right),
        ("fits", Align::Left),
    ];
    let mut rows: Vec<Vec<String>> = Vec::new();
    for row in &r.rows {
        for (k, v) in row.values.iter().enumerate() {
            let lat = row.latencies_ns.get(k).copied().unwrap_or(f64::NAN);
            let fits = row.fits.get(k).copied().unwrap_or(false);
            let is_base = *v == row.baseline_value;
            let (lat_s, rel_s, fit_s) = if lat.is_nan() {
                (
                    "-".to_string(),
                    "-".to_string(),
                    "out of bounds".to_string(),
                )
            } else {
                let rel = if row.baseline_latency_ns > 0.0 {
                    format!("{:+.1}%", (lat / row.baseline_latency_ns - 1.0) * 100.0)
                } else {
                    "-".to_string()
                };
                (
                    format!("{:.3}", lat / 1e6),
                    rel,
                    if fits { "yes" } else { "no" }.to_string(),
                )
            };
            rows.push(vec![
                if k == 0 {
                    row.knob.as_str().to_string()
                } else {
                    String::new()
                },
                if is_base {
                    format!("*{v}")
                } else {
                    v.to_string()
                },
                lat_s,
                rel_s,
                fit_s,
            ]);
        }
    }
    out.push_str(&render_table(&headers, &rows));
    out.push_str("* = the baseline's value\n");
    out
}

fn sensitivity_csv(r: &SensitivityReport) -> String {
    let mut out = CsvText::new();
    out.row(["knob", "value", "latency_ns", "fits", "is_baseline"]);
    for row in &r.rows {
        for (k, v) in row.values.iter().enumerate() {
            let lat = row.latencies_ns.get(k).copied().unwrap_or(f64::NAN);
            let lat = if lat.is_finite() {
                lat.to_string()
            } else {
                String::new()
            };
            out.row([
                row.knob.as_str().to_string(),
                v.to_string(),
                lat,
                row.fits.get(k).copied().unwrap_or(false).to_string(),
                (*v == row.baseline_value).to_string(),
            ]);
        }
    }
    out.finish()
}
