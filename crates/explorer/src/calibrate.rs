//! Beyond every explorer: the model corrected to the user's own measurements.
//!
//! A calibration scales the three kinds of time the model adds up — compute (with the
//! per-stage overhead), HBM traffic and the fabric (α and 1/β alike) — by factors
//! bounded to [`SCALE_MIN`]–[`SCALE_MAX`], fitted by least squares of the log ratio
//! predicted / measured. One or two measurements fit one common factor (the ratios
//! between the bounds stay the model's: every time scales alike, so every prediction
//! moves by the same factor); three or more fit the three factors (Levenberg–Marquardt in
//! log space from the common factor and from 1, within the bounds). A factor that no
//! measurement's time depends on stays where it started and is reported as not
//! determined.

use serde::{Deserialize, Serialize};

use super::error::ExplorerError;
use super::machine::MachineParams;
use super::model::ModelConfig;
use super::scales::{TimeScales, SCALE_MAX, SCALE_MIN};
use super::score::{ScoreOptions, Scorer};
use super::topology::TopologyConfig;

/// What was measured for a configuration.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Measured {
    /// Latency of one step, ms.
    LatencyMs(f64),
    /// Tokens per second (as the model's `throughput_tok_s` counts them).
    TokS(f64),
}

/// One measurement: a configuration (with its batch, sequence length and mode) and what
/// it did.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Measurement {
    pub config: TopologyConfig,
    pub measured: Measured,
}

impl Measurement {
    /// The same configuration (knobs, batch, sequence length, mode), measured in the same
    /// unit.
    pub fn same_kind(&self, other: &Measurement) -> bool {
        self.config == other.config
            && std::mem::discriminant(&self.measured) == std::mem::discriminant(&other.measured)
    }
}

/// Predicted against measured for one measurement, before and after the fit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CalibrationRow {
    /// The configuration (`cp=2,tp=4,…,batch=1`, then s_kv and mode).
    pub config: String,
    pub measured_latency_ms: f64,
    pub predicted_before_ms: f64,
    pub predicted_after_ms: f64,
    /// (predicted − measured) / measured, %.
    pub error_before_pct: f64,
    pub error_after_pct: f64,
}

/// A fitted calibration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    pub scales: TimeScales,
    /// 1 (one common factor) or 3.
    pub fitted: u8,
    /// Whether the measurements pin down each factor (compute, memory, network).
    pub determined: [bool; 3],
    pub rows: Vec<CalibrationRow>,
    /// The fit's error over the measurements, %, before and after ([`fit_error_pct`]:
    /// what the fit minimises, so after ≤ before).
    pub error_before_pct: f64,
    pub error_after_pct: f64,
}

fn invalid(message: impl Into<String>) -> ExplorerError {
    ExplorerError::invalid("calibrate", message)
}

/// The model's latency of each measured configuration under `scales`, ns.
fn predict(
    model: &ModelConfig,
    machine: &MachineParams,
    options: ScoreOptions,
    scales: TimeScales,
    configs: &[TopologyConfig],
) -> Result<Vec<f64>, ExplorerError> {
    let options = ScoreOptions { scales, ..options };
    configs
        .iter()
        .map(|c| {
            Ok(Scorer::new(model, machine, c.mode, options)?
                .score(c)
                .total_latency_ns)
        })
        .collect()
}

