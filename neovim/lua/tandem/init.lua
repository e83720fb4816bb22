--- tandem for Neovim: starts `tandem lsp` for the workspace with Neovim's own LSP client,
--- opens an agent session on it, calls tools, answers the backend's approval questions and
--- gives `:terminal` jobs the bridge environment. Talks to tandem only through the protocol
--- documented in docs/protocol.md. This module is the public API (`:help tandem-api`); the
--- work is done in the modules beside it.
local approvals = require('tandem.approvals')
local chat = require('tandem.chat')
local client = require('tandem.client')
local commands = require('tandem.commands')
local config = require('tandem.config')
local language = require('tandem.language')
local session = require('tandem.session')
local terminal = require('tandem.terminal')

local M = {}

M.client = client.get
M.start = client.start
M.request = client.request
M.session = session.open
M.call = session.call
M.cancel = session.cancel
M.text = session.text
M.approval_prompt = approvals.prompt
M.questions = approvals.questions
M.terminal_env = terminal.fetch
M.terminal_env_names = terminal.names
M.chat = chat.open
M.status = chat.status

--- Configures tandem and starts it for file buffers.
---@param opts table? see `:help tandem-setup`
function M.setup(opts)
  config.set(opts)
  commands.create()
  local group = vim.api.nvim_create_augroup('tandem', { clear = true })
  if config.get().language_query then
    -- Counted for tandem/languageQuery, which waits for an edit's diagnostics to settle.
    vim.api.nvim_create_autocmd('DiagnosticChanged', {
      group = group,
      callback = function(ev)
        language.on_changed(ev.buf)
      end,
    })
  end
  if config.get().autostart then
    vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile' }, {
      group = group,
      callback = function(ev)
        client.start(ev.buf)
      end,
    })
    for _, b in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_is_loaded(b) and vim.api.nvim_buf_get_name(b) ~= '' then
        client.start(b)
      end
    end
  end
end

--- The merged configuration (read-only copy), for :checkhealth.
function M.config()
  return vim.deepcopy(config.get())
end

return M
