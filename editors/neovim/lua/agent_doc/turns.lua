-- Per-turn actions and the server's code lenses.
--
-- The server puts "Diff this turn" / "Revert this turn" lenses above each agent
-- answer and a Submit lens counting the unsent changes; this module keeps
-- Neovim's code lenses refreshed on session documents (run one with
-- vim.lsp.codelens.run()) and defines :AgentDocTurnDiff / :AgentDocRevertTurn
-- for the answer under the cursor. The diff opens via window/showDocument.
local lsp = require("agent_doc.lsp")

local M = {}

local function cursor_args()
  local buf = vim.api.nvim_get_current_buf()
  return buf, { uri = vim.uri_from_bufnr(buf), line = vim.api.nvim_win_get_cursor(0)[1] - 1 }
end

--- Open the git diff of the turn that wrote the answer under the cursor.
function M.diff()
  local buf, args = cursor_args()
  return lsp.execute("agentDoc.turnDiff", args, buf)
end

--- Remove the answer under the cursor from the buffer (and the snapshot).
function M.revert()
  local buf, args = cursor_args()
  return lsp.execute("agentDoc.revertTurn", args, buf)
end

--- Refresh the code lenses of `buf` when the agent-doc client is attached.
--- @param buf integer
function M.refresh(buf)
  if lsp.client(buf) and vim.lsp.codelens and vim.lsp.codelens.refresh then
    pcall(vim.lsp.codelens.refresh, { bufnr = buf })
  end
end

--- Define the commands and (unless `opts.codelens == false`) the lens refresh.
--- @param opts table plugin options
function M.setup(opts)
  local cmd = vim.api.nvim_create_user_command
  cmd("AgentDocTurnDiff", M.diff, { desc = "agent-doc: git diff of the turn under the cursor" })
  cmd("AgentDocRevertTurn", M.revert, { desc = "agent-doc: remove the answer under the cursor" })
  local group = vim.api.nvim_create_augroup("agent_doc_codelens", { clear = true })
  if opts.codelens == false then
    return
  end
  vim.api.nvim_create_autocmd({ "LspAttach", "BufEnter", "InsertLeave", "CursorHold" }, {
    group = group,
    callback = function(ev)
      if vim.tbl_contains(opts.filetypes or { "markdown" }, vim.bo[ev.buf].filetype) then
        M.refresh(ev.buf)
      end
    end,
  })
end

return M
