//! Events on the Python side: shardscope's own, held in Rust ([`EventList`], read one
//! [`Event`] at a time), and stormlog's `TelemetryEvent` objects read into the core's
//! [`EventTable`] attribute by attribute ([`table_of`]).

use std::sync::Arc;

use pyo3::exceptions::{PyIndexError, PyRecursionError, PyTypeError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PySet, PySlice, PyString, PyTuple};

use shardscope_attribution::attribution::{attribute, AttributionConfig, AttributionResult};
use shardscope_attribution::phases::PhaseReplayIndex;
use shardscope_trace::trace::event::Counters;
use shardscope_trace::trace::external::{EventTable, ExternalEvent};
use shardscope_trace::trace::marker::contains_collective_token;
use shardscope_trace::trace::{load, Dataset, Events, LoadError, LoadOptions, StdFs};

use crate::Run;

/// The events of one loaded session, held in Rust: what
/// `shardscope.telemetry.load_telemetry_events` returns. A sequence: `len()`, indexing
/// and iteration give [`Event`] objects, made only when read.
#[pyclass(module = "shardscope._shardscope", frozen, sequence)]
pub struct EventList {
    dataset: Arc<Dataset>,
    session: Option<usize>,
}

impl EventList {
    /// Loads `path` as stormlog's `load_telemetry_events` does: the requested session,
    /// else stormlog's default one; the first error if any file fails.
    pub fn load(path: &str, session_id: Option<String>) -> Result<EventList, LoadError> {
        let options = LoadOptions {
            session_id,
            ..LoadOptions::default()
        };
        let outcome = load(&StdFs, &[path.to_string()], &options, &mut |_| {});
        if let Some(e) = outcome.errors.into_iter().next() {
            return Err(e);
        }
        let session = outcome.dataset.selected;
        Ok(EventList {
            dataset: Arc::new(outcome.dataset),
            session,
        })
    }

    fn events(&self) -> Events<'_> {
        self.dataset.session_events(self.session)
    }

    /// stormlog's attribution of these events; with `phases`, each interval's phase
    /// from the session's own phase boundaries (`PhaseReplayIndex.from_events`).
    pub fn attribute(&self, config: &AttributionConfig, phases: bool) -> Run {
        let events = self.events();
        let index = phases.then(|| PhaseReplayIndex::from_events(events, &self.dataset.phases));
        let results = attribute(events, config, index.as_ref());
        Run::of_results(results, events.len(), rank_count(events))
    }

    fn event(&self, index: usize) -> Option<Event> {
        let events = self.events();
        let e = events.list.get(index)?;
        let source = events.source(e);
        let strings = &self.dataset.strings;
        let counters = e.counters();
        Some(Event {
            timestamp_ns: e.timestamp_ns,
            event_type: strings.str(source.event_type).to_string(),
            rank: source.rank,
            local_rank: source.local_rank,
            world_size: source.world_size,
            session_id: strings.get(e.session).map(str::to_string),
            context: strings.get(e.context).map(str::to_string),
            allocator_allocated_bytes: counters.allocator_allocated_bytes,
            allocator_reserved_bytes: counters.allocator_reserved_bytes,
            device_used_bytes: counters.device_used_bytes,
            device_total_bytes: counters.device_total_bytes,
            is_collective_marker: source.is_marker(),
        })
    }
}

/// Distinct ranks among `events`.
pub fn rank_count(events: Events<'_>) -> usize {
    let mut ranks: Vec<i64> = events.iter().map(|(_, s)| s.rank).collect();
    ranks.sort_unstable();
    ranks.dedup();
    ranks.len()
}

#[pymethods]
impl EventList {
    fn __len__(&self) -> usize {
        self.events().len()
    }

