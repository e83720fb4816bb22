--- tandem/languageQuery: what the other language servers attached in Neovim know (diagnostics,
--- symbols, definitions, references, hover), for the agent's `code` tool and the problems an
--- edit's reply lists. Positions on the wire are LSP's in UTF-16 (docs/protocol.md); Neovim's
--- diagnostics count bytes and a server may count UTF-8 or UTF-32, so each is converted.
local compat = require('tandem.compat')

local M = {}

local api = vim.api
local function rpc_error(msg)
  return vim.lsp.rpc.rpc_response_error(vim.lsp.protocol.ErrorCodes.InternalError, msg)
end

--- A settle answers once a file's diagnostics have not changed for this long.
local QUIET_MS = 200
--- How long the language servers have to answer a symbols, definition, references or hover
--- query: tandem stops waiting 3 s after asking.
local REQUEST_MS = 2500

--- DiagnosticChanged events so far (any buffer).
local generation = 0
--- Per file name: the generation of its last DiagnosticChanged and when it came (vim.uv.now).
local changed = {} ---@type table<string, {generation: integer, at: integer}>
--- The settles waiting, each re-checked on every DiagnosticChanged.
local settles = {} ---@type table<table, true>

--- The buffer named fname, if any (bufnr() would match the name as a pattern).
---@param fname string
---@return integer?
local function buffer_of(fname)
  for _, b in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_get_name(b) == fname then
      return b
    end
  end
end

--- The language-server clients attached to buf (without buf: running), tandem's own excepted
--- (it asks, it does not know), that are initialised and, with method, support it.
---@param buf integer?
---@param method string?
---@return vim.lsp.Client[]
function M.servers(buf, method)
  return vim.tbl_filter(function(c)
    return c.name ~= 'tandem' and c.initialized and (method == nil or compat.supports_method(c, method, buf))
  end, vim.lsp.get_clients({ bufnr = buf }))
end

--- The UTF-8 length of the character starting with byte c.
local function char_len(c)
  if c >= 0xF0 then
    return 4
  elseif c >= 0xE0 then
    return 3
  elseif c >= 0xC0 then
    return 2
  end
  return 1
end

--- The byte offset of index units of encoding into line; past its end, counted on in bytes.
---@param line string
---@param index integer
---@param encoding string 'utf-8', 'utf-16' or 'utf-32'
local function to_byte(line, index, encoding)
  if encoding == 'utf-8' then
    return index
  end
  local b, units = 0, 0
  while b < #line and units < index do
    local n = char_len(line:byte(b + 1))
    units = units + ((n == 4 and encoding == 'utf-16') and 2 or 1)
    b = b + n
  end
  return b + (index - units)
end

--- The units of encoding in the first byte bytes of line; past its end, counted on in bytes.
local function from_byte(line, byte, encoding)
  if encoding == 'utf-8' then
    return byte
  end
  local b, units = 0, 0
  while b < #line and b < byte do
    local n = char_len(line:byte(b + 1))
    units = units + ((n == 4 and encoding == 'utf-16') and 2 or 1)
    b = b + n
  end
  return units + math.max(byte - b, 0)
end

--- Lines of files, each file looked up once per answer: a loaded buffer's text, else the file
--- on disk (read once).
local function line_reader()
  local files = {} ---@type table<string, integer|string[]>
  return function(fname, row)
    if files[fname] == nil then
      local buf = buffer_of(fname)
      if buf and api.nvim_buf_is_loaded(buf) then
        files[fname] = buf
      else
        local f = io.open(fname, 'rb')
        files[fname] = f and vim.split(f:read('*a'), '\n', { plain = true }) or {}
        if f then
          f:close()
        end
      end
    end
    local file = files[fname]
    if type(file) == 'number' then
      return api.nvim_buf_get_lines(file, row, row + 1, false)[1] or ''
    end
    return file[row + 1] or ''
  end
end

--- Converts an LSP position of uri's file between encodings.
local function convert(line_of, uri, pos, from, to)
  if from == to or pos.character == 0 or not vim.startswith(uri, 'file:') then
    return pos
  end
  local line = line_of(vim.uri_to_fname(uri), pos.line)
  return { line = pos.line, character = from_byte(line, to_byte(line, pos.character, from), to) }
end

local function convert_range(line_of, uri, range, from)
  if not range then
    return nil
  end
  return {
    start = convert(line_of, uri, range.start, from, 'utf-16'),
    ['end'] = convert(line_of, uri, range['end'], from, 'utf-16'),
  }
end

--- A file's diagnostics as LSP diagnostics, in UTF-16.
local function lsp_diagnostics(buf, fname, line_of)
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    local function pos(lnum, col)
      return { line = lnum, character = col == 0 and 0 or from_byte(line_of(fname, lnum), col, 'utf-16') }
    end
    table.insert(out, {
      range = { start = pos(d.lnum, d.col), ['end'] = pos(d.end_lnum or d.lnum, d.end_col or d.col) },
      severity = d.severity,
      message = d.message,
      source = d.source,
      code = d.code,
    })
  end
  return out
