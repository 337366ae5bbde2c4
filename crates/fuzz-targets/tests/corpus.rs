//! `make test`'s share of the fuzzing: every input of fuzz/corpus/ (the seeds made from
//! the fixtures, plus anything a fuzzing run found and was fixed) goes through its
//! target, then a fixed-seed set of mutations of each (cuts, byte flips, splices), so
//! the targets' assertions run on thousands of inputs without libFuzzer.

use std::path::{Path, PathBuf};

fn corpus(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/corpus")
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (p, bytes)
        })
        .collect()
}

/// xorshift64*: the same mutations on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Deterministic variants of `input`: cut short, bytes flipped or replaced by JSON's
/// own punctuation, a slice repeated, the selector byte changed.
fn mutations(input: &[u8], rng: &mut Rng, count: usize) -> Vec<Vec<u8>> {
    const BYTES: &[u8] = b"{}[]\",:0-9eE.\\ \n\0\xff";
    let mut out = Vec::with_capacity(count);
    for i in 0..count {
        let mut m = input.to_vec();
        if m.is_empty() {
            out.push(vec![rng.next() as u8]);
            continue;
        }
        match i % 5 {
            0 => m.truncate(rng.below(m.len())),
            1 => {
                for _ in 0..1 + rng.below(4) {
                    let at = rng.below(m.len());
                    m[at] ^= 1 << rng.below(8);
                }
            }
            2 => {
                let at = rng.below(m.len());
                m[at] = BYTES[rng.below(BYTES.len())];
            }
            3 => {
                let from = rng.below(m.len());
                let to = (from + 1 + rng.below(64)).min(m.len());
                let slice = m[from..to].to_vec();
                let at = rng.below(m.len());
                m.splice(at..at, slice);
            }
            _ => m[0] = rng.next() as u8,
        }
        out.push(m);
    }
    out
}

fn replay(target: &str, run: fn(&[u8]), mutations_per_input: usize) {
    let inputs = corpus(target);
    assert!(!inputs.is_empty(), "fuzz/corpus/{target} is empty");
    let mut rng = Rng(0x5eed_5eed_0000_0001);
    let mut runs = 0;
    for (path, bytes) in &inputs {
        let result = std::panic::catch_unwind(|| run(bytes));
        assert!(result.is_ok(), "{target}: {} fails", path.display());
        for (i, m) in mutations(bytes, &mut rng, mutations_per_input)
            .iter()
            .enumerate()
        {
            let result = std::panic::catch_unwind(|| run(m));
            assert!(
                result.is_ok(),
                "{target}: mutation {i} of {} fails",
                path.display()
            );
            runs += 1;
        }
    }
    eprintln!(
        "{target}: {} corpus inputs and {runs} mutations",
        inputs.len()
    );
}

#[test]
fn trace_load_corpus_and_mutations() {
    replay("trace_load", shardscope_fuzz_targets::trace_load, 40);
}

#[test]
fn json_records_corpus_and_mutations() {
    replay("json_records", shardscope_fuzz_targets::json_records, 400);
}

#[test]
fn permalink_corpus_and_mutations() {
    replay("permalink", shardscope_fuzz_targets::permalink, 400);
}

#[test]
fn clock_markers_corpus_and_mutations() {
    replay("clock_markers", shardscope_fuzz_targets::clock_markers, 200);
}

#[test]
fn custom_model_corpus_and_mutations() {
    replay("custom_model", shardscope_fuzz_targets::custom_model, 30);
}

#[test]
fn custom_machine_corpus_and_mutations() {
    replay(
        "custom_machine",
        shardscope_fuzz_targets::custom_machine,
        30,
    );
}

/// The explorer presets' JSON documents are seeds of the custom-editor corpora; this checks
/// that the checked-in seeds are what the presets now are (a drift check). After a preset
/// changes, `SHARDSCOPE_WRITE_SEEDS=1 cargo test -p shardscope-fuzz-targets preset_seeds`
/// rewrites them.
#[test]
fn preset_seeds_match_the_presets() {
    use shardscope_explorer::{MACHINE_PRESETS, MODEL_PRESETS};
    use shardscope_session::custom::{machine_preset_json, model_preset_json};
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus");
    let write = std::env::var_os("SHARDSCOPE_WRITE_SEEDS").is_some();
    type Preset = fn(&str) -> Option<serde_json::Value>;
    let sets: [(&str, &[&str], Preset); 2] = [
        ("custom_model", MODEL_PRESETS, model_preset_json),
        ("custom_machine", MACHINE_PRESETS, machine_preset_json),
    ];
    let mut drifted = Vec::new();
    for (dir, names, json) in sets {
        for name in names {
            let value = json(name).unwrap_or_else(|| panic!("preset {name} has no JSON document"));
            let path = root.join(dir).join(format!("preset-{name}.json"));
            let want = value.to_string();
            if write {
                std::fs::write(&path, &want).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            } else if std::fs::read_to_string(&path).ok().as_deref() != Some(want.as_str()) {
                drifted.push(path.display().to_string());
            }
        }
    }
    assert!(
        drifted.is_empty(),
        "seeds that differ from their preset (rewrite with SHARDSCOPE_WRITE_SEEDS=1): {drifted:?}"
    );
}
