//! Sound for the timeline. While the timeline plays, its line's audio plays from the playhead
//! and the playhead follows the audio's position, so lips and sound stay together; a line
//! without audio (a viseme file), or a machine without a sound device, plays on the frame
//! clock. The timeline (state) says whether it plays and where; this follows it.

use std::time::Instant;

use npc_io::{AudioOut, PlayingLine};

use crate::timeline::Timeline;

/// A seek further than this from where playback put the playhead restarts the sound there.
const SEEK_TOLERANCE_MS: f64 = 1.0;

/// What is heard now.
#[derive(Debug)]
enum Heard {
    /// Nothing: the timeline is stopped.
    Nothing,
    /// The line's audio from `from_ms`, the playhead set to `at_ms` last frame.
    Sound {
        line: PlayingLine,
        from_ms: f64,
        at_ms: f64,
    },
    /// Playing on the frame clock (no audio, no device, or past the audio's end).
    Silent,
}

/// The timeline's sound output.
#[derive(Debug)]
pub struct Playback {
    /// Opened on first play (so a studio that never plays never touches the device).
    audio: Option<AudioOut>,
    heard: Heard,
}

impl Default for Playback {
    fn default() -> Self {
        Self {
            audio: None,
            heard: Heard::Nothing,
        }
    }
}

impl Playback {
    /// Playback through `audio` (instead of the default device, opened on first play).
    #[must_use]
    pub fn on(audio: AudioOut) -> Self {
        Self {
            audio: Some(audio),
            heard: Heard::Nothing,
        }
    }

    /// Moves the timeline's playhead for a frame `dt_s` long ending at `now`, starting,
    /// following or stopping the sound as the timeline says.
    pub fn step(&mut self, timeline: &mut Timeline, now: Instant, dt_s: f64) {
        if !timeline.playing {
            self.heard = Heard::Nothing;
            return;
        }
        if let Heard::Sound { at_ms, .. } = &self.heard
            && (timeline.playhead_ms - at_ms).abs() > SEEK_TOLERANCE_MS
        {
            // Seeked while playing: start the sound again from there.
            self.heard = Heard::Nothing;
        }
        if matches!(self.heard, Heard::Nothing) {
            self.heard = self.start(timeline, now);
            return;
        }
        match &mut self.heard {
            Heard::Sound {
                line,
                from_ms,
                at_ms,
            } => {
                if line.is_finished(now) {
                    timeline.seek(*from_ms + line.duration_ms());
                    self.heard = Heard::Silent;
                } else {
                    timeline.seek(*from_ms + line.position_ms(now));
                    *at_ms = timeline.playhead_ms;
                }
            }
            Heard::Silent | Heard::Nothing => {}
        }
        if matches!(self.heard, Heard::Silent) {
            timeline.advance(dt_s);
        }
    }

    /// Starts the sound at the playhead, when there is sound to play and somewhere to play it.
    fn start(&mut self, timeline: &Timeline, now: Instant) -> Heard {
        let Some((samples, rate)) = timeline.audio() else {
            return Heard::Silent;
        };
        let audio = self.audio.get_or_insert_with(AudioOut::open);
        if !audio.has_sound() || *rate == 0 {
            return Heard::Silent;
        }
        let from_ms = timeline.playhead_ms;
        let first = ((from_ms / 1000.0) * f64::from(*rate)) as usize;
        let Some(rest) = samples.get(first..).filter(|r| !r.is_empty()) else {
            return Heard::Silent;
        };
        let line = audio.play_samples(rest.to_vec(), *rate, 1.0, now);
        Heard::Sound {
            line,
            from_ms,
            at_ms: from_ms,
        }
    }

    /// Whether the line is being heard through the sound device.
    #[must_use]
    pub fn is_heard(&self) -> bool {
        matches!(self.heard, Heard::Sound { .. })
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use npc_core::LineCue;
    use npc_core::anim::lipsync::{VisemeEvent, VisemeTrack};
    use npc_core::project::Project;
    use npc_core::speech::LineSource;
    use npc_core::viseme::VisemeId;
    use rodio::mixer::{MixerSource, mixer};
    use rodio::{ChannelCount, SampleRate};

    use super::*;

    const RATE: u32 = 8_000;

    /// A timeline holding 2 s of audio, and playback into a mixer the test pulls samples
    /// from the way a sound device would (a test fake).
    fn setup() -> (Timeline, Playback, MixerSource) {
        let track = VisemeTrack::from_events(vec![
            VisemeEvent::new(VisemeId::SILENCE, 0.0),
            VisemeEvent::new(VisemeId::new_or_silence(2), 500.0),
            VisemeEvent::new(VisemeId::SILENCE, 1_500.0),
        ])
        .expect("track");
        let samples = vec![0.1; 2 * RATE as usize];
        let source = LineSource {
            cue: LineCue::from_recording(track, &samples, RATE),
            audio: Some((samples, RATE)),
            utterance: None,
            heard: Vec::new(),
        };
        let mut timeline = Timeline::default();
        timeline.set_source(
            "test".to_owned(),
            source,
            &Project::default(),
            &npc_core::anim::OwnShapes::default(),
        );
        let (mixer, pulled) = mixer(
            ChannelCount::MIN,
            SampleRate::new(RATE).expect("non-zero rate"),
        );
        (timeline, Playback::on(AudioOut::into_mixer(mixer)), pulled)
    }

    fn pull(source: &mut MixerSource, ms: u32) {
        for _ in 0..(ms * RATE / 1000) {
            let _ = source.next();
        }
    }

    #[test]
    fn the_playhead_follows_the_sound_not_the_frame_clock() {
        let (mut timeline, mut playback, mut device) = setup();
        let now = Instant::now();
        timeline.seek(500.0);
        timeline.playing = true;
        playback.step(&mut timeline, now, 0.016);
        assert!(playback.is_heard());
        // Frames say 3 s went by; the device took 250 ms of sound.
        pull(&mut device, 250);
        playback.step(&mut timeline, now + Duration::from_secs(3), 3.0);
        let t = timeline.playhead_ms;
        assert!((745.0..=800.0).contains(&t), "playhead {t} ms");
    }

    #[test]
    fn seeking_while_playing_restarts_the_sound_there_and_pausing_stops_it() {
        let (mut timeline, mut playback, mut device) = setup();
        let now = Instant::now();
        timeline.playing = true;
        playback.step(&mut timeline, now, 0.016);
        pull(&mut device, 100);
        playback.step(&mut timeline, now, 0.016);
        timeline.seek(1_200.0);
        playback.step(&mut timeline, now, 0.016);
        pull(&mut device, 100);
        playback.step(&mut timeline, now, 0.016);
        let t = timeline.playhead_ms;
        assert!((1_295.0..=1_340.0).contains(&t), "playhead {t} ms");
        timeline.playing = false;
        playback.step(&mut timeline, now, 0.016);
        assert!(!playback.is_heard());
        pull(&mut device, 50);
        assert_eq!(device.next().unwrap_or(0.0), 0.0, "sound after pause");
    }
}
