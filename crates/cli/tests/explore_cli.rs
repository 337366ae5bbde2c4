//! `shardscope explore` / `shardscope sensitivity` driven as a process.
#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers outside #[test] functions

mod common;

use common::run;
use serde_json::Value;

fn json(args: &[&str]) -> Value {
    let r = run(args);
    assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
    serde_json::from_str(&r.stdout).unwrap()
}

fn rel(a: f64, b: f64) -> f64 {
    ((a - b) / b).abs()
}

fn tmp_file(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("shardscope-explore-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

#[test]
fn explore_json_contract() {
    let v = json(&["explore", "--format", "json"]);
    let o = v.as_object().unwrap();
    assert_eq!(v["model"], "llama3.1-70b");
    assert_eq!(v["machine"], "h200-hgx");
    assert_eq!(v["s_kv"], 32768);
    assert_eq!(v["mode"], "decode");
    assert_eq!((v["batch"].as_u64(), v["ep"].as_u64()), (Some(1), Some(1)));
    assert_eq!(
        (v["scope"].as_str(), v["efficiency"].as_str()),
        (Some("all"), Some("seed"))
    );
    assert_eq!(v["total_enumerated"], 28800);
    assert_eq!(v["total_feasible"], 16352);
    assert!(!o.contains_key("all"));
    let p = v["pareto"].as_array().unwrap();
    assert_eq!(p.len(), 54);
    let first = &p[0];
    for (k, want) in [
        ("cp", 1),
        ("tp", 8),
        ("pp", 1),
        ("dp", 1),
        ("ep", 1),
        ("batch", 1),
    ] {
        assert_eq!(first[k], want, "{k}");
    }
    assert_eq!(first["kv_shard_mode"], "split");
    assert_eq!(first["ffn_shard_scope"], "TP");
    assert_eq!(first["tp_placement"], "pe");
    assert_eq!(first["cp_placement"], "cube");
    assert_eq!(first["cp_ring_variant"], "kv");
    assert!(
        rel(
            first["total_latency_ns"].as_f64().unwrap(),
            5479728.208888889
        ) <= 1e-9
    );
    assert_eq!(first["reason"], "");
    assert_eq!(first.as_object().unwrap().len(), 23);
    let lat: Vec<f64> = p
        .iter()
        .map(|c| c["total_latency_ns"].as_f64().unwrap())
        .collect();
    assert!(lat.windows(2).all(|w| w[0] <= w[1]));
    assert_eq!(o.len(), 11);
    // Keys appear in the contract's order in the text.
    let text = run(&["explore", "--format", "json"]).stdout;
    let pos = |k: &str| text.find(&format!("\"{k}\":")).unwrap();
    let order = [
        "model",
        "machine",
        "s_kv",
        "mode",
        "batch",
        "ep",
        "scope",
        "efficiency",
        "total_enumerated",
        "total_feasible",
        "pareto",
    ];
    assert!(order.windows(2).all(|w| pos(w[0]) < pos(w[1])));
    let fields = [
        "cp",
        "tp",
        "pp",
        "dp",
        "ep",
        "batch",
        "kv_shard_mode",
        "ffn_shard_scope",
        "tp_placement",
        "cp_placement",
        "cp_ring_variant",
        "total_latency_ns",
        "throughput_tok_s",
        "efficiency_score",
        "pes_used",
        "hbm_utilization",
        "weights_gb",
        "kv_gb",
        "transient_gb",
        "sips_used",
        "fits_memory",
        "placement_valid",
        "reason",
    ];
    let first_obj = &text[pos("pareto")..];
    let fpos = |k: &str| first_obj.find(&format!("\"{k}\":")).unwrap();
    assert!(fields.windows(2).all(|w| fpos(w[0]) < fpos(w[1])));
}

#[test]
fn explore_all_includes_infeasible_with_reasons() {
    let v = json(&[
        "explore",
        "--model",
        "llama3.1-405b",
        "--machine",
        "h100-hgx",
        "--mode",
        "prefill",
        "--s-kv",
        "131072",
        "--all",
        "--format=json",
    ]);
    let all = v["all"].as_array().unwrap();
    assert_eq!(all.len(), v["total_enumerated"].as_u64().unwrap() as usize);
    // G4 is in the list: 1657735877.5473375 ns, over budget with the seed's reason.
    let g4 = all
        .iter()
        .find(|c| {
            c["cp"] == 16
                && c["tp"] == 8
                && c["pp"] == 1
                && c["dp"] == 1
                && c["kv_shard_mode"] == "split"
                && c["ffn_shard_scope"] == "TP"
                && c["tp_placement"] == "pe"
                && c["cp_placement"] == "cube"
                && c["cp_ring_variant"] == "kv"
        })
        .unwrap();
    assert!(rel(g4["total_latency_ns"].as_f64().unwrap(), 1657735877.5473375) <= 1e-9);
    assert!(rel(g4["efficiency_score"].as_f64().unwrap(), 0.2507814676191317) <= 1e-9);
    assert_eq!(g4["fits_memory"], false);
    assert_eq!(
        g4["reason"],
        "weights+KV+transient (102.76 GB) exceeds per-PE budget (72.00 GB)"
    );
    for c in all {
        let feasible = c["fits_memory"] == true && c["placement_valid"] == true;
        assert_eq!(c["reason"] == "", feasible);
    }
}

#[test]
fn explore_table_and_csv() {
    let r = run(&["explore"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r
        .stdout
        .contains("28800 configs enumerated, 16352 feasible"));
    assert!(r.stdout.contains("54 on the Pareto frontier"));
    assert!(r.stdout.contains("latency (ms)") && r.stdout.contains("weights (GB)"));
    // Data rows are aligned with the header: the latency column ends at the same place.
    let lines: Vec<&str> = r.stdout.lines().collect();
    let head = lines
        .iter()
        .position(|l| l.contains("latency (ms)"))
        .unwrap();
    let end = lines[head].find("latency (ms)").unwrap() + "latency (ms)".len();
    let rows = &lines[head + 2..];
    assert_eq!(rows.len(), 54);
    for row in rows {
        assert!(row.as_bytes()[end - 1].is_ascii_digit(), "{row}");
        assert!(row.ends_with("yes"), "{row}");
    }
    assert!(rows[0].contains("5.480"));

    let r = run(&["explore", "--format", "csv"]);
    assert_eq!(r.code, 0);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines.len(), 55);
    assert!(lines[0].starts_with("cp,tp,pp,dp,ep,batch,kv_shard_mode,"));
    assert!(lines[0].contains("total_latency_ns") && lines[0].ends_with(",pareto,reason"));
    let cols = lines[0].split(',').count();
    assert!(lines.iter().all(|l| l.split(',').count() == cols));
    assert!(lines[1].starts_with("1,8,1,1,1,1,split,TP,pe,cube,kv,5479728.208888889,"));

    let r = run(&[
        "explore",
        "--model",
        "llama3.1-8b",
        "--s-kv",
        "4096",
        "--all",
        "--format",
        "csv",
    ]);
    assert_eq!(r.code, 0);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines.len(), 28_801);
    assert!(lines.iter().any(|l| l.contains("intra-cube demand (")));
}

#[test]
fn batch_sweep_and_sla() {
    let v = json(&["explore", "--batch-sweep", "1,16", "--format", "json"]);
    let b = v["batches"].as_array().unwrap();
    assert_eq!(b.len(), 2);
    assert_eq!(b[0]["batch"], 1);
    assert_eq!(b[0]["total_feasible"], 16352);
    assert_eq!(b[0]["pareto"].as_array().unwrap().len(), 54);
    for res in b {
        for p in res["pareto"].as_array().unwrap() {
            let sys = p["system_throughput_tok_s"].as_f64().unwrap();
            let lat_s = p["total_latency_ns"].as_f64().unwrap() / 1e9;
            let dp = p["dp"].as_f64().unwrap();
            let batch = p["batch"].as_f64().unwrap();
            assert!(rel(sys, dp * batch / lat_s) < 1e-12);
            let per_pe = p["throughput_per_pe_tok_s"].as_f64().unwrap();
            assert!(rel(per_pe, sys / p["pes_used"].as_f64().unwrap()) < 1e-12);
        }
        assert!(res["best_throughput_per_pe"].is_object());
    }
    let r = run(&["explore", "--batch-sweep", "1,16"]);
    assert_eq!(r.code, 0);
    assert!(r.stdout.contains("best tok/s/PE") && r.stdout.contains("batch 16: Pareto frontier"));
    let r = run(&["explore", "--batch-sweep", "1,16", "--format", "csv"]);
    assert_eq!(r.code, 0);
    assert!(r.stdout.starts_with("role,cp,tp,"));
    assert!(r.stdout.contains("\nbest_throughput_per_pe,"));

    let v = json(&["explore", "--sla-tpot-ms", "6", "--format", "json"]);
    assert_eq!(v["sla"]["tpot_max_ms"], 6.0);
    let within = v["total_within_sla"].as_u64().unwrap();
    assert!(within > 0 && within < 16352);
    for c in v["pareto"].as_array().unwrap() {
        assert!(c["total_latency_ns"].as_f64().unwrap() <= 6e6);
    }
    let v = json(&[
        "explore",
        "--mode",
        "prefill",
        "--s-kv",
        "4096",
        "--sla-tpot-ms",
        "20",
        "--sla-ttft-ms",
        "500",
        "--prompt-len",
        "4096",
        "--format",
        "json",
    ]);
    assert_eq!(v["sla"]["prompt_len"], 4096);
    for c in v["pareto"].as_array().unwrap() {
        assert!(c["total_latency_ns"].as_f64().unwrap() <= 500e6);
    }
}

#[test]
fn sensitivity_json_and_table() {
    let v = json(&["sensitivity", "--format", "json"]);
    let base = &v["baseline"];
    assert!(
        rel(
            base["total_latency_ns"].as_f64().unwrap(),
            5832554.906666666
        ) <= 1e-9
    );
    assert!(
        rel(
            base["efficiency_score"].as_f64().unwrap(),
            0.01602143365449399
        ) <= 1e-9
    );
    assert_eq!(
        (
            base["cp"].as_u64(),
            base["tp"].as_u64(),
            base["pp"].as_u64()
        ),
        (Some(2), Some(4), Some(2))
    );
    let rows = v["rows"].as_array().unwrap();
    let knobs: Vec<&str> = rows.iter().map(|r| r["knob"].as_str().unwrap()).collect();
    assert_eq!(knobs, ["cp", "tp", "pp", "dp", "ep"]);
    for r in rows {
        let n = r["values"].as_array().unwrap().len();
        assert_eq!(r["latencies_ns"].as_array().unwrap().len(), n);
        assert_eq!(r["fits"].as_array().unwrap().len(), n);
        assert!(
            rel(
                r["baseline_latency_ns"].as_f64().unwrap(),
                5832554.906666666
            ) <= 1e-9
        );
    }
    assert_eq!(rows[0]["baseline_value"], 2);

    // A shallow custom model: pp above its layers is null.
    let model = tmp_file(
        "small.json",
        r#"{"name": "small", "layers": 8, "d_model": 512, "h_q": 8, "h_kv": 2, "d_head": 64,
            "d_ff": 1024, "vocab": 1000}"#,
    );
    let v = json(&[
        "sensitivity",
        "--model-json",
        &model,
        "--baseline",
        "cp=1,tp=2,pp=1,ring=kv,ep=1,batch=2",
        "--format",
        "json",
    ]);
    assert_eq!(v["model"], "small");
    assert_eq!(v["batch"], 2);
    let pp = &v["rows"][2];
    for (val, lat) in pp["values"]
        .as_array()
        .unwrap()
        .iter()
        .zip(pp["latencies_ns"].as_array().unwrap())
    {
        assert_eq!(lat.is_null(), val.as_u64().unwrap() > 8, "pp {val}");
    }

    let r = run(&["sensitivity"]);
    assert_eq!(r.code, 0);
    assert!(r
        .stdout
        .contains("baseline: cp2 tp4 pp2 dp1 ep1 split/TP+CP/pe/pe/qoml"));
    assert!(r.stdout.contains("vs baseline"));
    let r = run(&["sensitivity", "--format", "csv"]);
    assert_eq!(r.code, 0);
    assert!(r
        .stdout
        .starts_with("knob,value,latency_ns,fits,is_baseline\n"));
    assert!(r.stdout.contains("\ncp,2,5832554.906666666,true,true\n"));
}

