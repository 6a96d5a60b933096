-- A streamed ACP answer as ONE undo step (`agentDoc/answerLanded`).
--
-- The server streams an answer as many `workspace/applyEdit`s labelled
-- `agent-doc stream <id>`; each is its own undo step (apply.lua breaks the
-- undo sequence around it). When the whole answer is in the buffer the server
-- sends `agentDoc/answerLanded {uri, version, stream, withoutAnswer}`. If the
-- buffer is still at `version`, the history is rebuilt:
--   1. back to the undo state before the first streamed edit (`:undo <seq>`);
--   2. the text without the answer (what the person typed meanwhile): one step;
--   3. the final text again (the answer and the `resume` line): one step;
--   4. every window's cursor back where it was (the text is identical).
-- One `u` then removes exactly the answer, a second one the typing done while
-- it streamed. Works in Insert mode too (the person keeps typing afterwards).
local M = {}

local api = vim.api

--- Label prefix of the server's streamed edits.
M.LABEL = "agent-doc stream "

local starts = {} -- buf -> { stream = id, seq = undo seq before the stream }

--- Close the current undo block of `buf` (like i_CTRL-G_u, in any mode).
local function break_undo(buf)
  api.nvim_buf_call(buf, function()
    vim.cmd("let &undolevels = &undolevels")
  end)
end

--- The stream id in an applyEdit label, or nil.
--- @param label string|nil
--- @return string|nil
function M.stream_of(label)
  if type(label) == "string" and label:sub(1, #M.LABEL) == M.LABEL then
    return label:sub(#M.LABEL + 1)
  end
  return nil
end

--- Before a streamed edit of `stream` is applied to `buf` (undo just broken):
--- remember the undo state of the first one.
--- @param buf integer
--- @param stream string
function M.before_streamed_edit(buf, stream)
  local start = starts[buf]
  if start and start.stream == stream then
    return
  end
  local seq = api.nvim_buf_call(buf, function()
    return vim.fn.undotree().seq_cur
  end)
  starts[buf] = { stream = stream, seq = seq }
end

--- `lines` with the LSP `edits` applied (positions in `encoding`).
local function edited(lines, edits, encoding)
  local scratch = api.nvim_create_buf(false, true)
  local ignore = vim.o.eventignore
  vim.o.eventignore = "all" -- apply_text_edits lists the buffer: no BufAdd
  local ok, err = pcall(function()
    api.nvim_buf_set_lines(scratch, 0, -1, false, lines)
    vim.lsp.util.apply_text_edits(edits, scratch, encoding)
  end)
  vim.o.eventignore = ignore
  local result = ok and api.nvim_buf_get_lines(scratch, 0, -1, false) or nil
  pcall(api.nvim_buf_delete, scratch, { force = true })
  return result, err
end

local diff = (vim.text and vim.text.diff) or vim.diff

--- Replace the lines of `buf` by `lines`, changing only the lines that differ
--- (a line diff: each hunk its own small change). Returns whether anything changed.
local function set_lines(buf, lines)
  local old = api.nvim_buf_get_lines(buf, 0, -1, false)
  local hunks = diff(table.concat(old, "\n") .. "\n", table.concat(lines, "\n") .. "\n", { result_type = "indices" })
  for i = #hunks, 1, -1 do -- last first: earlier line numbers stay valid
    local h = hunks[i]
    local old_start, old_count, new_start, new_count = h[1], h[2], h[3], h[4]
    local first = old_count == 0 and old_start or old_start - 1
    local new = new_count == 0 and {} or vim.list_slice(lines, new_start, new_start + new_count - 1)
    api.nvim_buf_set_lines(buf, first, first + old_count, false, new)
  end
  return #hunks > 0
end

--- The cursors of the windows showing `buf`, and a function restoring them.
local function keep_cursors(buf)
  local cursors = {}
  for _, win in ipairs(api.nvim_list_wins()) do
    if api.nvim_win_get_buf(win) == buf then
      cursors[win] = api.nvim_win_get_cursor(win)
    end
  end
  return function()
    for win, pos in pairs(cursors) do
      if api.nvim_win_is_valid(win) and api.nvim_win_get_buf(win) == buf then
        pcall(api.nvim_win_set_cursor, win, pos)
      end
    end
  end
end

--- Whether `buf` holds exactly `lines`.
local function holds(buf, lines)
  local now = api.nvim_buf_get_lines(buf, 0, -1, false)
  if #now ~= #lines then
    return false
  end
  for i = 1, #lines do
    if now[i] ~= lines[i] then
      return false
    end
  end
  return true
end

--- Rebuild the history of `buf`: pre-stream state `seq`, then `without`
--- (one step), then `final` (one step). Returns nil or why it was not done;
--- whatever happens, the buffer ends holding `final`.
local function rebuild(buf, seq, without, final)
  local failure
  api.nvim_buf_call(buf, function()
    local ok, err = pcall(vim.cmd, "silent undo " .. seq)
    if ok then
      ok, err = pcall(function()
        set_lines(buf, without)
        break_undo(buf)
        set_lines(buf, final)
        break_undo(buf)
      end)
    end
    if ok and not holds(buf, final) then
      ok, err = false, "the rebuilt text differs from the answer's"
    end
    if not ok then
      failure = tostring(err)
      pcall(set_lines, buf, final) -- the answer stays in any case
    end
  end)
  return failure
end

--- Make the landed answer of `start` one undo step if `buf` is still at
--- `params.version`. Returns nil when done, else why not.
local function group(buf, start, params, encoding)
  -- The person typed since the server looked: the positions no longer fit.
  if vim.lsp.util.buf_versions[buf] ~= params.version then
    return "the buffer changed since the answer landed"
  end
  local final = api.nvim_buf_get_lines(buf, 0, -1, false)
  local without, err = edited(final, params.withoutAnswer or {}, encoding)
  if not without then
    return tostring(err)
  end
  local restore = keep_cursors(buf)
  local failure = rebuild(buf, start.seq, without, final)
  restore()
  return failure
end

--- The `agentDoc/answerLanded` handler: make the landed answer one undo step,
--- then run the `User AgentDocAnswerLanded` autocommand (data: buf, stream,
--- oneUndoStep, reason).
function M.handler(_, params, ctx)
  if type(params) ~= "table" or type(params.uri) ~= "string" then
    return
  end
  local buf, start
  for b, s in pairs(starts) do -- stream ids are unique: no name lookup needed
    if s.stream == params.stream then
      buf, start = b, s
    end
  end
  if not buf or not api.nvim_buf_is_loaded(buf) then
    return
  end
  starts[buf] = nil
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  local ok, reason = pcall(group, buf, start, params, client and client.offset_encoding or "utf-16")
  if not ok then
    reason = tostring(reason)
  end
  api.nvim_exec_autocmds("User", {
    pattern = "AgentDocAnswerLanded",
    modeline = false,
    data = { buf = buf, stream = params.stream, oneUndoStep = reason == nil, reason = reason },
  })
end

return M
