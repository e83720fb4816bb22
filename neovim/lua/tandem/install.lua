--- Setting agents up to use tandem in a workspace (`:TandemInstall`): `tandem mcp install --scope
--- project` writes tandem's MCP server entry into each agent's configuration file (keeping every
--- other byte, refusing a file it cannot parse) and its working rule into AGENTS.md; this shows
--- what it printed.
local M = {}

--- Installs into the workspace root. Returns the lines `tandem mcp install` printed (one per
--- agent, then AGENTS.md) and whether everything succeeded.
---@param root string
---@return string[], boolean
function M.run(root)
  local config = require('tandem').config()
  local lines = {}
  local done = vim
    .system({ config.cmd[1], 'mcp', 'install', '--scope', 'project' }, { cwd = root, text = true })
    :wait(config.timeout_ms)
  for _, out in ipairs({ done.stdout or '', done.stderr or '' }) do
    for _, line in ipairs(vim.split(vim.trim(out), '\n', { trimempty = true })) do
      table.insert(lines, line)
    end
  end
  if done.code ~= 0 and #lines == 0 then
    table.insert(lines, config.cmd[1] .. ' mcp install failed (exit ' .. done.code .. ')')
  end
  return lines, done.code == 0
end

return M
