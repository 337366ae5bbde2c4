//! `shardscope explore` and `shardscope sensitivity` (owned by the explorer work).
//!
//! Arguments are parsed by hand (`--key value` or `--key=value`). Exit status 0 on success,
//! 2 on bad settings: a one-line message on stderr and, with `--format json`, an error object
//! `{"error", "file", "line", "record", "field"}` on stdout.
//!
//! Serving options (beyond the seed):
//! - `--batch-sweep 1,2,4,...` scores every configuration at each batch size and reports per
//!   batch the frontier, system throughput (tokens/s across the deployment,
//!   `dp·B·(decode ? 1 : S)/latency`) and throughput per PE.
//! - `--sla-tpot-ms X` keeps configurations whose decode latency at `--s-kv` is ≤ X ms;
//!   `--sla-ttft-ms Y` keeps those whose prefill latency of `--prompt-len` tokens (default:
//!   `--s-kv`) is ≤ Y ms. Both are checked for the same configuration and batch, before the
//!   Pareto step; the other mode is scored on the side when the run's mode is not it.

use std::fmt::Write as _;
use std::io::Write as _;

use shardscope_core::view::explore::{parse_count, parse_ms as view_parse_ms};
use std::process::ExitCode;

use shardscope_core::explorer::{
    batch_sweep, csv_config, explore, explore_csv, explore_json, sensitivity, validate_batches,
    BatchSweepReport, ConfigScore, EfficiencyMode, ExploreReport, ExplorerError, MachineParams,
    Mode, ModelConfig, Scope, ScoreOptions, SensitivityReport, ServingScore, Sla, SweepRequest,
    TopologyConfig, CSV_HEADER, DEFAULT_BASELINE, MAX_BATCH, MAX_DEGREE, MAX_S_KV,
};

const EXPLORE_USAGE: &str = "\
usage: shardscope explore [--model PRESET | --model-json FILE] [--machine PRESET | --machine-json FILE]
                          [--s-kv N] [--mode decode|prefill] [--batch N | --batch-sweep N,N,...] [--ep N]
                          [--scope all|attention|ffn] [--efficiency seed|corrected]
                          [--sla-tpot-ms MS] [--sla-ttft-ms MS] [--prompt-len N]
                          [--all] [--format table|json|csv]
defaults: --model llama3.1-70b --machine h200-hgx --s-kv 32768 --mode decode --batch 1 --ep 1
          --scope all --efficiency seed --format table; --prompt-len defaults to --s-kv
models:   llama3.1-8b, llama3.1-70b, llama3.1-405b, mixtral-8x7b, qwen2.5-72b, deepseek-v3
machines: h200-hgx, h100-hgx, tile-wafer";

const SENSITIVITY_USAGE: &str = "\
usage: shardscope sensitivity [--model PRESET | --model-json FILE] [--machine PRESET | --machine-json FILE]
                              [--s-kv N] [--mode decode|prefill] [--batch N] [--ep N]
                              [--scope all|attention|ffn] [--efficiency seed|corrected]
                              [--baseline \"cp=2,tp=4,pp=2,dp=1,kv=split,ffn=TP+CP,tpp=pe,cpp=pe,ring=qoml\"]
                              [--format table|json|csv]
The baseline also accepts ep= and batch= (they override --ep/--batch); absent keys keep the
default baseline's values.";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Table,
    Json,
    Csv,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Command {
    Explore,
    Sensitivity,
}

impl Command {
    fn name(self) -> &'static str {
        match self {
            Command::Explore => "explore",
            Command::Sensitivity => "sensitivity",
        }
    }
}

/// A settings error: message, and where it came from.
#[derive(Debug)]
struct CliError {
    message: String,
    file: Option<String>,
    line: Option<usize>,
    field: Option<String>,
}

impl CliError {
    fn field(field: &str, message: String) -> CliError {
        CliError {
            message,
            file: None,
            line: None,
            field: Some(field.to_string()),
        }
    }

