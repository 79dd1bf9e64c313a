//! The sound device, opened and kept on a thread of its own (the device's stream may not
//! move between threads; the mixer that feeds it can).

use std::sync::mpsc;
use std::thread;

use rodio::mixer::Mixer;

/// Keeps the default output device open until dropped.
pub(super) struct DeviceThread {
    description: String,
    stop: Option<mpsc::Sender<()>>,
    thread: Option<thread::JoinHandle<()>>,
}

impl DeviceThread {
    /// Opens the default output device. Returns the thread holding it and the mixer it plays.
    pub(super) fn open() -> Result<(Self, Mixer), String> {
        if let Some(why) = plainly_absent() {
            return Err(why);
        }
        let (opened_tx, opened_rx) = mpsc::channel::<Result<(Mixer, String), String>>();
        let (stop_tx, stop_rx) = mpsc::channel::<()>();
        let thread = thread::Builder::new()
            .name("npc-sound".to_owned())
            .spawn(
                move || match rodio::DeviceSinkBuilder::open_default_sink() {
                    Ok(mut sink) => {
                        sink.log_on_drop(false);
                        let config = sink.config();
                        let description = format!(
                            "{} Hz, {} channel(s)",
                            config.sample_rate(),
                            config.channel_count()
                        );
                        if opened_tx
                            .send(Ok((sink.mixer().clone(), description)))
                            .is_ok()
                        {
                            // Hold the device until the output is dropped.
                            let _ = stop_rx.recv();
                        }
                    }
                    Err(e) => {
                        let _ = opened_tx.send(Err(e.to_string()));
                    }
                },
            )
            .map_err(|e| format!("cannot start the sound thread: {e}"))?;
        match opened_rx.recv() {
            Ok(Ok((mixer, description))) => Ok((
                Self {
                    description,
                    stop: Some(stop_tx),
                    thread: Some(thread),
                },
                mixer,
            )),
            Ok(Err(e)) => {
                let _ = thread.join();
                Err(e)
            }
            Err(_) => {
                let _ = thread.join();
                Err("the sound thread stopped while opening the device".to_owned())
            }
        }
    }

    pub(super) fn describe(&self) -> &str {
        &self.description
    }
}

impl Drop for DeviceThread {
    fn drop(&mut self) {
        self.stop = None;
        if let Some(thread) = self.thread.take()
            && thread.join().is_err()
        {
            tracing::warn!("the sound thread panicked");
        }
    }
}

/// Why there is plainly no sound output on this machine, before asking the sound library
/// (which prints its own errors when it finds nothing): Linux without sound cards and without
/// a sound server to play through.
#[cfg(target_os = "linux")]
pub fn plainly_absent() -> Option<String> {
    // No /proc/asound at all: the kernel has no sound support loaded, so no cards either.
    let cards = std::fs::read_to_string("/proc/asound/cards").unwrap_or_default();
    if !cards.is_empty() && !cards.contains("no soundcards") {
        return None;
    }
    let server = std::env::var_os("PULSE_SERVER").is_some()
        || std::env::var_os("XDG_RUNTIME_DIR").is_some_and(|dir| {
            let dir = std::path::Path::new(&dir);
            dir.join("pulse/native").exists() || dir.join("pipewire-0").exists()
        });
    (!server).then(|| "this machine has no sound card".to_owned())
}

#[cfg(not(target_os = "linux"))]
pub fn plainly_absent() -> Option<String> {
    None
}
