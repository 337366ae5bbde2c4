//! The explorer's reports as the terminal shows them (aligned tables under a headline)
//! and as CSV: `explore`, `--batch-sweep`, `--scenario` and `sensitivity`.

use std::fmt::Write as _;

use shardscope_explorer::{
    csv_config, BatchSweepReport, Calibration, ConfigScore, ExploreReport, ReportHeader,
    SensitivityReport, ServingScore, Sla, CSV_HEADER,
};
use shardscope_session::scenarios::ScenarioReport;
use shardscope_text::csv_text::CsvText;
use shardscope_view::explore::calibration_text;
use shardscope_view::scenario_view;

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

/// A report's first line: the settings it was made with.
fn headline(h: &ReportHeader) -> String {
    format!("{}\n", h.line())
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

pub(crate) fn explore_table(r: &ExploreReport) -> String {
    let mut out = headline(&r.header);
    out.push_str(&sla_line(&r.sla, r.header.s_kv));
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

pub(crate) fn batch_table(r: &BatchSweepReport) -> String {
    let mut out = headline(&r.header);
    out.push_str(&sla_line(&r.sla, r.header.s_kv));
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

pub(crate) fn batch_csv(r: &BatchSweepReport) -> String {
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

pub(crate) fn scenario_table(r: &ScenarioReport) -> String {
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
        out.push_str(&headline(&rep.header));
        let sla = sla_line(&rep.sla, rep.header.s_kv);
        if !sla.is_empty() {
            out.push_str("   ");
            out.push_str(&sla);
        }
    }
    out.push('\n');
    let header = scenario_view::table_header();
    let headers: Vec<(&str, Align)> = header
        .iter()
        .enumerate()
        .map(|(i, h)| (h.as_str(), if i == 0 { Align::Left } else { Align::Right }))
        .collect();
    out.push_str(&render_table(
        &headers,
        &scenario_view::table_cells(&r.comparison),
    ));
    out.push('\n');
    for line in &r.comparison.summary {
        let _ = writeln!(out, "{line}");
    }
    out
}

pub(crate) fn scenario_csv(r: &ScenarioReport) -> String {
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

pub(crate) fn sensitivity_table(r: &SensitivityReport) -> String {
    let mut out = headline(&r.header);
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

pub(crate) fn sensitivity_csv(r: &SensitivityReport) -> String {
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
