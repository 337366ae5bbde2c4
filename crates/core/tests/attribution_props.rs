//! Properties of attribution that hold for any input: merged intervals per rank
//! are sorted and disjoint, input order does not matter, confidence is in [0, 1].

use proptest::prelude::*;
use shardscope_core::attribution::{attribute, AttributionConfig, Preset};
use shardscope_core::trace::event::{flags, Counters, Event, Events, Identity, Source, Sources};

const GIB: i64 = 1 << 30;

#[derive(Debug, Clone)]
struct Sample {
    rank: i64,
    step: i64,
    gap_mib: i64,
    marker: bool,
    total: bool,
}

/// A trace's events and their sources.
type Trace = (Vec<Event>, Sources);

fn events_from(samples: &[Sample], world_size: i64) -> Trace {
    let mut events = Vec::new();
    let mut sources = Sources::default();
    for s in samples {
        // Distinct timestamps: 100 ms steps, ranks 1 µs apart, markers 3 ms later.
        let ts = 1_700_000_000_000_000_000 + s.step * 100_000_000 + s.rank * 1_000;
        let sample = Source {
            rank: s.rank,
            local_rank: s.rank,
            world_size,
            event_type: 0,
            flags: flags::SAMPLE,
        };
        let identity = Identity {
            timestamp_ns: ts,
            session: 0,
            source: sources.intern(sample),
            context: u32::MAX,
        };
        let counters = Counters {
            allocator_allocated_bytes: Some(2 * GIB),
            allocator_reserved_bytes: Some(2 * GIB),
            device_used_bytes: Some(2 * GIB + s.gap_mib * (1 << 20)),
            device_total_bytes: s.total.then_some(16 * GIB),
        };
        events.push(Event::new(identity, counters, 0));
        if s.marker {
            let marker = sources.intern(Source {
                event_type: 1,
                flags: flags::MARKER,
                ..sample
            });
            let marker = Identity {
                timestamp_ns: ts + 3_000_000,
                source: marker,
                ..identity
            };
            events.push(Event::new(marker, Counters::default(), 0));
        }
    }
    (events, sources)
}

fn sample_strategy(ranks: i64) -> impl Strategy<Value = Sample> {
    (
        0..ranks,
        0i64..40,
        prop_oneof![8 => 0i64..40, 2 => 100i64..2000],
        prop::bool::weighted(0.15),
        prop::bool::weighted(0.8),
    )
        .prop_map(|(rank, step, gap_mib, marker, total)| Sample {
            rank,
            step,
            gap_mib,
            marker,
            total,
        })
}

fn trace_strategy() -> impl Strategy<Value = (Trace, Preset, u64)> {
    (1i64..6)
        .prop_flat_map(|ranks| {
            (
                Just(ranks),
                prop::collection::vec(sample_strategy(ranks), 10..200),
            )
        })
        .prop_map(|(ranks, mut samples)| {
            // One sample per (rank, step): timestamps stay distinct.
            samples.sort_by_key(|s| (s.rank, s.step));
            samples.dedup_by_key(|s| (s.rank, s.step));
            events_from(&samples, ranks)
        })
        .prop_flat_map(|events| {
            (
                Just(events),
                prop_oneof![Just(Preset::Low), Just(Preset::Medium), Just(Preset::High)],
                any::<u64>(),
            )
        })
}

fn shuffled<T: Clone>(items: &[T], seed: u64) -> Vec<T> {
    let mut out = items.to_vec();
    let mut state = seed | 1;
    for i in (1..out.len()).rev() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        out.swap(i, (state % (i as u64 + 1)) as usize);
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn merged_intervals_are_sorted_and_disjoint_per_rank((events, preset, _seed) in trace_strategy()) {
        let config = AttributionConfig::preset(preset);
        let results = attribute(Events::new(&events.0, &events.1), &config, None);
        for pair in results.windows(2) {
            prop_assert!(pair[0].rank <= pair[1].rank, "ranks ascend");
            if pair[0].rank == pair[1].rank {
                prop_assert!(pair[0].interval_end_ns < pair[1].interval_start_ns, "disjoint: {:?}", pair);
            }
        }
        for r in &results {
            prop_assert!(r.interval_start_ns < r.interval_end_ns);
        }
    }

    #[test]
    fn input_order_does_not_matter((events, preset, seed) in trace_strategy()) {
        let config = AttributionConfig::preset(preset);
        let (list, sources) = &events;
        let expected = attribute(Events::new(list, sources), &config, None);
        let reordered = attribute(Events::new(&shuffled(list, seed), sources), &config, None);
        prop_assert_eq!(expected, reordered);
    }

    #[test]
    fn confidence_stays_in_unit_interval_and_above_the_floor((events, preset, _seed) in trace_strategy()) {
        let config = AttributionConfig::preset(preset);
        for r in attribute(Events::new(&events.0, &events.1), &config, None) {
            prop_assert!((0.0..=1.0).contains(&r.confidence), "{}", r.confidence);
            prop_assert!(r.confidence >= config.min_confidence);
            prop_assert!((0.0..=1.0).contains(&r.evidence.synchrony_ratio));
        }
    }
}

#[test]
fn the_generator_produces_attributions() {
    // Guard against a vacuous property: a synchronized spike with markers on every rank.
    let mut samples = Vec::new();
    for rank in 0..4 {
        for step in 0..20 {
            samples.push(Sample {
                rank,
                step,
                gap_mib: if step == 10 { 1536 } else { step % 5 },
                marker: step == 10,
                total: true,
            });
        }
    }
    let (events, sources) = events_from(&samples, 4);
    let results = attribute(
        Events::new(&events, &sources),
        &AttributionConfig::preset(Preset::Medium),
        None,
    );
    assert_eq!(results.len(), 4);
    assert!(results
        .iter()
        .all(|r| r.confidence == 1.0 && r.evidence.synchronized_ranks == 4));
}
