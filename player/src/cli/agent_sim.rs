//! `npc-player agent-sim`: the demo's scripted agent.

use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub(super) struct AgentSimArgs {
    /// The agent directory to write to (must exist).
    #[arg(long, value_name = "DIR")]
    pub(super) agent_dir: PathBuf,
    /// The script (JSON); by default the demo's (projects/demo-script.json).
    #[arg(long, value_name = "FILE")]
    pub(super) script: Option<PathBuf>,
    /// Speed factor: the per-line timeout is 30 s / speed.
    #[arg(long, default_value_t = 1.0)]
    pub(super) speed: f64,
}

pub(super) fn run(args: &AgentSimArgs) -> anyhow::Result<()> {
    crate::agent_sim::run(&args.agent_dir, args.script.as_deref(), args.speed)
}
