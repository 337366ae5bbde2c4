//! Measurements and calibration as the explorer's settings hold them: one text line per
//! measurement (`--calibrate`'s form), the fitted summary's words and cells, export names.

use super::*;

/// A calibration in one line: "calibrated to 2 measurements: compute, memory and
/// network ×1.84 (one common factor); fit error 45.9 % → 0.3 %".
pub fn calibration_text(c: &Calibration) -> String {
    let n = c.rows.len();
    let plural = if n == 1 { "" } else { "s" };
    let t = c.scales;
    let scales = if c.fitted == 1 {
        format!(
            "compute, memory and network ×{:.3} (one common factor)",
            t.compute
        )
    } else {
        let names = ["compute", "memory", "network"];
        let loose: Vec<&str> = names
            .iter()
            .zip(c.determined)
            .filter(|(_, d)| !d)
            .map(|(n, _)| *n)
            .collect();
        let mut text = format!(
            "compute ×{:.3}, memory ×{:.3}, network ×{:.3}",
            t.compute, t.memory, t.network
        );
        if !loose.is_empty() {
            text.push_str(&format!(
                " ({} not determined by these measurements)",
                loose.join(", ")
            ));
        }
        text
    };
    format!(
        "calibrated to {n} measurement{plural}: {scales}; fit error {:.1} % → {:.1} %",
        c.error_before_pct, c.error_after_pct
    )
}

/// The file name (without extension) of the explorer's exports:
/// `shardscope-explore-MODEL-MACHINE`, with `-calibrated` when the model was calibrated.
pub fn export_stem(report: Option<&ExploreReport>) -> String {
    match report {
        None => "shardscope-explore".to_string(),
        Some(r) => format!(
            "shardscope-explore-{}-{}{}",
            r.header.model,
            r.header.machine,
            if r.calibration.is_some() {
                "-calibrated"
            } else {
                ""
            }
        ),
    }
}

/// The summary's figure for a calibration: the common factor ("×1.84") or how many
/// factors were fitted ("3 factors").
pub fn calibration_stat(c: &Calibration) -> String {
    if c.fitted == 1 {
        format!("×{:.2}", c.scales.compute)
    } else {
        format!("{} factors", c.fitted)
    }
}

/// A signed error in per cent, one decimal ("+12.5 %", "−3.0 %", "0.0 %").
pub fn signed_pct(pct: f64) -> String {
    let rounded = (pct * 10.0).round() / 10.0;
    if rounded > 0.0 {
        format!("+{rounded:.1} %")
    } else if rounded < 0.0 {
        format!("−{:.1} %", -rounded)
    } else {
        "0.0 %".to_string()
    }
}

/// The cells of a calibration table row: configuration (items spaced, so it wraps
/// between them), measured, predicted before,
/// its error, predicted after, its error.
pub fn calibration_cells(row: &CalibrationRow) -> [String; 6] {
    [
        row.config.replace(',', ", "),
        latency_text(row.measured_latency_ms * 1e6),
        latency_text(row.predicted_before_ms * 1e6),
        signed_pct(row.error_before_pct),
        latency_text(row.predicted_after_ms * 1e6),
        signed_pct(row.error_after_pct),
    ]
}
