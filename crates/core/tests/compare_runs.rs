//! Two runs on one axis: the shift that draws run B's lanes on run A's time, on the clock
//! fixtures of tests/fixtures/attribution_edges (one run recorded with perfect clocks,
//! the same run with rank clocks 0, +180, -250 and +40 ms off).

use std::path::PathBuf;

use shardscope_core::analysis::compare::{b_shift_ns, compare_attributions, CompareAxis, RunFacts};
use shardscope_core::analysis::{analyze, Analysis, AnalyzeSettings};
use shardscope_core::trace::StdFs;

fn load(name: &str, align_clocks: bool) -> Analysis {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/attribution_edges/traces")
        .join(name);
    let settings = AnalyzeSettings {
        align_clocks,
        ..AnalyzeSettings::default()
    };
    let paths = [path.to_string_lossy().into_owned()];
    analyze(&StdFs, &paths, &settings, false, &mut |_| {})
}

#[test]
fn b_is_shifted_by_the_difference_of_the_starts_or_of_the_chosen_collective() {
    let (a, b) = (
        load("clocks_perfect.json", false),
        load("clocks_skewed.json", false),
    );
    let facts = |x: &Analysis| RunFacts::of(&x.dataset.session_events(x.dataset.selected));
    let (ea, eb) = (facts(&a), facts(&b));
    assert_eq!(ea.ranks.len(), 4);
    assert_eq!(ea.anchor_markers_ns.len(), eb.anchor_markers_ns.len());
    assert!(ea.anchor_markers_ns.len() > 5);
    // Rank 2's clock runs 250 ms behind, so run B "starts" 250 ms early (less the few
    // microseconds by which the recorder's first samples differ between the two runs).
    let shift = b_shift_ns(&ea, &eb, CompareAxis::FromStart).unwrap_or_default();
    assert!((shift - 250_000_000).abs() <= 10_000, "{shift}");
    // Rank 0's clock is the true one in both runs: its collectives coincide.
    for n in [0, 1, 5] {
        assert_eq!(
            b_shift_ns(&ea, &eb, CompareAxis::AtCollective(n)),
            Some(0),
            "{n}"
        );
    }
    assert_eq!(
        b_shift_ns(&ea, &eb, CompareAxis::AtCollective(100_000)),
        None
    );
    assert_eq!(b_shift_ns(&ea, &ea, CompareAxis::FromStart), Some(0));
}

#[test]
fn the_same_run_compares_equal_to_itself_rank_by_rank() {
    let a = load("clocks_skewed.json", true);
    let attribution = a.attribution.as_ref().ok();
    let Some(attribution) = attribution else {
        panic!("{:?}", a.attribution)
    };
    let c = compare_attributions((&a.dataset, attribution), (&a.dataset, attribution));
    assert_eq!(c.ranks.len(), 4);
    assert!(c.ranks.iter().all(|r| r.a == r.b && r.a.is_some()));
    assert_eq!(c.a, c.b);
    assert!(c.a.aligned_clocks);
    assert_eq!(c.a.stats.confident, 12);
}

#[test]
fn attributing_through_the_clock_equals_attributing_mapped_events() {
    use shardscope_core::analysis::{on_reference_clock, session_clocks};
    use shardscope_core::attribution::{attribute, attribute_on_clock, AttributionConfig, Preset};
    use shardscope_core::clocks::EventClock;
    use shardscope_core::trace::event::Events;
    let skewed = load("clocks_skewed.json", false);
    let events = skewed.dataset.session_events(skewed.dataset.selected);
    let alignment = session_clocks(&events).unwrap_or_else(|e| panic!("{e}"));
    let mapped = on_reference_clock(events, &alignment);
    for preset in Preset::ALL {
        let config = AttributionConfig::preset(preset);
        let through_clock = attribute_on_clock(
            events,
            &config,
            None,
            &EventClock::on_reference(&events, &alignment),
        );
        let on_mapped = attribute(Events::new(&mapped, events.sources), &config, None);
        assert!(!through_clock.is_empty());
        assert_eq!(through_clock, on_mapped, "{preset:?}");
        assert_ne!(
            through_clock,
            attribute(events, &config, None),
            "the skew matters"
        );
    }
}
