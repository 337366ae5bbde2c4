//! How scenarios show: each one's colour and marker, their frontiers over the scatter,
//! the comparison table's cells. The scenarios themselves are the session's
//! [`shardscope_session::scenarios`].

use shardscope_session::scenarios::ScenarioReport;

use crate::explore::latency_text;
use crate::explorer::{Comparison, MAX_SCENARIOS, PE_BUDGETS};
use crate::scatter::{Marker, Overlay};
use crate::scene::{palette, Rgba};

/// Scenario `i`'s colour and marker: Okabe–Ito colours apart from the efficiency ramp's
/// ends and the pins' vermillion, each with its own shape (tells them apart without
/// colour).
pub fn style(i: usize) -> (Rgba, Marker) {
    const STYLES: [(Rgba, Marker); MAX_SCENARIOS] = [
        (palette::BLUE, Marker::Circle),
        (palette::ORANGE, Marker::Square),
        (palette::REDDISH_PURPLE, Marker::Triangle),
        (palette::BLUISH_GREEN, Marker::Diamond),
    ];
    STYLES[i % MAX_SCENARIOS]
}

/// The shown scenarios' frontiers for the scatter, in their styles (`shown[i]` false or
/// missing: left out).
pub fn overlays(report: &ScenarioReport, shown: &[bool]) -> Vec<Overlay> {
    report
        .scenarios
        .iter()
        .enumerate()
        .filter(|(i, _)| shown.get(*i).copied().unwrap_or(false))
        .map(|(i, r)| {
            let (color, marker) = style(i);
            Overlay {
                name: r.name.clone(),
                color,
                marker,
                points: r
                    .report
                    .pareto
                    .iter()
                    .map(|c| (c.pes_used as f64, c.total_latency_ns))
                    .collect(),
            }
        })
        .collect()
}

/// The comparison table's header: scenario, frontier size, fewest PEs, best latency,
/// then the best latency within each PE budget.
pub fn table_header() -> Vec<String> {
    let mut h: Vec<String> = ["scenario", "frontier", "fewest PEs", "best"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    h.extend(PE_BUDGETS.iter().map(|b| format!("≤ {b} PEs")));
    h
}

/// The comparison table's cells, one row per scenario (`–`: nothing fits).
pub fn table_cells(c: &Comparison) -> Vec<Vec<String>> {
    let ms = |v: Option<f64>| v.map_or_else(|| "–".to_string(), |ms| latency_text(ms * 1e6));
    c.rows
        .iter()
        .map(|r| {
            let mut cells = vec![
                r.name.clone(),
                r.frontier_size.to_string(),
                r.min_pes.map_or_else(|| "–".to_string(), |p| p.to_string()),
                ms(r.best_latency_ms),
            ];
            cells.extend(r.best_latency_ms_within.iter().map(|&v| ms(v)));
            cells
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use shardscope_session::explore_settings::ExploreSettings;
    use shardscope_session::scenarios::{parse_scenario, run_scenarios};

    #[test]
    fn the_table_has_a_cell_per_heading() {
        let list: Vec<_> = ["machine=h100-hgx", "", "batch=8"]
            .iter()
            .map(|t| parse_scenario(t, &ExploreSettings::default()).unwrap())
            .collect();
        let rep = run_scenarios(&list).unwrap();
        let cells = table_cells(&rep.comparison);
        assert_eq!(cells.len(), 3);
        assert_eq!(cells[1].len(), table_header().len());
        assert_eq!(cells[1][0], "h200-hgx");
        assert_eq!(
            cells[1][3],
            latency_text(rep.scenarios[1].report.pareto[0].latency_ms() * 1e6)
        );
    }

    #[test]
    fn styles_differ_in_colour_and_shape() {
        let all: Vec<(Rgba, Marker)> = (0..MAX_SCENARIOS).map(style).collect();
        for i in 0..all.len() {
            for j in i + 1..all.len() {
                assert_ne!(all[i].0, all[j].0);
                assert_ne!(all[i].1, all[j].1);
            }
        }
    }
}
