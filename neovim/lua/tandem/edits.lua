--- How agent edits land in buffers: workspace/applyEdit as an undo step of its own, and
--- tandem/saveDocument.
local M = {}

--- tandem/saveDocument {uri}: after an agent edit lands in a buffer that had no unsaved
--- changes, tandem asks the editor to save it, so builds and tests the agent runs see it.
--- It is written like `:write` does (autocmds run, so LSP clients get didSave).
function M.save_document(_, params)
  local fname = vim.uri_to_fname(params.uri)
  local bufnr = vim.fn.bufnr(fname)
  if bufnr == -1 or not vim.api.nvim_buf_is_loaded(bufnr) then
    return nil,
      vim.lsp.rpc.rpc_response_error(vim.lsp.protocol.ErrorCodes.InvalidParams, fname .. ' is not open in Neovim')
  end
  local ok, err = pcall(vim.api.nvim_buf_call, bufnr, function()
    vim.cmd('silent write')
  end)
  if not ok then
    return nil,
      vim.lsp.rpc.rpc_response_error(
        vim.lsp.protocol.ErrorCodes.InternalError,
        'saving ' .. fname .. ' failed: ' .. tostring(err)
      )
  end
  return vim.NIL
end

--- Closes the current undo step of every loaded buffer a WorkspaceEdit touches (`:h undo-break`).
local function break_undo(edit)
  local uris = {}
  for _, change in ipairs(edit.documentChanges or {}) do
    if change.textDocument then
      table.insert(uris, change.textDocument.uri)
    end
  end
  for uri in pairs(edit.changes or {}) do
    table.insert(uris, uri)
  end
  for _, uri in ipairs(uris) do
    local bufnr = vim.fn.bufnr(vim.uri_to_fname(uri))
    if bufnr ~= -1 and vim.api.nvim_buf_is_loaded(bufnr) then
      vim.api.nvim_buf_call(bufnr, function()
        vim.cmd('let &g:undolevels = &g:undolevels')
      end)
    end
  end
end

--- workspace/applyEdit through Neovim's own handler, with the agent's edit as an undo step of
--- its own: without the breaks, an edit arriving right after the user typed joins the user's
--- undo step, and `u` would take back the user's text together with the agent's.
function M.apply_edit(err, params, ctx)
  if params and params.edit then
    break_undo(params.edit)
  end
  local result = vim.lsp.handlers['workspace/applyEdit'](err, params, ctx)
  if params and params.edit then
    break_undo(params.edit)
  end
  return result
end

return M
