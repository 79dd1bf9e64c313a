//! The viseme track: which mouth shape is due when, as a speech engine reports it.
//!
//! A track may grow while it plays: a speech engine on another thread sends events through a
//! [`TrackSender`] and the animator drains the matching [`TrackReceiver`] once per frame. The
//! channel never blocks the frame, holds no lock across it, and draining an empty channel does
//! not allocate.

use std::sync::{Mutex, mpsc};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::viseme::VisemeId;

/// One viseme event: the viseme `id` starts (reaches its apex) at `offset_ms` into the audio.
/// It lasts until the next event's offset.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VisemeEvent {
    pub id: VisemeId,
    pub offset_ms: f64,
}

impl VisemeEvent {
    #[must_use]
    pub fn new(id: VisemeId, offset_ms: f64) -> Self {
        Self { id, offset_ms }
    }
}

/// Why a track or an event was refused.
#[derive(Debug, Error, PartialEq)]
pub enum TrackError {
    #[error("the viseme track is empty")]
    Empty,
    #[error(
        "viseme event at index {index} has an invalid offset ({offset_ms} ms): offsets must be finite and >= 0"
    )]
    BadOffset { index: usize, offset_ms: f64 },
    #[error(
        "viseme event at index {index} starts at {offset_ms} ms, before the previous event at {previous_ms} ms: offsets must not decrease"
    )]
    OutOfOrder {
        index: usize,
        offset_ms: f64,
        previous_ms: f64,
    },
    #[error("the viseme track is already complete; no more events can be added")]
    AlreadyComplete,
}

/// An ordered list of viseme events, possibly still growing.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VisemeTrack {
    events: Vec<VisemeEvent>,
    complete: bool,
}

impl VisemeTrack {
    /// A finished track from a full list of events (validated: non-empty, offsets finite,
    /// non-negative and non-decreasing).
    pub fn from_events(events: Vec<VisemeEvent>) -> Result<Self, TrackError> {
        if events.is_empty() {
            return Err(TrackError::Empty);
        }
        let mut track = Self {
            events: Vec::with_capacity(events.len()),
            complete: false,
        };
        for event in events {
            track.push(event)?;
        }
        track.complete = true;
        Ok(track)
    }

    /// An empty track that will grow as events arrive.
    #[must_use]
    pub fn growing(capacity: usize) -> Self {
        Self {
            events: Vec::with_capacity(capacity),
            complete: false,
        }
    }

    /// Appends one event, checking it keeps the track ordered.
    pub fn push(&mut self, event: VisemeEvent) -> Result<(), TrackError> {
        let index = self.events.len();
        if self.complete {
            return Err(TrackError::AlreadyComplete);
        }
        if !event.offset_ms.is_finite() || event.offset_ms < 0.0 {
            return Err(TrackError::BadOffset {
                index,
                offset_ms: event.offset_ms,
            });
        }
        if let Some(previous) = self.events.last()
            && event.offset_ms < previous.offset_ms
        {
            return Err(TrackError::OutOfOrder {
                index,
                offset_ms: event.offset_ms,
                previous_ms: previous.offset_ms,
            });
        }
        self.events.push(event);
        Ok(())
    }

    /// Marks the track as finished: the last event is final.
    pub fn finish(&mut self) {
        self.complete = true;
    }

    /// Empties the track for a new utterance, keeping its memory.
    pub fn clear(&mut self) {
        self.events.clear();
        self.complete = false;
    }

    #[must_use]
    pub fn events(&self) -> &[VisemeEvent] {
        &self.events
    }