/// Fit the time scales to `measurements` (`options.scales` is ignored: a fit starts
/// from the model as specified).
pub fn calibrate(
    model: &ModelConfig,
    machine: &MachineParams,
    options: ScoreOptions,
    measurements: &[Measurement],
) -> Result<Calibration, ExplorerError> {
    if measurements.is_empty() {
        return Err(invalid("a calibration needs at least one measurement"));
    }
    let configs: Vec<TopologyConfig> = measurements.iter().map(|m| m.config).collect();
    for c in &configs {
        c.validate()?;
    }
    let options = ScoreOptions {
        scales: TimeScales::default(),
        ..options
    };
    let base = predict(model, machine, options, TimeScales::default(), &configs)?;
    // Every measurement as a latency, ns: a throughput is one over the latency of the
    // same configuration, so the model's own ratio converts it.
    let tok_s: Vec<f64> = configs
        .iter()
        .map(|c| {
            let scorer = Scorer::new(model, machine, c.mode, options)?;
            Ok(scorer
                .score(c)
                .to_config_score(model, machine)
                .throughput_tok_s)
        })
        .collect::<Result<_, ExplorerError>>()?;
    let mut measured_ns = Vec::with_capacity(measurements.len());
    for ((m, &pred), &tput) in measurements.iter().zip(&base).zip(&tok_s) {
        let (value, what) = match m.measured {
            Measured::LatencyMs(v) => (v, "latency_ms"),
            Measured::TokS(v) => (v, "tok_s"),
        };
        if !(value.is_finite() && value > 0.0) {
            return Err(invalid(format!(
                "{what} ({value}) must be a positive number"
            )));
        }
        if !(pred.is_finite() && pred > 0.0) {
            return Err(invalid(format!(
                "the model has no latency for {} to calibrate against",
                m.config.baseline_string()
            )));
        }
        measured_ns.push(match m.measured {
            Measured::LatencyMs(v) => v * 1e6,
            Measured::TokS(v) => pred * tput / v,
        });
    }
    let (lo, hi) = (SCALE_MIN.ln(), SCALE_MAX.ln());
    // One common factor: every time scales alike, so the prediction does too.
    let mean_log: f64 = base
        .iter()
        .zip(&measured_ns)
        .map(|(p, m)| m.ln() - p.ln())
        .sum::<f64>()
        / base.len() as f64;
    let common = mean_log.clamp(lo, hi);
    let (theta, fitted, determined) = if measurements.len() < 3 {
        ([common; 3], 1, [true; 3])
    } else {
        let eval =
            |t: [f64; 3]| predict(model, machine, options, TimeScales::from_logs(t), &configs);
        let t = fit_three(common, lo, hi, &measured_ns, &eval)?;
        let determined = sensitivity(t, &measured_ns, &eval)?;
        (t, 3, determined)
    };
    let scales = TimeScales::from_logs(theta);
    let after = predict(model, machine, options, scales, &configs)?;
    let pct = |p: f64, m: f64| (p - m) / m * 100.0;
    let rows: Vec<CalibrationRow> = configs
        .iter()
        .zip(&measured_ns)
        .zip(base.iter().zip(&after))
        .map(|((c, &m), (&b, &a))| CalibrationRow {
            config: format!("{},s_kv={},mode={}", c.baseline_string(), c.s_kv, c.mode),
            measured_latency_ms: m / 1e6,
            predicted_before_ms: b / 1e6,
            predicted_after_ms: a / 1e6,
            error_before_pct: pct(b, m),
            error_after_pct: pct(a, m),
        })
        .collect();
    Ok(Calibration {
        scales,
        fitted,
        determined,
        error_before_pct: fit_error_pct(&base, &measured_ns),
        error_after_pct: fit_error_pct(&after, &measured_ns),
        rows,
    })
}

type Eval<'a> = dyn Fn([f64; 3]) -> Result<Vec<f64>, ExplorerError> + 'a;

/// The error the fit minimises, as a percentage: the root mean square of
/// ln(predicted / measured), as the factor it stands for, less one (50 % for predictions
/// 1.5× or 1/1.5× the measurements). The fit starts from the best common factor, which is
/// no worse than none, and only takes steps that lower it: after is never above before.
pub fn fit_error_pct(pred: &[f64], measured_ns: &[f64]) -> f64 {
    let r = log_residuals(pred, measured_ns);
    if r.is_empty() {
        return 0.0;
    }
    ((sum_of_squares(&r) / r.len() as f64).sqrt().exp() - 1.0) * 100.0
}

/// ln(predicted) − ln(measured), one per measurement: what the fit drives to zero.
fn log_residuals(pred: &[f64], measured_ns: &[f64]) -> Vec<f64> {
    pred.iter()
        .zip(measured_ns)
        .map(|(p, m)| p.ln() - m.ln())
        .collect()
}

fn sum_of_squares(r: &[f64]) -> f64 {
    r.iter().map(|v| v * v).sum()
}

/// Residuals ln(predicted) − ln(measured) and their Jacobian by central differences.
fn jacobian(
    t: [f64; 3],
    measured_ns: &[f64],
    eval: &Eval<'_>,
) -> Result<(Vec<f64>, Vec<[f64; 3]>), ExplorerError> {
    const H: f64 = 1e-4;
    let r = log_residuals(&eval(t)?, measured_ns);
    let mut j = vec![[0.0; 3]; r.len()];
    for k in 0..3 {
        let (mut up, mut down) = (t, t);
        up[k] += H;
        down[k] -= H;
        let (pu, pd) = (eval(up)?, eval(down)?);
        for (row, (a, b)) in j.iter_mut().zip(pu.iter().zip(&pd)) {
            row[k] = (a.ln() - b.ln()) / (2.0 * H);
        }
    }
    Ok((r, j))
}

