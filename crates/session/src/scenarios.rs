//! Scenarios: explore settings kept under a name, swept side by side and compared
//! (`explorer::compare_frontiers`). One text form for all of them —
//! `machine=b200-hgx,batch=8,model.layers=40,name=big` — read by `shardscope explore
//! --scenario` and (with `:` for `=`) by links; the page's "Add scenario" keeps the
//! current settings as one.

use serde::{Deserialize, Serialize};

use crate::explorer::{
    compare_frontiers, Comparison, EfficiencyMode, ExploreReport, FrontierLine, Mode, Scope,
    MAX_SCENARIOS,
};

use crate::explore_settings::{resolve, ExploreSettings, FieldError};

/// Settings kept under a name (empty: named after what sets it apart).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Scenario {
    pub name: String,
    pub settings: ExploreSettings,
}

/// Longest name kept.
pub const MAX_NAME_CHARS: usize = 40;

/// A name as kept: no commas (the text form's separator), trimmed, at most
/// [`MAX_NAME_CHARS`].
pub fn clean_name(name: &str) -> String {
    let flat: String = name
        .chars()
        .map(|c| if c == ',' || c.is_control() { ' ' } else { c })
        .collect();
    flat.trim()
        .chars()
        .take(MAX_NAME_CHARS)
        .collect::<String>()
        .trim()
        .to_string()
}

/// The keys of the text form, with the other spellings read (the link's and the CLI
/// flags').
const KEYS: [(&str, &[&str]); 11] = [
    ("model", &[]),
    ("machine", &[]),
    ("mode", &[]),
    ("scope", &[]),
    ("efficiency", &["eff"]),
    ("s_kv", &["s-kv"]),
    ("batch", &[]),
    ("ep", &[]),
    ("sla_ttft_ms", &["sla-ttft-ms", "ttft"]),
    ("sla_tpot_ms", &["sla-tpot-ms", "tpot"]),
    ("name", &[]),
];

fn canonical(key: &str) -> Option<&'static str> {
    KEYS.iter()
        .find(|(k, aliases)| *k == key || aliases.contains(&key))
        .map(|(k, _)| *k)
}

fn scenario_error(message: impl Into<String>) -> FieldError {
    FieldError::new("scenario", message)
}

/// Read `key=value,key=value` (or `key:value`) over `base`. Only the keys and the
/// enumerations are checked here; numbers and presets are [`resolve`]'s.
pub fn parse_scenario(text: &str, base: &ExploreSettings) -> Result<Scenario, FieldError> {
    let mut s = Scenario {
        name: String::new(),
        settings: base.clone(),
    };
    for item in text.split(',').map(str::trim).filter(|i| !i.is_empty()) {
        let Some(at) = item.find(['=', ':']) else {
            return Err(scenario_error(format!(
                "`{item}` in a scenario is not key=value"
            )));
        };
        let (key, value) = (item[..at].trim(), item[at + 1..].trim());
        let enum_error = |e: crate::explorer::ExplorerError| {
            scenario_error(format!("scenario {key}: {}", FieldError::from(e).message))
        };
        let set = &mut s.settings;
        if let Some(path) = key
            .strip_prefix("model.")
            .or_else(|| key.strip_prefix("m."))
        {
            edit(&mut set.model_edits, key, path, value)?;
            continue;
        }
        if let Some(path) = key
            .strip_prefix("machine.")
            .or_else(|| key.strip_prefix("h."))
        {
            edit(&mut set.machine_edits, key, path, value)?;
            continue;
        }
        match canonical(key) {
            Some("model") => set.model = value.to_ascii_lowercase(),
            Some("machine") => set.machine = value.to_ascii_lowercase(),
            Some("mode") => set.mode = value.parse::<Mode>().map_err(enum_error)?,
            Some("scope") => set.scope = value.parse::<Scope>().map_err(enum_error)?,
            Some("efficiency") => {
                set.efficiency = value.parse::<EfficiencyMode>().map_err(enum_error)?;
            }
            Some("s_kv") => set.s_kv = value.to_string(),
            Some("batch") => set.batch = value.to_string(),
            Some("ep") => set.ep = value.to_string(),
            Some("sla_ttft_ms") => set.sla_ttft_ms = value.to_string(),
            Some("sla_tpot_ms") => set.sla_tpot_ms = value.to_string(),
            Some(_) => s.name = clean_name(value),
            None => {
                let known: Vec<&str> = KEYS.iter().map(|(k, _)| *k).collect();
                return Err(scenario_error(format!(
                    "unknown scenario key `{key}` (known: {}, model.FIELD, machine.FIELD)",
                    known.join(", ")
                )));
            }
        }
    }
    Ok(s)
}

