//! Archives of a run (`trace::archive`, beyond stormlog): a zip, a tar and a tar.gz of a
//! fixture folder attribute exactly as the folder does (stormlog 0.4.3's own results for
//! it); a gzip member is read as the loaders read gzip; a broken archive is an error of
//! its own beside the files that load; an archive past the limit is refused with sizes.
#![allow(clippy::unwrap_used, clippy::expect_used)] // helpers outside #[test] functions

use std::io::Write;
use std::path::PathBuf;

use flate2::write::GzEncoder;
use flate2::Compression;
use shardscope_core::analysis::{analyze, export, AnalyzeSettings};
use shardscope_core::trace::archive::ArchiveFs;
use shardscope_core::trace::fs::{MemFs, PathKind, TraceFs};
use shardscope_core::trace::{LoadErrorKind, StdFs};

fn traces() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/attribution/traces")
}

/// The fixture folder `name`'s files as (member name, bytes), sorted.
fn members(name: &str) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(traces().join(name))
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    out.sort();
    out
}

fn zip_of(files: &[(String, Vec<u8>)], prefix: &str) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (name, bytes) in files {
        zip.start_file(format!("{prefix}{name}"), options).unwrap();
        zip.write_all(bytes).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

fn tar_of(files: &[(String, Vec<u8>)], prefix: &str) -> Vec<u8> {
    let mut tar = tar::Builder::new(Vec::new());
    for (name, bytes) in files {
        let mut header = tar::Header::new_gnu();
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        tar.append_data(&mut header, format!("{prefix}{name}"), bytes.as_slice())
            .unwrap();
    }
    tar.into_inner().unwrap()
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut gz = GzEncoder::new(Vec::new(), Compression::default());
    gz.write_all(bytes).unwrap();
    gz.finish().unwrap()
}

fn results(fs: &dyn TraceFs, paths: &[&str]) -> (String, Vec<LoadErrorKind>) {
    let paths: Vec<String> = paths.iter().map(|p| p.to_string()).collect();
    let a = analyze(fs, &paths, &AnalyzeSettings::default(), false, &mut |_| {});
    let errors = a.load_errors.iter().map(|e| e.kind).collect();
    let text = a
        .attribution
        .map(|r| export::to_json(&r.results))
        .unwrap_or_default();
    (text, errors)
}

#[test]
fn a_zip_a_tar_and_a_tar_gz_of_a_folder_attribute_as_the_folder() {
    for case in ["tui_per_rank_files", "sink_dir"] {
        let folder = traces().join(case);
        let (want, errors) = results(&StdFs, &[folder.to_str().unwrap()]);
        assert!(errors.is_empty() && want.len() > 10, "{case}");
        // stormlog 0.4.3's own answer for the folder.
        let expected: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(traces().join(format!("../expected/{case}.medium.json")))
                .unwrap(),
        )
        .unwrap();
        let files = members(case);
        let mut fs = MemFs::new();
        fs.insert("run.zip", zip_of(&files, ""));
        fs.insert("nested.zip", zip_of(&files, "./run/"));
        fs.insert("run.tar", tar_of(&files, ""));
        fs.insert("run.tar.gz", gzip(&tar_of(&files, "run/")));
        fs.insert("run.TGZ", gzip(&tar_of(&files, "")));
        for archive in ["run.zip", "nested.zip", "run.tar", "run.tar.gz", "run.TGZ"] {
            let (got, errors) = results(&fs, &[archive]);
            assert!(errors.is_empty(), "{case} {archive}: {errors:?}");
            assert_eq!(got, want, "{case} {archive}");
            let got: serde_json::Value = serde_json::from_str(&got).unwrap();
            assert_eq!(
                got.as_array().unwrap().len(),
                expected.as_array().unwrap().len()
            );
        }
    }
}

