--- The chat: tandem's agent in a buffer (`:help tandem-chat`). It speaks ACP's session methods
--- on the workspace's `tandem lsp` connection (docs/protocol.md, "The agent on the editor's
--- connection"): the transcript streams in above a prompt area at the bottom of the buffer.
local compat = require('tandem.compat')
local config = require('tandem.config')
local notify = require('tandem.notify')

local M = {}

local ns = vim.api.nvim_create_namespace('tandem.chat')
--- Lines that start with this are folded: thinking and tool output.
local FOLD = '│ '
--- The line between the transcript and the prompt area.
local SEPARATOR = '───── prompt ─────'
--- At most this many lines of a tool's output go into the transcript.
local MAX_OUTPUT = 400

--- Chats by ACP session id.
local chats = {} ---@type table<string, table>
--- The chat in use per workspace root: its session id.
local current = {} ---@type table<string, string>

local api = vim.api

local function row_of(chat, mark)
  local pos = api.nvim_buf_get_extmark_by_id(chat.buf, ns, mark, {})
  return pos[1]
end

local function sep_row(chat)
  return row_of(chat, chat.sep)
end

local function request(chat, method, params, cb)
  local ok = compat.request(chat.client, method, params, function(err, result)
    cb(err, result)
  end)
  if not ok then
    cb({ message = 'tandem is not running for this chat; reopen it with :TandemChat' })
  end
end

--- Inserts lines at the end of the transcript (just above the separator); returns their first row.
local function insert(chat, lines)
  local row = sep_row(chat)
  api.nvim_buf_set_lines(chat.buf, row, row, false, lines)
  return row
end

--- Shows a user message's turn beside its header (row: where its mark is now).
local function show_turn(chat, entry, row)
  if not row then
    row = api.nvim_buf_get_extmark_by_id(chat.buf, ns, entry.mark, {})[1]
  end
  local text = entry.turn and ('  turn ' .. entry.turn) or ''
  entry.mark = api.nvim_buf_set_extmark(chat.buf, ns, row, 0, {
    id = entry.mark,
    virt_text = { { text, 'Comment' } },
    virt_text_pos = 'eol',
  })
end

--- Starts a new section of the transcript when the speaker changes; for the user, returns the
--- message's entry in chat.users.
local function side(chat, who, turn)
  if chat.side == who then
    return
  end
  chat.side = who
  chat.last = nil
  local row = insert(chat, { '', who == 'user' and '## You' or '## tandem' })
  if who == 'user' then
    -- Exchanges count the user's messages shown here (replayed ones too); turn is tandem's
    -- number for it (a replayed prompt carries it; a sent one learns it from its response).
    chat.exchange = chat.exchange + 1
    local entry = { turn = turn, ex = chat.exchange }
    show_turn(chat, entry, row + 1)
    chat.users[entry.mark] = entry
    return entry
  end
end

--- tandem's _meta.tandem.turn of a prompt response or a replayed prompt, if any.
local function meta_turn(x)
  local t = type(x) == 'table' and type(x._meta) == 'table' and x._meta.tandem
  return type(t) == 'table' and type(t.turn) == 'number' and t.turn or nil
end

