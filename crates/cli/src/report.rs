//! `shardscope report OUT_DIR PATH...`: a static folder anyone can open with one link —
//! the page (the built `dist/`, found beside the executable or given with `--page`),
//! the traces gzip-compressed under `traces/` with the `index.json` the page reads, and
//! the printed link (`index.html#…&src=traces/`) that opens them with the chosen
//! settings. Nothing is uploaded anywhere: any static host serves the folder.

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use clap::Args;
use flate2::write::GzEncoder;
use flate2::Compression;
use serde::Serialize;
use shardscope_attribution::attribution::{OverrideId, Preset};
use shardscope_session::permalink::{report_link, TraceLink};
use shardscope_session::source::{
    index_json, report_names, ReportInput, INDEX_FILE, REPORT_TRACES,
};
use shardscope_trace::trace::archive::ArchiveKind;

use crate::attribute::{attribute_run, AttributeOptions};
use crate::error::CliError;
use crate::Format;

#[derive(Args)]
pub struct ReportArgs {
    /// The folder to write (created; it must not hold anything yet).
    #[arg(value_name = "OUT_DIR")]
    pub out_dir: String,
    /// Trace files or folders, as for `attribute` (each is published under its own name).
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<String>,
    #[command(flatten)]
    pub options: AttributeOptions,
    /// The built page to publish (a `dist/` folder holding index.html). Default: `dist/`
    /// beside the executable or two folders above it (cargo's target/release/), then
    /// `./dist`.
    #[arg(long, value_name = "DIR")]
    pub page: Option<String>,
    /// `table` prints the link alone; `json` the link and the files written.
    #[arg(long, value_enum, ignore_case = true, default_value_t = Format::Table)]
    pub format: Format,
}

/// What a report wrote.
#[derive(Serialize)]
struct Written {
    /// The link, relative to the folder.
    link: String,
    out_dir: String,
    page: String,
    /// The traces as the page loads them (under `traces/`), with their sizes.
    files: Vec<WrittenFile>,
}

#[derive(Serialize)]
struct WrittenFile {
    name: String,
    bytes: u64,
    stored_bytes: u64,
}

fn io_error(what: &str, path: &Path, e: std::io::Error) -> CliError {
    CliError {
        message: format!("cannot {what} {}: {e}", path.display()),
        file: Some(path.display().to_string()),
        ..CliError::default()
    }
}

/// The built page: `--page`, else `dist/` beside the executable, two folders up (cargo's
/// `target/<profile>/`), or in the working folder.
fn find_page(given: Option<&str>) -> Result<PathBuf, CliError> {
    let has_page = |dir: &Path| dir.join("index.html").is_file();
    if let Some(dir) = given {
        let dir = PathBuf::from(dir);
        return if has_page(&dir) {
            Ok(dir)
        } else {
            Err(CliError::field(
                "page",
                format!(
                    "{} holds no index.html: give the page's built folder (dist/ after `make build`)",
                    dir.display()
                ),
            ))
        };
    }
    let mut candidates = Vec::new();
    if let Some(exe_dir) = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(Path::to_path_buf))
    {
        candidates.push(exe_dir.join("dist"));
        if let Some(root) = exe_dir.parent().and_then(Path::parent) {
            candidates.push(root.join("dist"));
        }
    }
    candidates.push(PathBuf::from("dist"));
    candidates.into_iter().find(|d| has_page(d)).ok_or_else(|| {
        CliError::field(
            "page",
            "the page's built files were not found (dist/ beside shardscope, or ./dist): \
             build them with `make build` (or `trunk build --release`) or give --page DIR",
        )
    })
}

