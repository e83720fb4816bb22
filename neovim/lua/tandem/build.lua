--- Builds the tandem this plugin starts, from the repository the plugin was installed from
--- (lazy.nvim's `build`, a vim.pack PackChanged hook, :TandemBuild): `go build` of its
--- cmd/tandem, stamped with `git describe` as a release is, into neovim/bin/tandem, which the
--- plugin starts before any `tandem` on PATH (`:help tandem-install`).
local M = {}

--- The repository holding this plugin (the parent of neovim/), symlinks resolved: a plugin
--- manager loads it through the root's lua/ link.
---@return string
function M.root()
  local file = vim.uv.fs_realpath(debug.getinfo(1, 'S').source:sub(2))
  return vim.fs.dirname(vim.fs.dirname(vim.fs.dirname(vim.fs.dirname(file))))
end

--- Where the build puts tandem in a repository.
---@param root string?
---@return string
function M.binary(root)
  return (root or M.root()) .. '/neovim/bin/tandem'
end

--- The Go version the repository's go.mod asks for.
---@param root string
---@return string
local function required_go(root)
  for line in io.lines(root .. '/go.mod') do
    local v = line:match('^go%s+(%S+)')
    if v then
      return v
    end
  end
  error('tandem: ' .. root .. '/go.mod names no Go version', 0)
end

--- Runs a command to its end; its output, or an error naming what failed.
local function run(cmd, opts)
  local done = vim.system(cmd, vim.tbl_extend('force', { text = true }, opts or {})):wait()
  return done.code == 0, vim.trim(done.stdout or ''), vim.trim(done.stderr or '')
end

--- Builds tandem in root (default: this plugin's repository) and returns the binary's path.
--- Raises an error saying what is needed when Go is missing or too old, or the build failed.
---@param root string?
---@param say fun(msg: string)? progress (default: vim.notify)
---@return string
function M.run(root, say)
  root = root or M.root()
  say = say or function(msg)
    vim.notify('tandem: ' .. msg, vim.log.levels.INFO)
  end
  local need = required_go(root)
  if vim.fn.executable('go') == 0 then
    error(
      string.format(
        "tandem: building tandem needs Go %s or newer (https://go.dev/dl/), and there is no `go` on PATH. Install Go, then build again (:TandemBuild, or your plugin manager's build), or put a tandem release on PATH.",
        need
      ),
      0
    )
  end
  local _, have = run({ 'go', 'env', 'GOVERSION' })
  local have_v = vim.version.parse(have:gsub('^go', ''), { strict = false })
  if have_v and vim.version.lt(have_v, need) then
    local _, toolchain = run({ 'go', 'env', 'GOTOOLCHAIN' })
    if toolchain == 'local' then
      error(
        string.format(
          'tandem: building tandem needs Go %s or newer; `go` on PATH is %s and GOTOOLCHAIN=local forbids fetching a newer one. Install Go %s (https://go.dev/dl/), then build again.',
          need,
          have,
          need
        ),
        0
      )
    end
    say(string.format('Go %s is older than the %s tandem needs: the go command fetches that toolchain', have, need))
  end
  local out = M.binary(root)
  local _, version = run({ 'git', '-C', root, 'describe', '--tags', '--always', '--dirty' })
  say(string.format('building tandem %s with %s (needs Go %s or newer) into %s', version, have, need, out))
  local ok, _, stderr = run({
    'go',
    'build',
    '-trimpath',
    '-ldflags',
    '-X main.version=' .. version,
    '-o',
    out,
    './cmd/tandem',
  }, { cwd = root, env = { CGO_ENABLED = '0' } })
  if not ok then
    error('tandem: go build failed in ' .. root .. ':\n' .. stderr, 0)
  end
  local _, said = run({ out, 'version' })
  say('built ' .. out .. ': ' .. said)
  return out
end

return M
