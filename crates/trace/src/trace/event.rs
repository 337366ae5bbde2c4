//! The compact, per-event storage every loaded trace is kept in.
//!
//! One [`Event`] is 56 bytes whatever the record looked like: the fields
//! attribution, session selection, phase replay and the distributed merge need,
//! with strings interned in a [`Strings`] table and who recorded it (rank, local
//! rank, world size, event type, flags) in a [`Sources`] table. Metadata is not kept: what
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

/// A multiplicative hash for fixed-size keys (the `FxHash` step): [`Source`]s are
/// hashed once per record, so the per-byte FNV would cost more than the lookup.
#[derive(Default)]
pub struct Mix(u64);

impl Hasher for Mix {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    fn write_i64(&mut self, v: i64) {
        self.write_u64(v as u64);
    }
    fn write_u32(&mut self, v: u32) {
        self.write_u64(u64::from(v));
    }
    fn write_u8(&mut self, v: u8) {
        self.write_u64(u64::from(v));
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

/// Who recorded an event and what kind of event it is. A trace holds few distinct
/// ones (ranks × event types × flags), so events refer to them by [`SourceId`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Source {
    pub rank: i64,
    pub local_rank: i64,
    pub world_size: i64,
    pub event_type: StrId,
    /// [`flags`] decided at parse time.
    pub flags: u8,
}

impl Source {
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

/// Index into a [`Sources`] table.
pub type SourceId = u32;

/// What [`Sources::of`] answers for an id the table does not hold (never made by a load).
static UNKNOWN_SOURCE: Source = Source {
    rank: 0,
    local_rank: 0,
    world_size: 0,
    event_type: NO_STR,
    flags: 0,
};

const SOURCE_CACHE: usize = 32;

/// Recently interned sources for [`Sources::intern_cached`].
#[derive(Debug, Clone, Copy)]
pub struct SourceCache([SourceId; SOURCE_CACHE]);

impl Default for SourceCache {
    fn default() -> SourceCache {
        SourceCache([NO_STR; SOURCE_CACHE])
    }
}

/// An interning table of [`Source`]s: each distinct one is stored once.
#[derive(Debug, Default, Clone)]
pub struct Sources {
    ids: HashMap<Source, SourceId, BuildHasherDefault<Mix>>,
    values: Vec<Source>,
}

impl Sources {
    pub fn intern(&mut self, source: Source) -> SourceId {
        if let Some(&id) = self.ids.get(&source) {
            return id;
        }
        let id = self.values.len() as SourceId;
        self.values.push(source);
        self.ids.insert(source, id);
        id
    }

    /// Interns through a small direct-mapped cache: ranks take turns record by
    /// record, so most lookups are one comparison without hashing.
    pub fn intern_cached(&mut self, source: Source, cache: &mut SourceCache) -> SourceId {
        let slot = (source.rank as usize ^ (source.event_type as usize) << 2) % SOURCE_CACHE;
        let cached = cache.0[slot];
        if self.get(cached) == Some(&source) {
            return cached;
        }
        let id = self.intern(source);
        cache.0[slot] = id;
        id
    }

    pub fn get(&self, id: SourceId) -> Option<&Source> {
        self.values.get(id as usize)
    }

    /// The source of `event` (a harmless all-zero one for an id not in this table).
    pub fn of(&self, event: &Event) -> &Source {
        self.get(event.source).unwrap_or(&UNKNOWN_SOURCE)
    }

    /// How many distinct sources are interned.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

/// Counter value meaning `null`. Every stored counter is validated `>= 0`.
const NULL_COUNTER: i64 = -1;

/// One telemetry event, as stormlog's `TelemetryEvent` after conversion. Who
/// recorded it and its type are a [`Source`] in the load's [`Sources`] table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Event {
    pub timestamp_ns: i64,
    allocated_bytes: i64,
    reserved_bytes: i64,
    used_bytes: i64,
    total_bytes: i64,
    pub session: StrId,
    pub source: SourceId,
    /// `context` string, or [`NO_STR`].
    pub context: StrId,
    /// 1-based index into the dataset's phase boundaries, 0 when this event is not one.
    pub phase: u32,
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
    pub session: StrId,
    pub source: SourceId,
    pub context: StrId,
}

impl Event {
    pub fn new(identity: Identity, counters: Counters, phase: u32) -> Event {
        Event {
            timestamp_ns: identity.timestamp_ns,
            allocated_bytes: counter(counters.allocator_allocated_bytes),
            reserved_bytes: counter(counters.allocator_reserved_bytes),
            used_bytes: counter(counters.device_used_bytes),
            total_bytes: counter(counters.device_total_bytes),
            session: identity.session,
            source: identity.source,
            context: identity.context,
            phase,
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
}

/// Events with the table their sources are in: what every consumer of a
/// session's events (attribution, phases, the timeline index) reads.
#[derive(Debug, Clone, Copy)]
pub struct Events<'a> {
    pub list: &'a [Event],
    pub sources: &'a Sources,
}

/// Equal when the events are, each with the same source, whatever its id.
impl PartialEq for Events<'_> {
    fn eq(&self, other: &Events<'_>) -> bool {
        let anonymous = |e: &Event| Event { source: 0, ..*e };
        self.len() == other.len()
            && self
                .iter()
                .zip(other.iter())
                .all(|((a, sa), (b, sb))| sa == sb && anonymous(a) == anonymous(b))
    }
}

impl<'a> Events<'a> {
    pub fn new(list: &'a [Event], sources: &'a Sources) -> Events<'a> {
        Events { list, sources }
    }

    /// The source of `event`.
    pub fn source(&self, event: &Event) -> &'a Source {
        self.sources.of(event)
    }

    /// Each event with its source, in order.
    pub fn iter(&self) -> impl Iterator<Item = (&'a Event, &'a Source)> + '_ {
        let sources = self.sources;
        self.list.iter().map(move |e| (e, sources.of(e)))
    }

    pub fn len(&self) -> usize {
        self.list.len()
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn events_stay_compact() {
        // 1M events of a 560 MB trace: 56 MB. Growing this costs memory at every scale.
        assert_eq!(std::mem::size_of::<super::Event>(), 56);
    }
}
