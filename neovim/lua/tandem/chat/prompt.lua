--- The prompt area below the separator and what is sent from it: prompts and their content
--- blocks (`@FILE` links, attachments), the queue of prompts typed while a turn runs, stopping a
--- turn, and `@` completion of workspace files.
local changes = require('tandem.chat.changes')
local compat = require('tandem.compat')
local notify = require('tandem.notify')
local registry = require('tandem.chat.registry')
local transcript = require('tandem.chat.transcript')

local M = {}

local api = vim.api
local request = registry.request
local draw_queue, insert, meta_turn, note, sep_row, show_turn, side =
  transcript.draw_queue,
  transcript.insert,
  transcript.meta_turn,
  transcript.note,
  transcript.sep_row,
  transcript.show_turn,
  transcript.side

--- The prompt area's text.
local function prompt_text(chat)
  local lines = api.nvim_buf_get_lines(chat.buf, sep_row(chat) + 1, -1, false)
  return vim.trim(table.concat(lines, '\n'))
end

local function set_prompt(chat, text)
  api.nvim_buf_set_lines(chat.buf, sep_row(chat) + 1, -1, false, vim.split(text, '\n', { plain = true }))
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

--- Models take images of at most 5 MiB (tandem's bound, docs/tools.md).
local max_image_bytes = 5 * 1024 * 1024

--- The image type of a file's first bytes (PNG, JPEG, GIF, WebP), or nil.
local function image_type(head)
  if head:sub(1, 8) == '\137PNG\r\n\26\n' then
    return 'image/png'
  elseif head:sub(1, 3) == '\255\216\255' then
    return 'image/jpeg'
  elseif head:sub(1, 6) == 'GIF87a' or head:sub(1, 6) == 'GIF89a' then
    return 'image/gif'
  elseif head:sub(1, 4) == 'RIFF' and head:sub(9, 12) == 'WEBP' then
    return 'image/webp'
  end
end

--- The image block of the file at abs when it is an image within the bound, else nil.
local function image_block(abs, size)
  local f = io.open(abs, 'rb')
  if not f then
    return nil
  end
  local head = f:read(12) or ''
  local mime = image_type(head)
  local data = mime and size <= max_image_bytes and head .. (f:read('*a') or '')
  f:close()
  if data then
    return { type = 'image', data = vim.base64.encode(data), mimeType = mime }
  end
end

--- The prompt's content blocks: the text as typed, for each `@FILE` that exists in the
--- workspace an image block when it is an image (PNG, JPEG, GIF, WebP within 5 MiB), else a
--- resource_link, and the attachments the chat holds.
local function blocks(chat, item)
  local out = { { type = 'text', text = item.text } }
  local seen = {}
  for path in item.text:gmatch('@([%w%._/%-]+)') do
    local abs = vim.fs.normalize(chat.root .. '/' .. path)
    local stat = not seen[abs] and vim.uv.fs_stat(abs)
    if stat then
      seen[abs] = true
      local image = stat.type == 'file' and image_block(abs, stat.size)
      table.insert(out, image or { type = 'resource_link', uri = vim.uri_from_fname(abs), name = path })
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
  if entry then
    entry.text, entry.replaces = item.text, item.replaces
  end
  local lines = vim.split(item.text, '\n', { plain = true })
  for _, a in ipairs(item.attach or {}) do
    table.insert(lines, '(attached: ' .. (a.name or (a.resource and a.resource.uri) or a.uri or '?') .. ')')
  end
  insert(chat, lines)
  chat.last = nil
  draw_queue(chat)
  local params = { sessionId = chat.id, prompt = blocks(chat, item) }
  if item.replaces then -- edit and resend: tandem cuts the conversation back to before that turn
    params._meta = { tandem = { replaces = item.replaces } }
  end
  request(chat, 'session/prompt', params, function(err, result)
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

--- Sends the prompt area's text (or queues it while a turn runs).
---@param chat table?
---@param text string?
---@param attach table[]? extra content blocks
function M.send(chat, text, attach)
  chat = registry.open_chat(chat)
  if not chat then
    return
  end
  local from_area = text == nil
  text = text or prompt_text(chat)
  local all = vim.list_extend(vim.deepcopy(chat.attach), attach or {})
  if text == '' and #all == 0 then
    if from_area and chat.replacing then -- an emptied prompt area sent: no longer editing
      chat.replacing = nil
      draw_queue(chat)
    end
    return
  end
  if from_area then
    set_prompt(chat, '')
  end
  chat.attach = {}
  local item = { text = text, attach = all, replaces = from_area and chat.replacing or nil }
  if from_area then
    chat.replacing = nil
  end
  if chat.running then
    table.insert(chat.queue, item)
    draw_queue(chat)
    return
  end
  run(chat, item)
end

--- ge on a user message: its text into the prompt area, to edit; sent from there, it replaces
--- that message and everything after it (tandem cuts the conversation back); sending the area
--- emptied stops editing. gR on the message first puts the files back.
---@param chat table
function M.edit(chat)
  local e = transcript.message_at(chat, api.nvim_win_get_cursor(0)[1] - 1)
  if not e or not e.turn or not e.text then
    notify('put the cursor on a message of yours to edit it and send it again')
    return
  end
  set_prompt(chat, e.text)
  chat.replacing = e.turn
  draw_queue(chat)
  api.nvim_win_set_cursor(0, { sep_row(chat) + 2, 0 })
end

--- Stops the running turn at once (session/cancel); queued prompts go back to the prompt area.
---@param chat table?
function M.stop(chat)
  chat = chat or registry.get()
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
  if not changes.jump() then
    M.send()
  end
end

--- Omni completion of `@FILE` in the prompt: the workspace's files.
function M.omnifunc(findstart, base)
  local chat = registry.of_buf()
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

return M
