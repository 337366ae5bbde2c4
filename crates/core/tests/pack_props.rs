//! Every binary payload that crosses the worker boundary ([`shardscope_core::pack`]):
//! written then read gives the same value back, bit for bit (NaN included), and a cut
//! or padded buffer is refused, never misread.

use proptest::prelude::*;
use shardscope_core::analysis::row::{pack_rows, unpack_rows};
use shardscope_core::analysis::{IntervalRow, PhaseLabel};
use shardscope_core::attribution::{Classification, Evidence, ReasonCode};
use shardscope_core::view::explore::Points;
use shardscope_core::view::lod::{overview_from_bytes, overview_to_bytes, LaneWindow, WindowData};

/// Any `f32`, NaN and infinities included.
fn any_f32() -> impl Strategy<Value = f32> {
    prop_oneof![
        any::<f32>(),
        Just(f32::NAN),
        Just(f32::INFINITY),
        Just(-0.0)
    ]
}

/// Bits, so NaN equals NaN.
fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|f| f.to_bits()).collect()
}

fn window() -> impl Strategy<Value = WindowData> {
    (0u32..40, 0usize..5).prop_flat_map(|(columns, lanes)| {
        let n = columns as usize;
        let lane = (
            any::<i64>(),
            prop::collection::vec(any_f32(), n),
            prop::collection::vec(any_f32(), n),
            prop::collection::vec(any::<u16>(), n),
            any::<i64>(),
            any::<i64>(),
            any::<u64>(),
        )
            .prop_map(|(rank, gap_min, gap_max, markers, floor, peak, samples)| {
                LaneWindow {
                    rank,
                    gap_min,
                    gap_max,
                    markers,
                    gap_floor_bytes: floor,
                    gap_peak_bytes: peak,
                    window_samples: samples,
                }
            });
        (
            any::<i64>(),
            any::<i64>(),
            prop::collection::vec(lane, lanes),
        )
            .prop_map(move |(start_ns, end_ns, lanes)| WindowData {
                start_ns,
                end_ns,
                columns,
                lanes,
            })
    })
}

fn same_window(a: &WindowData, b: &WindowData) -> bool {
    (a.start_ns, a.end_ns, a.columns, a.lanes.len())
        == (b.start_ns, b.end_ns, b.columns, b.lanes.len())
        && a.lanes.iter().zip(&b.lanes).all(|(x, y)| {
            (
                x.rank,
                x.gap_floor_bytes,
                x.gap_peak_bytes,
                x.window_samples,
                &x.markers,
            ) == (
                y.rank,
                y.gap_floor_bytes,
                y.gap_peak_bytes,
                y.window_samples,
                &y.markers,
            ) && bits(&x.gap_min) == bits(&y.gap_min)
                && bits(&x.gap_max) == bits(&y.gap_max)
        })
}

fn points() -> impl Strategy<Value = Points> {
    (0usize..30).prop_flat_map(|n| {
        (
            prop::collection::vec(any::<f64>().prop_filter("not NaN", |v| !v.is_nan()), n),
            prop::collection::vec(any::<u32>(), n),
            prop::collection::vec(-1e6f32..1e6, n),
            prop::collection::vec(any::<u8>(), n),
            prop::collection::vec(any::<[u8; 9]>(), n),
            prop::collection::vec(-40f32..40.0, n),
            prop::collection::vec(-40f32..40.0, n),
            Just((0..n as u32).rev().collect::<Vec<u32>>()),
        )
            .prop_map(
                |(latency_ns, pes, efficiency, flags, knobs, lg_pes, lg_latency, order)| Points {
                    latency_ns,
                    pes,
                    efficiency,
                    flags,
                    knobs,
                    lg_pes,
                    lg_latency,
                    order,
                },
            )
    })
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("marker_overlap".to_string()),
        Just("train / forward".to_string()),
        "[ -~é中]{0,10}"
    ]
}

fn row() -> impl Strategy<Value = IntervalRow> {
    let phase = prop_oneof![
        Just(None),
        text().prop_map(|p| Some(PhaseLabel::Unique(p))),
        prop::collection::vec(text(), 0..3).prop_map(|p| Some(PhaseLabel::Ambiguous(p))),
    ];
    (
        (any::<i64>(), any::<i64>(), any::<i64>()),
        prop::sample::select(Classification::ALL.to_vec()),
        any::<f64>(),
        prop::collection::vec(prop::sample::select(ReasonCode::ALL.to_vec()), 0..4),
        (any::<u64>(), any::<u64>(), any::<i64>()),
        (
            any::<f64>(),
            any::<i64>(),
            prop::option::of(any::<f64>()),
            any::<f64>(),
        ),
        phase,
    )
        .prop_map(
            |(
                (rank, interval_start_ns, interval_end_ns),
                classification,
                confidence,
                reason_codes,
                (marker_hits, synchronized_ranks, expected_world_size),
                (synchrony_ratio, peak_gap_bytes, peak_gap_ratio, robust_zscore),
                phase,
            )| IntervalRow {
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
                    peak_gap_ratio,
                    robust_zscore,
                },
                phase,
            },
        )
}

