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
  }
end

--- Register and enable the server (`vim.lsp.config` on 0.11+, else `vim.lsp.start`).
--- @param opts table
--- @param handlers table<string, function>
function M.enable(opts, handlers)
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
      local start = vim.deepcopy(cfg)
      start.root_dir = M.root(ev.buf)
      vim.lsp.start(start, { bufnr = ev.buf })
    end,
  })
  -- Buffers already open when setup() ran.
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.tbl_contains(opts.filetypes, vim.bo[buf].filetype) then
      local start = vim.deepcopy(cfg)
      start.root_dir = M.root(buf)
      vim.lsp.start(start, { bufnr = buf })
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
