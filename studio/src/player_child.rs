//! The player the studio started ("Run in player"): waited on, its stderr kept, so that a run
//! that fails says why in the studio instead of vanishing.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};

/// Lines of the player's stderr kept (the last ones).
const KEPT_LINES: usize = 20;

/// A running player.
#[derive(Debug)]
pub struct PlayerChild {
    child: Child,
    stderr: Arc<Mutex<Vec<String>>>,
}

impl PlayerChild {
    /// Starts `program run --project PROJECT [--agent-sim]`.
    ///
    /// # Errors
    /// It could not be started: the reason, in words.
    pub fn start(program: &Path, project: &Path, simulator: bool) -> Result<Self, String> {
        let mut command = Command::new(program);
        command.arg("run").arg("--project").arg(project);
        if simulator {
            command.arg("--agent-sim");
        }
        let mut child = command
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", program.display()))?;
        let stderr = Arc::new(Mutex::new(Vec::new()));
        if let Some(pipe) = child.stderr.take() {
            let kept = Arc::clone(&stderr);
            std::thread::spawn(move || {
                for line in BufReader::new(pipe).lines().map_while(Result::ok) {
                    if let Ok(mut kept) = kept.lock() {
                        if kept.len() == KEPT_LINES {
                            kept.remove(0);
                        }
                        kept.push(line);
                    }
                }
            });
        }
        Ok(Self { child, stderr })
    }

    /// None while it runs; once it has ended, Ok, or what it said last when it failed.
    pub fn ended(&mut self) -> Option<Result<(), String>> {
        let status = self.child.try_wait().ok()??;
        if status.success() {
            return Some(Ok(()));
        }
        // Let the reader take the last lines.
        std::thread::sleep(std::time::Duration::from_millis(50));
        let said = self
            .stderr
            .lock()
            .ok()
            .and_then(|kept| kept.iter().rev().find(|l| !l.trim().is_empty()).cloned())
            .unwrap_or_else(|| "it said nothing".to_owned());
        Some(Err(format!("the player stopped ({status}): {said}")))
    }
}