/// Rows compared through their packed bytes' source values, `f64` by bits.
fn row_bits(r: &IntervalRow) -> String {
    format!(
        "{:?} {:x} {:x} {:?} {:x} {:?}",
        IntervalRow {
            confidence: 0.0,
            evidence: Evidence {
                synchrony_ratio: 0.0,
                peak_gap_ratio: None,
                robust_zscore: 0.0,
                ..r.evidence
            },
            ..r.clone()
        },
        r.confidence.to_bits(),
        r.evidence.synchrony_ratio.to_bits(),
        r.evidence.peak_gap_ratio.map(f64::to_bits),
        r.evidence.robust_zscore.to_bits(),
        r.phase,
    )
}

proptest! {
    #[test]
    fn windows_come_back_bit_for_bit(w in window(), cut in 1usize..8) {
        let bytes = w.to_bytes();
        let back = WindowData::from_bytes(&bytes);
        prop_assert!(back.as_ref().is_some_and(|b| same_window(&w, b)), "{w:?} came back as {back:?}");
        prop_assert_eq!(WindowData::from_bytes(&bytes[..bytes.len().saturating_sub(cut)]), None);
        let mut padded = bytes.clone();
        padded.push(0);
        prop_assert_eq!(WindowData::from_bytes(&padded), None);
    }

    #[test]
    fn overviews_come_back_bit_for_bit(v in prop::collection::vec(any_f32(), 0..50)) {
        let bytes = overview_to_bytes(&v);
        prop_assert_eq!(bytes.len(), v.len() * 4);
        let back = overview_from_bytes(&bytes).unwrap_or_default();
        prop_assert_eq!(bits(&back), bits(&v));
        if !bytes.is_empty() {
            prop_assert_eq!(overview_from_bytes(&bytes[1..]), None);
        }
    }

    #[test]
    fn points_come_back_exactly(p in points(), cut in 1usize..8) {
        let bytes = p.to_bytes();
        prop_assert_eq!(bytes.len(), 4 + p.len() * 38);
        prop_assert_eq!(Points::from_bytes(&bytes), Some(p.clone()));
        prop_assert_eq!(Points::from_bytes(&bytes[..bytes.len().saturating_sub(cut)]), None);
        let mut padded = bytes.clone();
        padded.push(0);
        prop_assert_eq!(Points::from_bytes(&padded), None);
    }

    #[test]
    fn rows_come_back_bit_for_bit(rows in prop::collection::vec(row(), 0..6), cut in 1usize..8) {
        let bytes = pack_rows(&rows);
        let back = unpack_rows(&bytes);
        prop_assert!(back.is_some(), "{rows:?} did not come back");
        let back = back.unwrap_or_default();
        prop_assert_eq!(
            back.iter().map(row_bits).collect::<Vec<_>>(),
            rows.iter().map(row_bits).collect::<Vec<_>>()
        );
        prop_assert_eq!(unpack_rows(&bytes[..bytes.len().saturating_sub(cut)]), None);
    }
}

/// A window whose lanes hold fewer values than its columns is padded, not misaligned.
#[test]
fn short_lanes_are_padded_to_the_columns() {
    let w = WindowData {
        start_ns: 0,
        end_ns: 10,
        columns: 3,
        lanes: vec![LaneWindow {
            rank: 2,
            gap_min: vec![1.0],
            gap_max: vec![2.0, 3.0],
            markers: vec![],
            gap_floor_bytes: 0,
            gap_peak_bytes: 3,
            window_samples: 4,
        }],
    };
    let back = WindowData::from_bytes(&w.to_bytes()).unwrap_or_else(|| panic!("refused"));
    let lane = &back.lanes[0];
    assert_eq!(bits(&lane.gap_max), bits(&[2.0, 3.0, f32::NAN]));
    assert_eq!(bits(&lane.gap_min), bits(&[1.0, f32::NAN, f32::NAN]));
    assert_eq!(lane.markers, vec![0, 0, 0]);
}
