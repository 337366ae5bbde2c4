//! Permalinks: the page's settings in its URL fragment, never its data.
//!
//! `#v=1&view=trace&preset=high&o.min_confidence=0.7&phases=1&clocks=aligned&ranks=0,2,4-7&t=START-END`
//! — readable keys people can edit, a version key, only values that differ from the
//! defaults. Decoding is forgiving: unknown keys and bad values are dropped and listed
//! (the page shows one notice), everything else is kept. Decoding never fails.

use crate::analysis::compare::{CompareAxis, ANCHOR_MARKERS};
use crate::attribution::{OverrideId, Preset};

use super::explore_settings::{
    parse_count, parse_measurement, parse_ms, parse_short_key, resolve, ColorBy, ExploreSettings,
};
use super::rank_filter::check_rank_filter;
use super::scenarios::{parse_scenario, Scenario};
use super::source::{Source, SourceError, REPORT_TRACES};
use super::window::TimeWindow;
use crate::explorer::{
    EfficiencyMode, Mode, Scope, TopologyConfig, MACHINE_PRESETS, MAX_BATCH, MAX_DEGREE,
    MAX_SCENARIOS, MAX_S_KV, MODEL_PRESETS,
};

/// The version this page writes and reads.
pub const LINK_VERSION: u32 = 1;

/// The page's two views.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum View {
    /// "Which memory spikes were caused by collective communication?"
    #[default]
    Trace,
    /// "How should I split this model over this machine?"
    Explore,
}

impl View {
    pub const ALL: [View; 2] = [View::Trace, View::Explore];

    /// The name used in links and element ids.
    pub fn as_str(self) -> &'static str {
        match self {
            View::Trace => "trace",
            View::Explore => "explore",
        }
    }

    pub fn parse(name: &str) -> Option<View> {
        View::ALL.into_iter().find(|v| v.as_str() == name.trim())
    }

    pub fn label(self) -> &'static str {
        match self {
            View::Trace => "Collective memory spikes",
            View::Explore => "Parallelism explorer",
        }
    }
}

/// The trace view's settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceLink {
    /// `low`, `medium` or `high`.
    pub preset: Preset,
    /// Override fields and the text typed for them (numbers, validated on use).
    pub overrides: Vec<(OverrideId, String)>,
    pub phases: bool,
    /// Beyond stormlog: attribute on the reference rank's clock (`clocks=aligned`).
    pub align_clocks: bool,
    /// Draw the lanes on the reference rank's clock (`lanes=aligned`).
    pub align_lanes: bool,
    /// A session other than stormlog's default.
    pub session: Option<String>,
    /// The rank filter text (`0,2,4-7`); empty = all ranks.
    pub ranks: String,
    /// The visible window, on the trace's own clock.
    pub window: Option<TimeWindow>,
    /// The selected interval: (rank, interval start).
    pub selected: Option<(i64, i64)>,
    /// The names of the files the settings were made for (asked for again on open).
    pub files: Vec<String>,
    /// Where the traces are on this site (`src=traces/`): opened with the link.
    pub src: Option<Source>,
}

impl Default for TraceLink {
    fn default() -> Self {
        TraceLink {
            preset: Preset::Medium,
            overrides: Vec::new(),
            phases: false,
            align_clocks: false,
            align_lanes: false,
            session: None,
            ranks: String::new(),
            window: None,
            selected: None,
            files: Vec::new(),
            src: None,
        }
    }
}

/// The explore view's part of a link: its settings, the selected and pinned configs
/// (as [`short_key`](super::explore::short_key)s) and whether infeasible configs show.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ExploreLink {
    pub settings: ExploreSettings,
    pub selected: Option<String>,
    pub pinned: Vec<String>,
    pub infeasible: bool,
    /// What the scatter's colours mean.
    pub color: ColorBy,
    /// Scenarios kept for the overlay (`sc=machine:h100-hgx,batch:8`, one key each).
    pub scenarios: Vec<Scenario>,
}

/// Run B of a comparison: its own attribution settings and files (`b.preset=high`,
/// `b.o.FIELD=…`, `b.phases=1`, `b.clocks=aligned`, `b.session=…`, `b.files=…`; the
/// view's keys of [`TraceLink`] — ranks, window, selection, lanes — are run A's and
/// shared), and where B's lanes sit (`cmp=start` or `cmp=coll:N`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CompareLink {
    /// Only the attribution keys and `files` are used.
    pub settings: TraceLink,
    pub axis: CompareAxis,
}