fn edit(
    edits: &mut Vec<(String, String)>,
    key: &str,
    path: &str,
    value: &str,
) -> Result<(), FieldError> {
    let ok = !path.is_empty()
        && !value.is_empty()
        && path
            .split('.')
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'));
    if !ok {
        return Err(scenario_error(format!(
            "`{key}={value}` in a scenario is not a model or machine field"
        )));
    }
    edits.retain(|(p, _)| p != path);
    edits.push((path.to_string(), value.to_string()));
    Ok(())
}

/// The settings that differ from the defaults, as (key, value), in the text form's order.
fn differing(s: &ExploreSettings) -> Vec<(String, String)> {
    let d = ExploreSettings::default();
    let mut out: Vec<(String, String)> = Vec::new();
    let mut text = |key: &str, v: &str, dv: &str| {
        if v.trim() != dv.trim() {
            out.push((key.to_string(), v.trim().to_string()));
        }
    };
    text("model", &s.model, &d.model);
    text("machine", &s.machine, &d.machine);
    text("mode", s.mode.as_str(), d.mode.as_str());
    text("scope", s.scope.as_str(), d.scope.as_str());
    text("efficiency", s.efficiency.as_str(), d.efficiency.as_str());
    text("s_kv", &s.s_kv, &d.s_kv);
    text("batch", &s.batch, &d.batch);
    text("ep", &s.ep, &d.ep);
    text("sla_ttft_ms", &s.sla_ttft_ms, &d.sla_ttft_ms);
    text("sla_tpot_ms", &s.sla_tpot_ms, &d.sla_tpot_ms);
    for (path, v) in &s.model_edits {
        out.push((format!("model.{path}"), v.trim().to_string()));
    }
    for (path, v) in &s.machine_edits {
        out.push((format!("machine.{path}"), v.trim().to_string()));
    }
    out
}

impl Scenario {
    /// The text form (`sep` between key and value: `=` for the CLI, `:` in links): the
    /// settings that differ from the defaults, then the name when one was given.
    pub fn text(&self, sep: char) -> String {
        let mut items: Vec<String> = differing(&self.settings)
            .into_iter()
            .map(|(k, v)| format!("{k}{sep}{v}"))
            .collect();
        if !self.name.is_empty() {
            items.push(format!("name{sep}{}", self.name));
        }
        items.join(",")
    }
}

/// How one setting reads in an automatic name.
fn label(key: &str, value: &str) -> String {
    match key {
        "model" | "machine" | "mode" => value.to_string(),
        "scope" => format!("{value} only"),
        "efficiency" => format!("{value} efficiency"),
        "s_kv" => format!("S={value}"),
        "batch" => format!("B={value}"),
        "ep" => format!("EP={value}"),
        "sla_ttft_ms" => format!("TTFT≤{value} ms"),
        "sla_tpot_ms" => format!("TPOT≤{value} ms"),
        _ => format!("{key}={value}"),
    }
}

