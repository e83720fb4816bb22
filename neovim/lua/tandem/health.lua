--- :checkhealth tandem — what the plugin needs, each with the fix when it is missing.
local M = {}

function M.check()
  local health = vim.health
  health.start('tandem')

  if vim.fn.has('nvim-0.10') == 1 then
    health.ok('Neovim ' .. tostring(vim.version()))
  else
    health.error('Neovim ' .. tostring(vim.version()) .. ' is too old', { 'tandem needs Neovim 0.10 or newer' })
  end

  local tandem = require('tandem')
  local config = tandem.config()
  local exe = config.cmd[1]
  local path = vim.fn.exepath(exe)
  if path == '' then
    health.error(
      string.format('`%s` is not executable or not on PATH', exe),
      { 'install tandem (`go install github.com/tandemdev/tandem/cmd/tandem@latest`) or set `cmd` in setup()' }
    )
    return
  end
  local version = vim.system({ path, 'version' }, { text = true }):wait(config.timeout_ms)
  if version.code == 0 then
    health.ok(string.format('%s: %s', path, vim.trim(version.stdout)))
  else
    health.error(string.format('`%s version` failed: %s', path, vim.trim(version.stderr or '')), { 'reinstall tandem' })
  end
  local doctor = vim.system({ path, 'doctor' }, { text = true }):wait(config.timeout_ms)
  if doctor.code == 0 then
    health.ok('tandem doctor: nothing missing')
  elseif doctor.code ~= nil then
    health.warn('tandem doctor reports:\n' .. vim.trim((doctor.stdout or '') .. (doctor.stderr or '')))
  end

  local arrive = config.approvals == 'tandem'
      and 'questions arrive as tandem/askApproval and are answered with vim.ui.select'
    or 'questions arrive as window/showMessageRequest'
  health.info('approvals: ' .. config.approvals .. ' (' .. arrive .. ')')

  local clients = vim.lsp.get_clients({ name = 'tandem' })
  if #clients == 0 then
    health.info('tandem is not running; it starts when you open a file (or run :TandemStart)')
  end
  for _, c in ipairs(clients) do
    health.ok(string.format('client %d serves %s', c.id, c.config.root_dir or '?'))
  end
  local env = tandem.terminal_env_names()
  if #env > 0 then
    health.ok(':terminal jobs get ' .. table.concat(env, ', '))
  elseif config.terminal_env then
    health.info('no bridge environment yet (tandem/terminalEnv not answered, or tandem not running)')
  end
end

return M
