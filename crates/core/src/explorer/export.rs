//! The explorer's exports, shared by `shardscope explore` and the page: the page's
//! downloads are the command line's bytes.

use std::fmt::Write as _;

use super::{ConfigScore, ExploreReport};

/// `shardscope explore --format json`: the report as one JSON line.
pub fn explore_json(report: &ExploreReport) -> String {
    let mut text =
        serde_json::to_string(report).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
    text.push('\n');
    text
}

/// One CSV field, quoted when it holds a comma, a quote or a newline.
pub fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The columns of one configuration in every explorer CSV.
pub const CSV_HEADER: &str = "cp,tp,pp,dp,ep,batch,kv_shard_mode,ffn_shard_scope,tp_placement,cp_placement,cp_ring_variant,total_latency_ns,throughput_tok_s,efficiency_score,pes_used,hbm_utilization,weights_gb,kv_gb,transient_gb,sips_used,fits_memory,placement_valid,feasible";

/// One configuration's [`CSV_HEADER`] columns.
pub fn csv_config(c: &ConfigScore) -> String {
    format!(
        "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
        c.cp,
        c.tp,
        c.pp,
        c.dp,
        c.ep,
        c.batch,
        c.kv_shard_mode,
        c.ffn_shard_scope,
        c.tp_placement,
        c.cp_placement,
        c.cp_ring_variant,
        c.total_latency_ns,
        c.throughput_tok_s,
        c.efficiency_score,
        c.pes_used,
        c.hbm_utilization,
        c.weights_gb,
        c.kv_gb,
        c.transient_gb,
        c.sips_used,
        c.fits_memory,
        c.placement_valid,
        c.feasible()
    )
}

/// `shardscope explore --format csv`: the frontier, or every configuration with `--all`.
pub fn explore_csv(r: &ExploreReport) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{CSV_HEADER},pareto,reason");
    let list = r.all.as_ref().unwrap_or(&r.pareto);
    for c in list {
        let on = r.all.is_none() || r.pareto.contains(c);
        let _ = writeln!(out, "{},{},{}", csv_config(c), on, csv_field(&c.reason));
    }
    out
}