#[test]
fn gzip_members_broken_archives_and_bombs() {
    // Per-rank files gzipped inside a tar.
    let files: Vec<(String, Vec<u8>)> = members("tui_per_rank_files")
        .into_iter()
        .map(|(n, b)| (format!("{n}.gz"), gzip(&b)))
        .collect();
    let folder = traces().join("tui_per_rank_files");
    let (want, _) = results(&StdFs, &[folder.to_str().unwrap()]);
    let mut fs = MemFs::new();
    fs.insert("gz.tar", tar_of(&files, ""));
    assert_eq!(results(&fs, &["gz.tar"]).0, want);
    // A broken archive is an error of its own; the file beside it still loads.
    fs.insert("broken.zip", b"PK\x03\x04 not really".to_vec());
    fs.insert("cut.tar.gz", gzip(&tar_of(&files, ""))[..200].to_vec());
    let one = std::fs::read(traces().join("sync_markers_type.json")).unwrap();
    fs.insert("sync_markers_type.json", one);
    let alone = results(&fs, &["sync_markers_type.json"]).0;
    let a = analyze(
        &fs,
        &[
            "broken.zip".to_string(),
            "sync_markers_type.json".to_string(),
        ],
        &AnalyzeSettings::default(),
        false,
        &mut |_| {},
    );
    assert_eq!(a.load_errors.len(), 1);
    let e = &a.load_errors[0];
    assert_eq!(
        (e.kind, e.file.as_deref()),
        (LoadErrorKind::Archive, Some("broken.zip"))
    );
    assert!(
        e.message.starts_with("not a readable archive"),
        "{}",
        e.message
    );
    assert_eq!(export::to_json(&a.attribution.unwrap().results), alone);
    let (_, errors) = results(&fs, &["cut.tar.gz"]);
    assert_eq!(errors, [LoadErrorKind::Archive]);
    // Past the limit: refused with the sizes, nothing unpacked.
    let zeros = vec![(String::from("rank0.json"), vec![b' '; 3 << 20])];
    let mut bomb = MemFs::new();
    bomb.insert("bomb.zip", zip_of(&zeros, ""));
    bomb.insert("bomb.tar.gz", gzip(&tar_of(&zeros, "")));
    for name in ["bomb.zip", "bomb.tar.gz"] {
        let mut errors = Vec::new();
        let paths = [name.to_string()];
        let fs = ArchiveFs::open(&bomb, &paths, 1 << 20, &mut errors);
        assert!(fs.is_empty(), "{name}");
        assert_eq!(errors.len(), 1, "{name}");
        assert!(
            errors[0]
                .message
                .contains("unpacks to more than 1.00 MiB (at least 3.00 MiB)"),
            "{name}: {}",
            errors[0].message
        );
        assert!(bomb.size(name).unwrap() < 100_000, "{name} is small packed");
        assert_eq!(fs.loadable(&paths), Vec::<String>::new());
    }
    // An archive is a folder of its members, resolved under the archive's path.
    let mut errors = Vec::new();
    let paths = ["gz.tar".to_string()];
    let archived = ArchiveFs::open(&fs, &paths, 1 << 30, &mut errors);
    assert_eq!(archived.kind("gz.tar"), PathKind::Dir);
    assert_eq!(archived.list_dir("gz.tar").len(), 4);
    assert_eq!(archived.kind("gz.tar/rank0_events.json.gz"), PathKind::File);
    assert_eq!(
        archived.resolve("gz.tar/rank0_events.json.gz"),
        "/gz.tar/rank0_events.json.gz"
    );
    assert_eq!(archived.kind("sync_markers_type.json"), PathKind::File);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    /// Any bytes under an archive's name: an archive error or members, never a panic;
    /// damaged copies of a real archive too.
    #[test]
    fn hostile_archives_never_panic(
        bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..2048),
        cut in 0usize..4096,
        flip in 0usize..4096,
    ) {
        let files = members("tui_per_rank_files");
        let mut real = zip_of(&files, "");
        let at = flip % real.len();
        real[at] ^= 0x5a;
        let tgz = gzip(&tar_of(&files, ""));
        let mut fs = MemFs::new();
        fs.insert("any.zip", bytes.clone());
        fs.insert("any.tar", bytes.clone());
        fs.insert("any.tar.gz", bytes);
        fs.insert("flipped.zip", real);
        fs.insert("cut.tgz", tgz[..cut.min(tgz.len())].to_vec());
        for name in ["any.zip", "any.tar", "any.tar.gz", "flipped.zip", "cut.tgz"] {
            let mut errors = Vec::new();
            let paths = [name.to_string()];
            let archived = ArchiveFs::open(&fs, &paths, 1 << 24, &mut errors);
            proptest::prop_assert!(errors.iter().all(|e| e.kind == LoadErrorKind::Archive));
            // Read or refused: a folder of its members, or an error and nothing.
            if errors.is_empty() {
                proptest::prop_assert_eq!(archived.kind(name), PathKind::Dir);
            } else {
                proptest::prop_assert!(archived.is_empty());
            }
            let _ = analyze(&fs, &paths, &AnalyzeSettings::default(), false, &mut |_| {});
        }
    }
}
