//! Ordering the lines of one conversation, and giving speakers an NPC.
//!
//! [`ConversationQueue`] delivers lines one at a time in seq order:
//!
//! * A line is handed out by [`next_ready`](ConversationQueue::next_ready) only when the
//!   previous one has [`finished`](ConversationQueue::finished).
//! * The next expected seq is the one after the last handed out (or after the `last_seq`
//!   the queue was resumed from). With no history at all, the lowest seq waiting is taken.
//! * A seq seen before is a duplicate: ignored, reported once per seq.
//! * A seq at or below the resume point that was never seen in this run was spoken by an
//!   earlier run: dropped silently.
//! * A seq lower than one already handed out arrived too late to be spoken in order: dropped
//!   with a warning.
//! * When the expected seq is missing but later ones wait, the queue waits `gap_timeout`
//!   (from the moment it first could have spoken), then moves on to the lowest waiting seq
//!   with a warning. A seq the reader rejected (see [`mark_rejected`](ConversationQueue::mark_rejected))
//!   is not waited for.
//!
//! Time is an input: every call that needs it takes `now`.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use super::protocol::Line;
use crate::project::{Gender, Npc};

/// How long a gap in seq is waited for by default.
pub const DEFAULT_GAP_TIMEOUT: Duration = Duration::from_secs(3);

/// The lines of one conversation, in seq order, one at a time.
#[derive(Debug)]
pub struct ConversationQueue {
    name: String,
    gap_timeout: Duration,
    /// Highest seq whose audio finished (or the resume point).
    last_seq: Option<u64>,
    /// Seqs at or below this were spoken by an earlier run.
    resume_floor: Option<u64>,
    /// Highest seq handed out, skipped as rejected, or resumed from.
    cursor: Option<u64>,
    in_flight: Option<u64>,
    pending: BTreeMap<u64, Line>,
    rejected: BTreeSet<u64>,
    seen: BTreeSet<u64>,
    reported: BTreeSet<u64>,
    gap_since: Option<Instant>,
    warnings: Vec<String>,
}

impl ConversationQueue {
    /// A queue for the conversation `name`, resuming after `last_seq` (from spoken.json)
    /// when given: nothing at or below it is handed out.
    pub fn new(name: &str, last_seq: Option<u64>, gap_timeout: Duration) -> Self {
        Self {
            name: name.to_owned(),
            gap_timeout,
            last_seq,
            resume_floor: last_seq,
            cursor: last_seq,
            in_flight: None,
            pending: BTreeMap::new(),
            rejected: BTreeSet::new(),
            seen: BTreeSet::new(),
            reported: BTreeSet::new(),
            gap_since: None,
            warnings: Vec::new(),
        }
    }

    /// The conversation's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The seq of the last line whose audio finished (or the resume point).
    pub fn last_seq(&self) -> Option<u64> {
        self.last_seq
    }

    /// The seq handed out and not finished yet.
    pub fn in_flight(&self) -> Option<u64> {
        self.in_flight
    }

    /// Number of lines waiting.
    pub fn waiting(&self) -> usize {
        self.pending.len()
    }

    /// Warnings collected since the last call.
    pub fn take_warnings(&mut self) -> Vec<String> {
        std::mem::take(&mut self.warnings)
    }

    /// Adds a line read from the file. Returns whether it was queued.
    pub fn push(&mut self, line: Line) -> bool {
        let seq = line.seq;
        if self.resume_floor.is_some_and(|f| seq <= f) {
            return false;
        }
        if self.seen.contains(&seq) {
            if self.reported.insert(seq) {
                self.warnings.push(format!(
                    "{}: duplicate seq {seq} ignored (it is spoken once)",
                    self.name
                ));
            }
            return false;
        }
        self.seen.insert(seq);
        if let Some(cursor) = self.cursor
            && seq <= cursor
        {
            self.reported.insert(seq);
            self.warnings.push(format!(
                "{}: seq {seq} arrived after seq {cursor} was already spoken; skipped to keep the order",
                self.name
            ));
            return false;
        }
        self.pending.insert(seq, line);
        true
    }

    /// Notes that the line with this seq was rejected by the reader, so it is not waited for.
    /// A valid line with the same seq that is already waiting still wins.
    pub fn mark_rejected(&mut self, seq: u64) {
        if self.cursor.is_none_or(|c| seq > c) {
            self.rejected.insert(seq);
        }
    }

    /// The file was read again from its start: lines seen before come again and are
    /// dropped without a duplicate warning.
    pub fn file_restarted(&mut self) {
        self.reported.extend(self.seen.iter().copied());
    }

    /// When a waiting gap times out, if one is being waited for; a caller sleeping until then
    /// can call [`next_ready`](Self::next_ready) on time.
    pub fn next_deadline(&self) -> Option<Instant> {
        if self.in_flight.is_some() {
            return None;
        }
        self.gap_since.and_then(|t| t.checked_add(self.gap_timeout))
    }

    /// The next line to speak, when nothing of this conversation is in flight.
    pub fn next_ready(&mut self, now: Instant) -> Option<Line> {
        if self.in_flight.is_some() {
            return None;
        }
        loop {
            let (&first, _) = self.pending.first_key_value()?;
            let expected = match self.cursor {
                None => first,
                Some(c) => c.checked_add(1)?,
            };
            if first == expected {
                return self.deliver(first);
            }
            if first < expected {
                // Cannot happen (push keeps only seqs after the cursor); dropped to be safe.
                self.pending.remove(&first);
                continue;
            }
            if self.rejected.remove(&expected) {
                // The line with this seq was invalid: nothing to wait for.
                self.cursor = Some(expected);
                continue;
            }
            let since = *self.gap_since.get_or_insert(now);
            if now.saturating_duration_since(since) < self.gap_timeout {
                return None;
            }
            let missing = if first - expected == 1 {
                format!("seq {expected}")
            } else {
                format!("seqs {expected}-{}", first - 1)
            };
            self.warnings.push(format!(
                "{}: {missing} did not arrive within {:.1} s; moving on to seq {first}",
                self.name,
                self.gap_timeout.as_secs_f64()
            ));
            return self.deliver(first);
        }
    }

