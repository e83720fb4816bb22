--- Tells the user something, as tandem.
---@param msg string
---@param level integer? vim.log.levels, INFO when nil
return function(msg, level)
  vim.notify('tandem: ' .. msg, level or vim.log.levels.INFO)
end
