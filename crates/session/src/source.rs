//! Traces opened from a URL of the page's own site (`#…&src=traces/` in a link, as
//! `shardscope report` prints it): one file, or a folder whose `index.json` lists its
//! files. Only URLs relative to the page (or to its site's root) are taken: the page's
//! content security policy allows no other origin, and a link must never make the page
//! read someone else's site.

use serde::{Deserialize, Serialize};

/// The file a folder source lists its traces in.
pub const INDEX_FILE: &str = "index.json";

/// Where a link's traces are.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Source {
    /// One file (`run.json.gz`).
    File(String),
    /// A folder (`traces/`), its files listed in its [`INDEX_FILE`].
    Folder(String),
}

/// Why a source or an index is refused, in words a person can act on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SourceError {
    #[error("`{0}` is on another site: links open traces of this page's own site only (a path such as traces/ or run.json.gz)")]
    CrossOrigin(String),
    #[error("`{0}` is not a path of this site (no `..`, `\\`, control characters or empty names)")]
    BadPath(String),
    #[error("the folder's index.json is not a list of files: {0}")]
    BadIndex(String),
    #[error("two inputs are both called `{0}`: the page loads each input under its own name (give their common folder instead)")]
    SameName(String),
}

/// Whether `text` starts with a URL scheme (`https:`, `data:`, `javascript:`).
fn has_scheme(text: &str) -> bool {
    let Some(colon) = text.find(':') else {
        return false;
    };
    let scheme = &text[..colon];
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

/// A path of this site: not another origin, no `..` or backslash, no empty name
/// inside (a leading `/` means the site's root, a trailing one a folder).
fn check_path(text: &str) -> Result<(), SourceError> {
    if text.starts_with("//") || has_scheme(text) {
        return Err(SourceError::CrossOrigin(text.to_string()));
    }
    let inner = text.trim_start_matches('/').trim_end_matches('/');
    // A browser drops tabs and newlines from a URL before it reads it (and takes `\` for
    // `/`): `/%09/evil.example/` would become `//evil.example/`, another site.
    let bad = inner.is_empty()
        || text.chars().any(char::is_control)
        || text.contains('\\')
        || text.contains('?')
        || text.contains('#')
        || inner
            .split('/')
            .any(|p| p.is_empty() || p == ".." || p == ".");
    if bad {
        return Err(SourceError::BadPath(text.to_string()));
    }
    Ok(())
}

impl Source {
    /// A link's `src`: a file, or a folder when it ends with `/`.
    pub fn parse(text: &str) -> Result<Source, SourceError> {
        let text = text.trim();
        check_path(text)?;
        Ok(if text.ends_with('/') {
            Source::Folder(text.to_string())
        } else {
            Source::File(text.to_string())
        })
    }

    /// The text a link holds.
    pub fn text(&self) -> &str {
        match self {
            Source::File(t) | Source::Folder(t) => t,
        }
    }

    /// The URL of a folder's index (`None` for a file).
    pub fn index_url(&self) -> Option<String> {
        match self {
            Source::Folder(f) => Some(format!("{f}{INDEX_FILE}")),
            Source::File(_) => None,
        }
    }

    /// The URLs to fetch and the names to load them as: the file itself, or each
    /// file `index` lists (under the folder, keeping the listed subfolders; each name
    /// percent-encoded, so `#`, `%` or `:` in a file name stay part of its path).
    pub fn files(&self, index: &[String]) -> Vec<(String, String)> {
        match self {
            Source::File(url) => {
                let name = url.rsplit('/').next().unwrap_or(url).to_string();
                vec![(url.clone(), name)]
            }
            Source::Folder(folder) => index
                .iter()
                .map(|name| (format!("{folder}{}", url_path(name)), name.clone()))
                .collect(),
        }
    }
}

/// `name` (a relative path) as a URL path: each `/`-separated part percent-encoded,
/// all but the unreserved characters.
pub fn url_path(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for (i, part) in name.split('/').enumerate() {
        if i > 0 {
            out.push('/');
        }
        for &b in part.as_bytes() {
            if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
                out.push(b as char);
            } else {
                out.push_str(&format!("%{b:02X}"));
            }
        }
    }
    out
}

/// A file an index lists: a relative path inside the folder (no leading or trailing
/// `/`, no empty, `.` or `..` part, no backslash). Any other character is kept: the
/// URL it is fetched from encodes it ([`url_path`]).
fn check_index_name(name: &str) -> Result<(), SourceError> {
    let bad = name.is_empty()
        || name.contains('\\')
        || name
            .split('/')
            .any(|p| p.is_empty() || p == ".." || p == ".");
    if bad {
        return Err(SourceError::BadPath(name.to_string()));
    }
    Ok(())
}

/// What `index.json` says: `{"files": ["rank0.json.gz", "sink/manifest.json", …]}` (or
/// entries `{"name": …}`), each a path inside the folder.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Index {
    pub files: Vec<IndexEntry>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum IndexEntry {
    Name(String),
    Entry { name: String },
}

/// The file names of an index, each checked to be inside the folder.
pub fn parse_index(text: &str) -> Result<Vec<String>, SourceError> {
    let index: Index =
        serde_json::from_str(text).map_err(|e| SourceError::BadIndex(e.to_string()))?;
    let names: Vec<String> = index
        .files
        .into_iter()
        .map(|e| match e {
            IndexEntry::Name(n) | IndexEntry::Entry { name: n } => n,
        })
        .collect();
    if names.is_empty() {
        return Err(SourceError::BadIndex("it lists no file".to_string()));
    }
    for name in &names {
        check_index_name(name)?;
    }
    Ok(names)
}

