-- Refreshes with rotation on: each response's new refresh token goes back into the pool,
-- so every request presents a current token, as real clients do. A response without a refresh token and an
-- ID token counts as bad ("Bad responses: N").
local pool = {}
local threads = {}
bad = 0

function init(args)
  local f = assert(io.open(os.getenv("TOKENS_FILE"), "r"))
  for line in f:lines() do pool[#pool + 1] = line end
  f:close()
  -- Each wrk thread takes its own slice of the tokens so no token is used by two threads.
  local slices = tonumber(os.getenv("THREADS") or "1")
  local mine = {}
  for i = id, #pool, slices do mine[#mine + 1] = pool[i] end
  pool = mine
end

local started = 0
function setup(thread)
  started = started + 1
  thread:set("id", started)
  threads[#threads + 1] = thread
end

wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"

function request()
  local token = table.remove(pool, 1)
  if token == nil then token = "exhausted" end
  return wrk.format(nil, nil, nil, '{"grantType":"refresh_token","refreshToken":"' .. token .. '"}')
end

function response(status, headers, body)
  local token = body:match('"refresh_token":"([^"]+)"')
  if token then pool[#pool + 1] = token end
  if status ~= 200 or not token or not body:find('"id_token":"', 1, true) then bad = bad + 1 end
end

function done(summary, latency, requests)
  local total = 0
  for _, thread in ipairs(threads) do total = total + thread:get("bad") end
  io.write(string.format("Bad responses: %d\n", total))
end
