//! What the two split parsers share ([`ranges`](super::ranges): a file's byte ranges,
//! parsed anywhere, one thread per range set by the caller; [`parallel`](super::parallel):
//! native threads over a stream): the layouts they can split, the give-up signal, and the
//! merge of events parsed elsewhere into a session grouper. Neither imports the other's
//! internals through here: `ranges` depends on this module only, `parallel` on both.

use super::event::{Event, Source, Sources, Strings, NO_STR};
use super::parse::{LoadCtx, SessionGrouper};
use super::phase_boundary::PhaseBoundary;
use super::record::RecordExtras;

/// Files smaller than this are parsed sequentially.
pub const MIN_PARALLEL_BYTES: u64 = 8 << 20;

/// The input format the fast path can split.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Layout {
    /// A top-level JSON array of objects.
    JsonArray,
    /// One object per line.
    Jsonl,
}

/// Why a range could not be used (the sequential parse then tells the real story).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GaveUp;

impl From<crate::pack::Malformed> for GaveUp {
    fn from(_: crate::pack::Malformed) -> GaveUp {
        GaveUp
    }
}

/// Bytes that may start one of Python's other line breaks (`str.splitlines`: `\r`,
/// `\x0b`, `\x0c`, `\x1c`–`\x1e`, U+0085, U+2028, U+2029): such a JSONL file would be
/// numbered differently, so the fast paths leave it to the sequential parse.
pub fn has_other_line_breaks(line: &[u8]) -> bool {
    line.iter()
        .any(|&b| matches!(b, b'\r' | 0x0b | 0x0c | 0x1c..=0x1e | 0xc2 | 0xe2))
}

/// Appends events parsed elsewhere (string, source and phase ids local to
/// `local` and `phases`) to `grouper`, re-interning strings and sources into `ctx`
/// and renumbering phases.
pub fn merge_events(
    ctx: &mut LoadCtx,
    grouper: &mut SessionGrouper,
    events: Vec<(Event, RecordExtras)>,
    local: (&Strings, &Sources),
    phases: Vec<PhaseBoundary>,
) {
    let (local_strings, local_sources) = local;
    let strings = &mut ctx.strings;
    let mut remap: Vec<u32> = vec![NO_STR; local_strings.len()];
    let mut global = |id: u32| -> u32 {
        match remap.get_mut(id as usize) {
            None => NO_STR,
            Some(slot) => {
                if *slot == NO_STR {
                    *slot = strings.intern(local_strings.str(id));
                }
                *slot
            }
        }
    };
    // Sources are few: re-intern them all up front.
    let source_ids: Vec<u32> = (0..local_sources.len() as u32)
        .map(|id| {
            let source = local_sources.get(id).copied().map(|s| Source {
                event_type: global(s.event_type),
                ..s
            });
            source.map_or(NO_STR, |s| ctx.sources.intern(s))
        })
        .collect();
    let phase_base = ctx.phases.len() as u32;
    for (mut event, mut extras) in events {
        event.session = global(event.session);
        event.source = source_ids
            .get(event.source as usize)
            .copied()
            .unwrap_or(NO_STR);
        event.context = global(event.context);
        if event.phase > 0 {
            event.phase += phase_base;
        }
        extras.host = global(extras.host);
        extras.job_id = global(extras.job_id);
        grouper.push(event, extras, &ctx.sources);
    }
    ctx.phases.extend(phases);
}
