//! The conversation-file reader and the path checks, on real files in temporary folders.

/// Named `agent` so that `cargo test agent` selects these tests.
mod agent {
    use std::fs::{self, OpenOptions};
    use std::io::Write;
    use std::path::Path;

    use npc_core::agent::{
        ConversationReader, PathError, ReadError, ReadItem, ReadOutcome, ReaderOptions, confine,
    };

    const FILE: &str = "conversations/c1.jsonl";

    fn line(seq: u64, speaker: &str, text: &str) -> String {
        let mut s =
            serde_json::json!({"seq": seq, "speaker_id": speaker, "text": text}).to_string();
        s.push('\n');
        s
    }

    fn setup() -> (tempfile::TempDir, ConversationReader) {
        let dir = tempfile::tempdir().expect("tempdir");
        fs::create_dir(dir.path().join("conversations")).expect("mkdir");
        let reader = ConversationReader::new(dir.path(), FILE, ReaderOptions::default());
        (dir, reader)
    }

    fn append(dir: &Path, bytes: &[u8]) {
        let mut f = OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join(FILE))
            .expect("open for append");
        f.write_all(bytes).expect("append");
    }

    /// Reads until the reader has caught up with the file.
    fn read_all(reader: &mut ConversationReader) -> ReadOutcome {
        let mut all = ReadOutcome::default();
        loop {
            let out = reader.read().expect("read");
            all.items.extend(out.items);
            all.restarted = all.restarted.or(out.restarted);
            all.missing |= out.missing;
            if !out.more {
                return all;
            }
        }
    }

    fn seqs(out: &ReadOutcome) -> Vec<u64> {
        out.items
            .iter()
            .filter_map(|i| match i {
                ReadItem::Line { line, .. } => Some(line.seq),
                ReadItem::Rejected { .. } => None,
            })
            .collect()
    }

    fn rejections(out: &ReadOutcome) -> Vec<(String, String)> {
        out.items
            .iter()
            .filter_map(|i| match i {
                ReadItem::Rejected {
                    file_line, reason, ..
                } => Some((file_line.clone(), reason.clone())),
                ReadItem::Line { .. } => None,
            })
            .collect()
    }

    #[test]
    fn partial_last_line_waits_until_completed() {
        let (dir, mut reader) = setup();
        let full = line(0, "Elara", "Welcome, traveler.");
        let (head, tail) = full.split_at(20);
        append(dir.path(), head.as_bytes());
        let out = read_all(&mut reader);
        assert!(out.items.is_empty(), "a partial line must wait: {out:?}");
        assert_eq!(reader.buffered_bytes(), 20);
        // Still waiting when nothing more came.
        assert!(read_all(&mut reader).items.is_empty());
        append(dir.path(), tail.as_bytes());
        let out = read_all(&mut reader);
        assert_eq!(seqs(&out), vec![0]);
        match &out.items[0] {
            ReadItem::Line {
                line, file_line, ..
            } => {
                assert_eq!(line.text, "Welcome, traveler.");
                assert_eq!(file_line, "conversations/c1.jsonl:1");
            }
            other => panic!("expected a line, got {other:?}"),
        }
        assert_eq!(reader.buffered_bytes(), 0);
    }

    #[test]
    fn invalid_json_line_reported_once_with_file_line_and_later_lines_still_come() {
        let (dir, mut reader) = setup();
        append(dir.path(), line(0, "Elara", "one").as_bytes());
        append(
            dir.path(),
            b"{\"seq\": 1, \"speaker_id\": \"Bram\", text: oops}\n",
        );
        append(dir.path(), line(2, "Bram", "three").as_bytes());
        let out = read_all(&mut reader);
        assert_eq!(seqs(&out), vec![0, 2]);
        let rej = rejections(&out);
        assert_eq!(rej.len(), 1, "{rej:?}");
        assert_eq!(rej[0].0, "conversations/c1.jsonl:2");
        assert!(rej[0].1.contains("not valid JSON"), "{}", rej[0].1);
        // Reading again reports nothing new; a later line still comes.
        assert!(read_all(&mut reader).items.is_empty());
        append(dir.path(), line(3, "Elara", "four").as_bytes());
        let out = read_all(&mut reader);
        assert_eq!(seqs(&out), vec![3]);
        assert!(rejections(&out).is_empty());
    }

    #[test]
    fn missing_required_fields_are_rejected_with_reasons() {
        let (dir, mut reader) = setup();
        append(
        dir.path(),
        concat!(
            "{\"seq\": 0, \"speaker_id\": \"Elara\"}\n",
            "{\"seq\": 1, \"text\": \"hi\"}\n",
            "{\"speaker_id\": \"Elara\", \"text\": \"hi\"}\n",
            "{\"seq\": -3, \"speaker_id\": \"Elara\", \"text\": \"hi\"}\n",
            "[1, 2]\n",
            "\n",
            "{\"seq\": 5, \"speaker_id\": \"Elara\", \"text\": \"ok\", \"gender\": \"robot\", \"emotion\": \"joy\"}\r\n",
        )
        .as_bytes(),
    );
        let out = read_all(&mut reader);
        let rej = rejections(&out);
        let lines: Vec<&str> = rej.iter().map(|(l, _)| l.as_str()).collect();
        assert_eq!(
            lines,
            vec![
                "conversations/c1.jsonl:1",
                "conversations/c1.jsonl:2",
                "conversations/c1.jsonl:3",
                "conversations/c1.jsonl:4",
                "conversations/c1.jsonl:5",
            ]
        );
        assert!(rej[0].1.contains("text"), "{rej:?}");
        assert!(rej[1].1.contains("speaker_id"), "{rej:?}");
        assert!(rej[2].1.contains("seq"), "{rej:?}");
        // The blank line 6 is skipped silently; line 7 (CRLF) is fine, gender dropped with a
        // warning, the emotion it does not know too (the field is kept as written).
        match out.items.last() {
            Some(ReadItem::Line {
                line,
                file_line,
                warnings,
            }) => {
                assert_eq!(file_line, "conversations/c1.jsonl:7");
                assert_eq!(line.seq, 5);
                assert_eq!(line.gender, None);
                assert_eq!(line.extra.get("emotion"), Some(&serde_json::json!("joy")));
                assert_eq!(warnings.len(), 2, "{warnings:?}");
                assert!(warnings[0].contains("gender"), "{warnings:?}");
                assert!(
                    warnings[1].contains("unknown emotion \"joy\""),
                    "{warnings:?}"
                );
            }
            other => panic!("expected the last line, got {other:?}"),
        }
        // A rejected line with a readable seq carries it (so the schedule need not wait).
        match &out.items[0] {
            ReadItem::Rejected { seq, .. } => assert_eq!(*seq, Some(0)),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn oversized_10mb_line_is_rejected_without_blocking_the_next_line() {
        let (dir, mut reader) = setup();
        let big = vec![b'x'; 10 * 1024 * 1024];
        // First half of the giant line, no newline yet: rejected as soon as it passes the limit,
        // without being held in memory.
        append(
            dir.path(),
            b"{\"seq\": 0, \"speaker_id\": \"Elara\", \"text\": \"",
        );
        append(dir.path(), &big[..big.len() / 2]);
        let out = read_all(&mut reader);
        let rej = rejections(&out);
        assert_eq!(rej.len(), 1, "{rej:?}");
        assert_eq!(rej[0].0, "conversations/c1.jsonl:1");
        assert!(rej[0].1.contains("longer than 65536 bytes"), "{}", rej[0].1);
        assert!(reader.buffered_bytes() <= 64 * 1024);
        // The rest of it, its end, and a good line: the good line comes, no second report.
        append(dir.path(), &big[big.len() / 2..]);
        append(dir.path(), b"\"}\n");
        append(dir.path(), line(1, "Bram", "after the flood").as_bytes());
        let out = read_all(&mut reader);
        assert!(rejections(&out).is_empty(), "{:?}", rejections(&out));
        assert_eq!(seqs(&out), vec![1]);
        match &out.items[0] {
            ReadItem::Line { file_line, .. } => assert_eq!(file_line, "conversations/c1.jsonl:2"),
            other => panic!("{other:?}"),
        }
        // All of it written at once, with the next line in the same read.
        let mut one = Vec::from(&b"{\"text\": \""[..]);
        one.extend_from_slice(&big);
        one.extend_from_slice(b"\"}\n");
        one.extend_from_slice(line(2, "Elara", "still here").as_bytes());
        append(dir.path(), &one);
        let out = read_all(&mut reader);
        assert_eq!(rejections(&out).len(), 1);
        assert_eq!(rejections(&out)[0].0, "conversations/c1.jsonl:3");
        assert_eq!(seqs(&out), vec![2]);
    }

    #[test]
    fn binary_garbage_and_invalid_utf8_are_rejected_and_reading_goes_on() {
        let (dir, mut reader) = setup();
        append(dir.path(), line(0, "Elara", "before").as_bytes());
        append(
            dir.path(),
            &[0xff, 0xfe, 0x00, 0x01, 0x80, b'{', 0xc3, b'\n'],
        );
        // Binary without any newline, longer than the limit, then a newline.
        let noise: Vec<u8> = (0..200_000u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .map(|b| if b == b'\n' { 0 } else { b })
            .collect();
        append(dir.path(), &noise);
        append(dir.path(), b"\n");
        append(dir.path(), line(1, "Bram", "after").as_bytes());
        let out = read_all(&mut reader);
        assert_eq!(seqs(&out), vec![0, 1]);
        let rej = rejections(&out);
        assert_eq!(rej.len(), 2, "{rej:?}");
        assert_eq!(rej[0].0, "conversations/c1.jsonl:2");
        assert!(rej[0].1.contains("UTF-8"), "{}", rej[0].1);
        assert_eq!(rej[1].0, "conversations/c1.jsonl:3");
        // Valid UTF-8 that is not text of a line (a lone string, NUL characters) too.
        append(dir.path(), "\"\u{0}\u{0}\"\n".as_bytes());
        let out = read_all(&mut reader);
        assert_eq!(rejections(&out).len(), 1);
    }

    #[test]
    fn missing_file_is_fine_until_created() {
        let (dir, mut reader) = setup();
        for _ in 0..3 {
            let out = reader.read().expect("a missing file is not an error");
            assert!(out.missing);
            assert!(out.items.is_empty());
        }
        append(dir.path(), line(0, "Elara", "here now").as_bytes());
        let out = read_all(&mut reader);
        assert!(!out.missing);
        assert_eq!(seqs(&out), vec![0]);
        assert_eq!(out.restarted, None);
    }

    #[test]
    fn file_deleted_and_recreated_restarts_reading() {
        let (dir, mut reader) = setup();
        append(dir.path(), line(0, "Elara", "a").as_bytes());
        append(dir.path(), line(1, "Elara", "b").as_bytes());
        assert_eq!(seqs(&read_all(&mut reader)), vec![0, 1]);
        fs::remove_file(dir.path().join(FILE)).expect("rm");
        assert!(reader.read().expect("read").missing);
        // Recreated, longer than before: must still be read from its start.
        append(
            dir.path(),
            line(2, "Elara", "a much longer first line than before").as_bytes(),
        );
        append(dir.path(), line(3, "Elara", "d").as_bytes());
        append(dir.path(), line(4, "Elara", "e").as_bytes());
        let out = read_all(&mut reader);
        assert!(out.restarted.is_some());
        assert_eq!(seqs(&out), vec![2, 3, 4]);

        // Replaced by a rename (a new inode) without the reader seeing it missing.
        let tmp = dir.path().join("conversations/tmp");
        fs::write(&tmp, line(7, "Bram", "x")).expect("write");
        fs::rename(&tmp, dir.path().join(FILE)).expect("rename");
        let out = read_all(&mut reader);
        assert!(out.restarted.is_some(), "{out:?}");
        assert_eq!(seqs(&out), vec![7]);

        // Truncated in place and rewritten shorter.
        fs::write(dir.path().join(FILE), "").expect("truncate");
        let out = read_all(&mut reader);
        assert!(out.restarted.is_some());
        assert!(out.items.is_empty());
        append(dir.path(), line(8, "Bram", "y").as_bytes());
        assert_eq!(seqs(&read_all(&mut reader)), vec![8]);
    }

    #[test]
    fn paths_outside_the_directory_are_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        fs::create_dir(root.join("conversations")).expect("mkdir");
        assert!(matches!(
            confine(root, "../outside.jsonl"),
            Err(PathError::ParentDir { .. })
        ));
        assert!(matches!(
            confine(root, "conversations/../../x.jsonl"),
            Err(PathError::ParentDir { .. })
        ));
        assert!(matches!(
            confine(root, "/etc/passwd"),
            Err(PathError::Absolute { .. })
        ));
        assert!(matches!(confine(root, ""), Err(PathError::Empty)));
        let msg = confine(root, "/etc/passwd")
            .expect_err("absolute")
            .to_string();
        assert!(msg.contains("absolute"), "{msg}");
        // Inside, existing or not yet.
        let ok = confine(root, "conversations/c9.jsonl").expect("not there yet is fine");
        assert!(ok.starts_with(root.canonicalize().expect("canon")));
        assert!(confine(root, "./conversations/../conversations").is_err());
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_out_of_the_directory_are_refused() {
        use std::os::unix::fs::symlink;
        let outside = tempfile::tempdir().expect("tempdir");
        fs::write(outside.path().join("secret.jsonl"), line(0, "X", "leak")).expect("write");
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        fs::create_dir(root.join("conversations")).expect("mkdir");
        symlink(
            outside.path().join("secret.jsonl"),
            root.join("conversations/link.jsonl"),
        )
        .expect("symlink");
        symlink(outside.path(), root.join("out")).expect("symlink dir");
        let err = confine(root, "conversations/link.jsonl").expect_err("escapes");
        assert!(matches!(err, PathError::Escapes { .. }), "{err}");
        assert!(
            err.to_string().contains("outside the agent directory"),
            "{err}"
        );
        assert!(matches!(
            confine(root, "out/secret.jsonl"),
            Err(PathError::Escapes { .. })
        ));
        // Through a linked folder even when the file does not exist there (yet).
        assert!(matches!(
            confine(root, "out/later.jsonl"),
            Err(PathError::Escapes { .. })
        ));
        // The reader refuses it too, and reads nothing.
        let mut reader =
            ConversationReader::new(root, "conversations/link.jsonl", ReaderOptions::default());
        assert!(matches!(reader.read(), Err(ReadError::Path(_))));
        // A link inside the directory is fine.
        fs::write(
            root.join("conversations/real.jsonl"),
            line(0, "Elara", "ok"),
        )
        .expect("write");
        symlink(
            root.join("conversations/real.jsonl"),
            root.join("conversations/alias.jsonl"),
        )
        .expect("symlink");
        let mut reader =
            ConversationReader::new(root, "conversations/alias.jsonl", ReaderOptions::default());
        assert_eq!(seqs(&read_all(&mut reader)), vec![0]);
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_or_folder_is_not_read() {
        let dir = tempfile::tempdir().expect("tempdir");
        fs::create_dir_all(dir.path().join("conversations/c1.jsonl")).expect("mkdir");
        let mut reader = ConversationReader::new(dir.path(), FILE, ReaderOptions::default());
        assert!(matches!(reader.read(), Err(ReadError::NotAFile { .. })));
    }
}
