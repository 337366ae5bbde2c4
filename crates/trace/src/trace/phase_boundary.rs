//! Phase boundaries: the `metadata.phase_scope` of `phase_enter` / `phase_exit` events,
//! validated as stormlog's `parse_phase_boundary` does while records are converted.
//! [`crate::phases`] replays them into spans.

use crate::json::{py_strip, Node, Tape};

/// The `metadata.phase_scope` of a valid phase boundary event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhaseBoundary {
    pub enter: bool,
    pub path: Vec<String>,
    pub scope_id: String,
    pub thread_id: i64,
    pub thread_name: String,
    pub sequence: i64,
}

impl PhaseBoundary {
    /// `parse_phase_boundary`: `None` when the scope is not a valid boundary.
    pub fn parse(tape: &Tape, scope: usize, enter: bool) -> Option<PhaseBoundary> {
        if !matches!(tape.nodes[scope], Node::Object { .. }) {
            return None;
        }
        let get = |key: &str| tape.get(scope, key.as_bytes()).map(|i| (i, tape.nodes[i]));
        let string = |key: &str| match get(key) {
            Some((_, n @ Node::Str { .. })) => Some(tape.text_of(n).into_owned()),
            _ => None,
        };
        let action = string("action")?;
        let name = string("name")?;
        if py_strip(&name).is_empty() {
            return None;
        }
        let scope_id = string("scope_id")?;
        let thread_name = string("thread_name")?;
        let (path_idx, path_node) = get("path")?;
        if !matches!(path_node, Node::Array { .. }) {
            return None;
        }
        if action != if enter { "enter" } else { "exit" } {
            return None;
        }
        let path: Vec<String> = tape
            .elements(path_idx)
            .filter_map(|i| match tape.nodes[i] {
                n @ Node::Str { len, .. } if len > 0 => Some(tape.text_of(n).into_owned()),
                _ => None,
            })
            .collect();
        if path.is_empty() {
            return None;
        }
        // Python's isinstance(x, int) accepts booleans too.
        let int = |key: &str| match get(key) {
            Some((_, Node::Int(v))) => Some(v),
            Some((_, Node::Bool(b))) => Some(i64::from(b)),
            _ => None,
        };
        let sequence = int("sequence")?;
        let thread_id = int("thread_id")?;
        match get("parent_scope_id") {
            None | Some((_, Node::Null)) | Some((_, Node::Str { .. })) => {}
            Some(_) => return None,
        }
        Some(PhaseBoundary {
            enter,
            path,
            scope_id,
            thread_id,
            thread_name,
            sequence,
        })
    }
}
