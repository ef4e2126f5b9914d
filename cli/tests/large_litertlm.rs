//! A `.litertlm` file larger than 4 GiB, end to end (`docs/litertlm.md` §8.5): a sparse file
//! whose TFLite section lies past 4 GiB, behind a gap of holes, so the disk holds a few
//! kilobytes. `verify`, `inspect` (text and JSON), `extract` and `dump` read it with `--mmap`
//! and give the right offsets and bytes; and neither `verify` nor `inspect` reads the gap,
//! mapped or read into memory (which skips a sparse file's holes): the largest resident set of
//! any child stays far under the gap's size, as the kernel counts it (`getrusage(RUSAGE_CHILDREN)`, which is why this is a test binary of its own: no other
//! test's children may share the count).

#[path = "../../tests/support/mod.rs"]
mod support;

#[cfg(not(all(target_os = "linux", target_pointer_width = "64")))]
#[test]
fn a_file_past_4_gib_works_end_to_end_and_its_gap_is_not_read() {
    support::skip("the sparse 4 GiB file: a child's resident set is counted so on 64-bit Linux only");
}

#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
mod linux {
    use crate::support;

    use flatmodel::litertlm::LitertLmFile;
    use std::ffi::OsStr;
    use std::fs;
    use std::path::{Path, PathBuf};
    use std::process::Command;

    /// Where the TFLite section is moved: 16 KiB past 4 GiB (sections start 16 KiB-aligned).
    const BEGIN: u64 = (4 << 30) + (16 << 10);

    /// The largest resident set a child may reach: far under the 4 GiB gap, far over what reading
    /// the header, the metadata and a 3 KiB model costs.
    const MAX_RSS_KIB: i64 = 256 << 10;

    /// The most page faults the three runs of verify and inspect may take in all: each takes a
    /// few hundred to start, where reading the gap would take one per 4 KiB page.
    const MAX_FAULTS: i64 = 50_000;

    /// One run of the binary: its exit code and output.
    fn run(args: &[&OsStr]) -> (Option<i32>, Vec<u8>, String) {
        let out = Command::new(env!("CARGO_BIN_EXE_flatmodel")).args(args).output().expect("the binary runs");
        (out.status.code(), out.stdout, String::from_utf8_lossy(&out.stderr).into_owned())
    }

    /// What `run` printed, for an exit code 0.
    #[track_caller]
    fn ok(args: &[&OsStr]) -> Vec<u8> {
        let (code, stdout, stderr) = run(args);
        assert_eq!(code, Some(0), "{args:?}: {stderr}");
        stdout
    }

    /// The file offset of field `slot` of the table at file offset `table` (a stored field).
    fn field_at(buf: &[u8], table: usize, slot: usize) -> usize {
        let soffset = i32::from_le_bytes(buf[table..table + 4].try_into().unwrap());
        let vtable = (table as i64 - i64::from(soffset)) as usize;
        let at = vtable + 4 + 2 * slot;
        let voffset = u16::from_le_bytes(buf[at..at + 2].try_into().unwrap()) as usize;
        assert_ne!(voffset, 0, "field {slot} is not stored");
        table + voffset
    }

    /// A sparse copy of `small` at `path` with its section `i` moved to `BEGIN`: the bytes up to
    /// the end of the section before it, then holes, then the section. Returns the section's bytes.
    fn sparse_copy(small: &[u8], i: usize, path: &Path) -> Vec<u8> {
        let file = LitertLmFile::parse(small).unwrap();
        let section = file.section(i).unwrap();
        let before = file.section(i - 1).unwrap().end as usize;
        assert_eq!(section.end as usize, small.len(), "the section moved is the last one");
        let bytes = section.bytes.to_vec();
        // `SectionObject`'s slots: items 0, begin_offset 1, end_offset 2.
        let table = 32 + section.object.raw().position();
        let mut head = small[..before].to_vec();
        let end = BEGIN + bytes.len() as u64;
        for (slot, value) in [(1, BEGIN), (2, end)] {
            let at = field_at(&head, table, slot);
            head[at..at + 8].copy_from_slice(&value.to_le_bytes());
        }
        let out = fs::File::create(path).unwrap();
        out.set_len(end).unwrap();
        use std::os::unix::fs::FileExt;
        out.write_all_at(&head, 0).unwrap();
        out.write_all_at(&bytes, BEGIN).unwrap();
        out.sync_all().unwrap();
        bytes
    }

    /// The kernel's count for every child waited for: the largest resident set (KiB) and the
    /// page faults.
    fn children_usage() -> (i64, i64) {
        let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
        // SAFETY: `getrusage` writes a `rusage` into the pointer it is given, which points to one.
        let usage = unsafe {
            assert_eq!(libc::getrusage(libc::RUSAGE_CHILDREN, usage.as_mut_ptr()), 0);
            usage.assume_init()
        };
        (usage.ru_maxrss, usage.ru_minflt + usage.ru_majflt)
    }

