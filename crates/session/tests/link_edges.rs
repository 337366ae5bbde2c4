//! Edges of a link's keys, one assertion per rule: each value a key accepts, each it
//! refuses, and what a refused one leaves. (Written against the survivors of
//! `make mutants` on the session group.)

use shardscope_session::analysis::compare::{CompareAxis, ANCHOR_MARKERS};
use shardscope_session::permalink::{decode_component, CompareLink, Link, View};
use shardscope_session::source::{parse_index, Source, SourceError};

fn link(pairs: &[(&str, &str)]) -> (Link, Vec<String>) {
    let pairs: Vec<(String, String)> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let (link, dropped) = Link::from_pairs(&pairs);
    (link, dropped.into_iter().map(|d| d.key).collect())
}

#[test]
fn phases_turn_off_again_and_an_empty_session_is_refused() {
    let (l, dropped) = link(&[("phases", "1"), ("phases", "0")]);
    assert!(!l.trace.phases);
    assert!(dropped.is_empty(), "{dropped:?}");
    for off in ["false", "off"] {
        let (l, _) = link(&[("phases", "on"), ("phases", off)]);
        assert!(!l.trace.phases, "{off}");
    }
    let (l, dropped) = link(&[("session", "  ")]);
    assert_eq!(l.trace.session, None);
    assert_eq!(dropped, ["session"]);
}

#[test]
fn a_time_window_is_wider_than_nothing() {
    let (l, dropped) = link(&[("t", "5-5")]);
    assert_eq!(l.trace.window, None);
    assert_eq!(dropped, ["t"]);
    let (l, dropped) = link(&[("t", "5-6")]);
    assert_eq!(l.trace.window.map(|w| (w.start_ns, w.end_ns)), Some((5, 6)));
    assert!(dropped.is_empty());
}

#[test]
fn presets_are_taken_only_when_known() {
    let (l, dropped) = link(&[("model", "Llama3.1-8B "), ("machine", "h100-hgx")]);
    assert_eq!(l.explore.settings.model, "llama3.1-8b");
    assert_eq!(l.explore.settings.machine, "h100-hgx");
    assert!(dropped.is_empty(), "{dropped:?}");
    let (l, dropped) = link(&[("model", "gpt-9"), ("machine", "abacus")]);
    assert_eq!(l.explore.settings.model, "llama3.1-70b");
    assert_eq!(l.explore.settings.machine, "h200-hgx");
    assert_eq!(dropped, ["model", "machine"]);
}

#[test]
fn infeasible_points_are_on_or_off_and_nothing_else() {
    let (l, dropped) = link(&[("inf", "0")]);
    assert!(!l.explore.infeasible);
    assert!(dropped.is_empty(), "{dropped:?}");
    let (l, dropped) = link(&[("inf", "1"), ("inf", "2")]);
    assert!(l.explore.infeasible);
    assert_eq!(dropped, ["inf"]);
}

#[test]
fn model_and_machine_fields_are_dotted_words_with_a_value() {
    let (l, dropped) = link(&[("m.layers", "40"), ("h.fabric.0.bw_gbps", "900")]);
    assert_eq!(
        l.explore.settings.model_edits,
        [("layers".into(), "40".into())]
    );
    assert_eq!(
        l.explore.settings.machine_edits,
        [("fabric.0.bw_gbps".into(), "900".into())]
    );
    assert!(dropped.is_empty(), "{dropped:?}");
    for bad in ["m.", "m.a..b", "m.a-b", "h..x", "m.x."] {
        let (l, dropped) = link(&[(bad, "3")]);
        assert!(l.explore.settings.model_edits.is_empty(), "{bad}");
        assert!(l.explore.settings.machine_edits.is_empty(), "{bad}");
        assert_eq!(dropped, [bad]);
    }
    let (l, dropped) = link(&[("m.layers", " ")]);
    assert!(l.explore.settings.model_edits.is_empty());
    assert_eq!(dropped, ["m.layers"]);
}

#[test]
fn the_comparison_anchors_at_one_of_the_first_collectives() {
    let last = format!("coll:{}", ANCHOR_MARKERS - 1);
    let (l, dropped) = link(&[("cmp", &last)]);
    assert_eq!(
        l.compare.axis,
        CompareAxis::AtCollective(ANCHOR_MARKERS - 1)
    );
    assert!(dropped.is_empty());
    let (l, dropped) = link(&[("cmp", &format!("coll:{ANCHOR_MARKERS}"))]);
    assert_eq!(l.compare.axis, CompareAxis::default());
    assert_eq!(dropped, ["cmp"]);
    // An axis alone asks for a comparison.
    let axis_only = CompareLink {
        axis: CompareAxis::AtCollective(3),
        ..CompareLink::default()
    };
    assert!(axis_only.is_set());
    assert!(!CompareLink::default().is_set());
}

#[test]
fn escapes_decode_anywhere_in_a_value() {
    assert_eq!(decode_component("ab%20cd%2Fe").as_deref(), Some("ab cd/e"));
    assert_eq!(decode_component("x+y").as_deref(), Some("x y"));
    let (l, dropped) = Link::parse("#v=1&session=run%20b%26co");
    assert_eq!(l.trace.session.as_deref(), Some("run b&co"));
    assert!(dropped.is_empty(), "{dropped:?}");
}

#[test]
fn the_views_are_named_for_people() {
    assert_eq!(View::Trace.label(), "Collective memory spikes");
    assert_eq!(View::Explore.label(), "Parallelism explorer");
}

#[test]
fn only_a_real_scheme_makes_a_path_another_site() {
    assert_eq!(
        Source::parse("run 1:2.json"),
        Ok(Source::File("run 1:2.json".into()))
    );
    assert!(matches!(
        Source::parse("data:text/plain,x"),
        Err(SourceError::CrossOrigin(_))
    ));
    assert!(matches!(Source::parse("1x:y"), Ok(Source::File(_))));
}

#[test]
fn an_index_never_lists_a_backslash() {
    for bad in [r#"{"files": ["a\\b.json"]}"#, r#"{"files": ["\\"]}"#] {
        assert!(
            matches!(parse_index(bad), Err(SourceError::BadPath(_))),
            "{bad}"
        );
    }
    assert_eq!(
        parse_index(r#"{"files": ["rank0.json", "sub/rank1.json"]}"#),
        Ok(vec!["rank0.json".to_string(), "sub/rank1.json".to_string()])
    );
}

#[test]
fn unknown_presets_are_dropped_for_being_unknown() {
    let pairs =
        [("model", "gpt-9"), ("machine", "abacus")].map(|(k, v)| (k.to_string(), v.to_string()));
    let (_, dropped) = Link::from_pairs(&pairs);
    let reasons: Vec<&str> = dropped.iter().map(|d| d.reason).collect();
    assert_eq!(reasons, ["unknown model preset", "unknown machine preset"]);
}

#[test]
fn pins_are_up_to_three_configurations_all_valid() {
    let key = "cp1.tp8.pp1.dp1.split.TP.pe.cube.kv";
    let (l, dropped) = link(&[("pin", &[key; 3].join(","))]);
    assert_eq!(l.explore.pinned.len(), 3);
    assert!(dropped.is_empty(), "{dropped:?}");
    let (l, dropped) = link(&[("pin", &[key; 4].join(","))]);
    assert!(l.explore.pinned.is_empty());
    assert_eq!(dropped, ["pin"]);
    let (l, dropped) = link(&[("pin", &format!("{key},cp3"))]);
    assert!(l.explore.pinned.is_empty());
    assert_eq!(dropped, ["pin"]);
}
