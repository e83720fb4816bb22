--- A chat's buffer and windows: the buffer made for a session, its keys, the options of a
--- window showing it, and where the chat opens (`chat.layout`).
local changes = require('tandem.chat.changes')
local compat = require('tandem.compat')
local config = require('tandem.config')
local prompt = require('tandem.chat.prompt')
local questions = require('tandem.chat.questions')
local registry = require('tandem.chat.registry')
local transcript = require('tandem.chat.transcript')

local M = {}

local api = vim.api
local chats, current = registry.chats, registry.current

local function keymaps(chat)
  local keys = config.get().chat.keys
  local function map(mode, lhs, fn, desc)
    if lhs and lhs ~= '' then
      vim.keymap.set(mode, lhs, fn, { buffer = chat.buf, desc = desc, nowait = true })
    end
  end
  map('n', keys.send, prompt.enter, 'tandem: send the prompt (or open the location under the cursor)')
  map('i', keys.send_insert, function()
    vim.cmd('stopinsert')
    -- After insert mode is left: changing the line under an open completion menu is unsafe.
    vim.schedule(function()
      prompt.send(chat)
    end)
  end, 'tandem: send the prompt')
  map({ 'n', 'i' }, keys.stop, function()
    prompt.stop(chat)
  end, 'tandem: stop the turn')
  map('n', keys.diff, changes.diff, "tandem: the diff of the edit card's change")
  map('n', keys.restore, function()
    changes.restore(chat)
  end, 'tandem: restore the files to before the turn under the cursor (on a restore: undo it)')
  map('n', keys.restore_around, function()
    changes.restore(chat, nil, true)
  end, 'tandem: restore the files to before the turn under the cursor, around your later changes')
  map('n', keys.resend, function()
    prompt.edit(chat)
  end, 'tandem: edit the message under the cursor and send it again in its place')
  map('n', keys.allow, function()
    questions.answer(chat, 'allow_once')
  end, 'tandem: allow the step the chat asks about')
  map('n', keys.deny, function()
    questions.answer(chat, 'reject_once')
  end, 'tandem: deny the step the chat asks about')
  map('n', keys.allow_always, function()
    questions.answer(chat, 'allow_always')
  end, 'tandem: allow the step the chat asks about for this session')
  map('n', keys.changes, function()
    changes.changes(chat)
    vim.cmd('copen')
  end, "tandem: the turn's changes in the quickfix list")
  map('n', 'gf', function()
    if not changes.jump() then
      pcall(vim.cmd, 'normal! gf')
    end
  end, 'tandem: open the location under the cursor')
end

--- Window options of a window showing the chat.
local function window_options(win)
  vim.wo[win].foldmethod = 'expr'
  vim.wo[win].foldexpr = "v:lua.require'tandem.chat'.foldexpr()"
  vim.wo[win].foldlevel = 0
  vim.wo[win].foldenable = true
  vim.wo[win].foldminlines = 0
  vim.wo[win].wrap = true
  vim.wo[win].linebreak = true
  vim.wo[win].conceallevel = 2
end

--- A chat of session id on client for the workspace at root, in a new buffer; it becomes the
--- workspace's chat in use.
function M.new(client, root, id)
  -- A buffer left by this chat when its tandem stopped: the chat is reopened in a new one.
  local name = 'tandem://chat/' .. id
  for _, b in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_get_name(b) == name then
      api.nvim_buf_delete(b, { force = true })
    end
  end
  local buf = api.nvim_create_buf(true, false)
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'hide'
  vim.bo[buf].swapfile = false
  api.nvim_buf_set_name(buf, name)
  api.nvim_buf_set_lines(buf, 0, -1, false, { transcript.SEPARATOR, '' })
  vim.bo[buf].filetype = 'markdown'
  vim.bo[buf].omnifunc = "v:lua.require'tandem.chat'.omnifunc"
  local chat = {
    id = id,
    client = client,
    root = root,
    buf = buf,
    cards = {},
    order = {},
    users = {},
    exchange = 0,
    changes = {},
    queue = {},
    waiting = {}, -- questions waiting for you, by id
    restores = {}, -- the restores shown, by the mark of their note
    attach = {},
    usage = {},
  }
  chat.sep = api.nvim_buf_set_extmark(buf, transcript.ns, 0, 0, { right_gravity = true })
  chat.queue_mark = api.nvim_buf_set_extmark(buf, transcript.ns, 0, 0, {})
  transcript.draw_queue(chat)
  chats[id] = chat
  current[root] = id
  keymaps(chat)
  require('tandem.cmp').attach(buf)
  api.nvim_create_autocmd('BufWinEnter', {
    buffer = buf,
    callback = function()
      window_options(api.nvim_get_current_win())
    end,
  })
  api.nvim_create_autocmd('BufWipeout', {
    buffer = buf,
    callback = function()
      -- The session ends with its buffer (the chat stays stored: :TandemChat history).
      if chats[id] then
        compat.request(client, 'session/close', { sessionId = id }, function() end)
      end
      chats[id] = nil
      if current[root] == id then
        current[root] = nil
      end
    end,
  })
  return chat
end

--- Shows the chat: focuses its window when it is on screen, else opens one as the layout says.
function M.show(chat)
  for _, w in ipairs(api.nvim_tabpage_list_wins(0)) do
    if api.nvim_win_get_buf(w) == chat.buf then
      api.nvim_set_current_win(w)
      return w
    end
  end
  local layout = config.get().chat.layout
  chat.float = false
  if layout == 'float' then
    local w, h = math.floor(vim.o.columns * 0.8), math.floor(vim.o.lines * 0.8)
    api.nvim_open_win(chat.buf, true, {
      relative = 'editor',
      width = w,
      height = h,
      row = math.floor((vim.o.lines - h) / 2),
      col = math.floor((vim.o.columns - w) / 2),
      border = 'rounded',
      title = ' tandem ',
    })
    chat.float = true
  elseif layout == 'tab' then
    vim.cmd('tab sbuffer ' .. chat.buf)
  elseif layout == 'split' then
    vim.cmd('botright sbuffer ' .. chat.buf)
  else
    vim.cmd('vertical botright sbuffer ' .. chat.buf)
  end
  local win = api.nvim_get_current_win()
  window_options(win)
  api.nvim_win_set_cursor(win, { api.nvim_buf_line_count(chat.buf), 0 })
  return win
end

return M
