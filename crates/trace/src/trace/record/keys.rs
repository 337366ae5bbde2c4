//! A record's keys: the slot of each key stormlog knows (`K`, one table of names,
//! `KEY_NAMES`, indexed by length at compile time) and a record's keys sorted into them.

use super::*;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(usize)]
pub(super) enum K {
    SchemaVersion,
    SessionId,
    TimestampNs,
    EventType,
    Collector,
    SamplingIntervalMs,
    Pid,
    Host,
    DeviceId,
    AllocatorAllocated,
    AllocatorReserved,
    AllocatorActive,
    AllocatorInactive,
    AllocatorChange,
    DeviceUsed,
    DeviceFree,
    DeviceTotal,
    Context,
    Metadata,
    JobId,
    Rank,
    LocalRank,
    WorldSize,
    // Legacy-only keys.
    Timestamp,
    Device,
    MemoryMb,
    MemoryAllocated,
    MemoryReserved,
    MemoryChange,
    TotalMemory,
    DeviceTotalLegacy,
    TotalBytes,
    Type,
    Message,
    Backend,
}

pub(super) const SLOT_COUNT: usize = K::Backend as usize + 1;

/// The v3/v4 required fields, in stormlog's order (v2: the same without session_id).
pub(super) const REQUIRED_V3: [K; 19] = [
    K::SchemaVersion,
    K::SessionId,
    K::TimestampNs,
    K::EventType,
    K::Collector,
    K::SamplingIntervalMs,
    K::Pid,
    K::Host,
    K::DeviceId,
    K::AllocatorAllocated,
    K::AllocatorReserved,
    K::AllocatorActive,
    K::AllocatorInactive,
    K::AllocatorChange,
    K::DeviceUsed,
    K::DeviceFree,
    K::DeviceTotal,
    K::Context,
    K::Metadata,
];

/// `key == name` for keys already known to have `name`'s length, by whole words
/// (first, middle and last eight bytes, overlapping) instead of a `memcmp` call.
#[inline(always)]
pub(super) fn same_key(key: &[u8], name: &[u8]) -> bool {
    let n = name.len();
    if key.len() != n || n < 8 {
        return key == name;
    }
    let word = |b: &[u8], at: usize| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&b[at..at + 8]);
        u64::from_le_bytes(w)
    };
    let mid = (n - 8) / 2;
    word(key, 0) == word(name, 0)
        && word(key, mid) == word(name, mid)
        && word(key, n - 8) == word(name, n - 8)
        && (n <= 24 || key[8..n - 8] == name[8..n - 8])
}

/// Every record key stormlog reads, by slot: the one list the parser matches keys
/// against ([`key_slot`]) and names fields from ([`field_name`]).
pub(super) const KEY_NAMES: [(K, &str); SLOT_COUNT] = [
    (K::SchemaVersion, "schema_version"),
    (K::SessionId, "session_id"),
    (K::TimestampNs, "timestamp_ns"),
    (K::EventType, "event_type"),
    (K::Collector, "collector"),
    (K::SamplingIntervalMs, "sampling_interval_ms"),
    (K::Pid, "pid"),
    (K::Host, "host"),
    (K::DeviceId, "device_id"),
    (K::AllocatorAllocated, "allocator_allocated_bytes"),
    (K::AllocatorReserved, "allocator_reserved_bytes"),
    (K::AllocatorActive, "allocator_active_bytes"),
    (K::AllocatorInactive, "allocator_inactive_bytes"),
    (K::AllocatorChange, "allocator_change_bytes"),
    (K::DeviceUsed, "device_used_bytes"),
    (K::DeviceFree, "device_free_bytes"),
    (K::DeviceTotal, "device_total_bytes"),
    (K::Context, "context"),
    (K::Metadata, "metadata"),
    (K::JobId, "job_id"),
    (K::Rank, "rank"),
    (K::LocalRank, "local_rank"),
    (K::WorldSize, "world_size"),
    (K::Timestamp, "timestamp"),
    (K::Device, "device"),
    (K::MemoryMb, "memory_mb"),
    (K::MemoryAllocated, "memory_allocated"),
    (K::MemoryReserved, "memory_reserved"),
    (K::MemoryChange, "memory_change"),
    (K::TotalMemory, "total_memory"),
    (K::DeviceTotalLegacy, "device_total"),
    (K::TotalBytes, "total_bytes"),
    (K::Type, "type"),
    (K::Message, "message"),
    (K::Backend, "backend"),
];