#[test]
fn bad_settings_exit_2_with_a_message() {
    let cases: &[(&[&str], Option<&str>)] = &[
        (&["explore", "--bogus"], Some("bogus")),
        (&["explore", "--s-kv", "0"], Some("s_kv")),
        (&["explore", "--s-kv"], Some("s_kv")),
        (&["explore", "--mode", "train"], Some("mode")),
        (&["explore", "--scope", "moe"], Some("scope")),
        (&["explore", "--ep", "x"], Some("ep")),
        (
            &["explore", "--batch", "1", "--batch-sweep", "2"],
            Some("batch_sweep"),
        ),
        (&["explore", "--batch-sweep", "4,4"], Some("batch_sweep")),
        (&["explore", "--sla-tpot-ms", "-3"], Some("sla_tpot_ms")),
        (&["explore", "--prompt-len", "10"], Some("prompt_len")),
        (&["explore", "--model", "gpt-9"], Some("model")),
        (&["explore", "--machine", "tpu"], Some("machine")),
        (
            &[
                "explore",
                "--model",
                "llama3.1-8b",
                "--model",
                "llama3.1-70b",
            ],
            Some("model"),
        ),
        (&["explore", "extra"], Some("arguments")),
        (
            &["explore", "--calibrate", "cfg=cp3,latency_ms=2"],
            Some("calibrate"),
        ),
        (
            &["explore", "--calibrate", "latency_ms=2"],
            Some("calibrate"),
        ),
        (&["sensitivity", "--all"], Some("all")),
        (
            &["sensitivity", "--baseline", "cp=2,zz=1"],
            Some("baseline.zz"),
        ),
        (
            &["sensitivity", "--baseline", "kv=half"],
            Some("baseline.kv"),
        ),
        (&["sensitivity", "--baseline", "tp=0"], Some("baseline.tp")),
    ];
    for (args, field) in cases {
        let r = run(args);
        assert_eq!(r.code, 2, "{args:?}");
        assert!(r.stdout.is_empty(), "{args:?}: {}", r.stdout);
        assert_eq!(r.stderr.lines().count(), 1, "{args:?}: {}", r.stderr);
        assert!(r.stderr.starts_with("shardscope "), "{}", r.stderr);

        let mut with_json: Vec<&str> = args.to_vec();
        with_json.extend(["--format", "json"]);
        let r = run(&with_json);
        assert_eq!(r.code, 2, "{with_json:?}");
        let v: Value = serde_json::from_str(&r.stdout).unwrap();
        let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
        assert_eq!(keys.len(), 5);
        assert!(v["error"].is_string());
        assert!(v["line"].is_null() && v["record"].is_null() && v["file"].is_null());
        assert_eq!(v["field"].as_str(), *field, "{with_json:?}");
    }
}