/// Every scenario's name: its own, else what sets it apart from the others (the
/// settings whose values differ across the list: `b200-hgx`, `h200-hgx B=8`), else its
/// machine; repeated names get `#2`, `#3`.
pub fn names(list: &[Scenario]) -> Vec<String> {
    let all: Vec<Vec<(String, String)>> = list
        .iter()
        .map(|s| {
            let mut every = differing(&s.settings);
            // The model and machine always take part, default or not.
            for (k, v) in [
                ("machine", &s.settings.machine),
                ("model", &s.settings.model),
            ] {
                if !every.iter().any(|(key, _)| key == k) {
                    every.insert(0, (k.to_string(), v.trim().to_string()));
                }
            }
            every
        })
        .collect();
    let value_of = |i: usize, key: &str| {
        all[i]
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    };
    let mut keys: Vec<&str> = Vec::new();
    for items in &all {
        for (k, _) in items {
            if !keys.contains(&k.as_str()) {
                keys.push(k);
            }
        }
    }
    let apart: Vec<&str> = keys
        .into_iter()
        .filter(|k| (1..list.len()).any(|i| value_of(i, k) != value_of(0, k)))
        .collect();
    let mut out: Vec<String> = Vec::with_capacity(list.len());
    for (i, s) in list.iter().enumerate() {
        let auto = || {
            let parts: Vec<String> = apart
                .iter()
                .filter_map(|k| value_of(i, k).map(|v| label(k, v)))
                .collect();
            if parts.is_empty() {
                s.settings.machine.trim().to_string()
            } else {
                parts.join(" ")
            }
        };
        let base = if s.name.is_empty() {
            auto()
        } else {
            s.name.clone()
        };
        let mut name = base.clone();
        let mut n = 1;
        while out.contains(&name) {
            n += 1;
            name = format!("{base} #{n}");
        }
        out.push(name);
    }
    out
}

/// One scenario's sweep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScenarioResult {
    pub name: String,
    /// The text form (`=`), what `--scenario` would be given.
    pub settings: String,
    /// What `shardscope explore` prints for these settings.
    pub report: ExploreReport,
}

/// `shardscope explore --scenario … --scenario … --format json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScenarioReport {
    pub scenarios: Vec<ScenarioResult>,
    pub comparison: Comparison,
}

