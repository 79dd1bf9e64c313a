use std::process::ExitCode;

fn main() -> ExitCode {
    npc_player::main()
}