#[test]
fn custom_json_errors_name_the_file_and_field() {
    let bad = tmp_file(
        "bad_model.json",
        r#"{"layers": 2, "d_model": 64, "h_q": 60, "h_kv": 8, "d_head": 16, "d_ff": 1, "vocab": 1}"#,
    );
    let r = run(&["explore", "--model-json", &bad, "--format", "json"]);
    assert_eq!(r.code, 2);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["error"], "model.h_q (60) must be a multiple of h_kv (8)");
    assert_eq!(v["field"], "model.h_q");
    assert_eq!(v["file"], bad.as_str());
    assert!(r
        .stderr
        .contains("model.h_q (60) must be a multiple of h_kv (8)"));

    let broken = tmp_file("broken.json", "{\"layers\": 2,\n \"d_model\": x}");
    let r = run(&["explore", "--model-json", &broken, "--format", "json"]);
    assert_eq!(r.code, 2);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["line"], 2);
    assert!(v["field"].is_null());

    let machine = tmp_file(
        "machine.json",
        r#"{"name": "mini", "peak_flops": 1e15, "bw_hbm": 2e12, "hbm_bytes": 0, "hbm_usable_frac": 0.9,
            "pes_per_cube": 4, "cubes_per_sip": 2, "l0": {"bw": 1e11, "alpha": 1e-6},
            "l1": {"bw": 1e10, "alpha": 2e-6}, "l2": {"bw": 1e9, "alpha": 3e-6}}"#,
    );
    let r = run(&["explore", "--machine-json", &machine, "--format", "json"]);
    assert_eq!(r.code, 2);
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["field"], "machine.hbm_bytes");

    let r = run(&["explore", "--machine-json", "/nonexistent/m.json"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("/nonexistent/m.json"));

    let good = tmp_file(
        "good_machine.json",
        r#"{"name": "mini", "peak_flops": 1e15, "bw_hbm": 2e12, "hbm_bytes": 2e11, "hbm_usable_frac": 0.9,
            "pes_per_cube": 4, "cubes_per_sip": 2, "l0": {"bw": 1e11, "alpha": 1e-6},
            "l1": {"bw": 1e10, "alpha": 2e-6}, "l2": {"bw": 1e9, "alpha": 3e-6}}"#,
    );
    let v = json(&[
        "explore",
        "--machine-json",
        &good,
        "--model",
        "llama3.1-8b",
        "--format",
        "json",
    ]);
    assert_eq!(v["machine"], "mini");
    assert!(!v["pareto"].as_array().unwrap().is_empty());
}