    fn __getitem__<'py>(&self, py: Python<'py>, index: &Bound<'py, PyAny>) -> PyResult<Py<PyAny>> {
        let len = self.events().len();
        if let Ok(slice) = index.cast::<PySlice>() {
            let range = slice.indices(len as isize)?;
            let mut items = Vec::with_capacity(range.slicelength);
            let mut i = range.start;
            for _ in 0..range.slicelength {
                if let Some(event) = self.event(i as usize) {
                    items.push(Py::new(py, event)?);
                }
                i += range.step;
            }
            return Ok(PyList::new(py, items)?.into_any().unbind());
        }
        let i: isize = index.extract()?;
        let at = if i < 0 { i + len as isize } else { i };
        match usize::try_from(at).ok().and_then(|at| self.event(at)) {
            Some(event) => Ok(Py::new(py, event)?.into_any()),
            None => Err(PyIndexError::new_err("event index out of range")),
        }
    }

    /// The session these events belong to (`None` when nothing was loaded).
    #[getter]
    fn session_id(&self) -> Option<String> {
        self.session
            .and_then(|i| self.dataset.sessions.get(i))
            .map(|s| s.summary.session_id.clone())
    }

    fn __repr__(&self) -> String {
        format!(
            "<shardscope EventList: {} events, session {:?}>",
            self.events().len(),
            self.session_id().unwrap_or_default()
        )
    }
}

/// One telemetry event as shardscope keeps it: stormlog's fields that attribution, phases
/// and sessions read (not `pid`, `host`, `collector` or `metadata`; whether the metadata
/// named a collective is `is_collective_marker`).
#[pyclass(module = "shardscope._shardscope", frozen, get_all)]
#[derive(Debug, Clone)]
pub struct Event {
    timestamp_ns: i64,
    event_type: String,
    rank: i64,
    local_rank: i64,
    world_size: i64,
    session_id: Option<String>,
    context: Option<String>,
    allocator_allocated_bytes: Option<i64>,
    allocator_reserved_bytes: Option<i64>,
    device_used_bytes: Option<i64>,
    device_total_bytes: Option<i64>,
    is_collective_marker: bool,
}

#[pymethods]
impl Event {
    fn __repr__(&self) -> String {
        let int = |v: Option<i64>| v.map_or_else(|| "None".to_string(), |v| v.to_string());
        format!(
            "Event(timestamp_ns={}, event_type={:?}, rank={}, device_used_bytes={}, allocator_reserved_bytes={})",
            self.timestamp_ns,
            self.event_type,
            self.rank,
            int(self.device_used_bytes),
            int(self.allocator_reserved_bytes)
        )
    }
}

/// Any sequence of event objects (stormlog's `TelemetryEventV2/3/4`, shardscope's
/// [`Event`], or anything with their attributes) read into an [`EventTable`].
pub fn table_of(events: &Bound<'_, PyAny>) -> PyResult<EventTable> {
    let mut table = EventTable::with_capacity(events.len().unwrap_or(0));
    for (index, item) in events.try_iter()?.enumerate() {
        let item = item?;
        if let Ok(ours) = item.cast::<Event>() {
            let e = ours.get();
            table.push(&ExternalEvent {
                timestamp_ns: e.timestamp_ns,
                rank: e.rank,
                local_rank: e.local_rank,
                world_size: e.world_size,
                event_type: &e.event_type,
                marker: e.is_collective_marker,
                session_id: e.session_id.as_deref(),
                context: e.context.as_deref(),
                counters: Counters {
                    allocator_allocated_bytes: e.allocator_allocated_bytes,
                    allocator_reserved_bytes: e.allocator_reserved_bytes,
                    device_used_bytes: e.device_used_bytes,
                    device_total_bytes: e.device_total_bytes,
                },
            });
            continue;
        }
        push_foreign(&mut table, &item, index)?;
    }
    Ok(table)
}

