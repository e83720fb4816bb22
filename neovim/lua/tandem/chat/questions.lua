--- Questions (tandem/askApproval) from a chat's turn: shown on the card of the tool call that
--- waits for the answer, counted in the status line, announced when the chat is off screen.
local notify = require('tandem.notify')
local registry = require('tandem.chat.registry')
local transcript = require('tandem.chat.transcript')

local M = {}

local api = vim.api
local draw_card, status_changed, visible = transcript.draw_card, transcript.status_changed, transcript.visible

--- A tandem/askApproval question: shown inside its tool call's card when it comes from a chat,
--- and announced when the chat is not on screen.
---@param q table the question's params
---@param text string the question as the prompt shows it
function M.on_question(q, text)
  local chat = registry.chats[tostring(q.session or '')]
  if not chat then
    return
  end
  chat.waiting[tostring(q.id)] = q.toolCall or true
  status_changed()
  local card = q.toolCall and chat.cards[q.toolCall]
  if card then
    card.waiting = text
    draw_card(chat, card)
  end
  if not visible(chat) then
    notify(
      'the agent asks you something: '
        .. (q.steps and q.steps[1] and q.steps[1].text or 'a step')
        .. ' (:TandemChat shows the chat)',
      vim.log.levels.WARN
    )
  end
end

--- The question is answered or settled.
function M.on_question_done(q)
  local chat = registry.chats[tostring(q.session or '')]
  if not chat then
    return
  end
  chat.waiting[tostring(q.id)] = nil
  status_changed()
  local card = q.toolCall and chat.cards[q.toolCall]
  if card and card.waiting then
    card.waiting = nil
    if api.nvim_buf_is_valid(chat.buf) then
      draw_card(chat, card)
    end
  end
end

return M
