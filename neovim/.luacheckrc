-- Neovim runs the plugin on LuaJIT. vim is Neovim's API; its fields (vim.env, vim.bo, and
-- in tests vim.ui.select and vim.notify) are set on purpose.
std = 'luajit'
globals = { 'vim' }
-- Line length is StyLua's to decide (.stylua.toml); it leaves long strings whole.
max_line_length = false