    fn from_core(e: ExplorerError, file: Option<&str>) -> CliError {
        let line = match &e {
            ExplorerError::Json { line, .. } => *line,
            _ => None,
        };
        CliError {
            message: e.to_string(),
            file: file.map(str::to_string),
            line,
            field: e.field().map(str::to_string),
        }
    }
}

#[derive(Debug, Default)]
struct Settings {
    model: Option<String>,
    model_json: Option<String>,
    machine: Option<String>,
    machine_json: Option<String>,
    s_kv: Option<u64>,
    mode: Option<Mode>,
    batch: Option<u32>,
    ep: Option<u32>,
    scope: Option<Scope>,
    efficiency: Option<EfficiencyMode>,
    all: bool,
    format: Option<Format>,
    batch_sweep: Option<Vec<u32>>,
    sla_tpot_ms: Option<f64>,
    sla_ttft_ms: Option<f64>,
    prompt_len: Option<u64>,
    baseline: Option<String>,
    help: bool,
}

fn parse_format(v: &str) -> Result<Format, CliError> {
    match v.trim().to_ascii_lowercase().as_str() {
        "table" => Ok(Format::Table),
        "json" => Ok(Format::Json),
        "csv" => Ok(Format::Csv),
        _ => Err(CliError::field(
            "format",
            format!("--format `{v}` is not one of table, json, csv"),
        )),
    }
}

fn parse_int(flag: &str, field: &str, v: &str, max: u64) -> Result<u64, CliError> {
    parse_count(flag, v, max).map_err(|m| CliError::field(field, m))
}

fn parse_ms(flag: &str, field: &str, v: &str) -> Result<f64, CliError> {
    view_parse_ms(flag, v).map_err(|m| CliError::field(field, m))
}

fn parse_enum<T: std::str::FromStr<Err = ExplorerError>>(
    flag: &str,
    field: &str,
    v: &str,
) -> Result<T, CliError> {
    v.parse::<T>().map_err(|e| {
        let msg = match e {
            ExplorerError::Invalid { message, .. } => message,
            other => other.to_string(),
        };
        CliError::field(field, format!("--{flag}: {msg}"))
    })
}

fn to_u32(v: u64) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX)
}

/// `--format json` anywhere on the line (so early errors are reported as JSON too).
fn wants_json(args: &[String]) -> bool {
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--format" {
            if let Some(v) = it.next() {
                if v.trim().eq_ignore_ascii_case("json") {
                    return true;
                }
            }
        } else if let Some(v) = a.strip_prefix("--format=") {
            if v.trim().eq_ignore_ascii_case("json") {
                return true;
            }
        }
    }
    false
}

