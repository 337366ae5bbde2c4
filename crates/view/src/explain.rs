//! Plain-language explanations for the detail panel: what each of stormlog's reason
//! codes means, and each evidence field with its unit.

use crate::analysis::IntervalRow;
use crate::attribution::{AttributionConfig, Classification, OverrideId, ReasonCode};

use super::format::{format_bytes, format_duration};

/// How the settings column presents one override field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OverrideHelp {
    pub label: &'static str,
    /// The unit of the number typed (`bytes`, `ns`, ``), shown beside the input.
    pub unit: &'static str,
    /// One sentence: what raising the value does.
    pub help: &'static str,
    /// The number input's `step` (`1` for integers, `any` for ratios).
    pub step: &'static str,
}

/// The presentation of one of stormlog's override fields, from the one table of them
/// ([`crate::attribution::OVERRIDES`]).
pub fn override_help(id: OverrideId) -> OverrideHelp {
    let f = id.field();
    OverrideHelp {
        label: f.label,
        unit: f.unit,
        help: f.help,
        step: if f.is_int() { "1" } else { "any" },
    }
}

/// One sentence per reason code stormlog emits.
pub fn reason_sentence(code: ReasonCode) -> &'static str {
    match code {
        ReasonCode::AllocatorDeviceDivergence => {
            "Device memory rose while the allocator's reserve did not: memory outside \
             PyTorch's caching allocator, typical of NCCL communication buffers."
        }
        ReasonCode::GapSpikeStatisticalOutlier => {
            "The hidden-memory gap is a robust outlier for this rank: far above its \
             usual gap (median and MAD of the rank's samples)."
        }
        ReasonCode::MarkerCollectiveToken => {
            "An event naming a collective (all_reduce, all_gather, broadcast, NCCL, \
             barrier…) was recorded on this rank near the spike."
        }
        ReasonCode::MarkerSpikeOverlap => {
            "That collective marker lies within the marker window of the spike, so the \
             interval is widened to cover it."
        }
        ReasonCode::WeakMarkerSignal => {
            "No collective marker near the spike: the attribution rests on timing and \
             size alone (confidence lowered by 0.15)."
        }
        ReasonCode::CrossRankSynchrony => {
            "Other ranks spiked within the synchrony window at the same moment, as a \
             collective makes every participating rank do."
        }
        ReasonCode::SingleRankOnly => {
            "Only this rank spiked (or the run has one rank); a collective normally \
             involves several ranks (confidence lowered by 0.15)."
        }
    }
}

/// One evidence line: a label, the value with its unit, and what it means.
#[derive(Debug, Clone, PartialEq)]
pub struct EvidenceLine {
    pub field: &'static str,
    pub label: &'static str,
    pub value: String,
    pub meaning: String,
}

/// The evidence of `row`, explained against the settings that produced it.
pub fn evidence_lines(row: &IntervalRow, config: &AttributionConfig) -> Vec<EvidenceLine> {
    vec![
        EvidenceLine {
            field: "peak_gap_bytes",
            label: "Peak gap",
            value: format_bytes(row.evidence.peak_gap_bytes),
            meaning: format!(
                "device used − allocator reserved at the spike (significant from {})",
                format_bytes(config.min_gap_bytes)
            ),
        },
        EvidenceLine {
            field: "peak_gap_ratio",
            label: "Gap ratio",
            value: match row.evidence.peak_gap_ratio {
                Some(r) => format!("{:.2} % of device memory", r * 100.0),
                None => "unknown (no device total)".to_string(),
            },
            meaning: format!(
                "gap ÷ device total (significant from {:.1} %)",
                config.min_gap_ratio * 100.0
            ),
        },
        EvidenceLine {
            field: "robust_zscore",
            label: "Robust z-score",
            value: format!("{}", row.evidence.robust_zscore),
            meaning: format!(
                "distance from the rank's median gap in MADs (outlier from {})",
                config.robust_zscore_threshold
            ),
        },
        EvidenceLine {
            field: "synchronized_ranks",
            label: "Ranks in sync",
            value: format!(
                "{} of {} ({:.0} %)",
                row.evidence.synchronized_ranks,
                row.evidence.expected_world_size,
                row.evidence.synchrony_ratio * 100.0
            ),
            meaning: format!(
                "ranks that spiked within ±{} (synchrony from {:.0} %)",
                format_duration(config.synchrony_window_ns),
                config.min_synchrony_ratio * 100.0
            ),
        },
        EvidenceLine {
            field: "marker_hits",
            label: "Markers",
            value: row.evidence.marker_hits.to_string(),
            meaning: format!(
                "collective markers on this rank within ±{} of the spike",
                format_duration(config.marker_window_ns)
            ),
        },
        EvidenceLine {
            field: "interval",
            label: "Interval",
            value: format_duration(row.duration_ns()),
            meaning: format!(
                "spike and markers, padded by {} on each side",
                format_duration(config.interval_padding_ns)
            ),
        },
    ]
}

