-- The agent's workspace edits, applied so that a typing person never notices.
--
-- Replaces Neovim's default `workspace/applyEdit` handler for the agent-doc
-- client only:
--   * a stale edit (pinned to a version older than the buffer's) is REJECTED
--     (applied = false) instead of skipped with applied = true, so the server
--     re-plans against the newest text;
--   * the cursor of every window showing the buffer is kept with the person's
--     text through an extmark with left gravity: text inserted exactly at the
--     cursor goes after it;
--   * the undo sequence is broken before and after the edit (Insert and Normal
--     mode), so one `u` removes exactly the agent's write;
--   * no "Workspace edit" message is printed (it would interrupt typing);
--   * before the first streamed edit of an ACP answer (label
--     `agent-doc stream <id>`) the undo state is remembered, so that the whole
--     answer becomes one undo step once it landed (answer_undo.lua).
local M = {}

local answer_undo = require("agent_doc.answer_undo")

local api = vim.api
local ns = api.nvim_create_namespace("agent_doc_apply")

--- Close the current undo block of `buf` (like i_CTRL-G_u, in any mode).
local function break_undo(buf)
  api.nvim_buf_call(buf, function()
    vim.cmd("let &undolevels = &undolevels")
  end)
end

--- Pin the cursor of each window showing `buf`; return the restore function.
local function keep_cursors(buf)
  local pins = {}
  for _, win in ipairs(api.nvim_list_wins()) do
    if api.nvim_win_get_buf(win) == buf then
      local pos = api.nvim_win_get_cursor(win)
      local ok, id = pcall(api.nvim_buf_set_extmark, buf, ns, pos[1] - 1, pos[2], { right_gravity = false })
      if ok then
        pins[#pins + 1] = { win = win, id = id }
      end
    end
  end
  return function()
    for _, pin in ipairs(pins) do
      local mark = api.nvim_buf_get_extmark_by_id(buf, ns, pin.id, {})
      if mark[1] and api.nvim_win_is_valid(pin.win) and api.nvim_win_get_buf(pin.win) == buf then
        pcall(api.nvim_win_set_cursor, pin.win, { mark[1] + 1, mark[2] })
      end
      pcall(api.nvim_buf_del_extmark, buf, ns, pin.id)
    end
  end
end

--- The (buffer, version, edits) triples of a workspace edit, or an error.
local function document_edits(edit)
  local out = {}
  if edit.documentChanges then
    for _, change in ipairs(edit.documentChanges) do
      if change.kind then
        return nil, "agent-doc: unsupported resource operation " .. tostring(change.kind)
      end
      out[#out + 1] = {
        buf = vim.uri_to_bufnr(change.textDocument.uri),
        version = change.textDocument.version,
        edits = change.edits,
      }
    end
  elseif edit.changes then
    for uri, edits in pairs(edit.changes) do
      out[#out + 1] = { buf = vim.uri_to_bufnr(uri), edits = edits }
    end
  end
  return out
end

--- Why an edit pinned to an older version must be refused (nil: it is current).
--- Changes not yet sent are flushed, so the server re-plans on them at once.
local function stale_reason(client, item)
  local version = item.version
  if version == nil or version == vim.NIL then
    return nil
  end
  local current = vim.lsp.util.buf_versions[item.buf]
  if current == version then
    return nil
  end
  local ok, tracking = pcall(require, "vim.lsp._changetracking")
  if ok and type(tracking.flush) == "function" then
    pcall(tracking.flush, client, item.buf)
  end
  return ("buffer is at version %d, the edit is for %d"):format(current, version)
end

--- Apply the edits of one document; return an error message or nil.
--- `stream`: the id of the streamed answer the edit belongs to (or nil).
local function apply_document(client, item, stream)
  local buf = item.buf
  if not api.nvim_buf_is_loaded(buf) then
    vim.fn.bufload(buf)
  end
  local restore = keep_cursors(buf)
  break_undo(buf)
  if stream then
    answer_undo.before_streamed_edit(buf, stream)
  end
  local ok, err = pcall(vim.lsp.util.apply_text_edits, item.edits, buf, client.offset_encoding)
  break_undo(buf)
  restore()
  if not ok then
    return tostring(err)
  end
  return nil
end

--- The `workspace/applyEdit` handler of the agent-doc client.
function M.handler(_, params, ctx)
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  if not client or not params or not params.edit then
    return { applied = false, failureReason = "agent-doc: no client or edit" }
  end
  local items, err = document_edits(params.edit)
  if not items then
    return { applied = false, failureReason = err }
  end
  for _, item in ipairs(items) do -- check every version before touching anything
    local stale = stale_reason(client, item)
    if stale then
      return { applied = false, failureReason = stale }
    end
  end
  local stream = answer_undo.stream_of(params.label)
  for _, item in ipairs(items) do
    local failure = apply_document(client, item, stream)
    if failure then
      return { applied = false, failureReason = failure }
    end
  end
  vim.g.agent_doc_last_apply_ns = vim.uv.hrtime()
  return { applied = true }
end

return M
