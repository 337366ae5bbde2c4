//! Collective-communication marker detection, as stormlog's
//! `_contains_collective_token`.
//!
//! stormlog lowercases a string, maps `-` to `_`, and looks for its tokens either
//! as they are or with underscores removed from both sides. Every token with
//! underscores also matches once underscores are removed, so the rule is exactly:
//! remove `-` and `_`, lowercase, and look for one of eight needles. Lowercasing
//! ASCII only is equivalent here: the only non-ASCII characters whose lowercase
//! is ASCII are KELVIN SIGN (to `k`, in no token) and `İ` (to `i` plus a combining
//! dot, which breaks any token).

/// Does `text` contain a collective token under stormlog's rules?
pub fn contains_collective_token(text: &[u8]) -> bool {
    // Every needle is at least four bytes long.
    if text.len() < 4 {
        return false;
    }
    // Most scanned strings are short (event types, backends, collectors): a small
    // stack buffer, cheap to initialise on every call.
    let mut buf = [0u8; 64];
    let collapsed: &[u8] = if text.len() <= buf.len() {
        let mut n = 0;
        for &b in text {
            buf[n] = b.to_ascii_lowercase();
            n += usize::from(b != b'-' && b != b'_');
        }
        &buf[..n]
    } else {
        return has_needle(
            &text
                .iter()
                .filter(|&&b| b != b'-' && b != b'_')
                .map(u8::to_ascii_lowercase)
                .collect::<Vec<u8>>(),
        );
    };
    has_needle(collapsed)
}

/// The answers of [`contains_collective_token`] for the last few short strings:
/// records repeat their event types, collectors and metadata values, and looking
/// an answer up costs a fraction of finding it again.
#[derive(Debug, Clone, Copy, Default)]
pub struct TokenMemo {
    entries: [MemoEntry; MEMO_ENTRIES],
    /// The entry the next new string replaces.
    next: usize,
}

const MEMO_ENTRIES: usize = 8;
const MEMO_BYTES: usize = 32;

#[derive(Debug, Clone, Copy, Default)]
struct MemoEntry {
    /// 0: empty (the empty string needs no memo).
    len: u8,
    bytes: [u8; MEMO_BYTES],
    hit: bool,
}

impl TokenMemo {
    /// [`contains_collective_token`] of `text`, remembered.
    pub fn contains(&mut self, text: &[u8]) -> bool {
        if text.is_empty() || text.len() > MEMO_BYTES {
            return contains_collective_token(text);
        }
        if let Some(entry) = self
            .entries
            .iter()
            .find(|e| usize::from(e.len) == text.len() && &e.bytes[..text.len()] == text)
        {
            return entry.hit;
        }
        let hit = contains_collective_token(text);
        let entry = &mut self.entries[self.next];
        entry.len = text.len() as u8;
        entry.bytes[..text.len()].copy_from_slice(text);
        entry.hit = hit;
        self.next = (self.next + 1) % MEMO_ENTRIES;
        hit
    }
}

/// Looks for the needles in already collapsed, lowercased text, dispatching on
/// each candidate's first letter.
fn has_needle(hay: &[u8]) -> bool {
    let at = |i: usize, needle: &[u8]| hay.get(i..i + needle.len()) == Some(needle);
    let starts = hay.len().saturating_sub(3);
    for (i, &first) in hay[..starts].iter().enumerate() {
        let hit = match first {
            b'n' => at(i, b"nccl"),
            b'c' => at(i, b"collective") || at(i, b"communication"),
            b'a' => at(i, b"allreduce") || at(i, b"allgather"),
            b'r' => at(i, b"reducescatter"),
            b'b' => at(i, b"broadcast") || at(i, b"barrier"),
            _ => false,
        };
        if hit {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::contains_collective_token as hit;

    #[test]
    fn stormlog_token_rules() {
        for yes in [
            "nccl",
            "NCCL ALL-GATHER",
            "all_reduce",
            "All-Reduce",
            "allreduce",
            "reduce-scatter",
            "ReduceScatter",
            "broadcast",
            "dist.barrier()",
            "collective",
            "torch.distributed communication",
            "a_l_l_g_a_t_h_e_r",
            "phase nccl_allreduce",
        ] {
            assert!(hit(yes.as_bytes()), "{yes}");
        }
        for no in [
            "",
            "sample",
            "all reduce",
            "gather",
            "reduce",
            "ncc l",
            "cuda",
            "barrie",
        ] {
            assert!(!hit(no.as_bytes()), "{no}");
        }
    }

    #[test]
    fn long_strings_are_scanned_too() {
        let mut s = "x".repeat(1000);
        s.push_str("Barrier");
        assert!(hit(s.as_bytes()));
    }
}