--- Appends streamed text to the transcript's last block of the same kind, else starts one.
local function append(chat, kind, text)
  local prefix = kind == 'thought' and FOLD or ''
  if chat.last ~= kind then
    insert(chat, { prefix })
    chat.last = kind
  end
  local row = sep_row(chat) - 1
  local line = api.nvim_buf_get_lines(chat.buf, row, row + 1, false)[1]
  local parts = vim.split(text, '\n', { plain = true })
  for i = 2, #parts do
    parts[i] = prefix .. parts[i]
  end
  api.nvim_buf_set_text(chat.buf, row, #line, row, #line, parts)
end

--- A line of its own in the transcript: an error, a stop, a restore.
local function note(chat, text)
  chat.last = nil
  local lines = vim.split(vim.trim(text), '\n', { plain = true })
  lines[1] = '> ' .. lines[1]
  for i = 2, #lines do
    lines[i] = '> ' .. lines[i]
  end
  insert(chat, lines)
end

local status_hl = {
  pending = 'Comment',
  in_progress = 'DiagnosticInfo',
  completed = 'DiagnosticOk',
  failed = 'DiagnosticError',
}

--- Redraws a tool call's card header: its kind and status, and the question it waits on.
local function draw_card(chat, card)
  local status = card.waiting and 'waiting for you' or (card.status or 'pending')
  local hl = card.waiting and 'DiagnosticWarn' or (status_hl[status] or 'Comment')
  local opts = {
    id = card.head,
    virt_text = { { '  ' .. (card.kind or 'other') .. ' · ' .. status, hl } },
    virt_text_pos = 'eol',
  }
  if card.waiting then
    local vl = {}
    for _, l in ipairs(vim.split(card.waiting, '\n', { plain = true })) do
      table.insert(vl, { { '    ' .. l, 'DiagnosticWarn' } })
    end
    opts.virt_lines = vl
  end
  api.nvim_buf_set_extmark(chat.buf, ns, row_of(chat, card.head), 0, opts)
end

local function count_lines(s)
  if s == nil or s == '' then
    return 0
  end
  local n = select(2, s:gsub('\n', '\n'))
  return s:sub(-1) == '\n' and n or n + 1
end

--- The card's output lines: the tool's text and one line per changed file.
local function output_lines(card)
  local out = {}
  for _, c in ipairs(card.content or {}) do
    if c.type == 'content' and c.content and c.content.type == 'text' then
      for _, l in ipairs(vim.split(c.content.text or '', '\n', { plain = true })) do
        table.insert(out, FOLD .. l)
      end
    elseif c.type == 'diff' then
      local verb = c.oldText == nil and 'created' or 'changed'
      table.insert(
        out,
        string.format(
          '%s%s %s (%d → %d lines; gd shows the diff)',
          FOLD,
          verb,
          c.path,
          count_lines(c.oldText),
          count_lines(c.newText)
        )
      )
    end
  end
  if #out > MAX_OUTPUT then
    local more = #out - MAX_OUTPUT
    out = vim.list_slice(out, 1, MAX_OUTPUT)
    table.insert(out, FOLD .. '… ' .. more .. ' more lines')
  end
  return out
end

local function card_start(chat, u)
  side(chat, 'agent')
  local row = insert(chat, { '▸ ' .. (u.title or u.toolCallId or 'tool') })
  chat.last = 'card'
  local card = {
    id = u.toolCallId,
    kind = u.kind,
    status = u.status,
    title = u.title,
    locations = u.locations or {},
    ex = chat.exchange,
    diffs = {},
  }
  card.head = api.nvim_buf_set_extmark(chat.buf, ns, row, 0, {})
  card.tail = api.nvim_buf_set_extmark(chat.buf, ns, row, 0, {})
  chat.cards[u.toolCallId] = card
  table.insert(chat.order, card)
  draw_card(chat, card)
  return card
end

local function card_update(chat, u)
  local card = chat.cards[u.toolCallId] or card_start(chat, u)
  if u.status and u.status ~= vim.NIL then
    card.status = u.status
  end
  if u.kind and u.kind ~= vim.NIL then
    card.kind = u.kind
  end
  if type(u.locations) == 'table' and #u.locations > 0 then
    card.locations = u.locations
  end
  if type(u.content) == 'table' then
    card.content = u.content
    card.diffs = {}
    for _, c in ipairs(u.content) do
      if c.type == 'diff' then
        table.insert(card.diffs, { path = c.path, old = c.oldText ~= vim.NIL and c.oldText or nil, new = c.newText })
      end
    end
    if #card.diffs > 0 then
      chat.changes[card.ex] = chat.changes[card.ex] or {}
      vim.list_extend(chat.changes[card.ex], card.diffs)
    end
    local h, t = row_of(chat, card.head), row_of(chat, card.tail)
    local lines = output_lines(card)
    api.nvim_buf_set_lines(chat.buf, h + 1, t + 1, false, lines)
    api.nvim_buf_set_extmark(chat.buf, ns, h + #lines, 0, { id = card.tail })
  end
  draw_card(chat, card)
end

--- The prompt area's text.
local function prompt_text(chat)
  local lines = api.nvim_buf_get_lines(chat.buf, sep_row(chat) + 1, -1, false)
  return vim.trim(table.concat(lines, '\n'))
end

local function set_prompt(chat, text)
  api.nvim_buf_set_lines(chat.buf, sep_row(chat) + 1, -1, false, vim.split(text, '\n', { plain = true }))
end

--- Status lines show status(): redraw them, and tell statusline plugins (User TandemChatStatus).
local function status_changed()
  pcall(vim.cmd, 'redrawstatus!')
  api.nvim_exec_autocmds('User', { pattern = 'TandemChatStatus', modeline = false })
end

--- Shows the prompts waiting for the running turn, above the separator.
local function draw_queue(chat)
  status_changed()
  local vl = {}
  for _, q in ipairs(chat.queue) do
    table.insert(vl, { { 'queued: ' .. q.text:gsub('\n', ' '), 'Comment' } })
  end
  local opts = { id = chat.queue_mark }
  if #vl > 0 then
    opts.virt_lines = vl
    opts.virt_lines_above = true
  end
  local state = chat.running and ('running' .. (#vl > 0 and (', ' .. #vl .. ' queued') or '') .. ' · <C-c> stops')
    or '<CR> sends'
  opts.virt_text = { { '  ' .. state, chat.running and 'DiagnosticInfo' or 'Comment' } }
  opts.virt_text_pos = 'eol'
  opts.line_hl_group = 'Comment'
  chat.queue_mark = api.nvim_buf_set_extmark(chat.buf, ns, sep_row(chat), 0, opts)
end

local function visible(chat)
  for _, w in ipairs(api.nvim_tabpage_list_wins(0)) do
    if api.nvim_win_get_buf(w) == chat.buf then
      return true
    end
  end
  return false
end

--- The workspace files, relative to the root, for `@` completion.
local function workspace_files(root)
  local out = {}
  for name, kind in
    vim.fs.dir(root, {
      depth = 8,
      skip = function(dir)
        local base = vim.fs.basename(dir)
        return base:sub(1, 1) ~= '.' and base ~= 'node_modules'
      end,
    })
  do
    if kind == 'file' then
      table.insert(out, name)
      if #out >= 5000 then
        break
      end
    end
  end
  table.sort(out)
  return out
end

--- The prompt's content blocks: the text as typed, a resource_link for each `@FILE` that
--- exists in the workspace, and the attachments the chat holds.
local function blocks(chat, item)
  local out = { { type = 'text', text = item.text } }
  local seen = {}
  for path in item.text:gmatch('@([%w%._/%-]+)') do
    local abs = vim.fs.normalize(chat.root .. '/' .. path)
    if not seen[abs] and vim.uv.fs_stat(abs) then
      seen[abs] = true
      table.insert(out, { type = 'resource_link', uri = vim.uri_from_fname(abs), name = path })
    end
  end
  vim.list_extend(out, item.attach or {})
  return out
end

local run

--- Sends the next queued prompt, if any.
local function next_queued(chat)
  if not chat.running and #chat.queue > 0 then
    run(chat, table.remove(chat.queue, 1))
  end
  draw_queue(chat)
end

function run(chat, item)
  chat.running = true
  chat.stopping = false
  local turn = chat.turn
  if turn then
    chat.turn = turn + 1
  end
  local entry = side(chat, 'user', turn)
  local lines = vim.split(item.text, '\n', { plain = true })
  for _, a in ipairs(item.attach or {}) do
    table.insert(lines, '(attached: ' .. (a.name or (a.resource and a.resource.uri) or a.uri or '?') .. ')')
  end
  insert(chat, lines)
  chat.last = nil
  draw_queue(chat)
  request(chat, 'session/prompt', { sessionId = chat.id, prompt = blocks(chat, item) }, function(err, result)
    chat.running = false
    if err then
      note(chat, 'error: ' .. (err.message or vim.inspect(err)))
      chat.stop_reason = 'error'
    else
      local t = meta_turn(result)
      if t then -- tandem's own count, right after a reopen or a restore too
        chat.turn = t + 1
        if entry and entry.turn ~= t and api.nvim_buf_is_valid(chat.buf) then
          entry.turn = t
          show_turn(chat, entry)
        end
      end
      chat.stop_reason = result and result.stopReason
      if chat.stop_reason == 'cancelled' then
        note(chat, 'stopped')
      elseif chat.stop_reason and chat.stop_reason ~= 'end_turn' then
        note(chat, 'the turn ended: ' .. chat.stop_reason)
      end
    end
    chat.stopping = false
    next_queued(chat)
  end)
end

local function apply_options(chat, opts)
  if type(opts) ~= 'table' then
    return
  end
  chat.options = opts
  for _, o in ipairs(opts) do
    if o.id == 'model' then
      chat.model = o.currentValue
    elseif o.id == 'plan_mode' then
      chat.plan = o.currentValue == true
    end
  end
  status_changed()
end

--- session/update: a step of a turn (or of a chat being loaded).
local function update(chat, u)
  local kind = u.sessionUpdate
  if kind == 'agent_message_chunk' or kind == 'agent_thought_chunk' then
    side(chat, 'agent')
    local text = u.content and u.content.text
    if type(text) == 'string' then
      append(chat, kind == 'agent_message_chunk' and 'text' or 'thought', text)
    end
  elseif kind == 'user_message_chunk' then
    side(chat, 'user', meta_turn(u))
    local c = u.content or {}
    if c.type == 'text' then
      append(chat, 'text', c.text or '')
    elseif c.uri or c.resource then
      append(chat, 'text', '\n(attached: ' .. (c.name or c.uri or c.resource.uri) .. ')')
    end
  elseif kind == 'tool_call' then
    if chat.cards[u.toolCallId] then
      card_update(chat, u)
    else
      card_start(chat, u)
    end
  elseif kind == 'tool_call_update' then
    card_update(chat, u)
  elseif kind == 'usage_update' then
    chat.usage = { used = u.used, size = u.size, cost = type(u.cost) == 'table' and u.cost or nil }
    status_changed()
  elseif kind == 'config_option_update' then
    apply_options(chat, u.configOptions)
  elseif kind == 'plan' then
    local lines = { 'Plan:' }
    for _, e in ipairs(u.entries or {}) do
      table.insert(lines, string.format('- [%s] %s', e.status == 'completed' and 'x' or ' ', e.content or ''))
    end
    side(chat, 'agent')
    insert(chat, lines)
    chat.last = nil
  end
end

--- The LSP handler of session/update.
function M.on_update(_, params)
  local function apply()
    local chat = params and chats[params.sessionId]
    if chat and api.nvim_buf_is_valid(chat.buf) and params.update then
      update(chat, params.update)
    end
  end
  if vim.in_fast_event() then
    vim.schedule(apply)
  else
    apply()
  end
end

--- A tandem/askApproval question: shown inside its tool call's card when it comes from a chat,
--- and announced when the chat is not on screen.
---@param q table the question's params
---@param text string the question as the prompt shows it
function M.on_question(q, text)
  local chat = chats[tostring(q.session or '')]
  if not chat then
    return
  end
  chat.waiting[tostring(q.id)] = q.toolCall or true
  status_changed()
  local card = q.toolCall and chat.cards[q.toolCall]
  if card then
    card.waiting = text
    draw_card(chat, card)
  end
  if not visible(chat) then
    notify(
      'the agent asks you something: '
        .. (q.steps and q.steps[1] and q.steps[1].text or 'a step')
        .. ' (:TandemChat shows the chat)',
      vim.log.levels.WARN
    )
  end
end

--- The question is answered or settled.
function M.on_question_done(q)
  local chat = chats[tostring(q.session or '')]
  if not chat then
    return
  end
  chat.waiting[tostring(q.id)] = nil
  status_changed()
  local card = q.toolCall and chat.cards[q.toolCall]
  if card and card.waiting then
    card.waiting = nil
    if api.nvim_buf_is_valid(chat.buf) then
      draw_card(chat, card)
    end
  end
end

--- The chat shown in buf, if it is one.
---@param buf integer?
function M.of_buf(buf)
  buf = buf or api.nvim_get_current_buf()
  for _, c in pairs(chats) do
    if c.buf == buf then
      return c
    end
  end
end

--- The root of the workspace the current buffer belongs to.
local function current_root()
  local chat = M.of_buf()
  if chat then
    return chat.root
  end
  return require('tandem.client').root(0)
end

--- The chat of the current buffer, else the one in use for its workspace.
---@return table?
function M.get()
  local chat = M.of_buf()
  if chat then
    return chat
  end
  local id = current[current_root()]
  return id and chats[id] or nil
end

--- chat, else the current one; nil, told to the user, when no chat is open.
local function open_chat(chat)
  chat = chat or M.get()
  if not chat then
    notify('no chat is open; :TandemChat opens one', vim.log.levels.WARN)
  end
  return chat
end

--- The card under the cursor (its header or its output), if any.
local function card_at(chat, row)
  for _, card in ipairs(chat.order) do
    local h, t = row_of(chat, card.head), row_of(chat, card.tail)
    if row >= h and row <= t then
      return card
    end
  end
end

--- The user message under the cursor (the nearest user header at or above it): {turn, ex}.
local function message_at(chat, row)
  local best, best_row = nil, -1
  for mark, m in pairs(chat.users) do
    local r = row_of(chat, mark)
    if r and r <= row and r > best_row then
      best, best_row = m, r
    end
  end
  return best
end

local function other_window(chat)
  local prev = vim.fn.win_getid(vim.fn.winnr('#'))
  if prev ~= 0 and api.nvim_win_get_buf(prev) ~= chat.buf and api.nvim_win_get_config(prev).relative == '' then
    api.nvim_set_current_win(prev)
    return
  end
  for _, w in ipairs(api.nvim_tabpage_list_wins(0)) do
    if api.nvim_win_get_buf(w) ~= chat.buf and api.nvim_win_get_config(w).relative == '' then
      api.nvim_set_current_win(w)
      return
    end
  end
  vim.cmd('aboveleft split')
end

--- Opens a location of the card under the cursor; false when there is none.
function M.jump()
  local chat = M.of_buf()
  if not chat then
    return false
  end
  local card = card_at(chat, api.nvim_win_get_cursor(0)[1] - 1)
  local loc = card and card.locations[1]
  if not loc then
    return false
  end
  local path = loc.path
  if not path:match('^/') then
    path = chat.root .. '/' .. path
  end
  if chat.float then
    api.nvim_win_close(0, false)
  else
    other_window(chat)
  end
  vim.cmd.edit(vim.fn.fnameescape(path))
  if type(loc.line) == 'number' and loc.line > 0 then
    pcall(api.nvim_win_set_cursor, 0, { loc.line, 0 })
  end
  return true
end

--- Sends the prompt area's text (or queues it while a turn runs).
---@param chat table?
---@param text string?
---@param attach table[]? extra content blocks
function M.send(chat, text, attach)
  chat = open_chat(chat)
  if not chat then
    return
  end
  local from_area = text == nil
  text = text or prompt_text(chat)
  local all = vim.list_extend(vim.deepcopy(chat.attach), attach or {})
  if text == '' and #all == 0 then
    return
  end
  if from_area then
    set_prompt(chat, '')
  end
  chat.attach = {}
  local item = { text = text, attach = all }
  if chat.running then
    table.insert(chat.queue, item)
    draw_queue(chat)
    return
  end
  run(chat, item)
end

--- Stops the running turn at once (session/cancel); queued prompts go back to the prompt area.
---@param chat table?
function M.stop(chat)
  chat = chat or M.get()
  if not chat or not chat.running then
    notify('no turn is running')
    return
  end
  chat.stopping = true
  if #chat.queue > 0 then
    local texts = {}
    for _, q in ipairs(chat.queue) do
      table.insert(texts, q.text)
    end
    local area = prompt_text(chat)
    if area ~= '' then
      table.insert(texts, area)
    end
    chat.queue = {}
    set_prompt(chat, table.concat(texts, '\n'))
    draw_queue(chat)
  end
  compat.notify(chat.client, 'session/cancel', { sessionId = chat.id })
end

--- <CR> in normal mode: on a tool call with a location, opens it; else sends the prompt.
function M.enter()
  if not M.jump() then
    M.send()
  end
end

--- Opens a scratch buffer holding text for one side of a diff.
local function diff_side(name, text, path)
  local buf = api.nvim_get_current_buf()
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].swapfile = false
  pcall(api.nvim_buf_set_name, buf, name)
  local lines = vim.split(text or '', '\n', { plain = true })
  if lines[#lines] == '' then
    table.remove(lines)
  end
  api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  local ft = vim.filetype.match({ filename = path, buf = buf })
  if ft then
    vim.bo[buf].filetype = ft
  end
  vim.cmd('diffthis')
end

--- Opens a diff (a new tab: before | after) of a file a tool call changed.
---@param d {path: string, old: string?, new: string}
function M.open_diff(d)
  local name = vim.fn.fnamemodify(d.path, ':~:.')
  vim.cmd('tabnew')
  diff_side('tandem://diff/before/' .. name, d.old or '', d.path)
  vim.cmd('rightbelow vnew')
  diff_side('tandem://diff/after/' .. name, d.new or '', d.path)
end

--- gd: the diff of the edit card under the cursor (a pick when it changed several files).
function M.diff()
  local chat = M.of_buf()
  local card = chat and card_at(chat, api.nvim_win_get_cursor(0)[1] - 1)
  if not card or #card.diffs == 0 then
    notify('no change here: put the cursor on a tool call that changed a file')
    return
  end
  if #card.diffs == 1 then
    M.open_diff(card.diffs[1])
    return
  end
  vim.ui.select(card.diffs, {
    prompt = 'Diff of which file?',
    format_item = function(d)
      return d.path
    end,
  }, function(d)
    if d then
      M.open_diff(d)
    end
  end)
end

--- The first changed line of a diff (1-based).
local function first_change(d)
  if not d.old then
    return 1
  end
  local diff = (vim.text and vim.text.diff) or vim.diff
  local hunks = diff(d.old, d.new or '', { result_type = 'indices' })
  if type(hunks) == 'table' and hunks[1] then
    return math.max(hunks[1][3], 1)
  end
  return 1
end

--- Puts every change the agent made in a turn into the quickfix list: the turn under the
--- cursor in the chat, else the last turn.
---@param chat table?
---@param turn integer?
function M.changes(chat, turn)
  chat = open_chat(chat)
  if not chat then
    return
  end
  local ex = chat.exchange
  if turn ~= nil then
    ex = nil
    for _, m in pairs(chat.users) do
      if m.turn == turn then
        ex = m.ex
      end
    end
  elseif M.of_buf() == chat then
    local m = message_at(chat, api.nvim_win_get_cursor(0)[1] - 1)
    ex = m and m.ex or ex
    turn = m and m.turn
  end
  local which = turn and ('turn ' .. turn) or ('message ' .. tostring(ex))
  local items = {}
  for _, d in ipairs(ex and chat.changes[ex] or {}) do
    local path = d.path:match('^/') and d.path or (chat.root .. '/' .. d.path)
    table.insert(items, {
      filename = path,
      lnum = first_change(d),
      text = (d.old and 'changed' or 'created') .. ' by tandem (' .. which .. ')',
    })
  end
  vim.fn.setqflist({}, ' ', { title = 'tandem: changes of ' .. which, items = items })
  if #items == 0 then
    notify('the agent changed no file in that turn')
  end
  return items
end

local function restore_turn(chat, turn)
  request(chat, '_tandem/restore', { sessionId = chat.id, turn = turn }, function(err, res)
    if err then
      notify('restore: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    if chat.turn then
      chat.turn = chat.turn + 1 -- the restore is a turn of its own
    end
    side(chat, 'agent')
    note(chat, 'restore to before turn ' .. turn .. ': ' .. (res.text or ''))
    chat.restored = res
    notify(vim.trim(res.text or 'restored'), res.isError and vim.log.levels.WARN or vim.log.levels.INFO)
  end)
end

--- Restores the files the agent changed from a turn on to how they were before it. Without a
--- turn: the user message under the cursor, else a pick among the turns that changed files.
---@param chat table?
---@param turn integer?
function M.restore(chat, turn)
  chat = open_chat(chat)
  if not chat then
    return
  end
  if chat.running then
    notify('a turn is running; stop it (<C-c>), then restore', vim.log.levels.WARN)
    return
  end
  if turn == nil and M.of_buf() == chat then
    local m = message_at(chat, api.nvim_win_get_cursor(0)[1] - 1)
    turn = m and m.turn
  end
  if turn then
    restore_turn(chat, turn)
    return
  end
  request(chat, '_tandem/checkpoints', { sessionId = chat.id }, function(err, res)
    if err then
      notify('restore: ' .. (err.message or ''), vim.log.levels.ERROR)
      return
    end
    local cps = res and res.checkpoints or {}
    if #cps == 0 then
      notify('the agent changed no file in this chat')
      return
    end
    vim.ui.select(cps, {
      prompt = 'Restore the files to before which turn?',
      format_item = function(cp)
        local names = vim.tbl_map(function(f)
          return vim.fn.fnamemodify(f, ':~:.')
        end, cp.files or {})
        return 'turn ' .. cp.turn .. ': ' .. table.concat(names, ', ')
      end,
    }, function(cp)
      if cp then
        restore_turn(chat, cp.turn)
      end
    end)
  end)
end

--- Omni completion of `@FILE` in the prompt: the workspace's files.
function M.omnifunc(findstart, base)
  local chat = M.of_buf()
  if findstart == 1 then
    local col = api.nvim_win_get_cursor(0)[2]
    local before = api.nvim_get_current_line():sub(1, col)
    local at = before:find('@[%w%._/%-]*$')
    return at or -3
  end
  if not chat then
    return {}
  end
  return M.complete_files(chat.root, base)
end

--- The workspace files matching base (a prefix of the path or of its name first).
---@param root string
---@param base string
---@return table[] complete-items
function M.complete_files(root, base)
  local lower = base:lower()
  local first, rest = {}, {}
  for _, f in ipairs(workspace_files(root)) do
    local l = f:lower()
    if vim.startswith(l, lower) or vim.startswith(vim.fs.basename(l), lower) then
      table.insert(first, { word = f, menu = '[tandem]' })
    elseif l:find(lower, 1, true) then
      table.insert(rest, { word = f, menu = '[tandem]' })
    end
  end
  return vim.list_extend(first, rest)
end

local function keymaps(chat)
  local keys = config.get().chat.keys
  local function map(mode, lhs, fn, desc)
    if lhs and lhs ~= '' then
      vim.keymap.set(mode, lhs, fn, { buffer = chat.buf, desc = desc, nowait = true })
    end
  end
  map('n', keys.send, M.enter, 'tandem: send the prompt (or open the location under the cursor)')
  map('i', keys.send_insert, function()
    vim.cmd('stopinsert')
    -- After insert mode is left: changing the line under an open completion menu is unsafe.
    vim.schedule(function()
      M.send(chat)
    end)
  end, 'tandem: send the prompt')
  map({ 'n', 'i' }, keys.stop, function()
    M.stop(chat)
  end, 'tandem: stop the turn')
  map('n', keys.diff, M.diff, "tandem: the diff of the edit card's change")
  map('n', keys.restore, function()
    M.restore(chat)
  end, 'tandem: restore the files to before the turn under the cursor')
  map('n', keys.changes, function()
    M.changes(chat)
    vim.cmd('copen')
  end, "tandem: the turn's changes in the quickfix list")
  map('n', 'gf', function()
    if not M.jump() then
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

--- Folds thinking and tool output (lines that start with │).
function M.foldexpr()
  local line = vim.fn.getline(vim.v.lnum)
  return line:sub(1, #FOLD) == FOLD and '1' or '0'
end

local function new_chat(client, root, id)
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
  api.nvim_buf_set_lines(buf, 0, -1, false, { SEPARATOR, '' })
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
    waiting = {},
    attach = {},
    usage = {},
  }
  chat.sep = api.nvim_buf_set_extmark(buf, ns, 0, 0, { right_gravity = true })
  chat.queue_mark = api.nvim_buf_set_extmark(buf, ns, 0, 0, {})
  draw_queue(chat)
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

--- Asks for a new session of the workspace at root; cb(err, chat).
local function create(root, cb)
  local client = require('tandem.client')
  local c
  local buf = api.nvim_get_current_buf()
  if vim.bo[buf].buftype == '' and api.nvim_buf_get_name(buf) ~= '' and client.root(buf) == root then
    local id = client.start(buf)
    c = id and vim.lsp.get_client_by_id(id)
  end
  c = c or client.for_root(root)
  if not c then
    cb({ message = 'tandem could not start; see :checkhealth tandem' })
    return
  end
  local ok = compat.request(c, 'session/new', { cwd = root, mcpServers = {} }, function(err, res)
    if err then
      cb(err)
      return
    end
    local chat = new_chat(c, root, res.sessionId)
    chat.turn = 0
    apply_options(chat, res.configOptions)
    cb(nil, chat)
  end)
  if not ok then
    cb({ message = 'tandem is not running; see :checkhealth tandem' })
  end
end

--- :TandemChat [PROMPT]: opens (or focuses) the workspace's chat and sends PROMPT.
---@param prompt string?
---@param attach table[]?
---@param cb fun(chat: table)?
function M.open(prompt, attach, cb)
  local root = current_root()
  local function go(chat)
    M.show(chat)
    if (prompt and prompt ~= '') or (attach and #attach > 0) then
      M.send(chat, prompt or '', attach)
    end
    if cb then
      cb(chat)
    end
  end
  local id = current[root]
  if id and chats[id] and api.nvim_buf_is_valid(chats[id].buf) then
    go(chats[id])
    return
  end
  create(root, function(err, chat)
    if err then
      notify('the chat could not open: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    go(chat)
  end)
end

--- :TandemChat new: a new chat for the workspace.
function M.new(cb)
  local root = current_root()
  current[root] = nil
  M.open(nil, nil, cb)
end

--- :TandemChat history: picks a past chat of the workspace's tandem and replays it.
function M.history(cb)
  local root = current_root()
  local client = require('tandem.client')
  local c = client.for_root(root)
  if not c then
    notify('tandem is not running; see :checkhealth tandem', vim.log.levels.ERROR)
    return
  end
  compat.request(c, 'session/list', vim.empty_dict(), function(err, res)
    if err then
      notify('history: ' .. (err.message or ''), vim.log.levels.ERROR)
      return
    end
    local sessions = res and res.sessions or {}
    if #sessions == 0 then
      notify('there is no past chat')
      return
    end
    vim.ui.select(sessions, {
      prompt = 'Reopen which chat?',
      kind = 'tandem.history',
      format_item = function(s)
        return string.format(
          '%s  (%s, %s)',
          s.title or s.sessionId,
          s.updatedAt or '',
          vim.fn.fnamemodify(s.cwd or '', ':~')
        )
      end,
    }, function(s)
      if not s then
        return
      end
      if chats[s.sessionId] then
        current[root] = s.sessionId
        M.show(chats[s.sessionId])
        if cb then
          cb(chats[s.sessionId])
        end
        return
      end
      local chat = new_chat(c, s.cwd or root, s.sessionId)
      current[root] = s.sessionId
      chat.loading = true
      M.show(chat)
      compat.request(
        c,
        'session/load',
        { sessionId = s.sessionId, cwd = s.cwd or root, mcpServers = {} },
        function(lerr)
          chat.loading = false
          if lerr then
            note(chat, 'the chat could not be loaded: ' .. (lerr.message or ''))
          end
          if cb then
            cb(chat)
          end
        end
      )
    end)
  end)
end

local function set_option(chat, id, value, cb)
  request(chat, 'session/set_config_option', { sessionId = chat.id, configId = id, value = value }, function(err, res)
    if err then
      notify(err.message or vim.inspect(err), vim.log.levels.ERROR)
    else
      apply_options(chat, res.configOptions)
    end
    if cb then
      cb(err)
    end
  end)
end

--- :TandemModel [PROVIDER/MODEL]: switches the chat's model from the next turn on; without a
--- model, picks one of those tandem knows.
function M.model(model, cb)
  local chat = M.get()
  if not chat then
    notify('no chat is open; :TandemChat opens one')
    return
  end
  if model and model ~= '' then
    set_option(chat, 'model', model, cb)
    return
  end
  local choices = {}
  for _, o in ipairs(chat.options or {}) do
    if o.id == 'model' then
      for _, opt in ipairs(o.options or {}) do
        table.insert(choices, opt.value or opt.name)
      end
    end
  end
  vim.ui.select(choices, { prompt = 'Model (now ' .. tostring(chat.model) .. ')', kind = 'tandem.model' }, function(m)
    if m then
      set_option(chat, 'model', m, cb)
    end
  end)
end

--- :TandemPlan: plan mode on or off (only reading steps run while it is on).
function M.plan(cb)
  local chat = M.get()
  if not chat then
    notify('no chat is open; :TandemChat opens one')
    return
  end
  set_option(chat, 'plan_mode', not chat.plan, function(err)
    if not err then
      notify('plan mode ' .. (chat.plan and 'on: only reading steps run' or 'off'))
    end
    if cb then
      cb(err)
    end
  end)
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

--- Forgets the chats of a client that exited.
function M.forget(client_id)
  for id, chat in pairs(chats) do
    if chat.client.id == client_id then
      chat.running = false
      chats[id] = nil
      if current[chat.root] == id then
        current[chat.root] = nil
      end
    end
  end
end

--- Every chat, for tests and status lines.
function M.all()
  return chats
end

return M
