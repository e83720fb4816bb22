--- Questions (tandem/askApproval) from a chat's turn: shown on the card of the tool call that
--- waits for the answer (over the separator when it has none), answered there by key when the
--- chat takes the answer, counted in the status line, announced when the chat is off screen.
local notify = require('tandem.notify')
local registry = require('tandem.chat.registry')
local transcript = require('tandem.chat.transcript')

local M = {}

local api = vim.api
local draw_card, draw_queue, row_of, visible =
  transcript.draw_card, transcript.draw_queue, transcript.row_of, transcript.visible

--- Questions asked so far, so the oldest waiting one is answered first.
local asked = 0

--- Redraws where the question is shown: its card, else the line over the separator.
local function redraw(chat, entry)
  local card = entry.tool_call and chat.cards[entry.tool_call]
  if card then
    card.waiting = chat.waiting[entry.id]
    if api.nvim_buf_is_valid(chat.buf) then
      draw_card(chat, card)
    end
  end
  if api.nvim_buf_is_valid(chat.buf) then
    draw_queue(chat) -- also redraws the status line
  end
end

--- Whether a window on screen shows row of the chat (the reader may have scrolled away).
local function in_view(chat, row)
  for _, w in ipairs(api.nvim_tabpage_list_wins(0)) do
    if api.nvim_win_get_buf(w) == chat.buf and row + 1 >= vim.fn.line('w0', w) and row + 1 <= vim.fn.line('w$', w) then
      return true
    end
  end
  return false
end

--- A tandem/askApproval question: shown in the chat whose session asks, and announced when it
--- is not on screen (the chat hidden, or scrolled away from it). With ask ({choices, answer})
--- the chat takes the answer: its keys (`chat.keys.allow`, `deny`, `allow_always`) call
--- ask.answer with the choice.
---@param q table the question's params
---@param text string the question as the prompt shows it
---@param ask {choices: table[], answer: fun(choice: table?)}?
---@return boolean shown whether a chat shows it
function M.on_question(q, text, ask)
  local chat = registry.chats[tostring(q.session or '')]
  if not chat then
    return false
  end
  asked = asked + 1
  local entry = { id = tostring(q.id), tool_call = q.toolCall, text = text, ask = ask, seq = asked }
  chat.waiting[entry.id] = entry
  redraw(chat, entry)
  local card = entry.tool_call and chat.cards[entry.tool_call]
  if not in_view(chat, card and row_of(chat, card.head) or transcript.sep_row(chat)) then
    notify(
      'the agent asks you something: '
        .. (q.steps and q.steps[1] and q.steps[1].text or 'a step')
        .. (visible(chat) and ' (it waits under its tool call in the chat)' or ' (:TandemChat shows the chat)'),
      vim.log.levels.WARN
    )
  end
  return true
end

--- The question is answered or settled.
function M.on_question_done(q)
  local chat = registry.chats[tostring(q.session or '')]
  local entry = chat and chat.waiting[tostring(q.id)]
  if not entry then
    return
  end
  chat.waiting[entry.id] = nil
  redraw(chat, entry)
end

--- The question a key answers: the one of the card under the cursor, else the oldest.
local function to_answer(chat)
  local card = transcript.card_at(chat, api.nvim_win_get_cursor(0)[1] - 1)
  if card and card.waiting and card.waiting.ask then
    return card.waiting
  end
  local oldest
  for _, e in pairs(chat.waiting) do
    if e.ask and (not oldest or e.seq < oldest.seq) then
      oldest = e
    end
  end
  return oldest
end

--- Answers a question waiting in the chat with kind (allow_once, reject_once, allow_always).
function M.answer(chat, kind)
  local entry = to_answer(chat)
  if not entry then
    notify('no question waits for an answer in this chat')
    return
  end
  for _, c in ipairs(entry.ask.choices) do
    if c.answer == kind then
      entry.ask.answer(c)
      return
    end
  end
  notify('this question does not offer that answer', vim.log.levels.WARN)
end

return M
