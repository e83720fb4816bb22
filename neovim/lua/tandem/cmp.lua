--- `@FILE` completion in the chat for nvim-cmp (registered as the source `tandem` when
--- nvim-cmp is installed; the chat buffer uses it with nvim-cmp's buffer source).
-- The completion engines call these as methods; most need no state.
-- luacheck: ignore 212/self
local chat = require('tandem.chat')

local source = {}

function source.new()
  return setmetatable({}, { __index = source })
end

function source:is_available()
  return chat.of_buf() ~= nil
end

function source:get_trigger_characters()
  return { '@' }
end

function source:get_keyword_pattern()
  return [[@\?[[:alnum:]._/-]*]]
end

function source:complete(params, callback)
  local c = chat.of_buf()
  local base = params.context.cursor_before_line:match('@([%w%._/%-]*)$')
  if not c or not base then
    callback({ items = {}, isIncomplete = false })
    return
  end
  local items = {}
  for _, f in ipairs(chat.complete_files(c.root, base)) do
    table.insert(items, { label = '@' .. f.word, insertText = '@' .. f.word, filterText = '@' .. f.word, kind = 17 })
  end
  callback({ items = items, isIncomplete = false })
end

local M = {}

--- Registers the source with nvim-cmp (once) and turns it on in the chat buffer buf.
---@param buf integer
function M.attach(buf)
  local ok, cmp = pcall(require, 'cmp')
  if not ok then
    return
  end
  if not M.registered then
    cmp.register_source('tandem', source.new())
    M.registered = true
  end
  vim.api.nvim_buf_call(buf, function()
    cmp.setup.buffer({ sources = { { name = 'tandem' }, { name = 'buffer' } } })
  end)
end

M.source = source

return M
