//! Lines made off the UI thread (spoken from text, aligned to a script, lip-synced from
//! sound) and put on the timeline when they are done.

use npc_core::hearing::ListenBake;
use npc_core::project::Project;
use npc_core::speech::LineSource;

use std::path::PathBuf;

use super::{Studio, ViewSource, file_name};
use crate::timeline::listen_bake;

/// What a line job made: the timeline's label for it and the line, or the person's
/// recording and how the character listened to it.
#[derive(Debug)]
pub(super) struct LineMade {
    label: String,
    line: Made,
}

#[derive(Debug)]
enum Made {
    Line(Result<LineSource, String>),
    Person {
        audio: (Vec<f32>, u32),
        listened: Result<ListenBake, String>,
        /// The project it was baked for: baked again when it was edited meanwhile.
        project: Box<Project>,
        npc: Option<String>,
    },
}

impl Studio {
    /// Speaks the timeline's text in the character's voice, off the UI thread.
    pub(super) fn speak_line(&mut self) {
        let (text, voice) = (self.timeline.text.clone(), self.line_voice());
        self.start_line("speaking the line", move || LineMade {
            label: "text".to_owned(),
            line: Made::Line(
                LineSource::from_text(&text, &voice)
                    .map_err(|e| format!("cannot speak the line: {e:#}")),
            ),
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
                line: Made::Line(
                    LineSource::from_wav_and_script(&path, &script, &voice)
                        .map_err(|e| format!("{e:#}")),
                ),
            });
        } else {
            self.start_line(format!("lip-syncing {}", file_name(&path)), move || {
                LineMade {
                    label: file_name(&path),
                    line: Made::Line(
                        LineSource::from_wav(&path, &voice.language).map_err(|e| format!("{e:#}")),
                    ),
                }
            });
        }
    }

    /// Reads a recording of the person and bakes the character listening to it, off the UI
    /// thread; the timeline shows it when done.
    pub(super) fn listen_to(&mut self, path: PathBuf) {
        let project = Box::new(self.doc.project.clone());
        let npc = self.character().map(|n| n.id.clone());
        self.start_line(format!("listening to {}", file_name(&path)), move || {
            let audio = match npc_core::speech::wav::read_mono(&path) {
                Ok(audio) => audio,
                Err(e) => {
                    return LineMade {
                        label: file_name(&path),
                        line: Made::Line(Err(format!("cannot read {}: {e}", path.display()))),
                    };
                }
            };
            let listened = listen_bake(&audio, &project, npc.as_deref());
            LineMade {
                label: format!("{} (the person, listened to)", file_name(&path)),
                line: Made::Person {
                    audio,
                    listened,
                    project,
                    npc,
                },
            }
        });
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
        if self.body.poll() {
            self.rebake_body();
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
        if self.body.wait() {
            self.rebake_body();
        }
    }

    /// What the studio is working on, for the status bar: the first job running and how long
    /// it has run.
    #[must_use]
    pub fn working(&self) -> Option<(&str, std::time::Duration)> {
        self.jobs().into_iter().next()
    }

    /// Every job running and how long each has run.
    #[must_use]
    pub fn jobs(&self) -> Vec<(&str, std::time::Duration)> {
        [
            self.line_job.running(),
            self.transfer_job.running(),
            self.body.reading(),
        ]
        .into_iter()
        .flatten()
        .collect()
    }

    /// Stops waiting for every job running; says which.
    pub(super) fn cancel_jobs(&mut self) {
        let cancelled: Vec<String> = [self.line_job.cancel(), self.transfer_job.cancel()]
            .into_iter()
            .flatten()
            .collect();
        if !cancelled.is_empty() {
            self.say(format!("cancelled {}", cancelled.join(" and ")));
        }
    }

    pub(super) fn line_made(&mut self, made: Result<LineMade, String>) {
        match made {
            Ok(LineMade {
                label,
                line: Made::Line(line),
            }) => {
                if line.is_ok() {
                    self.status = None;
                }
                self.put_line(label, line);
            }
            Ok(LineMade {
                label,
                line:
                    Made::Person {
                        audio,
                        listened,
                        project,
                        npc,
                    },
            }) => {
                if listened.is_ok() {
                    self.status = None;
                }
                let seed = project.face_seed(npc.as_deref().unwrap_or_default());
                self.timeline
                    .put_person(label, audio, listened, npc.as_deref(), seed);
                let now = self.character().map(|n| n.id.clone());
                if *project != self.doc.project || npc != now {
                    // Edited while it listened: listen again as the project is now.
                    self.rebake();
                } else {
                    self.rebake_body();
                }
                self.view = ViewSource::Timeline;
            }
            Err(e) => self.fail(e),
        }
    }
}
