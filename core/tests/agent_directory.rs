//! `AgentDirectory` end to end, on real agent directories in temporary folders, with time
//! injected and no audio (a line "finishes" when the test says so).

/// Named `agent` so that `cargo test agent` selects these tests.
mod agent {
    use std::fs::{self, OpenOptions};
    use std::io::Write;
    use std::path::{Path, PathBuf};
    use std::time::{Duration, Instant};

    use npc_core::agent::SPOKEN_RETRY;
    use npc_core::agent::spoken::{self, SPOKEN_FILE};
    use npc_core::agent::{AgentDirectory, AgentEvent, AgentOptions, Spoken, SpokenEntry};
    use npc_core::project::{Avatar, Gender, Npc, Voice};

    fn npc(id: &str, gender: Gender) -> Npc {
        Npc {
            id: id.to_owned(),
            avatar: Avatar {
                body: PathBuf::from("assets/body.glb"),
                head: None,
                bones: Default::default(),
                clips: None,
                shapes: None,
                springs: None,
            },
            voice: Voice {
                gender,
                ..Voice::default()
            },
            spawn: [0.5, 0.5],
            body: None,
            face: None,
            face_file: None,
        }
    }

    fn roster() -> Vec<Npc> {
        vec![
            npc("Elara", Gender::Female),
            npc("Bram", Gender::Male),
            npc("Mira", Gender::Female),
        ]
    }

    fn options() -> AgentOptions {
        AgentOptions {
            watch: false,
            ..AgentOptions::default()
        }
    }

    fn line(seq: u64, speaker: &str, text: &str) -> String {
        let mut s = serde_json::json!({"seq": seq, "speaker_id": speaker, "phase": "talk",
        "gender": "female", "text": text})
        .to_string();
        s.push('\n');
        s
    }

