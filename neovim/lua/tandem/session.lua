--- The agent session of a workspace's client, the tool calls made in it and the jobs they
--- leave running.
local client = require('tandem.client')
local compat = require('tandem.compat')
local notify = require('tandem.notify')

local M = {}

--- Per client id: the agent session id.
local sessions = {} ---@type table<integer, string>
--- Per client id: the callbacks waiting for the session being opened.
local opening = {} ---@type table<integer, function[]>
--- The calls still running, newest last, for :TandemCancel.
local running = {} ---@type table[]

--- Forgets the session of a client that exited.
---@param client_id integer
function M.forget(client_id)
  sessions[client_id] = nil
  opening[client_id] = nil
end

--- Cancels a request client.request returned ($/cancelRequest): a running tool stops, and a
--- question it was waiting on is settled.
---@param handle table
function M.cancel(handle)
  compat.cancel_request(handle.client, handle.id)
end

--- The session of the buffer's client, opened on first use. Calls made while it opens wait
--- for it: seen lines are per session, so a second session would not know what the first read.
---@param cb fun(err: table?, session: string?, client: vim.lsp.Client?)
function M.open(cb)
  local c = client.get()
  if c and sessions[c.id] then
    cb(nil, sessions[c.id], c)
    return
  end
  if c and opening[c.id] then
    table.insert(opening[c.id], cb)
    return
  end
  local waiting = { cb }
  local handle
  handle = client.request('tandem/openSession', vim.empty_dict(), function(err, result)
    -- The client the request went to: by the answer, the current buffer may be another
    -- workspace's. There is none when the request could not be sent.
    local to = handle and handle.client
    if to then
      opening[to.id] = nil
      if not err then
        sessions[to.id] = result.session
      end
    end
    for _, w in ipairs(waiting) do
      if err then
        w(err)
      else
        w(nil, result.session, to)
      end
    end
  end)
  if handle then
    opening[handle.client.id] = waiting
  end
end

--- Closes the session of the buffer's client.
---@param cb fun(err: table?)
---@return boolean closing false when no session is open
function M.close(cb)
  local c = client.get()
  local session = c and sessions[c.id]
  if not session then
    return false
  end
  sessions[c.id] = nil
  client.request('tandem/closeSession', { session = session }, cb)
  return true
end

--- Calls one tool in the buffer's session; cb gets the CallToolResult. Returns a handle whose
--- cancel() stops the call.
---@param name string
---@param args table?
---@param cb fun(err: table?, result: table?)
---@return {cancel: fun()}
function M.call(name, args, cb)
  local call, ended = { cancelled = false }, false
  local function finish(err, result)
    if ended then
      return
    end
    ended = true
    for i, c in ipairs(running) do
      if c == call then
        table.remove(running, i)
      end
    end
    cb(err, result)
  end
  --- Neovim drops a request's callback when the server acknowledges its cancellation, so the
  --- call ends here, with the error tandem documents for it.
  function call.cancel()
    call.cancelled = true
    if call.handle then
      M.cancel(call.handle)
    end
    finish({ code = -32800, message = 'The request tandem/callTool was cancelled.', data = { code = 'cancelled' } })
  end
  table.insert(running, call)
  M.open(function(err, session)
    if err then
      finish(err)
      return
    end
    if call.cancelled then
      return
    end
    call.handle = client.request('tandem/callTool', {
      session = session,
      name = name,
      arguments = args or vim.empty_dict(),
    }, finish)
  end)
  return call
end

--- The newest call still running, if any.
---@return {cancel: fun()}?
function M.newest_call()
  return running[#running]
end

--- The text of a CallToolResult.
---@param result table
---@return string
function M.text(result)
  local parts = {}
  for _, c in ipairs(result.content or {}) do
    if c.type == 'text' then
      table.insert(parts, c.text)
    end
  end
  return table.concat(parts, '\n')
end

--- tandem/jobSettled: a bash script that outlived its call ended.
function M.job_settled(_, params)
  params = params or {}
  local level = (params['end'] == 'finished' and params.status == 0) and vim.log.levels.INFO or vim.log.levels.WARN
  notify(
    string.format(
      'job %s (%s) %s%s',
      tostring(params.job),
      tostring(params.command),
      tostring(params['end']),
      params.status ~= nil and (', status ' .. tostring(params.status)) or ''
    ),
    level
  )
end

return M
