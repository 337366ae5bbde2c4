//! `shardscope._shardscope`: the Python package's binding over the core crates (trace reading and attribution).
//!
//! A thin adapter, like the CLI and the worker: it converts Python values to the core's
//! types and back, releases the GIL around everything that reads or computes, and turns
//! the core's typed errors into Python exceptions (once, here). Every rule is the core's;
//! the Python modules in `python/shardscope/` give it stormlog's shape.

mod convert;
mod errors;
mod events;

use std::ffi::OsString;

use pyo3::prelude::*;
use pyo3::types::PyDict;

use shardscope_attribution::analysis::{analyze_on, export, Analysis, AnalyzeSettings};
use shardscope_attribution::attribution::{AttributionConfig, AttributionResult, Preset};
use shardscope_trace::trace::StdFs;

use errors::{analyze_error, cli_error, load_error, settings_error, Located, TraceError};
use events::{Event, EventList};

/// The outcome of one attribution: stormlog's result list and what was loaded.
#[pyclass(module = "shardscope._shardscope", frozen)]
pub struct Run {
    results: Vec<AttributionResult>,
    /// Events of the analysed session.
    #[pyo3(get)]
    events: usize,
    /// Distinct ranks among them.
    #[pyo3(get)]
    ranks: usize,
    /// The analysed session's id (`None`: nothing loaded).
    #[pyo3(get)]
    session_id: Option<String>,
    /// What stormlog's TUI warns about while loading (skipped CSV rows, ...).
    #[pyo3(get)]
    warnings: Vec<String>,
}

#[pymethods]
impl Run {
    /// The results as `shardscope attribute --format json` prints them.
    fn json(&self) -> String {
        export::to_json(&self.results)
    }

    /// The results as `shardscope attribute --format csv` prints them.
    fn csv(&self) -> String {
        export::to_csv(&self.results)
    }

    /// The CSV's columns, typed: a dict of column name to list, in the CSV's order.
    fn columns<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let c = export::to_columns(&self.results);
        let out = PyDict::new(py);
        out.set_item("rank", c.rank)?;
        out.set_item("interval_start_ns", c.interval_start_ns)?;
        out.set_item("interval_end_ns", c.interval_end_ns)?;
        out.set_item("classification", c.classification)?;
        out.set_item("confidence", c.confidence)?;
        out.set_item("marker_hits", c.marker_hits)?;
        out.set_item("synchronized_ranks", c.synchronized_ranks)?;
        out.set_item("expected_world_size", c.expected_world_size)?;
        out.set_item("synchrony_ratio", c.synchrony_ratio)?;
        out.set_item("peak_gap_bytes", c.peak_gap_bytes)?;
        out.set_item("peak_gap_ratio", c.peak_gap_ratio)?;
        out.set_item("robust_zscore", c.robust_zscore)?;
        out.set_item("reason_codes", c.reason_codes)?;
        out.set_item("phase_path", c.phase_path)?;
        Ok(out)
    }

    fn __len__(&self) -> usize {
        self.results.len()
    }
}

impl Run {
    fn of_results(results: Vec<AttributionResult>, events: usize, ranks: usize) -> Run {
        Run {
            results,
            events,
            ranks,
            session_id: None,
            warnings: Vec::new(),
        }
    }
}

/// `shardscope attribute PATHS...`: load, attribute, with the command line's settings
/// and its errors (the first, in the order stormlog would raise it).
// The arguments are the Python function's keywords, one each.
#[allow(clippy::too_many_arguments)]
#[pyfunction]
#[pyo3(signature = (paths, preset = "medium", overrides = None, session_id = None, phases = false, align_clocks = false, threads = 0))]
fn attribute(
    py: Python<'_>,
    paths: Vec<String>,
    preset: &str,
    overrides: Option<&Bound<'_, PyAny>>,
    session_id: Option<String>,
    phases: bool,
    align_clocks: bool,
    threads: usize,
) -> PyResult<Run> {
    let overrides = convert::overrides(overrides)?;
    let parsed = Preset::parse(preset);
    let settings = AnalyzeSettings {
        preset: parsed.clone().unwrap_or_default(),
        overrides,
        session_id,
        phases,
        align_clocks,
    };
    let (analysis, first_error) = py.detach(|| {
        let analysis = analyze_on(&StdFs, &paths, &settings, threads, &mut |_| {});
        let first = analysis.first_error_with_preset(&parsed);
        (analysis, first)
    });
    if let Some(e) = first_error {
        return Err(analyze_error(&e, Located::Described));
    }
    let Analysis {
        dataset,
        attribution,
        ..
    } = analysis;
    let attribution = attribution.map_err(|e| analyze_error(&e, Located::Described))?;
    let events = dataset.session_events(attribution.session);
    Ok(Run {
        events: events.len(),
        ranks: events::rank_count(events),
        session_id: attribution
            .session
            .and_then(|i| dataset.sessions.get(i))
            .map(|s| s.summary.session_id.clone()),
        warnings: dataset.warnings.iter().map(|w| w.message.clone()).collect(),
        results: attribution.results,
    })
}

