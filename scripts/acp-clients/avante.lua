-- Drives avante.nvim with tandem as its ACP agent, configured by the README's snippet.
-- nvim --headless -u NONE -i NONE -c 'luafile avante.lua', in the workspace, with
-- PLUG (the plugins' folder), ANSWER (reject|allow: the permission prompt's answer), OUT.
local run = dofile(vim.fs.dirname(debug.getinfo(1, 'S').source:sub(2)) .. '/common.lua')
run.add_plugins({ 'plenary.nvim', 'nui.nvim', 'avante.nvim' })
vim.cmd('runtime! plugin/avante.lua')

-- the README's snippet
require('avante').setup({
  provider = 'tandem',
  acp_providers = { tandem = {
    command = 'tandem', args = { 'acp' },
    env = vim.fn.environ(),
  } },
  behaviour = { auto_approve_tool_permissions = false },
})

local function sidebar_lines()
  local sb = require('avante').get()
  local b = sb and sb.containers.result and sb.containers.result.bufnr
  return b and vim.api.nvim_buf_is_valid(b) and vim.api.nvim_buf_get_lines(b, 0, -1, false) or {}
end

-- The permission prompt is a row of inline buttons under the tool call
-- (sidebar.permission_button_options); sidebar.permission_handler is what clicking one or <CR>
-- on it calls, with the button's option id.
local option = ({ reject = 'reject_once', allow = 'allow_once' })[run.answer]
local timer = vim.uv.new_timer()
timer:start(100, 100, vim.schedule_wrap(function()
  local sb = require('avante').get()
  if sb and sb.permission_handler and sb.permission_button_options then
    local shown, found = {}, false
    for _, b in ipairs(sb.permission_button_options) do
      table.insert(shown, ('%s "%s"'):format(b.id, b.name))
      found = found or b.id == option
    end
    run.note('permission buttons, in the order shown: ' .. table.concat(shown, ', '))
    if not found then timer:stop(); run.note('no button ' .. option); return run.finish(3, sidebar_lines()) end
    run.note('choosing ' .. option)
    sb.permission_handler(option)
  end
  if table.concat(sidebar_lines(), '\n'):find('SCRIPT%-END') then
    timer:stop(); run.note('final text shown')
    vim.defer_fn(function() run.finish(0, sidebar_lines()) end, 500)
  end
end))
vim.defer_fn(function() run.note('timeout'); run.finish(4, sidebar_lines()) end, 60000)

vim.cmd('edit notes.txt') -- the file is open, as when a user asks about it
require('avante.api').ask({ question = run.prompt })