fn parse_args(cmd: Command, args: &[String]) -> Result<Settings, CliError> {
    let mut s = Settings::default();
    let mut seen: Vec<String> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        if arg == "--help" || arg == "-h" {
            s.help = true;
            continue;
        }
        let Some(body) = arg.strip_prefix("--") else {
            return Err(CliError::field(
                "arguments",
                format!("unexpected argument `{arg}` (options start with --)"),
            ));
        };
        let (flag, inline) = match body.split_once('=') {
            Some((f, v)) => (f.to_string(), Some(v.to_string())),
            None => (body.to_string(), None),
        };
        let field = flag.replace('-', "_");
        let known_explore_only = matches!(
            flag.as_str(),
            "all" | "batch-sweep" | "sla-tpot-ms" | "sla-ttft-ms" | "prompt-len"
        );
        let known_common = matches!(
            flag.as_str(),
            "model"
                | "model-json"
                | "machine"
                | "machine-json"
                | "s-kv"
                | "mode"
                | "batch"
                | "ep"
                | "scope"
                | "efficiency"
                | "format"
        );
        let known = known_common
            || (cmd == Command::Explore && known_explore_only)
            || (cmd == Command::Sensitivity && flag == "baseline");
        if !known {
            let hint = if known_explore_only || flag == "baseline" {
                format!(" (not an option of `{}`)", cmd.name())
            } else {
                String::new()
            };
            return Err(CliError::field(
                &field,
                format!("unknown option `--{flag}`{hint}"),
            ));
        }
        if seen.contains(&flag) {
            return Err(CliError::field(
                &field,
                format!("option `--{flag}` is given twice"),
            ));
        }
        seen.push(flag.clone());
        if flag == "all" {
            if inline.is_some() {
                return Err(CliError::field("all", "`--all` takes no value".to_string()));
            }
            s.all = true;
            continue;
        }
        let value = match inline {
            Some(v) => v,
            None => match args.get(i) {
                Some(v) => {
                    i += 1;
                    v.clone()
                }
                None => {
                    return Err(CliError::field(
                        &field,
                        format!("option `--{flag}` needs a value"),
                    ))
                }
            },
        };
        match flag.as_str() {
            "model" => s.model = Some(value),
            "model-json" => s.model_json = Some(value),
            "machine" => s.machine = Some(value),
            "machine-json" => s.machine_json = Some(value),
            "s-kv" => s.s_kv = Some(parse_int(&flag, "s_kv", &value, MAX_S_KV)?),
            "mode" => s.mode = Some(parse_enum(&flag, "mode", &value)?),
            "batch" => s.batch = Some(to_u32(parse_int(&flag, "batch", &value, MAX_BATCH.into())?)),
            "ep" => s.ep = Some(to_u32(parse_int(&flag, "ep", &value, MAX_DEGREE.into())?)),
            "scope" => s.scope = Some(parse_enum(&flag, "scope", &value)?),
            "efficiency" => s.efficiency = Some(parse_enum(&flag, "efficiency", &value)?),
            "format" => s.format = Some(parse_format(&value)?),
            "batch-sweep" => {
                let mut list = Vec::new();
                for part in value.split(',') {
                    let part = part.trim();
                    if part.is_empty() {
                        continue;
                    }
                    list.push(to_u32(parse_int(
                        &flag,
                        "batch_sweep",
                        part,
                        MAX_BATCH.into(),
                    )?));
                }
                validate_batches(&list).map_err(|e| CliError::from_core(e, None))?;
                s.batch_sweep = Some(list);
            }
            "sla-tpot-ms" => s.sla_tpot_ms = Some(parse_ms(&flag, "sla_tpot_ms", &value)?),
            "sla-ttft-ms" => s.sla_ttft_ms = Some(parse_ms(&flag, "sla_ttft_ms", &value)?),
            "prompt-len" => s.prompt_len = Some(parse_int(&flag, "prompt_len", &value, MAX_S_KV)?),
            "baseline" => s.baseline = Some(value),
            _ => {
                return Err(CliError::field(
                    &field,
                    format!("unknown option `--{flag}`"),
                ))
            }
        }
    }
    if s.model.is_some() && s.model_json.is_some() {
        return Err(CliError::field(
            "model",
            "use either --model or --model-json, not both".to_string(),
        ));
    }
    if s.machine.is_some() && s.machine_json.is_some() {
        return Err(CliError::field(
            "machine",
            "use either --machine or --machine-json, not both".to_string(),
        ));
    }
    if s.batch.is_some() && s.batch_sweep.is_some() {
        return Err(CliError::field(
            "batch_sweep",
            "use either --batch or --batch-sweep, not both".to_string(),
        ));
    }
    if s.all && s.batch_sweep.is_some() {
        return Err(CliError::field(
            "all",
            "--all lists one sweep; it cannot be combined with --batch-sweep".to_string(),
        ));
    }
    if s.prompt_len.is_some() && s.sla_ttft_ms.is_none() {
        return Err(CliError::field(
            "prompt_len",
            "--prompt-len is only used with --sla-ttft-ms".to_string(),
        ));
    }
    Ok(s)
}

fn read_file(path: &str) -> Result<String, CliError> {
    std::fs::read_to_string(path).map_err(|e| CliError {
        message: format!("cannot read {path}: {e}"),
        file: Some(path.to_string()),
        line: None,
        field: None,
    })
}

