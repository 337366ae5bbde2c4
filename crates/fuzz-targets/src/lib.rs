//! What the fuzzers run: each function takes arbitrary bytes and panics only on a bug.
//!
//! `fuzz/fuzz_targets/*.rs` wrap these for cargo-fuzz (`make fuzz`), and this crate's
//! test replays every input in `fuzz/corpus/` through them (`make test`), so a finding
//! that was fixed stays fixed.
//!
//! - [`trace_load`]: the trace loader in every format (JSON, JSONL, gzip, CSV, a
//!   telemetry sink folder with its manifest, a stormlog timeline, several per-rank
//!   files), then attribution. Differential: the parallel byte-range parse (with tiny
//!   ranges, so any input reaches it) must give exactly what the sequential parse gives.
//! - [`json_records`]: the JSON parser's record layouts (a tape parses a record laid
//!   out like an earlier one by checking it against that layout). Differential: every
//!   line must parse exactly as the ordinary parser parses it, result and error alike.
//! - [`permalink`]: the address-bar decoder of both views. A decoded link, encoded
//!   again, must decode to itself.
//! - [`custom_model`] / [`custom_machine`]: the explorer's custom model and machine
//!   JSON; what is accepted is swept.
//! - [`clock_markers`]: the clock estimator on arbitrary marker sets (any count, order,
//!   duplicates, extreme timestamps); every answer must keep the contract's shape.

use std::io::Write;

use shardscope_attribution::analysis::{reattribute, AnalyzeSettings};
use shardscope_attribution::clocks::{estimate, ClockStatus, MIN_MATCHES};
use shardscope_explorer::{explore, MachineParams, ModelConfig, SweepRequest};
use shardscope_session::permalink::Link;
use shardscope_trace::json::Tape;
use shardscope_trace::trace::{load, LoadOptions, LoadOutcome, MemFs};

/// How the fuzzer's bytes become files: the first byte picks the layout (low 3 bits)
/// and the parallel parse's range size (high bits); the rest is the content, split at
/// the first NUL where a layout needs two files.
/// Files (name, bytes), the paths given to the loader, and the range size.
type Layout = (Vec<(String, Vec<u8>)>, Vec<String>, u64);

fn trace_files(data: &[u8]) -> Layout {
    let (selector, body) = match data.split_first() {
        Some((s, rest)) => (*s, rest),
        None => (0, data),
    };
    let range_bytes = 16u64 << (selector >> 3);
    let halves = |body: &[u8]| -> (Vec<u8>, Vec<u8>) {
        match body.iter().position(|&b| b == 0) {
            Some(i) => (body[..i].to_vec(), body[i + 1..].to_vec()),
            None => (body.to_vec(), Vec::new()),
        }
    };
    let one =
        |name: &str, bytes: Vec<u8>| (vec![(name.to_string(), bytes)], vec![name.to_string()]);
    let (files, paths) = match selector & 7 {
        0 => one("trace.json", body.to_vec()),
        1 => one("trace.jsonl", body.to_vec()),
        2 => {
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            let _ = gz.write_all(body);
            one("trace.json.gz", gz.finish().unwrap_or_default())
        }
        3 => one("rank0.csv", body.to_vec()),
        4 => one("telemetry_timeline.json", body.to_vec()),
        5 => {
            let (manifest, segment) = halves(body);
            (
                vec![
                    ("sink/manifest.json".to_string(), manifest),
                    ("sink/segment-000001.jsonl".to_string(), segment),
                ],
                vec!["sink".to_string()],
            )
        }
        6 => {
            let (a, b) = halves(body);
            (
                vec![("rank0.json".to_string(), a), ("rank1.json".to_string(), b)],
                vec!["rank0.json".to_string(), "rank1.json".to_string()],
            )
        }
        _ => {
            let (a, b) = halves(body);
            (
                vec![
                    ("run/rank0.json".to_string(), a),
                    ("run/rank1.csv".to_string(), b),
                ],
                vec!["run".to_string()],
            )
        }
    };
    (files, paths, range_bytes)
}

/// Everything a load gave, with ids replaced by what they name, for comparing loads.
fn described(outcome: &LoadOutcome) -> String {
    let d = &outcome.dataset;
    let mut out = format!(
        "errors {:?}\nwarnings {:?}\nselected {:?} {:?} {:?}\n",
        outcome.errors, d.warnings, d.selected, d.default_selected, d.mode
    );
    for s in &d.sessions {
        out += &format!("session {:?} {:?} {}\n", s.summary, s.sources, s.synthetic);
        for e in &s.events {
            let source = d.sources.of(e);
            out += &format!(
                "{} {:?} {:?} {:?} {:?} {:?} {}\n",
                e.timestamp_ns,
                (
                    source.rank,
                    source.local_rank,
                    source.world_size,
                    source.flags
                ),
                e.counters(),
                d.strings.get(e.session),
                d.strings.get(source.event_type),
                d.strings.get(e.context),
                e.phase
            );
        }
    }
    out
}

