//! Where trace files come from. The loader sees paths through [`TraceFs`], so the
//! same code serves the native CLI (the real file system), tests (in memory) and
//! the browser worker (dropped files and folders, read from Blobs).

use std::collections::BTreeMap;
use std::io::Read;

/// What a path names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathKind {
    File,
    Dir,
    Missing,
}

/// The absolute path of a dropped file or folder entry (`a/b.json` → `/a/b.json`): how
/// the browser's file tree resolves the names it holds, the root of the default session
/// ids of their records.
pub fn resolve_dropped(name: &str) -> String {
    format!("/{}", name.trim_matches('/'))
}

/// A read-only file tree with `/`-separated paths.
pub trait TraceFs {
    fn kind(&self, path: &str) -> PathKind;
    /// Full paths of the direct children of a directory, sorted.
    fn list_dir(&self, path: &str) -> Vec<String>;
    fn open(&self, path: &str) -> std::io::Result<Box<dyn Read + '_>>;
    /// Size in bytes, for progress.
    fn size(&self, path: &str) -> Option<u64>;
    /// The absolute form stormlog would use (`Path.resolve()`), for stable ids.
    fn resolve(&self, path: &str) -> String;
    /// Reads exactly `len` bytes at `offset` into `buf` (replacing what it held), so
    /// that a big file can be parsed in ranges. `None`: this tree only streams.
    fn read_at(
        &self,
        _path: &str,
        _offset: u64,
        _len: usize,
        _buf: &mut Vec<u8>,
    ) -> Option<std::io::Result<()>> {
        None
    }
    /// `path` already parsed in ranges elsewhere (the browser's helper workers); taken
    /// once. `None`: parse it here.
    fn take_parsed(&self, _path: &str) -> Option<super::ranges::Preparsed<'_>> {
        None
    }
}

/// The last component of a path.
pub fn file_name(path: &str) -> &str {
    let trimmed = path.trim_end_matches('/');
    trimmed.rsplit('/').next().unwrap_or(trimmed)
}

/// The parent directory of a path ("" for a bare name).
pub fn parent(path: &str) -> &str {
    let trimmed = path.trim_end_matches('/');
    match trimmed.rfind('/') {
        Some(0) => "/",
        Some(i) => &trimmed[..i],
        None => "",
    }
}

/// `dir` joined with `name`.
pub fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_string()
    } else if dir.ends_with('/') {
        format!("{dir}{name}")
    } else {
        format!("{dir}/{name}")
    }
}

/// What `path` names among a flat list of file paths (folders are implied by the
/// paths' prefixes): the shared rule of [`MemFs`] and the worker's dropped files.
pub fn kind_among<'a>(mut names: impl Iterator<Item = &'a str>, path: &str) -> PathKind {
    let path = path.trim_end_matches('/');
    let prefix = format!("{path}/");
    let mut dir = path.is_empty();
    for name in &mut names {
        if name == path {
            return PathKind::File;
        }
        dir |= name.starts_with(&prefix);
    }
    if dir {
        PathKind::Dir
    } else {
        PathKind::Missing
    }
}

