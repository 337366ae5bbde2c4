//! Bakes a build identity into the page and the worker (`SHARDSCOPE_BUILD_ID`): a hash of
//! every source that can change what crosses the protocol (this crate's and those of the
//! crates it is compiled from, their manifests, the lock file). Both are compiled from this
//! crate, so they agree exactly when they come from the same sources; a worker cached from
//! an older deploy does not, and the page refuses it (see `protocol::BUILD_ID`).

use std::path::{Path, PathBuf};

const INPUTS: [&str; 9] = [
    "src",
    // Every crate the page and the worker are compiled from (sources and manifests).
    "crates/text",
    "crates/trace",
    "crates/attribution",
    "crates/explorer",
    "crates/session",
    "crates/view",
    "Cargo.toml",
    "Cargo.lock",
];

fn main() {
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let mut files = Vec::new();
    for input in INPUTS {
        println!("cargo:rerun-if-changed={input}");
        collect(&root.join(input), &mut files);
    }
    files.sort();
    // FNV-1a, 64 bits, over each file's path (relative) and bytes.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    for file in &files {
        let relative = file.strip_prefix(&root).unwrap_or(file);
        eat(relative.to_string_lossy().as_bytes());
        eat(&[0]);
        eat(&std::fs::read(file).unwrap_or_default());
        eat(&[0]);
    }
    println!("cargo:rustc-env=SHARDSCOPE_BUILD_ID={hash:016x}");
}

fn collect(path: &Path, files: &mut Vec<PathBuf>) {
    if path.is_dir() {
        if let Ok(entries) = std::fs::read_dir(path) {
            for entry in entries.flatten() {
                collect(&entry.path(), files);
            }
        }
    } else if path.is_file() {
        files.push(path.to_path_buf());
    }
}
