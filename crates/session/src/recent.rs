//! Recent traces: the last trace sets loaded in the trace view, kept in the browser (the
//! page stores their bytes in Cache Storage) so that a reload or a link reopens them.
//! This module decides what is kept — at most [`MAX_SETS`] sets and [`MAX_BYTES`] in
//! all, newest first, a set loaded again replacing its older copy — which set a link's
//! file names ask for, and how a set is described; the page only moves bytes.

use serde::{Deserialize, Serialize};

use crate::format::format_file_size;

/// Most trace sets kept.
pub const MAX_SETS: usize = 5;
/// Most bytes kept in all (the files as loaded; gzip stays gzip).
pub const MAX_BYTES: u64 = 1 << 30;

/// One file of a kept set.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeptFile {
    /// The name it was loaded under (`sink/segment-000001.jsonl` for a folder's file).
    pub name: String,
    pub bytes: u64,
}

/// A kept trace set: its files, when it was loaded, and the settings it was shown with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KeptSet {
    /// Unique among kept sets: where the page stores its files.
    pub id: String,
    pub files: Vec<KeptFile>,
    /// When it was kept (milliseconds since 1970, UTC).
    pub saved_ms: f64,
    /// The trace view's settings as a link fragment (`#v=1&preset=high…`).
    pub fragment: String,
}

impl KeptSet {
    pub fn bytes(&self) -> u64 {
        self.files.iter().map(|f| f.bytes).sum()
    }

    /// What the set is called: its one file, its folder, or the first name and a count.
    pub fn name(&self) -> String {
        let tops: Vec<&str> = {
            let mut tops: Vec<&str> = Vec::new();
            for f in &self.files {
                let top = f.name.split('/').next().unwrap_or(&f.name);
                if !tops.contains(&top) {
                    tops.push(top);
                }
            }
            tops
        };
        match tops.as_slice() {
            [] => "(no files)".to_string(),
            [one] => one.to_string(),
            [first, rest @ ..] => format!("{first} + {} more", rest.len()),
        }
    }

    /// `12 files · 118.0 MiB · 2026-12-05 14:02` (the date in the viewer's time zone,
    /// `utc_offset_minutes` east of UTC).
    pub fn summary(&self, utc_offset_minutes: i64) -> String {
        let n = self.files.len();
        format!(
            "{n} file{} · {} · {}",
            if n == 1 { "" } else { "s" },
            format_file_size(self.bytes()),
            format_date(self.saved_ms, utc_offset_minutes)
        )
    }

    /// Whether the set holds exactly these files (by name, in any order).
    fn same_files(&self, names: &[String]) -> bool {
        let mut mine: Vec<&str> = self.files.iter().map(|f| f.name.as_str()).collect();
        let mut theirs: Vec<&str> = names.iter().map(String::as_str).collect();
        mine.sort_unstable();
        theirs.sort_unstable();
        mine == theirs
    }
}

/// Why a set is not kept.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeepRefusal {
    #[error("{} is more than the {} kept in all: not kept", format_file_size(*.0), format_file_size(MAX_BYTES))]
    TooBig(u64),
    #[error("nothing to keep")]
    Empty,
}

/// The kept sets, newest first.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct KeptList {
    pub sets: Vec<KeptSet>,
}