fn load_model(s: &Settings) -> Result<ModelConfig, CliError> {
    match (&s.model_json, &s.model) {
        (Some(path), _) => {
            let text = read_file(path)?;
            ModelConfig::from_json(&text).map_err(|e| CliError::from_core(e, Some(path)))
        }
        (None, Some(name)) => ModelConfig::preset(name).map_err(|e| CliError::from_core(e, None)),
        (None, None) => {
            ModelConfig::preset("llama3.1-70b").map_err(|e| CliError::from_core(e, None))
        }
    }
}

fn load_machine(s: &Settings) -> Result<MachineParams, CliError> {
    match (&s.machine_json, &s.machine) {
        (Some(path), _) => {
            let text = read_file(path)?;
            MachineParams::from_json(&text).map_err(|e| CliError::from_core(e, Some(path)))
        }
        (None, Some(name)) => MachineParams::preset(name).map_err(|e| CliError::from_core(e, None)),
        (None, None) => MachineParams::preset("h200-hgx").map_err(|e| CliError::from_core(e, None)),
    }
}

fn options(s: &Settings) -> ScoreOptions {
    ScoreOptions {
        scope: s.scope.unwrap_or(Scope::All),
        efficiency: s.efficiency.unwrap_or(EfficiencyMode::Seed),
        include_overheads: true,
    }
}

fn report_error(cmd: Command, json: bool, e: &CliError) -> ExitCode {
    eprintln!(
        "shardscope {}: {}",
        cmd.name(),
        e.message.replace('\n', " ")
    );
    if json {
        #[derive(serde::Serialize)]
        struct ErrorObject<'a> {
            error: &'a str,
            file: Option<&'a str>,
            line: Option<usize>,
            record: Option<u64>,
            field: Option<&'a str>,
        }
        let obj = ErrorObject {
            error: &e.message,
            file: e.file.as_deref(),
            line: e.line,
            record: None,
            field: e.field.as_deref(),
        };
        let text = serde_json::to_string(&obj).unwrap_or_else(|_| {
            "{\"error\": \"internal error\", \"file\": null, \"line\": null, \"record\": null, \"field\": null}".to_string()
        });
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{text}");
    }
    ExitCode::from(2)
}

fn emit(text: &str) -> ExitCode {
    let mut out = std::io::stdout().lock();
    // A closed pipe (e.g. `| head`) is not an error of ours.
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
    ExitCode::SUCCESS
}

/// `shardscope explore`.
pub fn run_explore(args: &[String]) -> ExitCode {
    let json = wants_json(args);
    match explore_main(args) {
        Ok(Some(text)) => emit(&text),
        Ok(None) => {
            println!("{EXPLORE_USAGE}");
            ExitCode::SUCCESS
        }
        Err(e) => report_error(Command::Explore, json, &e),
    }
}

/// `shardscope sensitivity`.
pub fn run_sensitivity(args: &[String]) -> ExitCode {
    let json = wants_json(args);
    match sensitivity_main(args) {
        Ok(Some(text)) => emit(&text),
        Ok(None) => {
            println!("{SENSITIVITY_USAGE}");
            ExitCode::SUCCESS
        }
        Err(e) => report_error(Command::Sensitivity, json, &e),
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
            file: None,
            line: None,
            field: None,
        })
}

fn explore_main(args: &[String]) -> Result<Option<String>, CliError> {
    let s = parse_args(Command::Explore, args)?;
    if s.help {
        return Ok(None);
    }
    let model = load_model(&s)?;
    let machine = load_machine(&s)?;
    let sla = Sla {
        tpot_max_ms: s.sla_tpot_ms,
        ttft_max_ms: s.sla_ttft_ms,
        prompt_len: s.prompt_len,
    };
    let req = SweepRequest {
        s_kv: s.s_kv.unwrap_or(32768),
        mode: s.mode.unwrap_or(Mode::Decode),
        batch: s.batch.unwrap_or(1),
        ep: s.ep.unwrap_or(1),
        options: options(&s),
        sla: (!sla.is_empty()).then_some(sla),
    };
    let format = s.format.unwrap_or(Format::Table);
    if let Some(batches) = &s.batch_sweep {
        let rep = batch_sweep(&model, &machine, &req, batches)
            .map_err(|e| CliError::from_core(e, None))?;
        return Ok(Some(match format {
            Format::Json => to_json(&rep)?,
            Format::Table => batch_table(&rep),
            Format::Csv => batch_csv(&rep),
        }));
    }
    let (rep, _) =
        explore(&model, &machine, &req, s.all).map_err(|e| CliError::from_core(e, None))?;
    Ok(Some(match format {
        Format::Json => explore_json(&rep),
        Format::Table => explore_table(&rep),
        Format::Csv => explore_csv(&rep),
    }))
}

