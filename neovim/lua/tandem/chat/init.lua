--- The chat: tandem's agent in a buffer (`:help tandem-chat`). It speaks ACP's session methods
--- on the workspace's `tandem lsp` connection (docs/protocol.md, "The agent on the editor's
--- connection"): the transcript streams in above a prompt area at the bottom of the buffer.
--- This module is the chat's entry points; the work is done in the modules beside it: the
--- open chats (registry), the transcript, the prompt area, the session, the buffer and its
--- windows, questions, and changes (diffs, the quickfix list, restore).
local buffer = require('tandem.chat.buffer')
local changes = require('tandem.chat.changes')
local notify = require('tandem.notify')
local prompt_area = require('tandem.chat.prompt')
local questions = require('tandem.chat.questions')
local registry = require('tandem.chat.registry')
local session = require('tandem.chat.session')
local transcript = require('tandem.chat.transcript')

local M = {}

local api = vim.api

M.on_update = session.on_update
M.on_question = questions.on_question
M.on_question_done = questions.on_question_done
M.answer = questions.answer
M.of_buf = registry.of_buf
M.get = registry.get
M.forget = registry.forget
M.all = registry.all
M.send = prompt_area.send
M.stop = prompt_area.stop
M.enter = prompt_area.enter
M.omnifunc = prompt_area.omnifunc
M.complete_files = prompt_area.complete_files
M.jump = changes.jump
M.open_diff = changes.open_diff
M.diff = changes.diff
M.changes = changes.changes
M.restore = changes.restore
M.show = buffer.show
M.open = session.open
M.new = session.new
M.history = session.history
M.model = session.model
M.plan = session.plan
M.commands = session.commands

--- Folds thinking and tool output (lines that start with │).
function M.foldexpr()
  local line = vim.fn.getline(vim.v.lnum)
  return line:sub(1, #transcript.FOLD) == transcript.FOLD and '1' or '0'
end

--- Attaches the current buffer's diagnostics (of lines l1..l2, else all) to the next prompt.
function M.attach_diagnostics(buf, l1, l2)
  buf = buf or api.nvim_get_current_buf()
  local name = api.nvim_buf_get_name(buf)
  local lines = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if not l1 or (d.lnum + 1 >= l1 and d.lnum + 1 <= l2) then
      local sev = vim.diagnostic.severity[d.severity] or '?'
      table.insert(lines, string.format('%s:%d:%d: %s: %s', name, d.lnum + 1, d.col + 1, sev, d.message))
    end
  end
  if #lines == 0 then
    return nil
  end
  return {
    type = 'resource',
    name = 'diagnostics of ' .. vim.fn.fnamemodify(name, ':~:.'),
    resource = {
      uri = 'tandem-diagnostics://' .. name,
      mimeType = 'text/plain',
      text = 'Diagnostics of ' .. name .. ':\n' .. table.concat(lines, '\n'),
    },
  }
end

--- :'<,'>TandemAsk [PROMPT]: the selection's file and lines (and their diagnostics) go to the
--- chat with PROMPT.
function M.ask(l1, l2, prompt, cb)
  local buf = api.nvim_get_current_buf()
  local name = api.nvim_buf_get_name(buf)
  if name == '' or vim.bo[buf].buftype ~= '' then
    notify(':TandemAsk sends lines of a file; run it from a file buffer', vim.log.levels.WARN)
    return
  end
  local attach = {
    {
      type = 'resource_link',
      uri = vim.uri_from_fname(name) .. '#L' .. l1 .. '-' .. l2,
      name = vim.fn.fnamemodify(name, ':~:.') .. ':' .. l1 .. '-' .. l2,
    },
  }
  local diags = M.attach_diagnostics(buf, l1, l2)
  if diags then
    table.insert(attach, diags)
  end
  M.open((prompt and prompt ~= '') and prompt or 'About these lines:', attach, cb)
end

--- :TandemDiagnostics: attaches the current buffer's diagnostics to the chat's next prompt.
function M.diagnostics()
  local buf = api.nvim_get_current_buf()
  local a = M.attach_diagnostics(buf)
  if not a then
    notify('this buffer has no diagnostics')
    return
  end
  local chat = M.get()
  if not chat then
    M.open(nil, nil, function(c)
      table.insert(c.attach, a)
      notify(a.name .. ' go with your next prompt')
    end)
    return
  end
  table.insert(chat.attach, a)
  notify(a.name .. ' go with your next prompt')
end

--- A statusline string for the workspace's chat: model, context used, cost, and whether a
--- turn runs or a question waits for you. Empty when there is no chat.
function M.status()
  local chat = M.get()
  if not chat then
    return ''
  end
  local parts = { 'tandem ' .. tostring(chat.model or '?') }
  if chat.plan then
    table.insert(parts, 'plan')
  end
  local u = chat.usage or {}
  if type(u.used) == 'number' and type(u.size) == 'number' and u.size > 0 then
    table.insert(
      parts,
      string.format('%d%% of %dk', math.floor(u.used * 100 / u.size + 0.5), math.floor(u.size / 1000))
    )
  elseif type(u.used) == 'number' then
    table.insert(parts, u.used .. ' tokens')
  end
  if u.cost and type(u.cost.amount) == 'number' then
    table.insert(parts, string.format('$%.2f', u.cost.amount))
  end
  if next(chat.waiting) then
    table.insert(parts, 'waiting for you')
  elseif chat.running then
    table.insert(parts, 'running' .. (#chat.queue > 0 and (' (' .. #chat.queue .. ' queued)') or ''))
  end
  return table.concat(parts, ' · ')
end

return M
