//! `completions`: shell completion scripts, generated from the command line's
//! own definition (clap_complete).

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use clap_complete::Shell;

/// Print a shell completion script for psychic.
#[derive(Args)]
#[command(after_help = "Examples:
  psychic completions bash > ~/.local/share/bash-completion/completions/psychic
  psychic completions zsh > ~/.zfunc/_psychic        # with fpath+=~/.zfunc before compinit
  psychic completions fish > ~/.config/fish/completions/psychic.fish
  source <(psychic completions bash)                 # for this shell only")]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    shell: Shell,
}

pub fn completions(a: CompletionsArgs) -> Result<ExitCode> {
    clap_complete::generate(a.shell, &mut super::command(), "psychic", &mut std::io::stdout());
    Ok(ExitCode::SUCCESS)
}
