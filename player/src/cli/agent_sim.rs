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
    /// Answer the person instead: each utterance in heard.jsonl addressed to an NPC gets the
    /// script's next reply (its "answers"), spoken by that NPC.
    #[arg(long)]
    pub(super) answer: bool,
    /// With --answer: stop after this many seconds (default: run until killed).
    #[arg(long, value_name = "SECONDS")]
    pub(super) duration: Option<f64>,
}

pub(super) fn run(args: &AgentSimArgs) -> anyhow::Result<()> {
    if args.answer {
        if !args.agent_dir.is_dir() {
            anyhow::bail!(
                "the agent directory {} does not exist",
                args.agent_dir.display()
            );
        }
        let script = crate::agent_sim::load_script(args.script.as_deref())?;
        let answered = crate::agent_sim::answer(
            &args.agent_dir,
            &script,
            &crate::agent_sim::deadline(args.duration),
            crate::agent_sim::Naming::Answerer,
        )?;
        println!("answered {answered} utterance(s)");
        return Ok(());
    }
    crate::agent_sim::run(&args.agent_dir, args.script.as_deref(), args.speed)
}
