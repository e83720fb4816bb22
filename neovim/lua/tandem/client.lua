--- The `tandem lsp` client of a workspace: started with Neovim's own LSP client, with the
--- handlers of tandem's requests and notifications.
local approvals = require('tandem.approvals')
local compat = require('tandem.compat')
local config = require('tandem.config')
local edits = require('tandem.edits')
local language = require('tandem.language')
local terminal = require('tandem.terminal')
local version = require('tandem.version')

local M = {}

local NAME = 'tandem'

--- Per client id: the names of its tools, for :TandemCall completion.
local tool_names = {} ---@type table<integer, string[]>

--- The workspace root for a buffer: nearest marker directory, else the cwd.
---@param bufnr integer
---@return string
function M.root(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  local start = (name ~= '' and vim.bo[bufnr].buftype == '') and vim.fs.dirname(name) or vim.fn.getcwd()
  -- The nearest directory holding any marker: from 0.11 on, vim.fs.root would prefer a
  -- `.git` far above to a `.tandem` right here.
  local found = vim.fs.find(config.get().root_markers, { path = start, upward = true, limit = 1 })[1]
  return found and vim.fs.dirname(found) or vim.fn.getcwd()
end

--- The running tandem client for a buffer (or, failing that, for the cwd).
---@param bufnr integer?
---@return vim.lsp.Client?
function M.get(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local clients = vim.lsp.get_clients({ name = NAME, bufnr = bufnr })
  if #clients > 0 then
    return clients[1]
  end
  local root = M.root(bufnr)
  for _, c in ipairs(vim.lsp.get_clients({ name = NAME })) do
    if c.config.root_dir == root then
      return c
    end
  end
  return nil
end

--- The names of a client's tools, as listed when it started.
---@param client vim.lsp.Client?
---@return string[]
function M.tool_names(client)
  return client and tool_names[client.id] or {}
end

local function capabilities()
  local caps = vim.lsp.protocol.make_client_capabilities()
  -- Versioned documentChanges let Neovim refuse an agent edit computed on an older buffer.
  caps.workspace.workspaceEdit.documentChanges = true
  caps.experimental = caps.experimental or {}
  caps.experimental.tandem = { saveDocument = true }
  if config.get().approvals == 'tandem' then
    caps.experimental.tandem.approvals = true
  end
  if config.get().language_query then
    caps.experimental.tandem.languageQuery = true
  end
  return caps
end

--- The client configuration for a workspace root.
---@param root string
---@return table
local function client_config(root)
  -- Required here, not above: tandem.session and tandem.chat require this module.
  local session = require('tandem.session')
  local chat = require('tandem.chat')
  local cfg = config.get()
  return {
    name = NAME,
    cmd = cfg.cmd,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = vim.fs.basename(root) } },
    init_options = {
      user = next(cfg.user_settings) and cfg.user_settings or vim.empty_dict(),
      workspace = next(cfg.settings) and cfg.settings or vim.empty_dict(),
    },
    capabilities = capabilities(),
    handlers = {
      ['tandem/askApproval'] = approvals.ask,
      ['tandem/approvalSettled'] = approvals.settled,
      ['tandem/jobSettled'] = session.job_settled,
      ['tandem/saveDocument'] = edits.save_document,
      ['tandem/languageQuery'] = language.query,
      ['workspace/applyEdit'] = edits.apply_edit,
      ['session/update'] = chat.on_update,
    },
    on_init = function(client, init_result)
      version.on_init(client, init_result)
      if config.get().terminal_env then
        terminal.fetch(client)
      end
      compat.request(client, 'tandem/listTools', vim.empty_dict(), function(err, result)
        if not err and result then
          tool_names[client.id] = vim.tbl_map(function(t)
            return t.name
          end, result.tools or {})
        end
      end)
    end,
    on_exit = function(_, _, client_id)
      -- on_exit runs in a libuv callback, where vim.env cannot be set.
      vim.schedule(function()
        session.forget(client_id)
        chat.forget(client_id)
        tool_names[client_id] = nil
        version.forget(client_id)
        terminal.drop(client_id)
      end)
    end,
  }
end

--- Whether a running client serves a configuration's root: one tandem per workspace. Neovim
--- 0.10's own test compares the root with the workspace folder's name, which here is the
--- directory's basename, so every buffer would start a tandem of its own.
local function same_root(c, conf)
  return c.name == conf.name and c.config.root_dir == conf.root_dir
end

--- Starts (or reuses) the tandem client for a file buffer.
---@param bufnr integer?
---@return integer? client_id
function M.start(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  if vim.bo[bufnr].buftype ~= '' then
    return nil
  end
  return vim.lsp.start(client_config(M.root(bufnr)), { bufnr = bufnr, reuse_client = same_root })
end

--- The running client of a workspace root, started (attached to no buffer) when there is none.
---@param root string
---@return vim.lsp.Client?
function M.for_root(root)
  for _, c in ipairs(vim.lsp.get_clients({ name = NAME })) do
    if c.config.root_dir == root then
      return c
    end
  end
  local id
  if vim.fn.has('nvim-0.11') == 1 then
    id = vim.lsp.start(client_config(root), { attach = false })
  else
    id = vim.lsp.start_client(client_config(root))
  end
  return id and vim.lsp.get_client_by_id(id) or nil
end

--- Sends a tandem/* request to the buffer's client, starting it when needed.
---@param method string
---@param params table
---@param cb fun(err: table?, result: any)
---@return {client: vim.lsp.Client, id: integer}? handle for session.cancel
function M.request(method, params, cb)
  local client = M.get()
  if not client then
    local id = M.start()
    client = id and vim.lsp.get_client_by_id(id)
  end
  if not client then
    cb({ message = 'tandem is not running for this buffer; open a file of the workspace or see :checkhealth tandem' })
    return
  end
  local ok, id = compat.request(client, method, params, function(err, result)
    cb(err, result)
  end)
  if ok then
    return { client = client, id = id }
  end
end

return M
