-- The chat (:TandemChat) against a real `tandem lsp` whose model is `tandem replay` serving a
-- script: what a user sees in the chat buffer, what lands on disk and in buffers, what is asked.
-- Loaded by plugin_test.lua, which passes its helpers and runs the tests.
return function(h)
  local tandem = require('tandem')
  local chat_mod = require('tandem.chat')
  local test, wait_for, eq, contains = h.test, h.wait_for, h.eq, h.contains
  local TMP = assert(os.getenv('TANDEM_TEST_TMP'))
  local ns = vim.api.nvim_create_namespace('tandem.chat')

  local replays, scripts = {}, 0

  --- Serves script with `tandem replay` and points the user config at it (with extra settings).
  local function replay(script, extra)
    scripts = scripts + 1
    local path = TMP .. '/script' .. scripts .. '.json'
    h.write_file(path, vim.json.encode(script))
    local out = ''
    local proc = vim.system({ 'tandem', 'replay', path }, {
      stdin = true,
      stdout = function(_, data)
        out = out .. (data or '')
      end,
    })
    table.insert(replays, proc)
    wait_for('tandem replay to serve', function()
      return out:find('\n') ~= nil
    end)
    local info = vim.json.decode(vim.split(out, '\n')[1])
    local cfg = vim.tbl_extend('force', {
      agent = { model = 'replay/any', providers = { replay = { api = info.api, url = info.url } } },
    }, extra or {})
    h.write_file(os.getenv('XDG_CONFIG_HOME') .. '/tandem/config.json', vim.json.encode(cfg))
  end

  local function stop_replays()
    for _, p in ipairs(replays) do
      pcall(p.write, p, nil)
      pcall(p.kill, p, 15)
    end
    replays = {}
    os.remove(os.getenv('XDG_CONFIG_HOME') .. '/tandem/config.json')
  end

  --- Runs fn, then stops the scripted models whatever happened.
  local function with_model(fn)
    return function()
      local ok, err = xpcall(fn, debug.traceback)
      stop_replays()
      if not ok then
        error(err, 0)
      end
    end
  end

  --- The chat buffer (tandem://chat/ID) and its chat.
  local function the_chat()
    local c
    wait_for('the chat buffer', function()
      c = chat_mod.get()
      return c ~= nil
    end)
    return c
  end

  local function text(c)
    return table.concat(vim.api.nvim_buf_get_lines(c.buf, 0, -1, false), '\n')
  end

  local function turn_over(c, reason)
    wait_for('the turn to end', function()
      return not c.running and c.stop_reason ~= nil
    end, 20000)
    if reason then
      eq(reason, c.stop_reason, 'the stop reason')
    end
  end

  --- The status (virtual text) of the card whose line holds title.
  local function card_status(c, title)
    for i, l in ipairs(vim.api.nvim_buf_get_lines(c.buf, 0, -1, false)) do
      if l == '▸ ' .. title then
        local marks = vim.api.nvim_buf_get_extmarks(c.buf, ns, { i - 1, 0 }, { i - 1, -1 }, { details = true })
        for _, m in ipairs(marks) do
          if m[4].virt_text then
            return vim.trim(m[4].virt_text[1][1]), i
          end
        end
      end
    end
  end

  --- vim.ui.select replaced for the test: answer(items, opts) picks (nil: leave it open).
  local function with_select(answer, fn)
    local orig, asked = vim.ui.select, {}
    vim.ui.select = function(items, opts, on_choice)
      local shown = {}
      for _, it in ipairs(items) do
        table.insert(shown, opts.format_item and opts.format_item(it) or it)
      end
      table.insert(asked, { prompt = opts.prompt, items = shown, kind = opts.kind })
      local choice = answer(items, opts, asked[#asked])
      if choice ~= nil then
        vim.schedule(function()
          on_choice(choice)
        end)
      end
    end
    local ok, err = pcall(fn, asked)
    vim.ui.select = orig
    if not ok then
      error(err, 0)
    end
  end

  --- Reopens chat id from :TandemChat history and returns it once its text shows shows.
  local function reopen(id, shows)
    local again
    with_select(function(items)
      for _, s in ipairs(items) do
        if s.sessionId == id then
          return s
        end
      end
    end, function()
      vim.cmd('TandemChat history')
      wait_for('the chat to load', function()
        again = chat_mod.get()
        return again ~= nil and not again.loading and text(again):find(shows, 1, true) ~= nil
      end)
    end)
    return again
  end

  local SECRET = TMP .. '/.ssh/id_test'

  test(
    'chat_full_turn_streams_reads_writes_and_asks_the_secret_step',
    with_model(function()
      h.write_file(SECRET, 'not for the model\n')
      replay({
        format = 'anthropic',
        responses = {
          {
            parts = {
              { thinking = 'Let me look at the readme.', signature = 'sig' },
              { text = 'I will read ' },
              { text = 'the README ' },
              { text = 'first.' },
              { tool = { name = 'read', input = { path = 'README.md' } } },
            },
            usage = { input = 1200, output = 30 },
          },
          {
            parts = {
              { tool = { name = 'write', input = { path = 'README.md', content = '# greet\n\nRewritten.\n' } } },
            },
          },
          { parts = { { tool = { name = 'bash', input = { command = 'cat ' .. SECRET } } } } },
          { parts = { { text = 'Done: README.md is rewritten; the key stayed unread.' } } },
        },
      })
      local ws = h.workspace()
      tandem.setup({})
      local seen
      with_select(function(items, opts)
        -- While the question is open it is shown in its card and in the status line.
        local c = chat_mod.get()
        seen = { status = tandem.status(), card = card_status(c, 'cat ' .. SECRET) }
        return h.item('Deny')(items, opts)
      end, function(asked)
        vim.cmd('TandemChat rewrite the README')
        local c = the_chat()
        eq('markdown', vim.bo[c.buf].filetype, 'the chat is markdown')
        eq('tandem://chat/' .. c.id, vim.api.nvim_buf_get_name(c.buf), 'the chat is named by its session')
        eq(c.buf, vim.api.nvim_get_current_buf(), 'the chat has the focus')
        eq(2, #vim.api.nvim_tabpage_list_wins(0), 'the chat opened in a split')
        turn_over(c, 'end_turn')
        local t = text(c)
        contains(t, '## You\nrewrite the README', 'the prompt is in the transcript')
        contains(t, 'I will read the README first.', 'the streamed text is whole')
        contains(t, '│ Let me look at the readme.', 'the thinking is shown, marked to fold')
        contains(t, 'Done: README.md is rewritten; the key stayed unread.', 'the last answer')
        eq('read · completed', card_status(c, 'Read README.md'), 'the read card')
        eq('edit · completed', card_status(c, 'Write README.md'), 'the write card')
        eq('execute · failed', card_status(c, 'cat ' .. SECRET), 'the denied step failed')
        eq('# greet\n\nRewritten.\n', h.read_file(ws .. '/README.md'), 'the write landed')
        eq(1, #asked, 'one question')
        contains(asked[1].prompt, SECRET, 'the question names the secret')
        for _, want in ipairs({ 'Allow', 'Deny', 'Allow for this session' }) do
          eq(true, vim.tbl_contains(asked[1].items, want), 'the question offers ' .. want)
        end
        eq('execute · waiting for you', seen.card, 'the card showed the question')
        contains(seen.status, 'waiting for you', 'the status showed the question')
        -- Folded: the thinking and the tool output.
        local _, row = card_status(c, 'Read README.md')
        local win = vim.fn.bufwinid(c.buf)
        vim.api.nvim_win_call(win, function()
          -- no zx: folds close as they are made
          local think = vim.fn.search('^│ Let me look', 'nw')
          eq(
            true,
            vim.fn.foldclosed(think) ~= -1,
            'the thinking is folded: line '
              .. think
              .. ' level '
              .. vim.fn.foldlevel(think)
              .. ' '
              .. vim.wo.foldmethod
              .. ' '
              .. vim.wo.foldexpr
          )
          eq(true, vim.fn.foldclosed(row + 1) ~= -1, "the read's output is folded")
        end)
        -- gd on the write card: a diff of before and after.
        local _, wrow = card_status(c, 'Write README.md')
        vim.api.nvim_win_set_cursor(win, { wrow, 0 })
        vim.api.nvim_feedkeys('gd', 'x', false)
        eq(2, vim.fn.tabpagenr(), 'the diff opened in a tab')
        local wins = vim.api.nvim_tabpage_list_wins(0)
        eq(2, #wins, 'before and after')
        local before = table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(wins[1]), 0, -1, false), '\n')
        local after = table.concat(vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(wins[2]), 0, -1, false), '\n')
        contains(before, 'A tiny sample project', 'the left side is before')
        eq('# greet\n\nRewritten.', after, 'the right side is after')
        eq(true, vim.wo[wins[1]].diff and vim.wo[wins[2]].diff, 'both are in diff mode')
        vim.cmd('tabclose')
        -- The turn's changes in the quickfix list; <CR> on a card opens its file.
        vim.api.nvim_set_current_win(win)
        vim.cmd('TandemChanges')
        local qf = vim.fn.getqflist()
        eq(1, #qf, 'one change')
        eq(ws .. '/README.md', vim.api.nvim_buf_get_name(qf[1].bufnr), 'the changed file')
        vim.cmd('cclose')
        vim.api.nvim_set_current_win(win)
        vim.api.nvim_win_set_cursor(win, { row, 0 })
        vim.api.nvim_feedkeys(vim.keycode('<CR>'), 'x', false)
        eq(ws .. '/README.md', vim.api.nvim_buf_get_name(0), '<CR> on the read card opened the file')
        -- The status line: model and context used.
        local status = tandem.status()
        contains(status, 'tandem replay/any', 'the status names the model')
        contains(status, 'tokens', 'the status shows the context used')
      end)
    end)
  )

  test(
    'chat_subagent_calls_are_indented_under_the_task',
    with_model(function()
      replay({
        format = 'anthropic',
        responses = {
          {
            parts = {
              {
                tool = {
                  name = 'task',
                  input = { description = 'find the readme', prompt = 'What does README.md say?' },
                },
              },
            },
          },
          -- The subagent's turn.
          { parts = { { tool = { name = 'read', input = { path = 'README.md' } } } } },
          { parts = { { text = 'README.md calls it a tiny sample project.' } } },
          { parts = { { text = 'The README says it is a tiny sample project.' } } },
        },
      })
      h.workspace()
      tandem.setup({})
      vim.cmd('TandemChat what does the readme say?')
      local c = the_chat()
      turn_over(c, 'end_turn')
      local lines = vim.api.nvim_buf_get_lines(c.buf, 0, -1, false)
      local task, read
      for i, l in ipairs(lines) do
        if l == '▸ Subagent: find the readme' then
          task = i
        elseif l == '  ↳ ▸ Read README.md' then
          read = i
        end
      end
      eq(true, task ~= nil and read ~= nil and read > task, 'the read is under the task: ' .. table.concat(lines, '\n'))
      eq('other · completed', card_status(c, 'Subagent: find the readme'), 'the task card')
      contains(text(c), '│ README.md calls it a tiny sample project.', "the task's answer is in its card")
      for i = task + 1, read - 1 do
        eq(true, lines[i]:sub(1, #'│ ') == '│ ', 'only the task card lies between: ' .. lines[i])
      end
    end)
  )

  --- A response streaming many small text parts slowly.
  local function slow(words, ms, prefix)
    local parts = {}
    for i = 1, words do
      table.insert(parts, { text = (prefix or 'word') .. i .. (i % 8 == 0 and '\n' or ' ') })
    end
    return { parts = parts, delayMs = ms }
  end

  test(
    'chat_stop_during_streaming_ends_the_turn_at_once',
    with_model(function()
      replay({ format = 'anthropic', responses = { slow(200, 50) } })
      h.workspace()
      tandem.setup({})
      vim.cmd('TandemChat tell me a long story')
      local c = the_chat()
      wait_for('the stream to start', function()
        return text(c):find('word3 ', 1, true) ~= nil
      end)
      local t0 = vim.uv.hrtime()
      vim.api.nvim_feedkeys(vim.keycode('<C-c>'), 'x', false)
      turn_over(c, 'cancelled')
      local took = (vim.uv.hrtime() - t0) / 1e6
      eq(true, took < 3000, 'stopped in ' .. took .. ' ms (the stream would take 10 s)')
      contains(text(c), '> stopped', 'the transcript says so')
      eq(nil, text(c):find('word200', 1, true), 'the rest never came')
    end)
  )

  test(
    'chat_stop_during_a_question_settles_it_and_nothing_runs',
    with_model(function()
      replay({
        format = 'anthropic',
        responses = { { parts = { { tool = { name = 'bash', input = { command = 'touch asked.txt' } } } } } },
      }, { shell = { autoEffects = { 'read' } } })
      local ws = h.workspace()
      tandem.setup({})
      with_select(function()
        return nil -- the user leaves the question open
      end, function(asked)
        vim.cmd('TandemChat make a file')
        local c = the_chat()
        wait_for('the question', function()
          return #asked == 1 and tandem.status():find('waiting for you', 1, true) ~= nil
        end)
        vim.cmd('TandemStop')
        turn_over(c, 'cancelled')
        eq('execute · failed', card_status(c, 'touch asked.txt'), 'the step failed')
        wait_for('the question to settle', function()
          return tandem.status():find('waiting', 1, true) == nil
        end)
        eq(false, h.exists(ws .. '/asked.txt'), 'the step never ran')
      end)
    end)
  )

  test(
    'chat_queues_a_prompt_sent_during_a_turn_and_keeps_the_reader_in_place',
    with_model(function()
      replay({ format = 'anthropic', responses = { slow(240, 10), { parts = { { text = 'The second answer.' } } } } })
      h.workspace()
      tandem.setup({})
      vim.cmd('TandemChat first')
      local c = the_chat()
      local win = vim.fn.bufwinid(c.buf)
      wait_for('the stream to start', function()
        return text(c):find('word40', 1, true) ~= nil
      end)
      -- The user reads above while the answer streams.
      vim.api.nvim_win_set_cursor(win, { 3, 0 })
      vim.api.nvim_win_call(win, function()
        vim.fn.winrestview({ topline = 2 })
      end)
      local view = vim.api.nvim_win_call(win, vim.fn.winsaveview)
      -- A second prompt typed in the prompt area and sent with <C-s> while the turn runs.
      local last = vim.api.nvim_buf_line_count(c.buf)
      vim.api.nvim_buf_set_lines(c.buf, last - 1, last, false, { 'second' })
      vim.api.nvim_win_set_cursor(win, { vim.api.nvim_buf_line_count(c.buf), 0 })
      vim.api.nvim_feedkeys(vim.keycode('A<C-s>'), 'x', false)
      wait_for('the prompt to be queued', function()
        return #c.queue == 1
      end)
      eq(true, c.running, 'the first turn still runs')
      local shown = false
      for _, m in ipairs(vim.api.nvim_buf_get_extmarks(c.buf, ns, 0, -1, { details = true })) do
        for _, vl in ipairs(m[4].virt_lines or {}) do
          shown = shown or vl[1][1] == 'queued: second'
        end
      end
      eq(true, shown, 'the queued prompt is shown')
      contains(tandem.status(), '1 queued', 'the status counts it')
      vim.api.nvim_win_set_cursor(win, { view.lnum, view.col })
      vim.api.nvim_win_call(win, function()
        vim.fn.winrestview(view)
      end)
      wait_for('the queued prompt to be answered', function()
        return text(c):find('The second answer.', 1, true) ~= nil
      end, 20000)
      turn_over(c, 'end_turn')
      contains(text(c), '## You\nsecond', 'the queued prompt was sent after the first turn')
      local after = vim.api.nvim_win_call(win, vim.fn.winsaveview)
      eq({ view.lnum, view.topline }, { after.lnum, after.topline }, 'the reader stayed where they were')
    end)
  )

  --- A turn that writes README.md (open in a buffer) and creates notes.txt.
  local function writing_turn()
    return {
      format = 'anthropic',
      responses = {
        { parts = { { tool = { name = 'read', input = { path = 'README.md' } } } } },
        {
          parts = {
            { tool = { name = 'write', input = { path = 'README.md', content = '# agent wrote this\n' } } },
            { tool = { name = 'write', input = { path = 'notes.txt', content = 'notes\n' } } },
          },
        },
        { parts = { { text = 'Wrote both.' } } },
      },
    }
  end

  test(
    'chat_restore_puts_the_files_back',
    with_model(function()
      replay(writing_turn())
      local ws = h.workspace()
      tandem.setup({})
      local buf = h.open(ws, 'README.md')
      local orig = h.lines(buf)
      vim.cmd('TandemChat rewrite')
      local c = the_chat()
      turn_over(c, 'end_turn')
      eq({ '# agent wrote this' }, h.lines(buf), 'the edit landed in the buffer')
      eq(true, h.exists(ws .. '/notes.txt'), 'the new file is there')
      -- The restore key on the user message.
      local win = vim.fn.bufwinid(c.buf)
      vim.api.nvim_set_current_win(win)
      local row = vim.fn.search('^## You', 'nw')
      vim.api.nvim_win_set_cursor(win, { row + 1, 0 })
      vim.api.nvim_feedkeys('gR', 'x', false)
      wait_for('the restore', function()
        return c.restored ~= nil
      end)
      eq(orig, h.lines(buf), 'the buffer is back')
      eq(table.concat(orig, '\n') .. '\n', h.read_file(ws .. '/README.md'), 'the file is back')
      eq(false, h.exists(ws .. '/notes.txt'), 'the created file is gone')
      contains(text(c), '> restore to before turn 0', 'the transcript says so')
    end)
  )

  test(
    'chat_restore_keeps_the_users_later_unsaved_change_and_names_it',
    with_model(function()
      replay(writing_turn())
      local ws = h.workspace()
      tandem.setup({})
      local buf = h.open(ws, 'README.md')
      vim.cmd('TandemChat rewrite')
      local c = the_chat()
      turn_over(c, 'end_turn')
      -- The user types into the buffer the agent wrote, and does not save.
      vim.api.nvim_buf_set_lines(buf, 1, 1, false, { 'my own line, not saved' })
      local users = h.lines(buf)
      vim.cmd('TandemRestore 0')
      wait_for('the restore', function()
        return c.restored ~= nil
      end)
      eq(users, h.lines(buf), "the user's text is all there")
      eq(true, vim.bo[buf].modified, 'and still unsaved')
      contains(c.restored.text, 'README.md', 'the file left alone is named')
      eq(false, h.exists(ws .. '/notes.txt'), 'the other file went back')
    end)
  )

  test(
    'chat_history_reopens_a_past_chat',
    with_model(function()
      replay({
        format = 'anthropic',
        responses = {
          { parts = { { tool = { name = 'write', input = { path = 'notes.txt', content = '42\n' } } } } },
          { parts = { { text = 'Remember the number 42.' } } },
        },
      })
      local ws = h.workspace()
      tandem.setup({})
      vim.cmd('TandemChat a chat to remember')
      local c = the_chat()
      turn_over(c, 'end_turn')
      local id = c.id
      vim.cmd('bwipeout! ' .. c.buf)
      eq(nil, chat_mod.get(), 'the chat is gone')
      with_select(function(items, _, shown)
        for i, s in ipairs(items) do
          if s.sessionId == id then
            eq(true, shown.items[i]:find('a chat to remember', 1, true) ~= nil, 'the pick shows its title')
            return s
          end
        end
      end, function()
        vim.cmd('TandemChat history')
        local again
        wait_for('the chat to load', function()
          again = chat_mod.get()
          return again ~= nil and not again.loading and text(again):find('number 42', 1, true) ~= nil
        end)
        eq('tandem://chat/' .. id, vim.api.nvim_buf_get_name(again.buf), 'the same chat')
        contains(text(again), '## You\na chat to remember', 'the prompt is replayed')
        eq('edit · completed', card_status(again, 'Write notes.txt'), 'its tool call too')
        eq(true, h.exists(ws .. '/notes.txt'), 'which wrote notes.txt')
        local turns = {}
        for _, m in pairs(again.users) do
          table.insert(turns, m.turn)
        end
        eq({ 0 }, turns, 'the replayed prompt knows its turn')
        local items = chat_mod.changes(again, 0)
        eq(1, #items, 'the replayed write is among the turn changes')
        eq(ws .. '/notes.txt', items[1].filename, 'with its file')
      end)
    end)
  )

  test(
    'chat_model_switch_and_plan_mode_show_in_the_status',
    with_model(function()
      replay({
        format = 'anthropic',
        responses = {
          { parts = { { text = 'one' } } },
          { parts = { { text = 'two' } }, usage = { input = 50, output = 5 } },
        },
      })
      h.workspace()
      tandem.setup({})
      vim.cmd('TandemChat first')
      local c = the_chat()
      turn_over(c, 'end_turn')
      contains(tandem.status(), 'tandem replay/any', 'the model in use')
      local fired = 0
      vim.api.nvim_create_autocmd('User', {
        pattern = 'TandemChatStatus',
        callback = function()
          fired = fired + 1
        end,
      })
      local done = false
      with_select(function(items)
        for _, m in ipairs(items) do
          if m == 'replay/any' then
            return nil -- the picker lists the model in use; the user closes it
          end
        end
        error('the model in use is not offered: ' .. vim.inspect(items))
      end, function()
        vim.cmd('TandemModel')
      end)
      chat_mod.model('replay/other', function()
        done = true
      end)
      wait_for('the switch', function()
        return done
      end)
      eq('replay/other', c.model, 'the chat reports the new model')
      eq(true, fired > 0, 'statusline plugins are told (User TandemChatStatus)')
      contains(tandem.status(), 'tandem replay/other', 'the status shows it')
      done = false
      chat_mod.plan(function()
        done = true
      end)
      wait_for('plan mode', function()
        return done
      end)
      contains(tandem.status(), 'plan', 'plan mode shows')
      c.stop_reason = nil
      chat_mod.send(c, 'second')
      turn_over(c, 'end_turn')
      contains(text(c), 'two', 'the next turn runs on the new model')
      contains(tandem.status(), '55 tokens', 'the context used')
    end)
  )

  test(
    'chat_completes_slash_commands_and_runs_a_prompt_file',
    with_model(function()
      replay({ format = 'anthropic', responses = { { parts = { { text = 'Ran the prompt file.' } } } } })
      h.workspace() -- the sample ships .tandem/commands/add-test.md
      tandem.setup({})
      vim.cmd('TandemChat')
      local c = the_chat()
      local got
      wait_for('the advertised commands', function()
        got = vim.fn.getcompletion('TandemChat /', 'cmdline')
        return vim.tbl_contains(got, '/add-test')
      end)
      for _, want in ipairs({ '/compact', '/cost', '/init', '/model', '/plan', '/restore' }) do
        eq(true, vim.tbl_contains(got, want), want .. ' is offered: ' .. vim.inspect(got))
      end
      eq({ '/add-test' }, vim.fn.getcompletion('TandemChat /ad', 'cmdline'), 'the names that start /ad')
      eq({}, vim.fn.getcompletion('TandemChat x /ad', 'cmdline'), 'only the first word is a command')
      vim.cmd('TandemChat /add-test Blank names greet a stranger.')
      turn_over(c, 'end_turn')
      contains(text(c), 'Ran the prompt file.', 'the prompt file ran a turn')
      c.stop_reason = nil
      vim.cmd('TandemChat /nope')
      turn_over(c, 'end_turn')
      contains(text(c), 'There is no command /nope', 'an unknown command is answered with the list')
      contains(text(c), '/add-test BEHAVIOUR', 'the list names the prompt file')
    end)
  )

  test(
    'chat_open_when_the_client_stops_tandem_exits_cleanly',
    with_model(function()
      replay({ format = 'anthropic', responses = { { parts = { { text = 'hello' } } } } })
      h.workspace()
      tandem.setup({})
      vim.cmd('TandemChat hi')
      local c = the_chat()
      turn_over(c, 'end_turn')
      local id = c.client.id
      local t0 = vim.uv.hrtime()
      local seen = h.notifications(function()
        if vim.fn.has('nvim-0.11') == 1 then
          c.client:stop()
        else
          c.client.stop()
        end
        wait_for('tandem to exit', function()
          return vim.lsp.get_client_by_id(id) == nil
        end, 5000)
        h.flush_scheduled() -- an exit-code warning is scheduled before the client goes
      end)
      for _, n in ipairs(seen) do
        if n.msg:find('quit with exit code', 1, true) then
          error('tandem did not exit cleanly: ' .. n.msg)
        end
      end
      local took = (vim.uv.hrtime() - t0) / 1e6
      eq(true, took < 1500, 'tandem exited in ' .. took .. ' ms')
    end)
  )

  test(
    'chat_completes_at_files_and_sends_a_selection_with_its_diagnostics',
    with_model(function()
      replay({
        format = 'anthropic',
        responses = { { parts = { { text = 'Seen.' } } }, { parts = { { text = 'Again.' } } } },
      })
      local ws = h.workspace()
      tandem.setup({})
      local buf = h.open(ws, 'README.md')
      local dns = vim.api.nvim_create_namespace('test.diagnostics')
      vim.diagnostic.set(dns, buf, { { lnum = 2, col = 0, message = 'a made-up problem', severity = 1 } })
      vim.cmd('2,3TandemAsk explain these lines')
      local c = the_chat()
      turn_over(c, 'end_turn')
      local t = text(c)
      contains(t, '## You\nexplain these lines\n(attached: README.md:2-3)', 'the selection went with the prompt')
      contains(t, '(attached: diagnostics of README.md)', 'its diagnostics too')
      contains(t, 'Seen.', 'the turn ran')
      -- `@` completes workspace files in the prompt area (omnifunc).
      local win = vim.fn.bufwinid(c.buf)
      vim.api.nvim_set_current_win(win)
      local last = vim.api.nvim_buf_line_count(c.buf)
      vim.api.nvim_buf_set_lines(c.buf, last - 1, last, false, { 'look at @internal/na' })
      vim.api.nvim_win_set_cursor(win, { last, #'look at @internal/na' })
      eq("v:lua.require'tandem.chat'.omnifunc", vim.bo[c.buf].omnifunc, 'the omnifunc')
      local start = chat_mod.omnifunc(1, '')
      eq(#'look at @', start, 'completion starts after the @')
      local words = vim.tbl_map(function(i)
        return i.word
      end, chat_mod.omnifunc(0, 'internal/na'))
      eq(true, vim.tbl_contains(words, 'internal/names/names.go'), 'the file is offered: ' .. vim.inspect(words))
      if vim.fn.has('nvim-0.11') == 1 then
        vim.api.nvim_feedkeys(vim.keycode('A<C-x><C-o><C-s>'), 'x', false)
      else
        -- Headless 0.10.4 crashes when insert mode is left from a mapping with the completion
        -- menu open (any omnifunc, `nvim --clean`); the chosen item is put in instead.
        vim.api.nvim_buf_set_lines(c.buf, last - 1, last, false, { 'look at @internal/names/names.go' })
        vim.api.nvim_feedkeys(vim.keycode('A<C-s>'), 'x', false)
      end
      c.stop_reason = nil
      turn_over(c, 'end_turn')
      contains(text(c), '## You\nlook at @internal/names/names.go', 'the completed name was sent')
    end)
  )

  test('chat_layouts_and_focus', function()
    h.workspace()
    local before
    for _, layout in ipairs({ 'split', 'float', 'tab', 'vsplit' }) do
      tandem.setup({ chat = { layout = layout } })
      vim.cmd('enew')
      vim.cmd('TandemChat new')
      local c
      wait_for('the ' .. layout .. ' chat', function()
        c = chat_mod.get()
        return c ~= nil and c ~= before and vim.api.nvim_get_current_buf() == c.buf
      end)
      before = c
      local win = vim.api.nvim_get_current_win()
      if layout == 'float' then
        eq('editor', vim.api.nvim_win_get_config(win).relative, 'a float')
      elseif layout == 'tab' then
        eq(2, vim.fn.tabpagenr('$'), 'a tab')
      elseif layout == 'split' then
        eq(vim.o.columns, vim.api.nvim_win_get_width(win), 'a horizontal split')
      else
        eq(true, vim.api.nvim_win_get_width(win) < vim.o.columns, 'a vertical split')
      end
      -- Again: the same chat is focused, no new window.
      local n = #vim.api.nvim_list_wins()
      vim.cmd('wincmd p')
      vim.cmd('TandemChat')
      eq(c.buf, vim.api.nvim_get_current_buf(), ':TandemChat focuses the chat')
      eq(n, #vim.api.nvim_list_wins(), 'no new window')
      vim.cmd('silent! only')
      vim.cmd('silent! tabonly')
    end
    local ok, err = pcall(tandem.setup, { chat = { layout = 'sideways' } })
    eq(false, ok, 'a bad layout is refused')
    contains(tostring(err), "chat.layout must be 'vsplit', 'split', 'float' or 'tab'", 'and says what it can be')
    tandem.setup({})
  end)

  test(
    'chat_announces_a_question_when_it_is_not_on_screen',
    with_model(function()
      replay({
        format = 'anthropic',
        responses = {
          { parts = { { tool = { name = 'bash', input = { command = 'touch hidden.txt' } } } } },
          { parts = { { text = 'ok' } } },
        },
      }, { shell = { autoEffects = { 'read' } } })
      local ws = h.workspace()
      tandem.setup({})
      h.open(ws, 'README.md')
      with_select(h.item('Allow'), function()
        local seen = h.notifications(function()
          vim.cmd('TandemChat make a file')
          local c = the_chat()
          vim.api.nvim_win_close(vim.fn.bufwinid(c.buf), false)
          turn_over(c, 'end_turn')
        end)
        local msgs = table.concat(
          vim.tbl_map(function(n)
            return n.msg
          end, seen),
          '\n'
        )
        contains(msgs, 'the agent asks you something: touch hidden.txt', 'the question is announced')
        eq(true, h.exists(ws .. '/hidden.txt'), 'the allowed step ran')
      end)
    end)
  )

  test(
    'checkhealth_checks_the_chats_model',
    with_model(function()
      h.workspace()
      tandem.setup({})
      vim.cmd('checkhealth tandem')
      contains(table.concat(h.lines(0), '\n'), 'no model is set', 'without a model it says what to set')
      contains(
        table.concat(h.lines(0), '\n'),
        "a chat's in the chat with its keys (chat.questions = 'auto')",
        'with no picker a chat asks in the chat'
      )
      vim.cmd('bwipeout!')
      replay({ format = 'anthropic', responses = {} })
      vim.cmd('checkhealth tandem')
      contains(table.concat(h.lines(0), '\n'), 'the chat uses replay/any at http://127.0.0.1:', 'the model it uses')
      vim.cmd('bwipeout!')
      h.write_file(
        os.getenv('XDG_CONFIG_HOME') .. '/tandem/config.json',
        '{"agent": {"model": "anthropic/claude-sonnet-4-5"}}'
      )
      vim.env.ANTHROPIC_API_KEY = nil
      vim.cmd('checkhealth tandem')
      contains(table.concat(h.lines(0), '\n'), 'needs its API key in ANTHROPIC_API_KEY', 'a missing key')
    end)
  )

  test('chat_completion_sources_for_nvim_cmp_and_blink', function()
    -- Stand-ins with the calls nvim-cmp makes; neither plugin is installed here.
    local registered, buffer_sources = {}, nil
    package.loaded.cmp = {
      register_source = function(name, src)
        registered[name] = src
      end,
      setup = {
        buffer = function(cfg)
          buffer_sources = cfg.sources
        end,
      },
    }
    local ok, err = pcall(function()
      h.workspace()
      tandem.setup({})
      vim.cmd('TandemChat')
      local c = the_chat()
      eq(true, registered.tandem ~= nil, 'the source is registered with nvim-cmp')
      eq('tandem', buffer_sources and buffer_sources[1].name, 'and used in the chat buffer')
      vim.api.nvim_set_current_buf(c.buf)
      eq(true, registered.tandem:is_available(), 'available in the chat')
      local got
      registered.tandem:complete({ context = { cursor_before_line = 'see @READ' } }, function(r)
        got = r
      end)
      eq('@README.md', got.items[1].label, 'nvim-cmp gets the file')
      local blink = require('tandem.blink').new()
      eq(true, blink:enabled(), 'blink source enabled in the chat')
      blink:get_completions({ line = 'see @READ', cursor = { 3, 9 } }, function(r)
        got = r
      end)
      eq('README.md', got.items[1].label, 'blink gets the file')
      eq({ line = 2, character = 5 }, got.items[1].textEdit.range.start, 'replacing what follows the @')
    end)
    package.loaded.cmp = nil
    if not ok then
      error(err, 0)
    end
  end)

  test('chat_without_a_model_says_what_to_set_and_diagnostics_attach', function()
    local ws = h.workspace()
    tandem.setup({})
    -- The buffer's diagnostics attached first: they go with the next prompt.
    local buf = h.open(ws, 'README.md')
    local dns = vim.api.nvim_create_namespace('test.diagnostics')
    vim.diagnostic.set(dns, buf, { { lnum = 0, col = 0, message = 'a made-up problem', severity = 2 } })
    vim.cmd('TandemDiagnostics')
    local c = the_chat()
    eq(1, #c.attach, 'the diagnostics wait for the next prompt')
    vim.cmd('TandemChat hello')
    turn_over(c, 'error')
    contains(text(c), '## You\nhello\n(attached: diagnostics of README.md)', 'they went with it')
    eq(0, #c.attach, 'and only with it')
    contains(text(c), '> error: no model is set: set agent.model in', 'the transcript says what to set')
    eq(false, c.running, 'the chat is ready for the next prompt')
  end)

  test(
    'chat_restore_without_a_turn_picks_among_the_turns_that_changed_files',
    with_model(function()
      replay(writing_turn())
      local ws = h.workspace()
      tandem.setup({})
      vim.cmd('TandemChat rewrite')
      local c = the_chat()
      turn_over(c, 'end_turn')
      vim.cmd('wincmd p') -- from a file window, not on a message
      with_select(function(items)
        return items[1]
      end, function(asked)
        vim.cmd('TandemRestore')
        wait_for('the restore', function()
          return c.restored ~= nil
        end)
        eq({ 'turn 0: README.md, notes.txt' }, asked[1].items, 'the pick names the turn and its files')
      end)
      eq(false, h.exists(ws .. '/notes.txt'), 'the turn was restored')
    end)
  )

  test(
    'chat_reopens_after_tandem_stopped',
    with_model(function()
      replay({ format = 'anthropic', responses = { { parts = { { text = 'Before the stop.' } } } } })
      h.workspace()
      tandem.setup({})
      vim.cmd('TandemChat hello')
      local c = the_chat()
      turn_over(c, 'end_turn')
      local id, old = c.id, c.client.id
      if vim.fn.has('nvim-0.11') == 1 then
        c.client:stop()
      else
        c.client.stop()
      end
      wait_for('tandem to stop', function()
        return vim.lsp.get_client_by_id(old) == nil and chat_mod.get() == nil
      end)
      local again = reopen(id, 'Before the stop.') -- in a new tandem
      eq('tandem://chat/' .. id, vim.api.nvim_buf_get_name(again.buf), 'the same name, a new buffer')
      eq(1, #vim.tbl_filter(function(b)
        return vim.api.nvim_buf_get_name(b) == 'tandem://chat/' .. id
      end, vim.api.nvim_list_bufs()), 'one buffer of that chat')
    end)
  )
  --- The virtual lines and the end-of-line virtual text on rows of the chat, as text.
  local function virtual(c)
    local lines, eol = {}, {}
    for _, m in ipairs(vim.api.nvim_buf_get_extmarks(c.buf, ns, 0, -1, { details = true })) do
      for _, vl in ipairs(m[4].virt_lines or {}) do
        table.insert(
          lines,
          table.concat(vim.tbl_map(function(chunk)
            return chunk[1]
          end, vl))
        )
      end
      if m[4].virt_text then
        eol[m[2] + 1] = (eol[m[2] + 1] or '') .. m[4].virt_text[1][1]
      end
    end
    return table.concat(lines, '\n'), eol
  end

  --- Runs fn with Neovim's own vim.ui.select (no picker plugin) and an inputlist that must not
  --- be reached unless allow_inputlist(list) answers it.
  local function without_picker(fn, allow_inputlist)
    local select, inputlist = vim.ui.select, vim.fn.inputlist
    vim.ui.select = h.default_select
    local listed = {}
    vim.fn.inputlist = function(list)
      table.insert(listed, list)
      if allow_inputlist then
        return allow_inputlist(list)
      end
      return 0
    end
    local ok, err = xpcall(fn, debug.traceback, listed)
    vim.ui.select, vim.fn.inputlist = select, inputlist
    if not ok then
      error(err, 0)
    end
  end

  test(
    'chat_question_without_a_picker_waits_in_the_chat_while_another_streams_and_g1_allows',
    with_model(function()
      replay({
        format = 'anthropic',
        responses = {
          { parts = { { tool = { name = 'bash', input = { command = 'touch asked.txt' } } } } },
          slow(64, 20, 'story'),
          { parts = { { text = 'Made it.' } } },
        },
      }, { shell = { autoEffects = { 'read' } } })
      local ws = h.workspace()
      tandem.setup({})
      without_picker(function(listed)
        vim.cmd('TandemChat make a file')
        local a = the_chat()
        local awin = vim.fn.bufwinid(a.buf)
        wait_for('the question in the chat', function()
          return card_status(a, 'touch asked.txt') == 'execute · waiting for you'
        end)
        local vl, eol = virtual(a)
        contains(vl, 'touch asked.txt', 'the card shows the step')
        contains(vl, 'g1 Allow  g2 Deny  g3 Allow for this session', 'and the keys that answer it')
        contains(
          eol[vim.api.nvim_buf_line_count(a.buf) - 1],
          'waiting for you',
          'the separator says who the turn waits for'
        )
        -- A second chat streams its answer while the first one's question waits.
        vim.cmd('TandemChat new')
        local b
        wait_for('the second chat', function()
          b = chat_mod.get()
          return b ~= nil and b ~= a
        end)
        chat_mod.send(b, 'tell me a story')
        wait_for('the second chat to stream', function()
          return text(b):find('story8', 1, true) ~= nil
        end)
        wait_for('more of the stream', function()
          return text(b):find('story24', 1, true) ~= nil
        end)
        eq(true, a.waiting[next(a.waiting)] ~= nil, 'the question still waits')
        eq(0, #listed, 'no inputlist held the editor')
        -- g1 in the first chat allows the step.
        vim.api.nvim_set_current_win(awin)
        vim.api.nvim_win_set_cursor(awin, { vim.api.nvim_buf_line_count(a.buf), 0 })
        vim.api.nvim_feedkeys('g1', 'x', false)
        turn_over(a, 'end_turn')
        eq('execute · completed', card_status(a, 'touch asked.txt'), 'the allowed step ran')
        eq(true, h.exists(ws .. '/asked.txt'), 'and made its file')
        contains(text(a), 'Made it.', 'the turn went on')
        eq(nil, virtual(a):find('g1 Allow', 1, true), 'the answered question is gone from the card')
        turn_over(b, 'end_turn')
        contains(text(b), 'story64', 'the second chat streamed to its end')
        eq(0, #listed, 'still no inputlist')
      end)
    end)
  )

  test(
    'chat_question_is_announced_only_when_scrolled_away_from',
    with_model(function()
      local short = slow(4, 50, 'first')
      table.insert(short.parts, { tool = { name = 'bash', input = { command = 'touch one.txt' } } })
      local long = slow(96, 5, 'line')
      table.insert(long.parts, { tool = { name = 'bash', input = { command = 'touch two.txt' } } })
      replay({
        format = 'anthropic',
        responses = {
          short,
          long,
          { parts = { { text = 'Both.' } } },
        },
      }, { shell = { autoEffects = { 'read' } } })
      h.workspace()
      tandem.setup({ chat = { questions = 'buffer' } })
      local seen = h.notifications(function(seen)
        vim.cmd('TandemChat make two files')
        local c = the_chat()
        local win = vim.fn.bufwinid(c.buf)
        -- The user reads from the top: the transcript is short enough to be all in view.
        wait_for('the first answer to stream', function()
          return text(c):find('first1', 1, true) ~= nil
        end)
        vim.api.nvim_win_set_cursor(win, { 1, 0 })
        wait_for('the first question', function()
          return card_status(c, 'touch one.txt') == 'execute · waiting for you'
        end)
        eq(0, #seen, 'a question in view is not announced')
        vim.api.nvim_feedkeys('g1', 'x', false)
        -- The user goes on reading from the top while a long answer streams below the view.
        wait_for('the second answer to stream', function()
          return text(c):find('line2 ', 1, true) ~= nil
        end)
        vim.api.nvim_win_set_cursor(win, { 1, 0 })
        wait_for('the second question', function()
          return card_status(c, 'touch two.txt') == 'execute · waiting for you'
        end)
        eq(1, vim.fn.line('w0', win), 'the reader was left where they read')
        eq(true, #seen > 0, 'the question out of view is announced')
        contains(
          seen[1].msg,
          'the agent asks you something: touch two.txt (it waits under its tool call',
          'and says where'
        )
        vim.api.nvim_win_set_cursor(win, { vim.api.nvim_buf_line_count(c.buf), 0 })
        vim.api.nvim_feedkeys('g1', 'x', false)
        turn_over(c, 'end_turn')
      end)
      eq(1, #seen, 'one announcement in all')
      tandem.setup({})
    end)
  )

  test(
    'chat_questions_buffer_option_skips_the_picker_and_g2_denies',
    with_model(function()
      replay({
        format = 'anthropic',
        responses = {
          { parts = { { tool = { name = 'bash', input = { command = 'touch denied.txt' } } } } },
          { parts = { { text = 'Not made.' } } },
        },
      }, { shell = { autoEffects = { 'read' } } })
      local ws = h.workspace()
      tandem.setup({ chat = { questions = 'buffer' } })
      with_select(function()
        error('the picker was asked')
      end, function(asked)
        vim.cmd('TandemChat make a file')
        local c = the_chat()
        wait_for('the question in the chat', function()
          return next(c.waiting) ~= nil
        end)
        local win = vim.fn.bufwinid(c.buf)
        vim.api.nvim_set_current_win(win)
        local _, row = card_status(c, 'touch denied.txt')
        vim.api.nvim_win_set_cursor(win, { row, 0 })
        vim.api.nvim_feedkeys('g2', 'x', false)
        turn_over(c, 'end_turn')
        eq(0, #asked, 'the picker was not asked')
        eq('execute · failed', card_status(c, 'touch denied.txt'), 'the denied step failed')
        eq(false, h.exists(ws .. '/denied.txt'), 'and never ran')
        local seen = h.notifications(function()
          vim.api.nvim_feedkeys('g1', 'x', false)
        end)
        contains(seen[1] and seen[1].msg or '', 'no question waits', 'a key with no question says so')
      end)
      tandem.setup({})
    end)
  )

  test(
    'chat_questions_select_option_uses_vim_ui_select_and_a_picker_gets_it_in_auto',
    with_model(function()
      replay({
        format = 'anthropic',
        responses = {
          { parts = { { tool = { name = 'bash', input = { command = 'touch listed.txt' } } } } },
          { parts = { { text = 'one' } } },
          { parts = { { tool = { name = 'bash', input = { command = 'touch picked.txt' } } } } },
          { parts = { { text = 'two' } } },
        },
      }, { shell = { autoEffects = { 'read' } } })
      local ws = h.workspace()
      -- 'select' with no picker: Neovim's own inputlist, as the user asked for.
      tandem.setup({ chat = { questions = 'select' } })
      without_picker(function(listed)
        vim.cmd('TandemChat make a file')
        local c = the_chat()
        turn_over(c, 'end_turn')
        eq(1, #listed, 'the inputlist asked')
        contains(table.concat(listed[1], '\n'), 'touch listed.txt', 'about the step')
        eq(true, h.exists(ws .. '/listed.txt'), 'its answer was used')
      end, function(list)
        for i, line in ipairs(list) do
          if line:match('^%d+: Allow$') then
            return i - 1
          end
        end
      end)
      -- 'auto' with a picker plugin in place: the picker gets the question.
      tandem.setup({})
      with_select(h.item('Allow'), function(asked)
        local c = the_chat()
        c.stop_reason = nil
        chat_mod.send(c, 'another')
        turn_over(c, 'end_turn')
        eq(1, #asked, 'the picker was asked')
        eq('tandem.approval', asked[1].kind, 'with the approval kind')
        eq(true, h.exists(ws .. '/picked.txt'), 'its answer was used')
      end)
    end)
  )

  test(
    'chat_stop_settles_a_question_waiting_in_the_chat',
    with_model(function()
      replay({
        format = 'anthropic',
        responses = { { parts = { { tool = { name = 'bash', input = { command = 'touch never.txt' } } } } } },
      }, { shell = { autoEffects = { 'read' } } })
      local ws = h.workspace()
      tandem.setup({ chat = { questions = 'buffer' } })
      vim.cmd('TandemChat make a file')
      local c = the_chat()
      wait_for('the question in the chat', function()
        return next(c.waiting) ~= nil
      end)
      local id = next(c.waiting)
      vim.cmd('TandemStop')
      turn_over(c, 'cancelled')
      wait_for('the question to settle', function()
        return next(c.waiting) == nil
      end)
      eq(nil, virtual(c):find('g1 Allow', 1, true), 'the card no longer offers an answer')
      wait_for('the request to end unanswered', function()
        for _, q in ipairs(require('tandem.approvals').questions()) do
          if q.id == id then
            return false
          end
        end
        return true
      end)
      eq(false, h.exists(ws .. '/never.txt'), 'the step never ran')
      tandem.setup({})
    end)
  )

  local SAMPLE_README = h.read_file(os.getenv('TANDEM_TEST_SAMPLE') .. '/README.md')

  --- A turn that changes README.md's first line (open in a buffer) and creates notes.txt.
  local function first_line_turn()
    return {
      format = 'anthropic',
      responses = {
        { parts = { { tool = { name = 'read', input = { path = 'README.md' } } } } },
        {
          parts = {
            {
              tool = {
                name = 'write',
                input = { path = 'README.md', content = (SAMPLE_README:gsub('^# greet', '# greeter')) },
              },
            },
            { tool = { name = 'write', input = { path = 'notes.txt', content = 'notes\n' } } },
          },
        },
        { parts = { { text = 'Renamed.' } } },
      },
    }
  end

  --- Puts the cursor on the chat's line that starts with prefix and presses keys; waits for
  --- the restore they start.
  local function restore_key(c, prefix, keys)
    local win = vim.fn.bufwinid(c.buf)
    vim.api.nvim_set_current_win(win)
    local row
    for i, l in ipairs(vim.api.nvim_buf_get_lines(c.buf, 0, -1, false)) do
      if vim.startswith(l, prefix) then
        row = i
      end
    end
    assert(row, 'no line starts with ' .. prefix)
    vim.api.nvim_win_set_cursor(win, { row, 0 })
    c.restored = nil
    vim.api.nvim_feedkeys(keys, 'x', false)
    wait_for('the restore', function()
      return c.restored ~= nil
    end)
    return row
  end

  test(
    'chat_restore_around_later_changes_with_gA_and_undo_restores_with_gR',
    with_model(function()
      replay(first_line_turn())
      local ws = h.workspace()
      tandem.setup({})
      local buf = h.open(ws, 'README.md')
      local orig = h.lines(buf)
      vim.cmd('TandemChat rename the project')
      local c = the_chat()
      turn_over(c, 'end_turn')
      local agents = h.lines(buf)
      eq('# greeter', agents[1], 'the agent renamed it')
      -- The user adds a note at the end, far from the agent's line, and does not save.
      vim.api.nvim_buf_set_lines(buf, -1, -1, false, { '', 'my own note' })
      vim.cmd('TandemRestore 0')
      wait_for('the restore', function()
        return c.restored ~= nil
      end)
      contains(c.restored.text, 'Kept as they are: README.md', 'the changed file was kept')
      eq(false, h.exists(ws .. '/notes.txt'), 'the other file went back')
      local _, eol = virtual(c)
      local first = vim.fn.search('^> restore to before turn 0', 'nw')
      eq(
        'turn 1 · gR undoes it · gA restores around your later changes',
        vim.trim(eol[first] or ''),
        'the note offers both'
      )
      -- gA on the note: README.md restored around the user's note.
      restore_key(c, '> restore to before turn 0', 'gA')
      local want = vim.deepcopy(orig)
      vim.list_extend(want, { '', 'my own note' })
      eq(want, h.lines(buf), "the agent's line is undone, the user's note stays")
      eq(true, vim.bo[buf].modified, 'still unsaved: the restore went through the buffer')
      contains(text(c), '> restore around your later changes to before turn 0', 'the transcript says so')
      -- gR on the first restore's note undoes it (and what came after it).
      restore_key(c, '> restore to before turn 0', 'gR')
      contains(text(c), '> restore to before turn 1', 'the undo is a restore of that restore')
      eq('notes\n', h.read_file(ws .. '/notes.txt'), 'the file it removed is back')
      local back = vim.deepcopy(agents)
      vim.list_extend(back, { '', 'my own note' })
      eq(back, h.lines(buf), "the agent's line is back, the user's note stays")
    end)
  )

  test(
    'chat_reopened_shows_its_restore_and_gR_undoes_it',
    with_model(function()
      replay(writing_turn())
      local ws = h.workspace()
      tandem.setup({})
      vim.cmd('TandemChat rewrite')
      local c = the_chat()
      turn_over(c, 'end_turn')
      vim.cmd('TandemRestore 0')
      wait_for('the restore', function()
        return c.restored ~= nil
      end)
      eq(false, h.exists(ws .. '/notes.txt'), 'the restore removed notes.txt')
      local id = c.id
      vim.cmd('bwipeout! ' .. c.buf)
      local again = reopen(id, '> restore: ')
      contains(text(again), '> restore: Restored README.md, notes.txt.', 'the restore is a note, as live')
      local row = vim.fn.search('^> restore: ', 'nw')
      local _, eol = virtual(again)
      eq('turn 1 · gR undoes it', vim.trim(eol[row] or ''), 'with the key that undoes it')
      again.restored = nil
      restore_key(again, '> restore: ', 'gR')
      contains(text(again), '> restore to before turn 1', 'gR restored the turn the note names')
      eq('notes\n', h.read_file(ws .. '/notes.txt'), 'notes.txt is back')
    end)
  )

  test(
    'chat_restore_bang_restores_around_later_changes_at_once',
    with_model(function()
      replay(first_line_turn())
      local ws = h.workspace()
      tandem.setup({})
      local buf = h.open(ws, 'README.md')
      local orig = h.lines(buf)
      vim.cmd('TandemChat rename the project')
      local c = the_chat()
      turn_over(c, 'end_turn')
      vim.api.nvim_buf_set_lines(buf, -1, -1, false, { 'mine' })
      vim.cmd('wincmd p')
      vim.cmd('TandemRestore! 0')
      wait_for('the restore', function()
        return c.restored ~= nil
      end)
      contains(c.restored.text, 'Restored around your later changes, which stay: README.md', 'README.md was merged')
      local want = vim.deepcopy(orig)
      table.insert(want, 'mine')
      eq(want, h.lines(buf), "the agent's line is undone, the user's stays")
      eq(false, h.exists(ws .. '/notes.txt'), 'the other file went back')
    end)
  )

  test(
    'chat_edit_and_resend_with_ge_cuts_the_chat_back',
    with_model(function()
      local script = writing_turn()
      table.insert(script.responses, { parts = { { text = 'Quietly rewritten.' } } })
      replay(script)
      local ws = h.workspace()
      tandem.setup({})
      vim.cmd('TandemChat rewrite')
      local c = the_chat()
      turn_over(c, 'end_turn')
      vim.cmd('TandemRestore 0')
      wait_for('the restore', function()
        return c.restored ~= nil
      end)
      local win = vim.fn.bufwinid(c.buf)
      vim.api.nvim_set_current_win(win)
      vim.api.nvim_win_set_cursor(win, { vim.fn.search('^## You', 'nw'), 0 })
      vim.api.nvim_feedkeys('ge', 'x', false)
      local lines = vim.api.nvim_buf_get_lines(c.buf, 0, -1, false)
      eq('rewrite', lines[#lines], 'ge put the message into the prompt area')
      local _, eol = virtual(c)
      contains(eol[#lines - 1] or '', '<CR> sends it in place of turn 0', 'the separator says what <CR> does')
      vim.api.nvim_buf_set_lines(c.buf, -2, -1, false, { 'rewrite it quietly' })
      vim.api.nvim_feedkeys(vim.keycode('<CR>'), 'x', false)
      wait_for('the edited message to be answered', function()
        return text(c):find('Quietly rewritten.', 1, true) ~= nil
      end, 20000)
      turn_over(c, 'end_turn')
      --- The chat as the model now sees it: the cut turn gone, the restore kept before the
      --- cut's note, then the new message.
      local function cut_shown(t, where)
        for _, gone in ipairs({ 'Wrote both.', '▸ ', '\nrewrite\n' }) do
          eq(nil, t:find(gone, 1, true), where .. ': the cut turn still shows ' .. gone)
        end
        local restore = t:find('> restore', 1, true)
        local cut = t:find('> Cut back to before "rewrite"', 1, true)
        local again = t:find('rewrite it quietly', 1, true)
        assert(restore and cut and again and restore < cut and cut < again, where .. ': the chat reads\n' .. t)
      end
      cut_shown(text(c), 'live')
      eq('# greet\n', h.read_file(ws .. '/README.md'):sub(1, 8), 'the files are as the restore left them')
      eq(false, h.exists(ws .. '/notes.txt'), 'notes.txt stays gone')
      local id = c.id
      vim.cmd('bwipeout! ' .. c.buf)
      cut_shown(text(reopen(id, 'Quietly rewritten.')), 'reopened')
    end)
  )

  test(
    'chat_repeated_tool_call_ids_get_a_card_each',
    with_model(function()
      -- A provider naming the call of every response call_0.
      local function write(path)
        return {
          parts = { { tool = { id = 'call_0', name = 'write', input = { path = path, content = path .. '\n' } } } },
        }
      end
      replay({
        format = 'anthropic',
        responses = { write('repeat-a.txt'), write('repeat-b.txt'), { parts = { { text = 'Both.' } } } },
      })
      local ws = h.workspace()
      tandem.setup({})
      vim.cmd('TandemChat write two files')
      local c = the_chat()
      turn_over(c, 'end_turn')
      local t = text(c)
      local first, second =
        t:find('/repeat-a.txt (0 → 1 lines', 1, true), t:find('/repeat-b.txt (0 → 1 lines', 1, true)
      local cards = select(2, t:gsub('\n▸ ', ''))
      assert(cards == 2 and first and second and first < second, 'two cards, each with its own file:\n' .. t)
      local ids = vim.tbl_map(function(card)
        return card.id
      end, c.order)
      assert(#ids == 2 and ids[1] ~= ids[2], 'the cards have ids ' .. vim.inspect(ids))
      eq('repeat-b.txt\n', h.read_file(ws .. '/repeat-b.txt'), 'the second call ran')
    end)
  )

  --- A 1×1 PNG.
  local PNG =
    vim.base64.decode('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgABSK+kcQAAAABJRU5ErkJggg==')

  test(
    'chat_at_image_is_sent_as_an_image_block',
    with_model(function()
      replay({ format = 'openai-chat', responses = { { parts = { { text = 'A grey dot.' } } } } })
      -- The replayed model is one that takes images.
      local config = os.getenv('XDG_CONFIG_HOME') .. '/tandem/config.json'
      local cfg = vim.json.decode(h.read_file(config))
      cfg.agent.models = { ['replay/any'] = { images = true } }
      h.write_file(config, vim.json.encode(cfg))
      local ws = h.workspace()
      h.write_file(ws .. '/shot.png', PNG)
      tandem.setup({})
      vim.cmd('TandemChat what is in @shot.png')
      local c = the_chat()
      wait_for('the turn to end', function()
        return not c.running and c.stop_reason ~= nil
      end, 20000)
      eq('end_turn', c.stop_reason, 'the turn ended: ' .. text(c))
      contains(text(c), 'A grey dot.', 'the model answered the prompt with its image')
    end)
  )

  test(
    'chat_at_image_to_a_model_without_images_is_refused_naming_it',
    with_model(function()
      -- replay/any is a name tandem's table does not know: no images. A resource_link would be
      -- read as text and sent; only an image block is refused this way.
      replay({ format = 'anthropic', responses = { { parts = { { text = 'never' } } } } })
      local ws = h.workspace()
      h.write_file(ws .. '/shot.png', PNG)
      tandem.setup({})
      vim.cmd('TandemChat what is in @shot.png')
      local c = the_chat()
      turn_over(c, 'error')
      contains(text(c), 'the model replay/any does not take images', 'the transcript names the model')
      eq(nil, text(c):find('never', 1, true), 'the model was not asked')
    end)
  )
end
