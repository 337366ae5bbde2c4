//! One attributed interval flattened for display: plain 64-bit times, stormlog's
//! [`Evidence`] as it is, and the phase as a [`PhaseLabel`]. This is what the page's table, detail
//! panel and timeline bands show, and what the worker sends it.

use serde::{Deserialize, Serialize};

use crate::attribution::{AttributionResult, Classification, Evidence, ReasonCode};
use crate::phases::PhaseAttribution;

/// Where an interval happened, as far as phase attribution can tell.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum PhaseLabel {
    /// One phase path (`train / forward`).
    Unique(String),
    /// Several candidate paths; stormlog would not choose.
    Ambiguous(Vec<String>),
}

impl PhaseLabel {
    /// The label of a phase attribution: its path, its candidates when ambiguous, or
    /// `None` when no phase was active.
    pub fn of(attribution: &PhaseAttribution) -> Option<PhaseLabel> {
        match (
            &attribution.phase_path,
            attribution.phase_resolution.as_str(),
        ) {
            (Some(path), _) => Some(PhaseLabel::Unique(path.clone())),
            (None, "ambiguous") => Some(PhaseLabel::Ambiguous(attribution.phase_paths.clone())),
            _ => None,
        }
    }

    /// The one text every output uses: the path, or `(ambiguous) a | b`.
    pub fn label(&self) -> String {
        match self {
            PhaseLabel::Unique(path) => path.clone(),
            PhaseLabel::Ambiguous(paths) => format!("(ambiguous) {}", paths.join(" | ")),
        }
    }
}

/// The phase label of a result (`None` without phases or outside any phase).
pub fn phase_label(result: &AttributionResult) -> Option<PhaseLabel> {
    result
        .phase_attribution
        .as_ref()
        .and_then(Option::as_ref)
        .and_then(PhaseLabel::of)
}

/// One interval, flattened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IntervalRow {
    pub rank: i64,
    pub interval_start_ns: i64,
    pub interval_end_ns: i64,
    pub classification: Classification,
    /// Rounded to 3 places, as stormlog reports it.
    pub confidence: f64,
    pub reason_codes: Vec<ReasonCode>,
    /// stormlog's evidence for the interval, unchanged.
    #[serde(flatten)]
    pub evidence: Evidence,
    /// With phases on: the phase the spike happened in.
    pub phase: Option<PhaseLabel>,
}

/// An `i128` time as `i64`, saturating (padding cannot push real times past `i64`).
fn saturate(v: i128) -> i64 {
    i64::try_from(v).unwrap_or(if v < 0 { i64::MIN } else { i64::MAX })
}

impl IntervalRow {
    /// A row for tests: `rank`'s interval `[start_ns, end_ns]` of `class`, confidence 0.9,
    /// 2 of 2 ranks in sync, a 100-byte gap (override fields with `..`).
    /// Public for the view's tests in `shardscope-view`; nothing else calls it.
    #[doc(hidden)]
    pub fn for_test(rank: i64, start_ns: i64, end_ns: i64, class: Classification) -> IntervalRow {
        IntervalRow {
            rank,
            interval_start_ns: start_ns,
            interval_end_ns: end_ns,
            classification: class,
            confidence: 0.9,
            reason_codes: vec![],
            evidence: Evidence {
                marker_hits: 1,
                synchronized_ranks: 2,
                expected_world_size: 2,
                synchrony_ratio: 1.0,
                peak_gap_bytes: 100,
                peak_gap_ratio: None,
                robust_zscore: 5.0,
            },
            phase: None,
        }
    }

    pub fn from_result(result: &AttributionResult) -> IntervalRow {
        IntervalRow {
            rank: result.rank,
            interval_start_ns: saturate(result.interval_start_ns),
            interval_end_ns: saturate(result.interval_end_ns),
            classification: result.classification,
            confidence: result.confidence,
            reason_codes: result.reason_codes.clone(),
            evidence: result.evidence.clone(),
            phase: phase_label(result),
        }
    }

    pub fn duration_ns(&self) -> i64 {
        self.interval_end_ns.saturating_sub(self.interval_start_ns)
    }
}

/// Rows as bytes for `postMessage` (see [`crate::pack`]); [`unpack_rows`] reverses it
/// exactly (every `f64` bit for bit). A reason code is one byte; repeated phase paths
/// are stored once.
pub fn pack_rows(rows: &[IntervalRow]) -> Vec<u8> {
    use crate::pack::Writer;
    /// Writes `items` as ids into `table`, adding the strings not yet in it.
    fn list<'r>(w: &mut Writer, items: &'r [String], table: &mut Table<'r>) {
        w.u32(items.len() as u32);
        for item in items {
            let next = table.1.len() as u32;
            let id = *table.0.entry(item).or_insert(next);
            if id == next {
                table.1.push(item);
            }
            w.u32(id);
        }
    }
    type Table<'r> = (std::collections::HashMap<&'r str, u32>, Vec<&'r str>);
    let mut table: Table<'_> = Default::default();
    let mut body = Writer::with_capacity(rows.len() * 120);
    for r in rows {
        for v in [r.rank, r.interval_start_ns, r.interval_end_ns] {
            body.i64(v);
        }
        let class = Classification::ALL
            .iter()
            .position(|c| *c == r.classification)
            .unwrap_or(0);
        body.u8(class as u8);
        body.f64(r.confidence);
        body.u32(r.reason_codes.len() as u32);
        for code in &r.reason_codes {
            // Its place in `ReasonCode::ALL`, as the classification's in its `ALL`.
            let index = ReasonCode::ALL.iter().position(|c| c == code).unwrap_or(0);
            body.u8(index as u8);
        }
        let e = &r.evidence;
        body.u64(e.marker_hits);
        body.u64(e.synchronized_ranks);
        body.i64(e.expected_world_size);
        body.f64(e.synchrony_ratio);
        body.i64(e.peak_gap_bytes);
        body.u8(u8::from(e.peak_gap_ratio.is_some()));
        body.f64(e.peak_gap_ratio.unwrap_or(0.0));
        body.f64(e.robust_zscore);
        match &r.phase {
            None => body.u8(0),
            Some(PhaseLabel::Unique(path)) => {
                body.u8(1);
                list(&mut body, std::slice::from_ref(path), &mut table);
            }
            Some(PhaseLabel::Ambiguous(paths)) => {
                body.u8(2);
                list(&mut body, paths, &mut table);
            }
        }
    }
    let mut out = Writer::with_capacity(1024);
    out.u32(table.1.len() as u32);
    for s in &table.1 {
        out.str(s);
    }
    out.u32(rows.len() as u32);
    let mut bytes = out.into_bytes();
    bytes.extend_from_slice(&body.into_bytes());
    bytes
}

