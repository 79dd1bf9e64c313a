//! The per-conversation queue and the speaker map, with time injected.

/// Named `agent` so that `cargo test agent` selects these tests.
mod agent {
    use std::time::{Duration, Instant};

    use npc_core::agent::{ConversationQueue, Line, SpeakerMap};
    use npc_core::project::Gender;

    const GAP: Duration = Duration::from_secs(3);

    fn line(seq: u64) -> Line {
        Line {
            seq,
            speaker_id: "Elara".to_owned(),
            phase: None,
            gender: None,
            text: format!("line {seq}"),
            audio: None,
            extra: serde_json::Map::new(),
            behaviour: Default::default(),
        }
    }

    /// Speaks everything ready at `now`, finishing each line at once.
    fn drain(q: &mut ConversationQueue, now: Instant) -> Vec<u64> {
        let mut out = Vec::new();
        while let Some(l) = q.next_ready(now) {
            out.push(l.seq);
            assert!(q.finished(l.seq));
        }
        out
    }

    #[test]
    fn lines_go_in_seq_order_one_at_a_time() {
        let t0 = Instant::now();
        let mut q = ConversationQueue::new("c1", None, GAP);
        for s in [2, 0, 1] {
            assert!(q.push(line(s)));
        }
        let first = q.next_ready(t0).expect("line 0");
        assert_eq!(first.seq, 0);
        assert_eq!(q.next_ready(t0), None, "one at a time: 0 is in flight");
        assert!(
            !q.finished(1),
            "finishing a line not in flight changes nothing"
        );
        assert_eq!(q.last_seq(), None);
        assert!(q.finished(0));
        assert_eq!(q.last_seq(), Some(0));
        assert_eq!(drain(&mut q, t0), vec![1, 2]);
        assert_eq!(q.last_seq(), Some(2));
        assert!(q.take_warnings().is_empty());
    }

    #[test]
    fn duplicate_seq_is_spoken_once_and_reported_once() {
        let t0 = Instant::now();
        let mut q = ConversationQueue::new("c1", None, GAP);
        assert!(q.push(line(0)));
        assert!(!q.push(line(0)));
        assert!(!q.push(line(0)));
        assert_eq!(drain(&mut q, t0), vec![0]);
        // Again after it was spoken.
        assert!(!q.push(line(0)));
        assert!(q.push(line(1)));
        assert!(!q.push(line(1)));
        assert_eq!(drain(&mut q, t0), vec![1]);
        let w = q.take_warnings();
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(w[0].contains("duplicate seq 0"), "{w:?}");
        assert!(w[1].contains("duplicate seq 1"), "{w:?}");
    }

