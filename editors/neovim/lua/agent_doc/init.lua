-- agent-doc for Neovim: a thin client of `agent-doc-lsp`.
--
-- require("agent_doc").setup({ ... }) starts the language server for markdown,
-- defines :AgentDocSubmit/Claim/Sync/Commit/Diff, default keymaps, automatic
-- tmux layout sync and a statusline component. See :help agent_doc.
local lsp = require("agent_doc.lsp")
local layout = require("agent_doc.layout")
local status = require("agent_doc.status")
local apply = require("agent_doc.apply")
local sessions = require("agent_doc.sessions")
local turns = require("agent_doc.turns")
local answer_undo = require("agent_doc.answer_undo")
local presence = require("agent_doc.presence")
local share_undo = require("agent_doc.share_undo")

local M = {}

local uv = vim.uv or vim.loop

M.defaults = {
  cmd = { "agent-doc-lsp" },
  filetypes = { "markdown" },
  init_options = {},
  settings = {},
  keymaps = {
    submit = "<leader>aa", -- reference: Ctrl+Shift+Alt+A
    claim = "<leader>ac", -- reference: Ctrl+Shift+Alt+C
    sync = "<leader>al", -- reference: Ctrl+Shift+Alt+L
    commit = "<leader>am",
  },
  auto_sync = true,
  codelens = true, -- keep the server's lenses (Submit count, per-turn Diff/Revert) shown
  sync_debounce_ms = 500,
  window = nil, -- tmux window passed to agentDoc.sync / claim (nil: server decides)
  cursor_throttle_ms = 100, -- shared documents: the cursor goes out at most this often
  own_undo = true, -- shared documents: `u` / `<C-r>` undo and redo your own changes only
}

M.options = vim.deepcopy(M.defaults)

local sync_state = { timer = nil, inflight = false, pending = false, last_key = nil, focus = nil,
  waiting_for_server = false }

--- `args` plus `clientPane`: the tmux pane Neovim runs in. The server never
--- binds, stashes or moves that pane (a claim beside it splits a new one).
local function with_client_pane(args)
  local pane = vim.env.TMUX_PANE
  if pane and pane ~= "" then
    args.clientPane = pane
  end
  return args
end

--- The session document to focus: the current one when it is in a normal
--- window, else the last such one (help, diff and scratch windows never count).
local function sync_focus(columns, focus)
  if focus then
    sync_state.focus = focus
  end
  for _, col in ipairs(columns) do
    for _, uri in ipairs(col) do
      if uri == sync_state.focus then
        return uri
      end
    end
  end
  return nil
end

local function current_uri(buf)
  buf = buf or vim.api.nvim_get_current_buf()
  return vim.uri_from_bufnr(buf)
end

local function report(command)
  return function(err, result)
    if err or result == nil or result == vim.NIL then
      return
    end
    if type(result) == "table" and type(result.message) == "string" then
      vim.notify("agent-doc: " .. result.message, vim.log.levels.INFO)
    elseif type(result) == "string" and result ~= "" then
      vim.notify("agent-doc " .. command .. ": " .. result, vim.log.levels.INFO)
    end
  end
end

--- Send the current document to its agent (`agentDoc.route`).
function M.submit()
  local buf = vim.api.nvim_get_current_buf()
  return lsp.execute("agentDoc.route", { uri = current_uri(buf) }, buf, report("route"))
end

--- Bind the current document to a tmux pane (`agentDoc.claim`).
--- @param target string|nil "left"/"right"/"top"/"bottom" or a pane id "%N"
--- @param force boolean|nil take a pane bound to another document
function M.claim(target, force)
  local buf = vim.api.nvim_get_current_buf()
  local args = { uri = current_uri(buf) }
  if target and target ~= "" then
    if target:sub(1, 1) == "%" then
      args.pane = target
    else
      args.position = target
    end
  end
  if M.options.window then
    args.window = M.options.window
  end
  if force then
    args.force = true
  end
  return lsp.execute("agentDoc.claim", with_client_pane(args), buf, report("claim"))
end

--- Commit the current document (`agentDoc.commit`).
function M.commit()
  local buf = vim.api.nvim_get_current_buf()
  return lsp.execute("agentDoc.commit", { uri = current_uri(buf) }, buf, report("commit"))
