--- The :Tandem* user commands, and the tandem://result buffer they show results in.
local client = require('tandem.client')
local notify = require('tandem.notify')
local session = require('tandem.session')

local M = {}

--- Shows text in the tandem result buffer (a scratch buffer reused between calls).
local function show(title, text)
  local buf
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_get_name(b):match('tandem://result$') then
      buf = b
    end
  end
  if not buf then
    buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(buf, 'tandem://result')
    vim.bo[buf].bufhidden = 'hide'
  end
  local lines = vim.split(text, '\n', { plain = true })
  table.insert(lines, 1, '# ' .. title)
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  if vim.fn.bufwinid(buf) == -1 then
    vim.cmd('botright split')
    vim.api.nvim_win_set_buf(0, buf)
  end
end

local function report(title)
  return function(err, result)
    if err then
      notify(title .. ': ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    show(title .. (result.isError and ' (error)' or ''), session.text(result))
  end
end

--- The path tandem should see for the current buffer: relative to the workspace root.
local function buffer_path()
  local name = vim.api.nvim_buf_get_name(0)
  local c = client.get()
  local root = c and c.config.root_dir
  if root and name:sub(1, #root + 1) == root .. '/' then
    return name:sub(#root + 2)
  end
  return name
end

--- The chat's commands (`:help tandem-chat`).
local function chat_commands()
  local chat = require('tandem.chat')
  vim.api.nvim_create_user_command('TandemChat', function(o)
    if o.args == 'history' then
      chat.history()
    elseif o.args == 'new' then
      chat.new()
    else
      chat.open(o.args)
    end
  end, {
    nargs = '*',
    desc = 'Open the chat of this workspace and send PROMPT: TandemChat [PROMPT | history | new]',
    complete = function(lead, line)
      local words = { 'history', 'new' }
      -- `/` as the prompt's first word: the commands the chat's session advertised.
      if vim.startswith(lead, '/') and line:match('^%s*%S+%s+(%S*)$') == lead then
        words = {}
        for _, c in ipairs(chat.commands()) do
          table.insert(words, '/' .. c.name)
        end
      end
      return vim.tbl_filter(function(w)
        return vim.startswith(w, lead)
      end, words)
    end,
  })
  vim.api.nvim_create_user_command('TandemStop', function()
    chat.stop()
  end, { desc = "Stop the chat's running turn" })
  vim.api.nvim_create_user_command('TandemRestore', function(o)
    chat.restore(nil, tonumber(o.args), o.bang)
  end, {
    nargs = '?',
    bang = true,
    desc = 'Restore the files the agent changed to before a turn (!: around your later changes): TandemRestore[!] [TURN]',
  })
  vim.api.nvim_create_user_command('TandemChanges', function(o)
    if chat.changes(nil, tonumber(o.args)) then
      vim.cmd('copen')
    end
  end, { nargs = '?', desc = 'The files the agent changed in a turn, in the quickfix list: TandemChanges [TURN]' })
  vim.api.nvim_create_user_command('TandemAsk', function(o)
    chat.ask(o.line1, o.line2, o.args)
  end, { nargs = '*', range = true, desc = "Send the selected lines to the chat: '<,'>TandemAsk [PROMPT]" })
  vim.api.nvim_create_user_command('TandemDiagnostics', function()
    chat.diagnostics()
  end, { desc = "Attach this buffer's diagnostics to the chat's next prompt" })
  vim.api.nvim_create_user_command('TandemModel', function(o)
    chat.model(o.args)
  end, { nargs = '?', desc = "Switch the chat's model: TandemModel [PROVIDER/MODEL]" })
  vim.api.nvim_create_user_command('TandemPlan', function()
    chat.plan()
  end, { desc = 'Plan mode on or off: only reading steps run while it is on' })
end

--- Creates (or replaces) the user commands.
function M.create()
  chat_commands()
  vim.api.nvim_create_user_command('TandemStart', function()
    client.start()
  end, { desc = 'Start tandem for this buffer' })
  vim.api.nvim_create_user_command('TandemBuild', function()
    local ok, err = pcall(require('tandem.build').run)
    if not ok then
      notify(tostring(err):gsub('^tandem: ', ''), vim.log.levels.ERROR)
      return
    end
    -- The next start uses it: the running tandem keeps serving until restarted.
    require('tandem.config').resolve_cmd()
  end, { desc = 'Build the tandem this plugin starts from its repository (needs Go)' })
  vim.api.nvim_create_user_command('TandemSession', function()
    session.open(function(err, id)
      if err then
        notify(err.message, vim.log.levels.ERROR)
      else
        notify('session ' .. id)
      end
    end)
  end, { desc = 'Open (or show) the agent session of this workspace' })
  vim.api.nvim_create_user_command('TandemCloseSession', function()
    local closing = session.close(function(err)
      if err then
        notify(err.message, vim.log.levels.ERROR)
      end
    end)
    if not closing then
      notify('no session is open')
    end
  end, { desc = 'Close the agent session' })
  vim.api.nvim_create_user_command('TandemTools', function()
    client.request('tandem/listTools', vim.empty_dict(), function(err, result)
      if err then
        notify(err.message, vim.log.levels.ERROR)
        return
      end
      local lines = {}
      for _, t in ipairs(result.tools or {}) do
        table.insert(lines, t.name .. ' — ' .. (t.description or ''):gsub('\n.*', ''))
      end
      show('tools', table.concat(lines, '\n'))
    end)
  end, { desc = 'List the tools tandem offers' })
  vim.api.nvim_create_user_command('TandemRead', function(o)
    local args = { path = o.fargs[1] or buffer_path() }
    if o.fargs[2] then
      args.lines = o.fargs[2]
    end
    session.call('read', args, report('read ' .. args.path))
  end, { nargs = '*', complete = 'file', desc = 'Read a file as the agent sees it: TandemRead [PATH [LINES]]' })
  vim.api.nvim_create_user_command('TandemCancel', function()
    local call = session.newest_call()
    if not call then
      notify('no tool call is running')
      return
    end
    call.cancel()
  end, { desc = 'Cancel the newest running tool call' })
  vim.api.nvim_create_user_command('TandemInstall', function()
    local c = client.get()
    local root = c and c.config.root_dir or client.root(0)
    local lines, ok = require('tandem.install').run(root)
    notify(
      'set up agents in ' .. root .. '\n' .. table.concat(lines, '\n'),
      ok and vim.log.levels.INFO or vim.log.levels.WARN
    )
  end, { desc = "Put tandem's MCP entry and working rule into this workspace's agent configs" })
  vim.api.nvim_create_user_command('TandemCall', function(o)
    local name, json = o.args:match('^(%S+)%s*(.*)$')
    if not name then
      notify('usage: :TandemCall TOOL [JSON]', vim.log.levels.ERROR)
      return
    end
    local ok, args = true, vim.empty_dict()
    if json ~= '' then
      ok, args = pcall(vim.json.decode, json)
    end
    if not ok or type(args) ~= 'table' then
      notify('the arguments must be one JSON object, e.g. :TandemCall read {"path":"README.md"}', vim.log.levels.ERROR)
      return
    end
    session.call(name, args, report(name))
  end, {
    nargs = '+',
    desc = 'Call a tool: TandemCall TOOL [JSON]',
    complete = function(lead, line)
      if line:match('^%S+%s+%S+%s') then
        return {}
      end
      return vim.tbl_filter(function(n)
        return vim.startswith(n, lead)
      end, client.tool_names(client.get()))
    end,
  })
end

return M
