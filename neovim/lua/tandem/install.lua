--- Setting agents up to use tandem in a workspace (`:TandemInstall`): tandem's MCP server entry
--- in the agent configuration files, and a working rule in the agents' instruction file.
--- The same targets and rules as the VS Code extension (vscode-extension/src/install.ts): an
--- entry is merged under its own key and nothing else changes; a file that is not valid JSON is
--- refused (someone is editing it, and rewriting it would lose their other servers); the rule
--- lives between markers and is replaced there, never appended twice; a file whose content would
--- not change is not written; nothing written holds a token.
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

M.targets = {
  {
    file = '.mcp.json',
    kind = 'json',
    container = 'mcpServers',
    entry = { command = 'tandem', args = { 'mcp', 'serve' } },
  },
  {
    file = '.vscode/mcp.json',
    kind = 'json',
    container = 'servers',
    entry = { type = 'stdio', command = 'tandem', args = { 'mcp', 'serve' } },
  },
  { file = 'AGENTS.md', kind = 'block' },
}

local dict_mt = getmetatable(vim.empty_dict())

--- JSON with two-space indentation and sorted keys (a decoded Lua table keeps no key order).
local function encode(v, indent)
  if type(v) ~= 'table' then
    return vim.json.encode(v)
  end
  local inner = indent .. '  '
  local parts = {}
  if getmetatable(v) ~= dict_mt and vim.islist(v) then
    if #v == 0 then
      return '[]'
    end
    for _, x in ipairs(v) do
      table.insert(parts, inner .. encode(x, inner))
    end
    return '[\n' .. table.concat(parts, ',\n') .. '\n' .. indent .. ']'
  end
  local keys = vim.tbl_keys(v)
  if #keys == 0 then
    return '{}'
  end
  table.sort(keys)
  for _, k in ipairs(keys) do
    table.insert(parts, inner .. vim.json.encode(k) .. ': ' .. encode(v[k], inner))
  end
  return '{\n' .. table.concat(parts, ',\n') .. '\n' .. indent .. '}'
end

--- A decoded JSON object: an empty one carries vim.empty_dict()'s metatable, `[]` does not.
local function is_object(v)
  return type(v) == 'table' and (getmetatable(v) == dict_mt or (next(v) ~= nil and not vim.islist(v)))
end

--- Puts entry under container.tandem of a JSON file's text (nil: no file yet).
---@return table outcome {status = 'write', text} | {status = 'unchanged'} | {status = 'refused', reason}
function M.merge_json(text, container, entry)
  local doc = vim.empty_dict()
  if text and vim.trim(text) ~= '' then
    local ok, decoded = pcall(vim.json.decode, text)
    if not ok then
      return { status = 'refused', reason = 'it is not valid JSON; fix or finish editing it, then install again' }
    end
    doc = decoded
  end
  if not is_object(doc) then
    return { status = 'refused', reason = 'it is not a JSON object; fix it, then install again' }
  end
  local servers = doc[container]
  if servers == nil then
    servers = vim.empty_dict()
  elseif not is_object(servers) then
    return { status = 'refused', reason = 'its "' .. container .. '" is not an object; fix it, then install again' }
  end
  if vim.deep_equal(servers.tandem, entry) then
    return { status = 'unchanged' }
  end
  servers.tandem = entry
  doc[container] = servers
  return { status = 'write', text = encode(doc, '') .. '\n' }
end

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

--- Installs into the workspace root; returns {file, what} per target.
---@param root string
---@return {file: string, what: string}[]
function M.run(root)
  local out = {}
  for _, t in ipairs(M.targets) do
    local path = root .. '/' .. t.file
    local text = read(path)
    local r = t.kind == 'json' and M.merge_json(text, t.container, t.entry) or M.merge_block(text, M.WORKING_RULE)
    local what = r.status
    if r.status == 'write' then
      vim.fn.mkdir(vim.fs.dirname(path), 'p')
      local f, err = io.open(path, 'wb')
      if not f then
        what = 'failed: ' .. tostring(err)
      else
        f:write(r.text)
        f:close()
        what = text == nil and 'created' or 'updated'
      end
    elseif r.status == 'refused' then
      what = 'refused: ' .. r.reason
    end
    table.insert(out, { file = t.file, what = what })
  end
  return out
end

return M