    fn append(dir: &Path, file: &str, bytes: &[u8]) {
        let path = dir.join(file);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).expect("mkdir");
        }
        let mut f = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .expect("open");
        f.write_all(bytes).expect("append");
    }

    fn write_active(dir: &Path, json: serde_json::Value) {
        fs::write(dir.join("active.json"), json.to_string()).expect("active.json");
    }

    fn new_dir() -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("tempdir");
        fs::create_dir(dir.path().join("conversations")).expect("mkdir");
        dir
    }

    #[derive(Debug, Default)]
    struct Run {
        /// (conversation, seq, npc, text) in the order handed out.
        spoken: Vec<(String, u64, String, String)>,
        warnings: Vec<String>,
        rejected: Vec<(String, String)>,
    }

    /// Polls at `now`, speaking every ready line to its end at once, until nothing moves.
    fn run(agent: &mut AgentDirectory, now: Instant, log: &mut Run) {
        for _ in 0..1000 {
            let events = agent.poll(now);
            let mut progressed = false;
            for e in events {
                match e {
                    AgentEvent::LineReady {
                        conversation,
                        line,
                        npc,
                    } => {
                        assert!(
                            agent
                                .line_finished(&conversation, line.seq)
                                .expect("finish"),
                            "line_finished must accept the line in flight"
                        );
                        log.spoken.push((conversation, line.seq, npc, line.text));
                        progressed = true;
                    }
                    AgentEvent::Warning(w) => log.warnings.push(w),
                    AgentEvent::Rejected {
                        file_line, reason, ..
                    } => log.rejected.push((file_line, reason)),
                    AgentEvent::ActiveChanged(_) | AgentEvent::NpcStateChanged(_) => {}
                }
            }
            if !progressed && !agent.has_unread_input() {
                return;
            }
        }
        panic!("the directory never settled");
    }

    fn seqs_of(log: &Run, conversation: &str) -> Vec<u64> {
        log.spoken
            .iter()
            .filter(|(c, ..)| c == conversation)
            .map(|(_, s, ..)| *s)
            .collect()
    }

    /// `spoken.json` once the agent's writer has caught up with it.
    fn read_spoken(agent: &AgentDirectory, dir: &Path) -> Spoken {
        assert!(
            agent.flush_spoken(Duration::from_secs(10)),
            "spoken.json written"
        );
        let text = fs::read_to_string(dir.join(SPOKEN_FILE)).expect("spoken.json");
        Spoken::parse(&text).expect("valid spoken.json").value
    }

    #[test]
    fn seed_single_form_plays_in_order_and_records_spoken() {
        let dir = new_dir();
        let root = dir.path();
        fs::write(
            root.join("active.json"),
            r#"{"conversation": "conversations/c1.jsonl", "speakers": ["Elara", "Bram"]}"#,
        )
        .expect("write");
        for s in 0..6 {
            let who = if s % 2 == 0 { "Elara" } else { "Bram" };
            append(
                root,
                "conversations/c1.jsonl",
                line(s, who, &format!("l{s}")).as_bytes(),
            );
        }
        let mut agent = AgentDirectory::open(root, &roster(), options()).expect("open");
        let mut log = Run::default();
        let t0 = Instant::now();
        // One line at a time: the first poll gives exactly line 0.
        let first: Vec<_> = agent
            .poll(t0)
            .into_iter()
            .filter(|e| matches!(e, AgentEvent::LineReady { .. }))
            .collect();
        assert_eq!(first.len(), 1);
        assert!(
            agent
                .poll(t0)
                .iter()
                .all(|e| !matches!(e, AgentEvent::LineReady { .. }))
        );
        assert!(
            agent
                .line_finished("conversations/c1.jsonl", 0)
                .expect("ok")
        );
        assert_eq!(
            read_spoken(&agent, root).last_seq("conversations/c1.jsonl"),
            Some(0)
        );
        run(&mut agent, t0, &mut log);
        assert_eq!(seqs_of(&log, "conversations/c1.jsonl"), vec![1, 2, 3, 4, 5]);
        let npcs: Vec<&str> = log.spoken.iter().map(|(_, _, n, _)| n.as_str()).collect();
        assert_eq!(npcs, vec!["Bram", "Elara", "Bram", "Elara", "Bram"]);
        assert_eq!(
            read_spoken(&agent, root).last_seq("conversations/c1.jsonl"),
            Some(5)
        );
        assert!(log.warnings.is_empty(), "{:?}", log.warnings);
    }

    /// A line may carry a recording inside the agent directory: it is handed out with the
    /// file's full path; one whose file is missing, not WAV or outside the directory is
    /// rejected with its file:line and the reason, and the conversation goes on.
    #[test]
    fn recorded_lines_are_checked_and_bad_ones_rejected() {
        let dir = new_dir();
        let root = dir.path();
        write_active(
            root,
            serde_json::json!({"conversation": "conversations/c.jsonl", "speakers": ["Elara", "Bram"]}),
        );
        fs::create_dir(root.join("lines")).expect("mkdir");
        let wav = root.join("lines/0000.wav");
        let spec = hound::WavSpec {
            channels: 1,
            sample_rate: 16_000,
            bits_per_sample: 16,
            sample_format: hound::SampleFormat::Int,
        };
        let mut w = hound::WavWriter::create(&wav, spec).expect("wav");
        for i in 0..1600 {
            w.write_sample(((f64::from(i) * 0.3).sin() * 8000.0) as i16)
                .expect("sample");
        }
        w.finalize().expect("wav");
        fs::write(root.join("lines/not.wav"), "RIFF nonsense").expect("write");
        let lines = [
            serde_json::json!({"seq": 0, "speaker_id": "Elara", "audio": "lines/0000.wav"}),
            serde_json::json!({"seq": 1, "speaker_id": "Bram", "text": "x", "audio": "lines/gone.wav"}),
            serde_json::json!({"seq": 2, "speaker_id": "Bram", "text": "x", "audio": "lines/not.wav"}),
            serde_json::json!({"seq": 3, "speaker_id": "Bram", "text": "x", "audio": "../outside.wav"}),
            serde_json::json!({"seq": 4, "speaker_id": "Bram", "audio": 7}),
            serde_json::json!({"seq": 5, "speaker_id": "Bram", "text": "Good day."}),
        ];
        for l in lines {
            append(root, "conversations/c.jsonl", format!("{l}\n").as_bytes());
        }
        let mut agent = AgentDirectory::open(root, &roster(), options()).expect("open");
        let mut log = Run::default();
        run(&mut agent, Instant::now(), &mut log);
        assert_eq!(seqs_of(&log, "conversations/c.jsonl"), [0, 5], "{log:?}");
        assert_eq!(log.rejected.len(), 4, "{log:?}");
        for (i, (file_line, reason)) in log.rejected.iter().enumerate() {
            assert!(
                file_line.ends_with(&format!(":{}", i + 2)),
                "{file_line}: {reason}"
            );
            assert!(reason.contains("\"audio\""), "{reason}");
        }
        assert!(
            log.rejected[0].1.contains("lines/gone.wav"),
            "{:?}",
            log.rejected[0]
        );
    }

    #[test]
    fn two_conversations_both_progress() {
        let dir = new_dir();
        let root = dir.path();
        write_active(
            root,
            serde_json::json!({"conversations": [
                {"file": "conversations/a.jsonl", "speakers": ["Elara", "Bram"]},
                {"file": "conversations/b.jsonl", "speakers": ["Mira"]}
            ]}),
        );
        append(
            root,
            "conversations/a.jsonl",
            line(0, "Elara", "a0").as_bytes(),
        );
        append(
            root,
            "conversations/b.jsonl",
            line(0, "Mira", "b0").as_bytes(),
        );
        let mut agent = AgentDirectory::open(root, &roster(), options()).expect("open");
        let t0 = Instant::now();
        // Both conversations have a line in flight at the same time.
        let ready: Vec<String> = agent
            .poll(t0)
            .into_iter()
            .filter_map(|e| match e {
                AgentEvent::LineReady { conversation, .. } => Some(conversation),
                _ => None,
            })
            .collect();
        assert_eq!(
            ready,
            vec!["conversations/a.jsonl", "conversations/b.jsonl"]
        );
        assert!(agent.line_finished("conversations/a.jsonl", 0).expect("a"));
        assert!(agent.line_finished("conversations/b.jsonl", 0).expect("b"));
        let mut log = Run::default();
        for s in 1..4 {
            append(
                root,
                "conversations/a.jsonl",
                line(s, "Bram", "a").as_bytes(),
            );
            append(
                root,
                "conversations/b.jsonl",
                line(s, "Mira", "b").as_bytes(),
            );
            run(&mut agent, t0, &mut log);
        }
        assert_eq!(seqs_of(&log, "conversations/a.jsonl"), vec![1, 2, 3]);
        assert_eq!(seqs_of(&log, "conversations/b.jsonl"), vec![1, 2, 3]);
        let sp = read_spoken(&agent, root);
        assert_eq!(sp.last_seq("conversations/a.jsonl"), Some(3));
        assert_eq!(sp.last_seq("conversations/b.jsonl"), Some(3));
    }

    #[test]
    fn resume_from_spoken_json_skips_spoken_lines() {
        let dir = new_dir();
        let root = dir.path();
        write_active(
            root,
            serde_json::json!({"conversations": [{"file": "conversations/c1.jsonl"}]}),
        );
        for s in 0..8 {
            append(
                root,
                "conversations/c1.jsonl",
                line(s, "Elara", "x").as_bytes(),
            );
        }
        fs::write(
        root.join(SPOKEN_FILE),
        r#"{"conversations": {"conversations/c1.jsonl": {"last_seq": 4}, "old.jsonl": {"last_seq": 9}}}"#,
    )
    .expect("spoken");
        let mut agent = AgentDirectory::open(root, &roster(), options()).expect("open");
        assert_eq!(agent.spoken().last_seq("conversations/c1.jsonl"), Some(4));
        let mut log = Run::default();
        run(&mut agent, Instant::now(), &mut log);
        assert_eq!(seqs_of(&log, "conversations/c1.jsonl"), vec![5, 6, 7]);
        assert!(log.warnings.is_empty(), "{:?}", log.warnings);
        let sp = read_spoken(&agent, root);
        assert_eq!(sp.last_seq("conversations/c1.jsonl"), Some(7));
        assert_eq!(sp.last_seq("old.jsonl"), Some(9), "other entries are kept");

        // "Killed" in the middle of line 8, then started again: 8 comes again, 0-7 do not.
        append(
            root,
            "conversations/c1.jsonl",
            line(8, "Elara", "x").as_bytes(),
        );
        append(
            root,
            "conversations/c1.jsonl",
            line(9, "Elara", "x").as_bytes(),
        );
        let t0 = Instant::now();
        let ready = agent.poll(t0);
        assert!(
            ready
                .iter()
                .any(|e| matches!(e, AgentEvent::LineReady { line, .. } if line.seq == 8))
        );
        drop(agent);
        let mut agent = AgentDirectory::open(root, &roster(), options()).expect("reopen");
        let mut log = Run::default();
        run(&mut agent, t0, &mut log);
        assert_eq!(seqs_of(&log, "conversations/c1.jsonl"), vec![8, 9]);
    }

    #[test]
    fn corrupt_spoken_json_starts_empty_with_a_warning() {
        let dir = new_dir();
        let root = dir.path();
        fs::write(root.join(SPOKEN_FILE), b"{\"conversations\": {\"c\x00").expect("write");
        write_active(root, serde_json::json!({"conversation": "c.jsonl"}));
        append(root, "c.jsonl", line(0, "Elara", "hi").as_bytes());
        let mut agent = AgentDirectory::open(root, &roster(), options()).expect("open");
        let mut log = Run::default();
        run(&mut agent, Instant::now(), &mut log);
        assert_eq!(seqs_of(&log, "c.jsonl"), vec![0]);
        assert!(
            log.warnings.iter().any(|w| w.contains("spoken.json")),
            "{:?}",
            log.warnings
        );
        assert_eq!(read_spoken(&agent, root).last_seq("c.jsonl"), Some(0));
    }

    #[test]
    fn spoken_json_atomic_write_round_trips() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join(SPOKEN_FILE);
        let mut s = Spoken::default();
        s.conversations
            .insert("conversations/c1.jsonl".to_owned(), SpokenEntry::heard(5));
        s.conversations.insert(
            "weird \"name\".jsonl".to_owned(),
            SpokenEntry::heard(u64::MAX),
        );
        spoken::write_atomic(&npc_core::disk::Disk::local(), &path, &s).expect("write");
        let loaded = spoken::load(&path);
        assert!(loaded.warnings.is_empty(), "{:?}", loaded.warnings);
        assert_eq!(loaded.value, s);
        // The exact documented shape.
        let v: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(&path).expect("read")).expect("json");
        assert_eq!(v["conversations"]["conversations/c1.jsonl"]["last_seq"], 5);
        // Overwrite: the file is replaced (a new inode), no temporary file is left behind.
        #[cfg(unix)]
        let before = {
            use std::os::unix::fs::MetadataExt;
            fs::metadata(&path).expect("meta").ino()
        };
        s.conversations
            .insert("conversations/c1.jsonl".to_owned(), SpokenEntry::heard(6));
        spoken::write_atomic(&npc_core::disk::Disk::local(), &path, &s).expect("write again");
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            assert_ne!(
                fs::metadata(&path).expect("meta").ino(),
                before,
                "renamed into place"
            );
        }
        assert_eq!(spoken::load(&path).value, s);
        let names: Vec<_> = fs::read_dir(dir.path())
            .expect("ls")
            .map(|e| e.expect("entry").file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from(SPOKEN_FILE)]);
        // Missing: empty, no warning. Corrupt: empty, a warning.
        assert_eq!(
            spoken::load(&dir.path().join("none.json")).value,
            Spoken::default()
        );
        fs::write(&path, "[1,2").expect("corrupt");
        let bad = spoken::load(&path);
        assert_eq!(bad.value, Spoken::default());
        assert_eq!(bad.warnings.len(), 1);
    }

    #[test]
    fn active_json_naming_outside_or_absolute_paths_is_rejected() {
        let dir = new_dir();
        let root = dir.path();
        let outside = tempfile::tempdir().expect("outside");
        let stray = outside.path().join("stray.jsonl");
        fs::write(&stray, line(0, "Elara", "must never be spoken")).expect("write");
        write_active(
            root,
            serde_json::json!({"conversations": [
                {"file": "../outside.jsonl"},
                {"file": stray.to_str().expect("utf8")},
                {"file": "conversations/ok.jsonl"}
            ]}),
        );
        append(
            root,
            "conversations/ok.jsonl",
            line(0, "Elara", "fine").as_bytes(),
        );
        let mut agent = AgentDirectory::open(root, &roster(), options()).expect("open");
        let mut log = Run::default();
        run(&mut agent, Instant::now(), &mut log);
        assert_eq!(log.spoken.len(), 1, "{:?}", log.spoken);
        assert_eq!(log.spoken[0].0, "conversations/ok.jsonl");
        assert!(
            log.warnings
                .iter()
                .any(|w| w.contains("../outside.jsonl") && w.contains("..")),
            "{:?}",
            log.warnings
        );
        assert!(
            log.warnings.iter().any(|w| w.contains("absolute")),
            "{:?}",
            log.warnings
        );
        assert_eq!(agent.active().conversations.len(), 1);
    }

    #[test]
    fn broken_active_json_keeps_the_previous_one_and_warns_once() {
        let dir = new_dir();
        let root = dir.path();
        write_active(
            root,
            serde_json::json!({"conversation": "conversations/c1.jsonl"}),
        );
        append(
            root,
            "conversations/c1.jsonl",
            line(0, "Elara", "a").as_bytes(),
        );
        let mut agent = AgentDirectory::open(root, &roster(), options()).expect("open");
        let t0 = Instant::now();
        let mut log = Run::default();
        run(&mut agent, t0, &mut log);
        fs::write(root.join("active.json"), "{\"conversations\": [").expect("broken");
        append(
            root,
            "conversations/c1.jsonl",
            line(1, "Elara", "b").as_bytes(),
        );
        run(&mut agent, t0, &mut log);
        run(&mut agent, t0, &mut log);
        assert_eq!(seqs_of(&log, "conversations/c1.jsonl"), vec![0, 1]);
        let broken: Vec<_> = log
            .warnings
            .iter()
            .filter(|w| w.contains("active.json") && w.contains("keeping the previous"))
            .collect();
        assert_eq!(broken.len(), 1, "{:?}", log.warnings);
        // Fixed again, now naming another conversation.
        write_active(
            root,
            serde_json::json!({"conversations": [{"file": "conversations/c2.jsonl"}]}),
        );
        append(
            root,
            "conversations/c2.jsonl",
            line(0, "Bram", "c").as_bytes(),
        );
        append(
            root,
            "conversations/c1.jsonl",
            line(2, "Elara", "not active").as_bytes(),
        );
        run(&mut agent, t0, &mut log);
        assert_eq!(seqs_of(&log, "conversations/c2.jsonl"), vec![0]);
        assert_eq!(seqs_of(&log, "conversations/c1.jsonl"), vec![0, 1]);
    }

    #[test]
    fn missing_conversation_file_is_fine_until_created() {
        let dir = new_dir();
        let root = dir.path();
        write_active(root, serde_json::json!({"conversation": "later/c1.jsonl"}));
        let mut agent = AgentDirectory::open(root, &roster(), options()).expect("open");
        let t0 = Instant::now();
        let mut log = Run::default();
        for _ in 0..3 {
            run(&mut agent, t0, &mut log);
        }
        assert!(log.spoken.is_empty());
        assert!(log.warnings.is_empty(), "{:?}", log.warnings);
        append(root, "later/c1.jsonl", line(0, "Elara", "here").as_bytes());
        run(&mut agent, t0, &mut log);
        assert_eq!(seqs_of(&log, "later/c1.jsonl"), vec![0]);
    }

    #[test]
    fn file_deleted_and_recreated_continues_without_repeating() {
        let dir = new_dir();
        let root = dir.path();
        let f = "conversations/c1.jsonl";
        write_active(root, serde_json::json!({"conversation": f}));
        append(root, f, line(0, "Elara", "a").as_bytes());
        append(root, f, line(1, "Elara", "b").as_bytes());
        let mut agent = AgentDirectory::open(root, &roster(), options()).expect("open");
        let t0 = Instant::now();
        let mut log = Run::default();
        run(&mut agent, t0, &mut log);
        fs::remove_file(root.join(f)).expect("rm");
        run(&mut agent, t0, &mut log);
        // Recreated with the old lines again plus new ones: only the new ones are spoken.
        for s in 0..4 {
            append(root, f, line(s, "Elara", "again").as_bytes());
        }
        run(&mut agent, t0, &mut log);
        assert_eq!(seqs_of(&log, f), vec![0, 1, 2, 3]);
        assert!(
            log.warnings.iter().any(|w| w.contains("reading it again")),
            "{:?}",
            log.warnings
        );
        assert!(
            !log.warnings.iter().any(|w| w.contains("duplicate")),
            "{:?}",
            log.warnings
        );
    }

    #[test]
    fn duplicate_seq_in_the_file_is_spoken_once() {
        let dir = new_dir();
        let root = dir.path();
        let f = "conversations/c1.jsonl";
        write_active(root, serde_json::json!({"conversation": f}));
        append(root, f, line(0, "Elara", "first").as_bytes());
        append(root, f, line(0, "Elara", "first again").as_bytes());
        append(root, f, line(1, "Elara", "second").as_bytes());
        append(root, f, line(1, "Elara", "second again").as_bytes());
        let mut agent = AgentDirectory::open(root, &roster(), options()).expect("open");
        let mut log = Run::default();
        let t0 = Instant::now();
        run(&mut agent, t0, &mut log);
        append(root, f, line(0, "Elara", "late copy").as_bytes());
        run(&mut agent, t0, &mut log);
        let texts: Vec<&str> = log.spoken.iter().map(|(_, _, _, t)| t.as_str()).collect();
        assert_eq!(texts, vec!["first", "second"]);
        let dups = log
            .warnings
            .iter()
            .filter(|w| w.contains("duplicate"))
            .count();
        assert_eq!(dups, 2, "{:?}", log.warnings);
    }

    #[test]
    fn seq_gap_waits_then_moves_on_with_injected_time() {
        let dir = new_dir();
        let root = dir.path();
        let f = "conversations/c1.jsonl";
        write_active(root, serde_json::json!({"conversation": f}));
        append(root, f, line(0, "Elara", "a").as_bytes());
        append(root, f, line(2, "Elara", "c").as_bytes());
        let opts = AgentOptions {
            gap_timeout: Duration::from_millis(500),
            ..options()
        };
        let mut agent = AgentDirectory::open(root, &roster(), opts).expect("open");
        let t0 = Instant::now();
        let mut log = Run::default();
        run(&mut agent, t0, &mut log);
        run(&mut agent, t0 + Duration::from_millis(499), &mut log);
        assert_eq!(seqs_of(&log, f), vec![0]);
        assert_eq!(agent.next_deadline(), Some(t0 + Duration::from_millis(500)));
        run(&mut agent, t0 + Duration::from_millis(500), &mut log);
        assert_eq!(seqs_of(&log, f), vec![0, 2]);
        assert!(
            log.warnings
                .iter()
                .any(|w| w.contains("seq 1 did not arrive")),
            "{:?}",
            log.warnings
        );
    }

    #[test]
    fn unknown_speaker_gets_a_free_npc_with_a_warning() {
        let dir = new_dir();
        let root = dir.path();
        let f = "conversations/c1.jsonl";
        write_active(
            root,
            serde_json::json!({"conversation": f, "speakers": ["Elara", "Guard"]}),
        );
        append(root, f, line(0, "Guard", "Halt!").as_bytes());
        append(root, f, line(1, "Elara", "Easy.").as_bytes());
        append(root, f, line(2, "Guard", "Pass.").as_bytes());
        let mut agent = AgentDirectory::open(root, &roster(), options()).expect("open");
        let mut log = Run::default();
        run(&mut agent, Instant::now(), &mut log);
        let npcs: Vec<&str> = log.spoken.iter().map(|(_, _, n, _)| n.as_str()).collect();
        // Elara is listed, so the guard takes the next free NPC that matches the line's gender
        // (the lines say "female"): Mira.
        assert_eq!(npcs, vec!["Mira", "Elara", "Mira"]);
        let w: Vec<_> = log
            .warnings
            .iter()
            .filter(|w| w.contains("Guard"))
            .collect();
        assert_eq!(w.len(), 1, "{:?}", log.warnings);
        assert!(w[0].contains("not in the roster"), "{w:?}");
        assert_eq!(agent.npc_for("Guard"), Some("Mira"));
    }

    #[test]
    fn npc_state_is_read_and_repaired() {
        let dir = new_dir();
        let root = dir.path();
        fs::write(
            root.join("npc_state.json"),
            r#"{"time_of_day": 1.7, "npcs": [{"id": "Elara", "x": 0.4, "y": 0.6},
            {"id": "Bram", "y": 0.2}, {"id": "Mira", "x": -1, "y": 0.5}, 7]}"#,
        )
        .expect("write");
        let mut agent = AgentDirectory::open(root, &roster(), options()).expect("open");
        let events = agent.poll(Instant::now());
        let state = agent.npc_state();
        assert_eq!(state.time_of_day, Some(1.0));
        let ids: Vec<&str> = state.npcs.iter().map(|n| n.id.as_str()).collect();
        assert_eq!(ids, vec!["Elara", "Mira"]);
        assert_eq!(state.npcs[1].x, 0.0);
        let warnings: Vec<_> = events
            .iter()
            .filter_map(|e| match e {
                AgentEvent::Warning(w) if w.starts_with("npc_state.json") => Some(w.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(warnings.len(), 4, "{warnings:?}");
        assert!(
            events
                .iter()
                .any(|e| matches!(e, AgentEvent::NpcStateChanged(_)))
        );
        // Unchanged: no new event. Broken: previous kept.
        assert!(agent.poll(Instant::now()).is_empty());
        fs::write(root.join("npc_state.json"), "{\"npcs\": [").expect("write");
        let events = agent.poll(Instant::now());
        assert_eq!(events.len(), 1, "{events:?}");
        assert_eq!(agent.npc_state().npcs.len(), 2);
    }

    #[test]
    fn hostile_directory_never_stops_valid_lines() {
        let dir = new_dir();
        let root = dir.path();
        let f = "conversations/c1.jsonl";
        write_active(
            root,
            serde_json::json!({"conversations": [
                {"file": f, "speakers": ["Elara", "Stranger"]},
                {"file": "../outside.jsonl"},
                {"file": "conversations/missing.jsonl"},
                {"nofile": true}, 12
            ]}),
        );
        fs::write(root.join("npc_state.json"), [0xff, 0x00, 0x13]).expect("write");
        append(root, f, line(0, "Elara", "zero").as_bytes());
        append(root, f, b"\xff\xfe garbage \x00\x01\n");
        append(root, f, b"{\"seq\": 1, \"speaker_id\": \"Elara\"}\n");
        let mut huge = b"{\"seq\": 2, \"text\": \"".to_vec();
        huge.resize(10 * 1024 * 1024, b'a');
        huge.extend_from_slice(b"\"}\n");
        append(root, f, &huge);
        append(root, f, line(2, "Stranger", "two").as_bytes());
        append(root, f, line(2, "Stranger", "two dup").as_bytes());
        append(root, f, line(5, "Elara", "five").as_bytes());
        append(root, f, line(3, "Bram", "three").as_bytes());
        append(
            root,
            f,
            b"{\"seq\": 6, \"speaker_id\": \"Elara\", \"text\": \"six, partial",
        );
        let opts = AgentOptions {
            gap_timeout: Duration::from_millis(100),
            ..options()
        };
        let mut agent = AgentDirectory::open(root, &roster(), opts).expect("open");
        let t0 = Instant::now();
        let mut log = Run::default();
        run(&mut agent, t0, &mut log);
        assert_eq!(seqs_of(&log, f), vec![0, 2, 3]);
        run(&mut agent, t0 + Duration::from_millis(100), &mut log);
        assert_eq!(seqs_of(&log, f), vec![0, 2, 3, 5]);
        append(root, f, b"\"}\n");
        run(&mut agent, t0 + Duration::from_millis(100), &mut log);
        assert_eq!(seqs_of(&log, f), vec![0, 2, 3, 5, 6]);
        let rejected_lines: Vec<&str> = log.rejected.iter().map(|(l, _)| l.as_str()).collect();
        assert_eq!(
            rejected_lines,
            vec![
                "conversations/c1.jsonl:2",
                "conversations/c1.jsonl:3",
                "conversations/c1.jsonl:4"
            ]
        );
        assert_eq!(read_spoken(&agent, root).last_seq(f), Some(6));
    }

    #[test]
    fn watcher_wakes_for_an_appended_line() {
        let dir = new_dir();
        let root = dir.path();
        let f = "conversations/c1.jsonl";
        write_active(root, serde_json::json!({"conversation": f}));
        let opts = AgentOptions {
            watch: true,
            ..AgentOptions::default()
        };
        let mut agent = AgentDirectory::open(root, &roster(), opts).expect("open");
        let mut log = Run::default();
        run(&mut agent, Instant::now(), &mut log);
        // Drain wake-ups caused by setting up.
        while agent.wait(Duration::from_millis(20)) {}
        let started = Instant::now();
        append(root, f, line(0, "Elara", "hello").as_bytes());
        let mut seen_after = None;
        while started.elapsed() < Duration::from_secs(2) {
            agent.wait(Duration::from_millis(500));
            let ready = agent
                .poll(Instant::now())
                .into_iter()
                .any(|e| matches!(e, AgentEvent::LineReady { .. }));
            if ready {
                seen_after = Some(started.elapsed());
                break;
            }
        }
        let took = seen_after.expect("the appended line was never seen");
        // Events (or at worst the 250 ms polling fallback) bring it quickly.
        assert!(took < Duration::from_millis(400), "took {took:?}");
        eprintln!("appended line seen after {took:?}");
    }

    /// A write of `spoken.json` that fails (here its path is taken by a folder, as a full
    /// disk or a deleted directory would refuse it) never holds the caller: it is said once,
    /// tried again by the writer until it lands, and what is still unwritten when the
    /// directory is dropped is written then.
    #[test]
    fn a_failed_spoken_write_is_retried_until_it_lands() {
        let dir = new_dir();
        let root = dir.path();
        write_active(
            root,
            serde_json::json!({"conversation": "conversations/c.jsonl", "speakers": ["Elara", "Bram"]}),
        );
        for s in 0..2 {
            append(
                root,
                "conversations/c.jsonl",
                line(s, "Elara", "hi").as_bytes(),
            );
        }
        let blocker = root.join(SPOKEN_FILE);
        let block = || {
            let _ = fs::remove_file(&blocker);
            fs::create_dir_all(blocker.join("in-the-way")).expect("mkdir");
        };
        let unblock = || fs::remove_dir_all(&blocker).expect("rmdir");
        let last_seq =
            || spoken::load(&blocker).value.conversations["conversations/c.jsonl"].last_seq;
        let t0 = Instant::now();
        let mut agent = AgentDirectory::open(root, &roster(), options()).expect("open");
        assert!(
            agent
                .poll(t0)
                .iter()
                .any(|e| matches!(e, AgentEvent::LineReady { .. }))
        );
        block();
        assert!(agent.line_finished("conversations/c.jsonl", 0).expect("ok"));
        assert!(!agent.flush_spoken(SPOKEN_RETRY * 2), "the path is taken");
        assert!(agent.spoken_behind());
        // Said once, and the conversation goes on meanwhile: line 1 is handed out.
        let next = agent.poll(t0 + Duration::from_secs(1));
        let said = |events: &[AgentEvent], what: &str| {
            events
                .iter()
                .filter(|e| matches!(e, AgentEvent::Warning(w) if w.contains(what)))
                .count()
        };
        assert_eq!(said(&next, "cannot write"), 1, "{next:?}");
        assert!(
            next.iter()
                .any(|e| matches!(e, AgentEvent::LineReady { line, .. } if line.seq == 1))
        );
        assert_eq!(
            said(&agent.poll(t0 + Duration::from_secs(2)), "cannot write"),
            0
        );
        unblock();
        // The writer lands it on its own, without a poll.
        assert!(agent.flush_spoken(SPOKEN_RETRY * 6), "the retry landed");
        assert!(!agent.spoken_behind());
        assert_eq!(last_seq(), Some(0));
        let events = agent.poll(t0 + Duration::from_secs(3));
        assert_eq!(said(&events, "written again"), 1, "{events:?}");
        // Line 1 ends while the path is blocked; the directory is dropped after it is free.
        block();
        assert!(agent.line_finished("conversations/c.jsonl", 1).expect("ok"));
        unblock();
        drop(agent);
        assert_eq!(
            last_seq(),
            Some(1),
            "written when the directory was dropped"
        );
    }
}
