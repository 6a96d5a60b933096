-- Shared documents (`sync`, docs/sharing.md): the room's status, the other
-- peers' cursors, and this editor's cursor sent to the room.
--
-- `agentDoc/shareStatus { uri, state, label, writing, presence }` is kept per
-- document (`share_statusline()` shows its label, e.g. "shared · 2 peers ·
-- agent writing"); each other peer with a cursor is drawn as an extmark: the
-- character under its cursor highlighted (`AgentDocPeerCursor`) and its name as
-- virtual text at the end of the line (`AgentDocPeerName`). The person's cursor
-- goes out as `agentDoc/cursor { uri, position }` on CursorMoved/CursorMovedI,
-- at most every `cursor_throttle_ms`, and only for shared documents.
local lsp = require("agent_doc.lsp")

local M = {}

local uv = vim.uv or vim.loop

M.ns = vim.api.nvim_create_namespace("agent_doc_presence")

--- URI → last `agentDoc/shareStatus` params.
M.by_uri = {}

local throttle = { timer = nil, last = nil, waiting = false }

local function present(value)
  return value ~= nil and value ~= vim.NIL
end

--- The loaded buffer of `uri`, or nil (never creates one).
local function loaded_buffer(uri)
  local ok, buf = pcall(vim.uri_to_bufnr, uri)
  if ok and vim.api.nvim_buf_is_loaded(buf) then
    return buf
  end
  return nil
end

--- The byte column of `character` (in `encoding` units) in `line`.
local function byte_col(line, character, encoding)
  local ok, col = pcall(vim.str_byteindex, line, encoding or "utf-16", character, false)
  if ok and type(col) == "number" then
    return math.min(col, #line)
  end
  return math.min(character, #line)
end

--- Draw the other peers' cursors of `uri` (clears the old ones).
--- @param uri string
function M.draw(uri)
  local buf = loaded_buffer(uri)
  if not buf then
    return
  end
  vim.api.nvim_buf_clear_namespace(buf, M.ns, 0, -1)
  local item = M.by_uri[uri]
  if not item or item.state ~= "shared" or type(item.presence) ~= "table" then
    return
  end
  local client = lsp.client(buf)
  local encoding = client and client.offset_encoding or "utf-16"
  local count = vim.api.nvim_buf_line_count(buf)
  for _, peer in ipairs(item.presence) do
    local cursor = peer.cursor
    if present(cursor) and type(cursor.line) == "number" then
      local row = math.min(cursor.line, count - 1)
      local line = vim.api.nvim_buf_get_lines(buf, row, row + 1, false)[1] or ""
      local col = byte_col(line, cursor.character or 0, encoding)
      local name = tostring(peer.name or "peer")
      local mark = {
        virt_text = { { " " .. name, "AgentDocPeerName" } },
        virt_text_pos = "eol",
        hl_mode = "combine",
        priority = 200,
      }
      if col < #line then
        mark.end_col = col + 1
        mark.hl_group = "AgentDocPeerCursor"
      end
      pcall(vim.api.nvim_buf_set_extmark, buf, M.ns, row, col, mark)
    end
  end
end

--- The `agentDoc/shareStatus` handler.
function M.handler(_, params)
  if type(params) ~= "table" or type(params.uri) ~= "string" then
    return
  end
  M.by_uri[params.uri] = params
  vim.schedule(function()
    M.draw(params.uri)
    vim.cmd("redrawstatus")
  end)
end

--- Statusline component: the room status of the current document (or "").
--- @return string
function M.statusline(buf)
  local uri = vim.uri_from_bufnr(buf or vim.api.nvim_get_current_buf())
  local item = M.by_uri[uri]
  return item and tostring(item.label or item.state or "") or ""
end

--- Send the cursor of the current window (if its document is shared).
function M.send_cursor()
  local buf = vim.api.nvim_get_current_buf()
  local uri = vim.uri_from_bufnr(buf)
  if not M.by_uri[uri] then
    return
  end
  local client = lsp.ready_client(buf)
  if not client then
    return
  end
  local params = vim.lsp.util.make_position_params(0, client.offset_encoding or "utf-16")
  local key = uri .. ":" .. params.position.line .. ":" .. params.position.character
  if key == throttle.last then
    return
  end
  throttle.last = key
  client:notify("agentDoc/cursor", { uri = uri, position = params.position })
end

--- CursorMoved: send now, then at most once per `ms` (the last position wins).
local function cursor_moved(ms)
  if throttle.waiting then
    return
  end
  M.send_cursor()
  throttle.waiting = true
  throttle.timer = throttle.timer or uv.new_timer()
  throttle.timer:start(ms, 0, vim.schedule_wrap(function()
    throttle.waiting = false
    M.send_cursor()
  end))
end

--- Define the highlights and the cursor autocommands.
--- @param opts table the plugin options (`cursor_throttle_ms`)
function M.setup(opts)
  vim.api.nvim_set_hl(0, "AgentDocPeerCursor", { default = true, link = "Cursor" })
  vim.api.nvim_set_hl(0, "AgentDocPeerName", { default = true, link = "Comment" })
  local group = vim.api.nvim_create_augroup("agent_doc_presence", { clear = true })
  local ms = tonumber(opts.cursor_throttle_ms) or 100
  vim.api.nvim_create_autocmd({ "CursorMoved", "CursorMovedI" }, {
    group = group,
    callback = function()
      cursor_moved(ms)
    end,
  })
  vim.api.nvim_create_autocmd("BufWinEnter", {
    group = group,
    callback = function(ev)
      M.draw(vim.uri_from_bufnr(ev.buf))
    end,
  })
end

return M
