-- Starting agent-doc-lsp and sending it workspace/executeCommand requests.
local M = {}

M.NAME = "agent_doc"

local function has_011()
  return vim.fn.has("nvim-0.11") == 1
end

--- Root of a buffer: nearest `.agent-doc`, else `.git`, else its folder.
--- @param buf integer
--- @return string
function M.root(buf)
  local name = vim.api.nvim_buf_get_name(buf)
  return vim.fs.root(buf, ".agent-doc")
    or vim.fs.root(buf, ".git")
    or (name ~= "" and vim.fs.dirname(name))
    or vim.fn.getcwd()
end

--- Automatic restarts of a crashed server allowed within `M.RESTART_WINDOW_MS`.
M.MAX_RESTARTS = 3
--- The window of `M.MAX_RESTARTS`, in milliseconds. allowed within `M.RESTART_WINDOW_MS` after a crash.
M.RESTART_WINDOW_MS = 60000

local restarts = {} -- uv.now() of each automatic restart
local attached = {} -- buffers the agent-doc client was attached to

--- Whether another automatic restart is allowed now (bounded retries).
local function may_restart()
  local now = (vim.uv or vim.loop).now()
  local recent = {}
  for _, t in ipairs(restarts) do
    if now - t < M.RESTART_WINDOW_MS then
      recent[#recent + 1] = t
    end
  end
  restarts = recent
  if #restarts >= M.MAX_RESTARTS then
    return false
  end
  restarts[#restarts + 1] = now
  return true
end

--- The client config table shared by both start paths.
--- @param opts table plugin options
--- @param handlers table<string, function>
--- @return table
function M.client_config(opts, handlers)
  -- An empty Lua table encodes as a JSON array; the server expects objects.
  local function object(t)
    if t == nil or vim.tbl_isempty(t) then
      return vim.empty_dict()
    end
    return t
  end
  return {
    name = M.NAME,
    cmd = opts.cmd,
    filetypes = opts.filetypes,
    init_options = object(opts.init_options),
    settings = { agentDoc = object(opts.settings) },
    handlers = handlers,
    on_exit = function(code, signal)
      M.on_exit(code, signal, opts, handlers)
    end,
  }
end

--- Start the client for `buf` directly (re-opens the buffer: didOpen sends
--- its current, possibly unsaved, text).
local function start_for(buf, opts, handlers)
  local cfg = M.client_config(opts, handlers)
  cfg.root_dir = M.root(buf)
  return vim.lsp.start(cfg, { bufnr = buf })
end

--- A crashed server (non-zero exit or a signal) is restarted, at most
--- `M.MAX_RESTARTS` times a minute, and the buffers it had are re-opened.
function M.on_exit(code, signal, opts, handlers)
  if (code == 0 and signal == 0) or vim.v.exiting ~= vim.NIL then
    return
  end
  local bufs = vim.tbl_keys(attached)
  attached = {}
  vim.schedule(function()
    if not may_restart() then
      vim.notify("agent-doc: the language server keeps crashing; not restarting it", vim.log.levels.ERROR)
      return
    end
    vim.notify("agent-doc: the language server stopped; restarting it", vim.log.levels.WARN)
    for _, buf in ipairs(bufs) do
      if vim.api.nvim_buf_is_loaded(buf) then
        start_for(buf, opts, handlers)
      end
    end
  end)
end

--- Remember which buffers the agent-doc client serves (for restarts).
local function track_attached()
  local group = vim.api.nvim_create_augroup("agent_doc_attached", { clear = true })
  vim.api.nvim_create_autocmd("LspAttach", {
    group = group,
    callback = function(ev)
      local client = vim.lsp.get_client_by_id(ev.data.client_id)
      if client and client.name == M.NAME then
        attached[ev.buf] = true
      end
    end,
  })
end

--- Register and enable the server (`vim.lsp.config` on 0.11+, else `vim.lsp.start`).
--- @param opts table
--- @param handlers table<string, function>
function M.enable(opts, handlers)
  track_attached()
  local cfg = M.client_config(opts, handlers)
  if has_011() and vim.lsp.config and vim.lsp.enable then
    cfg.root_dir = function(buf, on_dir)
      on_dir(M.root(buf))
    end
    vim.lsp.config(M.NAME, cfg)
    vim.lsp.enable(M.NAME)
    return
  end
  local group = vim.api.nvim_create_augroup("agent_doc_lsp_start", { clear = true })
  vim.api.nvim_create_autocmd("FileType", {
    group = group,
    pattern = opts.filetypes,
    callback = function(ev)
      start_for(ev.buf, opts, handlers)
    end,
  })
  -- Buffers already open when setup() ran.
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.tbl_contains(opts.filetypes, vim.bo[buf].filetype) then
      start_for(buf, opts, handlers)
    end
  end
end

--- The agent-doc client attached to `buf` (or any agent-doc client).
--- @param buf integer|nil
--- @return table|nil
function M.client(buf)
  local get = vim.lsp.get_clients or vim.lsp.get_active_clients
  local clients = get({ name = M.NAME, bufnr = buf })
  if #clients == 0 and buf then
    clients = get({ name = M.NAME })
  end
  return clients[1]
end

--- The agent-doc client of `buf` once it has finished initializing, else nil.
--- Automatic requests use this so that nothing is reported while the server starts.
--- @param buf integer|nil
--- @return table|nil
function M.ready_client(buf)
  local client = M.client(buf)
  if client and client.initialized then
    return client
  end
  return nil
end

--- Why no request can be sent yet: starting, or no server at all.
--- @param buf integer|nil
--- @return string
function M.not_ready_message(buf)
  if M.client(buf) then
    return "agent-doc: language server is starting; try again in a moment"
  end
  return "agent-doc: language server is not running (is agent-doc-lsp on the PATH Neovim sees? see :checkhealth vim.lsp)"
end

--- Send `workspace/executeCommand` with one object argument.
--- @param command string e.g. "agentDoc.route"
--- @param args table the single argument (has `uri`)
--- @param buf integer|nil
--- @param callback fun(err: table|nil, result: any)|nil
--- @return boolean sent
function M.execute(command, args, buf, callback)
  local client = M.ready_client(buf)
  if not client then
    vim.notify(M.not_ready_message(buf), vim.log.levels.WARN)
    return false
  end
  local params = { command = command, arguments = { args } }
  local handler = function(err, result)
    if err then
      vim.notify(("agent-doc: %s failed: %s"):format(command, err.message or vim.inspect(err)), vim.log.levels.ERROR)
    end
    if callback then
      callback(err, result)
    end
  end
  local ok
  if has_011() then
    ok = client:request("workspace/executeCommand", params, handler, buf)
  else
    ok = client.request("workspace/executeCommand", params, handler, buf)
  end
  return ok ~= false
end

return M
