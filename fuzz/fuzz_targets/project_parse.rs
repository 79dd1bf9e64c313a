//! Fuzzes the project file reader: `Project::parse` must never panic, whatever the text, and a
//! project it accepts must save and load back to itself.

#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use npc_core::project::Project;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let path = Path::new("fuzz.ron");
    if let Ok(project) = Project::parse(text, path) {
        let _ = project.problems();
        let saved = project.to_ron().expect("an accepted project saves");
        let again = Project::parse(&saved, path).expect("a saved project loads");
        assert_eq!(again, project, "save and load changed the project");
    }
});
