-- Agent state per document, fed by `agentDoc/status` notifications.
local M = {}

--- URI → last status table (`{ state = string, ... }`).
M.by_uri = {}

local LABELS = {
  starting = "starting",
  running = "running",
  needs_input = "needs input",
  stale = "stale",
  exited = "exited",
  idle = "idle",
  none = "no agent",
}

--- Record one `agentDoc/status` notification.
--- Accepts `{ uri, state, pane?, exitCode?, message? }` or `{ documents = { ... } }`.
--- @param params table
function M.update(params)
  if type(params) ~= "table" then
    return
  end
  local items = params.documents or { params }
  for _, item in ipairs(items) do
    if type(item) == "table" and type(item.uri) == "string" then
      if item.state == nil or item.state == vim.NIL then
        M.by_uri[item.uri] = nil
      else
        M.by_uri[item.uri] = item
      end
    end
  end
end

--- Format a status table as short text (`agent: running`).
--- @param item table|nil
--- @return string
function M.format(item)
  if not item then
    return ""
  end
  local state = tostring(item.state)
  local text = "agent: " .. (LABELS[state] or state:gsub("_", " "))
  local code = item.exitCode or item.exit_code
  if state == "exited" and code ~= nil and code ~= vim.NIL then
    text = text .. " (" .. tostring(code) .. ")"
  end
  return text
end

return M
