--- The plugin's options: the defaults, and what `setup()` made of the user's.
local M = {}

--- Defaults; `setup()` merges the user's options over these.
local defaults = {
  -- cmd, the command that serves one editor over stdio: when not set, the tandem the plugin's
  -- build step made (neovim/bin/tandem in its repository), else `tandem` on PATH (default_cmd).
  -- A buffer's workspace is the nearest ancestor holding one of these; else the cwd.
  root_markers = { '.git', '.tandem' },
  -- Start tandem for every buffer backed by a file.
  autostart = true,
  -- Your own settings, sent as initializationOptions.user (see docs/settings.md): user level,
  -- so tandem honours execution gates here (e.g. shell.autoEffects). Set them only in your
  -- own config, never from a project's.
  user_settings = {},
  -- Other settings, sent as initializationOptions.workspace: workspace level, so tandem
  -- never takes an execution gate from them.
  settings = {},
  -- 'tandem': declare the tandem approval capability, so questions arrive as
  -- tandem/askApproval with the steps, effects and paths, and are answered with
  -- vim.ui.select. 'native': leave it undeclared; questions then arrive as
  -- window/showMessageRequest and Neovim's own handler answers them.
  approvals = 'tandem',
  -- Answer tandem's questions about what the other language servers attached in Neovim know
  -- (tandem/languageQuery): the agent then has the `code` tool (symbols, definitions,
  -- references, hover, diagnostics) and its edits' replies list the problems they brought or
  -- fixed. false: not declared, so tandem neither lists the tool nor waits after an edit.
  language_query = true,
  -- Ask tandem for the bridge environment (tandem/terminalEnv) and give it to every job
  -- Neovim starts from then on, :terminal included, so `tandem mcp call` works there.
  terminal_env = true,
  -- The chat (:TandemChat): where it opens ('vsplit', 'split', 'float' or 'tab') and its
  -- buffer-local keys (an empty string leaves a key unmapped).
  chat = {
    layout = 'vsplit',
    -- How a chat's questions are answered: 'auto' (a picker plugin's vim.ui.select when one
    -- replaced Neovim's own, else 'buffer'), 'buffer' (in the tool call's card, by the keys
    -- below, while the chat goes on) or 'select' (always vim.ui.select).
    questions = 'auto',
    keys = {
      send = '<CR>', -- normal mode: send the prompt area (on a tool call: open its file)
      send_insert = '<C-s>', -- insert mode: send
      stop = '<C-c>', -- stop the running turn
      diff = 'gd', -- on an edit card: the diff of its change
      restore = 'gR', -- on a user message: restore the files to before that turn; on a restore: undo it
      changes = 'gC', -- the turn's changes into the quickfix list
      restore_around = 'gA', -- restore, keeping your later changes where the agent's do not touch them
      resend = 'ge', -- on a user message: edit it in the prompt area; sent, it replaces it (the chat is cut back)
      allow = 'g1', -- answer the question waiting in the chat: Allow
      deny = 'g2', -- … Deny
      allow_always = 'g3', -- … Allow for this session
    },
  },
  -- How long synchronous helpers (health, tests) wait for an answer, in ms.
  timeout_ms = 10000,
}

--- The command when setup() names none: the binary the build step made, else PATH's.
local function default_cmd()
  local built = require('tandem.build').binary()
  return { vim.fn.executable(built) == 1 and built or 'tandem', 'lsp' }
end

local current = vim.deepcopy(defaults)
current.cmd = default_cmd()
local cmd_given = false

--- The options in effect (not a copy: do not change it).
function M.get()
  return current
end

--- Chooses the command again when setup() named none (after :TandemBuild made a binary).
function M.resolve_cmd()
  if not cmd_given then
    current.cmd = default_cmd()
  end
end

--- Merges opts over the defaults.
---@param opts table?
function M.set(opts)
  current = vim.tbl_deep_extend('force', vim.deepcopy(defaults), opts or {})
  cmd_given = current.cmd ~= nil
  current.cmd = current.cmd or default_cmd()
  if current.approvals ~= 'tandem' and current.approvals ~= 'native' then
    error("tandem: approvals must be 'tandem' or 'native', not " .. vim.inspect(current.approvals))
  end
  if not vim.tbl_contains({ 'vsplit', 'split', 'float', 'tab' }, current.chat.layout) then
    error("tandem: chat.layout must be 'vsplit', 'split', 'float' or 'tab', not " .. vim.inspect(current.chat.layout))
  end
  if not vim.tbl_contains({ 'auto', 'buffer', 'select' }, current.chat.questions) then
    error("tandem: chat.questions must be 'auto', 'buffer' or 'select', not " .. vim.inspect(current.chat.questions))
  end
end

return M
