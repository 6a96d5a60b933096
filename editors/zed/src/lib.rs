//! Zed extension: launches `agent-doc-lsp` for Markdown: the absolute path in
//! `lsp.agent-doc-lsp.binary.path` of Zed's settings when set, else the
//! program found on the worktree's PATH.
//!
//! Zed applies the server's workspace edits to open buffers, so the agent's
//! answers land live. Zed has no API for extension keybindings or arbitrary
//! `workspace/executeCommand` calls; see docs/editors/zed.md for tasks that
//! run `agent-doc route/claim/sync` instead.

use zed_extension_api::{self as zed, settings::LspSettings, LanguageServerId, Result};

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
        let binary = LspSettings::for_worktree(SERVER_ID, worktree)
            .ok()
            .and_then(|settings| settings.binary);
        let args = binary
            .as_ref()
            .and_then(|b| b.arguments.clone())
            .unwrap_or_default();
        let configured = binary.and_then(|b| b.path);
        let command = match configured {
            Some(path) => path,
            None => worktree.which(SERVER_ID).ok_or_else(|| {
                "agent-doc-lsp not found on PATH (pip install agent-doc-lsp), or set \
                 lsp.agent-doc-lsp.binary.path to its absolute path"
                    .to_string()
            })?,
        };
        Ok(zed::Command {
            command,
            args,
            env: worktree.shell_env(),
        })
    }
}

zed::register_extension!(AgentDocExtension);