/// Every file under `dir`, relative to it with `/` between parts, sorted.
fn files_under(dir: &Path) -> Result<Vec<String>, CliError> {
    let mut out = Vec::new();
    let mut stack = vec![(dir.to_path_buf(), String::new())];
    while let Some((path, prefix)) = stack.pop() {
        let entries = fs::read_dir(&path).map_err(|e| io_error("read the folder", &path, e))?;
        for entry in entries {
            let entry = entry.map_err(|e| io_error("read the folder", &path, e))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let relative = if prefix.is_empty() {
                name
            } else {
                format!("{prefix}/{name}")
            };
            let kind = entry
                .file_type()
                .map_err(|e| io_error("read", &entry.path(), e))?;
            if kind.is_dir() {
                stack.push((entry.path(), relative));
            } else {
                out.push(relative);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// The last part of `path` (`run/sink/` → `sink`).
fn input_name(path: &str) -> String {
    let trimmed = path.trim_end_matches(['/', '\\']);
    Path::new(trimmed)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| trimmed.to_string())
}

/// Copy `from` to `to`, gzip-compressed unless it already is (or is an archive, which
/// the page reads by its name); the name stays, so a sink's manifest still names its
/// segments (the loaders sniff gzip). Returns (bytes read, bytes written).
fn publish_file(from: &Path, to: &Path) -> Result<(u64, u64), CliError> {
    let mut bytes = Vec::new();
    fs::File::open(from)
        .and_then(|mut f| f.read_to_end(&mut bytes))
        .map_err(|e| io_error("read", from, e))?;
    if let Some(parent) = to.parent() {
        fs::create_dir_all(parent).map_err(|e| io_error("create", parent, e))?;
    }
    let stored =
        if bytes.starts_with(&[0x1f, 0x8b]) || ArchiveKind::of(&from.to_string_lossy()).is_some() {
            bytes.clone()
        } else {
            let mut gz = GzEncoder::new(Vec::new(), Compression::default());
            gz.write_all(&bytes)
                .and_then(|()| gz.finish())
                .map_err(|e| io_error("compress", from, e))?
        };
    fs::write(to, &stored).map_err(|e| io_error("write", to, e))?;
    Ok((bytes.len() as u64, stored.len() as u64))
}

/// Copy the page's folder into `out` (every file, as built).
fn copy_page(page: &Path, out: &Path) -> Result<(), CliError> {
    for relative in files_under(page)? {
        let to = out.join(&relative);
        if let Some(parent) = to.parent() {
            fs::create_dir_all(parent).map_err(|e| io_error("create", parent, e))?;
        }
        fs::copy(page.join(&relative), &to).map_err(|e| io_error("write", &to, e))?;
    }
    Ok(())
}

/// The link's attribution keys from the command line's options.
fn link_settings(options: &AttributeOptions) -> TraceLink {
    TraceLink {
        preset: Preset::parse(&options.preset).unwrap_or_default(),
        // The run attributed with these options first, so every name is a field.
        overrides: options
            .overrides
            .iter()
            .filter_map(|(k, v)| Some((OverrideId::from_name(k)?, v.link_text())))
            .collect(),
        phases: options.phases,
        align_clocks: options.align_clocks,
        session: options.session_id.clone(),
        ..TraceLink::default()
    }
}

pub fn run(args: &ReportArgs) -> Result<String, CliError> {
    // The traces must load and attribute with these options before anything is written.
    attribute_run("shardscope report", &args.paths, &args.options)?;
    let page = find_page(args.page.as_deref())?;
    let out = PathBuf::from(&args.out_dir);
    if out.exists() {
        let empty = out.is_dir()
            && fs::read_dir(&out)
                .map_err(|e| io_error("read the folder", &out, e))?
                .next()
                .is_none();
        if !empty {
            return Err(CliError::field(
                "out_dir",
                format!(
                    "{} already exists and is not an empty folder: give a new one",
                    out.display()
                ),
            ));
        }
    }
    let mut inputs = Vec::new();
    for path in &args.paths {
        let p = Path::new(path);
        inputs.push(ReportInput {
            name: input_name(path),
            folder_files: if p.is_dir() {
                Some(files_under(p)?)
            } else {
                None
            },
        });
    }
    let names = report_names(&inputs).map_err(|e| CliError::field("paths", e.to_string()))?;
    fs::create_dir_all(&out).map_err(|e| io_error("create", &out, e))?;
    copy_page(&page, &out)?;
    let traces = out.join(REPORT_TRACES);
    let mut files = Vec::new();
    for (path, input) in args.paths.iter().zip(&inputs) {
        let sources: Vec<(PathBuf, String)> = match &input.folder_files {
            None => vec![(PathBuf::from(path), input.name.clone())],
            Some(list) => list
                .iter()
                .map(|f| (Path::new(path).join(f), format!("{}/{f}", input.name)))
                .collect(),
        };
        for (from, name) in sources {
            let (bytes, stored_bytes) = publish_file(&from, &traces.join(&name))?;
            files.push(WrittenFile {
                name,
                bytes,
                stored_bytes,
            });
        }
    }
    debug_assert_eq!(files.len(), names.len());
    let index = traces.join(INDEX_FILE);
    fs::write(&index, index_json(&names)).map_err(|e| io_error("write", &index, e))?;
    let link = report_link(&link_settings(&args.options));
    let read: u64 = files.iter().map(|f| f.bytes).sum();
    let stored: u64 = files.iter().map(|f| f.stored_bytes).sum();
    eprintln!(
        "shardscope report: the page and {} trace file{} ({read} bytes, {stored} stored) in {}; \
         serve the folder with any static server (python3 -m http.server -d {}) and open the link",
        files.len(),
        if files.len() == 1 { "" } else { "s" },
        out.display(),
        out.display()
    );
    Ok(match args.format {
        Format::Json => {
            let written = Written {
                link,
                out_dir: out.display().to_string(),
                page: page.display().to_string(),
                files,
            };
            let mut text = serde_json::to_string_pretty(&written).unwrap_or_default();
            text.push('\n');
            text
        }
        Format::Table | Format::Csv => format!("{link}\n"),
    })
}
