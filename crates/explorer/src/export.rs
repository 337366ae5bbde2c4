//! The explorer's exports, shared by `shardscope explore` and the page: the page's
//! downloads are the command line's bytes.

use super::{ConfigScore, ExploreReport};
use crate::csv_text::CsvText;

/// `shardscope explore --format json`: the report as one JSON line.
pub fn explore_json(report: &ExploreReport) -> String {
    let mut text =
        serde_json::to_string(report).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
    text.push('\n');
    text
}

/// The columns of one configuration in every explorer CSV.
pub const CSV_HEADER: &str = "cp,tp,pp,dp,ep,batch,kv_shard_mode,ffn_shard_scope,tp_placement,cp_placement,cp_ring_variant,total_latency_ns,throughput_tok_s,efficiency_score,pes_used,hbm_utilization,weights_gb,kv_gb,transient_gb,sips_used,fits_memory,placement_valid,feasible";

/// One configuration's [`CSV_HEADER`] columns.
pub fn csv_config(c: &ConfigScore) -> Vec<String> {
    vec![
        c.cp.to_string(),
        c.tp.to_string(),
        c.pp.to_string(),
        c.dp.to_string(),
        c.ep.to_string(),
        c.batch.to_string(),
        c.kv_shard_mode.to_string(),
        c.ffn_shard_scope.to_string(),
        c.tp_placement.to_string(),
        c.cp_placement.to_string(),
        c.cp_ring_variant.to_string(),
        c.total_latency_ns.to_string(),
        c.throughput_tok_s.to_string(),
        c.efficiency_score.to_string(),
        c.pes_used.to_string(),
        c.hbm_utilization.to_string(),
        c.weights_gb.to_string(),
        c.kv_gb.to_string(),
        c.transient_gb.to_string(),
        c.sips_used.to_string(),
        c.fits_memory.to_string(),
        c.placement_valid.to_string(),
        c.feasible().to_string(),
    ]
}

/// `shardscope explore --format csv`: the frontier, or every configuration with `--all`.
pub fn explore_csv(r: &ExploreReport) -> String {
    let mut out = CsvText::new();
    out.row(CSV_HEADER.split(',').chain(["pareto", "reason"]));
    let list = r.all.as_ref().unwrap_or(&r.pareto);
    for c in list {
        let on = r.all.is_none() || r.pareto.contains(c);
        let mut fields = csv_config(c);
        fields.push(on.to_string());
        fields.push(c.reason.clone());
        out.row(fields);
    }
    out.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{explore, MachineParams, Mode, ModelConfig, SweepRequest};

    /// One sweep (a debug-build sweep is slow) read three ways: the frontier's CSV is the
    /// bytes `shardscope explore --model llama3.1-8b --mode prefill --batch 4 --format csv`
    /// is held to (the command line's snapshot); every configuration's CSV marks the
    /// frontier; the JSON is one line that reads back.
    #[test]
    fn exports_are_the_command_lines_bytes() {
        let model = ModelConfig::preset("llama3.1-8b").unwrap();
        let machine = MachineParams::preset("h200-hgx").unwrap();
        let req = SweepRequest {
            mode: Mode::Prefill,
            batch: 4,
            ..SweepRequest::default()
        };
        let r = explore(&model, &machine, &req, true).unwrap().0;
        let frontier_only = ExploreReport {
            all: None,
            ..r.clone()
        };
        let want = include_str!("../../cli/tests/snapshots/explore-prefill-csv.txt");
        assert_eq!(explore_csv(&frontier_only), want);

        let text = explore_csv(&r);
        let all = r.all.as_ref().unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), all.len() + 1);
        let on = lines
            .iter()
            .filter(|l| l.contains(",true,true,true,true,"))
            .count();
        assert_eq!(on, r.pareto.len());
        let first: Vec<&str> = lines[1].split(',').collect();
        assert_eq!(first.len(), CSV_HEADER.split(',').count() + 2);
        assert_eq!(first[..23], csv_config(&all[0])[..]);

        let text = explore_json(&frontier_only);
        assert!(
            text.ends_with("}\n") && text.matches('\n').count() == 1,
            "{text:.80}"
        );
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back["model"], "llama3.1-8b");
        assert_eq!(back["pareto"].as_array().unwrap().len(), r.pareto.len());
        assert_eq!(back["pareto"][0]["cp"], r.pareto[0].cp);
        assert_eq!(
            back["pareto"][0]["total_latency_ns"],
            r.pareto[0].total_latency_ns
        );
    }
}