/// `--scenario` pairs: each scenario's report is what `explore` prints for the same
/// settings given as flags, and the comparison agrees with those frontiers.
#[test]
fn each_scenario_equals_explore_with_its_settings() {
    let pairs: [(&str, &[&str]); 3] = [
        ("machine=h100-hgx", &["--machine", "h100-hgx"]),
        (
            "model=llama3.1-8b,mode=prefill,s_kv=4096,batch=4",
            &[
                "--model",
                "llama3.1-8b",
                "--mode",
                "prefill",
                "--s-kv",
                "4096",
                "--batch",
                "4",
            ],
        ),
        (
            "machine=tile-wafer,efficiency=corrected,sla_tpot_ms=30,ep=1",
            &[
                "--machine",
                "tile-wafer",
                "--efficiency",
                "corrected",
                "--sla-tpot-ms",
                "30",
            ],
        ),
    ];
    let mut args = vec!["explore", "--format", "json"];
    for (text, _) in &pairs {
        args.extend(["--scenario", text]);
    }
    let v = json(&args);
    let scenarios = v["scenarios"].as_array().unwrap();
    assert_eq!(scenarios.len(), 3);
    let rows = v["comparison"]["rows"].as_array().unwrap();
    for (k, (_, flags)) in pairs.iter().enumerate() {
        let mut alone = vec!["explore", "--format", "json"];
        alone.extend(flags.iter());
        let want = json(&alone);
        assert_eq!(scenarios[k]["report"], want, "scenario {k}");
        let pareto = want["pareto"].as_array().unwrap();
        assert_eq!(
            rows[k]["frontier_size"].as_u64().unwrap() as usize,
            pareto.len()
        );
        let best = pareto[0]["total_latency_ns"].as_f64().unwrap() / 1e6;
        assert!(rel(rows[k]["best_latency_ms"].as_f64().unwrap(), best) < 1e-12);
        // The best within 64 PEs is the fastest frontier config using ≤ 64 PEs.
        let within_64 = pareto
            .iter()
            .filter(|c| c["pes_used"].as_u64().unwrap() <= 64)
            .map(|c| c["total_latency_ns"].as_f64().unwrap() / 1e6)
            .fold(f64::INFINITY, f64::min);
        assert_eq!(v["comparison"]["budgets_pes"][1], 64);
        assert!(
            rel(
                rows[k]["best_latency_ms_within"][1].as_f64().unwrap(),
                within_64
            ) < 1e-12
        );
    }
    assert_eq!(v["comparison"]["pairs"].as_array().unwrap().len(), 3);
    assert_eq!(v["comparison"]["summary"].as_array().unwrap().len(), 4);
    assert_eq!(scenarios[0]["name"], "llama3.1-70b h100-hgx");
    assert_eq!(scenarios[0]["settings"], "machine=h100-hgx");
}

