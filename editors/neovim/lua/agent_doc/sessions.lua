-- Sessions at a glance: every session document of the workspace in a picker.
--
-- :AgentDocSessions asks the server (`agentDoc.sessions`) and shows the result
-- with vim.ui.select (any picker plugin that overrides it is used); choosing a
-- row opens the document. `agentDoc/status` notifications update the rows kept
-- from the last answer, so `M.rows` stays current between requests.
local lsp = require("agent_doc.lsp")

local M = {}

--- Rows of the last `agentDoc.sessions` answer (updated by `agentDoc/status`).
M.rows = {}

local ICONS = {
  starting = "◌",
  running = "●",
  needs_input = "◐",
  stale = "◔",
  exited = "■",
  none = "○",
}

local function present(value)
  return value ~= nil and value ~= vim.NIL and value ~= ""
end

--- One picker line, e.g. `◐ plan.md  needs input in %4 · answered 13:02 · unsent 2`.
--- @param row table a session row
--- @return string
function M.format(row)
  local state = tostring(row.state or "none")
  local text = (ICONS[state] or "●") .. " " .. tostring(row.name)
  text = text .. "  " .. state:gsub("_", " ")
  if present(row.pane) then
    text = text .. " in " .. row.pane
  end
  if present(row.lastAnswer) then
    text = text .. " · answered " .. tostring(row.lastAnswer):sub(12, 16)
  end
  if row.unsent then
    local n = row.unsentChanges
    text = text .. ((n == nil or n == vim.NIL) and " · not sent yet" or (" · unsent " .. tostring(n)))
  end
  return text
end

--- Record one `agentDoc/status` notification in the kept rows.
--- @param params table `{ uri, state, pane, agent, detail, exitCode }`
function M.on_status(params)
  if type(params) ~= "table" then
    return
  end
  for _, row in ipairs(M.rows) do
    if row.uri == params.uri then
      row.state, row.pane, row.detail = params.state, params.pane, params.detail
    end
  end
end

--- Ask the server for the sessions; `callback(rows)` on success.
--- @param callback fun(rows: table[])
--- @return boolean sent
function M.fetch(callback)
  return lsp.execute("agentDoc.sessions", vim.empty_dict(), nil, function(err, result)
    if err or type(result) ~= "table" then
      return
    end
    M.rows = result.sessions or {}
    callback(M.rows)
  end)
end

--- Show the picker; the chosen document is opened.
function M.pick()
  return M.fetch(function(rows)
    vim.schedule(function()
      if #rows == 0 then
        vim.notify("agent-doc: no session documents in the workspace", vim.log.levels.INFO)
        return
      end
      vim.ui.select(rows, {
        prompt = "agent-doc sessions",
        kind = "agent_doc_sessions",
        format_item = M.format,
      }, function(row)
        if row then
          vim.cmd("edit " .. vim.fn.fnameescape(row.path))
        end
      end)
    end)
  end)
end

--- Define :AgentDocSessions.
function M.setup()
  vim.api.nvim_create_user_command("AgentDocSessions", function()
    M.pick()
  end, { desc = "agent-doc: pick a session document (state, pane, unsent changes)" })
end

return M