/// Sweep every scenario (at most [`MAX_SCENARIOS`]) and compare their frontiers. A
/// setting that does not resolve names its scenario.
pub fn run_scenarios(list: &[Scenario]) -> Result<ScenarioReport, FieldError> {
    if list.len() > MAX_SCENARIOS {
        return Err(scenario_error(format!(
            "at most {MAX_SCENARIOS} scenarios are compared ({} given)",
            list.len()
        )));
    }
    let names = names(list);
    let mut scenarios = Vec::with_capacity(list.len());
    for (k, (s, name)) in list.iter().zip(&names).enumerate() {
        let about =
            |message: &str| scenario_error(format!("scenario {} ({name}): {message}", k + 1));
        let req = resolve(&s.settings).map_err(|errors| {
            let first = errors
                .first()
                .map_or("invalid settings", |e| e.message.as_str());
            about(first)
        })?;
        let (report, _) = req.explore(false).map_err(|e| about(&e.to_string()))?;
        scenarios.push(ScenarioResult {
            name: name.clone(),
            settings: s.text('='),
            report,
        });
    }
    let lines: Vec<FrontierLine> = scenarios
        .iter()
        .map(|r| FrontierLine::from_configs(&r.name, &r.report.pareto))
        .collect();
    Ok(ScenarioReport {
        comparison: compare_frontiers(&lines),
        scenarios,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sc(text: &str) -> Scenario {
        parse_scenario(text, &ExploreSettings::default()).unwrap()
    }

    #[test]
    fn the_text_form_round_trips_in_both_spellings() {
        let s = sc("machine=h100-hgx, batch=8,eff=corrected,model.layers=40,tpot:50,name=Big one");
        assert_eq!(s.settings.machine, "h100-hgx");
        assert_eq!(s.settings.batch, "8");
        assert_eq!(s.settings.efficiency, EfficiencyMode::Corrected);
        assert_eq!(s.settings.model_edits, vec![("layers".into(), "40".into())]);
        assert_eq!(s.settings.sla_tpot_ms, "50");
        assert_eq!(s.name, "Big one");
        let text = s.text('=');
        assert_eq!(
            text,
            "machine=h100-hgx,efficiency=corrected,batch=8,sla_tpot_ms=50,model.layers=40,name=Big one"
        );
        assert_eq!(sc(&text), s);
        assert_eq!(sc(&s.text(':')), s);
        assert_eq!(sc("").text('='), "");
    }

    #[test]
    fn bad_keys_and_values_name_themselves() {
        let base = ExploreSettings::default();
        let e = parse_scenario("machine=h100-hgx,gpus=8", &base).unwrap_err();
        assert_eq!(e.field, "scenario");
        assert!(
            e.message
                .starts_with("unknown scenario key `gpus` (known: model, machine,"),
            "{}",
            e.message
        );
        let e = parse_scenario("mode=sideways", &base).unwrap_err();
        assert!(e.message.starts_with("scenario mode: "), "{}", e.message);
        assert!(parse_scenario("batch", &base).is_err());
        assert!(parse_scenario("model.=3", &base).is_err());
        assert!(parse_scenario("machine.hbm gb=3", &base).is_err());
        // Numbers are checked when the scenario runs, naming it.
        let bad = vec![sc("batch=0")];
        let e = run_scenarios(&bad).unwrap_err();
        assert_eq!(
            e.message,
            "scenario 1 (h200-hgx): --batch (0) must be between 1 and 16777216"
        );
        let five = vec![Scenario::default(); 5];
        assert!(run_scenarios(&five)
            .unwrap_err()
            .message
            .starts_with("at most 4 scenarios"));
    }

    #[test]
    fn names_say_what_sets_a_scenario_apart() {
        let list = vec![sc("machine=h100-hgx"), sc(""), sc("batch=8")];
        assert_eq!(names(&list), vec!["h100-hgx", "h200-hgx", "h200-hgx B=8"]);
        let list = vec![sc(""), sc(""), sc("name=mine")];
        assert_eq!(names(&list), vec!["h200-hgx", "h200-hgx #2", "mine"]);
        let list = vec![sc("model=llama3.1-8b"), sc("model=llama3.1-405b,s_kv=4096")];
        assert_eq!(names(&list), vec!["llama3.1-8b", "llama3.1-405b S=4096"]);
        assert_eq!(clean_name("  a,b\tc  "), "a b c");
        assert_eq!(clean_name(&"x".repeat(60)).len(), MAX_NAME_CHARS);
    }

    #[test]
    fn each_frontier_is_the_single_sweeps() {
        let list = vec![
            sc("machine=h100-hgx"),
            sc(""),
            sc("batch=8,mode=prefill,s_kv=4096"),
        ];
        let rep = run_scenarios(&list).unwrap();
        assert_eq!(rep.scenarios.len(), 3);
        for (s, r) in list.iter().zip(&rep.scenarios) {
            let req = resolve(&s.settings).unwrap();
            let (alone, _) = req.explore(false).unwrap();
            assert_eq!(r.report, alone);
            assert!(!alone.pareto.is_empty());
        }
        let c = &rep.comparison;
        assert_eq!(
            c.rows[1].frontier_size,
            rep.scenarios[1].report.pareto.len()
        );
        let best = rep.scenarios[1].report.pareto[0].latency_ms();
        assert_eq!(c.rows[1].best_latency_ms, Some(best));
        assert_eq!(c.pairs.len(), 3);
        assert_eq!(c.summary.len(), 4);
        assert!(c.summary[1].contains("h200-hgx"), "{}", c.summary[1]);
    }
}