end

--- Ask the document's ACP agent (`agentDoc.runAgent`): the answer streams into the buffer.
function M.ask()
  local buf = vim.api.nvim_get_current_buf()
  return lsp.execute("agentDoc.runAgent", { uri = current_uri(buf) }, buf, function(err, result)
    if err or type(result) ~= "table" then
      return
    end
    local what = result.noChanges and "no changes since the last answer"
      or (result.interrupted and "answer interrupted" or "answered")
    vim.notify("agent-doc: " .. (result.agent or "agent") .. ": " .. what, vim.log.levels.INFO)
  end)
end

--- Stop the ACP agent answering the document (`agentDoc.stopAgent`).
function M.stop()
  local buf = vim.api.nvim_get_current_buf()
  return lsp.execute("agentDoc.stopAgent", { uri = current_uri(buf) }, buf, report("stop"))
end

--- Show the document's diff since the last snapshot in a scratch split (`agentDoc.diff`).
function M.diff()
  local buf = vim.api.nvim_get_current_buf()
  return lsp.execute("agentDoc.diff", { uri = current_uri(buf) }, buf, function(err, result)
    if err then
      return
    end
    local text = type(result) == "table" and result.diff or result
    if type(text) ~= "string" or text == "" then
      vim.notify("agent-doc: no changes since the last snapshot", vim.log.levels.INFO)
      return
    end
    vim.cmd("botright new")
    local scratch = vim.api.nvim_get_current_buf()
    vim.bo[scratch].buftype = "nofile"
    vim.bo[scratch].bufhidden = "wipe"
    vim.api.nvim_buf_set_lines(scratch, 0, -1, false, vim.split(text, "\n", { plain = true }))
    vim.bo[scratch].filetype = "diff"
  end)
end

local function send_sync(force)
  local columns, focus = layout.collect()
  if #columns == 0 then
    return false
  end
  if not force and not lsp.ready_client() then
    sync_state.waiting_for_server = true -- retried on LspAttach, silently
    return false
  end
  focus = sync_focus(columns, focus)
  local key = layout.key(columns) .. "\29" .. (focus or "")
  if not force and key == sync_state.last_key then
    return false
  end
  local args = { uri = focus or columns[1][1], columns = columns, focus = focus or columns[1][1] }
  if M.options.window then
    args.window = M.options.window
  end
  with_client_pane(args)
  sync_state.inflight = true
  local sent = lsp.execute("agentDoc.sync", args, nil, function(err)
    sync_state.inflight = false
    if not err then
      sync_state.last_key = key
    end
    if sync_state.pending then
      sync_state.pending = false
      M.schedule_sync()
    end
  end)
  if not sent then
    sync_state.inflight = false
  end
  return sent
end

--- Mirror the tab page's columns of session documents in tmux (`agentDoc.sync`) now.
function M.sync()
  if sync_state.inflight then
    sync_state.pending = true
    return true
  end
  return send_sync(true)
end

--- Debounced automatic sync (one request in flight; unchanged layouts are skipped).
function M.schedule_sync()
  if not sync_state.timer then
    sync_state.timer = uv.new_timer()
  end
  sync_state.timer:stop()
  sync_state.timer:start(M.options.sync_debounce_ms, 0, vim.schedule_wrap(function()
    if sync_state.inflight then
      sync_state.pending = true
      return
    end
    send_sync(false)
  end))
end

--- Statusline component: the agent state of the current document (or "").
--- @return string
function M.statusline()
  return status.format(status.by_uri[current_uri()])
end

--- Statusline component: the room status of a shared document (or ""), e.g.
--- "shared · 2 peers · agent writing".
--- @return string
function M.share_statusline()
  return presence.statusline()
end