/// The class of an interval with its confidence band and the threshold that let it
/// through: "likely (0.60 – 0.80); reported because it reaches min_confidence 0.5
/// (medium preset)".
pub fn confidence_text(row: &IntervalRow, config: Option<&AttributionConfig>) -> String {
    let class = row.classification;
    let band = match class {
        Classification::CollectiveConfident => "≥ 0.80".to_string(),
        Classification::CollectiveLikely => "0.60 – 0.80".to_string(),
        Classification::CollectiveSuspect => "below 0.60".to_string(),
    };
    let threshold = config
        .map(|c| {
            format!(
                "; reported because it reaches min_confidence {} ({} preset{})",
                c.min_confidence,
                c.preset.as_str(),
                if (c.min_confidence - AttributionConfig::preset(c.preset).min_confidence).abs()
                    > 0.0
                {
                    ", overridden"
                } else {
                    ""
                }
            )
        })
        .unwrap_or_default();
    format!("{} ({band}){threshold}", class.short())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attribution::Preset;

    #[test]
    fn every_reason_code_stormlog_emits_has_its_own_sentence() {
        let mut seen = std::collections::BTreeSet::new();
        for code in ReasonCode::ALL {
            assert!(
                seen.insert(reason_sentence(code)),
                "{code} shares a sentence"
            );
        }
    }

    #[test]
    fn every_override_field_is_presented_with_a_unit() {
        for id in OverrideId::ALL {
            let (f, h) = (id.name(), override_help(id));
            assert!(!h.unit.is_empty() && !h.help.is_empty(), "{f}");
            // Medium: every ratio knob has a fractional value there.
            let integer = AttributionConfig::preset(Preset::Medium)
                .field_text(f)
                .is_some_and(|t| !t.contains('.'));
            assert_eq!(h.step == "1", integer, "{f}: step {}", h.step);
        }
    }

    #[test]
    fn confidence_text_names_the_band_and_the_threshold_that_let_it_through() {
        use crate::attribution::Preset;
        let mut row =
            crate::analysis::IntervalRow::from_result(&crate::attribution::AttributionResult {
                rank: 0,
                interval_start_ns: 0,
                interval_end_ns: 1,
                classification: Classification::CollectiveLikely,
                confidence: 0.7,
                reason_codes: Vec::new(),
                evidence: crate::attribution::Evidence {
                    marker_hits: 0,
                    synchronized_ranks: 1,
                    expected_world_size: 1,
                    synchrony_ratio: 1.0,
                    peak_gap_bytes: 0,
                    peak_gap_ratio: None,
                    robust_zscore: 0.0,
                },
                phase_attribution: None,
            });
        let medium = AttributionConfig::preset(Preset::Medium);
        let text = confidence_text(&row, Some(&medium));
        assert_eq!(
            text,
            format!(
                "likely (0.60 – 0.80); reported because it reaches min_confidence {} (medium preset)",
                medium.min_confidence
            )
        );
        let mut lowered = medium.clone();
        lowered.min_confidence = 0.1;
        assert!(confidence_text(&row, Some(&lowered)).ends_with("(medium preset, overridden)"));
        row.classification = Classification::CollectiveSuspect;
        assert_eq!(confidence_text(&row, None), "suspect (below 0.60)");
        row.classification = Classification::CollectiveConfident;
        assert_eq!(confidence_text(&row, None), "confident (≥ 0.80)");
    }
}
