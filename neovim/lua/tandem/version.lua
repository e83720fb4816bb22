--- Whether the tandem this plugin starts is of the plugin's own build. The plugin's version is
--- `git describe` of the repository it was installed from; tandem's is the serverInfo.version
--- its initialize answers. They are compared as tandem compares them (cmd/tandem/version.go;
--- both checked against testdata/versions.json): a tandem of another build (an older one first
--- on PATH) is said plainly once; a modified or unstamped build is only shown in :checkhealth.
local build = require('tandem.build')

local M = {}

--- Parses a version string: a release, or a commit; modified; unstamped.
---@param v string?
---@return {release: string?, commit: string?, modified: boolean, unstamped: boolean}
local function parse(v)
  v = vim.trim(v or '')
  if v == '' or v == 'devel' or v == '(devel)' or v == 'unknown' then
    return { modified = false, unstamped = true }
  end
  local b = { modified = false, unstamped = false }
  for _, suffix in ipairs({ '-dirty', '+dirty' }) do
    if v:sub(-#suffix) == suffix then
      v, b.modified = v:sub(1, -#suffix - 1), true
    end
  end
  -- A Go pseudo-version, git describe past a tag, a bare abbreviated commit.
  local commit = v:match('^v%d+%.%d+%.%d+%-.*%d%d%d%d%d%d%d%d%d%d%d%d%d%d%-(%x+)$')
  if commit and (#commit ~= 12 or commit:find('%u')) then
    commit = nil
  end
  commit = commit or v:match('^.+%-%d+%-g(%x+)$')
  if not commit and v:match('^%x+$') and #v >= 7 and #v <= 40 and not v:find('%u') then
    commit = v
  end
  if commit then
    b.commit = commit
  else
    b.release = v:gsub('^v', '')
  end
  return b
end

--- 'same', 'differ', 'modified' or 'unstamped' (a build that cannot be told apart).
---@param a string?
---@param b string?
---@return string
function M.compare(a, b)
  local pa, pb = parse(a), parse(b)
  if pa.unstamped or pb.unstamped then
    return 'unstamped'
  elseif pa.modified or pb.modified then
    return 'modified'
  elseif pa.commit and pb.commit then
    local n = math.min(#pa.commit, #pb.commit)
    return pa.commit:sub(1, n) == pb.commit:sub(1, n) and 'same' or 'differ'
  elseif pa.release and pa.release == pb.release then
    return 'same'
  end
  return 'differ'
end

local own ---@type string?
local waiting ---@type fun(v: string)[]?

local function describe_cmd()
  return { 'git', '-C', build.root(), 'describe', '--tags', '--always', '--dirty' }
end

--- The plugin's own version: `git describe --tags --always --dirty` of its repository ('' when
--- it is not a git checkout). Asked once.
---@return string
function M.plugin()
  if not own then
    local ok, done = pcall(function()
      return vim.system(describe_cmd(), { text = true }):wait(5000)
    end)
    own = ok and done.code == 0 and vim.trim(done.stdout or '') or ''
  end
  return own
end

--- Calls fn once the plugin's own version is known, without holding Neovim up for git.
---@param fn fun()
local function when_known(fn)
  if own then
    return fn()
  end
  if waiting then
    table.insert(waiting, fn)
    return
  end
  waiting = { fn }
  local function settle(v)
    own = own or v
    local fns = waiting or {}
    waiting = nil
    for _, f in ipairs(fns) do
      f()
    end
  end
  local ok = pcall(vim.system, describe_cmd(), { text = true }, function(done)
    vim.schedule(function()
      settle(done.code == 0 and vim.trim(done.stdout or '') or '')
    end)
  end)
  if not ok then
    settle('')
  end
end

--- Per client id: the version tandem answered initialize with.
local servers = {} ---@type table<integer, string>

--- What a verdict means, in words.
M.meaning = {
  same = 'the same build',
  differ = 'different builds',
  modified = 'a build with uncommitted changes, so whether they match cannot be told',
  unstamped = 'a build stamped with no version, so whether they match cannot be told',
}

--- The comparison of a client's tandem with the plugin, as one line.
---@param client vim.lsp.Client
---@return string line, string verdict
function M.describe(client)
  local server = servers[client.id] or 'unknown'
  local mine = M.plugin()
  local verdict = M.compare(server, mine)
  return string.format(
    'tandem %s (%s), this plugin %s: %s',
    server,
    vim.fn.exepath(client.config.cmd[1]),
    mine ~= '' and mine or 'unknown',
    M.meaning[verdict]
  ),
    verdict
end

--- Says once, plainly, when the client's tandem is of another build than the plugin.
---@param client vim.lsp.Client
local function warn_if_another_build(client)
  if not servers[client.id] then
    return -- stopped meanwhile
  end
  local line, verdict = M.describe(client)
  if verdict == 'differ' then
    vim.notify(
      'tandem: '
        .. line
        .. ". A tandem of another build (an older one first on PATH?) may not speak this plugin's protocol: run :TandemBuild, or set cmd in setup() to the right one.",
      vim.log.levels.WARN
    )
  end
end

--- On a client's start: records tandem's version and says plainly when it is another build.
---@param client vim.lsp.Client
---@param result table the initialize result
function M.on_init(client, result)
  servers[client.id] = result and result.serverInfo and result.serverInfo.version or 'unknown'
  when_known(function()
    warn_if_another_build(client)
  end)
end

function M.forget(client_id)
  servers[client_id] = nil
end

return M
