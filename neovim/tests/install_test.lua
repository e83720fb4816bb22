-- The plugin installed as people install plugins, and the versions of tandem and the plugin:
-- the README's lazy.nvim spec and vim.pack hook run against a file:// clone of this repository
-- (its committed state; nothing from the internet), the build step's tandem stamped with the
-- clone's version, and a tandem of another build said plainly. Loaded by plugin_test.lua,
-- which passes its helpers and runs the tests.
return function(h)
  local tandem = require('tandem')
  local build = require('tandem.build')
  local version = require('tandem.version')
  local test, eq, contains = h.test, h.eq, h.contains
  local REPO = assert(os.getenv('TANDEM_TEST_REPO'))
  local TMP = assert(os.getenv('TANDEM_TEST_TMP'))

  -- The README's lazy.nvim spec is the block naming the repository so.
  local LAZY = "  'tandemdev/tandem',"

  --- The Lua code block of the README holding text, as written there.
  local function readme_block(text)
    for block in h.read_file(REPO .. '/README.md'):gmatch('```lua\n(.-)\n```') do
      if block:find(text, 1, true) then
        return block
      end
    end
    error('README.md has no lua block with ' .. text)
  end

  local function run(cmd)
    local done = vim.system(cmd, { text = true }):wait(600000)
    assert(done.code == 0, table.concat(cmd, ' ') .. ': ' .. (done.stderr or ''))
    return vim.trim(done.stdout)
  end

  --- A clone of this repository, as a plugin manager makes it.
  local clones = 0
  local function clone()
    clones = clones + 1
    local dir = TMP .. '/plugin' .. clones
    run({ 'git', 'clone', '--quiet', 'file://' .. REPO, dir })
    return dir
  end

  --- The Go version go.mod asks for.
  local function go_needed()
    return h.read_file(REPO .. '/go.mod'):match('\ngo%s+(%S+)')
  end

  --- What a fresh Neovim makes of a plugin at dir on the runtimepath, as lazy.nvim and vim.pack
  --- put it there: the tandem it starts and its own version.
  local function fresh_neovim(lines)
    local script = TMP .. '/fresh' .. clones .. '.lua'
    h.write_file(script, table.concat(lines, '\n'))
    local out = run({ vim.v.progpath, '--headless', '-u', 'NONE', '-i', 'NONE', '-l', script })
    return vim.json.decode(out)
  end
  local REPORT = "io.stdout:write(vim.json.encode({cmd = require('tandem').config().cmd[1],"
    .. " version = require('tandem.version').plugin()}))"

  -- The tandem the build step made in a clone, for the version tests after it.
  local built ---@type {bin: string, version: string}?

  test('versions_compare_as_the_shared_table_says', function()
    local cases = vim.json.decode(h.read_file(REPO .. '/testdata/versions.json')).cases
    assert(#cases > 0, 'testdata/versions.json has no cases')
    for _, c in ipairs(cases) do
      eq(c.verdict, version.compare(c.a, c.b), string.format('%s vs %s (%s)', c.a, c.b, c.why))
      eq(c.verdict, version.compare(c.b, c.a), string.format('%s vs %s (%s)', c.b, c.a, c.why))
    end
  end)

  test('the_build_step_says_what_it_needs_when_go_is_missing', function()
    local path = vim.env.PATH
    vim.env.PATH = TMP .. '/no-go'
    local ok, err = pcall(build.run, REPO, function() end)
    vim.env.PATH = path
    assert(not ok, 'the build ran without Go')
    contains(err, 'needs Go ' .. go_needed() .. ' or newer', 'the error names the Go it needs')
    contains(err, 'no `go` on PATH', 'the error says Go is missing')
    eq(0, vim.fn.executable(build.binary(REPO)), 'nothing was built')
  end)

  test('the_readme_lazy_spec_builds_tandem_and_the_plugin_starts_it', function()
    local spec = assert(load('return ' .. readme_block(LAZY)))()
    eq('tandemdev/tandem', spec[1], 'the spec installs from the repository URL')
    local dir = clone()
    -- lazy.nvim calls build with the plugin (its dir) after cloning or updating.
    local said = h.notifications(function()
      spec.build({ dir = dir, name = 'tandem' })
    end)
    contains(said[1].msg, 'needs Go ' .. go_needed() .. ' or newer', 'the build says first what it needs')
    local bin = dir .. '/neovim/bin/tandem'
    local want = run({ 'git', '-C', dir, 'describe', '--tags', '--always', '--dirty' })
    eq('tandem ' .. want, run({ bin, 'version' }), "the built tandem is stamped with the clone's version")
    -- lazy.nvim puts the repository's root on the runtimepath, then runs config.
    local got = fresh_neovim({
      'vim.opt.rtp:prepend(' .. vim.inspect(dir) .. ')',
      'local spec = ' .. readme_block(LAZY),
      'spec.config()',
      REPORT,
    })
    eq({ cmd = bin, version = want }, got, 'the plugin from the clone starts its own tandem and knows its version')
    built = { bin = bin, version = want }
  end)

  if vim.fn.has('nvim-0.12') == 1 then
    test('the_readme_vim_pack_hook_builds_tandem_and_the_plugin_starts_it', function()
      -- vim.pack names the plugin after its URL's last part, as the README's would be.
      local src = TMP .. '/src/tandem'
      run({ 'git', 'clone', '--quiet', 'file://' .. REPO, src })
      local snippet = readme_block('vim.pack.add'):gsub('https://github%.com/tandemdev/tandem', 'file://' .. src)
      local got = fresh_neovim({ snippet, REPORT })
      local dir = vim.fn.stdpath('data') .. '/site/pack/core/opt/tandem'
      local want = run({ 'git', '-C', dir, 'describe', '--tags', '--always', '--dirty' })
      eq({ cmd = dir .. '/neovim/bin/tandem', version = want }, got, 'vim.pack installed, built and started it')
      eq('tandem ' .. want, run({ got.cmd, 'version' }), "the built tandem is stamped with the clone's version")
    end)
  end

  --- The plugin's own version is v for the length of fn.
  local function plugin_version(v, fn)
    local orig = version.plugin
    version.plugin = function()
      return v
    end
    local ok, err = pcall(fn)
    version.plugin = orig
    if not ok then
      error(err, 0)
    end
  end

  --- The warnings at a start of tandem for the plugin of version v.
  local function warnings_at_start(v)
    assert(built, 'needs the tandem the_readme_lazy_spec_builds_tandem… built')
    -- Known once asked: the start then compares at once, not after git answers.
    version.plugin()
    local seen
    plugin_version(v, function()
      seen = h.notifications(function()
        local ws = h.workspace()
        tandem.setup({ cmd = { built.bin, 'lsp' } })
        h.open(ws, 'README.md')
        h.flush_scheduled()
      end)
    end)
    return vim.tbl_filter(function(n)
      return n.level == vim.log.levels.WARN
    end, seen)
  end

  test('a_tandem_of_another_build_is_said_plainly_at_start', function()
    local warned = warnings_at_start('v0.0.1')
    eq(1, #warned, 'one warning')
    for _, want in ipairs({ 'tandem ' .. built.version, built.bin, 'this plugin v0.0.1', 'different builds' }) do
      contains(warned[1].msg, want, 'the warning names both versions and the binary')
    end
    eq({}, warnings_at_start(built.version), 'the same build: no warning')
    eq({}, warnings_at_start(built.version .. '-dirty'), 'a modified plugin: no warning')
  end)

  test('checkhealth_shows_both_versions', function()
    assert(built, 'needs the tandem the_readme_lazy_spec_builds_tandem… built')
    local function health(v)
      local report
      plugin_version(v, function()
        tandem.setup({ cmd = { built.bin, 'lsp' } })
        vim.cmd('checkhealth tandem')
        report = table.concat(h.lines(0), '\n')
        vim.cmd('bwipeout!')
      end)
      return report
    end
    local line = string.format('tandem %s (%s), this plugin ', built.version, built.bin)
    contains(health(built.version), 'OK ' .. line .. built.version .. ': the same build', 'the same build')
    local other = health('v0.0.1')
    contains(other, 'WARNING ' .. line .. 'v0.0.1: different builds', 'another build')
    -- tandem doctor, run by the health check, compares the plugin's version with itself too.
    contains(other, 'Neovim plugin v0.0.1, this tandem ' .. built.version .. ': different builds', "doctor's view")
  end)
end
