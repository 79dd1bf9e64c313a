//! `npc-player check`: a project and every asset it references.

use std::path::Path;

use npc_core::project::{Project, ProjectError, check_assets};

/// Prints one line per problem (and per warning); fails when there is a problem.
pub fn run(path: &Path) -> anyhow::Result<()> {
    let project = match Project::load(path) {
        Ok(project) => project,
        Err(ProjectError::Invalid { problems, .. }) => {
            for problem in &problems {
                println!("problem: {problem}");
            }
            anyhow::bail!("{}: {} problem(s) found", path.display(), problems.len());
        }
        Err(other) => return Err(other.into()),
    };
    let report = check_assets(&project, path);
    for warning in &report.warnings {
        println!("warning: {warning}");
    }
    for problem in &report.problems {
        println!("problem: {problem}");
    }
    if report.is_ok() {
        println!("{}: ok ({} NPCs)", path.display(), project.npcs.len());
        Ok(())
    } else {
        anyhow::bail!(
            "{}: {} problem(s) found",
            path.display(),
            report.problems.len()
        )
    }
}
