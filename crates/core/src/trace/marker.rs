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

const NEEDLES: [&[u8]; 8] = [
    b"nccl",
    b"collective",
    b"communication",
    b"allreduce",
    b"allgather",
    b"reducescatter",
    b"broadcast",
    b"barrier",
];

/// Does `text` contain a collective token under stormlog's rules?
pub fn contains_collective_token(text: &[u8]) -> bool {
    // Every needle is at least four bytes long.
    if text.len() < 4 {
        return false;
    }
    let mut collapsed = [0u8; 256];
    if text.len() <= collapsed.len() {
        let mut n = 0;
        for &b in text {
            if b != b'-' && b != b'_' {
                collapsed[n] = b.to_ascii_lowercase();
                n += 1;
            }
        }
        return has_needle(&collapsed[..n]);
    }
    let long: Vec<u8> = text
        .iter()
        .filter(|&&b| b != b'-' && b != b'_')
        .map(u8::to_ascii_lowercase)
        .collect();
    has_needle(&long)
}

fn has_needle(hay: &[u8]) -> bool {
    for i in 0..hay.len() {
        let c = hay[i];
        if !matches!(c, b'n' | b'c' | b'a' | b'r' | b'b') {
            continue;
        }
        let rest = &hay[i..];
        for needle in NEEDLES {
            if rest.starts_with(needle) {
                return true;
            }
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
