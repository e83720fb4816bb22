-- The time an agent's edit reply takes with the problems gopls reports (language_query on)
-- and without them (off), in headless Neovim with gopls attached to both workspaces alike.
-- Run through scripts/bench-neovim-language, which provides a private environment. Edits
-- alternate between the two workspaces, so the machine's load hits both alike; prints p50
-- and p99 of each, and of what diagnostics add (on minus off, edit by edit).
local tandem = require('tandem')
_G.print = function() end

local SAMPLE = assert(os.getenv('TANDEM_TEST_SAMPLE'), 'run me through scripts/bench-neovim-language')
local TMP = assert(os.getenv('TANDEM_TEST_TMP'))
local EDITS = tonumber(os.getenv('BENCH_EDITS') or '20')
local NAMES = 'internal/names/names.go'

local function wait_for(what, cond, ms)
  assert(vim.wait(ms or 30000, cond, 1), 'timed out waiting for ' .. what)
end

--- A Go module copy of the sample at dir, names.go and main.go open with tandem (set up with
--- opts) and gopls attached, after gopls's first diagnostics of both; returns names.go's buffer.
local function workspace(dir, opts)
  vim.fn.system({ 'cp', '-r', SAMPLE, dir })
  local f = assert(io.open(dir .. '/go.mod', 'w'))
  f:write('module example.com/greet\n\ngo 1.22\n')
  f:close()
  vim.cmd.cd(dir)
  tandem.setup(opts)
  local diagnosed, bufs = {}, {}
  local group = vim.api.nvim_create_augroup('bench_gopls', { clear = true })
  vim.api.nvim_create_autocmd('DiagnosticChanged', {
    group = group,
    callback = function(ev)
      diagnosed[ev.buf] = true
    end,
  })
  for _, rel in ipairs({ NAMES, 'cmd/greet/main.go' }) do
    vim.cmd.edit(vim.fn.fnameescape(dir .. '/' .. rel))
    local buf = vim.api.nvim_get_current_buf()
    table.insert(bufs, buf)
    wait_for('tandem', function()
      local c = tandem.client(buf)
      return c ~= nil and c.initialized and vim.lsp.buf_is_attached(buf, c.id)
    end)
    vim.lsp.start({ name = 'gopls', cmd = { 'gopls' }, root_dir = dir }, { bufnr = buf })
  end
  wait_for("gopls's first diagnostics", function()
    return diagnosed[bufs[1]] and diagnosed[bufs[2]]
  end, 120000)
  vim.api.nvim_del_augroup_by_id(group)
  return bufs[1]
end

local function call(tool, args)
  local done, err, res
  tandem.call(tool, args, function(e, r)
    done, err, res = true, e, r
  end)
  wait_for(tool, function()
    return done
  end)
  assert(not err and not res.isError, tool .. ' failed: ' .. vim.inspect(err or res))
  return tandem.text(res)
end

--- Edits old to new in names.go of buf's workspace; the reply's time in ms (the read before
--- it, for the tag, not counted) and the reply.
local function timed_edit(buf, old, new)
  vim.api.nvim_set_current_buf(buf)
  local tag = call('read', { path = NAMES }):match('%[[^%]\n]-#(%x+)%]')
  local t0 = vim.uv.hrtime()
  local reply = call('edit', { files = { { path = NAMES, tag = tag, old = old, new = new } } })
  return (vim.uv.hrtime() - t0) / 1e6, reply
end

local function percentile(xs, p)
  local s = vim.deepcopy(xs)
  table.sort(s)
  return s[math.max(1, math.ceil(#s * p))]
end

-- Both workspaces up first: off, then on (setup's last call keeps the DiagnosticChanged
-- count the on workspace's answers need).
local off = workspace(TMP .. '/off', { language_query = false })
local on = workspace(TMP .. '/on', { language_query = true })

-- Two kinds of edit, each undone by the next: a harmless one (gopls republishes the file
-- unchanged) and one that breaks the build and its fix (the reply lists or counts it).
local kinds = {
  { name = 'harmless', a = 'return "Hello, stranger!"', b = 'return "Hi, stranger!"' },
  { name = 'type error / fix', a = 'return "Hello, " + name + "!"', b = 'return len(name)', said = 'problem' },
}
io.stdout:write(
  string.format('edit replies in headless Neovim %s with gopls, %d edits each\n', tostring(vim.version()), EDITS)
)
for _, k in ipairs(kinds) do
  local times = { on = {}, off = {}, added = {} }
  for i = 1, EDITS + 2 do -- the first two warm up
    local from, to = k.a, k.b
    if i % 2 == 0 then
      from, to = k.b, k.a
    end
    local pair = {}
    for _, mode in ipairs({ 'on', 'off' }) do
      local ms, reply = timed_edit(mode == 'on' and on or off, from, to)
      if k.said and mode == 'on' then
        assert(reply:find(k.said, 1, true), 'the reply lists no problem: ' .. reply)
      end
      pair[mode] = ms
    end
    if i > 2 then
      table.insert(times.on, pair.on)
      table.insert(times.off, pair.off)
      -- What diagnostics add to an edit: on minus off of the same edit, made one after the other.
      table.insert(times.added, pair.on - pair.off)
    end
  end
  local line = { k.name }
  for _, mode in ipairs({ 'on', 'off', 'added' }) do
    table.insert(
      line,
      string.format('%s: p50 %6.1f ms  p99 %6.1f ms', mode, percentile(times[mode], 0.5), percentile(times[mode], 0.99))
    )
  end
  io.stdout:write(string.format('%-17s %s\n', line[1], table.concat(line, '   ', 2)))
end
for _, c in ipairs(vim.lsp.get_clients()) do
  if vim.fn.has('nvim-0.11') == 1 then
    c:stop(true)
  else
    c.stop(true)
  end
end
os.exit(0)
