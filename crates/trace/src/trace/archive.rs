//! Archives of a run — `.zip`, `.tar`, `.tar.gz` / `.tgz` — read as folders (beyond
//! stormlog, which reads neither). [`ArchiveFs`] puts the members of every archive
//! among the given paths in memory and serves the archive's path as a folder of them,
//! so every loader (per-rank files, sinks, CSV exports, timelines, gzip members) reads
//! them exactly as it reads the same files unpacked. A tar is read as a stream; a zip
//! needs its central directory, so the archive itself is read first. What the members
//! unpack to is bounded by [`MAX_ARCHIVE_BYTES`] in all: past it the archive is refused
//! with the sizes (a zip bomb never fills the memory).

use std::collections::BTreeMap;
use std::io::{Cursor, Read};

use flate2::read::MultiGzDecoder;

use super::error::{LoadError, LoadErrorKind};
use super::fs::{file_name, MemFs, PathKind, TraceFs};
use crate::format::format_bytes;

/// The most the members of the archives of one load may unpack to, in all: the page's
/// input limit (its WebAssembly memory holds at most 4 GiB).
pub const MAX_ARCHIVE_BYTES: u64 = 4 << 30;

/// How an archive is packed, from its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArchiveKind {
    Zip,
    Tar,
    TarGz,
}

impl ArchiveKind {
    /// The kind a file name says (any case), `None` for anything else.
    pub fn of(path: &str) -> Option<ArchiveKind> {
        let name = file_name(path).to_ascii_lowercase();
        if name.ends_with(".zip") {
            Some(ArchiveKind::Zip)
        } else if name.ends_with(".tar") {
            Some(ArchiveKind::Tar)
        } else if name.ends_with(".tar.gz") || name.ends_with(".tgz") {
            Some(ArchiveKind::TarGz)
        } else {
            None
        }
    }
}

/// A member's path inside its archive, made relative and safe (`./a/b` → `a/b`); `None`
/// for a path that climbs out (`..`) or names nothing.
fn member_path(raw: &str) -> Option<String> {
    let mut parts = Vec::new();
    for part in raw.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => return None,
            p => parts.push(p),
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// The one folder every member is inside, if there is one (`run` for `run/a.json`,
/// `run/b/c.json`).
fn single_top_folder(files: &[(String, Vec<u8>)]) -> Option<String> {
    let first = files.first()?.0.split_once('/')?.0;
    files
        .iter()
        .all(|(path, _)| path.split_once('/').is_some_and(|(top, _)| top == first))
        .then(|| first.to_string())
}

/// Unpacked members, counted against the limit.
struct Members<'a> {
    archive: &'a str,
    files: Vec<(String, Vec<u8>)>,
    total_bytes: u64,
    limit_bytes: u64,
}

impl Members<'_> {
    fn too_big(&self, more: u64) -> LoadError {
        LoadError::new(
            LoadErrorKind::Archive,
            file_name(self.archive),
            format!(
                "the archive unpacks to more than {} (at least {}); unpack it and give the \
                 command line the files, which streams them",
                format_bytes(self.limit_bytes as i64),
                format_bytes(self.total_bytes.saturating_add(more) as i64)
            ),
        )
    }

    /// Read one member (at most what is left of the limit, whatever its header says).
    fn add(&mut self, name: &str, declared_bytes: u64, reader: impl Read) -> Result<(), LoadError> {
        let left = self.limit_bytes.saturating_sub(self.total_bytes);
        if declared_bytes > left {
            return Err(self.too_big(declared_bytes));
        }
        let mut bytes =
            Vec::with_capacity(usize::try_from(declared_bytes.min(1 << 26)).unwrap_or(0));
        reader
            .take(left.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(|e| self.broken(&format!("{name}: {e}")))?;
        if bytes.len() as u64 > left {
            return Err(self.too_big(bytes.len() as u64));
        }
        self.total_bytes += bytes.len() as u64;
        if let Some(path) = member_path(name) {
            self.files.push((path, bytes));
        }
        Ok(())
    }

    fn broken(&self, what: &str) -> LoadError {
        LoadError::new(
            LoadErrorKind::Archive,
            file_name(self.archive),
            format!("not a readable archive: {what}"),
        )
    }
}