/// `--calibrate`: the fit is in the JSON, every frontier latency moves by the one common
/// factor, and the table says so.
#[test]
fn calibrate_scales_the_sweep_to_a_measurement() {
    let plain = json(&["explore", "--model", "llama3.1-8b", "--format", "json"]);
    assert!(plain.get("calibration").is_none());
    let c = &plain["pareto"][0];
    let key = format!(
        "cp{}.tp{}.pp{}.dp{}.{}.{}.{}.{}.{}",
        c["cp"],
        c["tp"],
        c["pp"],
        c["dp"],
        c["kv_shard_mode"].as_str().unwrap(),
        c["ffn_shard_scope"].as_str().unwrap(),
        c["tp_placement"].as_str().unwrap(),
        c["cp_placement"].as_str().unwrap(),
        c["cp_ring_variant"].as_str().unwrap()
    );
    let measured_ms = c["total_latency_ns"].as_f64().unwrap() / 1e6 / 2.0;
    let arg = format!("cfg={key},latency_ms={measured_ms}");
    let v = json(&[
        "explore",
        "--model",
        "llama3.1-8b",
        "--calibrate",
        &arg,
        "--format",
        "json",
    ]);
    let cal = &v["calibration"];
    assert_eq!(cal["fitted"], 1);
    assert!(rel(cal["scales"]["memory"].as_f64().unwrap(), 0.5) < 1e-9);
    assert!(rel(cal["error_before_pct"].as_f64().unwrap(), 100.0) < 1e-9);
    assert!(cal["error_after_pct"].as_f64().unwrap() < 1e-9);
    let (a, b) = (
        v["pareto"].as_array().unwrap(),
        plain["pareto"].as_array().unwrap(),
    );
    assert_eq!(a.len(), b.len());
    for (x, y) in a.iter().zip(b) {
        let ratio =
            x["total_latency_ns"].as_f64().unwrap() / y["total_latency_ns"].as_f64().unwrap();
        assert!(rel(ratio, 0.5) < 1e-9, "{ratio}");
    }
    // The batch sweep takes the calibration too, and says so.
    let batches = |extra: &[&str]| {
        let mut args = vec![
            "explore",
            "--model",
            "llama3.1-8b",
            "--batch-sweep",
            "1,8",
            "--format",
            "json",
        ];
        args.extend_from_slice(extra);
        json(&args)
    };
    let (plain_b, cal_b) = (batches(&[]), batches(&["--calibrate", &arg]));
    assert!(plain_b.get("time_scales").is_none());
    assert!(rel(cal_b["time_scales"]["compute"].as_f64().unwrap(), 0.5) < 1e-9);
    let first = |v: &serde_json::Value| {
        v["batches"][1]["pareto"][0]["total_latency_ns"]
            .as_f64()
            .unwrap()
    };
    assert!(rel(first(&cal_b) / first(&plain_b), 0.5) < 1e-9);
    let r = run(&["explore", "--model", "llama3.1-8b", "--calibrate", &arg]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.lines().nth(1).unwrap().starts_with(
            "calibrated to 1 measurement: compute, memory and network ×0.500 (one common factor); fit error 100.0 % → 0.0 %"
        ),
        "{}",
        r.stdout
    );
}

