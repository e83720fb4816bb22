--- The open chats: by session id, the one in use per workspace, the chat a buffer shows, and
--- requests on a chat's connection.
local compat = require('tandem.compat')
local notify = require('tandem.notify')

local M = {}

local api = vim.api

--- Chats by ACP session id.
local chats = {} ---@type table<string, table>
--- The chat in use per workspace root: its session id.
local current = {} ---@type table<string, string>

M.chats = chats
M.current = current

--- Sends a request on the chat's connection; cb(err, result), with an error when tandem is gone.
function M.request(chat, method, params, cb)
  local ok = compat.request(chat.client, method, params, function(err, result)
    cb(err, result)
  end)
  if not ok then
    cb({ message = 'tandem is not running for this chat; reopen it with :TandemChat' })
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
function M.root()
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
  local id = current[M.root()]
  return id and chats[id] or nil
end

--- chat, else the current one; nil, told to the user, when no chat is open.
function M.open_chat(chat)
  chat = chat or M.get()
  if not chat then
    notify('no chat is open; :TandemChat opens one', vim.log.levels.WARN)
  end
  return chat
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
