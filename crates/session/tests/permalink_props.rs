//! Permalinks: for any settings of either view, encoding then decoding gives the same
//! settings back, with nothing dropped.

use proptest::prelude::*;
use shardscope_session::analysis::compare::CompareAxis;
use shardscope_session::attribution::{OverrideId, Preset};
use shardscope_session::explore_settings::{short_key, ColorBy, ExploreSettings, Knob};
use shardscope_session::explorer::{
    EfficiencyMode, Mode, Scope, MACHINE_PRESETS, MAX_SCENARIOS, MODEL_PRESETS,
};
use shardscope_session::permalink::{CompareLink, ExploreLink, Link, TraceLink, View, MAX_PINNED};
use shardscope_session::scenarios::Scenario;
use shardscope_session::source::Source;
use shardscope_session::window::TimeWindow;

/// Any text with something besides white space in it (session ids, file names).
fn name() -> impl Strategy<Value = String> {
    "[ -~]{0,6}[A-Za-z0-9é,&#%=+~ü中][ -~é中]{0,12}".prop_map(|s| s)
}

fn rank_filter() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        Just("all".to_string()),
        prop::collection::vec((0u32..64, 0u32..4), 1..4).prop_map(|parts| {
            parts
                .iter()
                .map(|&(a, span)| {
                    if span == 0 {
                        a.to_string()
                    } else {
                        format!("{a}-{}", a + span)
                    }
                })
                .collect::<Vec<_>>()
                .join(",")
        }),
    ]
}

fn trace_link() -> impl Strategy<Value = TraceLink> {
    (
        prop_oneof![Just(Preset::Low), Just(Preset::Medium), Just(Preset::High)],
        prop::sample::subsequence(OverrideId::ALL.to_vec(), 0..4),
        prop::collection::vec(-1.0e6f64..1.0e9, 4),
        (any::<bool>(), any::<bool>(), any::<bool>()),
        prop::option::of(name()),
        rank_filter(),
        prop::option::of((0i64..i64::MAX / 2, 1i64..i64::MAX / 2)),
        prop::option::of((any::<i64>(), any::<i64>())),
        (
            prop::collection::vec(name(), 0..4),
            prop::option::of(prop::sample::select(vec![
                Source::Folder("traces/".into()),
                Source::File("run.json.gz".into()),
                Source::Folder("/runs/2026-12-04/".into()),
                Source::File("a b/ç.json".into()),
            ])),
        ),
    )
        .prop_map(
            |(
                preset,
                fields,
                values,
                (phases, align_clocks, align_lanes),
                session,
                ranks,
                window,
                selected,
                (files, src),
            )| TraceLink {
                preset,
                overrides: fields
                    .into_iter()
                    .zip(values)
                    .map(|(f, v)| (f, format!("{v}")))
                    .collect(),
                phases,
                align_clocks,
                align_lanes,
                session,
                ranks,
                window: window.map(|(a, len)| TimeWindow::new(a, a + len)),
                selected,
                files,
                src,
            },
        )
}

fn explore_link() -> impl Strategy<Value = ExploreLink> {
    let topology = (0usize..4, 0usize..4, 0usize..3).prop_map(|(cp, tp, pp)| {
        short_key(&shardscope_session::explorer::TopologyConfig {
            cp: 1 << cp,
            tp: 1 << tp,
            pp: 1 << pp,
            ..Default::default()
        })
    });
    (
        prop::sample::select(MODEL_PRESETS.to_vec()),
        prop::sample::select(MACHINE_PRESETS.to_vec()),
        prop_oneof![Just(Mode::Decode), Just(Mode::Prefill)],
        prop_oneof![Just(Scope::All), Just(Scope::Attention), Just(Scope::Ffn)],
        prop_oneof![Just(EfficiencyMode::Seed), Just(EfficiencyMode::Corrected)],
        (1u64..1 << 20, 1u64..512, 1u64..64),
        (prop::option::of(1u32..10_000), prop::option::of(1u32..1000)),
        prop::collection::vec(
            (
                "[a-z_]{1,8}(\\.[a-z_0-9]{1,6})?",
                "[0-9]{1,6}(\\.[0-9]{1,3})?",
            ),
            0..3,
        ),
        (
            prop::option::of(topology.clone()),
            prop::collection::vec(topology, 0..=MAX_PINNED),
        ),
        any::<bool>(),
        prop_oneof![
            Just(ColorBy::Efficiency),
            prop::sample::select(Knob::ALL.to_vec()).prop_map(ColorBy::Knob)
        ],
    )
        .prop_map(
            |(
                model,
                machine,
                mode,
                scope,
                efficiency,
                (s_kv, batch, ep),
                (ttft, tpot),
                edits,
                (selected, pinned),
                infeasible,
                color,
            )| {
                let mut unique: Vec<(String, String)> = Vec::new();
                for (path, value) in edits {
                    if !unique.iter().any(|(p, _)| *p == path) {
                        unique.push((path, value));
                    }
                }
                let settings = ExploreSettings {
                    model: model.to_string(),
                    machine: machine.to_string(),
                    mode,
                    scope,
                    efficiency,
                    s_kv: s_kv.to_string(),
                    batch: batch.to_string(),
                    ep: ep.to_string(),
                    sla_ttft_ms: ttft.map(|v| v.to_string()).unwrap_or_default(),
                    sla_tpot_ms: tpot.map(|v| format!("{}.5", v)).unwrap_or_default(),
                    model_edits: unique.clone(),
                    machine_edits: unique.into_iter().rev().collect(),
                    // One measurement of the selected config, in both units when pinned.
                    calibration: selected
                        .iter()
                        .map(|k| format!("cfg={k},latency_ms={}.25", s_kv % 97 + 1))
                        .chain(
                            pinned
                                .first()
                                .map(|k| format!("cfg={k},tok_s={},batch=4", batch * 10)),
                        )
                        .collect(),
                };
                // Up to four scenarios of these settings (without the random edits, which
                // need not name real fields: a scenario that does not resolve is dropped).
                let scenarios = (0..(s_kv as usize) % (MAX_SCENARIOS + 1))
                    .map(|i| Scenario {
                        name: if i == 0 {
                            String::new()
                        } else {
                            format!("run {i}")
                        },
                        settings: ExploreSettings {
                            model_edits: Vec::new(),
                            machine_edits: Vec::new(),
                            calibration: Vec::new(),
                            batch: (i + 1).to_string(),
                            ..settings.clone()
                        },
                    })
                    .collect();
                ExploreLink {
                    settings,
                    selected,
                    pinned,
                    infeasible,
                    color,
                    scenarios,
                }
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn a_link_decodes_to_the_settings_it_was_made_from(
        view in prop_oneof![Just(View::Trace), Just(View::Explore)],
        trace in trace_link(),
        explore in explore_link(),
        run_b in trace_link(),
        axis in prop_oneof![Just(CompareAxis::FromStart), (0usize..256).prop_map(CompareAxis::AtCollective)],
    ) {
        // Run B has the attribution keys and files of a run; the view's keys are A's.
        let settings = TraceLink {
            ranks: String::new(),
            window: None,
            selected: None,
            align_lanes: false,
            src: None,
            ..run_b
        };
        let compare = CompareLink { settings, axis };
        let link = Link { view, trace, compare, explore };
        let fragment = link.fragment();
        let (decoded, dropped) = Link::parse(&fragment);
        prop_assert!(dropped.is_empty(), "{fragment}: dropped {dropped:?}");
        prop_assert_eq!(&decoded, &link, "{}", fragment);
        prop_assert_eq!(decoded.fragment(), fragment);
    }
}