#[test]
fn bad_scenarios_exit_2_naming_the_scenario() {
    for (args, starts) in [
        (
            vec!["--scenario", "gpus=8"],
            "shardscope explore: unknown scenario key `gpus`",
        ),
        (
            vec!["--scenario", "batch=0"],
            "shardscope explore: scenario 1 (h200-hgx): --batch (0)",
        ),
        (
            vec!["--scenario", "", "--scenario", "machine=tpu"],
            "shardscope explore: scenario 2 (tpu): unknown machine preset",
        ),
        (
            vec![
                "--scenario",
                "",
                "--scenario",
                "",
                "--scenario",
                "",
                "--scenario",
                "",
                "--scenario",
                "",
            ],
            "shardscope explore: at most 4 scenarios",
        ),
        (vec!["--scenario", "", "--all"], "shardscope"),
        (vec!["--scenario", "", "--batch-sweep", "1,2"], "shardscope"),
    ] {
        let mut full = vec!["explore"];
        full.extend(&args);
        let r = run(&full);
        assert_eq!(r.code, 2, "{args:?}");
        assert!(r.stderr.starts_with(starts), "{args:?}: {}", r.stderr);
    }
}

#[test]
fn help_exits_0() {
    let r = run(&["explore", "--help"]);
    assert_eq!(r.code, 0);
    assert!(r.stdout.contains("--batch-sweep") && r.stdout.contains("--prompt-len"));
    let r = run(&["sensitivity", "-h"]);
    assert_eq!(r.code, 0);
    assert!(r.stdout.contains("--baseline"));
}
