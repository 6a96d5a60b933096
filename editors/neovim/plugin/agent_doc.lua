-- agent-doc: nothing starts until require("agent_doc").setup() is called.
-- Set vim.g.agent_doc_auto_setup = true to run setup() with the defaults.
if vim.g.loaded_agent_doc then
  return
end
vim.g.loaded_agent_doc = true

if vim.g.agent_doc_auto_setup then
  require("agent_doc").setup(type(vim.g.agent_doc_auto_setup) == "table" and vim.g.agent_doc_auto_setup or {})
end
