//! The command line's faces, alike for every subcommand (clap): --help lists every flag,
//! --version, shell completions, one rule for repeated and misspelt options, one error
//! object with `"file": null` when no file is at fault.

mod common;

use common::run;
use serde_json::Value;

#[test]
fn every_subcommand_has_help_listing_every_flag() {
    let flags: &[(&str, &[&str])] = &[
        (
            "attribute",
            &[
                "--preset",
                "--override",
                "--session-id",
                "--phases",
                "--align-clocks",
                "--format",
            ],
        ),
        ("align", &["--session-id", "--reference", "--format"]),
        (
            "explore",
            &[
                "--model",
                "--model-json",
                "--machine",
                "--machine-json",
                "--s-kv",
                "--mode",
                "--batch",
                "--ep",
                "--scope",
                "--efficiency",
                "--format",
                "--batch-sweep",
                "--sla-tpot-ms",
                "--sla-ttft-ms",
                "--prompt-len",
                "--all",
            ],
        ),
        (
            "sensitivity",
            &["--model", "--machine", "--s-kv", "--baseline", "--format"],
        ),
        ("completions", &[]),
    ];
    for (command, wanted) in flags {
        let r = run(&[command, "--help"]);
        assert_eq!(r.code, 0, "{command}");
        for flag in *wanted {
            assert!(
                r.stdout.contains(flag),
                "{command} --help lacks {flag}:\n{}",
                r.stdout
            );
        }
        // Defaults come from the core and are shown.
        if *command == "explore" {
            assert!(
                r.stdout.contains("[default: 32768]")
                    && r.stdout.contains("[default: llama3.1-70b]")
            );
        }
        let r = run(&[command, "--version"]);
        assert_eq!(r.code, 0);
        let version = r.stdout.trim();
        assert!(
            version.starts_with("shardscope")
                && version.ends_with(&format!(" {}", shardscope_attribution::VERSION)),
            "{version}"
        );
    }
    let r = run(&["--help"]);
    assert!([
        "attribute",
        "align",
        "explore",
        "sensitivity",
        "completions"
    ]
    .iter()
    .all(|c| r.stdout.contains(c)));
}

#[test]
fn shell_completions_name_the_subcommands_and_flags() {
    for shell in ["bash", "zsh", "fish"] {
        let r = run(&["completions", shell]);
        assert_eq!(r.code, 0, "{shell}");
        assert!(
            r.stdout.contains("attribute") && r.stdout.contains("batch-sweep"),
            "{shell}"
        );
    }
    assert_eq!(run(&["completions", "tcsh"]).code, 2);
}

#[test]
fn repeated_or_unknown_options_fail_alike_in_every_subcommand() {
    let trace = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/attribution/traces/sync_markers_type.json"
    );
    let cases: &[(&[&str], &str)] = &[
        (
            &["attribute", trace, "--preset", "low", "--preset", "high"],
            "preset",
        ),
        (
            &["explore", "--mode", "decode", "--mode", "prefill"],
            "mode",
        ),
        (
            &["sensitivity", "--baseline", "cp=1", "--baseline", "cp=2"],
            "baseline",
        ),
        (&["attribute", trace, "--bogus"], "bogus"),
        (&["align", trace, "--reference", "x"], "reference"),
        (
            &["align", trace, "--reference", "0", "--reference", "1"],
            "reference",
        ),
        (&["explore", "--bogus"], "bogus"),
        (&["sensitivity", "--all"], "all"),
        (&["attribute", trace, "--format", "yaml"], "format"),
        (&["attribute"], "arguments"),
    ];
    for (args, field) in cases {
        let mut with_json = args.to_vec();
        with_json.extend(["--format", "json"]);
        if args.contains(&"yaml") {
            with_json = args.to_vec();
        }
        let r = run(&with_json);
        assert_eq!(r.code, 2, "{with_json:?}");
        assert_eq!(r.stderr.lines().count(), 1, "{with_json:?}: {}", r.stderr);
        if args.contains(&"yaml") {
            assert!(r.stdout.is_empty());
            continue;
        }
        let v: Value = serde_json::from_str(&r.stdout)
            .unwrap_or_else(|e| panic!("{with_json:?}: {e}: {}", r.stdout));
        assert_eq!(v["field"], *field, "{with_json:?}");
        assert!(
            v["file"].is_null() && v["line"].is_null() && v["record"].is_null(),
            "{v}"
        );
    }
    // --override is the one option that repeats (the last value of a key wins).
    let r = run(&[
        "attribute",
        trace,
        "--override",
        "min_confidence=0.9",
        "--override",
        "min_confidence=0.5",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}

#[test]
fn format_names_are_case_insensitive_everywhere() {
    let trace = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/attribution/traces/sync_markers_type.json"
    );
    for args in [
        &["attribute", trace, "--format", "CSV"][..],
        &["explore", "--format", "Csv"][..],
        &["sensitivity", "--format", "cSV"][..],
    ] {
        let r = run(args);
        assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
        assert!(
            r.stdout.lines().next().is_some_and(|l| l.contains(',')),
            "{args:?}"
        );
    }
}