/// The rows [`pack_rows`] wrote; `None` for bytes it did not write.
pub fn unpack_rows(bytes: &[u8]) -> Option<Vec<IntervalRow>> {
    use crate::pack::{Malformed, Reader};
    let mut r = Reader::new(bytes);
    let read = |r: &mut Reader<'_>| -> Result<Vec<IntervalRow>, Malformed> {
        let table = (0..r.count(4)?)
            .map(|_| r.str())
            .collect::<Result<Vec<String>, _>>()?;
        let list = |r: &mut Reader<'_>| -> Result<Vec<String>, Malformed> {
            let n = r.count(4)?;
            let mut items = Vec::with_capacity(n);
            for _ in 0..n {
                items.push(table.get(r.u32()? as usize).cloned().ok_or(Malformed)?);
            }
            Ok(items)
        };
        let n = r.count(3 * 8 + 1 + 8 + 4 + 8 + 8 + 8 + 8 + 8 + 1 + 8 + 8 + 1)?;
        let mut rows = Vec::with_capacity(n);
        for _ in 0..n {
            let (rank, interval_start_ns, interval_end_ns) = (r.i64()?, r.i64()?, r.i64()?);
            let classification = *Classification::ALL.get(r.u8()? as usize).ok_or(Malformed)?;
            let confidence = r.f64()?;
            let reason_codes = (0..r.count(1)?)
                .map(|_| {
                    let index = r.u8()? as usize;
                    ReasonCode::ALL.get(index).copied().ok_or(Malformed)
                })
                .collect::<Result<Vec<_>, _>>()?;
            let (marker_hits, synchronized_ranks) = (r.u64()?, r.u64()?);
            let expected_world_size = r.i64()?;
            let synchrony_ratio = r.f64()?;
            let peak_gap_bytes = r.i64()?;
            let has_ratio = r.u8()? != 0;
            let ratio = r.f64()?;
            let robust_zscore = r.f64()?;
            let phase = match r.u8()? {
                0 => None,
                1 => Some(PhaseLabel::Unique(
                    list(r)?.into_iter().next().ok_or(Malformed)?,
                )),
                2 => Some(PhaseLabel::Ambiguous(list(r)?)),
                _ => return Err(Malformed),
            };
            rows.push(IntervalRow {
                rank,
                interval_start_ns,
                interval_end_ns,
                classification,
                confidence,
                reason_codes,
                evidence: Evidence {
                    marker_hits,
                    synchronized_ranks,
                    expected_world_size,
                    synchrony_ratio,
                    peak_gap_bytes,
                    peak_gap_ratio: has_ratio.then_some(ratio),
                    robust_zscore,
                },
                phase,
            });
        }
        Ok(rows)
    };
    let rows = read(&mut r).ok()?;
    r.is_empty().then_some(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_rows_come_back_exactly() {
        let row = |rank: i64, phase: Option<PhaseLabel>, ratio: Option<f64>| IntervalRow {
            rank,
            interval_start_ns: 1_700_000_000_000_000_123 + rank,
            interval_end_ns: i64::MAX,
            classification: Classification::ALL[rank as usize % 3],
            confidence: 0.1 + 0.2,
            reason_codes: ReasonCode::ALL[rank as usize % 7..].to_vec(),
            evidence: Evidence {
                marker_hits: u64::MAX,
                synchronized_ranks: 3,
                expected_world_size: 4,
                synchrony_ratio: -0.0,
                peak_gap_bytes: i64::MIN,
                peak_gap_ratio: ratio,
                robust_zscore: f64::MIN_POSITIVE,
            },
            phase,
        };
        let rows = vec![
            row(0, None, None),
            row(
                1,
                Some(PhaseLabel::Unique("train / forward".into())),
                Some(1e-300),
            ),
            row(
                2,
                Some(PhaseLabel::Ambiguous(vec!["a".into(), "b ü".into()])),
                Some(0.5),
            ),
            row(3, Some(PhaseLabel::Unique("a".into())), None),
        ];
        let bytes = pack_rows(&rows);
        let back = unpack_rows(&bytes).unwrap_or_default();
        assert_eq!(back, rows);
        assert_eq!(
            back[0].evidence.synchrony_ratio.to_bits(),
            (-0.0f64).to_bits()
        );
        assert_eq!(unpack_rows(&pack_rows(&[])), Some(Vec::new()));
        // Truncated or extended bytes are refused, never misread.
        for cut in 0..bytes.len() {
            assert_eq!(unpack_rows(&bytes[..cut]), None, "cut at {cut}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(unpack_rows(&longer), None);
    }
}
