--- Setting agents up to use tandem in a workspace (`:TandemInstall`): tandem's MCP server entry
--- in each agent's configuration file, written by `tandem mcp install --scope project` (which
--- keeps every other byte of those files and refuses a file it cannot parse), and a working rule
--- in the agents' instruction file. The rule lives between markers and is replaced there, never
--- appended twice; an unchanged file is not written; nothing written holds a token.
local M = {}

M.BEGIN = '<!-- tandem:begin -->'
M.END = '<!-- tandem:end -->'

--- The working rule, identical in the VS Code extension.
M.WORKING_RULE = M.BEGIN
  .. [[

## tandem

This workspace has tandem's tools (MCP server `tandem`, started as `tandem mcp serve`).
Use them for files and commands: `read` shows `[path#TAG]` and numbered rows; `edit` names
that tag and anchors only on rows you were shown; `grep` and `glob` page with `skip`; `bash`
asks the user before risky steps. A refusal ends with what to do next: do that. For a large MCP
result, run `tandem mcp call SERVER/TOOL '{...}' > FILE` in a shell step and read FILE in ranges.
]]
  .. M.END
  .. '\n'

local function count(text, needle)
  local n, from = 0, 1
  while true do
    local i = text:find(needle, from, true)
    if not i then
      return n
    end
    n, from = n + 1, i + #needle
  end
end

--- Replaces the block between the markers, or appends it when the text has none.
function M.merge_block(text, block)
  local t = text or ''
  local begins, ends = count(t, M.BEGIN), count(t, M.END)
  local next_text
  if begins == 0 and ends == 0 then
    next_text = t == '' and block or (t:gsub('\n*$', '') .. '\n\n' .. block)
  elseif begins == 1 and ends == 1 and t:find(M.BEGIN, 1, true) < t:find(M.END, 1, true) then
    local from = t:find(M.BEGIN, 1, true)
    local to = t:find(M.END, 1, true) + #M.END
    if t:sub(to, to) == '\n' then
      to = to + 1
    end
    next_text = t:sub(1, from - 1) .. block .. t:sub(to)
  else
    return {
      status = 'refused',
      reason = 'its '
        .. M.BEGIN
        .. ' … '
        .. M.END
        .. ' markers are broken; leave exactly one pair, then install again',
    }
  end
  if next_text == t then
    return { status = 'unchanged' }
  end
  return { status = 'write', text = next_text }
end

local function read(path)
  local f = io.open(path, 'rb')
  if not f then
    return nil
  end
  local s = f:read('*a')
  f:close()
  return s
end

--- Writes the working rule into root/AGENTS.md; returns what happened.
local function install_rule(root)
  local path = root .. '/AGENTS.md'
  local text = read(path)
  local r = M.merge_block(text, M.WORKING_RULE)
  if r.status == 'refused' then
    return 'refused: ' .. r.reason, false
  elseif r.status == 'unchanged' then
    return 'unchanged', true
  end
  local f, err = io.open(path, 'wb')
  if not f then
    return 'failed: ' .. tostring(err), false
  end
  f:write(r.text)
  f:close()
  return text == nil and 'created' or 'updated', true
end

--- Installs into the workspace root: the MCP entries through `tandem mcp install --scope
--- project` (one line per agent), then the working rule. Returns the report's lines and
--- whether everything succeeded.
---@param root string
---@return string[], boolean
function M.run(root)
  local config = require('tandem').config()
  local lines, ok = {}, true
  local done = vim
    .system({ config.cmd[1], 'mcp', 'install', '--scope', 'project' }, { cwd = root, text = true })
    :wait(config.timeout_ms)
  for _, out in ipairs({ done.stdout or '', done.stderr or '' }) do
    for _, line in ipairs(vim.split(vim.trim(out), '\n', { trimempty = true })) do
      table.insert(lines, line)
    end
  end
  if done.code ~= 0 then
    ok = false
    if #lines == 0 then
      table.insert(lines, config.cmd[1] .. ' mcp install failed (exit ' .. done.code .. ')')
    end
  end
  local what, rule_ok = install_rule(root)
  table.insert(lines, 'AGENTS.md: ' .. what)
  return lines, ok and rule_ok
end

return M