/// The `index.json` listing `names` (what `shardscope report` writes).
pub fn index_json(names: &[String]) -> String {
    let index = Index {
        files: names.iter().cloned().map(IndexEntry::Name).collect(),
    };
    let mut text = serde_json::to_string_pretty(&index).unwrap_or_default();
    text.push('\n');
    text
}

/// The folder of a report that holds its traces: the link's `src`.
pub const REPORT_TRACES: &str = "traces/";

/// One input of `shardscope report`: its name on the site (the path's last part, the
/// name the page gives a dropped file or folder) and, for a folder, its files (paths
/// relative to it, `/`-separated).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportInput {
    pub name: String,
    pub folder_files: Option<Vec<String>>,
}

/// The names a report's `index.json` lists, in the order of its inputs: a file under
/// its own name, a folder's files under `folder/…`. The page loads each top-level name
/// as one input, as the command line loaded each path, so two inputs of one name are
/// refused rather than renamed.
pub fn report_names(inputs: &[ReportInput]) -> Result<Vec<String>, SourceError> {
    let mut names = Vec::new();
    for (i, input) in inputs.iter().enumerate() {
        if inputs[..i].iter().any(|o| o.name == input.name) {
            return Err(SourceError::SameName(input.name.clone()));
        }
        match &input.folder_files {
            None => names.push(input.name.clone()),
            Some(files) => names.extend(files.iter().map(|f| format!("{}/{f}", input.name))),
        }
    }
    for name in &names {
        check_index_name(name)?;
    }
    Ok(names)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_paths_of_this_site_are_sources() {
        assert_eq!(
            Source::parse("traces/"),
            Ok(Source::Folder("traces/".into()))
        );
        assert_eq!(
            Source::parse(" run.json.gz "),
            Ok(Source::File("run.json.gz".into()))
        );
        assert_eq!(
            Source::parse("/runs/a/"),
            Ok(Source::Folder("/runs/a/".into()))
        );
        for other in [
            "https://evil.example/t/",
            "//evil.example/t",
            "data:text/plain,x",
            "javascript:alert(1)",
            "HTTP://x/",
        ] {
            assert!(
                matches!(Source::parse(other), Err(SourceError::CrossOrigin(_))),
                "{other}"
            );
        }
        // A browser drops tabs and newlines inside a URL (and reads `\` as `/`): each of
        // these would fetch //evil.example/.
        for hidden in [
            "/\t/evil.example/run.json",
            "/\n/evil.example/run.json",
            "/\r/evil.example/run.json",
            "/\\/evil.example/run.json",
            "runs/\u{7f}x.json",
        ] {
            assert!(
                matches!(Source::parse(hidden), Err(SourceError::BadPath(_))),
                "{hidden:?}"
            );
        }
        for bad in ["", "/", "../up/", "a/../b", "a//b", "a\\b", "a?x=1", "./a"] {
            assert!(
                matches!(Source::parse(bad), Err(SourceError::BadPath(_))),
                "{bad}"
            );
        }
        assert!(Source::parse("https://x")
            .unwrap_err()
            .to_string()
            .contains("on another site"));
        let folder = Source::parse("traces/").unwrap();
        assert_eq!(folder.index_url().as_deref(), Some("traces/index.json"));
        assert_eq!(
            folder.files(&["rank0.json.gz".into(), "sink/manifest.json".into()]),
            vec![
                (
                    "traces/rank0.json.gz".to_string(),
                    "rank0.json.gz".to_string()
                ),
                (
                    "traces/sink/manifest.json".to_string(),
                    "sink/manifest.json".to_string()
                )
            ]
        );
        let file = Source::parse("runs/run.json.gz").unwrap();
        assert_eq!(file.index_url(), None);
        assert_eq!(
            file.files(&[]),
            vec![("runs/run.json.gz".to_string(), "run.json.gz".to_string())]
        );
    }

    #[test]
    fn an_index_lists_files_inside_its_folder() {
        let names = vec![
            "rank0.json.gz".to_string(),
            "sink/manifest.json".to_string(),
        ];
        assert_eq!(parse_index(&index_json(&names)), Ok(names));
        assert_eq!(
            parse_index(r#"{"files": [{"name": "a.json"}, "b.json"]}"#),
            Ok(vec!["a.json".to_string(), "b.json".to_string()])
        );
        for bad in [r#"{"files": []}"#, "[]", "{", r#"{"files": [3]}"#] {
            assert!(
                matches!(parse_index(bad), Err(SourceError::BadIndex(_))),
                "{bad}"
            );
        }
        for bad in [
            r#"{"files": ["../x.json"]}"#,
            r#"{"files": ["/etc/x"]}"#,
            r#"{"files": ["https://x/y"]}"#,
        ] {
            assert!(parse_index(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_report_lists_each_input_under_its_own_name() {
        let inputs = vec![
            ReportInput {
                name: "rank0.json".into(),
                folder_files: None,
            },
            ReportInput {
                name: "sink".into(),
                folder_files: Some(vec!["manifest.json".into(), "a #1/seg.jsonl".into()]),
            },
        ];
        let names = report_names(&inputs).unwrap();
        assert_eq!(
            names,
            vec!["rank0.json", "sink/manifest.json", "sink/a #1/seg.jsonl"]
        );
        // Fetched from encoded URLs, loaded under the listed names.
        let folder = Source::parse(REPORT_TRACES).unwrap();
        assert_eq!(
            folder.files(&names)[2],
            (
                "traces/sink/a%20%231/seg.jsonl".to_string(),
                "sink/a #1/seg.jsonl".to_string()
            )
        );
        assert_eq!(url_path("c:d/e%f.json"), "c%3Ad/e%25f.json");
        let twice = vec![inputs[0].clone(), inputs[0].clone()];
        assert_eq!(
            report_names(&twice),
            Err(SourceError::SameName("rank0.json".into()))
        );
    }
}
