//! Zed extension: launches `agent-doc-lsp` (found on the worktree's PATH) for Markdown.
//!
//! Zed applies the server's workspace edits to open buffers, so the agent's
//! answers land live. Zed has no API for extension keybindings or arbitrary
//! `workspace/executeCommand` calls; see docs/editors/zed.md for tasks that
//! run `agent-doc route/claim/sync` instead.

use zed_extension_api::{self as zed, LanguageServerId, Result};

/// The server id; must match `[language_servers.agent-doc-lsp]` in extension.toml.
const SERVER_ID: &str = "agent-doc-lsp";

struct AgentDocExtension;

impl zed::Extension for AgentDocExtension {
    fn new() -> Self {
        AgentDocExtension
    }

    fn language_server_command(
        &mut self,
        language_server_id: &LanguageServerId,
        worktree: &zed::Worktree,
    ) -> Result<zed::Command> {
        if language_server_id.as_ref() != SERVER_ID {
            return Err(format!("unknown language server: {}", language_server_id.as_ref()));
        }
        let command = worktree.which(SERVER_ID).ok_or_else(|| {
            "agent-doc-lsp not found on PATH (pip install agent-doc)".to_string()
        })?;
        Ok(zed::Command {
            command,
            args: Vec::new(),
            env: worktree.shell_env(),
        })
    }
}

zed::register_extension!(AgentDocExtension);