    #[test]
    fn seq_gap_waits_then_moves_on_after_the_timeout() {
        let t0 = Instant::now();
        let mut q = ConversationQueue::new("c1", None, GAP);
        q.push(line(0));
        q.push(line(1));
        q.push(line(4));
        assert_eq!(drain(&mut q, t0), vec![0, 1]);
        assert_eq!(q.next_ready(t0), None);
        assert_eq!(q.next_deadline(), Some(t0 + GAP));
        assert_eq!(q.next_ready(t0 + Duration::from_millis(2999)), None);
        assert!(q.take_warnings().is_empty());
        let l = q.next_ready(t0 + GAP).expect("moves on");
        assert_eq!(l.seq, 4);
        let w = q.take_warnings();
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].contains("seqs 2-3"), "{w:?}");
        assert!(q.finished(4));
        // A missing line arriving after the conversation moved past it is not spoken out of order.
        assert!(!q.push(line(2)));
        assert_eq!(drain(&mut q, t0 + GAP), Vec::<u64>::new());
        let w = q.take_warnings();
        assert!(
            w.len() == 1 && w[0].contains("seq 2 arrived after seq 4"),
            "{w:?}"
        );
    }

    #[test]
    fn gap_filled_in_time_is_not_skipped_and_timeout_is_configurable() {
        let t0 = Instant::now();
        let mut q = ConversationQueue::new("c1", None, Duration::from_millis(100));
        q.push(line(0));
        q.push(line(2));
        assert_eq!(drain(&mut q, t0), vec![0]);
        assert_eq!(q.next_ready(t0 + Duration::from_millis(50)), None);
        q.push(line(1));
        assert_eq!(drain(&mut q, t0 + Duration::from_millis(60)), vec![1, 2]);
        assert!(q.take_warnings().is_empty());
        // A fresh gap starts its own timer.
        q.push(line(4));
        assert_eq!(q.next_ready(t0 + Duration::from_secs(10)), None);
        assert_eq!(drain(&mut q, t0 + Duration::from_millis(10_100)), vec![4]);
    }

    #[test]
    fn rejected_seq_is_not_waited_for() {
        let t0 = Instant::now();
        let mut q = ConversationQueue::new("c1", None, GAP);
        q.push(line(0));
        q.mark_rejected(1);
        q.push(line(2));
        assert_eq!(drain(&mut q, t0), vec![0, 2]);
        assert!(q.take_warnings().is_empty());
    }

    #[test]
    fn resume_skips_everything_at_or_below_last_seq() {
        let t0 = Instant::now();
        let mut q = ConversationQueue::new("c1", Some(5), GAP);
        assert_eq!(q.last_seq(), Some(5));
        for s in 0..9 {
            q.push(line(s));
        }
        assert_eq!(drain(&mut q, t0), vec![6, 7, 8]);
        assert!(
            q.take_warnings().is_empty(),
            "spoken lines are skipped silently"
        );
        // Resume with a gap right after the resume point waits too.
        let mut q = ConversationQueue::new("c2", Some(5), GAP);
        q.push(line(7));
        assert_eq!(q.next_ready(t0), None);
        assert_eq!(drain(&mut q, t0 + GAP), vec![7]);
    }

    #[test]
    fn re_read_file_gives_no_duplicate_warnings() {
        let t0 = Instant::now();
        let mut q = ConversationQueue::new("c1", None, GAP);
        q.push(line(0));
        q.push(line(1));
        assert_eq!(drain(&mut q, t0), vec![0, 1]);
        q.file_restarted();
        q.push(line(0));
        q.push(line(1));
        q.push(line(2));
        assert_eq!(drain(&mut q, t0), vec![2]);
        assert!(q.take_warnings().is_empty());
    }

    #[test]
    fn unknown_speaker_takes_the_next_free_npc_with_a_warning() {
        let mut map = SpeakerMap::from_ids([
            ("Elara".to_owned(), Gender::Female),
            ("Bram".to_owned(), Gender::Male),
            ("Mira".to_owned(), Gender::Female),
            ("Tom".to_owned(), Gender::Male),
        ]);
        map.claim("Elara");
        let r = map.resolve("Elara", None);
        assert_eq!((r.npc.as_str(), r.warning), ("Elara", None));
        // Unknown: the first free NPC (Elara is taken).
        let r = map.resolve("Guard", None);
        assert_eq!(r.npc, "Bram");
        let w = r.warning.expect("warned");
        assert!(w.contains("\"Guard\"") && w.contains("Bram"), "{w}");
        // Same id again: same NPC, no second warning.
        assert_eq!(map.resolve("Guard", None), map.resolve("Guard", None));
        assert_eq!(map.resolve("Guard", None).warning, None);
        // The line's gender picks among free NPCs.
        assert_eq!(map.resolve("Queen", Some(Gender::Female)).npc, "Mira");
        assert_eq!(map.resolve("Stranger", None).npc, "Tom");
        // Nobody free: shared, still spoken, with a warning.
        let r = map.resolve("Ghost", None);
        assert!(["Elara", "Bram", "Mira", "Tom"].contains(&r.npc.as_str()));
        assert!(r.warning.expect("warned").contains("no NPC is free"));
        assert_eq!(map.get("Ghost"), Some(r.npc.as_str()));
        // Empty roster: the id itself, with a warning.
        let mut empty = SpeakerMap::from_ids([]);
        let r = empty.resolve("Solo", None);
        assert_eq!(r.npc, "Solo");
        assert!(r.warning.is_some());
    }
}
