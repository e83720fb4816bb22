--- The transcript: what a chat's buffer shows above its prompt area. Speakers' sections,
--- streamed text, notes, tool call cards with their output and questions, the queue line over
--- the separator; and which card or user message a row belongs to.
local config = require('tandem.config')

local api = vim.api

local ns = api.nvim_create_namespace('tandem.chat')
--- Lines that start with this are folded: thinking and tool output.
local FOLD = '│ '
--- The line between the transcript and the prompt area.
local SEPARATOR = '───── prompt ─────'
--- At most this many lines of a tool's output go into the transcript.
local MAX_OUTPUT = 400

local function row_of(chat, mark)
  local pos = api.nvim_buf_get_extmark_by_id(chat.buf, ns, mark, {})
  return pos[1]
end

local function sep_row(chat)
  return row_of(chat, chat.sep)
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
    chat.last_user = entry
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

--- A line of its own in the transcript: an error, a stop, a restore. Returns its first row.
--- at: the row to put it at (default: the end of the transcript).
local function note(chat, text, at)
  chat.last = nil
  local lines = vim.split(vim.trim(text), '\n', { plain = true })
  lines[1] = '> ' .. lines[1]
  for i = 2, #lines do
    lines[i] = '> ' .. lines[i]
  end
  if at then
    api.nvim_buf_set_lines(chat.buf, at, at, false, lines)
    return at
  end
  return insert(chat, lines)
end

local status_hl = {
  pending = 'Comment',
  in_progress = 'DiagnosticInfo',
  completed = 'DiagnosticOk',
  failed = 'DiagnosticError',
}

--- The keys (`chat.keys`) that give each answer kind in the chat.
local answer_keys = { allow_once = 'allow', reject_once = 'deny', allow_always = 'allow_always' }

--- A waiting question as virtual lines: its text, and the keys that answer it when the chat
--- takes the answer.
local function question_lines(entry)
  local vl = {}
  for _, l in ipairs(vim.split(entry.text, '\n', { plain = true })) do
    table.insert(vl, { { '    ' .. l, 'DiagnosticWarn' } })
  end
  if entry.ask then
    local keys, line = config.get().chat.keys, { { '   ', 'DiagnosticWarn' } }
    for _, c in ipairs(entry.ask.choices) do
      local key = keys[answer_keys[c.answer]]
      if key and key ~= '' then
        table.insert(line, { ' ' .. key, 'Special' })
        table.insert(line, { ' ' .. c.title .. ' ', 'DiagnosticWarn' })
      end
    end
    table.insert(vl, line)
  end
  return vl
end

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
    opts.virt_lines = question_lines(card.waiting)
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

--- What sets a subagent's card under its task's card.
local NESTED = '  ↳ '

--- The task call a subagent's tool call belongs to (_meta.tandem.parent), if any.
local function parent_of(u)
  local t = type(u._meta) == 'table' and u._meta.tandem
  return type(t) == 'table' and type(t.parent) == 'string' and t.parent or nil
end

--- The card's output lines: the tool's text and one line per changed file.
local function output_lines(card)
  local out = {}
  local indent = card.parent and '  ' or ''
  for _, c in ipairs(card.content or {}) do
    if c.type == 'content' and c.content and c.content.type == 'text' then
      for _, l in ipairs(vim.split(c.content.text or '', '\n', { plain = true })) do
        table.insert(out, FOLD .. indent .. l)
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
  -- A subagent's call is indented under its task's card (docs/protocol.md).
  local parent = parent_of(u)
  parent = parent and chat.cards[parent] and parent or nil
  local row = insert(chat, { (parent and NESTED or '') .. '▸ ' .. (u.title or u.toolCallId or 'tool') })
  chat.last = 'card'
  local card = {
    id = u.toolCallId,
    parent = parent,
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

--- Status lines show status(): redraw them, and tell statusline plugins (User TandemChatStatus).
local function status_changed()
  pcall(vim.cmd, 'redrawstatus!')
  api.nvim_exec_autocmds('User', { pattern = 'TandemChatStatus', modeline = false })
end

--- Shows the prompts waiting for the running turn above the separator, after the questions
--- that wait for you and have no card of their own.
local function draw_queue(chat)
  status_changed()
  local vl, cardless = {}, {}
  for _, e in pairs(chat.waiting) do
    if not (e.tool_call and chat.cards[e.tool_call]) then
      table.insert(cardless, e)
    end
  end
  table.sort(cardless, function(a, b)
    return a.seq < b.seq
  end)
  for _, e in ipairs(cardless) do
    vim.list_extend(vl, question_lines(e))
  end
  for _, q in ipairs(chat.queue) do
    table.insert(vl, { { 'queued: ' .. q.text:gsub('\n', ' '), 'Comment' } })
  end
  local opts = { id = chat.queue_mark }
  if #vl > 0 then
    opts.virt_lines = vl
    opts.virt_lines_above = true
  end
  local queued = #chat.queue
  local state = chat.running
      and ((next(chat.waiting) and 'waiting for you' or 'running') .. (queued > 0 and (', ' .. queued .. ' queued') or '') .. ' · <C-c> stops')
    or (
      chat.replacing
        and ('<CR> sends it in place of turn ' .. chat.replacing .. ', cutting the chat back (sent empty: not)')
      or '<CR> sends'
    )
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

--- The card under the cursor (its header or its output), if any.
local function card_at(chat, row)
  for _, card in ipairs(chat.order) do
    local h, t = row_of(chat, card.head), row_of(chat, card.tail)
    if row >= h and row <= t then
      return card
    end
  end
end

--- The entry of entries (by mark) nearest at or above row, and its row.
local function nearest(chat, row, entries, best, best_row)
  for mark, m in pairs(entries) do
    local r = row_of(chat, mark)
    if r and r <= row and r > best_row then
      best, best_row = m, r
    end
  end
  return best, best_row
end

--- The user message under the cursor (the nearest user header at or above it): {turn, ex}.
local function message_at(chat, row)
  return (nearest(chat, row, chat.users, nil, -1))
end

--- The user message or restore under the cursor, whichever is nearer above it: a message
--- {turn, ex}, or a restore {restore = true, turn, undo, around}.
local function entry_at(chat, row)
  return (nearest(chat, row, chat.restores, nearest(chat, row, chat.users, nil, -1)))
end

return {
  ns = ns,
  FOLD = FOLD,
  SEPARATOR = SEPARATOR,
  row_of = row_of,
  sep_row = sep_row,
  insert = insert,
  show_turn = show_turn,
  side = side,
  meta_turn = meta_turn,
  append = append,
  note = note,
  draw_card = draw_card,
  card_start = card_start,
  card_update = card_update,
  status_changed = status_changed,
  draw_queue = draw_queue,
  visible = visible,
  card_at = card_at,
  message_at = message_at,
  entry_at = entry_at,
}
