//! `npc-player check`: a project and every asset it references.

use std::path::{Path, PathBuf};

use npc_core::project::{Project, ProjectError, check_assets};

/// The folder of the default content, next to a project that uses it.
const DEFAULT_CONTENT: &str = "assets";

/// When files of the default content are missing (a fresh clone before the demo ran), how to
/// make them.
fn default_content_hint(project: &Project, path: &Path) -> Option<String> {
    let mut named: Vec<&Path> = vec![&project.scene.asset, &project.scene.sky];
    for npc in &project.npcs {
        named.push(&npc.avatar.body);
        named.extend(npc.avatar.head.as_deref());
    }
    let missing = named
        .iter()
        .filter(|p| p.starts_with(DEFAULT_CONTENT))
        .filter(|p| !Project::resolve(path, p).exists())
        .count();
    (missing > 0).then(|| {
        let out: PathBuf = Project::resolve(path, Path::new(DEFAULT_CONTENT));
        format!(
            "{missing} file(s) of the default content are not there yet; make them with: \
             npc-player generate-assets --out {}",
            out.display()
        )
    })
}

#[derive(Debug, clap::Args)]
pub(super) struct CheckArgs {
    /// The project file (RON).
    #[arg(long, value_name = "FILE")]
    project: PathBuf,
}

/// Prints one line per problem (and per warning); fails when there is a problem.
pub(super) fn run(args: &CheckArgs) -> anyhow::Result<()> {
    let path = args.project.as_path();
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
    if let Some(hint) = default_content_hint(&project, path) {
        println!("hint: {hint}");
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
