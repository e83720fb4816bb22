-- The Neovim plugin against a real `tandem lsp`, in real (headless) Neovim.
-- Run through neovim/tests/run, which provides a private environment; prints one line per
-- test and `N passed, N failed`, and exits non-zero when a test failed.
local tandem = require('tandem')
-- Neovim's own vim.ui.select (an inputlist), before any test replaces it.
local default_select = vim.ui.select
vim.o.showmode = false
-- Neovim's applyEdit handler prints the edit's label; keep the report to one line per test.
_G.print = function() end

local SAMPLE = assert(os.getenv('TANDEM_TEST_SAMPLE'), 'run me through neovim/tests/run')
local TMP = assert(os.getenv('TANDEM_TEST_TMP'))

-- A tandem of another build than the plugin (stamped at an older commit) makes the plugin warn
-- at every start, which the tests counting notifications see: say so before them.
do
  local versions = require('tandem.version')
  local server = vim.trim(vim.system({ 'tandem', 'version' }, { text = true }):wait().stdout or '')
  server = server:gsub('^tandem ', '')
  if versions.compare(server, versions.plugin()) == 'differ' then
    io.stdout:write(
      string.format(
        'note: tandem %s on PATH is another build than this plugin (%s), so every start warns: make build\n',
        server,
        versions.plugin()
      )
    )
  end
end

local tests = {}
local function test(name, fn)
  table.insert(tests, { name = name, fn = fn })
end

local function wait_for(what, cond, ms)
  if not vim.wait(ms or 10000, cond, 10) then
    error('timed out waiting for ' .. what, 2)
  end
end

local function eq(want, got, what)
  if not vim.deep_equal(want, got) then
    error(string.format('%s:\n  want %s\n  got  %s', what, vim.inspect(want), vim.inspect(got)), 2)
  end
end

local function contains(haystack, needle, what)
  if not haystack:find(needle, 1, true) then
    error(string.format('%s: %q not found in:\n%s', what, needle, haystack), 2)
  end
end

local function read_file(path)
  local f = assert(io.open(path, 'rb'))
  local s = f:read('*a')
  f:close()
  return s
end

local wsn = 0
--- A fresh copy of the sample workspace, made the cwd (it has no root marker).
local function workspace()
  wsn = wsn + 1
  local dir = TMP .. '/ws' .. wsn
  vim.fn.system({ 'cp', '-r', SAMPLE, dir })
  assert(vim.v.shell_error == 0, 'copying the sample workspace failed')
  vim.cmd.cd(vim.fn.fnameescape(dir))
  return dir
end

--- Opens a workspace file and waits for tandem to be attached and initialised.
local function open(dir, rel)
  vim.cmd.edit(vim.fn.fnameescape(dir .. '/' .. rel))
  local buf = vim.api.nvim_get_current_buf()
  wait_for('tandem to attach to ' .. rel, function()
    local c = tandem.client(buf)
    return c ~= nil and c.server_capabilities ~= nil and vim.lsp.buf_is_attached(buf, c.id)
  end)
  return buf
end

--- Calls a tool through the plugin and waits for the result.
local function call(tool, args)
  local done, err, res = false, nil, nil
  tandem.call(tool, args, function(e, r)
    done, err, res = true, e, r
  end)
  wait_for('the ' .. tool .. ' call', function()
    return done
  end, 30000)
  if err then
    error(tool .. ': ' .. (err.message or vim.inspect(err)), 2)
  end
  return res, tandem.text(res)
end

--- Stops clients: Client:stop is a method from 0.11 on, a field function before.
local function stop(clients, force)
  for _, c in ipairs(clients) do
    if vim.fn.has('nvim-0.11') == 1 then
      c:stop(force)
    else
      c.stop(force)
    end
  end
end

local function lines(buf)
  return vim.api.nvim_buf_get_lines(buf, 0, -1, false)
end

--- Stops every language-server client (tandem, and gopls where a test started it) and wipes
--- every buffer, so the next test starts clean. Each test has its own workspace (root), so a
--- client that is slow to go is never reused.
local function reset()
  local function gone()
    return #vim.lsp.get_clients() == 0
  end
  stop(vim.lsp.get_clients())
  if not vim.wait(2000, gone, 10) then
    stop(vim.lsp.get_clients(), true)
    vim.wait(2000, gone, 10)
  end
  vim.cmd('silent! %bwipeout!')
end

--- Runs every callback scheduled so far: vim.schedule keeps their order.
local function flush_scheduled()
  local flushed = false
  vim.schedule(function()
    flushed = true
  end)
  wait_for('the scheduled callbacks', function()
    return flushed
  end)