    fn deliver(&mut self, seq: u64) -> Option<Line> {
        let line = self.pending.remove(&seq)?;
        self.cursor = Some(seq);
        self.in_flight = Some(seq);
        self.gap_since = None;
        self.rejected = self.rejected.split_off(&seq);
        Some(line)
    }

    /// The audio of the line `seq` ended: it becomes `last_seq` and the next line may go.
    /// Returns false (and changes nothing) when `seq` is not the line in flight.
    pub fn finished(&mut self, seq: u64) -> bool {
        if self.in_flight != Some(seq) {
            return false;
        }
        self.in_flight = None;
        self.last_seq = Some(self.last_seq.map_or(seq, |l| l.max(seq)));
        true
    }
}

/// The NPC that speaks a speaker's lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resolved {
    pub npc: String,
    /// Set the first time a speaker id is given a stand-in.
    pub warning: Option<String>,
}

/// Maps speaker ids to the roster. An id in the roster is that NPC; any other id takes the
/// next free NPC (preferring the line's gender) with a warning, and keeps it.
#[derive(Clone, Debug, Default)]
pub struct SpeakerMap {
    roster: Vec<(String, Gender)>,
    stand_ins: BTreeMap<String, String>,
    claimed: BTreeSet<String>,
}

impl SpeakerMap {
    /// A map over the project's roster.
    pub fn new(roster: &[Npc]) -> Self {
        Self::from_ids(roster.iter().map(|n| (n.id.clone(), n.voice.gender)))
    }

    /// A map over NPC ids and their voices' genders.
    pub fn from_ids(ids: impl IntoIterator<Item = (String, Gender)>) -> Self {
        let mut roster: Vec<(String, Gender)> = Vec::new();
        for (id, g) in ids {
            if !roster.iter().any(|(r, _)| *r == id) {
                roster.push((id, g));
            }
        }
        Self {
            roster,
            stand_ins: BTreeMap::new(),
            claimed: BTreeSet::new(),
        }
    }

    fn in_roster(&self, id: &str) -> bool {
        self.roster.iter().any(|(r, _)| r == id)
    }

    /// Marks a roster NPC as taken by its own speaker id, so no stand-in takes it. Ids not
    /// in the roster are ignored.
    pub fn claim(&mut self, speaker_id: &str) {
        if self.in_roster(speaker_id) {
            self.claimed.insert(speaker_id.to_owned());
        }
    }

    /// The NPC of a speaker already resolved or in the roster.
    pub fn get(&self, speaker_id: &str) -> Option<&str> {
        if let Some((id, _)) = self.roster.iter().find(|(r, _)| r == speaker_id) {
            return Some(id);
        }
        self.stand_ins.get(speaker_id).map(String::as_str)
    }

    /// The NPC that speaks for `speaker_id`. `gender` (the line's) picks among free NPCs.
    /// With an empty roster the speaker id itself is returned (with a warning once).
    pub fn resolve(&mut self, speaker_id: &str, gender: Option<Gender>) -> Resolved {
        if self.in_roster(speaker_id) {
            self.claimed.insert(speaker_id.to_owned());
            return Resolved {
                npc: speaker_id.to_owned(),
                warning: None,
            };
        }
        if let Some(npc) = self.stand_ins.get(speaker_id) {
            return Resolved {
                npc: npc.clone(),
                warning: None,
            };
        }
        if self.roster.is_empty() {
            self.stand_ins
                .insert(speaker_id.to_owned(), speaker_id.to_owned());
            return Resolved {
                npc: speaker_id.to_owned(),
                warning: Some(format!(
                    "speaker {speaker_id:?} is not in the roster and the roster is empty; its lines play without an NPC"
                )),
            };
        }
        let matches = |g: Gender| gender.is_none_or(|want| want == g);
        let free = |(id, _): &&(String, Gender)| !self.claimed.contains(id);
        let pick = self
            .roster
            .iter()
            .filter(free)
            .find(|(_, g)| matches(*g))
            .or_else(|| self.roster.iter().find(free));
        let (npc, shared) = match pick {
            Some((id, _)) => (id.clone(), false),
            None => {
                // Everyone is taken: share the NPC standing in for the fewest speakers.
                let load = |id: &str| self.stand_ins.values().filter(|v| *v == id).count();
                let best = self
                    .roster
                    .iter()
                    .min_by_key(|(id, g)| (load(id), !matches(*g)))
                    .map(|(id, _)| id.clone())
                    .unwrap_or_else(|| speaker_id.to_owned());
                (best, true)
            }
        };
        self.claimed.insert(npc.clone());
        self.stand_ins.insert(speaker_id.to_owned(), npc.clone());
        let warning = if shared {
            format!(
                "speaker {speaker_id:?} is not in the roster and no NPC is free; {npc} also speaks its lines"
            )
        } else {
            format!("speaker {speaker_id:?} is not in the roster; {npc} speaks its lines")
        };
        Resolved {
            npc,
            warning: Some(warning),
        }
    }
}
