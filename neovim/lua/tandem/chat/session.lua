--- The chat's ACP session on the workspace's `tandem lsp` connection: opening a new session or
--- a stored one (history), session/update rendered into the transcript, and the session's config
--- options (model, plan mode).
local buffer = require('tandem.chat.buffer')
local changes = require('tandem.chat.changes')
local compat = require('tandem.compat')
local notify = require('tandem.notify')
local prompt_area = require('tandem.chat.prompt')
local registry = require('tandem.chat.registry')
local transcript = require('tandem.chat.transcript')

local M = {}

local api = vim.api
local request = registry.request
local chats, current = registry.chats, registry.current
local append, card_start, card_update, insert, meta_turn, note, side, status_changed =
  transcript.append,
  transcript.card_start,
  transcript.card_update,
  transcript.insert,
  transcript.meta_turn,
  transcript.note,
  transcript.side,
  transcript.status_changed

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

--- A notice a reopened chat replays where the live one showed it (`_meta.tandem.notice`): a
--- restore, a stop, a turn cut short; nil for other text.
local function replayed_notice(u)
  local t = type(u._meta) == 'table' and u._meta.tandem
  if type(t) == 'table' and type(t.notice) == 'string' and type(t.text) == 'string' then
    return t
  end
end

--- session/update: a step of a turn (or of a chat being loaded).
local function update(chat, u)
  local kind = u.sessionUpdate
  local notice = kind == 'agent_message_chunk' and replayed_notice(u)
  if notice then
    -- As the live chat showed it: a restore with its keys, a stop as a note.
    if notice.notice == 'restore' then
      changes.show_restore(chat, 'restore: ', notice.text)
    elseif notice.notice == 'rewind' and type(notice.turn) == 'number' then
      changes.rewound(chat, notice.turn, notice.text)
    else
      side(chat, 'agent')
      note(chat, notice.notice == 'stopped' and 'stopped' or notice.text)
    end
  elseif kind == 'agent_message_chunk' or kind == 'agent_thought_chunk' then
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
      if chat.last_user then -- what ge edits
        chat.last_user.text = (chat.last_user.text or '') .. (c.text or '')
      end
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

--- The commands each session advertised (ACP's available_commands_update), by session id: kept
--- apart from the chats, as they may come before session/new's answer names the session.
local commands_of = {} ---@type table<string, table[]>

--- The commands of the workspace's chat (root: the current buffer's workspace), for
--- `:TandemChat /` completion; empty while no chat is open.
---@param root string?
---@return { name: string, description: string, input: { hint: string }? }[]
function M.commands(root)
  local id = current[root or registry.root()]
  return id and commands_of[id] or {}
end

--- The LSP handler of session/update.
function M.on_update(_, params)
  local u = params and params.update
  if type(u) == 'table' and u.sessionUpdate == 'available_commands_update' and type(u.availableCommands) == 'table' then
    commands_of[params.sessionId] = u.availableCommands
  end
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
    local chat = buffer.new(c, root, res.sessionId)
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
  local root = registry.root()
  local function go(chat)
    buffer.show(chat)
    if (prompt and prompt ~= '') or (attach and #attach > 0) then
      prompt_area.send(chat, prompt or '', attach)
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
  local root = registry.root()
  current[root] = nil
  M.open(nil, nil, cb)
end

--- :TandemChat history: picks a past chat of the workspace's tandem and replays it.
function M.history(cb)
  local root = registry.root()
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
        buffer.show(chats[s.sessionId])
        if cb then
          cb(chats[s.sessionId])
        end
        return
      end
      local chat = buffer.new(c, s.cwd or root, s.sessionId)
      current[root] = s.sessionId
      chat.loading = true
      buffer.show(chat)
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
  local chat = registry.get()
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
  local chat = registry.get()
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

return M
