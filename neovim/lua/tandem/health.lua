--- :checkhealth tandem — what the plugin needs, each with the fix when it is missing.
local approvals = require('tandem.approvals')
local client = require('tandem.client')
local language = require('tandem.language')
local versions = require('tandem.version')

local M = {}

--- Providers tandem knows without settings, and the variable each key comes from.
local builtin = {
  anthropic = { api = 'anthropic', url = 'https://api.anthropic.com', apiKeyEnv = 'ANTHROPIC_API_KEY' },
  openai = { api = 'openai-chat', url = 'https://api.openai.com/v1', apiKeyEnv = 'OPENAI_API_KEY' },
  ollama = { api = 'openai-chat', url = 'http://127.0.0.1:11434/v1' },
}

--- The user's settings file, as tandem finds it.
local function user_file()
  local base = vim.env.XDG_CONFIG_HOME
  if not base or base == '' then
    base = vim.fs.normalize('~/.config')
  end
  return base .. '/tandem/config.json'
end

--- The chat's model: agent.model and its provider, from the user's settings file and
--- setup({user_settings}), as tandem resolves them (docs/settings.md), each with what to set.
---@param health table vim.health
---@param user_settings table
function M.check_provider(health, user_settings)
  health.start('tandem chat: the model')
  local file = user_file()
  local settings = {}
  local f = io.open(file, 'rb')
  if f then
    local ok, decoded = pcall(vim.json.decode, f:read('*a'))
    f:close()
    if not ok or type(decoded) ~= 'table' then
      health.error(file .. ' is not valid JSON', { 'fix it: tandem ignores it and no chat can reach a model' })
      return
    end
    settings = decoded
  end
  settings = vim.tbl_deep_extend('force', settings, user_settings or {})
  local agent = type(settings.agent) == 'table' and settings.agent or {}
  local model = agent.model
  if type(model) ~= 'string' or model == '' then
    health.warn('no model is set', {
      'set agent.model in '
        .. file
        .. ' to "PROVIDER/MODEL", for example "anthropic/claude-sonnet-4-5" with ANTHROPIC_API_KEY in the environment, or "ollama/qwen3-coder"',
    })
    return
  end
  local name, rest = model:match('^([^/]+)/(.+)$')
  if not name then
    health.error(
      'agent.model is "' .. model .. '", not "PROVIDER/MODEL"',
      { 'name it as, for example, "anthropic/claude-sonnet-4-5"' }
    )
    return
  end
  local providers = type(agent.providers) == 'table' and agent.providers or {}
  local p = providers[name] or builtin[name]
  if not p then
    local names = vim.tbl_keys(vim.tbl_extend('force', {}, builtin, providers))
    table.sort(names)
    health.error('there is no provider "' .. name .. '"', {
      'use one of ' .. table.concat(names, ', ') .. ', or add it to agent.providers in ' .. file,
    })
    return
  end
  if p.api ~= 'anthropic' and p.api ~= 'openai-chat' then
    health.error(
      string.format('provider "%s" has api %s', name, vim.inspect(p.api)),
      { 'set its api to "anthropic" or "openai-chat"' }
    )
    return
  end
  if type(p.url) ~= 'string' or p.url == '' then
    health.error(string.format('provider "%s" has no url', name), { 'set agent.providers.' .. name .. '.url' })
    return
  end
  if p.apiKeyEnv and p.apiKeyEnv ~= '' and (vim.env[p.apiKeyEnv] or '') == '' then
    health.error(string.format('provider "%s" needs its API key in %s, which is not set', name, p.apiKeyEnv), {
      'set ' .. p.apiKeyEnv .. ' in the environment Neovim starts in (tandem inherits it); never in a settings file',
    })
    return
  end
  health.ok(string.format('the chat uses %s/%s at %s (%s)', name, rest, p.url, p.api))
end