impl KeptList {
    /// The list as stored; anything unreadable is an empty list (the bytes it named are
    /// then left to [`KeptList::orphans`]).
    pub fn parse(text: &str) -> KeptList {
        serde_json::from_str(text).unwrap_or_default()
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    pub fn bytes(&self) -> u64 {
        self.sets.iter().map(KeptSet::bytes).sum()
    }

    /// Keep `set` first: an older copy of the same files is replaced, then the oldest
    /// sets go until at most [`MAX_SETS`] and [`MAX_BYTES`] remain. Returns the ids of
    /// the sets that went (their files are to be deleted).
    pub fn keep(&mut self, set: KeptSet) -> Result<Vec<String>, KeepRefusal> {
        if set.files.is_empty() {
            return Err(KeepRefusal::Empty);
        }
        if set.bytes() > MAX_BYTES {
            return Err(KeepRefusal::TooBig(set.bytes()));
        }
        let names: Vec<String> = set.files.iter().map(|f| f.name.clone()).collect();
        let mut gone: Vec<String> = Vec::new();
        self.sets.retain(|s| {
            let same = s.same_files(&names) && s.bytes() == set.bytes();
            if same && s.id != set.id {
                gone.push(s.id.clone());
            }
            !same
        });
        self.sets.insert(0, set);
        while self.sets.len() > MAX_SETS || self.bytes() > MAX_BYTES {
            match self.sets.pop() {
                Some(old) => gone.push(old.id),
                None => break,
            }
        }
        Ok(gone)
    }

    /// A set of exactly these files (names and sizes) loaded again — reopened, or the
    /// same files dropped — moves first with a new date and settings; whether there was
    /// one (then nothing new is to be stored).
    pub fn refresh(&mut self, files: &[KeptFile], saved_ms: f64, fragment: &str) -> bool {
        let mut mine: Vec<&KeptFile> = files.iter().collect();
        mine.sort_by(|a, b| a.name.cmp(&b.name));
        let found = self.sets.iter().position(|s| {
            let mut theirs: Vec<&KeptFile> = s.files.iter().collect();
            theirs.sort_by(|a, b| a.name.cmp(&b.name));
            theirs == mine
        });
        let Some(i) = found else {
            return false;
        };
        let mut set = self.sets.remove(i);
        set.saved_ms = saved_ms;
        set.fragment = fragment.to_string();
        self.sets.insert(0, set);
        true
    }

    /// Forget the set `id`; whether it was there.
    pub fn remove(&mut self, id: &str) -> bool {
        let before = self.sets.len();
        self.sets.retain(|s| s.id != id);
        self.sets.len() != before
    }

    /// The newest kept set holding exactly the files a link asks for (`files=`).
    pub fn matching(&self, names: &[String]) -> Option<&KeptSet> {
        if names.is_empty() {
            return None;
        }
        self.sets.iter().find(|s| s.same_files(names))
    }

    /// Of the stored set ids, those the list does not name (left by an interrupted
    /// save or an unreadable list): their files are to be deleted.
    pub fn orphans<'a>(&self, stored: &'a [String]) -> Vec<&'a String> {
        stored
            .iter()
            .filter(|id| !self.sets.iter().any(|s| &s.id == *id))
            .collect()
    }
}

/// A new set id from the time it is kept (unique: at most one set a millisecond is
/// kept, and `taken` ids are skipped).
pub fn new_id(saved_ms: f64, list: &KeptList) -> String {
    let mut n = saved_ms.max(0.0) as u64;
    loop {
        let id = format!("set-{n}");
        if !list.sets.iter().any(|s| s.id == id) {
            return id;
        }
        n += 1;
    }
}

