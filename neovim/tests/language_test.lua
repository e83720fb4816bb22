-- tandem/languageQuery answered from a real language server: gopls (.deps/bin, from
-- scripts/setup) attached beside tandem to the sample workspace, made a Go module.
-- Loaded by plugin_test.lua, which passes its helpers and runs the tests.
return function(h)
  local tandem = require('tandem')
  local test, wait_for, eq, contains = h.test, h.wait_for, h.eq, h.contains

  local NAMES, MAIN = 'internal/names/names.go', 'cmd/greet/main.go'

  --- gopls's client configuration for the workspace ws.
  local function gopls(ws)
    return { name = 'gopls', cmd = { 'gopls' }, root_dir = ws }
  end

  --- A fresh Go module of the sample with names.go and main.go open, tandem and gopls
  --- attached to both, and gopls done with its first diagnostics of both (a type-checked
  --- workspace, so an edit's problems are the edit's own).
  local function go_workspace(opts)
    assert(vim.fn.executable('gopls') == 1, 'gopls is not on PATH: run scripts/setup and add .deps/bin to PATH')
    local ws = h.workspace()
    h.write_file(ws .. '/go.mod', 'module example.com/greet\n\ngo 1.22\n')
    local diagnosed = {}
    local group = vim.api.nvim_create_augroup('tandem_test_gopls', { clear = true })
    vim.api.nvim_create_autocmd('DiagnosticChanged', {
      group = group,
      callback = function(ev)
        diagnosed[ev.buf] = true
      end,
    })
    tandem.setup(opts or {})
    local bufs = { h.open(ws, NAMES), h.open(ws, MAIN) }
    for _, buf in ipairs(bufs) do
      vim.lsp.start(gopls(ws), { bufnr = buf })
    end
    wait_for("gopls's first diagnostics of both files", function()
      return diagnosed[bufs[1]] and diagnosed[bufs[2]]
    end, 60000)
    vim.api.nvim_del_augroup_by_id(group)
    return ws, bufs[1], bufs[2]
  end

  --- Replaces old by new in names.go through the agent's edit, and returns the reply.
  local function agent_edit(old, new)
    local _, text = h.call('read', { path = NAMES })
    local res, out = h.call('edit', { files = { { path = NAMES, tag = h.tag_of(text), old = old, new = new } } })
    eq(false, res.isError == true, 'the edit applies: ' .. out)
    return out
  end

  test('an_edit_reply_lists_the_type_error_gopls_reports_and_then_its_fix', function()
    local _, names = go_workspace()
    local broke = agent_edit('return "Hello, " + name + "!"', 'return len(name)')
    contains(table.concat(h.lines(names), '\n'), 'return len(name)', 'the edit is in the buffer')
    contains(broke, "The editor's language servers report 1 new problem(s) after this change:", 'the reply counts it')
    contains(
      broke,
      'internal/names/names.go:12: error: cannot use len(name) (value of type int) as string value in return statement',
      'the reply names the row and the error'
    )
    local _, listed = h.call('code', { op = 'diagnostics', path = NAMES })
    contains(listed, 'internal/names/names.go:12: error: cannot use len(name)', 'code diagnostics lists it')
    local fixed = agent_edit('return len(name)', 'return "Hello, " + name + "!"')
    contains(fixed, '1 problem(s) the editor reported before are fixed.', 'the fix is reported')
    eq(nil, fixed:find('new problem', 1, true), 'the fix brings no new problem: ' .. fixed)
  end)

  --- A tool's text with each [path#TAG] as [path#TAG], for exact comparisons.
  local function untagged(text)
    return (text:gsub('#%x+%]', '#TAG]'))
  end

  test('code_symbols_definition_references_and_hover_come_from_gopls', function()
    local ws = go_workspace()
    local _, outline = h.call('code', { op = 'symbols', path = NAMES })
    eq('[internal/names/names.go#TAG] outline (lines)\nfunction Greeting 7-13\n', untagged(outline), 'the outline')
    local declaration =
      '[internal/names/names.go#TAG]\n7:func Greeting(name string) string {\n(the file has 13 lines)\n'
    local _, def = h.call('code', { op = 'definition', path = MAIN, line = 13, symbol = 'Greeting' })
    eq(declaration, untagged(def), 'the definition of the call in main.go')
    local _, refs = h.call('code', { op = 'references', path = NAMES, line = 7, symbol = 'Greeting' })
    eq(
      declaration
        .. '\n[cmd/greet/main.go#TAG]\n13:\t\tfmt.Println(names.Greeting(n))\n(the file has 15 lines)\n'
        .. '\n[internal/names/names_test.go#TAG]\n6:\tif got := Greeting(" Ada "); got != "Hello, Ada!" {\n(the file has 9 lines)\n',
      untagged(refs),
      'the references: the declaration, the call in main.go, the call in the test'
    )
    local _, hover = h.call('code', { op = 'hover', path = MAIN, line = 13, symbol = 'Greeting' })
    contains(hover, 'func names.Greeting(name string) string', 'the hover shows the signature')
    contains(hover, 'Greeting returns the greeting for name.', 'and the doc comment')
    -- The rows shown are seen: an edit may anchor on the reference's row in main.go. It puts
    -- characters of 2 and 4 UTF-8 bytes (1 and 2 UTF-16 units) before the call; the position
    -- asked for is still Greeting's.
    local res, out = h.call('edit', {
      files = {
        {
          path = MAIN,
          tag = h.tag_of(refs:sub((refs:find('[cmd/greet/main.go#', 1, true)))),
          old = 'fmt.Println(names.Greeting(n))',
          new = 'fmt.Println("¡olé 𝄞!", names.Greeting(n))',
        },
      },
    })
    eq(false, res.isError == true, 'an edit anchored on the shown row applies: ' .. out)
    local _, again = h.call('code', { op = 'definition', path = MAIN, line = 13, symbol = 'Greeting' })
    eq(declaration, untagged(again), 'the definition after characters beyond ASCII on the row')
    local c = tandem.client()
    wait_for('the tool names', function()
      return vim.tbl_contains(require('tandem.client').tool_names(c), 'code')
    end)
    vim.cmd('checkhealth tandem')
    local report = table.concat(h.lines(0), '\n')
    contains(report, 'language queries (tandem/languageQuery) are answered from gopls (2 buffer(s))', 'the health')
    contains(report, string.format('client %d lists the code tool', c.id), 'the health names the tool')
    -- A file not loaded in Neovim: the plugin loads it, and gopls, attached on load as a
    -- user's configuration does, answers for it.
    local group = vim.api.nvim_create_augroup('tandem_test_gopls_on_load', { clear = true })
    vim.api.nvim_create_autocmd('BufReadPost', {
      group = group,
      pattern = '*.go',
      callback = function(ev)
        vim.lsp.start(gopls(ws), { bufnr = ev.buf })
      end,
    })
    local ok, err, test_outline = pcall(h.call, 'code', { op = 'symbols', path = 'internal/names/names_test.go' })
    vim.api.nvim_del_augroup_by_id(group)
    assert(ok, err)
    eq(
      '[internal/names/names_test.go#TAG] outline (lines)\nfunction TestGreeting 5-9\n',
      untagged(test_outline),
      'the outline of a file that was not loaded'
    )
  end)

  test('without_language_query_the_code_tool_is_not_listed', function()
    go_workspace({ language_query = false })
    local listed
    tandem.request('tandem/listTools', vim.empty_dict(), function(err, result)
      listed = err and {} or vim.tbl_map(function(t)
        return t.name
      end, result.tools)
    end)
    wait_for('the tool list', function()
      return listed ~= nil
    end)
    eq(true, vim.tbl_contains(listed, 'edit'), 'the other tools are listed: ' .. vim.inspect(listed))
    eq(false, vim.tbl_contains(listed, 'code'), 'code is not listed')
    local _, text = h.call('read', { path = NAMES })
    local res, out = h.call('edit', {
      files = { { path = NAMES, tag = h.tag_of(text), old = 'func Greeting(', new = 'func Greet(' } },
    })
    eq(false, res.isError == true, 'the edit applies: ' .. out)
    eq(nil, out:find('problem', 1, true), 'the reply says nothing of problems: ' .. out)
    vim.cmd('checkhealth tandem')
    contains(table.concat(h.lines(0), '\n'), 'language queries: off (language_query = false)', 'the health says so')
  end)

  --- The plugin's answer to a tandem/languageQuery, asked as Neovim runs a server request's
  --- handler: in a coroutine.
  local function query(params)
    local got
    coroutine.wrap(function()
      local result, err = require('tandem.language').query(nil, params)
      got = { result = result, err = err }
    end)()
    wait_for('the answer to ' .. params.kind, function()
      return got ~= nil
    end)
    eq(nil, got.err, 'the query is answered')
    return got.result
  end

  test('diagnostics_are_answered_in_utf16_with_the_files_changed_since_a_generation', function()
    local ws = h.workspace()
    tandem.setup({})
    local readme = h.open(ws, 'README.md')
    local notes = h.open(ws, 'docs/notes.md')
    local ns = vim.api.nvim_create_namespace('tandem_test_diagnostics')
    -- "word" after characters of 2 and 4 UTF-8 bytes: byte 12, UTF-16 character 8.
    vim.api.nvim_buf_set_lines(readme, 0, 1, false, { '¡olé 𝄞 word' })
    vim.diagnostic.set(ns, readme, { { lnum = 0, col = 12, end_col = 16, severity = 2, message = 'a word' } })
    local uri = vim.uri_from_bufnr(readme)
    local want = {
      uri = uri,
      diagnostics = {
        {
          range = { start = { line = 0, character = 8 }, ['end'] = { line = 0, character = 12 } },
          severity = 2,
          message = 'a word',
        },
      },
    }
    local before = query({ kind = 'diagnostics', uris = { uri } })
    eq({ want }, before.files, 'the diagnostic in UTF-16')
    vim.diagnostic.set(ns, notes, { { lnum = 0, col = 0, severity = 1, message = 'elsewhere' } })
    local t0 = vim.uv.now()
    local settled = query({ kind = 'diagnostics', uris = { uri }, after = before.generation, settleMs = 5000 })
    eq(true, vim.uv.now() - t0 < 1000, 'no language server covers README.md: answered at once')
    eq(before.generation + 1, settled.generation, 'one diagnostics change since')
    eq(want, settled.files[1], 'the file asked for')
    eq(vim.uri_from_bufnr(notes), settled.files[2] and settled.files[2].uri, 'and the file that changed since')
    eq(2, #settled.files, 'nothing else')
  end)

  test('a_settle_waits_for_a_change_of_a_file_gopls_covers_and_then_quiet', function()
    local _, names = go_workspace()
    local uri = vim.uri_from_bufnr(names)
    local after = query({ kind = 'diagnostics' }).generation
    local settled, answered_at
    coroutine.wrap(function()
      settled =
        require('tandem.language').query(nil, { kind = 'diagnostics', uris = { uri }, after = after, settleMs = 5000 })
      answered_at = vim.uv.now()
    end)()
    vim.wait(300)
    eq(nil, settled, 'no change yet: the settle waits')
    local ns = vim.api.nvim_create_namespace('tandem_test_settle')
    vim.diagnostic.set(ns, names, { { lnum = 6, col = 5, severity = 1, message = 'a change' } })
    local changed_at = vim.uv.now()
    wait_for('the settle', function()
      return settled ~= nil
    end)
    local quiet = answered_at - changed_at
    eq(true, quiet >= 190 and quiet < 2000, 'answered after about 200 ms of quiet, not ' .. quiet .. ' ms')
    eq('a change', settled.files[1].diagnostics[1].message, 'with the change')
  end)
end