/// The trace loader on any bytes, in every layout; see the crate docs.
pub fn trace_load(data: &[u8]) {
    let (files, paths, range_bytes) = trace_files(data);
    let mut fs = MemFs::new();
    for (name, bytes) in files {
        fs.insert(&name, bytes);
    }
    let sequential = LoadOptions {
        parallel: false,
        ..LoadOptions::default()
    };
    let parallel = LoadOptions {
        parallel: true,
        parallel_min_bytes: 0,
        range_bytes,
        ..LoadOptions::default()
    };
    let a = load(&fs, &paths, &sequential, &mut |_| {});
    let b = load(&fs, &paths, &parallel, &mut |_| {});
    assert_eq!(
        described(&a),
        described(&b),
        "the parallel parse (ranges of {range_bytes} bytes) differs from the sequential one"
    );
    for settings in [
        AnalyzeSettings::default(),
        AnalyzeSettings {
            preset: shardscope_attribution::attribution::Preset::High,
            phases: true,
            ..AnalyzeSettings::default()
        },
    ] {
        let _ = reattribute(&a.dataset, &settings);
    }
}

/// Each line of `data` parsed by one tape that learns layouts, against the ordinary
/// parse; see the crate docs. Each line is parsed whole and cut short (`eof` false:
/// the parser must then ask for more input exactly when the ordinary one does).
pub fn json_records(data: &[u8]) {
    let mut shaped = Tape::default();
    let mut plain = Tape::default();
    let show = |tape: &Tape| format!("{:?} {:?} {:?}", tape.nodes, tape.text, tape.escaped);
    for line in data.split(|&b| b == b'\n') {
        for (slice, eof) in [
            (line, true),
            (line, false),
            (&line[..line.len() / 2], false),
        ] {
            let a = shaped.parse_value(slice, 0, eof);
            let b = plain.parse_value_unshaped(slice, 0, eof);
            assert_eq!(a, b, "{:?} (eof {eof})", String::from_utf8_lossy(slice));
            if a.is_ok() {
                assert_eq!(
                    show(&shaped),
                    show(&plain),
                    "{:?}",
                    String::from_utf8_lossy(slice)
                );
            }
        }
    }
}

/// The permalink decoder on any text; see the crate docs.
pub fn permalink(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let (link, _dropped) = Link::parse(&text);
    let fragment = link.fragment();
    let (again, dropped) = Link::parse(&fragment);
    assert!(
        dropped.is_empty(),
        "{fragment}: its own fragment drops {dropped:?}"
    );
    assert_eq!(
        again, link,
        "{fragment} does not decode to the link it came from"
    );
    assert_eq!(again.fragment(), fragment);
}

/// A custom model document; accepted ones are swept on a preset machine.
pub fn custom_model(data: &[u8]) {
    let Ok(model) = ModelConfig::from_json(&String::from_utf8_lossy(data)) else {
        return;
    };
    if let Ok(machine) = MachineParams::preset("h200-hgx") {
        let _ = explore(&model, &machine, &SweepRequest::default(), false);
    }
}

/// A custom machine document; accepted ones are swept with a preset model.
pub fn custom_machine(data: &[u8]) {
    let Ok(machine) = MachineParams::from_json(&String::from_utf8_lossy(data)) else {
        return;
    };
    if let Ok(model) = ModelConfig::preset("llama3.1-70b") {
        let _ = explore(&model, &machine, &SweepRequest::default(), false);
    }
}

/// How the fuzzer's bytes become marker sets: byte 0 gives the rank count (1 to 6),
/// byte 1 the reference (0: the default, else rank `(b - 1) % count`); then records of 5
/// bytes, the first choosing the rank (low bits) and how the next 4 (an `i32`) are read:
/// a step in microseconds after the rank's previous marker, or (high bit) a timestamp
/// near the ends of the `i64` range.
pub fn clock_markers(data: &[u8]) {
    let Some((&count, rest)) = data.split_first() else {
        return;
    };
    let count = 1 + usize::from(count % 6);
    let Some((&reference, rest)) = rest.split_first() else {
        return;
    };
    let mut markers: Vec<(i64, Vec<i64>)> = (0..count as i64).map(|r| (r, Vec::new())).collect();
    let mut last = vec![1_700_000_000_000_000_000_i64; count];
    for record in rest.chunks_exact(5) {
        let rank = usize::from(record[0]) % count;
        let value = i32::from_le_bytes([record[1], record[2], record[3], record[4]]);
        let t = if record[0] & 0x80 != 0 {
            i64::from(value).saturating_mul(1 << 32)
        } else {
            last[rank].saturating_add(i64::from(value) * 1_000)
        };
        last[rank] = t;
        markers[rank].1.push(t);
    }
    for (_, m) in &mut markers {
        m.sort_unstable();
    }
    let reference = (reference > 0).then(|| i64::from(reference - 1) % count as i64);
    let Ok(alignment) = estimate(&markers, reference) else {
        return;
    };
    assert_eq!(alignment.ranks.len(), count);
    for clock in &alignment.ranks {
        let known = clock.offset_ns.is_some();
        match clock.status {
            ClockStatus::Reference => {
                assert_eq!(clock.rank, alignment.reference_rank);
                assert_eq!(clock.offset_ns, Some(0));
            }
            ClockStatus::Aligned => {
                assert!(known && clock.drift_ppm.is_some() && clock.residual_ns.is_some());
                assert!(clock.matched >= MIN_MATCHES, "{clock:?}");
            }
            ClockStatus::TooFewMarkers | ClockStatus::Ambiguous => {
                assert!(!known && clock.drift_ppm.is_none() && clock.residual_ns.is_none());
            }
        }
        for t in [i64::MIN, -1, 0, 1_700_000_000_000_000_000, i64::MAX] {
            let _ = alignment.to_reference(clock.rank, t);
        }
    }
}
