//! Sessions: identity, lifecycle summary and stormlog's default selection
//! (completed > interrupted > incomplete > running, then the most recent).

use serde::{Deserialize, Serialize};

use crate::json::{py_strip, Node, Tape};

/// A session's lifecycle state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SessionStatus {
    Completed,
    Interrupted,
    Incomplete,
    Running,
}

impl SessionStatus {
    /// `normalize_session_status`: trimmed, case-insensitive.
    pub fn parse(value: &str) -> Option<SessionStatus> {
        match py_strip(value).to_lowercase().as_str() {
            "completed" => Some(SessionStatus::Completed),
            "interrupted" => Some(SessionStatus::Interrupted),
            "incomplete" => Some(SessionStatus::Incomplete),
            "running" => Some(SessionStatus::Running),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            SessionStatus::Completed => "completed",
            SessionStatus::Interrupted => "interrupted",
            SessionStatus::Incomplete => "incomplete",
            SessionStatus::Running => "running",
        }
    }

    /// Selection priority: lower is preferred.
    fn priority(self) -> u8 {
        self as u8
    }
}

/// stormlog's `SessionSummary`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SessionSummary {
    pub session_id: String,
    pub status: SessionStatus,
    pub started_at_ns: i128,
    pub ended_at_ns: Option<i128>,
    pub host: String,
    pub pid: i128,
    pub job_id: Option<String>,
    pub rank: i128,
    pub local_rank: i128,
    pub world_size: i128,
    pub source: String,
}

impl SessionSummary {
    /// `_session_selection_sort_key`: status priority, then most recent end (or
    /// start), then most recent start, then session id.
    pub fn selection_key(&self) -> (u8, i128, i128, &str) {
        let recency = match self.ended_at_ns {
            Some(end) if end != 0 => end,
            _ => self.started_at_ns,
        };
        (
            self.status.priority(),
            -recency,
            -self.started_at_ns,
            self.session_id.as_str(),
        )
    }
}

/// `sort_session_summaries` applied to any items carrying a summary (stable).
pub fn sort_by_selection<T>(items: &mut [T], summary: impl Fn(&T) -> &SessionSummary) {
    items.sort_by(|a, b| summary(a).selection_key().cmp(&summary(b).selection_key()));
}

/// `stable_legacy_session_id(*parts)`: `legacy-` + uuid5(NAMESPACE_URL, "a::b::c").
pub fn stable_legacy_session_id(parts: &[&str]) -> String {
    format!("legacy-{}", uuid5_url(&parts.join("::")))
}