const _: () = {
    // The table is in slot order, so `field_name` is an index.
    let mut i = 0;
    while i < SLOT_COUNT {
        assert!(KEY_NAMES[i].0 as usize == i);
        i += 1;
    }
};

/// The longest key, and the most keys of one length.
pub(super) const LONGEST_KEY: usize = 25;
pub(super) const MOST_OF_ONE_LENGTH: usize = 4;
pub(super) const NO_SLOT: u8 = u8::MAX;

/// Slots by key length (unused places [`NO_SLOT`]), built from [`KEY_NAMES`] at
/// compile time: a key costs one length lookup and at most a few word comparisons.
pub(super) const SLOTS_BY_LENGTH: [[u8; MOST_OF_ONE_LENGTH]; LONGEST_KEY + 1] = {
    let mut by_length = [[NO_SLOT; MOST_OF_ONE_LENGTH]; LONGEST_KEY + 1];
    let mut i = 0;
    while i < SLOT_COUNT {
        let len = KEY_NAMES[i].1.len();
        assert!(len <= LONGEST_KEY);
        let mut j = 0;
        while by_length[len][j] != NO_SLOT {
            j += 1; // out of bounds (a compile error) past MOST_OF_ONE_LENGTH
        }
        by_length[len][j] = i as u8;
        i += 1;
    }
    by_length
};

/// The slot of a record key ([`SLOTS_BY_LENGTH`], then [`same_key`]).
#[inline]
pub(super) fn key_slot(key: &[u8]) -> Option<K> {
    for &slot in SLOTS_BY_LENGTH.get(key.len())? {
        if slot == NO_SLOT {
            return None;
        }
        let (k, name) = KEY_NAMES[slot as usize];
        if same_key(key, name.as_bytes()) {
            return Some(k);
        }
    }
    None
}

pub(super) fn field_name(k: K) -> &'static str {
    KEY_NAMES[k as usize].1
}

/// A record's top-level keys sorted into slots (the last occurrence of a key wins).
pub(super) struct Slots<'t> {
    pub(super) tape: &'t Tape,
    pub(super) values: [Option<usize>; SLOT_COUNT],
    /// Key node indices of keys that are not slots (for "Unknown telemetry fields"
    /// and the legacy `metadata_*` keys), in record order.
    pub(super) others: Vec<usize>,
}

impl<'t> Slots<'t> {
    /// The slots of the tape's top object, from `cache` when the tape is laid out like
    /// the one that filled it.
    pub(super) fn new_cached(tape: &'t Tape, cache: &mut SlotCache) -> Slots<'t> {
        let shape_id = tape.shape_id();
        if shape_id != 0 && cache.shape_id == shape_id {
            return Slots {
                tape,
                values: cache.values,
                others: Vec::new(),
            };
        }
        let slots = Slots::new(tape, 0);
        if shape_id != 0 && slots.others.is_empty() {
            *cache = SlotCache {
                shape_id,
                values: slots.values,
            };
        }
        slots
    }

    pub(super) fn new(tape: &'t Tape, root: usize) -> Slots<'t> {
        let mut values = [None; SLOT_COUNT];
        let mut others = Vec::new();
        for (k, v) in tape.entries(root) {
            match key_slot(tape.bytes(tape.nodes[k])) {
                Some(slot) => values[slot as usize] = Some(v),
                None => others.push(k),
            }
        }
        Slots {
            tape,
            values,
            others,
        }
    }

    pub(super) fn has(&self, k: K) -> bool {
        self.values[k as usize].is_some()
    }

    /// `record.get(key)`: the node, or `None` when absent.
    pub(super) fn get(&self, k: K) -> Option<Node> {
        self.values[k as usize].map(|i| self.tape.nodes[i])
    }

    /// `_coerce_optional_int(record.get(key), key)`: absent and null are `None`.
    pub(super) fn optional_int(&self, k: K) -> Result<Option<i128>> {
        coerce_optional_int(self.tape, self.get(k), field_name(k))
    }

    /// `record.get(key)` treating JSON `null` like an absent key.
    pub(super) fn get_non_null(&self, k: K) -> Option<Node> {
        self.get(k).filter(|n| *n != Node::Null)
    }
}

// ── Python coercions ────────────────────────────────────────────────────────
