-- Pure layout helpers: editor windows → columns of session documents.
--
-- No Neovim API calls here except in `collect()`, so the grouping rules can be
-- reasoned about (and tested) on plain tables.
local M = {}

--- Group windows into columns.
--- @param wins table[] each `{ row = int, col = int, uri = string|nil }`
---        (uri nil = not a session document)
--- @return string[][] columns left→right, each top→bottom, session URIs only,
---         each URI at most once, empty columns dropped
function M.columns(wins)
  local by_col, keys = {}, {}
  for _, w in ipairs(wins) do
    if not by_col[w.col] then
      by_col[w.col] = {}
      table.insert(keys, w.col)
    end
    table.insert(by_col[w.col], w)
  end
  table.sort(keys)
  local seen, out = {}, {}
  for _, key in ipairs(keys) do
    local list = by_col[key]
    table.sort(list, function(a, b)
      return a.row < b.row
    end)
    local column = {}
    for _, w in ipairs(list) do
      if w.uri and not seen[w.uri] then
        seen[w.uri] = true
        table.insert(column, w.uri)
      end
    end
    if #column > 0 then
      table.insert(out, column)
    end
  end
  return out
end

--- A stable key of a column list (to skip re-sending an unchanged layout).
--- @param columns string[][]
--- @return string
function M.key(columns)
  local parts = {}
  for _, c in ipairs(columns) do
    table.insert(parts, table.concat(c, "\31"))
  end
  return table.concat(parts, "\30")
end

--- Whether the first lines of a buffer carry an `agent_doc_session:` frontmatter key.
--- @param lines string[]
--- @return boolean
function M.is_session_text(lines)
  if lines[1] ~= "---" then
    return false
  end
  for i = 2, #lines do
    local line = lines[i]
    if line == "---" or line == "..." then
      return false
    end
    if line:match("^agent_doc_session:%s*%S") then
      return true
    end
  end
  return false
end

--- Whether buffer `buf` is a markdown session document with a file name.
--- @param buf integer
--- @return boolean
function M.is_session_buffer(buf)
  if not vim.api.nvim_buf_is_loaded(buf) or vim.bo[buf].filetype ~= "markdown" then
    return false
  end
  if vim.api.nvim_buf_get_name(buf) == "" then
    return false
  end
  return M.is_session_text(vim.api.nvim_buf_get_lines(buf, 0, 40, false))
end

--- Whether `win` is a normal editing window: not floating, not a help, diff,
--- preview, quickfix or scratch (`buftype` set) window. Only these count for sync.
--- @param win integer
--- @return boolean
function M.is_normal_window(win)
  if vim.api.nvim_win_get_config(win).relative ~= "" then
    return false
  end
  if vim.wo[win].diff or vim.wo[win].previewwindow then
    return false
  end
  return vim.bo[vim.api.nvim_win_get_buf(win)].buftype == ""
end

--- The current tab page's columns of session documents and the focused URI
--- (normal windows only; see `is_normal_window`).
--- @return string[][] columns, string|nil focus
function M.collect()
  local wins = {}
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if M.is_normal_window(win) then
      local buf = vim.api.nvim_win_get_buf(win)
      local pos = vim.api.nvim_win_get_position(win)
      local uri = nil
      if M.is_session_buffer(buf) then
        uri = vim.uri_from_bufnr(buf)
      end
      table.insert(wins, { row = pos[1], col = pos[2], uri = uri })
    end
  end
  local focus = nil
  local cur = vim.api.nvim_get_current_buf()
  if M.is_normal_window(vim.api.nvim_get_current_win()) and M.is_session_buffer(cur) then
    focus = vim.uri_from_bufnr(cur)
  end
  return M.columns(wins), focus
end

return M