/// RFC 4122 version-5 UUID in the URL namespace.
fn uuid5_url(name: &str) -> String {
    const NAMESPACE_URL: [u8; 16] = [
        0x6b, 0xa7, 0xb8, 0x11, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30,
        0xc8,
    ];
    let mut hasher = sha1_smol::Sha1::new();
    hasher.update(&NAMESPACE_URL);
    hasher.update(name.as_bytes());
    let digest = hasher.digest().bytes();
    let mut b = [0u8; 16];
    b.copy_from_slice(&digest[..16]);
    b[6] = (b[6] & 0x0f) | 0x50;
    b[8] = (b[8] & 0x3f) | 0x80;
    let hex: Vec<String> = b.iter().map(|x| format!("{x:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        hex[0..4].concat(),
        hex[4..6].concat(),
        hex[6..8].concat(),
        hex[8..10].concat(),
        hex[10..16].concat()
    )
}

/// Python's `int(x)` for a JSON value: ints, floats (truncated), numeric strings
/// (with surrounding spaces and `_` separators) and booleans.
pub fn py_int(tape: &Tape, idx: usize) -> Option<i128> {
    match tape.nodes[idx] {
        n @ (Node::Int(_) | Node::BigInt { .. }) => tape.big_int(n),
        Node::Bool(b) => Some(i128::from(b)),
        Node::Float(f) if f.is_finite() && f.abs() < 1.0e38 => Some(f.trunc() as i128),
        n @ Node::Str { .. } => {
            let text = tape.text_of(n);
            let t = py_strip(&text);
            let (negative, digits) = match t.as_bytes().first() {
                Some(b'-') => (true, &t[1..]),
                Some(b'+') => (false, &t[1..]),
                _ => (false, t),
            };
            if digits.is_empty()
                || digits.starts_with('_')
                || digits.ends_with('_')
                || digits.contains("__")
                || !digits.bytes().all(|c| c.is_ascii_digit() || c == b'_')
            {
                return None;
            }
            let v: i128 = digits.replace('_', "").parse().ok()?;
            Some(if negative { -v } else { v })
        }
        _ => None,
    }
}

/// `session_summary_from_dict`: `Err` with stormlog's message when invalid.
pub fn summary_from_json(tape: &Tape, idx: usize) -> Result<SessionSummary, String> {
    summary_from_json_inner(tape, idx, true).map(|(summary, _)| summary)
}

/// `session_summary_from_dict` keeping `job_id` as Python does, unchecked: the
/// summary (its `job_id` left `None`) and the node of the `job_id` value, if any.
pub fn summary_from_json_any_job(
    tape: &Tape,
    idx: usize,
) -> Result<(SessionSummary, Option<usize>), String> {
    summary_from_json_inner(tape, idx, false)
}

fn summary_from_json_inner(
    tape: &Tape,
    idx: usize,
    check_job_id: bool,
) -> Result<(SessionSummary, Option<usize>), String> {
    if !matches!(tape.nodes[idx], Node::Object { .. }) {
        return Err("session summary payload must be an object".to_string());
    }
    let get = |key: &str| tape.get(idx, key.as_bytes());
    let non_empty = |key: &str| -> Option<String> {
        match get(key).map(|i| tape.nodes[i]) {
            Some(n @ Node::Str { .. }) if !py_strip(&tape.text_of(n)).is_empty() => {
                Some(tape.text_of(n).into_owned())
            }
            _ => None,
        }
    };
    let session_id = non_empty("session_id").ok_or("session_id must be a non-empty string")?;
    let source = non_empty("source").ok_or("source must be a non-empty string")?;
    let status = match get("status").map(|i| tape.nodes[i]) {
        Some(n @ Node::Str { .. }) if !py_strip(&tape.text_of(n)).is_empty() => {
            let text = tape.text_of(n);
            SessionStatus::parse(&text)
                .ok_or_else(|| format!("Unsupported session status: {text}"))?
        }
        _ => return Err("session status must be a non-empty string".to_string()),
    };
    let started = match get("started_at_ns") {
        None => return Err("started_at_ns must be present".to_string()),
        Some(i) if tape.nodes[i] == Node::Null => {
            return Err("started_at_ns must be present".to_string())
        }
        Some(i) => py_int(tape, i).ok_or("started_at_ns must be an integer")?,
    };
    let ended = match get("ended_at_ns") {
        None => None,
        Some(i) if tape.nodes[i] == Node::Null => None,
        Some(i) => Some(py_int(tape, i).ok_or("ended_at_ns must be an integer")?),
    };
    let host = non_empty("host").ok_or("host must be a non-empty string")?;
    let int_or = |key: &str, default: i128| -> Result<i128, String> {
        match get(key) {
            None => Ok(default),
            Some(i) => py_int(tape, i).ok_or_else(|| format!("{key} must be an integer")),
        }
    };
    let pid = int_or("pid", -1)?;
    let job_id = match get("job_id").map(|i| tape.nodes[i]) {
        _ if !check_job_id => None,
        None | Some(Node::Null) => None,
        Some(n @ Node::Str { .. }) => Some(tape.text_of(n).into_owned()),
        Some(Node::Int(v)) => Some(v.to_string()),
        Some(_) => return Err("job_id must be a string".to_string()),
    };
    let rank = int_or("rank", 0)?;
    let local_rank = int_or("local_rank", 0)?;
    let world_size = int_or("world_size", 1)?.max(1);
    let summary = SessionSummary {
        session_id,
        status,
        started_at_ns: started,
        ended_at_ns: ended,
        host,
        pid,
        job_id,
        rank,
        local_rank,
        world_size,
        source,
    };
    Ok((summary, get("job_id")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legacy_session_ids_match_python_uuid5() {
        // python3 -c "import uuid; print(uuid.uuid5(uuid.NAMESPACE_URL, '/tmp/x.json::json'))"
        assert_eq!(
            stable_legacy_session_id(&["/tmp/x.json", "json"]),
            "legacy-12e9cdb3-9b33-53f7-9518-a159f970002d"
        );
        assert_eq!(
            uuid5_url("python.org"),
            "7af94e2b-4dd9-50f0-9c9a-8a48519bdef0"
        );
    }

    #[test]
    fn selection_prefers_completed_then_recent() {
        let base = SessionSummary {
            session_id: "a".into(),
            status: SessionStatus::Running,
            started_at_ns: 10,
            ended_at_ns: None,
            host: "h".into(),
            pid: 1,
            job_id: None,
            rank: 0,
            local_rank: 0,
            world_size: 1,
            source: "s".into(),
        };
        let completed_old = SessionSummary {
            session_id: "b".into(),
            status: SessionStatus::Completed,
            started_at_ns: 1,
            ended_at_ns: Some(2),
            ..base.clone()
        };
        let completed_new = SessionSummary {
            session_id: "c".into(),
            status: SessionStatus::Completed,
            started_at_ns: 3,
            ended_at_ns: Some(4),
            ..base.clone()
        };
        let mut all = vec![base, completed_old, completed_new];
        sort_by_selection(&mut all, |s| s);
        let order: Vec<&str> = all.iter().map(|s| s.session_id.as_str()).collect();
        assert_eq!(order, ["c", "b", "a"]);
    }
}