    #[test]
    fn a_file_past_4_gib_works_end_to_end_and_its_gap_is_not_read() {
        let dir = std::env::temp_dir().join(format!("flatmodel-large-litertlm-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path: PathBuf = dir.join("large.litertlm");
        let small = fs::read(support::testdata().join("litertlm/litertlm_sp_llm.litertlm")).unwrap();
        let section = sparse_copy(&small, 2, &path);
        let meta = fs::metadata(&path).unwrap();
        use std::os::unix::fs::MetadataExt;
        let allocated = meta.blocks() * 512;
        if allocated > 64 << 20 {
            let _ = fs::remove_dir_all(&dir);
            support::skip(&format!("the sparse 4 GiB file: this filesystem allocated {allocated} bytes for it"));
            return;
        }
        let end = BEGIN + section.len() as u64;
        assert_eq!(meta.len(), end);
        let (rss_before, _) = children_usage();
        assert!(rss_before < MAX_RSS_KIB, "a child ran before: {rss_before} KiB");
        let f = path.as_os_str();
        let mmap = OsStr::new("--mmap");

        // verify: the summary the file's table gives.
        let said = String::from_utf8(ok(&[OsStr::new("verify"), mmap, f])).unwrap();
        let want = format!(
            "{}: ok (LiteRT-LM v1.7.0, 3 section(s) (1 LlmMetadataProto, 1 SP_Tokenizer, 1 TFLiteModel))\n",
            path.display()
        );
        assert_eq!(said, want);

        // inspect --json: the offsets past 4 GiB, and the model's own summary.
        let doc: serde_json::Value =
            serde_json::from_slice(&ok(&[OsStr::new("inspect"), mmap, OsStr::new("--json"), f])).unwrap();
        assert_eq!(doc["file_bytes"], end);
        let s = &doc["sections"][2];
        assert_eq!(
            (&s["begin_offset"], &s["end_offset"], &s["bytes"]),
            (&BEGIN.into(), &end.into(), &section.len().into())
        );
        assert_eq!(s["summary"]["file_bytes"], section.len());
        assert_eq!(s["summary"]["model_rules"], "ok");
        // inspect as text: the same row.
        let text = String::from_utf8(ok(&[OsStr::new("inspect"), mmap, f])).unwrap();
        let row = format!("    [2] TFLiteModel: 3,164 bytes at {BEGIN}..{end}\n");
        assert!(text.contains(&row), "no {row:?} in\n{text}");
        assert!(text.contains("  section 2 (TFLiteModel):\n    format:              TFLite"), "{text}");

        // Neither read the gap: mapped, every page read would be resident.
        let (rss, faults) = children_usage();
        eprintln!("verify and inspect of a {end}-byte file ({allocated} bytes on disk): largest resident set {rss} KiB, {faults} page faults in all");
        assert!(rss < MAX_RSS_KIB, "a child's resident set reached {rss} KiB: the gap was read");
        // Each page of the gap read through the mapping would be a fault of its own (holes are
        // not in the page cache for the kernel to map around a fault): a million for 4 GiB.
        assert!(faults < MAX_FAULTS, "{faults} page faults: the gap was read");

        // extract and dump reach the section past 4 GiB too.
        let out = dir.join("section2.tflite");
        ok(&[OsStr::new("extract"), mmap, f, OsStr::new("section:2"), OsStr::new("-o"), out.as_os_str()]);
        assert!(fs::read(&out).unwrap() == section, "extract section:2 is not the section's bytes");
        let dumped = ok(&[OsStr::new("dump"), mmap, f, OsStr::new("section:2")]);
        assert!(dumped == ok(&[OsStr::new("dump"), out.as_os_str()]), "dump section:2 is not the model's dump");
        let (rss, _) = children_usage();
        assert!(rss < MAX_RSS_KIB, "extract or dump's resident set reached {rss} KiB");

        // Read into memory, as without `--mmap`: only the file's data is read, the holes are
        // skipped and the zeroed memory under them never touched.
        let said = String::from_utf8(ok(&[OsStr::new("verify"), f])).unwrap();
        assert_eq!(said, want);
        let text = String::from_utf8(ok(&[OsStr::new("inspect"), f])).unwrap();
        assert!(text.contains(&row), "no {row:?} in\n{text}");
        let (rss, _) = children_usage();
        eprintln!("the same read into memory: largest resident set {rss} KiB");
        assert!(rss < MAX_RSS_KIB, "read into memory, a child's resident set reached {rss} KiB: the holes were read");
        let _ = fs::remove_dir_all(&dir);
    }
}
