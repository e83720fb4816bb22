--- tandem for Neovim: starts `tandem lsp` for the workspace with Neovim's own LSP client,
--- opens an agent session on it, calls tools, answers the backend's approval questions and
--- gives `:terminal` jobs the bridge environment. Talks to tandem only through the protocol
--- documented in docs/protocol.md.
local M = {}

local NAME = 'tandem'

--- Defaults; `setup()` merges the user's options over these.
local defaults = {
  -- The command that serves one editor over stdio.
  cmd = { 'tandem', 'lsp' },
  -- A buffer's workspace is the nearest ancestor holding one of these; else the cwd.
  root_markers = { '.git', '.tandem' },
  -- Start tandem for every buffer backed by a file.
  autostart = true,
  -- Your own settings, sent as initializationOptions.user (see docs/settings.md): user level,
  -- so tandem honours execution gates here (e.g. shell.autoEffects). Set them only in your
  -- own config, never from a project's.
  user_settings = {},
  -- Other settings, sent as initializationOptions.workspace: workspace level, so tandem
  -- never takes an execution gate from them.
  settings = {},
  -- 'tandem': declare the tandem approval capability, so questions arrive as
  -- tandem/askApproval with the steps, effects and paths, and are answered with
  -- vim.ui.select. 'native': leave it undeclared; questions then arrive as
  -- window/showMessageRequest and Neovim's own handler answers them.
  approvals = 'tandem',
  -- Ask tandem for the bridge environment (tandem/terminalEnv) and give it to every job
  -- Neovim starts from then on, :terminal included, so `tandem mcp call` works there.
  terminal_env = true,
  -- How long synchronous helpers (health, tests) wait for an answer, in ms.
  timeout_ms = 10000,
}

local config = vim.deepcopy(defaults)

--- Per client id: the agent session id, and the names of the variables put into vim.env.
local sessions = {} ---@type table<integer, string>
--- Per client id: the callbacks waiting for the session being opened.
local opening = {} ---@type table<integer, function[]>
local env_names = {} ---@type table<integer, string[]>
--- Per client id: the names of its tools, for :TandemCall completion.
local tool_names = {} ---@type table<integer, string[]>
--- The questions on screen, by id: {settled?}.
local questions = {} ---@type table<string, table>

local has_011 = vim.fn.has('nvim-0.11') == 1

--- Client:request changed from a field function (0.10) to a method (0.11).
local function request(client, method, params, handler, bufnr)
  if has_011 then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

local function notify(msg, level)
  vim.notify('tandem: ' .. msg, level or vim.log.levels.INFO)
end

--- The workspace root for a buffer: nearest marker directory, else the cwd.
local function root_of(bufnr)
  local root = vim.fs.root(bufnr, config.root_markers)
  return root or vim.fn.getcwd()
end