    #[must_use]
    pub fn is_complete(&self) -> bool {
        self.complete
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// Offset of the last event, or 0 for an empty track.
    #[must_use]
    pub fn last_offset_ms(&self) -> f64 {
        self.events.last().map_or(0.0, |e| e.offset_ms)
    }

    /// Index of the event in force at `t_ms` (the last one whose offset is <= t), if any.
    #[must_use]
    pub fn index_at(&self, t_ms: f64) -> Option<usize> {
        self.events
            .partition_point(|e| e.offset_ms <= t_ms)
            .checked_sub(1)
    }

    /// Number of events whose offset is <= `t_ms`.
    #[must_use]
    pub fn count_until(&self, t_ms: f64) -> usize {
        self.events.partition_point(|e| e.offset_ms <= t_ms)
    }
}

/// What a speech engine sends down a track channel.
#[derive(Clone, Copy, Debug, PartialEq)]
enum TrackMessage {
    Event(VisemeEvent),
    Finish,
}

/// The speech side of a track channel.
#[derive(Clone, Debug)]
pub struct TrackSender(mpsc::Sender<TrackMessage>);

/// The animation side of a track channel. (Behind a lock so that a face, and the NPC that has
/// it, can be read from several threads at once, as a frame's draw list is gathered.)
#[derive(Debug)]
pub struct TrackReceiver(Mutex<mpsc::Receiver<TrackMessage>>);

/// A channel for a track that arrives in pieces.
#[must_use]
pub fn track_channel() -> (TrackSender, TrackReceiver) {
    let (tx, rx) = mpsc::channel();
    (TrackSender(tx), TrackReceiver(Mutex::new(rx)))
}

impl TrackSender {
    /// Sends one event. Returns false when the animator has gone away.
    pub fn send(&self, event: VisemeEvent) -> bool {
        self.0.send(TrackMessage::Event(event)).is_ok()
    }

    /// Says that no more events will come.
    pub fn finish(&self) -> bool {
        self.0.send(TrackMessage::Finish).is_ok()
    }
}

impl TrackReceiver {
    /// Moves every event that has arrived into `track` without blocking. A bad event
    /// (out of order, invalid offset) is reported and the rest of the queue still drains.
    pub fn drain_into(&self, track: &mut VisemeTrack) -> Result<usize, TrackError> {
        let mut moved = 0;
        let mut first_error = None;
        let rx = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        while let Ok(message) = rx.try_recv() {
            match message {
                TrackMessage::Event(event) => match track.push(event) {
                    Ok(()) => moved += 1,
                    Err(e) => {
                        first_error.get_or_insert(e);
                    }
                },
                TrackMessage::Finish => track.finish(),
            }
        }
        first_error.map_or(Ok(moved), Err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(id: u32, offset_ms: f64) -> VisemeEvent {
        VisemeEvent::new(VisemeId::new(id).expect("valid id"), offset_ms)
    }

    #[test]
    fn rejects_empty_unordered_and_negative_tracks() {
        assert_eq!(VisemeTrack::from_events(vec![]), Err(TrackError::Empty));
        assert!(matches!(
            VisemeTrack::from_events(vec![ev(0, 10.0), ev(1, 5.0)]),
            Err(TrackError::OutOfOrder { index: 1, .. })
        ));
        assert!(matches!(
            VisemeTrack::from_events(vec![ev(0, -1.0)]),
            Err(TrackError::BadOffset { index: 0, .. })
        ));
        assert!(matches!(
            VisemeTrack::from_events(vec![ev(0, f64::NAN)]),
            Err(TrackError::BadOffset { .. })
        ));
    }

    #[test]
    fn finds_the_event_in_force() {
        let track =
            VisemeTrack::from_events(vec![ev(0, 0.0), ev(21, 100.0), ev(2, 200.0)]).expect("valid");
        assert_eq!(track.index_at(-5.0), None);
        assert_eq!(track.index_at(0.0), Some(0));
        assert_eq!(track.index_at(99.9), Some(0));
        assert_eq!(track.index_at(100.0), Some(1));
        assert_eq!(track.index_at(5000.0), Some(2));
    }

    #[test]
    fn channel_moves_events_and_reports_bad_ones_without_losing_later_ones() {
        let (tx, rx) = track_channel();
        let mut track = VisemeTrack::growing(8);
        assert_eq!(rx.drain_into(&mut track), Ok(0));
        tx.send(ev(0, 0.0));
        tx.send(ev(21, 50.0));
        tx.send(ev(2, 20.0)); // out of order: refused
        tx.send(ev(2, 120.0));
        tx.finish();
        let result = rx.drain_into(&mut track);
        assert!(matches!(result, Err(TrackError::OutOfOrder { .. })));
        assert_eq!(track.events().len(), 3);
        assert!(track.is_complete());
    }
}