impl CompareLink {
    /// Whether the link asks for a comparison at all.
    pub fn is_set(&self) -> bool {
        self.settings != TraceLink::default() || self.axis != CompareAxis::default()
    }
}

/// The keys of a run's attribution settings that run B has too (`b.` before them).
const RUN_B_KEYS: [&str; 5] = ["preset", "phases", "clocks", "session", "files"];

/// Everything a link carries.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Link {
    pub view: View,
    pub trace: TraceLink,
    pub compare: CompareLink,
    pub explore: ExploreLink,
}

/// Most configurations a link pins.
pub const MAX_PINNED: usize = 3;

/// A part of a link that was not used, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dropped {
    pub key: String,
    pub value: String,
    pub reason: &'static str,
}

/// Characters left as they are in values: unreserved ones, plus `,` and `:`, which
/// fragments allow and which keep lists readable. `%` and `&`/`=`/`#`/`+` are escaped.
fn keep(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~' | b',' | b':' | b'/')
}

/// Percent-encode `text` (UTF-8) for a fragment value.
pub fn encode_component(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for &b in text.as_bytes() {
        if keep(b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Percent-decode; `None` for a broken escape or bytes that are not UTF-8.
pub fn decode_component(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = text.get(i + 1..i + 3)?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

/// A list value: items percent-encoded (commas inside items included), joined by `,`.
fn encode_list(items: &[String]) -> String {
    items
        .iter()
        .map(|s| encode_component(s).replace(',', "%2C"))
        .collect::<Vec<_>>()
        .join(",")
}

fn decode_list(raw: &str) -> Option<Vec<String>> {
    raw.split(',')
        .filter(|s| !s.is_empty())
        .map(decode_component)
        .collect()
}

/// Most file names a link lists (a 512-rank run would otherwise make a huge link).
pub const MAX_LINK_FILES: usize = 64;

impl Link {
    /// The fragment, with its `#`.
    pub fn fragment(&self) -> String {
        let mut parts: Vec<String> = vec![
            format!("v={LINK_VERSION}"),
            format!("view={}", self.view.as_str()),
        ];
        let t = &self.trace;
        if t.preset != Preset::Medium {
            parts.push(format!("preset={}", t.preset.as_str()));
        }
        for (field, value) in &t.overrides {
            if !value.trim().is_empty() {
                let field = field.name();
                parts.push(format!("o.{field}={}", encode_component(value.trim())));
            }
        }
        if t.phases {
            parts.push("phases=1".to_string());
        }
        if t.align_clocks {
            parts.push("clocks=aligned".to_string());
        }
        if t.align_lanes {
            parts.push("lanes=aligned".to_string());
        }
        if let Some(session) = &t.session {
            parts.push(format!("session={}", encode_component(session)));
        }
        if !t.ranks.trim().is_empty() {
            parts.push(format!("ranks={}", encode_component(t.ranks.trim())));
        }
        if let Some(w) = t.window {
            parts.push(format!("t={}-{}", w.start_ns, w.end_ns));
        }
        if let Some((rank, start)) = t.selected {
            parts.push(format!("sel={rank}:{start}"));
        }
        if !t.files.is_empty() {
            let listed = &t.files[..t.files.len().min(MAX_LINK_FILES)];
            parts.push(format!("files={}", encode_list(listed)));
        }
        if let Some(src) = &t.src {
            parts.push(format!("src={}", encode_component(src.text())));
        }
        self.compare_parts(&mut parts);
        self.explore_parts(&mut parts);
        format!("#{}", parts.join("&"))
    }

    /// Run B's keys (`b.…`) and the comparison's axis.
    fn compare_parts(&self, parts: &mut Vec<String>) {
        let b = &self.compare.settings;
        if b.preset != Preset::Medium {
            parts.push(format!("b.preset={}", b.preset.as_str()));
        }
        for (field, value) in &b.overrides {
            if !value.trim().is_empty() {
                let field = field.name();
                parts.push(format!("b.o.{field}={}", encode_component(value.trim())));
            }
        }
        if b.phases {
            parts.push("b.phases=1".to_string());
        }
        if b.align_clocks {
            parts.push("b.clocks=aligned".to_string());
        }
        if let Some(session) = &b.session {
            parts.push(format!("b.session={}", encode_component(session)));
        }
        if !b.files.is_empty() {
            let listed = &b.files[..b.files.len().min(MAX_LINK_FILES)];
            parts.push(format!("b.files={}", encode_list(listed)));
        }
        match self.compare.axis {
            CompareAxis::FromStart => {}
            CompareAxis::AtCollective(n) => parts.push(format!("cmp=coll:{n}")),
        }
    }

    /// Read a fragment (with or without its `#`): the settings, and what was dropped.
    pub fn parse(fragment: &str) -> (Link, Vec<Dropped>) {
        let mut link = Link::default();
        let mut dropped = Vec::new();
        let body = fragment.strip_prefix('#').unwrap_or(fragment);
        for pair in body.split('&').filter(|p| !p.is_empty()) {
            let (key, raw) = pair.split_once('=').unwrap_or((pair, ""));
            let mut drop = |reason: &'static str| {
                dropped.push(Dropped {
                    key: decode_component(key).unwrap_or_else(|| key.to_string()),
                    value: decode_component(raw).unwrap_or_else(|| raw.to_string()),
                    reason,
                });
            };
            match link.apply(key, raw) {
                Ok(()) => {}
                Err(reason) => drop(reason),
            }
        }
        (link, dropped)
    }

    /// Settings given as key/value pairs with a link's keys (what another page sends
    /// with its files through `postMessage`): read as a fragment would be. `files`,
    /// `src` and run B's files are dropped: the message brings the files itself.
    pub fn from_pairs(pairs: &[(String, String)]) -> (Link, Vec<Dropped>) {
        let mut link = Link::default();
        let mut dropped = Vec::new();
        for (key, value) in pairs {
            let key = key.trim();
            let result = if matches!(key, "files" | "src" | "b.files") {
                Err("the message brings its files itself")
            } else {
                link.apply(key, &encode_component(value))
            };
            if let Err(reason) = result {
                dropped.push(Dropped {
                    key: key.to_string(),
                    value: value.clone(),
                    reason,
                });
            }
        }
        (link, dropped)
    }

    /// The explore keys that differ from the defaults.
    fn explore_parts(&self, parts: &mut Vec<String>) {
        let e = &self.explore;
        let d = ExploreSettings::default();
        let s = &e.settings;
        let mut text = |key: &str, value: &str, default: &str| {
            if value.trim() != default {
                parts.push(format!("{key}={}", encode_component(value.trim())));
            }
        };
        text("model", &s.model, &d.model);
        text("machine", &s.machine, &d.machine);
        text("mode", s.mode.as_str(), d.mode.as_str());
        text("scope", s.scope.as_str(), d.scope.as_str());
        text("eff", s.efficiency.as_str(), d.efficiency.as_str());
        text("s_kv", &s.s_kv, &d.s_kv);
        text("batch", &s.batch, &d.batch);
        text("ep", &s.ep, &d.ep);
        text("ttft", &s.sla_ttft_ms, "");
        text("tpot", &s.sla_tpot_ms, "");
        for (prefix, edits) in [("m", &s.model_edits), ("h", &s.machine_edits)] {
            for (path, value) in edits {
                parts.push(format!(
                    "{prefix}.{path}={}",
                    encode_component(value.trim())
                ));
            }
        }
        if let Some(sel) = &e.selected {
            parts.push(format!("cfg={}", encode_component(sel)));
        }
        if !e.pinned.is_empty() {
            parts.push(format!("pin={}", encode_list(&e.pinned)));
        }
        if e.infeasible {
            parts.push("inf=1".to_string());
        }
        if e.color != ColorBy::Efficiency {
            parts.push(format!("color={}", e.color.name()));
        }
        for m in &s.calibration {
            parts.push(format!("cal={}", encode_component(&m.replace('=', ":"))));
        }
        for sc in &e.scenarios {
            parts.push(format!("sc={}", encode_component(&sc.text(':'))));
        }
    }

    /// Use one explore `key=value`; `None` when the key is not an explore key.
    fn apply_explore(
        &mut self,
        key: &str,
        value: &str,
        raw: &str,
    ) -> Option<Result<(), &'static str>> {
        let s = &mut self.explore.settings;
        let known = |list: &[&str], v: &str| list.iter().any(|p| p.eq_ignore_ascii_case(v.trim()));
        let base = TopologyConfig::default();
        Some(match key {
            "model" if known(MODEL_PRESETS, value) => {
                s.model = value.trim().to_ascii_lowercase();
                Ok(())
            }
            "model" => Err("unknown model preset"),
            "machine" if known(MACHINE_PRESETS, value) => {
                s.machine = value.trim().to_ascii_lowercase();
                Ok(())
            }
            "machine" => Err("unknown machine preset"),
            "mode" => value
                .parse::<Mode>()
                .map(|m| s.mode = m)
                .map_err(|_| "unknown mode"),
            "scope" => value
                .parse::<Scope>()
                .map(|m| s.scope = m)
                .map_err(|_| "unknown scope"),
            "eff" => value
                .parse::<EfficiencyMode>()
                .map(|m| s.efficiency = m)
                .map_err(|_| "unknown efficiency mode"),
            "s_kv" => parse_count("s-kv", value, MAX_S_KV)
                .map(|_| s.s_kv = value.trim().to_string())
                .map_err(|_| "not a sequence length"),
            "batch" => parse_count("batch", value, u64::from(MAX_BATCH))
                .map(|_| s.batch = value.trim().to_string())
                .map_err(|_| "not a batch size"),
            "ep" => parse_count("ep", value, u64::from(MAX_DEGREE))
                .map(|_| s.ep = value.trim().to_string())
                .map_err(|_| "not an EP degree"),
            "ttft" => parse_ms("sla-ttft-ms", value)
                .map(|_| s.sla_ttft_ms = value.trim().to_string())
                .map_err(|_| "not milliseconds"),
            "tpot" => parse_ms("sla-tpot-ms", value)
                .map(|_| s.sla_tpot_ms = value.trim().to_string())
                .map_err(|_| "not milliseconds"),
            "cfg" => parse_short_key(value, &base)
                .map(|_| self.explore.selected = Some(value.trim().to_string()))
                .map_err(|_| "not a configuration"),
            "pin" => match decode_list(raw) {
                Some(list)
                    if list.len() <= MAX_PINNED
                        && list.iter().all(|k| parse_short_key(k, &base).is_ok()) =>
                {
                    self.explore.pinned = list;
                    Ok(())
                }
                _ => Err("not up to three configurations"),
            },
            _ if key.starts_with("m.") || key.starts_with("h.") => {
                let (prefix, path) = key.split_at(2);
                let ok_path = !path.is_empty()
                    && path.split('.').all(|p| {
                        !p.is_empty() && p.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
                    });
                if !ok_path || value.trim().is_empty() {
                    return Some(Err("not a model or machine field"));
                }
                let edits = if prefix == "m." {
                    &mut s.model_edits
                } else {
                    &mut s.machine_edits
                };
                edits.retain(|(p, _)| p != path);
                edits.push((path.to_string(), value.trim().to_string()));
                Ok(())
            }
            "cal" => match parse_measurement(value, &base) {
                Ok(_) => {
                    s.calibration.push(value.trim().replace(':', "="));
                    Ok(())
                }
                Err(_) => Err("not a measurement"),
            },
            "sc" if self.explore.scenarios.len() >= MAX_SCENARIOS => {
                Err("more than four scenarios")
            }
            "sc" => match parse_scenario(value, &ExploreSettings::default()) {
                Ok(sc) if resolve(&sc.settings).is_ok() => {
                    self.explore.scenarios.push(sc);
                    Ok(())
                }
                _ => Err("not a scenario"),
            },
            "color" => ColorBy::parse(value.trim())
                .map(|c| self.explore.color = c)
                .ok_or("not a colouring"),
            "inf" => match value {
                "1" => {
                    self.explore.infeasible = true;
                    Ok(())
                }
                "0" => Ok(()),
                _ => Err("not 0 or 1"),
            },
            _ => return None,
        })
    }

    /// Use one `key=value` of a link (`raw` still percent-encoded): run B's keys, the
    /// comparison axis, the explorer's, the page's, then the trace view's.
    fn apply(&mut self, key: &str, raw: &str) -> Result<(), &'static str> {
        if let Some(rest) = key.strip_prefix("b.") {
            return self.apply_run_b(rest, raw);
        }
        if key == "cmp" {
            return self.apply_compare_axis(raw);
        }
        if key != "files" && key != "pin" {
            if let Some(value) = decode_component(raw) {
                if let Some(result) = self.apply_explore(key, &value, raw) {
                    return result;
                }
            }
        } else if key == "pin" {
            if let Some(result) = self.apply_explore(key, "", raw) {
                return result;
            }
        }
        if key == "files" {
            let mut files = decode_list(raw).ok_or("not a list of names")?;
            // As many as a link made here lists (a longer list was made by hand).
            files.truncate(MAX_LINK_FILES);
            self.trace.files = files;
            return Ok(());
        }
        let value = decode_component(raw).ok_or("not decodable")?;
        let value = value.as_str();
        match key {
            "v" => match value.parse::<u32>() {
                Ok(LINK_VERSION) => Ok(()),
                Ok(_) => Err("made by another version of Shardscope"),
                Err(_) => Err("not a version number"),
            },
            "view" => View::parse(value)
                .map(|v| self.view = v)
                .ok_or("unknown view"),
            _ => self.apply_trace(key, value),
        }
    }

    /// A key of run B (`b.` stripped): read as run A's keys are, into run B's settings.
    fn apply_run_b(&mut self, rest: &str, raw: &str) -> Result<(), &'static str> {
        if !RUN_B_KEYS.contains(&rest) && !rest.starts_with("o.") {
            return Err("not a setting of run B");
        }
        // Run B's keys read as run A's do, into run B's settings.
        let mut run_b = Link {
            trace: std::mem::take(&mut self.compare.settings),
            ..Link::default()
        };
        let result = run_b.apply(rest, raw);
        self.compare.settings = run_b.trace;
        result
    }

    /// `cmp=start` or `cmp=coll:N`: where run B's lanes line up with run A's.
    fn apply_compare_axis(&mut self, raw: &str) -> Result<(), &'static str> {
        let value = decode_component(raw).unwrap_or_default();
        let value = value.trim();
        self.compare.axis = match value.strip_prefix("coll:") {
            _ if value == "start" => CompareAxis::FromStart,
            Some(n) => CompareAxis::AtCollective(
                n.parse::<usize>()
                    .ok()
                    .filter(|&n| n < ANCHOR_MARKERS)
                    .ok_or("not a collective's number")?,
            ),
            None => return Err("not start or coll:N"),
        };
        Ok(())
    }

    /// A key of the trace view (`value` decoded).
    fn apply_trace(&mut self, key: &str, value: &str) -> Result<(), &'static str> {
        let t = &mut self.trace;
        match key {
            "src" => match Source::parse(value) {
                Ok(src) => {
                    t.src = Some(src);
                    Ok(())
                }
                Err(SourceError::CrossOrigin(_)) => {
                    Err("a URL of another site: links open traces of this page's own site only")
                }
                Err(_) => Err("not a path of this site"),
            },
            "preset" => Preset::parse(value)
                .map(|p| t.preset = p)
                .map_err(|_| "unknown preset"),
            "clocks" | "lanes" => {
                let aligned = match value {
                    "aligned" => true,
                    "raw" => false,
                    _ => return Err("not aligned or raw"),
                };
                if key == "clocks" {
                    t.align_clocks = aligned;
                } else {
                    t.align_lanes = aligned;
                }
                Ok(())
            }
            "phases" => match value {
                "1" | "true" | "on" => {
                    t.phases = true;
                    Ok(())
                }
                "0" | "false" | "off" => {
                    t.phases = false;
                    Ok(())
                }
                _ => Err("not 0 or 1"),
            },
            "session" if !value.trim().is_empty() => {
                t.session = Some(value.to_string());
                Ok(())
            }
            "ranks" => check_rank_filter(value)
                .map(|()| t.ranks = value.trim().to_string())
                .map_err(|_| "not a rank filter"),
            "t" => {
                let (a, b) = value.split_once('-').ok_or("not START-END")?;
                match (a.parse::<i64>(), b.parse::<i64>()) {
                    (Ok(a), Ok(b)) if b > a => {
                        t.window = Some(TimeWindow::new(a, b));
                        Ok(())
                    }
                    _ => Err("not START-END in nanoseconds"),
                }
            }
            "sel" => {
                let (r, s) = value.split_once(':').ok_or("not RANK:START")?;
                match (r.parse::<i64>(), s.parse::<i64>()) {
                    (Ok(r), Ok(s)) => {
                        t.selected = Some((r, s));
                        Ok(())
                    }
                    _ => Err("not RANK:START"),
                }
            }
            _ => match key.strip_prefix("o.").map(OverrideId::from_name) {
                Some(Some(field)) => {
                    let number = value.trim();
                    if number.parse::<f64>().is_ok_and(f64::is_finite) {
                        t.overrides.retain(|(f, _)| *f != field);
                        t.overrides.push((field, number.to_string()));
                        Ok(())
                    } else {
                        Err("not a number")
                    }
                }
                Some(None) => Err("unknown override"),
                None => Err("unknown key"),
            },
        }
    }
}