--- Handlers for the server's custom notifications.
M.handlers = {
  ["workspace/applyEdit"] = apply.handler,
  ["agentDoc/shareStatus"] = function(err, params)
    presence.handler(err, params)
    if M.options.own_undo and type(params) == "table" and type(params.uri) == "string" then
      vim.schedule(function()
        share_undo.on_status(params)
      end)
    end
  end,
  ["agentDoc/answerLanded"] = answer_undo.handler,
  ["agentDoc/status"] = function(_, params)
    status.update(params)
    sessions.on_status(params)
    vim.schedule(function()
      vim.cmd("redrawstatus")
    end)
  end,
  ["agentDoc/vcsRefresh"] = function()
    vim.schedule(function()
      vim.cmd("silent! checktime")
      local ok, gitsigns = pcall(require, "gitsigns")
      if ok and type(gitsigns.refresh) == "function" then
        pcall(gitsigns.refresh)
      end
    end)
  end,
}

local function define_commands()
  local cmd = vim.api.nvim_create_user_command
  cmd("AgentDocSubmit", function()
    M.submit()
  end, { desc = "agent-doc: send the document to its agent" })
  cmd("AgentDocClaim", function(o)
    M.claim(o.args, o.bang)
  end, {
    nargs = "?",
    bang = true,
    desc = "agent-doc: bind the document to a tmux pane ([left|right|top|bottom|%N], ! = force)",
    complete = function()
      return { "left", "right", "top", "bottom" }
    end,
  })
  cmd("AgentDocSync", function()
    M.sync()
  end, { desc = "agent-doc: mirror the window columns in tmux" })
  cmd("AgentDocCommit", function()
    M.commit()
  end, { desc = "agent-doc: commit the document" })
  cmd("AgentDocDiff", function()
    M.diff()
  end, { desc = "agent-doc: show the diff since the last snapshot" })
  cmd("AgentDocAsk", function()
    M.ask()
  end, { desc = "agent-doc: ask the document's ACP agent (answer streams in)" })
  cmd("AgentDocStop", function()
    M.stop()
  end, { desc = "agent-doc: stop the ACP agent answering the document" })
end

local function define_keymaps(keys)
  if not keys then
    return
  end
  local map = {
    submit = { M.submit, "agent-doc: submit" },
    claim = { function() M.claim() end, "agent-doc: claim pane" },
    sync = { M.sync, "agent-doc: sync layout" },
    commit = { M.commit, "agent-doc: commit" },
  }
  local group = vim.api.nvim_create_augroup("agent_doc_keymaps", { clear = true })
  vim.api.nvim_create_autocmd("FileType", {
    group = group,
    pattern = M.options.filetypes,
    callback = function(ev)
      for name, lhs in pairs(keys) do
        local entry = map[name]
        if entry and lhs and lhs ~= "" then
          vim.keymap.set("n", lhs, entry[1], { buffer = ev.buf, desc = entry[2] })
        end
      end
    end,
  })
end

-- An automatic sync that found the server still starting runs once it attaches.
local function define_sync_on_attach(group)
  vim.api.nvim_create_autocmd("LspAttach", {
    group = group,
    callback = function(ev)
      local client = vim.lsp.get_client_by_id(ev.data.client_id)
      if client and client.name == lsp.NAME and sync_state.waiting_for_server then
        sync_state.waiting_for_server = false
        M.schedule_sync()
      end
    end,
  })
end

local function define_autosync()
  local group = vim.api.nvim_create_augroup("agent_doc_autosync", { clear = true })
  if not M.options.auto_sync then
    return
  end
  define_sync_on_attach(group)
  vim.api.nvim_create_autocmd({ "WinNew", "WinClosed", "BufWinEnter", "WinResized" }, {
    group = group,
    callback = function()
      -- Help, diff, preview and floating windows never trigger a sync.
      if layout.is_normal_window(vim.api.nvim_get_current_win()) then
        M.schedule_sync()
      end
    end,
  })
end

--- Configure and start the plugin.
--- @param opts table|nil overrides of `M.defaults` (`keymaps = false` disables keymaps)
function M.setup(opts)
  opts = opts or {}
  M.options = vim.tbl_deep_extend("force", vim.deepcopy(M.defaults), opts)
  if opts.keymaps == false then
    M.options.keymaps = false
  end
  define_commands()
  define_keymaps(M.options.keymaps)
  define_autosync()
  sessions.setup()
  turns.setup(M.options)
  presence.setup(M.options)
  lsp.enable(M.options, M.handlers)
end

return M
