-- A mix of what apps do all day, for the soak: lookups, refreshes with rotation, password sign-ins and sign-ups.
-- Each thread keeps its own pool of refresh tokens (every response's rotated token goes back into it). DELAY_MS
-- paces each connection so the load can be held at a chosen fraction of capacity.
local pool = {}
local signups = 0
local thread_id = 1
local delay_ms = tonumber(os.getenv("DELAY_MS") or "0")
local id_token = os.getenv("ID_TOKEN")
local email = os.getenv("EMAIL")
local password = os.getenv("PASSWORD")
local key = os.getenv("API_KEY") or "soak"
-- Global, so done() can read each thread's count through thread:get.
bad = 0

function init(args)
  local f = assert(io.open(os.getenv("TOKENS_FILE"), "r"))
  local all = {}
  for line in f:lines() do all[#all + 1] = line end
  f:close()
  local slices = tonumber(os.getenv("THREADS") or "1")
  for i = id, #all, slices do pool[#pool + 1] = all[i] end
  thread_id = id
  math.randomseed(os.time() + id)
end

local started = 0
local threads = {}
function setup(thread)
  started = started + 1
  thread:set("id", started)
  threads[#threads + 1] = thread
end

local json = { ["Content-Type"] = "application/json" }

function request()
  local r = math.random()
  if r < 0.03 then
    signups = signups + 1
    local body = string.format('{"email":"soak-%d-%d-%d@example.com","password":"soak-password","returnSecureToken":true}',
      thread_id, os.time(), signups)
    return wrk.format("POST", "/v1/accounts:signUp?key=" .. key, json, body)
  elseif r < 0.08 then
    local body = string.format('{"email":"%s","password":"%s","returnSecureToken":true}', email, password)
    return wrk.format("POST", "/v1/accounts:signInWithPassword?key=" .. key, json, body)
  elseif r < 0.40 and #pool > 0 then
    local token = table.remove(pool, 1)
    return wrk.format("POST", "/v1/token?key=" .. key, json,
      '{"grantType":"refresh_token","refreshToken":"' .. token .. '"}')
  else
    return wrk.format("POST", "/v1/accounts:lookup?key=" .. key, json, '{"idToken":"' .. id_token .. '"}')
  end
end

function response(status, headers, body)
  local token = body:match('"refresh_token":"([^"]+)"')
  if token then pool[#pool + 1] = token end
  -- A 200 must carry what the call promises; anything else is counted as an error.
  if status ~= 200 or not (token or body:find('"idToken"') or body:find('"users"')) then bad = bad + 1 end
end

function delay()
  if delay_ms <= 0 then return 0 end
  return math.random(math.floor(delay_ms / 2), delay_ms + math.floor(delay_ms / 2))
end

function done(summary, latency, requests)
  local total = 0
  for _, thread in ipairs(threads) do total = total + (thread:get("bad") or 0) end
  io.write(string.format("soak-bad-responses: %d\n", total))
end
