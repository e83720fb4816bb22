--- `@FILE` completion in the chat for blink.cmp. blink.cmp loads sources by module name, so
--- add it to your blink.cmp configuration (`:help tandem-chat-completion`):
---   sources = { per_filetype = { markdown = { inherit_defaults = true, 'tandem' } },
---               providers = { tandem = { name = 'tandem', module = 'tandem.blink' } } }
--- It offers items only in a chat buffer.
-- The completion engines call these as methods; most need no state.
-- luacheck: ignore 212/self
local chat = require('tandem.chat')

local source = {}

function source.new(opts)
  return setmetatable({ opts = opts or {} }, { __index = source })
end

function source:enabled()
  return chat.of_buf() ~= nil
end

function source:get_trigger_characters()
  return { '@' }
end

function source:get_completions(ctx, callback)
  local c = chat.of_buf()
  local before = ctx.line:sub(1, ctx.cursor[2])
  local base = before:match('@([%w%._/%-]*)$')
  if not c or not base then
    callback({ items = {}, is_incomplete_forward = false, is_incomplete_backward = false })
    return
  end
  local row = ctx.cursor[1] - 1
  local from = #before - #base
  local items = {}
  for _, f in ipairs(chat.complete_files(c.root, base)) do
    table.insert(items, {
      label = f.word,
      kind = 17, -- File
      textEdit = {
        newText = f.word,
        range = { start = { line = row, character = from }, ['end'] = { line = row, character = #before } },
      },
    })
  end
  callback({ items = items, is_incomplete_forward = false, is_incomplete_backward = false })
end

return source
