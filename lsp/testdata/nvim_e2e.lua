-- Drives webhooklint server from a headless Neovim (0.7+), as a user
-- would, and writes what the editor shows to $WL_OUT, one JSON object a
-- line. nvim_test.go runs it and checks the result.
local out = assert(io.open(os.getenv('WL_OUT'), 'w'))
local function emit(t) out:write(vim.fn.json_encode(t) .. '\n'); out:flush() end
local function say(s) emit({ say = s }) end

local function shown(bufnr)
  local ds = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    local lsp = (d.user_data or {}).lsp or {}
    table.insert(ds, {
      rule = lsp.code or d.code, line = d.lnum, col = d.col,
      end_line = d.end_lnum, end_col = d.end_col, severity = d.severity, message = d.message,
    })
  end
  return ds
end

local function has(bufnr, rule)
  for _, d in ipairs(shown(bufnr)) do if d.rule == rule then return true end end
  return false
end

-- Which buffers the server has published for: a clean file gets an
-- empty publish, which leaves no other trace.
local published = {}
local publish = vim.lsp.handlers['textDocument/publishDiagnostics']
vim.lsp.handlers['textDocument/publishDiagnostics'] = function(err, result, ctx, config)
  published[result.uri] = true
  return publish(err, result, ctx, config)
end

local client
local function open(file)
  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  local bufnr = vim.api.nvim_get_current_buf()
  vim.lsp.buf_attach_client(bufnr, client)
  return bufnr
end

local function wait(what, cond)
  if not vim.wait(120000, cond, 50) then error('timed out waiting for ' .. what) end
end

local ok, err = pcall(function()
  client = vim.lsp.start_client({
    name = 'webhooklint', cmd = { os.getenv('WL_BIN'), 'server' },
    root_dir = os.getenv('WL_ROOT'),
  })
  assert(client, 'the server did not start')

  -- 1. Files of real trees: what the editor shows for each.
  for file in string.gmatch(os.getenv('WL_FILES'), '[^\n]+') do
    local bufnr = open(file)
    wait('diagnostics of ' .. file, function() return published[vim.uri_from_bufnr(bufnr)] end)
    emit({ file = file, diagnostics = shown(bufnr) })
  end

  -- 2. An edit in the webhook's file updates its backend's file.
  local backend = open(os.getenv('WL_BACKEND'))
  local webhook = open(os.getenv('WL_WEBHOOK'))
  wait('backend-availability on the Deployment', function() return has(backend, 'backend-availability') end)
  say('backend.yaml shows backend-availability; webhook.yaml: failurePolicy: Fail -> Ignore')
  for i, l in ipairs(vim.api.nvim_buf_get_lines(webhook, 0, -1, false)) do
    if l == '  failurePolicy: Fail' then
      vim.api.nvim_buf_set_lines(webhook, i - 1, i, false, { '  failurePolicy: Ignore' })
    end
  end
  wait('backend-availability to go', function() return not has(backend, 'backend-availability') end)
  emit({ file = 'backend.yaml after the edit', diagnostics = shown(backend) })

  -- 3. A code action's edit removes its finding.
  vim.api.nvim_set_current_buf(webhook)
  wait('side-effects-value', function() return has(webhook, 'side-effects-value') end)
  local target
  for _, d in ipairs(vim.diagnostic.get(webhook)) do
    local lsp = (d.user_data or {}).lsp or {}
    if (lsp.code or d.code) == 'side-effects-value' then
      -- The LSP diagnostic back, as Neovim's own code action request does.
      target = {
        range = { start = { line = d.lnum, character = d.col }, ['end'] = { line = d.end_lnum, character = d.end_col } },
        severity = d.severity, message = d.message, source = d.source, code = lsp.code or d.code, data = lsp.data,
      }
    end
  end
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(webhook) }, range = target.range,
    context = { diagnostics = { target } },
  }
  local res = vim.lsp.buf_request_sync(webhook, 'textDocument/codeAction', params, 60000)
  local actions = res and res[client] and res[client].result or {}
  local chosen
  for _, a in ipairs(actions) do
    say('code action: ' .. a.title)
    if a.title:match('^Suppress') then chosen = a end
  end
  assert(chosen, 'no suppression action')
  vim.lsp.util.apply_workspace_edit(chosen.edit, 'utf-16')
  say('applied: ' .. chosen.title)
  wait('side-effects-value to go', function() return not has(webhook, 'side-effects-value') end)
  emit({ file = 'webhook.yaml after the action', diagnostics = shown(webhook),
    text = table.concat(vim.api.nvim_buf_get_lines(webhook, 8, 11, false), '\n') })
end)
if not ok then emit({ error = tostring(err) }) end
out:close()
vim.lsp.stop_client(client)
vim.cmd('qall!')
