//! The explore view's logic, platform-free: every configuration as compact columns for
//! the scatter (packed to bytes for the worker's answer), the frontier's rows, stage
//! bars, the calibration's words, and the colours. The settings it shows are the
//! session's [`explore_settings`](shardscope_session::explore_settings).

use std::collections::HashMap;

use crate::explorer::DEFAULT_BASELINE;
use crate::explorer::{
    Calibration, CalibrationRow, ConfigScore, Evaluation, ExploreReport, FfnShardScope,
    KvShardMode, Mode, PlacementKind, RingVariant, StageGroup, Sweep, SweepRequest, TopologyConfig,
    CP_OPTIONS, DP_OPTIONS, PP_OPTIONS, TP_OPTIONS,
};
use crate::pack::{Malformed, Reader, Writer};

// The settings, under the names this module's parts use.
pub(crate) use shardscope_session::explore_settings::*;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explorer::{sweep, TimeScales};

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
    fn a_fit_to_three_times_the_model_is_one_common_factor() {
        let plain = resolve(&ExploreSettings::default()).unwrap();
        let (before, _) = plain.explore(false).unwrap();
        let first = &before.pareto[0];
        let mut settings = ExploreSettings::default();
        let topo = first.as_topology(32768, Mode::Decode);
        let three_times = format!("{}", first.latency_ms() * 3.0);
        settings
            .add_measurement(&topo, MeasuredUnit::LatencyMs, &three_times)
            .unwrap();
        let fit = resolve(&settings).unwrap().calibration.unwrap();
        assert_eq!(
            calibration_text(&fit),
            "calibrated to 1 measurement: compute, memory and network ×3.000 (one common factor); \
             fit error 200.0 % → 0.0 %"
        );
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
}