end

--- Captures vim.notify messages while fn runs.
local function notifications(fn)
  local seen, orig = {}, vim.notify
  vim.notify = function(msg, level)
    table.insert(seen, { msg = msg, level = level })
  end
  local ok, err = pcall(fn, seen)
  vim.notify = orig
  if not ok then
    error(err, 0)
  end
  return seen
end

test('read_sees_unsaved_buffer', function()
  local ws = workspace()
  tandem.setup({})
  local path = 'internal/names/names.go'
  local buf = open(ws, path)
  local disk = read_file(ws .. '/' .. path)
  -- Typed, never saved: a line with multibyte and astral characters (UTF-16 surrogates),
  -- then an incremental change after the astral character on that line.
  local typed = '// typed, not saved: ünïcødé 𝄞 '
  vim.api.nvim_buf_set_lines(buf, 1, 1, false, { typed .. 'end' })
  vim.api.nvim_buf_set_text(buf, 1, #typed, 1, #typed + #'end', { 'fin' })
  eq(true, vim.bo[buf].modified, 'the buffer is modified')
  local res, text = call('read', { path = path })
  eq(false, res.isError == true, 'read is not an error')
  contains(text, '// typed, not saved: ünïcødé 𝄞 fin', 'the read shows the unsaved line')
  contains(text, 'package names', 'the read shows the rest of the buffer')
  eq(disk, read_file(ws .. '/' .. path), 'the file on disk is untouched')
end)

--- The text of the tandem://result buffer, once it has a heading.
local function result_buffer()
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_get_name(b):match('tandem://result$') then
      return table.concat(vim.api.nvim_buf_get_lines(b, 0, -1, false), '\n')
    end
  end
end

test('a_call_starts_tandem_when_it_is_not_running', function()
  local ws = workspace()
  tandem.setup({ autostart = false })
  vim.cmd.edit(vim.fn.fnameescape(ws .. '/README.md'))
  eq(nil, tandem.client(), 'not started yet')
  -- The call starts tandem itself; its request follows initialize on the same pipe.
  local res, text = call('read', { path = 'README.md' })
  eq(false, res.isError == true, 'the read works: ' .. text)
  contains(text, '[README.md#', 'the read shows the file')
end)

test('user_commands_read_and_call_tools_into_the_result_buffer', function()
  local ws = workspace()
  tandem.setup({})
  open(ws, 'internal/names/names.go')
  vim.cmd('TandemRead')
  wait_for('the read result', function()
    return (result_buffer() or ''):find('[internal/names/names.go#', 1, true) ~= nil
  end)
  contains(result_buffer(), '# read internal/names/names.go', 'the result is headed by the call')
  vim.cmd('wincmd p')
  vim.cmd('TandemCall grep {"pattern": "stranger"}')
  wait_for('the grep result', function()
    return (result_buffer() or ''):find('# grep', 1, true) ~= nil
  end)
  contains(result_buffer(), 'Hello, stranger!', 'grep found the line')
  wait_for('the tool names', function()
    return #vim.fn.getcompletion('TandemCall ', 'cmdline') > 0
  end)
  local completed = vim.fn.getcompletion('TandemCall gr', 'cmdline')
  eq(
    true,
    vim.tbl_contains(completed, 'grep') and not vim.tbl_contains(completed, 'read'),
    ':TandemCall completes tool names: ' .. vim.inspect(completed)
  )
  local seen = notifications(function()
    vim.cmd('TandemCall read {path: 1}')
  end)
  contains(seen[1] and seen[1].msg or '', 'must be one JSON object', 'bad arguments are refused with the next step')
end)

test('the_workspace_is_the_nearest_marker_directory', function()
  -- A project with .tandem inside a git repository is its own workspace (from 0.11 on,
  -- vim.fs.root's list of markers is in priority order, so it would pick the repository).
  local ws = workspace()
  vim.fn.mkdir(ws .. '/.git', 'p')
  vim.fn.mkdir(ws .. '/internal/.tandem', 'p')
  tandem.setup({})
  local buf = open(ws, 'internal/names/names.go')
  eq(ws .. '/internal', tandem.client(buf).config.root_dir, 'the nearest marker wins')
  local other = open(ws, 'README.md')
  eq(ws, tandem.client(other).config.root_dir, 'outside it, the repository')
end)

test('the_files_of_a_workspace_share_one_tandem', function()
  -- One tandem per workspace: a second file's buffer joins the running client, so a session
  -- sees (and edits through) every buffer of the workspace.
  local ws = workspace()
  tandem.setup({})
  local a = open(ws, 'internal/names/names.go')
  local b = open(ws, 'cmd/greet/main.go')
  eq(tandem.client(a).id, tandem.client(b).id, 'both buffers have the same client')
  eq(1, #vim.lsp.get_clients({ name = 'tandem' }), 'one tandem runs')
end)

test('a_session_belongs_to_the_client_that_opened_it', function()
  -- Two workspaces, two tandem clients. The user moves to the other workspace's buffer while
  -- the first one's session is being opened: the session stays with the first client.
  local a = workspace()
  tandem.setup({})
  local buf_a = open(a, 'README.md')
  local b = workspace()
  local buf_b = open(b, 'README.md')
  local client_a, client_b = tandem.client(buf_a), tandem.client(buf_b)
  assert(client_a.id ~= client_b.id, 'each workspace has its own client')
  vim.api.nvim_set_current_buf(buf_a)
  local got
  tandem.session(function(err, session, client)
    got = { err = err, session = session, client = client }
  end)
  vim.api.nvim_set_current_buf(buf_b)
  wait_for('the session', function()
    return got ~= nil
  end)
  eq(nil, got.err, 'the session opened')
  eq(client_a.id, got.client.id, 'the session is reported with the client that opened it')
  local again
  tandem.session(function(_, session, client)
    again = { session = session, client = client.id }
  end)
  wait_for("the second workspace's session", function()
    return again ~= nil
  end)
  eq(client_b.id, again.client, 'the second workspace asks its own client')
  vim.api.nvim_set_current_buf(buf_a)
  local kept
  tandem.session(function(_, session)
    kept = session
  end)
  eq(got.session, kept, 'the first workspace keeps its session')
end)

test('sessions_asked_for_at_once_are_one', function()
  -- Seen lines are per session: two calls made before the session opened must share it.
  local ws = workspace()
  tandem.setup({})
  open(ws, 'README.md')
  local got = {}
  for _ = 1, 3 do
    tandem.session(function(err, session)
      table.insert(got, err and ('error: ' .. err.message) or session)
    end)
  end
  wait_for('the sessions', function()
    return #got == 3
  end)
  eq(true, got[1] == got[2] and got[2] == got[3], 'one session for all: ' .. vim.inspect(got))
end)

--- The tag of the first [path#TAG] line of a tool's text.
local function tag_of(text)
  return assert(text:match('%[[^%]\n]-#(%x+)%]'), 'no [path#TAG] in:\n' .. text)
end

local function in_buffer(buf, cmd)
  vim.api.nvim_buf_call(buf, function()
    vim.cmd(cmd)
  end)
end

test('agent_edit_keeps_unsaved_user_change_and_undo_reverts_it', function()
  local ws = workspace()
  tandem.setup({})
  local path = 'internal/names/names.go'
  local buf = open(ws, path)
  local disk = read_file(ws .. '/' .. path)
  -- The user types a line (keystrokes, as typed: their own undo step) and does not save.
  vim.api.nvim_feedkeys(vim.keycode('2Go// the user is still writing this<Esc>'), 'xt', false)
  local users = lines(buf)
  -- The agent reads (it sees the buffer) and edits another line of that version.
  local _, text = call('read', { path = path })
  local res, out = call('edit', {
    files = { { path = path, tag = tag_of(text), old = 'return "Hello, stranger!"', new = 'return "Hi, stranger!"' } },
  })
  eq(false, res.isError == true, 'the edit applies: ' .. out)
  local want = vim.deepcopy(users)
  for i, l in ipairs(want) do
    want[i] = l:gsub('return "Hello, stranger!"', 'return "Hi, stranger!"')
  end
  eq(want, lines(buf), 'the buffer shows the edit and keeps the unsaved line')
  eq(true, vim.bo[buf].modified, "the user's change is still unsaved")
  eq(disk, read_file(ws .. '/' .. path), 'a buffer with unsaved user text is not written to disk')
  in_buffer(buf, 'silent undo')
  eq(users, lines(buf), "undo in Neovim reverts exactly the agent's edit")
end)

test('agent_edit_of_a_clean_buffer_lands_and_is_saved', function()
  local ws = workspace()
  tandem.setup({})
  local path = 'internal/names/names.go'
  local buf = open(ws, path)
  local _, text = call('read', { path = path })
  local res, out = call('edit', {
    files = { { path = path, tag = tag_of(text), old = 'return "Hello, stranger!"', new = 'return "Hi, stranger!"' } },
  })
  eq(false, res.isError == true, 'the edit applies: ' .. out)
  contains(table.concat(lines(buf), '\n'), 'return "Hi, stranger!"', 'the buffer shows the edit')
  eq(false, vim.bo[buf].modified, 'the buffer was saved')
  eq(table.concat(lines(buf), '\n') .. '\n', read_file(ws .. '/' .. path), 'the disk holds the buffer')
end)

--- Runs fn with tandem's user config asking about every write (auto set: read only), and
--- vim.ui.select answering with pick(items, opts) and recording every prompt.
local function with_questions(pick, fn)
  local dir = os.getenv('XDG_CONFIG_HOME') .. '/tandem'
  vim.fn.mkdir(dir, 'p')
  local f = assert(io.open(dir .. '/config.json', 'w'))
  f:write('{"shell": {"autoEffects": ["read"]}}')
  f:close()
  local asked, orig = {}, vim.ui.select
  vim.ui.select = function(items, opts, on_choice)
    table.insert(asked, opts.prompt)
    local choice = pick(items, opts)
    vim.schedule(function()
      on_choice(choice)
    end)
  end
  local ok, err = pcall(fn, asked)
  vim.ui.select = orig
  os.remove(dir .. '/config.json')
  if not ok then
    error(err, 0)
  end
end

--- The item whose shown title is title.
local function item(title)
  return function(items, opts)
    for _, it in ipairs(items) do
      if (opts.format_item and opts.format_item(it) or it) == title then
        return it
      end
    end
    error('no choice ' .. title .. ' among ' .. vim.inspect(items))
  end
end

local function exists(path)
  return vim.uv.fs_stat(path) ~= nil
end

test('bash_step_allowed_through_neovims_showMessageRequest', function()
  with_questions(item('Allow'), function(asked)
    local ws = workspace()
    tandem.setup({ approvals = 'native' })
    open(ws, 'README.md')
    local res, out = call('bash', { command = 'touch allowed.txt' })
    eq(1, #asked, 'one question was asked')
    contains(asked[1], 'touch allowed.txt', 'the question shows the step')
    eq(false, res.isError == true, 'the script ran: ' .. out)
    eq(true, exists(ws .. '/allowed.txt'), 'the allowed step ran')
  end)
end)

test('bash_step_denied_through_neovims_showMessageRequest', function()
  with_questions(item('Deny'), function(asked)
    local ws = workspace()
    tandem.setup({ approvals = 'native' })
    open(ws, 'README.md')
    local _, out = call('bash', { command = 'touch denied.txt' })
    eq(1, #asked, 'one question was asked')
    contains(out, 'denied', 'the result says the step was denied')
    eq(false, exists(ws .. '/denied.txt'), 'the denied step did not run')
  end)
end)

test('bash_steps_allowed_for_the_session_through_askApproval', function()
  with_questions(item('Allow for this session'), function(asked)
    local ws = workspace()
    tandem.setup({ approvals = 'tandem' })
    open(ws, 'README.md')
    local res, out = call('bash', { command = 'touch once.txt' })
    eq(false, res.isError == true, 'the script ran: ' .. out)
    eq(1, #asked, 'the first run asked')
    contains(asked[1], 'touch once.txt', 'the question shows the step')
    contains(asked[1], 'effects: write', 'the question shows its effects')
    os.remove(ws .. '/once.txt')
    res, out = call('bash', { command = 'touch once.txt' })
    eq(false, res.isError == true, 'the script ran again: ' .. out)
    eq(1, #asked, 'the same step was not asked again in this session')
    eq(true, exists(ws .. '/once.txt'), 'the step ran again')
  end)
end)

test('bash_step_denied_through_neovims_default_inputlist', function()
  -- No picker plugin: Neovim's own vim.ui.select shows an inputlist. The user types the
  -- number of "Deny" (the list shows the prompt, then "1: Allow", "2: Deny", …).
  with_questions(item('Allow'), function()
    vim.ui.select = default_select
    local shown
    local orig = vim.fn.inputlist
    vim.fn.inputlist = function(list)
      shown = list
      for i, line in ipairs(list) do
        if line:match('^%d+: Deny$') then
          return i - 1
        end
      end
      return 0
    end
    local ok, err = pcall(function()
      local ws = workspace()
      tandem.setup({ approvals = 'tandem' })
      open(ws, 'README.md')
      local _, out = call('bash', { command = 'touch typed.txt' })
      contains(table.concat(shown or {}, '\n'), 'touch typed.txt', 'the inputlist shows the step')
      contains(out, 'denied', 'the result says denied')
      eq(false, exists(ws .. '/typed.txt'), 'the denied step did not run')
    end)
    vim.fn.inputlist = orig
    if not ok then
      error(err, 0)
    end
  end)
end)

test('user_settings_gate_execution_and_other_settings_cannot', function()
  local asked, orig = {}, vim.ui.select
  vim.ui.select = function(items, opts, on_choice)
    table.insert(asked, opts.prompt)
    vim.schedule(function()
      on_choice(item('Deny')(items, opts))
    end)
  end
  local ok, err = pcall(function()
    -- Settings a project could have written: ignored for the auto set, the step runs unasked.
    local ws = workspace()
    tandem.setup({ settings = { shell = { autoEffects = { 'read' } } } })
    open(ws, 'README.md')
    call('bash', { command = 'touch workspace.txt' })
    eq(0, #asked, 'workspace-level settings narrow nothing')
    eq(true, exists(ws .. '/workspace.txt'), 'the step ran')
    reset()
    -- The user's own settings: the write asks.
    ws = workspace()
    tandem.setup({ user_settings = { shell = { autoEffects = { 'read' } } } })
    open(ws, 'README.md')
    call('bash', { command = 'touch user.txt' })
    eq(1, #asked, 'user-level settings set the auto set')
    eq(false, exists(ws .. '/user.txt'), 'the denied step did not run')
  end)
  vim.ui.select = orig
  if not ok then
    error(err, 0)
  end
end)

test('cancelled_call_settles_its_question_and_a_late_answer_runs_nothing', function()
  with_questions(item('Allow'), function(asked)
    -- The user leaves the prompt open: keep its callback instead of answering.
    local late
    vim.ui.select = function(items, opts, on_choice)
      table.insert(asked, opts.prompt)
      late = function()
        on_choice(item('Allow')(items, opts))
      end
    end
    local ws = workspace()
    tandem.setup({ approvals = 'tandem' })
    open(ws, 'README.md')
    local done, err = false, nil
    local pending = tandem.call('bash', { command = 'touch late.txt' }, function(e)
      done, err = true, e
    end)
    wait_for('the question', function()
      return late ~= nil
    end)
    -- The call is cancelled (:TandemCancel) while the prompt is open: tandem settles it.
    pending.cancel()
    wait_for('the cancelled call to end', function()
      return done
    end)
    eq('cancelled', err and err.data and err.data.code, 'the call ended as cancelled')
    wait_for('tandem/approvalSettled', function()
      local qs = tandem.questions()
      return #qs == 1 and qs[1].settled ~= nil
    end)
    eq('unanswered', tandem.questions()[1].settled, 'settled as unanswered')
    local seen = notifications(function(notes)
      late() -- the user clicks Allow, too late
      wait_for('the notice that the answer was not used', function()
        return #notes > 0
      end)
    end)
    eq(1, #asked, 'one question')
    eq(false, exists(ws .. '/late.txt'), 'a late Allow runs nothing')
    contains(seen[1] and seen[1].msg or '', 'already settled', 'the user is told the answer was not used')
  end)
end)

test('terminal_env_reaches_terminal_jobs_and_the_bridge_answers', function()
  local ws = workspace()
  tandem.setup({})
  local buf = open(ws, 'README.md')
  wait_for('the terminal environment', function()
    return #tandem.terminal_env_names() > 0
  end)
  local names = tandem.terminal_env_names()
  -- A :terminal job started now sees every variable, and `tandem mcp call`'s bridge answers
  -- there (`tandem mcp list` exits 3 when it finds no bridge).
  vim.cmd('terminal env > env.txt; tandem mcp list > list.txt 2>&1; echo $? > status.txt')
  wait_for('the terminal job', function()
    return exists(ws .. '/status.txt') and read_file(ws .. '/status.txt'):find('\n') ~= nil
  end, 20000)
  local env = read_file(ws .. '/env.txt')
  for _, k in ipairs(names) do
    local v = vim.env[k]
    if v == nil then
      error('tandem gave ' .. k .. " but it is not in Neovim's environment")
    end
    contains(env, k .. '=' .. v .. '\n', 'the terminal has ' .. k)
  end
  eq('0\n', read_file(ws .. '/status.txt'), 'tandem mcp list reached the bridge: ' .. read_file(ws .. '/list.txt'))
  -- When tandem stops, the variables go: later jobs do not get a revoked token.
  stop({ tandem.client(buf) })
  wait_for('the variables to be removed', function()
    return #tandem.terminal_env_names() == 0 and vim.env[names[1]] == nil
  end)
end)

test('mcp_serve_in_the_terminal_works_on_the_buffers_and_asks_here', function()
  local ws = workspace()
  tandem.setup({})
  local path = 'internal/names/names.go'
  local buf = open(ws, path)
  local disk = read_file(ws .. '/' .. path)
  vim.api.nvim_buf_set_lines(buf, 0, 0, false, { '// UNSAVED line' })
  wait_for('the terminal environment', function()
    return #tandem.terminal_env_names() > 0
  end)
  local repo = os.getenv('TANDEM_TEST_REPO')
  assert(vim.fn.executable('node') == 1, 'node is needed to run the MCP SDK client')
  -- An agent started in the editor's terminal: the official MCP SDK client runs `tandem mcp
  -- serve`, which reaches this Neovim's tandem through the terminal's variables.
  local calls = {
    { tool = 'read', args = { path = path } },
    { tool = 'grep', args = { pattern = 'UNSAVED line' } },
    { tool = 'write', args = { path = path, content = 'package names\n' } },
    { tool = 'bash', args = { command = 'cat ~/.ssh/id_ed25519' } },
  }
  local input = {}
  for _, c in ipairs(calls) do
    table.insert(input, vim.json.encode(c))
  end
  with_questions(function(items, opts)
    return item((opts.prompt or ''):find('.ssh', 1, true) and 'Deny' or 'Allow')(items, opts)
  end, function(asked)
    local out
    vim.system({
      'node',
      repo .. '/cmd/tandem/testdata/mcp-client.mjs',
      repo .. '/.deps/mcp/node_modules/@modelcontextprotocol/sdk',
      'tandem',
      TMP,
    }, { stdin = table.concat(input, '\n') .. '\n' }, function(r)
      out = r
    end)
    wait_for('the MCP client', function()
      return out ~= nil
    end, 60000)
    local replies = {}
    for line in out.stdout:gmatch('[^\n]+') do
      local r = vim.json.decode(line)
      if r.result or r.error then
        table.insert(replies, r)
      end
    end
    eq(#calls, #replies, 'a reply per call: ' .. out.stdout .. out.stderr)
    local function text(i)
      local r = replies[i]
      return r.error or (r.result.content[1] or {}).text or ''
    end
    contains(text(1), '1:// UNSAVED line', 'read sees the buffer')
    contains(text(2), path, "grep finds the buffer's line")
    eq(false, replies[3].result.isError == true, 'the write applies: ' .. text(3))
    eq({ 'package names' }, lines(buf), 'the buffer holds the write')
    eq(disk, read_file(ws .. '/' .. path), 'the disk keeps its bytes')
    eq('denied', replies[4].result._meta.code, 'the secret step: ' .. text(4))
    local secret = 0
    for _, prompt in ipairs(asked) do
      if prompt:find('.ssh', 1, true) then
        secret = secret + 1
      end
    end
    eq(1, secret, 'the secret step was asked here: ' .. vim.inspect(asked))
  end)
end)

test('checkhealth_reports_tandem_its_client_and_the_terminal_variables', function()
  local ws = workspace()
  tandem.setup({})
  open(ws, 'README.md')
  wait_for('the terminal environment', function()
    return #tandem.terminal_env_names() > 0
  end)
  vim.cmd('checkhealth tandem')
  local report = table.concat(lines(0), '\n')
  contains(report, 'OK ' .. vim.fn.exepath('tandem') .. ': ', 'tandem version runs')
  contains(report, 'serves ' .. ws, 'the running client is reported')
  contains(
    report,
    ':terminal jobs get ' .. table.concat(tandem.terminal_env_names(), ', '),
    'the terminal variables are named'
  )
  for _, k in ipairs(tandem.terminal_env_names()) do
    if report:find(vim.env[k], 1, true) then
      error('the report shows the value of ' .. k)
    end
  end
  if report:find('ERROR', 1, true) then
    error('the report has an error:\n' .. report)
  end
end)

local function write_file(path, text)
  vim.fn.mkdir(vim.fs.dirname(path), 'p')
  local f = assert(io.open(path, 'wb'))
  f:write(text)
  f:close()
end

test('install_runs_tandem_mcp_install_refuses_invalid_json_and_is_idempotent', function()
  local ws = workspace()
  tandem.setup({})
  open(ws, 'README.md')
  local other = '"other": {"command": "x", "env": {}, "args": []}'
  write_file(ws .. '/.mcp.json', '{"mcpServers": {' .. other .. '}, "keep": [1]}')
  write_file(ws .. '/AGENTS.md', '# Our rules\n\nBe kind.\n')
  local editing = '{"servers": {"mine": {"command": "y"},'
  write_file(ws .. '/.vscode/mcp.json', editing)
  local seen = notifications(function()
    vim.cmd('TandemInstall')
  end)
  local msg = seen[1].msg
  eq(vim.log.levels.WARN, seen[1].level, 'a skipped file makes the report a warning')
  contains(msg, 'claude: added to ' .. ws .. '/.mcp.json', 'the report')
  contains(msg, 'gemini: added to ' .. ws .. '/.gemini/settings.json', 'the report')
  contains(msg, 'vscode: skipped: ' .. ws .. '/.vscode/mcp.json: line 1, column', 'the report')
  contains(msg, 'AGENTS.md: updated', 'the report')
  local text = read_file(ws .. '/.mcp.json')
  contains(text, other, 'the other server, byte for byte')
  local mcp = vim.json.decode(text)
  eq({ command = 'tandem', args = { 'mcp', 'serve' }, alwaysLoad = true }, mcp.mcpServers.tandem, 'tandem entry')
  eq({ 1 }, mcp.keep, 'other keys are kept')
  eq(editing, read_file(ws .. '/.vscode/mcp.json'), 'a file being edited is left alone')
  local agents = read_file(ws .. '/AGENTS.md')
  -- tandem mcp install owns the rule: its text is mcpinstall/working-rule.md.
  local rule = read_file(os.getenv('TANDEM_TEST_REPO') .. '/mcpinstall/working-rule.md')
  eq(
    '# Our rules\n\nBe kind.\n\n<!-- tandem:begin -->\n' .. rule .. '<!-- tandem:end -->\n',
    agents,
    'the rule is appended between markers'
  )
  -- Again: nothing changes.
  seen = notifications(function()
    vim.cmd('TandemInstall')
  end)
  contains(seen[1].msg, 'claude: already there in ' .. ws .. '/.mcp.json', 'the second report')
  contains(seen[1].msg, 'AGENTS.md: unchanged', 'the second report')
  eq(text, read_file(ws .. '/.mcp.json'), '.mcp.json is not rewritten')
  eq(agents, read_file(ws .. '/AGENTS.md'), 'the rule is not appended twice')
  for _, f in ipairs({ '/.mcp.json', '/AGENTS.md', '/.gemini/settings.json', '/.codex/config.toml' }) do
    if read_file(ws .. f):lower():find('token', 1, true) then
      error(f .. ' mentions a token')
    end
  end
end)

test('stopping_the_client_ends_tandem', function()
  local ws = workspace()
  tandem.setup({})
  local buf = open(ws, 'README.md')
  call('read', { path = 'README.md' }) -- a session is open, as in real use
  local id = tandem.client(buf).id
  local seen = notifications(function()
    stop({ tandem.client(buf) }) -- shutdown, then exit: what :LspStop and quitting Neovim send
    wait_for('tandem to exit after shutdown and exit', function()
      return vim.lsp.get_client_by_id(id) == nil
    end, 5000)
    flush_scheduled() -- an exit-code warning is scheduled before the client goes
  end)
  for _, n in ipairs(seen) do
    if n.msg:find('quit with exit code', 1, true) then
      error('tandem did not exit cleanly: ' .. n.msg)
    end
  end
end)

test('an_agent_in_a_job_works_on_the_editors_buffers_through_mcp_serve', function()
  -- Claude Code or Codex in :terminal, with tandem as its MCP server: `tandem mcp serve`
  -- finds this Neovim's tandem from the job's variables, here driven by the official MCP
  -- TypeScript SDK client (cmd/tandem/testdata/mcp-client.mjs).
  local repo = os.getenv('TANDEM_TEST_REPO')
  local sdk = repo .. '/.deps/mcp/node_modules/@modelcontextprotocol/sdk'
  assert(exists(sdk), 'the MCP TypeScript SDK is missing: run scripts/setup')
  with_questions(function(items, opts)
    return item(opts.prompt:find('.ssh', 1, true) and 'Deny' or 'Allow')(items, opts)
  end, function(asked)
    local ws = workspace()
    tandem.setup({ approvals = 'tandem' })
    local path = 'internal/names/names.go'
    local buf = open(ws, path)
    local disk = read_file(ws .. '/' .. path)
    vim.api.nvim_buf_set_lines(buf, 0, 0, false, { '// typed in Neovim, not saved' })
    wait_for('the bridge variables', function()
      return vim.env.TANDEM_MCP_SOCKET ~= nil
    end)
    local out = {}
    local proc = vim.system({ 'node', repo .. '/cmd/tandem/testdata/mcp-client.mjs', sdk, 'tandem', TMP }, {
      stdin = true,
      stdout = function(_, data)
        for line in (data or ''):gmatch('[^\n]+') do
          table.insert(out, vim.json.decode(line))
        end
      end,
    })
    local function agent(tool, args)
      local n = #out
      proc:write(vim.json.encode({ tool = tool, args = args }) .. '\n')
      wait_for("the agent's " .. tool, function()
        return #out > n
      end, 30000)
      local r = out[#out]
      assert(r.result, tool .. ': ' .. vim.inspect(r))
      return r.result, r.result.content[1].text
    end
    local ok, err = pcall(function()
      wait_for('the agent to list the tools', function()
        return #out > 0
      end, 30000)
      local _, text = agent('read', { path = path })
      contains(text, '1:// typed in Neovim, not saved', 'the agent reads the unsaved buffer')
      local _, found = agent('grep', { pattern = 'typed in Neovim' })
      contains(found, path, "grep finds the buffer's line")
      local res, edited = agent('edit', {
        files = {
          { path = path, tag = tag_of(text), old = 'return "Hello, stranger!"', new = 'return "Hi, stranger!"' },
        },
      })
      eq(false, res.isError == true, 'the edit applies: ' .. edited)
      contains(table.concat(lines(buf), '\n'), 'return "Hi, stranger!"', 'the edit is in the buffer')
      eq('// typed in Neovim, not saved', lines(buf)[1], "the user's unsaved line stays")
      eq(disk, read_file(ws .. '/' .. path), 'the dirty buffer was not written to disk')
      local denied, said = agent('bash', { command = 'cat ~/.ssh/id_ed25519' })
      eq(true, denied.isError, 'the secret step is refused: ' .. said)
      eq(1, #vim.tbl_filter(function(q)
        return q:find('.ssh', 1, true) ~= nil
      end, asked), 'the secret step was asked in Neovim')
      reset()
      local _, gone = agent('read', { path = path })
      contains(gone, "The editor's tandem is gone", 'after the editor stopped, a call says so')
    end)
    proc:kill('sigterm')
    if not ok then
      error(err, 0)
    end
  end)
end)

-- The chat's tests (neovim/tests/chat_test.lua), with this file's helpers.
dofile(os.getenv('TANDEM_TEST_REPO') .. '/neovim/tests/chat_test.lua')({
  test = test,
  wait_for = wait_for,
  eq = eq,
  contains = contains,
  read_file = read_file,
  write_file = write_file,
  workspace = workspace,
  open = open,
  lines = lines,
  notifications = notifications,
  flush_scheduled = flush_scheduled,
  exists = exists,
  item = item,
  default_select = default_select,
})

-- gopls beside tandem (neovim/tests/language_test.lua), with this file's helpers.
dofile(os.getenv('TANDEM_TEST_REPO') .. '/neovim/tests/language_test.lua')({
  test = test,
  wait_for = wait_for,
  eq = eq,
  contains = contains,
  write_file = write_file,
  workspace = workspace,
  open = open,
  call = call,
  tag_of = tag_of,
  lines = lines,
})

-- Installing the plugin, and the versions of tandem and the plugin (install_test.lua).
dofile(os.getenv('TANDEM_TEST_REPO') .. '/neovim/tests/install_test.lua')({
  test = test,
  eq = eq,
  contains = contains,
  read_file = read_file,
  write_file = write_file,
  workspace = workspace,
  open = open,
  lines = lines,
  notifications = notifications,
  flush_scheduled = flush_scheduled,
})

-- Runner: every test (or those whose name contains an argument), in order.
local filter = _G.arg or {}
local passed, failed = 0, 0
for _, t in ipairs(tests) do
  local selected = #filter == 0
  for _, f in ipairs(filter) do
    selected = selected or t.name:find(f, 1, true) ~= nil
  end
  if selected then
    local t0 = vim.uv.hrtime()
    local ok, err = xpcall(t.fn, debug.traceback)
    if ok then
      passed = passed + 1
      io.stdout:write(string.format('ok    %s (%.1f s)\n', t.name, (vim.uv.hrtime() - t0) / 1e9))
    else
      failed = failed + 1
      io.stdout:write('FAIL  ' .. t.name .. ': ' .. tostring(err) .. '\n')
    end
    local rok, rerr = pcall(reset)
    if not rok then
      io.stdout:write('reset after ' .. t.name .. ' failed: ' .. tostring(rerr) .. '\n')
    end
  end
end
io.stdout:write(string.format('%d passed, %d failed\n', passed, failed))
os.exit(failed == 0 and passed > 0 and 0 or 1)