/// The three log factors: Levenberg–Marquardt from the common factor and from 1 (log 0),
/// the better end of the two.
fn fit_three(
    common: f64,
    lo: f64,
    hi: f64,
    measured_ns: &[f64],
    eval: &Eval<'_>,
) -> Result<[f64; 3], ExplorerError> {
    let mut best: Option<([f64; 3], f64)> = None;
    for start in [[common; 3], [0.0; 3]] {
        let t = levenberg_marquardt(start, lo, hi, measured_ns, eval)?;
        let c = sum_of_squares(&log_residuals(&eval(t)?, measured_ns));
        if best.is_none_or(|(_, bc)| c < bc) {
            best = Some((t, c));
        }
    }
    Ok(best.map_or([common; 3], |(t, _)| t))
}

/// Solve the 3×3 system `a x = b` (Gaussian elimination with partial pivoting);
/// `None` when it is singular.
fn solve3(mut a: [[f64; 3]; 3], mut b: [f64; 3]) -> Option<[f64; 3]> {
    for col in 0..3 {
        let pivot = (col..3).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if a[pivot][col].abs() < 1e-300 {
            return None;
        }
        a.swap(col, pivot);
        b.swap(col, pivot);
        for row in col + 1..3 {
            let f = a[row][col] / a[col][col];
            let pivot_row = a[col];
            for (v, p) in a[row].iter_mut().zip(pivot_row).skip(col) {
                *v -= f * p;
            }
            b[row] -= f * b[col];
        }
    }
    let mut x = [0.0; 3];
    for row in (0..3).rev() {
        let tail: f64 = (row + 1..3).map(|k| a[row][k] * x[k]).sum();
        x[row] = (b[row] - tail) / a[row][row];
    }
    x.iter().all(|v| v.is_finite()).then_some(x)
}

fn levenberg_marquardt(
    start: [f64; 3],
    lo: f64,
    hi: f64,
    measured_ns: &[f64],
    eval: &Eval<'_>,
) -> Result<[f64; 3], ExplorerError> {
    let mut t = start;
    let mut lambda = 1e-3;
    for _ in 0..200 {
        let (r, j) = jacobian(t, measured_ns, eval)?;
        let c = sum_of_squares(&r);
        if c < 1e-24 {
            break;
        }
        let mut jtj = [[0.0; 3]; 3];
        let mut jtr = [0.0; 3];
        for (row, ri) in j.iter().zip(&r) {
            for a in 0..3 {
                jtr[a] += row[a] * ri;
                for b in 0..3 {
                    jtj[a][b] += row[a] * row[b];
                }
            }
        }
        let mut improved = false;
        while lambda < 1e12 {
            let mut damped = jtj;
            for (k, row) in damped.iter_mut().enumerate() {
                row[k] += lambda * jtj[k][k].max(1e-12);
            }
            let Some(step) = solve3(damped, [-jtr[0], -jtr[1], -jtr[2]]) else {
                lambda *= 10.0;
                continue;
            };
            let next = [
                (t[0] + step[0]).clamp(lo, hi),
                (t[1] + step[1]).clamp(lo, hi),
                (t[2] + step[2]).clamp(lo, hi),
            ];
            let rn = log_residuals(&eval(next)?, measured_ns);
            if sum_of_squares(&rn) < c {
                let moved = (0..3).map(|k| (next[k] - t[k]).abs()).fold(0.0, f64::max);
                t = next;
                lambda = (lambda / 3.0).max(1e-9);
                improved = moved > 1e-12;
                break;
            }
            lambda *= 4.0;
        }
        if !improved {
            break;
        }
    }
    Ok(t)
}

