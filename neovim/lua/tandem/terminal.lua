--- The bridge environment: tandem/terminalEnv's variables in vim.env, so every job Neovim
--- starts (`:terminal` included) can run `tandem mcp call`.
local compat = require('tandem.compat')

local M = {}

--- Per client id: the names of the variables put into vim.env.
local env_names = {} ---@type table<integer, string[]>

--- Sets the bridge variables into vim.env so every job started from now on inherits them.
local function apply(client_id, env)
  local names = {}
  for k, v in pairs(env or {}) do
    vim.env[k] = v
    table.insert(names, k)
  end
  env_names[client_id] = names
end

--- Removes the client's variables: later jobs must not get a revoked token.
---@param client_id integer
function M.drop(client_id)
  for _, k in ipairs(env_names[client_id] or {}) do
    vim.env[k] = nil
  end
  env_names[client_id] = nil
end

--- Asks tandem for the integrated-terminal environment and applies it.
---@param client vim.lsp.Client
---@param cb fun(env: table<string,string>?, err: string?)?
function M.fetch(client, cb)
  compat.request(client, 'tandem/terminalEnv', vim.empty_dict(), function(err, result)
    if err then
      if cb then
        cb(nil, err.message)
      end
      return
    end
    local env = result and (result.env or result) or {}
    apply(client.id, env)
    if cb then
      cb(env)
    end
  end)
end

--- The names of the variables tandem gave to jobs, sorted (values are never shown: one is a token).
---@return string[]
function M.names()
  local names = {}
  for _, list in pairs(env_names) do
    vim.list_extend(names, list)
  end
  table.sort(names)
  return names
end

return M