/// One line for the notice about what a link could not use.
pub fn dropped_notice(dropped: &[Dropped]) -> Option<String> {
    if dropped.is_empty() {
        return None;
    }
    let items: Vec<String> = dropped
        .iter()
        .map(|d| {
            if d.value.is_empty() {
                format!("`{}` ({})", d.key, d.reason)
            } else {
                format!("`{}={}` ({})", d.key, d.value, d.reason)
            }
        })
        .collect();
    Some(format!(
        "Parts of this link were ignored: {}. Everything else was restored.",
        items.join(", ")
    ))
}

/// The link a report prints, relative to its folder: the page with `settings` (their
/// attribution keys) and `src=traces/`.
pub fn report_link(settings: &TraceLink) -> String {
    let link = Link {
        view: View::Trace,
        trace: TraceLink {
            src: Some(Source::Folder(REPORT_TRACES.to_string())),
            ..settings.clone()
        },
        ..Link::default()
    };
    format!("index.html{}", link.fragment())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scenarios_travel_in_the_link() {
        let base = ExploreSettings::default();
        let texts = [
            "machine=h200-hgx,model.layers=40",
            "machine=h100-hgx,batch=8,sla_tpot_ms=25,name=H100 at B=8",
            "model=deepseek-v3,machine=tile-wafer,ep=8,machine.l1.bw_bytes_per_s=5e10",
            "mode=prefill,s_kv=4096,efficiency=corrected,scope=attention",
        ];
        let scenarios: Vec<Scenario> = texts
            .iter()
            .map(|t| parse_scenario(t, &base).unwrap())
            .collect();
        let link = Link {
            view: View::Explore,
            explore: ExploreLink {
                scenarios: scenarios.clone(),
                ..ExploreLink::default()
            },
            ..Link::default()
        };
        let fragment = link.fragment();
        assert!(
            fragment
                .contains("&sc=machine:h100-hgx,batch:8,sla_tpot_ms:25,name:H100%20at%20B%3D8&"),
            "{fragment}"
        );
        assert!(fragment.len() < 2000, "{} characters", fragment.len());
        assert_eq!(Link::parse(&fragment), (link, vec![]));
        // A fifth, and one that does not resolve, are dropped with their reasons.
        let (parsed, dropped) = Link::parse(&format!("{fragment}&sc=batch:2&sc=machine:tpu"));
        assert_eq!(parsed.explore.scenarios, scenarios);
        let reasons: Vec<&str> = dropped.iter().map(|d| d.reason).collect();
        assert_eq!(
            reasons,
            vec!["more than four scenarios", "more than four scenarios"]
        );
        let (parsed, dropped) = Link::parse("#v=1&sc=machine:tpu&sc=gpus:3&sc=batch:0&sc=batch:2");
        assert_eq!(parsed.explore.scenarios.len(), 1);
        assert_eq!(dropped.len(), 3);
        assert!(dropped.iter().all(|d| d.reason == "not a scenario"));
    }

    #[test]
    fn explore_settings_round_trip_and_bad_ones_are_dropped() {
        let link = Link {
            view: View::Explore,
            explore: ExploreLink {
                settings: ExploreSettings {
                    model: "deepseek-v3".into(),
                    mode: Mode::Prefill,
                    batch: "64".into(),
                    ep: "8".into(),
                    sla_tpot_ms: "20".into(),
                    model_edits: vec![
                        ("layers".into(), "40".into()),
                        ("mla.r_kv".into(), "256".into()),
                    ],
                    machine_edits: vec![("l1.bw_bytes_per_s".into(), "5e10".into())],
                    calibration: vec![
                        "cfg=cp2.tp4.pp1.dp1.split.TP+CP.pe.pe.qoml,latency_ms=12.5".into(),
                        "cfg=cp1.tp8.pp1.dp1.split.TP.pe.pe.kv,tok_s=900,batch=8".into(),
                    ],
                    ..ExploreSettings::default()
                },
                selected: Some("cp2.tp4.pp1.dp1.split.TP+CP.pe.pe.qoml".into()),
                pinned: vec!["cp1.tp8.pp1.dp1.split.TP.pe.pe.kv".into()],
                infeasible: true,
                color: ColorBy::Knob(crate::explore_settings::Knob::Tp),
                scenarios: Vec::new(),
            },
            ..Link::default()
        };
        let fragment = link.fragment();
        assert!(
            fragment.contains("model=deepseek-v3&mode=prefill&batch=64&ep=8&tpot=20"),
            "{fragment}"
        );
        assert!(
            fragment.contains("cfg=cp2.tp4.pp1.dp1.split.TP%2BCP.pe.pe.qoml"),
            "{fragment}"
        );
        assert_eq!(Link::parse(&fragment), (link, vec![]));
        let (garbled, dropped) = Link::parse(
            "#v=1&view=explore&model=gpt-9&batch=0&mode=sideways&cfg=cp2&pin=a,b,c,d&s_kv=4096",
        );
        assert_eq!(garbled.view, View::Explore);
        assert_eq!(garbled.explore.settings.s_kv, "4096");
        assert_eq!(garbled.explore.settings.model, "llama3.1-70b");
        let keys: Vec<&str> = dropped.iter().map(|d| d.key.as_str()).collect();
        assert_eq!(keys, ["model", "batch", "mode", "cfg", "pin"]);
    }

    fn full() -> Link {
        Link {
            view: View::Trace,
            trace: TraceLink {
                preset: Preset::High,
                overrides: vec![
                    (OverrideId::MinConfidence, "0.7".into()),
                    (OverrideId::MinGapBytes, "134217728".into()),
                ],
                phases: true,
                align_clocks: true,
                align_lanes: true,
                session: Some("sess B&co".into()),
                ranks: "0,2,4-7".into(),
                window: Some(TimeWindow::new(
                    1_700_000_001_000_000_000,
                    1_700_000_003_500_000_000,
                )),
                selected: Some((3, 1_700_000_001_880_000_000)),
                src: Some(Source::Folder("runs/nightly 12/".into())),
                files: vec!["rank0_events.json".into(), "odd,name#1.json".into()],
            },
            compare: CompareLink::default(),
            explore: ExploreLink::default(),
        }
    }

    #[test]
    fn run_b_keeps_its_own_settings_and_files_and_the_axis() {
        let mut link = full();
        link.compare = CompareLink {
            settings: TraceLink {
                preset: Preset::Low,
                overrides: vec![(OverrideId::MinConfidence, "0.5".into())],
                phases: true,
                align_clocks: true,
                session: Some("run b".into()),
                files: vec!["b/rank0.json".into(), "b/rank1.json".into()],
                ..TraceLink::default()
            },
            axis: CompareAxis::AtCollective(3),
        };
        let fragment = link.fragment();
        assert!(
            fragment.contains(
                "&b.preset=low&b.o.min_confidence=0.5&b.phases=1&b.clocks=aligned\
                 &b.session=run%20b&b.files=b/rank0.json,b/rank1.json&cmp=coll:3"
            ),
            "{fragment}"
        );
        assert_eq!(Link::parse(&fragment), (link.clone(), vec![]));
        assert!(link.compare.is_set() && !Link::default().compare.is_set());
        // Run A's settings are untouched by run B's keys and the other way round.
        let (only_b, dropped) =
            Link::parse("#b.preset=high&b.ranks=1&b.b.preset=low&cmp=coll:x&cmp=start");
        assert_eq!(only_b.trace.preset, Preset::Medium);
        assert_eq!(only_b.compare.settings.preset, Preset::High);
        assert_eq!(only_b.compare.axis, CompareAxis::FromStart);
        let reasons: Vec<(&str, &str)> =
            dropped.iter().map(|d| (d.key.as_str(), d.reason)).collect();
        assert_eq!(
            reasons,
            [
                ("b.ranks", "not a setting of run B"),
                ("b.b.preset", "not a setting of run B"),
                ("cmp", "not a collective's number"),
            ]
        );
    }

    #[test]
    fn round_trip_is_the_identity() {
        let link = full();
        let fragment = link.fragment();
        assert_eq!(
            fragment,
            "#v=1&view=trace&preset=high&o.min_confidence=0.7&o.min_gap_bytes=134217728\
             &phases=1&clocks=aligned&lanes=aligned&session=sess%20B%26co&ranks=0,2,4-7\
             &t=1700000001000000000-1700000003500000000&sel=3:1700000001880000000\
             &files=rank0_events.json,odd%2Cname%231.json&src=runs/nightly%2012/"
        );
        assert_eq!(Link::parse(&fragment), (link, vec![]));
        // A source of another site is dropped with its reason.
        let (other, dropped) = Link::parse("#v=1&src=https%3A%2F%2Fevil.example%2Ft%2F");
        assert_eq!(other.trace.src, None);
        assert_eq!(
            (dropped[0].key.as_str(), dropped[0].reason),
            (
                "src",
                "a URL of another site: links open traces of this page's own site only"
            )
        );
        // A report's link: its settings and src=traces/, read back the same.
        let link = report_link(&TraceLink {
            preset: crate::attribution::Preset::High,
            phases: true,
            ..TraceLink::default()
        });
        assert_eq!(
            link,
            "index.html#v=1&view=trace&preset=high&phases=1&src=traces/"
        );
        let (parsed, dropped) = Link::parse(link.trim_start_matches("index.html"));
        assert!(dropped.is_empty());
        assert_eq!(
            parsed.trace.src,
            Some(Source::Folder(REPORT_TRACES.to_string()))
        );
        // A tab, newline, carriage return or backslash the browser would drop or turn
        // into `/` (making `//evil.example/`): refused as not a path of this site.
        for hidden in ["%09", "%0A", "%0D", "%5C", "%0a"] {
            let (other, dropped) =
                Link::parse(&format!("#v=1&src=/{hidden}/evil.example/run.json"));
            assert_eq!(other.trace.src, None, "{hidden}");
            assert_eq!(
                (dropped[0].key.as_str(), dropped[0].reason),
                ("src", "not a path of this site"),
                "{hidden}"
            );
        }
        // The same keys as pairs (a message from another page), files refused.
        let pairs: Vec<(String, String)> = [
            ("preset", "high"),
            ("o.min_confidence", "0.7"),
            ("phases", "1"),
            ("session", "sess B&co"),
            ("files", "x.json"),
            ("nonsense", "1"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let (sent, dropped) = Link::from_pairs(&pairs);
        assert_eq!(sent.trace.preset, Preset::High);
        assert_eq!(
            sent.trace.overrides,
            vec![(OverrideId::MinConfidence, "0.7".to_string())]
        );
        assert!(sent.trace.phases);
        assert_eq!(sent.trace.session.as_deref(), Some("sess B&co"));
        assert!(sent.trace.files.is_empty());
        assert_eq!(
            dropped.iter().map(|d| d.key.as_str()).collect::<Vec<_>>(),
            vec!["files", "nonsense"]
        );
        let (raw, dropped) = Link::parse("#v=1&clocks=raw&lanes=skewed");
        assert!(!raw.trace.align_clocks && !raw.trace.align_lanes);
        assert_eq!(dropped.len(), 1);
        assert_eq!(
            (dropped[0].key.as_str(), dropped[0].reason),
            ("lanes", "not aligned or raw")
        );
        assert_eq!(
            Link::parse(&Link::default().fragment()),
            (Link::default(), vec![])
        );
        assert_eq!(Link::default().fragment(), "#v=1&view=trace");
    }

    #[test]
    fn garbage_is_dropped_and_listed() {
        let (link, dropped) = Link::parse(
            "#v=1&view=explore&preset=extreme&o.min_confidence=abc&o.nope=1&ranks=5-3\
             &t=9-1&zzz=1&phases=maybe&%ZZ=1&sel=x",
        );
        assert_eq!(link.view, View::Explore);
        assert_eq!(link.trace, TraceLink::default());
        let keys: Vec<&str> = dropped.iter().map(|d| d.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "preset",
                "o.min_confidence",
                "o.nope",
                "ranks",
                "t",
                "zzz",
                "phases",
                "%ZZ",
                "sel"
            ]
        );
        let notice = dropped_notice(&dropped).unwrap_or_default();
        assert!(
            notice.contains("`preset=extreme` (unknown preset)"),
            "{notice}"
        );
        assert_eq!(dropped_notice(&[]), None);
        // Nothing at all, or only junk: defaults.
        assert_eq!(Link::parse("").0, Link::default());
        assert_eq!(Link::parse("#&&&=").0, Link::default());
    }
}