end

--- Whether a settle need not wait for fname: no buffer loaded, or no language server on it.
local function uncovered(fname)
  local buf = buffer_of(fname)
  return not buf or not api.nvim_buf_is_loaded(buf) or #M.servers(buf) == 0
end

--- The diagnostics answer: the files of uris (each, [] when clean) or, without uris, every
--- file with problems; with after, also every file whose problems changed after it.
local function diagnostics_answer(uris, after)
  local line_of = line_reader()
  local files, listed = {}, {}
  local function add(fname)
    if listed[fname] then
      return
    end
    listed[fname] = true
    local buf = buffer_of(fname)
    table.insert(files, {
      uri = vim.uri_from_fname(fname),
      diagnostics = buf and lsp_diagnostics(buf, fname, line_of) or {},
    })
  end
  for _, uri in ipairs(uris or {}) do
    add(vim.uri_to_fname(uri))
  end
  if not uris then
    local with = {}
    for _, d in ipairs(vim.diagnostic.get()) do
      with[d.bufnr] = true
    end
    for buf in pairs(with) do
      local fname = api.nvim_buf_get_name(buf)
      if fname ~= '' and vim.bo[buf].buftype == '' then
        add(fname)
      end
    end
  end
  if after then
    for fname, c in pairs(changed) do
      if c.generation > after then
        add(fname)
      end
    end
  end
  return { generation = generation, files = files }
end

--- When to look at the settle s again: nil when it is due (each file settled, or needing no
--- wait, or the deadline passed), else the earliest moment one of its files may settle.
---@param s table
---@param now integer
---@return integer?
local function next_look(s, now)
  if now >= s.deadline then
    return nil
  end
  local wake
  for _, fname in ipairs(s.fnames) do
    local c = changed[fname]
    if c and c.generation > s.after then
      if now - c.at < QUIET_MS then
        wake = math.min(wake or s.deadline, c.at + QUIET_MS)
      end
    elseif not uncovered(fname) then
      -- Due only after a change of this file, which looks again itself, or at the deadline.
      wake = wake or s.deadline
    end
  end
  return wake
end

--- Answers the settle s if it is due; otherwise arms its timer for the next look.
local function check(s)
  local now = vim.uv.now()
  local wake = next_look(s, now)
  if wake then
    s.timer:start(
      math.max(wake - now, 1),
      0,
      vim.schedule_wrap(function()
        if settles[s] then
          check(s)
        end
      end)
    )
    return
  end
  settles[s] = nil
  s.timer:stop()
  s.timer:close()
  s.done(diagnostics_answer(s.uris, s.after))
end

--- Records a DiagnosticChanged, and re-checks the settles waiting for one.
---@param buf integer
function M.on_changed(buf)
  generation = generation + 1
  local fname = api.nvim_buf_get_name(buf)
  if fname ~= '' then
    changed[fname] = { generation = generation, at = vim.uv.now() }
  end
  for s in pairs(settles) do
    check(s)
  end
end

--- Sends method to every other language server on buf, and gives done every answer (each
--- {client, result}) once all answered or REQUEST_MS passed, or an error when none answered.
local function ask_servers(buf, method, params_for, done)
  local fname = api.nvim_buf_get_name(buf)
  local servers = M.servers(buf, method)
  if #servers == 0 then
    done(nil, string.format('no language server attached in Neovim answers %s for %s', method, fname))
    return
  end
  local answers, errors, ids, waiting, ended = {}, {}, {}, #servers, false
  local timer = assert(vim.uv.new_timer())
  local function finish()
    if ended then
      return
    end
    ended = true
    timer:stop()
    timer:close()
    local late = {}
    for c, id in pairs(ids) do
      compat.cancel_request(c, id)
      table.insert(late, c.name)
    end
    if #answers > 0 then
      done(answers)
    elseif #errors > 0 then
      done(nil, table.concat(errors, '; '))
    else
      done(nil, string.format('%s did not answer %s in %d ms', table.concat(late, ', '), method, REQUEST_MS))
    end
  end
  local function answered(c)
    ids[c] = nil
    waiting = waiting - 1
    if waiting == 0 then
      vim.schedule(finish)
    end
  end
  for _, c in ipairs(servers) do
    local replied = false
    local ok, id = compat.request(c, method, params_for(c), function(err, result)
      replied = true
      if err then
        table.insert(errors, string.format('%s: %s', c.name, err.message or vim.inspect(err)))
      elseif result ~= nil then
        table.insert(answers, { client = c, result = result })
      end
      answered(c)
    end, buf)
    if not ok then
      table.insert(errors, c.name .. ': the request could not be sent')
      answered(c)
    elseif not replied then
      ids[c] = id
    end
  end
  timer:start(REQUEST_MS, 0, vim.schedule_wrap(finish))
end

--- The buffer of uri's file, loaded (and so attached to the language servers that cover it).
local function loaded_buffer(uri)
  local buf = vim.uri_to_bufnr(uri)
  if not api.nvim_buf_is_loaded(buf) then
    vim.fn.bufload(buf)
  end
  return buf
