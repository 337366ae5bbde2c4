//! The reasons stormlog gives for an interval, as one closed vocabulary.

use serde::{Deserialize, Serialize};

/// Why an interval was attributed to collective communication. Serialised as stormlog's
/// strings (`cross_rank_synchrony`, …); the variants are in the strings' alphabetical
/// order, so sorting codes sorts them as stormlog sorts its strings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReasonCode {
    AllocatorDeviceDivergence,
    CrossRankSynchrony,
    GapSpikeStatisticalOutlier,
    MarkerCollectiveToken,
    MarkerSpikeOverlap,
    SingleRankOnly,
    WeakMarkerSignal,
}

impl ReasonCode {
    /// Every code, in sort order.
    pub const ALL: [ReasonCode; 7] = [
        ReasonCode::AllocatorDeviceDivergence,
        ReasonCode::CrossRankSynchrony,
        ReasonCode::GapSpikeStatisticalOutlier,
        ReasonCode::MarkerCollectiveToken,
        ReasonCode::MarkerSpikeOverlap,
        ReasonCode::SingleRankOnly,
        ReasonCode::WeakMarkerSignal,
    ];

    /// stormlog's string for the code.
    pub fn as_str(self) -> &'static str {
        match self {
            ReasonCode::AllocatorDeviceDivergence => "allocator_device_divergence",
            ReasonCode::CrossRankSynchrony => "cross_rank_synchrony",
            ReasonCode::GapSpikeStatisticalOutlier => "gap_spike_statistical_outlier",
            ReasonCode::MarkerCollectiveToken => "marker_collective_token",
            ReasonCode::MarkerSpikeOverlap => "marker_spike_overlap",
            ReasonCode::SingleRankOnly => "single_rank_only",
            ReasonCode::WeakMarkerSignal => "weak_marker_signal",
        }
    }

    /// The code a string of stormlog's names, if it names one.
    pub fn from_name(name: &str) -> Option<ReasonCode> {
        ReasonCode::ALL.into_iter().find(|c| c.as_str() == name)
    }

    /// The codes joined by `separator` (the CSV's `;`, the table's `, `).
    pub fn join(codes: &[ReasonCode], separator: &str) -> String {
        let names: Vec<&str> = codes.iter().map(|c| c.as_str()).collect();
        names.join(separator)
    }
}

impl std::fmt::Display for ReasonCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_sort_as_their_strings_and_serialise_as_them() {
        let mut names: Vec<&str> = ReasonCode::ALL.iter().map(|c| c.as_str()).collect();
        let in_code_order = names.clone();
        names.sort_unstable();
        assert_eq!(names, in_code_order);
        for code in ReasonCode::ALL {
            assert_eq!(
                serde_json::to_string(&code).ok(),
                Some(format!("\"{code}\""))
            );
            assert_eq!(ReasonCode::from_name(code.as_str()), Some(code));
        }
        assert_eq!(ReasonCode::from_name("marker_overlap"), None);
    }
}
