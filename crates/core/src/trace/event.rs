//! The compact, per-event storage every loaded trace is kept in.
//!
//! One [`Event`] is 88 bytes whatever the record looked like: the fields
//! attribution, session selection, phase replay and the distributed merge need,
//! with strings interned in a [`Strings`] table. Metadata is not kept: what
//! attribution needs of it (is this a collective marker? a phase boundary?) is
//! decided while parsing.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// FNV-1a: interned strings are short and trusted to be few, so a simple fast
/// hash beats the default SipHash here.
#[derive(Default)]
pub struct Fnv(u64);

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for &b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }
}

/// Index into a [`Strings`] table.
pub type StrId = u32;

/// `StrId` meaning "no string" (Python `None`).
pub const NO_STR: StrId = u32::MAX;

/// An interning table: each distinct string is stored once.
#[derive(Debug, Default, Clone)]
pub struct Strings {
    ids: HashMap<Box<str>, StrId, BuildHasherDefault<Fnv>>,
    values: Vec<Box<str>>,
}

impl Strings {
    pub fn intern(&mut self, s: &str) -> StrId {
        if let Some(&id) = self.ids.get(s) {
            return id;
        }
        let id = self.values.len() as StrId;
        self.values.push(s.into());
        self.ids.insert(s.into(), id);
        id
    }

    /// Interns through a one-entry cache: consecutive records repeat their
    /// session, host and event type, so most lookups are one comparison.
    pub fn intern_cached(&mut self, s: &str, cache: &mut StrId) -> StrId {
        if self.get(*cache) == Some(s) {
            return *cache;
        }
        let id = self.intern(s);
        *cache = id;
        id
    }

    /// How many distinct strings are interned.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The string for `id`, or `None` for [`NO_STR`] (or an unknown id).
    pub fn get(&self, id: StrId) -> Option<&str> {
        self.values.get(id as usize).map(|s| &**s)
    }

    /// The string for `id`, or "" for [`NO_STR`].
    pub fn str(&self, id: StrId) -> &str {
        self.get(id).unwrap_or("")
    }
}

/// Event flags decided at parse time.
pub mod flags {
    /// `event_type.strip().lower() == "sample"`.
    pub const SAMPLE: u8 = 1;
    /// A collective-communication token in event_type, context or metadata strings.
    pub const MARKER: u8 = 2;
    /// `event_type == "stop"` (exactly; ends a session).
    pub const STOP: u8 = 4;
}

/// Counter value meaning `null`. Every stored counter is validated `>= 0`.
const NULL_COUNTER: i64 = -1;

/// One telemetry event, as stormlog's `TelemetryEvent` after conversion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Event {
    pub timestamp_ns: i64,
    pub rank: i64,
    pub local_rank: i64,
    pub world_size: i64,
    allocated_bytes: i64,
    reserved_bytes: i64,
    used_bytes: i64,
    total_bytes: i64,
    pub session: StrId,
    pub event_type: StrId,
    /// `context` string, or [`NO_STR`].
    pub context: StrId,
    /// 1-based index into the dataset's phase boundaries, 0 when this event is not one.
    pub phase: u32,
    pub flags: u8,
}

fn counter(value: Option<i64>) -> i64 {
    value.unwrap_or(NULL_COUNTER)
}

fn optional(value: i64) -> Option<i64> {
    (value != NULL_COUNTER).then_some(value)
}

/// The counters of an event (each validated `>= 0` when present).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counters {
    pub allocator_allocated_bytes: Option<i64>,
    pub allocator_reserved_bytes: Option<i64>,
    pub device_used_bytes: Option<i64>,
    pub device_total_bytes: Option<i64>,
}

/// Identity fields of an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Identity {
    pub timestamp_ns: i64,
    pub rank: i64,
    pub local_rank: i64,
    pub world_size: i64,
    pub session: StrId,
    pub event_type: StrId,
    pub context: StrId,
}

impl Event {
    pub fn new(identity: Identity, counters: Counters, phase: u32, flags: u8) -> Event {
        Event {
            timestamp_ns: identity.timestamp_ns,
            rank: identity.rank,
            local_rank: identity.local_rank,
            world_size: identity.world_size,
            allocated_bytes: counter(counters.allocator_allocated_bytes),
            reserved_bytes: counter(counters.allocator_reserved_bytes),
            used_bytes: counter(counters.device_used_bytes),
            total_bytes: counter(counters.device_total_bytes),
            session: identity.session,
            event_type: identity.event_type,
            context: identity.context,
            phase,
            flags,
        }
    }

    pub fn allocator_allocated_bytes(&self) -> Option<i64> {
        optional(self.allocated_bytes)
    }
    pub fn allocator_reserved_bytes(&self) -> Option<i64> {
        optional(self.reserved_bytes)
    }
    pub fn device_used_bytes(&self) -> Option<i64> {
        optional(self.used_bytes)
    }
    pub fn device_total_bytes(&self) -> Option<i64> {
        optional(self.total_bytes)
    }
    pub fn counters(&self) -> Counters {
        Counters {
            allocator_allocated_bytes: self.allocator_allocated_bytes(),
            allocator_reserved_bytes: self.allocator_reserved_bytes(),
            device_used_bytes: self.device_used_bytes(),
            device_total_bytes: self.device_total_bytes(),
        }
    }
    pub fn is_sample(&self) -> bool {
        self.flags & flags::SAMPLE != 0
    }
    pub fn is_marker(&self) -> bool {
        self.flags & flags::MARKER != 0
    }
    pub fn is_stop(&self) -> bool {
        self.flags & flags::STOP != 0
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn events_stay_compact() {
        // 1M events of a 560 MB trace: 88 MB. Growing this costs memory at every scale.
        assert_eq!(std::mem::size_of::<super::Event>(), 88);
    }
}
