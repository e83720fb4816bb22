--- tandem's approval questions (tandem/askApproval), answered in the chat buffer or with
--- vim.ui.select, and their settling (tandem/approvalSettled).
local config = require('tandem.config')
local notify = require('tandem.notify')

local M = {}

--- The questions on screen, by id: {settled?}.
local questions = {} ---@type table<string, table>

--- The choices of a question, as shown, with the answer kind each sends (docs/protocol.md).
local choices = {
  { title = 'Allow', answer = 'allow_once' },
  { title = 'Deny', answer = 'reject_once' },
  { title = 'Allow for this session', answer = 'allow_always' },
}

--- The prompt of a tandem/askApproval question: who asks, each step exactly as it will run,
--- its effects and the paths that are not plain workspace paths.
---@param q table
---@return string
function M.prompt(q)
  local what = ({ shell = 'run', document = 'access', mcp = 'call' })[q.kind] or 'run'
  local lines = {
    string.format(
      'tandem: %s (session %s) asks to %s:',
      tostring(q.who or 'the agent'),
      tostring(q.session or '?'),
      what
    ),
  }
  for _, step in ipairs(q.steps or {}) do
    table.insert(lines, '  ' .. tostring(step.text))
    if type(step.effects) == 'table' and #step.effects > 0 then
      table.insert(lines, '    effects: ' .. table.concat(step.effects, ', '))
    end
    for _, p in ipairs(step.paths or {}) do
      if p.class and p.class ~= 'inside' and p.class ~= 'harmless' then
        table.insert(lines, string.format('    %s: %s', p.class, p.real or p.path))
      end
    end
  end
  return table.concat(lines, '\n')
end

--- Whether vim.ui.select is still Neovim's own, an inputlist that holds the whole editor until
--- it is answered, rather than a picker plugin's (telescope-ui-select, dressing, snacks,
--- fzf-lua… replace it): Neovim's is the function defined in its runtime's lua/vim/ui.lua.
local function builtin_select()
  local source = debug.getinfo(vim.ui.select, 'S').source
  for _, f in ipairs(vim.api.nvim_get_runtime_file('lua/vim/ui.lua', true)) do
    if source == '@' .. f then
      return true
    end
  end
  return false
end

--- Whether a chat's question is answered in the chat buffer rather than with vim.ui.select
--- (`chat.questions`).
function M.in_chat()
  local mode = config.get().chat.questions
  return mode == 'buffer' or (mode == 'auto' and builtin_select())
end

--- Answers a tandem/askApproval request: in the chat buffer when the question is a chat's and
--- `chat.questions` says so, else with vim.ui.select. The request handler runs in a coroutine
--- (Neovim's RPC layer wraps server requests in one), so it waits for the answer without
--- blocking the editor. Closing the prompt sends no answer (`{answer: null}`): tandem never
--- takes that as a yes.
function M.ask(_, params)
  params = params or {}
  local id = tostring(params.id or '')
  local offered = {}
  for _, c in ipairs(choices) do
    if params.options == nil or vim.tbl_contains(params.options, c.answer) then
      table.insert(offered, c)
    end
  end
  local co = coroutine.running()
  local answered = false
  -- The first answer resumes the request; later ones (a key after a settle) are dropped.
  local function answer(choice)
    if answered then
      return
    end
    answered = true
    vim.schedule(function()
      coroutine.resume(co, choice)
    end)
  end
  local q = { params = params }
  questions[id] = q
  local prompt = M.prompt(params)
  -- Required here: tandem.chat is loaded with the client, after this module.
  local chat = require('tandem.chat')
  local ask = M.in_chat() and { choices = offered, answer = answer } or nil
  q.in_chat = chat.on_question(params, prompt, ask) and ask or nil
  if not q.in_chat then
    vim.ui.select(offered, {
      prompt = prompt .. '\n',
      kind = 'tandem.approval',
      format_item = function(c)
        return c.title
      end,
    }, answer)
  end
  local choice = coroutine.yield()
  questions[id] = nil
  chat.on_question_done(params)
  if q.settled and choice ~= nil then
    notify('that question was already settled (' .. q.settled .. '); your answer was not used')
  end
  return { answer = choice and choice.answer or vim.NIL }
end

--- tandem/approvalSettled: the question is over for any reason (answered here or elsewhere,
--- the step ended, cancelled). A prompt still open then no longer counts.
function M.settled(_, params)
  params = params or {}
  local q = questions[tostring(params.id or '')]
  if q then
    q.settled = params.settled or 'settled'
    require('tandem.chat').on_question_done(q.params)
    if q.in_chat then
      -- Nothing is left to answer in the chat: the request ends unanswered.
      q.in_chat.answer(nil)
    end
  end
end

--- The questions on screen: {id, settled} each (settled: how tandem settled it, or nil).
---@return {id: string, settled: string?}[]
function M.questions()
  local out = {}
  for id, q in pairs(questions) do
    table.insert(out, { id = id, settled = q.settled })
  end
  return out
end

return M
