--- What the agent changed, from the transcript: the locations and diffs of a tool call's card,
--- a turn's changes in the quickfix list, and restoring the files to a checkpoint (before a turn),
--- around later changes, and undoing a restore.
local config = require('tandem.config')
local notify = require('tandem.notify')
local registry = require('tandem.chat.registry')
local transcript = require('tandem.chat.transcript')

local M = {}

local api = vim.api
local request = registry.request
local card_at, entry_at, message_at, note, side =
  transcript.card_at, transcript.entry_at, transcript.message_at, transcript.note, transcript.side

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
  local chat = registry.of_buf()
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
  local chat = registry.of_buf()
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
  chat = registry.open_chat(chat)
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
  elseif registry.of_buf() == chat then
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

--- The next actions a restore's reply ends with: the turn to restore to undo it (when it
--- restored something), and whether restoring again around later changes would undo more.
local function offers(text)
  local undo = tonumber(text:match('Restore turn (%d+) to undo this restore'))
  return undo, text:find('Restore again around later changes', 1, true) ~= nil
end

--- Shows a restore in the transcript: a note of its text (what: how it names the restore),
--- with its turn and the keys that act on it beside it. turn: the turn it restored, when known
--- (a restore replayed in a reopened chat does not say), so it can be redone around later
--- changes.
---@param chat table
---@param what string
---@param text string the restore's reply
---@param turn integer?
---@param at integer? the row to show it at (default: the end of the transcript)
function M.show_restore(chat, what, text, turn, at)
  local undo, around = offers(text)
  local entry = { restore = true, turn = turn, undo = undo, around = around, what = what, text = text }
  if not at then
    side(chat, 'agent')
  end
  local row = note(chat, what .. text, at)
  local keys = config.get().chat.keys
  local parts = {}
  if entry.undo then
    table.insert(parts, 'turn ' .. entry.undo)
    if keys.restore ~= '' then
      table.insert(parts, keys.restore .. ' undoes it')
    end
  end
  if entry.around and turn and keys.restore_around ~= '' then
    table.insert(parts, keys.restore_around .. ' restores around your later changes')
  end
  local opts = {}
  if #parts > 0 then
    opts = { virt_text = { { '  ' .. table.concat(parts, ' · '), 'Comment' } }, virt_text_pos = 'eol' }
  end
  entry.mark = api.nvim_buf_set_extmark(chat.buf, transcript.ns, row, 0, opts)
  chat.restores[entry.mark] = entry
  return entry
end

--- tandem cut the conversation back to before turn's prompt (edit and resend): what the model
--- no longer sees leaves the transcript — from that message up to the one replacing it — but
--- the restores, which stay undoable; the cut's note stands before the new message, as a
--- reopened chat shows it.
---@param chat table
---@param turn integer
---@param text string
function M.rewound(chat, turn, text)
  local row_of = transcript.row_of
  local from, to
  for mark, e in pairs(chat.users) do
    if e.turn == turn and not e.replaces then
      from = row_of(chat, mark) - 1 -- the blank line its section starts with
    elseif e.replaces == turn then
      to = row_of(chat, mark) - 1
    end
  end
  if not from then -- a reopened chat: nothing of the turns cut was shown
    side(chat, 'agent')
    note(chat, text)
    return
  end
  to = to or transcript.sep_row(chat)
  local restores = {}
  for mark, e in pairs(chat.restores) do
    local r = row_of(chat, mark)
    if r >= from and r < to then
      chat.restores[mark] = nil
      table.insert(restores, { row = r, entry = e })
    end
  end
  table.sort(restores, function(a, b)
    return a.row < b.row
  end)
  for mark, e in pairs(chat.users) do
    local r = row_of(chat, mark)
    if r >= from and r < to and not e.replaces then
      chat.users[mark] = nil
    end
  end
  for id, card in pairs(chat.cards) do
    local r = row_of(chat, card.head)
    if r >= from and r < to then
      chat.cards[id] = nil
    end
  end
  chat.order = vim.tbl_filter(function(card)
    return chat.cards[card.id] == card
  end, chat.order)
  api.nvim_buf_set_lines(chat.buf, from, to, false, {})
  local at = from
  for _, r in ipairs(restores) do
    M.show_restore(chat, r.entry.what, r.entry.text, r.entry.turn, at)
    at = at + #vim.split(vim.trim(r.entry.what .. r.entry.text), '\n', { plain = true })
  end
  note(chat, text, at)
end

local function restore_turn(chat, turn, around)
  local params = { sessionId = chat.id, turn = turn, aroundLaterChanges = around }
  request(chat, '_tandem/restore', params, function(err, res)
    if err then
      notify('restore: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    local text = res.text or ''
    local what = around and 'restore around your later changes to before turn ' or 'restore to before turn '
    local entry = M.show_restore(chat, what .. turn .. ': ', text, turn)
    -- The restore is a turn of its own: tandem names it when it restored something.
    if entry.undo then
      chat.turn = entry.undo + 1
    elseif chat.turn then
      chat.turn = chat.turn + 1
    end
    chat.restored = res
    if not transcript.visible(chat) then
      notify(vim.trim(text), res.isError and vim.log.levels.WARN or vim.log.levels.INFO)
    end
  end)
end

--- The turn to restore for a restore's note: the turn that undoes it, or around later changes
--- the turn it restored. nil, told to the user, when that restore offers no such thing.
local function target(e, around)
  if around then
    if not e.around then
      notify('that restore kept no file it could restore around your later changes')
    elseif not e.turn then
      notify(
        'this reopened chat does not know which turn that restore put back; :TandemRestore! {turn} restores around your later changes'
      )
    end
    return e.around and e.turn or nil
  end
  if not e.undo then
    notify('that restore changed no file: there is nothing to undo')
  end
  return e.undo
end

--- Restores the files the agent changed from a turn on to how they were before it; around: a
--- file changed since the agent wrote it is restored around those later changes instead of
--- kept. Without a turn: the entry under the cursor (a message, or a restore to undo or to
--- redo around later changes), else a pick among the turns that changed files.
---@param chat table?
---@param turn integer?
---@param around boolean?
function M.restore(chat, turn, around)
  around = around == true
  chat = registry.open_chat(chat)
  if not chat then
    return
  end
  if chat.running then
    notify('a turn is running; stop it (<C-c>), then restore', vim.log.levels.WARN)
    return
  end
  if turn == nil and registry.of_buf() == chat then
    local e = entry_at(chat, api.nvim_win_get_cursor(0)[1] - 1)
    if e and e.restore then
      turn = target(e, around)
      if not turn then
        return
      end
    else
      turn = e and e.turn
    end
  end
  if turn then
    restore_turn(chat, turn, around)
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
      prompt = around and 'Restore the files to before which turn, around your later changes?'
        or 'Restore the files to before which turn?',
      format_item = function(cp)
        local names = vim.tbl_map(function(f)
          return vim.fn.fnamemodify(f, ':~:.')
        end, cp.files or {})
        return 'turn ' .. cp.turn .. ': ' .. table.concat(names, ', ')
      end,
    }, function(cp)
      if cp then
        restore_turn(chat, cp.turn, around)
      end
    end)
  end)
end

return M
