-- Shared by the drivers: notes and the report a run leaves in $OUT.
local M = { notes = {} }

M.plug, M.answer, M.out = os.getenv('PLUG'), os.getenv('ANSWER'), os.getenv('OUT')
M.prompt = 'Read notes.txt, write docs/new.md, change beta to BETA, then show me ~/.ssh/id_test.'

function M.note(s) table.insert(M.notes, s) end

function M.add_plugins(names)
  for _, n in ipairs(names) do vim.opt.rtp:prepend(M.plug .. '/' .. n) end
end

-- finish writes the chat's text (lines), the notes, Neovim's messages, extra
-- (a function writing more), and the open notes.txt buffer before and after
-- :checktime run from its window (as on returning to it), then quits.
function M.finish(code, lines, extra)
  local f = assert(io.open(M.out, 'w'))
  f:write(table.concat(lines, '\n'), '\n\n==== driver notes\n', table.concat(M.notes, '\n'), '\n')
  f:write('\n==== messages\n', vim.fn.execute('messages'), '\n')
  if extra then extra(f) end
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    local name = vim.api.nvim_buf_get_name(b)
    if name:match('/notes%.txt$') then
      f:write(('\n==== buffer %s (modified: %s)\n'):format(name, vim.bo[b].modified))
      f:write(table.concat(vim.api.nvim_buf_get_lines(b, 0, -1, false), '\n'), '\n')
      vim.api.nvim_buf_call(b, function() pcall(vim.cmd, 'checktime ' .. b) end)
      f:write(('==== after :checktime (modified: %s)\n'):format(vim.bo[b].modified))
      f:write(table.concat(vim.api.nvim_buf_get_lines(b, 0, -1, false), '\n'), '\n')
    end
  end
  f:close()
  vim.cmd(code == 0 and 'qall!' or ('cquit ' .. code))
end

return M