/// One of stormlog's event objects, read as `collective_attribution` reads it.
fn push_foreign<'py>(
    table: &mut EventTable,
    item: &Bound<'py, PyAny>,
    index: usize,
) -> PyResult<()> {
    let py = item.py();
    // Never through `__dict__`: on CPython 3.11+ asking for it makes a dict for every
    // instance whose attributes were stored inline (200k dicts, and the GC after them).
    let attr = |name: &Bound<'py, PyString>| item.getattr_opt(name);
    let int = |name: &Bound<'py, PyString>| -> PyResult<i64> {
        let value = attr(name)?
            .ok_or_else(|| PyTypeError::new_err(format!("event {index} has no {name}")))?;
        value
            .extract()
            .map_err(|_| PyTypeError::new_err(format!("event {index}: {name} must be an int")))
    };
    let counter = |name: &Bound<'py, PyString>| -> PyResult<Option<i64>> {
        let value = match attr(name)? {
            Some(v) if !v.is_none() => v,
            _ => return Ok(None),
        };
        value.extract().map(Some).map_err(|_| {
            PyTypeError::new_err(format!("event {index}: {name} must be an int or None"))
        })
    };
    let event_type_value = attr(intern!(py, "event_type"))?;
    let event_type_text;
    let event_type: &str = match &event_type_value {
        Some(v) => match v.cast::<PyString>() {
            Ok(s) => s.to_str()?,
            Err(_) => {
                event_type_text = v.str()?;
                event_type_text.to_str()?
            }
        },
        None => "",
    };
    let context_value = attr(intern!(py, "context"))?;
    let context: Option<&str> = match &context_value {
        Some(v) => match v.cast::<PyString>() {
            Ok(s) => Some(s.to_str()?),
            Err(_) => None,
        },
        None => None,
    };
    let session_value = attr(intern!(py, "session_id"))?;
    let session_text;
    let session_id: Option<&str> = match &session_value {
        Some(v) if !v.is_none() => match v.cast::<PyString>() {
            Ok(s) => Some(s.to_str()?),
            Err(_) => {
                session_text = v.str()?;
                Some(session_text.to_str()?)
            }
        },
        _ => None,
    };
    let mut marker = contains_collective_token(event_type.as_bytes())
        || context.is_some_and(|c| !c.is_empty() && contains_collective_token(c.as_bytes()));
    if !marker {
        if let Some(metadata) = attr(intern!(py, "metadata"))? {
            marker = any_string(&metadata, 0, &mut |s| {
                contains_collective_token(s.as_bytes())
            })?;
        }
    }
    table.push(&ExternalEvent {
        timestamp_ns: int(intern!(py, "timestamp_ns"))?,
        rank: int(intern!(py, "rank"))?,
        local_rank: counter(intern!(py, "local_rank"))?.unwrap_or(0),
        world_size: int(intern!(py, "world_size"))?,
        event_type,
        marker,
        session_id,
        context,
        counters: Counters {
            allocator_allocated_bytes: counter(intern!(py, "allocator_allocated_bytes"))?,
            allocator_reserved_bytes: counter(intern!(py, "allocator_reserved_bytes"))?,
            device_used_bytes: counter(intern!(py, "device_used_bytes"))?,
            device_total_bytes: counter(intern!(py, "device_total_bytes"))?,
        },
    });
    Ok(())
}

/// How deep metadata may nest: as deep as Python's default recursion limit lets stormlog's
/// own walk go; a deeper (or self-containing) value raises `RecursionError`, as there.
const MAX_METADATA_DEPTH: usize = 1000;

/// stormlog's `_iter_string_values`: strings, and the values of mappings and the items
/// of lists, tuples and sets, recursively; does `test` hold for any of them?
fn any_string(
    value: &Bound<'_, PyAny>,
    depth: usize,
    test: &mut dyn FnMut(&str) -> bool,
) -> PyResult<bool> {
    if depth > MAX_METADATA_DEPTH {
        return Err(PyRecursionError::new_err(
            "maximum recursion depth exceeded while reading event metadata",
        ));
    }
    // Most metadata values are flags and numbers: one exact type check each.
    if value.is_none()
        || value.is_exact_instance_of::<PyBool>()
        || value.is_exact_instance_of::<PyInt>()
        || value.is_exact_instance_of::<PyFloat>()
    {
        return Ok(false);
    }
    if let Ok(s) = value.cast::<PyString>() {
        return Ok(test(s.to_str()?));
    }
    if let Ok(dict) = value.cast::<PyDict>() {
        for (_, nested) in dict.iter() {
            if any_string(&nested, depth + 1, test)? {
                return Ok(true);
            }
        }
        return Ok(false);
    }
    let is_sequence = value.cast::<PyList>().is_ok()
        || value.cast::<PyTuple>().is_ok()
        || value.cast::<PySet>().is_ok();
    if is_sequence {
        for item in value.try_iter()? {
            if any_string(&item?, depth + 1, test)? {
                return Ok(true);
            }
        }
    }
    Ok(false)
}

/// stormlog's attribution of a table read from Python objects.
pub fn attribute_table(table: &EventTable, config: &AttributionConfig) -> Run {
    let events = table.events();
    let results: Vec<AttributionResult> = attribute(events, config, None);
    Run::of_results(results, events.len(), rank_count(events))
}
