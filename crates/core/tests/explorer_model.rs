//! The explorer against a second, independent implementation of its physics: every term
//! of `evaluate` (placement, tokens, every stage, memory, efficiency, latency) for the
//! cases of `tests/fixtures/explorer_model/cases.json`, which `model.py` there computed
//! from the model document alone (restated in docs/explorer-model.md; see that folder's README.md).
#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers outside #[test] functions

use std::fmt::Write as _;

use serde_json::Value;
use shardscope_core::explorer::*;

/// Relative tolerance for real numbers: the two implementations add the same terms in
/// different orders.
const REL: f64 = 1e-9;

fn cases() -> Vec<Value> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/explorer_model/cases.json"
    );
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut doc: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    match doc["cases"].take() {
        Value::Array(cases) => cases,
        other => panic!("{path}: `cases` is not a list: {other:.80}"),
    }
}

fn model_of(v: &Value) -> ModelConfig {
    match v {
        Value::String(name) => ModelConfig::preset(name).unwrap(),
        other => ModelConfig::from_json(&other.to_string()).unwrap(),
    }
}

fn machine_of(v: &Value) -> MachineParams {
    match v {
        Value::String(name) => MachineParams::preset(name).unwrap(),
        other => MachineParams::from_json(&other.to_string()).unwrap(),
    }
}

/// Collects every difference of one case.
struct Diff<'a> {
    id: &'a str,
    out: String,
    compared: usize,
}

impl Diff<'_> {
    fn num(&mut self, what: &str, got: f64, want: &Value) {
        let Some(w) = want.as_f64() else {
            if !want.is_null() {
                let _ = writeln!(
                    self.out,
                    "{}: {what}: expected {want} is not a number",
                    self.id
                );
            }
            return;
        };
        self.compared += 1;
        let close = got == w || (got - w).abs() <= REL * got.abs().max(w.abs());
        if !close {
            let _ = writeln!(self.out, "{}: {what}: {got} vs {w}", self.id);
        }
    }

    fn same(&mut self, what: &str, got: Value, want: &Value) {
        if want.is_null() && got.is_null() {
            return;
        }
        self.compared += 1;
        if &got != want {
            let _ = writeln!(self.out, "{}: {what}: {got} vs {want}", self.id);
        }
    }

    /// Every key of `want` against the same key of `got` (a serialized struct).
    fn fields(&mut self, what: &str, got: &Value, want: &Value) {
        let Some(want) = want.as_object() else { return };
        for (k, w) in want {
            let g = &got[k.as_str()];
            if g.is_null() {
                continue; // a term this implementation does not name
            }
            let name = format!("{what}.{k}");
            match (g, w) {
                (Value::Number(g), Value::Number(_)) if g.is_f64() || w.is_f64() => {
                    self.num(&name, g.as_f64().unwrap_or(f64::NAN), w)
                }
                _ => self.same(&name, g.clone(), w),
            }
        }
    }
}

#[test]
fn every_term_equals_the_independent_model() {
    let cases = cases();
    assert!(cases.len() >= 100, "only {} cases", cases.len());
    let mut report = String::new();
    let mut compared = 0;
    let mut failed_cases = 0;
    for case in &cases {
        let id = case["id"].as_str().unwrap_or("?");
        let model = model_of(&case["model"]);
        let machine = machine_of(&case["machine"]);
        let topo: TopologyConfig = serde_json::from_value(case["topology"].clone()).unwrap();
        let options: ScoreOptions = serde_json::from_value(case["options"].clone()).unwrap();
        let ev = evaluate(&model, &machine, &topo, options).unwrap_or_else(|e| panic!("{id}: {e}"));
        let want = &case["expected"];
        let mut d = Diff {
            id,
            out: String::new(),
            compared: 0,
        };
        let mut placement = serde_json::to_value(ev.placement).unwrap();
        placement["valid"] = Value::Bool(ev.placement.valid());
        // The reason's words are the fixture's own (docs/explorer-model.md gives none): only
        // whether there is one is compared, through `valid`.
        let mut want_placement = want["placement"].clone();
        if let Some(p) = want_placement.as_object_mut() {
            p.remove("reason");
        }
        d.fields("placement", &placement, &want_placement);
        d.fields(
            "tokens",
            &serde_json::to_value(ev.tokens).unwrap(),
            &want["tokens"],
        );
        let stages = want["stages"].as_array().cloned().unwrap_or_default();
        let got_names: Vec<&str> = ev.stages.iter().map(|s| s.name.as_str()).collect();
        let want_names: Vec<&str> = stages.iter().filter_map(|s| s["name"].as_str()).collect();
        d.same(
            "stages",
            serde_json::to_value(&got_names).unwrap(),
            &serde_json::to_value(&want_names).unwrap(),
        );
        if got_names == want_names {
            for (s, w) in ev.stages.iter().zip(&stages) {
                let what = format!("stage {}", s.name.as_str());
                let mut w = w.clone();
                // Without pipeline stages the P2P stage costs nothing and crosses no
                // fabric: the document names no level for it (the fixture says none, the
                // explorer L0).
                if s.name == StageName::PpP2p && topo.pp == 1 {
                    if let Some(o) = w.as_object_mut() {
                        o.remove("level");
                    }
                    assert_eq!((s.t_comm_s, s.visible_s), (0.0, 0.0), "{id}");
                }
                d.fields(&what, &serde_json::to_value(s).unwrap(), &w);
            }
        }
        for (k, got) in [
            ("attention_s", ev.attention_s),
            ("ffn_s", ev.ffn_s),
            ("overhead_s", ev.overhead_s),
            ("per_layer_s", ev.per_layer_s),
            ("latency_s", ev.score.latency_s),
            ("total_latency_ns", ev.score.total_latency_ns),
            ("throughput_tok_s", ev.config.throughput_tok_s),
        ] {
            d.num(k, got, &want[k]);
        }
        d.fields(
            "memory",
            &serde_json::to_value(ev.memory).unwrap(),
            &want["memory"],
        );
        d.fields(
            "efficiency",
            &serde_json::to_value(ev.efficiency).unwrap(),
            &want["efficiency"],
        );
        d.same("pes_used", ev.score.pes_used.into(), &want["pes_used"]);
        d.same("sips_used", ev.score.sips_used.into(), &want["sips_used"]);
        d.same(
            "fits_memory",
            ev.score.fits_memory.into(),
            &want["fits_memory"],
        );
        d.same(
            "placement_valid",
            ev.score.placement_valid.into(),
            &want["placement_valid"],
        );
        compared += d.compared;
        if !d.out.is_empty() {
            failed_cases += 1;
            if failed_cases <= 12 {
                report.push_str(&d.out);
            }
        }
    }
    assert!(
        report.is_empty(),
        "{failed_cases} of {} cases differ ({compared} values compared):\n{report}",
        cases.len()
    );
    eprintln!("compared {compared} values of {} cases", cases.len());
    // Sanity: the fixture really holds the terms (not a file of empty objects).
    assert!(compared > cases.len() * 40, "{compared} values compared");
}
