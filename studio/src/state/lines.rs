//! Lines made off the UI thread (spoken from text, aligned to a script, lip-synced from
//! sound) and put on the timeline when they are done.

use npc_core::speech::LineSource;

use std::path::PathBuf;

use super::{Studio, ViewSource, file_name};

/// What a line job made: the timeline's label for it and the line.
#[derive(Debug)]
pub(super) struct LineMade {
    label: String,
    line: Result<LineSource, String>,
}

impl Studio {
    /// Speaks the timeline's text in the character's voice, off the UI thread.
    pub(super) fn speak_line(&mut self) {
        let (text, voice) = (self.timeline.text.clone(), self.line_voice());
        self.start_line("speaking the line", move || LineMade {
            label: "text".to_owned(),
            line: LineSource::from_text(&text, &voice)
                .map_err(|e| format!("cannot speak the line: {e:#}")),
        });
    }

    /// Puts a recording on the timeline, off the UI thread: aligned to the timeline's text
    /// when that is asked for and there is text, else lip-synced from its sound alone.
    pub(super) fn open_wav(&mut self, path: PathBuf) {
        let script = self.timeline.text.trim().to_owned();
        let voice = self.line_voice();
        if self.timeline.align_to_text && !script.is_empty() {
            self.start_line(format!("aligning {}", file_name(&path)), move || LineMade {
                label: format!("{} (aligned to its text)", file_name(&path)),
                line: LineSource::from_wav_and_script(&path, &script, &voice)
                    .map_err(|e| format!("{e:#}")),
            });
        } else {
            self.start_line(format!("lip-syncing {}", file_name(&path)), move || {
                LineMade {
                    label: file_name(&path),
                    line: LineSource::from_wav(&path, &voice.language)
                        .map_err(|e| format!("{e:#}")),
                }
            });
        }
    }

    pub(super) fn put_line(&mut self, label: String, line: Result<LineSource, String>) {
        match line {
            Ok(line) => {
                self.timeline
                    .set_source(label, line, &self.doc.project, &self.shapes.shapes);
                self.rebake_body();
                self.view = ViewSource::Timeline;
            }
            Err(e) => self.fail(e),
        }
    }

    /// Starts making a line off the UI thread (in place of one being made).
    pub(super) fn start_line(
        &mut self,
        what: impl Into<String>,
        work: impl FnOnce() -> LineMade + Send + 'static,
    ) {
        let what = what.into();
        match self.line_job.start(what.clone(), work) {
            Ok(()) => self.say(format!("{what}...")),
            Err(e) => self.fail(e),
        }
    }

    /// Applies what the jobs that ended made (call once a frame). Whether any still runs.
    pub fn poll_jobs(&mut self) -> bool {
        if let Some(made) = self.line_job.take() {
            self.line_made(made);
        }
        if let Some(made) = self.transfer_job.take() {
            self.transfer_made(made);
        }
        self.working().is_some()
    }

    /// Waits for the jobs running and applies what they made (the command line, tests).
    pub fn finish_jobs(&mut self) {
        if let Some(made) = self.line_job.wait() {
            self.line_made(made);
        }
        if let Some(made) = self.transfer_job.wait() {
            self.transfer_made(made);
        }
    }

    /// What the studio is working on, for the status bar: the job and how long it has run.
    #[must_use]
    pub fn working(&self) -> Option<(&str, std::time::Duration)> {
        self.line_job
            .running()
            .or_else(|| self.transfer_job.running())
    }

    pub(super) fn line_made(&mut self, made: Result<LineMade, String>) {
        match made {
            Ok(LineMade { label, line }) => {
                if line.is_ok() {
                    self.status = None;
                }
                self.put_line(label, line);
            }
            Err(e) => self.fail(e),
        }
    }
}