/// The direct children (files and folders) of `path` among a flat list of file paths, sorted.
pub fn children_among<'a>(names: impl Iterator<Item = &'a str>, path: &str) -> Vec<String> {
    let path = path.trim_end_matches('/');
    let prefix = if path.is_empty() {
        String::new()
    } else {
        format!("{path}/")
    };
    let mut out: Vec<String> = names
        .filter_map(|name| name.strip_prefix(&prefix))
        .map(|rest| join(path, rest.split('/').next().unwrap_or(rest)))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Files held in memory: tests, and the browser (where the worker reads Blobs
/// through its own implementation of [`TraceFs`]).
#[derive(Debug, Default, Clone)]
pub struct MemFs {
    files: BTreeMap<String, Vec<u8>>,
}

impl MemFs {
    pub fn new() -> MemFs {
        MemFs::default()
    }

    pub fn insert(&mut self, path: &str, bytes: impl Into<Vec<u8>>) {
        self.files
            .insert(path.trim_end_matches('/').to_string(), bytes.into());
    }
}

impl TraceFs for MemFs {
    fn kind(&self, path: &str) -> PathKind {
        kind_among(self.files.keys().map(String::as_str), path)
    }

    fn list_dir(&self, path: &str) -> Vec<String> {
        children_among(self.files.keys().map(String::as_str), path)
    }

    fn open(&self, path: &str) -> std::io::Result<Box<dyn Read + '_>> {
        match self.files.get(path.trim_end_matches('/')) {
            Some(bytes) => Ok(Box::new(bytes.as_slice())),
            None => Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "no such file",
            )),
        }
    }

    fn size(&self, path: &str) -> Option<u64> {
        self.files
            .get(path.trim_end_matches('/'))
            .map(|b| b.len() as u64)
    }

    fn read_at(
        &self,
        path: &str,
        offset: u64,
        len: usize,
        buf: &mut Vec<u8>,
    ) -> Option<std::io::Result<()>> {
        let bytes = self.files.get(path.trim_end_matches('/'))?;
        let slice = usize::try_from(offset)
            .ok()
            .and_then(|start| bytes.get(start..start.checked_add(len)?));
        Some(match slice {
            Some(slice) => {
                buf.clear();
                buf.extend_from_slice(slice);
                Ok(())
            }
            None => Err(std::io::ErrorKind::UnexpectedEof.into()),
        })
    }

    fn resolve(&self, path: &str) -> String {
        if path.starts_with('/') {
            path.to_string()
        } else {
            format!("/{path}")
        }
    }
}

/// The real file system (native builds).
#[derive(Debug, Default, Clone, Copy)]
pub struct StdFs;

impl TraceFs for StdFs {
    fn kind(&self, path: &str) -> PathKind {
        match std::fs::metadata(path) {
            Ok(m) if m.is_dir() => PathKind::Dir,
            Ok(_) => PathKind::File,
            Err(_) => PathKind::Missing,
        }
    }

    fn list_dir(&self, path: &str) -> Vec<String> {
        let mut out: Vec<String> = match std::fs::read_dir(path) {
            Ok(entries) => entries
                .filter_map(Result::ok)
                .map(|e| join(path, &e.file_name().to_string_lossy()))
                .collect(),
            Err(_) => Vec::new(),
        };
        out.sort();
        out
    }

    fn open(&self, path: &str) -> std::io::Result<Box<dyn Read + '_>> {
        Ok(Box::new(std::fs::File::open(path)?))
    }

    fn size(&self, path: &str) -> Option<u64> {
        std::fs::metadata(path).ok().map(|m| m.len())
    }

    fn read_at(
        &self,
        path: &str,
        offset: u64,
        len: usize,
        buf: &mut Vec<u8>,
    ) -> Option<std::io::Result<()>> {
        let mut read = || -> std::io::Result<()> {
            let mut file = std::fs::File::open(path)?;
            buf.resize(len, 0);
            #[cfg(unix)]
            {
                use std::os::unix::fs::FileExt;
                let _ = &mut file;
                file.read_exact_at(buf, offset)
            }
            #[cfg(not(unix))]
            {
                use std::io::{Seek, SeekFrom};
                file.seek(SeekFrom::Start(offset))?;
                file.read_exact(buf)
            }
        };
        Some(read())
    }

    fn resolve(&self, path: &str) -> String {
        match std::fs::canonicalize(path) {
            Ok(p) => p.to_string_lossy().into_owned(),
            Err(_) => match std::env::current_dir() {
                Ok(cwd) if !path.starts_with('/') => join(&cwd.to_string_lossy(), path),
                _ => path.to_string(),
            },
        }
    }
}