/// `2026-12-05 14:02` for `ms` since 1970 UTC, shifted by `utc_offset_minutes`.
pub fn format_date(ms: f64, utc_offset_minutes: i64) -> String {
    let minutes = (ms / 60_000.0).floor() as i64 + utc_offset_minutes;
    let days = minutes.div_euclid(24 * 60);
    let minute_of_day = minutes.rem_euclid(24 * 60);
    let (year, month, day) = crate::format::civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}",
        minute_of_day / 60,
        minute_of_day % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(id: &str, files: &[(&str, u64)], saved_ms: f64) -> KeptSet {
        KeptSet {
            id: id.to_string(),
            files: files
                .iter()
                .map(|(n, b)| KeptFile {
                    name: n.to_string(),
                    bytes: *b,
                })
                .collect(),
            saved_ms,
            fragment: "#v=1&view=trace".to_string(),
        }
    }

    #[test]
    fn at_most_five_sets_and_one_gib_newest_first() {
        let mut list = KeptList::default();
        for i in 0..5 {
            let gone = list
                .keep(set(
                    &format!("s{i}"),
                    &[(&format!("r{i}.json"), 10)],
                    i as f64,
                ))
                .unwrap();
            assert!(gone.is_empty());
        }
        assert_eq!(
            list.keep(set("s5", &[("r5.json", 10)], 5.0)),
            Ok(vec!["s0".into()])
        );
        assert_eq!(
            list.sets.iter().map(|s| s.id.as_str()).collect::<Vec<_>>(),
            vec!["s5", "s4", "s3", "s2", "s1"]
        );
        // A big set pushes out as many old ones as it needs.
        let big = MAX_BYTES - 25;
        assert_eq!(
            list.keep(set("big", &[("big.json", big)], 6.0)),
            Ok(vec!["s1".into(), "s2".into(), "s3".into()])
        );
        assert_eq!(list.bytes(), big + 20);
        assert_eq!(
            list.keep(set("huge", &[("huge.json", MAX_BYTES + 1)], 7.0)),
            Err(KeepRefusal::TooBig(MAX_BYTES + 1))
        );
        assert!(KeepRefusal::TooBig(MAX_BYTES + 1)
            .to_string()
            .ends_with("kept in all: not kept"));
        assert_eq!(list.keep(set("none", &[], 8.0)), Err(KeepRefusal::Empty));
        assert_eq!(list.sets.len(), 3);
    }

    #[test]
    fn the_same_files_loaded_again_replace_their_older_copy() {
        let mut list = KeptList::default();
        list.keep(set("a", &[("r0.json", 5), ("r1.json", 6)], 1.0))
            .unwrap();
        list.keep(set("b", &[("other.json", 5)], 2.0)).unwrap();
        let gone = list
            .keep(set("c", &[("r1.json", 6), ("r0.json", 5)], 3.0))
            .unwrap();
        assert_eq!(gone, vec!["a".to_string()]);
        assert_eq!(list.sets[0].id, "c");
        // Loaded again: moved first, nothing new to store.
        let files = list.sets[1].files.clone();
        assert!(list.refresh(&files, 9.0, "#v=1&preset=high"));
        assert_eq!(
            (
                list.sets[0].id.as_str(),
                list.sets[0].saved_ms,
                list.sets[0].fragment.as_str()
            ),
            ("b", 9.0, "#v=1&preset=high")
        );
        let other = vec![KeptFile {
            name: "other.json".into(),
            bytes: 6,
        }];
        assert!(!list.refresh(&other, 10.0, ""));
        // Same names, other sizes: another run of the same job, kept beside it.
        assert!(list
            .keep(set("d", &[("r1.json", 7), ("r0.json", 5)], 4.0))
            .unwrap()
            .is_empty());
        assert_eq!(list.sets.len(), 3);
    }

    #[test]
    fn a_link_finds_the_newest_set_of_its_files() {
        let mut list = KeptList::default();
        list.keep(set("old", &[("r0.json", 5), ("r1.json", 6)], 1.0))
            .unwrap();
        list.keep(set("new", &[("r0.json", 9), ("r1.json", 9)], 2.0))
            .unwrap();
        let want = vec!["r1.json".to_string(), "r0.json".to_string()];
        assert_eq!(list.matching(&want).map(|s| s.id.as_str()), Some("new"));
        assert_eq!(list.matching(&["r0.json".to_string()]), None);
        assert_eq!(list.matching(&[]), None);
        assert!(list.remove("new"));
        assert!(!list.remove("new"));
        assert_eq!(list.matching(&want).map(|s| s.id.as_str()), Some("old"));
        // Stored and read back; garbage reads as nothing kept.
        assert_eq!(KeptList::parse(&list.to_json()), list);
        assert_eq!(KeptList::parse("{oops"), KeptList::default());
        let stored = vec!["old".to_string(), "lost".to_string()];
        assert_eq!(list.orphans(&stored), vec![&"lost".to_string()]);
        assert_eq!(new_id(5.0, &list), "set-5");
        list.sets[0].id = "set-5".into();
        assert_eq!(new_id(5.0, &list), "set-6");
    }

    #[test]
    fn sets_are_named_by_their_files_and_dated_in_the_viewers_zone() {
        let one = set("a", &[("run.json.gz", 2048)], 1_764_943_320_000.0);
        assert_eq!(one.name(), "run.json.gz");
        assert_eq!(
            one.summary(0),
            format!("1 file · {} · 2025-12-05 14:02", format_file_size(2048))
        );
        assert_eq!(
            one.summary(-300),
            format!("1 file · {} · 2025-12-05 09:02", format_file_size(2048))
        );
        let folder = set(
            "b",
            &[("sink/manifest.json", 1), ("sink/seg.jsonl", 1)],
            0.0,
        );
        assert_eq!(folder.name(), "sink");
        let many = set("c", &[("r0.json", 1), ("r1.json", 1), ("r2.json", 1)], 0.0);
        assert_eq!(many.name(), "r0.json + 2 more");
        assert_eq!(format_date(0.0, 0), "1970-01-01 00:00");
        assert_eq!(format_date(951_782_400_000.0, 0), "2000-02-29 00:00");
        assert_eq!(format_date(0.0, -1), "1969-12-31 23:59");
    }
}
