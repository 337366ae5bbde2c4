//! The browser's hostile inputs through the command line: exit 2 with the error object
//! (or 0 where the input is valid), never a panic, and memory bounded (each run under a
//! 1 GiB address-space limit, `ulimit -v`).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn record(patch: impl Fn(&str) -> String) -> String {
    patch(
        r#"{"schema_version": 4, "session_id": "s", "timestamp_ns": 1, "event_type": "sample", "collector": "c", "sampling_interval_ms": 1, "pid": 1, "host": "h", "device_id": 0, "allocator_allocated_bytes": 1, "allocator_reserved_bytes": 1, "allocator_active_bytes": null, "allocator_inactive_bytes": null, "allocator_change_bytes": 0, "device_used_bytes": 2, "device_free_bytes": null, "device_total_bytes": 10, "context": null, "metadata": {"backend": "cuda"}}"#,
    )
}

fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("shardscope-hostile-cli-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap_or_else(|e| panic!("{e}"));
    d
}

/// Runs `shardscope attribute PATH --format json` with at most 1 GiB of address space.
fn attribute(path: &Path) -> (i32, Value, String) {
    let cmd = format!(
        "ulimit -v 1048576; exec '{}' attribute '{}' --format json",
        env!("CARGO_BIN_EXE_shardscope"),
        path.display()
    );
    let out = Command::new("sh")
        .args(["-c", &cmd])
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let value = serde_json::from_str(&stdout).unwrap_or(Value::Null);
    (out.status.code().unwrap_or(-1), value, stderr)
}

#[test]
fn hostile_inputs_exit_2_with_the_error_object_in_bounded_memory() {
    let d = dir();
    let write = |name: &str, bytes: &[u8]| {
        let p = d.join(name);
        std::fs::write(&p, bytes).unwrap_or_else(|e| panic!("{e}"));
        p
    };
    let nested = "[".repeat(100_000) + &"]".repeat(100_000);
    let binary: Vec<u8> = (0..65_536u32)
        .map(|i| ((i * 7919 + 131) % 256) as u8)
        .collect();
    let inf = format!(
        "[{}]",
        record(|t| t.replace(
            r#""allocator_allocated_bytes": 1"#,
            r#""allocator_allocated_bytes": 1e400"#
        ))
    );
    let big = format!(
        "[{}]",
        record(|t| t.replace(
            r#""device_total_bytes": 10"#,
            r#""device_total_bytes": 18446744073709551616"#
        ))
    );
    let tiny = "{}\n".repeat(10_000_000);
    let empty = d.join("empty");
    std::fs::create_dir_all(&empty).unwrap_or_else(|e| panic!("{e}"));
    // Sparse zeros, bigger than memory should ever need: streamed (its UTF-8 is checked
    // to the end first, as Python decodes the whole file before parsing), in bounded
    // memory. 256 MiB keeps the debug build quick; a 5 GiB one takes 2 s and 24 MB in release.
    let huge = d.join("huge.json");
    std::fs::File::create(&huge)
        .and_then(|f| f.set_len(256 << 20))
        .unwrap_or_else(|e| panic!("{e}"));
    // (input, part of the message, line, record, field)
    type Case<'a> = (PathBuf, &'a str, Option<u64>, Option<u64>, Option<&'a str>);
    let cases: Vec<Case> = vec![
        (
            write("nested.json", nested.as_bytes()),
            "Nesting too deep",
            Some(1),
            None,
            None,
        ),
        (
            write("binary.json", &binary),
            "not valid UTF-8",
            Some(1),
            None,
            None,
        ),
        (
            write("inf.json", inf.as_bytes()),
            "allocator_allocated_bytes must be an integer",
            Some(1),
            Some(0),
            Some("allocator_allocated_bytes"),
        ),
        (
            write("big.json", big.as_bytes()),
            "outside the supported 64-bit integer range",
            Some(1),
            Some(0),
            Some("device_total_bytes"),
        ),
        (
            write("tiny.jsonl", tiny.as_bytes()),
            "missing a valid timestamp",
            Some(1),
            None,
            Some("timestamp"),
        ),
        (empty, "No telemetry event payloads found", None, None, None),
        (huge, "Expecting value", Some(1), None, None),
    ];
    for (path, message, line, record, field) in cases {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let (code, v, stderr) = attribute(&path);
        assert_eq!(code, 2, "{name}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{name}: {stderr}");
        assert!(
            v["error"].as_str().unwrap_or_default().contains(message),
            "{name}: {v}"
        );
        assert_eq!(v["file"].as_str(), Some(name.as_str()), "{name}: {v}");
        assert_eq!(v["line"].as_u64(), line, "{name}: {v}");
        assert_eq!(v["record"].as_u64(), record, "{name}: {v}");
        assert_eq!(v["field"].as_str(), field, "{name}: {v}");
    }
    // A 50 MB single-line JSONL record is valid: it loads, within the same bound.
    let blob = "x".repeat(50_000_000);
    let long = record(|t| {
        t.replace(
            r#"{"backend": "cuda"}"#,
            &format!(r#"{{"backend": "cuda", "blob": "{blob}"}}"#),
        )
    });
    let (code, v, stderr) = attribute(&write("one-line.jsonl", format!("{long}\n").as_bytes()));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(v, Value::Array(Vec::new()));
    let _ = std::fs::remove_dir_all(&d);
}