fn unpack_zip(members: &mut Members<'_>, bytes: Vec<u8>) -> Result<(), LoadError> {
    let mut zip =
        zip::ZipArchive::new(Cursor::new(bytes)).map_err(|e| members.broken(&e.to_string()))?;
    for i in 0..zip.len() {
        let entry = zip
            .by_index(i)
            .map_err(|e| members.broken(&e.to_string()))?;
        if !entry.is_file() {
            continue;
        }
        let name = entry.name().to_string();
        let declared = entry.size();
        members.add(&name, declared, entry)?;
    }
    Ok(())
}

fn unpack_tar(members: &mut Members<'_>, reader: impl Read) -> Result<(), LoadError> {
    let mut tar = tar::Archive::new(reader);
    let entries = tar.entries().map_err(|e| members.broken(&e.to_string()))?;
    for entry in entries {
        let entry = entry.map_err(|e| members.broken(&e.to_string()))?;
        if !entry.header().entry_type().is_file() {
            continue;
        }
        let name = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
        let declared = entry.header().size().unwrap_or(0);
        members.add(&name, declared, entry)?;
    }
    Ok(())
}

/// `inner` with every archive among some paths served as a folder of its members.
pub struct ArchiveFs<'a> {
    inner: &'a dyn TraceFs,
    /// Archive path (as given) → its members, keyed by `path/member`.
    archives: BTreeMap<String, MemFs>,
    /// Archives that could not be unpacked (their error is reported; they load nothing).
    failed: Vec<String>,
}

impl<'a> ArchiveFs<'a> {
    /// Unpack the archives among `paths` (a file whose name says zip, tar or tar.gz),
    /// `limit_bytes` in all; an archive that cannot be read or is too big is an error
    /// of its own and left out (the other inputs still load).
    pub fn open(
        inner: &'a dyn TraceFs,
        paths: &[String],
        limit_bytes: u64,
        errors: &mut Vec<LoadError>,
    ) -> ArchiveFs<'a> {
        let mut archives = BTreeMap::new();
        let mut failed = Vec::new();
        let mut total_bytes = 0u64;
        for path in paths {
            let Some(kind) = ArchiveKind::of(path) else {
                continue;
            };
            if inner.kind(path) != PathKind::File || archives.contains_key(path) {
                continue;
            }
            let mut members = Members {
                archive: path,
                files: Vec::new(),
                total_bytes,
                limit_bytes,
            };
            let unpacked = match inner.open(path) {
                Err(e) => Err(LoadError::new(
                    LoadErrorKind::Io,
                    file_name(path),
                    e.to_string(),
                )),
                Ok(reader) => match kind {
                    ArchiveKind::Tar => unpack_tar(&mut members, reader),
                    ArchiveKind::TarGz => unpack_tar(&mut members, MultiGzDecoder::new(reader)),
                    ArchiveKind::Zip => {
                        let mut bytes = Vec::new();
                        let mut reader = reader;
                        match reader.read_to_end(&mut bytes) {
                            Ok(_) => unpack_zip(&mut members, bytes),
                            Err(e) => Err(LoadError::new(
                                LoadErrorKind::Io,
                                file_name(path),
                                e.to_string(),
                            )),
                        }
                    }
                },
            };
            match unpacked {
                Ok(()) => {
                    total_bytes = members.total_bytes;
                    let mut fs = MemFs::new();
                    // `tar czf run.tar.gz run/`: an archive whose members all sit in one
                    // folder is that folder.
                    let top = single_top_folder(&members.files);
                    for (member, bytes) in members.files {
                        let member = match &top {
                            Some(top) => member[top.len() + 1..].to_string(),
                            None => member,
                        };
                        fs.insert(&format!("{}/{member}", path.trim_end_matches('/')), bytes);
                    }
                    archives.insert(path.clone(), fs);
                }
                Err(e) => {
                    errors.push(e);
                    failed.push(path.clone());
                }
            }
        }
        ArchiveFs {
            inner,
            archives,
            failed,
        }
    }

    /// Whether any archive was unpacked.
    pub fn is_empty(&self) -> bool {
        self.archives.is_empty()
    }

    /// `paths` without the archives that could not be unpacked.
    pub fn loadable(&self, paths: &[String]) -> Vec<String> {
        paths
            .iter()
            .filter(|p| !self.failed.contains(p))
            .cloned()
            .collect()
    }

    /// The unpacked archive `path` is, or is inside.
    fn archive_of(&self, path: &str) -> Option<(&str, &MemFs)> {
        let path = path.trim_end_matches('/');
        self.archives.iter().find_map(|(archive, fs)| {
            let inside = path == archive
                || path
                    .strip_prefix(archive.as_str())
                    .is_some_and(|rest| rest.starts_with('/'));
            inside.then_some((archive.as_str(), fs))
        })
    }
}