--- The running tandem client for a buffer (or, failing that, for the cwd).
---@param bufnr integer?
---@return vim.lsp.Client?
function M.client(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local clients = vim.lsp.get_clients({ name = NAME, bufnr = bufnr })
  if #clients > 0 then
    return clients[1]
  end
  local root = root_of(bufnr)
  for _, c in ipairs(vim.lsp.get_clients({ name = NAME })) do
    if c.config.root_dir == root then
      return c
    end
  end
  return nil
end

--- The choices of a question, as shown, with the answer kind each sends (docs/protocol.md).
local choices = {
  { title = 'Allow', answer = 'allow_once' },
  { title = 'Deny', answer = 'reject_once' },
  { title = 'Allow for this session', answer = 'allow_always' },
}

--- The prompt of a tandem/askApproval question: who asks, each step exactly as it will run,
--- its effects and the paths that are not plain workspace paths.
---@param q table
---@return string
function M.approval_prompt(q)
  local what = ({ shell = 'run', document = 'access', mcp = 'call' })[q.kind] or 'run'
  local lines = { string.format('tandem: the agent (session %s) asks to %s:', tostring(q.session or '?'), what) }
  for _, step in ipairs(q.steps or {}) do
    table.insert(lines, '  ' .. tostring(step.text))
    if type(step.effects) == 'table' and #step.effects > 0 then
      table.insert(lines, '    effects: ' .. table.concat(step.effects, ', '))
    end
    for _, p in ipairs(step.paths or {}) do
      if p.class and p.class ~= 'inside' and p.class ~= 'harmless' then
        table.insert(lines, string.format('    %s: %s', p.class, p.real or p.path))
      end
    end
  end
  return table.concat(lines, '\n')
end

--- Answers a tandem/askApproval request with vim.ui.select. The request handler runs in a
--- coroutine (Neovim's RPC layer wraps server requests in one), so it waits for an
--- asynchronous vim.ui.select without blocking the editor. Closing the prompt sends no answer
--- (`{answer: null}`): tandem never takes that as a yes.
local function ask_approval(_, params)
  params = params or {}
  local id = tostring(params.id or '')
  local offered = {}
  for _, c in ipairs(choices) do
    if params.options == nil or vim.tbl_contains(params.options, c.answer) then
      table.insert(offered, c)
    end
  end
  questions[id] = {}
  local co = coroutine.running()
  vim.ui.select(offered, {
    prompt = M.approval_prompt(params) .. '\n',
    kind = 'tandem.approval',
    format_item = function(c)
      return c.title
    end,
  }, function(choice)
    vim.schedule(function()
      coroutine.resume(co, choice)
    end)
  end)
  local choice = coroutine.yield()
  local q = questions[id]
  questions[id] = nil
  if q and q.settled and choice ~= nil then
    notify('that question was already settled (' .. q.settled .. '); your answer was not used')
  end
  return { answer = choice and choice.answer or vim.NIL }
end

--- tandem/approvalSettled: the question is over for any reason (answered here or elsewhere,
--- the step ended, cancelled). A prompt still open then no longer counts.
local function approval_settled(_, params)
  params = params or {}
  local q = questions[tostring(params.id or '')]
  if q then
    q.settled = params.settled or 'settled'
  end
end

--- The questions on screen: {id, settled} each (settled: how tandem settled it, or nil).
---@return {id: string, settled: string?}[]
function M.questions()
  local out = {}
  for id, q in pairs(questions) do
    table.insert(out, { id = id, settled = q.settled })
  end
  return out
end

--- tandem/saveDocument {uri}: after an agent edit lands in a buffer that had no unsaved
--- changes, tandem asks the editor to save it, so builds and tests the agent runs see it.
--- It is written like `:write` does (autocmds run, so LSP clients get didSave).
local function save_document(_, params)
  local fname = vim.uri_to_fname(params.uri)
  local bufnr = vim.fn.bufnr(fname)
  if bufnr == -1 or not vim.api.nvim_buf_is_loaded(bufnr) then
    return nil, vim.lsp.rpc.rpc_response_error(vim.lsp.protocol.ErrorCodes.InvalidParams, fname .. ' is not open in Neovim')
  end
  local ok, err = pcall(vim.api.nvim_buf_call, bufnr, function()
    vim.cmd('silent write')
  end)
  if not ok then
    return nil, vim.lsp.rpc.rpc_response_error(vim.lsp.protocol.ErrorCodes.InternalError, 'saving ' .. fname .. ' failed: ' .. tostring(err))
  end
  return vim.NIL
end

--- Closes the current undo step of every loaded buffer a WorkspaceEdit touches (`:h undo-break`).
local function break_undo(edit)
  local uris = {}
  for _, change in ipairs(edit.documentChanges or {}) do
    if change.textDocument then
      table.insert(uris, change.textDocument.uri)
    end
  end
  for uri in pairs(edit.changes or {}) do
    table.insert(uris, uri)
  end
  for _, uri in ipairs(uris) do
    local bufnr = vim.fn.bufnr(vim.uri_to_fname(uri))
    if bufnr ~= -1 and vim.api.nvim_buf_is_loaded(bufnr) then
      vim.api.nvim_buf_call(bufnr, function()
        vim.cmd('let &g:undolevels = &g:undolevels')
      end)
    end
  end
end

--- workspace/applyEdit through Neovim's own handler, with the agent's edit as an undo step of
--- its own: without the breaks, an edit arriving right after the user typed joins the user's
--- undo step, and `u` would take back the user's text together with the agent's.
local function apply_edit(err, params, ctx)
  if params and params.edit then
    break_undo(params.edit)
  end
  local result = vim.lsp.handlers['workspace/applyEdit'](err, params, ctx)
  if params and params.edit then
    break_undo(params.edit)
  end
  return result
end

--- tandem/jobSettled: a bash script that outlived its call ended.
local function job_settled(_, params)
  params = params or {}
  local level = (params['end'] == 'finished' and params.status == 0) and vim.log.levels.INFO or vim.log.levels.WARN
  notify(string.format('job %s (%s) %s%s', tostring(params.job), tostring(params.command),
    tostring(params['end']), params.status ~= nil and (', status ' .. tostring(params.status)) or ''), level)
end

--- Sets the bridge variables into vim.env so every job started from now on inherits them.
local function apply_terminal_env(client_id, env)
  local names = {}
  for k, v in pairs(env or {}) do
    vim.env[k] = v
    table.insert(names, k)
  end
  env_names[client_id] = names
end

local function drop_terminal_env(client_id)
  for _, k in ipairs(env_names[client_id] or {}) do
    vim.env[k] = nil
  end
  env_names[client_id] = nil
end

--- Asks tandem for the integrated-terminal environment and applies it.
---@param client vim.lsp.Client
---@param cb fun(env: table<string,string>?, err: string?)?
function M.terminal_env(client, cb)
  request(client, 'tandem/terminalEnv', vim.empty_dict(), function(err, result)
    if err then
      if cb then
        cb(nil, err.message)
      end
      return
    end
    local env = result and (result.env or result) or {}
    apply_terminal_env(client.id, env)
    if cb then
      cb(env)
    end
  end)
end

local function capabilities()
  local caps = vim.lsp.protocol.make_client_capabilities()
  -- Versioned documentChanges let Neovim refuse an agent edit computed on an older buffer.
  caps.workspace.workspaceEdit.documentChanges = true
  caps.experimental = caps.experimental or {}
  caps.experimental.tandem = { saveDocument = true }
  if config.approvals == 'tandem' then
    caps.experimental.tandem.approvals = true
  end
  return caps
end

--- Starts (or reuses) the tandem client for a file buffer.
---@param bufnr integer?
---@return integer? client_id
function M.start(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  if vim.bo[bufnr].buftype ~= '' then
    return nil
  end
  local root = root_of(bufnr)
  return vim.lsp.start({
    name = NAME,
    cmd = config.cmd,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = vim.fs.basename(root) } },
    init_options = {
      user = next(config.user_settings) and config.user_settings or vim.empty_dict(),
      workspace = next(config.settings) and config.settings or vim.empty_dict(),
    },
    capabilities = capabilities(),
    handlers = {
      ['tandem/askApproval'] = ask_approval,
      ['tandem/approvalSettled'] = approval_settled,
      ['tandem/jobSettled'] = job_settled,
      ['tandem/saveDocument'] = save_document,
      ['workspace/applyEdit'] = apply_edit,
    },
    on_init = function(client)
      if config.terminal_env then
        M.terminal_env(client)
      end
      request(client, 'tandem/listTools', vim.empty_dict(), function(err, result)
        if not err and result then
          tool_names[client.id] = vim.tbl_map(function(t)
            return t.name
          end, result.tools or {})
        end
      end)
    end,
    on_exit = function(_, _, client_id)
      -- on_exit runs in a libuv callback, where vim.env cannot be set.
      vim.schedule(function()
        sessions[client_id] = nil
        opening[client_id] = nil
        tool_names[client_id] = nil
        drop_terminal_env(client_id)
      end)
    end,
  }, { bufnr = bufnr })
end

--- Sends a tandem/* request to the buffer's client, starting it when needed.
---@param method string
---@param params table
---@param cb fun(err: table?, result: any)
function M.request(method, params, cb)
  local client = M.client()
  if not client then
    local id = M.start()
    client = id and vim.lsp.get_client_by_id(id)
  end
  if not client then
    cb({ message = 'tandem is not running for this buffer; open a file of the workspace or see :checkhealth tandem' })
    return
  end
  local ok, id = request(client, method, params, function(err, result)
    cb(err, result)
  end)
  if ok then
    return { client = client, id = id }
  end
end

--- The calls still running, newest last, for :TandemCancel.
local running = {} ---@type table[]

--- Cancels a request M.request returned ($/cancelRequest): a running tool stops, and a
--- question it was waiting on is settled.
---@param handle table
function M.cancel(handle)
  if has_011 then
    handle.client:cancel_request(handle.id)
  else
    handle.client.cancel_request(handle.id)
  end
end

--- The session of the buffer's client, opened on first use. Calls made while it opens wait
--- for it: seen lines are per session, so a second session would not know what the first read.
---@param cb fun(err: table?, session: string?, client: vim.lsp.Client?)
function M.session(cb)
  local client = M.client()
  if client and sessions[client.id] then
    cb(nil, sessions[client.id], client)
    return
  end
  if client and opening[client.id] then
    table.insert(opening[client.id], cb)
    return
  end
  local waiting = { cb }
  local handle
  handle = M.request('tandem/openSession', vim.empty_dict(), function(err, result)
    -- The client the request went to: by the answer, the current buffer may be another
    -- workspace's. There is none when the request could not be sent.
    local c = handle and handle.client
    if c then
      opening[c.id] = nil
      if not err then
        sessions[c.id] = result.session
      end
    end
    for _, w in ipairs(waiting) do
      if err then
        w(err)
      else
        w(nil, result.session, c)
      end
    end
  end)
  if handle then
    opening[handle.client.id] = waiting
  end
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
  M.session(function(err, session)
    if err then
      finish(err)
      return
    end
    if call.cancelled then
      return
    end
    call.handle = M.request('tandem/callTool', {
      session = session,
      name = name,
      arguments = args or vim.empty_dict(),
    }, finish)
  end)
  return call
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
    show(title .. (result.isError and ' (error)' or ''), M.text(result))
  end
end

--- The path tandem should see for the current buffer: relative to the workspace root.
local function buffer_path()
  local name = vim.api.nvim_buf_get_name(0)
  local client = M.client()
  local root = client and client.config.root_dir
  if root and name:sub(1, #root + 1) == root .. '/' then
    return name:sub(#root + 2)
  end
  return name
end

local function commands()
  vim.api.nvim_create_user_command('TandemStart', function()
    M.start()
  end, { desc = 'Start tandem for this buffer' })
  vim.api.nvim_create_user_command('TandemSession', function()
    M.session(function(err, session)
      if err then
        notify(err.message, vim.log.levels.ERROR)
      else
        notify('session ' .. session)
      end
    end)
  end, { desc = 'Open (or show) the agent session of this workspace' })
  vim.api.nvim_create_user_command('TandemCloseSession', function()
    local client = M.client()
    local session = client and sessions[client.id]
    if not session then
      notify('no session is open')
      return
    end
    sessions[client.id] = nil
    M.request('tandem/closeSession', { session = session }, function(err)
      if err then
        notify(err.message, vim.log.levels.ERROR)
      end
    end)
  end, { desc = 'Close the agent session' })
  vim.api.nvim_create_user_command('TandemTools', function()
    M.request('tandem/listTools', vim.empty_dict(), function(err, result)
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
    M.call('read', args, report('read ' .. args.path))
  end, { nargs = '*', complete = 'file', desc = 'Read a file as the agent sees it: TandemRead [PATH [LINES]]' })
  vim.api.nvim_create_user_command('TandemCancel', function()
    local call = running[#running]
    if not call then
      notify('no tool call is running')
      return
    end
    call.cancel()
  end, { desc = 'Cancel the newest running tool call' })
  vim.api.nvim_create_user_command('TandemInstall', function()
    local client = M.client()
    local root = client and client.config.root_dir or root_of(0)
    local lines = {}
    local refused = false
    for _, r in ipairs(require('tandem.install').run(root)) do
      table.insert(lines, r.file .. ': ' .. r.what)
      refused = refused or r.what:find('^refused') ~= nil or r.what:find('^failed') ~= nil
    end
    notify('set up agents in ' .. root .. '\n' .. table.concat(lines, '\n'), refused and vim.log.levels.WARN or vim.log.levels.INFO)
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
    M.call(name, args, report(name))
  end, {
    nargs = '+',
    desc = 'Call a tool: TandemCall TOOL [JSON]',
    complete = function(lead, line)
      if line:match('^%S+%s+%S+%s') then
        return {}
      end
      local client = M.client()
      return vim.tbl_filter(function(n)
        return vim.startswith(n, lead)
      end, client and tool_names[client.id] or {})
    end,
  })
end

--- Configures tandem and starts it for file buffers.
---@param opts table? see `:help tandem-setup`
function M.setup(opts)
  config = vim.tbl_deep_extend('force', vim.deepcopy(defaults), opts or {})
  if config.approvals ~= 'tandem' and config.approvals ~= 'native' then
    error("tandem: approvals must be 'tandem' or 'native', not " .. vim.inspect(config.approvals))
  end
  commands()
  local group = vim.api.nvim_create_augroup('tandem', { clear = true })
  if config.autostart then
    vim.api.nvim_create_autocmd({ 'BufReadPost', 'BufNewFile' }, {
      group = group,
      callback = function(ev)
        M.start(ev.buf)
      end,
    })
    for _, b in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_is_loaded(b) and vim.api.nvim_buf_get_name(b) ~= '' then
        M.start(b)
      end
    end
  end
end

--- The names of the variables tandem gave to jobs, sorted (values are never shown: one is a token).
---@return string[]
function M.terminal_env_names()
  local names = {}
  for _, list in pairs(env_names) do
    vim.list_extend(names, list)
  end
  table.sort(names)
  return names
end

--- The merged configuration (read-only copy), for :checkhealth.
function M.config()
  return vim.deepcopy(config)
end

return M
