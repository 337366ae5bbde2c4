//! Events that were not read from a file: stormlog's own `TelemetryEvent` objects handed
//! to the Python drop-in (`shardscope.collective_attribution`), one field at a time.
//!
//! The binding reads each object's attributes and decides whether it is a collective
//! marker ([`crate::trace::marker::contains_collective_token`] over its event type,
//! context and metadata strings); this table interns the rest exactly as the file
//! loader does, so attribution sees the same [`Events`] either way.

use super::event::{flags, Counters, Event, Events, Identity, Source, Sources, Strings, NO_STR};
use crate::json::py_strip;

/// One event's fields as stormlog's `TelemetryEventLike` holds them.
#[derive(Debug, Clone, Copy)]
pub struct ExternalEvent<'a> {
    pub timestamp_ns: i64,
    pub rank: i64,
    pub local_rank: i64,
    pub world_size: i64,
    /// `str(event.event_type)`.
    pub event_type: &'a str,
    /// A collective token in the event type, context or metadata strings.
    pub marker: bool,
    /// `getattr(event, "session_id", None)` (v2 events have none).
    pub session_id: Option<&'a str>,
    pub context: Option<&'a str>,
    pub counters: Counters,
}

/// Events built one by one, with their interned strings and sources.
#[derive(Debug, Default, Clone)]
pub struct EventTable {
    pub strings: Strings,
    pub sources: Sources,
    pub events: Vec<Event>,
}

impl EventTable {
    pub fn with_capacity(events: usize) -> EventTable {
        EventTable {
            events: Vec::with_capacity(events),
            ..EventTable::default()
        }
    }

    /// Adds `e` at the end, classified as the file loader classifies records.
    pub fn push(&mut self, e: &ExternalEvent<'_>) {
        let mut event_flags = 0;
        if py_strip(e.event_type).eq_ignore_ascii_case("sample") {
            event_flags |= flags::SAMPLE;
        }
        if e.marker {
            event_flags |= flags::MARKER;
        }
        if e.event_type == "stop" {
            event_flags |= flags::STOP;
        }
        let source = self.sources.intern(Source {
            rank: e.rank,
            local_rank: e.local_rank,
            world_size: e.world_size,
            event_type: self.strings.intern(e.event_type),
            flags: event_flags,
        });
        let session = e.session_id.map_or(NO_STR, |s| self.strings.intern(s));
        let context = e.context.map_or(NO_STR, |s| self.strings.intern(s));
        self.events.push(Event::new(
            Identity {
                timestamp_ns: e.timestamp_ns,
                session,
                source,
                context,
            },
            e.counters,
            0,
        ));
    }

    pub fn events(&self) -> Events<'_> {
        Events::new(&self.events, &self.sources)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_and_stop_are_classified_like_records() {
        let mut table = EventTable::default();
        for event_type in [" Sample\u{1f}", "stop", "STOP", "collective"] {
            table.push(&ExternalEvent {
                timestamp_ns: 1,
                rank: 0,
                local_rank: 0,
                world_size: 1,
                event_type,
                marker: event_type == "collective",
                session_id: None,
                context: None,
                counters: Counters::default(),
            });
        }
        let kinds: Vec<(bool, bool, bool)> = table
            .events()
            .iter()
            .map(|(_, s)| (s.is_sample(), s.is_stop(), s.is_marker()))
            .collect();
        assert_eq!(
            kinds,
            [
                (true, false, false),
                (false, true, false),
                (false, false, false),
                (false, false, true)
            ]
        );
    }
}