fn sensitivity_main(args: &[String]) -> Result<Option<String>, CliError> {
    let s = parse_args(Command::Sensitivity, args)?;
    if s.help {
        return Ok(None);
    }
    let model = load_model(&s)?;
    let machine = load_machine(&s)?;
    let start = TopologyConfig {
        s_kv: s.s_kv.unwrap_or(32768),
        mode: s.mode.unwrap_or(Mode::Decode),
        batch: s.batch.unwrap_or(1),
        ep: s.ep.unwrap_or(1),
        ..TopologyConfig::default()
    };
    let with_default = start
        .with_baseline(DEFAULT_BASELINE)
        .map_err(|e| CliError::from_core(e, None))?;
    let baseline = with_default
        .with_baseline(s.baseline.as_deref().unwrap_or(""))
        .map_err(|e| CliError::from_core(e, None))?;
    let rep = sensitivity(&model, &machine, &baseline, options(&s))
        .map_err(|e| CliError::from_core(e, None))?;
    Ok(Some(match s.format.unwrap_or(Format::Table) {
        Format::Json => to_json(&rep)?,
        Format::Table => sensitivity_table(&rep),
        Format::Csv => sensitivity_csv(&rep),
    }))
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

#[allow(clippy::too_many_arguments)]
fn headline(
    model: &str,
    machine: &str,
    mode: Mode,
    s_kv: u64,
    batch: Option<u32>,
    ep: u32,
    scope: Scope,
    efficiency: EfficiencyMode,
) -> String {
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

fn explore_table(r: &ExploreReport) -> String {
    let mut out = headline(
        &r.model,
        &r.machine,
        r.mode,
        r.s_kv,
        Some(r.batch),
        r.ep,
        r.scope,
        r.efficiency,
    );
    out.push_str(&sla_line(&r.sla, r.s_kv));
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
    let mut out = headline(
        &r.model,
        &r.machine,
        r.mode,
        r.s_kv,
        None,
        r.ep,
        r.scope,
        r.efficiency,
    );
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
    let mut out = String::new();
    let _ = writeln!(
        out,
        "role,{CSV_HEADER},system_throughput_tok_s,throughput_per_pe_tok_s"
    );
    let mut row = |role: &str, p: &ServingScore| {
        let _ = writeln!(
            out,
            "{role},{},{},{}",
            csv_config(&p.config),
            p.system_throughput_tok_s,
            p.throughput_per_pe_tok_s
        );
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
    out
}

fn sensitivity_table(r: &SensitivityReport) -> String {
    let mut out = headline(
        &r.model,
        &r.machine,
        r.mode,
        r.s_kv,
        Some(r.batch),
        r.ep,
        r.scope,
        r.efficiency,
    );
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
    let mut out = String::from("knob,value,latency_ns,fits,is_baseline\n");
    for row in &r.rows {
        for (k, v) in row.values.iter().enumerate() {
            let lat = row.latencies_ns.get(k).copied().unwrap_or(f64::NAN);
            let lat = if lat.is_finite() {
                lat.to_string()
            } else {
                String::new()
            };
            let _ = writeln!(
                out,
                "{},{},{},{},{}",
                row.knob.as_str(),
                v,
                lat,
                row.fits.get(k).copied().unwrap_or(false),
                *v == row.baseline_value
            );
        }
    }
    out
}