impl TraceFs for ArchiveFs<'_> {
    fn kind(&self, path: &str) -> PathKind {
        match self.archive_of(path) {
            // An archive with no member holds nothing: as an empty folder does.
            Some((archive, _)) if archive == path.trim_end_matches('/') => PathKind::Dir,
            Some((_, fs)) => fs.kind(path),
            None => self.inner.kind(path),
        }
    }

    fn list_dir(&self, path: &str) -> Vec<String> {
        match self.archive_of(path) {
            Some((_, fs)) => fs.list_dir(path),
            None => self.inner.list_dir(path),
        }
    }

    fn open(&self, path: &str) -> std::io::Result<Box<dyn Read + '_>> {
        match self.archive_of(path) {
            Some((_, fs)) => fs.open(path),
            None => self.inner.open(path),
        }
    }

    fn size(&self, path: &str) -> Option<u64> {
        match self.archive_of(path) {
            Some((_, fs)) => fs.size(path),
            None => self.inner.size(path),
        }
    }

    fn resolve(&self, path: &str) -> String {
        match self.archive_of(path) {
            Some((archive, _)) => {
                let rest = &path.trim_end_matches('/')[archive.len()..];
                format!("{}{rest}", self.inner.resolve(archive))
            }
            None => self.inner.resolve(path),
        }
    }

    fn read_at(
        &self,
        path: &str,
        offset: u64,
        len: usize,
        buf: &mut Vec<u8>,
    ) -> Option<std::io::Result<()>> {
        match self.archive_of(path) {
            Some((_, fs)) => fs.read_at(path, offset, len, buf),
            None => self.inner.read_at(path, offset, len, buf),
        }
    }

    fn take_parsed(&self, path: &str) -> Option<super::ranges::Preparsed<'_>> {
        match self.archive_of(path) {
            Some(_) => None,
            None => self.inner.take_parsed(path),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_and_member_paths() {
        assert_eq!(ArchiveKind::of("run/Ranks.ZIP"), Some(ArchiveKind::Zip));
        assert_eq!(ArchiveKind::of("run.tar"), Some(ArchiveKind::Tar));
        assert_eq!(ArchiveKind::of("run.tar.gz"), Some(ArchiveKind::TarGz));
        assert_eq!(ArchiveKind::of("run.tgz"), Some(ArchiveKind::TarGz));
        assert_eq!(ArchiveKind::of("rank0.json.gz"), None);
        assert_eq!(ArchiveKind::of("zip/rank0.json"), None);
        assert_eq!(
            member_path("./run/rank0.json"),
            Some("run/rank0.json".into())
        );
        assert_eq!(member_path("/abs//x.json"), Some("abs/x.json".into()));
        assert_eq!(member_path("a\\b.json"), Some("a/b.json".into()));
        assert_eq!(member_path("../etc/passwd"), None);
        assert_eq!(member_path("./"), None);
        let files = |names: &[&str]| -> Vec<(String, Vec<u8>)> {
            names.iter().map(|n| (n.to_string(), Vec::new())).collect()
        };
        assert_eq!(
            single_top_folder(&files(&["run/a.json", "run/b/c.json"])),
            Some("run".into())
        );
        assert_eq!(single_top_folder(&files(&["run/a.json", "b.json"])), None);
        assert_eq!(
            single_top_folder(&files(&["run/a.json", "other/b.json"])),
            None
        );
        assert_eq!(single_top_folder(&files(&["a.json"])), None);
        assert_eq!(single_top_folder(&[]), None);
    }
}