end

--- A symbol's positions in UTF-16, children too.
local function convert_symbol(line_of, uri, sym, enc)
  local out = vim.deepcopy(sym)
  if sym.location then
    out.location.range = convert_range(line_of, sym.location.uri, sym.location.range, enc)
  end
  out.range = convert_range(line_of, uri, sym.range, enc)
  out.selectionRange = convert_range(line_of, uri, sym.selectionRange, enc)
  if sym.children then
    out.children = vim.tbl_map(function(child)
      return convert_symbol(line_of, uri, child, enc)
    end, sym.children)
  end
  return out
end

--- A Location or LocationLink in UTF-16.
local function convert_location(line_of, loc, enc)
  local out = vim.deepcopy(loc)
  if loc.targetUri then
    out.targetRange = convert_range(line_of, loc.targetUri, loc.targetRange, enc)
    out.targetSelectionRange = convert_range(line_of, loc.targetUri, loc.targetSelectionRange, enc)
  else
    out.range = convert_range(line_of, loc.uri, loc.range, enc)
  end
  return out
end

--- Hover contents (MarkupContent, MarkedString or an array of them) as one text.
local function hover_text(contents)
  if type(contents) == 'string' then
    return contents
  end
  if contents.kind then
    return contents.value or ''
  end
  if contents.language then
    return string.format('```%s\n%s\n```', contents.language, contents.value or '')
  end
  return table.concat(vim.tbl_map(hover_text, contents), '\n\n')
end

--- The requests to the language servers: method, and the answer made of their results.
local requests = {
  symbols = {
    method = 'textDocument/documentSymbol',
    answer = function(answers, uri, line_of)
      local symbols = {}
      for _, a in ipairs(answers) do
        for _, sym in ipairs(a.result) do
          table.insert(symbols, convert_symbol(line_of, uri, sym, a.client.offset_encoding))
        end
      end
      return { symbols = symbols }
    end,
  },
  definition = { method = 'textDocument/definition' },
  references = { method = 'textDocument/references', context = { includeDeclaration = true } },
  hover = {
    method = 'textDocument/hover',
    answer = function(answers)
      local texts = {}
      for _, a in ipairs(answers) do
        local text = hover_text(a.result.contents or '')
        if vim.trim(text) ~= '' then
          table.insert(texts, text)
        end
      end
      return { contents = table.concat(texts, '\n\n') }
    end,
  },
}

--- definition and references: every location, in UTF-16.
local function locations_answer(answers, _, line_of)
  local locations = {}
  for _, a in ipairs(answers) do
    -- A definition may be one Location rather than an array.
    local list = (a.result.uri or a.result.targetUri) and { a.result } or a.result
    for _, loc in ipairs(list) do
      table.insert(locations, convert_location(line_of, loc, a.client.offset_encoding))
    end
  end
  return { locations = locations }
end
requests.definition.answer = locations_answer
requests.references.answer = locations_answer

--- Answers params; done(result) or done(nil, message) once, later.
local function answer(params, done)
  if params.kind == 'diagnostics' then
    if not params.after then
      done(diagnostics_answer(params.uris))
      return
    end
    local s = {
      uris = params.uris or {},
      fnames = vim.tbl_map(vim.uri_to_fname, params.uris or {}),
      after = params.after,
      deadline = vim.uv.now() + (params.settleMs or 0),
      timer = assert(vim.uv.new_timer()),
      done = done,
    }
    settles[s] = true
    check(s)
    return
  end
  local r = requests[params.kind]
  if not r then
    done(nil, 'unknown kind ' .. vim.inspect(params.kind))
    return
  end
  if type(params.uri) ~= 'string' or (params.kind ~= 'symbols' and type(params.position) ~= 'table') then
    done(nil, params.kind .. ' needs uri' .. (params.kind ~= 'symbols' and ' and position' or ''))
    return
  end
  local uri = params.uri
  local buf = loaded_buffer(uri)
  local line_of = line_reader()
  ask_servers(buf, r.method, function(c)
    local p = { textDocument = { uri = uri } }
    if params.position then
      p.position = convert(line_of, uri, params.position, 'utf-16', c.offset_encoding)
      p.context = r.context
    end
    return p
  end, function(answers, err)
    if err then
      done(nil, err)
    else
      done(r.answer(answers, uri, line_of))
    end
  end)
end

--- The tandem/languageQuery handler. Neovim runs a server request's handler in a coroutine,
--- so it yields until the answer is ready without blocking the editor.
function M.query(_, params)
  local co = coroutine.running()
  local function done(result, err)
    vim.schedule(function()
      coroutine.resume(co, result, err)
    end)
  end
  local ok, err = pcall(answer, params or {}, done)
  if not ok then
    return nil, rpc_error('tandem/languageQuery failed: ' .. tostring(err))
  end
  local result, message = coroutine.yield()
  if message then
    return nil, rpc_error(message)
  end
  return result
end

return M
