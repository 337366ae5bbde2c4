//! The fast paths for a big file: ranges parsed by the browser's helper workers
//! (`TraceFs::take_parsed`), else two threads on native builds (not compiled into wasm).
//! They only succeed or give up; the sequential parse owns every error.

use super::*;

impl Loader<'_> {
    /// The fast paths for a big file (ranges parsed by the browser's helper workers,
    /// else threads on native builds): `true` when one parsed the whole file into
    /// `grouper`; `false` leaves the file to the sequential parse, which also reports
    /// any error exactly.
    pub(super) fn try_parallel(
        &mut self,
        path: &str,
        layout: Layout,
        default_id: &str,
        grouper: &mut SessionGrouper,
    ) -> bool {
        if let Some(pre) = self.fs.take_parsed(path) {
            if self.merge_preparsed(path, pre, layout, default_id, grouper) {
                return true;
            }
        }
        self.try_threads(path, layout, default_id, grouper)
    }

    /// Ranges parsed elsewhere (the browser's helper workers) for this file: `true`
    /// when they stitch into the whole file; `false` leaves the file to the other paths.
    fn merge_preparsed(
        &mut self,
        path: &str,
        pre: Preparsed<'_>,
        layout: Layout,
        default_id: &str,
        grouper: &mut SessionGrouper,
    ) -> bool {
        if pre.default_session_id != default_id || layout != Layout::JsonArray {
            return false;
        }
        let slack = SLACK_BYTES.min(pre.range_bytes.max(4096));
        let tasks = plan(pre.file_bytes, pre.range_bytes, slack);
        let mut merger = RangeMerger::new(&tasks);
        let mut parsed = SessionGrouper::default();
        let merge = || -> Result<(), GaveUp> {
            for bytes in pre.ranges {
                merger.take(ParsedRange::from_bytes(&bytes)?, &mut self.ctx, &mut parsed)?;
            }
            merger.finish()
        };
        if merge().is_err() {
            return false;
        }
        let report = LoadProgress {
            file: file_name(path).to_string(),
            file_index: self.file_index,
            file_count: self.file_count.max(self.file_index + 1),
            file_done_bytes: pre.file_bytes,
            file_total_bytes: pre.file_bytes,
        };
        (self.progress)(&report);
        self.file_index += 1;
        grouper.append(parsed);
        self.parallel_files += 1;
        true
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn try_threads(
        &mut self,
        path: &str,
        layout: Layout,
        default_id: &str,
        grouper: &mut SessionGrouper,
    ) -> bool {
        if !self.parallel || self.fs.size(path).unwrap_or(0) < self.parallel_min_bytes {
            return false;
        }
        if let Some(done) = self.try_ranges(path, layout, default_id, grouper) {
            return done;
        }
        let index = self.file_index;
        let Ok(mut input) = open_input(
            self.fs,
            path,
            &mut *self.progress,
            &mut self.file_index,
            self.file_count,
        ) else {
            self.file_index = index;
            return false;
        };
        let starts_right = match layout {
            Layout::JsonArray => {
                matches!(input.fill(), Ok(true)) && {
                    let data = input.data();
                    data.get(crate::json::skip_ws(data, 0)) == Some(&b'[')
                }
            }
            Layout::Jsonl => true,
        };
        let mut parsed = SessionGrouper::default();
        let done = starts_right
            && parse_parallel(
                &mut input,
                parse_workers(self.threads),
                layout,
                &mut self.ctx,
                default_id,
                &mut parsed,
            )
            .is_ok();
        if done {
            grouper.append(parsed);
            self.parallel_files += 1;
        } else {
            self.file_index = index; // the sequential parse reports this file again
        }
        done
    }

    /// The range-parallel path ([`parse_ranges_parallel`]) for files the tree can read
    /// at any offset and that are not gzip. `None`: not applicable, try the streaming
    /// parallel path; `Some(done)` as for [`Loader::try_parallel`].
    #[cfg(not(target_arch = "wasm32"))]
    fn try_ranges(
        &mut self,
        path: &str,
        layout: Layout,
        default_id: &str,
        grouper: &mut SessionGrouper,
    ) -> Option<bool> {
        let fs = self.fs;
        let file_bytes = fs.size(path)?;
        let mut head = Vec::new();
        if fs.read_at(path, 0, 2, &mut head)?.is_err() || head == [0x1f, 0x8b] {
            return None;
        }
        let name = file_name(path).to_string();
        let report = LoadProgress {
            file: name,
            file_index: self.file_index,
            file_count: self.file_count.max(self.file_index + 1),
            file_done_bytes: 0,
            file_total_bytes: file_bytes,
        };
        let progress = &mut *self.progress;
        progress(&report);
        let mut parsed = SessionGrouper::default();
        let mut read_at = |offset: u64, len: usize, buf: &mut Vec<u8>| {
            matches!(fs.read_at(path, offset, len, buf), Some(Ok(())))
        };
        // Small ranges (tests) read less slack first: a longer record means a second try.
        let slack = SLACK_BYTES.min(self.range_bytes.max(4096));
        let tasks = plan(file_bytes, self.range_bytes, slack);
        let work = RangeWork {
            tasks: &tasks,
            layout,
            workers: parse_workers(self.threads),
        };
        let done = parse_ranges_parallel(
            &mut read_at,
            work,
            &mut self.ctx,
            default_id,
            &mut parsed,
            &mut |bytes| {
                let mut r = report.clone();
                r.file_done_bytes = bytes;
                progress(&r);
            },
        )
        .is_ok();
        if done {
            self.file_index += 1;
            grouper.append(parsed);
            self.parallel_files += 1;
        }
        Some(done)
    }

    /// wasm32 has no threads: always the sequential parse.
    #[cfg(target_arch = "wasm32")]
    fn try_threads(
        &mut self,
        _path: &str,
        _layout: Layout,
        _default_id: &str,
        _grouper: &mut SessionGrouper,
    ) -> bool {
        let _requested = (
            self.parallel,
            self.threads,
            self.parallel_min_bytes,
            self.range_bytes,
        );
        false
    }
}
