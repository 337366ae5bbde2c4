//! An event table built field by field (what the Python binding does with events it is
//! handed) attributes exactly as the loaded trace it was copied from.

use shardscope_attribution::attribution::{attribute, AttributionConfig, Preset};
use shardscope_trace::trace::external::{EventTable, ExternalEvent};
use shardscope_trace::trace::{load, synthetic, LoadOptions, MemFs};

/// A loaded trace rebuilt field by field attributes exactly as loaded.
#[test]
fn a_trace_rebuilt_from_its_fields_attributes_the_same() {
    let mut bytes = Vec::new();
    assert!(synthetic::write_trace(&mut bytes, 4, 400).is_ok());
    let mut fs = MemFs::new();
    fs.insert("trace.json", bytes);
    let paths = ["trace.json".to_string()];
    let outcome = load(&fs, &paths, &LoadOptions::default(), &mut |_| {});
    assert!(outcome.errors.is_empty(), "{:?}", outcome.errors);
    let dataset = outcome.dataset;
    let loaded = dataset.selected_events();
    let mut table = EventTable::with_capacity(loaded.len());
    for (event, source) in loaded.iter() {
        table.push(&ExternalEvent {
            timestamp_ns: event.timestamp_ns,
            rank: source.rank,
            local_rank: source.local_rank,
            world_size: source.world_size,
            event_type: dataset.strings.str(source.event_type),
            marker: source.is_marker(),
            session_id: dataset.strings.get(event.session),
            context: dataset.strings.get(event.context),
            counters: event.counters(),
        });
    }
    let config = AttributionConfig::preset(Preset::Medium);
    let expected = attribute(loaded, &config, None);
    assert!(!expected.is_empty(), "the synthetic trace has spikes");
    assert_eq!(attribute(table.events(), &config, None), expected);
}
