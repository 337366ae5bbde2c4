//! Deterministic synthetic traces shaped like stormlog 0.4.3's v4 exports (Python
//! `json.dump` formatting, synchronized spikes with collective markers around them),
//! for `make bench` and for warming up the browser's WebAssembly before a real load.

use std::io::Write;

/// A small deterministic generator (xorshift64*).
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
}

const CAPABILITIES: &str = r#"{"backend": "cuda", "telemetry_collector": "stormlog.cuda_tracker", "sampling_source": "torch.cuda.memory_allocated/reserved", "supports_allocator_allocated": true, "supports_allocator_reserved": true, "supports_allocator_active": false, "supports_allocator_inactive": false, "supports_device_used": true, "supports_device_free": true, "supports_device_total": true, "supports_native_allocator_history": false, "supports_fragmentation_analysis": true, "supports_allocator_attribution": true, "supports_bounded_profiling": false}"#;

/// Writes a trace of `ranks` × `samples` samples (plus a marker before every 120th
/// sample of each rank) as one JSON array; returns the number of records.
pub fn write_trace(out: &mut dyn Write, ranks: u64, samples: u64) -> std::io::Result<u64> {
    const GIB: u64 = 1 << 30;
    const MIB: u64 = 1 << 20;
    const TOTAL: u64 = 80 * GIB;
    const START_NS: u64 = 1_700_000_000_000_000_000;
    const STEP_NS: u64 = 100_000_000;
    const SPIKE_EVERY: u64 = 120;
    let mut rng = Rng(0x5eed_cafe_f00d_d00d);
    out.write_all(b"[")?;
    let mut first = true;
    let mut count = 0u64;
    for i in 0..samples {
        let spike = i % SPIKE_EVERY == SPIKE_EVERY / 2;
        for rank in 0..ranks {
            let ts = START_NS + i * STEP_NS + rank * 2_000_000 + rng.below(500_000);
            let reserved = 24 * GIB + rng.below(4) * 512 * MIB;
            let allocated = reserved - 100 * MIB - rng.below(200) * MIB;
            let gap = if spike {
                1536 * MIB
            } else {
                8 * MIB + rng.below(128) * MIB / 4
            };
            let used = reserved + gap;
            let free = TOTAL - used;
            if spike {
                // The collective marker a tracker writes around the spike (null counters).
                let marker_ts = ts - 3_000_000;
                write!(
                    out,
                    "{}{{\"schema_version\": 4, \"session_id\": \"bench-session\", \"timestamp_ns\": {marker_ts}, \"event_type\": \"collective\", \"collector\": \"stormlog.cuda_tracker\", \"sampling_interval_ms\": 100, \"pid\": {}, \"host\": \"node{}\", \"job_id\": \"bench-job\", \"rank\": {rank}, \"local_rank\": {}, \"world_size\": {ranks}, \"device_id\": {}, \"allocator_allocated_bytes\": null, \"allocator_reserved_bytes\": null, \"allocator_active_bytes\": null, \"allocator_inactive_bytes\": null, \"allocator_change_bytes\": null, \"device_used_bytes\": null, \"device_free_bytes\": null, \"device_total_bytes\": null, \"context\": \"nccl:all_reduce\", \"metadata\": {{\"backend\": \"cuda\", \"op\": \"all_reduce\", \"bytes\": 1610612736, \"memory_capabilities\": {CAPABILITIES}}}}}",
                    if first { "" } else { ", " },
                    10_000 + rank,
                    rank / 8,
                    rank % 8,
                    rank % 8,
                )?;
                first = false;
                count += 1;
            }
            write!(
                out,
                "{}{{\"schema_version\": 4, \"session_id\": \"bench-session\", \"timestamp_ns\": {ts}, \"event_type\": \"sample\", \"collector\": \"stormlog.cuda_tracker\", \"sampling_interval_ms\": 100, \"pid\": {}, \"host\": \"node{}\", \"rank\": {rank}, \"world_size\": {ranks}, \"device_id\": {}, \"allocator_allocated_bytes\": {allocated}, \"allocator_reserved_bytes\": {reserved}, \"allocator_active_bytes\": null, \"allocator_inactive_bytes\": null, \"allocator_change_bytes\": 0, \"device_used_bytes\": {used}, \"device_free_bytes\": {free}, \"device_total_bytes\": {TOTAL}, \"context\": null, \"metadata\": {{\"backend\": \"cuda\"}}}}",
                if first { "" } else { ", " },
                10_000 + rank,
                rank / 8,
                rank % 8,
            )?;
            first = false;
            count += 1;
        }
    }
    out.write_all(b"]")?;
    out.flush()?;
    Ok(count)
}