--- Whether tandem's language queries are answered, and by which language servers.
---@param health table vim.health
---@param enabled boolean setup({language_query})
---@param clients vim.lsp.Client[] the running tandem clients
function M.check_language(health, enabled, clients)
  if not enabled then
    health.info(
      'language queries: off (language_query = false): the agent has no code tool and edit replies list no problems'
    )
    return
  end
  local servers = vim.tbl_map(function(c)
    return string.format('%s (%d buffer(s))', c.name, vim.tbl_count(c.attached_buffers))
  end, language.servers())
  if #servers == 0 then
    health.warn(
      'language queries (tandem/languageQuery) are answered, but no language server is attached besides tandem',
      {
        'attach one (vim.lsp.enable, nvim-lspconfig): the code tool and the problems after an edit come from it',
      }
    )
  else
    health.ok('language queries (tandem/languageQuery) are answered from ' .. table.concat(servers, ', '))
  end
  for _, c in ipairs(clients) do
    if vim.tbl_contains(client.tool_names(c), 'code') then
      health.ok(string.format('client %d lists the code tool', c.id))
    end
  end
end

--- tandem's version beside the plugin's: another build is a warning, with what to do.
---@param health table vim.health
---@param path string the tandem the plugin starts
---@param server string its version
---@param mine string the plugin's
function M.check_versions(health, path, server, mine)
  local line = string.format('tandem %s (%s), this plugin %s', server, path, mine ~= '' and mine or 'unknown')
  local verdict = versions.compare(server, mine)
  line = line .. ': ' .. versions.meaning[verdict]
  if verdict == 'same' then
    health.ok(line)
  elseif verdict == 'differ' then
    health.warn(line, {
      'build tandem from this plugin (:TandemBuild), or set cmd in setup() to the tandem of its version',
    })
  else
    health.info(line)
  end
end

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
  local mine = versions.plugin()
  if version.code == 0 then
    health.ok(string.format('%s: %s', path, vim.trim(version.stdout)))
    M.check_versions(health, path, vim.trim(version.stdout):gsub('^tandem ', ''), mine)
  else
    health.error(string.format('`%s version` failed: %s', path, vim.trim(version.stderr or '')), { 'reinstall tandem' })
  end
  -- doctor compares this plugin with itself too, and says which tandem PATH holds.
  local client_env = mine ~= '' and { TANDEM_CLIENT_NAME = 'Neovim plugin', TANDEM_CLIENT_VERSION = mine } or nil
  local doctor = vim.system({ path, 'doctor' }, { text = true, env = client_env }):wait(config.timeout_ms)
  if doctor.code == 0 then
    health.ok('tandem doctor: nothing missing')
  elseif doctor.code ~= nil then
    health.warn('tandem doctor reports:\n' .. vim.trim((doctor.stdout or '') .. (doctor.stderr or '')))
  end

  local arrive = 'questions arrive as window/showMessageRequest'
  if config.approvals == 'tandem' then
    local chats = approvals.in_chat() and "a chat's in the chat with its keys" or "a chat's too"
    arrive = string.format(
      "questions arrive as tandem/askApproval and are answered with vim.ui.select; %s (chat.questions = '%s')",
      chats,
      config.chat.questions
    )
  end
  health.info('approvals: ' .. config.approvals .. ' (' .. arrive .. ')')

  local clients = vim.lsp.get_clients({ name = 'tandem' })
  if #clients == 0 then
    health.info('tandem is not running; it starts when you open a file (or run :TandemStart)')
  end
  for _, c in ipairs(clients) do
    health.ok(string.format('client %d serves %s', c.id, c.config.root_dir or '?'))
  end
  M.check_language(health, config.language_query, clients)
  local env = tandem.terminal_env_names()
  if #env > 0 then
    health.ok(':terminal jobs get ' .. table.concat(env, ', '))
  elseif config.terminal_env then
    health.info('no bridge environment yet (tandem/terminalEnv not answered, or tandem not running)')
  end
  M.check_provider(health, config.user_settings)
end

return M
