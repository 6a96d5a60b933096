-- Shared documents: `u` and `<C-r>` undo and redo the person's own changes only.
--
-- In a shared document Neovim's undo history also holds the text other peers
-- and the agent wrote (it arrived as edits to the buffer): native `u` would
-- remove it. Once `agentDoc/shareStatus` says `ownUndo` for a document, its
-- buffer maps `u` / `<C-r>` (Normal mode, with a count) to `agentDoc.undo` /
-- `agentDoc.redo`: the server undoes the person's last change in the room's
-- document (their text only) and brings the buffer to the result. When the
-- server answers `{shared = false}` (no room, or not synced yet) the keys are
-- unmapped and the native undo runs instead. Disable with `setup({ own_undo = false })`.
local lsp = require("agent_doc.lsp")

local M = {}

--- buffer number → true while its `u` / `<C-r>` are mapped.
M.mapped = {}

local function native(buf, redo, count)
  if not vim.api.nvim_buf_is_valid(buf) or vim.api.nvim_get_current_buf() ~= buf then
    return
  end
  local keys = redo and vim.api.nvim_replace_termcodes("<C-r>", true, false, true) or "u"
  vim.cmd("normal! " .. count .. keys)
end

--- Put the cursor of `buf`'s window where the undone change was (as `u` does).
local function place_cursor(buf, client, position)
  if type(position) ~= "table" or vim.api.nvim_get_current_buf() ~= buf then
    return
  end
  local row = math.min(position.line or 0, vim.api.nvim_buf_line_count(buf) - 1)
  local line = vim.api.nvim_buf_get_lines(buf, row, row + 1, false)[1] or ""
  local encoding = client.offset_encoding or "utf-16"
  local ok, col = pcall(vim.str_byteindex, line, encoding, position.character or 0, false)
  col = ok and type(col) == "number" and math.min(col, #line) or 0
  pcall(vim.api.nvim_win_set_cursor, 0, { row + 1, col })
end

--- Undo (or redo) the person's own last `count` changes in `buf`.
--- @param buf integer
--- @param redo boolean
--- @param count integer
function M.run(buf, redo, count)
  local client = lsp.ready_client(buf)
  if not client then
    return native(buf, redo, count)
  end
  local command = redo and "agentDoc.redo" or "agentDoc.undo"
  local params = { command = command, arguments = { { uri = vim.uri_from_bufnr(buf) } } }
  local function step(left)
    -- with `buf`, Neovim sends the buffer's pending changes first
    client:request("workspace/executeCommand", params, function(err, result)
      vim.schedule(function()
        if err then
          vim.notify(("agent-doc: %s failed: %s"):format(command, err.message or ""), vim.log.levels.ERROR)
        elseif type(result) == "table" and result.shared == false then
          M.map(buf, false) -- not shared (any more): the keys are Neovim's again
          native(buf, redo, left)
        elseif type(result) == "table" and result.done == false then
          vim.api.nvim_echo({ { redo and "Already at newest change (of yours)"
            or "Already at oldest change (of yours)" } }, false, {})
        elseif left > 1 then
          step(left - 1)
        elseif type(result) == "table" then
          place_cursor(buf, client, result.position)
        end
      end)
    end, buf)
  end
  step(count)
end

--- Map (or unmap) `u` / `<C-r>` of `buf` as its document is shared or not.
--- @param buf integer
--- @param on boolean
function M.map(buf, on)
  if on == (M.mapped[buf] == true) or not vim.api.nvim_buf_is_valid(buf) then
    return
  end
  if on then
    vim.keymap.set("n", "u", function()
      M.run(buf, false, vim.v.count1)
    end, { buffer = buf, desc = "agent-doc: undo your own change (shared document)" })
    vim.keymap.set("n", "<C-r>", function()
      M.run(buf, true, vim.v.count1)
    end, { buffer = buf, desc = "agent-doc: redo your own change (shared document)" })
    M.mapped[buf] = true
    vim.api.nvim_create_autocmd("BufUnload", {
      buffer = buf,
      once = true,
      callback = function()
        M.mapped[buf] = nil
      end,
    })
  else
    pcall(vim.keymap.del, "n", "u", { buffer = buf })
    pcall(vim.keymap.del, "n", "<C-r>", { buffer = buf })
    M.mapped[buf] = nil
  end
end

--- On `agentDoc/shareStatus`: map the keys of the document's loaded buffer.
--- @param params table the notification's params
function M.on_status(params)
  local ok, buf = pcall(vim.uri_to_bufnr, params.uri)
  if ok and vim.api.nvim_buf_is_loaded(buf) then
    M.map(buf, params.ownUndo == true)
  end
end

return M