/// stormlog's `load_telemetry_events(path, session_id=...)`: the selected session's
/// events, held in Rust.
#[pyfunction]
#[pyo3(signature = (path, session_id = None))]
fn load_events(py: Python<'_>, path: String, session_id: Option<String>) -> PyResult<EventList> {
    let loaded = py.detach(|| EventList::load(&path, session_id));
    loaded.map_err(|e| load_error(&e, Located::Stormlog))
}

/// stormlog's `resolve_collective_attribution_config(preset, overrides)` as a dict of
/// its fields.
#[pyfunction]
#[pyo3(signature = (preset = "medium", overrides = None))]
fn resolve_config<'py>(
    py: Python<'py>,
    preset: &str,
    overrides: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let config = resolve(preset, overrides)?;
    convert::config_dict(py, &config)
}

fn resolve(preset: &str, overrides: Option<&Bound<'_, PyAny>>) -> PyResult<AttributionConfig> {
    let preset = Preset::parse(preset).map_err(|e| settings_error(&e))?;
    let overrides = convert::overrides(overrides)?;
    AttributionConfig::resolve(preset, &overrides).map_err(|e| settings_error(&e))
}

/// stormlog's `attribute_collective_memory(events, config=..., preset=..., overrides=...)`
/// over shardscope's own [`EventList`] (no copy) or any sequence of objects with
/// stormlog's event attributes. `config` is a dict of the config's fields (stormlog does
/// not validate a config it is given, and neither does this).
#[pyfunction]
#[pyo3(signature = (events, config = None, preset = "medium", overrides = None, phases = false))]
fn attribute_events(
    py: Python<'_>,
    events: &Bound<'_, PyAny>,
    config: Option<&Bound<'_, PyAny>>,
    preset: &str,
    overrides: Option<&Bound<'_, PyAny>>,
    phases: bool,
) -> PyResult<Run> {
    let config = match config {
        Some(fields) => convert::config_from(fields)?,
        None => resolve(preset, overrides)?,
    };
    if let Ok(list) = events.cast::<EventList>() {
        let list = list.get();
        return Ok(py.detach(|| list.attribute(&config, phases)));
    }
    let table = events::table_of(events)?;
    Ok(py.detach(|| events::attribute_table(&table, &config)))
}

/// `shardscope ARGS...` for `explore` and `sensitivity`: the command line's output text
/// (the caller asks for `--format json`), or its error.
#[pyfunction]
fn run_cli(py: Python<'_>, args: Vec<String>) -> PyResult<String> {
    let mut argv: Vec<OsString> = vec!["shardscope".into()];
    argv.extend(args.into_iter().map(OsString::from));
    py.detach(|| shardscope_cli::run_to_text(&argv))
        .map_err(|e| cli_error(&e))
}

#[pymodule]
fn _shardscope(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", shardscope_attribution::VERSION)?;
    m.add("TraceError", m.py().get_type::<TraceError>())?;
    m.add_class::<Run>()?;
    m.add_class::<EventList>()?;
    m.add_class::<Event>()?;
    m.add_function(wrap_pyfunction!(attribute, m)?)?;
    m.add_function(wrap_pyfunction!(load_events, m)?)?;
    m.add_function(wrap_pyfunction!(resolve_config, m)?)?;
    m.add_function(wrap_pyfunction!(attribute_events, m)?)?;
    m.add_function(wrap_pyfunction!(run_cli, m)?)?;
    Ok(())
}