/// Which factors the measurements depend on at `t` (a column of the Jacobian that is
/// all but zero leaves its factor undetermined).
fn sensitivity(
    t: [f64; 3],
    measured_ns: &[f64],
    eval: &Eval<'_>,
) -> Result<[bool; 3], ExplorerError> {
    let (_, j) = jacobian(t, measured_ns, eval)?;
    let mut out = [false; 3];
    for (k, o) in out.iter_mut().enumerate() {
        *o = j.iter().map(|row| row[k].abs()).fold(0.0, f64::max) > 1e-3;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Mode;

    fn setup() -> (ModelConfig, MachineParams) {
        (
            ModelConfig::preset("llama3.1-70b").unwrap(),
            MachineParams::preset("h200-hgx").unwrap(),
        )
    }

    fn topo(text: &str, batch: u32, s_kv: u64, mode: Mode) -> TopologyConfig {
        TopologyConfig {
            batch,
            s_kv,
            mode,
            ..TopologyConfig::default()
        }
        .with_baseline(text)
        .unwrap()
    }

    /// Configurations whose times mix the three bounds differently: decode at batch 1
    /// (HBM), prefill of 32k tokens (compute), TP over nodes (fabric), and mixtures.
    fn mixed() -> Vec<TopologyConfig> {
        vec![
            topo("cp=1,tp=8,pp=1,dp=1", 1, 32768, Mode::Decode),
            topo("cp=1,tp=8,pp=1,dp=1", 4, 32768, Mode::Prefill),
            topo("cp=1,tp=32,pp=1,dp=1", 1, 8192, Mode::Decode),
            topo("cp=4,tp=8,pp=1,dp=1", 8, 32768, Mode::Prefill),
            topo("cp=2,tp=16,pp=2,dp=1", 64, 32768, Mode::Decode),
        ]
    }

    fn measured_from(scales: TimeScales, configs: &[TopologyConfig]) -> Vec<Measurement> {
        let (model, machine) = setup();
        predict(&model, &machine, ScoreOptions::default(), scales, configs)
            .unwrap()
            .into_iter()
            .zip(configs)
            .map(|(ns, c)| Measurement {
                config: *c,
                measured: Measured::LatencyMs(ns / 1e6),
            })
            .collect()
    }

    #[test]
    fn known_scales_are_recovered_from_mixed_measurements() {
        let (model, machine) = setup();
        for truth in [
            TimeScales {
                compute: 2.0,
                memory: 0.5,
                network: 3.0,
            },
            TimeScales {
                compute: 0.7,
                memory: 1.3,
                network: 0.25,
            },
            TimeScales::uniform(1.8),
        ] {
            let ms = measured_from(truth, &mixed());
            let fit = calibrate(&model, &machine, ScoreOptions::default(), &ms).unwrap();
            assert_eq!(fit.fitted, 3);
            assert_eq!(fit.determined, [true; 3], "{truth:?}");
            for (got, want) in [
                (fit.scales.compute, truth.compute),
                (fit.scales.memory, truth.memory),
                (fit.scales.network, truth.network),
            ] {
                assert!(
                    (got / want - 1.0).abs() < 0.01,
                    "{got} vs {want} ({truth:?})"
                );
            }
            assert!(fit.error_after_pct < 0.01, "{}", fit.error_after_pct);
        }
    }

    #[test]
    fn one_measurement_fits_one_factor_and_moves_every_prediction_alike() {
        let (model, machine) = setup();
        let configs = mixed();
        let before = predict(
            &model,
            &machine,
            ScoreOptions::default(),
            TimeScales::default(),
            &configs,
        )
        .unwrap();
        // Measured twice as slow as predicted.
        let ms = [Measurement {
            config: configs[0],
            measured: Measured::LatencyMs(before[0] * 2.0 / 1e6),
        }];
        let fit = calibrate(&model, &machine, ScoreOptions::default(), &ms).unwrap();
        assert_eq!(fit.fitted, 1);
        assert!((fit.scales.compute - 2.0).abs() < 1e-12);
        assert_eq!(fit.scales.compute, fit.scales.network);
        // Predicted at half the measurement: off by a factor of two, 100 %.
        assert!(
            (fit.error_before_pct - 100.0).abs() < 1e-9,
            "{}",
            fit.error_before_pct
        );
        assert!(fit.error_after_pct < 1e-9);
        let after = predict(
            &model,
            &machine,
            ScoreOptions::default(),
            fit.scales,
            &configs,
        )
        .unwrap();
        for (b, a) in before.iter().zip(&after) {
            assert!(
                (a / b - 2.0).abs() < 1e-9,
                "every config twice as slow: {a} vs {b}"
            );
        }
        // A throughput measurement says the same.
        let tput = calibrate(
            &model,
            &machine,
            ScoreOptions::default(),
            &[Measurement {
                config: configs[0],
                measured: Measured::TokS({
                    let s = Scorer::new(&model, &machine, configs[0].mode, ScoreOptions::default())
                        .unwrap();
                    s.score(&configs[0])
                        .to_config_score(&model, &machine)
                        .throughput_tok_s
                        / 2.0
                }),
            }],
        )
        .unwrap();
        assert!((tput.scales.memory - 2.0).abs() < 1e-9);
    }

    #[test]
    fn factors_are_bounded_and_bad_measurements_are_refused() {
        let (model, machine) = setup();
        let c = mixed()[0];
        let way_off = [Measurement {
            config: c,
            measured: Measured::LatencyMs(1e9),
        }];
        let fit = calibrate(&model, &machine, ScoreOptions::default(), &way_off).unwrap();
        assert_eq!(fit.scales, TimeScales::uniform(SCALE_MAX));
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            let e = calibrate(
                &model,
                &machine,
                ScoreOptions::default(),
                &[Measurement {
                    config: c,
                    measured: Measured::LatencyMs(bad),
                }],
            )
            .unwrap_err();
            assert_eq!(e.field(), Some("calibrate"));
        }
        assert!(calibrate(&model, &machine, ScoreOptions::default(), &[]).is_err());
    }

    #[test]
    fn decode_only_measurements_leave_compute_undetermined() {
        let (model, machine) = setup();
        // Batch-1 decode is HBM- and fabric-bound: compute time is all but hidden.
        let configs = vec![
            topo("cp=1,tp=8,pp=1,dp=1", 1, 32768, Mode::Decode),
            topo("cp=1,tp=4,pp=1,dp=1", 1, 32768, Mode::Decode),
            topo("cp=1,tp=32,pp=1,dp=1", 1, 32768, Mode::Decode),
        ];
        let ms = measured_from(
            TimeScales {
                compute: 1.0,
                memory: 1.5,
                network: 2.0,
            },
            &configs,
        );
        let fit = calibrate(&model, &machine, ScoreOptions::default(), &ms).unwrap();
        assert!(fit.error_after_pct < 0.5, "{}", fit.error_after_pct);
        assert!(!fit.determined[0], "{:?}", fit.determined);
    }

    #[test]
    fn solve3_pivots_and_refuses_a_singular_system() {
        // a[0][0] is zero, so the first column must pivot; x = (1, -2, 3).
        let a = [[0.0, 2.0, 1.0], [1.0, 1.0, 1.0], [2.0, 1.0, 3.0]];
        let x = [1.0, -2.0, 3.0];
        let b = a.map(|row| row[0] * x[0] + row[1] * x[1] + row[2] * x[2]);
        let got = solve3(a, b).unwrap();
        for (g, w) in got.iter().zip(x) {
            assert!((g - w).abs() < 1e-12, "{got:?}");
        }
        // A pivot that is not 1 and a right side that changes in elimination.
        let a = [[4.0, -2.0, 1.0], [-2.0, 4.0, -2.0], [1.0, -2.0, 4.0]];
        let x = [0.5, 2.5, -1.5];
        let b = a.map(|row| row[0] * x[0] + row[1] * x[1] + row[2] * x[2]);
        let got = solve3(a, b).unwrap();
        for (g, w) in got.iter().zip(x) {
            assert!((g - w).abs() < 1e-12, "{got:?}");
        }
        // The third row is the sum of the first two.
        let singular = [[1.0, 2.0, 3.0], [0.0, 1.0, 4.0], [1.0, 3.0, 7.0]];
        assert_eq!(solve3(singular, [1.0, 2.0, 3.0]), None);
        assert_eq!(solve3([[0.0; 3]; 3], [0.0; 3]), None);
        // A pivot below 1e-300 counts as zero even where dividing by it stays finite.
        let tiny = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1e-310]];
        assert_eq!(solve3(tiny, [1.0, 1.0, 1e-300]), None);
        let edge = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1e-300]];
        assert_eq!(solve3(edge, [1.0, 1.0, 1e-300]), Some([1.0, 1.0, 1.0]));
        let small = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1e-290]];
        assert_eq!(solve3(small, [1.0, 1.0, 1e-290]), Some([1.0, 1.0, 1.0]));
    }

    #[test]
    fn rows_report_both_predictions_and_their_errors() {
        let (model, machine) = setup();
        let c = mixed()[0];
        let before = predict(
            &model,
            &machine,
            ScoreOptions::default(),
            TimeScales::default(),
            &[c],
        )
        .unwrap()[0];
        // Measured half as fast as predicted: -50 % before, 0 after a factor of 2.
        let measured_ms = before * 2.0 / 1e6;
        let fit = calibrate(
            &model,
            &machine,
            ScoreOptions::default(),
            &[Measurement {
                config: c,
                measured: Measured::LatencyMs(measured_ms),
            }],
        )
        .unwrap();
        let [row] = fit.rows.as_slice() else {
            panic!("{:?}", fit.rows)
        };
        assert_eq!(row.config, "cp=1,tp=8,pp=1,dp=1,ep=1,batch=1,kv=split,ffn=TP+CP,tpp=pe,cpp=pe,ring=qoml,s_kv=32768,mode=decode");
        assert!((row.measured_latency_ms / measured_ms - 1.0).abs() < 1e-12);
        assert!((row.predicted_before_ms / (before / 1e6) - 1.0).abs() < 1e-12);
        assert!((row.predicted_after_ms / measured_ms - 1.0).abs() < 1e-9);
        assert!((row.error_before_pct + 50.0).abs() < 1e-9, "{row:?}");
        assert!(row.error_after_pct.abs() < 1e-9, "{row:?}");
    }

    /// The fit to the first two mixed configurations, measured at `k` times the model.
    fn fit_two_measured_at(k: [f64; 2]) -> Calibration {
        let (model, machine) = setup();
        let configs = &mixed()[..2];
        let before = predict(
            &model,
            &machine,
            ScoreOptions::default(),
            TimeScales::default(),
            configs,
        )
        .unwrap();
        let ms: Vec<Measurement> = configs
            .iter()
            .zip(&before)
            .zip(k)
            .map(|((c, ns), k)| Measurement {
                config: *c,
                measured: Measured::LatencyMs(ns * k / 1e6),
            })
            .collect();
        calibrate(&model, &machine, ScoreOptions::default(), &ms).unwrap()
    }

    #[test]
    fn two_measurements_fit_the_geometric_mean_of_their_ratios() {
        // Two and eight times slower: one common factor of four.
        let fit = fit_two_measured_at([2.0, 8.0]);
        assert_eq!(fit.fitted, 1);
        assert!((fit.scales.memory - 4.0).abs() < 1e-9, "{:?}", fit.scales);
        assert_eq!(fit.scales, TimeScales::uniform(fit.scales.memory));
        // After: ×2 and ×1/2 off, a factor of two each (100 %); before ×1/2 and ×1/8,
        // 2^√5 as the root mean square of the logs.
        assert!(
            (fit.error_after_pct - 100.0).abs() < 1e-6,
            "{}",
            fit.error_after_pct
        );
        let before_pct = (2f64.powf(5f64.sqrt()) - 1.0) * 100.0;
        assert!((fit.error_before_pct - before_pct).abs() < 1e-6);
    }

    /// Two measurements that disagree (1.37× and 0.85× the model): the common factor
    /// between them lowers the error the fit minimises, which is the one reported (the
    /// mean absolute percentage would rise, 22.3 % → 24.1 %, and read as a worse model).
    #[test]
    fn disagreeing_measurements_report_a_lower_error_after_the_fit() {
        let fit = fit_two_measured_at([1.37, 0.85]);
        let (a, b) = (1.37f64.ln(), 0.85f64.ln());
        let common = (a + b) / 2.0;
        assert!((fit.scales.compute - common.exp()).abs() < 1e-9);
        let rms = |x: f64, y: f64| (((x * x + y * y) / 2.0).sqrt().exp() - 1.0) * 100.0;
        assert!((fit.error_before_pct - rms(a, b)).abs() < 1e-9);
        assert!((fit.error_after_pct - rms(a - common, b - common)).abs() < 1e-9);
        assert!(fit.error_after_pct < fit.error_before_pct);
        assert_eq!(
            (
                format!("{:.1}", fit.error_before_pct),
                format!("{:.1}", fit.error_after_pct)
            ),
            ("28.5".to_string(), "27.0".to_string())
        );
    }

    #[test]
    fn three_measurements_far_off_stop_at_the_bounds() {
        // Every step from the bound is clamped back onto it: the damping grows until the
        // fit gives up (a fit that never stopped would time out here).
        let (model, machine) = setup();
        let ms: Vec<Measurement> = mixed()[..3]
            .iter()
            .map(|c| Measurement {
                config: *c,
                measured: Measured::LatencyMs(1e9),
            })
            .collect();
        let fit = calibrate(&model, &machine, ScoreOptions::default(), &ms).unwrap();
        assert_eq!(fit.fitted, 3);
        assert_eq!(fit.scales, TimeScales::uniform(SCALE_MAX));
    }

    /// What the synthetic fits below measure: 0.5 ns each (not 1, whose log is 0).
    const M: f64 = 0.5;

    /// Residuals `f(t)` as an `Eval` against measurements of [`M`]: ln(M·exp(f)) − ln(M) = f.
    fn residuals(
        f: impl Fn([f64; 3]) -> Vec<f64>,
    ) -> impl Fn([f64; 3]) -> Result<Vec<f64>, ExplorerError> {
        move |t| Ok(f(t).into_iter().map(|r| M * r.exp()).collect())
    }

    #[test]
    fn damping_carries_the_fit_across_a_flat_stretch() {
        // tanh is all but flat at t0 = -1: the Gauss–Newton step overshoots to the bound
        // and gains nothing, only a damped (shorter) step moves towards the zero at 1.
        let eval = residuals(|t| vec![(3.0 * (t[0] - 1.0)).tanh(), t[1] - 0.5, t[2] + 0.25]);
        let (lo, hi) = (SCALE_MIN.ln(), SCALE_MAX.ln());
        let t = levenberg_marquardt([-1.0, 0.0, 0.0], lo, hi, &[M; 3], &eval).unwrap();
        assert!((t[0] - 1.0).abs() < 1e-3, "{t:?}");
        assert!(
            (t[1] - 0.5).abs() < 1e-6 && (t[2] + 0.25).abs() < 1e-6,
            "{t:?}"
        );
    }

    #[test]
    fn the_fit_keeps_the_better_of_its_two_starts() {
        // cost(t0) = t0²(t0 − 1.5)² + 0.1·t0²: a local minimum near 1.43 (reached from the
        // common factor 1.5) and the global one at 0 (reached from 0).
        let eval = residuals(|t| vec![t[0] * (t[0] - 1.5), 0.1f64.sqrt() * t[0], t[1], t[2]]);
        let (lo, hi) = (SCALE_MIN.ln(), SCALE_MAX.ln());
        let from_common = levenberg_marquardt([1.5; 3], lo, hi, &[M; 4], &eval).unwrap();
        assert!((from_common[0] - 1.426).abs() < 0.01, "{from_common:?}");
        let t = fit_three(1.5, lo, hi, &[M; 4], &eval).unwrap();
        assert!(t.iter().all(|v| v.abs() < 1e-6), "{t:?}");
        // And the first start when it is the better one.
        let eval = residuals(|t| {
            vec![
                t[0] * (t[0] + 1.5),
                0.1f64.sqrt() * (t[0] + 1.5),
                t[1],
                t[2],
            ]
        });
        let t = fit_three(-1.5, lo, hi, &[M; 4], &eval).unwrap();
        assert!((t[0] + 1.5).abs() < 1e-6, "{t:?}");
        // A tie keeps the first start: both end on the same bounds, and a factor nothing
        // depends on stays where the common factor put it.
        let eval = residuals(|t| vec![t[0] - 5.0, t[1] + 5.0]);
        let t = fit_three(1.5, lo, hi, &[M; 2], &eval).unwrap();
        assert_eq!(t, [hi, lo, 1.5]);
    }

    #[test]
    fn a_model_without_numbers_leaves_the_fit_where_it_started() {
        // Every step's system is NaN: the damping grows until the fit gives up (a fit that
        // shrank it instead would never stop).
        let eval = residuals(|_| vec![f64::NAN; 3]);
        let (lo, hi) = (SCALE_MIN.ln(), SCALE_MAX.ln());
        let t = levenberg_marquardt([0.25, 0.5, 0.75], lo, hi, &[M; 3], &eval).unwrap();
        assert_eq!(t, [0.25, 0.5, 0.75]);
    }
}
