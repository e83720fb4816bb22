-- Drives CodeCompanion.nvim with tandem as its ACP agent, configured by the README's snippet.
-- nvim --headless -u NONE -i NONE -c 'luafile codecompanion.lua', in the workspace, with
-- PLUG (the plugins' folder), ANSWER (reject|allow: the permission prompt's answer), OUT.
local run = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/common.lua')
run.add_plugins({ 'plenary.nvim', 'codecompanion.nvim' })
vim.cmd('runtime! plugin/codecompanion.lua')

-- the README's snippet
require('codecompanion').setup({
  adapters = { acp = { tandem = function()
    return require('codecompanion.adapters').extend('opencode', {
      name = 'tandem', formatted_name = 'tandem', commands = { default = { 'tandem', 'acp' } },
    })
  end } },
  interactions = { chat = { adapter = 'tandem' } },
})

local function finish(code)
  local chat = require('codecompanion').last_chat()
  run.finish(code, chat and vim.api.nvim_buf_get_lines(chat.bufnr, 0, -1, false) or { '(no chat)' }, function(f)
    -- CodeCompanion's list of the files the agent edited (from the calls' locations and diffs)
    require('codecompanion.interactions.shared.edited_files').to_quickfix()
    f:write('\n==== edited files (quickfix)\n')
    for _, q in ipairs(vim.fn.getqflist()) do f:write(vim.api.nvim_buf_get_name(q.bufnr), ' | ', q.text, '\n') end
  end)
end

-- The permission prompt is a message in the chat with a buffer keymap per choice; press the
-- one whose label is the answer, as the user does.
local label = ({ reject = 'Reject', allow = 'Accept' })[run.answer]
vim.api.nvim_create_autocmd('User', { pattern = 'CodeCompanionToolApprovalRequested', callback = function(ev)
  vim.schedule(function()
    local maps = {}
    for _, m in ipairs(vim.api.nvim_buf_get_keymap(ev.data.bufnr, 'n')) do
      if m.desc then maps[m.desc] = m end
    end
    local m = maps[label]
    if not m then run.note('no keymap labelled ' .. label); return finish(3) end
    run.note('pressing ' .. m.lhs .. ' (' .. label .. ')')
    m.callback()
  end)
end })
vim.api.nvim_create_autocmd('User', { pattern = 'CodeCompanionChatDone', callback = function()
  run.note('ChatDone'); vim.defer_fn(function() finish(0) end, 300)
end })
vim.defer_fn(function() run.note('timeout'); finish(4) end, 60000)

vim.cmd('edit notes.txt') -- the file is open, as when a user asks about it
-- Open the chat empty (as :CodeCompanionChat does), wait for its session, then type the prompt
-- and send it (<CR>). `:CodeCompanionChat PROMPT` would fail before starting tandem where
-- LuaJIT has Lua 5.2 compatibility (coroutine.running() is then true on the main thread).
local chat = require('codecompanion').chat()
local t0, timer = vim.uv.now(), vim.uv.new_timer()
timer:start(100, 100, vim.schedule_wrap(function()
  if not (chat.acp_connection and chat.acp_connection.session_id) then return end
  timer:stop()
  run.note(('session %s after %d ms'):format(chat.acp_connection.session_id, vim.uv.now() - t0))
  vim.api.nvim_buf_set_lines(chat.bufnr, -1, -1, false, { run.prompt })
  chat:submit()
end))
